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
//! An executor lost in the middle of a fit does not change the model, nor leave the fit
//! waiting forever:
//!
//! - the cluster is set up to recover: `margin-scheduler` plans every job with Ballista's
//!   static planner and has the executors ask for tasks (pull scheduling). Ballista 55's
//!   adaptive planner can leave a job whose stage was rolled back refusing the survivors'
//!   task reports, and its push scheduling does not give back the slots of tasks cancelled
//!   by a rollback or a cancelled job (apache/datafusion-ballista#2418): either left the
//!   job waiting forever. Pull-scheduled executors count their own free slots;
//! - a session from [`connect`] submits a query again when its job fails (the results a
//!   lost executor held cannot be fetched, a stage has run out of attempts) or shows no
//!   progress for a while (then it is cancelled first), a few times ([`Resubmission`]).
//!   margin's fits only read their rows, so a query submitted again gives the same answer,
//!   and a model is only built from queries that completed.
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

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::config::{
    BALLISTA_ADAPTIVE_PLANNER_ENABLED, BALLISTA_CLIENT_PULL, TaskSchedulingPolicy,
};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};

mod resubmit;

pub use resubmit::Resubmission;
use resubmit::ResubmittingPlanner;

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
/// know margin's functions too (`margin-executor`); a query whose job fails or stalls is
/// submitted again as [`Resubmission::default`] says.
pub async fn connect(url: &str) -> Result<SessionContext> {
    connect_with(url, Resubmission::default()).await
}

/// [`connect`], with queries submitted again as `resubmission` says.
pub async fn connect_with(url: &str, resubmission: Resubmission) -> Result<SessionContext> {
    let mut state = SessionContext::remote(url).await?.state();
    // The client asks for its job's status rather than waiting for the scheduler to push
    // it: the job's id is then known as soon as the job is accepted. A pushed status only
    // comes with the first task's report, so a job no executor took up could not be named,
    // nor cancelled.
    state
        .config_mut()
        .options_mut()
        .set(BALLISTA_CLIENT_PULL, "true")?;
    let planner = ResubmittingPlanner {
        ballista: Arc::clone(state.query_planner()),
        scheduler: scheduler_address(url)?,
        resubmission,
    };
    let state = SessionStateBuilder::new_from_existing(state)
        .with_query_planner(Arc::new(planner))
        .build();
    let ctx = SessionContext::new_with_state(state);
    let _models = margin_datafusion::register(&ctx);
    Ok(ctx)
}

/// The scheduler's gRPC address (`http://host:port`) in a `df://host[:port]` URL, the port
/// 50050 if none is given, as Ballista's client reads it.
fn scheduler_address(url: &str) -> Result<String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| DataFusionError::Configuration(format!("the scheduler's URL {url}: {e}")))?;
    let host = parsed.host_str().ok_or_else(|| {
        DataFusionError::Configuration(format!("the scheduler's URL {url} names no host"))
    })?;
    Ok(format!("http://{host}:{}", parsed.port().unwrap_or(50050)))
}

/// A session on a Ballista cluster started inside this process (a scheduler and one executor
/// running `tasks` tasks at once, on free ports of 127.0.0.1), margin's functions registered
/// in all three. The cluster stops with the process.
pub async fn standalone(tasks: usize) -> Result<SessionContext> {
    let config =
        SessionConfig::new_with_ballista().with_ballista_standalone_parallelism(tasks.max(1));
    // Planned as `margin-scheduler` plans, so that the same plans run the same way.
    let state = with_margin(default_session_builder(static_planner(config)?)?);
    let ctx = SessionContext::standalone_with_state(state).await?;
    // The session handed back is rebuilt for the cluster: register on it too.
    let _models = margin_datafusion::register(&ctx);
    Ok(ctx)
}

/// `config` with Ballista's static planner chosen over its adaptive one (AQE): when a lost
/// executor rolls back a stage, Ballista 55's adaptive graph refuses the reports of the
/// stage's tasks still running elsewhere ("Can't find active stage to update stage
/// outputs") and its job waits for ever; the static graph runs the stage again. margin's
/// queries are aggregates over one scan, which the adaptive planner has nothing to adapt in.
fn static_planner(config: SessionConfig) -> Result<SessionConfig> {
    let mut config = config.upgrade_for_ballista();
    config
        .options_mut()
        .set(BALLISTA_ADAPTIVE_PLANNER_ENABLED, "false")?;
    Ok(config)
}

