//! The least-squares family registered with `margin train` / `margin predict`: linear, ridge
//! and kernel ridge regression.

use std::borrow::Cow;

use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_kernels::{Gamma, KernelSpec, Linear, Polynomial, Rbf};
use margin_linear::{KernelRidge, LinearRegression, LstsqSolver, Ridge, RidgeSolver};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, regression_values};

const FIT_INTERCEPT_HELP: &str = "  --fit-intercept true|false         fit an (unpenalized) intercept by centring (default true)";

fn fit_intercept(p: &mut ParamArgs) -> Result<bool, Failure> {
    Ok(p.take("fit-intercept")?.unwrap_or(true))
}

fn train_linear(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = LinearRegression::params().fit_intercept(fit_intercept(&mut p)?);
    match p.take::<String>("solver")?.as_deref() {
        None | Some("qr") => {}
        Some("svd") => params = params.solver(LstsqSolver::Svd),
        Some("normal-equations") => params = params.solver(LstsqSolver::NormalEquations),
        Some("gradient-descent") => params = params.solver(LstsqSolver::GradientDescent),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--solver: expected qr, svd, normal-equations or gradient-descent, found `{other}`"
            )));
        }
    }
    if let Some(m) = p.take("max-iter")? {
        params = params.max_iter(m);
    }
    if let Some(t) = p.take("tol")? {
        params = params.tol(t);
    }
    p.finish("linear")?;
    Fitted::iterative(&params.fit(data)?)
}

fn train_ridge(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = Ridge::params().fit_intercept(fit_intercept(&mut p)?);
    if let Some(a) = p.take("alpha")? {
        params = params.alpha(a);
    }
    match p.take::<String>("solver")?.as_deref() {
        None | Some("cholesky") => {}
        Some("svd") => params = params.solver(RidgeSolver::Svd),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--solver: expected cholesky or svd, found `{other}`"
            )));
        }
    }
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
    let mut params = KernelRidge::params().kernel(kernel(&mut p, data)?);
    if let Some(a) = p.take("alpha")? {
        params = params.alpha(a);
    }
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
        summary: "least-squares linear regression (scikit-learn's LinearRegression)",
        params_help: "  --solver qr|svd|normal-equations|gradient-descent
                                     QR (default; SVD when the data are rank-deficient), SVD, Cholesky of X'X, or gradient descent
  --max-iter <count>                 gradient descent's step limit (default 100000)
  --tol <number>                     gradient descent stops when the scaled gradient norm is below it (default 1e-10)",
        common_help: FIT_INTERCEPT_HELP,
        train: train_linear,
        predict: predict_linear,
        scores: None,
    },
    ModelEntry {
        name: "ridge",
        classifier: false,
        kind: Ridge::KIND,
        summary: "ridge regression: least squares + alpha·|w|² (scikit-learn's Ridge)",
        params_help: "  --alpha <number>                   penalty strength ≥ 0 (default 1)
  --solver cholesky|svd              Cholesky (default) or SVD",
        common_help: FIT_INTERCEPT_HELP,
        train: train_ridge,
        predict: predict_ridge,
        scores: None,
    },
    ModelEntry {
        name: "kernel-ridge",
        classifier: false,
        kind: KernelRidge::KIND,
        summary: "kernel ridge regression, no intercept (scikit-learn's KernelRidge)",
        params_help: "  --alpha <number>                   penalty strength ≥ 0 (default 1)
  --kernel linear|rbf|poly           kernel (default linear)
  --gamma auto|<number>              rbf/poly γ (default auto = 1/d, scikit-learn's gamma=None)
  --degree <int>                     poly degree (default 3)
  --coef0 <number>                   poly constant (default 1)",
        common_help: "",
        train: train_kernel_ridge,
        predict: predict_kernel_ridge,
        scores: None,
    },
];
