//! The LIBSVM / svmlight text format: one sample per line, `label index:value index:value ...`.

use std::io::{BufRead, Write};
use std::path::Path;

use margin_core::format::format_shortest;
use margin_core::{CsrMatrix, Dataset, Error, Label, Matrix, Records, Result, Targets, memory};

/// Whether feature indices in the file start at 1 (LIBSVM) or 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexBase {
    /// LIBSVM's convention: the first feature is `1:`; an index `0` is an error.
    #[default]
    One,
    /// The first feature is `0:`.
    Zero,
    /// As scikit-learn's loader: zero-based if any index is 0, else one-based.
    Auto,
}

/// How to read a LIBSVM file.
#[derive(Clone, Debug, Default)]
pub struct LibsvmOptions {
    /// Number of features; `None` takes the highest index in the file. Give the training file's
    /// count when reading a test file that may lack the highest index.
    pub n_features: Option<usize>,
    /// Index convention.
    pub index_base: IndexBase,
}

/// Reads a LIBSVM file (plain, `.gz` or `.bz2`). Targets are the labels as numbers
/// ([`Targets::Values`]); classifiers map them to classes.
pub fn read_libsvm(path: &Path, opts: &LibsvmOptions) -> Result<Dataset> {
    read_libsvm_from(crate::open_text(path)?, opts).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    })
}

/// Reads LIBSVM text from any buffered reader.
///
/// Lines are limited to [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES) and every buffer grows
/// through [`memory`], so endless or oversized input is an error, never an abort.
pub fn read_libsvm_from<R: BufRead>(mut reader: R, opts: &LibsvmOptions) -> Result<Dataset> {
    let mut rows = Rows::default();
    memory::grow(&mut rows.indptr, "the array of row offsets")?;
    rows.indptr.push(0);
    let mut line = Vec::new();
    let mut line_no = 0;
    while crate::read_line(&mut reader, &mut line, line_no + 1)? {
        line_no += 1;
        // A UTF-8 byte-order mark (as Windows editors write) is not part of the first label.
        let text = match line_no {
            1 => line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line),
            _ => &line[..],
        };
        rows.push_line(text, line_no)
            .map_err(|e| crate::explain_binary(e, text))?;
    }
    rows.finish(opts)
}

/// The CSR arrays and labels read so far.
#[derive(Default)]
struct Rows {
    labels: Vec<f64>,
    indptr: Vec<usize>,
    // Indices as written (at most u32::MAX); shifted to zero-based once the base is known.
    indices: Vec<u32>,
    values: Vec<f64>,
    first_zero: Option<(usize, usize)>,
    // The largest index and where it is: whether it fits depends on the index base.
    largest: Option<(u32, usize, usize)>,
}

impl Rows {
    /// Parses one line (comments and blank lines add nothing).
    fn push_line(&mut self, text: &[u8], line_no: usize) -> Result<()> {
        let content = match text.iter().position(|&b| b == b'#') {
            Some(p) => &text[..p],
            None => text,
        };
        let mut tokens = Tokens {
            bytes: content,
            pos: 0,
        };
        let Some((col, label_tok)) = tokens.next() else {
            return Ok(());
        };
        if label_tok.contains(&b':') {
            return Err(Error::parse(
                line_no,
                col,
                format!(
                    "expected a label before the features, found `{}`",
                    show(label_tok)
                ),
            ));
        }
        if label_tok.contains(&b',') {
            let message = if content.contains(&b':') {
                "multi-label lines (`1,3`) are not supported: give one label per line"
            } else {
                LOOKS_LIKE_CSV
            };
            return Err(Error::parse(line_no, col, message));
        }
        let label = parse_finite(label_tok, line_no, col, "label")?;
        memory::grow(&mut self.labels, "the array of labels")?;
        self.labels.push(label);
        let mut prev: Option<u32> = None;
        for (col, tok) in tokens {
            let Some(colon) = tok.iter().position(|&b| b == b':') else {
                let hint = if content.contains(&b':') {
                    ""
                } else {
                    "; this line has no `index:value` tokens at all: if the file is delimited text (CSV, TSV), read it as CSV (`--format csv`, or a .csv/.tsv name)"
                };
                return Err(Error::parse(
                    line_no,
                    col,
                    format!("expected `index:value`, found `{}`{hint}", show(tok)),
                ));
            };
            let (idx_tok, val_tok) = (&tok[..colon], &tok[colon + 1..]);
            let idx = parse_index(idx_tok, line_no, col)?;
            if let Some(p) = prev
                && idx <= p
            {
                return Err(Error::parse(
                    line_no,
                    col,
                    format!("feature indices must increase along a line: {idx} after {p}"),
                ));
            }
            prev = Some(idx);
            if idx == 0 && self.first_zero.is_none() {
                self.first_zero = Some((line_no, col));
            }
            if self.largest.is_none_or(|(m, ..)| idx > m) {
                self.largest = Some((idx, line_no, col));
            }
            let value = parse_finite(val_tok, line_no, col + colon + 1, "feature value")?;
            memory::grow(&mut self.values, "the array of stored values")?;
            memory::grow(&mut self.indices, "the array of feature indices")?;
            self.values.push(value);
            self.indices.push(idx);
        }
        memory::grow(&mut self.indptr, "the array of row offsets")?;
        self.indptr.push(self.values.len());
        Ok(())
    }

