//! Tables as data: Arrow record batches, Parquet files and Arrow IPC files (cargo feature
//! `parquet`).
//!
//! A table becomes a [`Dataset`] by naming its columns ([`TableColumns`]):
//! - **features**: numeric columns (any integer, float or decimal type, dictionary-encoded or
//!   not, read as `f64`), one per feature and named after it; or one `FixedSizeList` of
//!   numbers holding each row's features; or one sparse column, a `List` of `Struct<index,
//!   value>` (zero-based column indices, any integer type; values any number type), each row's
//!   non-zeros. By default every numeric column but the label; the columns that hold no numbers
//!   (text, dates, structs) are then skipped, and a reader through
//!   [`DataInput`] says which ([`SkippedColumn`]);
//! - **the label**: a numeric column (targets as numbers) or a text column (class labels),
//!   either dictionary-encoded or not, the last column by default, as in CSV files; or none.
//!   Labels are exact: a 64-bit integer label that an `f64` cannot hold (above 2^53) is
//!   refused, naming the column, the row and the value (cast such a column to string: text
//!   labels are kept as they are).
//!
//! Columns are chosen by name, so a table that names two columns alike is refused. Nulls in
//! the label are refused. Nulls in features are refused by default, naming the column and the
//! row ([`Error::Column`]), or read as NaN ([`Nulls::AsNan`]) for the models that take missing
//! values (trees, forests, boosting). Record batches are read one after another, and the
//! file's other columns are never decoded (Parquet projection), so memory holds the dataset and
//! one batch.
//!
//! Files are untrusted: a Parquet or Arrow IPC file's every claimed length (footer, row groups,
//! pages, dictionary counts, blocks, compressed buffers) is checked against the file and
//! against its codec's limits before the parquet or arrow crate allocates by it, and a panic
//! inside those crates is caught; either way the file is refused with an error naming it. A
//! table that is not a regular file (a pipe) is read into memory first.
//!
//! The other way, [`batch_from_dataset`] turns a dataset into a batch that reads back the same,
//! and [`write_parquet`] and [`write_arrow_ipc`] write a batch to a file atomically.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Float64Array, RecordBatch, StringArray};
//! use margin_io::TableColumns;
//! use margin_io::table::dataset_from_batches;
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("height", Arc::new(Float64Array::from(vec![1.5, 1.8])) as _),
//!     ("weight", Arc::new(Float64Array::from(vec![50.0, 80.0])) as _),
//!     ("kind", Arc::new(StringArray::from(vec!["a", "b"])) as _),
//! ])?;
//! let data = dataset_from_batches(&batch.schema(), [batch], &TableColumns::default())?;
//! assert_eq!(data.feature_names.as_deref(), Some(&["height".to_owned(), "weight".to_owned()][..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{
    Array, ArrayRef, Float64Array, LargeListArray, RecordBatch, StringArray, StructArray,
    UInt32Array,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use margin_core::{
    Classes, CsrMatrix, Dataset, DenseMatrix, Error, Label, Matrix, Records, Result, Targets,
    memory,
};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;

use crate::AtomicFile;
use crate::csv::quoted_list;
use crate::{DataFormat, DataInput, LabelColumn, Nulls, SkippedColumn, TableColumns};

use guard::{guarded, unreadable};

mod guard;
mod ipc;
mod parquet_check;

/// Where a table's bytes are: a regular file, read in place, or bytes in memory (a table that
/// came through a pipe). Either way its length is known, and every range is read into a
/// buffer asked for through [`memory`].
pub(crate) enum Source {
    /// A regular file and its length.
    File(File, u64),
    /// The whole table.
    Memory(Bytes),
}

impl Source {
    fn len(&self) -> u64 {
        match self {
            Source::File(_, len) => *len,
            Source::Memory(bytes) => bytes.len() as u64,
        }
    }

