//! Number formatting shared by the text writers.

/// The shortest text that parses back to exactly `x` (plain digits for ordinary magnitudes,
/// scientific notation for very large or small ones). Integers print without a decimal point.
pub fn format_shortest(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || (1e-5..1e16).contains(&a) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// C's `printf("%.{precision}g", x)`: `precision` significant digits, trailing zeros removed,
/// scientific notation when the exponent is below -4 or at least `precision`. This is how
/// LIBSVM's tools write values, so output matches theirs byte for byte.
pub fn format_g(x: f64, precision: usize) -> String {
    if !x.is_finite() {
        // glibc spells a NaN with its sign bit set `-nan` (what x86's 0/0 gives).
        return if x.is_nan() && x.is_sign_negative() {
            "-nan".into()
        } else if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let p = precision.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Rounding to p significant digits first decides the exponent (9.9999995 -> 1e+01).
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values_are_spelled_as_glibc_spells_them() {
        // glibc's printf("%g") and ("%.17g"), as LIBSVM writes them in model files.
        for p in [6, 17] {
            assert_eq!(format_g(-0.0, p), "-0");
            assert_eq!(format_g(f64::INFINITY, p), "inf");
            assert_eq!(format_g(f64::NEG_INFINITY, p), "-inf");
            assert_eq!(format_g(f64::NAN, p), "nan");
            assert_eq!(format_g(-f64::NAN, p), "-nan");
        }
    }

    #[test]
    fn format_g_matches_printf() {
        // Expected strings are what glibc's printf("%g") prints.
        let cases = [
            (0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (0.5, "0.5"),
            (0.1234567, "0.123457"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (9.9999995, "10"),
            (999999.5, "1e+06"),
            (-0.333333333, "-0.333333"),
            (1e300, "1e+300"),
            (2.5e-300, "2.5e-300"),
            (100.0, "100"),
        ];
        for (x, want) in cases {
            assert_eq!(format_g(x, 6), want, "{x}");
        }
        assert_eq!(format_g(0.1, 17), "0.10000000000000001");
        assert_eq!(format_g(-0.25, 17), "-0.25");
    }

    #[test]
    fn shortest_round_trips() {
        for x in [
            0.0,
            1.0,
            -1.0,
            0.1,
            1e-300,
            1.5e300,
            123456789.125,
            -2.5e-7,
            f64::MIN_POSITIVE,
        ] {
            let s = format_shortest(x);
            assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
        }
        assert_eq!(format_shortest(2.0), "2");
        assert_eq!(format_shortest(1e-300), "1e-300");
    }
}
