//! Parquet and Arrow IPC files as data for `margin info`, `train`, `predict` and `evaluate`:
//! the same answers as the same rows in a LIBSVM file.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use common::{fails_with, margin, root, stdout};
use margin_core::Records;

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

fn write_parquet(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_parquet_table_trains_and_predicts_as_its_libsvm_rows() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("heart.parquet");
    write_parquet(&table, &heart_table());
    let info = stdout(&margin(&["info", s(&table)]));
    assert!(info.contains("270"), "{info}");
    let (from_table, from_text) = (dir.path().join("t.model"), dir.path().join("l.model"));
    let heart = root().join("datasets/heart_scale");
    for (data, model) in [(&table, &from_table), (&heart, &from_text)] {
        stdout(&margin(&["train", "svc", s(data), "-o", s(model)]));
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
    write_parquet(&parquet, &batch);
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
    write_parquet(&path, &batch);
    let model = dir.path().join("m");
    fails_with(
        &["train", "ridge", s(&path), "-o", s(&model)],
        2,
        "column `x`, row 1: is null",
    );
    assert!(!model.exists());
}
