//! `margin scale`: LIBSVM 3.37's svm-scale, flag for flag and byte for byte.
//!
//! Semantics kept from svm-scale so its users get the same bytes:
//! - a feature's range counts unstored (sparse) entries as zeros — except index 0, which
//!   svm-scale accepts (with `WARNING: minimal feature index is 0, …`) and ranges over the rows
//!   that store it;
//! - the training minimum maps to exactly LOWER and the maximum to exactly UPPER;
//! - a feature whose minimum equals its maximum is dropped from the output;
//! - zeros after scaling are not written; values are written with `%g` (6 significant digits),
//!   each `index:value` followed by a space; the target is written with `%.17g`;
//! - the parameters file (`-s`) lists `x`, `LOWER UPPER`, then `index min max` for every
//!   non-constant feature from index 1 (`%.17g` for every number); with `-y`, a `y` section comes
//!   first;
//! - with `-r`, the file's lines are applied in order, as svm-scale applies them: each sets its
//!   feature's range, and a feature that varies in the data but is skipped over (not listed
//!   before the next listed index, or after the last) is scaled to 0, with svm-scale's warning;
//! - the target maps its minimum to exactly Y_LOWER and its maximum to Y_UPPER, anything else
//!   by svm-scale's formula (a constant target therefore becomes Y_LOWER, and a value outside a
//!   constant restored range is infinite, as svm-scale prints it);
//! - when the output stores more values than the input, svm-scale's advice to use `-l 0`.
//!
//! LIBSVM input is scaled sparsely: only features stored in some row (or listed in the `-r`
//! file) have a range, so memory, the output and the `-s` file grow with the features used,
//! not with the largest index (`1 2147483647:1` is two ranges, not two billion).
//!
//! CSV, Parquet and Arrow input is dense by nature: it is scaled the same way and written back
//! as CSV (full precision, all columns; column `j` is feature `j + 1`); its buffers are asked
//! for through the memory check, and a `-r` file listing a feature beyond its columns is
//! refused.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use clap::Args;
use margin_core::format::{format_g, format_shortest};
use margin_core::memory::{self, FEWER_FEATURES};
use margin_core::{Dataset, Error, Matrix, Records, Targets};
use margin_io::{DataFormat, IndexBase, LibsvmOptions, Nulls, open_text, read_line};
use margin_preprocessing::column_ranges;

use crate::Failure;
use crate::data::{DataArgs, FormatArg, load_from, open};
use crate::output::{Out, check_outputs, outln, warn};

/// Arguments of `margin scale` (svm-scale's flags).
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ScaleArgs {
    /// x scaling lower limit.
    // Hyphen values too: clap's negative-number test misses exponents (`-l -1e-7`).
    #[arg(short = 'l', default_value_t = -1.0, allow_hyphen_values = true)]
    lower: f64,
    /// x scaling upper limit.
    #[arg(short = 'u', default_value_t = 1.0, allow_hyphen_values = true)]
    upper: f64,
    /// y scaling limits: -y Y_LOWER Y_UPPER (default: no y scaling).
    #[arg(
        short = 'y',
        num_args = 2,
        value_names = ["Y_LOWER", "Y_UPPER"],
        allow_hyphen_values = true
    )]
    y: Option<Vec<f64>>,
    /// Save scaling parameters to this file (written whole or not at all; it may not be the
    /// data file).
    #[arg(short = 's', conflicts_with = "restore")]
    save: Option<PathBuf>,
    /// Restore scaling parameters from this file (a feature that varies in the data but is not
    /// listed there is scaled to 0, with svm-scale's warning).
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

impl Range {
    /// Whether svm-scale keeps the quantity (its minimum and maximum differ).
    fn varies(self) -> bool {
        self.min != self.max
    }
}

/// A feature's range, keyed by its index as svm-scale numbers it (LIBSVM's index; CSV column
/// `j` is index `j + 1`).
type Feature = (usize, Range);

