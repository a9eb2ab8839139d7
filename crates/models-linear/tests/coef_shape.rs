//! `coef()` and `intercept()` of the linear models in scikit-learn's shapes: a matrix with one
//! row per output (one for a regressor or a binary classifier, one per class for more) and one
//! intercept per row, so that `coef·x + intercept` is the decision value or the prediction.

use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Fit, NFeatures, Predict, Records, Targets, datasets,
};
use margin_linear::{ElasticNet, LinearRegression, LogisticRegression, Perceptron, Ridge};

/// `coef·x + intercept` for every row of `x`: one column per row of `coef`.
fn affine(coef: &DenseMatrix, intercept: &[f64], x: &DenseMatrix) -> DenseMatrix {
    assert_eq!(coef.nrows(), intercept.len());
    let mut out = DenseMatrix::zeros(x.nrows(), coef.nrows());
    for i in 0..x.nrows() {
        for (k, (w, b)) in coef.rows().zip(intercept).enumerate() {
            out.row_mut(i)[k] = margin_core::dot(x.row(i), w) + b;
        }
    }
    out
}

#[track_caller]
fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * (1.0 + w.abs()), "{g} vs {w}");
    }
}

/// What every linear classifier promises of its shapes on `data` with `rows` weight rows.
fn check_classifier<M: DecisionFunction + Predict + NFeatures>(
    model: &M,
    coef: &DenseMatrix,
    intercept: &[f64],
    data: &Dataset,
    rows: usize,
) {
    let x = data.records.to_dense().unwrap();
    assert_eq!((coef.nrows(), coef.ncols()), (rows, x.ncols()));
    assert_eq!(intercept.len(), rows);
    assert_eq!(NFeatures::n_features(model), x.ncols());
    let by_hand = affine(coef, intercept, &x);
    let decisions = model.decision_function(&x).unwrap();
    assert_close(by_hand.as_slice(), decisions.as_slice(), 1e-12);
}

#[test]
fn classifiers_have_one_row_for_two_classes_and_one_per_class_otherwise() {
    // heart_scale has two classes (scikit-learn's coef_ is 1 × 13), dna three (3 × 180).
    for (data, rows) in [
        (datasets::heart_scale().unwrap(), 1),
        (datasets::dna().unwrap(), 3),
    ] {
        let lr = LogisticRegression::params().fit(&data).unwrap();
        check_classifier(&lr, lr.coef(), lr.intercept(), &data, rows);
        let p = Perceptron::params().max_iter(5).fit(&data).unwrap();
        check_classifier(&p, p.coef(), p.intercept(), &data, rows);
    }
}

#[test]
fn a_binary_prediction_is_the_sign_of_the_one_row() {
    let data = datasets::heart_scale().unwrap();
    let x = data.records.to_dense().unwrap();
    let lr = LogisticRegression::params().fit(&data).unwrap();
    let scores = affine(lr.coef(), lr.intercept(), &x);
    let predicted = lr.predict(&x).unwrap();
    for (s, p) in scores.as_slice().iter().zip(&predicted) {
        let k = usize::from(*s > 0.0);
        assert_eq!(p, &lr.classes()[k]);
    }
}

#[test]
fn regressors_have_one_row_and_one_intercept() {
    // y = 1 + 2·x₁ − 3·x₂ exactly: least squares recovers it.
    let x = DenseMatrix::from_rows(&[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 3.0], [1.0, 5.0]])
        .unwrap();
    let y: Vec<f64> = x.rows().map(|r| 1.0 + 2.0 * r[0] - 3.0 * r[1]).collect();
    let data = Dataset::new(x.clone(), Targets::Values(y)).unwrap();
    let ols = LinearRegression::params().fit(&data).unwrap();
    assert_eq!((ols.coef().nrows(), ols.coef().ncols()), (1, 2));
    assert_close(ols.coef().as_slice(), &[2.0, -3.0], 1e-12);
    assert_close(ols.intercept(), &[1.0], 1e-12);

    let housing = datasets::housing_scale().unwrap();
    let x = housing.records.to_dense().unwrap();
    let d = x.ncols();
    let ridge = Ridge::params().fit(&housing).unwrap();
    let lasso = ElasticNet::lasso_params()
        .alpha(0.01)
        .fit(&housing)
        .unwrap();
    let ols = LinearRegression::params().fit(&housing).unwrap();
    for (coef, intercept, predicted, width) in [
        (
            ridge.coef(),
            ridge.intercept(),
            ridge.predict(&x).unwrap(),
            ridge.n_features(),
        ),
        (
            lasso.coef(),
            lasso.intercept(),
            lasso.predict(&x).unwrap(),
            lasso.n_features(),
        ),
        (
            ols.coef(),
            ols.intercept(),
            ols.predict(&x).unwrap(),
            ols.n_features(),
        ),
    ] {
        assert_eq!((coef.nrows(), coef.ncols(), intercept.len()), (1, d, 1));
        assert_eq!(width, d);
        let by_hand = affine(coef, intercept, &x);
        assert_close(by_hand.as_slice(), &predicted, 1e-10);
    }
}
