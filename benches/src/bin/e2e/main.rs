//! `e2e`: margin against scikit-learn, LIBSVM and LIBLINEAR, end to end, on real data.
//!
//! `cargo xtask bench` builds this binary and runs `e2e run`; see `benches/README.md`.
//!
//! - `e2e run [--python PY] [--rust-peers EXE] [--quick] [--repeats R] [--threads N]
//!   [--only a,b] [--out DIR]`: every case, each side in its own child process, medians, then
//!   the table on stdout and `report.md` + `ratios.svg` in the output directory. Without
//!   `--python`, margin runs alone; `--rust-peers` adds linfa and smartcore (`rust_peers.rs`).
//! - `e2e run-one --case NAME <data flags>`: margin's side of one case (the runner's child);
//!   prints one JSON line.
//! - `e2e scaling [--python PY] [--threads N] [--only families] [--budget S] [--max-n N]
//!   [--out DIR]`: each family's fit time against n on generated data, both sides, charted
//!   (`scaling.rs`).
//! - `e2e list`: the cases.

mod cases;
mod data;
mod report;
mod runner;
mod rust_peers;
mod scaling;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cases::CASES;
use crate::data::{DataArgs, Res};
use crate::runner::{Measure, Plan, Status};
use crate::rust_peers::RustPeers;

#[derive(Parser)]
#[command(
    name = "e2e",
    about = "margin against its peers, end to end (see benches/README.md)"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the cases (both sides in child processes) and write the report.
    Run(RunArgs),
    /// Run margin's side of one case and print its JSON line (the runner's child).
    RunOne {
        /// Case name (`e2e list`).
        #[arg(long)]
        case: String,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Fit time against n for each family, margin and its peer, charted.
    Scaling(ScalingArgs),
    /// List the cases.
    List,
}

#[derive(clap::Args)]
struct ScalingArgs {
    /// Python interpreter with the peers; without it margin runs alone.
    #[arg(long)]
    python: Option<PathBuf>,
    /// Why the peers are not run (shown in the report when --python is absent).
    #[arg(long, value_name = "TEXT")]
    no_peers_reason: Option<String>,
    /// Threads per side.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Only these families (comma-separated; `svc`, `svc-batched`, `linear-svc`, `logistic`,
    /// `tree`, `forest`, `boosting`, `knn`, `kmeans`, `pca`).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Seconds one fit may take: a side stops before a size predicted to take longer.
    #[arg(long, default_value_t = 60.0)]
    budget: f64,
    /// The largest training size.
    #[arg(long, default_value_t = 1_000_000)]
    max_n: usize,
    /// Report directory (default: `<repo>/target/bench-report/scaling`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The command that started the run, for the report.
    #[arg(long)]
    invocation: Option<String>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Python interpreter with scikit-learn, libsvm-official and liblinear-official; without
    /// it margin runs alone and ratios show as "—".
    #[arg(long)]
    python: Option<PathBuf>,
    /// Why the peers are not run (shown in the report when --python is absent).
    #[arg(long, value_name = "TEXT")]
    no_peers_reason: Option<String>,
    /// The `rust-peers` binary of benches/rust-peers: adds linfa and smartcore columns.
    #[arg(long, value_name = "EXE")]
    rust_peers: Option<PathBuf>,
    /// Why the Rust peers, asked for, cannot run (their build failed); shown in the report.
    #[arg(long, value_name = "TEXT", conflicts_with = "rust_peers")]
    no_rust_peers_reason: Option<String>,
    /// One repetition, small cases only.
    #[arg(long)]
    quick: bool,
    /// Repetitions per side (default 3, or 1 with --quick); the medians are reported.
    #[arg(long)]
    repeats: Option<usize>,
    /// Threads per side (RAYON_NUM_THREADS, OMP_NUM_THREADS, BLAS threads).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Only these cases (comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Report directory (default: `<repo>/target/bench-report`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The command that started the run, for the report [default: this runner's command line].
    #[arg(long)]
    invocation: Option<String>,
}

/// The repository root (this crate sits in `benches/`).
fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// VmHWM (the peak resident set) of this process, in MB.
fn peak_rss_mb() -> Res<f64> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status for the peak memory: {e}"))?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or("no VmHWM line in /proc/self/status")?;
    Ok(kib / 1024.0)
}

fn run_one(name: &str, data: &DataArgs) -> Res<()> {
    let case = CASES
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("unknown case `{name}` (see `e2e list`)"))?;
    let outcome = (case.run)(data)?;
    let measure = Measure {
        outcome,
        peak_rss_mb: peak_rss_mb()?,
    };
    println!("{}", serde_json::to_string(&measure)?);
    Ok(())
}

/// The cases with the registry entries each times, then the entries no case times and why.
fn list() {
    use margin_benches::coverage::{BENCHED, NOT_BENCHED};
    for c in CASES {
        let mode = if c.full_only {
            "full only"
        } else {
            "quick+full"
        };
        let entries = BENCHED
            .iter()
            .find(|(name, _)| *name == c.name)
            .map_or(String::new(), |(_, entries)| entries.join(","));
        println!(
            "{:<14} {:<12} {:<10} [{entries}] margin: {}; peer: {}",
            c.name, c.dataset, mode, c.margin, c.peer
        );
    }
    println!("\nnot timed:");
    for (entry, why) in NOT_BENCHED {
        println!("  {entry:<28} {why}");
    }
}

