//! Scores of predicted probabilities.

use margin_core::{DenseMatrix, Error, Result, validate};

/// Mean negative log-likelihood of the true classes under `proba` (row `i`, column `k`: the
/// probability that sample `i` is of class `k`). Probabilities are clipped to `[ε, 1 − ε]` (ε the
/// machine epsilon) as scikit-learn does, so a confident mistake costs about 36, not infinity.
pub fn log_loss(truth: &[usize], proba: &DenseMatrix) -> Result<f64> {
    crate::check_pair(truth.len(), proba.nrows())?;
    validate::check_finite(proba)?;
    let mut total = 0.0;
    for (i, &t) in truth.iter().enumerate() {
        if t >= proba.ncols() {
            return Err(Error::invalid_parameter(
                "class index",
                format!("{t} at sample {i}"),
                format!("below the {} probability columns", proba.ncols()),
            ));
        }
        // scikit-learn renormalizes rows before scoring.
        let row_sum: f64 = proba.row(i).iter().sum();
        let p = (proba.get(i, t) / row_sum).clamp(f64::EPSILON, 1.0 - f64::EPSILON);
        total -= p.ln();
    }
    Ok(total / truth.len() as f64)
}

/// Mean squared difference between the predicted probability of the positive class and the
/// outcome (0 or 1).
pub fn brier_score(positive: &[bool], probability: &[f64]) -> Result<f64> {
    crate::check_pair(positive.len(), probability.len())?;
    validate::check_finite_slice(probability)?;
    Ok(positive
        .iter()
        .zip(probability)
        .map(|(&y, &p)| (p - f64::from(u8::from(y))).powi(2))
        .sum::<f64>()
        / positive.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_scikit_learn() {
        // scikit-learn 1.9.1: log_loss 0.40421587449783086, brier_score_loss 0.1275 for
        // y = [0, 0, 1, 1, 0, 1], p = [0.1, 0.4, 0.35, 0.8, 0.35, 0.9].
        let y = [0usize, 0, 1, 1, 0, 1];
        let p = [0.1, 0.4, 0.35, 0.8, 0.35, 0.9];
        let rows: Vec<[f64; 2]> = p.iter().map(|&v| [1.0 - v, v]).collect();
        let m = DenseMatrix::from_rows(&rows).unwrap();
        assert!((log_loss(&y, &m).unwrap() - 0.404_215_874_497_830_86).abs() < 1e-15);
        let pos: Vec<bool> = y.iter().map(|&c| c == 1).collect();
        assert!((brier_score(&pos, &p).unwrap() - 0.1275).abs() < 1e-15);
        assert!(log_loss(&[2], &DenseMatrix::from_rows(&[[0.5, 0.5]]).unwrap()).is_err());
    }
}
