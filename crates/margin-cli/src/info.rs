//! `margin info`: what is in a data file, or the kind and hyperparameters of a model file.
//!
//! Runs in memory proportional to the stored values: feature ranges come from
//! [`column_ranges`], which keeps only the features some row stores, so a LIBSVM file whose one
//! feature index is 2,147,483,647 costs two ranges, not two billion.

use std::path::{Path, PathBuf};

use clap::Args;
use margin_core::format::format_g;
use margin_core::params::ParamInfo;
use margin_core::{Hyperparams, Records, Targets};
use margin_io::{DataFormat, DataInput, Nulls};
use margin_preprocessing::column_ranges;
use margin_svm::LibsvmModel;

use crate::Failure;
use crate::data::{DataArgs, FormatArg, load_from, open};
use crate::model_params::params_json;
use crate::models::entry_of;
use crate::output::{Out, outln};

/// Most classes listed one by one; more are summarised.
const MAX_LISTED_CLASSES: usize = 50;

/// Arguments of `margin info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The data file (LIBSVM or CSV, optionally .gz/.bz2; Parquet; Arrow), or a model file
    /// written by `margin train`: its kind and the hyperparameters it was trained with, one
    /// `  name = value` line each.
    data: PathBuf,
    /// Input format.
    #[arg(long, value_enum, default_value_t)]
    format: FormatArg,
    /// The label column of a Parquet, Arrow or CSV file, by name (default: the last column).
    #[arg(long, value_name = "NAME")]
    label: Option<String>,
    /// The file has no label column: every column may be a feature.
    #[arg(long, conflicts_with = "label")]
    no_label: bool,
    /// List each feature's value range (by default only the overall range): one line
    /// `  FEATURE: [MIN, MAX]` per feature that some row stores, in increasing order (FEATURE is
    /// the column name; else the one-based LIBSVM index or CSV column, or the zero-based index
    /// of a Parquet or Arrow list column), then, when some features are stored
    /// in no row (sparse files), one line `  never stored: N features, all 0` instead of
    /// listing them. `--features=A,B,C` reads only those columns of a Parquet, Arrow or CSV
    /// file (as `--features A,B,C` does in `train` and `predict`) and lists them.
    #[arg(
        long,
        value_name = "A,B,C",
        num_args = 0..=1,
        require_equals = true,
        value_delimiter = ','
    )]
    features: Option<Vec<String>>,
    /// For a model file: print only its hyperparameters, as the JSON object `margin train
    /// --params FILE.json` reads (to train again with the same settings).
    #[arg(long)]
    params_json: bool,
}

/// Prints the summary.
pub fn run(args: &InfoArgs) -> Result<(), Failure> {
    // Opened once: whether it is a model file is read from the same bytes the reader then
    // reads, so a pipe works.
    let mut input = open(&args.data)?;
    let head = input
        .head(LIBSVM_MODEL.len())
        .map_err(|e| Failure::in_file(&args.data, e))?
        .to_vec();
    let margin_model = margin_io::is_model_file(&head);
    if margin_model || head.starts_with(LIBSVM_MODEL) {
        if args.features.is_some() {
            return Err(Failure::usage(
                "--features describes a data file; this is a model file",
            ));
        }
        return model_info(input, margin_model, args.params_json);
    }
    if args.params_json {
        return Err(Failure::usage(format!(
            "--params-json reads a model file written by `margin train`; {} is not one",
            args.data.display()
        )));
    }
    let read = DataArgs {
        format: args.format,
        label: args.label.clone(),
        no_label: args.no_label,
        features: args.features.clone().filter(|names| !names.is_empty()),
    };
    // Nulls are described (counted as missing values), not refused.
    let (data, format) = load_from(input, &read, Nulls::AsNan)?;
    let (n, d) = (data.n_samples(), data.n_features());
    let mut out = Out::stdout();
    outln!(out, "file: {}", args.data.display())?;
    outln!(out, "format: {}", format.name())?;
    outln!(out, "rows: {n}")?;
    outln!(out, "features: {d}")?;
    let stored = data.records.nnz();
    let layout = if data.records.as_sparse().is_some() {
        "sparse"
    } else {
        "dense"
    };
    // n·d overflows 64 bits for wide enough sparse files.
    let cells = n as u128 * d as u128;
    let pct = if cells == 0 {
        0.0
    } else {
        100.0 * stored as f64 / cells as f64
    };
    outln!(
        out,
        "stored values: {stored} of {cells} ({pct:.1} %, {layout})"
    )?;
    // Only a table's nulls become NaN (the text readers refuse it), and tables are dense.
    let missing = data
        .records
        .as_dense()
        .map_or(0, |m| m.as_slice().iter().filter(|x| x.is_nan()).count());
    if missing > 0 {
        outln!(out, "missing values (nulls): {missing}")?;
    }
    match &data.targets {
        Targets::Values(v) if v.iter().all(|x| x.fract() == 0.0) && !v.is_empty() => {
            print_classes(&mut out, &data.targets, "integer labels")?;
        }
        Targets::Values(v) if !v.is_empty() => {
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            outln!(
                out,
                "targets: continuous, range [{}, {}], mean {}",
                format_g(lo, 6),
                format_g(hi, 6),
                format_g(mean, 6)
            )?;
        }
        Targets::Values(_) => outln!(out, "targets: none")?,
        Targets::Classes(_) => print_classes(&mut out, &data.targets, "text labels")?,
    }
    if d > 0 && n > 0 {
        let ranges = column_ranges(&data.records)?;
        let never_stored = d - ranges.n_stored();
        // Features no row stores are all zero: they count in the overall range and as constant.
        let zero = (never_stored > 0).then_some(0.0);
        let all_lo = ranges
            .iter()
            .map(|(_, lo, _)| lo)
            .chain(zero)
            .fold(f64::INFINITY, f64::min);
        let all_hi = ranges
            .iter()
            .map(|(_, _, hi)| hi)
            .chain(zero)
            .fold(f64::NEG_INFINITY, f64::max);
        let constant = never_stored + ranges.iter().filter(|(_, lo, hi)| lo == hi).count();
        outln!(
            out,
            "value range: [{}, {}]; constant features: {constant}",
            format_g(all_lo, 6),
            format_g(all_hi, 6)
        )?;
        if args.features.is_some() {
            let names = data.feature_names.as_deref();
            // Features without names are numbered as the file numbers them: LIBSVM's indices
            // and CSV's columns from 1, a table's list column (sparse indices, fixed-size list
            // positions) from 0.
            let table = matches!(format, DataFormat::Parquet | DataFormat::ArrowIpc);
            if names.is_none() && table {
                outln!(
                    out,
                    "  (features by their zero-based index in the table's list column)"
                )?;
            }
            let first = usize::from(!table);
            for (j, lo, hi) in ranges.iter() {
                let lo_hi = format!("[{}, {}]", format_g(lo, 6), format_g(hi, 6));
                match names.and_then(|h| h.get(j)) {
                    Some(name) => outln!(out, "  {name}: {lo_hi}")?,
                    None => outln!(out, "  {}: {lo_hi}", j + first)?,
                }
            }
            if never_stored > 0 {
                outln!(out, "  never stored: {never_stored} features, all 0")?;
            }
        }
    }
    out.finish()
}

