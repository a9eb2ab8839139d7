//! CSV input and output: numeric feature columns plus one label column.

use std::io::{BufReader, Read, Write};
use std::path::Path;

use crate::csv_records::{RecordReader, Table};
use margin_core::format::format_shortest;
use margin_core::{Classes, Dataset, DenseMatrix, Error, Records, Result, Targets, memory};

/// Which column holds the targets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LabelColumn {
    /// The last column (the default).
    #[default]
    Last,
    /// A zero-based column index.
    Index(usize),
    /// A column named in the header.
    Name(String),
    /// No label column: every column is a feature (targets are all 0).
    None,
}

/// What to do with feature columns that hold text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CategoricalColumns {
    /// Refuse them with a parse error naming the first text value (the default).
    #[default]
    Refuse,
    /// One-hot encode them: a 0/1 column per distinct value, named `column=value`, in sorted
    /// value order.
    OneHot,
}

/// How to read a CSV file ([`write_csv`] uses only the delimiter).
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// `Some(true)`: the first row names the columns; `None`: a header is assumed when no field
    /// of the first row is a number.
    pub has_header: Option<bool>,
    /// The target column.
    pub label: LabelColumn,
    /// Field separator (`b','`; `b'\t'` for TSV).
    pub delimiter: u8,
    /// Text-valued feature columns.
    pub categorical: CategoricalColumns,
    /// The feature columns by their header names, in this order; `None`: every column but the
    /// label. Naming them needs a header.
    pub features: Option<Vec<String>>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            has_header: None,
            label: LabelColumn::Last,
            delimiter: b',',
            categorical: CategoricalColumns::Refuse,
            features: None,
        }
    }
}

/// Reads a CSV file (plain, `.gz` or `.bz2`).
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    read_csv_from(crate::open_text(path)?, opts).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    })
}

