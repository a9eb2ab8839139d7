//! The least-squares family registered with `margin train` / `margin predict`: linear, ridge
//! and kernel ridge regression.

use std::borrow::Cow;

use margin_core::params::Params;
use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_kernels::{Gamma, KernelSpec, Linear, Polynomial, Rbf};
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

/// `--kernel` with its `--gamma`, `--degree`, `--coef0`, defaulting as scikit-learn's
/// `KernelRidge` does (linear; γ = 1/d; degree 3; coef0 1). A flag the chosen kernel does not
/// use is refused rather than ignored.
fn kernel(p: &mut ParamArgs, data: &Dataset) -> Result<KernelSpec, Failure> {
    let kind = p.take::<String>("kernel")?;
    let gamma = match p.take::<String>("gamma")?.as_deref() {
        None => None,
        Some("auto") => Some(Gamma::Auto),
        Some(v) => Some(Gamma::Value(v.parse().map_err(|_| {
            Failure::usage(format!("--gamma: expected auto or a number, found `{v}`"))
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
    let gamma_value = |g: Option<Gamma>| g.unwrap_or(Gamma::Auto).resolve(&data.records);
    Ok(match kind.as_deref() {
        None | Some("linear") => {
            unused("gamma", gamma.is_some(), "linear")?;
            unused("degree", degree.is_some(), "linear")?;
            unused("coef0", coef0.is_some(), "linear")?;
            Linear.into()
        }
        Some("rbf") => {
            unused("degree", degree.is_some(), "rbf")?;
            unused("coef0", coef0.is_some(), "rbf")?;
            Rbf::with_gamma(gamma_value(gamma)?)?.into()
        }
        Some("poly") | Some("polynomial") => Polynomial::new(
            gamma_value(gamma)?,
            coef0.unwrap_or(1.0),
            degree.unwrap_or(3),
        )?
        .into(),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--kernel: expected linear, rbf or poly, found `{other}`"
            )));
        }
    })
}

fn train_kernel_ridge(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let kernel = kernel(&mut p, data)?;
    let params = p.apply(KernelRidge::params())?.kernel(kernel);
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
        params_help: "  --kernel linear|rbf|poly           kernel (default linear)
  --gamma auto|<number>              rbf/poly γ (default auto = 1/d, scikit-learn's gamma=None)
  --degree <int>                     poly degree (default 3)
  --coef0 <number>                   poly constant (default 1)",
        train: train_kernel_ridge,
        predict: predict_kernel_ridge,
        scores: None,
    },
];
