//! margin's fits on Ballista, against the in-memory fits on the same rows:
//!
//! - ridge, Gaussian naive Bayes, logistic regression, the kernel SVM (a cascade), k-means
//!   and histogram boosting, each through `fit_distributed`;
//! - a cluster of separate processes (one `margin-scheduler`, two `margin-executor`s) on free
//!   ports of 127.0.0.1, each process killed by its id when the test ends;
//! - the standalone cluster (a scheduler and an executor inside the test's process);
//! - an executor killed during an iterative fit: the fit completes, with the in-memory model,
//!   within a bounded time;
//! - a query on a cluster without executors: cancelled and submitted again while it makes no
//!   progress, then failed, within a bounded time;
//! - the binaries' options: `--bind-host localhost` listens on 127.0.0.1, a `--work-dir` that
//!   is a file is refused (exit code 2).
//!
//! The rows: three Parquet files of a generated table, read by the executors themselves.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::{GetJobStatusParams, job_status};
use datafusion::arrow::array::{ArrayRef, Float64Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use margin_ballista::Resubmission;
use margin_cluster::KMeans;
use margin_core::{Dataset, DecisionFunction, DenseMatrix, Fit, Predict, PredictProba};
use margin_datafusion::fit_distributed;
use margin_io::ModelFile;
use margin_linear::naive_bayes::GaussianNB;
use margin_linear::{LogisticRegression, Ridge};
use margin_svm::Svc;
use margin_tree::GradientBoostingClassifier;

/// How long any one wait (a port to open, a fit to finish) may take before the test fails.
const WAIT: Duration = Duration::from_secs(120);

/// 600 rows of four continuous features, a target and a two-class label from them.
struct Rows {
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
    class: Vec<&'static str>,
}

impl Rows {
    fn new() -> Self {
        let x: Vec<Vec<f64>> = (0..600)
            .map(|i| {
                let t = i as f64;
                (0..4)
                    .map(|j| (t * (0.37 + 0.11 * j as f64) + j as f64).sin() * 2.0)
                    .collect()
            })
            .collect();
        let y = x
            .iter()
            .map(|r| 1.5 * r[0] - r[1] + 0.5 * r[2] * r[3] + 0.1)
            .collect();
        let class = x
            .iter()
            .map(|r| {
                if r[0] + 0.5 * r[1] - 0.25 * r[3] + 0.3 * (3.0 * r[2]).sin() < 0.2 {
                    "low"
                } else {
                    "high"
                }
            })
            .collect();
        Rows { x, y, class }
    }

    /// The rows as `files` Parquet files of consecutive rows in `dir`: columns `y`, `class`,
    /// `x0` … `x3`.
    fn write(&self, dir: &Path, files: usize) {
        let n = self.x.len();
        for k in 0..files {
            let rows = k * n / files..(k + 1) * n / files;
            let mut fields = vec![
                Field::new("y", DataType::Float64, false),
                Field::new("class", DataType::Utf8, false),
            ];
            let mut columns: Vec<ArrayRef> = vec![
                Arc::new(Float64Array::from(self.y[rows.clone()].to_vec())),
                Arc::new(StringArray::from(self.class[rows.clone()].to_vec())),
            ];
            for j in 0..4 {
                fields.push(Field::new(format!("x{j}"), DataType::Float64, false));
                let column: Vec<f64> = self.x[rows.clone()].iter().map(|r| r[j]).collect();
                columns.push(Arc::new(Float64Array::from(column)));
            }
            let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
            let path = dir.join(format!("part-{k}.parquet"));
            margin_io::table::write_parquet(&path, &batch).unwrap();
        }
    }

    fn regression(&self) -> Dataset {
        Dataset::regression(&self.x, self.y.clone()).unwrap()
    }

    fn classification(&self) -> Dataset {
        Dataset::classification(&self.x, self.class.clone()).unwrap()
    }

    fn matrix(&self) -> DenseMatrix {
        DenseMatrix::from_rows(&self.x).unwrap()
    }
}

/// `a` and `b` agree to `tol` relative to `b`'s largest magnitude.
fn close(a: &[f64], b: &[f64], tol: f64) {
    let scale = 1.0 + b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * scale, "{a:?}\nvs {b:?}");
    }
}

const SUPERVISED: &str = "SELECT class, x0, x1, x2, x3 FROM rows";

/// The boosting classifier every test fits, and its parameters as text.
const BOOSTING: &str = "max_iter=8 max_depth=3 min_samples_leaf=10";

fn boosting_in_memory(rows: &Rows) -> margin_tree::GradientBoostingClassifier {
    GradientBoostingClassifier::params()
        .max_iter(8)
        .max_depth(Some(3))
        .min_samples_leaf(10)
        .fit(&rows.classification())
        .unwrap()
}

