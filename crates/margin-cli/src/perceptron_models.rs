//! The perceptrons registered with `margin train` / `margin predict`: `perceptron` (the primal
//! rule, scikit-learn's `Perceptron`) and `kernel-perceptron` (the dual rule with a kernel).

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix, Predict};
use margin_io::ModelFile;
use margin_linear::{KernelPerceptron, Perceptron};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decision_scores, decode, no_proba};

fn train_perceptron(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(Perceptron::params())?;
    p.finish("perceptron")?;
    Fitted::iterative(&params.fit(data)?)
}

fn train_kernel_perceptron(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(KernelPerceptron::params())?;
    p.finish("kernel-perceptron")?;
    Fitted::iterative(&params.fit(data)?)
}

fn predict_perceptron(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "a perceptron gives scores")?;
    let (model, x) = decode::<Perceptron>(bytes, x)?;
    Ok(Predictions::Labels(model.predict(&*x)?))
}

fn scores_perceptron(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, Perceptron::classes)
}

fn predict_kernel_perceptron(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "a kernel perceptron gives scores")?;
    let (model, x) = decode::<KernelPerceptron>(bytes, x)?;
    Ok(Predictions::Labels(model.predict(&*x)?))
}

fn scores_kernel_perceptron(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, KernelPerceptron::classes)
}

/// The perceptron entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "perceptron",
        classifier: true,
        kind: Perceptron::KIND,
        hyperparams: crate::models::stored::<Perceptron>,
        summary: "the perceptron rule w += eta0·y·x on mistakes (scikit-learn's Perceptron)",
        params: || Perceptron::params().describe(),
        params_help: "",
        train: train_perceptron,
        predict: predict_perceptron,
        scores: Some(scores_perceptron),
    },
    ModelEntry {
        name: "kernel-perceptron",
        classifier: true,
        kind: KernelPerceptron::KIND,
        hyperparams: crate::models::stored::<KernelPerceptron>,
        summary: "the perceptron rule in the dual, with a kernel (default (x·z + 1)²)",
        params: || KernelPerceptron::params().describe(),
        params_help: "",
        train: train_kernel_perceptron,
        predict: predict_kernel_perceptron,
        scores: Some(scores_kernel_perceptron),
    },
];
