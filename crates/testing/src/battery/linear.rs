//! The check every linear model's `coef()` and `intercept()` must pass: scikit-learn's shapes
//! (one row per output, one intercept per row) and `coef·x + intercept` equal to the decision
//! values or predictions the model reports.

use margin_core::DenseMatrix;

/// Panics unless `coef` has `rows × x.ncols()` entries, `intercept` one per row, and
/// `coef·x_i + intercept` (summed here term by term, independently of the model's own
/// products) equals row `i` of `reported` (`x.nrows() × rows` values, row-major: a decision
/// function's matrix, or a regressor's predictions) within `tol` relative.
#[track_caller]
pub fn check_linear_shape(
    coef: &DenseMatrix,
    intercept: &[f64],
    rows: usize,
    x: &DenseMatrix,
    reported: &[f64],
    tol: f64,
) {
    assert_eq!(
        (coef.nrows(), coef.ncols(), intercept.len()),
        (rows, x.ncols(), rows),
        "coef rows × columns and intercept entries"
    );
    assert_eq!(reported.len(), x.nrows() * rows, "reported values");
    for (i, sample) in x.rows().enumerate() {
        for (k, (w, b)) in coef.rows().zip(intercept).enumerate() {
            let by_hand = sample.iter().zip(w).map(|(a, c)| a * c).sum::<f64>() + b;
            let got = reported[i * rows + k];
            assert!(
                (got - by_hand).abs() <= tol * (1.0 + by_hand.abs()),
                "sample {i}, row {k}: reported {got}, coef·x + intercept {by_hand}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_a_hand_computed_score_and_catches_a_wrong_one() {
        let coef = DenseMatrix::from_rows(&[[1.0, -2.0]]).unwrap();
        let x = DenseMatrix::from_rows(&[[1.0, 1.0], [3.0, 0.5]]).unwrap();
        check_linear_shape(&coef, &[0.5], 1, &x, &[-0.5, 2.5], 1e-12);
        let wrong = std::panic::catch_unwind(|| {
            check_linear_shape(&coef, &[0.5], 1, &x, &[-0.5, 2.4], 1e-12)
        });
        assert!(wrong.is_err());
        let wrong_shape = std::panic::catch_unwind(|| {
            check_linear_shape(&coef, &[0.5, 0.0], 1, &x, &[0.0; 2], 1e-12)
        });
        assert!(wrong_shape.is_err());
    }
}