    /// The `len` bytes at `offset` (the caller has checked that they are in the file).
    fn bytes_at(&self, path: &Path, offset: u64, len: u64) -> Result<Vec<u8>> {
        let end = offset.checked_add(len).filter(|&e| e <= self.len());
        let Some(end) = end else {
            return Err(unreadable(
                path,
                "table",
                format!("a read of {len} bytes at byte {offset} runs past its end"),
            ));
        };
        let n = usize::try_from(len)
            .map_err(|_| Error::out_of_memory("a part of a table file", len, TOO_LARGE))?;
        let mut buf = memory::filled_vec(n, 0u8, "a part of a table file", TOO_LARGE)?;
        match self {
            Source::File(file, _) => {
                let mut file = file;
                file.seek(SeekFrom::Start(offset))
                    .and_then(|_| file.read_exact(&mut buf))
                    .map_err(|e| Error::io(path, e))?;
            }
            Source::Memory(bytes) => buf.copy_from_slice(&bytes[offset as usize..end as usize]),
        }
        Ok(buf)
    }
}

/// How the features are laid out in the table.
#[derive(Clone, Debug, PartialEq)]
enum Layout {
    /// One numeric column per feature (their indices in the schema).
    Columns(Vec<usize>),
    /// One `FixedSizeList` column of `width` numbers per row.
    Fixed { column: usize, width: usize },
    /// One `List<Struct<index, value>>` column of non-zeros per row.
    Sparse { column: usize },
}

/// The columns resolved against a schema.
#[derive(Clone, Debug, PartialEq)]
struct Plan {
    layout: Layout,
    label: Option<usize>,
    nulls: Nulls,
    /// The columns left out of default features because they hold no numbers.
    skipped: Vec<SkippedColumn>,
}

/// Whether a column's type reads as numbers (dictionary-encoded numbers too).
fn is_number(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, values) => is_number(values),
        t => t.is_numeric() || matches!(t, DataType::Boolean),
    }
}

/// Whether a column's type reads as text.
fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => is_text(v),
        _ => false,
    }
}

/// The field of a sparse column's entries, if `t` is one: `List`/`LargeList` of
/// `Struct<index: integer, value: number>`.
fn sparse_entry(t: &DataType) -> Option<(&Field, &Field)> {
    let item = match t {
        DataType::List(f) | DataType::LargeList(f) => f,
        _ => return None,
    };
    match item.data_type() {
        DataType::Struct(fields) if fields.len() == 2 => {
            let (i, v) = (&fields[0], &fields[1]);
            (i.name() == "index"
                && i.data_type().is_integer()
                && v.name() == "value"
                && is_number(v.data_type()))
            .then_some((i.as_ref(), v.as_ref()))
        }
        _ => None,
    }
}

/// A `FixedSizeList` of numbers' width, if `t` is one.
fn fixed_width(t: &DataType) -> Option<usize> {
    match t {
        DataType::FixedSizeList(item, n) if is_number(item.data_type()) => usize::try_from(*n).ok(),
        _ => None,
    }
}

