//! Output streams and files: a full device is an error (exit 1) that names the output, a closed
//! pipe ends the command quietly (exit 0), a file-size limit leaves the old file whole, two
//! writers of one file leave one whole file, and an output that is an input is refused (exit 2)
//! before anything is computed or written.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{fails_with, margin, root, s, stdout, train};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_margin"));
    c.current_dir(root());
    c
}

/// Temporary files a failed or concurrent save could leave behind.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Runs `margin ARGS` with its standard output on /dev/full.
fn to_dev_full(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    bin().args(args).stdout(full).output().unwrap()
}

fn assert_write_error(o: &Output, args: &[&str], needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// A LIBSVM file of `n` rows of three features (two classes), written by the test.
fn synthetic(dir: &Path, name: &str, n: usize) -> PathBuf {
    let path = dir.join(name);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..n {
        let x = (i % 97) as f64 / 97.0;
        let label = if i % 2 == 0 { 1 } else { -1 };
        writeln!(w, "{label} 1:{x} 2:{} 3:{}", 1.0 - x, (i % 13) as f64).unwrap();
    }
    w.flush().unwrap();
    path
}

#[test]
fn a_full_standard_output_is_exit_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.margin");
    let pca = dir.path().join("pca.margin");
    train(&["svc", "datasets/heart_scale", "-o", s(&model)]);
    train(&["pca", "datasets/heart_scale", "-o", s(&pca)]);
    let csv = "crates/margin-cli/tests/fixtures/svmguide1_head.csv";
    let tree = dir.path().join("tree.margin");
    train(&["tree", "datasets/heart_scale", "-o", s(&tree)]);
    for args in [
        vec!["predict", s(&model), "datasets/heart_scale"],
        vec!["transform", s(&pca), "datasets/heart_scale"],
        vec!["evaluate", "svc", "datasets/heart_scale", "--cv", "2"],
        vec!["tree-export", s(&tree)],
        vec!["train", "--help"],
        vec!["train", "svc", "--help"],
    ] {
        let o = to_dev_full(&args);
        assert_write_error(&o, &args, "cannot write to standard output");
    }
    // A CSV written through the csv crate, which wraps the error.
    let pca_csv = dir.path().join("pca_csv.margin");
    train(&["pca", csv, "-o", s(&pca_csv)]);
    let args = ["transform", s(&pca_csv), csv];
    assert_write_error(
        &to_dev_full(&args),
        &args,
        "cannot write to standard output",
    );
}

#[test]
fn an_output_file_on_a_full_device_is_exit_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (model, pca) = (dir.path().join("m.margin"), dir.path().join("p.margin"));
    train(&["svc", "datasets/heart_scale", "-o", s(&model)]);
    train(&["pca", "datasets/heart_scale", "-o", s(&pca)]);
    for args in [
        vec![
            "predict",
            s(&model),
            "datasets/heart_scale",
            "-o",
            "/dev/full",
        ],
        vec![
            "transform",
            s(&pca),
            "datasets/heart_scale",
            "-o",
            "/dev/full",
        ],
        vec!["train", "svc", "datasets/heart_scale", "-o", "/dev/full"],
        vec![
            "evaluate",
            "svc",
            "datasets/heart_scale",
            "--cv",
            "2",
            "--report",
            "/dev/full",
        ],
    ] {
        let o = margin(&args);
        assert_write_error(&o, &args, "cannot write to /dev/full");
    }
}

/// Spawns `margin ARGS` with stdout piped, reads one line, closes the pipe, and expects a
/// quiet, successful end.
fn closes_quietly(args: &[&str]) {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty(), "{args:?}: no output at all");
    // The reader (and the pipe's read end) is dropped here, long before the output ends.
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
}

#[test]
fn a_closed_pipe_ends_a_long_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let small = synthetic(dir.path(), "train.svm", 200);
    let big = synthetic(dir.path(), "big.svm", 150_000);
    let (km, logistic) = (dir.path().join("km.margin"), dir.path().join("lr.margin"));
    train(&["kmeans", "--n-clusters", "6", s(&small), "-o", s(&km)]);
    train(&["logistic", s(&small), "-o", s(&logistic)]);
    // Megabytes of output against a 64 KiB pipe buffer.
    closes_quietly(&["transform", s(&km), s(&big)]);
    closes_quietly(&["predict", s(&logistic), s(&big), "--proba"]);
    closes_quietly(&["predict", s(&km), s(&big)]);
    // CSV through the csv crate.
    let csv = dir.path().join("big.csv");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&csv).unwrap());
    writeln!(w, "a,b,label").unwrap();
    for i in 0..150_000 {
        writeln!(w, "{},{},{}", i % 7, i % 11, i % 2).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let km_csv = dir.path().join("km_csv.margin");
    train(&["kmeans", "--n-clusters", "4", s(&csv), "-o", s(&km_csv)]);
    closes_quietly(&["transform", s(&km_csv), s(&csv)]);
}

