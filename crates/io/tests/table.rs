//! Tables as data (`margin_io::table`): columns of every number type, list layouts, labels,
//! nulls, Parquet and Arrow IPC files, against datasets built by hand.
#![cfg(feature = "parquet")]

use std::sync::Arc;

use arrow_array::builder::{FixedSizeListBuilder, Float64Builder, ListBuilder, StructBuilder};
use arrow_array::{
    ArrayRef, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    UInt8Array,
};
use arrow_schema::{DataType, Field, Fields};
use margin_core::{Classes, CsrMatrix, DenseMatrix, Error, Label, Matrix, Records, Targets};
use margin_io::table::{
    batch_from_dataset, dataset_from_batches, read_arrow_ipc, read_parquet, write_arrow_ipc,
    write_parquet as write_parquet_file,
};
use margin_io::{DataFormat, LabelColumn, read_data, resolve_format};
use margin_io::{Nulls, TableColumns};
use proptest::prelude::*;

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Three rows: features of four number types, a text label.
fn mixed() -> RecordBatch {
    batch(vec![
        ("a", Arc::new(Int32Array::from(vec![1, -2, 3])) as ArrayRef),
        ("b", Arc::new(Float32Array::from(vec![0.5, 1.5, -2.5]))),
        ("c", Arc::new(UInt8Array::from(vec![7, 8, 9]))),
        ("d", Arc::new(Float64Array::from(vec![0.1, 0.2, 0.3]))),
        ("kind", Arc::new(StringArray::from(vec!["x", "y", "x"]))),
    ])
}

fn dense(rows: &[&[f64]]) -> Matrix {
    DenseMatrix::from_rows(rows).unwrap().into()
}

#[test]
fn numeric_columns_of_any_type_are_the_features_and_the_last_column_the_label() {
    let b = mixed();
    let data = dataset_from_batches(&b.schema(), [b], &TableColumns::default()).unwrap();
    assert_eq!(
        data.records,
        dense(&[
            &[1.0, 0.5, 7.0, 0.1],
            &[-2.0, 1.5, 8.0, 0.2],
            &[3.0, -2.5, 9.0, 0.3]
        ])
    );
    assert_eq!(
        data.targets,
        Targets::Classes(Classes::from_text(&["x", "y", "x"]))
    );
    assert_eq!(
        data.feature_names,
        Some(vec!["a".into(), "b".into(), "c".into(), "d".into()])
    );
}

#[test]
fn columns_are_chosen_by_name() {
    let b = mixed();
    let columns = TableColumns {
        label: LabelColumn::Name("a".into()),
        features: Some(vec!["d".into(), "b".into()]),
        ..Default::default()
    };
    let data = dataset_from_batches(&b.schema(), [b.clone()], &columns).unwrap();
    assert_eq!(
        data.records,
        dense(&[&[0.1, 0.5], &[0.2, 1.5], &[0.3, -2.5]])
    );
    assert_eq!(data.targets, Targets::Values(vec![1.0, -2.0, 3.0]));
    // No label: every numeric column is a feature, the targets are 0.
    let columns = TableColumns {
        label: LabelColumn::None,
        ..Default::default()
    };
    let data = dataset_from_batches(&b.schema(), [b.clone()], &columns).unwrap();
    assert_eq!(data.n_features(), 4);
    assert_eq!(data.targets, Targets::Values(vec![0.0; 3]));
    // A name that is not there, a text feature, the label among the features.
    let refused = |columns: TableColumns| {
        dataset_from_batches(&b.schema(), [b.clone()], &columns)
            .unwrap_err()
            .to_string()
    };
    let e = refused(TableColumns {
        features: Some(vec!["z".into()]),
        ..Default::default()
    });
    assert!(
        e.contains("column `z`: no such column; the table has `a`, `b`"),
        "{e}"
    );
    let e = refused(TableColumns {
        label: LabelColumn::Name("a".into()),
        features: Some(vec!["kind".into(), "b".into()]),
        ..Default::default()
    });
    assert!(
        e.starts_with("column `kind`: holds Utf8; a feature column holds numbers"),
        "{e}"
    );
    let e = refused(TableColumns {
        features: Some(vec!["a".into(), "kind".into()]),
        ..Default::default()
    });
    assert!(e.contains("is both the label and a feature"), "{e}");
}