    /// Applies the index base and the requested feature count.
    fn finish(mut self, opts: &LibsvmOptions) -> Result<Dataset> {
        let shift = match (opts.index_base, self.first_zero) {
            (IndexBase::One, Some((line, col))) => {
                return Err(Error::parse(
                    line,
                    col,
                    "feature index 0 in a one-based (LIBSVM) file: indices start at 1 (read it as zero-based if the file is)",
                ));
            }
            (IndexBase::One, None) | (IndexBase::Auto, None) => 1,
            (IndexBase::Zero, _) | (IndexBase::Auto, Some(_)) => 0,
        };
        // Column `u32::MAX` would need 2^32 columns, one more than a CSR matrix holds.
        if let Some((idx, line, col)) = self.largest
            && idx - shift == u32::MAX
        {
            return Err(Error::parse(
                line,
                col,
                format!(
                    "feature index {idx} is above the largest legal index of a zero-based file, {}",
                    u32::MAX - 1
                ),
            ));
        }
        if shift == 1 {
            // No index is 0 here (a one-based file refuses it; `Auto` found none).
            self.indices.iter_mut().for_each(|i| *i -= 1);
        }
        let used = self.largest.map_or(0, |(m, ..)| (m - shift) as usize + 1);
        let ncols = match opts.n_features {
            Some(n) if n < used => {
                return Err(Error::shape(
                    "n_features (the file uses a higher feature index)",
                    used,
                    n,
                ));
            }
            Some(n) => n,
            None => used,
        };
        let records = CsrMatrix::new(self.indptr, self.indices, self.values, ncols)?;
        Dataset::new(records, Targets::Values(self.labels))
    }
}

/// The message for a line that looks like CSV rather than LIBSVM.
const LOOKS_LIKE_CSV: &str = "this line looks like CSV (comma-separated, no `index:value` tokens), not LIBSVM: read the file as CSV (`--format csv`, or a .csv name; svm-train and svm-predict read LIBSVM only)";

/// A feature index: decimal digits, at most `u32::MAX` (the largest one-based index).
fn parse_index(tok: &[u8], line: usize, col: usize) -> Result<u32> {
    if tok == b"qid" {
        return Err(Error::parse(
            line,
            col,
            "`qid:` (ranking query ids) is not supported: remove the qid tokens",
        ));
    }
    if tok.is_empty() || !tok.iter().all(u8::is_ascii_digit) {
        return Err(Error::parse(
            line,
            col,
            format!(
                "expected a non-negative integer feature index, found `{}`",
                show(tok)
            ),
        ));
    }
    tok.iter()
        .try_fold(0u32, |a, &d| {
            a.checked_mul(10)?.checked_add(u32::from(d - b'0'))
        })
        .ok_or_else(|| {
            Error::parse(
                line,
                col,
                format!(
                    "feature index {} is above the largest legal index, {} (one-based)",
                    show(tok),
                    u32::MAX
                ),
            )
        })
}

/// Writes a dataset as LIBSVM text to a file (one-based indices; zeros of dense rows omitted).
pub fn write_libsvm(path: &Path, data: &Dataset) -> Result<()> {
    let mut w = crate::AtomicFile::create(path)?;
    write_libsvm_to(&mut w, data).map_err(|e| e.at_path(path))?;
    w.commit()
}

/// Writes LIBSVM text to any writer. Numbers are written in their shortest exact form, so reading
/// the output back gives the same dataset.
pub fn write_libsvm_to<W: Write>(w: &mut W, data: &Dataset) -> Result<()> {
    data.check_consistent()?;
    let io = |e| Error::io("<output>", e);
    let labels: Vec<String> = match &data.targets {
        Targets::Values(v) => v.iter().map(|&x| format_shortest(x)).collect(),
        Targets::Classes(c) => c
            .indices()
            .iter()
            .map(|&k| match &c.labels()[k] {
                Label::Number(x) => Ok(format_shortest(*x)),
                Label::Text(s) => Err(Error::invalid_parameter(
                    "label",
                    format!("{s:?}"),
                    "numeric labels (LIBSVM files hold numbers only)",
                )),
            })
            .collect::<Result<_>>()?,
    };
    let dense = matches!(data.records, Matrix::Dense(_));
    for (i, label) in labels.iter().enumerate() {
        w.write_all(label.as_bytes()).map_err(io)?;
        let mut result = Ok(());
        data.records.row(i).for_each_stored(|j, v| {
            if result.is_ok() && !(dense && v == 0.0) {
                result = write!(w, " {}:{}", j + 1, format_shortest(v));
            }
        });
        result.map_err(io)?;
        w.write_all(b"\n").map_err(io)?;
    }
    Ok(())
}

