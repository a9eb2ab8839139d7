//! `margin evaluate`: k-fold cross-validation of any registered model, folds in parallel, each
//! metric per fold and as mean ± standard deviation.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;
use margin_core::split::{Fold, KFold, StratifiedKFold};
use margin_core::{Convergence, Dataset, Label};
use margin_metrics::{Average, ConfusionMatrix, Score, ZeroDivision};
use rayon::prelude::*;

use crate::Failure;
use crate::data::{load, nulls_for};
use crate::grid;
use crate::models::{Predictions, find, parse_model_command, predict_bytes, roc_scores};
use crate::output::{Out, Progress, check_outputs, output_error};

const USAGE: &str = "margin evaluate <MODEL> [--param value ...] <DATA> --cv K [--seed S] [--metrics m1,m2,...] [--grid \"NAME=V1,V2 NAME=V1,V2\"]";

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
            let classes = test.targets.to_classes()?;
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
            let m = ConfusionMatrix::new(classes.indices(), &predicted, names.len())?;
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
                "r2" => margin_metrics::r2_score(&truth, v)?,
                "rmse" => margin_metrics::root_mean_squared_error(&truth, v)?,
                "mae" => margin_metrics::mean_absolute_error(&truth, v)?,
                "mse" => margin_metrics::mean_squared_error(&truth, v)?,
                "median-ae" => margin_metrics::median_absolute_error(&truth, v)?,
                "max-error" => margin_metrics::max_error(&truth, v)?,
                other => return Err(unknown(other, &REGRESSION_METRICS)),
            })
        }
        Predictions::Clusters(c) => match name {
            "adjusted-rand" => crate::models::adjusted_rand(&test.targets, c),
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

/// `--cv K`: the number of folds, at least 2.
fn folds_option(text: Option<&String>) -> Result<usize, Failure> {
    let text = text.ok_or_else(|| Failure::usage(format!("missing --cv K\nusage: {USAGE}")))?;
    match text.parse::<usize>() {
        Ok(k) if k >= 2 => Ok(k),
        _ => Err(Failure::usage(format!(
            "--cv: expected a number of folds, at least 2, found `{text}`"
        ))),
    }
}

/// `--metrics m1,m2`: the names given, each checked to be a metric of some kind (whether it
/// fits this model's predictions is checked on them).
fn metric_names(list: &str) -> Result<Vec<String>, Failure> {
    let known: Vec<&str> = CLASSIFICATION_METRICS
        .iter()
        .chain(&REGRESSION_METRICS)
        .chain(&["adjusted-rand"])
        .copied()
        .collect();
    let names: Vec<String> = list
        .split(',')
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty())
        .collect();
    if names.is_empty() {
        return Err(Failure::usage(format!(
            "--metrics: name at least one metric ({})",
            known.join(", ")
        )));
    }
    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(Failure::usage(format!(
            "--metrics: unknown metric `{bad}` (metrics: {})",
            known.join(", ")
        )));
    }
    Ok(names)
}

