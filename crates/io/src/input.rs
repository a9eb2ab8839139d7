//! Opening a data input once: regular files, pipes, FIFOs and process substitutions
//! (`<(zcat data.gz)`, which the shell passes as `/dev/fd/N`).
//!
//! A pipe can be read only once: bytes read to decide its format are gone unless kept. So
//! margin never opens an input twice. [`DataInput`] opens the path once, keeps every byte it
//! reads to decide the format (the magic numbers of Parquet, Arrow IPC, gzip and bzip2, and for
//! text the lines up to the first data line) and hands them, followed by the rest of the
//! stream, to the reader. Text streams; a Parquet or Arrow IPC file needs random access, so one
//! that is not a regular file is read into memory first, its buffer grown through
//! [`margin_core::memory`], so running out is an [`Error::OutOfMemory`] naming the way out.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use margin_core::{Dataset, Error, Result};

use crate::columns::SkippedColumn;
use crate::{
    CsvOptions, DataFormat, Decompressed, LabelColumn, LibsvmOptions, TableColumns, has_extension,
    read_csv_from, read_libsvm_from, read_line,
};

/// How much of a stream is read at a time while its head is kept.
const CHUNK: usize = 1 << 16;

/// What a table that is not a regular file costs: the whole file in memory.
#[cfg(feature = "parquet")]
const TABLE_IN_MEMORY: &str = "a Parquet or Arrow file needs random access, so one read from a pipe is held in memory whole: save it to a file and give its path (a regular file is read in place)";

/// A data input opened once (a file, a pipe, a FIFO, `/dev/stdin`): its format is decided
/// from the bytes it starts with, and the reader then reads those same bytes again, from
/// memory, followed by the rest of the stream.
///
/// ```
/// use margin_io::{DataFormat, DataInput, TableColumns};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("data");
/// std::fs::write(&path, "+1 1:0.5\n-1 1:-0.5\n")?;
/// let mut input = DataInput::open(&path)?;
/// assert_eq!(input.format(DataFormat::Auto)?, DataFormat::Libsvm);
/// let read = input.read(DataFormat::Auto, &TableColumns::default())?;
/// assert_eq!(read.data.n_samples(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DataInput {
    path: PathBuf,
    file: File,
    /// Whether `file` is a regular file: seekable, with a known length.
    regular: bool,
    /// Every byte read from `file` so far, from its start: replayed before the rest.
    head: Vec<u8>,
    /// Whether `file` has reached its end.
    ended: bool,
    /// The format found by [`DataInput::format`] for [`DataFormat::Auto`].
    detected: Option<DataFormat>,
}

/// A dataset read by [`DataInput::read`], with what the reader found on the way.
#[derive(Debug)]
pub struct DataRead {
    /// The dataset.
    pub data: Dataset,
    /// The format it was read in.
    pub format: DataFormat,
    /// The columns of a table that were not read as features because they hold no numbers
    /// (text, dates, structs…), when the features were not named; empty otherwise.
    pub skipped: Vec<SkippedColumn>,
}

/// Compression recognised from a stream's first bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Gzip,
    Bzip2,
}