impl Plan {
    fn new(schema: &Schema, columns: &TableColumns) -> Result<Self> {
        let fields = schema.fields();
        // Columns are chosen by name, so a name must say which column it is.
        let mut names: Vec<(&str, usize)> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name().as_str(), i))
            .collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::column(
                pair[0].0,
                None,
                format!(
                    "is the name of two columns (columns {} and {}, counted from 1): rename one, since columns are chosen by name",
                    pair[0].1 + 1,
                    pair[1].1 + 1
                ),
            ));
        }
        let index_of = |name: &str| {
            schema.index_of(name).map_err(|_| {
                Error::column(
                    name,
                    None,
                    format!(
                        "no such column; the table has {}",
                        quoted_list(&fields.iter().map(|f| f.name().clone()).collect::<Vec<_>>())
                    ),
                )
            })
        };
        let label = match &columns.label {
            LabelColumn::None => None,
            LabelColumn::Last if fields.is_empty() => {
                return Err(Error::EmptyDataset("the table has no column".into()));
            }
            LabelColumn::Last => Some(fields.len() - 1),
            LabelColumn::Index(i) if *i < fields.len() => Some(*i),
            LabelColumn::Index(i) => {
                return Err(Error::invalid_parameter(
                    "label",
                    i.to_string(),
                    format!("a column index below {}", fields.len()),
                ));
            }
            LabelColumn::Name(name) => Some(index_of(name)?),
        };
        if let Some(l) = label {
            let t = fields[l].data_type();
            if !is_number(t) && !is_text(t) {
                return Err(Error::column(
                    fields[l].name(),
                    None,
                    format!(
                        "the label column holds {}; a label is a number or text (name the label column, or none)",
                        t
                    ),
                ));
            }
        }
        let chosen: Vec<usize> = match &columns.features {
            Some(names) => {
                let mut chosen = Vec::with_capacity(names.len());
                for name in names {
                    let c = index_of(name)?;
                    if chosen.contains(&c) {
                        return Err(Error::column(name, None, "is named twice in the features"));
                    }
                    chosen.push(c);
                }
                chosen
            }
            None => {
                let numeric: Vec<usize> = (0..fields.len())
                    .filter(|&i| Some(i) != label && is_number(fields[i].data_type()))
                    .collect();
                if numeric.is_empty() {
                    let lists: Vec<usize> = (0..fields.len())
                        .filter(|&i| {
                            Some(i) != label
                                && (fixed_width(fields[i].data_type()).is_some()
                                    || sparse_entry(fields[i].data_type()).is_some())
                        })
                        .collect();
                    if lists.len() != 1 {
                        return Err(Error::EmptyDataset(format!(
                            "the table has no numeric feature column{}: name the feature columns",
                            if lists.len() > 1 {
                                " and several list columns"
                            } else {
                                ""
                            }
                        )));
                    }
                    lists
                } else {
                    numeric
                }
            }
        };
        if let Some(l) = label.filter(|l| chosen.contains(l)) {
            return Err(Error::column(
                fields[l].name(),
                None,
                "is both the label and a feature: leave it out of the features",
            ));
        }
        // Named features leave nothing unread that the user asked for; default ones skip
        // what holds no numbers, and the reader says so.
        let skipped = if columns.features.is_some() {
            Vec::new()
        } else {
            (0..fields.len())
                .filter(|i| Some(*i) != label && !chosen.contains(i))
                .map(|i| SkippedColumn {
                    name: fields[i].name().clone(),
                    holds: fields[i].data_type().to_string(),
                })
                .collect()
        };
        let layout = match chosen[..] {
            [one] if fixed_width(fields[one].data_type()).is_some() => Layout::Fixed {
                column: one,
                width: fixed_width(fields[one].data_type()).unwrap_or_default(),
            },
            [one] if sparse_entry(fields[one].data_type()).is_some() => {
                Layout::Sparse { column: one }
            }
            _ => {
                if let Some(&bad) = chosen.iter().find(|&&i| !is_number(fields[i].data_type())) {
                    return Err(Error::column(
                        fields[bad].name(),
                        None,
                        format!(
                            "holds {}; a feature column holds numbers, or is the only feature column and holds a FixedSizeList of numbers or a List of Struct<index, value>",
                            fields[bad].data_type()
                        ),
                    ));
                }
                Layout::Columns(chosen)
            }
        };
        Ok(Plan {
            layout,
            label,
            nulls: columns.nulls,
            skipped,
        })
    }

    /// The columns a reader must decode.
    fn needed(&self) -> Vec<usize> {
        let mut v = match &self.layout {
            Layout::Columns(c) => c.clone(),
            Layout::Fixed { column, .. } | Layout::Sparse { column } => vec![*column],
        };
        v.extend(self.label);
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// `array` as float64 values (any number type; booleans as 0 and 1).
fn as_f64(array: &ArrayRef, name: &str) -> Result<Float64Array> {
    let cast = arrow_cast::cast(array, &DataType::Float64)
        .map_err(|e| Error::column(name, None, format!("cannot be read as numbers: {e}")))?;
    Ok(cast.as_primitive::<Float64Type>().clone())
}

/// Refuses a label of a 64-bit integer column (dictionary-encoded too) that an `f64` cannot
/// hold exactly: labels are read as numbers, and above 2^53 an integer would silently become
/// its neighbour (two classes one). `first_row` is the batch's first row in the table.
fn check_exact_integers(column: &ArrayRef, name: &str, first_row: usize) -> Result<()> {
    let values = match column.data_type() {
        DataType::Dictionary(_, values) => values.as_ref(),
        t => t,
    };
    let inexact = |row: usize, value: String, read: f64| {
        Error::column(
            name,
            Some(first_row + row),
            format!(
                "label {value} has no exact f64 (labels are read as numbers, which hold integers exactly only up to 2^53 = 9007199254740992): it would be read as {read:.0}, so distinct labels could merge; cast the label column to string to keep its labels exactly (text labels are classes)"
            ),
        )
    };
    let cast = |to: &DataType| {
        arrow_cast::cast(column, to)
            .map_err(|e| Error::column(name, None, format!("cannot be read as integers: {e}")))
    };
    match values {
        DataType::Int64 => {
            let ints = cast(&DataType::Int64)?;
            for (i, v) in ints.as_primitive::<Int64Type>().iter().enumerate() {
                if let Some(v) = v
                    && (v as f64) as i128 != i128::from(v)
                {
                    return Err(inexact(i, v.to_string(), v as f64));
                }
            }
        }
        DataType::UInt64 => {
            let ints = cast(&DataType::UInt64)?;
            for (i, v) in ints.as_primitive::<UInt64Type>().iter().enumerate() {
                if let Some(v) = v
                    && (v as f64) as u128 != u128::from(v)
                {
                    return Err(inexact(i, v.to_string(), v as f64));
                }
            }
        }
        // Narrower integers, floats, decimals and booleans are read as they are.
        _ => {}
    }
    Ok(())
}

/// The dataset being assembled, batch after batch.
struct Assembly {
    plan: Plan,
    names: Vec<String>,
    rows: usize,
    /// Dense rows (row-major) or the non-zeros' values.
    values: Vec<f64>,
    /// Sparse: column indices and row offsets; the largest index seen.
    indices: Vec<u32>,
    indptr: Vec<usize>,
    max_index: Option<u32>,
    numbers: Vec<f64>,
    texts: Vec<String>,
}

const TOO_LARGE: &str =
    "read fewer rows or columns (a Parquet file's row groups can be read apart)";

impl Assembly {
    fn new(schema: &Schema, columns: &TableColumns) -> Result<Self> {
        let plan = Plan::new(schema, columns)?;
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        Ok(Self {
            plan,
            names,
            rows: 0,
            values: Vec::new(),
            indices: Vec::new(),
            indptr: vec![0],
            max_index: None,
            numbers: Vec::new(),
            texts: Vec::new(),
        })
    }

    /// A null at `row` of the batch in feature column `c`: NaN or a refusal.
    fn null(&self, c: usize, row: usize) -> Result<f64> {
        match self.plan.nulls {
            Nulls::AsNan => Ok(f64::NAN),
            Nulls::Refuse => Err(Error::column(
                &self.names[c],
                Some(self.rows + row),
                "is null: drop or impute the row, or use a model that takes missing values (trees, forests, boosting) and read nulls as NaN",
            )),
        }
    }

    fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        let n = batch.num_rows();
        match self.plan.layout.clone() {
            Layout::Columns(cols) => self.push_columns(batch, &cols)?,
            Layout::Fixed { column, width } => self.push_fixed(batch, column, width)?,
            Layout::Sparse { column } => self.push_sparse(batch, column)?,
        }
        if let Some(l) = self.plan.label {
            self.push_label(batch.column(l), l)?;
        }
        self.rows += n;
        Ok(())
    }

    fn push_columns(&mut self, batch: &RecordBatch, cols: &[usize]) -> Result<()> {
        let (n, d) = (batch.num_rows(), cols.len());
        let start = self.values.len();
        let cells = n.saturating_mul(d);
        memory::reserve(&mut self.values, cells, "the feature values", TOO_LARGE)?;
        self.values.resize(start + cells, 0.0);
        for (j, &c) in cols.iter().enumerate() {
            let column = as_f64(batch.column(c), &self.names[c])?;
            for i in 0..n {
                let v = if column.is_null(i) {
                    self.null(c, i)?
                } else {
                    column.value(i)
                };
                self.values[start + i * d + j] = v;
            }
        }
        Ok(())
    }

    fn push_fixed(&mut self, batch: &RecordBatch, c: usize, width: usize) -> Result<()> {
        let list = batch.column(c).as_fixed_size_list();
        let items = as_f64(list.values(), &self.names[c])?;
        let n = batch.num_rows();
        memory::reserve(
            &mut self.values,
            n.saturating_mul(width),
            "the feature values",
            TOO_LARGE,
        )?;
        for i in 0..n {
            let offset = list.value_offset(i) as usize;
            for k in 0..width {
                let v = if list.is_null(i) || items.is_null(offset + k) {
                    self.null(c, i)?
                } else {
                    items.value(offset + k)
                };
                self.values.push(v);
            }
        }
        Ok(())
    }

    fn push_sparse(&mut self, batch: &RecordBatch, c: usize) -> Result<()> {
        let column = batch.column(c);
        // Offsets as i64 whatever the list type: a List is cast to a LargeList.
        let list = arrow_cast::cast(
            column,
            &DataType::LargeList(match column.data_type() {
                DataType::List(f) | DataType::LargeList(f) => f.clone(),
                _ => unreachable!("the plan checked the type"),
            }),
        )
        .map_err(|e| Error::column(&self.names[c], None, format!("cannot be read: {e}")))?;
        let list = list.as_list::<i64>();
        let entries = list.values().as_struct();
        let index = arrow_cast::cast(entries.column(0), &DataType::Int64)
            .map_err(|e| Error::column(&self.names[c], None, format!("index: {e}")))?;
        let index = index.as_primitive::<Int64Type>();
        let value = as_f64(entries.column(1), &self.names[c])?;
        let name = &self.names[c];
        for i in 0..batch.num_rows() {
            let row = self.rows + i;
            if list.is_null(i) {
                return Err(Error::column(
                    name,
                    Some(row),
                    "is null: a sparse row with no non-zero is an empty list",
                ));
            }
            let (from, to) = (
                list.value_offsets()[i] as usize,
                list.value_offsets()[i + 1] as usize,
            );
            let mut previous: Option<u32> = None;
            for k in from..to {
                if index.is_null(k) || value.is_null(k) {
                    return Err(Error::column(name, Some(row), "has a null index or value"));
                }
                // Indices are zero-based: index u32::MAX would need 2^32 columns, one more
                // than a sparse matrix holds.
                let j = u32::try_from(index.value(k))
                    .ok()
                    .filter(|&j| j < u32::MAX)
                    .ok_or_else(|| {
                        Error::column(
                            name,
                            Some(row),
                            format!(
                                "index {} is negative or above 4294967294, the largest zero-based index margin stores (4294967295 columns)",
                                index.value(k)
                            ),
                        )
                    })?;
                if previous.is_some_and(|p| p >= j) {
                    return Err(Error::column(
                        name,
                        Some(row),
                        format!(
                            "indices must increase within a row: {} after {}",
                            j,
                            previous.unwrap_or(0)
                        ),
                    ));
                }
                previous = Some(j);
                memory::grow(&mut self.indices, "the sparse indices")?;
                memory::grow(&mut self.values, "the sparse values")?;
                self.indices.push(j);
                self.values.push(value.value(k));
            }
            self.max_index = self.max_index.max(previous);
            memory::grow(&mut self.indptr, "the sparse row offsets")?;
            self.indptr.push(self.indices.len());
        }
        Ok(())
    }

    fn push_label(&mut self, column: &ArrayRef, l: usize) -> Result<()> {
        let name = self.names[l].clone();
        let refuse_null = |row| {
            Error::column(
                &name,
                Some(row),
                "the label is null: every sample needs its target (drop the row)",
            )
        };
        if is_text(column.data_type()) {
            let text = arrow_cast::cast(column, &DataType::Utf8)
                .map_err(|e| Error::column(&name, None, format!("cannot be read as text: {e}")))?;
            let text = text.as_string::<i32>();
            for i in 0..text.len() {
                if text.is_null(i) {
                    return Err(refuse_null(self.rows + i));
                }
                memory::grow(&mut self.texts, "the labels")?;
                self.texts.push(text.value(i).to_owned());
            }
        } else {
            check_exact_integers(column, &name, self.rows)?;
            let numbers = as_f64(column, &name)?;
            for i in 0..numbers.len() {
                if numbers.is_null(i) {
                    return Err(refuse_null(self.rows + i));
                }
                memory::grow(&mut self.numbers, "the labels")?;
                self.numbers.push(numbers.value(i));
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Dataset> {
        let n = self.rows;
        let (records, feature_names): (Matrix, _) = match &self.plan.layout {
            Layout::Columns(cols) => (
                DenseMatrix::from_row_major(self.values, n, cols.len())?.into(),
                Some(cols.iter().map(|&c| self.names[c].clone()).collect()),
            ),
            Layout::Fixed { width, .. } => (
                DenseMatrix::from_row_major(self.values, n, *width)?.into(),
                None,
            ),
            Layout::Sparse { .. } => {
                let width = self.max_index.map_or(0, |m| m as usize + 1);
                (
                    CsrMatrix::new(self.indptr, self.indices, self.values, width)?.into(),
                    None,
                )
            }
        };
        let targets = match self.plan.label {
            None => Targets::Values(memory::filled_vec(n, 0.0, "the targets", TOO_LARGE)?),
            Some(_) if self.texts.len() == n && n > 0 => {
                Targets::Classes(Classes::from_text(&self.texts))
            }
            Some(_) => Targets::Values(self.numbers),
        };
        let mut data = Dataset::new(records, targets)?;
        data.feature_names = feature_names;
        Ok(data)
    }
}

/// A Parquet or Arrow writer's failure on `path` (a full disk, a batch it cannot write).
fn arrow_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(
        path,
        std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    )
}

/// A dataset from record batches sharing `schema`, its columns named by `columns` (see the
/// module doc). Batches are read one at a time.
pub fn dataset_from_batches<I>(
    schema: &SchemaRef,
    batches: I,
    columns: &TableColumns,
) -> Result<Dataset>
where
    I: IntoIterator<Item = RecordBatch>,
{
    let mut assembly = Assembly::new(schema, columns)?;
    for batch in batches {
        assembly.push(&batch)?;
    }
    assembly.finish()
}

/// The columns of `plan` by name, for a reader that decodes only them (a projection keeps
/// the needed columns in file order, so their positions change but their names do not).
fn by_name(full: &Schema, plan: &Plan, nulls: Nulls) -> TableColumns {
    TableColumns {
        label: match plan.label {
            Some(l) => LabelColumn::Name(full.field(l).name().clone()),
            None => LabelColumn::None,
        },
        features: Some(match &plan.layout {
            Layout::Columns(c) => c.iter().map(|&i| full.field(i).name().clone()).collect(),
            Layout::Fixed { column, .. } | Layout::Sparse { column } => {
                vec![full.field(*column).name().clone()]
            }
        }),
        nulls,
    }
}

/// Reads a table from `source` as `format` says (Parquet or Arrow IPC); returns the dataset
/// and the columns skipped because they hold no numbers.
pub(crate) fn read_source(
    path: &Path,
    source: Source,
    format: DataFormat,
    columns: &TableColumns,
) -> Result<(Dataset, Vec<SkippedColumn>)> {
    match format {
        DataFormat::ArrowIpc => ipc::read(path, &source, columns),
        _ => {
            let data_end = parquet_check::check_footer(path, &source)?;
            match &source {
                Source::File(file, _) => {
                    let file = file.try_clone().map_err(|e| Error::io(path, e))?;
                    read_parquet_with(path, file, &source, data_end, columns)
                }
                Source::Memory(bytes) => {
                    read_parquet_with(path, bytes.clone(), &source, data_end, columns)
                }
            }
        }
    }
}

const PARQUET: &str = "Parquet";

/// Reads a Parquet file through `reader` (the same bytes as `source`, whose footer has been
/// checked: its data ends at `data_end`). Only the needed columns are decoded, and their pages
/// are checked first.
fn read_parquet_with<R: ChunkReader + 'static>(
    path: &Path,
    reader: R,
    source: &Source,
    data_end: u64,
    columns: &TableColumns,
) -> Result<(Dataset, Vec<SkippedColumn>)> {
    let builder = guarded(path, PARQUET, || {
        ParquetRecordBatchReaderBuilder::try_new_with_options(reader, ArrowReaderOptions::new())
            .map_err(|e| unreadable(path, PARQUET, e))
    })?;
    let full = builder.schema().clone();
    let plan = Plan::new(&full, columns)?;
    let needed = plan.needed();
    parquet_check::check_pages(
        path,
        source,
        data_end,
        builder.metadata(),
        builder.parquet_schema(),
        &needed,
    )?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), needed.iter().copied());
    let mut reader = guarded(path, PARQUET, || {
        builder
            .with_projection(mask)
            .build()
            .map_err(|e| unreadable(path, PARQUET, e))
    })?;
    let projected: SchemaRef = Arc::new(
        full.project(&needed)
            .map_err(|e| unreadable(path, PARQUET, e))?,
    );
    let mut assembly = Assembly::new(&projected, &by_name(&full, &plan, columns.nulls))?;
    loop {
        let next = guarded(path, PARQUET, || {
            reader
                .next()
                .transpose()
                .map_err(|e: ArrowError| unreadable(path, PARQUET, e))
        })?;
        match next {
            Some(batch) => assembly.push(&batch)?,
            None => break,
        }
    }
    Ok((assembly.finish()?, plan.skipped))
}

