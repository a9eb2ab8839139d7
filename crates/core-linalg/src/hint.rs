//! Hints to the processor that change no result, only how soon memory arrives.

/// Asks for the cache line holding `p` ahead of its use. A hint only: it reads nothing a
/// program can see and never faults, whatever `p` points to (dangling, null or past the end
/// of a slice), so callers may name a line they are not sure they will read.
///
/// Loops that read scattered rows whose positions they know in advance (a coordinate
/// descent's next coordinate, a tree node's next samples) name the rows a few steps ahead:
/// the hardware prefetchers follow strides, not index lists.
#[inline(always)]
#[allow(unsafe_code)] // `_mm_prefetch` is an unsafe intrinsic
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a hint: it reads
        // nothing and cannot fault, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any address is accepted: in bounds, past the end, null.
    #[test]
    fn a_hint_never_faults() {
        let v = [1u8, 2, 3];
        prefetch(v.as_ptr());
        prefetch(v.as_ptr().wrapping_add(1 << 40));
        prefetch(std::ptr::null::<u64>());
        assert_eq!(v, [1, 2, 3]);
    }
}