impl DataInput {
    /// Opens `path` for reading; nothing is read yet.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        Ok(Self {
            path: path.to_path_buf(),
            file,
            regular,
            head: Vec::new(),
            ended: false,
            detected: None,
        })
    }

    /// The path the input was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the input is a regular file (which can be opened again and read in place), not
    /// a pipe, a FIFO or a device.
    pub fn is_regular_file(&self) -> bool {
        self.regular
    }

    /// The first `n` bytes of the input as stored (fewer if it is shorter), read now if they
    /// were not yet, and kept for the reader.
    pub fn head(&mut self, n: usize) -> Result<&[u8]> {
        while self.head.len() < n && !self.ended {
            self.fill(n - self.head.len())
                .map_err(|e| self.own_error(e))?;
        }
        Ok(&self.head[..n.min(self.head.len())])
    }

    /// Reads up to `want` more bytes (at least one unless the input has ended) into the head.
    fn fill(&mut self, want: usize) -> std::result::Result<usize, Fill> {
        let mut chunk = vec![0u8; want.clamp(1, CHUNK)];
        loop {
            match self.file.read(&mut chunk) {
                Ok(0) => {
                    self.ended = true;
                    return Ok(0);
                }
                Ok(k) => {
                    crate::lines::append(&mut self.head, &chunk[..k], "the start of the input")
                        .map_err(Fill::Margin)?;
                    return Ok(k);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Fill::Io(e)),
            }
        }
    }

    fn own_error(&self, e: Fill) -> Error {
        match e {
            Fill::Io(e) => Error::io(&self.path, e),
            Fill::Margin(e) => e,
        }
    }

    /// The format the input will be read in: `requested` itself unless it is
    /// [`DataFormat::Auto`]; then Parquet's or Arrow's magic number, else the extension (`.csv`,
    /// `.tsv`), else the first data line (`index:value` tokens, or no comma, mean LIBSVM).
    /// What is read to decide is kept for the reader.
    pub fn format(&mut self, requested: DataFormat) -> Result<DataFormat> {
        if requested != DataFormat::Auto {
            return Ok(requested);
        }
        if let Some(found) = self.detected {
            return Ok(found);
        }
        let found = if let Some(table) = table_magic(self.head(6)?) {
            table
        } else if has_extension(&self.path, "csv") || has_extension(&self.path, "tsv") {
            DataFormat::Csv
        } else {
            self.sniff_text()?
        };
        self.detected = Some(found);
        Ok(found)
    }

    fn compression(&mut self) -> Result<Compression> {
        let head = self.head(3)?;
        Ok(if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::None
        })
    }

    /// LIBSVM or CSV from the first line that is neither blank nor a comment, read through a
    /// recorder: every raw byte the decompressor takes stays in the head.
    fn sniff_text(&mut self) -> Result<DataFormat> {
        let compression = self.compression()?;
        let mut recorder = Recorder {
            input: self,
            at: 0,
            failure: None,
        };
        let found = first_line_format(&mut *text_reader(compression, &mut recorder));
        match (found, recorder.failure.take()) {
            (_, Some(e)) => Err(self.own_error(e)),
            (Err(e), None) => Err(e.at_path(&self.path)),
            (Ok(format), None) => Ok(format),
        }
    }

    /// The whole input as text: the head, then the rest of the stream, decompressed.
    fn into_text(mut self) -> Result<(PathBuf, Box<dyn BufRead>)> {
        let compression = self.compression()?;
        let raw = std::io::Cursor::new(self.head).chain(self.file);
        Ok((self.path, text_reader(compression, raw)))
    }

    /// The whole input as text, decompressed (only the compression is looked at).
    pub(crate) fn into_text_reader(self) -> Result<Box<dyn BufRead>> {
        Ok(self.into_text()?.1)
    }

    /// Reads the input as `requested` says (or as [`format`](Self::format) finds), its columns
    /// named by `columns` (LIBSVM files have no names and refuse any choice but the default).
    pub fn read(mut self, requested: DataFormat, columns: &TableColumns) -> Result<DataRead> {
        let format = self.format(requested)?;
        let (data, skipped) = match format {
            DataFormat::Csv => {
                let mut opts = CsvOptions {
                    label: columns.label.clone(),
                    features: columns.features.clone(),
                    ..CsvOptions::default()
                };
                if has_extension(&self.path, "tsv") {
                    opts.delimiter = b'\t';
                }
                (self.read_csv(&opts)?, Vec::new())
            }
            DataFormat::Parquet | DataFormat::ArrowIpc => self.read_table(format, columns)?,
            DataFormat::Libsvm | DataFormat::Auto => {
                if columns.label != LabelColumn::Last || columns.features.is_some() {
                    return Err(Error::unsupported(
                        "naming the label or feature columns of a LIBSVM file",
                        format!(
                            "{}'s label is each line's first token and its features are numbered, not named: leave the columns unnamed",
                            self.path.display()
                        ),
                    ));
                }
                (self.read_libsvm(&LibsvmOptions::default())?, Vec::new())
            }
        };
        Ok(DataRead {
            data,
            format,
            skipped,
        })
    }

    /// Reads the input as LIBSVM text (plain, gzip or bzip2) with `opts`.
    pub fn read_libsvm(self, opts: &LibsvmOptions) -> Result<Dataset> {
        let (path, text) = self.into_text()?;
        read_libsvm_from(text, opts).map_err(|e| e.at_path(&path))
    }

    /// Reads the input as CSV text (plain, gzip or bzip2) with `opts`.
    pub fn read_csv(self, opts: &CsvOptions) -> Result<Dataset> {
        let (path, text) = self.into_text()?;
        read_csv_from(text, opts).map_err(|e| e.at_path(&path))
    }

    /// The bytes of the margin model file this input holds, read as
    /// [`read_model_file`](crate::read_model_file) reads a path: the magic bytes first, then
    /// only as much as the header claims, so an endless pipe is refused after its first bytes.
    pub fn into_model_file(self) -> Result<Vec<u8>> {
        let size = if self.regular {
            Some(
                self.file
                    .metadata()
                    .map_err(|e| Error::io(&self.path, e))?
                    .len(),
            )
        } else {
            None
        };
        let rest = std::io::Cursor::new(self.head).chain(self.file);
        crate::model_file::read_model_from(rest, size, &self.path)
    }

    /// Every byte of the input as stored (not decompressed), held in memory: for LIBSVM's
    /// text model files.
    pub fn into_bytes(mut self) -> Result<Vec<u8>> {
        while !self.ended {
            self.fill(CHUNK).map_err(|e| self.own_error(e))?;
        }
        Ok(self.head)
    }

    #[cfg(feature = "parquet")]
    fn read_table(
        self,
        format: DataFormat,
        columns: &TableColumns,
    ) -> Result<(Dataset, Vec<SkippedColumn>)> {
        let path = self.path.clone();
        let source = self.into_table_source()?;
        crate::table::read_source(&path, source, format, columns)
    }

    #[cfg(not(feature = "parquet"))]
    fn read_table(
        self,
        _format: DataFormat,
        _columns: &TableColumns,
    ) -> Result<(Dataset, Vec<SkippedColumn>)> {
        Err(Error::unsupported(
            "reading Parquet and Arrow files",
            format!(
                "{} is a table file and margin-io was built without its `parquet` feature: enable it",
                self.path.display()
            ),
        ))
    }

    /// The input as a table reader wants it: a regular file as it is (read in place, from its
    /// start), anything else read into memory whole.
    #[cfg(feature = "parquet")]
    fn into_table_source(mut self) -> Result<crate::table::Source> {
        if self.regular {
            let len = self
                .file
                .metadata()
                .map_err(|e| Error::io(&self.path, e))?
                .len();
            return Ok(crate::table::Source::File(self.file, len));
        }
        let mut chunk = vec![0u8; CHUNK];
        loop {
            let k = match self.file.read(&mut chunk) {
                Ok(0) => break,
                Ok(k) => k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(&self.path, e)),
            };
            if self.head.capacity() - self.head.len() < k {
                // Doubling, as a growing buffer does, but asked for first.
                let more = self.head.len().max(k);
                margin_core::memory::reserve(
                    &mut self.head,
                    more,
                    "a table read from a pipe",
                    TABLE_IN_MEMORY,
                )?;
            }
            self.head.extend_from_slice(&chunk[..k]);
        }
        Ok(crate::table::Source::Memory(self.head.into()))
    }
}

