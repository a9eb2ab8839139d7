//! How margin's fits through DataFusion scale against the same fits in memory: ridge (one pass),
//! logistic regression (one query per L-BFGS step) and k-means (one query per Lloyd step) on a
//! generated table of 10⁷ rows × 20 features written as Parquet, with 1 and 2 partitions per
//! core. Each fit runs in a child process of its own, which reports its time and its peak
//! resident memory: the streaming fits must not hold the table.
//!
//! ```sh
//! cargo run --release -p margin-datafusion --example scale            # 10⁷ rows
//! cargo run --release -p margin-datafusion --example scale -- 1000000 # fewer
//! ```
//!
//! The table is written once to `$TMPDIR/margin-scale-ROWS/` (ten Parquet files) and kept for
//! the next run; the report is a Markdown table on standard output.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchReader};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use margin_cluster::KMeans;
use margin_core::{Dataset, Fit};
use margin_io::table::dataset_from_batches;
use margin_io::{AtomicFile, LabelColumn, TableColumns};
use margin_linear::{LogisticRegression, Ridge};

const FEATURES: usize = 20;
const FILES: usize = 10;

type Failure = Box<dyn std::error::Error>;

/// One fit of the report: its name, its kind and parameters for `fit_distributed`, its label.
struct Model {
    name: &'static str,
    kind: &'static str,
    params: &'static str,
    label: Option<&'static str>,
}

const MODELS: [Model; 3] = [
    Model {
        name: "ridge",
        kind: "ridge",
        params: "alpha=1",
        label: Some("y"),
    },
    Model {
        name: "logistic regression",
        kind: "logistic-regression",
        params: "C=1",
        label: Some("class"),
    },
    Model {
        name: "k-means (k = 8)",
        kind: "kmeans",
        params: "n_clusters=8 n_init=1 seed=0 max_iter=20 tol=0",
        label: None,
    },
];

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--child") {
        return child(&args[1..]);
    }
    let rows: usize = match args.first() {
        Some(n) => n.parse()?,
        None => 10_000_000,
    };
    let dir = std::env::temp_dir().join(format!("margin-scale-{rows}"));
    let bytes = write_table(&dir, rows)?;
    let cores = std::thread::available_parallelism()?.get();
    println!(
        "{rows} rows × {FEATURES} features: {:.0} MB as f64 in memory, {:.0} MB of Parquet in {FILES} files; {cores} cores\n",
        (rows * FEATURES * 8) as f64 / 1e6,
        bytes as f64 / 1e6
    );
    println!("| model | run | load s | fit s | total s | ratio to in memory | peak RSS MB |");
    println!("|---|---|---|---|---|---|---|");
    for (m, model) in MODELS.iter().enumerate() {
        let memory = run_child(&dir, m, 0)?;
        let print = |run: &str, r: &Measure| {
            println!(
                "| {} | {run} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
                model.name,
                r.load,
                r.fit,
                r.load + r.fit,
                (r.load + r.fit) / (memory.load + memory.fit),
                r.peak_rss as f64 / 1e6
            );
        };
        print("in memory", &memory);
        for per_core in [1, 2] {
            let run = run_child(&dir, m, per_core * cores)?;
            print(
                &format!("DataFusion, {} partitions", per_core * cores),
                &run,
            );
        }
    }
    Ok(())
}

/// What a child reports.
struct Measure {
    load: f64,
    fit: f64,
    peak_rss: u64,
}

/// Runs model `m` in a child process: in memory (`partitions` 0) or through DataFusion.
fn run_child(dir: &Path, m: usize, partitions: usize) -> Result<Measure, Failure> {
    let out = Command::new(std::env::current_exe()?)
        .args(["--child", &m.to_string(), &partitions.to_string()])
        .arg(dir)
        .output()?;
    if !out.status.success() {
        return Err(format!("the child failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let text = String::from_utf8(out.stdout)?;
    let numbers: Vec<f64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let [load, fit, peak_rss] = numbers[..] else {
        return Err(format!("the child said {text:?}").into());
    };
    Ok(Measure {
        load,
        fit,
        peak_rss: peak_rss as u64,
    })
}

/// The child: fits model `args[0]` with `args[1]` partitions (0: in memory) on the table in
/// `args[2]`, then prints the load time, the fit time and its peak RSS.
fn child(args: &[String]) -> Result<(), Failure> {
    let model = &MODELS[args[0].parse::<usize>()?];
    let partitions: usize = args[1].parse()?;
    let dir = PathBuf::from(&args[2]);
    let start = Instant::now();
    let (load, fit) = if partitions == 0 {
        let data = read_table(&dir, model.label)?;
        let load = start.elapsed().as_secs_f64();
        let start = Instant::now();
        match model.kind {
            "ridge" => drop(Ridge::params().alpha(1.0).fit(&data)?),
            "logistic-regression" => drop(LogisticRegression::params().c(1.0).fit(&data)?),
            _ => {
                let params = KMeans::params().n_clusters(8).n_init(1).seed(0);
                drop(params.max_iter(20).tol(0.0).fit(&data.records)?)
            }
        }
        (load, start.elapsed().as_secs_f64())
    } else {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let config = SessionConfig::new().with_target_partitions(partitions);
            let ctx = SessionContext::new_with_config(config);
            let _models = margin_datafusion::register(&ctx);
            let path = dir.to_str().ok_or("a path that is not UTF-8")?;
            ctx.register_parquet("scale", path, ParquetReadOptions::default())
                .await?;
            let columns: Vec<String> = model
                .label
                .into_iter()
                .map(str::to_owned)
                .chain((0..FEATURES).map(|j| format!("x{j}")))
                .collect();
            let query = format!("SELECT {} FROM scale", columns.join(", "));
            let fitted = margin_datafusion::fit_distributed(
                &ctx,
                &query,
                model.kind,
                model.params,
                model.label,
            );
            fitted.await?;
            Ok::<_, Failure>(())
        })?;
        // Reading is part of each query: the whole run is the fit.
        (0.0, start.elapsed().as_secs_f64())
    };
    println!("{load} {fit} {}", peak_rss()?);
    Ok(())
}

/// This process's peak resident memory in bytes (Linux's `VmHWM`).
fn peak_rss() -> Result<u64, Failure> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .ok_or("no VmHWM in /proc/self/status")?;
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .ok_or("VmHWM without a value")?
        .parse()?;
    Ok(kb * 1024)
}

