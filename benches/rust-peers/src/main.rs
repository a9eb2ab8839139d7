//! `rust-peers`: the Rust peers of `cargo xtask bench --rust-peers` (linfa and smartcore),
//! one case per process, as `benches/peers/run.py` is for the Python peers.
//!
//! - `rust-peers --peer linfa|smartcore --case NAME <data flags>`: loads the data (untimed),
//!   fits and predicts (timed apart; calls under 50 ms repeated and the median taken) and
//!   prints one JSON line `{"fit_s", "predict_s", "score", "metric", "n", "d", "peak_rss_mb"}`
//!   (plus `"n_sv"` for linfa's SVM). The data flags are the runner's: `--train F --test F
//!   --n-features D`, `--train F --split N --n-features D`, `--generate regression --n-train N
//!   --n-test M --n-features D`, `--generate scores --n-train N`.
//! - `rust-peers --list`: one line per (peer, case) it knows, tab-separated:
//!   `peer case run description` or `peer case skip reason`.
//! - `rust-peers --versions`: the linfa and smartcore versions it was built with.
//!
//! A separate workspace, so margin's own build never compiles these libraries.

mod data;
mod linfa_side;
mod smartcore_side;

use data::{DataArgs, Res};

/// Queries of the brute-force kNN case: the first rows of ijcnn1's test file (as margin's
/// side and `run.py` take).
const KNN_QUERIES: usize = 10_000;

/// What a child measured; printed as the runner's JSON line.
pub struct Outcome {
    pub fit_s: f64,
    pub predict_s: Option<f64>,
    pub score: f64,
    pub metric: String,
    pub n: usize,
    pub d: usize,
    pub n_sv: Option<usize>,
}

type RunFn = fn(&DataArgs) -> Res<Outcome>;

