//! The kernel cache under an address-space limit (`prlimit --as`): asked for a budget larger
//! than the limit, it keeps to half of what was left when it was made, so that what the
//! solver allocates while the cache is full is still there to have. A cache that grew into
//! whatever the allocator granted left the next small allocation to abort (`margin train svc`
//! on a9a under 300 MB, issue 47).
//!
//! The test runs itself again as a child under the limit (the limit would bind every test of
//! this process otherwise), filling every column of a cheap synthetic source.

use std::ops::Range;
use std::process::Command;

use margin_kernels::{ColumnCache, ColumnSource};

/// Set in the child run.
const CHILD: &str = "MARGIN_CACHE_LIMIT_CHILD";
/// The child's address-space limit.
const LIMIT: u64 = 1_000_000_000;

/// A source of `n` positions whose columns cost nothing to compute.
struct Cheap(usize);

impl ColumnSource for Cheap {
    fn len(&self) -> usize {
        self.0
    }
    fn fill(&mut self, i: usize, range: Range<usize>, out: &mut [f32]) {
        for (t, v) in range.zip(out) {
            *v = (i ^ t) as f32;
        }
    }
    fn swap(&mut self, _i: usize, _j: usize) {}
}

/// In the child: every column of a matrix larger than the limit, then allocations of a
/// quarter of what was left before the cache grew, and of what the solver would add.
fn fill_then_allocate() {
    let left = margin_core::memory::address_space_left().expect("the child runs under a limit");
    // 16,384 columns of 16,384 floats: 1 GiB if all were kept.
    let n = 16_384;
    let mut cache = ColumnCache::new(Cheap(n), usize::MAX / 2).unwrap();
    for i in 0..n {
        let column = cache.column(i, n);
        assert_eq!(column[7], (i ^ 7) as f32);
    }
    let mut later: Vec<u8> = Vec::new();
    assert!(
        later.try_reserve_exact((left / 4) as usize).is_ok(),
        "the full cache left less than a quarter of the {left} bytes that were free"
    );
    drop(later);
    // What the solver allocates while running, infallibly.
    let grown: Vec<f64> = (0..1 << 20).map(f64::from).collect();
    assert_eq!(grown.len(), 1 << 20);
}

#[test]
fn a_full_cache_leaves_room_under_an_address_space_limit() {
    if std::env::var_os(CHILD).is_some() {
        fill_then_allocate();
        return;
    }
    let Ok(me) = std::env::current_exe() else {
        return;
    };
    let status = Command::new("prlimit")
        .arg(format!("--as={LIMIT}"))
        .arg(me)
        .args([
            "--exact",
            "cache_limit::a_full_cache_leaves_room_under_an_address_space_limit",
        ])
        .args(["--test-threads", "1"])
        .env(CHILD, "1")
        .status();
    match status {
        // Without util-linux's prlimit there is no limit to test under.
        Err(_) => println!("skipped: prlimit is not installed"),
        Ok(status) => assert!(status.success(), "the child run ended with {status}"),
    }
}
