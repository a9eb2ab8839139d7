//! Logistic regression, the lasso and the elastic net, registered with `margin train` /
//! `margin predict` under scikit-learn's parameter names.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix};
use margin_io::ModelFile;
use margin_linear::{ElasticNet, LogisticRegression};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, decision_scores, regression_values,
};

fn train_logistic(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let weights = p.take_class_weight(data)?;
    let mut params = p.apply(LogisticRegression::params())?;
    if let Some(w) = weights {
        params = params.class_weight(w);
    }
    p.finish("logistic")?;
    Fitted::iterative(&params.fit(data)?)
}

fn predict_logistic(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, LogisticRegression::classes)
}

fn scores_logistic(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, LogisticRegression::classes)
}

fn train_lasso(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(ElasticNet::lasso_params())?;
    p.finish("lasso")?;
    Fitted::iterative(&params.fit(data)?)
}

fn train_elastic_net(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(ElasticNet::params())?;
    p.finish("elastic-net")?;
    Fitted::iterative(&params.fit(data)?)
}

fn predict_enet(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    regression_values::<ElasticNet>(bytes, x, proba, "lasso/elastic-net")
}

/// The entries of this family.
pub const ENTRIES: [ModelEntry; 3] = [
    ModelEntry {
        name: "logistic",
        classifier: true,
        kind: LogisticRegression::KIND,
        hyperparams: crate::models::stored::<LogisticRegression>,
        summary: "logistic regression, binary or multinomial (scikit-learn's LogisticRegression)",
        params: || LogisticRegression::params().describe(),
        params_help: "",
        train: train_logistic,
        predict: predict_logistic,
        scores: Some(scores_logistic),
    },
    ModelEntry {
        name: "lasso",
        classifier: false,
        kind: ElasticNet::KIND,
        hyperparams: crate::models::stored::<ElasticNet>,
        summary: "L1-penalized least squares by coordinate descent (scikit-learn's Lasso)",
        params: || ElasticNet::lasso_params().describe(),
        params_help: "",
        train: train_lasso,
        predict: predict_enet,
        scores: None,
    },
    ModelEntry {
        name: "elastic-net",
        classifier: false,
        kind: ElasticNet::KIND,
        hyperparams: crate::models::stored::<ElasticNet>,
        summary: "L1 + L2 penalized least squares by coordinate descent (scikit-learn's ElasticNet)",
        params: || ElasticNet::params().describe(),
        params_help: "",
        train: train_elastic_net,
        predict: predict_enet,
        scores: None,
    },
];
