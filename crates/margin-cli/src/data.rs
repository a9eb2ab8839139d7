//! Reading data files for the subcommands.

use std::path::Path;

use clap::ValueEnum;
use margin_core::Dataset;
use margin_io::{DataFormat, read_data};

use crate::Failure;

/// `--format`: how to read a data file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// From the extension (.csv, .tsv) or the first data line.
    #[default]
    Auto,
    /// LIBSVM / svmlight.
    Libsvm,
    /// Comma-separated values (header optional, label in the last column).
    Csv,
}

impl From<FormatArg> for DataFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Auto => DataFormat::Auto,
            FormatArg::Libsvm => DataFormat::Libsvm,
            FormatArg::Csv => DataFormat::Csv,
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