/// What a parameters file holds.
struct Params {
    x: (f64, f64),
    y: Option<((f64, f64), Range)>,
    /// The `index min max` lines in file order (svm-scale applies them in that order).
    features: Vec<Feature>,
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
    // Opened once, its format decided from the bytes the reader then reads: a pipe works.
    let mut input = open(&args.data)?;
    let format = input
        .format(args.format.into())
        .map_err(|e| Failure::in_file(&args.data, e))?;
    // CSV and tables have named dense columns, written back as CSV.
    let csv = format != DataFormat::Libsvm;
    let data = if csv {
        let read = DataArgs {
            format: args.format,
            ..DataArgs::default()
        };
        load_from(input, &read, Nulls::Refuse)?.0
    } else {
        // Column j is index j, so index 0 (which svm-scale accepts) is a column like the rest.
        let opts = LibsvmOptions {
            index_base: IndexBase::Zero,
            ..Default::default()
        };
        input
            .read_libsvm(&opts)
            .map_err(|e| Failure::in_file(&args.data, e))?
    };
    let index_zero = if csv {
        None
    } else {
        stored_range(&data.records, 0)
    };
    if index_zero.is_some() {
        warn("WARNING: minimal feature index is 0, but indices should start from 1");
    }
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
    let mut active = data_features(&data.records, usize::from(csv), index_zero)?;
    if let (Some(r), Some(path)) = (&restored, &args.restore) {
        x = r.x;
        if r.y.is_some() {
            y = r.y;
        }
        if csv
            && let Some(&(j, _)) = r
                .features
                .iter()
                .find(|&&(j, _)| j == 0 || j > data.n_features())
        {
            return Err(Failure::usage(format!(
                "{} lists feature {j}, but {} has {} feature columns (features 1 to {}): CSV is dense, so it is scaled with the parameters of a file with as many columns",
                path.display(),
                args.data.display(),
                data.n_features(),
                data.n_features()
            )));
        }
        active = restore(active, &r.features, |j| {
            warn(format_args!(
                "WARNING: feature index {j} appeared in file {} was not seen in the scaling factor file {}. The feature is scaled to 0.",
                args.data.display(),
                path.display()
            ));
        })?;
    }
    if let Some(path) = &args.save {
        write_params(path, x, y, &active)?;
        if index_zero.is_some() {
            warn(format_args!(
                "WARNING: scaling factors with indices smaller than 1 are not stored to the file {}.",
                path.display()
            ));
        }
    }
    let mut out = Out::stdout();
    let counts = if csv {
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
            "WARNING: original #nonzeros {before}\n       > new      #nonzeros {after}\nIf feature values are non-negative and sparse, use -l 0 rather than the default -l -1"
        ));
    }
    Ok(())
}

/// The minimum and maximum of column `j` over the rows that store it (`None` if none does):
/// svm-scale's range for index 0, which it never fills with zeros.
fn stored_range(records: &Matrix, j: usize) -> Option<Range> {
    let mut range: Option<Range> = None;
    for i in 0..records.n_samples() {
        records.row(i).for_each_stored(|k, v| {
            if k == j {
                let r = range.get_or_insert(Range { min: v, max: v });
                r.min = r.min.min(v);
                r.max = r.max.max(v);
            }
        });
    }
    range
}

/// The data's varying features, increasing, keyed by index (column + `offset`); `index_zero`
/// replaces column 0's range when the data stores index 0. Proportional in size to the stored
/// features.
fn data_features(
    records: &Matrix,
    offset: usize,
    index_zero: Option<Range>,
) -> Result<Vec<Feature>, Error> {
    let ranges = column_ranges(records)?;
    let mut out: Vec<Feature> = Vec::new();
    for (j, min, max) in ranges.iter() {
        let r = match index_zero {
            Some(r) if j == 0 => r,
            _ => Range { min, max },
        };
        if r.varies() {
            memory::grow(&mut out, "the scaled features' ranges")?;
            out.push((j + offset, r));
        }
    }
    Ok(out)
}

