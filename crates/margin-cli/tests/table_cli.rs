//! Parquet and Arrow IPC files as data for `margin info`, `train`, `predict`, `evaluate`,
//! `transform` and `scale`: the same answers as the same rows in a LIBSVM or CSV file; columns
//! chosen by name; nulls; predictions and transforms written as tables.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use common::{fails_with, margin, root, s, stdout, train};
use margin_core::Records;
use margin_io::TableColumns;
use margin_io::table::{read_parquet, write_parquet};

/// heart_scale as a table: its 13 features as columns `f1`…`f13`, its label as text in the
/// last column, `kind`.
fn heart_table() -> RecordBatch {
    let heart = margin_io::read_libsvm(
        &root().join("datasets/heart_scale"),
        &margin_io::LibsvmOptions::default(),
    )
    .unwrap();
    let mut columns: Vec<(String, ArrayRef)> = (0..heart.n_features())
        .map(|j| {
            let values: Vec<f64> = (0..heart.n_samples())
                .map(|i| heart.records.get(i, j).unwrap())
                .collect();
            (
                format!("f{}", j + 1),
                Arc::new(Float64Array::from(values)) as ArrayRef,
            )
        })
        .collect();
    let labels: Vec<String> = heart
        .targets
        .values()
        .unwrap()
        .iter()
        .map(|y| if *y > 0.0 { "sick" } else { "healthy" }.to_owned())
        .collect();
    columns.push((
        "kind".into(),
        Arc::new(StringArray::from(labels)) as ArrayRef,
    ));
    RecordBatch::try_from_iter(columns).unwrap()
}

#[test]
fn a_parquet_table_trains_and_predicts_as_its_libsvm_rows() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("heart.parquet");
    write_parquet(&table, &heart_table()).unwrap();
    let info = stdout(&margin(&["info", s(&table)]));
    assert!(info.contains("270"), "{info}");
    let (from_table, from_text) = (dir.path().join("t.model"), dir.path().join("l.model"));
    let heart = root().join("datasets/heart_scale");
    for (data, model) in [(&table, &from_table), (&heart, &from_text)] {
        train(&["svc", s(data), "-o", s(model)]);
    }
    let on_table = stdout(&margin(&["predict", s(&from_table), s(&table)]));
    let on_text = stdout(&margin(&["predict", s(&from_text), s(&heart)]));
    // The same model on the same rows: the same accuracy, the labels in the table's text.
    let accuracy = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("accuracy"))
            .map(str::to_owned)
    };
    assert_eq!(accuracy(&on_table), accuracy(&on_text));
    assert!(on_table.lines().next() == Some("sick") || on_table.lines().next() == Some("healthy"));
    let cv = stdout(&margin(&["evaluate", "svc", s(&table), "--cv", "3"]));
    assert!(cv.contains("accuracy"), "{cv}");
}

#[test]
fn an_arrow_file_reads_as_the_parquet_one() {
    let dir = tempfile::tempdir().unwrap();
    let batch = heart_table();
    let (parquet, arrow) = (dir.path().join("h.parquet"), dir.path().join("h.arrow"));
    write_parquet(&parquet, &batch).unwrap();
    {
        let file = std::fs::File::create(&arrow).unwrap();
        let mut w = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    // The same description but for the first two lines (the file and its format).
    let described = |p: &Path| {
        let out = stdout(&margin(&["info", s(p)]));
        let lines: Vec<String> = out.lines().map(str::to_owned).collect();
        (lines[1].clone(), lines[2..].to_vec())
    };
    let (arrow_format, arrow_rest) = described(&arrow);
    let (parquet_format, parquet_rest) = described(&parquet);
    assert_eq!(
        (arrow_format.as_str(), parquet_format.as_str()),
        ("format: arrow", "format: parquet")
    );
    assert_eq!(arrow_rest, parquet_rest);
}

#[test]
fn a_table_with_a_null_feature_is_refused_naming_the_column_and_row() {
    let dir = tempfile::tempdir().unwrap();
    let batch = RecordBatch::try_from_iter([
        (
            "x",
            Arc::new(Float64Array::from(vec![Some(1.0), None, Some(3.0)])) as ArrayRef,
        ),
        (
            "y",
            Arc::new(Float64Array::from(vec![0.0, 1.0, 0.0])) as ArrayRef,
        ),
    ])
    .unwrap();
    let path = dir.path().join("nulls.parquet");
    write_parquet(&path, &batch).unwrap();
    let model = dir.path().join("m");
    fails_with(
        &["train", "ridge", s(&path), "-o", s(&model)],
        2,
        "column `x`, row 1: is null",
    );
    assert!(!model.exists());
}

/// heart_table's columns shuffled among others: an id first, a noise column, the label in the
/// middle.
fn heart_among_others() -> RecordBatch {
    let heart = heart_table();
    let n = heart.num_rows();
    let mut columns: Vec<(String, ArrayRef)> = vec![(
        "id".into(),
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| format!("p{i}")),
        )) as ArrayRef,
    )];
    for (k, field) in heart.schema().fields().iter().enumerate() {
        columns.push((field.name().clone(), heart.column(k).clone()));
        if field.name() == "f5" {
            let noise: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
            columns.push((
                "noise".into(),
                Arc::new(Float64Array::from(noise)) as ArrayRef,
            ));
        }
    }
    let kind = columns.pop().unwrap();
    columns.insert(4, kind);
    RecordBatch::try_from_iter(columns).unwrap()
}