/// Reads a Parquet file (a regular file, or a pipe or FIFO, read once): only the columns named
/// (or chosen by default) are decoded. A corrupt file is refused with an error naming it, never
/// a crash: the footer and the pages to be read are checked before the parquet crate sizes
/// anything by them, and what still panics inside it is caught.
pub fn read_parquet(path: &Path, columns: &TableColumns) -> Result<Dataset> {
    Ok(DataInput::open(path)?
        .read(DataFormat::Parquet, columns)?
        .data)
}

/// Reads an Arrow IPC file (the "file" format, also Feather v2), as [`read_parquet`] reads
/// Parquet: checked first, only the needed columns decoded.
pub fn read_arrow_ipc(path: &Path, columns: &TableColumns) -> Result<Dataset> {
    Ok(DataInput::open(path)?
        .read(DataFormat::ArrowIpc, columns)?
        .data)
}

/// Reads a Parquet file held in memory, as [`read_parquet`] reads one on disk (errors name it
/// `<memory>`).
pub fn read_parquet_bytes(bytes: Vec<u8>, columns: &TableColumns) -> Result<Dataset> {
    let path = Path::new("<memory>");
    Ok(read_source(
        path,
        Source::Memory(bytes.into()),
        DataFormat::Parquet,
        columns,
    )?
    .0)
}

