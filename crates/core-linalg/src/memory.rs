//! Asking for memory before using it.
//!
//! Every buffer whose size grows with the data (`n·d` records, `n²` Gram matrices, `d²`
//! covariances, `d`-long weight vectors when `d` comes from a file's largest feature index) is
//! requested here first. A request is refused with [`Error::OutOfMemory`], naming the size and
//! the way out, when
//!
//! - its byte count overflows, or is larger than the machine's physical memory (the operating
//!   system would promise it and then kill the process while it is being filled), or
//! - the allocator cannot provide it (`try_reserve`, so an address-space limit such as
//!   `ulimit -v` or `prlimit --as` gives an error, not an abort).
//!
//! faer's matrix products above 16³ multiply-adds also keep a fixed scratch on every thread
//! that runs one, which no caller can catch running out: a model asks for it with
//! [`check_products`] (sized by its largest product: small ones need none) before its first
//! product, or takes another path where [`products_fit`] says it cannot be had.
//!
//! ```
//! use margin_core::{memory, Error};
//!
//! let w: Vec<f64> = memory::filled_vec(1000, 0.0, "weights", memory::FEWER_FEATURES)?;
//! assert_eq!(w.len(), 1000);
//! let e = memory::filled_vec::<f64>(usize::MAX / 4, 0.0, "weights", memory::FEWER_FEATURES)
//!     .unwrap_err();
//! assert!(matches!(e, Error::OutOfMemory { .. }));
//! # Ok::<(), Error>(())
//! ```

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The way out for a buffer that grows with the feature count.
pub const FEWER_FEATURES: &str = "the data's largest feature index sets the width; use fewer features (renumber them, or select a subset) or a model that keeps sparse data sparse";
/// The way out for a dense copy of sparse records.
pub const DENSE_COPY: &str = "this model needs dense records; give it fewer rows or features, or use a model that reads sparse data as it is (SVMs, linear models, naive Bayes)";
/// The way out for a buffer that grows with the square of the sample count.
pub const FEWER_SAMPLES: &str = "use fewer samples, or a method whose memory is bounded (an SVM with a kernel cache, Nyström features)";
/// The way out while reading a file.
pub const SMALLER_INPUT: &str =
    "the input is larger than this machine can hold; split the file or use a smaller sample";

/// `count` values of type `T`, in bytes (saturating: an overflowing count is refused anyway).
pub fn bytes_of<T>(count: usize) -> u64 {
    bytes_of_grid::<T>(count, 1)
}

/// `a · b` values of type `T`, in bytes (saturating).
pub fn bytes_of_grid<T>(a: usize, b: usize) -> u64 {
    (a as u128)
        .saturating_mul(b as u128)
        .saturating_mul(std::mem::size_of::<T>() as u128)
        .min(u128::from(u64::MAX)) as u64
}

/// Requests at least this large are also tried on the allocator by [`check`].
const PROBE_BYTES: u64 = 64 << 20;

/// Refuses a request of `bytes` for `what` that the machine cannot hold (above its physical
/// memory), or, when it is large (64 MiB or more), that the allocator cannot provide right
/// now (an address-space limit such as `prlimit --as`): the bytes are reserved and released
/// at once, which touches no page. So a total asked for up front stands for buffers allocated
/// later by code that has no fallible allocation (faer's matrices, for one).
pub fn check(bytes: u64, what: &str, way_out: &str) -> Result<()> {
    if bytes > physical_memory() || bytes > isize::MAX as u64 {
        return Err(Error::out_of_memory(what, bytes, way_out));
    }
    if bytes >= PROBE_BYTES && !can_reserve(bytes) {
        return Err(Error::out_of_memory(what, bytes, way_out));
    }
    Ok(())
}

/// The way out for the scratch of faer's matrix products.
pub const PRODUCT_SCRATCH: &str = "raise the address-space limit (ulimit -v, prlimit --as) by this much, or run fewer threads (RAYON_NUM_THREADS)";

