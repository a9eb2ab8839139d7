//! The k-nearest-neighbour family registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_neighbors::{Algorithm, KNeighborsClassifier, KNeighborsRegressor, Metric, Weights};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, regression_values,
    second_class_probability,
};

const COMMON_HELP: &str = "  --n-neighbors <k>                  neighbours per query, 1 ≤ k ≤ training rows (default 5)
  --weights uniform|distance         equal votes, or 1/distance (exact matches take over) (default uniform)
  --metric <name>                    euclidean, sqeuclidean, manhattan, chebyshev, minkowski, cosine,
                                     mahalanobis (covariance of the training data), hamming (default euclidean)
  --p <number>                       Minkowski power ≥ 1; implies --metric minkowski (default 2)
  --algorithm auto|brute|kd_tree     search; auto = kd-tree for dense data, ≤ 15 features, a supported metric (default auto)
  --leaf-size <n>                    most points in a kd-tree leaf (default 30)";

/// The metric from `--metric` and `--p` (`--p` alone means Minkowski, as scikit-learn's
/// default metric is `minkowski`).
fn metric(p: &mut ParamArgs) -> Result<Metric, Failure> {
    let power: Option<f64> = p.take("p")?;
    match (p.take::<String>("metric")?, power) {
        (None, None) => Ok(Metric::Euclidean),
        (None, Some(power)) => Ok(Metric::Minkowski(power)),
        (Some(name), power) if name == "minkowski" => Ok(Metric::Minkowski(power.unwrap_or(2.0))),
        (Some(name), None) => Ok(Metric::from_name(&name, 2.0)?),
        (Some(name), Some(_)) => Err(Failure::usage(format!(
            "--p applies to --metric minkowski only, not `{name}`"
        ))),
    }
}

/// Applies the parameters both models take.
macro_rules! common {
    ($params:expr, $p:expr) => {{
        let mut params = $params.metric(metric(&mut $p)?);
        if let Some(k) = $p.take("n-neighbors")? {
            params = params.n_neighbors(k);
        }
        if let Some(w) = $p.take::<String>("weights")? {
            params = params.weights(Weights::from_name(&w)?);
        }
        if let Some(a) = $p.take::<String>("algorithm")? {
            params = params.algorithm(Algorithm::from_name(&a)?);
        }
        if let Some(l) = $p.take("leaf-size")? {
            params = params.leaf_size(l);
        }
        params
    }};
}

fn train_classifier(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = common!(KNeighborsClassifier::params(), p);
    p.finish("knn-classifier")?;
    Fitted::new(&params.fit(data)?)
}

fn train_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = common!(KNeighborsRegressor::params(), p);
    p.finish("knn-regressor")?;
    Fitted::new(&params.fit(data)?)
}

fn predict_classifier(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, KNeighborsClassifier::classes)
}

fn predict_regressor(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<KNeighborsRegressor>(bytes, x, proba, "knn-regressor")
}

/// For a ROC curve: the fraction (weighted) of neighbours in the second class.
fn scores_classifier(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, KNeighborsClassifier::classes)
}

/// The k-nearest-neighbour entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "knn-classifier",
        classifier: true,
        kind: KNeighborsClassifier::KIND,
        summary: "k-nearest-neighbour vote (scikit-learn's KNeighborsClassifier)",
        params: None,
        params_help: "",
        common_help: COMMON_HELP,
        train: train_classifier,
        predict: predict_classifier,
        scores: Some(scores_classifier),
    },
    ModelEntry {
        name: "knn-regressor",
        classifier: false,
        kind: KNeighborsRegressor::KIND,
        summary: "k-nearest-neighbour mean (scikit-learn's KNeighborsRegressor)",
        params: None,
        params_help: "",
        common_help: COMMON_HELP,
        train: train_regressor,
        predict: predict_regressor,
        scores: None,
    },
];