/// Reads an Arrow IPC file held in memory, as [`read_arrow_ipc`] reads one on disk (errors
/// name it `<memory>`).
pub fn read_arrow_ipc_bytes(bytes: Vec<u8>, columns: &TableColumns) -> Result<Dataset> {
    let path = Path::new("<memory>");
    Ok(read_source(
        path,
        Source::Memory(bytes.into()),
        DataFormat::ArrowIpc,
        columns,
    )?
    .0)
}

/// The name of the label column [`batch_from_dataset`] writes (as CSV files name it).
pub const LABEL_COLUMN: &str = "label";

/// A dataset as one record batch that [`dataset_from_batches`] reads back with the default
/// columns: dense features as `Float64` columns named by the dataset's feature names (or `x0`,
/// `x1`, …), sparse ones as one `features` column of `List<Struct<index, value>>` (zero-based
/// indices), then the targets as a `label` column (`Float64` for values and numeric class
/// labels, `Utf8` for text labels).
pub fn batch_from_dataset(data: &Dataset) -> Result<RecordBatch> {
    data.check_consistent()?;
    let mut columns: Vec<(String, ArrayRef)> = match data.records.as_sparse() {
        Some(csr) => vec![("features".to_owned(), sparse_column(csr)?)],
        None => {
            let d = data.n_features();
            let names: Vec<String> = data
                .feature_names
                .clone()
                .unwrap_or_else(|| (0..d).map(|j| format!("x{j}")).collect());
            let mut row = vec![0.0; d];
            let mut values: Vec<Vec<f64>> = (0..d)
                .map(|_| memory::vec_with_capacity(data.n_samples(), "a column", TOO_LARGE))
                .collect::<Result<_>>()?;
            for i in 0..data.n_samples() {
                data.records.row(i).to_dense_into(&mut row);
                for (column, &x) in values.iter_mut().zip(&row) {
                    column.push(x);
                }
            }
            names
                .into_iter()
                .zip(values)
                .map(|(name, v)| (name, Arc::new(Float64Array::from(v)) as ArrayRef))
                .collect()
        }
    };
    if columns.iter().any(|(name, _)| name == LABEL_COLUMN) {
        return Err(Error::column(
            LABEL_COLUMN,
            None,
            "a feature has the label column's name: rename the feature",
        ));
    }
    columns.push((LABEL_COLUMN.to_owned(), label_column(&data.targets)));
    RecordBatch::try_from_iter(columns)
        .map_err(|e| Error::column(LABEL_COLUMN, None, e.to_string()))
}

