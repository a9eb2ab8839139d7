//! The [`Kernel`] trait and the dot-product form that lets Gram matrices use GEMM.

use margin_core::{Records, Result, RowView};
use serde::{Deserialize, Serialize};

/// A kernel function `k(x, z)` on two samples (dense or sparse rows of equal width).
///
/// Implementations must be symmetric, `k(x, z) = k(z, x)`; all except the sigmoid are positive
/// semi-definite (every Gram matrix they produce is PSD).
pub trait Kernel: Send + Sync {
    /// `k(x, z)`.
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64;

    /// A short name with the parameters, such as `rbf(gamma=0.5)`.
    fn name(&self) -> String;

    /// When `k(x, z) = f(x·z, ‖x‖², ‖z‖²)`, that `f`: Gram matrices and cache columns are then
    /// computed from one matrix product instead of pair by pair.
    fn dot_form(&self) -> Option<DotForm> {
        None
    }

    /// Whether every Gram matrix of this kernel is positive semi-definite.
    fn is_psd(&self) -> bool {
        true
    }

    /// Refuses records this kernel is not defined on (wrong width for a matrix kernel, negative
    /// values for χ², malformed rows for a precomputed kernel).
    fn check(&self, records: &dyn Records) -> Result<()> {
        let _ = records;
        Ok(())
    }
}

/// A kernel written as a function of `x·z`, `‖x‖²` and `‖z‖²`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DotForm {
    /// `x·z`.
    Linear,
    /// `(γ x·z + coef0)^degree`.
    Polynomial {
        /// γ.
        gamma: f64,
        /// The constant term.
        coef0: f64,
        /// The power.
        degree: u32,
    },
    /// `exp(−γ ‖x − z‖²)` with `‖x − z‖² = ‖x‖² + ‖z‖² − 2 x·z` (clamped at 0).
    Rbf {
        /// γ.
        gamma: f64,
    },
    /// `tanh(γ x·z + coef0)`.
    Sigmoid {
        /// γ.
        gamma: f64,
        /// The constant term.
        coef0: f64,
    },
    /// `a · f`.
    Scaled(f64, Box<DotForm>),
    /// `f + g`.
    Sum(Box<DotForm>, Box<DotForm>),
    /// `f · g`.
    Product(Box<DotForm>, Box<DotForm>),
}

impl DotForm {
    /// Evaluates the form.
    #[inline]
    pub fn apply(&self, dot: f64, sq_x: f64, sq_z: f64) -> f64 {
        match self {
            DotForm::Linear => dot,
            DotForm::Polynomial {
                gamma,
                coef0,
                degree,
            } => powi(gamma * dot + coef0, *degree),
            DotForm::Rbf { gamma } => (-gamma * (sq_x + sq_z - 2.0 * dot).max(0.0)).exp(),
            DotForm::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            DotForm::Scaled(a, f) => a * f.apply(dot, sq_x, sq_z),
            DotForm::Sum(f, g) => f.apply(dot, sq_x, sq_z) + g.apply(dot, sq_x, sq_z),
            DotForm::Product(f, g) => f.apply(dot, sq_x, sq_z) * g.apply(dot, sq_x, sq_z),
        }
    }

    /// Whether the form needs the squared norms (only RBF terms do).
    pub fn needs_norms(&self) -> bool {
        match self {
            DotForm::Rbf { .. } => true,
            DotForm::Linear | DotForm::Polynomial { .. } | DotForm::Sigmoid { .. } => false,
            DotForm::Scaled(_, f) => f.needs_norms(),
            DotForm::Sum(f, g) | DotForm::Product(f, g) => f.needs_norms() || g.needs_norms(),
        }
    }
}

/// `x^n` by repeated squaring (exact for small integer powers, as LIBSVM's `powi`).
#[inline]
pub(crate) fn powi(base: f64, n: u32) -> f64 {
    let (mut acc, mut b, mut n) = (1.0, base, n);
    while n > 0 {
        if n & 1 == 1 {
            acc *= b;
        }
        b *= b;
        n >>= 1;
    }
    acc
}