/// How a LIBSVM model file (`svm-train`'s) begins.
const LIBSVM_MODEL: &[u8] = b"svm_type ";

/// `  name = value` lines of described parameters, in their order.
pub fn param_lines(infos: &[ParamInfo]) -> String {
    infos
        .iter()
        .map(|p| format!("  {} = {}", p.name, p.value))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The hyperparameters stored in the model file at `path` (its bytes), through the entry of
/// its kind.
pub fn stored_params(path: &Path, bytes: &[u8]) -> Result<(&'static str, Vec<ParamInfo>), Failure> {
    let entry = entry_of(path, bytes)?;
    let infos = crate::models::stored(bytes).map_err(|f| f.within(path.display()))?;
    Ok((entry.kind(), infos))
}

/// `margin info MODEL_FILE`: the kind and the stored hyperparameters, or with `json` those
/// alone as a parameter file. A LIBSVM model file (not `margin`'s) has the parameters its
/// header implies, the others at their defaults (see `margin_svm::SvcHyperparams`).
fn model_info(input: DataInput, margin_model: bool, json: bool) -> Result<(), Failure> {
    let path = input.path().to_path_buf();
    let path = path.as_path();
    let (model, infos) = if margin_model {
        // The header's claims are checked before the body is read, from a pipe too.
        let bytes = input
            .into_model_file()
            .map_err(|e| Failure::in_file(path, e))?;
        let (kind, infos) = stored_params(path, &bytes)?;
        (format!("{kind} (margin model file)"), infos)
    } else {
        // As for margin's: a regular file to LIBSVM's model reader, a pipe read whole here.
        let model = if input.is_regular_file() {
            drop(input);
            LibsvmModel::load(path)
        } else {
            input
                .into_bytes()
                .and_then(|bytes| LibsvmModel::from_bytes(&bytes))
        }
        .map_err(|e| Failure::in_file(path, e))?;
        let infos = model.describe_hyperparams();
        let kind = match model {
            LibsvmModel::Svc(m) if m.is_nu() => "nu_svc",
            LibsvmModel::Svc(_) => "c_svc",
            LibsvmModel::SingleClass(m) if m.is_nu() => "nu_svc",
            LibsvmModel::SingleClass(_) => "c_svc",
            LibsvmModel::Svr(m) if m.is_nu() => "nu_svr",
            LibsvmModel::Svr(_) => "epsilon_svr",
            LibsvmModel::OneClass(_) => "one_class",
        };
        let note = "the parameters its header implies, the others at their defaults";
        (format!("{kind} (LIBSVM model file: {note})"), infos)
    };
    let mut out = Out::stdout();
    if json {
        outln!(out, "{}", params_json(&infos))?;
    } else {
        outln!(out, "file: {}", path.display())?;
        outln!(out, "model: {model}")?;
        outln!(out, "parameters:\n{}", param_lines(&infos))?;
    }
    out.finish()
}

fn print_classes(out: &mut Out, targets: &Targets, kind: &str) -> Result<(), Failure> {
    let classes = targets.to_classes()?;
    let counts = classes.counts();
    outln!(
        out,
        "labels: {kind}, {} distinct (classification; regression models read them as numbers)",
        classes.n_classes()
    )?;
    if classes.n_classes() <= MAX_LISTED_CLASSES {
        let list: Vec<String> = classes
            .labels()
            .iter()
            .zip(&counts)
            .map(|(l, c)| format!("{l}: {c}"))
            .collect();
        outln!(out, "class counts: {}", list.join(", "))?;
    }
    Ok(())
}
