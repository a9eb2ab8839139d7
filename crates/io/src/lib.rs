//! # io: margin's files
//!
//! Everything margin reads from or writes to disk, kept out of `margin-core` so that the
//! foundation is only data types and contracts:
//!
//! - **Data files**: LIBSVM/svmlight text ([`read_libsvm`], [`write_libsvm`]) and CSV
//!   ([`read_csv`], [`write_csv`]), plain or compressed; [`read_data`] picks the reader from
//!   the file. `.gz` and `.bz2` files are recognised by their first bytes, not their names, and
//!   decompressed while reading. Every input is opened and read once ([`DataInput`]), so pipes,
//!   FIFOs and `<(…)` work: the bytes read to decide the format are handed to the reader.
//! - **Tables** ([`table`], cargo feature `parquet`): Arrow record batches, Parquet and Arrow
//!   IPC files, their columns named as features and label. A corrupt or forged file is refused
//!   with an error naming it: every length it claims is checked before arrow or parquet
//!   allocates by it, and what panics inside them is caught.
//! - **Model files**: the [`ModelFile`] trait every fitted model implements (a checksummed,
//!   versioned header around a serde body), and the checks of [`model_check`](margin_core::model_check) every kind runs
//!   on load.
//! - **Atomic writes**: [`AtomicFile`] and [`write_atomically`], through which every file
//!   margin writes goes, so a failed write never destroys a file that existed.
//! - **Bundled datasets** ([`datasets`], cargo feature `datasets`, on by default): small real
//!   LIBSVM datasets embedded in the crate.
//!
//! Input is untrusted and may be endless (`/dev/zero`, a gzip bomb): every line is read through
//! [`read_line`], which refuses a line longer than [`MAX_LINE_BYTES`], and every buffer that grows
//! with the input grows through [`memory`](margin_core::memory), so running out of memory is an
//! [`Error::OutOfMemory`](margin_core::Error::OutOfMemory), not an abort.
//!
//! ```
//! use margin_core::Records;
//! use margin_io::{LibsvmOptions, read_libsvm_from};
//!
//! let text = "+1 1:0.5 2:1\n-1 1:-0.5 2:-1\n";
//! let data = read_libsvm_from(text.as_bytes(), &LibsvmOptions::default())?;
//! assert_eq!((data.n_samples(), data.n_features()), (2, 2));
//! # Ok::<(), margin_core::Error>(())
//! ```

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod atomic;
mod columns;
mod csv;
mod csv_records;
#[cfg(feature = "datasets")]
pub mod datasets;
mod input;
mod libsvm;
mod lines;
mod model_file;
#[cfg(feature = "parquet")]
pub mod table;
/// The integration tests' helpers, shared with the unit tests (one way to take a parse error
/// apart).
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod test_common;

use std::io::{BufRead, Read};
use std::path::Path;

pub use self::csv::{
    CategoricalColumns, CsvOptions, LabelColumn, read_csv, read_csv_from, write_csv, write_csv_to,
};
pub use atomic::{AtomicFile, same_file, write_atomically};
pub use columns::{Nulls, SkippedColumn, TableColumns};
pub use input::{DataInput, DataRead};
pub use libsvm::{
    IndexBase, LibsvmOptions, read_libsvm, read_libsvm_from, write_libsvm, write_libsvm_to,
};
use lines::explain_binary;
pub use lines::{MAX_LINE_BYTES, read_line};
pub use model_file::{
    FORMAT_VERSION, ModelFile, body_of, feature_names, is_model_file, peek_kind, read_model_file,
    seal, with_feature_names,
};

use margin_core::{Dataset, Result};

/// Opens a file for buffered reading, decompressing gzip or bzip2 content transparently. The
/// file is opened once, so a pipe or FIFO works.
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    DataInput::open(path)?.into_text_reader()
}

/// A decompressing reader whose errors say that the compressed file is damaged (the decoders'
/// own messages, such as "incomplete deflate stream", do not).
pub(crate) struct Decompressed<R> {
    pub(crate) inner: R,
    pub(crate) format: &'static str,
}

impl<R: Read> Read for Decompressed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::Interrupted => e,
            kind => std::io::Error::new(
                kind,
                format!(
                    "the {} data is truncated or corrupt ({e}): download or compress the file again",
                    self.format
                ),
            ),
        })
    }
}

/// The data formats margin reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// Decide from the file's first bytes (Parquet's and Arrow's magic numbers), its extension
    /// (`.csv`, `.tsv`, `.parquet`, `.arrow`, `.feather`) or else its first data line.
    Auto,
    /// LIBSVM / svmlight: `label index:value ...`.
    Libsvm,
    /// Comma-separated values (tab-separated for `.tsv` files).
    Csv,
    /// Apache Parquet, read with the columns [`TableColumns::default()`] names (cargo
    /// feature `parquet`).
    Parquet,
    /// An Arrow IPC file (Feather v2), read as Parquet is (cargo feature `parquet`).
    ArrowIpc,
}

impl DataFormat {
    /// The format's name, as `margin info` prints it: `auto`, `libsvm`, `csv`, `parquet`,
    /// `arrow`.
    pub fn name(self) -> &'static str {
        match self {
            DataFormat::Auto => "auto",
            DataFormat::Libsvm => "libsvm",
            DataFormat::Csv => "csv",
            DataFormat::Parquet => "parquet",
            DataFormat::ArrowIpc => "arrow",
        }
    }
}

/// Reads a data file in the given (or detected) format with default options: the label in
/// the last column (LIBSVM: first on each line), every other column a feature.
pub fn read_data(path: &Path, format: DataFormat) -> Result<Dataset> {
    read_data_with(path, format, &TableColumns::default())
}

/// Reads a data file in the given (or detected) format, its label and feature columns named by
/// `columns` (CSV files name them in a header; LIBSVM files have no names and refuse any choice
/// but the default). The file is opened and read once, so a pipe or FIFO works (see
/// [`DataInput`], which also says which columns of a table were skipped).
pub fn read_data_with(path: &Path, format: DataFormat, columns: &TableColumns) -> Result<Dataset> {
    Ok(DataInput::open(path)?.read(format, columns)?.data)
}

/// Picks the format: the given one, or by Parquet's or Arrow's magic number, or by extension,
/// or by the first non-comment line (`index:value` tokens mean LIBSVM; commas mean CSV).
///
/// This opens the file and reads its start: on a pipe those bytes are then gone. To decide the
/// format of an input and read it too, use [`DataInput::format`] and [`DataInput::read`].
pub fn resolve_format(path: &Path, format: DataFormat) -> Result<DataFormat> {
    if format != DataFormat::Auto {
        return Ok(format);
    }
    DataInput::open(path)?.format(format)
}

pub(crate) fn has_extension(path: &Path, ext: &str) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let name = name.trim_end_matches(".gz").trim_end_matches(".bz2");
    name.ends_with(&format!(".{ext}"))
}
