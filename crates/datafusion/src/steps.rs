//! Fits driven from the client, as Spark drives them: the solver runs on the client, and each
//! of its steps is one query whose aggregate sums what the step asks of every partition (a
//! loss and its gradient, a Lloyd step's per-cluster sums, a sample of rows, a cascade SVM's
//! support vectors). One generic aggregate, [`StepSums`], serves every kind of step; [`Solver`]
//! runs the solver and its queries.

use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, Int64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use datafusion::physical_expr::expressions::Literal;
use datafusion::prelude::SessionContext;
use margin_core::Dataset;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::columns::ArgColumns;
use crate::external;
use crate::gather::{decode, encode, encoded_len};

/// What one step asks of every partition (decoded from the query's first argument), and
/// the sums each partition gives back.
pub(crate) trait Step: DeserializeOwned + Debug + Send + Sync + 'static {
    /// What a partition sums; two partitions' sums merge.
    type Sums: Serialize + DeserializeOwned + Debug + Send + Sync + 'static;
    /// The aggregate function's name.
    const NAME: &'static str;
    /// Whether a label column comes before the features.
    const SUPERVISED: bool;
    /// Nothing summed yet (a step that cannot be summed is refused here).
    fn zero(&self) -> margin_core::Result<Self::Sums>;
    /// Adds a batch of rows.
    fn add(&self, rows: &Dataset, sums: &mut Self::Sums) -> margin_core::Result<()>;
    /// Adds another partition's sums.
    fn merge(&self, sums: &mut Self::Sums, other: Self::Sums) -> margin_core::Result<()>;
    /// Completes a partition's own sums once its rows are all added, before they are merged
    /// or sent on (a cascade node solves its problem here); nothing for plain sums.
    fn finish(&self, _sums: &mut Self::Sums) -> margin_core::Result<()> {
        Ok(())
    }
}

/// The aggregate `NAME(step, [label,] feature, …)`: the sums of step `S` over the rows
/// aggregated, as `Binary`. `step` is a literal, the bytes the client's [`Solver`] writes
/// (`Binary`, or a one-value `Dictionary` of it, as the solver sends it).
pub(crate) struct StepSums<S> {
    signature: Signature,
    step: PhantomData<fn() -> S>,
}

impl<S: Step> StepSums<S> {
    pub(crate) fn new() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
            step: PhantomData,
        }
    }
}

// By hand: derived impls would ask the same of `S`, which is only a type tag here.
impl<S: Step> Debug for StepSums<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(S::NAME).finish()
    }
}

impl<S: Step> PartialEq for StepSums<S> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<S: Step> Eq for StepSums<S> {}

impl<S: Step> Hash for StepSums<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        S::NAME.hash(state);
    }
}

