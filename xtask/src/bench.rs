//! `cargo xtask bench`: find (or install) the Python peers, build the end-to-end runner
//! (`benches/src/bin/e2e`) in release mode (and, with `--rust-peers`, the separate
//! `benches/rust-peers` crate), run it, and optionally the criterion benches.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cargo;

pub const USAGE: &str =
    "  bench [options]  margin against scikit-learn, LIBSVM and LIBLINEAR on real data (one child
                   process per case, side and repetition; medians; ratio = margin / peer);
                   prints the table and writes target/bench-report/report.md and ratios.svg
      --quick            one repetition, small cases only (about a minute, plus the build)
      --repeats R        repetitions per side (default 3; 1 with --quick)
      --threads N        threads per side (default 2)
      --only a,b         only these cases (`target/release/e2e list` names them)
      --python PY        the Python to run the peers with (default: target/bench-venv, then python3)
      --install-peers    when the peers are missing, pip-install them into target/bench-venv
      --no-peers         run margin alone (ratios shown as —)
      --rust-peers       also compare with linfa and smartcore: builds benches/rust-peers (its own
                         workspace, target/rust-peers; minutes the first time) and adds their
                         columns; if that build fails, says so and runs without them
      --criterion        also run `cargo bench -p margin-benches --bench '*'` (slow; shortened
                         with --quick)
      --scaling          instead of the table, fit time against n (10^3 .. 10^6, generated data)
                         for each family, margin and its peer, one chart each with the fitted
                         slope: target/bench-report/scaling/ (scaling.md, FAMILY.svg); --only
                         names families (svc, svc-batched, linear-svc, logistic, tree, forest,
                         boosting, knn, kmeans, pca); --quick stops at n = 31,623
      --budget S         with --scaling: seconds one fit may take (default 60); a side stops
                         before a size predicted to take longer";

/// The peer packages (PyPI names) and the import that proves they are there.
const PEER_PACKAGES: [&str; 3] = ["scikit-learn", "libsvm-official", "liblinear-official"];
const PEER_IMPORT: &str = "import sklearn, libsvm, liblinear";

struct Options {
    quick: bool,
    repeats: Option<String>,
    threads: Option<String>,
    only: Option<String>,
    python: Option<PathBuf>,
    install_peers: bool,
    no_peers: bool,
    rust_peers: bool,
    criterion: bool,
    scaling: bool,
    budget: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        repeats: None,
        threads: None,
        only: None,
        python: None,
        install_peers: false,
        no_peers: false,
        rust_peers: false,
        criterion: false,
        scaling: false,
        budget: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--repeats" => o.repeats = Some(value("--repeats")?),
            "--threads" => o.threads = Some(value("--threads")?),
            "--only" => o.only = Some(value("--only")?),
            "--python" => o.python = Some(value("--python")?.into()),
            "--install-peers" => o.install_peers = true,
            "--no-peers" => o.no_peers = true,
            "--rust-peers" => o.rust_peers = true,
            "--criterion" => o.criterion = true,
            "--scaling" => o.scaling = true,
            "--budget" => o.budget = Some(value("--budget")?),
            other => return Err(format!("bench: unknown option `{other}`")),
        }
    }
    for (name, v) in [("--repeats", &o.repeats), ("--threads", &o.threads)] {
        if let Some(v) = v
            && !v.parse::<usize>().is_ok_and(|n| n > 0)
        {
            return Err(format!("{name} takes a whole number ≥ 1, not `{v}`"));
        }
    }
    if let Some(b) = &o.budget
        && !b.parse::<f64>().is_ok_and(|s| s > 0.0 && s.is_finite())
    {
        return Err(format!("--budget takes a number of seconds > 0, not `{b}`"));
    }
    if o.scaling && (o.repeats.is_some() || o.rust_peers || o.criterion) {
        return Err("--scaling runs one fit per size: it takes neither --repeats, --rust-peers nor --criterion".into());
    }
    if o.budget.is_some() && !o.scaling {
        return Err("--budget applies to --scaling only".into());
    }
    if o.no_peers && (o.install_peers || o.python.is_some()) {
        return Err("--no-peers cannot be combined with --install-peers or --python".into());
    }
    Ok(o)
}

