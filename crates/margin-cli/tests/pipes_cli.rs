//! Every command that reads a data file reads it from a pipe (`cat f | margin … /dev/stdin`), a
//! FIFO (`mkfifo`) and a process substitution (`margin … <(cat f)`, a `/dev/fd/N` path) as it
//! reads the file itself: the same output, byte for byte. Before, the data was opened once to
//! decide its format and again to read it, so a pipe read as empty (0 rows, 0 bytes of
//! predictions, exit code 0) and a FIFO blocked forever. Each run is killed after a bound on
//! its wait, so a command that blocks fails the test instead of hanging it.
#![cfg(unix)]

use crate::common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{margin, root, s, stdout, train};

/// The longest a command may wait (a debug build on a loaded two-core machine trains these
/// small models in seconds; only a command that blocks reaches this).
const BOUND: Duration = Duration::from_secs(180);

/// Where `{data}` in a command's arguments stands for the data.
const DATA: &str = "{data}";

/// How the data reaches the command.
#[derive(Clone, Copy, Debug)]
enum Via {
    /// `/dev/stdin`, a pipe from this process.
    Stdin,
    /// A FIFO made with `mkfifo`, written by a thread.
    Fifo,
    /// bash's `<(cat FILE)`: a pipe passed as `/dev/fd/N`.
    ProcessSubstitution,
}

const ALL: [Via; 3] = [Via::Stdin, Via::Fifo, Via::ProcessSubstitution];

/// Waits for `child` at most [`BOUND`] (then kills it and fails), collecting its output.
fn wait_bounded(mut child: Child, what: &str) -> Output {
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut r) = r {
                r.read_to_end(&mut bytes).ok();
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for margin") {
            break status;
        }
        if started.elapsed() > BOUND {
            child.kill().ok();
            child.wait().ok();
            panic!("{what} did not end within {BOUND:?}: was its input opened twice?");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// A shell word for `s`, quoted.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `margin ARGS` from the repository root with the contents of `file` given where ARGS
/// says `{data}`, `via` a pipe, a FIFO or a process substitution (`dir` holds the FIFO).
fn run_via(via: Via, file: &Path, args: &[&str], dir: &Path) -> Output {
    let bytes = std::fs::read(file).unwrap();
    let what = format!("margin {args:?} via {via:?}");
    match via {
        Via::Stdin => {
            let args: Vec<&str> = args
                .iter()
                .map(|&a| if a == DATA { "/dev/stdin" } else { a })
                .collect();
            let mut child = spawn_margin(&args, Stdio::piped());
            let mut stdin = child.stdin.take().expect("piped stdin");
            // A command that stops reading early closes the pipe: the write then fails, which
            // is fine.
            std::thread::spawn(move || stdin.write_all(&bytes).ok());
            wait_bounded(child, &what)
        }
        Via::Fifo => {
            let fifo = dir.join(format!("fifo-{}", unique()));
            let made = Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo runs");
            assert!(made.success(), "mkfifo {}", fifo.display());
            let writer = fifo.clone();
            std::thread::spawn(move || {
                if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer) {
                    f.write_all(&bytes).ok();
                }
            });
            let path = fifo.to_str().unwrap().to_owned();
            let args: Vec<&str> = args
                .iter()
                .map(|&a| if a == DATA { path.as_str() } else { a })
                .collect();
            let child = spawn_margin(&args, Stdio::null());
            let out = wait_bounded(child, &what);
            // A writer still blocked in its open (the command failed before opening) is let go.
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&fifo)
                .ok();
            out
        }
        Via::ProcessSubstitution => {
            let words: Vec<String> = args
                .iter()
                .map(|&a| {
                    if a == DATA {
                        format!("<(cat {})", quoted(file.to_str().unwrap()))
                    } else {
                        quoted(a)
                    }
                })
                .collect();
            let script = format!(
                "exec {} {}",
                quoted(env!("CARGO_BIN_EXE_margin")),
                words.join(" ")
            );
            let child = Command::new("bash")
                .arg("-c")
                .arg(script)
                .current_dir(root())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("bash runs");
            wait_bounded(child, &what)
        }
    }
}

/// Starts `margin ARGS` from the repository root with `stdin` as its standard input, its
/// standard output and error piped.
fn spawn_margin(args: &[&str], stdin: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("margin runs")
}

