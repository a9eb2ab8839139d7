//! `margin train` / `predict` / `evaluate` with histogram gradient boosting: scores equal to
//! scikit-learn 1.9.1's HistGradientBoosting* with the same settings on the bundled data,
//! `--proba` output, the flags, and refusals with exit code 2.

use crate::common;

use common::{evaluate_roc, fails_with, margin, predict, proba_rows, stdout, train};

#[test]
fn train_then_predict_matches_scikit_learn() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("gb.margin");
    let m = model.to_str().unwrap();
    // (flags, training data, test data, what scikit-learn 1.9.1 scores with the same
    // parameters: HistGradientBoostingClassifier(max_iter=50, early_stopping=False) on dna,
    // (max_depth=4, learning_rate=0.2) on svmguide1 (early stopping is off below 10 000
    // samples), HistGradientBoostingRegressor(loss="absolute_error") on housing_scale)
    let cases: [(&[&str], &str, &str, &str); 3] = [
        (
            &[
                "gradient-boosting",
                "--max-iter",
                "50",
                "--early-stopping",
                "false",
            ],
            "dna.scale",
            "dna.scale.t",
            "accuracy: 0.958685\n",
        ),
        (
            &[
                "gradient-boosting",
                "--max-depth",
                "4",
                "--learning-rate",
                "0.2",
            ],
            "svmguide1",
            "svmguide1.t",
            "accuracy: 0.968250\n",
        ),
        (
            &["gradient-boosting-regressor", "--loss", "absolute_error"],
            "housing_scale",
            "housing_scale",
            "r2: 0.906131\n",
        ),
    ];
    for (flags, data, test, expected) in cases {
        let (data, test) = (format!("datasets/{data}"), format!("datasets/{test}"));
        let mut args = flags.to_vec();
        args.extend([data.as_str(), "-o", m]);
        train(&args);
        let out = predict(m, &test, "/dev/null");
        assert!(out.starts_with(expected), "{flags:?}: {out}");
    }
}

#[test]
fn every_flag_is_accepted_and_proba_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (model, preds) = (dir.path().join("gb.margin"), dir.path().join("p.txt"));
    let m = model.to_str().unwrap();
    train(&[
        "gradient-boosting",
        "--learning-rate",
        "0.3",
        "--max-iter",
        "20",
        "--max-leaf-nodes",
        "none",
        "--max-depth",
        "3",
        "--min-samples-leaf",
        "5",
        "--l2-regularization",
        "1",
        "--max-bins",
        "63",
        "--early-stopping",
        "true",
        "--validation-fraction",
        "0.2",
        "--n-iter-no-change",
        "5",
        "--tol",
        "1e-6",
        "--subsample",
        "0.8",
        "--seed",
        "4",
        "--class-weight",
        "balanced",
        "datasets/heart_scale",
        "-o",
        m,
    ]);
    let rows = proba_rows(m, "datasets/heart_scale", &preds, "label -1 1");
    assert_eq!(rows.len(), 270);
    for r in &rows {
        assert!((r[1] + r[2] - 1.0).abs() < 1e-5, "{r:?}");
        let label = if r[2] > r[1] { 1.0 } else { -1.0 };
        assert_eq!(r[0], label, "{r:?}");
    }
}

#[test]
fn evaluate_cross_validates_with_a_roc_curve() {
    let chart = evaluate_roc(&[
        "gradient-boosting",
        "--max-iter",
        "20",
        "datasets/heart_scale",
        "--cv",
        "3",
    ]);
    assert!(chart.contains("AUC"));
}

#[test]
fn bad_flags_and_data_are_refused_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("gb.margin");
    let m = m.to_str().unwrap();
    let heart = "datasets/heart_scale";
    for (flag, value, needle) in [
        (
            "--learning-rate",
            "0",
            "--learning-rate: expected a finite number > 0, found `0`",
        ),
        (
            "--max-bins",
            "300",
            "--max-bins: expected an integer in [2, 255] (one more bin is kept for missing values), found `300`",
        ),
        (
            "--subsample",
            "1.5",
            "--subsample: expected a number in (0, 1], found `1.5`",
        ),
        ("--max-depth", "deep", "--max-depth"),
        ("--early-stopping", "maybe", "--early-stopping"),
        ("--class-weight", "heavy", "--class-weight"),
        ("--loss", "huber", "no parameter --loss"),
    ] {
        fails_with(
            &["train", "gradient-boosting", flag, value, heart, "-o", m],
            2,
            needle,
        );
    }
    fails_with(
        &[
            "train",
            "gradient-boosting-regressor",
            "--loss",
            "huber",
            heart,
            "-o",
            m,
        ],
        2,
        "--loss",
    );
    let one_class = dir.path().join("one.libsvm");
    std::fs::write(&one_class, "1 1:0.5\n1 1:2\n").unwrap();
    fails_with(
        &[
            "train",
            "gradient-boosting",
            one_class.to_str().unwrap(),
            "-o",
            m,
        ],
        2,
        "too few classes",
    );
    train(&["gradient-boosting", "--max-iter", "5", heart, "-o", m]);
    fails_with(
        &["predict", m, "datasets/dna.scale.t"],
        2,
        "above the 13 features",
    );
    let help = stdout(&margin(&["train", "gradient-boosting-regressor", "--help"]));
    assert!(
        help.contains("--loss") && help.contains("--n-iter-no-change"),
        "{help}"
    );
}
