//! `margin scale`: LIBSVM's svm-scale, flag for flag.
//!
//! Semantics kept from svm-scale so its users get the same bytes:
//! - a feature's range counts unstored (sparse) entries as zeros;
//! - the training minimum maps to exactly LOWER and the maximum to exactly UPPER;
//! - a feature whose minimum equals its maximum is dropped from the output;
//! - zeros after scaling are not written; values are written with `%g` (6 significant digits),
//!   each `index:value` followed by a space;
//! - the parameters file (`-s`) lists `x`, `LOWER UPPER`, then `index min max` for every
//!   non-constant feature (`%.16g`); with `-y`, a `y` section comes first;
//! - with `-r`, the file's minima and maxima replace the data's for the features it lists, and a
//!   feature it does not list keeps the range of the data being scaled (as svm-scale does);
//! - the target maps its minimum to exactly Y_LOWER and its maximum to Y_UPPER (a constant
//!   target therefore becomes Y_LOWER, as in svm-scale); a value outside a constant restored
//!   range is kept as it is where svm-scale would divide by zero.
//!
//! LIBSVM input is scaled sparsely: only features stored in some row (or listed in the `-r`
//! file) have a range, so memory, the output and the `-s` file grow with the features used,
//! not with the largest index (`1 2147483647:1` is two ranges, not two billion).
//!
//! CSV input is dense by nature: it is scaled the same way and written back as CSV (full
//! precision, all columns); its buffers are asked for through the memory check, and a `-r` file
//! listing a feature beyond its columns is refused.

use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use clap::Args;
use core_linalg::io::{DataFormat, format_g, format_shortest, open_text, read_line};
use core_linalg::memory::{self, FEWER_FEATURES};
use core_linalg::preprocessing::{ColumnRanges, column_ranges};
use core_linalg::{Dataset, Error, Records, Targets};

use crate::Failure;
use crate::data::{FormatArg, load, resolved};
use crate::output::{Out, check_outputs, outln, warn};

/// Arguments of `margin scale` (svm-scale's flags).
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ScaleArgs {
    /// x scaling lower limit.
    #[arg(short = 'l', default_value_t = -1.0)]
    lower: f64,
    /// x scaling upper limit.
    #[arg(short = 'u', default_value_t = 1.0)]
    upper: f64,
    /// y scaling limits: -y Y_LOWER Y_UPPER (default: no y scaling).
    #[arg(short = 'y', num_args = 2, value_names = ["Y_LOWER", "Y_UPPER"])]
    y: Option<Vec<f64>>,
    /// Save scaling parameters to this file (written whole or not at all; it may not be the
    /// data file).
    #[arg(short = 's', conflicts_with = "restore")]
    save: Option<PathBuf>,
    /// Restore scaling parameters from this file.
    #[arg(short = 'r')]
    restore: Option<PathBuf>,
    /// Input format.
    #[arg(long, value_enum, default_value_t)]
    format: FormatArg,
    /// The data file to scale; the result goes to stdout.
    data: PathBuf,
}

/// Linear map of one quantity (a feature or the target) from [min, max] to [lower, upper].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Range {
    min: f64,
    max: f64,
}

/// What a parameters file holds.
struct Params {
    x: (f64, f64),
    y: Option<((f64, f64), Range)>,
    /// Zero-based feature indices, increasing, each once (the last line for an index wins, as
    /// in svm-scale).
    features: Vec<(usize, Range)>,
}

/// The target's limits and range, when it is scaled.
type YScaling = Option<((f64, f64), Range)>;

