//! `margin svm-train` / `margin svm-predict` against LIBSVM 3.37 itself: the model files it
//! writes are byte for byte LIBSVM's (fixtures written by LIBSVM's svm_save_model, see
//! crates/models-svm/tests/fixtures/gen_libsvm.py), and it reads LIBSVM's files.

use crate::common;

use std::path::PathBuf;

use common::{margin, root, stdout, train};

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
    // The solver's mark when it checked optimality on every variable, then its block.
    assert_eq!(lines[0], "*", "{printed}");
    assert!(
        lines[1].starts_with("optimization finished, #iter = "),
        "{printed}"
    );
    assert!(lines[2].starts_with("nu = "), "{printed}");
    assert!(
        lines[3].starts_with("obj = -100.87") && lines[3].contains(", rho = 0.42"),
        "{printed}"
    );
    assert_eq!(lines[4], "nSV = 132, nBSV = 107");
    assert_eq!(lines[5], "Total nSV = 132");
    let cv = stdout(&margin(&[
        "svm-train",
        "-q",
        "-v",
        "5",
        "datasets/heart_scale",
    ]));
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
    let cases: [(&[&str], &str); 6] = [
        (&["-c", "0"], "C <= 0"),
        (&["-g", "-1"], "gamma"),
        (&["-s", "2", "-n", "1.5"], "nu"),
        (&["-t", "9"], "kernel type"),
        (&["-s", "1", "-n", "0.99"], "infeasible"),
        (&["-x", "1"], "Unknown option: -x"),
    ];
    for (options, needle) in cases {
        let mut args = vec!["svm-train"];
        args.extend_from_slice(options);
        args.extend(["datasets/heart_scale", m]);
        common::fails_with(&args, 2, needle);
    }
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
    refuses_probability_estimates(plain.to_str().unwrap(), o);
}

/// Asserts that `margin svm-predict -b 1 datasets/heart_scale MODEL OUT` is refused (exit code
/// 2) with LIBSVM's message for a model without probability information.
fn refuses_probability_estimates(model: &str, out: &str) {
    common::fails_with(
        &["svm-predict", "-b", "1", "datasets/heart_scale", model, out],
        2,
        "Model does not support probability estimates",
    );
}

/// `margin ARGS` run to completion: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = margin(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `margin svm-train -q OPTIONS datasets/heart_scale MODEL` run to completion: (exit code,
/// stderr).
fn svm_train_heart(options: &[&str], model: &str) -> (i32, String) {
    let mut args = vec!["svm-train", "-q"];
    args.extend_from_slice(options);
    args.extend(["datasets/heart_scale", model]);
    let (code, _, err) = run(&args);
    (code, err)
}

#[test]
fn regression_and_one_class_probability_models_are_libsvm_s_byte_for_byte() {
    // LIBSVM 3.37's files and svm-predict -b 1 outputs (gen_libsvm_probability.py).
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "housing_svr_probability",
            "datasets/housing_scale",
            &["-s", "3"],
        ),
        (
            "housing_nu_svr_probability",
            "datasets/housing_scale",
            &["-s", "4", "-c", "10", "-n", "0.4"],
        ),
        (
            "heart_one_class_probability",
            "datasets/heart_scale",
            &["-s", "2"],
        ),
    ];
    for (name, data, options) in cases {
        let model = dir.path().join(format!("{name}.model"));
        let out = dir.path().join(format!("{name}.out"));
        let (m, o) = (model.to_str().unwrap(), out.to_str().unwrap());
        let mut args = vec!["svm-train", "-b", "1"];
        args.extend(options);
        args.extend([data, m]);
        let printed = stdout(&margin(&args));
        assert_eq!(
            std::fs::read(&model).unwrap(),
            std::fs::read(svm_fixture(&format!("{name}.model"))).unwrap(),
            "{name}: model file"
        );
        if name.contains("svr") {
            // LIBSVM prints σ when it fits it (after the main problem's summary).
            assert!(
                printed.contains("z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= "),
                "{printed}"
            );
        }
        let printed = stdout(&margin(&["svm-predict", "-b", "1", data, m, o]));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(svm_fixture(&format!("{name}.predict"))).unwrap(),
            "{name}: predictions"
        );
        assert_eq!(
            printed,
            std::fs::read_to_string(svm_fixture(&format!("{name}.stdout"))).unwrap(),
            "{name}: printed lines"
        );
        // Without -b 1, LIBSVM says the model could do more and prints plain values.
        let printed = stdout(&margin(&["svm-predict", data, m, o]));
        assert!(
            printed
                .starts_with("Model supports probability estimates, but disabled in prediction.\n"),
            "{printed}"
        );
        if name.contains("svr") {
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(svm_fixture(&format!("{name}.predict"))).unwrap()
            );
        }
    }
}