/// Why the head could not grow: the stream's error, or margin's (out of memory).
enum Fill {
    Io(std::io::Error),
    Margin(Error),
}

/// Reads the input through its head: bytes already kept are handed out again, new ones are
/// read from the file and kept.
struct Recorder<'a> {
    input: &'a mut DataInput,
    at: usize,
    /// The first failure, kept as it was (an I/O error loses its type on the way out).
    failure: Option<Fill>,
}

impl Read for Recorder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.input.head.len() {
            if self.input.ended || buf.is_empty() {
                return Ok(0);
            }
            match self.input.fill(buf.len()) {
                Ok(0) => return Ok(0),
                Ok(_) => {}
                Err(e) => {
                    let copy = match &e {
                        Fill::Io(io) => std::io::Error::new(io.kind(), io.to_string()),
                        Fill::Margin(m) => std::io::Error::other(m.to_string()),
                    };
                    self.failure.get_or_insert(e);
                    return Err(copy);
                }
            }
        }
        let kept = &self.input.head[self.at..];
        let k = kept.len().min(buf.len());
        buf[..k].copy_from_slice(&kept[..k]);
        self.at += k;
        Ok(k)
    }
}

/// A buffered text reader over `raw`, decompressing it as `compression` says.
fn text_reader<'a, R: Read + 'a>(compression: Compression, raw: R) -> Box<dyn BufRead + 'a> {
    match compression {
        Compression::Gzip => Box::new(BufReader::with_capacity(
            CHUNK,
            Decompressed {
                inner: flate2::read::MultiGzDecoder::new(raw),
                format: "gzip",
            },
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            CHUNK,
            Decompressed {
                inner: bzip2::read::MultiBzDecoder::new(raw),
                format: "bzip2",
            },
        )),
        Compression::None => Box::new(BufReader::with_capacity(CHUNK, raw)),
    }
}

/// Parquet's or Arrow IPC's format from a file's first bytes (`PAR1`, `ARROW1`).
fn table_magic(head: &[u8]) -> Option<DataFormat> {
    if head.starts_with(b"PAR1") {
        Some(DataFormat::Parquet)
    } else if head.starts_with(b"ARROW1") {
        Some(DataFormat::ArrowIpc)
    } else {
        None
    }
}

/// LIBSVM or CSV from the first line that is neither blank nor a comment: `index:value`
/// tokens, or no comma at all, mean LIBSVM; an empty input is LIBSVM (an empty dataset).
fn first_line_format(reader: &mut dyn BufRead) -> Result<DataFormat> {
    let mut line = Vec::new();
    let mut line_no = 0;
    loop {
        line_no += 1;
        if !read_line(reader, &mut line, line_no)? {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out one byte per call, as a slow pipe may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((&b, rest)), Some(slot)) => {
                    *slot = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn the_first_data_line_decides_and_comments_do_not() {
        for (text, want) in [
            ("# a, b\n\n1,2,3\n", DataFormat::Csv),
            ("  \n# x\n+1 1:0.5\n", DataFormat::Libsvm),
            ("1 2 3\n", DataFormat::Libsvm),
            ("", DataFormat::Libsvm),
        ] {
            let mut reader = BufReader::new(Trickle(text.as_bytes()));
            assert_eq!(first_line_format(&mut reader).unwrap(), want, "{text:?}");
        }
    }

    #[test]
    fn table_magic_numbers() {
        assert_eq!(table_magic(b"PAR1xx"), Some(DataFormat::Parquet));
        assert_eq!(table_magic(b"ARROW1"), Some(DataFormat::ArrowIpc));
        assert_eq!(table_magic(b"ARROW"), None);
    }
}
