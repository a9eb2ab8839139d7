//! The naive Bayes family registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix};
use margin_io::ModelFile;
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, second_class_probability,
};

fn train_multinomial(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(MultinomialNB::params())?;
    p.finish("multinomial-nb")?;
    Fitted::new(&params.fit(data)?)
}

fn train_bernoulli(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(BernoulliNB::params())?;
    p.finish("bernoulli-nb")?;
    Fitted::new(&params.fit(data)?)
}

fn train_gaussian(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(GaussianNB::params())?;
    p.finish("gaussian-nb")?;
    Fitted::new(&params.fit(data)?)
}

fn predict_multinomial(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, MultinomialNB::classes)
}

fn predict_bernoulli(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, BernoulliNB::classes)
}

fn predict_gaussian(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, GaussianNB::classes)
}

fn scores_multinomial(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, MultinomialNB::classes)
}

fn scores_bernoulli(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, BernoulliNB::classes)
}

fn scores_gaussian(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, GaussianNB::classes)
}

/// The naive Bayes entries of the registry.
pub const ENTRIES: [ModelEntry; 3] = [
    ModelEntry {
        name: "multinomial-nb",
        classifier: true,
        kind: MultinomialNB::KIND,
        hyperparams: crate::models::stored::<MultinomialNB>,
        summary: "multinomial naive Bayes for non-negative counts (scikit-learn's MultinomialNB)",
        params: || MultinomialNB::params().describe(),
        params_help: "",
        train: train_multinomial,
        predict: predict_multinomial,
        scores: Some(scores_multinomial),
    },
    ModelEntry {
        name: "bernoulli-nb",
        classifier: true,
        kind: BernoulliNB::KIND,
        hyperparams: crate::models::stored::<BernoulliNB>,
        summary: "Bernoulli naive Bayes for binary features (scikit-learn's BernoulliNB)",
        params: || BernoulliNB::params().describe(),
        params_help: "",
        train: train_bernoulli,
        predict: predict_bernoulli,
        scores: Some(scores_bernoulli),
    },
    ModelEntry {
        name: "gaussian-nb",
        classifier: true,
        kind: GaussianNB::KIND,
        hyperparams: crate::models::stored::<GaussianNB>,
        summary: "Gaussian naive Bayes for continuous features (scikit-learn's GaussianNB)",
        params: || GaussianNB::params().describe(),
        params_help: "",
        train: train_gaussian,
        predict: predict_gaussian,
        scores: Some(scores_gaussian),
    },
];
