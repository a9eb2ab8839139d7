//! `margin_fit` against the in-memory fits.

use datafusion::arrow::array::{Array, BinaryArray};
use margin_cluster::Pca;
use margin_core::{Fit, Matrix};
use margin_io::ModelFile;
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB};
use margin_linear::{LinearRegression, Ridge};
use margin_preprocessing::{MinMaxScaler, StandardScaler};

use crate::{Table, block_on, close, dense, fitted, session};

#[test]
fn regression_models_match_the_in_memory_fit() {
    let data = dense(&margin_io::datasets::housing_scale().unwrap());
    block_on(async {
        let table = Table::new("housing", &data, 5).await;
        let bytes = table.fit("ridge", "alpha=0.5", true).await;
        let (model, whole) = (
            Ridge::from_bytes(&bytes).unwrap(),
            Ridge::params().alpha(0.5).fit(&data).unwrap(),
        );
        close(model.coef().row(0), whole.coef().row(0), 1e-10);
        close(model.intercept(), whole.intercept(), 1e-10);
        assert_eq!(model.hyperparams(), whole.hyperparams());

        for params in ["", "solver=svd fit_intercept=false"] {
            let bytes = table.fit("linear-regression", params, true).await;
            let model = LinearRegression::from_bytes(&bytes).unwrap();
            let whole = model.hyperparams().fit(&data).unwrap();
            close(model.coef().row(0), whole.coef().row(0), 1e-10);
            close(model.intercept(), whole.intercept(), 1e-10);
            close(&[model.rss()], &[whole.rss()], 1e-10);
            close(
                &model.coef_standard_errors().unwrap(),
                &whole.coef_standard_errors().unwrap(),
                1e-9,
            );
        }
    });
}

#[test]
fn naive_bayes_matches_the_in_memory_fit() {
    let data = dense(&margin_io::datasets::heart_scale().unwrap());
    block_on(async {
        let table = Table::new("heart", &data, 3).await;
        let bytes = table.fit("gaussian-nb", "", true).await;
        let (model, whole) = (
            GaussianNB::from_bytes(&bytes).unwrap(),
            GaussianNB::params().fit(&data).unwrap(),
        );
        assert_eq!(model.classes(), whole.classes());
        assert_eq!(model.class_count(), whole.class_count());
        close(model.theta().as_slice(), whole.theta().as_slice(), 1e-10);
        close(model.var().as_slice(), whole.var().as_slice(), 1e-10);

        // Counts of 0/1 presences: exact whatever the order of the partitions.
        let bytes = table
            .fit("bernoulli-nb", "binarize=0.0 alpha=0.5", true)
            .await;
        let whole = BernoulliNB::params()
            .binarize(Some(0.0))
            .alpha(0.5)
            .fit(&data)
            .unwrap();
        assert_eq!(BernoulliNB::from_bytes(&bytes).unwrap(), whole);
    });
}

#[test]
fn transformers_match_the_in_memory_fit() {
    let data = dense(&margin_io::datasets::housing_scale().unwrap());
    let x: &Matrix = &data.records;
    block_on(async {
        let table = Table::new("housing", &data, 4).await;
        let bytes = table.fit("pca", "n_components=3", false).await;
        let model = Pca::from_bytes(&bytes).unwrap();
        let whole = model
            .hyperparams()
            .clone()
            .svd_solver(margin_cluster::SvdSolver::Full)
            .fit(x)
            .unwrap();
        close(model.mean(), whole.mean(), 1e-12);
        close(
            model.explained_variance(),
            whole.explained_variance(),
            1e-10,
        );
        close(
            model.components().as_slice(),
            whole.components().as_slice(),
            1e-8,
        );

        let bytes = table.fit("standard-scaler", "", false).await;
        let (model, whole) = (
            StandardScaler::from_bytes(&bytes).unwrap(),
            StandardScaler::params().fit(x).unwrap(),
        );
        close(model.mean(), whole.mean(), 1e-12);
        close(&model.variance(), &whole.variance(), 1e-10);

        let bytes = table.fit("min-max-scaler", "", false).await;
        assert_eq!(
            MinMaxScaler::from_bytes(&bytes).unwrap(),
            MinMaxScaler::params().fit(x).unwrap()
        );
    });
}