/// Runs the command.
pub fn run(args: &ScaleArgs) -> Result<(), Failure> {
    if args.upper.partial_cmp(&args.lower) != Some(std::cmp::Ordering::Greater) {
        return Err(Failure::usage(
            "inconsistent lower/upper specification (-l must be below -u)",
        ));
    }
    if let Some(y) = &args.y
        && y[1].partial_cmp(&y[0]) != Some(std::cmp::Ordering::Greater)
    {
        return Err(Failure::usage("inconsistent y lower/upper specification"));
    }
    if let Some(save) = &args.save {
        let mut inputs = vec![args.data.as_path()];
        inputs.extend(args.restore.as_deref());
        check_outputs(&inputs, &[save.as_path()])?;
    }
    let format = resolved(&args.data, args.format)?;
    let data = load(&args.data, args.format)?;
    let restored = match &args.restore {
        Some(p) => Some(read_params(p)?),
        None => None,
    };
    let labels: &[f64] = match &data.targets {
        Targets::Values(v) => v,
        Targets::Classes(_) if args.y.is_some() => {
            return Err(Failure::usage("-y needs numeric labels"));
        }
        Targets::Classes(_) => &[],
    };
    let mut x = (args.lower, args.upper);
    let mut y = args.y.as_ref().map(|y| {
        let (min, max) = labels
            .iter()
            .fold((f64::MAX, -f64::MAX), |(a, b), &v| (a.min(v), b.max(v)));
        ((y[0], y[1]), Range { min, max })
    });
    let mut restored_features: &[(usize, Range)] = &[];
    if let (Some(r), Some(path)) = (&restored, &args.restore) {
        x = r.x;
        if r.y.is_some() {
            y = r.y;
        }
        restored_features = &r.features;
        if format == DataFormat::Csv
            && let Some(&(j, _)) = r.features.last()
            && j >= data.n_features()
        {
            return Err(Failure::usage(format!(
                "{} lists feature {}, but {} has {} feature columns: CSV is dense, so it is scaled with the parameters of a file with as many columns",
                path.display(),
                j + 1,
                args.data.display(),
                data.n_features()
            )));
        }
    }
    let ranges = column_ranges(&data.records)?;
    let active = scaled_features(&ranges, restored_features)?;
    if let Some(path) = &args.save {
        write_params(path, x, y, &active)?;
    }
    let mut out = Out::stdout();
    let counts = if format == DataFormat::Csv {
        write_csv(&mut out, &data, &active, x, y)?;
        None
    } else {
        Some(write_libsvm(
            &mut out,
            labels,
            &data.records,
            &active,
            x,
            y,
        )?)
    };
    out.finish()?;
    if let Some((before, after)) = counts
        && after > before
    {
        warn(format_args!(
            "WARNING: original #nonzeros {before}\n         new      #nonzeros {after}\nUse -l 0 if many original feature values are zeros"
        ));
    }
    Ok(())
}

/// The features that are scaled (those whose minimum and maximum differ), increasing, with
/// their ranges: the data's, replaced by the restored ones where the parameters file lists the
/// feature. Proportional in size to the stored features plus the restored ones.
fn scaled_features(
    data: &ColumnRanges,
    restored: &[(usize, Range)],
) -> Result<Vec<(usize, Range)>, Error> {
    let mut out: Vec<(usize, Range)> = Vec::new();
    let mut from_data = data
        .iter()
        .map(|(j, min, max)| (j, Range { min, max }))
        .peekable();
    let mut from_file = restored.iter().copied().peekable();
    loop {
        let next = match (from_data.peek().copied(), from_file.peek().copied()) {
            (None, None) => break,
            (Some((a, _)), Some((b, r))) if b <= a => {
                if a == b {
                    from_data.next();
                }
                from_file.next();
                (b, r)
            }
            (Some(d), _) => {
                from_data.next();
                d
            }
            (None, Some(f)) => {
                from_file.next();
                f
            }
        };
        if next.1.min != next.1.max {
            memory::grow(&mut out, "the scaled features' ranges")?;
            out.push(next);
        }
    }
    Ok(out)
}

/// svm-scale's mapping of one value; `None` for a constant quantity (dropped from output).
fn map(value: f64, r: Range, (lower, upper): (f64, f64)) -> Option<f64> {
    if r.min == r.max {
        None
    } else if value == r.min {
        Some(lower)
    } else if value == r.max {
        Some(upper)
    } else {
        Some(lower + (upper - lower) * (value - r.min) / (r.max - r.min))
    }
}

