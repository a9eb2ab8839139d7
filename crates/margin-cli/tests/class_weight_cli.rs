//! `margin train --class-weight LABEL:W,...`: per-class weights as scikit-learn's
//! `class_weight` dict and LIBSVM's `-wLABEL W`.

use crate::common;

use common::{fails_with, margin, predict, stdout};

/// `margin train svc ARGS datasets/heart_scale`, then its predictions on the same file.
fn svc_predictions(dir: &std::path::Path, name: &str, args: &[&str]) -> Vec<f64> {
    let model = dir.join(name);
    let out = dir.join(format!("{name}.out"));
    let mut train = vec!["train", "svc"];
    train.extend(args);
    train.extend(["datasets/heart_scale", "-o", model.to_str().unwrap()]);
    stdout(&margin(&train));
    let m = model.to_str().unwrap();
    predict(m, "datasets/heart_scale", out.to_str().unwrap());
    numbers(&out)
}

fn numbers(path: &std::path::Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
fn per_class_weights_match_libsvm_and_scikit_learn() {
    let dir = tempfile::tempdir().unwrap();
    let weighted = svc_predictions(
        dir.path(),
        "w",
        &["--gamma", "auto", "--class-weight", "1:0.5,-1:1.5"],
    );
    let plain = svc_predictions(dir.path(), "p", &["--gamma", "auto"]);
    assert_ne!(weighted, plain, "the weights change the model");
    // LIBSVM's -w1 0.5 -w-1 1.5 (γ = 1/13, its default, is scikit-learn's "auto").
    let (model, out) = (dir.path().join("l"), dir.path().join("l.out"));
    let (m, o) = (model.to_str().unwrap(), out.to_str().unwrap());
    stdout(&margin(&[
        "svm-train",
        "-q",
        "-w1",
        "0.5",
        "-w-1",
        "1.5",
        "datasets/heart_scale",
        m,
    ]));
    stdout(&margin(&["svm-predict", "datasets/heart_scale", m, o]));
    assert_eq!(weighted, numbers(&out));
    // scikit-learn 1.9.1: SVC(class_weight={1: 0.5, -1: 1.5}, gamma="auto") predicts −1 for
    // 188 of heart_scale's 270 samples, the same labels as LIBSVM.
    assert_eq!(weighted.iter().filter(|&&y| y == -1.0).count(), 188);
    // A label weighs the same however it is written; unnamed classes keep 1.
    let same = svc_predictions(
        dir.path(),
        "s",
        &["--gamma", "auto", "--class-weight", "+1:0.5, -1.0:1.5"],
    );
    assert_eq!(same, weighted);
    let one = svc_predictions(
        dir.path(),
        "o",
        &["--gamma", "auto", "--class-weight", "-1:1"],
    );
    assert_eq!(one, plain);
}

#[test]
fn bad_class_weights_are_refused_naming_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let m = m.to_str().unwrap();
    for (value, needle) in [
        (
            "5:2",
            "class 5 is not in the training data (its classes: -1, 1)",
        ),
        ("1", "has no `:`"),
        ("1:x", "has no number"),
        (":2", "has no label"),
        ("1:2,1.0:3", "names a class twice"),
        ("1:-2", "class_weight[1]"),
        ("heavy", "has no `:`"),
    ] {
        fails_with(
            &[
                "train",
                "svc",
                "--class-weight",
                value,
                "datasets/heart_scale",
                "-o",
                m,
            ],
            2,
            needle,
        );
    }
    assert!(!dir.path().join("m").exists());
}
