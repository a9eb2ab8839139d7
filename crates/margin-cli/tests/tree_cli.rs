//! `margin train` / `predict` / `tree-export` with the tree family: accuracies equal to
//! scikit-learn 1.9.1's with the same settings on the bundled data, the export layouts, each
//! flag, and refusals with exit code 2.

use crate::common;

use common::{accuracy, fails_with, margin, predict, stdout, train};

#[test]
fn train_then_predict_matches_scikit_learns_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tree.margin");
    let m = model.to_str().unwrap();
    // (model and flags, data, test data, scikit-learn 1.9.1's score with the same settings)
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (
            &["tree", "--criterion", "entropy", "--max-depth", "2"],
            "heart_scale",
            "heart_scale",
            "accuracy: 0.762963\n",
        ),
        (
            &[
                "tree",
                "--criterion",
                "entropy",
                "--max-depth",
                "3",
                "--min-samples-split",
                "2",
            ],
            "heart_scale",
            "heart_scale",
            "accuracy: 0.855556\n",
        ),
        (
            &[
                "tree",
                "--criterion",
                "entropy",
                "--min-samples-leaf",
                "30",
                "--max-leaf-nodes",
                "none",
            ],
            "svmguide1",
            "svmguide1.t",
            "accuracy: 0.960750\n",
        ),
        (
            &[
                "tree",
                "--criterion",
                "entropy",
                "--max-depth",
                "3",
                "--ccp-alpha",
                "0.05",
            ],
            "heart_scale",
            "heart_scale",
            "accuracy: 0.814815\n",
        ),
        (
            &["adaboost"],
            "svmguide1",
            "svmguide1.t",
            "accuracy: 0.969000\n",
        ),
        (
            &["adaboost", "--n-estimators", "20", "--learning-rate", "0.5"],
            "svmguide1",
            "svmguide1.t",
            "accuracy: 0.967250\n",
        ),
    ];
    for (flags, data, test, score) in cases {
        let (data, test) = (format!("datasets/{data}"), format!("datasets/{test}"));
        let mut args = flags.to_vec();
        args.extend([data.as_str(), "-o", m]);
        train(&args);
        let out = predict(m, &test, "/dev/null");
        assert_eq!(out, score, "{flags:?}");
    }
    // A regression tree: scikit-learn's training R² with min_samples_leaf = 8.
    train(&[
        "tree-regressor",
        "--min-samples-leaf",
        "8",
        "datasets/housing_scale",
        "-o",
        m,
    ]);
    let out = predict(m, "datasets/housing_scale", "/dev/null");
    assert!(out.starts_with("r2: 0.878652\n"), "{out}");
}

#[test]
fn forests_train_predict_and_report_out_of_bag_scores() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("forest.margin");
    let m = model.to_str().unwrap();
    let out = train(&[
        "forest",
        "--n-estimators",
        "30",
        "--oob-score",
        "true",
        "--max-features",
        "sqrt",
        "--seed",
        "3",
        "--class-weight",
        "balanced",
        "datasets/svmguide1",
        "-o",
        m,
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("out-of-bag accuracy: 0.9"));
    let acc = accuracy(&predict(m, "datasets/svmguide1.t", "/dev/null"));
    assert!(acc > 0.95, "{acc}");
    let proba = dir.path().join("p.txt");
    stdout(&margin(&[
        "predict",
        m,
        "datasets/svmguide1.t",
        "--proba",
        "-o",
        proba.to_str().unwrap(),
    ]));
    assert!(std::fs::read_to_string(&proba).unwrap().lines().count() > 4000);
    train(&[
        "forest-regressor",
        "--n-estimators",
        "10",
        "--bootstrap",
        "false",
        "--max-features",
        "0.5",
        "datasets/housing_scale",
        "-o",
        m,
    ]);
    // Extra trees: random thresholds, no bootstrap.
    let extra = dir.path().join("extra.margin");
    let e = extra.to_str().unwrap();
    train(&[
        "forest",
        "--splitter",
        "random",
        "--bootstrap",
        "false",
        "--n-estimators",
        "30",
        "datasets/svmguide1",
        "-o",
        e,
    ]);
    let acc = accuracy(&predict(e, "datasets/svmguide1.t", "/dev/null"));
    assert!(acc > 0.95, "{acc}");
    fails_with(
        &[
            "train",
            "tree",
            "--splitter",
            "worst",
            "datasets/heart_scale",
            "-o",
            e,
        ],
        2,
        "--splitter",
    );
    let out = predict(m, "datasets/housing_scale", "/dev/null");
    // Without bootstrap every fully grown tree memorizes the distinct training rows.
    assert!(out.starts_with("r2: 1.000000\n"), "{out}");
    let text = stdout(&margin(&["tree-export", m, "--tree", "9"]));
    assert!(text.contains("value: ["));
    fails_with(&["tree-export", m, "--tree", "10"], 2, "10 tree(s)");
}

