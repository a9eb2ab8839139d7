//! `margin_fit`: the aggregate function that fits a model from a query's rows.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, UInt64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use datafusion::physical_expr::expressions::Literal;

use crate::columns::ArgColumns;
use crate::external;
use crate::gather::{Gather, gatherer};

/// `margin_fit(kind, params, [label,] feature, …)`: the model file of a `kind` model
/// (`'ridge'`, `'gaussian-nb'`, `'pca'`…) fitted with `params` (`'alpha=0.5'`, or `''` for the
/// defaults) on the rows aggregated, as `Binary`. Supervised kinds take the label column
/// first; the features are numeric columns, or one `FixedSizeList<Float64>` column. No rows
/// give `NULL`.
///
/// Each partition gathers the kind's statistics over its batches; DataFusion merges the
/// partitions' states (`state` / `merge_batch`), in whatever order its plan takes, into the
/// model one pass over all the rows gives, to rounding.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MarginFit {
    signature: Signature,
}

impl Default for MarginFit {
    fn default() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

/// The text of literal argument `i` (`kind` or `params`).
fn literal_text(args: &AccumulatorArgs<'_>, i: usize, what: &str) -> Result<String> {
    let value = args
        .exprs
        .get(i)
        .and_then(|e| (e.as_ref() as &dyn std::any::Any).downcast_ref::<Literal>())
        .map(Literal::value);
    match value {
        Some(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
        ) => Ok(s.clone()),
        _ => plan_err!(
            "margin_fit's argument {} ({what}) must be a literal string, as 'ridge' or 'alpha=0.5'",
            i + 1
        ),
    }
}

impl AggregateUDFImpl for MarginFit {
    fn name(&self) -> &str {
        "margin_fit"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        if arg_types.len() < 3 {
            return plan_err!(
                "margin_fit(kind, params, [label,] feature, …) takes at least three arguments, got {}",
                arg_types.len()
            );
        }
        Ok(DataType::Binary)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let kind = literal_text(&args, 0, "the model kind")?;
        let params = literal_text(&args, 1, "the parameters")?;
        let gather = gatherer(&kind, &params).map_err(external)?;
        let columns = &args.expr_fields[2..];
        let needed = if gather.supervised() { 2 } else { 1 };
        if columns.len() < needed {
            return plan_err!(
                "margin_fit('{kind}', …) takes {} and at least one feature column",
                if gather.supervised() {
                    "a label column"
                } else {
                    "no label column"
                }
            );
        }
        if let Some(sparse) = columns
            .iter()
            .find(|f| matches!(f.data_type(), DataType::List(_) | DataType::LargeList(_)))
        {
            // A sparse batch's width is its largest index + 1, which differs between batches.
            return plan_err!(
                "margin_fit does not take the sparse column `{}` yet: give the features as numeric columns or one FixedSizeList column",
                sparse.name()
            );
        }
        let columns = ArgColumns::new(columns, 3, gather.supervised());
        Ok(Box::new(FitAccumulator {
            gather,
            columns,
            rows: 0,
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format_state_name(args.name, "rows"),
                DataType::UInt64,
                true,
            )),
            Arc::new(Field::new(
                format_state_name(args.name, "stats"),
                DataType::Binary,
                true,
            )),
        ])
    }
}

/// One group's (or partition's) statistics.
#[derive(Debug)]
struct FitAccumulator {
    gather: Box<dyn Gather>,
    /// The label's (when supervised) and the features' columns.
    columns: ArgColumns,
    /// Rows gathered, here and in the states merged.
    rows: u64,
}

impl Accumulator for FitAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let columns = &values[2..];
        let n = columns.first().map_or(0, |c| c.len());
        if n == 0 {
            return Ok(());
        }
        let data = self.columns.dataset(self.columns.batch(columns)?)?;
        self.gather.update(&data).map_err(external)?;
        self.rows += n as u64;
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        if self.rows == 0 {
            return Ok(ScalarValue::Binary(None));
        }
        let bytes = self.gather.model_file().map_err(external)?;
        Ok(ScalarValue::Binary(Some(bytes)))
    }

    fn size(&self) -> usize {
        // The statistics are numbers and counts: their encoding's length measures them.
        std::mem::size_of_val(self) + self.gather.encoded_len()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let stats = self.gather.encode().map_err(external)?;
        Ok(vec![
            ScalarValue::UInt64(Some(self.rows)),
            ScalarValue::Binary(Some(stats)),
        ])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let [rows, stats] = states else {
            return Err(DataFusionError::Internal(format!(
                "margin_fit's state has two columns, got {}",
                states.len()
            )));
        };
        let rows = rows.as_primitive::<UInt64Type>();
        let stats = stats.as_binary::<i32>();
        for i in 0..stats.len() {
            if stats.is_null(i) {
                continue;
            }
            self.gather
                .merge_encoded(stats.value(i))
                .map_err(external)?;
            self.rows += rows.value(i);
        }
        Ok(())
    }
}
