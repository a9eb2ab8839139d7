//! `cargo xtask python [PYTEST ARGS]`: the Python package's test run, the one command README's
//! Python section and CI use.
//!
//! 1. `target/python-venv` is created on first use (`python3 -m venv`);
//! 2. maturin is installed into it, and `maturin develop --release --extras test` builds the
//!    extension and installs the package with its test dependencies (scikit-learn, pandas,
//!    Dask, PySpark… as `python/pyproject.toml` lists them);
//! 3. pytest runs `python/tests` (or the arguments given), with `MARGIN_BIN` naming the
//!    `margin` command (built first, as `cargo test --workspace` builds it) for the tests that
//!    cross model files between the two.

use std::process::Command;

/// Builds the package into its venv and runs its tests.
pub fn test(pytest_args: &[String]) -> Result<(), String> {
    // The `margin` command the model-file tests cross with, built as `cargo test --workspace`
    // builds it (nothing to do after that command, as in CI). `cargo build -p margin-cli`
    // resolves features without the workspace's dev-dependencies and rebuilt nearly every
    // dependency (8.5 minutes of a CI run).
    crate::cargo(&["test", "--workspace", "--no-run"], &[])?;
    let root = crate::workspace_root();
    let target = crate::target_dir();
    let venv = target.join("python-venv");
    let python = crate::venv(&venv)?;
    crate::run(
        &python,
        &["-m", "pip", "install", "--quiet", "maturin>=1.9,<2"],
    )?;

    let package = root.join("python");
    eprintln!("xtask: maturin develop --release --extras test (in python/)");
    let status = Command::new(venv.join("bin/maturin"))
        .args(["develop", "--release", "--extras", "test"])
        .current_dir(&package)
        .env("VIRTUAL_ENV", &venv)
        .status()
        .map_err(|e| format!("could not run maturin: {e}"))?;
    if !status.success() {
        return Err(format!("`maturin develop` failed ({status})"));
    }

    let mut command = Command::new(&python);
    command.args(["-m", "pytest", "-p", "no:cacheprovider"]);
    if pytest_args.is_empty() {
        command.arg(package.join("tests"));
    } else {
        command.args(pytest_args);
    }
    command.env("MARGIN_BIN", target.join("debug/margin"));
    eprintln!("xtask: pytest {}", pytest_args.join(" "));
    let status = command
        .status()
        .map_err(|e| format!("could not run pytest: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the Python tests failed ({status})"))
    }
}
