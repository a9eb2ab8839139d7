//! `margin train knn-classifier|knn-regressor` and `margin predict`: scores equal to
//! scikit-learn 1.9.1's with the same settings on the bundled data, `--proba` output, every
//! parameter flag, and refusals with exit code 2.

use crate::common;

use common::{fails_with, margin, predict, proba_rows, root, stdout, train};

/// Ten neighbours weighted by distance in the L1 metric: a setting scikit-learn scored for both
/// the classifier and the regressor.
const TEN_MANHATTAN: [&str; 6] = [
    "--n-neighbors",
    "10",
    "--weights",
    "distance",
    "--metric",
    "manhattan",
];

#[test]
fn classifier_accuracies_match_scikit_learn() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("knn.margin");
    let m = model.to_str().unwrap();
    // (flags, scikit-learn's accuracy on svmguide1.t with the same KNeighborsClassifier
    // settings). Both algorithms must give it.
    let cases: [(&[&str], &str); 3] = [
        (&["--n-neighbors", "5"], "0.966000"),
        (&TEN_MANHATTAN, "0.967500"),
        (
            &["--n-neighbors", "7", "--p", "3", "--leaf-size", "5"],
            "0.964750",
        ),
    ];
    for (flags, accuracy) in cases {
        for algorithm in ["kd_tree", "brute"] {
            let mut args = vec!["knn-classifier"];
            args.extend_from_slice(flags);
            args.extend(["--algorithm", algorithm, "datasets/svmguide1", "-o", m]);
            train(&args);
            let out = predict(m, "datasets/svmguide1.t", "/dev/null");
            assert_eq!(out, format!("accuracy: {accuracy}\n"), "{args:?}");
        }
    }
}

#[test]
fn regressor_scores_match_scikit_learn() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("datasets/housing_scale")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (train_file, test_file) = (dir.path().join("h.train"), dir.path().join("h.test"));
    std::fs::write(&train_file, lines[..400].join("\n") + "\n").unwrap();
    std::fs::write(&test_file, lines[400..].join("\n") + "\n").unwrap();
    let m = dir.path().join("r.margin");
    let m = m.to_str().unwrap();
    // scikit-learn's KNeighborsRegressor scores on the last 106 rows, trained on the first 400.
    let cases: [(&[&str], &str); 2] = [
        (&[], "r2: 0.333315\nrmse: 4.340363\nmae: 3.447925\n"),
        (
            &TEN_MANHATTAN,
            "r2: 0.522312\nrmse: 3.673988\nmae: 2.831074\n",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["knn-regressor"];
        args.extend_from_slice(flags);
        args.extend([train_file.to_str().unwrap(), "-o", m]);
        train(&args);
        let out = predict(m, test_file.to_str().unwrap(), "/dev/null");
        assert_eq!(out, want, "{flags:?}");
    }
}

#[test]
fn predict_proba_writes_each_class_share_of_the_vote() {
    let dir = tempfile::tempdir().unwrap();
    let (model, preds) = (dir.path().join("k.margin"), dir.path().join("p.txt"));
    let m = model.to_str().unwrap();
    train(&[
        "knn-classifier",
        "--metric",
        "cosine",
        "datasets/dna.scale",
        "-o",
        m,
    ]);
    let rows = proba_rows(m, "datasets/dna.scale.t", &preds, "label 1 2 3");
    assert_eq!(rows.len(), 1186);
    for r in &rows {
        // Uniform weights, k = 5: every probability is a count of neighbours over 5.
        assert!(
            r[1..]
                .iter()
                .all(|p| (p * 5.0 - (p * 5.0).round()).abs() < 1e-5),
            "{r:?}"
        );
        let best = r[1..].iter().cloned().fold(0.0, f64::max);
        assert_eq!(r[r[0] as usize], best, "{r:?}");
    }
}

#[test]
fn bad_flags_and_data_are_refused_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("k.margin");
    let m = m.to_str().unwrap();
    let refuse = |flags: &[&str], needle: &str| {
        let mut args = vec!["train", "knn-classifier"];
        args.extend_from_slice(flags);
        args.extend(["datasets/heart_scale", "-o", m]);
        fails_with(&args, 2, needle);
    };
    refuse(
        &["--n-neighbors", "0"],
        "--n-neighbors: expected an integer ≥ 1",
    );
    refuse(&["--n-neighbors", "271"], "n_neighbors");
    refuse(&["--weights", "gaussian"], "weights");
    refuse(&["--metric", "jaccard"], "metric");
    refuse(&["--p", "0.5"], "--p: expected a number ≥ 1");
    refuse(
        &["--metric", "cosine", "--p", "3"],
        "--p: p is used only with metric minkowski",
    );
    refuse(&["--algorithm", "ball_tree"], "algorithm");
    refuse(
        &["--metric", "hamming", "--algorithm", "kd_tree"],
        "algorithm",
    );
    refuse(&["--leaf-size", "0"], "--leaf-size: expected");
    refuse(&["--alpha", "1"], "no parameter --alpha");
    // Feature 2 is constant: the training covariance is singular.
    let constant = dir.path().join("constant.libsvm");
    std::fs::write(
        &constant,
        "1 1:0.5 2:1\n-1 1:2 2:1\n1 1:3 2:1\n-1 1:1 2:1\n",
    )
    .unwrap();
    fails_with(
        &[
            "train",
            "knn-classifier",
            "--n-neighbors",
            "1",
            "--metric",
            "mahalanobis",
            constant.to_str().unwrap(),
            "-o",
            m,
        ],
        2,
        "singular",
    );
    train(&["knn-classifier", "datasets/heart_scale", "-o", m]);
    fails_with(
        &["predict", m, "datasets/dna.scale"],
        2,
        "above the 13 features",
    );
    let help = stdout(&margin(&["train", "knn-regressor", "--help"]));
    assert!(
        help.contains("--n-neighbors") && help.contains("--algorithm"),
        "{help}"
    );
}
