//! Memory at the edges: every command on hostile LIBSVM files, under an address-space limit
//! (`prlimit --as=1000000000`, 1 GB), ends with exit code 0 or 2, never an abort (134), a
//! panic (101) or a signal. A refusal for memory names the size and the way out.
//!
//! faer's matrix products keep a scratch of twice the last-level cache on every thread (960
//! MiB a thread on a VM that reports a 480 MiB L3): where that alone exceeds the limit, a
//! model that runs them (kernel ridge's Cholesky factorization) refuses, naming it, rather
//! than aborts; elsewhere it trains.
//!
//! The files: two-class files whose largest feature index is 2³¹ − 1 and u32::MAX (the largest
//! legal one-based index), and a file of 1,000 rows whose largest index is 10⁷, on which the
//! models that read sparse data as it is (the SVMs, kNN, kernel ridge, the kernel perceptron,
//! the linear SVMs, naive Bayes) must run and the models that need dense records must refuse.
//! Every model `margin train --help` lists is tried, so a new one is covered automatically.

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{fails_with, margin, predict, root, stdout};

/// The address-space limit every command runs under.
const LIMIT: u64 = 1_000_000_000;
/// The longest a single command may take (a debug build on a loaded 2-core machine).
const TIMEOUT: Duration = Duration::from_secs(180);

/// The outcome of one command.
struct Run {
    args: Vec<String>,
    status: ExitStatus,
    stderr: String,
}

impl Run {
    /// Exit code 0 or 2, and for a memory refusal a message naming the size and a way out.
    fn check(&self) {
        let code = self.status.code();
        assert!(
            matches!(code, Some(0 | 2)),
            "{:?} ended with {} (want exit 0 or 2): {}",
            self.args,
            self.status,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("internal error"),
            "{:?}: {}",
            self.args,
            self.stderr
        );
        if self.is_memory_refusal() {
            assert!(
                self.stderr.contains(" bytes)") && self.stderr.contains("iB"),
                "{:?}: a memory refusal must name the size: {}",
                self.args,
                self.stderr
            );
            let ways = [
                "fewer",
                "smaller",
                "split the file",
                "--n-features",
                "cache",
            ];
            assert!(
                ways.iter().any(|w| self.stderr.contains(w)),
                "{:?}: a memory refusal must name a way out: {}",
                self.args,
                self.stderr
            );
        }
    }

    fn is_memory_refusal(&self) -> bool {
        self.stderr.contains("out of memory")
    }

    fn ok(&self) -> bool {
        self.status.success()
    }
}

/// `margin ARGS` under the address-space limit, killed (and the test failed) after
/// [`TIMEOUT`].
fn limited(args: &[&str]) -> Run {
    limited_to(LIMIT, args)
}

/// `margin ARGS` under an address-space limit of `limit` bytes, as [`limited`].
fn limited_to(limit: u64, args: &[&str]) -> Run {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit starts");
    let mut err = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut err, &mut text).ok();
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for margin") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            child.kill().ok();
            child.wait().ok();
            panic!("{args:?} did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        status,
        stderr: reader.join().unwrap_or_default(),
    }
}

/// Whether `prlimit` (util-linux) is there to impose the limit; says so when it is not.
fn have_prlimit() -> bool {
    let found = Command::new("prlimit")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        println!("skipped: prlimit (util-linux) is not installed, so no address-space limit");
    }
    found
}

