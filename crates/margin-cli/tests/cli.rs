//! End-to-end tests of the `margin` binary: outputs against stored reference fixtures
//! (see tests/fixtures/gen_scale.py and tests/fixtures/svm_scale_337/README.md for how they were
//! produced) and exit codes for bad input.

use crate::common;

use std::path::{Path, PathBuf};

use common::{fails_with, margin, predict, stdout, train};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn scale_heart_scale_matches_svm_scale_byte_for_byte() {
    let out = margin(&["scale", "-l", "-1", "-u", "1", "datasets/heart_scale"]);
    assert_eq!(stdout(&out), read(&fixture("heart_scale.scaled")));
}

#[test]
fn scale_save_then_restore_matches_svm_scale() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("range");
    let p = params.to_str().unwrap();
    let out = margin(&["scale", "-l", "0", "-u", "1", "-s", p, "datasets/svmguide1"]);
    assert_eq!(stdout(&out), read(&fixture("svmguide1.scaled")));
    assert_eq!(read(&params), read(&fixture("svmguide1.range")));
    let out = margin(&["scale", "-r", p, "datasets/svmguide1.t"]);
    assert_eq!(stdout(&out), read(&fixture("svmguide1.t.scaled")));
}

/// A file of tests/fixtures/svm_scale_337 as svm-scale 3.37 was given it (relative to the
/// repository root, where `margin` runs), so that the warnings naming it are the same bytes.
fn svm_scale_337(name: &str) -> String {
    format!("crates/margin-cli/tests/fixtures/svm_scale_337/{name}")
}

/// `margin ARGS` prints what svm-scale 3.37 printed: the fixtures `out` and `err`.
fn prints_as_svm_scale_337(args: &[&str], out: &str, err: &str) {
    let o = margin(args);
    assert_eq!(stdout(&o), read(&fixture(&format!("svm_scale_337/{out}"))));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        read(&fixture(&format!("svm_scale_337/{err}")))
    );
}

#[test]
fn scale_r_drops_a_varying_feature_the_parameters_file_lacks_as_svm_scale_337() {
    // Feature 2 varies but is not listed: not written, and LIBSVM's warning names both files;
    // feature 6 is listed but never stored: its zeros are scaled (to -1) in every row.
    let (range, data) = (svm_scale_337("missing2.range"), svm_scale_337("labels.svm"));
    prints_as_svm_scale_337(
        &["scale", "-r", &range, &data],
        "missing2.scaled",
        "missing2.stderr",
    );
}

#[test]
fn scale_writes_targets_and_parameters_with_17_digits_as_svm_scale_337() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("range");
    let p = params.to_str().unwrap();
    let data = svm_scale_337("labels.svm");
    prints_as_svm_scale_337(
        &["scale", "-y", "-1", "1", "-s", p, &data],
        "labels.y.scaled",
        "labels.y.stderr",
    );
    assert_eq!(
        read(&params),
        read(&fixture("svm_scale_337/labels.y.range"))
    );
    // Restoring that file (its `y` section included) gives the same bytes.
    prints_as_svm_scale_337(
        &["scale", "-r", p, &data],
        "labels.y.scaled",
        "labels.y.stderr",
    );
    // Without -y the targets are written as read, with 17 digits (0.10000000000000001).
    let restored = svm_scale_337("missing2.range");
    let plain = stdout(&margin(&["scale", "-r", &restored, &data]));
    assert!(plain.starts_with("0.10000000000000001 1:-0.9 "), "{plain}");
}

#[test]
fn scale_takes_index_0_with_svm_scale_337s_warnings() {
    let data = svm_scale_337("index0.svm");
    prints_as_svm_scale_337(&["scale", &data], "index0.scaled", "index0.stderr");
    // -s stores no range for index 0, and says so, naming the file (svm-scale 3.37 writes the
    // same two features and the same warning).
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("range");
    let p = params.to_str().unwrap();
    let o = margin(&["scale", "-s", p, &data]);
    assert_eq!(stdout(&o), read(&fixture("svm_scale_337/index0.scaled")));
    assert_eq!(read(&params), "x\n-1 1\n1 0 4\n2 0 3\n");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "WARNING: scaling factors with indices smaller than 1 are not stored to the file {p}.\n"
        )),
        "{err}"
    );
}