/// svm-scale's `-r`: applies the parameters file's `lines` in order to the data's varying
/// features (`data`, increasing). A line sets its feature's range; a feature that still varies
/// and lies between the previous line's index and this line's (or after the last line's) is
/// scaled to 0 and reported to `dropped`, in svm-scale's order. Returns the features that vary
/// in the end, increasing. Time O((features + lines) log features), memory proportional to
/// them, whatever the indices.
fn restore(
    data: Vec<Feature>,
    lines: &[Feature],
    mut dropped: impl FnMut(usize),
) -> Result<Vec<Feature>, Error> {
    // A B-tree node per few entries: ask for twice the entries' size before building it.
    let entries = data.len().saturating_add(lines.len());
    memory::check(
        memory::bytes_of::<Feature>(entries).saturating_mul(2),
        "the restored features' ranges",
        FEWER_FEATURES,
    )?;
    let mut current: BTreeMap<usize, Range> = data.into_iter().collect();
    let mut drop_from = |current: &mut BTreeMap<usize, Range>, range: std::ops::Range<usize>| {
        while let Some((&j, _)) = current.range(range.clone()).next() {
            dropped(j);
            current.remove(&j);
        }
    };
    // svm-scale checks the gaps from index 1 on: index 0 is never dropped.
    let mut next = 1;
    for &(j, r) in lines {
        if next < j {
            drop_from(&mut current, next..j);
        }
        if r.varies() {
            current.insert(j, r);
        } else {
            current.remove(&j);
        }
        next = j.saturating_add(1);
    }
    drop_from(&mut current, next..usize::MAX);
    let mut out =
        memory::vec_with_capacity(current.len(), "the scaled features' ranges", FEWER_FEATURES)?;
    out.extend(current);
    Ok(out)
}

/// svm-scale's mapping of one value: exact ends, its formula in between (which divides by zero
/// for a constant range, as svm-scale's target mapping does).
fn affine(value: f64, r: Range, (lower, upper): (f64, f64)) -> f64 {
    if value == r.min {
        lower
    } else if value == r.max {
        upper
    } else {
        lower + (upper - lower) * (value - r.min) / (r.max - r.min)
    }
}

/// A feature's scaled value; `None` for a constant feature (dropped from output).
fn map(value: f64, r: Range, limits: (f64, f64)) -> Option<f64> {
    r.varies().then(|| affine(value, r, limits))
}

fn map_label(v: f64, y: YScaling) -> f64 {
    match y {
        Some((limits, r)) => affine(v, r, limits),
        None => v,
    }
}

/// Writes svm-scale's output for LIBSVM input (whose labels are always numbers; column `j` is
/// index `j`); returns the stored-value counts before and after scaling.
///
/// A row visits its stored entries and the scaled features whose zero does not map to zero
/// (those svm-scale writes for every row that lacks them — from index 1, never index 0), so
/// with `-l 0` on non-negative data the work is proportional to the stored entries.
fn write_libsvm(
    out: &mut Out,
    labels: &[f64],
    records: &Matrix,
    active: &[Feature],
    x: (f64, f64),
    y: YScaling,
) -> Result<(usize, usize), Failure> {
    let mut zero_images: Vec<(usize, f64)> = Vec::new();
    for &(j, r) in active.iter().filter(|&&(j, _)| j > 0) {
        if let Some(s) = map(0.0, r, x).filter(|&s| s != 0.0) {
            memory::grow(&mut zero_images, "the scaled zeros")?;
            zero_images.push((j, s));
        }
    }
    let mut line = String::new();
    let mut after = 0;
    for (i, &label) in labels.iter().enumerate() {
        line.clear();
        let _ = write!(line, "{} ", format_g(map_label(label, y), 17));
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
        let _ = write!(line, "{j}:{} ", format_g(s, 6));
        *written += 1;
    }
}

