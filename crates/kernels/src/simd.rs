//! A vectorized `exp` for RBF-type kernels, chosen at run time.
//!
//! Users build with default flags (x86-64 baseline, SSE2), where `f64::exp` in a loop is a
//! scalar libm call per entry: the exponentials then cost three times the GEMM of an RBF Gram
//! matrix. Here the same branch-free polynomial is compiled twice — once for the baseline and
//! once with AVX2 + FMA — and the fast copy is taken when the CPU has those features
//! ([`margin_core::simd_dispatch!`]).

/// Arguments below this underflow: `exp(-708.39)` is the smallest normal double.
const MIN_ARG: f64 = -708.0;

margin_core::simd_dispatch! {
    /// `v[i] ← exp(v[i])` for arguments `≤ 0` (kernel exponents), to within 2 ulp of
    /// `f64::exp`; arguments below −708 give exactly 0 (the true value is below 3.3e-308),
    /// positive arguments are treated as 0, NaN stays NaN.
    pub fn exp_nonpositive_in_place(v: &mut [f64]) => exp_loop;
}

margin_core::simd_dispatch! {
    /// `out[i] = exp(args[i]) as f32`, bit for bit what libm's `exp` rounded to `f32` gives
    /// (the value LIBSVM's kernel cache stores), for any argument, at the speed of
    /// [`exp_nonpositive_in_place`].
    ///
    /// The fast exponential is within 2 ulp of libm's, so both round to the same `f32` unless
    /// the value lies within a few ulp of a midpoint between two `f32` (about one value in
    /// 10⁷), falls in the `f32` subnormal range, or the argument is positive (a cancelled RBF
    /// exponent): only those are recomputed with libm.
    pub(crate) fn exp_into_f32_as_libm(args: &[f64], out: &mut [f32]) => exp_f32_loop;
}

/// The fast exponential rounded to `f32`, with a flag per chunk (branch-free, so the loop
/// stays vectorized); only a flagged chunk, rare on any data, is revisited for libm's value.
#[inline(always)]
fn exp_f32_loop<const FMA: bool>(args: &[f64], out: &mut [f32]) {
    debug_assert_eq!(args.len(), out.len());
    const CHUNK: usize = 64;
    for (a, o) in args.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let mut suspect = false;
        for (&x, o) in a.iter().zip(o.iter_mut()) {
            let y = exp1::<FMA>(x);
            *o = y as f32;
            suspect |= rounds_apart(x, y);
        }
        if suspect {
            for (&x, o) in a.iter().zip(o.iter_mut()) {
                if rounds_apart(x, exp1::<FMA>(x)) {
                    *o = x.exp() as f32;
                }
            }
        }
    }
}

/// Whether `y`, within 2 ulp of `exp(x)`, might round to another `f32` than libm's `exp(x)`.
/// Written with `|`, not `||`, so that it vectorizes.
#[inline(always)]
fn rounds_apart(x: f64, y: f64) -> bool {
    // Below e^-87.3 an f32 is subnormal (fewer mantissa bits); below e^-103.97 every value
    // within a few ulp rounds to 0.
    const F32_NORMAL: f64 = -87.0;
    const F32_ZERO: f64 = -104.0;
    // The 29 bits an f64 → f32 rounding drops, and their midpoint.
    const DROPPED: u64 = (1 << 29) - 1;
    const MIDPOINT: i64 = 1 << 28;
    const SLACK: i64 = 8;
    let from_midpoint = (y.to_bits() & DROPPED) as i64 - MIDPOINT;
    (x > 0.0) | (F32_ZERO..F32_NORMAL).contains(&x) | (-SLACK..=SLACK).contains(&from_midpoint)
}

/// Arguments below this give 0 in [`rbf_into_f32`]: `exp(−87)` is `1.6e-38`, next to `f32`'s
/// smallest normal (`1.18e-38`).
const F32_MIN_ARG: f64 = -87.0;

