//! The scoring functions against the models' own methods on the same rows.

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, FixedSizeListArray, Float64Array, StringArray,
};
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::prelude::SessionContext;
use margin_cluster::{KMeans, NComponents, Pca};
use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Fit, Label, Predict, PredictProba, Records, Transform,
};
use margin_io::ModelFile;
use margin_linear::Ridge;
use margin_linear::naive_bayes::GaussianNB;
use margin_preprocessing::StandardScaler;
use margin_svm::Svc;

use crate::{Table, block_on, dense, session_with_models};

/// `SELECT expr FROM table ORDER BY id`: the one column, in the dataset's row order.
async fn column(table: &Table, expr: &str) -> ArrayRef {
    let sql = format!("SELECT {expr} FROM {} ORDER BY id", table.name);
    one_column(&table.ctx, &sql).await.unwrap()
}

/// The first column of `sql`'s result, its batches concatenated.
async fn one_column(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<ArrayRef> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(0).as_ref()).collect();
    Ok(concat(&parts)?)
}

/// A column of numbers.
fn numbers(a: &ArrayRef) -> Vec<f64> {
    assert_eq!(a.data_type(), &DataType::Float64);
    a.as_primitive::<Float64Type>().values().to_vec()
}

/// A column of fixed-size lists as the matrix of its rows.
fn rows(a: &ArrayRef, width: usize) -> Vec<f64> {
    let list: &FixedSizeListArray = a.as_fixed_size_list();
    assert_eq!(list.value_length() as usize, width);
    numbers(list.values())
}

fn label_values(labels: &[Label]) -> Vec<f64> {
    labels
        .iter()
        .map(|l| match l {
            Label::Number(x) => *x,
            Label::Text(t) => panic!("a text label {t}"),
        })
        .collect()
}

/// `bytes` as an SQL binary literal.
fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!("X'{digits}'")
}

#[test]
fn classifiers_score_as_in_memory() {
    let data = dense(&margin_io::datasets::heart_scale().unwrap());
    let x = &data.records;
    let svc = Svc::params().fit(&data).unwrap();
    let nb = GaussianNB::params().fit(&data).unwrap();
    block_on(async {
        let table = Table::new("heart", &data, 3).await;
        let f = &table.features;
        table
            .models
            .insert("svc", &svc.to_bytes().unwrap())
            .unwrap();

        // By name: classes as numbers (every class is one), decision values of a binary
        // problem as one number per row.
        let predicted = column(&table, &format!("margin_predict('svc', {f})")).await;
        assert_eq!(numbers(&predicted), label_values(&svc.predict(x).unwrap()));
        let decision = column(&table, &format!("margin_decision_function('svc', {f})")).await;
        assert_eq!(
            numbers(&decision),
            svc.decision_function(x).unwrap().as_slice()
        );

        // By bytes, as an SQL literal: probabilities in the model's class order.
        let nb_bytes = hex(&nb.to_bytes().unwrap());
        let proba = column(&table, &format!("margin_predict_proba({nb_bytes}, {f})")).await;
        assert_eq!(rows(&proba, 2), nb.predict_proba(x).unwrap().as_slice());
        let predicted = column(&table, &format!("margin_predict({nb_bytes}, {f})")).await;
        assert_eq!(numbers(&predicted), label_values(&nb.predict(x).unwrap()));
    });
}

#[test]
fn regressors_clusters_and_transforms_score_as_in_memory() {
    let data = dense(&margin_io::datasets::housing_scale().unwrap());
    let x = &data.records;
    let d = data.n_features();
    let ridge = Ridge::params().alpha(0.5).fit(&data).unwrap();
    let kmeans = KMeans::params().n_clusters(3).seed(5).fit(x).unwrap();
    let pca = Pca::params()
        .n_components(NComponents::Count(2))
        .fit(x)
        .unwrap();
    let scaler = StandardScaler::params().fit(x).unwrap();
    let z = scaler.transform(x).unwrap();
    let scaled = Dataset::new(z.clone(), data.targets.clone()).unwrap();
    let on_scaled = Ridge::params().alpha(2.0).fit(&scaled).unwrap();
    block_on(async {
        let table = Table::new("housing", &data, 4).await;
        let f = &table.features;
        for (name, bytes) in [
            ("ridge", ridge.to_bytes()),
            ("kmeans", kmeans.to_bytes()),
            ("pca", pca.to_bytes()),
            ("scaler", scaler.to_bytes()),
            ("on_scaled", on_scaled.to_bytes()),
        ] {
            table.models.insert(name, &bytes.unwrap()).unwrap();
        }

        let values = column(&table, &format!("margin_predict('ridge', {f})")).await;
        assert_eq!(numbers(&values), ridge.predict(x).unwrap());

        let clusters = column(&table, &format!("margin_predict('kmeans', {f})")).await;
        let expected: Vec<i64> = kmeans
            .predict(x)
            .unwrap()
            .iter()
            .map(|&k| k as i64)
            .collect();
        assert_eq!(
            clusters.as_primitive::<Int64Type>().values().to_vec(),
            expected
        );
        let distances = column(&table, &format!("margin_transform('kmeans', {f})")).await;
        assert_eq!(rows(&distances, 3), dense_of(kmeans.transform(x).unwrap()));

        let projected = column(&table, &format!("margin_transform('pca', {f})")).await;
        assert_eq!(rows(&projected, 2), dense_of(pca.transform(x).unwrap()));

        // A transform's list feeds the next model as its features.
        let z_sql = column(&table, &format!("margin_transform('scaler', {f})")).await;
        assert_eq!(rows(&z_sql, d), dense_of(z.clone()));
        let chained = column(
            &table,
            &format!("margin_predict('on_scaled', margin_transform('scaler', {f}))"),
        )
        .await;
        assert_eq!(numbers(&chained), on_scaled.predict(&z).unwrap());
    });
}