/// Reads CSV text from any reader. Numeric labels become [`Targets::Values`], text labels
/// [`Targets::Classes`]. Feature names come from the header when there is one.
///
/// Fields follow RFC 4180 (double quotes around fields that hold the delimiter, a quote or a
/// line break; `""` inside them for a quote); lines starting with `#` are comments. A quoted
/// field that is never closed is refused with the line where it opened, a record longer than
/// [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES) is refused, and every buffer grows through
/// [`memory`], so endless or oversized input is an error, never an abort.
pub fn read_csv_from<R: Read>(reader: R, opts: &CsvOptions) -> Result<Dataset> {
    let mut records = RecordReader::new(BufReader::new(reader), opts.delimiter);
    let mut table = Table::default();
    let mut names: Option<Vec<String>> = None;
    let mut first = true;
    while let Some(line) = records.next_record()? {
        let len = records.len();
        if len == 1 && records.field(0).is_empty() {
            continue;
        }
        if first {
            first = false;
            table.width = len;
            let header = match opts.has_header {
                Some(h) => h,
                None => (0..len).all(|k| records.field(k).parse::<f64>().is_err()),
            };
            if header {
                let mut h = memory::vec_with_capacity(len, "the CSV header", TOO_LARGE)?;
                h.extend((0..len).map(|k| records.field(k).to_owned()));
                refuse_duplicate_names(&h, line)?;
                names = Some(h);
                continue;
            }
        }
        if len != table.width {
            return Err(Error::parse(
                line,
                len.min(table.width) + 1,
                format!("expected {} fields, found {len}", table.width),
            ));
        }
        table.push(line, (0..len).map(|k| records.field(k)))?;
    }
    let width = table.width;
    if width == 0 {
        return Dataset::new(DenseMatrix::zeros(0, 0), Targets::Values(Vec::new()));
    }
    let label_col = match &opts.label {
        LabelColumn::None => None,
        LabelColumn::Last => Some(width - 1),
        LabelColumn::Index(i) if *i < width => Some(*i),
        LabelColumn::Index(i) => {
            return Err(Error::invalid_parameter(
                "label column",
                i,
                format!("an index below the {width} columns"),
            ));
        }
        LabelColumn::Name(n) => match names.as_ref().and_then(|h| h.iter().position(|c| c == n)) {
            Some(i) => Some(i),
            None => {
                return Err(Error::invalid_parameter(
                    "label column",
                    n,
                    "a column name from the header (the file has no such column, or no header)",
                ));
            }
        },
    };
    if width == 1 && label_col.is_some() {
        let sep = if opts.delimiter == b'\t' {
            "tab"
        } else {
            "comma"
        };
        let first = names
            .as_ref()
            .map(|h| h[0].as_str())
            .or_else(|| (table.n_rows() > 0).then(|| table.field(0, 0)));
        let advice = if first.is_some_and(looks_like_libsvm) {
            "this looks like LIBSVM (`label index:value ...`), not CSV: read it as LIBSVM (`--format libsvm`)"
        } else {
            "check the delimiter (`;` or tab?)"
        };
        return Err(Error::parse(
            table.lines.first().copied().unwrap_or(1),
            1,
            format!(
                "only one column found with the {sep} separator, so there are no features: {advice}"
            ),
        ));
    }
    let col_name = |j: usize| {
        names
            .as_ref()
            .map_or_else(|| format!("column {}", j + 1), |h| format!("`{}`", h[j]))
    };
    let n = table.n_rows();
    let chosen: Vec<usize> = match &opts.features {
        None => (0..width).filter(|&j| Some(j) != label_col).collect(),
        Some(wanted) => {
            let header = names.as_ref().ok_or_else(|| {
                Error::invalid_parameter(
                    "features",
                    wanted.join(","),
                    "column names from a header; the file has none (name the columns in a first row)",
                )
            })?;
            let mut chosen = Vec::with_capacity(wanted.len());
            for name in wanted {
                let j = header.iter().position(|c| c == name).ok_or_else(|| {
                    Error::column(
                        name,
                        None,
                        format!("no such column; the header has {}", quoted_list(header)),
                    )
                })?;
                if Some(j) == label_col {
                    return Err(Error::column(
                        name,
                        None,
                        "is both the label and a feature: leave it out of the features",
                    ));
                }
                if chosen.contains(&j) {
                    return Err(Error::column(name, None, "is named twice in the features"));
                }
                chosen.push(j);
            }
            chosen
        }
    };

    // Decide, per feature column, numeric or categorical.
    let mut blocks = Vec::new();
    for j in chosen {
        let first_text = (0..n).find(|&i| table.field(i, j).parse::<f64>().is_err());
        match (first_text, opts.categorical) {
            (None, _) => {
                if let Some(i) =
                    (0..n).find(|&i| !table.field(i, j).parse::<f64>().is_ok_and(f64::is_finite))
                {
                    return Err(Error::parse(
                        table.lines[i],
                        j + 1,
                        format!(
                            "{} value `{}` is not finite: NaN and infinities are refused",
                            col_name(j),
                            table.field(i, j)
                        ),
                    ));
                }
                memory::grow(&mut blocks, "the column descriptions")?;
                blocks.push(Block::Numeric(j));
            }
            (Some(i), CategoricalColumns::Refuse) => {
                let text = table.field(i, j);
                let what = if text.is_empty() {
                    "an empty field".to_owned()
                } else {
                    format!("the text `{text}`")
                };
                return Err(Error::parse(
                    table.lines[i],
                    j + 1,
                    format!(
                        "{} holds {what} where a number was expected: remove the column, or ask for one-hot encoding of text columns",
                        col_name(j)
                    ),
                ));
            }
            (Some(_), CategoricalColumns::OneHot) => {
                let mut cats: Vec<&str> =
                    memory::vec_with_capacity(n, "the categories of a text column", TOO_LARGE)?;
                cats.extend((0..n).map(|i| table.field(i, j)));
                cats.sort_unstable();
                cats.dedup();
                memory::grow(&mut blocks, "the column descriptions")?;
                blocks.push(Block::Categorical(
                    j,
                    cats.into_iter().map(str::to_owned).collect(),
                ));
            }
        }
    }
    let n_out = blocks
        .iter()
        .map(Block::width)
        .fold(0usize, usize::saturating_add);
    let mut data = memory::vec_with_capacity(
        n.saturating_mul(n_out),
        "the CSV records (dense, one value per row and column)",
        TOO_LARGE,
    )?;
    for i in 0..n {
        for b in &blocks {
            match b {
                Block::Numeric(j) => {
                    data.push(table.field(i, *j).parse::<f64>().unwrap_or(f64::NAN))
                }
                Block::Categorical(j, cats) => {
                    let field = table.field(i, *j);
                    let hit = cats.partition_point(|c| c.as_str() < field);
                    data.extend((0..cats.len()).map(|k| if k == hit { 1.0 } else { 0.0 }));
                }
            }
        }
    }
    let records = DenseMatrix::from_row_major(data, n, n_out)?;
    let targets = match label_col {
        None => Targets::Values(memory::filled_vec(n, 0.0, "the targets", TOO_LARGE)?),
        Some(l) => {
            let numbers: Option<Vec<f64>> = (0..n)
                .map(|i| table.field(i, l).parse::<f64>().ok())
                .collect();
            match numbers {
                Some(v) => {
                    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
                        return Err(Error::parse(
                            table.lines[k],
                            l + 1,
                            format!("label `{}` is not finite", table.field(k, l)),
                        ));
                    }
                    if let Some(k) = (0..n).find(|&k| !integer_is_exact(table.field(k, l), v[k])) {
                        return Err(Error::parse(
                            table.lines[k],
                            l + 1,
                            format!(
                                "label `{}` has no exact f64 (labels are read as numbers, which hold integers exactly only up to 2^53 = 9007199254740992): it would be read as {:.0}, so distinct labels could merge; write such labels as text (a letter prefix, `id{}`) to keep them as classes",
                                table.field(k, l),
                                v[k],
                                table.field(k, l).trim_start_matches(['+', '-'])
                            ),
                        ));
                    }
                    Targets::Values(v)
                }
                None => {
                    if let Some(i) = (0..n).find(|&i| table.field(i, l).is_empty()) {
                        return Err(Error::parse(table.lines[i], l + 1, "empty label field"));
                    }
                    Targets::Classes(Classes::from_text(
                        &(0..n).map(|i| table.field(i, l)).collect::<Vec<_>>(),
                    ))
                }
            }
        }
    };
    let mut ds = Dataset::new(records, targets)?;
    if let Some(h) = &names {
        let feature_names = blocks
            .iter()
            .flat_map(|b| match b {
                Block::Numeric(j) => vec![h[*j].clone()],
                Block::Categorical(j, cats) => {
                    cats.iter().map(|c| format!("{}={c}", h[*j])).collect()
                }
            })
            .collect();
        ds = ds.with_feature_names(feature_names)?;
    }
    Ok(ds)
}

