//! The linear models driven from the client: one query for the classes and their counts,
//! then one `margin_loss_sums` query per L-BFGS step, summing the loss and its gradient over
//! every partition at the current weights (logistic regression's softmax or binary loss, or
//! one binary problem of the L2-loss linear SVM).

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, plan_err};
use datafusion::prelude::SessionContext;
use margin_core::{Dataset, Error, Label};
use margin_linear::{LogisticParts, LogisticRegression, LogisticRegressionParams};
use margin_svm::{LinearSvc, LinearSvcParams, LinearSvcParts};
use serde::{Deserialize, Serialize};

use crate::external;
use crate::steps::{Solver, Step, check_features};

/// `margin_loss_sums(step, label, feature, …)`'s step: the first pass's classes and the
/// current weights of a model's loss. The sums are the loss over the rows and its gradient.
#[derive(Deserialize)]
pub(crate) enum LossStep {
    /// Logistic regression's loss.
    Logistic { parts: LogisticParts, w: Vec<f64> },
    /// The squared hinge of the linear SVM's binary problem `problem`.
    LinearSvc {
        parts: LinearSvcParts,
        problem: usize,
        w: Vec<f64>,
    },
}

/// A [`LossStep`] as the client writes it, borrowing what it sends (the same variants in
/// the same order, so the same bytes).
#[derive(Serialize)]
enum LossStepRef<'a> {
    Logistic {
        parts: &'a LogisticParts,
        w: &'a [f64],
    },
    LinearSvc {
        parts: &'a LinearSvcParts,
        problem: usize,
        w: &'a [f64],
    },
}

impl LossStep {
    fn weights(&self) -> (&[f64], usize) {
        match self {
            Self::Logistic { parts, w } => (w, parts.n_weights()),
            Self::LinearSvc { parts, w, .. } => (w, parts.n_weights()),
        }
    }
}

impl std::fmt::Debug for LossStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let model = match self {
            Self::Logistic { .. } => "logistic regression",
            Self::LinearSvc { .. } => "linear SVM",
        };
        f.debug_struct("LossStep")
            .field("model", &model)
            .field("weights", &self.weights().0.len())
            .finish()
    }
}

impl Step for LossStep {
    type Sums = (f64, Vec<f64>);
    const NAME: &'static str = "margin_loss_sums";
    const SUPERVISED: bool = true;

    fn zero(&self) -> margin_core::Result<Self::Sums> {
        let (w, n) = self.weights();
        if w.len() != n {
            return Err(Error::shape("the step's weights", n, w.len()));
        }
        Ok((0.0, vec![0.0; n]))
    }

    fn add(&self, rows: &Dataset, (loss, grad): &mut Self::Sums) -> margin_core::Result<()> {
        let mut part = vec![0.0; grad.len()];
        *loss += match self {
            Self::Logistic { parts, w } => parts.loss_sums(rows, w, &mut part)?,
            Self::LinearSvc { parts, problem, w } => {
                parts.loss_sums(*problem, rows, w, &mut part)?
            }
        };
        grad.iter_mut().zip(&part).for_each(|(a, b)| *a += b);
        Ok(())
    }

    fn merge(&self, sums: &mut Self::Sums, (loss, grad): Self::Sums) -> margin_core::Result<()> {
        if grad.len() != sums.1.len() {
            return Err(Error::shape(
                "a partition's gradient",
                sums.1.len(),
                grad.len(),
            ));
        }
        sums.0 += loss;
        sums.1.iter_mut().zip(&grad).for_each(|(a, b)| *a += b);
        Ok(())
    }
}

/// The summed loss of `step`, its gradient written into `grad`.
fn loss_sums(
    solver: &Solver,
    step: &LossStepRef<'_>,
    grad: &mut [f64],
) -> margin_core::Result<f64> {
    let (loss, g) = solver.sums::<LossStep>(step)?;
    if g.len() != grad.len() {
        return Err(Error::shape("the summed gradient", grad.len(), g.len()));
    }
    grad.copy_from_slice(&g);
    Ok(loss)
}

/// Each label of `table` with its number of rows (the classifiers' first pass); a table
/// without rows is refused.
pub(crate) async fn first_pass(
    ctx: &SessionContext,
    table: &str,
    label: &str,
) -> Result<Vec<(Label, usize)>> {
    let counts = class_counts(ctx, table, label).await?;
    if counts.is_empty() {
        return plan_err!("{table} has no rows to fit");
    }
    Ok(counts)
}

