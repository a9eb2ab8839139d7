//! `margin svm-train` / `margin svm-predict` on what LIBSVM 3.37 accepts: feature index 0 in a
//! data file, non-integer class labels (grouped by `(int)y`), data with one class, a degree-0
//! or negative-coef0 polynomial, and precomputed kernels (`-t 4`) for every svm type. Each case
//! is compared with LIBSVM's model file, svm-predict output file and printed lines
//! (crates/models-svm/tests/fixtures/gen_libsvm_inputs.py).

use crate::common;

use std::path::PathBuf;

use common::{margin, root, stdout};

fn fixture(name: &str) -> PathBuf {
    root().join("crates/models-svm/tests/fixtures").join(name)
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Trains `name` as gen_libsvm_inputs.py does, predicts its test file, and compares the model
/// (unless `model_too` is false), the predictions and svm-predict's lines with LIBSVM's.
fn check(
    name: &str,
    train: &str,
    options: &[&str],
    test: &str,
    probability: bool,
    model_too: bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let (model, out) = (dir.path().join("m"), dir.path().join("o"));
    let (m, o) = (model.to_str().unwrap(), out.to_str().unwrap());
    let train = fixture(train);
    let mut args = vec!["svm-train", "-q"];
    args.extend(options);
    args.extend([train.to_str().unwrap(), m]);
    assert_eq!(stdout(&margin(&args)), "", "{name}: -q prints nothing");
    if model_too {
        assert_eq!(
            read(&model),
            read(&fixture(&format!("{name}.model"))),
            "{name}: model"
        );
    }
    // LIBSVM's own model, so a model that differs (see `model_too`) does not hide the rest.
    let libsvm_model = fixture(&format!("{name}.model"));
    let test = fixture(test);
    let mut args = vec!["svm-predict"];
    if probability {
        args.extend(["-b", "1"]);
    }
    args.extend([test.to_str().unwrap(), libsvm_model.to_str().unwrap(), o]);
    let printed = stdout(&margin(&args));
    assert_eq!(
        read(&out),
        read(&fixture(&format!("{name}.predict"))),
        "{name}: predictions"
    );
    assert_eq!(
        printed,
        read(&fixture(&format!("{name}.stdout"))),
        "{name}: printed lines"
    );
}

#[test]
fn index_zero_is_a_feature_as_in_libsvm() {
    // γ's default stays 1/max_index (1/12 for 13 features 0..=12), and index 0 is written back.
    check(
        "inputs_zero_rbf",
        "inputs_zero.svm",
        &[],
        "inputs_zero.svm",
        false,
        true,
    );
    check(
        "inputs_zero_linear",
        "inputs_zero.svm",
        &["-t", "0"],
        "inputs_zero.svm",
        false,
        true,
    );
    check(
        "inputs_zero_svr",
        "inputs_zero.svm",
        &["-s", "3", "-g", "0"],
        "inputs_zero.svm",
        false,
        true,
    );
    let text = read(&fixture("inputs_zero_rbf.model"));
    assert!(
        text.contains("gamma 0.083333333333333329\n") && text.contains(" 0:"),
        "{text}"
    );
}

#[test]
fn non_integer_labels_are_grouped_by_their_int_part() {
    // 1.5 → 1, −1.5 → −1, ±0.7 → 0: three classes in order of first appearance (the first
    // label is 0.7); accuracy counts the labels as written.
    check(
        "inputs_frac",
        "inputs_frac.svm",
        &[],
        "inputs_frac.svm",
        false,
        true,
    );
    let text = read(&fixture("inputs_frac.model"));
    assert!(
        text.contains("\nnr_class 3\n") && text.contains("\nlabel 0 -1 1\n"),
        "{text}"
    );
}

#[test]
fn labels_outside_int_are_int_min_as_on_x86_64() {
    // 3e9 is class -2147483648 (cvttsd2si's INT_MIN), which -w-2147483648 names: a valid int
    // label in the model file, and no "not found" warning for the weight.
    check(
        "inputs_int_min_weighted",
        "inputs_int_min.svm",
        &["-w-2147483648", "2"],
        "inputs_int_min.svm",
        false,
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let data = fixture("inputs_int_min.svm");
    let out = margin(&[
        "svm-train",
        "-q",
        "-w-2147483648",
        "2",
        data.to_str().unwrap(),
        model.to_str().unwrap(),
    ]);
    stdout(&out);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn one_class_data_trains_libsvm_s_single_class_model() {
    check(
        "inputs_single",
        "inputs_single.svm",
        &[],
        "inputs_frac.svm",
        false,
        true,
    );
    check(
        "inputs_single_nu_probability",
        "inputs_single.svm",
        &["-s", "1", "-b", "1"],
        "inputs_single.svm",
        true,
        true,
    );
    // Without -q, LIBSVM's warning and count (its info(), on stdout).
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let data = fixture("inputs_single.svm");
    let printed = stdout(&margin(&[
        "svm-train",
        data.to_str().unwrap(),
        model.to_str().unwrap(),
    ]));
    assert_eq!(
        printed,
        "WARNING: training data in only one class. See README for details.\nTotal nSV = 0\n"
    );
    // Cross-validation predicts the one class everywhere.
    let printed = stdout(&margin(&[
        "svm-train",
        "-q",
        "-v",
        "3",
        data.to_str().unwrap(),
    ]));
    assert!(
        printed.ends_with("Cross Validation Accuracy = 100%\n"),
        "{printed}"
    );
    // A model trained without -b 1 has no probability model, as LIBSVM says.
    let test = fixture("inputs_single.svm");
    let out = dir.path().join("o");
    common::fails_with(
        &[
            "svm-predict",
            "-b",
            "1",
            test.to_str().unwrap(),
            fixture("inputs_single.model").to_str().unwrap(),
            out.to_str().unwrap(),
        ],
        2,
        "Model does not support probability estimates",
    );
}

#[test]
fn polynomials_take_degree_zero_and_a_negative_coef0() {
    check(
        "inputs_poly_d0",
        "inputs_zero.svm",
        &["-t", "1", "-d", "0"],
        "inputs_zero.svm",
        false,
        true,
    );
    check(
        "inputs_poly_negative_coef0",
        "inputs_zero.svm",
        &["-t", "1", "-d", "2", "-r", "-0.5"],
        "inputs_zero.svm",
        false,
        true,
    );
}

#[test]
fn precomputed_kernels_work_for_every_svm_type() {
    for s in 0..5 {
        let name = format!("inputs_kernel_s{s}");
        let type_flag = s.to_string();
        // ν-SVC's coefficients differ from LIBSVM's in the last digit (its rescaling by r,
        // issue 17 item 4): its predictions and printed lines are still compared.
        check(
            &name,
            "inputs_kernel.svm",
            &["-t", "4", "-s", &type_flag],
            "inputs_kernel_test.svm",
            false,
            s != 1,
        );
    }
}