impl<S: Step> AggregateUDFImpl for StepSums<S> {
    fn name(&self) -> &str {
        S::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let least = 2 + usize::from(S::SUPERVISED);
        if arg_types.len() < least {
            return plan_err!(
                "{}(step, {}feature, …) takes at least {least} arguments, got {}",
                S::NAME,
                if S::SUPERVISED { "label, " } else { "" },
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
            .map(|literal| match literal.value() {
                ScalarValue::Dictionary(_, value) => value.as_ref(),
                value => value,
            });
        let Some(ScalarValue::Binary(Some(bytes))) = step else {
            return plan_err!(
                "{}'s first argument must be the step's bytes, a literal",
                S::NAME
            );
        };
        let step: S = decode(bytes).map_err(external)?;
        let sums = step.zero().map_err(external)?;
        Ok(Box::new(StepAccumulator {
            columns: ArgColumns::new(&args.expr_fields[1..], 2, S::SUPERVISED),
            step_len: bytes.len(),
            step,
            sums,
            received: Vec::new(),
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

/// One partition's sums, and the other partitions' sums merged into it.
#[derive(Debug)]
struct StepAccumulator<S: Step> {
    columns: ArgColumns,
    /// The step's encoded length, which measures the decoded step (weights, centres, trees).
    step_len: usize,
    step: S,
    sums: S::Sums,
    /// Other partitions' encoded sums, added only when the total is asked for: in the order
    /// of their bytes, so that the total does not depend on the order partitions finish in
    /// (floating-point addition is not associative).
    received: Vec<Vec<u8>>,
}

impl<S: Step> StepAccumulator<S> {
    /// This partition's sums, finished, and those received, merged in a fixed order, as
    /// bytes: sorted by their bytes, so that the total does not depend on the order
    /// partitions finish in (floating-point addition is not associative), then merged
    /// pairwise up a binary tree (a cascade's shape, and pairwise summation's).
    fn total(&mut self) -> Result<Vec<u8>> {
        self.step.finish(&mut self.sums).map_err(external)?;
        let own = encode(&self.sums).map_err(external)?;
        if self.received.is_empty() {
            return Ok(own);
        }
        let mut all: Vec<&[u8]> = self.received.iter().map(Vec::as_slice).collect();
        all.push(&own);
        all.sort_unstable();
        let mut layer = all
            .into_iter()
            .map(decode)
            .collect::<margin_core::Result<Vec<S::Sums>>>()
            .map_err(external)?;
        while layer.len() > 1 {
            let mut next = Vec::with_capacity(layer.len().div_ceil(2));
            let mut sums = layer.into_iter();
            while let Some(mut a) = sums.next() {
                if let Some(b) = sums.next() {
                    self.step.merge(&mut a, b).map_err(external)?;
                }
                next.push(a);
            }
            layer = next;
        }
        let total = layer
            .pop()
            .ok_or_else(|| DataFusionError::Internal("no sums to total".into()))?;
        encode(&total).map_err(external)
    }
}

impl<S: Step> Accumulator for StepAccumulator<S> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let columns = &values[1..];
        if columns.first().is_none_or(|c| c.is_empty()) {
            return Ok(());
        }
        let rows = self.columns.dataset(self.columns.batch(columns)?)?;
        self.step.add(&rows, &mut self.sums).map_err(external)
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(Some(self.total()?)))
    }

    fn size(&self) -> usize {
        // The step and the sums are numbers: their encodings' lengths measure them.
        std::mem::size_of_val(self)
            + self.step_len
            + encoded_len(&self.sums)
            + self.received.iter().map(Vec::len).sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::Binary(Some(self.total()?))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let sums = states[0].as_binary::<i32>();
        for i in (0..sums.len()).filter(|&i| !sums.is_null(i)) {
            self.received.push(sums.value(i).to_vec());
        }
        Ok(())
    }
}

/// The client side of a fit: runs the solver on a blocking thread of the caller's Tokio
/// runtime, each step one query of a [`StepSums`] aggregate over the table's rows.
pub(crate) struct Solver {
    ctx: SessionContext,
    runtime: tokio::runtime::Handle,
    /// The table (a name, or a parenthesized query with an alias).
    table: String,
    /// The label column, for the steps that read one.
    label: Option<String>,
    /// The feature columns, comma-separated.
    features: String,
    /// The first query error, kept whole for the caller (the solver only sees that a step
    /// failed).
    failed: Mutex<Option<DataFusionError>>,
}

impl Solver {
    /// Runs `fit`, which asks for each step's sums with [`Solver::sums`], on a blocking thread
    /// (the caller's runtime must be multi-threaded, DataFusion's own habit). Supervised steps
    /// read `label` then `features`, the others `features`. A failed query's error comes back
    /// as it was; otherwise `fit`'s error, if any.
    pub(crate) async fn run<T: Send + 'static>(
        ctx: &SessionContext,
        table: &str,
        label: Option<&str>,
        features: &[&str],
        fit: impl FnOnce(&Solver) -> margin_core::Result<T> + Send + 'static,
    ) -> Result<T> {
        let solver = Solver {
            ctx: ctx.clone(),
            runtime: tokio::runtime::Handle::current(),
            table: table.to_owned(),
            label: label.map(str::to_owned),
            features: features.join(", "),
            failed: Mutex::new(None),
        };
        tokio::task::spawn_blocking(move || {
            let fitted = fit(&solver);
            match solver
                .failed
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
            {
                Some(e) => Err(e),
                None => fitted.map_err(external),
            }
        })
        .await
        .map_err(|e| DataFusionError::Execution(format!("the solver's thread failed: {e}")))?
    }

    /// The sums of step `S` over every row, `step` encoding an `S`. Blocks on the query.
    ///
    /// # Errors
    /// A failed query, as a numerical error naming it (the query's own error is kept for
    /// [`Solver::run`]'s caller).
    pub(crate) fn sums<S: Step>(&self, step: &impl Serialize) -> margin_core::Result<S::Sums> {
        let columns = match (&self.label, S::SUPERVISED) {
            (Some(label), true) => format!("{label}, {}", self.features),
            (None, true) => {
                return Err(margin_core::Error::invalid_parameter(
                    "label",
                    "none",
                    format!("a label column: {} reads one", S::NAME),
                ));
            }
            (_, false) => self.features.clone(),
        };
        let step = encode(step)?;
        // A dictionary of one value: DataFusion evaluates an aggregate's literal argument
        // into an array as long as each batch, and a plain binary array would copy the step
        // once per row (a cascade's megabytes of support vectors, times 8192 rows, overflow
        // its 32-bit offsets); a dictionary repeats only its key.
        let sql = format!(
            "SELECT {}(arrow_cast({}, 'Dictionary(Int32, Binary)'), {columns}) FROM {}",
            S::NAME,
            hex(&step),
            self.table
        );
        self.runtime
            .block_on(sums_of(&self.ctx, &sql))
            .map_err(|e| {
                let message = e.to_string();
                self.failed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(e);
                margin_core::Error::Numerical(message)
            })
    }
}

/// Refuses a fit given no feature column (its queries would not parse).
pub(crate) fn check_features(features: &[&str]) -> Result<()> {
    if features.is_empty() {
        return plan_err!("the fit takes at least one feature column: name them");
    }
    Ok(())
}

/// The rows' count and the `Float64` aggregates `aggregates` (SQL expressions) over `table`,
/// in one query; a null aggregate (no rows) reads 0.
pub(crate) async fn count_and_aggregates(
    ctx: &SessionContext,
    table: &str,
    aggregates: &[String],
) -> Result<(usize, Vec<f64>)> {
    let sql = format!("SELECT COUNT(*), {} FROM {table}", aggregates.join(", "));
    let batches = ctx.sql(&sql).await?.collect().await?;
    let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
        return plan_err!("the count of {table}'s rows gave no answer");
    };
    let n = datafusion::arrow::compute::cast(batch.column(0), &DataType::Int64)?;
    let n = usize::try_from(n.as_primitive::<Int64Type>().value(0)).unwrap_or(0);
    let values = batch.columns()[1..]
        .iter()
        .map(|column| {
            let v = column.as_primitive::<Float64Type>();
            if v.is_null(0) { 0.0 } else { v.value(0) }
        })
        .collect();
    Ok((n, values))
}

/// The sums one step's query returns.
async fn sums_of<T: DeserializeOwned>(ctx: &SessionContext, sql: &str) -> Result<T> {
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
