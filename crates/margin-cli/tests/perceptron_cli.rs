//! `margin train perceptron|kernel-perceptron` and `margin predict`.

use crate::common;

use common::{accuracy, fails_with, train, train_and_predict, train_refused};

#[test]
fn perceptron_matches_scikit_learn_unshuffled() {
    // scikit-learn 1.9.1 Perceptron(shuffle=False, tol=None, max_iter=30) on heart_scale
    // scores 0.848148 on its training rows (models-linear's fixture perceptron_heart.txt).
    let (out, lines) = train_and_predict(
        &["perceptron", "--shuffle", "false", "--max-iter", "30"],
        "datasets/heart_scale",
        "datasets/heart_scale",
    );
    assert_eq!(out, "accuracy: 0.848148\n");
    assert_eq!(lines.len(), 270);
}

#[test]
fn the_kernel_perceptron_solves_xor_and_the_primal_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let xor = dir.path().join("xor.libsvm");
    std::fs::write(&xor, "-1 1:1 2:1\n-1 1:-1 2:-1\n+1 1:1 2:-1\n+1 1:-1 2:1\n").unwrap();
    let xor = xor.to_str().unwrap();
    let (out, lines) = train_and_predict(&["kernel-perceptron"], xor, xor);
    assert_eq!(out, "accuracy: 1.000000\n");
    assert_eq!(lines, ["-1", "-1", "1", "1"]);
    let (out, _) = train_and_predict(
        &[
            "kernel-perceptron",
            "--kernel",
            "poly",
            "--degree",
            "2",
            "--gamma",
            "1",
            "--coef0",
            "1",
        ],
        xor,
        xor,
    );
    assert_eq!(out, "accuracy: 1.000000\n");
    let (out, _) = train_and_predict(&["perceptron", "--max-iter", "50"], xor, xor);
    assert_ne!(out, "accuracy: 1.000000\n");
}

#[test]
fn kernel_perceptron_with_rbf_and_columns_on_the_fly() {
    let args = |budget: &'static str| {
        [
            "kernel-perceptron",
            "--kernel",
            "rbf",
            "--gamma",
            "0.2",
            "--max-iter",
            "30",
            "--seed",
            "4",
            "--gram-budget-mb",
            budget,
        ]
    };
    for budget in ["200", "0"] {
        let (out, _) = train_and_predict(
            &args(budget),
            "datasets/heart_scale",
            "datasets/heart_scale",
        );
        assert!(accuracy(&out) > 0.9, "budget {budget}: {out}");
    }
}

#[test]
fn bad_options_are_usage_errors() {
    train_refused(&["perceptron", "--eta0", "0"], "eta0");
    train_refused(&["perceptron", "--max-iter", "0"], "--max-iter");
    train_refused(&["perceptron", "--shuffle", "maybe"], "--shuffle");
    train_refused(&["perceptron", "--kernel", "rbf"], "--kernel");
    train_refused(
        &["kernel-perceptron", "--kernel", "custom"],
        "expected linear, poly, rbf, sigmoid or precomputed (a custom kernel is given whole",
    );
    train_refused(
        &["kernel-perceptron", "--kernel", "rbf", "--degree", "3"],
        "--degree",
    );
    train_refused(&["kernel-perceptron", "--gamma", "-1"], "gamma");
    train_refused(
        &["kernel-perceptron", "--gram-budget-mb", "-5"],
        "--gram-budget-mb: expected a finite number ≥ 0, found `-5`",
    );
}

#[test]
fn predict_refuses_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("p.margin");
    let m = model.to_str().unwrap();
    train(&["perceptron", "datasets/heart_scale", "-o", m]);
    fails_with(
        &["predict", m, "datasets/heart_scale", "--proba"],
        2,
        "--proba",
    );
}