fn dense_of(m: margin_core::Matrix) -> Vec<f64> {
    m.to_dense().unwrap().as_slice().to_vec()
}

/// A Gaussian naive Bayes with text labels, registered as `nb` in a fresh session.
fn text_session() -> SessionContext {
    let x =
        DenseMatrix::from_row_major(vec![0.0, 0.1, 0.2, 0.0, 4.0, 4.1, 4.2, 3.9], 4, 2).unwrap();
    let data = Dataset::classification(x, ["near", "near", "far", "far"]).unwrap();
    let nb = GaussianNB::params().fit(&data).unwrap();
    let (ctx, models) = session_with_models();
    models.insert("nb", &nb.to_bytes().unwrap()).unwrap();
    ctx
}

#[test]
fn text_labels_come_back_as_text_and_null_rows_score_null() {
    let ctx = text_session();
    block_on(async {
        let predicted = one_column(
            &ctx,
            "SELECT margin_predict('nb', a, b) FROM (VALUES
                (1, 0.0, 0.1), (2, CAST(NULL AS DOUBLE), 1.0), (3, 4.0, 4.1), (4, 0.3, NULL)
             ) AS t(id, a, b) ORDER BY id",
        )
        .await
        .unwrap();
        let text: &StringArray = predicted.as_string();
        let got: Vec<Option<&str>> = text.iter().collect();
        assert_eq!(got, [Some("near"), None, Some("far"), None]);

        // Integer columns are features too.
        let proba = one_column(
            &ctx,
            "SELECT margin_predict_proba('nb', a, b) FROM (VALUES (0, 0), (4, 4)) AS t(a, b)",
        )
        .await
        .unwrap();
        let p = proba.as_fixed_size_list();
        assert_eq!(p.len(), 2);
        let first = p.value(0);
        let first: &Float64Array = first.as_primitive();
        assert!((first.values().iter().sum::<f64>() - 1.0).abs() < 1e-12);
    });
}

#[test]
fn bad_calls_are_refused_with_what_to_do() {
    let ctx = text_session();
    block_on(async {
        let from = "FROM (VALUES (1.0, 2.0, 'x')) AS t(a, b, s)";
        let cases = [
            (
                format!("SELECT margin_predict('nope', a, b) {from}"),
                vec!["no model is registered as `nope`", "registered: nb"],
            ),
            (
                format!("SELECT margin_predict('nb', a, b, a) {from}"),
                vec!["takes 2 features, and 3 were given"],
            ),
            (
                format!("SELECT margin_transform('nb', a, b) {from}"),
                vec!["has no transform"],
            ),
            (
                format!("SELECT margin_predict(s, a, b) {from}"),
                vec!["must be a literal"],
            ),
            (
                format!("SELECT margin_predict(X'00', a, b) {from}"),
                vec!["model file"],
            ),
            (
                format!("SELECT margin_predict('nb', a, s) {from}"),
                vec!["feature `s`", "not a number"],
            ),
            (
                format!("SELECT margin_predict('nb') {from}"),
                vec!["at least one feature"],
            ),
        ];
        for (sql, needles) in cases {
            let message = match one_column(&ctx, &sql).await {
                Ok(a) => panic!("{sql} gave {a:?}"),
                Err(e) => e.to_string(),
            };
            for needle in needles {
                assert!(message.contains(needle), "{sql}: {message}");
            }
        }
    });
}
