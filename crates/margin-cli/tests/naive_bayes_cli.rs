//! `margin train` / `predict` / `evaluate` with the naive Bayes family: accuracies equal to
//! scikit-learn 1.9.1's on the bundled data, `--proba` output, each parameter flag, and
//! refusals with exit code 2.

use crate::common;

use common::{evaluate_roc, fails_with, margin, predict, proba_rows, stdout, train};

#[test]
fn train_then_predict_matches_scikit_learns_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("nb.margin");
    let m = model.to_str().unwrap();
    // (model and flags, data, test data, scikit-learn 1.9.1's accuracy with the same settings)
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (&["multinomial-nb"], "dna.scale", "dna.scale.t", "0.912310"),
        (
            &["multinomial-nb", "--alpha", "0.5", "--fit-prior", "false"],
            "dna.scale",
            "dna.scale.t",
            "0.913997",
        ),
        (&["bernoulli-nb"], "dna.scale", "dna.scale.t", "0.932546"),
        (
            &[
                "bernoulli-nb",
                "--alpha",
                "0.5",
                "--fit-prior",
                "false",
                "--binarize",
                "0.5",
            ],
            "dna.scale",
            "dna.scale.t",
            "0.933390",
        ),
        (
            &["gaussian-nb", "--var-smoothing", "1e-3"],
            "dna.scale",
            "dna.scale.t",
            "0.930860",
        ),
        (&["gaussian-nb"], "heart_scale", "heart_scale", "0.859259"),
    ];
    for (flags, data, test, accuracy) in cases {
        let (data, test) = (format!("datasets/{data}"), format!("datasets/{test}"));
        let mut args = flags.to_vec();
        args.extend([data.as_str(), "-o", m]);
        train(&args);
        let out = predict(m, &test, "/dev/null");
        assert_eq!(out, format!("accuracy: {accuracy}\n"), "{flags:?}");
    }
}

#[test]
fn predict_proba_writes_each_class_probability() {
    let dir = tempfile::tempdir().unwrap();
    let (model, preds) = (dir.path().join("nb.margin"), dir.path().join("p.txt"));
    let m = model.to_str().unwrap();
    train(&[
        "bernoulli-nb",
        "--binarize",
        "none",
        "datasets/dna.scale",
        "-o",
        m,
    ]);
    let rows = proba_rows(m, "datasets/dna.scale.t", &preds, "label 1 2 3");
    assert_eq!(rows.len(), 1186);
    for r in &rows {
        let sum: f64 = r[1..].iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "{r:?}");
        // The label is the most probable class (columns are classes 1, 2, 3).
        let best = r[1..].iter().cloned().fold(0.0, f64::max);
        assert_eq!(r[r[0] as usize], best, "{r:?}");
    }
}

#[test]
fn evaluate_cross_validates_and_draws_a_roc_curve() {
    let chart = evaluate_roc(&["gaussian-nb", "datasets/heart_scale", "--cv", "3"]);
    assert!(
        chart.contains("AUC = 0.9"),
        "heart_scale's NB AUROC is about 0.9"
    );
}

#[test]
fn bad_flags_and_data_are_refused_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("nb.margin");
    let m = m.to_str().unwrap();
    fails_with(
        &[
            "train",
            "multinomial-nb",
            "--alpha",
            "-1",
            "datasets/dna.scale",
            "-o",
            m,
        ],
        2,
        "alpha",
    );
    fails_with(
        &[
            "train",
            "bernoulli-nb",
            "--binarize",
            "half",
            "datasets/dna.scale",
            "-o",
            m,
        ],
        2,
        "--binarize",
    );
    fails_with(
        &[
            "train",
            "multinomial-nb",
            "--var-smoothing",
            "1",
            "datasets/dna.scale",
            "-o",
            m,
        ],
        2,
        "no parameter --var-smoothing",
    );
    fails_with(
        &[
            "train",
            "multinomial-nb",
            "--fit-prior",
            "maybe",
            "datasets/dna.scale",
            "-o",
            m,
        ],
        2,
        "--fit-prior",
    );
    // heart_scale is scaled to [-1, 1]: not counts.
    fails_with(
        &["train", "multinomial-nb", "datasets/heart_scale", "-o", m],
        2,
        "at row 0, column 3",
    );
    let one_class = dir.path().join("one.libsvm");
    std::fs::write(&one_class, "1 1:0.5\n1 1:2\n").unwrap();
    fails_with(
        &["train", "gaussian-nb", one_class.to_str().unwrap(), "-o", m],
        2,
        "too few classes",
    );
    train(&["multinomial-nb", "datasets/dna.scale", "-o", m]);
    // A LIBSVM file may stop below the model's 180 features, never go above them.
    let wide = dir.path().join("wide.libsvm");
    std::fs::write(&wide, "1 200:1\n").unwrap();
    fails_with(
        &["predict", m, wide.to_str().unwrap()],
        2,
        "feature index 200, above the 180 features",
    );
    let help = stdout(&margin(&["train", "bernoulli-nb", "--help"]));
    assert!(
        help.contains("--binarize") && help.contains("--alpha"),
        "{help}"
    );
}
