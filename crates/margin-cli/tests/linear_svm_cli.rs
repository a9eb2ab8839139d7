//! `margin train linear-svc|pegasos` and `margin predict` on the bundled data.

use crate::common;

use common::{accuracy, train_refused};

/// Trains on dna.scale with `args`, predicts dna.scale.t (a prediction for each of its 1186
/// rows): the printed report.
fn train_and_predict(args: &[&str]) -> String {
    let (out, lines) =
        common::train_and_predict(args, "datasets/dna.scale", "datasets/dna.scale.t");
    assert_eq!(lines.len(), 1186);
    out
}

#[test]
fn linear_svc_matches_scikit_learn_accuracy() {
    // scikit-learn 1.9.1 LinearSVC() (squared hinge, C = 1, tol 1e-4) on the same files
    // scores 0.945193929.
    assert_eq!(train_and_predict(&["linear-svc"]), "accuracy: 0.945194\n");
}

#[test]
fn pegasos_trains_the_same_kind_of_model() {
    // scikit-learn's LinearSVC(loss="hinge") at its optimum scores 0.946880 here; Pegasos'
    // 50 epochs land within half a point.
    let out = train_and_predict(&["pegasos", "--c", "1", "--seed", "3"]);
    assert!((accuracy(&out) - 0.946880).abs() < 0.005, "{out}");
}

#[test]
fn bad_options_are_usage_errors() {
    train_refused(&["linear-svc", "--loss", "l1"], "--loss");
    train_refused(
        &["pegasos", "--c", "1", "--lambda", "0.1"],
        "--c: C is used only with lambda none",
    );
    train_refused(&["pegasos", "--iterate", "best"], "--iterate");
    train_refused(&["linear-svc", "--c", "-1"], "c");
    train_refused(&["pegasos", "--epochs", "0"], "epochs");
}