margin_core::simd_dispatch! {
    /// `out[t] = exp(−γ · max(sq_a + sq[t] − 2 dots[t], 0))` in `f32`: a row of an RBF Gram
    /// matrix from its dot products and squared norms, within 2 `f32` ulp of libm's `exp`
    /// rounded to `f32`; values below `exp(−87)` (next to `f32`'s smallest normal) are 0.
    ///
    /// The argument and its reduction stay in `f64` (the cancellation in `‖x‖² + ‖z‖² − 2x·z`
    /// needs it); only the polynomial runs in `f32`, eight lanes at a time: a working-set
    /// solver stores its rows as `f32`, so a `f64` exponential would compute digits it throws
    /// away.
    pub(crate) fn rbf_into_f32(
        gamma: f64,
        sq_a: f64,
        dots: &[f64],
        sq: &[f64],
        out: &mut [f32],
    ) => rbf_f32_loop;
}

#[inline(always)]
fn rbf_f32_loop<const FMA: bool>(gamma: f64, sq_a: f64, dots: &[f64], sq: &[f64], out: &mut [f32]) {
    debug_assert!(dots.len() == out.len() && sq.len() == out.len());
    for ((o, &dot), &sq_t) in out.iter_mut().zip(dots).zip(sq) {
        let x = -gamma * (sq_a + sq_t - 2.0 * dot).max(0.0);
        *o = exp1_f32::<FMA>(x);
    }
}

#[inline(always)]
fn madd_f32<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `exp(x)` for `x ≤ 0` as `f32`: the reduction `x = n ln 2 + r` in `f64`, then a degree-7
/// Taylor polynomial for `e^r` in `f32` (truncation error below 6e-9 for `|r| ≤ ln2 / 2`)
/// scaled by `2^n`, `n ≥ −125`. Below [`F32_MIN_ARG`] it gives 0; NaN stays NaN.
#[inline(always)]
fn exp1_f32<const FMA: bool>(x: f64) -> f32 {
    let (_, n, r) = reduce::<FMA>(x.clamp(F32_MIN_ARG, 0.0));
    let r = r as f32;
    let mut p = TAYLOR[7] as f32;
    for k in (0..7).rev() {
        p = madd_f32::<FMA>(p, r, TAYLOR[k] as f32);
    }
    // n is an integer in −126..=0, so 127 + n are the exponent bits of a normal f32. They are
    // read from the mantissa of 127 + n + 1.5·2²³ (an f32 float-to-int `as` would not vectorize).
    const SHIFT_F32: f32 = 12_582_912.0;
    let biased = (n as f32 + (127.0 + SHIFT_F32)).to_bits() - SHIFT_F32.to_bits();
    let scale = f32::from_bits(biased << 23);
    let y = p * scale;
    if x < F32_MIN_ARG {
        0.0
    } else if x.is_nan() {
        f32::NAN
    } else {
        y
    }
}

#[inline(always)]
fn exp_loop<const FMA: bool>(v: &mut [f64]) {
    for x in v.iter_mut() {
        *x = exp1::<FMA>(*x);
    }
}

#[inline(always)]
fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `1/k!`, the Taylor coefficients of `e^r`.
const TAYLOR: [f64; 14] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];
/// Adding 1.5·2^52 rounds a double of magnitude below 2^51 to an integer held in the low
/// mantissa bits.
const REDUCE_SHIFT: f64 = 6_755_399_441_055_744.0;

/// Cody–Waite reduction `x = n ln 2 + r`, `|r| ≤ ln2 / 2`, for `x ≤ 0`: `(t, n, r)` with `n` an
/// integer-valued double and `t = n + 1.5·2^52`, whose low mantissa bits hold `n`.
#[inline(always)]
fn reduce<const FMA: bool>(x: f64) -> (f64, f64, f64) {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    let t = madd::<FMA>(x, LOG2E, REDUCE_SHIFT);
    let n = t - REDUCE_SHIFT;
    (t, n, madd::<FMA>(-n, LN2_LO, madd::<FMA>(-n, LN2_HI, x)))
}

