//! The perceptrons registered with `margin train` / `margin predict`: `perceptron` (the primal
//! rule, scikit-learn's `Perceptron`) and `kernel-perceptron` (the dual rule with a kernel).

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix, ModelFile, Predict};
use margin_kernels::{Gamma, KernelSpec, Linear, Polynomial, Rbf};
use margin_linear::{KernelPerceptron, Perceptron};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decision_scores, decode, no_proba};

fn train_perceptron(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(Perceptron::params())?;
    p.finish("perceptron")?;
    Fitted::iterative(&params.fit(data)?)
}

/// `--kernel` with its `--gamma`, `--degree`, `--coef0`, defaulting to the library's
/// `(x·z + 1)²` (poly, γ = 1, degree 2, coef0 1); the RBF's γ defaults to scale, as the SVMs'.
/// A flag the chosen kernel does not use is refused rather than ignored.
fn kernel(p: &mut ParamArgs, data: &Dataset) -> Result<KernelSpec, Failure> {
    let kind = p.take::<String>("kernel")?;
    let gamma = match p.take::<String>("gamma")?.as_deref() {
        None => None,
        Some("scale") => Some(Gamma::Scale),
        Some("auto") => Some(Gamma::Auto),
        Some(v) => Some(Gamma::Value(v.parse().map_err(|_| {
            Failure::usage(format!(
                "--gamma: expected scale, auto or a number, found `{v}`"
            ))
        })?)),
    };
    let degree = p.take::<u32>("degree")?;
    let coef0 = p.take::<f64>("coef0")?;
    let unused = |flag: &str, given: bool, kernel: &str| {
        if given {
            Err(Failure::usage(format!(
                "--{flag} does not apply to the {kernel} kernel"
            )))
        } else {
            Ok(())
        }
    };
    Ok(match kind.as_deref() {
        Some("linear") => {
            unused("gamma", gamma.is_some(), "linear")?;
            unused("degree", degree.is_some(), "linear")?;
            unused("coef0", coef0.is_some(), "linear")?;
            Linear.into()
        }
        Some("rbf") => {
            unused("degree", degree.is_some(), "rbf")?;
            unused("coef0", coef0.is_some(), "rbf")?;
            let g = gamma.unwrap_or(Gamma::Scale).resolve(&data.records)?;
            Rbf::with_gamma(g)?.into()
        }
        None | Some("poly") | Some("polynomial") => Polynomial::new(
            gamma.unwrap_or(Gamma::Value(1.0)).resolve(&data.records)?,
            coef0.unwrap_or(1.0),
            degree.unwrap_or(2),
        )?
        .into(),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--kernel: expected linear, poly or rbf, found `{other}`"
            )));
        }
    })
}

fn train_kernel_perceptron(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let kernel = kernel(&mut p, data)?;
    let params = p.apply(KernelPerceptron::params())?.kernel(kernel);
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
        params_help: "  --kernel linear|poly|rbf           kernel (default poly)
  --gamma scale|auto|<number>        poly/rbf γ (default 1 for poly, scale = 1/(d·Var X) for rbf)
  --degree <int>                     poly degree (default 2)
  --coef0 <number>                   poly constant (default 1)",
        train: train_kernel_perceptron,
        predict: predict_kernel_perceptron,
        scores: Some(scores_kernel_perceptron),
    },
];
