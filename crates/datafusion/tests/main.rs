//! margin-datafusion's functions through DataFusion, one test binary: real datasets written as
//! several Parquet files, read by a session with four partitions.
//!
//! - `fit`: `margin_fit` compared with the in-memory fit on the same rows (least squares,
//!   ridge, Gaussian naive Bayes and PCA to 1e-10 relative; counts and ranges exactly); one
//!   model per group; and what the function refuses.
//! - `boosting`: histogram gradient boosting driven from the client against the in-memory
//!   fits (the same edges, predictions to 1e-9); what it refuses.
//! - `distributed`: `fit_distributed` by kind on a query's rows; what it refuses.
//! - `iterate`: the fits a client loop drives (logistic regression, k-means) against the
//!   in-memory fits, to the solver's tolerance or to rounding from the same start.
//! - `svm`: the kernel SVM as a cascade over the partitions against the in-memory fit (the
//!   same dual objective to the solver's tolerance); what it refuses.
//! - `score`: the scoring functions compared with the model's own methods on the same rows
//!   (the same bits); null rows; models by name and by bytes; chained transforms; refusals.

mod boosting;
mod distributed;
mod fit;
mod iterate;
mod score;
mod svm;

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use margin_core::{Dataset, Records};
use margin_datafusion::Models;
use margin_io::table::{batch_from_dataset, write_parquet};

/// A session with four partitions and margin's functions, with the models they know by name.
pub(crate) fn session_with_models() -> (SessionContext, Models) {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    let models = margin_datafusion::register(&ctx);
    (ctx, models)
}

/// A session with four partitions and margin's functions.
pub(crate) fn session() -> SessionContext {
    session_with_models().0
}

pub(crate) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// `data` with dense records.
pub(crate) fn dense(data: &Dataset) -> Dataset {
    Dataset::new(data.records.to_dense().unwrap(), data.targets.clone()).unwrap()
}

/// `batch` with an `id` column first: each row's index in the whole dataset.
fn with_ids(batch: RecordBatch, rows: &[usize]) -> RecordBatch {
    let mut fields = vec![Arc::new(Field::new("id", DataType::UInt64, false))];
    fields.extend(batch.schema().fields().iter().cloned());
    let mut columns: Vec<ArrayRef> = vec![Arc::new(UInt64Array::from_iter_values(
        rows.iter().map(|&i| i as u64),
    ))];
    columns.extend(batch.columns().iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// A dataset written as Parquet files in a temporary directory, registered in a session as a
/// table (an `id` column first, each row's index), with the columns `margin_fit` is given.
pub(crate) struct Table {
    pub(crate) ctx: SessionContext,
    pub(crate) name: &'static str,
    /// The feature columns, comma-separated.
    pub(crate) features: String,
    /// The models the session's scoring functions know by name.
    pub(crate) models: Models,
    _dir: tempfile::TempDir,
}

impl Table {
    /// `data` (dense) as `files` Parquet files of consecutive rows, registered as table `name`
    /// in a [`session`].
    pub(crate) async fn new(name: &'static str, data: &Dataset, files: usize) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let n = data.n_samples();
        let mut features = Vec::new();
        for k in 0..files {
            let rows: Vec<usize> = (k * n / files..(k + 1) * n / files).collect();
            let batch = with_ids(
                batch_from_dataset(&data.select(&rows).unwrap()).unwrap(),
                &rows,
            );
            features = batch
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .filter(|f| f != "label" && f != "id")
                .collect();
            write_parquet(&dir.path().join(format!("part-{k}.parquet")), &batch).unwrap();
        }
        let (ctx, models) = session_with_models();
        let path = dir.path().to_str().unwrap();
        ctx.register_parquet(name, path, ParquetReadOptions::default())
            .await
            .unwrap();
        Table {
            ctx,
            name,
            features: features.join(", "),
            models,
            _dir: dir,
        }
    }

    /// The model file `margin_fit(kind, params, [label,] features…)` gives over the whole
    /// table, the label first when `supervised`.
    pub(crate) async fn fit(&self, kind: &str, params: &str, supervised: bool) -> Vec<u8> {
        let label = if supervised { "label, " } else { "" };
        let sql = format!(
            "SELECT margin_fit('{kind}', '{params}', {label}{}) FROM {}",
            self.features, self.name
        );
        fitted(&self.ctx, &sql).await.unwrap().unwrap()
    }
}

/// The first row's first column of `sql`'s result, as model-file bytes (`None` for NULL).
pub(crate) async fn fitted(
    ctx: &SessionContext,
    sql: &str,
) -> datafusion::error::Result<Option<Vec<u8>>> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let column = batches[0].column(0);
    let bytes = column.as_any().downcast_ref::<BinaryArray>().unwrap();
    Ok((!bytes.is_null(0)).then(|| bytes.value(0).to_vec()))
}

/// Two clusters of labelled points, the first point repeated `repeat` more times: as an SQL
/// table `t(a, b, y)` and as the dataset of the same rows.
pub(crate) fn near_and_far(repeat: usize) -> (String, Dataset) {
    let points = [
        (0.0, 0.1, "near"),
        (0.2, 0.0, "near"),
        (0.1, 0.3, "near"),
        (4.0, 4.1, "far"),
        (4.2, 3.9, "far"),
        (3.9, 4.4, "far"),
    ];
    let rows: Vec<_> = std::iter::repeat_n(points[0], repeat)
        .chain(points)
        .collect();
    let values: Vec<String> = rows
        .iter()
        .map(|(a, b, y)| format!("({a:?}, {b:?}, '{y}')"))
        .collect();
    let table = format!("(VALUES {}) AS t(a, b, y)", values.join(", "));
    let x: Vec<Vec<f64>> = rows.iter().map(|&(a, b, _)| vec![a, b]).collect();
    let data = Dataset::classification(x, rows.iter().map(|r| r.2)).unwrap();
    (table, data)
}

pub(crate) fn close(a: &[f64], b: &[f64], tol: f64) {
    let scale = 1.0 + b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * scale, "{a:?}\nvs {b:?}");
    }
}
