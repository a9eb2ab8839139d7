//! Runs every case in child processes, margin and peer alternating, and keeps the medians.
//!
//! A child per (case, side, repetition) keeps each side's peak memory its own and keeps one
//! side's allocator or thread-pool state from leaking into the other's timings.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::cases::{CASES, Case, Outcome, median};
use crate::rust_peers::{self, RustPeers};

/// Seconds a case may take over its repetitions (both sides) before it stops repeating.
pub const CASE_BUDGET_S: f64 = 240.0;

/// What a child prints: the case's outcome and the child's peak resident memory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measure {
    #[serde(flatten)]
    pub outcome: Outcome,
    pub peak_rss_mb: f64,
}

/// How the runner runs.
pub struct Plan {
    /// This binary, re-invoked for margin's side.
    pub margin_exe: PathBuf,
    /// The peer interpreter, or `None` to run margin alone.
    pub python: Option<PathBuf>,
    pub peer_script: PathBuf,
    pub repeats: usize,
    pub quick: bool,
    pub threads: usize,
    /// Only these cases (all when empty).
    pub only: Vec<String>,
    pub bundled: PathBuf,
    pub shared: Option<PathBuf>,
    /// linfa and smartcore (`--rust-peers`), or `None`.
    pub rust_peers: Option<RustPeers>,
}

/// Which side a child runs.
#[derive(Clone, Copy)]
enum Who<'a> {
    Margin,
    /// The peer script under this interpreter.
    Peer(&'a Path),
}

impl Who<'_> {
    fn name(self) -> &'static str {
        match self {
            Who::Margin => "margin",
            Who::Peer(_) => "peer",
        }
    }
}

/// The medians of one side.
#[derive(Clone, Debug)]
pub struct Side {
    pub fit_s: f64,
    pub predict_s: Option<f64>,
    pub score: f64,
    pub peak_rss_mb: f64,
    pub objective: Option<f64>,
    pub n_sv: Option<usize>,
}

/// One case's result.
pub struct Row {
    pub case: &'static Case,
    pub status: Status,
    /// The commands of the first repetition, for the report.
    pub commands: Vec<String>,
    /// The Rust peers' cells (empty without `--rust-peers`).
    pub rust: Vec<rust_peers::Cell>,
}

pub enum Status {
    Skipped(String),
    Failed(String),
    Done {
        n: usize,
        d: usize,
        metric: String,
        margin: Side,
        peer: Option<Side>,
    },
}