#[test]
fn one_class_probability_with_too_few_decision_values_warns_as_libsvm() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let m = model.to_str().unwrap();
    let (code, err) = svm_train_heart(&["-s", "2", "-n", "0.999", "-b", "1"], m);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("WARNING: number of positive or negative decision values <5; too few to do a probability estimation."),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&model).unwrap(),
        std::fs::read(svm_fixture("heart_one_class_too_few.model")).unwrap()
    );
    let out = dir.path().join("o");
    refuses_probability_estimates(m, out.to_str().unwrap());
    assert!(!out.exists());
}

#[test]
fn svm_predict_checks_everything_before_touching_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.txt");
    std::fs::write(&out, "what was there\n").unwrap();
    let o = out.to_str().unwrap();
    let plain = svm_fixture("heart_default.model");
    let p = plain.to_str().unwrap();
    let broken = dir.path().join("broken.model");
    std::fs::write(&broken, "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:1\n").unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["svm-predict", "-b", "1", "datasets/heart_scale", p, o],
            "Model does not support probability estimates",
        ),
        (
            &["svm-predict", "-b", "2", "datasets/heart_scale", p, o],
            "-b probability_estimates: `2` is not 0 or 1",
        ),
        (
            &["svm-predict", "-x", "datasets/heart_scale", p, o],
            "Unknown option: -x",
        ),
        (&["svm-predict", "no/such/data", p, o], "no/such/data"),
        (
            &[
                "svm-predict",
                "datasets/heart_scale",
                broken.to_str().unwrap(),
                o,
            ],
            "line 7",
        ),
        (
            &["svm-predict", "-b", "1", "datasets/heart_scale", p],
            "Usage: margin svm-predict",
        ),
    ];
    for (args, needle) in cases {
        common::fails_with(args, 2, needle);
        let (_, _, err) = run(args);
        assert!(!err.contains("Some(") && !err.contains("None"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "what was there\n",
            "{args:?}"
        );
    }
    // An output that is one of the inputs.
    let copy = dir.path().join("heart.model");
    std::fs::copy(&plain, &copy).unwrap();
    let c = copy.to_str().unwrap();
    common::fails_with(
        &["svm-predict", "datasets/heart_scale", c, c],
        2,
        "also an input",
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    let data = dir.path().join("heart");
    std::fs::copy(root().join("datasets/heart_scale"), &data).unwrap();
    let d = data.to_str().unwrap();
    common::fails_with(&["svm-predict", d, p, d], 2, "also an input");
    common::fails_with(&["svm-train", d, d], 2, "also an input");
    assert_eq!(
        std::fs::read(&data).unwrap(),
        std::fs::read(root().join("datasets/heart_scale")).unwrap()
    );
}

#[test]
fn a_margin_model_file_given_to_svm_predict_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("svc.margin");
    let m = model.to_str().unwrap();
    train(&["svc", "datasets/heart_scale", "-o", m]);
    let out = dir.path().join("o");
    let args = [
        "svm-predict",
        "datasets/heart_scale",
        m,
        out.to_str().unwrap(),
    ];
    common::fails_with(&args, 2, "margin model file");
    common::fails_with(&args, 2, "margin predict");
}