/// The largest product (`m · n · k` multiply-adds) faer hands to its small-product kernel
/// (nano-gemm, `NANO_GEMM_THRESHOLD` in faer 0.24), which keeps no scratch.
const SMALL_PRODUCT: u128 = 16 * 16 * 16;

/// Whether a product of an `m × k` by a `k × n` matrix stays within faer's small-product
/// kernel, which needs no scratch.
fn is_small(m: usize, n: usize, k: usize) -> bool {
    (m as u128)
        .checked_mul(n as u128)
        .and_then(|mn| mn.checked_mul(k as u128))
        .is_some_and(|mnk| mnk <= SMALL_PRODUCT)
}

/// Refuses, before faer's matrix products run, when their scratch does not fit; the largest
/// product the caller runs multiplies an `m × k` by a `k × n` matrix (for a decomposition of
/// an `r × c` matrix, pass `r, c, min(r, c)`: its blocked updates are no larger).
///
/// Products of at most 16³ multiply-adds run in faer's small-product kernel and need nothing,
/// so small problems (a four-row CSV, a handful of centres) are never refused. Larger ones
/// run in faer's x86-64 kernel (private-gemm-x86), which gives every thread that runs one a
/// buffer of twice the last-level cache it reads from sysfs, on the thread's first product and
/// with no way to report failure: under an address-space limit the process would abort, and
/// virtual machines report large caches (480 MiB on CI's). So [`product_scratch_bytes`] for
/// the calling thread and every pool thread is reserved and released once per process.
/// Callers that have another way to the same numbers (a per-pair loop) ask [`products_fit`]
/// instead and take it.
pub fn check_products(m: usize, n: usize, k: usize) -> Result<()> {
    if products_fit(m, n, k) {
        return Ok(());
    }
    Err(Error::out_of_memory(
        format!(
            "the scratch of faer's matrix products (twice the last-level cache on each of {} threads)",
            product_threads()
        ),
        product_scratch_bytes(),
        PRODUCT_SCRATCH,
    ))
}

/// Whether faer can run a product of an `m × k` by a `k × n` matrix here: it is small enough
/// to need no scratch, or the scratch of [`check_products`] can be had.
pub fn products_fit(m: usize, n: usize, k: usize) -> bool {
    static MET: OnceLock<()> = OnceLock::new();
    if is_small(m, n, k) || MET.get().is_some() {
        return true;
    }
    if !can_reserve(product_scratch_bytes()) {
        return false;
    }
    let _ = MET.set(());
    true
}

/// The bytes faer's matrix products reserve on the calling thread and every thread of the
/// current rayon pool: twice the last-level cache each, as private-gemm-x86 reckons it (the
/// sum of the machine's distinct L3 caches, at least 2 MiB and four L2s). Zero off x86-64,
/// where faer's products size their scratch by the product instead.
pub fn product_scratch_bytes() -> u64 {
    if !cfg!(target_arch = "x86_64") {
        return 0;
    }
    (product_threads() as u64).saturating_mul(2 * last_level_cache())
}

/// The threads that may run a product: the calling one and every thread of the current pool.
fn product_threads() -> usize {
    rayon::current_num_threads().max(1) + 1
}

/// The last-level cache as private-gemm-x86 sizes its buffers by: the sum of the distinct L3
/// caches sysfs lists, at least 2 MiB and four times the L2 (its defaults and floors).
fn last_level_cache() -> u64 {
    static BYTES: OnceLock<u64> = OnceLock::new();
    *BYTES.get_or_init(|| {
        let mut l2 = 256 << 10;
        let mut l3 = std::collections::BTreeMap::new();
        let cpus = std::fs::read_dir("/sys/devices/system/cpu")
            .into_iter()
            .flatten();
        for index in cpus
            .flatten()
            .filter_map(|cpu| std::fs::read_dir(cpu.path().join("cache")).ok())
            .flatten()
            .flatten()
        {
            let read = |name: &str| std::fs::read_to_string(index.path().join(name)).ok();
            let (Some(level), Some(size)) =
                (read("level"), read("size").and_then(|s| cache_size(&s)))
            else {
                continue;
            };
            if matches!(read("type").as_deref().map(str::trim), Some("Instruction")) {
                continue;
            }
            match level.trim() {
                "2" => l2 = l2.max(size),
                "3" => {
                    l3.insert(read("shared_cpu_list").unwrap_or_default(), size);
                }
                _ => {}
            }
        }
        l3.values().sum::<u64>().max(2 << 20).max(4 * l2)
    })
}

