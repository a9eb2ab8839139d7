//! Queries submitted again when their job fails or stops making progress: how a session
//! from [`connect_with`](crate::connect_with) outlives a lost executor.
//!
//! A query's job can fail when an executor goes (the results it held cannot be fetched, a
//! stage runs out of attempts), and Ballista 55 can also leave the job waiting forever
//! (apache/datafusion-ballista#2418 and the rollback of a stage's tasks on the survivors).
//! Every query a margin fit runs is a read of the same rows, so running it again gives the
//! same answer: [`ResubmittingPlanner`] wraps each query planned for the cluster in a
//! [`ResubmittedQueryExec`], which watches the job through the scheduler, cancels it when it
//! shows no progress for [`Resubmission::stall`], and submits the query again, up to
//! [`Resubmission::attempts`] times in all.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ballista_core::execution_plans::DistributedQueryExec;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::protobuf::{
    CancelJobParams, GetJobMetricsParams, GetJobStatusParams, job_status,
};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::Session;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::execution::context::QueryPlanner;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use datafusion_proto::protobuf::LogicalPlanNode;
use futures::{StreamExt, TryStreamExt};

/// How a session's queries outlive a lost executor ([`connect_with`](crate::connect_with)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resubmission {
    /// Times a query is submitted in all; its last failure is returned after that many. A
    /// failure that is the query's own (a bad value in the rows) is also met that many
    /// times before it is returned: the client cannot tell it from a lost executor's.
    pub attempts: usize,
    /// How long a query's job may show no progress (no change of state, no stage finished)
    /// before it is cancelled and the query submitted again. A stage that takes longer than
    /// this on its own is taken for a wedged one: raise it for tables whose scans take longer.
    pub stall: Duration,
}

impl Default for Resubmission {
    /// Three attempts, ten minutes without progress.
    fn default() -> Self {
        Resubmission {
            attempts: 3,
            stall: Duration::from_secs(600),
        }
    }
}

/// A query's rows the client holds before it returns the first, so that a result lost
/// with an executor (its rows fetched from there) can be asked for again whole. A larger
/// result is streamed past this point, and a failure after it is returned as it is.
const HELD_BYTES: usize = 64 << 20;

/// Ballista's query planner, with every query it sends to the cluster wrapped in a
/// [`ResubmittedQueryExec`].
#[derive(Debug)]
pub(crate) struct ResubmittingPlanner {
    /// Ballista's planner: what it plans is what runs.
    pub(crate) ballista: Arc<dyn QueryPlanner + Send + Sync>,
    /// The scheduler's gRPC address (`http://host:port`), where jobs are watched.
    pub(crate) scheduler: String,
    pub(crate) resubmission: Resubmission,
}

#[async_trait]
impl QueryPlanner for ResubmittingPlanner {
    async fn create_physical_plan(
        &self,
        logical_plan: &LogicalPlan,
        session: &dyn Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self
            .ballista
            .create_physical_plan(logical_plan, session)
            .await?;
        // What the session answers itself (an empty relation, its information_schema, an
        // EXPLAIN ANALYZE's report) has no job to watch.
        if plan.is::<DistributedQueryExec<LogicalPlanNode>>() {
            Ok(Arc::new(ResubmittedQueryExec::new(
                plan,
                self.scheduler.clone(),
                self.resubmission.clone(),
            )))
        } else {
            Ok(plan)
        }
    }
}

/// A query on the cluster, submitted again when its job fails, or shows no progress for
/// [`Resubmission::stall`] (then it is cancelled first), before the client has returned any
/// of its rows.
#[derive(Debug)]
pub(crate) struct ResubmittedQueryExec {
    /// The query as Ballista planned it; each attempt runs a fresh copy of it.
    query: Arc<dyn ExecutionPlan>,
    /// The scheduler's gRPC address (`http://host:port`).
    scheduler: String,
    resubmission: Resubmission,
}

impl ResubmittedQueryExec {
    /// `query` (Ballista's `DistributedQueryExec`, or any plan of one partition) submitted
    /// again as `resubmission` says, its jobs watched at the scheduler `scheduler`
    /// (`http://host:port`).
    pub(crate) fn new(
        query: Arc<dyn ExecutionPlan>,
        scheduler: String,
        resubmission: Resubmission,
    ) -> Self {
        ResubmittedQueryExec {
            query,
            scheduler,
            resubmission,
        }
    }
}