#[test]
fn svm_train_refuses_what_libsvm_refuses_with_its_messages() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let m = model.to_str().unwrap();
    let cases: [(&[&str], &str); 22] = [
        (&["-s", "-1"], "unknown svm type: -s -1"),
        (&["-s", "5"], "unknown svm type: -s 5"),
        (&["-s", "abc"], "-s svm_type: `abc` is not an integer"),
        (&["-s", "1.5"], "`1.5` is not an integer"),
        (&["-t", "-1"], "unknown kernel type: -t -1"),
        (&["-t", "5"], "unknown kernel type: -t 5"),
        (&["-g", "-1"], "gamma < 0: -g -1"),
        (
            &["-t", "1", "-d", "-1"],
            "degree of polynomial kernel < 0: -d -1",
        ),
        (&["-m", "0"], "cache_size <= 0: -m 0"),
        (&["-m", "-5"], "cache_size <= 0: -m -5"),
        (&["-e", "0"], "eps <= 0: -e 0"),
        (&["-c", "-1"], "C <= 0: -c -1"),
        (&["-s", "3", "-c", "0"], "C <= 0: -c 0"),
        (&["-s", "2", "-n", "0"], "nu <= 0 or nu > 1: -n 0"),
        (&["-s", "4", "-n", "1.01"], "nu <= 0 or nu > 1: -n 1.01"),
        (&["-s", "3", "-p", "-0.1"], "p < 0: -p -0.1"),
        (&["-h", "2"], "shrinking != 0 and shrinking != 1: -h 2"),
        (&["-b", "2"], "probability != 0 and probability != 1: -b 2"),
        (
            &["-b", "-1"],
            "probability != 0 and probability != 1: -b -1",
        ),
        (&["-v", "1"], "n-fold cross validation: n must >= 2"),
        (&["-wx", "2"], "needs an integer class label"),
        (&["-c"], "-c needs a value"),
    ];
    for (options, needle) in cases {
        let mut args = vec!["svm-train"];
        args.extend(options);
        if !options.ends_with(&["-c"]) {
            args.extend(["datasets/heart_scale", m]);
        }
        common::fails_with(&args, 2, needle);
        let (_, _, err) = run(&args);
        assert!(!err.contains("Some(") && !err.contains("None"), "{err}");
        assert!(!model.exists(), "{args:?} wrote a model");
    }
    // What LIBSVM accepts stays accepted: ν and p are not checked for types that ignore them,
    // γ = 0 means the default 1/num_features.
    let (code, err) = svm_train_heart(&["-n", "7", "-p", "-1", "-g", "0"], m);
    assert_eq!(code, 0, "{err}");
    let zero = std::fs::read_to_string(&model).unwrap();
    stdout(&margin(&["svm-train", "-q", "datasets/heart_scale", m]));
    let default = std::fs::read_to_string(&model).unwrap();
    assert!(
        zero == default && zero.contains("\ngamma 0.076923076923076927\n"),
        "{zero}"
    );
}

#[test]
fn svm_train_warns_as_libsvm() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let m = model.to_str().unwrap();
    let (code, err) = svm_train_heart(&["-w3", "2", "-w1", "1"], m);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "WARNING: class label 3 specified in weight is not found\n"
    );
    let small = dir.path().join("small");
    std::fs::write(&small, "1 1:1\n-1 1:-1\n1 1:0.5\n-1 1:-0.5\n").unwrap();
    let (code, out, err) = run(&["svm-train", "-q", "-v", "5", small.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("WARNING: # folds (5) > # data (4). Will use # folds = # data instead (i.e., leave-one-out cross validation)"),
        "{err}"
    );
    assert!(out.starts_with("Cross Validation Accuracy = "), "{out}");
}

#[test]
fn repeated_class_weights_multiply_as_in_libsvm() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let heart = "datasets/heart_scale";
    stdout(&margin(&[
        "svm-train",
        "-q",
        "-w1",
        "2",
        "-w1",
        "1.5",
        heart,
        a.to_str().unwrap(),
    ]));
    stdout(&margin(&[
        "svm-train",
        "-q",
        "-w1",
        "3",
        heart,
        b.to_str().unwrap(),
    ]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    stdout(&margin(&["svm-train", "-q", heart, b.to_str().unwrap()]));
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn svm_train_with_the_batched_solver_predicts_as_libsvm_s_model() {
    // heart_scale with LIBSVM's defaults: LIBSVM's model predicts 234 of 270 right
    // (`svm_predict_reads_libsvm_model_files`); the batched solver's model, at the same
    // optimum to within -e, predicts the same labels.
    let dir = tempfile::tempdir().unwrap();
    let (model, pred) = (dir.path().join("m"), dir.path().join("p"));
    let printed = stdout(&margin(&[
        "svm-train",
        "--solver",
        "batched",
        "-c",
        "1",
        "-g",
        "0.0769230769230769",
        "datasets/heart_scale",
        model.to_str().unwrap(),
    ]));
    assert!(
        printed.contains("optimization finished, #iter = "),
        "{printed}"
    );
    let printed = stdout(&margin(&[
        "svm-predict",
        "datasets/heart_scale",
        model.to_str().unwrap(),
        pred.to_str().unwrap(),
    ]));
    assert_eq!(printed, "Accuracy = 86.6667% (234/270) (classification)\n");
}
