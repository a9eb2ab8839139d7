//! Histogram gradient boosting registered with `margin train` / `margin predict`:
//! `gradient-boosting` and `gradient-boosting-regressor` (scikit-learn's
//! HistGradientBoostingClassifier / HistGradientBoostingRegressor). The regressor has its own
//! name, as `tree-regressor` and `svr` do, so each name fixes what the model file holds.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix};
use margin_io::ModelFile;
use margin_tree::{GradientBoostingClassifier, GradientBoostingRegressor};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, regression_values,
    second_class_probability,
};
use crate::output::warn;

/// Reports how many iterations were grown, on stderr (early stopping may stop before
/// `--max-iter`).
fn report_iterations(n_iter: usize) {
    warn(format_args!("boosting iterations: {n_iter}"));
}

fn train_classifier(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = GradientBoostingClassifier::params();
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    let params = p.apply(params)?;
    p.finish("gradient-boosting")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}

fn train_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(GradientBoostingRegressor::params())?;
    p.finish("gradient-boosting-regressor")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}

fn predict_classifier(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, GradientBoostingClassifier::classes)
}

fn predict_regressor(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<GradientBoostingRegressor>(bytes, x, proba, "gradient-boosting-regressor")
}

/// For a ROC curve: the probability of the second class.
fn scores_classifier(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, GradientBoostingClassifier::classes)
}

/// The gradient-boosting entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "gradient-boosting",
        classifier: true,
        kind: GradientBoostingClassifier::KIND,
        hyperparams: crate::models::stored::<GradientBoostingClassifier>,
        summary: "histogram gradient boosting, log loss (scikit-learn's HistGradientBoostingClassifier)",
        params: || GradientBoostingClassifier::params().describe(),
        params_help: "",
        train: train_classifier,
        predict: predict_classifier,
        scores: Some(scores_classifier),
    },
    ModelEntry {
        name: "gradient-boosting-regressor",
        classifier: false,
        kind: GradientBoostingRegressor::KIND,
        hyperparams: crate::models::stored::<GradientBoostingRegressor>,
        summary: "histogram gradient boosting regression (scikit-learn's HistGradientBoostingRegressor)",
        params: || GradientBoostingRegressor::params().describe(),
        params_help: "",
        train: train_regressor,
        predict: predict_regressor,
        scores: None,
    },
];
