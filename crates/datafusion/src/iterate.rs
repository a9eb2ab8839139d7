//! Iterative fits driven from the client, as Spark drives them: each solver step is one query
//! whose aggregate, `margin_loss_sums`, sums the loss and its gradient over every partition at
//! the current weights.

use std::sync::{Arc, Mutex, PoisonError};

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use datafusion::physical_expr::expressions::Literal;
use datafusion::prelude::SessionContext;
use margin_core::Label;
use margin_linear::{LogisticParts, LogisticRegression, LogisticRegressionParams};

use crate::columns::ArgColumns;
use crate::external;
use crate::gather::{decode, encode};

/// What one step asks of every partition: the first pass's classes and the current weights.
#[derive(serde::Serialize, serde::Deserialize)]
struct Step {
    parts: LogisticParts,
    w: Vec<f64>,
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Step")
            .field("parts", &self.parts)
            .field("weights", &self.w.len())
            .finish()
    }
}

/// `margin_loss_sums(step, label, feature, …)`: the logistic loss summed over the rows
/// aggregated and its gradient, at the weights `step` carries (a literal, as
/// [`fit_logistic_regression`] writes it), as `Binary`. Partitions' sums add.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MarginLossSums {
    signature: Signature,
}

impl Default for MarginLossSums {
    fn default() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

impl AggregateUDFImpl for MarginLossSums {
    fn name(&self) -> &str {
        "margin_loss_sums"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() < 3 {
            return plan_err!(
                "margin_loss_sums(step, label, feature, …) takes at least three arguments, got {}",
                arg_types.len()
            );
        }
        Ok(DataType::Binary)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let step = args
            .exprs
            .first()
            .and_then(|e| (e.as_ref() as &dyn std::any::Any).downcast_ref::<Literal>())
            .map(Literal::value);
        let Some(ScalarValue::Binary(Some(bytes))) = step else {
            return plan_err!(
                "margin_loss_sums' first argument must be the step's bytes, a literal"
            );
        };
        let step: Step = decode(bytes).map_err(external)?;
        let n = step.parts.n_weights();
        if step.w.len() != n {
            return plan_err!(
                "margin_loss_sums' step has {} weights, not {n}",
                step.w.len()
            );
        }
        Ok(Box::new(LossAccumulator {
            columns: ArgColumns::new(&args.expr_fields[1..], 2, true),
            step,
            loss: 0.0,
            grad: vec![0.0; n],
            scratch: vec![0.0; n],
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            format_state_name(args.name, "sums"),
            DataType::Binary,
            true,
        ))])
    }
}

/// One partition's sums.
#[derive(Debug)]
struct LossAccumulator {
    columns: ArgColumns,
    step: Step,
    loss: f64,
    grad: Vec<f64>,
    scratch: Vec<f64>,
}

impl LossAccumulator {
    fn add(&mut self, loss: f64, grad: &[f64]) {
        self.loss += loss;
        self.grad.iter_mut().zip(grad).for_each(|(a, b)| *a += b);
    }

    fn encoded(&self) -> Result<Vec<u8>> {
        encode(&(self.loss, &self.grad)).map_err(external)
    }
}

impl Accumulator for LossAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let columns = &values[1..];
        if columns.first().is_none_or(|c| c.is_empty()) {
            return Ok(());
        }
        let part = self.columns.dataset(self.columns.batch(columns)?)?;
        let mut scratch = std::mem::take(&mut self.scratch);
        let loss = self
            .step
            .parts
            .loss_sums(&part, &self.step.w, &mut scratch)
            .map_err(external)?;
        self.add(loss, &scratch);
        self.scratch = scratch;
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(Some(self.encoded()?)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + 8 * (self.grad.len() * 2 + self.step.w.len())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.encoded()?))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let sums = states[0].as_binary::<i32>();
        for i in 0..sums.len() {
            if sums.is_null(i) {
                continue;
            }
            let (loss, grad): (f64, Vec<f64>) = decode(sums.value(i)).map_err(external)?;
            if grad.len() != self.grad.len() {
                return Err(DataFusionError::Internal(format!(
                    "a partition's gradient has {} values, not {}",
                    grad.len(),
                    self.grad.len()
                )));
            }
            self.add(loss, &grad);
        }
        Ok(())
    }
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
    let counts = class_counts(ctx, table, label).await?;
    if counts.is_empty() {
        return plan_err!("{table} has no rows to fit");
    }
    let parts = params.parts(&counts, features.len()).map_err(external)?;
    let (ctx, params) = (ctx.clone(), params.clone());
    let columns = features.join(", ");
    let (label, table) = (label.to_owned(), table.to_owned());
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        // A query's own error, kept whole; the solver only sees that the step failed.
        let failed: Mutex<Option<DataFusionError>> = Mutex::new(None);
        let sums = |w: &[f64], grad: &mut [f64]| {
            let step = encode(&Step {
                parts: parts.clone(),
                w: w.to_vec(),
            })?;
            let sql = format!(
                "SELECT margin_loss_sums({}, {label}, {columns}) FROM {table}",
                hex(&step)
            );
            match runtime.block_on(sums_of(&ctx, &sql)) {
                Ok((loss, g)) if g.len() == grad.len() => {
                    grad.copy_from_slice(&g);
                    Ok(loss)
                }
                Ok((_, g)) => Err(margin_core::Error::shape(
                    "the summed gradient",
                    grad.len(),
                    g.len(),
                )),
                Err(e) => {
                    let message = e.to_string();
                    failed
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(e);
                    Err(margin_core::Error::Numerical(message))
                }
            }
        };
        let fitted = params.fit_parts(&parts, sums, &mut ());
        match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(e) => Err(e),
            None => fitted.map_err(external),
        }
    })
    .await
    .map_err(|e| DataFusionError::Execution(format!("the solver's thread failed: {e}")))?
}

/// The loss and gradient sums one step's query returns.
async fn sums_of(ctx: &SessionContext, sql: &str) -> Result<(f64, Vec<f64>)> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let column = batches
        .first()
        .map(|b| b.column(0).as_binary::<i32>().clone())
        .filter(|c| !c.is_empty() && !c.is_null(0));
    match column {
        Some(c) => decode(c.value(0)).map_err(external),
        None => plan_err!("the step's query gave no sums"),
    }
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

/// `bytes` as an SQL binary literal.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(3 + 2 * bytes.len());
    out.push_str("X'");
    for b in bytes {
        // Writing into a String cannot fail.
        let _ = write!(out, "{b:02X}");
    }
    out.push('\'');
    out
}
