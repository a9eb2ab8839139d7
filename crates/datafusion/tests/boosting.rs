//! Histogram gradient boosting driven from the client against the in-memory fits.

use margin_core::{Dataset, DecisionFunction, DenseMatrix, Fit, Predict};
use margin_datafusion::{fit_gradient_boosting_classifier, fit_gradient_boosting_regressor};
use margin_tree::{
    EarlyStopping, GradientBoostingClassifier, GradientBoostingClassifierParams,
    GradientBoostingRegressor,
};

use crate::{Table, block_on, close};

/// 800 rows of 4 continuous features (every seventh row's third feature missing), a target
/// and a three-class label from them. Continuous values, so that no two candidate splits
/// tie: a tie could go either way once the partitions' sums round differently.
fn rows() -> (Vec<Vec<f64>>, Vec<f64>, Vec<&'static str>) {
    let x: Vec<Vec<f64>> = (0..800)
        .map(|i| {
            let t = i as f64;
            (0..4)
                .map(|j| {
                    if j == 2 && i % 7 == 0 {
                        f64::NAN
                    } else {
                        (t * (0.37 + 0.11 * j as f64) + j as f64).sin() * 2.0
                    }
                })
                .collect()
        })
        .collect();
    let y = x
        .iter()
        .map(|r| r[0].sin() + r[1] * r[1] + 0.3 * r[3])
        .collect();
    let labels = x
        .iter()
        .map(|r| match r[0] + 0.5 * r[1] - 0.25 * r[3] {
            _ if r[2].is_nan() => "gap",
            s if s < 0.3 => "low",
            _ => "high",
        })
        .collect();
    (x, y, labels)
}

fn features(table: &Table) -> Vec<&str> {
    table.features.split(", ").collect()
}

#[test]
fn boosting_is_the_in_memory_fit_to_rounding() {
    let (x, y, labels) = rows();
    let regression = Dataset::regression(&x, y).unwrap();
    let classes = Dataset::classification(&x, labels).unwrap();
    let x = DenseMatrix::from_rows(&x).unwrap();
    block_on(async {
        let table = Table::new("targets", &regression, 3).await;
        let params = GradientBoostingRegressor::params()
            .max_iter(10)
            .max_leaf_nodes(Some(15))
            .min_samples_leaf(10)
            .early_stopping(EarlyStopping::Off);
        let whole = params.fit(&regression).unwrap();
        let parted = fit_gradient_boosting_regressor(
            &table.ctx,
            table.name,
            "label",
            &features(&table),
            &params,
        )
        .await
        .unwrap();
        assert_eq!(parted.hyperparams(), whole.hyperparams());
        for j in 0..4 {
            assert_eq!(parted.bin_edges(j), whole.bin_edges(j));
        }
        close(
            &parted.predict(&x).unwrap(),
            &whole.predict(&x).unwrap(),
            1e-9,
        );

        // Three classes named by text: one tree per class and iteration.
        let table = Table::new("classes", &classes, 4).await;
        let params = GradientBoostingClassifier::params()
            .max_iter(8)
            .max_depth(Some(4))
            .early_stopping(EarlyStopping::Off);
        let whole = params.fit(&classes).unwrap();
        let parted = fit_gradient_boosting_classifier(
            &table.ctx,
            table.name,
            "label",
            &features(&table),
            &params,
        )
        .await
        .unwrap();
        assert_eq!(parted.classes(), whole.classes());
        assert_eq!(parted.predict(&x).unwrap(), whole.predict(&x).unwrap());
        close(
            parted.decision_function(&x).unwrap().as_slice(),
            whole.decision_function(&x).unwrap().as_slice(),
            1e-9,
        );
    });
}

#[test]
fn boosting_refuses_what_it_cannot_fit() {
    let (x, _, labels) = rows();
    let classes = Dataset::classification(&x, labels).unwrap();
    block_on(async {
        let table = Table::new("classes", &classes, 2).await;
        let fit = |params: GradientBoostingClassifierParams, label: &'static str| {
            let table = &table;
            async move {
                fit_gradient_boosting_classifier(
                    &table.ctx,
                    table.name,
                    label,
                    &features(table),
                    &params,
                )
                .await
                .unwrap_err()
                .to_string()
            }
        };
        let on = GradientBoostingClassifier::params().early_stopping(EarlyStopping::On);
        let err = fit(on, "label").await;
        assert!(err.contains("early_stopping"), "{err}");
        let err = fit(GradientBoostingClassifier::params(), "no_such_column").await;
        assert!(err.contains("no_such_column"), "{err}");
        // Numbers as targets: a regressor is what they need.
        let err = fit(GradientBoostingClassifier::params(), "x0").await;
        assert!(err.contains("use a regressor"), "{err}");
        let err = fit_gradient_boosting_regressor(
            &table.ctx,
            "(SELECT * FROM classes WHERE id < 0) AS t",
            "label",
            &features(&table),
            &GradientBoostingRegressor::params(),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(err.contains("no rows"), "{err}");
        let params = GradientBoostingRegressor::params();
        let err = fit_gradient_boosting_regressor(&table.ctx, table.name, "x0", &[], &params);
        let err = err.await.unwrap_err().to_string();
        assert!(err.contains("at least one feature column"), "{err}");
    });
}