/// The boosting model fitted through `ctx` is the in-memory one: the same classes, decision
/// values to rounding (the partitions' histograms are added in another order).
fn assert_boosting(bytes: &[u8], rows: &Rows) {
    let parted = GradientBoostingClassifier::from_bytes(bytes).unwrap();
    let whole = boosting_in_memory(rows);
    let x = rows.matrix();
    assert_eq!(parted.predict(&x).unwrap(), whole.predict(&x).unwrap());
    close(
        parted.decision_function(&x).unwrap().as_slice(),
        whole.decision_function(&x).unwrap().as_slice(),
        1e-9,
    );
}

/// Registers `dir`'s Parquet files as table `rows` in `ctx`, fits ridge, Gaussian naive
/// Bayes, logistic regression, k-means and histogram boosting on them through
/// [`fit_distributed`], and checks each against the in-memory fit on the same rows.
async fn fits_match_in_memory(ctx: &SessionContext, dir: &Path, rows: &Rows) {
    ctx.register_parquet("rows", dir.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    let fit = async |query: &str, kind: &str, params: &str, label: Option<&str>| {
        let fitted = fit_distributed(ctx, query, kind, params, label);
        tokio::time::timeout(WAIT, fitted)
            .await
            .unwrap_or_else(|_| panic!("fitting {kind} took more than {WAIT:?}"))
            .unwrap_or_else(|e| panic!("fitting {kind}: {e}"))
    };
    let x = rows.matrix();

    // One pass, exact sums: ridge and Gaussian naive Bayes to 1e-10.
    let bytes = fit(
        "SELECT y, x0, x1, x2, x3 FROM rows",
        "ridge",
        "alpha=0.5",
        Some("y"),
    )
    .await;
    let parted = Ridge::from_bytes(&bytes).unwrap();
    let whole = Ridge::params().alpha(0.5).fit(&rows.regression()).unwrap();
    close(parted.coef().as_slice(), whole.coef().as_slice(), 1e-10);
    close(parted.intercept(), whole.intercept(), 1e-10);

    let bytes = fit(SUPERVISED, "gaussian-nb", "", Some("class")).await;
    let parted = GaussianNB::from_bytes(&bytes).unwrap();
    let whole = GaussianNB::params().fit(&rows.classification()).unwrap();
    assert_eq!(parted.predict(&x).unwrap(), whole.predict(&x).unwrap());
    close(
        parted.predict_proba(&x).unwrap().as_slice(),
        whole.predict_proba(&x).unwrap().as_slice(),
        1e-10,
    );

    // One query per L-BFGS step: the solver's tolerance.
    let bytes = fit(SUPERVISED, "logistic-regression", "C=0.5", Some("class")).await;
    let parted = LogisticRegression::from_bytes(&bytes).unwrap();
    let whole = LogisticRegression::params()
        .c(0.5)
        .fit(&rows.classification())
        .unwrap();
    close(parted.coef().as_slice(), whole.coef().as_slice(), 1e-6);
    close(parted.intercept(), whole.intercept(), 1e-6);

    // The kernel SVM, a cascade over the partitions: the whole problem's dual objective to
    // the solver's tolerance, the same predictions but for points on the boundary.
    let bytes = fit(SUPERVISED, "svc", "C=2 tol=1e-6", Some("class")).await;
    let parted = Svc::from_bytes(&bytes).unwrap();
    let whole = Svc::params()
        .c(2.0)
        .tol(1e-6)
        .fit(&rows.classification())
        .unwrap();
    let (a, b) = (&parted.problems()[0], &whole.problems()[0]);
    assert!((a.objective - b.objective).abs() <= 1e-5 * b.objective.abs());
    let (ours, theirs) = (parted.predict(&x).unwrap(), whole.predict(&x).unwrap());
    let differ = ours.iter().zip(&theirs).filter(|(a, b)| a != b).count();
    assert!(differ <= 6, "{differ} of 600 predictions differ");

    // k-means from a sample of rows: a Lloyd fixed point, each centre the mean of its rows.
    let unlabelled = "SELECT x0, x1, x2, x3 FROM rows";
    let bytes = fit(unlabelled, "kmeans", "n_clusters=3 tol=0 seed=11", None).await;
    let model = KMeans::from_bytes(&bytes).unwrap();
    let assigned = model.predict(&x).unwrap();
    let mut means = vec![0.0; 3 * 4];
    let mut counts = [0.0; 3];
    for (row, &c) in rows.x.iter().zip(&assigned) {
        counts[c] += 1.0;
        for (m, v) in means[c * 4..(c + 1) * 4].iter_mut().zip(row) {
            *m += v;
        }
    }
    for (c, count) in counts.iter().enumerate() {
        assert!(*count > 0.0, "cluster {c} is empty");
        means[c * 4..(c + 1) * 4]
            .iter_mut()
            .for_each(|m| *m /= count);
    }
    close(model.cluster_centers().as_slice(), &means, 1e-10);

    // One query per tree level: the same trees.
    let bytes = fit(
        SUPERVISED,
        "gradient-boosting-classifier",
        BOOSTING,
        Some("class"),
    )
    .await;
    assert_boosting(&bytes, rows);
}

/// A free port on 127.0.0.1 (free when asked; the process started next takes it).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on `port` of 127.0.0.1, or fails after [`WAIT`].
fn wait_for(port: u16, what: &str) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < WAIT, "{what} did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A cluster of separate processes on 127.0.0.1: one scheduler, `executors` executors. Each
/// process is killed by its id when the cluster is dropped.
struct Cluster {
    scheduler_port: u16,
    processes: Vec<Child>,
    /// The executors' shuffle directories and the processes' logs.
    dir: tempfile::TempDir,
}

impl Cluster {
    /// No process yet: [`Cluster::spawn`] adds them.
    fn new() -> Self {
        Cluster {
            scheduler_port: free_port(),
            processes: Vec::new(),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn start(executors: usize) -> Self {
        let mut cluster = Cluster::new();
        let scheduler_port = cluster.scheduler_port;
        let port = scheduler_port.to_string();
        // The shortest executor timeout, so that a killed executor is found lost within
        // seconds.
        cluster.spawn(
            env!("CARGO_BIN_EXE_margin-scheduler"),
            &["--port", &port, "--executor-timeout-seconds", "10"],
            "scheduler",
        );
        wait_for(scheduler_port, "the scheduler");
        for e in 0..executors {
            let flight = free_port();
            let work = cluster.dir.path().join(format!("executor-{e}"));
            std::fs::create_dir(&work).unwrap();
            cluster.spawn(
                env!("CARGO_BIN_EXE_margin-executor"),
                &[
                    "--port",
                    &flight.to_string(),
                    "--scheduler-port",
                    &port,
                    "--work-dir",
                    work.to_str().unwrap(),
                    "--concurrent-tasks",
                    "2",
                ],
                &format!("executor-{e}"),
            );
            wait_for(flight, "an executor's Flight service");
        }
        cluster
    }

    fn spawn(&mut self, program: &str, args: &[&str], name: &str) {
        let log = std::fs::File::create(self.dir.path().join(format!("{name}.log"))).unwrap();
        let child = Command::new(program)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.processes.push(child);
    }

    fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.scheduler_port)
    }

    /// Kills process `i` (0 is the scheduler, then the executors) by its id.
    fn kill(&mut self, i: usize) {
        let child = &mut self.processes[i];
        // Already gone is fine: the point is that it no longer runs.
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in (0..self.processes.len()).rev() {
            self.kill(i);
        }
        if std::thread::panicking() {
            for log in std::fs::read_dir(self.dir.path()).unwrap().flatten() {
                if log.path().extension().is_some_and(|e| e == "log") {
                    let text = std::fs::read_to_string(log.path()).unwrap_or_default();
                    let tail: Vec<&str> = text.lines().rev().take(30).collect();
                    eprintln!("--- {:?}, last lines:", log.file_name());
                    for line in tail.iter().rev() {
                        eprintln!("{line}");
                    }
                }
            }
        }
    }
}

/// The files under `dir`, at any depth.
fn files(dir: &Path) -> std::collections::HashSet<std::path::PathBuf> {
    let mut found = std::collections::HashSet::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        // A directory removed while it is read (a finished job's) has nothing to add.
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(entry.path()),
                Ok(_) => {
                    found.insert(entry.path());
                }
                Err(_) => {}
            }
        }
    }
    found
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn fits_on_a_cluster_of_processes_are_the_in_memory_fits() {
    let rows = Rows::new();
    let data = tempfile::tempdir().unwrap();
    rows.write(data.path(), 3);
    let cluster = Cluster::start(2);
    runtime().block_on(async {
        let ctx = margin_ballista::connect(&cluster.url()).await.unwrap();
        fits_match_in_memory(&ctx, data.path(), &rows).await;
    });
}

