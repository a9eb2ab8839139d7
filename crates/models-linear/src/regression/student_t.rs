//! Student's t distribution: the quantile prediction intervals need.
//!
//! The upper tail is `P(T > t) = ½ I_x(ν/2, ½)` with `x = ν / (ν + t²)`, where `I` is the
//! regularized incomplete beta function, evaluated by its continued fraction (modified Lentz).
//! The quantile solves `P(T > t) = q` by Newton's method on that tail, kept inside a bracket by
//! bisection, so it converges for every ν and every q a `f64` can hold. Working with the tail
//! (rather than the CDF) keeps full relative precision for confidence levels close to 1.

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, nine terms: relative error about 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (k, &c) in C.iter().enumerate().skip(1) {
        sum += c / (x + k as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// `ln Γ(a + b) − ln Γ(a)`. For large `a` the two logarithms are huge and nearly equal, so
/// their difference comes from Stirling's series instead, where every term is moderate.
fn ln_gamma_ratio(a: f64, b: f64) -> f64 {
    if a < 20.0 {
        return ln_gamma(a + b) - ln_gamma(a);
    }
    // ln Γ(x) = (x − ½) ln x − x + ½ ln 2π + S(x), S(x) = 1/(12x) − 1/(360x³) + 1/(1260x⁵) − …
    let stirling = |x: f64| {
        let x2 = x * x;
        (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * x2)) / x2) / x2) / x
    };
    b * a.ln() + (a + b - 0.5) * (b / a).ln_1p() - b + (stirling(a + b) - stirling(a))
}

/// The continued fraction of `I_x(a, b)` (without its prefactor), convergent for
/// `x < (a + 1) / (a + b + 2)`.
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step.
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        // Odd step.
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function `I_x(a, b)`, given both `x` and `1 − x` so that
/// neither loses digits to cancellation.
fn regularized_incomplete_beta(a: f64, b: f64, x: f64, one_minus_x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if one_minus_x <= 0.0 {
        return 1.0;
    }
    // ln x from 1 − x when x is near 1 (and conversely): the rounding of x itself would
    // otherwise cost digits, multiplied by a large a.
    let ln_x = if x > 0.5 {
        (-one_minus_x).ln_1p()
    } else {
        x.ln()
    };
    let ln_1mx = if one_minus_x > 0.5 {
        (-x).ln_1p()
    } else {
        one_minus_x.ln()
    };
    let ln_front = a * ln_x + b * ln_1mx + ln_gamma_ratio(a, b) - ln_gamma(b);
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, one_minus_x) / b
    }
}

/// `P(T > t)` for `t ≥ 0` and `df` degrees of freedom.
fn upper_tail(t: f64, df: f64) -> f64 {
    let t2 = t * t;
    // x = ν/(ν + t²) and 1 − x = t²/(ν + t²), each computed directly.
    let denom = df + t2;
    0.5 * regularized_incomplete_beta(0.5 * df, 0.5, df / denom, t2 / denom)
}

/// The density at `t`.
fn density(t: f64, df: f64) -> f64 {
    let ln_norm = ln_gamma_ratio(0.5 * df, 0.5) - 0.5 * (df * std::f64::consts::PI).ln();
    (ln_norm - 0.5 * (df + 1.0) * (t * t / df).ln_1p()).exp()
}

/// The `p`-quantile of Student's t with `df > 0` degrees of freedom, for `p` in (0, 1).
///
/// Callers validate `p` and `df`; outside those ranges the result is NaN.
pub(crate) fn t_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    let (q, sign) = if p > 0.5 { (1.0 - p, 1.0) } else { (p, -1.0) };
    // Bracket [lo, hi] with tail(lo) ≥ q > tail(hi); the tail falls from ½ at t = 0.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while upper_tail(hi, df) > q && hi < f64::MAX / 4.0 {
        lo = hi;
        hi *= 2.0;
    }
    let mut t = 0.5 * (lo + hi);
    for _ in 0..200 {
        let excess = upper_tail(t, df) - q;
        if excess > 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        // Newton on tail(t) − q, whose derivative is −density(t).
        let newton = t + excess / density(t, df);
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - t).abs() <= 4.0 * f64::EPSILON * t.abs() || hi - lo <= f64::EPSILON * hi {
            t = next;
            break;
        }
        t = next;
    }
    sign * t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy.stats.t.ppf(p, df), scipy 1.17.1.
    const TABLE: [(f64, f64, f64); 13] = [
        (0.975, 10.0, 2.228138851986274),
        (0.975, 1.0, 12.706204736174694),
        (0.975, 2.0, 4.302652729749462),
        (0.995, 5.0, 4.032142983555228),
        (0.95, 30.0, 1.697260886593957),
        (0.975, 1000.0, 1.9623390808264083),
        (0.9, 3.0, 1.637744353696209),
        (0.999999, 4.0, 41.5778541501515),
        (0.6, 7.0, 0.2631668613520229),
        (0.025, 10.0, -2.2281388519862753),
        (0.975, 1e6, 1.959966356814107),
        (0.5000001, 12.0, 2.5593362569887244e-07),
        (0.99999999, 1.0, 31830988.45843601),
    ];

    #[test]
    fn quantiles_match_the_table() {
        for (p, df, want) in TABLE {
            let got = t_quantile(p, df);
            // The last digits of p itself carry ~1e-16 relative, amplified near p = ½.
            let tol = if (p - 0.5).abs() < 1e-3 { 1e-8 } else { 1e-11 };
            assert!(
                ((got - want) / want).abs() < tol,
                "t({p}, {df}) = {got}, want {want}"
            );
        }
        assert!((t_quantile(0.975, 10.0) - 2.228138851986).abs() < 1e-12);
    }

    #[test]
    fn tail_and_quantile_are_inverse() {
        for df in [1.0, 2.5, 9.0, 120.0] {
            for q in [0.4, 0.1, 1e-3, 1e-9] {
                // The tail the quantile sees is 1 − p, which rounding makes differ from q.
                let p = 1.0 - q;
                let tail = 1.0 - p;
                let t = t_quantile(p, df);
                assert!(
                    ((upper_tail(t, df) - tail) / tail).abs() < 1e-10,
                    "{df} {q}"
                );
            }
        }
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut fact = 1.0f64;
        for n in 1..30 {
            assert!((ln_gamma(n as f64) - fact.ln()).abs() < 1e-13 * fact.ln().max(1.0));
            fact *= n as f64;
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        // Γ(a + ½)/Γ(a) at a = 20 both ways, and its large-a limit √a.
        assert!((ln_gamma_ratio(20.0, 0.5) - (ln_gamma(20.5) - ln_gamma(20.0))).abs() < 1e-13);
        assert!((ln_gamma_ratio(1e12, 0.5) - 0.5 * 1e12f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn invalid_arguments_give_nan() {
        assert!(t_quantile(0.0, 3.0).is_nan());
        assert!(t_quantile(1.0, 3.0).is_nan());
        assert!(t_quantile(0.9, 0.0).is_nan());
        assert_eq!(t_quantile(0.5, 3.0), 0.0);
    }
}
