//! Regression scores, as scikit-learn defines them.

use margin_core::{Result, validate};

fn check(truth: &[f64], predicted: &[f64]) -> Result<()> {
    crate::check_pair(truth.len(), predicted.len())?;
    validate::check_finite_slice(truth)?;
    validate::check_finite_slice(predicted)
}

/// `mean((y − ŷ)²)`.
pub fn mean_squared_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    Ok(truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p) * (t - p))
        .sum::<f64>()
        / truth.len() as f64)
}

/// `√MSE`.
pub fn root_mean_squared_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    mean_squared_error(truth, predicted).map(f64::sqrt)
}

/// `mean(|y − ŷ|)`.
pub fn mean_absolute_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    Ok(truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p).abs())
        .sum::<f64>()
        / truth.len() as f64)
}

/// The coefficient of determination `1 − SS_res / SS_tot`. When the truth is constant
/// (`SS_tot = 0`) it is 1 for a perfect prediction and 0 otherwise, as scikit-learn's
/// `r2_score` (with `force_finite`).
pub fn r2_score(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let ss_res: f64 = truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p) * (t - p))
        .sum();
    let ss_tot: f64 = truth.iter().map(|t| (t - mean) * (t - mean)).sum();
    Ok(if ss_tot == 0.0 {
        if ss_res == 0.0 { 1.0 } else { 0.0 }
    } else {
        1.0 - ss_res / ss_tot
    })
}

/// The median of `|y − ŷ|`.
pub fn median_absolute_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    let mut e: Vec<f64> = truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p).abs())
        .collect();
    e.sort_by(f64::total_cmp);
    let n = e.len();
    Ok(if n % 2 == 1 {
        e[n / 2]
    } else {
        (e[n / 2 - 1] + e[n / 2]) / 2.0
    })
}

/// `1 − Var(y − ŷ) / Var(y)` (1 for a perfect fit of constant truth, 0 otherwise, as
/// scikit-learn's `force_finite`).
pub fn explained_variance(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    let var = |v: &mut dyn Iterator<Item = f64>, n: usize| {
        let xs: Vec<f64> = v.collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64
    };
    let n = truth.len();
    let num = var(&mut truth.iter().zip(predicted).map(|(t, p)| t - p), n);
    let den = var(&mut truth.iter().copied(), n);
    Ok(if den == 0.0 {
        if num == 0.0 { 1.0 } else { 0.0 }
    } else {
        1.0 - num / den
    })
}

/// The largest `|y − ŷ|`.
pub fn max_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    Ok(truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p).abs())
        .fold(0.0, f64::max))
}

/// `mean(|y − ŷ| / max(|y|, ε))` with ε the machine epsilon, as scikit-learn (a fraction, not
/// a percentage; huge when some `y` is near 0).
pub fn mean_absolute_percentage_error(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    Ok(truth
        .iter()
        .zip(predicted)
        .map(|(t, p)| (t - p).abs() / t.abs().max(f64::EPSILON))
        .sum::<f64>()
        / truth.len() as f64)
}

/// The squared Pearson correlation of truth and prediction, computed as LIBSVM's svm-predict
/// reports it (from the five sums); 0 when either side is constant.
pub fn squared_correlation(truth: &[f64], predicted: &[f64]) -> Result<f64> {
    check(truth, predicted)?;
    let n = truth.len() as f64;
    let (mut sv, mut sy, mut svv, mut syy, mut svy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (&y, &v) in truth.iter().zip(predicted) {
        sv += v;
        sy += y;
        svv += v * v;
        syy += y * y;
        svy += v * y;
    }
    let num = (n * svy - sv * sy) * (n * svy - sv * sy);
    let den = (n * svv - sv * sv) * (n * syy - sy * sy);
    Ok(if den > 0.0 { num / den } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn values_match_scikit_learn() {
        // sklearn.metrics on y = [3, -0.5, 2, 7], ŷ = [2.5, 0, 2, 8].
        let (t, p) = ([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]);
        assert_eq!(mean_squared_error(&t, &p).unwrap(), 0.375);
        assert_eq!(mean_absolute_error(&t, &p).unwrap(), 0.5);
        assert!((r2_score(&t, &p).unwrap() - 0.948_608_137_044_967_9).abs() < 1e-15);
        assert_eq!(r2_score(&[1.0, 1.0], &[1.0, 1.0]).unwrap(), 1.0);
        assert_eq!(r2_score(&[1.0, 1.0], &[1.0, 2.0]).unwrap(), 0.0);
        // scikit-learn 1.9.1 on the same pair: 0.5, 0.9571734475374732, 1.0, 0.3273809523809524.
        assert_eq!(median_absolute_error(&t, &p).unwrap(), 0.5);
        assert!((explained_variance(&t, &p).unwrap() - 0.957_173_447_537_473_2).abs() < 1e-15);
        assert_eq!(max_error(&t, &p).unwrap(), 1.0);
        assert!(
            (mean_absolute_percentage_error(&t, &p).unwrap() - 0.327_380_952_380_952_4).abs()
                < 1e-15
        );
    }

    proptest! {
        #[test]
        fn squared_correlation_is_pearson_squared(pairs in proptest::collection::vec((-10.0f64..10.0, -10.0f64..10.0), 3..40)) {
            let (t, p): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
            let n = t.len() as f64;
            let (mt, mp) = (t.iter().sum::<f64>() / n, p.iter().sum::<f64>() / n);
            let cov: f64 = t.iter().zip(&p).map(|(a, b)| (a - mt) * (b - mp)).sum();
            let (vt, vp): (f64, f64) = (t.iter().map(|a| (a - mt).powi(2)).sum(), p.iter().map(|b| (b - mp).powi(2)).sum());
            let want = cov * cov / (vt * vp);
            prop_assert!((squared_correlation(&t, &p).unwrap() - want).abs() < 1e-9);
            let rmse = root_mean_squared_error(&t, &p).unwrap();
            prop_assert!((rmse * rmse - mean_squared_error(&t, &p).unwrap()).abs() < 1e-9);
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert!(mean_squared_error(&[], &[]).is_err());
        assert!(mean_squared_error(&[1.0], &[1.0, 2.0]).is_err());
        assert!(r2_score(&[f64::NAN], &[1.0]).is_err());
    }
}
