//! [`fit_distributed`]: one entry for every fit margin runs on DataFusion, on the rows of a
//! query, wherever the session runs its plans (in this process or on a Ballista cluster).

use datafusion::arrow::array::{Array, BinaryArray};
use datafusion::common::{Result, plan_err};
use datafusion::prelude::SessionContext;
use margin_cluster::KMeans;
use margin_io::ModelFile;
use margin_linear::LogisticRegression;
use margin_svm::{LinearSvc, Svc};
use margin_tree::{GradientBoostingClassifier, GradientBoostingRegressor};

use crate::gather::{KINDS, configured};
use crate::{
    external, fit_gradient_boosting_classifier, fit_gradient_boosting_regressor, fit_kmeans,
    fit_linear_svc, fit_logistic_regression, fit_svc,
};

/// The kinds fitted one query per solver step, with whether each takes a label.
pub const STEPPED_KINDS: [(&str, bool); 6] = [
    (LogisticRegression::KIND, true),
    (LinearSvc::KIND, true),
    (Svc::KIND, true),
    (KMeans::KIND, false),
    (GradientBoostingRegressor::KIND, true),
    (GradientBoostingClassifier::KIND, true),
];

/// Fits a `kind` model with `params` on the rows of `query`, and returns its model file (the
/// bytes `Model::from_bytes`, `margin_any::load` and `margin predict` read).
///
/// - `query` is any `SELECT` the session can run, typically over a registered Parquet table:
///   `label` names its label column (for the kinds that take one, `None` for the others), and
///   every other column is a feature, in the query's order.
/// - `kind` is a model-file kind: those `margin_fit` fits in one pass ([`KINDS`]: least
///   squares, ridge, the naive Bayes models, PCA, the scalers) or those fitted one query per
///   solver step ([`STEPPED_KINDS`]: logistic regression, the linear SVM, the kernel SVM (a
///   cascade), k-means, histogram gradient boosting).
/// - `params` are `name=value` pairs separated by spaces, as `margin train` takes them
///   (`"alpha=0.5"`, `""` for the defaults).
///
/// The plans run wherever `ctx` runs them: in this process, or on the executors of a Ballista
/// cluster (`margin_ballista::connect`), which then read the table's files themselves.
pub async fn fit_distributed(
    ctx: &SessionContext,
    query: &str,
    kind: &str,
    params: &str,
    label: Option<&str>,
) -> Result<Vec<u8>> {
    let supervised = KINDS
        .iter()
        .chain(&STEPPED_KINDS)
        .find(|(k, _)| *k == kind)
        .map(|&(_, supervised)| supervised);
    let Some(supervised) = supervised else {
        let known: Vec<&str> = KINDS
            .iter()
            .chain(&STEPPED_KINDS)
            .map(|(k, _)| *k)
            .collect();
        return plan_err!(
            "fit_distributed cannot fit '{kind}': the kinds are {}",
            known.join(", ")
        );
    };
    let label = match (supervised, label) {
        (true, Some(label)) => Some(quoted(label)),
        (false, None) => None,
        (true, None) => return plan_err!("'{kind}' takes a label column: name it"),
        (false, Some(label)) => {
            return plan_err!("'{kind}' takes no label, but `{label}` was named as one");
        }
    };
    let schema = ctx.sql(query).await?.schema().clone();
    let features: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| quoted(f.name()))
        .filter(|name| Some(name) != label.as_ref())
        .collect();
    if let Some(label) = label
        .as_ref()
        .filter(|_| features.len() == schema.fields().len())
    {
        return plan_err!("the query has no column {label} to take as the label");
    }
    if features.is_empty() {
        return plan_err!("the query has no feature column: select at least one");
    }
    let table = format!("({query}) AS margin_rows");
    let features: Vec<&str> = features.iter().map(String::as_str).collect();
    let label = label.as_deref();
    let needs_label = || label.unwrap_or_default();
    match kind {
        k if k == LogisticRegression::KIND => {
            let params = configured(LogisticRegression::params(), params).map_err(external)?;
            let model = fit_logistic_regression(ctx, &table, needs_label(), &features, &params);
            model.await?.to_bytes().map_err(external)
        }
        k if k == LinearSvc::KIND => {
            let params = configured(LinearSvc::params(), params).map_err(external)?;
            let model = fit_linear_svc(ctx, &table, needs_label(), &features, &params);
            model.await?.to_bytes().map_err(external)
        }
        k if k == Svc::KIND => {
            let params = configured(Svc::params(), params).map_err(external)?;
            let fit = fit_svc(ctx, &table, needs_label(), &features, &params);
            fit.await?.model.to_bytes().map_err(external)
        }
        k if k == KMeans::KIND => {
            let params = configured(KMeans::params(), params).map_err(external)?;
            let model = fit_kmeans(ctx, &table, &features, &params);
            model.await?.to_bytes().map_err(external)
        }
        k if k == GradientBoostingRegressor::KIND => {
            let params = configured(GradientBoostingRegressor::params(), params);
            let params = params.map_err(external)?;
            let model =
                fit_gradient_boosting_regressor(ctx, &table, needs_label(), &features, &params);
            model.await?.to_bytes().map_err(external)
        }
        k if k == GradientBoostingClassifier::KIND => {
            let params = configured(GradientBoostingClassifier::params(), params);
            let params = params.map_err(external)?;
            let model =
                fit_gradient_boosting_classifier(ctx, &table, needs_label(), &features, &params);
            model.await?.to_bytes().map_err(external)
        }
        _ => {
            let columns: Vec<&str> = label.into_iter().chain(features).collect();
            let sql = format!(
                "SELECT margin_fit('{kind}', '{}', {}) FROM {table}",
                params.replace('\'', "''"),
                columns.join(", ")
            );
            let batches = ctx.sql(&sql).await?.collect().await?;
            let column = batches.first().map(|b| b.column(0).clone());
            let bytes = column
                .as_ref()
                .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
                .filter(|c| !c.is_empty() && !c.is_null(0))
                .map(|c| c.value(0).to_vec());
            match bytes {
                Some(bytes) => Ok(bytes),
                None => plan_err!("the query gave no rows to fit '{kind}' on"),
            }
        }
    }
}

/// `name` as an SQL identifier, taken as it is written (case kept).
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
