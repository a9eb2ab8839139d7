//! The linear SVMs registered with `margin train` / `margin predict`: `linear-svc` (dual
//! coordinate descent, LIBLINEAR's solver) and `pegasos` (the same model fitted by Pegasos).

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Matrix, Predict};
use margin_io::ModelFile;
use margin_svm::{LinearSolver, LinearSvc, LinearSvcParams, SvmLoss};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decision_scores, decode, no_proba};

/// Sets the described parameters on `params` (after the class weights, which are checked
/// against the training data's classes) and fits.
fn train(
    params: LinearSvcParams,
    data: &Dataset,
    mut p: ParamArgs,
    name: &str,
) -> Result<Fitted, Failure> {
    let weights = p.take_class_weight(data)?;
    let mut params = p.apply(params)?;
    if let Some(w) = weights {
        params = params.class_weight(w);
    }
    p.finish(name)?;
    Fitted::iterative(&margin_core::Fit::fit(&params, data)?)
}

fn train_linear_svc(data: &Dataset, p: ParamArgs) -> Result<Fitted, Failure> {
    train(LinearSvc::params(), data, p, "linear-svc")
}

/// The `pegasos` entry: LinearSvc's parameters, starting from the hinge loss and the Pegasos
/// solver.
fn pegasos_params() -> LinearSvcParams {
    LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .solver(LinearSolver::pegasos())
}

fn train_pegasos(data: &Dataset, p: ParamArgs) -> Result<Fitted, Failure> {
    train(pegasos_params(), data, p, "pegasos")
}

fn predict_linear_svc(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "a linear SVM gives decision values")?;
    let (model, x) = decode::<LinearSvc>(bytes, x)?;
    Ok(Predictions::Labels(model.predict(&*x)?))
}

fn scores_linear_svc(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, LinearSvc::classes)
}

/// The linear SVM entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "linear-svc",
        classifier: true,
        kind: LinearSvc::KIND,
        hyperparams: crate::models::stored::<LinearSvc>,
        summary: "linear SVM by dual coordinate descent (LIBLINEAR -s 1/-s 3; scikit-learn's LinearSVC)",
        params: || LinearSvc::params().describe(),
        params_help: "",
        train: train_linear_svc,
        predict: predict_linear_svc,
        scores: Some(scores_linear_svc),
    },
    ModelEntry {
        name: "pegasos",
        classifier: true,
        kind: LinearSvc::KIND,
        hyperparams: crate::models::stored::<LinearSvc>,
        summary: "linear SVM (hinge loss) by Pegasos stochastic sub-gradient descent",
        params: || pegasos_params().describe(),
        params_help: "",
        train: train_pegasos,
        predict: predict_linear_svc,
        scores: Some(scores_linear_svc),
    },
];
