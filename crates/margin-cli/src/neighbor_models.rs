//! The k-nearest-neighbour models' own training: `--p` alone means the Minkowski metric, as
//! scikit-learn's default metric is `minkowski` (margin's is `euclidean`, the same distance
//! for p = 2).

use margin_core::Dataset;

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ParamArgs, fit_estimator};

/// Fits registered estimator `name` with `--metric minkowski` added where `--p` comes alone.
fn fit_with_p(name: &str, data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    if p.contains("p") && !p.contains("metric") {
        p.insert("metric", "minkowski");
    }
    fit_estimator(name, data, p)
}

/// `knn-classifier`'s training.
pub(crate) fn train_classifier(data: &Dataset, p: ParamArgs) -> Result<Fitted, Failure> {
    fit_with_p("knn-classifier", data, p)
}

/// `knn-regressor`'s training.
pub(crate) fn train_regressor(data: &Dataset, p: ParamArgs) -> Result<Fitted, Failure> {
    fit_with_p("knn-regressor", data, p)
}