/// Fits a logistic regression on the rows of `table` (a table name, or a parenthesized
/// query with an alias), the label column `label` and the numeric feature columns
/// `features`, with `params` (L-BFGS, penalty none or L2): one query for the classes and
/// their counts, then one query per solver step, each summing the loss and its gradient over
/// every partition with `margin_loss_sums`. The table is never held in memory; the model is
/// the in-memory fit's to the solver's tolerance.
///
/// `ctx` must have margin's functions ([`register`](crate::register)). The solver runs on a
/// blocking thread of the caller's Tokio runtime, which must be multi-threaded (DataFusion's
/// own habit).
///
/// # Errors
/// A query's error (an unknown table or column, a null label or feature); a label that is
/// neither a number nor text; the parameters' refusals.
pub async fn fit_logistic_regression(
    ctx: &SessionContext,
    table: &str,
    label: &str,
    features: &[&str],
    params: &LogisticRegressionParams,
) -> Result<LogisticRegression> {
    check_features(features)?;
    let counts = first_pass(ctx, table, label).await?;
    let parts = params.parts(&counts, features.len()).map_err(external)?;
    let params = params.clone();
    Solver::run(ctx, table, Some(label), features, move |solver| {
        let sums = |w: &[f64], grad: &mut [f64]| {
            loss_sums(solver, &LossStepRef::Logistic { parts: &parts, w }, grad)
        };
        params.fit_parts(&parts, sums, &mut ())
    })
    .await
}

/// Fits the L2-loss linear SVM (scikit-learn's `LinearSVC` default, LIBLINEAR's `-s 1/2`)
/// on the rows of `table`, the label column `label` and the numeric feature columns
/// `features`, with `params` (squared hinge; the intercept a penalized bias feature, as
/// LIBLINEAR's): one query for the classes and their counts, then for each binary problem
/// (one for two classes, one per class against the rest) one query per L-BFGS step on the
/// primal, each summing the loss and its gradient over every partition with
/// `margin_loss_sums`. The table is never held in memory; the primal is strongly convex, so
/// the model is the in-memory (dual coordinate descent) fit's to the solvers' tolerances.
///
/// `ctx` must have margin's functions ([`register`](crate::register)); the caller's Tokio
/// runtime must be multi-threaded.
///
/// # Errors
/// A query's error (an unknown table or column, a null label or feature); a label that is
/// neither a number nor text; the parameters' refusals (the hinge loss, Pegasos).
pub async fn fit_linear_svc(
    ctx: &SessionContext,
    table: &str,
    label: &str,
    features: &[&str],
    params: &LinearSvcParams,
) -> Result<LinearSvc> {
    check_features(features)?;
    let counts = first_pass(ctx, table, label).await?;
    let parts = params.parts(&counts, features.len()).map_err(external)?;
    let params = params.clone();
    Solver::run(ctx, table, Some(label), features, move |solver| {
        let sums = |problem: usize, w: &[f64], grad: &mut [f64]| {
            let step = LossStepRef::LinearSvc {
                parts: &parts,
                problem,
                w,
            };
            loss_sums(solver, &step, grad)
        };
        params.fit_parts(&parts, sums, None)
    })
    .await
}

/// Each label of `table` with its number of rows.
async fn class_counts(
    ctx: &SessionContext,
    table: &str,
    label: &str,
) -> Result<Vec<(Label, usize)>> {
    let sql = format!("SELECT {label}, COUNT(*) FROM {table} GROUP BY {label}");
    let batches = ctx.sql(&sql).await?.collect().await?;
    let mut counts = Vec::new();
    for batch in &batches {
        let (labels, n) = (batch.column(0), batch.column(1));
        let n = datafusion::arrow::compute::cast(n, &DataType::Int64)?;
        let n = n.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
        let text = matches!(
            labels.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        );
        let labels = if text {
            datafusion::arrow::compute::cast(labels, &DataType::Utf8)?
        } else if labels.data_type().is_numeric() {
            datafusion::arrow::compute::cast(labels, &DataType::Float64)?
        } else {
            return plan_err!(
                "the label `{label}` is {}: give numbers or text",
                labels.data_type()
            );
        };
        for i in 0..labels.len() {
            if labels.is_null(i) {
                return plan_err!("the label `{label}` is null in {} rows", n.value(i));
            }
            let value = if text {
                Label::Text(labels.as_string::<i32>().value(i).to_owned())
            } else {
                Label::Number(
                    labels
                        .as_primitive::<datafusion::arrow::datatypes::Float64Type>()
                        .value(i),
                )
            };
            counts.push((value, usize::try_from(n.value(i)).unwrap_or(0)));
        }
    }
    Ok(counts)
}
