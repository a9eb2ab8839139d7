//! # margin-ballista: margin's models on an Apache Ballista cluster
//!
//! [Ballista](https://datafusion.apache.org/ballista/) runs DataFusion's plans on a cluster: a
//! scheduler plans each query into stages, executors run the stages' tasks on their parts of
//! the table and exchange the aggregates' partial states. margin's functions
//! ([`margin_datafusion`]) travel in those plans by name, so the scheduler and every executor
//! must know them. This crate gives:
//!
//! - the two binaries, `margin-scheduler` and `margin-executor`: Ballista's own scheduler and
//!   executor ([`run_scheduler`], [`run_executor`]) with margin's functions in their registries;
//! - [`connect`], a client session to such a cluster, with margin's functions registered;
//!   every margin fit and scoring function then runs on the cluster: `margin_fit`, the scoring
//!   functions and [`margin_datafusion::fit_distributed`] (logistic regression, the linear SVM,
//!   k-means and histogram boosting one query per solver step);
//! - [`standalone`], a scheduler and an executor inside this process, the same plans run the
//!   same way, for a laptop or a test.
//!
//! The executors read the tables themselves: register files they can all reach
//! (`ctx.register_parquet`); a table held in the client's memory (`CREATE TABLE … AS`,
//! `register_batch`) cannot travel to them. On a cluster the scoring functions take the model
//! as its file's bytes (`X'…'`): a model registered by name is known to the client's session
//! only.
//!
//! An executor lost in the middle of a query is Ballista's to recover from: the scheduler
//! runs its tasks again elsewhere, or fails the query and the fit returns its error (a model
//! is only built from queries that completed). Ballista 55 can also leave such a query
//! waiting forever, when the lost executor's outputs roll back a stage running on the others
//! (apache/datafusion-ballista#2418: the cancelled tasks' slots are not given back). The
//! scheduler's log then shows "Roll back running job/stage"; restart the scheduler and the fit.
//!
//! ```
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A cluster in this process; `connect("df://host:50050")` reaches a running one, and
//! // `ctx.register_parquet` gives it the tables its executors read.
//! let ctx = margin_ballista::standalone(2).await?;
//! let rows = "SELECT * FROM (VALUES (1.0, 0.0, 1.0), (2.1, 1.0, 0.5), (4.9, 2.0, 2.0),
//!                                  (5.2, 3.0, 1.0), (8.8, 4.0, 3.5)) AS t(y, x1, x2)";
//! let model = margin_datafusion::fit_distributed(&ctx, rows, "ridge", "alpha=0.5", Some("y"))
//!     .await?;
//! assert_eq!(margin_any::load(&model)?.kind(), "ridge");
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionState;
use datafusion::prelude::{SessionConfig, SessionContext};

/// `state` with margin's functions registered (`margin_fit`, the step aggregates and the
/// scoring functions).
pub fn with_margin(state: SessionState) -> SessionState {
    let ctx = SessionContext::new_with_state(state);
    // The models registry returned serves scoring by name, which a cluster does not share.
    let _models = margin_datafusion::register(&ctx);
    ctx.state()
}

/// A session on the Ballista cluster whose scheduler listens at `url` (`df://host:port`),
/// with margin's functions registered. Its queries run on the cluster's executors, which must
/// know margin's functions too (`margin-executor`).
pub async fn connect(url: &str) -> Result<SessionContext> {
    let ctx = SessionContext::remote(url).await?;
    let _models = margin_datafusion::register(&ctx);
    Ok(ctx)
}

/// A session on a Ballista cluster started inside this process (a scheduler and one executor
/// running `tasks` tasks at once, on free ports of 127.0.0.1), margin's functions registered
/// in all three. The cluster stops with the process.
pub async fn standalone(tasks: usize) -> Result<SessionContext> {
    let config =
        SessionConfig::new_with_ballista().with_ballista_standalone_parallelism(tasks.max(1));
    let state = with_margin(default_session_builder(config)?);
    let ctx = SessionContext::standalone_with_state(state).await?;
    // The session handed back is rebuilt for the cluster: register on it too.
    let _models = margin_datafusion::register(&ctx);
    Ok(ctx)
}