/// A sysfs cache size (`491520K`, `2M`, `32768`) in bytes.
fn cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// Whether the allocator can provide `bytes` now: reserved and released at once, which
/// touches no page.
fn can_reserve(bytes: u64) -> bool {
    let mut probe: Vec<u8> = Vec::new();
    usize::try_from(bytes).is_ok_and(|b| probe.try_reserve_exact(b).is_ok())
}

/// A vector of `len` copies of `value`, asked for first.
pub fn filled_vec<T: Clone>(len: usize, value: T, what: &str, way_out: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, len, what, way_out)?;
    v.resize(len, value);
    Ok(v)
}

/// A vector of `rows · cols` copies of `value` (a grid in one buffer, such as `n × d` values
/// stored by feature), asked for first; a product that overflows `usize` is refused as too
/// large, never wrapped around.
pub fn filled_grid<T: Clone>(
    rows: usize,
    cols: usize,
    value: T,
    what: &str,
    way_out: &str,
) -> Result<Vec<T>> {
    let len = rows
        .checked_mul(cols)
        .ok_or_else(|| Error::out_of_memory(what, bytes_of_grid::<T>(rows, cols), way_out))?;
    filled_vec(len, value, what, way_out)
}

/// An empty vector with room for `len` values, asked for first.
pub fn vec_with_capacity<T>(len: usize, what: &str, way_out: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    reserve(&mut v, len, what, way_out)?;
    Ok(v)
}

/// Makes room for `additional` more values in `v`, or refuses.
pub fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str, way_out: &str) -> Result<()> {
    let total = v.len().saturating_add(additional);
    let bytes = bytes_of::<T>(total);
    check(bytes, what, way_out)?;
    v.try_reserve_exact(additional)
        .map_err(|_| Error::out_of_memory(what, bytes, way_out))
}

/// Makes room for one more value in a vector that grows while input is read: doubles the
/// capacity when it is full, through `try_reserve`, so running out is an error.
#[inline]
pub fn grow<T>(v: &mut Vec<T>, what: &str) -> Result<()> {
    if v.len() == v.capacity() {
        let additional = v.len().max(64);
        let bytes = bytes_of::<T>(v.len().saturating_add(additional));
        check(bytes, what, SMALLER_INPUT)?;
        v.try_reserve(additional)
            .map_err(|_| Error::out_of_memory(what, bytes, SMALLER_INPUT))?;
    }
    Ok(())
}

/// The address space this process may still map: its address-space limit (`ulimit -v`,
/// `prlimit --as`, `RLIMIT_AS`) less what it maps now. `None` where no limit is set or where it
/// cannot be read (outside Linux).
pub fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes": the soft limit is the one enforced.
    let limit: u64 = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped_kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(limit.saturating_sub(mapped_kib.saturating_mul(1024)))
}

/// A cache's budget of `requested` bytes, cut to half of the address space left under a limit
/// ([`address_space_left`]). A cache that grows into whatever the allocator still grants would
/// leave nothing for the rest of the process, whose next small allocation would then abort; a
/// cache is an optimization, so a smaller one computes the same answers.
pub fn cache_budget(requested: u64) -> u64 {
    match address_space_left() {
        Some(left) => requested.min(left / 2),
        None => requested,
    }
}

