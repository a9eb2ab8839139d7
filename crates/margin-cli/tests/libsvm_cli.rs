//! `margin svm-train` / `margin svm-predict` against LIBSVM 3.37 itself: the model files it
//! writes are byte for byte LIBSVM's (fixtures written by LIBSVM's svm_save_model, see
//! crates/models-svm/tests/fixtures/gen_libsvm.py), and it reads LIBSVM's files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn svm_fixture(name: &str) -> PathBuf {
    root().join("crates/models-svm/tests/fixtures").join(name)
}

fn margin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the margin binary runs")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "margin failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn svm_train_writes_libsvm_model_files_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "heart_default.model",
            vec![
                "-c",
                "1",
                "-g",
                "0.0769230769230769",
                "datasets/heart_scale",
            ],
        ),
        (
            "housing_svr_default.model",
            vec!["-s", "3", "-c", "10", "-p", "0.5", "datasets/housing_scale"],
        ),
        (
            "heart_one_class_default.model",
            vec!["-s", "2", "-n", "0.3", "datasets/heart_scale"],
        ),
    ];
    for (fixture, args) in cases {
        let out = dir.path().join(fixture);
        let mut full = vec!["svm-train"];
        full.extend(&args);
        full.push(out.to_str().unwrap());
        let stdout = ok(&margin(&full));
        assert!(
            stdout.contains("optimization finished, #iter = "),
            "{stdout}"
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(svm_fixture(fixture)).unwrap(),
            "{fixture}"
        );
    }
}

#[test]
fn svm_train_prints_libsvm_summary_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let stdout = ok(&margin(&[
        "svm-train",
        "-c",
        "1",
        "-g",
        "0.0769230769230769",
        "datasets/heart_scale",
        out.to_str().unwrap(),
    ]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("optimization finished, #iter = "),
        "{stdout}"
    );
    assert!(lines[1].starts_with("nu = "), "{stdout}");
    assert!(
        lines[2].starts_with("obj = -100.87") && lines[2].contains(", rho = 0.42"),
        "{stdout}"
    );
    assert_eq!(lines[3], "nSV = 132, nBSV = 107");
    assert_eq!(lines[4], "Total nSV = 132");
    let cv = ok(&margin(&["svm-train", "-v", "5", "datasets/heart_scale"]));
    assert!(
        cv.starts_with("Cross Validation Accuracy = ") && cv.trim_end().ends_with('%'),
        "{cv}"
    );
}

#[test]
fn svm_predict_reads_libsvm_model_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pred");
    let model = svm_fixture("heart_default.model");
    let stdout = ok(&margin(&[
        "svm-predict",
        "datasets/heart_scale",
        model.to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    assert_eq!(stdout, "Accuracy = 86.6667% (234/270) (classification)\n");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 270);
    let model = svm_fixture("housing_svr_default.model");
    let stdout = ok(&margin(&[
        "svm-predict",
        "datasets/housing_scale",
        model.to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    assert_eq!(
        stdout,
        "Mean squared error = 16.8154 (regression)\nSquared correlation coefficient = 0.816636 (regression)\n"
    );
}

fn fails_with(args: &[&str], needle: &str) {
    let out = margin(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: stderr was {err:?}");
}

#[test]
fn bad_svm_options_and_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let m = m.to_str().unwrap();
    fails_with(&["svm-train", "-c", "0", "datasets/heart_scale", m], "`C`");
    fails_with(
        &["svm-train", "-g", "-1", "datasets/heart_scale", m],
        "gamma",
    );
    fails_with(
        &[
            "svm-train",
            "-s",
            "2",
            "-n",
            "1.5",
            "datasets/heart_scale",
            m,
        ],
        "nu",
    );
    fails_with(
        &["svm-train", "-t", "9", "datasets/heart_scale", m],
        "kernel type",
    );
    fails_with(
        &[
            "svm-train",
            "-s",
            "1",
            "-n",
            "0.99",
            "datasets/heart_scale",
            m,
        ],
        "infeasible",
    );
    fails_with(
        &["svm-train", "-x", "1", "datasets/heart_scale", m],
        "unknown option",
    );
    fails_with(&["svm-train", "no/such/file", m], "No such file");
    let bad = dir.path().join("bad.model");
    std::fs::write(&bad, "svm_type c_svc\nkernel_type rbf\n").unwrap();
    fails_with(
        &[
            "svm-predict",
            "datasets/heart_scale",
            bad.to_str().unwrap(),
            m,
        ],
        "no `SV` line",
    );
    let one_class = dir.path().join("one.svm");
    std::fs::write(&one_class, "1 1:0.5\n1 1:0.7\n").unwrap();
    fails_with(
        &["svm-train", one_class.to_str().unwrap(), m],
        "too few classes",
    );
}