#[test]
fn scale_csv_matches_scikit_learn_min_max_scaler() {
    let input = fixture("svmguide1_head.csv");
    let out = stdout(&margin(&[
        "scale",
        "-l",
        "-1",
        "-u",
        "1",
        input.to_str().unwrap(),
    ]));
    let expected = read(&fixture("svmguide1_head.scaled.csv"));
    let (got, want): (Vec<&str>, Vec<&str>) = (out.lines().collect(), expected.lines().collect());
    assert_eq!(got.len(), want.len());
    assert_eq!(got[0], want[0], "header");
    for (g, w) in got[1..].iter().zip(&want[1..]) {
        for (a, b) in g.split(',').zip(w.split(',')) {
            let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
}

#[test]
fn info_describes_a_bundled_dataset() {
    let out = stdout(&margin(&["info", "datasets/dna.scale"]));
    assert!(out.contains("rows: 2000\n"), "{out}");
    assert!(out.contains("features: 180\n"), "{out}");
    assert!(
        out.contains("class counts: 1: 464, 2: 485, 3: 1051"),
        "{out}"
    );
    let out = stdout(&margin(&["info", "datasets/housing_scale"]));
    assert!(out.contains("targets: continuous, range [5, 50]"), "{out}");
}

#[test]
fn bad_input_gets_exit_code_2_and_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let zero_index = write("zero.svm", "1 1:2\n-1 0:3\n");
    fails_with(&["info", &zero_index], 2, "line 2, column 4");
    let decreasing = write("dec.svm", "1 3:2 2:1\n");
    fails_with(&["scale", &decreasing], 2, "increase");
    let nan = write("nan.svm", "1 1:nan\n");
    fails_with(&["info", &nan], 2, "not finite");
    let csv = write("bad.csv", "a,b,y\n1,2,0\n3,x,1\n");
    fails_with(&["info", &csv], 2, "line 3");
    let params = write("params", "nonsense\n");
    fails_with(
        &["scale", "-r", &params, "datasets/heart_scale"],
        2,
        "svm-scale parameters file",
    );
    fails_with(&["info", "no/such/file"], 2, "No such file");
    fails_with(
        &["scale", "-l", "1", "-u", "0", "datasets/heart_scale"],
        2,
        "lower/upper",
    );
    fails_with(
        &["scale", "-s", "a", "-r", "b", "datasets/heart_scale"],
        2,
        "cannot be used with",
    );
    fails_with(&["train"], 2, "usage: margin train");
    fails_with(
        &["train", "no-such-model", "datasets/heart_scale", "-o", "m"],
        2,
        "unknown model",
    );
    let not_a_model = write("m.margin", "hello");
    fails_with(
        &["predict", &not_a_model, "datasets/heart_scale"],
        2,
        "not a margin model file",
    );
}

#[test]
fn help_exists_for_every_subcommand() {
    for sub in ["info", "scale", "predict"] {
        let out = margin(&[sub, "--help"]);
        assert!(out.status.success(), "{sub}");
    }
    assert!(stdout(&margin(&["train", "--help"])).contains("usage: margin train"));
}

#[test]
fn train_then_predict_reports_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("svc.margin");
    let preds = dir.path().join("pred.txt");
    let m = model.to_str().unwrap();
    train(&[
        "svc",
        "--c",
        "1",
        "--kernel",
        "rbf",
        "--gamma",
        "auto",
        "datasets/dna.scale",
        "-o",
        m,
    ]);
    let out = predict(m, "datasets/dna.scale.t", preds.to_str().unwrap());
    // scikit-learn 1.9.1 SVC(C=1, gamma=1/180), which also sorts the classes, scores 0.946880.
    assert_eq!(out, "accuracy: 0.946880\n");
    assert_eq!(read(&preds).lines().count(), 1186);
    let model = dir.path().join("svr.margin");
    let m = model.to_str().unwrap();
    train(&[
        "svr",
        "--c",
        "10",
        "--epsilon",
        "0.5",
        "--gamma",
        "auto",
        "datasets/housing_scale",
        "-o",
        m,
    ]);
    let out = predict(m, "datasets/housing_scale", preds.to_str().unwrap());
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.len() == 3
            && lines[0].starts_with("r2: ")
            && lines[1].starts_with("rmse: ")
            && lines[2].starts_with("mae: "),
        "{out}"
    );
    fails_with(
        &["train", "svc", "--cc", "1", "datasets/heart_scale", "-o", m],
        2,
        "no parameter --cc",
    );
    fails_with(
        &[
            "train",
            "svc",
            "--gamma",
            "big",
            "datasets/heart_scale",
            "-o",
            m,
        ],
        2,
        "--gamma",
    );
    fails_with(
        &["predict", m, "datasets/heart_scale", "--proba"],
        2,
        "probabilities",
    );
}

