//! `margin train logistic|lasso|elastic-net` and `margin predict`, against scikit-learn 1.9.1's
//! figures on the same files (LogisticRegression() and Lasso(alpha=0.05) with defaults).

use crate::common;

use common::{fails_with, margin, stdout};

fn train_and_predict(train: &[&str], test: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.margin");
    let preds = dir.path().join("pred.txt");
    let m = model.to_str().unwrap();
    let mut args = vec!["train"];
    args.extend_from_slice(train);
    args.extend_from_slice(&["-o", m]);
    stdout(&margin(&args));
    stdout(&margin(&[
        "predict",
        m,
        test,
        "-o",
        preds.to_str().unwrap(),
    ]))
}

#[test]
fn logistic_matches_scikit_learn_accuracy() {
    // LogisticRegression().fit(dna).score(dna.t) = 0.949410 (multinomial, lbfgs).
    assert_eq!(
        train_and_predict(&["logistic", "datasets/dna.scale"], "datasets/dna.scale.t"),
        "accuracy: 0.949410\n"
    );
    // Training accuracy on heart_scale = 0.844444 (binary).
    assert_eq!(
        train_and_predict(
            &["logistic", "datasets/heart_scale"],
            "datasets/heart_scale"
        ),
        "accuracy: 0.844444\n"
    );
}

#[test]
fn lasso_matches_scikit_learn_r2() {
    // r2_score(y, Lasso(alpha=0.05).fit(X, y).predict(X)) = 0.734756 on housing_scale.
    let out = train_and_predict(
        &["lasso", "--alpha", "0.05", "datasets/housing_scale"],
        "datasets/housing_scale",
    );
    assert!(out.starts_with("r2: 0.734756\n"), "{out}");
    let out = train_and_predict(
        &[
            "elastic-net",
            "--alpha",
            "0.05",
            "--l1-ratio",
            "0.5",
            "datasets/housing_scale",
        ],
        "datasets/housing_scale",
    );
    assert!(out.starts_with("r2: "), "{out}");
}

#[test]
fn bad_options_are_usage_errors() {
    let args = |extra: &[&'static str]| {
        let mut a = vec!["train"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["datasets/heart_scale", "-o", "/dev/null"]);
        a
    };
    fails_with(&args(&["logistic", "--penalty", "l3"]), 2, "--penalty");
    fails_with(
        &args(&["logistic", "--penalty", "elasticnet"]),
        2,
        "--l1-ratio",
    );
    fails_with(
        &args(&["logistic", "--penalty", "l1"]),
        2,
        "gradient-descent or sgd",
    );
    fails_with(
        &args(&["logistic", "--eta0", "0.1"]),
        2,
        "--eta0: eta0 is used only with solver sgd",
    );
    fails_with(&args(&["lasso", "--alpha", "-1"]), 2, "alpha");
}
