//! The k-nearest-neighbour family registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix};
use margin_io::ModelFile;
use margin_neighbors::{KNeighborsClassifier, KNeighborsRegressor};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, regression_values,
    second_class_probability,
};

/// Sets the described parameters; `--p` alone means the Minkowski metric, as scikit-learn's
/// default metric is `minkowski` (margin's is `euclidean`, the same distance for p = 2).
fn described<P: Params>(params: P, p: &mut ParamArgs) -> Result<P, Failure> {
    if p.contains("p") && !p.contains("metric") {
        p.insert("metric", "minkowski");
    }
    p.apply(params)
}

fn train_classifier(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = described(KNeighborsClassifier::params(), &mut p)?;
    p.finish("knn-classifier")?;
    Fitted::new(&params.fit(data)?)
}

fn train_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = described(KNeighborsRegressor::params(), &mut p)?;
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
        hyperparams: crate::models::stored::<KNeighborsClassifier>,
        summary: "k-nearest-neighbour vote (scikit-learn's KNeighborsClassifier)",
        params: || KNeighborsClassifier::params().describe(),
        params_help: "",
        train: train_classifier,
        predict: predict_classifier,
        scores: Some(scores_classifier),
    },
    ModelEntry {
        name: "knn-regressor",
        classifier: false,
        kind: KNeighborsRegressor::KIND,
        hyperparams: crate::models::stored::<KNeighborsRegressor>,
        summary: "k-nearest-neighbour mean (scikit-learn's KNeighborsRegressor)",
        params: || KNeighborsRegressor::params().describe(),
        params_help: "",
        train: train_regressor,
        predict: predict_regressor,
        scores: None,
    },
];
