//! Refusals of train / predict / evaluate / transform / tree-export name the right thing: the
//! flag as typed, its value as typed, the fold that failed; never a Rust type or a Debug form.

use crate::common;

use common::{fails_with, margin, s, stdout, train};

/// Refused with exit code 2, saying `needle`, and with no Rust spelling in the message.
fn refused(args: &[&str], needle: &str) {
    fails_with(args, 2, needle);
    let err = String::from_utf8_lossy(&margin(args).stderr).into_owned();
    for rust in [
        "Some(",
        "None",
        "alloc::",
        "f64",
        "usize",
        "u32",
        " { ",
        "test_fraction",
    ] {
        assert!(!err.contains(rust), "{args:?}: {err}");
    }
}

#[test]
fn flag_values_are_described_not_typed() {
    let train = |flag: &str, value: &str| -> Vec<String> {
        [
            "train",
            "svc",
            flag,
            value,
            "datasets/heart_scale",
            "-o",
            "/tmp/unused.margin",
        ]
        .map(String::from)
        .to_vec()
    };
    for (flag, value, needle) in [
        (
            "--c",
            "abc",
            "--c: expected a number (as 0.5, 1e-3 or inf), found `abc`",
        ),
        (
            "--shrinking",
            "yes",
            "--shrinking: expected true or false, found `yes`",
        ),
        (
            "--max-iter",
            "-1",
            "--max-iter: expected a non-negative integer, or none, found `-1`",
        ),
        (
            "--max-iter",
            "99999999999999999999999",
            "found `99999999999999999999999`",
        ),
        (
            "--degree",
            "2.5",
            "--degree: expected a non-negative integer below 2^32, found `2.5`",
        ),
    ] {
        let args = train(flag, value);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, needle);
    }
    refused(
        &[
            "train",
            "logistic",
            "--penalty",
            "elasticnet",
            "--l1-ratio",
            "0.5",
            "datasets/heart_scale",
            "-o",
            "/tmp/unused.margin",
        ],
        "--penalty: expected none or l2 with the lbfgs and newton solvers",
    );
    refused(
        &[
            "train",
            "svc",
            "--",
            "datasets/heart_scale",
            "-o",
            "/tmp/unused.margin",
        ],
        "unknown option `--`",
    );
    refused(
        &[
            "train",
            "svc",
            "-c",
            "1",
            "datasets/heart_scale",
            "-o",
            "/tmp/unused.margin",
        ],
        "unknown option `-c`",
    );
}

#[test]
fn validation_fraction_errors_name_the_flag() {
    for (model, data, value, needle) in [
        (
            "tree",
            "datasets/heart_scale",
            "1.5",
            "expected a number in (0, 1], found 1.5",
        ),
        (
            "tree",
            "datasets/heart_scale",
            "0",
            "expected a number in (0, 1], found 0",
        ),
        (
            "tree-regressor",
            "datasets/housing_scale",
            "0.9999",
            "expected a fraction leaving at least one sample on each side of 506 samples",
        ),
    ] {
        refused(
            &[
                "train",
                model,
                "--pruning",
                "reduced-error",
                "--validation-fraction",
                value,
                data,
                "-o",
                "/tmp/unused.margin",
            ],
            &format!("--validation-fraction: {needle}"),
        );
    }
}

#[test]
fn a_fold_that_fails_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // Six samples of class 1 and one of class -1: the fold holding the -1 trains on one class.
    let lonely = dir.path().join("lonely.svm");
    std::fs::write(
        &lonely,
        "1 1:1\n1 1:2\n1 1:3\n1 1:4\n1 1:5\n1 1:6\n-1 1:7\n",
    )
    .unwrap();
    refused(
        &["evaluate", "svc", s(&lonely), "--cv", "3"],
        "cross-validation fold 1 of 3: too few classes: found 1 class(es), need at least 2",
    );
    refused(
        &["evaluate", "svc", s(&lonely), "--cv", "8"],
        "--cv 8: more folds than samples (7)",
    );
    refused(
        &["evaluate", "svc", s(&lonely), "--cv", "1"],
        "--cv: expected a number of folds, at least 2, found `1`",
    );
}

#[test]
fn evaluate_refuses_what_it_cannot_do_before_fitting() {
    let on_heart = |extra: &[&'static str]| {
        let mut args = vec!["evaluate", "svc", "datasets/heart_scale", "--cv", "3"];
        args.extend_from_slice(extra);
        args
    };
    refused(
        &on_heart(&["--metrics", "acuracy"]),
        "--metrics: unknown metric `acuracy`",
    );
    refused(
        &[
            "evaluate",
            "svc",
            "datasets/dna.scale",
            "--cv",
            "3",
            "--roc",
            "/tmp/unused.svg",
        ],
        "--roc: a ROC curve needs two classes, the data has 3",
    );
    refused(
        &on_heart(&["--seed", "-1"]),
        "--seed: expected a non-negative integer, found `-1`",
    );
}

#[test]
fn predict_refuses_probabilities_a_model_does_not_estimate() {
    let dir = tempfile::tempdir().unwrap();
    for (model, flags, data, needle) in [
        (
            "knn-regressor",
            &[][..],
            "datasets/housing_scale",
            "knn-regressor is a regressor",
        ),
        (
            "tree-regressor",
            &[],
            "datasets/housing_scale",
            "tree-regressor is a regressor",
        ),
        (
            "gradient-boosting-regressor",
            &["--max-iter", "2"],
            "datasets/housing_scale",
            "gradient-boosting-regressor is a regressor",
        ),
        ("lasso", &[], "datasets/housing_scale", "is a regressor"),
        (
            "kmeans",
            &["--n-clusters", "2"],
            "datasets/heart_scale",
            "kmeans gives cluster indices",
        ),
        (
            "one-class-svm",
            &[],
            "datasets/heart_scale",
            "inlier/outlier labels",
        ),
        // An SVC estimates probabilities only when fitted for them.
        (
            "svc",
            &[],
            "datasets/heart_scale",
            "--proba: this model was trained without --probability true",
        ),
    ] {
        let file = dir.path().join(format!("{model}.margin"));
        let mut args = vec!["train", model];
        args.extend_from_slice(flags);
        args.extend_from_slice(&[data, "-o", s(&file)]);
        stdout(&margin(&args));
        refused(&["predict", s(&file), data, "--proba"], needle);
    }
}

#[test]
fn tree_export_refuses_an_absurd_precision_instead_of_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t.margin");
    train(&["tree", "datasets/heart_scale", "-o", s(&tree)]);
    fails_with(
        &["tree-export", s(&tree), "--decimals", "99999999999"],
        2,
        "--decimals",
    );
    assert!(stdout(&margin(&["tree-export", s(&tree), "--decimals", "17"])).contains("|---"));
}