/// Runs `margin evaluate`.
pub fn run(args: &EvaluateArgs) -> Result<(), Failure> {
    let Some(cmd) = parse_model_command(
        &args.rest,
        USAGE,
        &["cv", "seed", "metrics", "roc", "report", "grid"],
    )?
    else {
        return Ok(());
    };
    let entry = find(&cmd.model)?;
    let k = folds_option(cmd.options.get("cv"))?;
    let seed: u64 = match cmd.options.get("seed") {
        Some(s) => s.parse().map_err(|_| {
            Failure::usage(format!(
                "--seed: expected a non-negative integer, found `{s}`"
            ))
        })?,
        None => 0,
    };
    let given_metrics = cmd
        .options
        .get("metrics")
        .map(|list| metric_names(list))
        .transpose()?;
    let roc_path = cmd.options.get("roc").map(PathBuf::from);
    let report_path = cmd.options.get("report").map(PathBuf::from);
    let outputs: Vec<&Path> = roc_path
        .iter()
        .chain(&report_path)
        .map(|p| p.as_path())
        .collect();
    check_outputs(&[&cmd.data], &outputs)?;
    let scorer = match (&roc_path, entry.roc) {
        (None, _) => None,
        (Some(_), Some(how)) => Some(how),
        (Some(_), None) => {
            return Err(Failure::usage(format!(
                "--roc: model `{}` gives no scores for a ROC curve",
                cmd.model
            )));
        }
    };
    let data = load(&cmd.data, &cmd.read, nulls_for(entry))?;
    if roc_path.is_some() {
        let n = data.targets.to_classes()?.n_classes();
        if n != 2 {
            return Err(Failure::usage(format!(
                "--roc: a ROC curve needs two classes, the data has {n}"
            )));
        }
    }
    if k > data.n_samples() {
        return Err(Failure::usage(format!(
            "--cv {k}: more folds than samples ({}); use at most one fold per sample",
            data.n_samples()
        )));
    }
    // Classifiers get stratified folds, regressors plain ones.
    let folds = if entry.classifier() {
        StratifiedKFold::new(k).shuffle(seed).split(&data)
    } else {
        KFold::new(k).shuffle(seed).split(data.n_samples())
    }?;
    let points = match cmd.options.get("grid") {
        Some(_) if roc_path.is_some() || report_path.is_some() => {
            return Err(Failure::usage(
                "--grid goes without --roc and --report: evaluate the best point alone for those",
            ));
        }
        Some(spec) => grid::candidates(spec, &cmd.params)?,
        None => vec![grid::Candidate {
            settings: Vec::new(),
            params: cmd.params.clone(),
        }],
    };
    // Every (grid point, fold) pair is one fit; all of them share the machine's threads.
    let jobs: Vec<(usize, usize)> = (0..points.len())
        .flat_map(|c| (0..folds.len()).map(move |f| (c, f)))
        .collect();
    let progress = Progress::new(jobs.len());
    let done = AtomicUsize::new(0);
    let fitted: Vec<(FoldResult, Option<Convergence>)> = jobs
        .par_iter()
        .map(|&(c, f)| {
            let fold = &folds[f];
            let run = || {
                let (train, test) = (data.select(&fold.train)?, data.select(&fold.test)?);
                let params = points[c]
                    .params
                    .clone()
                    .selected(&fold.train, data.n_samples());
                let fitted = entry.train(&train, params)?;
                let bytes = &fitted.bytes;
                let predictions = predict_bytes(bytes, Cow::Borrowed(&test.records), false)?;
                let scores = scorer
                    .map(|how| roc_scores(how, bytes, &test.records))
                    .transpose()?;
                Ok(((test, predictions, scores), fitted.convergence))
            };
            let result = run().map_err(|e: Failure| {
                let e = e.within(format_args!(
                    "cross-validation fold {} of {}",
                    f + 1,
                    folds.len()
                ));
                match points[c].settings.is_empty() {
                    true => e,
                    false => e.within(format_args!("grid point {}", shown(&points[c]))),
                }
            });
            progress.show(done.fetch_add(1, Ordering::Relaxed) + 1, "fits done");
            result
        })
        .collect::<Result<_, Failure>>()?;
    progress.clear();
    let (results, convergence): (Vec<FoldResult>, Vec<_>) = fitted.into_iter().unzip();
    crate::convergence::warn_after_cross_validation(entry, &convergence);
    let names: Vec<String> = match given_metrics {
        Some(names) => names,
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
    if points.len() > 1 || !points[0].settings.is_empty() {
        let rows: Vec<_> = points
            .iter()
            .zip(table.chunks(folds.len()))
            .map(|(point, rows)| {
                let (means, sds) = mean_and_sd(rows, names.len());
                (shown(point), means, sds)
            })
            .collect();
        let mut out = Out::stdout();
        out.write_all(grid::summary(&names, &rows).as_bytes())?;
        return out.finish();
    }
    let line = |head: &str, cells: &[String]| format!("{head:<6}{}\n", cells.concat());
    let mut text = line(
        "fold",
        &names.iter().map(|n| format!("{n:>18}")).collect::<Vec<_>>(),
    );
    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:>18.6}")).collect::<Vec<_>>();
    for (f, row) in table.iter().enumerate() {
        text.push_str(&line(&(f + 1).to_string(), &fmt(row)));
    }
    let (means, sds) = mean_and_sd(&table, names.len());
    text.push_str(&line("mean", &fmt(&means)));
    text.push_str(&line("std", &fmt(&sds)));
    // Everything is computed before anything is written: a refusal leaves every output as
    // it was.
    let roc = match &roc_path {
        Some(_) => Some(pooled_roc(&folds, &data, &results)?),
        None => None,
    };
    let report = match &report_path {
        Some(_) => Some(report(
            &args.rest,
            &text,
            &folds,
            &data,
            &results,
            roc.as_ref().map(|r| r.1),
        )?),
        None => None,
    };
    if let (Some(path), Some((svg, _))) = (&roc_path, &roc) {
        margin_metrics::plot::write_chart(path, svg).map_err(|e| output_error(path, e))?;
    }
    if let (Some(path), Some(md)) = (&report_path, &report) {
        let mut out = Out::file(path)?;
        out.write_all(md.as_bytes())?;
        out.finish()?;
    }
    let mut out = Out::stdout();
    out.write_all(text.as_bytes())?;
    out.finish()
}