impl Plan {
    /// The cases this plan runs, in table order.
    pub fn cases(&self) -> Result<Vec<&'static Case>, String> {
        if let Some(unknown) = self
            .only
            .iter()
            .find(|name| !CASES.iter().any(|c| c.name == name.as_str()))
        {
            let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
            return Err(format!(
                "unknown case `{unknown}`; cases: {}",
                names.join(", ")
            ));
        }
        Ok(CASES
            .iter()
            .filter(|c| self.only.is_empty() || self.only.iter().any(|o| o == c.name))
            .filter(|c| !(self.quick && c.full_only))
            .collect())
    }

    /// Checks the peer script knows every case this plan runs (the two tables must agree).
    pub fn check_peer_cases(&self, python: &Path, cases: &[&Case]) -> Result<(), String> {
        let listed = self.peer_output(python, &["--list"])?;
        let missing: Vec<&str> = cases
            .iter()
            .map(|c| c.name)
            .filter(|name| !listed.lines().any(|l| l.trim() == *name))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} has no case named {}: add it to CASES there",
                self.peer_script.display(),
                missing.join(", ")
            ))
        }
    }

    /// Output of the peer script run with `args` (for `--list`, `--versions`).
    pub fn peer_output(&self, python: &Path, args: &[&str]) -> Result<String, String> {
        let out = Command::new(python)
            .arg(&self.peer_script)
            .args(args)
            .output()
            .map_err(|e| format!("could not run {}: {e}", python.display()))?;
        if !out.status.success() {
            return Err(format!(
                "`{} {} {}` failed ({}): {}",
                python.display(),
                self.peer_script.display(),
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs one case: `repeats` times each side (fewer when that would exceed
    /// [`CASE_BUDGET_S`]), alternating which side goes first.
    pub fn run_case(&self, case: &'static Case) -> Row {
        let data_args = match case.data.to_args(&self.bundled, self.shared.as_deref()) {
            Ok(args) => args,
            Err(why) => {
                eprintln!("e2e: skipping {}: {why}", case.name);
                return Row {
                    case,
                    status: Status::Skipped(why),
                    commands: Vec::new(),
                    rust: Vec::new(),
                };
            }
        };
        let mut margin_runs = Vec::new();
        let mut peer_runs = Vec::new();
        let mut commands = Vec::new();
        let started = std::time::Instant::now();
        for rep in 0..self.repeats {
            // A slow case stops repeating where one more repetition would take it past the
            // budget, so the full run stays within its half hour.
            let per_rep = started.elapsed().as_secs_f64() / rep.max(1) as f64;
            if rep > 0 && started.elapsed().as_secs_f64() + per_rep > CASE_BUDGET_S {
                eprintln!(
                    "e2e: {}: {rep} repetition(s) only ({per_rep:.0} s each; budget {CASE_BUDGET_S} s a case)",
                    case.name
                );
                break;
            }
            let order = match self.python.as_deref() {
                None => vec![Who::Margin],
                // Alternate who goes first so a drift in machine load does not always favour
                // the same side.
                Some(py) if rep % 2 == 0 => vec![Who::Margin, Who::Peer(py)],
                Some(py) => vec![Who::Peer(py), Who::Margin],
            };
            for who in order {
                let mut command = self.child(case, who, &data_args);
                if rep == 0 {
                    commands.push(shown(&command));
                }
                let measured = match run_child(&mut command) {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("e2e: {} ({}) failed: {e}", case.name, who.name());
                        return Row {
                            case,
                            status: Status::Failed(format!("{}: {e}", who.name())),
                            commands,
                            rust: Vec::new(),
                        };
                    }
                };
                eprintln!(
                    "e2e: {:<14} rep {}/{} {:<6} fit {:>9.4} s  score {:.6}  peak {:>7.1} MB",
                    case.name,
                    rep + 1,
                    self.repeats,
                    who.name(),
                    measured.outcome.fit_s,
                    measured.outcome.score,
                    measured.peak_rss_mb
                );
                match who {
                    Who::Margin => margin_runs.push(measured),
                    Who::Peer(_) => peer_runs.push(measured),
                }
            }
        }
        let first = &margin_runs[0].outcome;
        if let Some(p) = peer_runs.first()
            && (p.outcome.n, p.outcome.d) != (first.n, first.d)
        {
            return Row {
                case,
                status: Status::Failed(format!(
                    "the sides saw different data: margin {}×{}, peer {}×{}",
                    first.n, first.d, p.outcome.n, p.outcome.d
                )),
                commands,
                rust: Vec::new(),
            };
        }
        // The Rust peers after margin and the Python peer, each with its own budget.
        let rust = match &self.rust_peers {
            Some(peers) => peers.run_case(
                case,
                &data_args,
                (self.repeats, self.threads),
                (first.n, first.d),
                &mut commands,
            ),
            None => Vec::new(),
        };
        Row {
            case,
            status: Status::Done {
                n: first.n,
                d: first.d,
                metric: first.metric.clone(),
                margin: medians(&margin_runs),
                peer: (!peer_runs.is_empty()).then(|| medians(&peer_runs)),
            },
            commands,
            rust,
        }
    }

    /// One fit of `case` on `data_args` by margin, or by the peer when `peer` (which needs
    /// `python`), in its own child process.
    pub fn measure_once(
        &self,
        case: &Case,
        peer: bool,
        data_args: &[String],
    ) -> Result<Measure, String> {
        let who = match (peer, self.python.as_deref()) {
            (false, _) => Who::Margin,
            (true, Some(python)) => Who::Peer(python),
            (true, None) => return Err("no Python peers".into()),
        };
        run_child(&mut self.child(case, who, data_args))
    }

    fn child(&self, case: &Case, who: Who<'_>, data_args: &[String]) -> Command {
        let mut command = match who {
            Who::Margin => {
                let mut c = Command::new(&self.margin_exe);
                c.args(["run-one", "--case", case.name]);
                c
            }
            Who::Peer(python) => {
                let mut c = Command::new(python);
                c.arg(&self.peer_script).args(["--case", case.name]);
                c
            }
        };
        command.args(data_args);
        thread_env(&mut command, self.threads);
        command
    }
}

/// Gives a child the run's thread budget.
pub fn thread_env(command: &mut Command, threads: usize) {
    let threads = threads.to_string();
    // Every side gets the same thread budget: rayon (margin, linfa), OpenMP (LIBSVM), the BLAS
    // under numpy/scipy.
    for var in [
        "RAYON_NUM_THREADS",
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
    ] {
        command.env(var, &threads);
    }
    // GNU OpenMP spin-waits between parallel regions by default; LIBSVM opens two small
    // regions per SMO iteration, and on a shared machine the spinning thread takes the
    // core its partner needs (measured here under load: dna fit 12.6 s spinning, 2.25 s
    // passive; 2.19 s on one thread). Passive waiting keeps the peer from being
    // penalized for the machine's load.
    command.env("OMP_WAIT_POLICY", "PASSIVE");
}

/// A command as a shell line (for the report).
pub fn shown(command: &Command) -> String {
    let mut parts: Vec<String> = command
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_str()?, v?.to_str()?)))
        .collect();
    parts.push(command.get_program().to_string_lossy().into_owned());
    parts.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Runs a child and reads its JSON line. An error's first line is the reason (the table shows
/// it); the command and the child's whole stderr follow (the report shows them).
fn run_child(command: &mut Command) -> Result<Measure, String> {
    let line = shown(command);
    let failed = |reason: String, stderr: &str| {
        format!("{reason}\ncommand: {line}\nstderr:\n{}", stderr.trim())
    };
    let out = command
        .output()
        .map_err(|e| failed(format!("could not start: {e}"), ""))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A Python traceback ends with the exception, Rust's errors are one line: the last line
    // says the most.
    let last_line = stderr.lines().rev().find(|l| !l.trim().is_empty());
    if !out.status.success() {
        let reason = format!("{}: {}", out.status, last_line.unwrap_or("(no stderr)"));
        return Err(failed(reason, &stderr));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The JSON line is the last one; a library may have printed before it.
    let result = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| failed("printed no result line".into(), &stderr))?;
    serde_json::from_str(result)
        .map_err(|e| failed(format!("unreadable result line {result:?}: {e}"), &stderr))
}

pub fn medians(runs: &[Measure]) -> Side {
    let of = |f: fn(&Measure) -> f64| median(runs.iter().map(f).collect());
    let predict: Option<Vec<f64>> = runs.iter().map(|m| m.outcome.predict_s).collect();
    let last = &runs[runs.len() - 1].outcome;
    Side {
        fit_s: of(|m| m.outcome.fit_s),
        predict_s: predict.map(median),
        score: of(|m| m.outcome.score),
        peak_rss_mb: of(|m| m.peak_rss_mb),
        // Deterministic per side (fixed seeds): any repetition's value is the value.
        objective: last.objective,
        n_sv: last.n_sv,
    }
}
