//! Helpers shared by the CLI test files: run the `margin` binary from the repository root and
//! check its output or its refusal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the bundled `datasets/` are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `margin ARGS` from the repository root.
pub fn margin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the margin binary runs")
}

/// The standard output of a run that must succeed.
pub fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "margin failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

/// Asserts that `margin ARGS` exits with `code` and says `needle` on stderr, without a panic.
pub fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = margin(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: stderr was {err:?}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}

/// A path as the `&str` argument the binary takes (the test's temporary paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `margin train ARGS`, which must succeed; the output's stderr carries its warnings.
pub fn train(args: &[&str]) -> Output {
    let mut full = vec!["train"];
    full.extend_from_slice(args);
    let out = margin(&full);
    stdout(&out);
    out
}

/// What `margin predict MODEL DATA -o OUT` prints (the scores on DATA's labels); the run must
/// succeed.
pub fn predict(model: &str, data: &str, out: &str) -> String {
    stdout(&margin(&["predict", model, data, "-o", out]))
}

/// The accuracy in a `predict` report that holds only `accuracy: X`.
pub fn accuracy(report: &str) -> f64 {
    report
        .trim()
        .strip_prefix("accuracy: ")
        .unwrap()
        .parse()
        .unwrap()
}

/// Trains `margin train ARGS TRAIN` in a temporary directory, predicts `TEST` with the model:
/// the printed report and the predictions file's lines.
pub fn train_and_predict(args: &[&str], train_data: &str, test: &str) -> (String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.margin");
    let preds = dir.path().join("pred.txt");
    let mut full = args.to_vec();
    full.extend_from_slice(&[train_data, "-o", s(&model)]);
    train(&full);
    let out = predict(s(&model), test, s(&preds));
    let lines = std::fs::read_to_string(&preds)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (out, lines)
}

/// The rows of `margin predict MODEL DATA --proba -o OUT` (a label, then a probability per
/// class), after a header line that must be `header`.
pub fn proba_rows(model: &str, data: &str, out: &Path, header: &str) -> Vec<Vec<f64>> {
    stdout(&margin(&["predict", model, data, "--proba", "-o", s(out)]));
    let text = std::fs::read_to_string(out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header));
    lines
        .map(|l| l.split(' ').map(|w| w.parse().unwrap()).collect())
        .collect()
}

/// Runs `margin evaluate ARGS --roc CHART`, which must print its fold table with accuracies:
/// the SVG chart it drew.
pub fn evaluate_roc(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("roc.svg");
    let mut full = vec!["evaluate"];
    full.extend_from_slice(args);
    full.extend(["--roc", s(&svg)]);
    let out = stdout(&margin(&full));
    assert!(out.starts_with("fold") && out.contains("accuracy"), "{out}");
    std::fs::read_to_string(&svg).unwrap()
}

/// Asserts that `margin train FLAGS datasets/heart_scale -o /dev/null` is a usage error (exit
/// code 2) saying `needle`.
pub fn train_refused(flags: &[&str], needle: &str) {
    let mut args = vec!["train"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["datasets/heart_scale", "-o", "/dev/null"]);
    fails_with(&args, 2, needle);
}