/// The reduction of [`reduce`], then a degree-13 Taylor polynomial
/// for `e^r` (truncation error below 2e-17) scaled by `2^n` built from the exponent bits.
#[inline(always)]
fn exp1<const FMA: bool>(x: f64) -> f64 {
    let (t, _, r) = reduce::<FMA>(x.clamp(MIN_ARG, 0.0));
    let mut p = TAYLOR[13];
    for k in (0..13).rev() {
        p = madd::<FMA>(p, r, TAYLOR[k]);
    }
    let ni = (t.to_bits() as i64).wrapping_sub(REDUCE_SHIFT.to_bits() as i64);
    let scale = f64::from_bits(((ni + 1023) as u64) << 52);
    let y = p * scale;
    if x < MIN_ARG {
        0.0
    } else if x.is_nan() {
        x
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn matches_libm_exp_within_two_ulp() {
        let xs: Vec<f64> = (0..200_001)
            .map(|i| -708.0 * (i as f64 / 200_000.0).powi(3))
            .chain([0.0, -0.0, -1e-300, -0.5, -1.0])
            .collect();
        for fast in [true, false] {
            let mut v = xs.clone();
            if fast {
                exp_nonpositive_in_place(&mut v);
            } else {
                exp_loop::<false>(&mut v);
            }
            for (&x, &y) in xs.iter().zip(&v) {
                assert!(ulps(y, x.exp()) <= 2, "exp({x}) = {y}, libm {}", x.exp());
            }
        }
    }

    #[test]
    fn f32_values_are_libm_s_for_any_argument() {
        // Dense over the arguments kernels produce, the f32 subnormal range, positive
        // arguments of cancelled exponents, and the edges.
        let xs: Vec<f64> = (0..2_000_001)
            .map(|i| -110.0 * (i as f64 / 2_000_000.0).powi(2))
            .chain((0..20_001).map(|i| 1e-3 * i as f64 / 20_000.0))
            .chain([0.0, -0.0, -708.5, -800.0, f64::NEG_INFINITY, 3.0])
            .collect();
        let mut out = vec![0.0f32; xs.len()];
        exp_into_f32_as_libm(&xs, &mut out);
        for (&x, &y) in xs.iter().zip(&out) {
            assert_eq!(y.to_bits(), (x.exp() as f32).to_bits(), "exp({x})");
        }
        let mut nan = [0.0f32];
        exp_into_f32_as_libm(&[f64::NAN], &mut nan);
        assert!(nan[0].is_nan());
    }

    #[test]
    fn rbf_rows_in_f32_are_within_two_ulp_of_libm() {
        // Arguments −γ·d² over the whole range down to the cut, d² from dot products of
        // unit-norm pairs (so the f64 cancellation is exercised).
        let n = 400_001;
        let gamma = 0.5;
        let dots: Vec<f64> = (0..n)
            .map(|i| 1.0 - 90.0 * (i as f64 / (n - 1) as f64).powi(2))
            .collect();
        let sq = vec![1.0; n];
        for fast in [true, false] {
            let mut out = vec![0.0f32; n];
            if fast {
                rbf_into_f32(gamma, 1.0, &dots, &sq, &mut out);
            } else {
                rbf_f32_loop::<false>(gamma, 1.0, &dots, &sq, &mut out);
            }
            for t in 0..n {
                let x = -gamma * (2.0 - 2.0 * dots[t]).max(0.0);
                let want = x.exp() as f32;
                if x < F32_MIN_ARG {
                    assert_eq!(out[t], 0.0, "exp({x})");
                } else {
                    let apart = (out[t].to_bits() as i64 - want.to_bits() as i64).unsigned_abs();
                    assert!(apart <= 2, "exp({x}) = {}, libm {want}", out[t]);
                }
            }
        }
        assert!(exp1_f32::<false>(f64::NAN).is_nan());
        // A cancelled (negative) squared distance is clamped: the value is exp(0).
        let mut out = [0.0f32; 2];
        rbf_into_f32(1.0, 0.0, &[0.0, 1.0], &[0.0, 0.0], &mut out);
        assert_eq!(out, [1.0, 1.0]);
    }

    #[test]
    fn values_near_an_f32_midpoint_are_recomputed() {
        // 1 + 2^-24 is the midpoint between 1 and the next f32.
        let mid = 1.0 + f64::powi(2.0, -24);
        assert!(rounds_apart(-1e-9, mid));
        assert!(rounds_apart(-1e-9, f64::from_bits(mid.to_bits() + 3)));
        assert!(!rounds_apart(-1e-9, 1.0));
        assert!(rounds_apart(1e-9, 1.0));
        assert!(rounds_apart(-90.0, 1e-39));
    }

    #[test]
    fn edge_arguments() {
        let mut v = [-800.0, -708.5, f64::NEG_INFINITY, f64::NAN, 0.0];
        exp_nonpositive_in_place(&mut v);
        assert_eq!(&v[..3], &[0.0, 0.0, 0.0]);
        assert!(v[3].is_nan());
        assert_eq!(v[4], 1.0);
    }
}
