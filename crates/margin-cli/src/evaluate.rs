//! `margin evaluate`: k-fold cross-validation of any registered model, folds in parallel, each
//! metric per fold and as mean ± standard deviation.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use core_linalg::split::{Fold, KFold, StratifiedKFold};
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
        Predictions::Clusters(c) => match name {
            "adjusted-rand" => crate::models::adjusted_rand(test, c),
            other => Err(unknown(other, &["adjusted-rand"])),
        },
    }
}

fn unknown(name: &str, known: &[&str]) -> Failure {
    Failure::usage(format!(
        "--metrics: `{name}` is not a metric for this model (available: {})",
        known.join(", ")
    ))
}

/// One fold's held-out part, its predictions and (for `--roc`) its scores.
type FoldResult = (Dataset, Predictions, Option<Vec<f64>>);

/// Runs `margin evaluate`.
pub fn run(args: &EvaluateArgs) -> Result<(), Failure> {
    let Some(cmd) = parse_model_command(
        &args.rest,
        USAGE,
        &["cv", "seed", "metrics", "roc", "report"],
    )?
    else {
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
    let roc_path = cmd.options.get("roc").map(PathBuf::from);
    let scorer = match (&roc_path, entry.scores) {
        (None, _) => None,
        (Some(_), Some(f)) => Some(f),
        (Some(_), None) => {
            return Err(Failure::usage(format!(
                "--roc: model `{}` gives no scores for a ROC curve",
                cmd.model
            )));
        }
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
    let results: Vec<FoldResult> = folds
        .par_iter()
        .map(|fold| {
            let (train, test) = (data.select(&fold.train)?, data.select(&fold.test)?);
            let bytes = (entry.train)(&train, cmd.params.clone())?;
            let predictions = (entry.predict)(&bytes, &test.records, false)?;
            let scores = scorer.map(|f| f(&bytes, &test.records)).transpose()?;
            if started.elapsed().as_secs_f64() > 1.0 {
                eprint!(
                    "\rmargin evaluate: a fold finished after {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            Ok((test, predictions, scores))
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
            Some(Predictions::Clusters(_)) => vec!["adjusted-rand".into()],
            _ => vec!["accuracy".into()],
        },
    };
    let table: Vec<Vec<f64>> = results
        .iter()
        .map(|(test, p, _)| {
            names
                .iter()
                .map(|n| metric(n, test, p))
                .collect::<Result<_, Failure>>()
        })
        .collect::<Result<_, Failure>>()?;
    let line = |head: &str, cells: &[String]| format!("{head:<6}{}\n", cells.concat());
    let mut text = line(
        "fold",
        &names.iter().map(|n| format!("{n:>18}")).collect::<Vec<_>>(),
    );
    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:>18.6}")).collect::<Vec<_>>();
    for (f, row) in table.iter().enumerate() {
        text.push_str(&line(&(f + 1).to_string(), &fmt(row)));
    }
    let n = table.len() as f64;
    let means: Vec<f64> = (0..names.len())
        .map(|j| table.iter().map(|r| r[j]).sum::<f64>() / n)
        .collect();
    let sds: Vec<f64> = (0..names.len())
        .map(|j| (table.iter().map(|r| (r[j] - means[j]).powi(2)).sum::<f64>() / n).sqrt())
        .collect();
    text.push_str(&line("mean", &fmt(&means)));
    text.push_str(&line("std", &fmt(&sds)));
    print!("{text}");
    let auc = match &roc_path {
        Some(path) => Some(write_roc(path, &folds, &data, &results)?),
        None => None,
    };
    if let Some(path) = cmd.options.get("report") {
        write_report(
            Path::new(path),
            &args.rest,
            &text,
            &folds,
            &data,
            &results,
            auc,
        )?;
    }
    Ok(())
}

/// Pools the folds' held-out scores into one ROC curve, writes it as SVG, returns its area.
fn write_roc(
    path: &Path,
    folds: &[Fold],
    data: &Dataset,
    results: &[FoldResult],
) -> Result<f64, Failure> {
    let classes = data.targets.classes()?;
    let mut scores = vec![0.0; data.n_samples()];
    for (fold, (_, _, s)) in folds.iter().zip(results) {
        for (&i, &v) in fold.test.iter().zip(s.iter().flatten()) {
            scores[i] = v;
        }
    }
    // Scores grow toward the second (larger) class, as the models' decision functions do.
    let positive: Vec<bool> = classes.indices().iter().map(|&k| k == 1).collect();
    let curve = metrics::roc_curve(&positive, &scores, true)?;
    let auc = metrics::roc_auc(&positive, &scores)?;
    metrics::plot::write_chart(path, &metrics::plot::roc_svg(&curve, auc))?;
    Ok(auc)
}

/// A Markdown report: the command, the fold table, the pooled AUROC, and for classifiers the
/// pooled predictions' classification report.
fn write_report(
    path: &Path,
    words: &[String],
    table: &str,
    folds: &[Fold],
    data: &Dataset,
    results: &[FoldResult],
    auc: Option<f64>,
) -> Result<(), Failure> {
    let mut md = format!(
        "# margin evaluate\n\n`margin evaluate {}`\n\n```text\n{table}```\n",
        words.join(" ")
    );
    if let Some(auc) = auc {
        md.push_str(&format!("\nPooled cross-validated AUROC: {auc:.6}\n"));
    }
    if let Ok(classes) = data.targets.classes() {
        let mut predicted = vec![None; data.n_samples()];
        for (fold, (_, p, _)) in folds.iter().zip(results) {
            if let Predictions::Labels(labels) | Predictions::Probabilities { labels, .. } = p {
                for (&i, l) in fold.test.iter().zip(labels) {
                    predicted[i] = classes.labels().iter().position(|c| c == l);
                }
            }
        }
        if let Some(predicted) = predicted.into_iter().collect::<Option<Vec<usize>>>() {
            let truth: Vec<usize> = classes.indices().iter().map(|&k| k as usize).collect();
            let m = ConfusionMatrix::new(&truth, &predicted, classes.n_classes())?;
            let names: Vec<String> = classes.labels().iter().map(ToString::to_string).collect();
            md.push_str(&format!(
                "\nPooled over the folds:\n\n```text\n{}```\n",
                m.report(&names)?
            ));
        }
    }
    std::fs::write(path, md).map_err(|e| Failure::from(core_linalg::Error::io(path, e)))
}