/// The machine's physical memory in bytes (`u64::MAX` where it cannot be read).
pub fn physical_memory() -> u64 {
    static TOTAL: OnceLock<u64> = OnceLock::new();
    *TOTAL.get_or_init(|| {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
                kib.checked_mul(1024)
            })
            .unwrap_or(u64::MAX)
    })
}

/// A byte count for people: `16.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_saturate_instead_of_overflowing() {
        assert_eq!(bytes_of::<f64>(3), 24);
        assert_eq!(bytes_of_grid::<f64>(usize::MAX, usize::MAX), u64::MAX);
        assert_eq!(human_bytes(17_179_869_184), "16.0 GiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
    }

    #[test]
    fn impossible_requests_are_typed_errors_naming_size_and_way_out() {
        let e = filled_vec::<f64>(1 << 61, 0.0, "the weight vector", FEWER_FEATURES).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, Error::OutOfMemory { bytes, .. } if bytes == u64::MAX));
        assert!(text.contains("the weight vector"), "{text}");
        assert!(text.contains("EiB"), "{text}");
        assert!(text.contains("fewer features"), "{text}");
    }

    #[test]
    fn grids_whose_size_overflows_are_refused_not_wrapped() {
        // 2^33 · 2^31 wraps to 0 in a 64-bit usize.
        let e = filled_grid(1usize << 33, 1 << 31, 0u8, "a grid", FEWER_FEATURES).unwrap_err();
        assert!(
            matches!(e, Error::OutOfMemory { bytes, .. } if bytes == u64::MAX),
            "{e}"
        );
        assert_eq!(
            filled_grid(3, 4, 7u32, "a grid", FEWER_FEATURES).unwrap(),
            vec![7; 12]
        );
    }

    #[test]
    fn cache_sizes_read_as_sysfs_writes_them() {
        assert_eq!(cache_size("491520K\n"), Some(480 << 20));
        assert_eq!(cache_size("2M"), Some(2 << 20));
        assert_eq!(cache_size("1G"), Some(1 << 30));
        assert_eq!(cache_size("32768"), Some(32768));
        assert_eq!(cache_size("big"), None);
        assert_eq!(cache_size(""), None);
    }

    #[test]
    fn the_product_scratch_is_twice_the_cache_per_thread_and_met_here() {
        let threads = product_threads() as u64;
        let bytes = product_scratch_bytes();
        if cfg!(target_arch = "x86_64") {
            assert_eq!(bytes % (2 * threads), 0);
            assert!(bytes >= threads * 2 * (2 << 20), "{bytes}");
        }
        // No limit in the test process: the products' scratch fits, and a met check stays met.
        check_products(1000, 1000, 1000).unwrap();
        check_products(1000, 1000, 1000).unwrap();
    }

    #[test]
    fn products_within_the_small_kernel_need_no_scratch() {
        assert!(is_small(16, 16, 16) && is_small(4, 1000, 1) && is_small(0, usize::MAX, 7));
        assert!(!is_small(17, 16, 16) && !is_small(usize::MAX, usize::MAX, usize::MAX));
    }

    #[test]
    fn caches_leave_half_the_address_space_left() {
        // The test process has no limit unless the machine sets one: then the budget is cut.
        match address_space_left() {
            None => assert_eq!(cache_budget(u64::MAX), u64::MAX),
            Some(left) => assert_eq!(cache_budget(u64::MAX), left / 2),
        }
        assert_eq!(cache_budget(1 << 20), 1 << 20);
    }

    #[test]
    fn possible_requests_are_met() {
        let v = filled_vec(10, 1u8, "x", FEWER_FEATURES).unwrap();
        assert_eq!(v, vec![1u8; 10]);
        let mut g: Vec<u32> = Vec::new();
        for i in 0..1000 {
            grow(&mut g, "values").unwrap();
            g.push(i);
        }
        assert_eq!(g.len(), 1000);
    }
}