/// What a peer does for a case: runs it (with a description of what it runs, deviations from
/// margin's settings included) or skips it (with the reason).
enum Entry {
    Run(RunFn, &'static str),
    Skip(&'static str),
}

use Entry::{Run, Skip};

const SVM_BINARY: &str = "linfa-svm fits binary problems only (no one-vs-one wrapper)";
const SVM_LARGE: &str = "kernel SVM on tens of thousands of rows: linfa-svm builds the full \
                         n × n kernel matrix; smartcore's online LASVM took 90 s on dna's 2,000 \
                         rows, so either would run far past the case budget";
const NO_BOOSTING_SMARTCORE: &str =
    "no gradient boosting classifier (smartcore 0.4's XGRegressor is a regressor)";
const NO_ELKAN: &str = "no Elkan k-means (their own iterations are in kmeans-100k)";
const NO_LINEAR_SVM: &str = "no linear SVM solver for the hinge or squared hinge loss";
const NO_BOOSTING: &str = "no histogram gradient boosting classifier";

/// Every (peer, case) pair the peers know about, in the runner's case order.
const CASES: &[(&str, &str, Entry)] = &[
    (
        "linfa",
        "svc-heart",
        Run(
            linfa_side::svc_rbf,
            "linfa-svm C-SVC, Gaussian kernel ε = d (γ = 1/d), C = 1, eps 1e-3, shrinking",
        ),
    ),
    (
        "smartcore",
        "svc-heart",
        Run(
            smartcore_side::svc_rbf,
            "smartcore SVC (LASVM, 2 epochs), RBF γ = 1/d, C = 1, tol 1e-3, seed 0",
        ),
    ),
    ("linfa", "svc-dna", Skip(SVM_BINARY)),
    (
        "smartcore",
        "svc-dna",
        Run(
            smartcore_side::svc_rbf,
            "smartcore MultiClassSVC one-vs-one (LASVM, 2 epochs), RBF γ = 1/d, C = 1, tol 1e-3, seed 0",
        ),
    ),
    ("linfa", "svc-a9a", Skip(SVM_LARGE)),
    ("smartcore", "svc-a9a", Skip(SVM_LARGE)),
    ("linfa", "svc-w8a", Skip(SVM_LARGE)),
    ("smartcore", "svc-w8a", Skip(SVM_LARGE)),
    ("linfa", "svc-ijcnn1", Skip(SVM_LARGE)),
    ("smartcore", "svc-ijcnn1", Skip(SVM_LARGE)),
    ("linfa", "svc-batched-a9a", Skip(SVM_LARGE)),
    ("smartcore", "svc-batched-a9a", Skip(SVM_LARGE)),
    ("linfa", "svc-batched-w8a", Skip(SVM_LARGE)),
    ("smartcore", "svc-batched-w8a", Skip(SVM_LARGE)),
    ("linfa", "svc-batched-ijcnn1", Skip(SVM_LARGE)),
    ("smartcore", "svc-batched-ijcnn1", Skip(SVM_LARGE)),
    ("linfa", "linsvc-l2-a9a", Skip(NO_LINEAR_SVM)),
    ("smartcore", "linsvc-l2-a9a", Skip(NO_LINEAR_SVM)),
    ("linfa", "linsvc-l1-a9a", Skip(NO_LINEAR_SVM)),
    ("smartcore", "linsvc-l1-a9a", Skip(NO_LINEAR_SVM)),
    ("linfa", "linsvc-l2-w8a", Skip(NO_LINEAR_SVM)),
    ("smartcore", "linsvc-l2-w8a", Skip(NO_LINEAR_SVM)),
    ("linfa", "linsvc-l1-w8a", Skip(NO_LINEAR_SVM)),
    ("smartcore", "linsvc-l1-w8a", Skip(NO_LINEAR_SVM)),
    ("linfa", "pegasos-a9a", Skip(NO_LINEAR_SVM)),
    ("smartcore", "pegasos-a9a", Skip(NO_LINEAR_SVM)),
    (
        "linfa",
        "auroc-1e6",
        Run(
            linfa_side::auroc,
            "linfa ROC curve area (scores as f32 probabilities, linfa's Pr)",
        ),
    ),
    (
        "smartcore",
        "auroc-1e6",
        Run(smartcore_side::auroc, "smartcore metrics::roc_auc_score"),
    ),
    (
        "linfa",
        "linreg-200k",
        Run(
            linfa_side::linear_regression,
            "linfa-linear LinearRegression (intercept)",
        ),
    ),
    (
        "smartcore",
        "linreg-200k",
        Run(
            smartcore_side::linear_regression,
            "smartcore LinearRegression, QR solver",
        ),
    ),
    (
        "smartcore",
        "ridge-200k",
        Run(
            smartcore_side::ridge,
            "smartcore RidgeRegression α = 1, Cholesky, normalize = false",
        ),
    ),
    (
        "linfa",
        "mnb-dna",
        Run(
            linfa_side::multinomial_nb,
            "linfa-bayes MultinomialNb α = 1, dense input",
        ),
    ),
    (
        "smartcore",
        "mnb-dna",
        Run(
            smartcore_side::multinomial_nb,
            "smartcore MultinomialNB α = 1, dense u32 counts (the 0/1 features rounded)",
        ),
    ),
    (
        "linfa",
        "gnb-letter",
        Run(linfa_side::gaussian_nb, "linfa-bayes GaussianNb"),
    ),
    (
        "smartcore",
        "gnb-letter",
        Run(smartcore_side::gaussian_nb, "smartcore GaussianNB"),
    ),
    (
        "linfa",
        "knn-brute-ijcnn1",
        Run(
            linfa_side::knn_brute,
            "linfa-nn LinearSearch index, k = 5, majority vote (written here: linfa has no kNN classifier)",
        ),
    ),
    (
        "smartcore",
        "knn-brute-ijcnn1",
        Run(
            smartcore_side::knn_brute,
            "smartcore KNNClassifier k = 5, LinearSearch",
        ),
    ),
    (
        "linfa",
        "knn-kdtree-d3",
        Run(
            linfa_side::knn_kd_tree,
            "linfa-nn KdTree (leaf 30), k = 5, mean of the targets (written here)",
        ),
    ),
    (
        "smartcore",
        "knn-kdtree-d3",
        Run(
            smartcore_side::knn_cover_tree,
            "smartcore KNNRegressor k = 5, cover tree (no kd-tree in smartcore)",
        ),
    ),
    (
        "linfa",
        "knn-kdtree-d8",
        Run(
            linfa_side::knn_kd_tree,
            "linfa-nn KdTree (leaf 30), k = 5, mean of the targets (written here)",
        ),
    ),
    (
        "smartcore",
        "knn-kdtree-d8",
        Run(
            smartcore_side::knn_cover_tree,
            "smartcore KNNRegressor k = 5, cover tree (no kd-tree in smartcore)",
        ),
    ),
    (
        "linfa",
        "kmeans-100k",
        Run(
            linfa_side::kmeans,
            "linfa-clustering KMeans k = 10, init = first 10 rows, 1 run, ≤ 300 iterations, tol 1e-4 (on centre movement)",
        ),
    ),
    (
        "smartcore",
        "kmeans-100k",
        Run(
            smartcore_side::kmeans,
            "smartcore KMeans k = 10, its own k-means++ start (seed 0; it takes no initial centres), ≤ 300 iterations of its BBD-tree filtering algorithm",
        ),
    ),
    ("linfa", "gb-synthetic", Skip(NO_BOOSTING)),
    ("smartcore", "gb-synthetic", Skip(NO_BOOSTING_SMARTCORE)),
    ("linfa", "gb-synthetic-quick", Skip(NO_BOOSTING)),
    (
        "smartcore",
        "gb-synthetic-quick",
        Skip(NO_BOOSTING_SMARTCORE),
    ),
    ("linfa", "kmeans-elkan-100k", Skip(NO_ELKAN)),
    ("smartcore", "kmeans-elkan-100k", Skip(NO_ELKAN)),
    (
        "linfa",
        "pca-full-20k",
        Skip("linfa-reduction's pure-Rust PCA is a truncated (LOBPCG) SVD, not a full one"),
    ),
    (
        "smartcore",
        "pca-full-20k",
        Run(
            smartcore_side::pca_full,
            "smartcore PCA, all components, eigendecomposition of the covariance matrix",
        ),
    ),
    (
        "linfa",
        "pca-randomized-20k",
        Run(
            linfa_side::pca_10,
            "linfa-reduction Pca 10 components, truncated SVD by LOBPCG (not randomized)",
        ),
    ),
    (
        "smartcore",
        "pca-randomized-20k",
        Run(
            smartcore_side::pca_10,
            "smartcore PCA 10 components, full covariance eigendecomposition (no randomized solver)",
        ),
    ),
    (
        "linfa",
        "tree-ijcnn1",
        Run(
            linfa_side::decision_tree,
            "linfa-trees DecisionTree gini, no depth limit, min_impurity_decrease = f64::EPSILON",
        ),
    ),
    (
        "smartcore",
        "tree-ijcnn1",
        Run(
            smartcore_side::decision_tree,
            "smartcore DecisionTreeClassifier gini, no depth limit",
        ),
    ),
    (
        "linfa",
        "forest-ijcnn1",
        Skip("linfa 0.7 has no random forest"),
    ),
    (
        "smartcore",
        "forest-ijcnn1",
        Run(
            smartcore_side::random_forest,
            "smartcore RandomForestClassifier 100 trees, m = √d, seed 0, single-threaded",
        ),
    ),
];

/// `name version` of each library from the lock file this binary was built with.
fn versions() -> String {
    let lock = include_str!("../Cargo.lock");
    ["linfa", "smartcore"]
        .iter()
        .map(|name| {
            let version = lock
                .split("[[package]]")
                .find_map(|block| {
                    let mut lines = block.lines().map(str::trim);
                    lines.find(|l| *l == format!("name = \"{name}\""))?;
                    lines.find_map(|l| l.strip_prefix("version = \"")?.strip_suffix('"'))
                })
                .unwrap_or("unknown");
            format!("{name} {version}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// VmHWM (the peak resident set) of this process, in MB.
fn peak_rss_mb() -> Res<f64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or("no VmHWM line in /proc/self/status")?;
    Ok(kib / 1024.0)
}

fn list() {
    for (peer, case, entry) in CASES {
        match entry {
            Run(_, does) => println!("{peer}\t{case}\trun\t{does}"),
            Skip(why) => println!("{peer}\t{case}\tskip\t{why}"),
        }
    }
}

fn run(args: &[String]) -> Res<()> {
    let (mut peer, mut case) = (None, None);
    let mut data = DataArgs::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: &String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag} takes a whole number, not `{v}`"))
        };
        match flag.as_str() {
            "--peer" => peer = Some(value()?.clone()),
            "--case" => case = Some(value()?.clone()),
            "--train" => data.train = Some(value()?.clone()),
            "--test" => data.test = Some(value()?.clone()),
            "--split" => data.split = Some(number(value()?)?),
            "--n-features" => data.n_features = Some(number(value()?)?),
            "--generate" => data.generate = Some(value()?.clone()),
            "--n-train" => data.n_train = Some(number(value()?)?),
            "--n-test" => data.n_test = Some(number(value()?)?),
            other => return Err(format!("unknown option `{other}`").into()),
        }
    }
    let peer = peer.ok_or("--peer is required (linfa or smartcore)")?;
    let case = case.ok_or("--case is required (see --list)")?;
    let entry = CASES
        .iter()
        .find(|(p, c, _)| *p == peer && *c == case)
        .map(|(_, _, e)| e)
        .ok_or_else(|| format!("{peer} has no case `{case}` (see --list)"))?;
    let run = match entry {
        Run(run, _) => run,
        Skip(why) => return Err(format!("{peer} skips {case}: {why}").into()),
    };
    let o = run(&data)?;
    let mut line = serde_json::json!({
        "fit_s": o.fit_s,
        "predict_s": o.predict_s,
        "score": o.score,
        "metric": o.metric,
        "n": o.n,
        "d": o.d,
        "peak_rss_mb": peak_rss_mb()?,
    });
    if let Some(n_sv) = o.n_sv {
        line["n_sv"] = n_sv.into();
    }
    println!("{line}");
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("--list") => {
            list();
            Ok(())
        }
        Some("--versions") => {
            println!("{}", versions());
            Ok(())
        }
        _ => run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-peers: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_lock_file() {
        let v = versions();
        assert!(v.starts_with("linfa 0.7."), "{v}");
        assert!(v.contains(", smartcore 0.4."), "{v}");
    }

    #[test]
    fn every_pair_is_listed_once() {
        for (i, (peer, case, _)) in CASES.iter().enumerate() {
            assert!(["linfa", "smartcore"].contains(peer), "{peer}");
            let again = CASES[i + 1..]
                .iter()
                .any(|(p, c, _)| p == peer && c == case);
            assert!(!again, "{peer} {case} listed twice");
        }
    }
}