/// Whitespace-separated tokens of a line with their one-based byte columns.
struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        let b = self.bytes;
        while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if self.pos >= b.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < b.len() && !b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        Some((start + 1, &b[start..self.pos]))
    }
}

fn parse_finite(tok: &[u8], line: usize, col: usize, what: &str) -> Result<f64> {
    let parsed = std::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f64>().ok());
    match parsed {
        Some(x) if x.is_finite() => Ok(x),
        Some(_) => Err(Error::parse(
            line,
            col,
            format!(
                "{what} `{}` is not finite: NaN and infinities are refused",
                show(tok)
            ),
        )),
        None => Err(Error::parse(
            line,
            col,
            format!("expected a number for the {what}, found `{}`", show(tok)),
        )),
    }
}

fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_common::parse_error;

    fn read(text: &str) -> Result<Dataset> {
        read_libsvm_from(text.as_bytes(), &LibsvmOptions::default())
    }

    fn parse_err(text: &str) -> (usize, usize, String) {
        parse_error(read(text), &format!("expected a parse error for {text:?}"))
    }

    #[test]
    fn reads_labels_indices_comments_and_blank_lines() {
        let d = read("# header comment\n+1 1:0.5 3:-2\n\n-1\n2 2:1e-3 # trailing\r\n").unwrap();
        assert_eq!(d.n_samples(), 3);
        assert_eq!(d.n_features(), 3);
        assert_eq!(d.targets, Targets::Values(vec![1.0, -1.0, 2.0]));
        let dense = d.records.to_dense().unwrap();
        assert_eq!(dense.row(0), &[0.5, 0.0, -2.0]);
        assert_eq!(dense.row(1), &[0.0, 0.0, 0.0]);
        assert_eq!(dense.row(2), &[0.0, 1e-3, 0.0]);
    }

    #[test]
    fn explicit_feature_count_widens_and_refuses_narrowing() {
        let opts = LibsvmOptions {
            n_features: Some(10),
            ..Default::default()
        };
        let d = read_libsvm_from(&b"1 2:1\n"[..], &opts).unwrap();
        assert_eq!(d.n_features(), 10);
        let opts = LibsvmOptions {
            n_features: Some(1),
            ..Default::default()
        };
        assert!(matches!(
            read_libsvm_from(&b"1 2:1\n"[..], &opts),
            Err(Error::ShapeMismatch { .. })
        ));
    }

    #[test]
    fn zero_based_files_need_a_flag_or_auto() {
        assert_eq!(parse_err("1 0:1 2:3\n").0, 1);
        for base in [IndexBase::Zero, IndexBase::Auto] {
            let opts = LibsvmOptions {
                index_base: base,
                ..Default::default()
            };
            let d = read_libsvm_from(&b"1 0:1 2:3\n"[..], &opts).unwrap();
            assert_eq!(d.records.to_dense().unwrap().row(0), &[1.0, 0.0, 3.0]);
        }
        let opts = LibsvmOptions {
            index_base: IndexBase::Auto,
            ..Default::default()
        };
        let d = read_libsvm_from(&b"1 1:1 3:3\n"[..], &opts).unwrap();
        assert_eq!(d.records.to_dense().unwrap().row(0), &[1.0, 0.0, 3.0]);
    }

    #[test]
    fn malformed_lines_name_line_and_column() {
        assert_eq!(
            parse_err("1 1:1\n1 3:1 2:1\n"),
            (
                2,
                7,
                "feature indices must increase along a line: 2 after 3".into()
            )
        );
        assert_eq!(parse_err("1 2:1 2:5\n").0, 1);
        assert_eq!(parse_err("1 1:abc\n").1, 5);
        assert_eq!(parse_err("abc 1:1\n").1, 1);
        assert!(parse_err("1 1:nan\n").2.contains("not finite"));
        assert!(parse_err("1 1:inf\n").2.contains("not finite"));
        assert!(parse_err("nan 1:1\n").2.contains("not finite"));
        assert!(parse_err("1 1,2 3,4\n").2.contains("index:value"));
        assert!(parse_err("1;1:2\n").2.contains("label"));
        assert!(parse_err("1 1:2;3:4\n").2.contains("number"));
        assert!(parse_err("1 x:2\n").2.contains("integer"));
        assert!(parse_err("1 -1:2\n").2.contains("integer"));
        assert!(parse_err("1 qid:3 1:2\n").2.contains("qid"));
        assert!(parse_err("1 1:\n").2.contains("number"));
        assert!(parse_err("1:2 3:4\n").2.contains("label"));
        assert!(parse_err("1,2 3:4\n").2.contains("multi-label"));
    }

    #[test]
    fn an_index_above_the_largest_legal_one_says_so_and_gives_it() {
        for tok in ["1000000000000", "4294967296", "99999999999999999999999"] {
            let (line, col, msg) = parse_err(&format!("1 1:1\n-1 {tok}:1\n"));
            assert_eq!((line, col), (2, 4), "{msg}");
            assert!(
                msg.contains(tok) && msg.contains("above the largest legal index, 4294967295"),
                "{msg}"
            );
        }
        let d = read("1 4294967295:1\n").unwrap();
        assert_eq!(d.n_features(), u32::MAX as usize);
    }

    #[test]
    fn csv_read_as_libsvm_is_named_csv_not_multi_label() {
        for text in ["a,b,y\n1,2,0\n", "1,2,0\n3,4,1\n", "1.5,2,0\n"] {
            let (line, _, msg) = parse_err(text);
            assert_eq!(line, 1);
            assert!(
                msg.contains("looks like CSV") && msg.contains("--format csv"),
                "{msg}"
            );
            assert!(!msg.contains("multi-label"), "{msg}");
        }
        let (_, col, msg) = parse_err("1 2 3\n");
        assert_eq!(col, 3);
        assert!(msg.contains("no `index:value` tokens"), "{msg}");
        // A real multi-label line keeps its message.
        assert!(parse_err("1,3 1:2\n").2.contains("multi-label"));
    }

    #[test]
    fn binary_input_is_named_as_such() {
        let mut model = b"MARGINMF\x02\0\0\0\x03\0\0\0svc".to_vec();
        model.extend_from_slice(b" 1:2\n");
        match read_libsvm_from(&model[..], &LibsvmOptions::default()) {
            Err(Error::Parse {
                line: 1, message, ..
            }) => {
                assert!(message.contains("margin model file"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        match read_libsvm_from(
            &b"1 1:1\n\x89PNG\r\n\x1a\n\0\0"[..],
            &LibsvmOptions::default(),
        ) {
            Err(Error::Parse {
                line: 2, message, ..
            }) => {
                assert!(message.contains("binary"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn empty_input_is_an_empty_dataset() {
        let d = read("").unwrap();
        assert_eq!(d.n_samples(), 0);
        assert!(matches!(
            margin_core::validate::check_non_empty(&d.records),
            Err(Error::EmptyDataset(_))
        ));
    }

    #[test]
    fn write_then_read_is_identity() {
        let d = read("1 1:0.1 4:-3e-300\n-1\n0.5 2:1.7976931348623157e308\n").unwrap();
        let mut out = Vec::new();
        write_libsvm_to(&mut out, &d).unwrap();
        let back = read_libsvm_from(
            &out[..],
            &LibsvmOptions {
                n_features: Some(d.n_features()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn largest_index_fits_one_based_but_not_zero_based() {
        // Found by tests/io_roundtrip.rs (readers_never_panic_on_almost_valid_lines): a
        // zero-based 4294967295 needs 2^32 columns and was refused as an invalid `ncols`
        // parameter, with no line or column.
        let text = "3.4942266\t4294967295:1570919614e44\n";
        let d = read(text).unwrap();
        assert_eq!(d.n_features(), u32::MAX as usize);
        for base in [IndexBase::Zero, IndexBase::Auto] {
            let opts = LibsvmOptions {
                index_base: base,
                ..Default::default()
            };
            let text = if base == IndexBase::Auto {
                "1 0:1\n3.4942266\t4294967295:1\n"
            } else {
                text
            };
            match read_libsvm_from(text.as_bytes(), &opts) {
                Err(Error::Parse {
                    line,
                    column,
                    message,
                }) => {
                    assert_eq!(column, 11, "{message}");
                    assert_eq!(line, if base == IndexBase::Auto { 2 } else { 1 });
                    assert!(
                        message.contains("above the largest legal index"),
                        "{message}"
                    );
                }
                other => panic!("{base:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let d = read("\u{feff}+1 1:0.5\n-1 2:1\n").unwrap();
        assert_eq!(d.targets, Targets::Values(vec![1.0, -1.0]));
        assert_eq!(parse_err("1 1:1\n\u{feff}1 1:1\n").0, 2);
    }
}