/// The address to listen on, `host` (an IP address or a name such as `localhost`) and
/// `port`. A name's IPv4 address is taken before its IPv6 one, so that `localhost` is the
/// `127.0.0.1` the executors reach the scheduler at by default.
fn listen_address(host: &str, port: u16) -> Result<SocketAddr> {
    let refused =
        |why: String| DataFusionError::Configuration(format!("--bind-host {host}: {why}"));
    let addresses: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| refused(e.to_string()))?
        .collect();
    addresses
        .iter()
        .find(|a| a.is_ipv4())
        .or(addresses.first())
        .copied()
        .ok_or_else(|| refused("the name has no address".into()))
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
    /// The address to listen on: an IP address or a host name (`localhost`).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind_host: String,
    /// The port to listen on (clients' `df://host:port` and executors' `--scheduler-port`).
    #[arg(long, default_value_t = 50050)]
    pub port: u16,
    /// Seconds without word from an executor after which it is taken as lost and its tasks
    /// run again elsewhere (at least 10: a busy executor reports every 5 seconds).
    #[arg(long, default_value_t = 180)]
    pub executor_timeout_seconds: u64,
}

/// Runs a Ballista scheduler with margin's functions until the process is stopped. A bad
/// option is a [`DataFusionError::Configuration`].
pub async fn run_scheduler(options: &SchedulerOptions) -> Result<()> {
    let address = listen_address(&options.bind_host, options.port)?;
    // Pull-scheduled executors ask for work at least every 5 s while busy (Ballista's
    // executor loop), and the scheduler counts whole seconds: a shorter timeout takes busy
    // executors for lost ones.
    let timeout = options.executor_timeout_seconds.max(10);
    let host = address.ip().to_string();
    let config = SchedulerConfig {
        bind_host: host.clone(),
        external_host: host,
        bind_port: address.port(),
        executor_timeout_seconds: timeout,
        // Checked several times per timeout, so a lost executor is found within ~1.25 of it.
        expire_dead_executor_interval_seconds: (timeout / 4).max(1),
        no_executors_grace_period_seconds: timeout,
        // Executors ask for tasks with their own count of free slots: the scheduler keeps
        // none that a rollback or a cancelled job could leak (apache/datafusion-ballista#2418).
        scheduling_policy: TaskSchedulingPolicy::PullStaged,
        override_session_builder: Some(Arc::new(|config| {
            Ok(with_margin(default_session_builder(static_planner(
                config,
            )?)?))
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
    /// The address to listen on, which the clients and the other executors reach it at: an
    /// IP address or a host name (`localhost`).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind_host: String,
    /// The port of its Arrow Flight service (where the other executors and the clients fetch
    /// its results). It asks the scheduler for tasks itself, and serves nothing else.
    #[arg(long, default_value_t = 50051)]
    pub port: u16,
    /// The scheduler's host.
    #[arg(long, default_value = "127.0.0.1")]
    pub scheduler_host: String,
    /// The scheduler's port.
    #[arg(long, default_value_t = 50050)]
    pub scheduler_port: u16,
    /// The directory the executor writes the shuffle files between stages in (a temporary
    /// directory if not given).
    #[arg(long)]
    pub work_dir: Option<String>,
    /// Tasks run at once (the machine's cores if not given).
    #[arg(long)]
    pub concurrent_tasks: Option<usize>,
}

/// Runs a Ballista executor with margin's functions until the process is stopped. A bad
/// option is a [`DataFusionError::Configuration`].
pub async fn run_executor(options: &ExecutorOptions) -> Result<()> {
    let address = listen_address(&options.bind_host, options.port)?;
    if let Some(dir) = &options.work_dir {
        // Ballista would take a file and fail at the first shuffle file it writes there.
        let file = std::fs::metadata(dir).is_ok_and(|m| !m.is_dir());
        if file {
            return Err(DataFusionError::Configuration(format!(
                "--work-dir {dir} is not a directory"
            )));
        }
    }
    let state = with_margin(default_session_builder(SessionConfig::new_with_ballista())?);
    let defaults = ExecutorProcessConfig::default();
    let host = address.ip().to_string();
    let config = ExecutorProcessConfig {
        bind_host: host.clone(),
        external_host: Some(host),
        port: address.port(),
        // Pull scheduling serves no gRPC; the scheduler still dials this port to cancel
        // tasks or stop the executor, and port 0 fails at once rather than reach whatever
        // listens on Ballista's default 50052.
        grpc_port: 0,
        scheduler_host: options.scheduler_host.clone(),
        scheduler_port: options.scheduler_port,
        work_dir: options.work_dir.clone(),
        vcores: options.concurrent_tasks.unwrap_or(defaults.vcores).max(1),
        // See `run_scheduler`: the executor asks for tasks with its own count of free slots.
        task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
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
