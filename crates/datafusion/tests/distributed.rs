//! `fit_distributed`: every kind by name, on a query's rows, the same models as the functions
//! it dispatches to; what it refuses.

use margin_cluster::KMeans;
use margin_core::{Fit, Predict};
use margin_datafusion::fit_distributed;
use margin_io::ModelFile;
use margin_linear::{LinearRegression, LogisticRegression, Ridge};

use crate::{Table, block_on, close, dense};

#[test]
fn fit_distributed_fits_each_kind_on_a_query() {
    let heart = dense(&margin_io::datasets::heart_scale().unwrap());
    block_on(async {
        let table = Table::new("heart", &heart, 3).await;
        let query = format!("SELECT label, {} FROM heart", table.features);
        // One pass: the model margin_fit gives (to rounding: the plans differ, and with them
        // the rows each partition sums).
        let bytes = fit_distributed(&table.ctx, &query, "ridge", "alpha=0.5", Some("label"));
        let model = Ridge::from_bytes(&bytes.await.unwrap()).unwrap();
        let direct = Ridge::from_bytes(&table.fit("ridge", "alpha=0.5", true).await).unwrap();
        close(model.coef().as_slice(), direct.coef().as_slice(), 1e-12);
        close(model.intercept(), direct.intercept(), 1e-12);
        assert_eq!(model.hyperparams(), direct.hyperparams());

        // One query per step: the in-memory fit to the solver's tolerance.
        let kind = "logistic-regression";
        let bytes = fit_distributed(&table.ctx, &query, kind, "C=0.05", Some("label"));
        let model = LogisticRegression::from_bytes(&bytes.await.unwrap()).unwrap();
        let whole = LogisticRegression::params().c(0.05).fit(&heart).unwrap();
        close(model.coef().as_slice(), whole.coef().as_slice(), 1e-6);

        // Unsupervised: every column of the query is a feature.
        let query = format!("SELECT {} FROM heart", table.features);
        let bytes = fit_distributed(&table.ctx, &query, "kmeans", "n_clusters=2", None);
        let model = KMeans::from_bytes(&bytes.await.unwrap()).unwrap();
        assert_eq!(model.cluster_centers().ncols(), heart.n_features());
        assert_eq!(
            model.predict(&heart.records).unwrap().len(),
            heart.n_samples()
        );

        // Column names are taken as written, whatever their case.
        let query = "SELECT 2.0 * x0 + 1.0 AS \"Price\", x0 AS \"Size\" FROM heart";
        let kind = "linear-regression";
        let bytes = fit_distributed(&table.ctx, query, kind, "", Some("Price"));
        let model = LinearRegression::from_bytes(&bytes.await.unwrap()).unwrap();
        close(model.coef().row(0), &[2.0], 1e-9);
        close(model.intercept(), &[1.0], 1e-9);
    });
}

#[test]
fn fit_distributed_refuses_what_it_cannot_fit() {
    let heart = dense(&margin_io::datasets::heart_scale().unwrap());
    block_on(async {
        let table = Table::new("heart", &heart, 2).await;
        let all = "SELECT * FROM heart";
        let refused = async |query: &str, kind: &str, params: &str, label: Option<&str>| {
            let fitted = fit_distributed(&table.ctx, query, kind, params, label).await;
            fitted.unwrap_err().to_string()
        };
        let err = refused(all, "svr", "", Some("label")).await;
        assert!(
            err.contains("the kinds are") && err.contains("ridge"),
            "{err}"
        );
        let err = refused(all, "ridge", "", None).await;
        assert!(err.contains("takes a label"), "{err}");
        let err = refused(all, "pca", "", Some("label")).await;
        assert!(err.contains("takes no label"), "{err}");
        let err = refused(all, "ridge", "", Some("price")).await;
        assert!(err.contains("no column \"price\""), "{err}");
        let err = refused("SELECT label FROM heart", "ridge", "", Some("label")).await;
        assert!(err.contains("no feature column"), "{err}");
        let err = refused(all, "ridge", "alpha=-1", Some("label")).await;
        assert!(err.contains("alpha"), "{err}");
        let err = refused(all, "kmeans", "n_clusters", None).await;
        assert!(err.contains("name=value"), "{err}");
        let err = refused("SELECT * FROM nowhere", "ridge", "", Some("label")).await;
        assert!(err.contains("nowhere"), "{err}");
        // A parameter the configuration does not use is refused, as on the command line.
        let err = refused(all, "svc", "kernel=linear gamma=0.5", Some("label")).await;
        assert!(
            err.contains("`gamma` = 0.5")
                && err.contains("gamma is used only with kernel rbf, poly or sigmoid"),
            "{err}"
        );
        let kind = "logistic-regression";
        let err = refused(all, kind, "eta0=0.1", Some("label")).await;
        assert!(err.contains("eta0 is used only with solver sgd"), "{err}");
    });
}
