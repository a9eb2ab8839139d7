//! Histogram gradient boosting driven from the client, as XGBoost and Spark distribute it:
//! one query for the first pass (the rows and their targets' sum, or the classes' counts), one
//! `margin_sample_rows` query for the rows whose quantiles give the bins, then for each tree
//! one `margin_boosting_sums` query for the roots and one per level grown, each summing the
//! gradient histograms of the nodes the growers wait for over every partition.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::{Result, plan_err};
use datafusion::prelude::SessionContext;
use margin_core::Dataset;
use margin_tree::{
    BoostingStep, BoostingSums, GradientBoostingClassifier, GradientBoostingClassifierParams,
    GradientBoostingRegressor, GradientBoostingRegressorParams,
};

use crate::kmeans::sample_rows;
use crate::linear::first_pass;
use crate::steps::{Solver, Step, check_features};

/// `margin_boosting_sums(step, label, feature, …)`: the gradient histograms a
/// [`BoostingStep`] asks for.
impl Step for BoostingStep {
    type Sums = BoostingSums;
    const NAME: &'static str = "margin_boosting_sums";
    const SUPERVISED: bool = true;

    fn zero(&self) -> margin_core::Result<BoostingSums> {
        BoostingStep::zero(self)
    }

    fn add(&self, rows: &Dataset, sums: &mut BoostingSums) -> margin_core::Result<()> {
        BoostingStep::add(self, rows, sums)
    }

    fn merge(&self, sums: &mut BoostingSums, other: BoostingSums) -> margin_core::Result<()> {
        sums.merge(other)
    }
}

/// Fits a histogram gradient-boosting regressor (scikit-learn's
/// `HistGradientBoostingRegressor`) on the rows of `table` (a table name, or a parenthesized
/// query with an alias), the numeric label column `label` and the numeric feature columns
/// `features`, with `params`: one query for the rows' count and the labels' sum, one for a
/// uniform sample of at most 200 000 rows whose quantiles give the bins, then one query for
/// each iteration's root and one per level its tree grows to. The table is never held in
/// memory; the model is the in-memory fit's on the same rows up to the rounding of sums taken
/// in another order (see [`GradientBoostingRegressorParams::fit_parts`]). NaN features are
/// missing values; null features and labels are refused.
///
/// `ctx` must have margin's functions ([`register`](crate::register)); the caller's Tokio
/// runtime must be multi-threaded.
///
/// # Errors
/// A query's error (an unknown table or column, a null label or feature); the parameters'
/// refusals, and early stopping (set it off), `subsample` below 1, the absolute error.
pub async fn fit_gradient_boosting_regressor(
    ctx: &SessionContext,
    table: &str,
    label: &str,
    features: &[&str],
    params: &GradientBoostingRegressorParams,
) -> Result<GradientBoostingRegressor> {
    check_features(features)?;
    let (n, target_sum) = count_and_sum(ctx, table, label).await?;
    let params = params.clone();
    Solver::run(ctx, table, Some(label), features, move |solver| {
        params.fit_parts(
            n,
            target_sum,
            |rows| sample_rows(solver, rows),
            |step| solver.sums::<BoostingStep>(step),
            None,
        )
    })
    .await
}

/// Fits a histogram gradient-boosting classifier (scikit-learn's
/// `HistGradientBoostingClassifier`) on the rows of `table`, the label column `label`
/// (numbers or text) and the numeric feature columns `features`, with `params`: one query for
/// the classes and their counts, one for a uniform sample of at most 200 000 rows whose
/// quantiles give the bins, then one query for each iteration's roots (one tree per class
/// above two classes) and one per level grown. The table is never held in memory; the model
/// is the in-memory fit's on the same rows up to the rounding of sums taken in another order
/// (see [`GradientBoostingClassifierParams::fit_parts`]).
///
/// `ctx` must have margin's functions ([`register`](crate::register)); the caller's Tokio
/// runtime must be multi-threaded.
///
/// # Errors
/// A query's error (an unknown table or column, a null label or feature); a label that is
/// neither a number nor text; the parameters' refusals, and early stopping (set it off),
/// `subsample` below 1.
pub async fn fit_gradient_boosting_classifier(
    ctx: &SessionContext,
    table: &str,
    label: &str,
    features: &[&str],
    params: &GradientBoostingClassifierParams,
) -> Result<GradientBoostingClassifier> {
    check_features(features)?;
    let counts = first_pass(ctx, table, label).await?;
    let params = params.clone();
    Solver::run(ctx, table, Some(label), features, move |solver| {
        params.fit_parts(
            &counts,
            |rows| sample_rows(solver, rows),
            |step| solver.sums::<BoostingStep>(step),
            None,
        )
    })
    .await
}

/// The rows' count and the sum of their labels (a null label refused).
async fn count_and_sum(ctx: &SessionContext, table: &str, label: &str) -> Result<(usize, f64)> {
    let sql = format!("SELECT COUNT(*), COUNT({label}), SUM(CAST({label} AS DOUBLE)) FROM {table}");
    let batches = ctx.sql(&sql).await?.collect().await?;
    let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
        return plan_err!("the count of {table}'s rows gave no answer");
    };
    let count = |c: usize| -> Result<usize> {
        let n = datafusion::arrow::compute::cast(batch.column(c), &DataType::Int64)?;
        Ok(usize::try_from(n.as_primitive::<Int64Type>().value(0)).unwrap_or(0))
    };
    let (n, labelled) = (count(0)?, count(1)?);
    if n == 0 {
        return plan_err!("{table} has no rows to fit");
    }
    if labelled < n {
        return plan_err!("the label `{label}` is null in {} rows", n - labelled);
    }
    let sum = batch.column(2).as_primitive::<Float64Type>();
    Ok((n, if sum.is_null(0) { 0.0 } else { sum.value(0) }))
}
