//! Reading data files for the subcommands: the format, and for tables (Parquet, Arrow, CSV)
//! which columns are the label and the features.

use std::path::Path;

use arrow_array::RecordBatch;
use clap::{Args, ValueEnum};
use margin_core::Dataset;
use margin_io::{DataFormat, DataInput, LabelColumn, Nulls, SkippedColumn, TableColumns, table};

use crate::Failure;
use crate::models::ModelEntry;
use crate::output::warn;

/// `--format`: how to read a data file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// From the file's magic number (Parquet, Arrow), its extension (.csv, .tsv) or its first data line.
    #[default]
    Auto,
    /// LIBSVM / svmlight.
    Libsvm,
    /// Comma-separated values (header optional, label in the last column).
    Csv,
    /// Apache Parquet (every numeric column a feature, the label in the last column).
    Parquet,
    /// Arrow IPC file, also Feather v2 (as Parquet).
    Arrow,
}

impl From<FormatArg> for DataFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Auto => DataFormat::Auto,
            FormatArg::Libsvm => DataFormat::Libsvm,
            FormatArg::Csv => DataFormat::Csv,
            FormatArg::Parquet => DataFormat::Parquet,
            FormatArg::Arrow => DataFormat::ArrowIpc,
        }
    }
}

/// How to read a data file: its format, and which columns of a table are the label and the
/// features (`--format`, `--label`, `--no-label`, `--features`).
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct DataArgs {
    /// Input format.
    #[arg(long, value_enum, default_value_t)]
    pub format: FormatArg,
    /// The label column of a Parquet, Arrow or CSV file, by name (default: the last column).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// The file has no label column (new data to predict): every column may be a feature.
    #[arg(long, conflicts_with = "label")]
    pub no_label: bool,
    /// The feature columns of a Parquet, Arrow or CSV file, by name, comma-separated (default:
    /// every numeric column but the label).
    #[arg(long, value_name = "A,B,C", value_delimiter = ',')]
    pub features: Option<Vec<String>>,
}

impl DataArgs {
    /// The columns to read, nulls read as `nulls` says.
    fn columns(&self, nulls: Nulls) -> TableColumns {
        TableColumns {
            label: match (&self.label, self.no_label) {
                (Some(name), _) => LabelColumn::Name(name.clone()),
                (None, true) => LabelColumn::None,
                (None, false) => LabelColumn::Last,
            },
            features: self.features.clone(),
            nulls,
        }
    }
}

/// How a model's training or predicting data reads nulls: as NaN for the models that take
/// missing values (their parameters say so: `missing-values`, `allow-missing`), else refused
/// with the column and row.
pub fn nulls_for(entry: &ModelEntry) -> Nulls {
    let takes_missing = entry
        .params()
        .iter()
        .any(|p| matches!(p.name, "missing_values" | "allow_missing"));
    if takes_missing {
        Nulls::AsNan
    } else {
        Nulls::Refuse
    }
}

/// Reads `path` as `args` says, nulls as `nulls` says, prefixing any error with the file name.
/// The file is opened once (a pipe or FIFO works); a note on stderr names the columns of a table
/// that were skipped because they hold no numbers.
pub fn load(path: &Path, args: &DataArgs, nulls: Nulls) -> Result<Dataset, Failure> {
    Ok(load_from(open(path)?, args, nulls)?.0)
}

/// Opens `path` for reading once: its format is then decided from the bytes it starts with,
/// which the reader reads again from memory (see [`DataInput`]).
pub fn open(path: &Path) -> Result<DataInput, Failure> {
    DataInput::open(path).map_err(|e| Failure::in_file(path, e))
}

/// Reads an opened input as `args` says (see [`load`]); returns the dataset and the format it
/// was read in.
pub fn load_from(
    input: DataInput,
    args: &DataArgs,
    nulls: Nulls,
) -> Result<(Dataset, DataFormat), Failure> {
    let path = input.path().to_path_buf();
    let read = input
        .read(args.format.into(), &args.columns(nulls))
        .map_err(|e| Failure::in_file(&path, e))?;
    note_skipped(&path, &read.skipped);
    Ok((read.data, read.format))
}

/// Says on stderr, once per read, which columns of a table were left out of the features
/// because they hold no numbers, so that a column meant as a feature is not dropped unseen.
fn note_skipped(path: &Path, skipped: &[SkippedColumn]) {
    if skipped.is_empty() {
        return;
    }
    let list: Vec<String> = skipped
        .iter()
        .map(|c| format!("`{}` ({})", c.name, c.holds))
        .collect();
    warn(format_args!(
        "note: {}: {} skipped, holding no numbers: {}; features are the numeric columns (name them with --features to choose)",
        path.display(),
        if skipped.len() == 1 {
            "1 column"
        } else {
            "columns"
        },
        list.join(", ")
    ));
}

/// The table format an output file's extension asks for: `.parquet`, or `.arrow` / `.feather`
/// (Arrow IPC); `None` for text.
pub fn table_output(path: Option<&Path>) -> Option<DataFormat> {
    let ext = path?.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "parquet" => Some(DataFormat::Parquet),
        "arrow" | "feather" => Some(DataFormat::ArrowIpc),
        _ => None,
    }
}

/// Writes `batch` to `path` as the table format `format` (from [`table_output`]).
pub fn write_table(path: &Path, format: DataFormat, batch: &RecordBatch) -> Result<(), Failure> {
    match format {
        DataFormat::Parquet => table::write_parquet(path, batch),
        _ => table::write_arrow_ipc(path, batch),
    }
    .map_err(|e| Failure::in_file(path, e))
}
