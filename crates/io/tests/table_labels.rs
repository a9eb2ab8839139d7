//! Tables' labels and names as the data door reads them: integer labels exact or refused,
//! dictionary-encoded labels of either kind read, duplicate column names refused, columns that
//! hold no numbers reported when they are skipped, and sparse indices described as the
//! zero-based indices they are.
#![cfg(feature = "parquet")]

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, Date32Array, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray, StructArray, UInt64Array,
};
use arrow_schema::{DataType, Field};
use margin_core::{Classes, Error, Targets};
use margin_io::table::dataset_from_batches;
use margin_io::{DataFormat, DataInput, LabelColumn, SkippedColumn, TableColumns};

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn read(b: RecordBatch) -> margin_core::Result<margin_core::Dataset> {
    dataset_from_batches(&b.schema(), [b], &TableColumns::default())
}

/// `b` written as a Parquet file in `dir`.
fn parquet_file(dir: &std::path::Path, b: &RecordBatch) -> std::path::PathBuf {
    let path = dir.join("data.parquet");
    let file = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, b.schema(), None).unwrap();
    w.write(b).unwrap();
    w.close().unwrap();
    path
}

const ABOVE_2_53: i64 = (1 << 53) + 1;

#[test]
fn an_int64_label_above_2_53_is_refused_naming_the_column_the_value_and_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let b = batch(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef,
        ),
        (
            "id",
            Arc::new(Int64Array::from(vec![1 << 53, ABOVE_2_53, 7])) as ArrayRef,
        ),
    ]);
    let path = parquet_file(dir.path(), &b);
    // Read as f64 the two first labels were one: "1 distinct".
    match margin_io::read_data(&path, DataFormat::Auto) {
        Err(Error::Column {
            column,
            row,
            message,
        }) => {
            assert_eq!((column.as_str(), row), ("id", Some(1)), "{message}");
            assert!(
                message.contains("9007199254740993")
                    && message.contains("2^53")
                    && message.contains("cast the label column to string"),
                "{message}"
            );
        }
        other => panic!("an inexact label was read: {other:?}"),
    }
    // Unsigned 64-bit labels too; an integer an f64 holds exactly is read, however large.
    let unsigned = batch(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        (
            "id",
            Arc::new(UInt64Array::from(vec![1 << 60, u64::MAX])) as ArrayRef,
        ),
    ]);
    let e = read(unsigned).unwrap_err().to_string();
    assert!(
        e.contains("column `id`, row 1") && e.contains("18446744073709551615"),
        "{e}"
    );
    let exact = batch(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        (
            "id",
            Arc::new(Int64Array::from(vec![1 << 60, -(1 << 62)])) as ArrayRef,
        ),
    ]);
    assert_eq!(
        read(exact).unwrap().targets,
        Targets::Values(vec![2f64.powi(60), -(2f64.powi(62))])
    );
}

#[test]
fn dictionary_encoded_labels_are_read_whether_integers_or_text() {
    let keys = Int32Array::from(vec![0, 1, 0]);
    let ints: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys.clone(), Arc::new(Int64Array::from(vec![5, -1]))).unwrap();
    let texts: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys.clone(), Arc::new(StringArray::from(vec!["b", "a"])))
            .unwrap();
    let x: ArrayRef = Arc::new(Float64Array::from(vec![0.5, 1.5, 2.5]));
    let d = read(batch(vec![("x", x.clone()), ("y", Arc::new(ints))])).unwrap();
    assert_eq!(d.targets, Targets::Values(vec![5.0, -1.0, 5.0]));
    let d = read(batch(vec![("x", x.clone()), ("y", Arc::new(texts))])).unwrap();
    assert_eq!(
        d.targets,
        Targets::Classes(Classes::from_text(&["b", "a", "b"]))
    );
    // The exactness rule holds through the dictionary.
    let big: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys, Arc::new(Int64Array::from(vec![ABOVE_2_53, 0]))).unwrap();
    let e = read(batch(vec![("x", x), ("y", Arc::new(big))]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column `y`, row 0") && e.contains("9007199254740993"),
        "{e}"
    );
}

