//! The scoring functions: `margin_predict`, `margin_predict_proba`,
//! `margin_decision_function` and `margin_transform`, each applying a fitted model to whole
//! batches of feature columns.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, FixedSizeListArray, Float64Array, Int64Array,
    StringArray, UInt32Array, new_null_array,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::{filter_record_batch, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use margin_any::{AnyModel, Predicted};
use margin_core::{DenseMatrix, Label, Matrix};

use crate::columns::ArgColumns;
use crate::external;
use crate::models::Models;

/// What a scoring function asks of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `margin_predict`: a classifier's class (`Float64` when every class is a number, else
    /// `Utf8`), a regressor's value (`Float64`), a cluster or a one-class SVM's ±1 (`Int64`).
    Predict,
    /// `margin_predict_proba`: one probability per class, in the model's class order, as a
    /// `FixedSizeList<Float64>`.
    PredictProba,
    /// `margin_decision_function`: `Float64` for a binary problem, else one value per binary
    /// problem as a `FixedSizeList<Float64>`.
    DecisionFunction,
    /// `margin_transform`: the transformed features, as a `FixedSizeList<Float64>`.
    Transform,
}

impl Method {
    /// The SQL function's name.
    pub fn function_name(self) -> &'static str {
        match self {
            Method::Predict => "margin_predict",
            Method::PredictProba => "margin_predict_proba",
            Method::DecisionFunction => "margin_decision_function",
            Method::Transform => "margin_transform",
        }
    }

    /// The model applied to `x`, as one Arrow column of `x.n_samples()` rows.
    fn apply(self, model: &dyn AnyModel, x: &Matrix) -> margin_core::Result<ArrayRef> {
        Ok(match self {
            Method::Predict => match model.predict(x)? {
                Predicted::Classes(k) => classes_column(model.classes(), &k),
                Predicted::Values(v) => Arc::new(Float64Array::from(v)),
                Predicted::Integers(v) => Arc::new(Int64Array::from(v)),
            },
            Method::PredictProba => vectors(model.predict_proba(x)?)?,
            Method::DecisionFunction => {
                let d = model.decision_function(x)?;
                if d.ncols() == 1 {
                    Arc::new(Float64Array::from(d.as_slice().to_vec()))
                } else {
                    vectors(d)?
                }
            }
            Method::Transform => vectors(model.transform(x)?)?,
        })
    }
}

/// Predicted classes as their labels: numbers when every class of the model is one (so every
/// batch gets the same type), else text.
fn classes_column(classes: &[Label], k: &[i64]) -> ArrayRef {
    let label = |i: &i64| &classes[*i as usize];
    if classes.iter().all(|c| matches!(c, Label::Number(_))) {
        Arc::new(Float64Array::from_iter_values(k.iter().map(
            |i| match label(i) {
                Label::Number(x) => *x,
                Label::Text(_) => f64::NAN,
            },
        )))
    } else {
        Arc::new(StringArray::from_iter_values(
            k.iter().map(|i| label(i).to_string()),
        ))
    }
}

/// A matrix as one fixed-size list of its row per row.
fn vectors(m: DenseMatrix) -> margin_core::Result<ArrayRef> {
    let width = i32::try_from(m.ncols()).map_err(|_| {
        margin_core::Error::unsupported(
            "scoring",
            format!("{} output columns exceed an Arrow list's length", m.ncols()),
        )
    })?;
    let values = Float64Array::from(m.as_slice().to_vec());
    let item = Arc::new(Field::new("item", DataType::Float64, false));
    FixedSizeListArray::try_new(item, width, Arc::new(values), None)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| margin_core::Error::Numerical(e.to_string()))
}

/// A scoring function: `name(model, feature, …)`, the model a registered name or model-file
/// bytes (a literal), the features numeric columns or one `FixedSizeList<Float64>` column, as
/// many as the model was fitted on. A row with a null feature scores null.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MarginScore {
    method: Method,
    models: Models,
    signature: Signature,
}

