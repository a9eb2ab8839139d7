//! Project chores: `cargo xtask <task>`.
//!
//! - `ci`: what CI runs: format check, clippy with warnings denied, the test suite (the README's
//!   test command), and the docs with warnings denied.
//! - `bench`: margin against scikit-learn, LIBSVM and LIBLINEAR, end to end, and with
//!   `--rust-peers` against linfa and smartcore too (`bench.rs`, `benches/README.md`).
#![forbid(unsafe_code)]

mod bench;

use std::process::{Command, ExitCode};

fn usage() -> String {
    format!(
        "usage: cargo xtask <task> [options]\n\ntasks:\n  ci               fmt check, clippy -D warnings, cargo test --workspace, cargo doc (warnings denied)\n{}",
        bench::USAGE
    )
}

fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .envs(env.iter().copied())
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(&["test", "--workspace"], &[])?;
    cargo(
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("bench") if args[1..].iter().any(|a| a == "-h" || a == "--help") => {
            println!("usage: cargo xtask bench [options]\n\n{}", bench::USAGE);
            return ExitCode::SUCCESS;
        }
        Some("bench") => bench::bench(&args[1..]),
        Some("-h" | "--help") | None => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown task `{other}`\n{}", usage())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