/// The table's files, in order.
fn files(dir: &Path) -> Vec<PathBuf> {
    (0..FILES)
        .map(|k| dir.join(format!("part-{k}.parquet")))
        .collect()
}

/// Every file of the table read into one dataset, the features and `label`.
fn read_table(dir: &Path, label: Option<&str>) -> Result<Dataset, Failure> {
    let columns = TableColumns {
        label: label.map_or(LabelColumn::None, |l| LabelColumn::Name(l.to_owned())),
        features: Some((0..FEATURES).map(|j| format!("x{j}")).collect()),
        ..TableColumns::default()
    };
    let mut batches = Vec::new();
    let mut schema = None;
    for path in files(dir) {
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?.build()?;
        schema = Some(reader.schema());
        for batch in reader {
            batches.push(batch?);
        }
    }
    let schema = schema.ok_or("no files")?;
    Ok(dataset_from_batches(&schema, batches, &columns)?)
}

/// A standard normal value from the hash of `(i, j)` (Box–Muller on two uniforms).
fn normal(i: u64, j: u64) -> f64 {
    let mix = |mut z: u64| {
        // splitmix64's finalizer.
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let h = mix(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ mix(j + 1));
    let u1 = ((h >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let u2 = ((mix(h) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Writes the table (unless its files are there): `y` a linear target with noise, `class` its
/// sign as 0/1, `x0` … `x19` standard normals; returns the files' total size.
fn write_table(dir: &Path, rows: usize) -> Result<u64, Failure> {
    let paths = files(dir);
    if !paths.iter().all(|p| p.exists()) {
        std::fs::create_dir_all(dir)?;
        eprintln!("writing {rows} rows to {}", dir.display());
        let mut fields = vec![
            Field::new("y", DataType::Float64, false),
            Field::new("class", DataType::Int64, false),
        ];
        fields.extend((0..FEATURES).map(|j| Field::new(format!("x{j}"), DataType::Float64, false)));
        let schema = Arc::new(Schema::new(fields));
        let weights: Vec<f64> = (0..FEATURES).map(|j| normal(u64::MAX, j as u64)).collect();
        for (k, path) in paths.iter().enumerate() {
            // Written beside its final name and renamed into place by `commit`: an interrupted
            // run leaves no half file that a later run would take for the table.
            let mut writer = ArrowWriter::try_new(AtomicFile::create(path)?, schema.clone(), None)?;
            let part = k * rows / FILES..(k + 1) * rows / FILES;
            // Batches of 100 000 rows: the writer's memory, not the file's, bounds the run.
            for start in part.clone().step_by(100_000) {
                let chunk = start as u64..(start + 100_000).min(part.end) as u64;
                let x: Vec<Vec<f64>> = (0..FEATURES as u64)
                    .map(|j| chunk.clone().map(|i| normal(i, j)).collect())
                    .collect();
                let y: Vec<f64> = chunk
                    .clone()
                    .enumerate()
                    .map(|(r, i)| {
                        let signal: f64 = (0..FEATURES).map(|j| weights[j] * x[j][r]).sum();
                        signal + normal(i, 1000)
                    })
                    .collect();
                let class: Vec<i64> = y.iter().map(|&v| i64::from(v > 0.0)).collect();
                let mut columns: Vec<ArrayRef> = vec![
                    Arc::new(Float64Array::from(y)),
                    Arc::new(Int64Array::from(class)),
                ];
                columns.extend(
                    x.into_iter()
                        .map(|c| Arc::new(Float64Array::from(c)) as ArrayRef),
                );
                writer.write(&RecordBatch::try_new(schema.clone(), columns)?)?;
            }
            writer.into_inner()?.commit()?;
        }
    }
    Ok(paths
        .iter()
        .map(|p| p.metadata().map(|m| m.len()))
        .sum::<Result<u64, _>>()?)
}