impl DisplayAs for ResubmittedQueryExec {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "ResubmittedQueryExec: attempts={}, stall={:?}",
            self.resubmission.attempts, self.resubmission.stall
        )
    }
}

impl ExecutionPlan for ResubmittedQueryExec {
    fn name(&self) -> &str {
        "ResubmittedQueryExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.query.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.query]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match <[_; 1]>::try_from(children) {
            Ok([query]) => Ok(Arc::new(ResubmittedQueryExec {
                query,
                scheduler: self.scheduler.clone(),
                resubmission: self.resubmission.clone(),
            })),
            Err(children) => Err(DataFusionError::Internal(format!(
                "ResubmittedQueryExec takes one query, not {}",
                children.len()
            ))),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return Err(DataFusionError::Internal(format!(
                "ResubmittedQueryExec has one partition, not {partition}"
            )));
        }
        let rows = run(
            Arc::clone(&self.query),
            context,
            self.scheduler.clone(),
            self.resubmission.clone(),
        );
        let rows = futures::stream::once(rows).try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema(), rows)))
    }
}

/// How one submission of a query ended.
enum Attempt {
    /// All its rows, or those held before the rest streams on.
    Rows(Vec<RecordBatch>, Option<SendableRecordBatchStream>),
    Failed(DataFusionError),
    /// Its job showed no progress for the stall time; it is cancelled.
    Stalled(Option<String>),
}

/// Submits `query` until an attempt returns its rows, or the attempts are spent.
async fn run(
    query: Arc<dyn ExecutionPlan>,
    context: Arc<TaskContext>,
    scheduler: String,
    resubmission: Resubmission,
) -> Result<futures::stream::BoxStream<'static, Result<RecordBatch>>> {
    let attempts = resubmission.attempts.max(1);
    let mut attempt = 1;
    loop {
        // A fresh copy: Ballista's plan keeps the id of the job it submitted last.
        let submitted = Arc::clone(&query).reset_state()?;
        let outcome = submit(&submitted, &context, &scheduler, resubmission.stall).await;
        let failure = match outcome {
            Attempt::Rows(held, rest) => {
                let held = futures::stream::iter(held.into_iter().map(Ok));
                return Ok(match rest {
                    Some(rest) => held.chain(rest).boxed(),
                    None => held.boxed(),
                });
            }
            Attempt::Failed(e) => e,
            Attempt::Stalled(job) => {
                let job = job.as_deref().unwrap_or("(not yet accepted)");
                DataFusionError::Execution(format!(
                    "job {job} showed no progress for {:?}: no stage finished and its state \
                     did not change; it was cancelled (are executors running and reachable?)",
                    resubmission.stall
                ))
            }
        };
        if attempt == attempts {
            return Err(failure.context(format!(
                "the query was submitted {attempts} times; the last attempt ended so"
            )));
        }
        log::warn!("submitting the query again (attempt {attempt} of {attempts} ended: {failure})");
        attempt += 1;
    }
}

/// One submission of `query`: its rows, its failure, or a stall, whichever comes first.
async fn submit(
    query: &Arc<dyn ExecutionPlan>,
    context: &Arc<TaskContext>,
    scheduler: &str,
    stall: Duration,
) -> Attempt {
    let rows = async {
        let mut stream = query.execute(0, Arc::clone(context))?;
        let (mut held, mut bytes) = (Vec::new(), 0);
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            bytes += batch.get_array_memory_size();
            held.push(batch);
            if bytes > HELD_BYTES {
                return Ok((held, Some(stream)));
            }
        }
        Ok((held, None))
    };
    tokio::select! {
        rows = rows => match rows {
            Ok((held, rest)) => Attempt::Rows(held, rest),
            Err(e) => Attempt::Failed(e),
        },
        job = stalled(query.as_ref(), scheduler, stall) => Attempt::Stalled(job),
    }
}

/// The tag of a job's state, for [`Progress`].
fn tag(state: job_status::Status) -> u8 {
    match state {
        job_status::Status::Queued(_) => 1,
        job_status::Status::Running(_) => 2,
        job_status::Status::Failed(_) => 3,
        job_status::Status::Successful(_) => 4,
    }
}

/// What is seen of a job's progress at the scheduler: a change in any of it is progress.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Progress {
    /// The job's id, once the scheduler has accepted it.
    job: Option<String>,
    /// Its state: queued, running, failed or done (by the status's tag).
    state: Option<u8>,
    /// The stages that have finished, by id.
    finished: Vec<u32>,
}

