//! `margin svm-train` against LIBSVM 3.37 where the numerics are delicate: ν-SVC and ν-SVR
//! (the `C = …` / `epsilon = …` lines and LIBSVM's rescaling by r), ν-SVC with a sigmoid kernel
//! ending with a negative C, and extreme feature scales (1e-7 to 6e5) with the RBF kernel. The
//! model files must be LIBSVM's byte for byte, the printed summary LIBSVM's line for line, and
//! `svm-predict` must give LIBSVM's labels or values. Fixtures and the generated data sets:
//! crates/models-svm/tests/fixtures/gen_libsvm_numerics.py.

use crate::common;

use std::path::PathBuf;

use common::{margin, root, stdout};

fn fixture(name: &str) -> PathBuf {
    root()
        .join("crates/models-svm/tests/fixtures/numerics")
        .join(name)
}

/// (fixture name, data file, svm-train options), as in gen_libsvm_numerics.py.
const CASES: &[(&str, &str, &str)] = &[
    ("heart_nu_svc_linear", "heart_scale", "-s 1 -n 0.2 -t 0"),
    (
        "heart_nu_svc_poly",
        "heart_scale",
        "-s 1 -n 0.5 -t 1 -d 2 -g 0.1 -r 1",
    ),
    ("heart_nu_svc_rbf", "heart_scale", "-s 1 -n 0.7"),
    ("blobs3_nu_svc_rbf", "blobs3.data", "-s 1 -n 0.3"),
    ("blobs3_nu_svc_linear", "blobs3.data", "-s 1 -n 0.5 -t 0"),
    (
        "blobs3_nu_svc_poly",
        "blobs3.data",
        "-s 1 -n 0.4 -t 1 -d 3 -r 0.5",
    ),
    ("housing_nu_svr_rbf", "housing_scale", "-s 4 -n 0.2 -c 10"),
    ("housing_nu_svr_linear", "housing_scale", "-s 4 -n 0.5 -t 0"),
    (
        "housing_nu_svr_poly",
        "housing_scale",
        "-s 4 -n 0.8 -t 1 -d 2 -c 5",
    ),
    (
        "heart_nu_svc_sigmoid_negative_c",
        "heart_scale",
        "-s 1 -t 3 -n 0.2 -g 0.1 -r 0",
    ),
    (
        "blobs3_nu_svc_sigmoid_negative_c",
        "blobs3.data",
        "-s 1 -t 3 -n 0.2 -g 2 -r -1",
    ),
    (
        "extreme_spread_bin_svc",
        "extreme_spread_bin.data",
        "-s 0 -c 10",
    ),
    (
        "extreme_spread_multi_nu_svc",
        "extreme_spread_multi.data",
        "-s 1 -n 0.3",
    ),
    (
        "extreme_spread_bin_one_class",
        "extreme_spread_bin.data",
        "-s 2 -n 0.3",
    ),
    (
        "extreme_spread_reg_svr",
        "extreme_spread_reg.data",
        "-s 3 -c 10 -p 0.5",
    ),
    ("extreme_offset_bin_svc", "extreme_offset_bin.data", "-s 0"),
    (
        "extreme_offset_bin_svc_g5",
        "extreme_offset_bin.data",
        "-s 0 -c 100 -g 5",
    ),
    (
        "extreme_offset_multi_nu_svc",
        "extreme_offset_multi.data",
        "-s 1",
    ),
    (
        "extreme_offset_bin_one_class",
        "extreme_offset_bin.data",
        "-s 2",
    ),
    (
        "extreme_offset_bin_one_class_g2",
        "extreme_offset_bin.data",
        "-s 2 -n 0.2 -g 2",
    ),
    (
        "extreme_offset_reg_svr",
        "extreme_offset_reg.data",
        "-s 3 -c 10 -p 0.1",
    ),
    (
        "extreme_offset_reg_nu_svr",
        "extreme_offset_reg.data",
        "-s 4 -c 10",
    ),
];

fn data_path(data: &str) -> String {
    if data.ends_with(".data") {
        fixture(data).to_string_lossy().into_owned()
    } else {
        format!("datasets/{data}")
    }
}

/// LIBSVM's summary lines: without its progress marks (lines of `.` and `*`, or empty) and
/// its warnings (both `libsvm-folds`' items), which this suite does not judge.
fn summary(printed: &str) -> Vec<&str> {
    printed
        .lines()
        .filter(|l| !l.chars().all(|c| c == '.' || c == '*') && !l.starts_with("WARNING"))
        .collect()
}

#[test]
fn models_and_summaries_are_libsvm_s_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut differ = Vec::new();
    for &(name, data, options) in CASES {
        let model = dir.path().join(format!("{name}.model"));
        let m = model.to_str().unwrap();
        let data = data_path(data);
        let mut args = vec!["svm-train"];
        args.extend(options.split(' '));
        args.extend([data.as_str(), m]);
        let printed = stdout(&margin(&args));
        let want = std::fs::read_to_string(fixture(&format!("{name}.stdout"))).unwrap();
        if summary(&printed) != summary(&want) {
            differ.push(format!(
                "{name}: printed\n{printed}\nLIBSVM printed\n{want}"
            ));
        }
        if std::fs::read(&model).unwrap()
            != std::fs::read(fixture(&format!("{name}.model"))).unwrap()
        {
            differ.push(format!("{name}: model file"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn predictions_from_libsvm_s_models_are_libsvm_s() {
    let dir = tempfile::tempdir().unwrap();
    let mut differ = Vec::new();
    for &(name, data, _) in CASES {
        let out = dir.path().join(format!("{name}.predict"));
        let model = fixture(&format!("{name}.model"));
        let data = data_path(data);
        stdout(&margin(&[
            "svm-predict",
            &data,
            model.to_str().unwrap(),
            out.to_str().unwrap(),
        ]));
        let got = std::fs::read_to_string(&out).unwrap();
        let want = std::fs::read_to_string(fixture(&format!("{name}.predict"))).unwrap();
        let wrong = got
            .lines()
            .zip(want.lines())
            .filter(|(a, b)| a != b)
            .count();
        if got != want {
            differ.push(format!("{name}: {wrong} predictions differ"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn a_negative_c_is_trained_as_libsvm_does_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let out = margin(&[
        "svm-train",
        "-s",
        "1",
        "-t",
        "3",
        "-n",
        "0.2",
        "-g",
        "0.1",
        "-r",
        "0",
        "datasets/heart_scale",
        model.to_str().unwrap(),
    ]);
    let printed = stdout(&out);
    assert!(printed.contains("C = -7.763716\n"), "{printed}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("negative C = -7.763716") && err.contains("not positive semi-definite"),
        "{err}"
    );
}

/// r = 0 leaves nothing to divide by: LIBSVM writes a model of `inf` coefficients and `nan`
/// offsets (`svm-train -s 1 -n 0.2 -t 3` on this set prints `C = inf`), margin refuses.
#[test]
fn a_zero_r_is_refused_where_libsvm_writes_inf_and_nan() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    let data = data_path("extreme_spread_multi.data");
    let args = [
        "svm-train",
        "-s",
        "1",
        "-n",
        "0.2",
        "-t",
        "3",
        &data,
        model.to_str().unwrap(),
    ];
    common::fails_with(&args, 1, "r = 0: the problem is degenerate");
    assert!(!model.exists());
}