#[test]
fn fits_on_a_standalone_cluster_are_the_in_memory_fits() {
    let rows = Rows::new();
    let data = tempfile::tempdir().unwrap();
    rows.write(data.path(), 3);
    runtime().block_on(async {
        let ctx = margin_ballista::standalone(2).await.unwrap();
        fits_match_in_memory(&ctx, data.path(), &rows).await;
    });
}

/// How the kill test's session submits a query again: a job that shows no progress for a
/// few seconds (one waiting for the killed executor's tasks before the scheduler has found it
/// lost) is cancelled and submitted again.
const KILL_RESUBMISSION: Resubmission = Resubmission {
    attempts: 4,
    stall: Duration::from_secs(8),
};

/// How long the fit may take, counted from its start (the executor goes 1 s in): the fit
/// takes seconds on its own, the lost executor is found within the scheduler's 10 s timeout
/// (12.5 s at most), and a stalled query is submitted again after 8 s.
const FIT_AFTER_KILL: Duration = Duration::from_secs(90);

#[test]
fn an_executor_killed_during_a_fit_leaves_the_fit_its_in_memory_model() {
    let rows = Rows::new();
    let data = tempfile::tempdir().unwrap();
    rows.write(data.path(), 3);
    let mut cluster = Cluster::start(2);
    let start = Instant::now();
    let fitted = runtime().block_on(async {
        let ctx = margin_ballista::connect_with(&cluster.url(), KILL_RESUBMISSION)
            .await
            .unwrap();
        let path = data.path().to_str().unwrap();
        ctx.register_parquet("rows", path, ParquetReadOptions::default())
            .await
            .unwrap();
        let fit = tokio::spawn(async move {
            let fit = fit_distributed(
                &ctx,
                SUPERVISED,
                "gradient-boosting-classifier",
                BOOSTING,
                Some("class"),
            );
            tokio::time::timeout(FIT_AFTER_KILL, fit).await
        });
        // A few of the fit's queries in, one executor goes, as soon as it has written a
        // stage's output: the job running then needs it, or the task writing it.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let work = cluster.dir.path().join("executor-1");
        let before = files(&work);
        let since = Instant::now();
        while files(&work).is_subset(&before) && since.elapsed() < WAIT {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(
            !fit.is_finished(),
            "the fit ended before the executor was killed"
        );
        cluster.kill(2);
        fit.await.unwrap()
    });
    let bytes = fitted
        .unwrap_or_else(|_| panic!("the fit did not finish within {FIT_AFTER_KILL:?}"))
        .unwrap_or_else(|e| panic!("the fit failed after the executor was killed: {e}"));
    assert_boosting(&bytes, &rows);
    eprintln!("the fit finished {:?} after it began", start.elapsed());
}

#[test]
fn a_query_on_a_cluster_without_executors_is_cancelled_and_fails_within_its_attempts() {
    let rows = Rows::new();
    let data = tempfile::tempdir().unwrap();
    rows.write(data.path(), 1);
    let cluster = Cluster::start(0);
    let resubmission = Resubmission {
        attempts: 2,
        stall: Duration::from_secs(2),
    };
    let start = Instant::now();
    let (failure, status) = runtime().block_on(async {
        let ctx = margin_ballista::connect_with(&cluster.url(), resubmission)
            .await
            .unwrap();
        let path = data.path().to_str().unwrap();
        ctx.register_parquet("rows", path, ParquetReadOptions::default())
            .await
            .unwrap();
        let query = async { ctx.sql("SELECT count(*) FROM rows").await?.collect().await };
        let failure = tokio::time::timeout(WAIT, query)
            .await
            .expect("the query was not given up within the wait")
            .expect_err("a query without executors gave rows")
            .to_string();
        // The last job, named in the failure, was cancelled at the scheduler.
        let job = failure
            .split_once("job ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("the failure names no job: {failure}"))
            .to_owned();
        let address = format!("http://127.0.0.1:{}", cluster.scheduler_port);
        let mut scheduler = SchedulerGrpcClient::connect(address).await.unwrap();
        let status = scheduler
            .get_job_status(GetJobStatusParams { job_id: job })
            .await
            .unwrap()
            .into_inner()
            .status
            .and_then(|s| s.status);
        (failure, status)
    });
    assert!(failure.contains("submitted 2 times"), "{failure}");
    assert!(failure.contains("no progress for 2s"), "{failure}");
    assert!(
        matches!(&status, Some(job_status::Status::Failed(f)) if f.error.contains("Cancelled")),
        "{status:?}"
    );
    // Two stall times and the planning around them.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn the_scheduler_listens_on_localhost() {
    let mut cluster = Cluster::new();
    let port = cluster.scheduler_port.to_string();
    cluster.spawn(
        env!("CARGO_BIN_EXE_margin-scheduler"),
        &["--bind-host", "localhost", "--port", &port],
        "scheduler",
    );
    // `wait_for` dials 127.0.0.1: the name's IPv4 address is the one taken.
    wait_for(cluster.scheduler_port, "a scheduler bound to localhost");
}

#[test]
fn the_executor_refuses_a_file_as_its_work_dir() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "").unwrap();
    let mut executor = Command::new(env!("CARGO_BIN_EXE_margin-executor"))
        .args(["--port", &free_port().to_string()])
        .args(["--scheduler-port", &free_port().to_string()])
        .args(["--work-dir", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = executor.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > WAIT {
            // Killed by its id: the test never leaves it running.
            let _ = executor.kill();
            let _ = executor.wait();
            panic!("margin-executor took a file as its work directory");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut executor.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not a directory"), "{stderr}");
}
