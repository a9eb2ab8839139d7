//! Data shape rules at predict and transform, the same for every model kind: a LIBSVM file
//! stores only non-zeros, so one that stops below the model's highest feature index is padded
//! (a9a.t after training on a9a); a wider one is refused naming both widths; a CSV lists every
//! column, so one with another number of columns is refused (k-means and PCA included).

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{fails_with, margin, root, s, stdout, train};

/// Every line of `text` passed through `f`, written to `dir/name`.
fn rewrite(dir: &Path, name: &str, text: &str, f: impl Fn(&str) -> String) -> PathBuf {
    let path = dir.join(name);
    let out: String = text.lines().map(|l| f(l) + "\n").collect();
    std::fs::write(&path, out).unwrap();
    path
}

/// Predictions (or transformed rows) of `model` for `data`, as written with `-o`.
fn outputs(command: &str, model: &Path, data: &Path, dir: &Path) -> String {
    let out = dir.join("out.txt");
    stdout(&margin(&[command, s(model), s(data), "-o", s(&out)]));
    std::fs::read_to_string(out).unwrap()
}

/// Two outputs alike token by token: labels exactly, numbers to 1e-12 relative (a stored
/// zero may change the order of a sum, not its value beyond rounding).
fn same_outputs(a: &str, b: &str, what: &str) {
    let (ta, tb): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    assert_eq!(ta.len(), tb.len(), "{what}");
    for (x, y) in ta.iter().zip(&tb) {
        let number = |t: &str| t.rsplit(':').next().and_then(|v| v.parse::<f64>().ok());
        match (number(x), number(y)) {
            (Some(u), Some(v)) if x.contains('.') || y.contains('.') => {
                assert!(
                    (u - v).abs() <= 1e-12 * u.abs().max(v.abs()).max(1.0),
                    "{what}: {x} vs {y}"
                )
            }
            _ => assert_eq!(x, y, "{what}"),
        }
    }
}

#[test]
fn a9a_test_file_is_padded_to_the_width_of_models_trained_on_a9a() {
    let dir = tempfile::tempdir().unwrap();
    let mut test = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(root().join("datasets/a9a.t.gz")).unwrap())
        .read_to_string(&mut test)
        .unwrap();
    // The same rows with an explicit zero at index 123: as wide as a9a, nothing to pad.
    let wide = dir.path().join("a9a.t.wide");
    let (head, tail) = test.split_once('\n').unwrap();
    std::fs::write(&wide, format!("{} 123:0\n{tail}", head.trim_end())).unwrap();
    let narrow = root().join("datasets/a9a.t.gz");
    for (model, flags, command) in [
        ("logistic", &[][..], "predict"),
        ("linear-svc", &[], "predict"),
        ("bernoulli-nb", &[], "predict"),
        ("multinomial-nb", &[], "predict"),
        ("gaussian-nb", &[], "predict"),
        ("tree", &["--max-depth", "4"], "predict"),
        ("gradient-boosting", &["--max-iter", "3"], "predict"),
        ("ridge", &[], "predict"),
        ("kmeans", &["--n-clusters", "3"], "predict"),
        ("pca", &["--n-components", "2"], "transform"),
    ] {
        let file = dir.path().join(format!("{model}.margin"));
        let mut args = vec!["train", model];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["datasets/a9a.gz", "-o", s(&file)]);
        stdout(&margin(&args));
        let padded = outputs(command, &file, &narrow, dir.path());
        assert_eq!(padded.lines().count(), 16281, "{model}");
        same_outputs(&padded, &outputs(command, &file, &wide, dir.path()), model);
    }
}

