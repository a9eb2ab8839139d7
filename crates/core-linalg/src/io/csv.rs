//! CSV input and output: numeric feature columns plus one label column.

use std::io::{Read, Write};
use std::path::Path;

use crate::dataset::{Classes, Dataset, Targets};
use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::io::format::format_shortest;
use crate::records::Records;

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
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self {
            has_header: None,
            label: LabelColumn::Last,
            delimiter: b',',
            categorical: CategoricalColumns::Refuse,
        }
    }
}

/// Reads a CSV file (plain, `.gz` or `.bz2`).
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<Dataset> {
    read_csv_from(crate::io::open_text(path)?, opts).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path, source),
        other => other,
    })
}

/// Reads CSV text from any reader. Numeric labels become [`Targets::Values`], text labels
/// [`Targets::Classes`]. Feature names come from the header when there is one.
pub fn read_csv_from<R: Read>(reader: R, opts: &CsvOptions) -> Result<Dataset> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(opts.delimiter)
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(reader);
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let line = record
                    .position()
                    .map_or(rows.len() + 1, |p| p.line() as usize);
                if record.len() == 1 && record[0].trim().is_empty() {
                    continue;
                }
                rows.push((line, record.iter().map(|f| f.trim().to_owned()).collect()));
            }
            Err(e) => {
                let line = e.position().map_or(1, |p| p.line().max(1) as usize);
                let (column, message) = match e.kind() {
                    csv::ErrorKind::Utf8 { err, .. } => {
                        (err.field() + 1, "invalid UTF-8 text".to_owned())
                    }
                    csv::ErrorKind::Io(_) => {
                        return Err(Error::io("<input>", std::io::Error::other(e.to_string())));
                    }
                    _ => (1, e.to_string()),
                };
                return Err(Error::parse(line, column, message));
            }
        }
    }
    let header = match opts.has_header {
        Some(true) => !rows.is_empty(),
        Some(false) => false,
        None => rows
            .first()
            .is_some_and(|(_, r)| r.iter().all(|f| f.parse::<f64>().is_err())),
    };
    let names: Option<Vec<String>> = if header { Some(rows.remove(0).1) } else { None };
    let width = names
        .as_ref()
        .map(Vec::len)
        .or_else(|| rows.first().map(|(_, r)| r.len()))
        .unwrap_or(0);
    for (line, r) in &rows {
        if r.len() != width {
            return Err(Error::parse(
                *line,
                r.len().min(width) + 1,
                format!("expected {width} fields, found {}", r.len()),
            ));
        }
    }
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
        return Err(Error::parse(
            rows.first().map_or(1, |r| r.0),
            1,
            format!(
                "only one column found with the {sep} separator, so there are no features: check the delimiter (`;` or tab?)"
            ),
        ));
    }
    let col_name = |j: usize| {
        names
            .as_ref()
            .map_or_else(|| format!("column {}", j + 1), |h| format!("`{}`", h[j]))
    };

    // Decide, per feature column, numeric or categorical.
    let feature_cols: Vec<usize> = (0..width).filter(|&j| Some(j) != label_col).collect();
    let mut blocks = Vec::with_capacity(feature_cols.len());
    for &j in &feature_cols {
        let first_text = rows.iter().find_map(|(line, r)| {
            let f = &r[j];
            (f.parse::<f64>().is_err()).then_some((*line, f))
        });
        match (first_text, opts.categorical) {
            (None, _) => {
                for (line, r) in &rows {
                    if !r[j].parse::<f64>().is_ok_and(f64::is_finite) {
                        return Err(Error::parse(
                            *line,
                            j + 1,
                            format!(
                                "{} value `{}` is not finite: NaN and infinities are refused",
                                col_name(j),
                                r[j]
                            ),
                        ));
                    }
                }
                blocks.push(Block::Numeric(j));
            }
            (Some((line, text)), CategoricalColumns::Refuse) => {
                let what = if text.is_empty() {
                    "an empty field".to_owned()
                } else {
                    format!("the text `{text}`")
                };
                return Err(Error::parse(
                    line,
                    j + 1,
                    format!(
                        "{} holds {what} where a number was expected: remove the column, or ask for one-hot encoding of text columns",
                        col_name(j)
                    ),
                ));
            }
            (Some(_), CategoricalColumns::OneHot) => {
                let mut cats: Vec<&str> = rows.iter().map(|(_, r)| r[j].as_str()).collect();
                cats.sort_unstable();
                cats.dedup();
                blocks.push(Block::Categorical(
                    j,
                    cats.into_iter().map(str::to_owned).collect(),
                ));
            }
        }
    }
    let n_out: usize = blocks.iter().map(Block::width).sum();
    let mut data = Vec::with_capacity(rows.len() * n_out);
    for (_, r) in &rows {
        for b in &blocks {
            match b {
                Block::Numeric(j) => data.push(r[*j].parse::<f64>().unwrap_or(f64::NAN)),
                Block::Categorical(j, cats) => {
                    let hit = cats.partition_point(|c| c.as_str() < r[*j].as_str());
                    data.extend((0..cats.len()).map(|k| if k == hit { 1.0 } else { 0.0 }));
                }
            }
        }
    }
    let records = DenseMatrix::from_row_major(data, rows.len(), n_out)?;
    let targets = match label_col {
        None => Targets::Values(vec![0.0; rows.len()]),
        Some(l) => {
            let numbers: Option<Vec<f64>> =
                rows.iter().map(|(_, r)| r[l].parse::<f64>().ok()).collect();
            match numbers {
                Some(v) => {
                    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
                        return Err(Error::parse(
                            rows[k].0,
                            l + 1,
                            format!("label `{}` is not finite", rows[k].1[l]),
                        ));
                    }
                    Targets::Values(v)
                }
                None => {
                    if let Some((line, _)) = rows.iter().find(|(_, r)| r[l].is_empty()) {
                        return Err(Error::parse(*line, l + 1, "empty label field"));
                    }
                    Targets::Classes(Classes::from_text(
                        &rows.iter().map(|(_, r)| r[l].as_str()).collect::<Vec<_>>(),
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

/// Writes a dataset as CSV to a file; see [`write_csv_to`].
pub fn write_csv(path: &Path, data: &Dataset, opts: &CsvOptions) -> Result<()> {
    let mut w = crate::io::AtomicFile::create(path)?;
    write_csv_to(&mut w, data, opts).map_err(|e| e.at_path(path))?;
    w.commit()
}

/// Writes CSV to any writer, with `opts.delimiter` as separator: a header row when the dataset
/// has feature names (the label column is named `label`), then one row per sample with every
/// feature (dense, in shortest exact form) and the label last. Reading the output back with
/// [`read_csv_from`] gives the same records and targets.
pub fn write_csv_to<W: Write>(w: &mut W, data: &Dataset, opts: &CsvOptions) -> Result<()> {
    data.check_consistent()?;
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
            Targets::Classes(c) => c.labels()[c.indices()[i] as usize].to_string(),
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
    use crate::Records;
    use crate::dataset::Label;

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
        match read(text, &CsvOptions::default()) {
            Err(Error::Parse {
                line,
                column,
                message,
            }) => {
                assert_eq!((line, column), (2, 1));
                assert!(
                    message.contains("`color`") && message.contains("red"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
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
        let bad = |t: &str| match read(t, &CsvOptions::default()) {
            Err(Error::Parse {
                line,
                column,
                message,
            }) => (line, column, message),
            other => panic!("{t:?}: {other:?}"),
        };
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
    fn tab_separated_and_empty() {
        let opts = CsvOptions {
            delimiter: b'\t',
            ..Default::default()
        };
        assert_eq!(read("1\t2\t3\n", &opts).unwrap().n_features(), 2);
        assert_eq!(read("", &CsvOptions::default()).unwrap().n_samples(), 0);
    }
}
