//! A function's column arguments as the table `margin_io` reads: the label (for a supervised
//! function) and the features, under the arguments' own names.

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use margin_core::Dataset;
use margin_io::table::dataset_from_batches;
use margin_io::{LabelColumn, Nulls, TableColumns};

use crate::external;

/// The column arguments' schema, and which column is the label and which are features.
#[derive(Debug)]
pub(crate) struct ArgColumns {
    schema: SchemaRef,
    table: TableColumns,
}

impl ArgColumns {
    /// The arguments `fields`, the first of which is argument number `first` (1-based) of the
    /// call, the label first when `supervised`. Errors name the query's columns; one named
    /// twice gets its position appended.
    pub(crate) fn new(fields: &[FieldRef], first: usize, supervised: bool) -> Self {
        let mut names: Vec<String> = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let name = field.name().clone();
            names.push(if names.contains(&name) {
                format!("{name}#{}", i + first)
            } else {
                name
            });
        }
        let table = TableColumns {
            label: match (supervised, names.first()) {
                (true, Some(label)) => LabelColumn::Name(label.clone()),
                _ => LabelColumn::None,
            },
            features: Some(names[usize::from(supervised).min(names.len())..].to_vec()),
            nulls: Nulls::Refuse,
        };
        let schema = Arc::new(Schema::new(
            names
                .into_iter()
                .zip(fields)
                .map(|(name, f)| Field::new(name, f.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        Self { schema, table }
    }

    /// The arguments' values as a batch.
    pub(crate) fn batch(&self, columns: &[ArrayRef]) -> Result<RecordBatch> {
        Ok(RecordBatch::try_new(self.schema.clone(), columns.to_vec())?)
    }

    /// A batch of these columns as a dataset (a null label or feature refused, naming its
    /// column).
    pub(crate) fn dataset(&self, batch: RecordBatch) -> Result<Dataset> {
        dataset_from_batches(&self.schema, [batch], &self.table).map_err(external)
    }
}
