//! `coef()` and `intercept()` of the SVMs in scikit-learn's shapes: one row of weights per
//! binary problem (one for a regressor or a one-class model) and one intercept per row, so that
//! `coef·x + intercept` is the decision value; for a non-linear kernel `coef()` is refused as
//! unsupported, naming the kernel.

use margin_core::{Dataset, DecisionFunction, DenseMatrix, Error, Fit, Predict, Records, Targets};
use margin_io::datasets;
use margin_kernels::Rbf;
use margin_svm::{KernelChoice, LinearSvc, OneClassSvm, Svc, Svr};
use margin_testing::battery::check_linear_shape;

#[track_caller]
fn assert_unsupported_naming<T: std::fmt::Debug>(result: margin_core::Result<T>, kernel: &str) {
    match result {
        Err(Error::Unsupported { operation, reason }) => {
            assert_eq!(operation, "coef");
            assert!(reason.contains(kernel), "{reason}");
            assert!(reason.contains("linear"), "{reason}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn a_non_linear_kernel_has_no_coef_and_says_which_kernel() {
    let heart = datasets::heart_scale().unwrap();
    let housing = datasets::housing_scale().unwrap();
    let rbf = || Rbf::with_gamma(0.1).unwrap();
    let svc = Svc::params().kernel(rbf()).fit(&heart).unwrap();
    assert_unsupported_naming(svc.coef(), "rbf(gamma=0.1)");
    assert_unsupported_naming(svc.margin(), "rbf(gamma=0.1)");
    let svr = Svr::params().kernel(rbf()).fit(&housing).unwrap();
    assert_unsupported_naming(svr.coef(), "rbf(gamma=0.1)");
    let one = OneClassSvm::params().kernel(rbf()).fit(&heart).unwrap();
    assert_unsupported_naming(one.coef(), "rbf(gamma=0.1)");
    // The intercepts exist whatever the kernel: one per problem.
    assert_eq!(svc.intercept().len(), 1);
    assert_eq!(svr.intercept().len(), 1);
    assert_eq!(one.intercept(), [-one.rho()]);
}

#[test]
fn svc_coef_has_one_row_per_problem_and_gives_the_decision_values() {
    // Three classes, one-vs-one: three pair problems, each a row.
    let dna = datasets::dna().unwrap();
    let x = dna.records.to_dense().unwrap();
    let model = Svc::params()
        .kernel(KernelChoice::Linear)
        .fit(&dna)
        .unwrap();
    let decisions = model.problem_decisions(&x).unwrap();
    let coef = model.coef().unwrap();
    check_linear_shape(&coef, &model.intercept(), 3, &x, decisions.as_slice(), 1e-9);

    // Two classes: one row, in the decision function's sign (positive for classes()[1]).
    let heart = datasets::heart_scale().unwrap();
    let x = heart.records.to_dense().unwrap();
    let model = Svc::params()
        .kernel(KernelChoice::Linear)
        .fit(&heart)
        .unwrap();
    let decisions = model.decision_function(&x).unwrap();
    let coef = model.coef().unwrap();
    check_linear_shape(&coef, &model.intercept(), 1, &x, decisions.as_slice(), 1e-9);
}

#[test]
fn svr_coef_is_the_flattest_line_in_the_tube() {
    // y = 2x on x = 0..3 with ε = 0.1: the flattest w keeping every residual (2 − w)x − b in
    // [−ε, ε] touches the tube's top at x = 0 (b = ε) and its bottom at x = 3:
    // (2 − w)·3 − ε = ε, so w = 2 − 2ε/3 and b = ε.
    let x = DenseMatrix::from_rows(&[[0.0], [1.0], [2.0], [3.0]]).unwrap();
    let data = Dataset::new(x.clone(), Targets::Values(vec![0.0, 2.0, 4.0, 6.0])).unwrap();
    let eps = 0.1;
    let model = Svr::params()
        .c(1e6)
        .epsilon(eps)
        .tol(1e-12)
        .kernel(KernelChoice::Linear)
        .fit(&data)
        .unwrap();
    let coef = model.coef().unwrap();
    let predicted = model.predict(&x).unwrap();
    check_linear_shape(&coef, &model.intercept(), 1, &x, &predicted, 1e-9);
    let (w, b) = (coef.get(0, 0), model.intercept()[0]);
    assert!((w - (2.0 - 2.0 * eps / 3.0)).abs() < 1e-9, "w = {w}");
    assert!((b - eps).abs() < 1e-9, "b = {b}");
}

#[test]
fn one_class_coef_gives_its_decision_values() {
    let heart = datasets::heart_scale().unwrap();
    let x = heart.records.to_dense().unwrap();
    let model = OneClassSvm::params()
        .kernel(KernelChoice::Linear)
        .fit(&heart)
        .unwrap();
    let decisions = model.decision_function(&x).unwrap();
    let coef = model.coef().unwrap();
    check_linear_shape(&coef, &model.intercept(), 1, &x, decisions.as_slice(), 1e-9);
}

#[test]
fn linear_svc_coef_has_one_row_for_two_classes_and_one_per_class_otherwise() {
    for (data, rows) in [
        (datasets::heart_scale().unwrap(), 1),
        (datasets::dna().unwrap(), 3),
    ] {
        let x = data.records.to_dense().unwrap();
        let model = LinearSvc::params().fit(&data).unwrap();
        let decisions = model.decision_function(&x).unwrap();
        let (coef, intercept) = (model.coef(), model.intercept());
        check_linear_shape(coef, intercept, rows, &x, decisions.as_slice(), 1e-12);
        assert_eq!(model.n_features(), x.ncols());
    }
}

#[test]
fn svr_and_one_class_fitted_without_probabilities_refuse_them_as_unsupported() {
    use margin_core::PredictProba;
    let heart = datasets::heart_scale().unwrap();
    let housing = datasets::housing_scale().unwrap();
    let svr = Svr::params().fit(&housing).unwrap();
    let one = OneClassSvm::params().fit(&heart).unwrap();
    for (result, operation) in [
        (
            svr.predict_interval(&housing.records, 0.9).map(|_| ()),
            "predict_interval",
        ),
        (
            one.predict_proba(&heart.records).map(|_| ()),
            "predict_proba",
        ),
    ] {
        match result {
            Err(Error::Unsupported {
                operation: op,
                reason,
            }) => {
                assert_eq!(op, operation);
                assert!(reason.contains("probability(true)"), "{reason}");
            }
            other => panic!("expected Unsupported for {operation}, got {other:?}"),
        }
    }
}

/// The kernel SVMs report the width they were fitted on.
#[test]
fn n_features_is_the_fitted_width() {
    let heart = datasets::heart_scale().unwrap();
    let housing = datasets::housing_scale().unwrap();
    let d = heart.records.n_features();
    assert_eq!(Svc::params().fit(&heart).unwrap().n_features(), d);
    assert_eq!(OneClassSvm::params().fit(&heart).unwrap().n_features(), d);
    assert_eq!(
        Svr::params().fit(&housing).unwrap().n_features(),
        housing.records.n_features()
    );
}
