//! `margin train linear-svc|pegasos` and `margin predict` on the bundled data.

use crate::common;

use common::{fails_with, margin, stdout};

fn train_and_predict(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("linear.margin");
    let preds = dir.path().join("pred.txt");
    let m = model.to_str().unwrap();
    let mut train = vec!["train"];
    train.extend_from_slice(args);
    train.extend_from_slice(&["datasets/dna.scale", "-o", m]);
    stdout(&margin(&train));
    let out = stdout(&margin(&[
        "predict",
        m,
        "datasets/dna.scale.t",
        "-o",
        preds.to_str().unwrap(),
    ]));
    assert_eq!(
        std::fs::read_to_string(&preds).unwrap().lines().count(),
        1186
    );
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
    let accuracy: f64 = out
        .trim()
        .strip_prefix("accuracy: ")
        .unwrap()
        .parse()
        .unwrap();
    assert!((accuracy - 0.946880).abs() < 0.005, "{out}");
}

#[test]
fn bad_options_are_usage_errors() {
    let args = |extra: &[&'static str]| {
        let mut a = vec!["train"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["datasets/heart_scale", "-o", "/dev/null"]);
        a
    };
    fails_with(&args(&["linear-svc", "--loss", "l1"]), 2, "--loss");
    fails_with(
        &args(&["pegasos", "--c", "1", "--lambda", "0.1"]),
        2,
        "--c: C is used only with lambda none",
    );
    fails_with(&args(&["pegasos", "--iterate", "best"]), 2, "--iterate");
    fails_with(&args(&["linear-svc", "--c", "-1"]), 2, "c");
    fails_with(&args(&["pegasos", "--epochs", "0"]), 2, "epochs");
}
