//! Project chores: `cargo xtask <task>`.
//!
//! - `ci`: what CI runs: format check, clippy with warnings denied, the test suite (the README's
//!   test command), the docs with warnings denied, `lean-deps`, `publish-check` and `python`.
//! - `lean-deps`: fails when a library crate pulls in the PNG renderer, ndarray or the bundled
//!   datasets (optional features that only the umbrella, the CLI and tests ask for).
//! - `publish-check`: `cargo publish --dry-run --workspace`: every published crate packaged and
//!   built from its packaged sources alone, as crates.io would take it (the distributed two
//!   packaged, not built a second time).
//! - `python`: the Python package (`python/`) built in release mode into `target/python-venv`
//!   (created on first use) and its pytest suite run there (`python.rs`).
//! - `bench`: margin against scikit-learn, LIBSVM and LIBLINEAR, end to end, and with
//!   `--rust-peers` against linfa and smartcore too (`bench.rs`, `benches/README.md`).
#![forbid(unsafe_code)]

mod bench;
mod python;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The build directory: `CARGO_TARGET_DIR`, else the workspace's `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The workspace's root directory.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `program` with `args`, failing on a non-zero exit.
fn run(program: &Path, args: &[&str]) -> Result<(), String> {
    eprintln!("xtask: {} {}", program.display(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| format!("could not run {}: {e}", program.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{} {}` failed ({status})",
            program.display(),
            args.join(" ")
        ))
    }
}

/// The interpreter of the virtual environment at `dir`, created with `python3 -m venv` if it is
/// not there yet (xtask installs Python packages only into environments of its own).
fn venv(dir: &Path) -> Result<PathBuf, String> {
    let python = dir.join("bin/python");
    if !python.exists() {
        let dir_arg = dir.display().to_string();
        run(Path::new("python3"), &["-m", "venv", &dir_arg]).map_err(|e| {
            format!("{e}\n(on Debian/Ubuntu the venv module is the python3-venv package)")
        })?;
    }
    Ok(python)
}

fn usage() -> String {
    format!(
        "usage: cargo xtask <task> [options]\n\ntasks:\n  ci               fmt check, clippy -D warnings, cargo test --workspace, cargo doc (warnings denied),\n                   lean-deps, publish-check, python\n  lean-deps        fail if a library crate depends on resvg or ndarray or enables margin-io's datasets\n  publish-check    cargo publish --dry-run --workspace (package and build every published crate)\n  python [ARGS]    build the Python package (python/) into target/python-venv and run its tests\n                   (pytest ARGS)\n{}",
        bench::USAGE
    )
}

fn cargo_command(args: &[&str], env: &[(&str, &str)]) -> Command {
    eprintln!("xtask: cargo {}", args.join(" "));
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(args).envs(env.iter().copied());
    command
}

fn cargo(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    let status = cargo_command(args, env)
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// Runs cargo and returns what it printed on stdout.
fn cargo_stdout(args: &[&str]) -> Result<String, String> {
    let output = cargo_command(args, &[])
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "`cargo {}` failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// The library crates a user depends on one by one (the umbrella and the CLI opt in to more).
const LIBRARY_CRATES: [&str; 10] = [
    "margin-preprocessing",
    "margin-optim",
    "margin-kernels",
    "margin-metrics",
    "margin-linear",
    "margin-svm",
    "margin-tree",
    "margin-neighbors",
    "margin-cluster",
    "margin-testing",
];

/// What the library crates must not pull in: the PNG renderer (margin-metrics' `png` feature),
/// the bundled datasets (margin-io's `datasets` feature) and ndarray (margin-core's `ndarray`
/// feature, for users who hold ndarray arrays). `cargo tree` prints one line per enabled
/// feature and package, so a match names the offender.
const HEAVY: [&str; 3] = ["resvg v", "margin-io feature \"datasets\"", "ndarray v"];

/// Fails when a library crate's normal dependencies enable something in [`HEAVY`].
fn lean_dependencies() -> Result<(), String> {
    let mut args = vec!["tree", "--edges", "normal,features"];
    for name in LIBRARY_CRATES {
        args.extend(["--package", name]);
    }
    let tree = cargo_stdout(&args)?;
    match HEAVY.iter().find(|heavy| tree.contains(*heavy)) {
        Some(heavy) => Err(format!(
            "a library crate depends on `{heavy}`: enable it only where it is needed (see `cargo {}`)",
            args.join(" ")
        )),
        None => Ok(()),
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
    )?;
    // The private items' docs too: their links resolve only in this mode.
    cargo(
        &[
            "doc",
            "--workspace",
            "--no-deps",
            "--document-private-items",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    lean_dependencies()?;
    publish_check()?;
    python::test(&[])
}

/// `cargo publish --dry-run --workspace`: packages every published crate (unpublished xtask
/// and benches are skipped) and builds each from its packaged sources alone, the workspace's
/// unpublished crates resolved from the packages just made; no upload, no token. The
/// distributed crates ([`UNBUILT_PACKAGES`]) are packaged (`--no-verify`), not built again.
/// `--allow-dirty`: the check is about manifests and sources, not the state of git.
///
/// Cargo serves those packages from a temporary local registry and treats registry crates as
/// immutable: it unpacks `margin-core 0.1.0` under `$CARGO_HOME/registry/src/-<hash of the
/// registry's path>/` once and never again, and keeps a registry crate's build as long as its
/// version is unchanged. A second run with changed sources (same version) would build each
/// crate against its dependencies as they were in the first run (seen: a new module of
/// margin-core reported missing). So the check builds in a target directory of its own with a
/// CARGO_HOME of its own, and first removes the unpacked local-registry sources (the `-*`
/// directories; those of crates.io are `index.crates.io-*`) and the builds of the workspace's
/// packages there. Its crates.io downloads and dependency builds stay for the next run.
fn publish_check() -> Result<(), String> {
    let dir = target_dir().join("publish-check");
    let home = dir.join("cargo-home");
    if let Ok(entries) = std::fs::read_dir(home.join("registry").join("src")) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('-') {
                std::fs::remove_dir_all(entry.path())
                    .map_err(|e| format!("could not remove {}: {e}", entry.path().display()))?;
            }
        }
    }
    let utf8 = |p: &Path| {
        p.to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{} is not UTF-8", p.display()))
    };
    let (dir, home) = (utf8(&dir)?, utf8(&home)?);
    let members = cargo_stdout(&[
        "tree",
        "--workspace",
        "--depth",
        "0",
        "--prefix",
        "none",
        "--format",
        "{p}",
    ])?;
    let mut clean = vec!["clean", "--target-dir", &dir];
    for name in members.lines().filter_map(|l| l.split_whitespace().next()) {
        clean.extend(["--package", name]);
    }
    cargo(&clean, &[])?;
    // No debug info: these builds only have to compile, and the default profile's full debug
    // info makes every object file and link larger (and CI's disk is shared).
    let env = [
        ("CARGO_HOME", home.as_str()),
        ("CARGO_PROFILE_DEV_DEBUG", "0"),
    ];
    let mut publish = vec!["publish", "--dry-run", "--workspace", "--allow-dirty"];
    publish.extend(["--target-dir", &dir]);
    for name in UNBUILT_PACKAGES {
        publish.extend(["--exclude", name]);
    }
    cargo(&publish, &env)?;
    // Every published crate packages, the distributed two included: their manifests resolve
    // against the packages of the others (unpublished crates are skipped, as above).
    cargo(
        &[
            "publish",
            "--dry-run",
            "--workspace",
            "--no-verify",
            "--allow-dirty",
            "--target-dir",
            &dir,
        ],
        &env,
    )
}

/// Published crates that the publish check packages without building them from the package:
/// they are built and tested from the workspace by `cargo test`, and building them again from
/// their packaged sources would compile DataFusion and Ballista a second time (half an hour on
/// two cores).
const UNBUILT_PACKAGES: [&str; 2] = ["margin-datafusion", "margin-ballista"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("lean-deps") => lean_dependencies(),
        Some("publish-check") => publish_check(),
        Some("python") => python::test(&args[1..]),
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
