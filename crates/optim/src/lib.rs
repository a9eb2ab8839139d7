//! # optim: solvers that know nothing about models
//!
//! - [`smo`]: sequential minimal optimization for the SVM dual
//!   `min ½αᵀQα + pᵀα  s.t.  yᵀα = Δ, 0 ≤ α_i ≤ C_i`, LIBSVM's algorithm (second-order
//!   working-set selection, shrinking with gradient reconstruction, ρ from the free variables),
//!   and its ν variant. The solver sees `Q` only through the [`smo::QMatrix`] trait, so the
//!   model crate decides how columns are computed and cached.
//!
//! Gradient descent, Pegasos, dual coordinate descent and L-BFGS come with their issues.
//!
//! ```
//! use optim::smo::{DenseQ, Problem, SolverOptions, solve};
//!
//! // Two points on a line, labels +1 and -1, linear kernel: Q_ij = y_i y_j x_i x_j.
//! let (x, y) = ([1.0, -1.0], [1i8, -1]);
//! let mut q = DenseQ::new(2, |i, j| f64::from(y[i] * y[j]) * x[i] * x[j]);
//! let problem = Problem { p: vec![-1.0; 2], y: y.to_vec(), c: vec![10.0; 2], alpha: vec![0.0; 2] };
//! let sol = solve(&mut q, problem, &SolverOptions::default())?;
//! // Hard-margin solution: α = (½, ½), w = Σ α_i y_i x_i = 1, b = 0.
//! assert!((sol.alpha[0] - 0.5).abs() < 1e-9 && sol.rho.abs() < 1e-9);
//! # Ok::<(), core_linalg::Error>(())
//! ```

#![warn(missing_docs)]

pub mod smo;
