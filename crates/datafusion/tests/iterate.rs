//! Iterative fits driven from the client (logistic regression, the linear SVM, k-means)
//! against the in-memory fits.

use margin_cluster::{KMeans, KMeansInit, KMeansParams};
use margin_core::{Dataset, Fit, Predict, Records};
use margin_datafusion::{fit_kmeans, fit_linear_svc, fit_logistic_regression};
use margin_linear::{LogisticRegression, LogisticRegressionParams};
use margin_svm::LinearSvc;

use crate::{Table, block_on, close, dense, near_and_far, session};

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
        let (rows, data) = near_and_far(0);
        let rows = rows.as_str();
        let params = LogisticRegression::params();
        let model = fit_logistic_regression(&ctx, rows, "y", &["a", "b"], &params)
            .await
            .unwrap();
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

/// The k-means `params` fit over `table`'s Parquet files.
async fn kmeans(table: &Table, params: &KMeansParams) -> KMeans {
    let features: Vec<&str> = table.features.split(", ").collect();
    fit_kmeans(&table.ctx, table.name, &features, params)
        .await
        .unwrap()
}

/// 600 rows of 4 continuous features around three centres, as a dataset (the label unused).
/// Continuous values leave no row at the same distance from two centres: an exact tie
/// would go to the lower centre in one fit and, after a last-bit difference in the centres,
/// to the other in the next (the rows' grouping into partitions changes the sums' rounding).
fn blobs() -> Dataset {
    let x: Vec<Vec<f64>> = (0..600)
        .map(|i| {
            let (t, c) = (i as f64, (i % 3) as f64 * 3.0);
            (0..4)
                .map(|j| c * (j as f64 - 1.5) + (t * 0.7 + j as f64 * 1.3).sin() * 1.7)
                .collect()
        })
        .collect();
    Dataset::regression(x, vec![0.0; 600]).unwrap()
}

#[test]
fn kmeans_from_the_same_centres_is_the_in_memory_fit() {
    let data = blobs();
    let x = data.records.to_dense().unwrap();
    // Three rows as centres, and a fourth far from every row: its cluster empties at the
    // first step and takes the farthest row.
    let mut start = x.select_rows(&[0, 100, 300, 0]).unwrap();
    start.row_mut(3).fill(100.0);
    block_on(async {
        let table = Table::new("blobs", &data, 4).await;
        for centers in [start.select_rows(&[0, 1, 2]).unwrap(), start] {
            let params = KMeans::params()
                .n_clusters(centers.nrows())
                .init(KMeansInit::Centers(centers));
            let whole = params.fit(&x).unwrap();
            let parted = kmeans(&table, &params).await;
            assert_eq!(parted.fit_report().n_iter(), whole.fit_report().n_iter());
            assert_eq!(
                parted.fit_report().converged(),
                whole.fit_report().converged()
            );
            close(
                parted.cluster_centers().as_slice(),
                whole.cluster_centers().as_slice(),
                1e-10,
            );
            close(&[parted.inertia()], &[whole.inertia()], 1e-10);
            assert!(parted.labels().is_empty());
            assert_eq!(parted.predict(&x).unwrap(), whole.labels());
        }
    });
}

#[test]
fn kmeans_from_a_sample_ends_at_a_lloyd_fixed_point() {
    let data = blobs();
    let x = data.records.to_dense().unwrap();
    // tol = 0: the run stops only when an assignment repeats, so the centres are the means
    // of the rows nearest to them.
    let params = KMeans::params().n_clusters(3).tol(0.0).seed(11);
    block_on(async {
        for files in [1, 4] {
            let model = kmeans(&Table::new("blobs", &data, files).await, &params).await;
            let labels = model.predict(&x).unwrap();
            let d = x.ncols();
            let mut means = vec![0.0; 3 * d];
            let mut counts = [0.0; 3];
            for (row, &c) in x.rows().zip(&labels) {
                counts[c] += 1.0;
                means[c * d..(c + 1) * d]
                    .iter_mut()
                    .zip(row)
                    .for_each(|(m, v)| *m += v);
            }
            for (j, m) in means.iter_mut().enumerate() {
                *m /= counts[j / d];
            }
            close(model.cluster_centers().as_slice(), &means, 1e-10);
            close(&[model.inertia()], &[-model.score(&x).unwrap()], 1e-10);
            assert!(model.fit_report().converged());
        }
    });
}