fn map_label(v: f64, y: YScaling) -> f64 {
    match y {
        Some(((lower, _), r)) if v == r.min => lower,
        Some(((_, upper), r)) if v == r.max => upper,
        // svm-scale would divide by zero here (a value outside a constant restored range).
        Some((_, r)) if r.min == r.max => v,
        Some((limits, r)) => map(v, r, limits).unwrap_or(v),
        None => v,
    }
}

/// Writes svm-scale's output for LIBSVM input (whose labels are always numbers); returns the
/// stored-value counts before and after scaling.
///
/// A row visits its stored entries and the scaled features whose zero does not map to zero
/// (those svm-scale writes for every row that lacks them), so with `-l 0` on non-negative data
/// the work is proportional to the stored entries.
fn write_libsvm(
    out: &mut Out,
    labels: &[f64],
    records: &core_linalg::Matrix,
    active: &[(usize, Range)],
    x: (f64, f64),
    y: YScaling,
) -> Result<(usize, usize), Failure> {
    let mut zero_images: Vec<(usize, f64)> = Vec::new();
    for &(j, r) in active {
        if let Some(s) = map(0.0, r, x).filter(|&s| s != 0.0) {
            memory::grow(&mut zero_images, "the scaled zeros")?;
            zero_images.push((j, s));
        }
    }
    let mut line = String::new();
    let mut after = 0;
    for (i, &label) in labels.iter().enumerate() {
        line.clear();
        let _ = write!(line, "{} ", format_g(map_label(label, y), 6));
        let mut zeros = zero_images.iter().peekable();
        records.row(i).for_each_stored(|j, v| {
            while let Some(&&(z, s)) = zeros.peek()
                && z < j
            {
                write_entry(&mut line, &mut after, z, s);
                zeros.next();
            }
            if zeros.peek().is_some_and(|&&(z, _)| z == j) {
                zeros.next();
            }
            if let Ok(k) = active.binary_search_by_key(&j, |&(a, _)| a)
                && let Some(s) = map(v, active[k].1, x)
            {
                write_entry(&mut line, &mut after, j, s);
            }
        });
        for &(z, s) in zeros {
            write_entry(&mut line, &mut after, z, s);
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok((records.nnz(), after))
}

/// svm-scale's `index:value ` for a scaled value that is not zero (and its count).
fn write_entry(line: &mut String, written: &mut usize, j: usize, s: f64) {
    if s != 0.0 {
        let _ = write!(line, "{}:{} ", j + 1, format_g(s, 6));
        *written += 1;
    }
}

fn write_csv(
    out: &mut Out,
    data: &Dataset,
    active: &[(usize, Range)],
    x: (f64, f64),
    y: YScaling,
) -> Result<(), Failure> {
    let d = data.n_features();
    let constant = Range { min: 0.0, max: 0.0 };
    let mut ranges = memory::filled_vec(d, constant, "the per-feature ranges", FEWER_FEATURES)?;
    for &(j, r) in active {
        ranges[j] = r;
    }
    if let Some(names) = &data.feature_names {
        outln!(out, "{},label", names.join(","))?;
    }
    let mut dense = memory::filled_vec(d, 0.0, "a row of the CSV file", FEWER_FEATURES)?;
    let mut fields: Vec<String> =
        memory::vec_with_capacity(d, "a row of the CSV file", FEWER_FEATURES)?;
    for i in 0..data.n_samples() {
        data.records.row(i).to_dense_into(&mut dense);
        fields.clear();
        fields.extend(
            dense
                .iter()
                .zip(&ranges)
                .map(|(&v, &r)| format_shortest(map(v, r, x).unwrap_or(0.0))),
        );
        let label = match &data.targets {
            Targets::Values(v) => format_shortest(map_label(v[i], y)),
            Targets::Classes(c) => c.labels()[c.indices()[i] as usize].to_string(),
        };
        outln!(out, "{},{label}", fields.join(","))?;
    }
    Ok(())
}

fn write_params(
    path: &Path,
    x: (f64, f64),
    y: YScaling,
    active: &[(usize, Range)],
) -> Result<(), Failure> {
    let mut out = Out::file(path)?;
    if let Some(((lo, hi), r)) = y {
        outln!(out, "y")?;
        outln!(out, "{} {}", format_g(lo, 16), format_g(hi, 16))?;
        outln!(out, "{} {}", format_g(r.min, 16), format_g(r.max, 16))?;
    }
    outln!(out, "x")?;
    outln!(out, "{} {}", format_g(x.0, 16), format_g(x.1, 16))?;
    for &(j, r) in active {
        outln!(
            out,
            "{} {} {}",
            j + 1,
            format_g(r.min, 16),
            format_g(r.max, 16)
        )?;
    }
    out.finish()
}

fn read_params(path: &Path) -> Result<Params, Failure> {
    let reader = open_text(path).map_err(|e| Failure::in_file(path, e))?;
    parse_params(reader).map_err(|e| Failure::in_file(path, e.at_path(path)))
}

/// The non-blank lines of a parameters file, trimmed, with their numbers.
struct ParamLines<R> {
    reader: R,
    buf: Vec<u8>,
    line_no: usize,
    /// Whether a non-blank line was read.
    any: bool,
}

impl<R: BufRead> ParamLines<R> {
    /// The next non-blank line, or `None` at the end of the file.
    fn next(&mut self) -> Result<Option<(usize, String)>, Error> {
        while read_line(&mut self.reader, &mut self.buf, self.line_no + 1)? {
            self.line_no += 1;
            let text = std::str::from_utf8(&self.buf).map_err(|_| {
                Error::parse(
                    self.line_no,
                    1,
                    "invalid UTF-8 text: not an svm-scale parameters file",
                )
            })?;
            if !text.trim().is_empty() {
                self.any = true;
                return Ok(Some((self.line_no, text.trim().to_owned())));
            }
        }
        Ok(None)
    }

    /// The next non-blank line, which must be there: `what` it should hold names it otherwise.
    fn expect(&mut self, what: &str) -> Result<(usize, String), Error> {
        match self.next()? {
            Some(line) => Ok(line),
            None if !self.any => Err(Error::parse(
                1,
                1,
                "the parameters file is empty: expected `x` (or `y`) on the first line, as `margin scale -s FILE` writes it",
            )),
            None => Err(Error::parse(
                self.line_no + 1,
                1,
                format!("the parameters file ends before {what}"),
            )),
        }
    }
}

/// Reads an svm-scale parameters file (blank lines are skipped), one bounded line at a time.
fn parse_params<R: BufRead>(reader: R) -> Result<Params, Error> {
    let mut lines = ParamLines {
        reader,
        buf: Vec::new(),
        line_no: 0,
        any: false,
    };
    let mut head = lines.expect("the `x` line")?;
    let mut y = None;
    if head.1 == "y" {
        let lim = numbers(&lines.expect("the y limits")?, 2)?;
        let mm = numbers(&lines.expect("the y range")?, 2)?;
        y = Some((
            (lim[0], lim[1]),
            Range {
                min: mm[0],
                max: mm[1],
            },
        ));
        head = lines.expect("the `x` line")?;
    }
    if head.1 != "x" {
        return Err(Error::parse(
            head.0,
            1,
            format!(
                "expected `x` (or `y`), found `{}`: not an svm-scale parameters file",
                head.1.chars().take(40).collect::<String>()
            ),
        ));
    }
    let lim = numbers(&lines.expect("the x limits")?, 2)?;
    let mut features: Vec<(usize, Range)> = Vec::new();
    while let Some((line, text)) = lines.next()? {
        let (index, rest) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
        let j = index
            .parse::<u64>()
            .ok()
            .filter(|j| (1..=u64::from(u32::MAX)).contains(j))
            .ok_or_else(|| {
                Error::parse(
                    line,
                    1,
                    format!(
                        "expected a feature index from 1 to {} (the largest legal index), found `{}`",
                        u32::MAX,
                        index.chars().take(40).collect::<String>()
                    ),
                )
            })?;
        let v = numbers(&(line, rest.to_owned()), 2).map_err(|_| {
            Error::parse(
                line,
                1,
                format!(
                    "expected `INDEX MIN MAX` (a feature index and two finite numbers), found `{}`",
                    text.chars().take(60).collect::<String>()
                ),
            )
        })?;
        if v[0] > v[1] {
            return Err(Error::parse(
                line,
                1,
                format!("minimum {} is above maximum {}", v[0], v[1]),
            ));
        }
        memory::grow(&mut features, "the parameters file's ranges")?;
        features.push((
            (j - 1) as usize,
            Range {
                min: v[0],
                max: v[1],
            },
        ));
    }
    // svm-scale applies the lines in order: for an index listed twice, the last one holds.
    features.reverse();
    features.sort_by_key(|&(j, _)| j);
    features.dedup_by_key(|&mut (j, _)| j);
    Ok(Params {
        x: (lim[0], lim[1]),
        y,
        features,
    })
}

/// Exactly `count` finite numbers on a line.
fn numbers((line, text): &(usize, String), count: usize) -> Result<Vec<f64>, Error> {
    let v: Vec<f64> = text
        .split_whitespace()
        .map(|t| t.parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            Error::parse(
                *line,
                1,
                format!(
                    "expected {count} finite numbers, found `{}`",
                    text.chars().take(60).collect::<String>()
                ),
            )
        })?;
    if v.len() != count {
        return Err(Error::parse(
            *line,
            1,
            format!("expected {count} numbers, found {}", v.len()),
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_file_round_trips_and_malformed_files_name_the_line() {
        let p = parse_params(&b"y\n0 1\n-1 1\nx\n-1 1\n1 0.25 3\n4 -2 2\n"[..]).unwrap();
        assert_eq!(p.x, (-1.0, 1.0));
        assert_eq!(
            p.y,
            Some((
                (0.0, 1.0),
                Range {
                    min: -1.0,
                    max: 1.0
                }
            ))
        );
        assert_eq!(
            p.features,
            vec![
                (
                    0,
                    Range {
                        min: 0.25,
                        max: 3.0
                    }
                ),
                (
                    3,
                    Range {
                        min: -2.0,
                        max: 2.0
                    }
                )
            ]
        );
        for (text, line) in [
            ("x\n-1 1\n1 2\n", 3),
            ("z\n", 1),
            ("x\n-1 1\n0 1 2\n", 3),
            ("x\n-1 a\n", 2),
            ("x\n-1 1\n2 5 1\n", 3),
            ("x\n-1 1\n4294967296 0 1\n", 3),
            ("x\n-1 1\n1 0 1 5\n", 3),
            ("x\n", 2),
            ("\ny\n0 1\n\n", 5),
        ] {
            match parse_params(text.as_bytes()) {
                Err(Error::Parse { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                Err(e) => panic!("{text:?}: {e}"),
                Ok(_) => panic!("{text:?} accepted"),
            }
        }
    }

    #[test]
    fn an_empty_parameters_file_says_so_at_line_1() {
        for text in ["", "\n  \n"] {
            match parse_params(text.as_bytes()) {
                Err(Error::Parse { line, message, .. }) => {
                    assert_eq!(line, 1, "{message}");
                    assert!(message.contains("empty"), "{message}");
                }
                other => panic!("{text:?}: {:?}", other.map(|p| p.x)),
            }
        }
        let Err(Error::Parse { message, .. }) = parse_params(&b"x\n-1 1\n1e99999 0 1\n"[..]) else {
            panic!("accepted");
        };
        assert!(message.contains("from 1 to 4294967295"), "{message}");
    }

    #[test]
    fn restored_indices_are_sorted_the_last_line_wins_and_huge_ones_stay_sparse() {
        let p = parse_params(&b"x\n0 1\n4294967295 -1 1\n2 0 5\n2 0 7\n"[..]).unwrap();
        let r = |min, max| Range { min, max };
        assert_eq!(
            p.features,
            [(1, r(0.0, 7.0)), (u32::MAX as usize - 1, r(-1.0, 1.0))]
        );
        // The data's ranges: feature 1 stored in both rows, feature 3 constant, 5 in one row.
        let x = core_linalg::CsrMatrix::new(
            vec![0, 3, 5],
            vec![0, 2, 4, 0, 2],
            vec![1.0, 3.0, 2.0, 4.0, 3.0],
            5,
        )
        .unwrap();
        let active = scaled_features(&column_ranges(&x).unwrap(), &p.features).unwrap();
        assert_eq!(
            active,
            [
                (0, r(1.0, 4.0)),
                (1, r(0.0, 7.0)),
                (4, r(0.0, 2.0)),
                (u32::MAX as usize - 1, r(-1.0, 1.0))
            ]
        );
    }

    /// svm-scale's pass 3 as written in svm-scale.c: every feature from 1 to the largest index,
    /// with dense ranges.
    fn dense_reference(x: &core_linalg::CsrMatrix, labels: &[f64], limits: (f64, f64)) -> String {
        let dense = x.to_dense().unwrap();
        let d = x.ncols();
        let ranges: Vec<Range> = (0..d)
            .map(|j| {
                let col: Vec<f64> = dense.rows().map(|r| r[j]).collect();
                Range {
                    min: col.iter().copied().fold(f64::MAX, f64::min),
                    max: col.iter().copied().fold(-f64::MAX, f64::max),
                }
            })
            .collect();
        let mut text = String::new();
        for (row, label) in dense.rows().zip(labels) {
            text += &format!("{} ", format_g(*label, 6));
            for j in 0..d {
                if let Some(s) = map(row[j], ranges[j], limits)
                    && s != 0.0
                {
                    text += &format!("{}:{} ", j + 1, format_g(s, 6));
                }
            }
            text.push('\n');
        }
        text
    }

    proptest::proptest! {
        #[test]
        fn sparse_output_is_svm_scales_dense_output_byte_for_byte(
            rows in proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.4, -3i8..4), 6), 1..7),
            limits in proptest::sample::select(vec![(-1.0, 1.0), (0.0, 1.0), (-2.5, 0.5)]),
        ) {
            let mut indptr = vec![0];
            let (mut indices, mut values) = (Vec::new(), Vec::new());
            for row in &rows {
                for (j, v) in row.iter().enumerate() {
                    if let Some(v) = v {
                        indices.push(j as u32);
                        values.push(f64::from(*v) / 2.0);
                    }
                }
                indptr.push(values.len());
            }
            let x = core_linalg::CsrMatrix::new(indptr, indices, values, 6).unwrap();
            let labels: Vec<f64> = (0..rows.len()).map(|i| i as f64 - 1.5).collect();
            let active = scaled_features(&column_ranges(&x).unwrap(), &[]).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("out");
            let mut out = Out::file(&path).unwrap();
            let matrix = core_linalg::Matrix::Sparse(x.clone());
            write_libsvm(&mut out, &labels, &matrix, &active, limits, None).unwrap();
            out.finish().unwrap();
            let got = std::fs::read_to_string(&path).unwrap();
            proptest::prop_assert_eq!(got, dense_reference(&x, &labels, limits));
        }
    }

    #[test]
    fn mapping_is_exact_at_the_ends_and_drops_constants() {
        let r = Range { min: 2.0, max: 6.0 };
        assert_eq!(map(2.0, r, (-1.0, 1.0)), Some(-1.0));
        assert_eq!(map(6.0, r, (-1.0, 1.0)), Some(1.0));
        assert_eq!(map(3.0, r, (-1.0, 1.0)), Some(-0.5));
        assert_eq!(map(3.0, Range { min: 1.0, max: 1.0 }, (-1.0, 1.0)), None);
        // The target: exact ends, a constant target is Y_LOWER (as svm-scale's first test
        // `value == y_min` makes it), never a division by zero.
        let y = Some(((0.0, 10.0), Range { min: 3.0, max: 3.0 }));
        assert_eq!(map_label(3.0, y), 0.0);
        assert_eq!(map_label(4.0, y), 4.0);
        let y = Some(((0.0, 10.0), r));
        assert_eq!(
            (map_label(2.0, y), map_label(6.0, y), map_label(3.0, y)),
            (0.0, 10.0, 2.5)
        );
    }
}