/// Resolves once `query`'s job has shown no progress for `stall`, after cancelling it at
/// the scheduler `scheduler`, with the job's id (`None` if it was never accepted).
async fn stalled(query: &dyn ExecutionPlan, scheduler: &str, stall: Duration) -> Option<String> {
    // A few looks per stall time, at most a second apart.
    let tick = (stall / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let distributed = query.downcast_ref::<DistributedQueryExec<LogicalPlanNode>>();
    let mut client = None;
    let (mut seen, mut since) = (Progress::default(), Instant::now());
    loop {
        tokio::time::sleep(tick).await;
        let mut now = seen.clone();
        now.job = distributed
            .and_then(|q| q.job_id())
            .map(|id| id.to_string());
        if let Some(job) = &now.job {
            if client.is_none() {
                // Unreachable now, asked again at the next tick; the query fails on its own
                // if the scheduler is gone.
                client = SchedulerGrpcClient::connect(scheduler.to_owned())
                    .await
                    .ok();
            }
            if let Some(client) = client.as_mut() {
                let status = client
                    .get_job_status(GetJobStatusParams {
                        job_id: job.clone(),
                    })
                    .await;
                if let Ok(status) = status {
                    now.state = status.into_inner().status.and_then(|s| s.status).map(tag);
                }
                // Only finished stages are listed, and none before the job is planned.
                let metrics = client
                    .get_job_metrics(GetJobMetricsParams {
                        job_id: job.clone(),
                    })
                    .await;
                if let Ok(metrics) = metrics {
                    now.finished = metrics
                        .into_inner()
                        .stages
                        .iter()
                        .map(|s| s.stage_id)
                        .collect();
                    now.finished.sort_unstable();
                }
            }
        }
        if now != seen {
            (seen, since) = (now, Instant::now());
        } else if since.elapsed() >= stall {
            if let (Some(job), Some(client)) = (&seen.job, client.as_mut()) {
                // The scheduler frees what the job holds; a failure to ask is only logged,
                // the next attempt goes ahead either way.
                let cancelled = client
                    .cancel_job(CancelJobParams {
                        job_id: job.clone(),
                    })
                    .await;
                if let Err(e) = cancelled {
                    log::warn!("cancelling the stalled job {job}: {e}");
                }
            }
            return seen.job;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use datafusion::arrow::array::Float64Array;
    use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
    use datafusion::physical_expr::EquivalenceProperties;
    use datafusion::physical_plan::Partitioning;
    use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};

    use super::*;

    /// What a [`Flaky`] query does when submitted.
    #[derive(Debug, Clone, Copy)]
    enum Outcome {
        Fails,
        /// Never answers (and, not being Ballista's plan, never shows a job).
        Hangs,
        /// Returns `rows` rows.
        Rows(usize),
        /// Returns `rows` rows, then fails.
        RowsThenFails(usize),
    }

    /// A query whose `n`-th submission does `outcomes[n]` (the last one from then on).
    #[derive(Debug, Clone)]
    struct Flaky {
        outcomes: Vec<Outcome>,
        submissions: Arc<AtomicUsize>,
        properties: Arc<PlanProperties>,
    }

    impl Flaky {
        fn new(outcomes: &[Outcome]) -> Self {
            let properties = PlanProperties::new(
                EquivalenceProperties::new(schema()),
                Partitioning::UnknownPartitioning(1),
                EmissionType::Incremental,
                Boundedness::Bounded,
            );
            Flaky {
                outcomes: outcomes.to_vec(),
                submissions: Arc::default(),
                properties: Arc::new(properties),
            }
        }
    }

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("x", DataType::Float64, false)]))
    }

    fn batch(rows: usize) -> RecordBatch {
        let x = Float64Array::from_iter_values((0..rows).map(|i| i as f64));
        RecordBatch::try_new(schema(), vec![Arc::new(x)]).unwrap()
    }

    impl DisplayAs for Flaky {
        fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "Flaky")
        }
    }

    impl ExecutionPlan for Flaky {
        fn name(&self) -> &str {
            "Flaky"
        }

        fn properties(&self) -> &Arc<PlanProperties> {
            &self.properties
        }

        fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
            vec![]
        }

        fn apply_expressions(
            &self,
            _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
        ) -> Result<TreeNodeRecursion> {
            Ok(TreeNodeRecursion::Continue)
        }

        fn with_new_children(
            self: Arc<Self>,
            _children: Vec<Arc<dyn ExecutionPlan>>,
        ) -> Result<Arc<dyn ExecutionPlan>> {
            Ok(Arc::new(self.as_ref().clone()))
        }

        fn execute(&self, _: usize, _: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
            let n = self.submissions.fetch_add(1, Ordering::SeqCst);
            let outcome = self.outcomes[n.min(self.outcomes.len() - 1)];
            let failure = || DataFusionError::Execution(format!("submission {n} failed"));
            let rows = match outcome {
                Outcome::Fails => futures::stream::iter(vec![Err(failure())]).boxed(),
                Outcome::Hangs => futures::stream::pending().boxed(),
                Outcome::Rows(rows) => futures::stream::iter(vec![Ok(batch(rows))]).boxed(),
                Outcome::RowsThenFails(rows) => {
                    futures::stream::iter(vec![Ok(batch(rows)), Err(failure())]).boxed()
                }
            };
            Ok(Box::pin(RecordBatchStreamAdapter::new(schema(), rows)))
        }
    }

    /// `query` run through [`ResubmittedQueryExec`]: its rows, or its error.
    async fn resubmitted(
        query: &Flaky,
        attempts: usize,
        stall: Duration,
    ) -> Result<Vec<RecordBatch>> {
        let resubmission = Resubmission { attempts, stall };
        let plan = ResubmittedQueryExec::new(
            Arc::new(query.clone()),
            "http://127.0.0.1:1".into(),
            resubmission,
        );
        datafusion::physical_plan::collect(Arc::new(plan), Arc::new(TaskContext::default())).await
    }

    fn rows(batches: &[RecordBatch]) -> usize {
        batches.iter().map(RecordBatch::num_rows).sum()
    }

    const LONG: Duration = Duration::from_secs(60);

    #[tokio::test]
    async fn a_failed_submission_is_made_again_and_its_rows_returned() {
        let query = Flaky::new(&[Outcome::Fails, Outcome::Fails, Outcome::Rows(7)]);
        let batches = resubmitted(&query, 3, LONG).await.unwrap();
        assert_eq!(rows(&batches), 7);
        assert_eq!(query.submissions.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn the_last_failure_is_returned_once_the_attempts_are_spent() {
        let query = Flaky::new(&[Outcome::Fails]);
        let e = resubmitted(&query, 3, LONG).await.unwrap_err().to_string();
        assert!(e.contains("submitted 3 times"), "{e}");
        assert!(e.contains("submission 2 failed"), "{e}");
        assert_eq!(query.submissions.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_submission_without_progress_is_made_again_after_the_stall_time() {
        let query = Flaky::new(&[Outcome::Hangs, Outcome::Rows(5)]);
        let stall = Duration::from_millis(300);
        let start = Instant::now();
        let batches = resubmitted(&query, 2, stall).await.unwrap();
        assert_eq!(rows(&batches), 5);
        assert!(start.elapsed() >= stall);
        assert_eq!(query.submissions.load(Ordering::SeqCst), 2);

        let query = Flaky::new(&[Outcome::Hangs]);
        let e = resubmitted(&query, 2, stall).await.unwrap_err().to_string();
        assert!(e.contains("no progress for 300ms"), "{e}");
        assert_eq!(query.submissions.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_failure_after_the_held_rows_have_streamed_on_is_returned_as_it_is() {
        // Below the held bytes, the rows are held and the failure submits the query again.
        let query = Flaky::new(&[Outcome::RowsThenFails(1000), Outcome::Rows(3)]);
        assert_eq!(rows(&resubmitted(&query, 2, LONG).await.unwrap()), 3);

        // Past them, the rows have gone on to the caller: a second submission would repeat
        // them, so the failure is the query's answer.
        let past = HELD_BYTES / 8 + 1;
        let query = Flaky::new(&[Outcome::RowsThenFails(past), Outcome::Rows(3)]);
        let e = resubmitted(&query, 2, LONG).await.unwrap_err().to_string();
        assert!(
            e.contains("submission 0 failed") && !e.contains("submitted"),
            "{e}"
        );
        assert_eq!(query.submissions.load(Ordering::SeqCst), 1);
    }
}
