//! `coef()` and `intercept()` of the linear models in scikit-learn's shapes: a matrix with one
//! row per output (one for a regressor or a binary classifier, one per class for more) and one
//! intercept per row, so that `coef·x + intercept` is the decision value or the prediction.

use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Fit, NFeatures, Predict, Records, Targets,
};
use margin_io::datasets;
use margin_linear::{ElasticNet, LinearRegression, LogisticRegression, Perceptron, Ridge};
use margin_testing::battery::check_linear_shape;

/// What every linear classifier promises of its shapes on `data` with `rows` weight rows.
fn check_classifier<M: DecisionFunction + Predict + NFeatures>(
    model: &M,
    coef: &DenseMatrix,
    intercept: &[f64],
    data: &Dataset,
    rows: usize,
) {
    let x = data.records.to_dense().unwrap();
    let decisions = model.decision_function(&x).unwrap();
    check_linear_shape(coef, intercept, rows, &x, decisions.as_slice(), 1e-12);
    assert_eq!(NFeatures::n_features(model), x.ncols());
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
    let (w, b) = (lr.coef().row(0), lr.intercept()[0]);
    let predicted = lr.predict(&x).unwrap();
    for (sample, p) in x.rows().zip(&predicted) {
        let score = sample.iter().zip(w).map(|(a, c)| a * c).sum::<f64>() + b;
        assert_eq!(p, &lr.classes()[usize::from(score > 0.0)]);
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
    check_linear_shape(
        ols.coef(),
        ols.intercept(),
        1,
        &x,
        &ols.predict(&x).unwrap(),
        1e-12,
    );
    let (w, b) = (ols.coef().row(0), ols.intercept()[0]);
    assert!(
        (w[0] - 2.0).abs() < 1e-12 && (w[1] + 3.0).abs() < 1e-12,
        "{w:?}"
    );
    assert!((b - 1.0).abs() < 1e-12, "{b}");

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
        check_linear_shape(coef, intercept, 1, &x, &predicted, 1e-10);
        assert_eq!(width, d);
    }
}