fn write_csv(
    out: &mut Out,
    data: &Dataset,
    active: &[Feature],
    x: (f64, f64),
    y: YScaling,
) -> Result<(), Failure> {
    let d = data.n_features();
    let constant = Range { min: 0.0, max: 0.0 };
    let mut ranges = memory::filled_vec(d, constant, "the per-feature ranges", FEWER_FEATURES)?;
    for &(j, r) in active {
        // Features 1 to d (a restored file was checked against the columns).
        if let Some(slot) = j.checked_sub(1).and_then(|c| ranges.get_mut(c)) {
            *slot = r;
        }
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
            Targets::Classes(c) => c.labels()[c.indices()[i]].to_string(),
        };
        outln!(out, "{},{label}", fields.join(","))?;
    }
    Ok(())
}

/// Writes svm-scale's parameters file: every number with `%.17g`, the features from index 1
/// (svm-scale does not store index 0's range).
fn write_params(
    path: &Path,
    x: (f64, f64),
    y: YScaling,
    active: &[Feature],
) -> Result<(), Failure> {
    let g = |v: f64| format_g(v, 17);
    let mut out = Out::file(path)?;
    if let Some(((lo, hi), r)) = y {
        outln!(out, "y")?;
        outln!(out, "{} {}", g(lo), g(hi))?;
        outln!(out, "{} {}", g(r.min), g(r.max))?;
    }
    outln!(out, "x")?;
    outln!(out, "{} {}", g(x.0), g(x.1))?;
    for &(j, r) in active.iter().filter(|&&(j, _)| j > 0) {
        outln!(out, "{j} {} {}", g(r.min), g(r.max))?;
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

/// Reads an svm-scale parameters file (blank lines are skipped), one bounded line at a time;
/// the `index min max` lines stay in file order, as svm-scale applies them.
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
    let mut features: Vec<Feature> = Vec::new();
    while let Some((line, text)) = lines.next()? {
        let (index, rest) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
        let j = index
            .parse::<u64>()
            .ok()
            .filter(|&j| j <= u64::from(u32::MAX))
            .ok_or_else(|| {
                Error::parse(
                    line,
                    1,
                    format!(
                        "expected a feature index from 0 to {} (the largest legal index), found `{}`",
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
            j as usize,
            Range {
                min: v[0],
                max: v[1],
            },
        ));
    }
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
    use margin_core::CsrMatrix;

    fn r(min: f64, max: f64) -> Range {
        Range { min, max }
    }

    #[test]
    fn params_file_round_trips_in_file_order_and_malformed_files_name_the_line() {
        let p = parse_params(&b"y\n0 1\n-1 1\nx\n-1 1\n4 -2 2\n1 0.25 3\n0 1 2\n"[..]).unwrap();
        assert_eq!(p.x, (-1.0, 1.0));
        assert_eq!(p.y, Some(((0.0, 1.0), r(-1.0, 1.0))));
        assert_eq!(
            p.features,
            [(4, r(-2.0, 2.0)), (1, r(0.25, 3.0)), (0, r(1.0, 2.0))]
        );
        for (text, line) in [
            ("x\n-1 1\n1 2\n", 3),
            ("z\n", 1),
            ("x\n-1 1\n-1 1 2\n", 3),
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
        assert!(message.contains("from 0 to 4294967295"), "{message}");
    }

    /// `restore` on `lines`, with the features it drops.
    fn restored(data: &[Feature], lines: &[Feature]) -> (Vec<Feature>, Vec<usize>) {
        let mut dropped = Vec::new();
        let kept = restore(data.to_vec(), lines, |j| dropped.push(j)).unwrap();
        (kept, dropped)
    }

    #[test]
    fn restored_lines_apply_in_order_as_svm_scale_and_huge_indices_stay_sparse() {
        // The data's ranges (column j is index j): index 1 stored in both rows, 3 constant,
        // 5 in one row.
        let x = CsrMatrix::new(
            vec![0, 3, 5],
            vec![1, 3, 5, 1, 3],
            vec![1.0, 3.0, 2.0, 4.0, 3.0],
            6,
        )
        .unwrap();
        let data = data_features(&Matrix::Sparse(x), 0, None).unwrap();
        assert_eq!(data, [(1, r(1.0, 4.0)), (5, r(0.0, 2.0))]);
        // Sorted, as svm-scale writes it: the unlisted varying feature 5 is dropped; a listed
        // feature the data lacks (the largest legal index) keeps its range, without a dense
        // array; the last line for an index wins.
        let huge = u32::MAX as usize;
        let (kept, dropped) = restored(
            &data,
            &[
                (1, r(0.0, 5.0)),
                (2, r(0.0, 5.0)),
                (2, r(0.0, 7.0)),
                (huge, r(-1.0, 1.0)),
            ],
        );
        assert_eq!(
            kept,
            [(1, r(0.0, 5.0)), (2, r(0.0, 7.0)), (huge, r(-1.0, 1.0))]
        );
        assert_eq!(dropped, [5]);
        // Features after the last line are dropped too, and a constant line drops its feature
        // without a warning.
        let (kept, dropped) = restored(&data, &[(1, r(2.0, 2.0))]);
        assert_eq!((kept, dropped), (vec![], vec![5]));
        // Unsorted, as svm-scale 3.37 applies it (`-r` with lines `3 0 5` then `1 0 2` on data
        // varying in 1, 2 and 3 warns for 1, 2, then 3, and keeps feature 1 alone): a line
        // before the previous one's index drops what was set above it.
        let data = [(1, r(0.0, 1.0)), (2, r(0.0, 1.0)), (3, r(0.0, 1.0))];
        let (kept, dropped) = restored(&data, &[(3, r(0.0, 5.0)), (1, r(0.0, 2.0))]);
        assert_eq!((kept, dropped), (vec![(1, r(0.0, 2.0))], vec![1, 2, 3]));
        // Index 0 is never dropped, and its line restarts the gaps from index 1.
        let data = [(0, r(1.0, 2.0)), (2, r(0.0, 1.0))];
        let (kept, dropped) = restored(&data, &[(2, r(0.0, 4.0)), (0, r(0.0, 3.0))]);
        assert_eq!(dropped, [2]);
        assert_eq!(kept, [(0, r(0.0, 3.0))]);
    }

    #[test]
    fn index_zero_ranges_over_the_rows_that_store_it() {
        // svm-scale 3.37 on `1 0:1 2:3` / `-1 0:2 1:1` / `2 1:4`: index 0 over [1, 2], index 1
        // over [0, 4] (zeros filled in), index 2 over [0, 3].
        let x = CsrMatrix::new(
            vec![0, 2, 4, 5],
            vec![0, 2, 0, 1, 1],
            vec![1.0, 3.0, 2.0, 1.0, 4.0],
            3,
        )
        .unwrap();
        let m = Matrix::Sparse(x);
        let zero = stored_range(&m, 0);
        assert_eq!(zero, Some(r(1.0, 2.0)));
        assert_eq!(
            data_features(&m, 0, zero).unwrap(),
            [(0, r(1.0, 2.0)), (1, r(0.0, 4.0)), (2, r(0.0, 3.0))]
        );
        assert_eq!(stored_range(&m, 5), None);
    }

    /// svm-scale's passes 2 and 3 as written in svm-scale.c, over each row's stored entries
    /// (index j is column j): dense ranges up to the largest index, zeros filled in from index 1
    /// only. Returns the text and the number of values written.
    fn svm_scale_reference(x: &Matrix, labels: &[f64], limits: (f64, f64)) -> (String, usize) {
        let d = x.n_features();
        let rows: Vec<Vec<(usize, f64)>> = (0..x.n_samples())
            .map(|i| {
                let mut row = Vec::new();
                x.row(i).for_each_stored(|j, v| row.push((j, v)));
                row
            })
            .collect();
        let (mut lo, mut hi) = (vec![f64::MAX; d], vec![-f64::MAX; d]);
        let mut extend = |k: usize, v: f64| {
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        };
        for row in &rows {
            let mut next = 1;
            for &(j, v) in row {
                (next..j).for_each(|k| extend(k, 0.0));
                extend(j, v);
                next = j + 1;
            }
            (next..d).for_each(|k| extend(k, 0.0));
        }
        let (mut text, mut written) = (String::new(), 0);
        let mut output = |text: &mut String, k: usize, v: f64| {
            if lo[k] == hi[k] {
                return;
            }
            let s = affine(v, r(lo[k], hi[k]), limits);
            if s != 0.0 {
                *text += &format!("{k}:{} ", format_g(s, 6));
                written += 1;
            }
        };
        for (row, label) in rows.iter().zip(labels) {
            text += &format!("{} ", format_g(*label, 17));
            let mut next = 1;
            for &(j, v) in row {
                (next..j).for_each(|k| output(&mut text, k, 0.0));
                output(&mut text, j, v);
                next = j + 1;
            }
            (next..d).for_each(|k| output(&mut text, k, 0.0));
            text.push('\n');
        }
        (text, written)
    }

    proptest::proptest! {
        #[test]
        fn sparse_output_is_svm_scales_dense_output_byte_for_byte(
            rows in proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.4, -3i8..4), 7), 1..7),
            limits in proptest::sample::select(vec![(-1.0, 1.0), (0.0, 1.0), (-2.5, 0.5)]),
        ) {
            let halves = rows.iter().map(|r| r.iter().map(|v| v.map(|v| f64::from(v) / 2.0)));
            let x = Matrix::Sparse(CsrMatrix::from_optional_rows(halves, 7).unwrap());
            let labels: Vec<f64> = (0..rows.len()).map(|i| i as f64 / 10.0 - 0.3).collect();
            let active = data_features(&x, 0, stored_range(&x, 0)).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("out");
            let mut out = Out::file(&path).unwrap();
            let (before, after) =
                write_libsvm(&mut out, &labels, &x, &active, limits, None).unwrap();
            out.finish().unwrap();
            let got = std::fs::read_to_string(&path).unwrap();
            let (expected, written) = svm_scale_reference(&x, &labels, limits);
            proptest::prop_assert_eq!(got, expected);
            proptest::prop_assert_eq!((before, after), (x.nnz(), written));
        }
    }

    #[test]
    fn mapping_is_exact_at_the_ends_and_drops_constants() {
        let span = r(2.0, 6.0);
        assert_eq!(map(2.0, span, (-1.0, 1.0)), Some(-1.0));
        assert_eq!(map(6.0, span, (-1.0, 1.0)), Some(1.0));
        assert_eq!(map(3.0, span, (-1.0, 1.0)), Some(-0.5));
        assert_eq!(map(3.0, r(1.0, 1.0), (-1.0, 1.0)), None);
        // The target: exact ends; a constant target is Y_LOWER (svm-scale's first test
        // `value == y_min`), and anything else divides by zero as in svm-scale 3.37 (which
        // prints `inf` and `-inf` for a restored `y` range `3 3` and targets 4 and 2).
        let y = Some(((0.0, 10.0), r(3.0, 3.0)));
        assert_eq!(map_label(3.0, y), 0.0);
        assert_eq!(map_label(4.0, y), f64::INFINITY);
        assert_eq!(map_label(2.0, y), f64::NEG_INFINITY);
        let y = Some(((0.0, 10.0), span));
        assert_eq!(
            (map_label(2.0, y), map_label(6.0, y), map_label(3.0, y)),
            (0.0, 10.0, 2.5)
        );
    }
}