#[test]
fn nulls_are_refused_with_column_and_row_or_read_as_nan() {
    let first = batch(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![Some(1.0), Some(2.0)])) as ArrayRef,
        ),
        ("y", Arc::new(Float64Array::from(vec![0.0, 1.0]))),
    ]);
    let second = batch(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![Some(3.0), None])) as ArrayRef,
        ),
        ("y", Arc::new(Float64Array::from(vec![0.0, 1.0]))),
    ]);
    let schema = first.schema();
    let e = dataset_from_batches(
        &schema,
        [first.clone(), second.clone()],
        &TableColumns::default(),
    )
    .unwrap_err();
    // Rows count from the table's first row, across batches.
    assert!(
        matches!(&e, Error::Column { column, row: Some(3), .. } if column == "x"),
        "{e}"
    );
    assert!(
        e.to_string().starts_with("column `x`, row 3: is null"),
        "{e}"
    );
    let columns = TableColumns {
        nulls: Nulls::AsNan,
        ..Default::default()
    };
    let data = dataset_from_batches(&schema, [first.clone(), second], &columns).unwrap();
    let x: Vec<f64> = (0..4).map(|i| data.records.get(i, 0).unwrap()).collect();
    assert_eq!(&x[..3], &[1.0, 2.0, 3.0]);
    assert!(x[3].is_nan());
    // A label is never missing.
    let no_label = batch(vec![
        ("x", Arc::new(Float64Array::from(vec![1.0])) as ArrayRef),
        ("y", Arc::new(Float64Array::from(vec![None::<f64>]))),
    ]);
    let e = dataset_from_batches(&schema, [first, no_label], &columns).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("column `y`, row 2: the label is null"),
        "{e}"
    );
}

/// The rows of `mixed()` as one `FixedSizeList<Float64>` column.
fn fixed(rows: &[[f64; 4]]) -> ArrayRef {
    let mut b = FixedSizeListBuilder::new(Float64Builder::new(), 4);
    for row in rows {
        b.values().append_slice(row);
        b.append(true);
    }
    Arc::new(b.finish())
}

#[test]
fn a_fixed_size_list_column_holds_each_row() {
    let rows = [
        [1.0, 0.5, 7.0, 0.1],
        [-2.0, 1.5, 8.0, 0.2],
        [3.0, -2.5, 9.0, 0.3],
    ];
    let b = batch(vec![
        ("features", fixed(&rows)),
        (
            "label",
            Arc::new(Int64Array::from(vec![1, 0, 1])) as ArrayRef,
        ),
    ]);
    let data = dataset_from_batches(&b.schema(), [b], &TableColumns::default()).unwrap();
    let m = mixed();
    let want = dataset_from_batches(&m.schema(), [m], &TableColumns::default()).unwrap();
    assert_eq!(data.records, want.records);
    assert_eq!(data.targets, Targets::Values(vec![1.0, 0.0, 1.0]));
    assert_eq!(data.feature_names, None);
}