/// The models `margin train --help` lists.
fn registered_models() -> Vec<String> {
    let help = stdout(&margin(&["train", "--help"]));
    let models: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("models:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(models.len() >= 20, "model list not found in:\n{help}");
    models
}

/// A two-class file of 12 rows whose largest feature index is `top`: six rows per class, small
/// indices beside it (so kNN's 5 neighbours and k-means' 8 clusters have enough rows).
fn two_class_file(dir: &Path, top: u64) -> PathBuf {
    let mut text = String::new();
    for i in 0..12u64 {
        let label = if i % 2 == 0 { 1 } else { -1 };
        let mut row = format!("{label} {}:1 {}:0.5", 1 + i % 3, 4 + i % 5);
        if i % 2 == 0 || i == 3 {
            write!(row, " {top}:{}", 1 + i % 4).unwrap();
        }
        writeln!(text, "{row}").unwrap();
    }
    let path = dir.join(format!("top-{top}.txt"));
    std::fs::write(&path, text).unwrap();
    path
}

/// 1,000 rows of six small features (and one large one in the positive rows) whose largest
/// index is 10⁷: a dense copy is 80 GB, every sparse structure a few hundred kB.
fn wide_file(dir: &Path) -> PathBuf {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    let mut text = String::new();
    for i in 0..1000 {
        let positive = i % 2 == 0;
        let mut idx: Vec<u64> = (0..6).map(|_| 1 + next(199)).collect();
        if positive {
            idx.push(1000 + next(9_999_000));
        }
        if i == 0 {
            idx.push(10_000_000);
        }
        idx.sort_unstable();
        idx.dedup();
        text.push_str(if positive { "1" } else { "-1" });
        for j in idx {
            write!(text, " {j}:{}", (1 + next(9)) as f64 / 10.0).unwrap();
        }
        text.push('\n');
    }
    let path = dir.join("wide.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// What every command does on `data`; returns the models `train` fitted.
fn every_command(data: &Path, dir: &Path, models: &[String]) -> Vec<String> {
    let data = data.to_str().unwrap();
    for command in ["info", "scale"] {
        // Being made sparse by another change: on its own branch this may still refuse.
        limited(&[command, data]).check();
    }
    let mut trained = Vec::new();
    for model in models {
        let file = dir.join(format!("{model}.margin"));
        let file = file.to_str().unwrap();
        let train = limited(&["train", model, data, "-o", file]);
        train.check();
        if train.ok() {
            trained.push(model.clone());
            limited(&["predict", file, data]).check();
            // Only PCA and k-means transform; the others refuse with exit 2.
            limited(&["transform", file, data]).check();
        }
        limited(&["evaluate", model, data, "--cv", "2"]).check();
    }
    let libsvm_model = dir.join("libsvm.model");
    let (libsvm_model, out) = (
        libsvm_model.to_str().unwrap(),
        dir.join("libsvm.out").to_string_lossy().into_owned(),
    );
    for kernel in ["2", "0"] {
        let train = limited(&["svm-train", "-t", kernel, data, libsvm_model]);
        train.check();
        // svm-train reads index j as column j, as LIBSVM does, so 4294967295 would need 2³²
        // columns; LIBSVM, whose indices are ints, refuses that line too.
        if data.ends_with("top-4294967295.txt") {
            assert!(
                !train.ok() && train.stderr.contains("feature index 4294967295"),
                "svm-train -t {kernel} on {data}: {}",
                train.stderr
            );
            continue;
        }
        assert!(
            train.ok(),
            "svm-train -t {kernel} must run on {data}: {}",
            train.stderr
        );
        let predict = limited(&["svm-predict", data, libsvm_model, &out]);
        predict.check();
        assert!(predict.ok(), "svm-predict on {data}: {}", predict.stderr);
    }
    trained
}

/// Models that read sparse data as it is: they must run on every file.
const SPARSE_MODELS: &[&str] = &[
    "svc",
    "svr",
    "nu-svc",
    "nu-svr",
    "one-class-svm",
    "kernel-ridge",
    "kernel-perceptron",
];

/// Sparse models whose fit runs faer's matrix products.
const PRODUCT_MODELS: &[&str] = &["kernel-ridge"];

fn assert_sparse_models_ran(trained: &[String], models: &[String], data: &str) {
    for m in SPARSE_MODELS {
        if PRODUCT_MODELS.contains(m) && !products_fit() {
            continue;
        }
        if models.iter().any(|x| x == m) {
            assert!(
                trained.iter().any(|t| t == m),
                "{m} must train on {data} (its memory follows the stored entries)"
            );
        }
    }
}

#[test]
fn two_class_files_with_the_largest_indices_never_abort() {
    if !have_prlimit() {
        return;
    }
    let models = registered_models();
    let dir = tempfile::tempdir().unwrap();
    for top in [2_147_483_647u64, 4_294_967_295] {
        let data = two_class_file(dir.path(), top);
        let trained = every_command(&data, dir.path(), &models);
        assert_sparse_models_ran(&trained, &models, &data.to_string_lossy());
    }
}

#[test]
fn many_rows_with_an_index_of_ten_million_run_sparse_and_refuse_dense() {
    let dir = tempfile::tempdir().unwrap();
    let data = wide_file(dir.path());
    // Without any limit too: PCA's dense copy and factors (500 GiB) are refused up front.
    let out = dir.path().join("pca.margin");
    fails_with(
        &[
            "train",
            "pca",
            data.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        2,
        "out of memory: the principal components of 1000 × 10000000 records",
    );
    if !have_prlimit() {
        return;
    }
    let models = registered_models();
    let trained = every_command(&data, dir.path(), &models);
    assert_sparse_models_ran(&trained, &models, "the wide file");
    for m in [
        "knn-classifier",
        "knn-regressor",
        "linear-svc",
        "multinomial-nb",
    ] {
        if models.iter().any(|x| x == m) {
            assert!(
                trained.iter().any(|t| t == m),
                "{m} must train on the wide file"
            );
        }
    }
    // Models that need the records dense (80 GB here) refuse, naming the size.
    let data = data.to_str().unwrap();
    for m in [
        "tree",
        "forest",
        "gradient-boosting",
        "pca",
        "linear",
        "lasso",
    ] {
        if !models.iter().any(|x| x == m) {
            continue;
        }
        let out = dir.path().join("dense.margin");
        let run = limited(&["train", m, data, "-o", out.to_str().unwrap()]);
        run.check();
        assert!(
            run.status.code() == Some(2) && run.is_memory_refusal(),
            "{m} must refuse the wide file for memory: {}",
            run.stderr
        );
    }
}

/// Whether the scratch of faer's products leaves room under [`LIMIT`] (on this machine, with
/// this many threads).
fn products_fit() -> bool {
    margin_core::memory::product_scratch_bytes() <= LIMIT / 2
}

/// Under the limit, kernel ridge (a Cholesky factorization, so faer's products) trains where
/// the products' scratch leaves room for the data, and otherwise refuses naming the scratch,
/// its size and the way out: never the allocator's abort.
#[test]
fn products_whose_scratch_exceeds_the_limit_are_refused_not_aborted() {
    if !have_prlimit() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("small.txt");
    let mut text = String::new();
    for i in 0..300u32 {
        let x = f64::from(i % 17) / 17.0;
        writeln!(text, "{} 1:{x} 2:{} 3:{}", 2.0 * x, f64::from(i % 5), x * x).unwrap();
    }
    std::fs::write(&data, text).unwrap();
    let out = dir.path().join("kr.margin");
    let args = [
        "train",
        "kernel-ridge",
        data.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let run = limited(&args);
    run.check();
    let scratch = margin_core::memory::product_scratch_bytes();
    if scratch >= LIMIT {
        assert!(
            run.status.code() == Some(2)
                && run.stderr.contains("the scratch of faer's matrix products")
                && run.stderr.contains("RAYON_NUM_THREADS"),
            "a scratch of {scratch} bytes cannot fit in {LIMIT}: {}",
            run.stderr
        );
    } else if products_fit() {
        assert!(
            run.ok(),
            "a scratch of {scratch} bytes fits: {}",
            run.stderr
        );
    }
}

/// Products small enough for faer's small-product kernel need none of its scratch: k-means and
/// PCA on a four-row CSV, and an SVM's predictions on heart_scale (whose kernel values then
/// come pair by pair, the same predictions), run under a limit the scratch alone would fill.
#[test]
fn small_problems_run_where_the_products_scratch_cannot_fit() {
    if !have_prlimit() {
        return;
    }
    let limit = LIMIT.min(margin_core::memory::product_scratch_bytes());
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("four.csv");
    std::fs::write(&csv, "a,b,c,y\n1,2,3,0\n2,3,1,1\n5,1,0,0\n3,3,3,1\n").unwrap();
    let heart = root().join("datasets/heart_scale");
    let (csv, heart) = (csv.to_str().unwrap(), heart.to_str().unwrap());
    let model = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (kmeans, pca, svc) = (model("k.margin"), model("p.margin"), model("s.margin"));
    let free = dir.path().join("free.txt");
    let tight = dir.path().join("tight.txt");
    for args in [
        vec!["train", "kmeans", "--n-clusters", "2", csv, "-o", &kmeans],
        vec!["predict", &kmeans, csv],
        vec!["train", "pca", csv, "-o", &pca],
        vec!["transform", &pca, csv],
        vec!["train", "svc", heart, "-o", &svc],
        vec!["predict", &svc, heart, "-o", tight.to_str().unwrap()],
    ] {
        let run = limited_to(limit, &args);
        assert!(run.ok(), "{args:?} under {limit} bytes: {}", run.stderr);
    }
    predict(&svc, heart, free.to_str().unwrap());
    assert_eq!(
        std::fs::read(&tight).unwrap(),
        std::fs::read(&free).unwrap(),
        "predictions without faer's products differ"
    );
}
