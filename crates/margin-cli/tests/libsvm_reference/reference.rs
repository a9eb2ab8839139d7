//! The reference side: a Python with `libsvm-official==3.37.0` (given by `MARGIN_LIBSVM_PYTHON`,
//! or a venv this suite creates under the target directory and reuses), and `driver.py`, which
//! behaves as LIBSVM's `svm-train` / `svm-predict`. Every child process runs under a deadline.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The package (and version) the reference is built from.
pub const PACKAGE: &str = "libsvm-official==3.37.0";
const VERSION: &str = "3.37.0";

/// The driver script, beside this file.
pub fn driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/libsvm_reference/driver.py")
}

/// Waits for `child` at most `limit`; kills it (and says so) past that.
pub fn wait(mut child: Child, limit: Duration, what: &str) -> Result<ExitStatus, String> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{what}: killed after {}s", limit.as_secs()));
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("{what}: cannot wait: {e}")),
        }
    }
}

/// Runs `program args` to completion within `limit`; its output when it succeeded.
fn run(program: &Path, args: &[&str], limit: Duration) -> Result<String, String> {
    let what = format!("`{} {}`", program.display(), args.join(" "));
    let dir = tempfile::tempdir().map_err(|e| format!("{what}: no temporary directory: {e}"))?;
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{what}: {e}"));
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .spawn()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    let status = wait(child, limit, &what)?;
    let out = std::fs::read_to_string(&out_path).unwrap_or_default();
    if status.success() {
        Ok(out)
    } else {
        let err = std::fs::read_to_string(&err_path).unwrap_or_default();
        Err(format!("{what} failed ({status}):\n{out}{err}"))
    }
}

/// The `libsvm-official` version `python` has, or why it has none.
fn version_of(python: &Path) -> Result<String, String> {
    let driver = driver();
    let args = [driver.to_str().unwrap_or_default(), "--version"];
    run(python, &args, Duration::from_secs(120)).map(|v| v.trim().to_string())
}

/// Checks that `python` drives LIBSVM 3.37.
fn checked(python: PathBuf) -> Result<PathBuf, String> {
    let version = version_of(&python)?;
    if version == VERSION {
        Ok(python)
    } else {
        Err(format!(
            "{} has libsvm-official {version}, the suite compares against {VERSION}",
            python.display()
        ))
    }
}

/// The Python to run the reference with: `MARGIN_LIBSVM_PYTHON`, or the suite's own venv
/// (created with `python3 -m venv` and `pip install libsvm-official==3.37.0` on first use).
pub fn python() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("MARGIN_LIBSVM_PYTHON") {
        return checked(PathBuf::from(p))
            .map_err(|e| format!("MARGIN_LIBSVM_PYTHON cannot serve as the reference: {e}"));
    }
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libsvm-3.37-venv");
    let python = venv.join("bin/python");
    if python.exists() && checked(python.clone()).is_ok() {
        return Ok(python);
    }
    let explain = |e: String| {
        format!(
            "the LIBSVM differential suite needs LIBSVM 3.37 from PyPI and could not install it \
             into {}:\n{e}\nEither give it network access and Python 3 with the venv module \
             (Debian/Ubuntu: python3-venv) and a C compiler, or point MARGIN_LIBSVM_PYTHON at a \
             Python that has `pip install {PACKAGE}`.",
            venv.display()
        )
    };
    let _ = std::fs::remove_dir_all(&venv);
    let base = std::env::var_os("MARGIN_PYTHON3").unwrap_or_else(|| "python3".into());
    let venv_arg = venv.to_string_lossy().into_owned();
    run(
        Path::new(&base),
        &["-m", "venv", &venv_arg],
        Duration::from_secs(300),
    )
    .map_err(explain)?;
    let pip = [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        "--timeout",
        "60",
        PACKAGE,
    ];
    run(&python, &pip, Duration::from_secs(900)).map_err(explain)?;
    checked(python).map_err(explain)
}

/// One invocation of a tool: `tool argv` run in `cwd`, its streams into two files.
pub struct Job {
    pub tool: &'static str,
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

/// A JSON string (the job file holds paths and arguments, nothing exotic).
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_path(p: &Path) -> String {
    json_string(&p.to_string_lossy())
}

impl Job {
    fn to_json(&self) -> String {
        let argv: Vec<String> = self.argv.iter().map(|a| json_string(a)).collect();
        format!(
            "{{\"tool\": {}, \"argv\": [{}], \"cwd\": {}, \"stdout\": {}, \"stderr\": {}}}",
            json_string(self.tool),
            argv.join(", "),
            json_path(&self.cwd),
            json_path(&self.stdout),
            json_path(&self.stderr)
        )
    }
}

/// A batch of reference jobs running in one Python process (one interpreter start for all).
pub struct Batch {
    child: Child,
    results: PathBuf,
    count: usize,
}

impl Batch {
    /// Starts the driver on `jobs` in the background; `dir` holds the job and result files.
    pub fn start(python: &Path, jobs: &[Job], dir: &Path) -> Batch {
        let (jobs_path, results) = (dir.join("jobs.jsonl"), dir.join("results.jsonl"));
        let text: Vec<String> = jobs.iter().map(Job::to_json).collect();
        std::fs::write(&jobs_path, text.join("\n") + "\n").expect("the job file is written");
        let log = std::fs::File::create(dir.join("driver.log")).expect("the driver log opens");
        let child = Command::new(python)
            .arg(driver())
            .arg("--batch")
            .args([&jobs_path, &results])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log is shared"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        Batch {
            child,
            results,
            count: jobs.len(),
        }
    }

    /// Waits for the batch (at most `limit`); each job's exit code, in order.
    pub fn finish(self, limit: Duration) -> Result<Vec<i32>, String> {
        let status = wait(self.child, limit, "the LIBSVM reference driver")?;
        let text = std::fs::read_to_string(&self.results).unwrap_or_default();
        let codes: Vec<i32> = text
            .lines()
            .filter_map(|l| {
                let digits: String = l
                    .chars()
                    .filter(|c| c.is_ascii_digit() || *c == '-')
                    .collect();
                digits.parse().ok()
            })
            .collect();
        if !status.success() || codes.len() != self.count {
            return Err(format!(
                "the LIBSVM reference driver stopped ({status}) after {} of {} jobs; see \
                 driver.log beside {}",
                codes.len(),
                self.count,
                self.results.display()
            ));
        }
        if let Some(k) = codes.iter().position(|c| *c == 99) {
            return Err(format!(
                "driver.py failed on job {} (its own fault, not LIBSVM's): see that job's stderr",
                k + 1
            ));
        }
        Ok(codes)
    }
}