/// Refuses a header that names two columns alike: columns are chosen by name (`--label`,
/// `--features`, a model's feature names), so a name must say which column it is.
fn refuse_duplicate_names(header: &[String], line: usize) -> Result<()> {
    let mut sorted: Vec<(&str, usize)> =
        memory::vec_with_capacity(header.len(), "the CSV header's names", TOO_LARGE)?;
    sorted.extend(header.iter().enumerate().map(|(k, h)| (h.as_str(), k)));
    sorted.sort_unstable();
    match sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(pair) => Err(Error::parse(
            line,
            pair[1].1 + 1,
            format!(
                "the header names two columns `{}` (fields {} and {}): rename one, since columns are chosen by name",
                pair[0].0,
                pair[0].1 + 1,
                pair[1].1 + 1
            ),
        )),
        None => Ok(()),
    }
}

/// Whether `text`, read as the number `value`, is that number exactly when it is an integer
/// written out (`9007199254740993` reads as 9007199254740992: not exact). Anything else (a
/// decimal fraction, an exponent) is taken as the approximate number it is.
fn integer_is_exact(text: &str, value: f64) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let digits = digits.trim_start_matches('0');
    // Below 10^15 < 2^53 every integer is exact.
    if digits.len() < 16 {
        return true;
    }
    // `{:.0}` writes an f64's exact integer value, every digit.
    format!("{:.0}", value.abs()) == digits
}

