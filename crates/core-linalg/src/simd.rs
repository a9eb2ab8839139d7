//! Hot loops compiled twice, for the x86-64 baseline and for AVX2 + FMA, the copy chosen at run
//! time: users build with default flags, where a loop runs two lanes wide and
//! `mul_add` is a libm call, so the wide copy is what makes such a loop fast on their machines
//! without asking them for `RUSTFLAGS`.
//!
//! [`simd_dispatch!`](crate::simd_dispatch) is the one way margin's crates do it: it writes the
//! run-time check, the wide copy and its one `unsafe` call, so a crate writes only the loop.

/// Whether this CPU runs the AVX2 + FMA copies (the check is cached by the standard library).
#[cfg(target_arch = "x86_64")]
pub fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Defines a function that runs `kernel::<true>` (compiled with AVX2 + FMA enabled) when the
/// CPU has those features and `kernel::<false>` (the baseline) otherwise, with its arguments.
///
/// The kernel is a function of the same parameters with a `const FMA: bool` parameter, marked
/// `#[inline(always)]` so that each copy compiles it for its own features; `FMA` says where it
/// may call `mul_add` (a fused multiply-add rounds once, so results may differ in the last bits
/// between the copies; a kernel that never reads `FMA` gives the same bits in both). It should
/// be a whole loop, not a step of one. Tests call `kernel::<false>` to check the baseline on a
/// machine that runs the wide copy.
///
/// The dispatched function may not be generic, and its parameters are plain names.
///
/// ```
/// #[inline(always)]
/// fn dot_loop<const FMA: bool>(a: &[f64], b: &[f64]) -> f64 {
///     let mut sum = 0.0;
///     for (x, y) in a.iter().zip(b) {
///         sum = if FMA { x.mul_add(*y, sum) } else { sum + x * y };
///     }
///     sum
/// }
///
/// margin_core::simd_dispatch! {
///     /// `Σ a_i b_i`, the products added in order.
///     pub fn dot(a: &[f64], b: &[f64]) -> f64 => dot_loop;
/// }
///
/// assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
/// assert_eq!(dot_loop::<false>(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
/// ```
#[macro_export]
macro_rules! simd_dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $kernel:ident;
    ) => {
        $(#[$attr])*
        #[allow(unsafe_code)] // the call to the AVX2 + FMA copy, after the run-time check
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn wide($($arg: $ty),*) $(-> $ret)? {
                    $kernel::<true>($($arg),*)
                }
                if $crate::simd::has_avx2_fma() {
                    // SAFETY: the CPU has the features `wide` is compiled for.
                    return unsafe { wide($($arg),*) };
                }
            }
            $kernel::<false>($($arg),*)
        }
    };
}

#[cfg(test)]
mod tests {
    #[inline(always)]
    fn scaled_sum_loop<const FMA: bool>(v: &[f64], scale: f64, out: &mut f64) {
        let mut s = 0.0;
        for &x in v {
            s = if FMA {
                x.mul_add(scale, s)
            } else {
                s + x * scale
            };
        }
        *out = s;
    }

    crate::simd_dispatch! {
        /// A kernel that reads `FMA`, without a return value.
        fn scaled_sum(v: &[f64], scale: f64, out: &mut f64) => scaled_sum_loop;
    }

    /// The dispatched function computes what its kernel does, whichever copy runs.
    #[test]
    fn the_taken_copy_computes_the_kernel() {
        let mut out = 0.0;
        scaled_sum(&[1.0, 2.0, 3.5], 2.0, &mut out);
        assert_eq!(out, 13.0);
        scaled_sum(&[], 2.0, &mut out);
        assert_eq!(out, 0.0);
    }
}