#[test]
fn evaluate_cross_validates_any_registered_model() {
    let args = [
        "evaluate",
        "svc",
        "datasets/heart_scale",
        "--cv",
        "5",
        "--seed",
        "2",
        "--metrics",
        "accuracy,mcc",
    ];
    let out = stdout(&margin(&args));
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], vec!["fold", "accuracy", "mcc"]);
    assert_eq!(rows.len(), 1 + 5 + 2, "{out}");
    let acc: Vec<f64> = rows[1..6].iter().map(|r| r[1].parse().unwrap()).collect();
    let mean: f64 = rows[6][1].parse().unwrap();
    assert!((acc.iter().sum::<f64>() / 5.0 - mean).abs() < 2e-6, "{out}");
    assert!(acc.iter().all(|&a| a > 0.6 && a <= 1.0));
    // Same seed, same folds, same table.
    assert_eq!(out, stdout(&margin(&args)));
    let reg = stdout(&margin(&[
        "evaluate",
        "svr",
        "datasets/housing_scale",
        "--cv",
        "3",
    ]));
    assert!(
        reg.starts_with("fold") && reg.contains("r2") && reg.contains("rmse"),
        "{reg}"
    );
    fails_with(
        &["evaluate", "svc", "datasets/heart_scale"],
        2,
        "missing --cv",
    );
    fails_with(
        &[
            "evaluate",
            "svc",
            "datasets/heart_scale",
            "--cv",
            "5",
            "--metrics",
            "r2",
        ],
        2,
        "not a metric",
    );
    fails_with(
        &["evaluate", "svc", "datasets/heart_scale", "--cv", "1"],
        2,
        "at least 2",
    );
}

/// Runs `margin evaluate svc datasets/heart_scale --cv 3 --roc CHART EXTRA…`, which must
/// succeed.
fn evaluate_heart_svc_roc(chart: &str, extra: &[&str]) {
    let mut args = vec![
        "evaluate",
        "svc",
        "datasets/heart_scale",
        "--cv",
        "3",
        "--roc",
        chart,
    ];
    args.extend_from_slice(extra);
    stdout(&margin(&args));
}

#[test]
fn evaluate_writes_roc_charts_and_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let (svg, png, report) = (
        dir.path().join("roc.svg"),
        dir.path().join("roc.png"),
        dir.path().join("report.md"),
    );
    let (s, p, r) = (
        svg.to_str().unwrap(),
        png.to_str().unwrap(),
        report.to_str().unwrap(),
    );
    evaluate_heart_svc_roc(s, &["--report", r]);
    let text = read(&svg);
    assert!(
        text.starts_with("<svg") && text.contains("AUC = 0."),
        "{text}"
    );
    let md = read(&report);
    assert!(
        md.contains("Pooled cross-validated AUROC") && md.contains("weighted avg"),
        "{md}"
    );
    evaluate_heart_svc_roc(p, &[]);
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    fails_with(
        &[
            "evaluate",
            "svr",
            "datasets/housing_scale",
            "--cv",
            "3",
            "--roc",
            s,
        ],
        2,
        "no scores",
    );
}
