//! Iterative fits driven from the client against the in-memory fits.

use margin_core::{Dataset, Fit};
use margin_datafusion::fit_logistic_regression;
use margin_linear::{LogisticRegression, LogisticRegressionParams};

use crate::{Table, block_on, close, dense, session};

/// The logistic regression `params` fit over `table`'s Parquet files.
async fn fitted(table: &Table, params: &LogisticRegressionParams) -> LogisticRegression {
    let features: Vec<&str> = table.features.split(", ").collect();
    fit_logistic_regression(&table.ctx, table.name, "label", &features, params)
        .await
        .unwrap()
}

fn assert_same(parted: &LogisticRegression, whole: &LogisticRegression) {
    close(parted.coef().as_slice(), whole.coef().as_slice(), 1e-6);
    close(parted.intercept(), whole.intercept(), 1e-6);
    assert_eq!(parted.classes(), whole.classes());
    assert_eq!(parted.hyperparams(), whole.hyperparams());
}

#[test]
fn logistic_regression_is_the_in_memory_fit() {
    let heart = dense(&margin_io::datasets::heart_scale().unwrap());
    let dna = margin_io::datasets::dna().unwrap();
    let dna = dense(&dna.select(&(0..600).collect::<Vec<_>>()).unwrap());
    block_on(async {
        let table = Table::new("heart", &heart, 3).await;
        for params in [
            LogisticRegression::params(),
            LogisticRegression::params().c(0.05).fit_intercept(false),
        ] {
            assert_same(&fitted(&table, &params).await, &params.fit(&heart).unwrap());
        }
        // Three classes: the softmax, one weight vector per class.
        let table = Table::new("dna", &dna, 4).await;
        let params = LogisticRegression::params().c(0.5);
        assert_same(&fitted(&table, &params).await, &params.fit(&dna).unwrap());
    });
}

#[test]
fn logistic_regression_takes_text_labels_and_refuses_what_it_cannot_fit() {
    let ctx = session();
    block_on(async {
        let rows = "(VALUES (0.0, 0.1, 'near'), (0.2, 0.0, 'near'), (0.1, 0.3, 'near'),
                     (4.0, 4.1, 'far'), (4.2, 3.9, 'far'), (3.9, 4.4, 'far')) AS t(a, b, y)";
        let params = LogisticRegression::params();
        let model = fit_logistic_regression(&ctx, rows, "y", &["a", "b"], &params)
            .await
            .unwrap();
        let x = vec![
            vec![0.0, 0.1],
            vec![0.2, 0.0],
            vec![0.1, 0.3],
            vec![4.0, 4.1],
            vec![4.2, 3.9],
            vec![3.9, 4.4],
        ];
        let data =
            Dataset::classification(x, ["near", "near", "near", "far", "far", "far"]).unwrap();
        assert_same(&model, &params.fit(&data).unwrap());

        let refused = |e: datafusion::error::DataFusionError, needle: &str| {
            let message = e.to_string();
            assert!(message.contains(needle), "{message}");
        };
        let newton = LogisticRegression::params().solver(margin_linear::LogisticSolver::Newton);
        let e = fit_logistic_regression(&ctx, rows, "y", &["a", "b"], &newton).await;
        refused(e.unwrap_err(), "lbfgs");
        let e = fit_logistic_regression(&ctx, rows, "y", &["a", "nope"], &params).await;
        refused(e.unwrap_err(), "nope");
        let one = "(VALUES (0.0, 'x'), (1.0, 'x')) AS t(a, y)";
        let e = fit_logistic_regression(&ctx, one, "y", &["a"], &params).await;
        refused(e.unwrap_err(), "two classes");
        let nulls = "(VALUES (0.0, 'x'), (CAST(NULL AS DOUBLE), 'y')) AS t(a, y)";
        let e = fit_logistic_regression(&ctx, nulls, "y", &["a"], &params).await;
        refused(e.unwrap_err(), "null");
    });
}
