//! The naive Bayes family registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, second_class_probability,
};

const DISCRETE_HELP: &str = "  --alpha <number>                   additive (Laplace/Lidstone) smoothing ≥ 0; 0 = none (default 1)
  --fit-prior true|false             learn class priors from class frequencies, else uniform (default true)";

/// Applies `--alpha` and `--fit-prior`, which both discrete models take.
macro_rules! discrete {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        if let Some(a) = $p.take("alpha")? {
            params = params.alpha(a);
        }
        if let Some(f) = $p.take("fit-prior")? {
            params = params.fit_prior(f);
        }
        params
    }};
}

fn train_multinomial(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = discrete!(MultinomialNB::params(), p);
    p.finish("multinomial-nb")?;
    Fitted::new(&params.fit(data)?)
}

fn train_bernoulli(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = discrete!(BernoulliNB::params(), p);
    match p.take::<String>("binarize")?.as_deref() {
        None => {}
        Some("none") => params = params.binarize(None),
        Some(t) => {
            let t = t.parse().map_err(|_| {
                Failure::usage(format!(
                    "--binarize: expected a number or none, found `{t}`"
                ))
            })?;
            params = params.binarize(Some(t));
        }
    }
    p.finish("bernoulli-nb")?;
    Fitted::new(&params.fit(data)?)
}

fn train_gaussian(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = GaussianNB::params();
    if let Some(v) = p.take("var-smoothing")? {
        params = params.var_smoothing(v);
    }
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
        summary: "multinomial naive Bayes for non-negative counts (scikit-learn's MultinomialNB)",
        params: None,
        params_help: "",
        common_help: DISCRETE_HELP,
        train: train_multinomial,
        predict: predict_multinomial,
        scores: Some(scores_multinomial),
    },
    ModelEntry {
        name: "bernoulli-nb",
        classifier: true,
        kind: BernoulliNB::KIND,
        summary: "Bernoulli naive Bayes for binary features (scikit-learn's BernoulliNB)",
        params: None,
        params_help: "  --binarize <number>|none           a value above it is present (default 0); none: values already in [0, 1]",
        common_help: DISCRETE_HELP,
        train: train_bernoulli,
        predict: predict_bernoulli,
        scores: Some(scores_bernoulli),
    },
    ModelEntry {
        name: "gaussian-nb",
        classifier: true,
        kind: GaussianNB::KIND,
        summary: "Gaussian naive Bayes for continuous features (scikit-learn's GaussianNB)",
        params: None,
        params_help: "  --var-smoothing <number>           added to every variance, times the largest one (default 1e-9)",
        common_help: "",
        train: train_gaussian,
        predict: predict_gaussian,
        scores: Some(scores_gaussian),
    },
];
