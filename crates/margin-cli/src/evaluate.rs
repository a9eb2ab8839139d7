//! `margin evaluate`: k-fold cross-validation of any registered model, folds in parallel, each
//! metric per fold and as mean ± standard deviation.

use std::time::Instant;

use clap::Args;
use core_linalg::split::{KFold, StratifiedKFold};
use core_linalg::{Dataset, Label};
use metrics::{Average, ConfusionMatrix, Score, ZeroDivision};
use rayon::prelude::*;

use crate::Failure;
use crate::data::load;
use crate::models::{Predictions, find, parse_model_command};

const USAGE: &str =
    "margin evaluate <MODEL> [--param value ...] <DATA> --cv K [--seed S] [--metrics m1,m2,...]";

const CLASSIFICATION_METRICS: [&str; 6] = [
    "accuracy",
    "balanced-accuracy",
    "f1-macro",
    "f1-weighted",
    "mcc",
    "kappa",
];
const REGRESSION_METRICS: [&str; 6] = ["r2", "rmse", "mae", "mse", "median-ae", "max-error"];

/// Arguments of `margin evaluate`.
#[derive(Args, Debug)]
#[command(disable_help_flag = true, override_usage = USAGE)]
pub struct EvaluateArgs {
    /// The model, its `--param value` pairs, the data, `--cv K`, `--seed S`, `--metrics ...`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "MODEL ARGS"
    )]
    rest: Vec<String>,
}

/// One metric of one fold's predictions.
fn metric(name: &str, test: &Dataset, predictions: &Predictions) -> Result<f64, Failure> {
    match predictions {
        Predictions::Labels(labels) | Predictions::Probabilities { labels, .. } => {
            let classes = test.targets.classes()?;
            let truth: Vec<usize> = classes.indices().iter().map(|&k| k as usize).collect();
            // A predicted label the test part never shows gets its own column.
            let mut names: Vec<Label> = classes.labels().to_vec();
            let predicted: Vec<usize> = labels
                .iter()
                .map(|l| match names.iter().position(|n| n == l) {
                    Some(k) => k,
                    None => {
                        names.push(l.clone());
                        names.len() - 1
                    }
                })
                .collect();
            let m = ConfusionMatrix::new(&truth, &predicted, names.len())?;
            let zero = ZeroDivision::Value(0.0);
            Ok(match name {
                "accuracy" => m.accuracy(),
                "balanced-accuracy" => m.balanced_accuracy(),
                "f1-macro" => m.averaged(Score::FBeta(1.0), Average::Macro, zero)?,
                "f1-weighted" => m.averaged(Score::FBeta(1.0), Average::Weighted, zero)?,
                "mcc" => m.matthews(),
                "kappa" => m.cohen_kappa(),
                other => return Err(unknown(other, &CLASSIFICATION_METRICS)),
            })
        }
        Predictions::Values(v) => {
            let truth = test.targets.values()?;
            Ok(match name {
                "r2" => metrics::r2_score(&truth, v)?,
                "rmse" => metrics::root_mean_squared_error(&truth, v)?,
                "mae" => metrics::mean_absolute_error(&truth, v)?,
                "mse" => metrics::mean_squared_error(&truth, v)?,
                "median-ae" => metrics::median_absolute_error(&truth, v)?,
                "max-error" => metrics::max_error(&truth, v)?,
                other => return Err(unknown(other, &REGRESSION_METRICS)),
            })
        }
    }
}

fn unknown(name: &str, known: &[&str]) -> Failure {
    Failure::usage(format!(
        "--metrics: `{name}` is not a metric for this model (available: {})",
        known.join(", ")
    ))
}

/// Runs `margin evaluate`.
pub fn run(args: &EvaluateArgs) -> Result<(), Failure> {
    let Some(cmd) = parse_model_command(&args.rest, USAGE, &["cv", "seed", "metrics"])? else {
        return Ok(());
    };
    let entry = find(&cmd.model)?;
    let k: usize = cmd
        .options
        .get("cv")
        .ok_or_else(|| Failure::usage(format!("missing --cv K\nusage: {USAGE}")))?
        .parse()
        .map_err(|_| Failure::usage("--cv: expected an integer ≥ 2"))?;
    let seed: u64 = match cmd.options.get("seed") {
        Some(s) => s
            .parse()
            .map_err(|_| Failure::usage("--seed: expected a non-negative integer"))?,
        None => 0,
    };
    let data = load(&cmd.data, cmd.format)?;
    // Classifiers get stratified folds, regressors plain ones.
    let folds = if entry.classifier {
        StratifiedKFold::new(k)
            .shuffle(seed)
            .split(&*data.targets.classes()?)?
    } else {
        KFold::new(k).shuffle(seed).split(data.n_samples())?
    };
    let started = Instant::now();
    let results: Vec<(Dataset, Predictions)> = folds
        .par_iter()
        .map(|fold| {
            let (train, test) = (data.select(&fold.train), data.select(&fold.test));
            let bytes = (entry.train)(&train, cmd.params.clone())?;
            let predictions = (entry.predict)(&bytes, &test.records, false)?;
            if started.elapsed().as_secs_f64() > 1.0 {
                eprint!(
                    "\rmargin evaluate: a fold finished after {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            Ok((test, predictions))
        })
        .collect::<Result<_, Failure>>()?;
    if started.elapsed().as_secs_f64() > 1.0 {
        eprintln!();
    }
    let names: Vec<String> = match cmd.options.get("metrics") {
        Some(list) => list
            .split(',')
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect(),
        None => match results.first().map(|r| &r.1) {
            Some(Predictions::Values(_)) => vec!["r2".into(), "rmse".into(), "mae".into()],
            _ => vec!["accuracy".into()],
        },
    };
    let table: Vec<Vec<f64>> = results
        .iter()
        .map(|(test, p)| {
            names
                .iter()
                .map(|n| metric(n, test, p))
                .collect::<Result<_, Failure>>()
        })
        .collect::<Result<_, Failure>>()?;
    println!(
        "{:<6}{}",
        "fold",
        names.iter().map(|n| format!("{n:>18}")).collect::<String>()
    );
    for (f, row) in table.iter().enumerate() {
        println!(
            "{:<6}{}",
            f + 1,
            row.iter().map(|v| format!("{v:>18.6}")).collect::<String>()
        );
    }
    let n = table.len() as f64;
    let means: Vec<f64> = (0..names.len())
        .map(|j| table.iter().map(|r| r[j]).sum::<f64>() / n)
        .collect();
    let sds: Vec<f64> = (0..names.len())
        .map(|j| (table.iter().map(|r| (r[j] - means[j]).powi(2)).sum::<f64>() / n).sqrt())
        .collect();
    println!(
        "{:<6}{}",
        "mean",
        means
            .iter()
            .map(|v| format!("{v:>18.6}"))
            .collect::<String>()
    );
    println!(
        "{:<6}{}",
        "std",
        sds.iter().map(|v| format!("{v:>18.6}")).collect::<String>()
    );
    Ok(())
}
