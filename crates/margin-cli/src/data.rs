//! Reading data files for the subcommands.

use std::path::Path;

use clap::ValueEnum;
use margin_core::Dataset;
use margin_io::{DataFormat, read_data};

use crate::Failure;

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

/// Reads `path` in the given format, prefixing any error with the file name.
pub fn load(path: &Path, format: FormatArg) -> Result<Dataset, Failure> {
    read_data(path, format.into()).map_err(|e| Failure::in_file(path, e))
}

/// The format the file will be read in.
pub fn resolved(path: &Path, format: FormatArg) -> Result<DataFormat, Failure> {
    margin_io::resolve_format(path, format.into()).map_err(|e| Failure::in_file(path, e))
}
