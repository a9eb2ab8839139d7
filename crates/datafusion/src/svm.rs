//! The kernel SVM on DataFusion: C-SVC as a cascade SVM with feedback (Graf et al., 2004),
//! driven from the client. [`SvcParams::fit_cascade`] decides; this module runs its queries.

use datafusion::common::Result;
use datafusion::prelude::SessionContext;
use margin_core::Dataset;
use margin_svm::{CascadeFit, CascadeNode, CascadeRow, CascadeStep, SvcParams, ViolationStep};

use crate::linear::first_pass;
use crate::steps::{Solver, Step, check_features, count_and_aggregates};

/// `margin_cascade_svs(step, label, feature, …, count)`: one pass of a cascade over the
/// distinct points aggregated. Each partition solves its points and those the step feeds
/// back, keeping the support vectors; the partitions' sets merge pairwise, each merge solved
/// again, up to the root's.
impl Step for CascadeStep {
    type Sums = CascadeNode;
    const NAME: &'static str = "margin_cascade_svs";
    const SUPERVISED: bool = true;

    fn zero(&self) -> margin_core::Result<CascadeNode> {
        CascadeStep::zero(self)
    }

    fn add(&self, rows: &Dataset, node: &mut CascadeNode) -> margin_core::Result<()> {
        CascadeStep::add(self, rows, node)
    }

    fn merge(&self, node: &mut CascadeNode, other: CascadeNode) -> margin_core::Result<()> {
        CascadeStep::merge(self, node, other)
    }

    fn finish(&self, node: &mut CascadeNode) -> margin_core::Result<()> {
        CascadeStep::finish(self, node)
    }
}

/// `margin_svm_violations(step, label, feature, …, count)`: the distinct points aggregated
/// whose margin breaks the step's model's optimality conditions.
impl Step for ViolationStep {
    type Sums = Vec<CascadeRow>;
    const NAME: &'static str = "margin_svm_violations";
    const SUPERVISED: bool = true;

    fn zero(&self) -> margin_core::Result<Vec<CascadeRow>> {
        ViolationStep::zero(self)
    }

    fn add(&self, rows: &Dataset, found: &mut Vec<CascadeRow>) -> margin_core::Result<()> {
        ViolationStep::add(self, rows, found)
    }

    fn merge(
        &self,
        found: &mut Vec<CascadeRow>,
        other: Vec<CascadeRow>,
    ) -> margin_core::Result<()> {
        ViolationStep::merge(self, found, other);
        Ok(())
    }

    fn finish(&self, found: &mut Vec<CascadeRow>) -> margin_core::Result<()> {
        ViolationStep::finish(self, found);
        Ok(())
    }
}

/// Fits a kernel C-SVC (scikit-learn's `SVC`, LIBSVM's `-s 0`) on the rows of `table` (a
/// table name, or a parenthesized query with an alias), the label column `label` and the
/// numeric feature columns `features`, with `params`, as a cascade SVM with feedback:
/// - one query for the classes and their counts, one for the sums `gamma="scale"` reads;
/// - then per pass one query over the table's distinct points (`GROUP BY` the label and the
///   features, each point with its number of rows, which multiplies its bound `C`): every
///   partition runs SMO on its points and the support vectors fed back from the last pass,
///   and the partitions' support vectors merge pairwise, solved again at each merge
///   (`margin_cascade_svs`); the root's problem gives the model;
/// - and one query that finds the points outside the root's set whose margin breaks the
///   optimality conditions (`margin_svm_violations`). None: the model solves the whole
///   problem, to the solver's tolerance `tol`. Otherwise the root's set is fed back and
///   another pass runs; a pass that gives back the root it was fed has converged too.
///
/// Each partition holds its points in memory while it solves them (SMO needs them): give
/// the session as many partitions as the table needs to fit in the executors' memory. A
/// node's result does not depend on the order its points arrive in (it sorts them), only on
/// which points it holds; the partitions' results merge in the order of their bytes.
///
/// `ctx` must have margin's functions ([`register`](crate::register)); the caller's Tokio
/// runtime must be multi-threaded.
///
/// # Errors
/// A query's error (an unknown table or column, a null label or feature); a label that is
/// neither a number nor text; the refusals of [`SvcParams::fit_cascade`] (probability
/// estimates, the first-seen label order, a cascade that does not converge).
pub async fn fit_svc(
    ctx: &SessionContext,
    table: &str,
    label: &str,
    features: &[&str],
    params: &SvcParams,
) -> Result<CascadeFit> {
    check_features(features)?;
    let counts = first_pass(ctx, table, label).await?;
    let sums = feature_sums(ctx, table, features).await?;
    let columns = format!("{label}, {}", features.join(", "));
    let points = format!(
        "(SELECT {columns}, COUNT(*) AS margin_count FROM {table} GROUP BY {columns}) AS margin_points"
    );
    let mut with_count = features.to_vec();
    with_count.push("margin_count");
    let params = params.clone();
    let n_features = features.len();
    Solver::run(ctx, &points, Some(label), &with_count, move |solver| {
        params.fit_cascade(
            &counts,
            n_features,
            sums,
            |step| solver.sums::<CascadeStep>(step),
            |check| solver.sums::<ViolationStep>(check),
        )
    })
    .await
}

/// The rows' count, and the sums of every feature value and of their squares.
async fn feature_sums(
    ctx: &SessionContext,
    table: &str,
    features: &[&str],
) -> Result<(usize, f64, f64)> {
    let sums: Vec<String> = features
        .iter()
        .flat_map(|f| {
            let f = format!("CAST({f} AS DOUBLE)");
            [format!("SUM({f})"), format!("SUM({f} * {f})")]
        })
        .collect();
    let (n, sums) = count_and_aggregates(ctx, table, &sums).await?;
    let sum = sums.iter().step_by(2).sum();
    let sum_sq = sums.iter().skip(1).step_by(2).sum();
    Ok((n, sum, sum_sq))
}
