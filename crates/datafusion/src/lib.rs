//! # margin-datafusion: margin's models on Apache DataFusion
//!
//! Fits margin models where the data already is: in Parquet files, Arrow tables or any query
//! DataFusion runs, in one streaming pass over the rows, partitions in parallel, the table never
//! held in memory. [`register`] adds to a [`SessionContext`]:
//!
//! - **`margin_fit(kind, params, [label,] feature, …)`**, an aggregate function returning the
//!   fitted model's file (`Binary`): the bytes `Model::from_bytes` reads and `margin predict`
//!   takes once written to disk. It works for the models whose fit is a sum over the rows
//!   ([`FitStats`](margin_core::FitStats)): `linear-regression`, `ridge`, `gaussian-nb`,
//!   `multinomial-nb`, `bernoulli-nb` (after the label), and `pca`, `standard-scaler`,
//!   `min-max-scaler` (features only). Each partition gathers the statistics of its rows; the
//!   partitions' states merge exactly (counts) or to rounding (means, triangular factors), so
//!   the model is the in-memory fit's. `GROUP BY` fits one model per group.
//!
//! - **`margin_predict(model, feature, …)`**, **`margin_predict_proba`**,
//!   **`margin_decision_function`** and **`margin_transform`**, scalar functions applying a
//!   fitted model of any kind ([`margin_any::kinds`]) to whole batches. The model is a literal:
//!   a name registered in the [`Models`] that [`register`] returns, or the model file's bytes
//!   (`X'…'` in SQL). `margin_predict` gives a classifier's class (`Float64` when every class
//!   is a number, else `Utf8`), a regressor's value (`Float64`), a cluster or a one-class
//!   SVM's ±1 (`Int64`); probabilities, transforms and multiclass decision values come as one
//!   `FixedSizeList<Float64>` per row (a binary decision value as `Float64`). A row with a null
//!   feature scores null.
//!
//! - **[`fit_logistic_regression`]**, **[`fit_linear_svc`]**, **[`fit_svc`]**,
//!   **[`fit_kmeans`]**, **[`fit_gradient_boosting_regressor`]** and
//!   **[`fit_gradient_boosting_classifier`]**, fits driven from the client as Spark drives its
//!   iterative fits, one query per solver step:
//!   - logistic regression: one query for the classes and their counts, then one per L-BFGS
//!     step, whose aggregate `margin_loss_sums` sums the loss and its gradient over every
//!     partition at the current weights. The model is the in-memory fit's to the solver's
//!     tolerance (the tests find the same iteration count and coefficients within 1e-9);
//!   - the L2-loss linear SVM: the same first query, then L-BFGS on the primal of each binary
//!     problem, one `margin_loss_sums` query per step; the primal is strongly convex, so it
//!     reaches the in-memory (dual coordinate descent) optimum to the solvers' tolerances;
//!   - the kernel SVM (C-SVC): a cascade SVM with feedback (Graf et al., 2004). One query per
//!     pass over the table's distinct points: each partition runs SMO on its points and the
//!     support vectors fed back from the last pass, and the partitions' support vectors merge
//!     pairwise, solved again at each merge, up to a root (`margin_cascade_svs`). One more
//!     query finds the points whose margin breaks the root model's optimality conditions
//!     (`margin_svm_violations`); passes repeat until there are none, so the model is the
//!     whole problem's to the solver's tolerance. Each partition holds its points in memory;
//!   - k-means: one query for the count and variances, one for a uniform sample of rows to
//!     start from (`margin_sample_rows`), then one per Lloyd step (`margin_lloyd_sums`: each
//!     centre's count and sums). From the same centres it is the in-memory fit to rounding;
//!   - histogram gradient boosting: one query for the first pass (the rows and the labels'
//!     sum, or the classes' counts), one for a uniform sample of at most 200 000 rows whose
//!     quantiles give the bins, then for each tree one query for its root and one per level
//!     grown (`margin_boosting_sums`: the gradient histograms of the nodes the trees wait
//!     for). The trees are grown best-first on the client exactly as in memory, so the
//!     model is the in-memory fit's up to the rounding of sums taken in another order (the
//!     tests find the same bin edges and predictions within 1e-9). Early stopping is
//!     refused (it holds rows out by position): set it off.
//!
//! - **[`fit_distributed`]**, one entry for all of these: a model kind by name, its parameters
//!   as text and a query whose columns are the label and the features; it returns the model
//!   file. The session may be a Ballista cluster's (`margin-ballista`), whose executors then
//!   run every query.
//!
//! The parameters are `name=value` pairs separated by spaces, each as `margin train` takes it
//! (`'alpha=0.5 fit_intercept=false'`); `''` keeps the defaults. Features are numeric columns
//! of any integer or float type, or one `FixedSizeList<Float64>` column (as `margin_io::table`
//! reads them, and as `margin_transform` gives them). `margin_fit` refuses a null feature,
//! naming the column. Sparse `List<Struct<index, value>>` columns are not taken yet: a
//! batch's width would be its own largest index.
//!
//! ```
//! use datafusion::prelude::*;
//! use margin_core::{Fit, Predict};
//! use margin_io::ModelFile;
//! use margin_linear::Ridge;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = SessionContext::new();
//! let models = margin_datafusion::register(&ctx);
//! let fitted = ctx
//!     .sql("SELECT margin_fit('ridge', 'alpha=0.5', y, x1, x2) FROM (VALUES
//!             (1.0, 0.0, 1.0), (2.1, 1.0, 0.5), (4.9, 2.0, 2.0), (5.2, 3.0, 1.0), (8.8, 4.0, 3.5)
//!           ) AS t(y, x1, x2)")
//!     .await?
//!     .collect()
//!     .await?;
//! let bytes = fitted[0].column(0).as_any()
//!     .downcast_ref::<datafusion::arrow::array::BinaryArray>().unwrap().value(0);
//! let model = Ridge::from_bytes(bytes)?;
//!
//! let x = vec![vec![0.0, 1.0], vec![1.0, 0.5], vec![2.0, 2.0], vec![3.0, 1.0], vec![4.0, 3.5]];
//! let data = margin_core::Dataset::regression(x, vec![1.0, 2.1, 4.9, 5.2, 8.8])?;
//! let same = Ridge::params().alpha(0.5).fit(&data)?;
//! assert!((model.intercept()[0] - same.intercept()[0]).abs() < 1e-12);
//!
//! // Scoring by name: the model registered, then applied to a query's rows.
//! models.insert("prices", bytes)?;
//! let scored = ctx
//!     .sql("SELECT margin_predict('prices', x1, x2) FROM (VALUES (1.0, 0.5), (5.0, 2.0)) AS t(x1, x2)")
//!     .await?
//!     .collect()
//!     .await?;
//! let predicted = scored[0].column(0).as_any()
//!     .downcast_ref::<datafusion::arrow::array::Float64Array>().unwrap();
//! let expected = same.predict(&[[1.0, 0.5], [5.0, 2.0]])?;
//! assert_eq!(predicted.values().to_vec(), expected);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod boosting;
mod columns;
mod distributed;
mod fit;
mod gather;
mod kmeans;
mod linear;
mod models;
mod score;
mod steps;
mod svm;