/// Sparse rows as a `List<Struct<index: Int32, value: Float64>>` column.
fn sparse(rows: &[&[(i32, f64)]]) -> ArrayRef {
    let fields = Fields::from(vec![
        Field::new("index", DataType::Int32, false),
        Field::new("value", DataType::Float64, false),
    ]);
    let mut b = ListBuilder::new(StructBuilder::from_fields(fields, 0));
    for row in rows {
        for &(j, v) in *row {
            let entry = b.values();
            entry
                .field_builder::<arrow_array::builder::Int32Builder>(0)
                .unwrap()
                .append_value(j);
            entry
                .field_builder::<Float64Builder>(1)
                .unwrap()
                .append_value(v);
            entry.append(true);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

#[test]
fn a_sparse_list_column_holds_each_row_s_non_zeros() {
    let b = batch(vec![
        ("x", sparse(&[&[(0, 1.0), (5, 2.0)], &[], &[(2, -1.0)]])),
        (
            "y",
            Arc::new(StringArray::from(vec!["a", "b", "a"])) as ArrayRef,
        ),
    ]);
    let data = dataset_from_batches(&b.schema(), [b], &TableColumns::default()).unwrap();
    let want = CsrMatrix::new(vec![0, 2, 2, 3], vec![0, 5, 2], vec![1.0, 2.0, -1.0], 6).unwrap();
    assert_eq!(data.records, Matrix::Sparse(want));
    let unsorted = batch(vec![
        ("x", sparse(&[&[(3, 1.0), (1, 2.0)]])),
        ("y", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
    ]);
    let e = dataset_from_batches(&unsorted.schema(), [unsorted], &TableColumns::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "column `x`, row 0: indices must increase within a row: 1 after 3"
    );
    let negative = batch(vec![
        ("x", sparse(&[&[(-1, 1.0)]])),
        ("y", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
    ]);
    let e = dataset_from_batches(&negative.schema(), [negative], &TableColumns::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("index -1 is negative"), "{e}");
}

fn write_parquet(path: &std::path::Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batches[0].schema(), None).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
}

#[test]
fn parquet_and_arrow_files_read_as_their_batches() {
    let dir = tempfile::tempdir().unwrap();
    let m = mixed();
    let want = dataset_from_batches(
        &m.schema(),
        [m.clone(), m.clone()],
        &TableColumns::default(),
    )
    .unwrap();
    let parquet = dir.path().join("data.parquet");
    write_parquet(&parquet, &[m.clone(), m.clone()]);
    assert_eq!(
        read_parquet(&parquet, &TableColumns::default()).unwrap(),
        want
    );
    // Only the named columns are decoded; the result is the same as from the batches.
    let columns = TableColumns {
        label: LabelColumn::Name("a".into()),
        features: Some(vec!["d".into()]),
        ..Default::default()
    };
    assert_eq!(
        read_parquet(&parquet, &columns).unwrap(),
        dataset_from_batches(&m.schema(), [m.clone(), m.clone()], &columns).unwrap()
    );
    let arrow = dir.path().join("data.arrow");
    {
        let file = std::fs::File::create(&arrow).unwrap();
        let mut w = arrow_ipc::writer::FileWriter::try_new(file, &m.schema()).unwrap();
        w.write(&m).unwrap();
        w.write(&m).unwrap();
        w.finish().unwrap();
    }
    assert_eq!(
        read_arrow_ipc(&arrow, &TableColumns::default()).unwrap(),
        want
    );
    // Recognized by their magic numbers, whatever their names.
    let unnamed = dir.path().join("data");
    std::fs::copy(&parquet, &unnamed).unwrap();
    assert_eq!(
        resolve_format(&unnamed, DataFormat::Auto).unwrap(),
        DataFormat::Parquet
    );
    assert_eq!(read_data(&unnamed, DataFormat::Auto).unwrap(), want);
    assert_eq!(
        resolve_format(&arrow, DataFormat::Auto).unwrap(),
        DataFormat::ArrowIpc
    );
    assert_eq!(read_data(&arrow, DataFormat::Auto).unwrap(), want);
}

#[test]
fn a_truncated_parquet_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.parquet");
    write_parquet(&path, &[mixed()]);
    let bytes = std::fs::read(&path).unwrap();
    for keep in [4, bytes.len() / 2, bytes.len() - 3] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        let e = read_parquet(&path, &TableColumns::default()).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{keep}: {e}");
    }
}

proptest! {
    /// However the rows are cut into batches, the dataset is the same.
    #[test]
    fn any_batching_gives_the_same_dataset(
        values in prop::collection::vec(-1e6f64..1e6, 1..60),
        cuts in prop::collection::vec(0usize..60, 0..5),
    ) {
        let n = values.len();
        let x: ArrayRef = Arc::new(Float64Array::from(values.clone()));
        let y: ArrayRef = Arc::new(StringArray::from(
            (0..n).map(|i| if i % 3 == 0 { "p" } else { "q" }).collect::<Vec<_>>(),
        ));
        let whole = batch(vec![("x", x), ("y", y)]);
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c % (n + 1)).collect();
        bounds.extend([0, n]);
        bounds.sort_unstable();
        let pieces: Vec<RecordBatch> = bounds
            .windows(2)
            .map(|w| whole.slice(w[0], w[1] - w[0]))
            .collect();
        let one = dataset_from_batches(&whole.schema(), [whole.clone()], &TableColumns::default()).unwrap();
        let many = dataset_from_batches(&whole.schema(), pieces, &TableColumns::default()).unwrap();
        prop_assert_eq!(&one, &many);
        prop_assert_eq!(one.targets.to_classes().unwrap().labels()[0].clone(), Label::from("p"));
    }
}

/// `data` written as a batch to Parquet and to Arrow IPC, each read back with the default
/// columns.
fn round_trips(data: &margin_core::Dataset) -> [margin_core::Dataset; 2] {
    let dir = tempfile::tempdir().unwrap();
    let batch = batch_from_dataset(data).unwrap();
    let (parquet, arrow) = (dir.path().join("d.parquet"), dir.path().join("d.arrow"));
    write_parquet_file(&parquet, &batch).unwrap();
    write_arrow_ipc(&arrow, &batch).unwrap();
    [
        read_data(&parquet, DataFormat::Auto).unwrap(),
        read_data(&arrow, DataFormat::Auto).unwrap(),
    ]
}

proptest! {
    /// A dataset written as a table reads back the same: dense or sparse records, numeric
    /// targets, numeric or text class labels.
    #[test]
    fn a_dataset_written_as_a_table_reads_back_the_same(
        rows in prop::collection::vec(prop::collection::vec(-1e3f64..1e3, 3), 1..40),
        sparse in any::<bool>(),
        text in any::<bool>(),
        values in any::<bool>(),
    ) {
        let n = rows.len();
        // Some exact zeros, so a sparse row stores fewer than three values.
        let rows: Vec<Vec<f64>> = rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.into_iter().enumerate().map(|(j, x)| if (i + j) % 3 == 0 { 0.0 } else { x }).collect())
            .collect();
        let dense = DenseMatrix::from_rows(&rows).unwrap();
        let records: Matrix = if sparse {
            CsrMatrix::from_dense(&dense).into()
        } else {
            dense.into()
        };
        let targets = if values {
            Targets::Values((0..n).map(|i| i as f64 * 0.5).collect())
        } else if text {
            Targets::Classes(Classes::from_text(&(0..n).map(|i| ["b", "a", "c"][i % 3]).collect::<Vec<_>>()))
        } else {
            Targets::Classes(Classes::from_numbers(&(0..n).map(|i| [1.0, -1.0][i % 2]).collect::<Vec<_>>()).unwrap())
        };
        let mut data = margin_core::Dataset::new(records, targets).unwrap();
        if !sparse {
            data.feature_names = Some(vec!["u".into(), "v".into(), "w".into()]);
        }
        for back in round_trips(&data) {
            prop_assert_eq!(&back.records, &data.records);
            prop_assert_eq!(&back.feature_names, &data.feature_names);
            // Text labels come back as the same classes; numbers (values, or numeric class
            // labels) as the same numbers, as any numeric label column reads.
            if text && !values {
                prop_assert_eq!(&back.targets, &data.targets);
            } else {
                prop_assert_eq!(back.targets.values().unwrap(), data.targets.values().unwrap());
            }
        }
    }
}

#[test]
fn a_feature_named_label_is_refused_when_writing() {
    let data = margin_core::Dataset::new(
        DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap(),
        Targets::Values(vec![0.0, 1.0]),
    )
    .unwrap()
    .with_feature_names(vec!["label".into()])
    .unwrap();
    let e = batch_from_dataset(&data).unwrap_err().to_string();
    assert!(e.contains("column `label`"), "{e}");
}
