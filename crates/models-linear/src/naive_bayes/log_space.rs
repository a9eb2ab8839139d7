//! Log-space arithmetic shared by the three models: joint log-likelihoods become labels and
//! normalised (log-)probabilities without ever leaving log space, so a sample whose
//! likelihoods all underflow `exp` still gets a correct answer.

use margin_core::{DenseMatrix, Error, Result};

/// The error for a sample no class can explain (every joint log-likelihood is −∞).
fn impossible(row: usize) -> Error {
    Error::Numerical(format!(
        "sample {row} has probability zero under every class: with alpha = 0 a feature never \
         seen in a class rules that class out, and for GaussianNB a value extremely far from \
         every class mean underflows (use alpha > 0, or scale the features)"
    ))
}

/// The index of the largest entry (the first one on ties, as `numpy.argmax`); an error when
/// every entry is −∞.
pub(crate) fn argmax(row: &[f64], sample: usize) -> Result<usize> {
    let mut best = 0;
    for (k, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = k;
        }
    }
    if row[best] == f64::NEG_INFINITY {
        return Err(impossible(sample));
    }
    Ok(best)
}

/// Subtracts `log Σ_k exp(row_k)` from every entry, turning joint log-likelihoods into
/// log-probabilities. The sum is taken after shifting by the maximum, so `exp` never overflows
/// and the largest term is exactly 1.
pub(crate) fn normalize_row(row: &mut [f64], sample: usize) -> Result<()> {
    let max = row[argmax(row, sample)?];
    let sum: f64 = row.iter().map(|&v| (v - max).exp()).sum();
    let log_norm = max + sum.ln();
    row.iter_mut().for_each(|v| *v -= log_norm);
    Ok(())
}

/// Normalises every row of a joint log-likelihood matrix in place.
pub(crate) fn normalize_rows(jll: &mut DenseMatrix) -> Result<()> {
    for i in 0..jll.nrows() {
        normalize_row(jll.row_mut(i), i)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_survives_likelihoods_that_underflow_exp() {
        let mut row = [-2000.0, -2000.0 - std::f64::consts::LN_2, f64::NEG_INFINITY];
        normalize_row(&mut row, 0).unwrap();
        let p: Vec<f64> = row.iter().map(|v| v.exp()).collect();
        // exp(−2000) is 0 in f64; the answer keeps the ratio to the rounding of −2000 − ln 2
        // (one ulp near 2000 is 2.3e-13).
        assert!((p[0] - 2.0 / 3.0).abs() < 1e-12 && (p[1] - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(p[2], 0.0);
    }

    #[test]
    fn a_sample_no_class_explains_is_an_error_not_nan() {
        let mut row = [f64::NEG_INFINITY; 3];
        assert!(
            matches!(normalize_row(&mut row, 4), Err(Error::Numerical(m)) if m.contains("sample 4"))
        );
        assert!(argmax(&row, 4).is_err());
        assert_eq!(argmax(&[1.0, 3.0, 3.0], 0).unwrap(), 1);
    }
}