/// Column names as "`a`, `b`, `c`", for messages.
pub(crate) fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a one-field CSV row is a LIBSVM line: a label, then `index:value` tokens.
fn looks_like_libsvm(row: &str) -> bool {
    let mut tokens = row.split_whitespace();
    tokens.next().is_some_and(|l| l.parse::<f64>().is_ok())
        && tokens.next().is_some_and(|t| {
            t.split_once(':')
                .is_some_and(|(i, v)| i.parse::<u32>().is_ok() && v.parse::<f64>().is_ok())
        })
}

/// The way out when a CSV file is too large for memory.
const TOO_LARGE: &str = "CSV is read densely (every row and column, text columns one-hot encoded): use fewer rows or columns, drop text columns with many distinct values, or store sparse data as LIBSVM";

/// Writes a dataset as CSV to a file; see [`write_csv_to`].
pub fn write_csv(path: &Path, data: &Dataset, opts: &CsvOptions) -> Result<()> {
    let mut w = crate::AtomicFile::create(path)?;
    write_csv_to(&mut w, data, opts).map_err(|e| e.at_path(path))?;
    w.commit()
}

/// Writes CSV to any writer, with `opts.delimiter` as separator: a header row when the dataset
/// has feature names (the label column is named `label`, so no feature may be), then one row
/// per sample with every feature (dense, in shortest exact form) and the label last. Reading
/// the output back with [`read_csv_from`] gives the same records and targets.
pub fn write_csv_to<W: Write>(w: &mut W, data: &Dataset, opts: &CsvOptions) -> Result<()> {
    data.check_consistent()?;
    // The header names the label column `label`: a feature of that name would make the header
    // name two columns alike, which reading refuses.
    if let Some(names) = &data.feature_names
        && names.iter().any(|n| n == "label")
    {
        return Err(Error::column(
            "label",
            None,
            "a feature has the label column's name: rename the feature",
        ));
    }
    let io = |e: csv::Error| Error::io("<output>", e.into());
    let mut out = csv::WriterBuilder::new()
        .delimiter(opts.delimiter)
        .from_writer(w);
    if let Some(names) = &data.feature_names {
        out.write_record(names.iter().map(String::as_str).chain(["label"]))
            .map_err(io)?;
    }
    let mut row = vec![0.0; data.n_features()];
    let mut fields: Vec<String> = Vec::with_capacity(row.len() + 1);
    for i in 0..data.n_samples() {
        data.records.row(i).to_dense_into(&mut row);
        fields.clear();
        fields.extend(row.iter().map(|&x| format_shortest(x)));
        fields.push(match &data.targets {
            Targets::Values(v) => format_shortest(v[i]),
            Targets::Classes(c) => c.labels()[c.indices()[i]].to_string(),
        });
        out.write_record(&fields).map_err(io)?;
    }
    out.flush().map_err(|e| Error::io("<output>", e))
}

enum Block {
    Numeric(usize),
    Categorical(usize, Vec<String>),
}

