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
//!   feature it does not list keeps the range of the data being scaled (as svm-scale does).
//!
//! CSV input is scaled the same way and written back as CSV (full precision, all columns).

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use core_linalg::io::{DataFormat, format_g, format_shortest};
use core_linalg::preprocessing::MinMaxScaler;
use core_linalg::{Dataset, Error, Fit, Records, Targets};

use crate::Failure;
use crate::data::{FormatArg, load, resolved};

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
    /// Save scaling parameters to this file.
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
    features: Vec<(usize, Range)>,
}

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
    let format = resolved(&args.data, args.format)?;
    let data = load(&args.data, args.format)?;
    let restored = match &args.restore {
        Some(p) => Some(read_params(p)?),
        None => None,
    };
    let (mut lower, mut upper) = (args.lower, args.upper);
    let mut n_features = data.n_features();
    if let Some(r) = &restored {
        (lower, upper) = r.x;
        n_features = n_features.max(r.features.iter().map(|&(j, _)| j).max().unwrap_or(0));
    }
    let records = data.records.clone().with_n_features(n_features)?;
    let mut ranges: Vec<Range> = if records.n_samples() == 0 {
        vec![Range { min: 0.0, max: 0.0 }; n_features]
    } else {
        let mm = MinMaxScaler::params().fit(&records)?;
        mm.data_min()
            .iter()
            .zip(mm.data_max())
            .map(|(&min, &max)| Range { min, max })
            .collect()
    };
    let labels: &[f64] = match &data.targets {
        Targets::Values(v) => v,
        Targets::Classes(_) if args.y.is_some() => {
            return Err(Failure::usage("-y needs numeric labels"));
        }
        Targets::Classes(_) => &[],
    };
    let mut y = args.y.as_ref().map(|y| {
        let (min, max) = labels
            .iter()
            .fold((f64::MAX, -f64::MAX), |(a, b), &v| (a.min(v), b.max(v)));
        ((y[0], y[1]), Range { min, max })
    });
    if let Some(r) = &restored {
        if r.y.is_some() {
            y = r.y;
        }
        for &(j, range) in &r.features {
            ranges[j - 1] = range;
        }
    }
    if let Some(path) = &args.save {
        write_params(path, (lower, upper), y, &ranges)?;
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let io = |e| Failure::from(Error::io("<stdout>", e));
    if format == DataFormat::Csv {
        write_csv(&mut out, &data, &records, &ranges, (lower, upper), y).map_err(io)?;
    } else {
        let (before, after) =
            write_libsvm(&mut out, labels, &records, &ranges, (lower, upper), y).map_err(io)?;
        out.flush().map_err(io)?;
        if after > before {
            eprintln!(
                "WARNING: original #nonzeros {before}\n         new      #nonzeros {after}\nUse -l 0 if many original feature values are zeros"
            );
        }
    }
    out.flush().map_err(io)
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

fn map_label(v: f64, y: Option<((f64, f64), Range)>) -> f64 {
    match y {
        // A constant target cannot be scaled; svm-scale would divide by zero, margin keeps it.
        Some((limits, r)) => map(v, r, limits).unwrap_or(v),
        None => v,
    }
}

/// Writes svm-scale's output for LIBSVM input (whose labels are always numbers); returns the
/// stored-value counts before and after scaling.
fn write_libsvm<W: Write>(
    out: &mut W,
    labels: &[f64],
    records: &core_linalg::Matrix,
    ranges: &[Range],
    x: (f64, f64),
    y: Option<((f64, f64), Range)>,
) -> std::io::Result<(usize, usize)> {
    let mut dense = vec![0.0; ranges.len()];
    let mut line = String::new();
    let mut after = 0;
    for (i, &label) in labels.iter().enumerate() {
        line.clear();
        let _ = write!(line, "{} ", format_g(map_label(label, y), 6));
        records.row(i).to_dense_into(&mut dense);
        for (j, (&v, &r)) in dense.iter().zip(ranges).enumerate() {
            if let Some(s) = map(v, r, x).filter(|&s| s != 0.0) {
                let _ = write!(line, "{}:{} ", j + 1, format_g(s, 6));
                after += 1;
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok((records.nnz(), after))
}

fn write_csv<W: Write>(
    out: &mut W,
    data: &Dataset,
    records: &core_linalg::Matrix,
    ranges: &[Range],
    x: (f64, f64),
    y: Option<((f64, f64), Range)>,
) -> std::io::Result<()> {
    if let Some(names) = &data.feature_names {
        writeln!(out, "{},label", names.join(","))?;
    }
    let mut dense = vec![0.0; ranges.len()];
    for i in 0..records.n_samples() {
        records.row(i).to_dense_into(&mut dense);
        let fields: Vec<String> = dense
            .iter()
            .zip(ranges)
            .map(|(&v, &r)| format_shortest(map(v, r, x).unwrap_or(0.0)))
            .collect();
        let label = match &data.targets {
            Targets::Values(v) => format_shortest(map_label(v[i], y)),
            Targets::Classes(c) => c.labels()[c.indices()[i] as usize].to_string(),
        };
        writeln!(out, "{},{label}", fields.join(","))?;
    }
    Ok(())
}

fn write_params(
    path: &Path,
    x: (f64, f64),
    y: Option<((f64, f64), Range)>,
    ranges: &[Range],
) -> Result<(), Failure> {
    let mut s = String::new();
    if let Some(((lo, hi), r)) = y {
        let _ = write!(
            s,
            "y\n{} {}\n{} {}\n",
            format_g(lo, 16),
            format_g(hi, 16),
            format_g(r.min, 16),
            format_g(r.max, 16)
        );
    }
    let _ = write!(s, "x\n{} {}\n", format_g(x.0, 16), format_g(x.1, 16));
    for (j, r) in ranges.iter().enumerate() {
        if r.min != r.max {
            let _ = writeln!(
                s,
                "{} {} {}",
                j + 1,
                format_g(r.min, 16),
                format_g(r.max, 16)
            );
        }
    }
    std::fs::write(path, s).map_err(|e| Failure::from(Error::io(path, e)))
}

fn read_params(path: &Path) -> Result<Params, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::from(Error::io(path, e)))?;
    parse_params(&text).map_err(|e| Failure::in_file(path, e))
}

fn parse_params(text: &str) -> Result<Params, Error> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let numbers = |(line, l): (usize, &str), count: usize| -> Result<Vec<f64>, Error> {
        let v: Vec<f64> = l
            .split_whitespace()
            .map(|t| t.parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                Error::parse(
                    line,
                    1,
                    format!("expected {count} finite numbers, found `{l}`"),
                )
            })?;
        if v.len() != count {
            return Err(Error::parse(
                line,
                1,
                format!("expected {count} numbers, found {}", v.len()),
            ));
        }
        Ok(v)
    };
    let mut it = lines.into_iter();
    let mut next = |what: &str| {
        it.next()
            .ok_or_else(|| Error::parse(0, 1, format!("parameters file ends before {what}")))
    };
    let mut head = next("the `x` line")?;
    let mut y = None;
    if head.1 == "y" {
        let lim = numbers(next("the y limits")?, 2)?;
        let mm = numbers(next("the y range")?, 2)?;
        y = Some((
            (lim[0], lim[1]),
            Range {
                min: mm[0],
                max: mm[1],
            },
        ));
        head = next("the `x` line")?;
    }
    if head.1 != "x" {
        return Err(Error::parse(
            head.0,
            1,
            format!(
                "expected `x` (or `y`), found `{}`: not an svm-scale parameters file",
                head.1
            ),
        ));
    }
    let lim = numbers(next("the x limits")?, 2)?;
    let mut features = Vec::new();
    for (line, l) in it {
        let v = numbers((line, l), 3)?;
        if v[0] < 1.0 || v[0].fract() != 0.0 || v[0] > u32::MAX as f64 {
            return Err(Error::parse(
                line,
                1,
                format!("expected a feature index ≥ 1, found `{}`", v[0]),
            ));
        }
        if v[1] > v[2] {
            return Err(Error::parse(
                line,
                1,
                format!("minimum {} is above maximum {}", v[1], v[2]),
            ));
        }
        features.push((
            v[0] as usize,
            Range {
                min: v[1],
                max: v[2],
            },
        ));
    }
    Ok(Params {
        x: (lim[0], lim[1]),
        y,
        features,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_file_round_trips_and_malformed_files_name_the_line() {
        let p = parse_params("y\n0 1\n-1 1\nx\n-1 1\n1 0.25 3\n4 -2 2\n").unwrap();
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
                    1,
                    Range {
                        min: 0.25,
                        max: 3.0
                    }
                ),
                (
                    4,
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
        ] {
            match parse_params(text) {
                Err(Error::Parse { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                Err(e) => panic!("{text:?}: {e}"),
                Ok(_) => panic!("{text:?} accepted"),
            }
        }
    }

    #[test]
    fn mapping_is_exact_at_the_ends_and_drops_constants() {
        let r = Range { min: 2.0, max: 6.0 };
        assert_eq!(map(2.0, r, (-1.0, 1.0)), Some(-1.0));
        assert_eq!(map(6.0, r, (-1.0, 1.0)), Some(1.0));
        assert_eq!(map(3.0, r, (-1.0, 1.0)), Some(-0.5));
        assert_eq!(map(3.0, Range { min: 1.0, max: 1.0 }, (-1.0, 1.0)), None);
    }
}