/// A number no other call in this process returns (FIFO names).
fn unique() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A temporary directory for a test, when the tools these tests drive are here (mkfifo, bash,
/// cat); `None`, saying so, when not (the test is then skipped).
fn with_tools() -> Option<tempfile::TempDir> {
    for tool in ["mkfifo", "bash", "cat"] {
        if Command::new(tool).arg("--version").output().is_err() {
            println!("skipped: `{tool}` is not installed");
            return None;
        }
    }
    Some(tempfile::tempdir().unwrap())
}

/// heart_scale's path, and an SVC trained on it saved as `dir/svc.margin`.
fn heart_and_svc(dir: &Path) -> (PathBuf, PathBuf) {
    let heart = root().join("datasets/heart_scale");
    let svc = dir.join("svc.margin");
    train(&["svc", s(&heart), "-o", s(&svc)]);
    (heart, svc)
}

/// The LIBSVM model `margin svm-train` writes for `heart`, saved as `dir/heart.model`.
fn libsvm_model(dir: &Path, heart: &Path) -> PathBuf {
    let model = dir.join("heart.model");
    stdout(&margin(&["svm-train", "-q", s(heart), s(&model)]));
    model
}

/// When the tools are here ([`with_tools`]): a test's temporary directory, heart_scale's path,
/// an SVC trained on it ([`heart_and_svc`]) and the LIBSVM model `margin svm-train` writes for
/// it ([`libsvm_model`]), both saved in that directory.
fn with_heart_models() -> Option<(tempfile::TempDir, PathBuf, PathBuf, PathBuf)> {
    let dir = with_tools()?;
    let (heart, svc) = heart_and_svc(dir.path());
    let libsvm_model = libsvm_model(dir.path(), &heart);
    Some((dir, heart, svc, libsvm_model))
}

/// The output of a run that must succeed, stdout then any file it wrote, with the data's path
/// (which differs from run to run) taken out of lines that name it.
fn result(o: &Output, file: Option<&Path>, data: &str) -> (String, Vec<u8>) {
    let text = stdout(o)
        .lines()
        .filter(|l| !l.starts_with("file: "))
        .map(|l| l.replace(data, "DATA"))
        .collect::<Vec<_>>()
        .join("\n");
    (
        text,
        file.map(|f| std::fs::read(f).unwrap()).unwrap_or_default(),
    )
}

/// One command of the table in [`every_command_reads_its_data_from_pipes_fifos_and_substitutions`]:
/// its arguments (`{data}` for the data, `{out}` for an output file it writes), and whether it
/// writes that file.
struct Case {
    name: &'static str,
    args: Vec<String>,
    writes: bool,
}

#[test]
fn every_command_reads_its_data_from_pipes_fifos_and_substitutions() {
    // The models the prediction commands read, trained from the file.
    let Some((dir, heart, svc, libsvm_model)) = with_heart_models() else {
        return;
    };
    let d = dir.path();
    let pca = d.join("pca.margin");
    train(&["pca", "--n-components", "2", s(&heart), "-o", s(&pca)]);
    let case = |name: &'static str, args: &[&str], writes: bool| Case {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        writes,
    };
    let cases = [
        case("info", &["info", DATA], false),
        case("info --features", &["info", DATA, "--features"], false),
        case("scale", &["scale", DATA], false),
        case("train", &["train", "svc", DATA, "-o", "{out}"], true),
        case("predict", &["predict", s(&svc), DATA, "-o", "{out}"], true),
        case("predict to stdout", &["predict", s(&svc), DATA], false),
        case("evaluate", &["evaluate", "svc", DATA, "--cv", "3"], false),
        case(
            "evaluate --grid",
            &["evaluate", "svc", DATA, "--cv", "3", "--grid", "C=0.5,2"],
            false,
        ),
        case("transform", &["transform", s(&pca), DATA], false),
        case("svm-train", &["svm-train", "-q", DATA, "{out}"], true),
        case(
            "svm-predict",
            &["svm-predict", DATA, s(&libsvm_model), "{out}"],
            true,
        ),
    ];
    for c in &cases {
        let reference = d.join(format!("{}-file", c.name.replace(' ', "_")));
        let args = |data: &str, out: &Path| -> Vec<String> {
            c.args
                .iter()
                .map(|a| match a.as_str() {
                    DATA => data.to_owned(),
                    "{out}" => s(out).to_owned(),
                    other => other.to_owned(),
                })
                .collect()
        };
        let file_args = args(s(&heart), &reference);
        let file_args: Vec<&str> = file_args.iter().map(String::as_str).collect();
        let want = result(
            &margin(&file_args),
            c.writes.then_some(reference.as_path()),
            s(&heart),
        );
        assert!(!want.0.is_empty() || !want.1.is_empty(), "{}", c.name);
        for via in ALL {
            let out = d.join(format!("{}-{via:?}", c.name.replace(' ', "_")));
            let via_args = args(DATA, &out);
            let via_args: Vec<&str> = via_args.iter().map(String::as_str).collect();
            let o = run_via(via, &heart, &via_args, d);
            assert!(
                o.status.success(),
                "{} via {via:?}: {}",
                c.name,
                String::from_utf8_lossy(&o.stderr)
            );
            // The path the command was given (`/dev/stdin`, the FIFO, `/dev/fd/63`) appears in
            // no line but `file:`.
            let got = result(&o, c.writes.then_some(out.as_path()), "\u{0}");
            assert_eq!(got.0, want.0, "{} via {via:?}: stdout differs", c.name);
            assert!(
                got.1 == want.1,
                "{} via {via:?}: the file written differs ({} bytes against {})",
                c.name,
                got.1.len(),
                want.1.len()
            );
        }
    }
}

