//! `margin train tree|tree-regressor` with `--categorical-features` and `--pruning`: a
//! categorical column split by a category subset (and rendered so by `tree-export`), unseen
//! codes at predict, pruned trees with fewer leaves, and refusals with exit code 2.

use crate::common;

use std::path::Path;

use common::{fails_with, margin, predict, stdout, train};

/// 40 rows in LIBSVM format: feature 1 a category code 0..3 (code 0 is an implicit zero),
/// feature 2 noise; the label is `hit` for codes 1 and 3, `miss` otherwise.
fn write_codes(path: &Path, hit: &str, miss: &str, codes: impl Fn(usize) -> usize) {
    let text: String = (0..40)
        .map(|i| {
            let code = codes(i);
            let label = if code == 1 || code == 3 { hit } else { miss };
            let noise = ((i * 7) % 10) as f64 / 10.0 + 0.05;
            if code == 0 {
                format!("{label} 2:{noise}\n")
            } else {
                format!("{label} 1:{code} 2:{noise}\n")
            }
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

fn leaves(model: &str) -> usize {
    stdout(&margin(&["tree-export", model]))
        .matches("class:")
        .count()
}

#[test]
fn categorical_columns_split_by_subsets() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("codes.svm");
    write_codes(&data, "1", "-1", |i| i % 4);
    let model = dir.path().join("tree.margin");
    let (d, m) = (data.to_str().unwrap(), model.to_str().unwrap());
    let stump = ["train", "tree", "--max-depth", "1"];

    let mut args = stump.to_vec();
    args.extend(["--categorical-features", "0", d, "-o", m]);
    stdout(&margin(&args));
    assert_eq!(predict(m, d, "/dev/null"), "accuracy: 1.000000\n");
    let text = stdout(&margin(&["tree-export", m]));
    assert!(text.starts_with("|--- feature_0 in {0,2}\n"), "{text}");
    assert!(text.contains("|--- feature_0 not in {0,2}\n"), "{text}");
    assert!(stdout(&margin(&["tree-export", m, "--dot"])).contains("feature_0 in {0,2}"));

    // The same stump on the codes as numbers: one threshold cannot separate {1, 3}.
    let mut args = stump.to_vec();
    args.extend([d, "-o", m]);
    stdout(&margin(&args));
    assert_eq!(predict(m, d, "/dev/null"), "accuracy: 0.750000\n");

    // A regression tree on codes, and codes never seen in training at predict (7, 9): they
    // go where missing values would, and prediction goes on.
    let reg_data = dir.path().join("reg.svm");
    write_codes(&reg_data, "5", "0", |i| i % 4);
    let r = reg_data.to_str().unwrap();
    train(&["tree-regressor", "--categorical-features", "0", r, "-o", m]);
    assert!(predict(m, r, "/dev/null").starts_with("r2: 1.000000\n"));
    let unseen = dir.path().join("unseen.svm");
    write_codes(&unseen, "5", "0", |i| [7, 9, 1, 2][i % 4]);
    let out = dir.path().join("pred.txt");
    predict(m, unseen.to_str().unwrap(), out.to_str().unwrap());
    let predictions = std::fs::read_to_string(&out).unwrap();
    assert_eq!(predictions.lines().count(), 40);
}

#[test]
fn pruning_flags_give_smaller_trees() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("tree.margin");
    let m = model.to_str().unwrap();
    let h = "datasets/heart_scale";
    train(&["tree", h, "-o", m]);
    let full = leaves(m);
    let pruned = |flags: &[&str]| {
        let mut args = vec!["train", "tree"];
        args.extend_from_slice(flags);
        args.extend([h, "-o", m]);
        stdout(&margin(&args));
        leaves(m)
    };
    let pessimistic = pruned(&["--pruning", "pessimistic"]);
    assert!(pessimistic < full, "{pessimistic} of {full}");
    assert!(pruned(&["--pruning", "pessimistic", "--confidence", "0.05"]) <= pessimistic);
    assert!(pruned(&["--pruning", "reduced-error", "--validation-fraction", "0.3"]) < full);
    assert_eq!(pruned(&["--pruning", "none"]), full);

    let housing = "datasets/housing_scale";
    train(&[
        "tree-regressor",
        "--pruning",
        "reduced-error",
        "--seed",
        "3",
        housing,
        "-o",
        m,
    ]);
    assert!(predict(m, housing, "/dev/null").starts_with("r2: "));
}

#[test]
fn bad_categorical_and_pruning_flags_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.margin");
    let o = out.to_str().unwrap();
    let h = "datasets/heart_scale";
    let refused = |flags: &[&str], needle: &str| {
        let mut args = vec!["train"];
        args.extend_from_slice(flags);
        args.extend([h, "-o", o]);
        fails_with(&args, 2, needle);
    };
    refused(
        &["tree", "--categorical-features", "a,b"],
        "--categorical-features",
    );
    // heart_scale's values are scaled to [-1, 1]: not category codes.
    refused(
        &["tree", "--categorical-features", "0"],
        "categorical_features",
    );
    refused(
        &["tree", "--categorical-features", "99"],
        "categorical_features",
    );
    refused(&["tree", "--pruning", "hard"], "--pruning");
    refused(&["tree", "--confidence", "0.3"], "--confidence");
    refused(
        &["tree", "--pruning", "pessimistic", "--confidence", "0.9"],
        "confidence",
    );
    refused(
        &[
            "tree",
            "--pruning",
            "pessimistic",
            "--validation-fraction",
            "0.2",
        ],
        "--validation-fraction",
    );
    refused(&["tree-regressor", "--pruning", "pessimistic"], "--pruning");
}

/// `--seed` is a described parameter, set by the params; reduced-error pruning shuffles the rows
/// it holds out by the same seed. Growth with every feature ignores the seed, so two seeds give
/// the same unpruned tree and, pruned on different held-out rows, different trees.
#[test]
fn reduced_error_pruning_holds_out_the_rows_the_seed_shuffles() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("t.margin");
    let m = model.to_str().unwrap();
    let export = |model: &str, data: &str, flags: &[&str]| {
        let mut args = vec!["train", model];
        args.extend_from_slice(flags);
        args.extend([data, "-o", m]);
        stdout(&margin(&args));
        stdout(&margin(&["tree-export", m]))
    };
    for (model, data) in [
        ("tree", "datasets/heart_scale"),
        ("tree-regressor", "datasets/housing_scale"),
    ] {
        assert_eq!(
            export(model, data, &["--seed", "1"]),
            export(model, data, &["--seed", "2"]),
            "{model}"
        );
        let pruned = |seed| export(model, data, &["--pruning", "reduced-error", "--seed", seed]);
        assert_eq!(pruned("1"), pruned("1"), "{model}");
        assert_ne!(pruned("1"), pruned("2"), "{model}");
    }
}
