//! `margin train` / `predict` with the least-squares family (linear, ridge, kernel-ridge): R²,
//! RMSE and MAE on housing_scale equal to scikit-learn 1.9.1's for the same settings, the
//! written predictions, each parameter flag, and refusals with exit code 2.

use crate::common;

use common::{fails_with, margin, predict, stdout, train};

#[test]
fn train_then_predict_matches_scikit_learns_scores() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("reg.margin");
    let m = model.to_str().unwrap();
    // (model and flags, scikit-learn 1.9.1's r2 / rmse / mae when predicting the training data)
    let cases: [(&[&str], [&str; 3]); 10] = [
        (&["linear"], ["0.740643", "4.679191", "3.270862"]),
        (
            &["linear", "--solver", "svd"],
            ["0.740643", "4.679191", "3.270862"],
        ),
        (
            &["linear", "--solver", "normal-equations"],
            ["0.740643", "4.679191", "3.270862"],
        ),
        (
            &["linear", "--solver", "gradient-descent"],
            ["0.740643", "4.679191", "3.270862"],
        ),
        (
            &["linear", "--fit-intercept", "false"],
            ["0.712489", "4.926617", "3.536768"],
        ),
        (
            &["ridge", "--alpha", "10", "--solver", "svd"],
            ["0.728869", "4.784218", "3.267767"],
        ),
        (&["kernel-ridge"], ["0.712252", "4.928644", "3.524846"]),
        (
            &[
                "kernel-ridge",
                "--kernel",
                "rbf",
                "--gamma",
                "0.1",
                "--alpha",
                "0.5",
            ],
            ["0.838452", "3.692942", "2.515770"],
        ),
        // gamma=None in scikit-learn: 1 / n_features.
        (
            &["kernel-ridge", "--kernel", "rbf"],
            ["0.779292", "4.316492", "2.900392"],
        ),
        (
            &["kernel-ridge", "--kernel", "poly"],
            ["0.862872", "3.402389", "2.341709"],
        ),
    ];
    for (flags, [r2, rmse, mae]) in cases {
        let mut args = vec!["train"];
        args.extend_from_slice(flags);
        args.extend(["datasets/housing_scale", "-o", m]);
        stdout(&margin(&args));
        let out = predict(m, "datasets/housing_scale", "/dev/null");
        assert_eq!(
            out,
            format!("r2: {r2}\nrmse: {rmse}\nmae: {mae}\n"),
            "{flags:?}"
        );
    }
}

#[test]
fn predictions_are_written_one_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("ols.margin");
    let out = dir.path().join("pred.txt");
    let (m, o) = (model.to_str().unwrap(), out.to_str().unwrap());
    train(&["linear", "datasets/housing_scale", "-o", m]);
    predict(m, "datasets/housing_scale", o);
    let values: Vec<f64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(values.len(), 506);
    // numpy.linalg.lstsq's fit (tests/fixtures/reg_ols.txt in models-linear), first rows.
    for (v, want) in values.iter().zip([30.003843977038258, 25.025564702296023]) {
        assert!((v - want).abs() < 1e-9 * want, "{v} vs {want}");
    }
}

#[test]
fn bad_flags_are_refused_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.margin");
    let m = model.to_str().unwrap();
    let data = "datasets/housing_scale";
    fails_with(
        &["train", "ridge", "--alpha", "-1", data, "-o", m],
        2,
        "alpha",
    );
    fails_with(
        &["train", "kernel-ridge", "--alpha", "nan", data, "-o", m],
        2,
        "alpha",
    );
    fails_with(
        &["train", "linear", "--solver", "lu", data, "-o", m],
        2,
        "expected qr, svd, normal-equations or gradient-descent",
    );
    fails_with(
        &["train", "ridge", "--solver", "qr", data, "-o", m],
        2,
        "expected cholesky or svd",
    );
    fails_with(
        &["train", "kernel-ridge", "--gamma", "0.1", data, "-o", m],
        2,
        "--gamma: gamma is used only with kernel rbf, poly or sigmoid",
    );
    fails_with(
        &[
            "train",
            "kernel-ridge",
            "--kernel",
            "rbf",
            "--degree",
            "2",
            data,
            "-o",
            m,
        ],
        2,
        "--degree: degree is used only with kernel poly",
    );
    fails_with(
        &["train", "kernel-ridge", "--kernel", "custom", data, "-o", m],
        2,
        "a custom kernel is given whole",
    );
    fails_with(
        &[
            "train",
            "kernel-ridge",
            "--kernel",
            "rbf",
            "--gamma",
            "-2",
            data,
            "-o",
            m,
        ],
        2,
        "gamma",
    );
    fails_with(
        &["train", "linear", "--alpha", "1", data, "-o", m],
        2,
        "has no parameter --alpha",
    );
    fails_with(
        &["train", "linear", "--fit-intercept", "maybe", data, "-o", m],
        2,
        "--fit-intercept",
    );
    train(&["ridge", data, "-o", m]);
    fails_with(&["predict", m, data, "--proba"], 2, "regressor");
}

#[test]
fn help_lists_each_models_parameters() {
    let out = stdout(&margin(&["train", "ridge", "--help"]));
    assert!(
        out.contains("--alpha") && out.contains("--fit-intercept"),
        "{out}"
    );
    let out = stdout(&margin(&["train", "kernel-ridge", "--help"]));
    assert!(
        out.contains("--kernel linear|poly|rbf|sigmoid|precomputed"),
        "{out}"
    );
    let out = stdout(&margin(&["train", "--help"]));
    for name in ["linear", "ridge", "kernel-ridge"] {
        assert!(out.contains(&format!("  {name} ")), "{out}");
    }
}