#[test]
fn kmeans_refuses_what_it_cannot_fit() {
    let ctx = session();
    block_on(async {
        let rows = "(VALUES (0.0, 0.1), (0.2, 0.0), (4.0, 4.1)) AS t(a, b)";
        let refused = |e: datafusion::error::DataFusionError, needle: &str| {
            let message = e.to_string();
            assert!(message.contains(needle), "{message}");
        };
        let params = KMeans::params().n_clusters(2);
        let model = fit_kmeans(&ctx, rows, &["a", "b"], &params).await.unwrap();
        assert_eq!(model.n_clusters(), 2);
        let e = fit_kmeans(&ctx, rows, &["a", "b"], &KMeans::params().n_clusters(4)).await;
        refused(e.unwrap_err(), "n_clusters");
        let e = fit_kmeans(&ctx, rows, &["a", "nope"], &params).await;
        refused(e.unwrap_err(), "nope");
        let nulls = "(VALUES (0.0), (CAST(NULL AS DOUBLE)), (1.0)) AS t(a)";
        let e = fit_kmeans(&ctx, nulls, &["a"], &params).await;
        refused(e.unwrap_err(), "null");
        let none = "(SELECT * FROM (VALUES (1.0)) AS s(a) WHERE a > 2) AS t";
        let e = fit_kmeans(&ctx, none, &["a"], &params).await;
        refused(e.unwrap_err(), "no rows");
    });
}

#[test]
fn linear_svc_reaches_the_in_memory_optimum() {
    let heart = dense(&margin_io::datasets::heart_scale().unwrap());
    // Three classes of prices.
    let housing = dense(&margin_io::datasets::housing_scale().unwrap());
    let bands: Vec<&str> = housing
        .targets
        .values()
        .unwrap()
        .iter()
        .map(|&y| match y {
            y if y < 18.0 => "low",
            y if y < 25.0 => "middle",
            _ => "high",
        })
        .collect();
    let housing = Dataset::classification(housing.records, bands).unwrap();
    block_on(async {
        for (data, name, params) in [
            (&heart, "heart", LinearSvc::params().c(0.5)),
            // Three classes: one problem per class against the rest.
            (
                &housing,
                "bands",
                LinearSvc::params().c(0.1).intercept_scaling(2.0),
            ),
        ] {
            let table = Table::new(name, data, 3).await;
            let features: Vec<&str> = table.features.split(", ").collect();
            // L-BFGS stops when the scaled primal's gradient is at most 1e-7 (the optimum's
            // coefficients are then within about nC × 1e-7); dual coordinate descent is run
            // to 1e-10.
            let parted = fit_linear_svc(
                &table.ctx,
                name,
                "label",
                &features,
                &params.clone().tol(1e-7),
            )
            .await
            .unwrap();
            let whole = params.tol(1e-10).max_iter(100_000).fit(data).unwrap();
            close(parted.coef().as_slice(), whole.coef().as_slice(), 1e-5);
            close(parted.intercept(), whole.intercept(), 1e-5);
            for (p, w) in parted
                .fit_report()
                .runs()
                .iter()
                .zip(whole.fit_report().runs())
            {
                close(&[p.objective.unwrap()], &[w.objective.unwrap()], 1e-8);
            }
            assert_eq!(parted.classes(), whole.classes());
        }
        let e = fit_linear_svc(
            &session(),
            "(VALUES (0.0, 'x'), (1.0, 'y')) AS t(a, y)",
            "y",
            &["a"],
            &LinearSvc::params().loss(margin_svm::SvmLoss::Hinge),
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains("squared_hinge"), "{e}");
    });
}