#[test]
fn every_model_kind_pads_a_narrower_libsvm_file_and_refuses_a_wider_one() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("datasets/heart_scale")).unwrap();
    // Feature 13 dropped (the file's width becomes 12), or set to an explicit zero.
    let drop13 = |l: &str| {
        l.split_whitespace()
            .filter(|t| !t.starts_with("13:"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let narrow = rewrite(dir.path(), "narrow", &text, drop13);
    let zeroed = rewrite(dir.path(), "zeroed", &text, |l| drop13(l) + " 13:0");
    let wider = rewrite(dir.path(), "wider", &text, |l| {
        l.trim_end().to_owned() + " 20:1"
    });
    for (model, flags) in [
        ("svc", &[][..]),
        ("nu-svc", &[]),
        ("svr", &[]),
        ("nu-svr", &[]),
        ("one-class-svm", &[]),
        ("linear-svc", &[]),
        ("pegasos", &["--epochs", "2"]),
        ("logistic", &[]),
        ("lasso", &["--alpha", "0.01"]),
        ("elastic-net", &["--alpha", "0.01"]),
        ("bernoulli-nb", &[]),
        ("gaussian-nb", &[]),
        ("knn-classifier", &[]),
        ("knn-regressor", &[]),
        ("linear", &[]),
        ("ridge", &[]),
        ("kernel-ridge", &["--kernel", "rbf"]),
        ("perceptron", &[]),
        ("kernel-perceptron", &["--max-iter", "5"]),
        ("tree", &[]),
        ("tree-regressor", &[]),
        ("forest", &["--n-estimators", "5"]),
        ("forest-regressor", &["--n-estimators", "5"]),
        ("adaboost", &["--n-estimators", "5"]),
        ("gradient-boosting", &["--max-iter", "3"]),
        ("gradient-boosting-regressor", &["--max-iter", "3"]),
        ("kmeans", &["--n-clusters", "3"]),
        ("minibatch-kmeans", &["--n-clusters", "3"]),
    ] {
        let file = dir.path().join(format!("{model}.margin"));
        let mut args = vec!["train", model];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["datasets/heart_scale", "-o", s(&file)]);
        stdout(&margin(&args));
        let padded = outputs("predict", &file, &narrow, dir.path());
        assert_eq!(padded.lines().count(), 270, "{model}");
        same_outputs(
            &padded,
            &outputs("predict", &file, &zeroed, dir.path()),
            model,
        );
        fails_with(
            &["predict", s(&file), s(&wider)],
            2,
            "feature index 20, above the 13 features the model was fitted on",
        );
    }
    // Transformers follow the same rule.
    let pca = dir.path().join("pca.margin");
    train(&["pca", "datasets/heart_scale", "-o", s(&pca)]);
    same_outputs(
        &outputs("transform", &pca, &narrow, dir.path()),
        &outputs("transform", &pca, &zeroed, dir.path()),
        "pca",
    );
    fails_with(&["transform", s(&pca), s(&wider)], 2, "feature index 20");
}

#[test]
fn a_csv_with_other_columns_than_the_model_is_refused_by_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    // Four features, two classes, and the same rows with a column fewer or one more.
    let row = |i: usize| -> [String; 5] {
        let x = i as f64 / 10.0;
        [x, x * x, 1.0 - x, (i % 3) as f64]
            .map(|v| v.to_string())
            .into_iter()
            .chain([(i % 2).to_string()])
            .collect::<Vec<_>>()
            .try_into()
            .unwrap()
    };
    let write = |name: &str, cols: &[usize]| {
        let head = ["f1", "f2", "f3", "f4", "label"];
        let mut text = cols
            .iter()
            .map(|&j| head.get(j).copied().unwrap_or("f5"))
            .collect::<Vec<_>>()
            .join(",")
            + "\n";
        for i in 0..40 {
            let r = row(i);
            let cells: Vec<&str> = cols
                .iter()
                .map(|&j| r.get(j).map_or("0", String::as_str))
                .collect();
            text += &(cells.join(",") + "\n");
        }
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let csv = write("four.csv", &[0, 1, 2, 3, 4]);
    let narrow = write("three.csv", &[0, 1, 2, 4]);
    let wider = write("five.csv", &[0, 1, 2, 3, 5, 4]);
    let models = [
        ("kmeans", vec!["--n-clusters", "2"], "predict"),
        ("kmeans", vec!["--n-clusters", "2"], "transform"),
        ("minibatch-kmeans", vec!["--n-clusters", "2"], "predict"),
        ("pca", vec![], "transform"),
        ("svc", vec![], "predict"),
        ("tree", vec![], "predict"),
    ];
    for (model, flags, command) in models {
        let file = dir.path().join(format!("{model}.margin"));
        let mut args = vec!["train", model];
        args.extend_from_slice(&flags);
        args.extend_from_slice(&[s(&csv), "-o", s(&file)]);
        stdout(&margin(&args));
        fails_with(
            &[command, s(&file), s(&narrow)],
            2,
            "the data has 3 feature columns, the model was fitted on 4",
        );
        fails_with(
            &[command, s(&file), s(&wider)],
            2,
            "the data has 5 feature columns, the model was fitted on 4",
        );
        // The CSV it was trained on still works.
        outputs(command, &file, &csv, dir.path());
    }
    // A LIBSVM file may stop below the width of a model trained on a CSV: the same rows
    // without their fourth feature predict as with an explicit zero there.
    let svc = dir.path().join("svc.margin");
    let libsvm = |name: &str, fourth: bool| {
        let text: String = (0..40)
            .map(|i| {
                let r = row(i);
                let last = if fourth {
                    " 4:0".to_owned()
                } else {
                    String::new()
                };
                format!("{} 1:{} 2:{} 3:{}{last}\n", r[4], r[0], r[1], r[2])
            })
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let (short, zeroed) = (libsvm("short.svm", false), libsvm("zeroed.svm", true));
    let predictions = outputs("predict", &svc, &short, dir.path());
    assert_eq!(predictions.lines().count(), 40);
    assert_eq!(predictions, outputs("predict", &svc, &zeroed, dir.path()));
}