const HEART_FEATURES: &str = "f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,f13";

/// The lines of `margin predict`'s report that start with `name:`.
fn reported(out: &str, name: &str) -> Option<String> {
    out.lines()
        .find(|l| l.starts_with(&format!("{name}:")))
        .map(str::to_owned)
}

#[test]
fn label_and_features_are_chosen_by_name_in_train_predict_evaluate_and_info() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, mixed) = (
        dir.path().join("plain.parquet"),
        dir.path().join("mixed.parquet"),
    );
    write_parquet(&plain, &heart_table()).unwrap();
    write_parquet(&mixed, &heart_among_others()).unwrap();
    let chosen = ["--label", "kind", "--features", HEART_FEATURES];
    let (m_plain, m_mixed) = (
        dir.path().join("plain.model"),
        dir.path().join("mixed.model"),
    );
    train(&["svc", s(&plain), "-o", s(&m_plain)]);
    let mut args = vec!["train", "svc", s(&mixed), "-o", s(&m_mixed)];
    args.extend(chosen);
    stdout(&margin(&args));
    // The same rows and columns give the same model file, byte for byte.
    assert_eq!(
        std::fs::read(&m_plain).unwrap(),
        std::fs::read(&m_mixed).unwrap()
    );
    let mut args = vec!["predict", s(&m_mixed), s(&mixed)];
    args.extend(chosen);
    let on_mixed = stdout(&margin(&args));
    let on_plain = stdout(&margin(&["predict", s(&m_plain), s(&plain)]));
    assert_eq!(on_mixed, on_plain);
    let mut args = vec!["evaluate", "svc", s(&mixed), "--cv", "3"];
    args.extend(chosen);
    assert_eq!(
        stdout(&margin(&args)),
        stdout(&margin(&["evaluate", "svc", s(&plain), "--cv", "3"]))
    );
    let info = stdout(&margin(&[
        "info",
        s(&mixed),
        "--label",
        "kind",
        "--features=f1,noise",
    ]));
    assert!(info.contains("features: 2\n"), "{info}");
    assert!(info.contains("  noise: [0, 6]\n"), "{info}");
    // Unchosen, the id (text) is left out and the noise column is a feature; the last column
    // (f13) is the label.
    let info = stdout(&margin(&["info", s(&mixed)]));
    assert!(info.contains("features: 13\n"), "{info}");
    fails_with(
        &[
            "train",
            "svc",
            s(&mixed),
            "--label",
            "kinds",
            "-o",
            s(&m_mixed),
        ],
        2,
        "column `kinds`: no such column; the table has `id`,",
    );
    fails_with(
        &[
            "train",
            "svc",
            s(&mixed),
            "--features",
            "f1,id",
            "-o",
            s(&m_mixed),
        ],
        2,
        "column `id`",
    );
}

#[test]
fn data_without_a_label_is_predicted_with_no_label() {
    let dir = tempfile::tempdir().unwrap();
    let heart = heart_table();
    let features = heart.project(&(0..13).collect::<Vec<_>>()).unwrap();
    let (labelled_table, new) = (dir.path().join("t.parquet"), dir.path().join("new.parquet"));
    write_parquet(&labelled_table, &heart).unwrap();
    write_parquet(&new, &features).unwrap();
    let model = dir.path().join("m");
    train(&["logistic", s(&labelled_table), "-o", s(&model)]);
    let labelled = stdout(&margin(&["predict", s(&model), s(&labelled_table)]));
    let unlabelled = stdout(&margin(&["predict", s(&model), s(&new), "--no-label"]));
    // The same predictions; no accuracy without labels.
    assert!(reported(&labelled, "accuracy").is_some());
    assert!(reported(&unlabelled, "accuracy").is_none(), "{unlabelled}");
    let lines = |out: &str| out.lines().filter(|l| !l.contains(':')).count();
    assert_eq!(lines(&unlabelled), 270);
    assert!(labelled.starts_with(&unlabelled));
    // Without --no-label, the last column would be the label and the model one feature short.
    fails_with(
        &["predict", s(&model), s(&new)],
        2,
        "the data has 12 feature columns, the model was fitted on 13",
    );
}