impl Block {
    fn width(&self) -> usize {
        match self {
            Block::Numeric(_) => 1,
            Block::Categorical(_, cats) => cats.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_common::parse_error;
    use margin_core::Label;
    use margin_core::Records;

    fn read(text: &str, opts: &CsvOptions) -> Result<Dataset> {
        read_csv_from(text.as_bytes(), opts)
    }

    #[test]
    fn header_is_detected_and_label_defaults_to_last() {
        let d = read("a,b,y\n1,2,0\n3,4.5,1\n", &CsvOptions::default()).unwrap();
        assert_eq!(
            d.records.to_dense().unwrap().as_slice(),
            &[1.0, 2.0, 3.0, 4.5]
        );
        assert_eq!(d.targets, Targets::Values(vec![0.0, 1.0]));
        assert_eq!(d.feature_names, Some(vec!["a".into(), "b".into()]));
        let no_header = read("1,2,0\n3,4,1\n", &CsvOptions::default()).unwrap();
        assert_eq!(no_header.n_samples(), 2);
        assert_eq!(no_header.feature_names, None);
    }

    #[test]
    fn features_are_chosen_by_name_in_the_order_given() {
        let opts = CsvOptions {
            label: LabelColumn::Name("kind".into()),
            features: Some(vec!["c".into(), "a".into()]),
            ..Default::default()
        };
        // The unchosen text column `note` is never read as a feature.
        let d = read("a,note,kind,c\n1,hi,x,10\n2,ho,y,20\n", &opts).unwrap();
        assert_eq!(
            d.records.to_dense().unwrap().as_slice(),
            &[10.0, 1.0, 20.0, 2.0]
        );
        assert_eq!(d.feature_names, Some(vec!["c".into(), "a".into()]));
        for (features, needle) in [
            (
                vec!["zz"],
                "column `zz`: no such column; the header has `a`, `note`, `kind`, `c`",
            ),
            (
                vec!["a", "kind"],
                "column `kind`: is both the label and a feature",
            ),
            (vec!["a", "a"], "column `a`: is named twice"),
        ] {
            let opts = CsvOptions {
                label: LabelColumn::Name("kind".into()),
                features: Some(features.into_iter().map(str::to_owned).collect()),
                ..Default::default()
            };
            let e = read("a,note,kind,c\n1,hi,x,10\n", &opts)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{e}");
        }
        let opts = CsvOptions {
            features: Some(vec!["a".into()]),
            ..Default::default()
        };
        let e = read("1,2,3\n", &opts).unwrap_err().to_string();
        assert!(e.contains("the file has none"), "{e}");
    }

    #[test]
    fn label_by_name_or_index_and_text_labels() {
        let opts = CsvOptions {
            label: LabelColumn::Name("kind".into()),
            ..Default::default()
        };
        let d = read("kind,x\nb,1\na,2\nb,3\n", &opts).unwrap();
        match &d.targets {
            Targets::Classes(c) => {
                assert_eq!(
                    c.labels(),
                    &[Label::Text("a".into()), Label::Text("b".into())]
                );
                assert_eq!(c.indices(), &[1, 0, 1]);
            }
            other => panic!("{other:?}"),
        }
        let opts = CsvOptions {
            label: LabelColumn::Index(0),
            ..Default::default()
        };
        assert_eq!(
            read("5,1\n6,2\n", &opts).unwrap().targets,
            Targets::Values(vec![5.0, 6.0])
        );
    }

    #[test]
    fn categorical_columns_refused_or_one_hot() {
        let text = "color,size,y\nred,1,0\nblue,2,1\nred,3,1\n";
        let (line, column, message) = parse_error(
            read(text, &CsvOptions::default()),
            "a text column was accepted",
        );
        assert_eq!((line, column), (2, 1));
        assert!(
            message.contains("`color`") && message.contains("red"),
            "{message}"
        );
        let opts = CsvOptions {
            categorical: CategoricalColumns::OneHot,
            ..Default::default()
        };
        let d = read(text, &opts).unwrap();
        assert_eq!(
            d.feature_names,
            Some(vec!["color=blue".into(), "color=red".into(), "size".into()])
        );
        assert_eq!(d.records.to_dense().unwrap().row(1), &[1.0, 0.0, 2.0]);
    }

    #[test]
    fn malformed_files_give_line_and_field() {
        let bad = |t: &str| parse_error(read(t, &CsvOptions::default()), &format!("{t:?}"));
        assert_eq!(bad("1,2,0\n3,4\n").0, 2);
        assert_eq!(
            bad("1,2,0\n3,nan,1\n"),
            (
                2,
                2,
                "column 2 value `nan` is not finite: NaN and infinities are refused".into()
            )
        );
        assert_eq!(bad("1,2,0\n3,,1\n").1, 2);
        assert!(bad("1;2;0\n3;4;1\n").2.contains("delimiter"));
        for libsvm in ["+1 1:0.5 3:1\n-1 2:1\n", "1 1:1\n"] {
            let msg = bad(libsvm).2;
            assert!(
                msg.contains("looks like LIBSVM") && msg.contains("--format libsvm"),
                "{msg}"
            );
        }
        assert!(bad("1,2,inf\n").2.contains("not finite"));
    }

    #[test]
    fn invalid_utf8_names_its_field() {
        match read_csv_from(&b"a,b,y\n1,2,0\n3,\xff,1\n"[..], &CsvOptions::default()) {
            Err(Error::Parse { line, column, .. }) => assert_eq!((line, column), (3, 2)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_unterminated_quote_is_refused_where_it_opened() {
        let text = "a,b,y\n1,2,0\n3,\"4,1\n5,6,1\n7,8,0\n";
        let (line, column, message) = parse_error(
            read(text, &CsvOptions::default()),
            "rows were lost silently",
        );
        assert_eq!((line, column), (3, 2), "{message}");
        assert!(message.contains("unterminated quote"), "{message}");
        // Closed quotes, with the delimiter, a doubled quote and a line break inside, are fine.
        let d = read(
            "\"a,1\",\"b\"\"\",\"y\ny\"\n1,2,0\n\"3\",4,1\n",
            &CsvOptions::default(),
        )
        .unwrap();
        assert_eq!(
            d.feature_names,
            Some(vec!["a,1".to_owned(), "b\"".to_owned()])
        );
        assert_eq!(d.records.to_dense().unwrap().row(1), &[3.0, 4.0]);
    }

    #[test]
    fn byte_order_mark_comments_and_line_endings() {
        let d = read(
            "\u{feff}a,b,y\r\n# a comment, with \"a quote\r\n1,2,0\r\n\r\n  \n3,4,1",
            &CsvOptions::default(),
        )
        .unwrap();
        assert_eq!(d.feature_names, Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(d.targets, Targets::Values(vec![0.0, 1.0]));
        // A lone carriage return ends a record, as in the `csv` crate.
        assert_eq!(
            read("1,2,0\r3,4,1\n", &CsvOptions::default())
                .unwrap()
                .n_samples(),
            2
        );
    }

    #[test]
    fn integer_labels_are_exact_or_refused() {
        // 2^53 + 1 has no f64: read as a number it would become 2^53, merging two labels.
        let inexact = "x,y\n1,9007199254740992\n2,9007199254740993\n";
        let (line, column, message) = parse_error(
            read(inexact, &CsvOptions::default()),
            "an inexact label was accepted",
        );
        assert_eq!((line, column), (3, 2), "{message}");
        assert!(
            message.contains("`9007199254740993`")
                && message.contains("9007199254740992")
                && message.contains("as text"),
            "{message}"
        );
        // Integers an f64 holds exactly (however large) and decimals read as they are.
        let d = read(
            "x,y\n1,9007199254740992\n2,-0018446744073709551616\n3,0.1\n4,1e300\n",
            &CsvOptions::default(),
        )
        .unwrap();
        assert_eq!(
            d.targets,
            Targets::Values(vec![
                9007199254740992.0,
                -18446744073709551616.0,
                0.1,
                1e300
            ])
        );
        assert!(!integer_is_exact(&format!("1{}", "0".repeat(300)), 1e300));
        assert!(integer_is_exact("-0", 0.0));
    }

    #[test]
    fn a_header_naming_two_columns_alike_is_refused() {
        let (line, column, message) = parse_error(
            read("a,x,x,y\n1,2,3,0\n", &CsvOptions::default()),
            "a duplicate header was accepted",
        );
        assert_eq!((line, column), (1, 3), "{message}");
        assert!(
            message.contains("`x`") && message.contains("fields 2 and 3"),
            "{message}"
        );
    }

    #[test]
    fn tab_separated_and_empty() {
        let opts = CsvOptions {
            delimiter: b'\t',
            ..Default::default()
        };
        assert_eq!(read("1\t2\t3\n", &opts).unwrap().n_features(), 2);
        assert_eq!(read("", &CsvOptions::default()).unwrap().n_samples(), 0);
    }
}