/// `GROUP BY` fits one model per group: here a scaler per class of heart_scale.
#[test]
fn one_model_per_group() {
    let data = dense(&margin_io::datasets::heart_scale().unwrap());
    block_on(async {
        let table = Table::new("heart", &data, 3).await;
        let sql = format!(
            "SELECT label, margin_fit('standard-scaler', '', {}) FROM heart GROUP BY label ORDER BY label",
            table.features
        );
        let batches = table.ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let models = batches[0]
            .column(1)
            .as_any()
            .downcast_ref::<BinaryArray>()
            .unwrap();
        assert_eq!(models.len(), 2);
        let labels = data.targets.values().unwrap();
        for (g, class) in [-1.0, 1.0].into_iter().enumerate() {
            let rows: Vec<usize> = (0..data.n_samples())
                .filter(|&i| labels[i] == class)
                .collect();
            let whole = StandardScaler::params()
                .fit(&data.select(&rows).unwrap().records)
                .unwrap();
            let model = StandardScaler::from_bytes(models.value(g)).unwrap();
            assert_eq!(model.n_samples_seen(), rows.len());
            close(model.mean(), whole.mean(), 1e-12);
        }
    });
}

#[test]
fn bad_calls_are_refused_with_what_to_do() {
    block_on(async {
        let ctx = session();
        let values = "(VALUES (1.0, 2.0, 3.0), (2.0, 1.0, 4.0), (3.0, 5.0, 1.0)) AS t(a, b, y)";
        let error = |sql: String| {
            let ctx = &ctx;
            async move {
                match fitted(ctx, &sql).await {
                    Ok(_) => panic!("`{sql}` was not refused"),
                    Err(e) => e.to_string(),
                }
            }
        };
        let e = error(format!(
            "SELECT margin_fit('svm', '', y, a, b) FROM {values}"
        ))
        .await;
        assert!(e.contains("kind") && e.contains("ridge"), "{e}");
        let e = error(format!(
            "SELECT margin_fit('ridge', 'alpha=-1', y, a, b) FROM {values}"
        ))
        .await;
        assert!(e.contains("alpha"), "{e}");
        let e = error(format!(
            "SELECT margin_fit('ridge', 'alpha', y, a, b) FROM {values}"
        ))
        .await;
        assert!(e.contains("name=value"), "{e}");
        // A constant expression folds into a literal; one that reads a column does not.
        let e = error(format!(
            "SELECT margin_fit(CAST(a AS VARCHAR), '', y, a, b) FROM {values}"
        ))
        .await;
        assert!(e.contains("literal"), "{e}");
        let e = error(format!("SELECT margin_fit('ridge', '', y) FROM {values}")).await;
        assert!(e.contains("at least"), "{e}");
        // Nulls, named by their column: in the label, and in a feature.
        let sql = |rows: &str| {
            format!("SELECT margin_fit('ridge', '', y, a) FROM (VALUES {rows}) AS t(a, y)")
        };
        let e = error(sql("(1.0, 2.0), (2.0, NULL)")).await;
        assert!(
            e.contains("column `y`") && e.contains("label is null"),
            "{e}"
        );
        let e = error(sql("(1.0, 2.0), (NULL, 3.0)")).await;
        assert!(e.contains("column `a`") && e.contains("is null"), "{e}");
        // No rows: NULL, as SQL's aggregates give.
        let none = fitted(
            &ctx,
            &format!("SELECT margin_fit('ridge', '', y, a, b) FROM {values} WHERE a > 10"),
        )
        .await
        .unwrap();
        assert_eq!(none, None);
    });
}
