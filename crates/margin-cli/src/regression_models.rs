//! The least-squares family registered with `margin train` / `margin predict`: linear, ridge
//! and kernel ridge regression.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix};
use margin_io::ModelFile;
use margin_linear::{KernelRidge, LinearRegression, Ridge};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, regression_values};

fn train_linear(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(LinearRegression::params())?;
    p.finish("linear")?;
    Fitted::iterative(&params.fit(data)?)
}

fn train_ridge(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(Ridge::params())?;
    p.finish("ridge")?;
    Fitted::new(&params.fit(data)?)
}

fn train_kernel_ridge(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(KernelRidge::params())?;
    p.finish("kernel-ridge")?;
    Fitted::new(&params.fit(data)?)
}

fn predict_linear(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    regression_values::<LinearRegression>(bytes, x, proba, "linear")
}

fn predict_ridge(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    regression_values::<Ridge>(bytes, x, proba, "ridge")
}

fn predict_kernel_ridge(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<KernelRidge>(bytes, x, proba, "kernel-ridge")
}

/// The least-squares entries of the registry.
pub const ENTRIES: [ModelEntry; 3] = [
    ModelEntry {
        name: "linear",
        classifier: false,
        kind: LinearRegression::KIND,
        hyperparams: crate::models::stored::<LinearRegression>,
        summary: "least-squares linear regression (scikit-learn's LinearRegression)",
        params: || LinearRegression::params().describe(),
        params_help: "",
        train: train_linear,
        predict: predict_linear,
        scores: None,
    },
    ModelEntry {
        name: "ridge",
        classifier: false,
        kind: Ridge::KIND,
        hyperparams: crate::models::stored::<Ridge>,
        summary: "ridge regression: least squares + alpha·|w|² (scikit-learn's Ridge)",
        params: || Ridge::params().describe(),
        params_help: "",
        train: train_ridge,
        predict: predict_ridge,
        scores: None,
    },
    ModelEntry {
        name: "kernel-ridge",
        classifier: false,
        kind: KernelRidge::KIND,
        hyperparams: crate::models::stored::<KernelRidge>,
        summary: "kernel ridge regression, no intercept (scikit-learn's KernelRidge)",
        params: || KernelRidge::params().describe(),
        params_help: "",
        train: train_kernel_ridge,
        predict: predict_kernel_ridge,
        scores: None,
    },
];