/// Each column's mean and (population) standard deviation over the rows of `table`.
fn mean_and_sd(table: &[Vec<f64>], columns: usize) -> (Vec<f64>, Vec<f64>) {
    let n = table.len() as f64;
    let means: Vec<f64> = (0..columns)
        .map(|j| table.iter().map(|r| r[j]).sum::<f64>() / n)
        .collect();
    let sds = (0..columns)
        .map(|j| (table.iter().map(|r| (r[j] - means[j]).powi(2)).sum::<f64>() / n).sqrt())
        .collect();
    (means, sds)
}

/// A grid point's settings as `name=value` words.
fn shown(point: &grid::Candidate) -> String {
    point
        .settings
        .iter()
        .map(|(flag, value)| format!("{flag}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Pools the folds' held-out scores into one ROC curve: its chart (SVG) and its area.
fn pooled_roc(
    folds: &[Fold],
    data: &Dataset,
    results: &[FoldResult],
) -> Result<(String, f64), Failure> {
    let classes = data.targets.to_classes()?;
    let mut scores = vec![0.0; data.n_samples()];
    for (fold, (_, _, s)) in folds.iter().zip(results) {
        for (&i, &v) in fold.test.iter().zip(s.iter().flatten()) {
            scores[i] = v;
        }
    }
    // Scores grow toward the second (larger) class, as the models' decision functions do.
    let positive: Vec<bool> = classes.indices().iter().map(|&k| k == 1).collect();
    let curve = margin_metrics::roc_curve(&positive, &scores, true)?;
    let auc = margin_metrics::roc_auc(&positive, &scores)?;
    Ok((margin_metrics::plot::roc_svg(&curve, auc), auc))
}

/// A Markdown report: the command, the fold table, the pooled AUROC, and for classifiers the
/// pooled predictions' classification report.
fn report(
    words: &[String],
    table: &str,
    folds: &[Fold],
    data: &Dataset,
    results: &[FoldResult],
    auc: Option<f64>,
) -> Result<String, Failure> {
    let mut md = format!(
        "# margin evaluate\n\n`margin evaluate {}`\n\n```text\n{table}```\n",
        words.join(" ")
    );
    if let Some(auc) = auc {
        md.push_str(&format!("\nPooled cross-validated AUROC: {auc:.6}\n"));
    }
    if let Ok(classes) = data.targets.to_classes() {
        let mut predicted = vec![None; data.n_samples()];
        for (fold, (_, p, _)) in folds.iter().zip(results) {
            if let Predictions::Labels(labels) | Predictions::Probabilities { labels, .. } = p {
                for (&i, l) in fold.test.iter().zip(labels) {
                    predicted[i] = classes.labels().iter().position(|c| c == l);
                }
            }
        }
        if let Some(predicted) = predicted.into_iter().collect::<Option<Vec<usize>>>() {
            let m = ConfusionMatrix::new(classes.indices(), &predicted, classes.n_classes())?;
            let names: Vec<String> = classes.labels().iter().map(ToString::to_string).collect();
            md.push_str(&format!(
                "\nPooled over the folds:\n\n```text\n{}```\n",
                m.report(&names)?
            ));
        }
    }
    Ok(md)
}
