//! The kernel SVM through DataFusion as a cascade with feedback, against the in-memory fit on
//! the same rows: passes, time, and how far the dual objective and the predictions are from
//! the in-memory fit's, with 1, 2, 4 and 8 partitions.
//!
//! ```sh
//! cargo run --release -p margin-datafusion --example cascade                      # svmguide1
//! cargo run --release -p margin-datafusion --example cascade -- FILE 'C=1 gamma=scale'
//! ```
//!
//! `FILE` is a LIBSVM file (the bundled `svmguide1` when none is given); the parameters are
//! `margin train svc`'s. The rows are written as four Parquet files in a temporary directory;
//! the report is a Markdown table on standard output.

use std::time::Instant;

use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use margin_core::params::Params;
use margin_core::{Dataset, Fit, Predict, Records};
use margin_datafusion::fit_svc;
use margin_io::table::{batch_from_dataset, write_parquet};
use margin_io::{LibsvmOptions, read_libsvm};
use margin_svm::{Svc, SvcParams};

type Failure = Box<dyn std::error::Error>;

const FILES: usize = 4;

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (name, data) = match args.first() {
        Some(path) => (
            path.rsplit('/').next().unwrap_or(path).to_owned(),
            read_libsvm(path.as_ref(), &LibsvmOptions::default())?,
        ),
        None => ("svmguide1".to_owned(), margin_io::datasets::svmguide1()?),
    };
    let data = Dataset::new(data.records.to_dense()?, data.targets.clone())?;
    let mut params = Svc::params();
    for pair in args.get(1).map_or("", String::as_str).split_whitespace() {
        let (key, value) = pair
            .split_once('=')
            .ok_or("parameters are name=value pairs")?;
        params.set(key, value)?;
    }

    let dir = tempfile::tempdir()?;
    let n = data.n_samples();
    for k in 0..FILES {
        let rows: Vec<usize> = (k * n / FILES..(k + 1) * n / FILES).collect();
        let batch = batch_from_dataset(&data.select(&rows)?)?;
        write_parquet(&dir.path().join(format!("part-{k}.parquet")), &batch)?;
    }
    let features: Vec<String> = (0..data.n_features()).map(|j| format!("x{j}")).collect();

    let start = Instant::now();
    let whole = params.fit(&data)?;
    let in_memory = start.elapsed().as_secs_f64();
    let truth = whole.predict(&data.records)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    println!(
        "{name}: {n} rows × {} features, {} support vectors in memory, in {in_memory:.2} s\n",
        data.n_features(),
        whole.support_indices().len()
    );
    println!(
        "| partitions | passes | points fed back per pass | time (s) | × in memory | objective gap | predictions differing |"
    );
    println!("|---|---|---|---|---|---|---|");
    for partitions in [1, 2, 4, 8] {
        let (fit, seconds) = runtime.block_on(cascade(&dir, &features, &params, partitions))?;
        let gap = fit
            .model
            .problems()
            .iter()
            .zip(whole.problems())
            .map(|(a, b)| (a.objective - b.objective).abs() / b.objective.abs())
            .fold(0.0, f64::max);
        let predicted = fit.model.predict(&data.records)?;
        let differ = predicted.iter().zip(&truth).filter(|(a, b)| a != b).count();
        let fed: Vec<String> = fit.passes.iter().map(|p| p.fed.to_string()).collect();
        println!(
            "| {partitions} | {} | {} | {seconds:.2} | {:.2} | {gap:.1e} | {differ} |",
            fit.passes.len(),
            fed.join(", "),
            seconds / in_memory
        );
    }
    Ok(())
}

/// The cascade fit over the Parquet files with `partitions` partitions, and its time.
async fn cascade(
    dir: &tempfile::TempDir,
    features: &[String],
    params: &SvcParams,
    partitions: usize,
) -> Result<(margin_svm::CascadeFit, f64), Failure> {
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    margin_datafusion::register(&ctx);
    let path = dir
        .path()
        .to_str()
        .ok_or("a temporary path that is not UTF-8")?;
    ctx.register_parquet("rows", path, ParquetReadOptions::default())
        .await?;
    let features: Vec<&str> = features.iter().map(String::as_str).collect();
    let start = Instant::now();
    let fit = fit_svc(&ctx, "rows", "label", &features, params).await?;
    Ok((fit, start.elapsed().as_secs_f64()))
}