/// Runs `margin ARGS` with a file-size limit of `bytes` (as `prlimit --fsize` does).
#[allow(unsafe_code)] // `pre_exec` is unsafe
fn with_file_size_limit(args: &[&str], bytes: u64) -> Output {
    use std::os::unix::process::CommandExt;
    let mut c = bin();
    c.args(args);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

#[test]
fn a_file_size_limit_leaves_the_old_file_whole_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("existing.margin");
    std::fs::write(&model, b"the model that was there").unwrap();
    // An SVC on heart_scale is about 17 kB, far above the limit.
    let args = ["train", "svc", "datasets/heart_scale", "-o", s(&model)];
    let o = with_file_size_limit(&args, 4096);
    // Killed by SIGXFSZ, the status would have no code.
    assert_write_error(&o, &args, "File too large");
    assert!(String::from_utf8_lossy(&o.stderr).contains(s(&model)));
    assert_eq!(std::fs::read(&model).unwrap(), b"the model that was there");
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
    // The same for predictions.
    train(&["linear-svc", "datasets/heart_scale", "-o", s(&model)]);
    let preds = dir.path().join("preds.txt");
    std::fs::write(&preds, b"old predictions\n").unwrap();
    let args = [
        "predict",
        s(&model),
        "datasets/heart_scale",
        "-o",
        s(&preds),
    ];
    let o = with_file_size_limit(&args, 100);
    assert_write_error(&o, &args, "File too large");
    assert_eq!(std::fs::read(&preds).unwrap(), b"old predictions\n");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn two_concurrent_saves_of_one_path_leave_one_valid_model() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("same.margin");
    let (a, b) = (dir.path().join("a.margin"), dir.path().join("b.margin"));
    let train = |c: &str, out: &Path| {
        bin()
            .args([
                "train",
                "svc",
                "--c",
                c,
                "datasets/heart_scale",
                "-o",
                s(out),
            ])
            .spawn()
            .unwrap()
    };
    for _ in 0..3 {
        let (mut one, mut two) = (train("1", &target), train("2", &target));
        assert!(one.wait().unwrap().success());
        assert!(two.wait().unwrap().success());
        let got = std::fs::read(&target).unwrap();
        assert!(train("1", &a).wait().unwrap().success());
        assert!(train("2", &b).wait().unwrap().success());
        let (want_a, want_b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(got == want_a || got == want_b, "a mixture of two saves");
        stdout(&margin(&["predict", s(&target), "datasets/heart_scale"]));
        assert!(leftovers(dir.path()).is_empty());
    }
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("x.txt");
    std::fs::copy(root().join("datasets/heart_scale"), &data).unwrap();
    let original = std::fs::read(&data).unwrap();
    let (model, pca) = (dir.path().join("m.margin"), dir.path().join("p.margin"));
    train(&["svc", s(&data), "-o", s(&model)]);
    train(&["pca", s(&data), "-o", s(&pca)]);
    let model_bytes = std::fs::read(&model).unwrap();
    let spelled = format!("{}/./x.txt", dir.path().display());
    let report = dir.path().join("r.md");
    for args in [
        vec!["train", "svc", s(&data), "-o", s(&data)],
        vec!["train", "svc", s(&data), "-o", &spelled],
        vec!["predict", s(&model), s(&data), "-o", s(&model)],
        vec!["predict", s(&model), s(&data), "-o", s(&data)],
        vec!["transform", s(&pca), s(&data), "-o", s(&data)],
        vec!["transform", s(&pca), s(&data), "-o", s(&pca)],
        vec!["evaluate", "svc", s(&data), "--cv", "3", "--roc", s(&data)],
        vec![
            "evaluate",
            "svc",
            s(&data),
            "--cv",
            "3",
            "--report",
            s(&data),
        ],
    ] {
        fails_with(&args, 2, "is also an input");
    }
    fails_with(
        &[
            "evaluate",
            "svc",
            s(&data),
            "--cv",
            "3",
            "--roc",
            s(&report),
            "--report",
            s(&report),
        ],
        2,
        "two outputs",
    );
    fails_with(
        &["train", "svc", s(&data), "-o", "/no/such/dir/m.margin"],
        2,
        "does not exist",
    );
    assert_eq!(std::fs::read(&data).unwrap(), original);
    assert_eq!(std::fs::read(&model).unwrap(), model_bytes);
    assert!(!report.exists());
}

#[test]
fn a_refusal_leaves_existing_outputs_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.margin");
    train(&["svc", "datasets/heart_scale", "-o", s(&model)]);
    let out = dir.path().join("out.txt");
    let keep = |name: &Path| std::fs::write(name, b"keep me\n").unwrap();
    keep(&out);
    // No probabilities in this model.
    fails_with(
        &[
            "predict",
            s(&model),
            "datasets/heart_scale",
            "--proba",
            "-o",
            s(&out),
        ],
        2,
        "--probability true",
    );
    // Data wider than the model.
    fails_with(
        &["predict", s(&model), "datasets/dna.scale", "-o", s(&out)],
        2,
        "above the 13 features",
    );
    // A metric that does not fit the predictions: found after the folds, before any write.
    let (roc, report) = (dir.path().join("roc.svg"), dir.path().join("r.md"));
    keep(&roc);
    keep(&report);
    fails_with(
        &[
            "evaluate",
            "svc",
            "datasets/heart_scale",
            "--cv",
            "2",
            "--metrics",
            "r2",
            "--roc",
            s(&roc),
            "--report",
            s(&report),
        ],
        2,
        "not a metric for this model",
    );
    // A bad flag of the model.
    fails_with(
        &[
            "train",
            "svc",
            "--c",
            "-1",
            "datasets/heart_scale",
            "-o",
            s(&out),
        ],
        2,
        "--c: expected a number > 0",
    );
    for p in [&out, &roc, &report] {
        assert_eq!(std::fs::read(p).unwrap(), b"keep me\n", "{}", p.display());
    }
    assert!(leftovers(dir.path()).is_empty());
}
