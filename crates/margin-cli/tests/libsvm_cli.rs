//! `margin svm-train` / `margin svm-predict` against LIBSVM 3.37 itself: the model files it
//! writes are byte for byte LIBSVM's (fixtures written by LIBSVM's svm_save_model, see
//! crates/models-svm/tests/fixtures/gen_libsvm.py), and it reads LIBSVM's files.

mod common;

use std::path::PathBuf;

use common::{margin, root, stdout};

fn svm_fixture(name: &str) -> PathBuf {
    root().join("crates/models-svm/tests/fixtures").join(name)
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
        let printed = stdout(&margin(&full));
        assert!(
            printed.contains("optimization finished, #iter = "),
            "{printed}"
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
    let printed = stdout(&margin(&[
        "svm-train",
        "-c",
        "1",
        "-g",
        "0.0769230769230769",
        "datasets/heart_scale",
        out.to_str().unwrap(),
    ]));
    let lines: Vec<&str> = printed.lines().collect();
    assert!(
        lines[0].starts_with("optimization finished, #iter = "),
        "{printed}"
    );
    assert!(lines[1].starts_with("nu = "), "{printed}");
    assert!(
        lines[2].starts_with("obj = -100.87") && lines[2].contains(", rho = 0.42"),
        "{printed}"
    );
    assert_eq!(lines[3], "nSV = 132, nBSV = 107");
    assert_eq!(lines[4], "Total nSV = 132");
    let cv = stdout(&margin(&["svm-train", "-v", "5", "datasets/heart_scale"]));
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
    let printed = stdout(&margin(&[
        "svm-predict",
        "datasets/heart_scale",
        model.to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    assert_eq!(printed, "Accuracy = 86.6667% (234/270) (classification)\n");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 270);
    let model = svm_fixture("housing_svr_default.model");
    let printed = stdout(&margin(&[
        "svm-predict",
        "datasets/housing_scale",
        model.to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    assert_eq!(
        printed,
        "Mean squared error = 16.8154 (regression)\nSquared correlation coefficient = 0.816636 (regression)\n"
    );
}

#[test]
fn bad_svm_options_and_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    let m = m.to_str().unwrap();
    common::fails_with(
        &["svm-train", "-c", "0", "datasets/heart_scale", m],
        2,
        "`C`",
    );
    common::fails_with(
        &["svm-train", "-g", "-1", "datasets/heart_scale", m],
        2,
        "gamma",
    );
    common::fails_with(
        &[
            "svm-train",
            "-s",
            "2",
            "-n",
            "1.5",
            "datasets/heart_scale",
            m,
        ],
        2,
        "nu",
    );
    common::fails_with(
        &["svm-train", "-t", "9", "datasets/heart_scale", m],
        2,
        "kernel type",
    );
    common::fails_with(
        &[
            "svm-train",
            "-s",
            "1",
            "-n",
            "0.99",
            "datasets/heart_scale",
            m,
        ],
        2,
        "infeasible",
    );
    common::fails_with(
        &["svm-train", "-x", "1", "datasets/heart_scale", m],
        2,
        "unknown option",
    );
    common::fails_with(&["svm-train", "no/such/file", m], 2, "No such file");
    let bad = dir.path().join("bad.model");
    std::fs::write(&bad, "svm_type c_svc\nkernel_type rbf\n").unwrap();
    common::fails_with(
        &[
            "svm-predict",
            "datasets/heart_scale",
            bad.to_str().unwrap(),
            m,
        ],
        2,
        "no `SV` line",
    );
    let one_class = dir.path().join("one.svm");
    std::fs::write(&one_class, "1 1:0.5\n1 1:0.7\n").unwrap();
    common::fails_with(
        &["svm-train", one_class.to_str().unwrap(), m],
        2,
        "too few classes",
    );
}

#[test]
fn probability_outputs_follow_libsvm() {
    let dir = tempfile::tempdir().unwrap();
    let (model, out) = (dir.path().join("m"), dir.path().join("o"));
    let (m, o) = (model.to_str().unwrap(), out.to_str().unwrap());
    stdout(&margin(&[
        "svm-train",
        "-q",
        "-b",
        "1",
        "datasets/heart_scale",
        m,
    ]));
    let text = std::fs::read_to_string(&model).unwrap();
    assert!(
        text.contains("\nprobA ") && text.contains("\nprobB "),
        "{text}"
    );
    let printed = stdout(&margin(&[
        "svm-predict",
        "-b",
        "1",
        "datasets/heart_scale",
        m,
        o,
    ]));
    assert!(printed.starts_with("Accuracy = "), "{printed}");
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines[0], "labels 1 -1");
    assert_eq!(lines.len(), 271);
    for line in &lines[1..] {
        let v: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert!((v[1] + v[2] - 1.0).abs() < 1e-5, "{line}");
        assert_eq!(v[0], if v[1] > v[2] { 1.0 } else { -1.0 }, "{line}");
    }
    let plain = root().join("crates/models-svm/tests/fixtures/heart_default.model");
    common::fails_with(
        &[
            "svm-predict",
            "-b",
            "1",
            "datasets/heart_scale",
            plain.to_str().unwrap(),
            o,
        ],
        2,
        "probability",
    );
    common::fails_with(
        &[
            "svm-train",
            "-s",
            "3",
            "-b",
            "1",
            "datasets/housing_scale",
            m,
        ],
        2,
        "C-SVC and nu-SVC",
    );
}
