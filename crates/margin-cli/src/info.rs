//! `margin info`: what is in a data file.

use std::path::PathBuf;

use clap::Args;
use core_linalg::io::{DataFormat, format_g};
use core_linalg::preprocessing::MinMaxScaler;
use core_linalg::{Fit, Records, Targets};

use crate::Failure;
use crate::data::{FormatArg, load, resolved};

/// Most classes listed one by one; more are summarised.
const MAX_LISTED_CLASSES: usize = 50;

/// Arguments of `margin info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The data file (LIBSVM or CSV, optionally .gz/.bz2).
    data: PathBuf,
    /// Input format.
    #[arg(long, value_enum, default_value_t)]
    format: FormatArg,
    /// List each feature's value range (by default only the overall range).
    #[arg(long)]
    features: bool,
}

/// Prints the summary.
pub fn run(args: &InfoArgs) -> Result<(), Failure> {
    let format = resolved(&args.data, args.format)?;
    let data = load(&args.data, args.format)?;
    let (n, d) = (data.n_samples(), data.n_features());
    println!("file: {}", args.data.display());
    println!(
        "format: {}",
        if format == DataFormat::Csv {
            "csv"
        } else {
            "libsvm"
        }
    );
    println!("rows: {n}");
    println!("features: {d}");
    let stored = data.records.nnz();
    let layout = if data.records.as_sparse().is_some() {
        "sparse"
    } else {
        "dense"
    };
    let pct = if n * d == 0 {
        0.0
    } else {
        100.0 * stored as f64 / (n * d) as f64
    };
    println!(
        "stored values: {stored} of {} ({pct:.1} %, {layout})",
        n * d
    );
    match &data.targets {
        Targets::Values(v) if v.iter().all(|x| x.fract() == 0.0) && !v.is_empty() => {
            print_classes(&data.targets, "integer labels")?;
        }
        Targets::Values(v) if !v.is_empty() => {
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            println!(
                "targets: continuous, range [{}, {}], mean {}",
                format_g(lo, 6),
                format_g(hi, 6),
                format_g(mean, 6)
            );
        }
        Targets::Values(_) => println!("targets: none"),
        Targets::Classes(_) => print_classes(&data.targets, "text labels")?,
    }
    if d > 0 && n > 0 {
        // The scaler's fitted minima and maxima are exactly the feature ranges.
        let fitted = MinMaxScaler::params().fit(&data.records)?;
        let (lo, hi) = (fitted.data_min(), fitted.data_max());
        let all_lo = lo.iter().copied().fold(f64::INFINITY, f64::min);
        let all_hi = hi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let constant = lo.iter().zip(hi).filter(|(a, b)| a == b).count();
        println!(
            "value range: [{}, {}]; constant features: {constant}",
            format_g(all_lo, 6),
            format_g(all_hi, 6)
        );
        if args.features {
            let names = data
                .feature_names
                .clone()
                .unwrap_or_else(|| (1..=d).map(|j| j.to_string()).collect());
            for j in 0..d {
                println!(
                    "  {}: [{}, {}]",
                    names[j],
                    format_g(lo[j], 6),
                    format_g(hi[j], 6)
                );
            }
        }
    }
    Ok(())
}

fn print_classes(targets: &Targets, kind: &str) -> Result<(), Failure> {
    let classes = targets.classes()?;
    let counts = classes.counts();
    println!(
        "labels: {kind}, {} distinct (classification; regression models read them as numbers)",
        classes.n_classes()
    );
    if classes.n_classes() <= MAX_LISTED_CLASSES {
        let list: Vec<String> = classes
            .labels()
            .iter()
            .zip(&counts)
            .map(|(l, c)| format!("{l}: {c}"))
            .collect();
        println!("class counts: {}", list.join(", "));
    }
    Ok(())
}
