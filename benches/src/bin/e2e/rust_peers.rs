//! The Rust peers behind `--rust-peers`: linfa and smartcore, run by the `rust-peers` binary of
//! the separate crate `benches/rust-peers` (its own workspace, so margin's build never compiles
//! them). It speaks the Python peer's protocol: the same data flags, one JSON line per child.
//!
//! Each peer runs after margin and the Python peer of the same case, its own repetitions under
//! the same per-case budget ([`CASE_BUDGET_S`]); a child still running when its budget is spent
//! is killed and reported as a timeout, so a slow library never hangs the run.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cases::Case;
use crate::runner::{CASE_BUDGET_S, Measure, Side, medians, shown, thread_env};

/// The Rust peers, in column order.
pub const PEERS: [&str; 2] = ["linfa", "smartcore"];

/// What the `rust-peers` binary says it does for one (peer, case) pair.
#[derive(Clone, Debug, PartialEq)]
pub enum Listed {
    /// It runs the case; what it runs (deviations from margin's settings included).
    Run(String),
    /// It skips the case, and why.
    Skip(String),
}

/// One Rust peer's result on one case.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The peer does not know the case.
    NotListed,
    Skipped(String),
    /// Killed after this many seconds.
    TimedOut(f64),
    Failed(String),
    Done(Side),
}

/// One Rust peer's cell of a row.
#[derive(Clone, Debug)]
pub struct Cell {
    pub peer: &'static str,
    /// What the peer runs, or why it skips.
    pub description: String,
    pub outcome: Outcome,
}

/// The built `rust-peers` binary and what it lists.
pub struct RustPeers {
    pub exe: PathBuf,
    listing: Vec<(String, String, Listed)>,
}

/// Parses `rust-peers --list`: `peer<TAB>case<TAB>run|skip<TAB>text` per line.
pub fn parse_listing(text: &str) -> Result<Vec<(String, String, Listed)>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.splitn(4, '\t').collect();
            match fields[..] {
                [peer, case, "run", does] => {
                    Ok((peer.into(), case.into(), Listed::Run(does.into())))
                }
                [peer, case, "skip", why] => {
                    Ok((peer.into(), case.into(), Listed::Skip(why.into())))
                }
                _ => Err(format!(
                    "unreadable line in the Rust peers' --list: {line:?}"
                )),
            }
        })
        .collect()
}