/// A CSR matrix as a `List<Struct<index: UInt32, value: Float64>>` column.
fn sparse_column(csr: &CsrMatrix) -> Result<ArrayRef> {
    let entry = Fields::from(vec![
        Field::new("index", DataType::UInt32, false),
        Field::new("value", DataType::Float64, false),
    ]);
    let entries = StructArray::try_new(
        entry.clone(),
        vec![
            Arc::new(UInt32Array::from(csr.indices().to_vec())) as ArrayRef,
            Arc::new(Float64Array::from(csr.values().to_vec())),
        ],
        None,
    )
    .map_err(|e| Error::column("features", None, e.to_string()))?;
    let offsets: Vec<i64> = csr.indptr().iter().map(|&p| p as i64).collect();
    let list = LargeListArray::try_new(
        Arc::new(Field::new("item", DataType::Struct(entry), false)),
        OffsetBuffer::new(offsets.into()),
        Arc::new(entries),
        None,
    )
    .map_err(|e| Error::column("features", None, e.to_string()))?;
    Ok(Arc::new(list))
}

/// Targets as a column: numbers, or text where a class label is text.
fn label_column(targets: &Targets) -> ArrayRef {
    match targets {
        Targets::Values(v) => Arc::new(Float64Array::from(v.clone())),
        Targets::Classes(c) => labels_column(c.indices().iter().map(|&k| &c.labels()[k])),
    }
}