/// Prints the process's log records (Ballista's and DataFusion's) to standard error,
/// filtered by the `RUST_LOG` environment variable (`warn` when it is unset), for the two
/// binaries. Calling it twice keeps the first subscriber.
pub fn log_to_stderr() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _already_set = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// What `margin-scheduler` takes on its command line.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "margin-scheduler",
    about = "A Ballista scheduler that knows margin's functions"
)]
pub struct SchedulerOptions {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind_host: String,
    /// The port to listen on (clients' `df://host:port` and executors' `--scheduler-port`).
    #[arg(long, default_value_t = 50050)]
    pub port: u16,
    /// Seconds without a heartbeat after which an executor is taken as lost and its tasks run
    /// again elsewhere.
    #[arg(long, default_value_t = 180)]
    pub executor_timeout_seconds: u64,
}

/// Runs a Ballista scheduler with margin's functions until the process is stopped.
pub async fn run_scheduler(options: &SchedulerOptions) -> Result<()> {
    let address: SocketAddr = format!("{}:{}", options.bind_host, options.port)
        .parse()
        .map_err(|e| {
            DataFusionError::Configuration(format!(
                "the scheduler's address {}:{}: {e}",
                options.bind_host, options.port
            ))
        })?;
    let timeout = options.executor_timeout_seconds.max(2);
    let config = SchedulerConfig {
        bind_host: options.bind_host.clone(),
        external_host: options.bind_host.clone(),
        bind_port: options.port,
        executor_timeout_seconds: timeout,
        // Checked several times per timeout, so a lost executor is found within ~1.25 of it.
        expire_dead_executor_interval_seconds: (timeout / 4).max(1),
        no_executors_grace_period_seconds: timeout,
        override_session_builder: Some(Arc::new(|config| {
            Ok(with_margin(default_session_builder(config)?))
        })),
        ..SchedulerConfig::default()
    };
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(ballista)?;
    start_server(cluster, address, Arc::new(config))
        .await
        .map_err(ballista)
}

/// What `margin-executor` takes on its command line.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "margin-executor",
    about = "A Ballista executor that knows margin's functions"
)]
pub struct ExecutorOptions {
    /// The address to listen on, which the scheduler and the other executors reach it at.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind_host: String,
    /// The port of its Arrow Flight service (where the other executors fetch its results).
    #[arg(long, default_value_t = 50051)]
    pub port: u16,
    /// The port of its gRPC service (where the scheduler sends it tasks).
    #[arg(long, default_value_t = 50052)]
    pub grpc_port: u16,
    /// The scheduler's host.
    #[arg(long, default_value = "127.0.0.1")]
    pub scheduler_host: String,
    /// The scheduler's port.
    #[arg(long, default_value_t = 50050)]
    pub scheduler_port: u16,
    /// Where the executor writes the shuffle files between stages (a temporary directory if
    /// not given).
    #[arg(long)]
    pub work_dir: Option<String>,
    /// Tasks run at once (the machine's cores if not given).
    #[arg(long)]
    pub concurrent_tasks: Option<usize>,
    /// Seconds between two heartbeats to the scheduler (below its executor timeout).
    #[arg(long, default_value_t = 60)]
    pub heartbeat_seconds: u64,
}

/// Runs a Ballista executor with margin's functions until the process is stopped.
pub async fn run_executor(options: &ExecutorOptions) -> Result<()> {
    let state = with_margin(default_session_builder(SessionConfig::new_with_ballista())?);
    let defaults = ExecutorProcessConfig::default();
    let config = ExecutorProcessConfig {
        bind_host: options.bind_host.clone(),
        external_host: Some(options.bind_host.clone()),
        port: options.port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler_host.clone(),
        scheduler_port: options.scheduler_port,
        work_dir: options.work_dir.clone(),
        vcores: options.concurrent_tasks.unwrap_or(defaults.vcores).max(1),
        executor_heartbeat_interval_seconds: options.heartbeat_seconds.max(1),
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&state))),
        ..defaults
    };
    start_executor_process(Arc::new(config))
        .await
        .map_err(ballista)
}

/// A Ballista error as DataFusion's, its message kept.
fn ballista(e: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