/// Runs the scaling families (`scaling.rs`).
fn scaling(args: ScalingArgs) -> Res<()> {
    if args.threads == 0 || args.budget <= 0.0 {
        return Err("--threads and --budget must be positive".into());
    }
    let root = repo_root();
    let families = scaling::families(&args.only)?;
    let plan = Plan {
        margin_exe: std::env::current_exe()
            .map_err(|e| format!("cannot find this executable to re-run it: {e}"))?,
        python: args.python,
        peer_script: root.join("benches/peers/run.py"),
        repeats: 1,
        quick: false,
        threads: args.threads,
        only: Vec::new(),
        bundled: root.join("datasets"),
        shared: margin_benches::shared_data_dir(),
        rust_peers: None,
    };
    let out = args
        .out
        .unwrap_or_else(|| root.join("target/bench-report/scaling"));
    let invocation = args
        .invocation
        .unwrap_or_else(|| std::env::args().collect::<Vec<_>>().join(" "));
    let mut about = format!("`{invocation}`");
    if plan.python.is_none() {
        let why = args
            .no_peers_reason
            .as_deref()
            .unwrap_or("no --python given");
        about.push_str(&format!(" (peers not run: {why}; margin alone)"));
    }
    scaling::run(&plan, &families, (args.budget, args.max_n), &out, &about)
}

/// Runs the plan; `Ok(false)` when a case failed (after the report is written).
fn run(args: RunArgs) -> Res<bool> {
    let root = repo_root();
    let repeats = args.repeats.unwrap_or(if args.quick { 1 } else { 3 });
    if repeats == 0 || args.threads == 0 {
        return Err("--repeats and --threads must be at least 1".into());
    }
    let (rust_peers, rust_versions) = match (args.rust_peers, args.no_rust_peers_reason) {
        (Some(exe), _) => {
            let (peers, versions) = RustPeers::load(exe)?;
            (Some(peers), Some(Ok(versions)))
        }
        (None, Some(why)) => (None, Some(Err(why))),
        (None, None) => (None, None),
    };
    let plan = Plan {
        margin_exe: std::env::current_exe()
            .map_err(|e| format!("cannot find this executable to re-run it: {e}"))?,
        python: args.python,
        peer_script: root.join("benches/peers/run.py"),
        repeats,
        quick: args.quick,
        threads: args.threads,
        only: args.only,
        bundled: root.join("datasets"),
        shared: margin_benches::shared_data_dir(),
        rust_peers,
    };
    let cases = plan.cases()?;
    let peers = match &plan.python {
        Some(python) => {
            plan.check_peer_cases(python, &cases)?;
            Ok(plan
                .peer_output(python, &["--versions"])?
                .trim()
                .to_string())
        }
        None => Err(args
            .no_peers_reason
            .unwrap_or_else(|| "no --python given".into())),
    };
    let load_before = report::load_average();
    let rows: Vec<_> = cases.into_iter().map(|c| plan.run_case(c)).collect();

    let runner_line: Vec<String> = std::env::args().collect();
    let runner_line = runner_line.join(" ");
    let ctx = report::Context {
        mode: if plan.quick {
            format!("quick ({repeats} repetition(s), small cases only)")
        } else {
            format!("full ({repeats} repetition(s))")
        },
        threads: plan.threads,
        peers,
        rust_peers: rust_versions,
        invocation: args.invocation.unwrap_or_else(|| runner_line.clone()),
        runner: runner_line,
        load_before,
    };
    let out = args.out.unwrap_or_else(|| root.join("target/bench-report"));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let report_path = out.join("report.md");
    let svg_path = out.join("ratios.svg");
    std::fs::write(&report_path, report::markdown(&rows, &ctx))
        .map_err(|e| format!("cannot write {}: {e}", report_path.display()))?;
    std::fs::write(&svg_path, report::ratios_svg(&rows))
        .map_err(|e| format!("cannot write {}: {e}", svg_path.display()))?;

    let rust_columns = matches!(ctx.rust_peers, Some(Ok(_)));
    println!("{}", report::text_table(&rows, rust_columns));
    if let Err(why) = &ctx.peers {
        println!("peers not run ({why}): margin alone, ratios shown as —");
    }
    match &ctx.rust_peers {
        Some(Ok(versions)) => println!(
            "Rust peers: {versions}; their details (times, memory, what each runs) are in the report"
        ),
        Some(Err(why)) => println!("Rust peers not run: {why}"),
        None => {}
    }
    println!(
        "ratio = margin / peer (< 1: margin faster); medians of {repeats} run(s) per side (fewer \
         for a case whose repetitions would pass {} s), {} thread(s) each",
        runner::CASE_BUDGET_S,
        plan.threads
    );
    println!(
        "report: {}\nchart:  {}",
        report_path.display(),
        svg_path.display()
    );
    let rust_failed = |r: &runner::Row| {
        r.rust
            .iter()
            .any(|c| matches!(c.outcome, rust_peers::Outcome::Failed(_)))
    };
    Ok(!rows
        .iter()
        .any(|r| matches!(r.status, Status::Failed(_)) || rust_failed(r)))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run(args) => run(args).inspect(|&ok| {
            if !ok {
                eprintln!("e2e: some cases failed (see the table and the report)");
            }
        }),
        Cmd::RunOne { case, data } => run_one(&case, &data).map(|()| true),
        Cmd::Scaling(args) => scaling(args).map(|()| true),
        Cmd::List => {
            list();
            Ok(true)
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("e2e: {e}");
            ExitCode::FAILURE
        }
    }
}