/// Labels as a `Float64` column when every one is a number, else as a `Utf8` column.
pub fn labels_column<'a>(labels: impl Iterator<Item = &'a Label> + Clone) -> ArrayRef {
    let numbers: Option<Vec<f64>> = labels
        .clone()
        .map(|l| match l {
            Label::Number(x) => Some(*x),
            Label::Text(_) => None,
        })
        .collect();
    match numbers {
        Some(v) => Arc::new(Float64Array::from(v)),
        None => Arc::new(StringArray::from_iter_values(labels.map(|l| l.to_string()))),
    }
}

/// Writes a record batch as a Parquet file (Snappy-compressed, as pandas and Spark write
/// them), through [`AtomicFile`]: a failure leaves any file that was there untouched.
pub fn write_parquet(path: &Path, batch: &RecordBatch) -> Result<()> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let out = AtomicFile::create(path)?;
    let mut writer =
        ArrowWriter::try_new(out, batch.schema(), Some(props)).map_err(|e| arrow_error(path, e))?;
    writer.write(batch).map_err(|e| arrow_error(path, e))?;
    writer
        .into_inner()
        .map_err(|e| arrow_error(path, e))?
        .commit()
}

/// Writes a record batch as an Arrow IPC file (Feather v2), through [`AtomicFile`].
pub fn write_arrow_ipc(path: &Path, batch: &RecordBatch) -> Result<()> {
    let out = AtomicFile::create(path)?;
    let mut writer = arrow_ipc::writer::FileWriter::try_new(out, &batch.schema())
        .map_err(|e| arrow_error(path, e))?;
    writer.write(batch).map_err(|e| arrow_error(path, e))?;
    writer.finish().map_err(|e| arrow_error(path, e))?;
    writer
        .into_inner()
        .map_err(|e| arrow_error(path, e))?
        .commit()
}