#[test]
fn nulls_are_missing_values_for_the_models_that_take_them() {
    let dir = tempfile::tempdir().unwrap();
    let n = 60;
    let x: Vec<Option<f64>> = (0..n).map(|i| (i % 10 != 3).then_some(i as f64)).collect();
    let y: Vec<&str> = (0..n)
        .map(|i| if i < n / 2 { "low" } else { "high" })
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("x", Arc::new(Float64Array::from(x)) as ArrayRef),
        ("y", Arc::new(StringArray::from(y)) as ArrayRef),
    ])
    .unwrap();
    let path = dir.path().join("gaps.parquet");
    write_parquet(&path, &batch).unwrap();
    let model = dir.path().join("hgb");
    train(&["gradient-boosting", s(&path), "-o", s(&model)]);
    let out = stdout(&margin(&["predict", s(&model), s(&path)]));
    assert!(reported(&out, "accuracy").is_some(), "{out}");
    let info = stdout(&margin(&["info", s(&path)]));
    assert!(info.contains("missing values (nulls): 6\n"), "{info}");
    // A decision tree takes them when asked to (its `missing-values` parameter)...
    let tree = dir.path().join("tree");
    train(&["tree", s(&path), "--missing-values", "true", "-o", s(&tree)]);
    // ...and SVC refuses them where they are.
    fails_with(
        &["train", "svc", s(&path), "-o", s(&dir.path().join("svc"))],
        2,
        "column `x`, row 3: is null",
    );
}

#[test]
fn predictions_and_transforms_are_written_as_tables() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("heart.parquet");
    write_parquet(&table, &heart_table()).unwrap();
    let model = dir.path().join("m");
    train(&["logistic", s(&table), "-o", s(&model)]);
    let text = stdout(&margin(&["predict", s(&model), s(&table), "--proba"]));
    let out = dir.path().join("p.parquet");
    let report = stdout(&margin(&[
        "predict",
        s(&model),
        s(&table),
        "--proba",
        "-o",
        s(&out),
    ]));
    assert_eq!(reported(&report, "accuracy"), reported(&text, "accuracy"));
    let no_label = TableColumns {
        label: margin_io::LabelColumn::None,
        ..Default::default()
    };
    // The probabilities, a column per class in the text's order, equal the text's to its 6
    // digits; the predicted labels are the text's.
    let written = read_parquet(&out, &no_label).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(' ').collect();
    assert_eq!(head, ["label", "healthy", "sick"]);
    assert_eq!(
        written.feature_names.as_deref().unwrap(),
        ["probability_healthy", "probability_sick"]
    );
    let file = std::fs::File::open(&out).unwrap();
    let batch = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let predicted = batch
        .column_by_name("prediction")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap()
        .clone();
    for (i, line) in lines.take(270).enumerate() {
        let cells: Vec<&str> = line.split(' ').collect();
        assert_eq!(cells[0], predicted.value(i));
        for k in 0..2 {
            let p: f64 = cells[k + 1].parse().unwrap();
            let q = written.records.get(i, k).unwrap();
            assert!(
                (p - q).abs() <= 5e-6 * q.abs().max(1e-300) + 1e-12,
                "{p} {q}"
            );
        }
    }
    // PCA's projections as Parquet equal its CSV output.
    let pca = dir.path().join("pca");
    train(&["pca", s(&table), "--n-components", "2", "-o", s(&pca)]);
    let csv = dir.path().join("z.csv");
    let projected = dir.path().join("z.parquet");
    stdout(&margin(&["transform", s(&pca), s(&table), "-o", s(&csv)]));
    stdout(&margin(&[
        "transform",
        s(&pca),
        s(&table),
        "-o",
        s(&projected),
    ]));
    let from_csv = margin_io::read_data(&csv, margin_io::DataFormat::Auto).unwrap();
    let from_table = margin_io::read_data(&projected, margin_io::DataFormat::Auto).unwrap();
    assert_eq!(from_csv.records, from_table.records);
    assert_eq!(from_csv.targets, from_table.targets);
    assert_eq!(from_csv.feature_names, from_table.feature_names);
}

#[test]
fn scale_reads_a_table_as_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (table, csv) = (dir.path().join("h.parquet"), dir.path().join("h.csv"));
    let batch = heart_table();
    write_parquet(&table, &batch).unwrap();
    let data = read_parquet(&table, &TableColumns::default()).unwrap();
    margin_io::write_csv(&csv, &data, &margin_io::CsvOptions::default()).unwrap();
    assert_eq!(
        stdout(&margin(&["scale", s(&table)])),
        stdout(&margin(&["scale", s(&csv)]))
    );
}

#[test]
fn csv_columns_are_chosen_by_name_and_libsvm_refuses_names() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mixed.csv");
    let table = dir.path().join("mixed.parquet");
    write_parquet(&table, &heart_among_others()).unwrap();
    let columns = TableColumns {
        label: margin_io::LabelColumn::Name("kind".into()),
        features: Some(HEART_FEATURES.split(',').map(str::to_owned).collect()),
        ..Default::default()
    };
    let data = read_parquet(&table, &columns).unwrap();
    margin_io::write_csv(&csv, &data, &margin_io::CsvOptions::default()).unwrap();
    // The CSV's label column is `label`; choose the features in another order.
    let model = dir.path().join("m");
    train(&[
        "svc",
        s(&csv),
        "--label",
        "label",
        "--features",
        "f2,f1,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,f13",
        "-o",
        s(&model),
    ]);
    let info = stdout(&margin(&["info", s(&model)]));
    assert!(info.contains("svc"), "{info}");
    fails_with(
        &["info", "datasets/heart_scale", "--label", "y"],
        2,
        "naming the label or feature columns of a LIBSVM file is not available",
    );
}
