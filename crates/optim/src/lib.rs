//! # optim: solvers that know nothing about models
//!
//! - [`smo`]: sequential minimal optimization for the SVM dual
//!   `min ½αᵀQα + pᵀα  s.t.  yᵀα = Δ, 0 ≤ α_i ≤ C_i`, LIBSVM's algorithm (second-order
//!   working-set selection, shrinking with gradient reconstruction, ρ from the free variables),
//!   and its ν variant. The solver sees `Q` only through the [`smo::QMatrix`] trait, so the
//!   model crate decides how columns are computed and cached.
//!
//! - [`gd`]: (sub)gradient descent — batch, mini-batch, stochastic; constant, `1/t`, `1/√t`
//!   and Armijo steps; stopping on the gradient norm, relative change or iterations; an
//!   [`gd::Observer`] for progress and loss curves.
//! - [`pegasos`]: the Pegasos stochastic sub-gradient solver for the linear SVM (`O(nnz)`
//!   steps on sparse data, mini-batches, projection, averaged iterates) and its kernelized
//!   textbook form.
//! - [`lbfgs`] (limited-memory BFGS with a strong-Wolfe line search, SciPy's stopping rules)
//!   and [`newton`] (Cholesky-factored Newton steps for small problems): the smooth solvers.
//! - [`dcd`]: LIBLINEAR's dual coordinate descent for L1- and L2-loss linear SVMs.
//! - [`cd`]: cyclic coordinate descent for the elastic net (lasso, ridge and between), with
//!   scikit-learn's duality-gap stopping and warm starts.
//! - [`loss`] and [`risk`]: the per-sample losses and the regularized empirical risk of a
//!   linear model, the [`gd::FiniteSum`] the descent solvers minimize.
//!
//! ```
//! use margin_optim::smo::{DenseQ, Problem, SolverOptions, solve};
//!
//! // Two points on a line, labels +1 and -1, linear kernel: Q_ij = y_i y_j x_i x_j.
//! let (x, y) = ([1.0, -1.0], [1i8, -1]);
//! let mut q = DenseQ::new(2, |i, j| f64::from(y[i] * y[j]) * x[i] * x[j]);
//! let problem = Problem { p: vec![-1.0; 2], y: y.to_vec(), c: vec![10.0; 2], alpha: vec![0.0; 2] };
//! let sol = solve(&mut q, problem, &SolverOptions::default())?;
//! // Hard-margin solution: α = (½, ½), w = Σ α_i y_i x_i = 1, b = 0.
//! assert!((sol.alpha[0] - 0.5).abs() < 1e-9 && sol.rho.abs() < 1e-9);
//! # Ok::<(), margin_core::Error>(())
//! ```

pub mod cd;
mod checks;
pub mod dcd;
pub mod gd;
pub mod lbfgs;
pub mod loss;
pub mod newton;
pub mod pegasos;
pub mod risk;
pub mod smo;

use margin_core::Convergence;
use serde::{Deserialize, Serialize};

/// Why an iterative solver stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    /// The solver's optimality measure fell below the tolerance.
    Converged,
    /// The iteration limit was reached first: the solution is usable but not optimal to `tol`.
    MaxIterations,
}

impl StopReason {
    /// A run that stopped for this reason after `iterations`, as a fitted model's
    /// [`Convergence`] counts it.
    pub fn convergence(self, iterations: usize) -> Convergence {
        Convergence::run(self == StopReason::MaxIterations, iterations)
    }
}

/// Runs that stopped for `stops[i]` after `iterations[i]`, together (a model with one run per
/// binary problem).
pub fn convergence(stops: &[StopReason], iterations: &[usize]) -> Convergence {
    stops
        .iter()
        .zip(iterations)
        .map(|(s, &n)| s.convergence(n))
        .collect()
}
