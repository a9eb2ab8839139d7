//! # io: margin's files
//!
//! Everything margin reads from or writes to disk, kept out of `margin-core` so that the
//! foundation is only data types and contracts:
//!
//! - **Data files**: LIBSVM/svmlight text ([`read_libsvm`], [`write_libsvm`]) and CSV
//!   ([`read_csv`], [`write_csv`]), plain or compressed; [`read_data`] picks the reader from
//!   the file. `.gz` and `.bz2` files are recognised by their first bytes, not their names, and
//!   decompressed while reading.
//! - **Tables** ([`table`], cargo feature `parquet`): Arrow record batches, Parquet and Arrow
//!   IPC files, their columns named as features and label.
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
//! [`Error::OutOfMemory`], not an abort.
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
mod libsvm;
mod lines;
mod model_file;
#[cfg(feature = "parquet")]
pub mod table;

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub use self::csv::{
    CategoricalColumns, CsvOptions, LabelColumn, read_csv, read_csv_from, write_csv, write_csv_to,
};
pub use atomic::{AtomicFile, same_file, write_atomically};
pub use columns::{Nulls, TableColumns};
pub use libsvm::{
    IndexBase, LibsvmOptions, read_libsvm, read_libsvm_from, write_libsvm, write_libsvm_to,
};
use lines::explain_binary;
pub use lines::{MAX_LINE_BYTES, read_line};
pub use model_file::{FORMAT_VERSION, ModelFile, body_of, is_model_file, peek_kind, seal};

use margin_core::{Dataset, Error, Result};

/// Opens a file for buffered reading, decompressing gzip or bzip2 content transparently.
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let head = reader.fill_buf().map_err(|e| Error::io(path, e))?;
    Ok(if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(
            1 << 16,
            Decompressed {
                inner: flate2::read::MultiGzDecoder::new(reader),
                format: "gzip",
            },
        ))
    } else if head.starts_with(b"BZh") {
        Box::new(BufReader::with_capacity(
            1 << 16,
            Decompressed {
                inner: bzip2::read::MultiBzDecoder::new(reader),
                format: "bzip2",
            },
        ))
    } else {
        Box::new(reader)
    })
}

/// A decompressing reader whose errors say that the compressed file is damaged (the decoders'
/// own messages, such as "incomplete deflate stream", do not).
struct Decompressed<R> {
    inner: R,
    format: &'static str,
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
/// but the default).
pub fn read_data_with(path: &Path, format: DataFormat, columns: &TableColumns) -> Result<Dataset> {
    match resolve_format(path, format)? {
        DataFormat::Csv => {
            let mut opts = CsvOptions {
                label: columns.label.clone(),
                features: columns.features.clone(),
                ..CsvOptions::default()
            };
            if has_extension(path, "tsv") {
                opts.delimiter = b'\t';
            }
            read_csv(path, &opts)
        }
        table @ (DataFormat::Parquet | DataFormat::ArrowIpc) => read_table(path, table, columns),
        _ => {
            if columns.label != LabelColumn::Last || columns.features.is_some() {
                return Err(Error::unsupported(
                    "naming the label or feature columns of a LIBSVM file",
                    format!(
                        "{}'s label is each line's first token and its features are numbered, not named: leave the columns unnamed",
                        path.display()
                    ),
                ));
            }
            read_libsvm(path, &LibsvmOptions::default())
        }
    }
}

#[cfg(feature = "parquet")]
fn read_table(path: &Path, format: DataFormat, columns: &TableColumns) -> Result<Dataset> {
    match format {
        DataFormat::Parquet => table::read_parquet(path, columns),
        _ => table::read_arrow_ipc(path, columns),
    }
}

#[cfg(not(feature = "parquet"))]
fn read_table(path: &Path, _format: DataFormat, _columns: &TableColumns) -> Result<Dataset> {
    Err(Error::unsupported(
        "reading Parquet and Arrow files",
        format!(
            "{} is a table file and margin-io was built without its `parquet` feature: enable it",
            path.display()
        ),
    ))
}

/// Parquet's or Arrow IPC's format from the file's first bytes (`PAR1`, `ARROW1`).
fn magic(path: &Path) -> Result<Option<DataFormat>> {
    let mut head = [0u8; 6];
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(if head[..filled].starts_with(b"PAR1") {
        Some(DataFormat::Parquet)
    } else if head[..filled].starts_with(b"ARROW1") {
        Some(DataFormat::ArrowIpc)
    } else {
        None
    })
}

/// Picks the format: the given one, or by extension, or by the first non-comment line
/// (`index:value` tokens mean LIBSVM; commas mean CSV).
pub fn resolve_format(path: &Path, format: DataFormat) -> Result<DataFormat> {
    if format != DataFormat::Auto {
        return Ok(format);
    }
    if let Some(table) = magic(path)? {
        return Ok(table);
    }
    if has_extension(path, "csv") || has_extension(path, "tsv") {
        return Ok(DataFormat::Csv);
    }
    let mut reader = open_text(path)?;
    let mut line = Vec::new();
    let mut line_no = 0;
    loop {
        line_no += 1;
        if !read_line(&mut reader, &mut line, line_no).map_err(|e| e.at_path(path))? {
            return Ok(DataFormat::Libsvm);
        }
        let text = line.split(|&b| b == b'#').next().unwrap_or_default();
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        return Ok(if text.contains(&b':') || !text.contains(&b',') {
            DataFormat::Libsvm
        } else {
            DataFormat::Csv
        });
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let name = name.trim_end_matches(".gz").trim_end_matches(".bz2");
    name.ends_with(&format!(".{ext}"))
}