#[test]
fn two_columns_of_one_name_are_refused() {
    let b = RecordBatch::try_new(
        Arc::new(arrow_schema::Schema::new(vec![
            Field::new("x", DataType::Float64, false),
            Field::new("x", DataType::Float64, false),
            Field::new("y", DataType::Float64, false),
        ])),
        vec![
            Arc::new(Float64Array::from(vec![1.0])),
            Arc::new(Float64Array::from(vec![2.0])),
            Arc::new(Float64Array::from(vec![0.0])),
        ],
    )
    .unwrap();
    match read(b) {
        Err(Error::Column {
            column, message, ..
        }) => {
            assert_eq!(column, "x");
            assert!(message.contains("columns 1 and 2"), "{message}");
        }
        other => panic!("duplicate names were accepted: {other:?}"),
    }
}

#[test]
fn columns_without_numbers_are_reported_when_skipped_and_refused_when_named() {
    let dir = tempfile::tempdir().unwrap();
    let point = StructArray::from(vec![(
        Arc::new(Field::new("p", DataType::Float64, false)),
        Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
    )]);
    let b = batch(vec![
        (
            "note",
            Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
        ),
        ("x", Arc::new(Float64Array::from(vec![1.0, 2.0]))),
        ("when", Arc::new(Date32Array::from(vec![1, 2]))),
        ("point", Arc::new(point)),
        ("y", Arc::new(Int32Array::from(vec![0, 1]))),
    ]);
    let path = parquet_file(dir.path(), &b);
    let read = DataInput::open(&path)
        .unwrap()
        .read(DataFormat::Auto, &TableColumns::default())
        .unwrap();
    assert_eq!(read.format, DataFormat::Parquet);
    assert_eq!(read.data.feature_names, Some(vec!["x".to_owned()]));
    let skipped: Vec<&str> = read.skipped.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(skipped, ["note", "when", "point"]);
    assert_eq!(
        read.skipped[1],
        SkippedColumn {
            name: "when".into(),
            holds: "Date32".into()
        }
    );
    // Named, nothing is skipped; a named column without numbers is refused.
    let named = TableColumns {
        features: Some(vec!["x".into()]),
        ..TableColumns::default()
    };
    let read = DataInput::open(&path)
        .unwrap()
        .read(DataFormat::Auto, &named)
        .unwrap();
    assert!(read.skipped.is_empty());
    let named = TableColumns {
        features: Some(vec!["x".into(), "when".into()]),
        label: LabelColumn::Name("y".into()),
        ..TableColumns::default()
    };
    let e = DataInput::open(&path)
        .unwrap()
        .read(DataFormat::Auto, &named)
        .unwrap_err()
        .to_string();
    assert!(e.contains("column `when`: holds Date32"), "{e}");
}

#[test]
fn a_sparse_index_is_zero_based_and_u32_max_is_one_too_many() {
    let fields = arrow_schema::Fields::from(vec![
        Field::new("index", DataType::UInt32, false),
        Field::new("value", DataType::Float64, false),
    ]);
    let entries = StructArray::new(
        fields.clone(),
        vec![
            Arc::new(arrow_array::UInt32Array::from(vec![u32::MAX - 1, u32::MAX])) as ArrayRef,
            Arc::new(Float64Array::from(vec![1.0, 2.0])),
        ],
        None,
    );
    let list = arrow_array::ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), false)),
        arrow_buffer::OffsetBuffer::new(vec![0, 1, 2].into()),
        Arc::new(entries),
        None,
    );
    let label: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
    let b = batch(vec![("x", Arc::new(list) as ArrayRef), ("y", label)]);
    let e = read(b).unwrap_err().to_string();
    assert!(
        e.contains("column `x`, row 1")
            && e.contains("index 4294967295")
            && e.contains("above 4294967294, the largest zero-based index"),
        "{e}"
    );
    assert!(!e.contains("one-based"), "{e}");
}
