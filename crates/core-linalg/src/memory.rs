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
    if bytes >= PROBE_BYTES {
        let mut probe: Vec<u8> = Vec::new();
        probe
            .try_reserve_exact(bytes as usize)
            .map_err(|_| Error::out_of_memory(what, bytes, way_out))?;
    }
    Ok(())
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