fn has_peers(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", PEER_IMPORT])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Creates `venv` and installs the peers into it; returns its interpreter.
fn install_peers(venv: &Path) -> Result<PathBuf, String> {
    let python = crate::venv(venv)?;
    let mut args = vec!["-m", "pip", "install", "--quiet"];
    args.extend(PEER_PACKAGES);
    crate::run(&python, &args)?;
    if has_peers(&python) {
        Ok(python)
    } else {
        Err(format!(
            "installed the peers, but {} still cannot `{PEER_IMPORT}`",
            python.display()
        ))
    }
}

/// The interpreter to run the peers with, or why there is none.
fn find_peers(o: &Options, venv: &Path) -> Result<Result<PathBuf, String>, String> {
    if o.no_peers {
        return Ok(Err("asked for with --no-peers".into()));
    }
    let candidates: Vec<PathBuf> = match &o.python {
        Some(p) => vec![p.clone()],
        // A venv from an earlier --install-peers first: it is the one known to be complete.
        None => vec![venv.join("bin/python"), PathBuf::from("python3")],
    };
    if let Some(found) = candidates.iter().find(|p| has_peers(p)) {
        return Ok(Ok(found.clone()));
    }
    if o.install_peers {
        return install_peers(venv).map(Ok);
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    eprintln!(
        "xtask: the Python peers are missing ({} cannot `{PEER_IMPORT}`).\n\
         xtask: to compare against them, either `pip install {}`\n\
         xtask: or rerun with --install-peers (creates {} and installs them there).\n\
         xtask: running margin alone; ratios will show as —.",
        tried.join(", "),
        PEER_PACKAGES.join(" "),
        venv.display()
    );
    Ok(Err(format!(
        "{} cannot `{PEER_IMPORT}`; pip install {} or use --install-peers",
        tried.join(", "),
        PEER_PACKAGES.join(" ")
    )))
}

/// Builds the Rust peers' crate (its own workspace and target directory, so margin's build
/// never compiles linfa or smartcore); returns the binary, or why there is none.
fn build_rust_peers(root: &Path, target: &Path) -> Result<PathBuf, String> {
    let manifest = root.join("benches/rust-peers/Cargo.toml");
    let target_dir = target.join("rust-peers");
    eprintln!(
        "xtask: building the Rust peers (linfa, smartcore) in release mode from {} into {} \
         (a few minutes the first time; crates.io must be reachable unless they are cached)",
        manifest.display(),
        target_dir.display()
    );
    let (manifest_arg, target_arg) = (
        manifest.display().to_string(),
        target_dir.display().to_string(),
    );
    cargo(
        &[
            "build",
            "--release",
            "--locked",
            "--manifest-path",
            &manifest_arg,
            "--target-dir",
            &target_arg,
        ],
        &[],
    )?;
    Ok(target_dir.join("release/rust-peers"))
}

pub fn bench(args: &[String]) -> Result<(), String> {
    let o = parse(args)?;
    let root = crate::workspace_root();
    let target = crate::target_dir();
    let peers = find_peers(&o, &target.join("bench-venv"))?;

    cargo(
        &["build", "--release", "-p", "margin-benches", "--bin", "e2e"],
        &[],
    )?;
    let mut e2e_args: Vec<String> = vec![if o.scaling { "scaling" } else { "run" }.into()];
    if o.rust_peers {
        match build_rust_peers(&root, &target) {
            Ok(exe) => e2e_args.extend(["--rust-peers".into(), exe.display().to_string()]),
            Err(why) => {
                eprintln!("xtask: the Rust peers did not build ({why}); running without them");
                e2e_args.push(format!("--no-rust-peers-reason=the build failed: {why}"));
            }
        }
    }
    match &peers {
        Ok(python) => e2e_args.extend(["--python".into(), python.display().to_string()]),
        // `--flag=value`: a value may itself start with `--`.
        Err(why) => e2e_args.push(format!("--no-peers-reason={why}")),
    }
    match (o.quick, o.scaling) {
        (true, true) => e2e_args.extend(["--max-n".into(), "31623".into()]),
        (true, false) => e2e_args.push("--quick".into()),
        _ => {}
    }
    for (flag, value) in [
        ("--repeats", &o.repeats),
        ("--threads", &o.threads),
        ("--only", &o.only),
        ("--budget", &o.budget),
    ] {
        if let Some(v) = value {
            e2e_args.extend([flag.into(), v.clone()]);
        }
    }
    let report = if o.scaling {
        target.join("bench-report/scaling")
    } else {
        target.join("bench-report")
    };
    e2e_args.extend(["--out".into(), report.display().to_string()]);
    let mut invocation = vec!["cargo xtask bench".to_string()];
    invocation.extend(args.iter().cloned());
    e2e_args.push(format!("--invocation={}", invocation.join(" ")));
    let e2e = target.join("release/e2e");
    let e2e_args: Vec<&str> = e2e_args.iter().map(String::as_str).collect();
    // The runner's own failures (a child that failed) are errors; slow ratios are not.
    crate::run(&e2e, &e2e_args)?;

    if o.criterion {
        // `--bench '*'` selects the [[bench]] targets only: `--benches` would also run the
        // library's test harness, which rejects criterion's options.
        let mut bench_args = vec!["bench", "-p", "margin-benches", "--bench", "*"];
        if o.quick {
            bench_args.extend(["--", "--warm-up-time", "1", "--measurement-time", "2"]);
        }
        cargo(&bench_args, &[])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn rust_peers_is_off_unless_asked_for() {
        let o = parse(&args(&["--quick"])).unwrap();
        assert!(!o.rust_peers && o.quick);
        let o = parse(&args(&["--quick", "--rust-peers", "--only", "svc-heart"])).unwrap();
        assert!(o.rust_peers);
        assert_eq!(o.only.as_deref(), Some("svc-heart"));
    }

    #[test]
    fn unknown_options_and_bad_numbers_are_refused() {
        assert!(parse(&args(&["--rust-peer"])).is_err());
        assert!(parse(&args(&["--repeats", "0"])).is_err());
        assert!(parse(&args(&["--no-peers", "--install-peers"])).is_err());
        assert!(parse(&args(&["--scaling", "--repeats", "3"])).is_err());
        assert!(parse(&args(&["--budget", "10"])).is_err());
        assert!(parse(&args(&["--scaling", "--budget", "0"])).is_err());
        let o = parse(&args(&[
            "--scaling",
            "--budget",
            "30",
            "--only",
            "svc,boosting",
        ]))
        .unwrap();
        assert!(o.scaling && o.budget.as_deref() == Some("30"));
    }
}