/// heart_scale as a Parquet table (via `margin transform -o x.parquet` would need a model; the
/// CLI's own table writer is reached through `predict`): written here with the parquet crate.
fn heart_parquet(dir: &Path) -> PathBuf {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Float64Array, RecordBatch};
    let data = margin_io::read_data(
        &root().join("datasets/heart_scale"),
        margin_io::DataFormat::Auto,
    )
    .unwrap();
    let dense = margin_core::Records::to_dense(&data.records).unwrap();
    let mut columns: Vec<(String, ArrayRef)> = (0..dense.ncols())
        .map(|j| {
            let col: Vec<f64> = (0..dense.nrows()).map(|i| dense.row(i)[j]).collect();
            (
                format!("f{}", j + 1),
                Arc::new(Float64Array::from(col)) as ArrayRef,
            )
        })
        .collect();
    columns.push((
        "label".into(),
        Arc::new(Float64Array::from(data.targets.values().unwrap().to_vec())),
    ));
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let path = dir.join("heart.parquet");
    let file = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    path
}

#[test]
fn a_parquet_table_reads_from_a_pipe_and_a_fifo_as_from_its_file() {
    let Some(dir) = with_tools() else {
        return;
    };
    let d = dir.path();
    let table = heart_parquet(d);
    let want = result(&margin(&["info", s(&table)]), None, s(&table));
    assert!(want.0.contains("rows: 270"), "{}", want.0);
    let model = d.join("m.margin");
    train(&["logistic", s(&table), "-o", s(&model)]);
    let predicted = result(&margin(&["predict", s(&model), s(&table)]), None, "");
    for via in ALL {
        let got = result(&run_via(via, &table, &["info", DATA], d), None, "\u{0}");
        assert_eq!(got.0, want.0, "info via {via:?}");
        let got = result(
            &run_via(via, &table, &["predict", s(&model), DATA], d),
            None,
            "",
        );
        assert_eq!(got.0, predicted.0, "predict via {via:?}");
    }
}

#[test]
fn the_issue_s_pipe_into_predict_writes_every_prediction() {
    let Some(dir) = with_tools() else {
        return;
    };
    let (heart, model) = heart_and_svc(dir.path());
    // `cat heart_scale | margin predict M /dev/stdin -o out` wrote 0 bytes and exited 0.
    let out = dir.path().join("out");
    let o = run_via(
        Via::Stdin,
        &heart,
        &["predict", s(&model), DATA, "-o", s(&out)],
        dir.path(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = std::fs::read_to_string(&out).unwrap().lines().count();
    assert_eq!(lines, 270);
}

#[test]
fn info_reads_a_model_file_from_a_pipe_as_from_its_file() {
    let Some((dir, _, svc, libsvm_model)) = with_heart_models() else {
        return;
    };
    let d = dir.path();
    for model in [&svc, &libsvm_model] {
        let want = result(&margin(&["info", s(model)]), None, "\u{0}");
        assert!(want.0.contains("model: "), "{}", want.0);
        for via in ALL {
            let got = result(&run_via(via, model, &["info", DATA], d), None, "\u{0}");
            assert_eq!(got.0, want.0, "{} via {via:?}", model.display());
        }
    }
}

#[test]
fn a_piped_model_file_is_read_only_as_far_as_its_header_claims() {
    let dir = tempfile::tempdir().unwrap();
    let (_, svc) = heart_and_svc(dir.path());
    // The model, then zeros without end: read whole, the pipe would never end. Read as far as
    // the header claims, the byte after the body is found and the file refused at once.
    let model = std::fs::read(&svc).unwrap();
    let mut child = spawn_margin(&["info", "/dev/stdin"], Stdio::piped());
    let mut stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || {
        let zeros = vec![0u8; 1 << 16];
        // Ends when margin closes the pipe.
        if stdin.write_all(&model).is_ok() {
            while stdin.write_all(&zeros).is_ok() {}
        }
    });
    let o = wait_bounded(child, "margin info on an endless pipe");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("trailing bytes"), "{stderr}");
}