impl MarginScore {
    /// The function applying `method`, with the models `models` names.
    pub fn new(method: Method, models: Models) -> Self {
        Self {
            method,
            models,
            signature: Signature::variadic_any(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for MarginScore {
    fn name(&self) -> &str {
        self.method.function_name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        // The type depends on the model, which `return_field_from_args` reads.
        plan_err!("{} needs its model argument to find its type", self.name())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let name = self.name();
        if args.arg_fields.len() < 2 {
            return plan_err!(
                "{name}(model, feature, …) takes the model and at least one feature column"
            );
        }
        let Some(Some(value)) = args.scalar_arguments.first() else {
            return plan_err!(
                "{name}'s model must be a literal: a registered name ('prices') or model-file bytes"
            );
        };
        let model = self.models.resolve(name, value)?;
        let features = &args.arg_fields[1..];
        let width = feature_width(name, features)?;
        if width != model.n_features() {
            return plan_err!(
                "{name}: the {} model takes {} features, and {width} were given",
                model.kind(),
                model.n_features()
            );
        }
        // The output's type is what the model gives for one row, whatever the row.
        let probe = Matrix::Dense(
            DenseMatrix::from_row_major(vec![0.0; width], 1, width).map_err(external)?,
        );
        let column = self
            .method
            .apply(model.as_ref(), &probe)
            .map_err(external)?;
        Ok(Arc::new(Field::new(name, column.data_type().clone(), true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let name = self.name();
        let ColumnarValue::Scalar(value) = &args.args[0] else {
            return plan_err!("{name}'s model must be a literal");
        };
        let model = self.models.resolve(name, value)?;
        let n = args.number_rows;
        let columns = args.args[1..]
            .iter()
            .map(|c| c.to_array(n))
            .collect::<Result<Vec<_>>>()?;
        let output = args.return_field.data_type();
        let features = ArgColumns::new(&args.arg_fields[1..], 2, false);
        let batch = features.batch(&columns)?;
        let valid = complete_rows(batch.columns());
        let (batch, positions) = match &valid {
            Some(valid) if valid.null_count() == n => {
                return Ok(ColumnarValue::Array(new_null_array(output, n)));
            }
            Some(valid) => (
                filter_record_batch(&batch, &BooleanArray::from(valid.inner().clone()))?,
                Some(positions(valid)),
            ),
            None if n == 0 => return Ok(ColumnarValue::Array(new_null_array(output, 0))),
            None => (batch, None),
        };
        let x = features.dataset(batch)?.records;
        let scored = self.method.apply(model.as_ref(), &x).map_err(external)?;
        Ok(ColumnarValue::Array(match positions {
            Some(positions) => take(&scored, &positions, None)?,
            None => scored,
        }))
    }
}

/// How many features the argument columns hold: one per numeric column, or a fixed-size
/// list's length.
fn feature_width(name: &str, fields: &[FieldRef]) -> Result<usize> {
    if let [one] = fields {
        match one.data_type() {
            DataType::FixedSizeList(_, n) => return Ok(*n as usize),
            DataType::List(_) | DataType::LargeList(_) => {
                return plan_err!(
                    "{name} does not take the variable-length list `{}`: give numeric columns or one FixedSizeList column",
                    one.name()
                );
            }
            _ => {}
        }
    }
    for f in fields {
        if !f.data_type().is_numeric() {
            return plan_err!(
                "{name}'s feature `{}` is {}, not a number",
                f.name(),
                f.data_type()
            );
        }
    }
    Ok(fields.len())
}

/// The rows with no null feature (a list row counts as null when any of its values is), or
/// `None` when every row is complete.
fn complete_rows(columns: &[ArrayRef]) -> Option<NullBuffer> {
    let mut valid: Option<NullBuffer> = None;
    for column in columns {
        let mut nulls = column.logical_nulls();
        if let Some(list) = column.as_fixed_size_list_opt()
            && let Some(inner) = list.values().logical_nulls()
        {
            let width = list.value_length() as usize;
            let rows: NullBuffer = (0..list.len())
                .map(|i| (i * width..(i + 1) * width).all(|j| inner.is_valid(j)))
                .collect();
            nulls = NullBuffer::union(nulls.as_ref(), Some(&rows));
        }
        valid = NullBuffer::union(valid.as_ref(), nulls.as_ref());
    }
    valid.filter(|v| v.null_count() > 0)
}

/// For each row, its position among the complete rows, or null.
fn positions(valid: &NullBuffer) -> UInt32Array {
    let mut next = 0u32;
    UInt32Array::from_iter((0..valid.len()).map(|i| {
        valid.is_valid(i).then(|| {
            next += 1;
            next - 1
        })
    }))
}
