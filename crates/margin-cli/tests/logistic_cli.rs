//! `margin train logistic|lasso|elastic-net` and `margin predict`, against scikit-learn 1.9.1's
//! figures on the same files (LogisticRegression() and Lasso(alpha=0.05) with defaults).

use crate::common;

use common::train_refused;

/// Trains on `data` with `args`, predicts `test`: the printed report.
fn train_and_predict(args: &[&str], data: &str, test: &str) -> String {
    common::train_and_predict(args, data, test).0
}

#[test]
fn logistic_matches_scikit_learn_accuracy() {
    // LogisticRegression().fit(dna).score(dna.t) = 0.949410 (multinomial, lbfgs).
    assert_eq!(
        train_and_predict(&["logistic"], "datasets/dna.scale", "datasets/dna.scale.t"),
        "accuracy: 0.949410\n"
    );
    // Training accuracy on heart_scale = 0.844444 (binary).
    assert_eq!(
        train_and_predict(
            &["logistic"],
            "datasets/heart_scale",
            "datasets/heart_scale"
        ),
        "accuracy: 0.844444\n"
    );
}

#[test]
fn lasso_matches_scikit_learn_r2() {
    // r2_score(y, Lasso(alpha=0.05).fit(X, y).predict(X)) = 0.734756 on housing_scale.
    let out = train_and_predict(
        &["lasso", "--alpha", "0.05"],
        "datasets/housing_scale",
        "datasets/housing_scale",
    );
    assert!(out.starts_with("r2: 0.734756\n"), "{out}");
    let out = train_and_predict(
        &["elastic-net", "--alpha", "0.05", "--l1-ratio", "0.5"],
        "datasets/housing_scale",
        "datasets/housing_scale",
    );
    assert!(out.starts_with("r2: "), "{out}");
}

#[test]
fn bad_options_are_usage_errors() {
    train_refused(&["logistic", "--penalty", "l3"], "--penalty");
    train_refused(&["logistic", "--penalty", "elasticnet"], "--l1-ratio");
    train_refused(&["logistic", "--penalty", "l1"], "gradient-descent or sgd");
    train_refused(
        &["logistic", "--eta0", "0.1"],
        "--eta0: eta0 is used only with solver sgd",
    );
    train_refused(&["lasso", "--alpha", "-1"], "alpha");
}