/// The text layout is scikit-learn's export_text (its labels print as -1.0 / 1.0 where
/// margin prints the labels as the file wrote them).
#[test]
fn tree_export_prints_text_and_dot() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tree.margin");
    let m = model.to_str().unwrap();
    train(&[
        "tree",
        "--criterion",
        "entropy",
        "--max-depth",
        "2",
        "datasets/heart_scale",
        "-o",
        m,
    ]);
    let want = "\
|--- feature_12 <= -0.25
|   |--- feature_2 <= 0.67
|   |   |--- class: -1
|   |--- feature_2 >  0.67
|   |   |--- class: -1
|--- feature_12 >  -0.25
|   |--- feature_11 <= -0.67
|   |   |--- class: 1
|   |--- feature_11 >  -0.67
|   |   |--- class: 1
";
    assert_eq!(stdout(&margin(&["tree-export", m])), want);
    let three = stdout(&margin(&["tree-export", m, "--decimals", "3"]));
    assert!(three.starts_with("|--- feature_12 <= -0.250\n"), "{three}");
    let dot = stdout(&margin(&["tree-export", m, "--dot"]));
    assert!(dot.starts_with("digraph Tree {"), "{dot}");
    assert_eq!(dot.matches(" -> ").count(), 6);
    assert!(dot.contains("entropy = 0.99"));
    fails_with(&["tree-export", m, "--tree", "1"], 2, "1 tree(s)");
}

#[test]
fn bad_flags_and_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.margin");
    let o = out.to_str().unwrap();
    let h = "datasets/heart_scale";
    fails_with(
        &["train", "tree", "--criterion", "mse", h, "-o", o],
        2,
        "criterion",
    );
    fails_with(
        &["train", "tree", "--criterion", "squared_error", h, "-o", o],
        2,
        "criterion",
    );
    fails_with(
        &["train", "tree", "--max-depth", "zero", h, "-o", o],
        2,
        "--max-depth",
    );
    fails_with(
        &["train", "tree", "--max-depth", "0", h, "-o", o],
        2,
        "--max-depth: expected at least 1, or none (grow until the leaves are pure), found `0`",
    );
    fails_with(
        &["train", "tree", "--max-features", "many", h, "-o", o],
        2,
        "--max-features: expected all, sqrt, log2, a count (3) or a fraction (0.5), found `many`",
    );
    fails_with(
        &["train", "tree", "--class-weight", "heavy", h, "-o", o],
        2,
        "--class-weight",
    );
    fails_with(
        &["train", "tree", "--n-estimators", "5", h, "-o", o],
        2,
        "--n-estimators",
    );
    fails_with(
        &["train", "forest", "--n-estimators", "0", h, "-o", o],
        2,
        "--n-estimators: expected at least 1, found `0`",
    );
    fails_with(
        &["train", "adaboost", "--learning-rate", "-1", h, "-o", o],
        2,
        "--learning-rate: expected a finite number > 0, found `-1`",
    );
    fails_with(
        &["tree-export", "/nonexistent/model.margin"],
        2,
        "model.margin",
    );
    train(&["gaussian-nb", h, "-o", o]);
    fails_with(&["tree-export", o], 2, "holds no decision tree");
}

/// A CSV file's header names the features: the model keeps the names and `tree-export` prints
/// them, for a tree, a forest and AdaBoost alike.
#[test]
fn tree_export_names_the_features_by_the_csv_header() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("flowers.csv");
    let mut rows = String::from("sepal_length,petal_width,species\n");
    for i in 0..12 {
        // petal_width alone separates the species; sepal_length does not.
        let (width, species) = if i < 6 {
            (0.2 + f64::from(i) / 20.0, "setosa")
        } else {
            (1.5 + f64::from(i) / 20.0, "virginica")
        };
        rows += &format!("{},{width},{species}\n", 5.0 + f64::from(i * 7 % 12) / 10.0);
    }
    std::fs::write(&csv, rows).unwrap();
    let model = dir.path().join("m.margin");
    let (c, m) = (csv.to_str().unwrap(), model.to_str().unwrap());
    train(&["tree", c, "-o", m]);
    let text = stdout(&margin(&["tree-export", m]));
    assert!(text.starts_with("|--- petal_width <= "), "{text}");
    assert!(text.contains("class: setosa"), "{text}");
    let dot = stdout(&margin(&["tree-export", m, "--dot"]));
    assert!(dot.contains("petal_width <= "), "{dot}");
    for kind in [
        &["forest", "--n-estimators", "3"][..],
        &["adaboost", "--n-estimators", "2"],
    ] {
        let mut args = kind.to_vec();
        args.extend([c, "-o", m]);
        train(&args);
        let text = stdout(&margin(&["tree-export", m]));
        assert!(
            !text.contains("feature_")
                && (text.contains("sepal_length") || text.contains("petal_width")),
            "{kind:?}: {text}"
        );
    }
}