use datafusion::common::DataFusionError;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

pub use boosting::{fit_gradient_boosting_classifier, fit_gradient_boosting_regressor};
pub use distributed::{STEPPED_KINDS, fit_distributed};
pub use fit::MarginFit;
pub use gather::KINDS;
pub use kmeans::fit_kmeans;
pub use linear::{fit_linear_svc, fit_logistic_regression};
pub use models::Models;
pub use score::{MarginScore, Method};
pub use svm::fit_svc;

/// The scoring functions' methods, in the order [`register`] adds them.
pub const METHODS: [Method; 4] = [
    Method::Predict,
    Method::PredictProba,
    Method::DecisionFunction,
    Method::Transform,
];

/// Registers margin's functions with `ctx`: `margin_fit` and the four scoring functions,
/// which share the models returned (register a model there to call it by name).
pub fn register(ctx: &SessionContext) -> Models {
    let models = Models::default();
    ctx.register_udaf(margin_fit());
    for step in margin_steps() {
        ctx.register_udaf(step);
    }
    for method in METHODS {
        ctx.register_udf(margin_score(method, &models));
    }
    models
}

/// A scoring function (`margin_predict`, …) knowing the models of `models` by name, for
/// registries other than a [`SessionContext`]'s.
pub fn margin_score(method: Method, models: &Models) -> ScalarUDF {
    ScalarUDF::from(MarginScore::new(method, models.clone()))
}

/// The `margin_fit` aggregate function, for registries other than a [`SessionContext`]'s.
pub fn margin_fit() -> AggregateUDF {
    AggregateUDF::from(MarginFit::default())
}

/// The aggregates the client-driven fits query ([`fit_logistic_regression`],
/// [`fit_linear_svc`], [`fit_kmeans`], [`fit_gradient_boosting_regressor`],
/// [`fit_gradient_boosting_classifier`], [`fit_svc`]): `margin_loss_sums`,
/// `margin_boosting_sums`, `margin_lloyd_sums`, `margin_sample_rows`, `margin_cascade_svs`
/// and `margin_svm_violations`, for registries other than a [`SessionContext`]'s.
pub fn margin_steps() -> [AggregateUDF; 6] {
    use steps::StepSums;
    [
        AggregateUDF::from(StepSums::<linear::LossStep>::new()),
        AggregateUDF::from(StepSums::<margin_tree::BoostingStep>::new()),
        AggregateUDF::from(StepSums::<kmeans::LloydStep>::new()),
        AggregateUDF::from(StepSums::<kmeans::SampleStep>::new()),
        AggregateUDF::from(StepSums::<margin_svm::CascadeStep>::new()),
        AggregateUDF::from(StepSums::<margin_svm::ViolationStep>::new()),
    ]
}

/// A margin error as DataFusion's, its message kept.
fn external(e: margin_core::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