/// Output of `exe args`, or why it failed.
fn output(exe: &PathBuf, args: &[&str]) -> Result<String, String> {
    let out = Command::new(exe)
        .args(args)
        .output()
        .map_err(|e| format!("could not run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "`{} {}` failed ({}): {}",
            exe.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl RustPeers {
    /// Asks the binary what it runs; returns it with the libraries' versions.
    pub fn load(exe: PathBuf) -> Result<(RustPeers, String), String> {
        let listing = parse_listing(&output(&exe, &["--list"])?)?;
        let versions = output(&exe, &["--versions"])?.trim().to_string();
        Ok((RustPeers { exe, listing }, versions))
    }

    fn listed(&self, peer: &str, case: &str) -> Option<&Listed> {
        self.listing
            .iter()
            .find(|(p, c, _)| p == peer && c == case)
            .map(|(_, _, l)| l)
    }

    /// Runs every Rust peer on `case` (margin saw `n × d`); the first repetition's commands are
    /// appended to `commands`.
    pub fn run_case(
        &self,
        case: &Case,
        data_args: &[String],
        plan: (usize, usize),
        margin_shape: (usize, usize),
        commands: &mut Vec<String>,
    ) -> Vec<Cell> {
        let (repeats, threads) = plan;
        PEERS
            .iter()
            .map(|&peer| {
                let (description, outcome) = match self.listed(peer, case.name) {
                    None => (String::new(), Outcome::NotListed),
                    Some(Listed::Skip(why)) => (why.clone(), Outcome::Skipped(why.clone())),
                    Some(Listed::Run(does)) => {
                        let mut command = Command::new(&self.exe);
                        command
                            .args(["--peer", peer, "--case", case.name])
                            .args(data_args);
                        thread_env(&mut command, threads);
                        commands.push(shown(&command));
                        let outcome = repeat(case.name, peer, &mut command, repeats, margin_shape);
                        (does.clone(), outcome)
                    }
                };
                Cell {
                    peer,
                    description,
                    outcome,
                }
            })
            .collect()
    }
}

/// Up to `repeats` runs of one peer within [`CASE_BUDGET_S`]; medians. A peer that saw other
/// data than margin's `n × d` has failed.
fn repeat(
    case: &str,
    peer: &str,
    command: &mut Command,
    repeats: usize,
    (n, d): (usize, usize),
) -> Outcome {
    let started = Instant::now();
    let mut runs = Vec::new();
    for rep in 0..repeats {
        let spent = started.elapsed().as_secs_f64();
        let per_rep = spent / rep.max(1) as f64;
        if rep > 0 && spent + per_rep > CASE_BUDGET_S {
            eprintln!("e2e: {case} ({peer}): {rep} repetition(s) only (budget {CASE_BUDGET_S} s)");
            break;
        }
        let limit = Duration::from_secs_f64(CASE_BUDGET_S - spent);
        match run_with_limit(command, limit) {
            Ok(Some(m)) if (m.outcome.n, m.outcome.d) != (n, d) => {
                return Outcome::Failed(format!(
                    "the sides saw different data: margin {n}×{d}, {peer} {}×{}",
                    m.outcome.n, m.outcome.d
                ));
            }
            Ok(Some(m)) => {
                eprintln!(
                    "e2e: {case:<14} rep {}/{repeats} {peer:<9} fit {:>9.4} s  score {:.6}  peak {:>7.1} MB",
                    rep + 1,
                    m.outcome.fit_s,
                    m.outcome.score,
                    m.peak_rss_mb
                );
                runs.push(m);
            }
            Ok(None) if runs.is_empty() => {
                eprintln!("e2e: {case} ({peer}) killed after {CASE_BUDGET_S} s");
                return Outcome::TimedOut(CASE_BUDGET_S);
            }
            // A later repetition past the budget: keep the ones that finished.
            Ok(None) => break,
            Err(e) => {
                eprintln!("e2e: {case} ({peer}) failed: {e}");
                return Outcome::Failed(format!("{peer}: {e}"));
            }
        }
    }
    Outcome::Done(medians(&runs))
}

/// Runs a child for at most `limit`: its JSON line, `None` when it was killed at the limit, or
/// an error (first line the reason, then the command and the child's stderr).
fn run_with_limit(command: &mut Command, limit: Duration) -> Result<Option<Measure>, String> {
    let line = shown(command);
    let failed = |reason: String, stderr: &str| {
        format!("{reason}\ncommand: {line}\nstderr:\n{}", stderr.trim())
    };
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("could not start: {e}"), ""))?;
    // Drained on threads so a chatty child never blocks on a full pipe while we wait.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(failed(format!("could not wait for it: {e}"), "")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(failed(
            format!("{status}: {}", last.unwrap_or("(no stderr)")),
            &stderr,
        ));
    }
    let result = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| failed("printed no result line".into(), &stderr))?;
    serde_json::from_str(result)
        .map(Some)
        .map_err(|e| failed(format!("unreadable result line {result:?}: {e}"), &stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_parses_runs_and_skips() {
        let text =
            "linfa\tsvc-heart\trun\tlinfa-svm, C = 1\nsmartcore\tsvc-a9a\tskip\ttoo slow\n\n";
        let listing = parse_listing(text).unwrap();
        assert_eq!(
            listing,
            vec![
                (
                    "linfa".to_string(),
                    "svc-heart".to_string(),
                    Listed::Run("linfa-svm, C = 1".into())
                ),
                (
                    "smartcore".to_string(),
                    "svc-a9a".to_string(),
                    Listed::Skip("too slow".into())
                ),
            ]
        );
    }

    #[test]
    fn listing_rejects_unknown_lines() {
        let why = parse_listing("linfa\tsvc-heart\tmaybe\tx").unwrap_err();
        assert!(why.contains("svc-heart"), "{why}");
    }

    #[test]
    fn a_child_past_its_limit_is_killed() {
        let mut command = Command::new("sleep");
        command.arg("30");
        let started = Instant::now();
        let result = run_with_limit(&mut command, Duration::from_millis(200)).unwrap();
        assert!(result.is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_child_json_line_is_read_and_a_failure_reported() {
        let mut ok = Command::new("sh");
        ok.args([
            "-c",
            r#"echo noise; echo '{"fit_s":1.5,"predict_s":0.5,"score":0.9,"metric":"accuracy","n":4,"d":2,"peak_rss_mb":3.0}'"#,
        ]);
        let m = run_with_limit(&mut ok, Duration::from_secs(30))
            .unwrap()
            .unwrap();
        assert_eq!((m.outcome.fit_s, m.outcome.n, m.outcome.d), (1.5, 4, 2));
        let mut bad = Command::new("sh");
        bad.args(["-c", "echo 'rust-peers: no such case' >&2; exit 3"]);
        let why = run_with_limit(&mut bad, Duration::from_secs(30)).unwrap_err();
        assert!(
            why.lines().next().unwrap().contains("no such case"),
            "{why}"
        );
    }
}
