//! # optim: solvers that know nothing about models
//!
//! - [`smo`]: sequential minimal optimization for the SVM dual
//!   `min ½αᵀQα + pᵀα  s.t.  yᵀα = Δ, 0 ≤ α_i ≤ C_i`, LIBSVM's algorithm (second-order
//!   working-set selection, shrinking with gradient reconstruction, ρ from the free variables),
//!   and its ν variant. The solver sees `Q` only through the [`smo::QMatrix`] trait, so the
//!   model crate decides how columns are computed and cached.
//! - [`batched`]: the same dual solved a working set of `q` variables at a time: each
//!   subproblem solved by [`smo`] on the set's block of `Q`, the gradient updated by the set's
//!   rows weighted by the steps ([`batched::QRows`], which a kernel computes as matrix
//!   products): optimal to the same tolerance.
//!
//! - [`gd`]: (sub)gradient descent — batch, mini-batch, stochastic; constant, `1/t`, `1/√t`
//!   and Armijo steps; stopping on the gradient norm, relative change or iterations; an
//!   [`Observer`] for progress and loss curves.
//! - [`pegasos`]: the Pegasos stochastic sub-gradient solver for the linear SVM (`O(nnz)`
//!   steps on sparse data, mini-batches, projection, averaged iterates) and its kernelized
//!   textbook form.
//! - [`lbfgs`] (limited-memory BFGS with a strong-Wolfe line search, SciPy's stopping rules)
//!   and [`newton`] (Cholesky-factored Newton steps for small problems): the smooth solvers.
//! - [`dcd`]: LIBLINEAR's dual coordinate descent for L1- and L2-loss linear SVMs.
//! - [`cd`]: cyclic coordinate descent for the elastic net (lasso, ridge and between), with
//!   scikit-learn's duality-gap stopping and warm starts.
//! - [`loss`] and [`risk`]: the per-sample losses and the regularized empirical risk of a
//!   linear model, the [`gd::FiniteSum`] the descent solvers minimize; for rows held in
//!   parts, [`risk::PartedRisk`] adds the parts' [`risk::LossSums`].
//!
//! Every solver takes an [`Observer`] as its last argument (`&mut ()` when nobody watches):
//! one call shape, whether or not the caller wants progress.
//!
//! ```
//! use margin_optim::smo::{DenseQ, Problem, SolverOptions, solve};
//!
//! // Two points on a line, labels +1 and -1, linear kernel: Q_ij = y_i y_j x_i x_j.
//! let (x, y) = ([1.0, -1.0], [1i8, -1]);
//! let mut q = DenseQ::new(2, |i, j| f64::from(y[i] * y[j]) * x[i] * x[j]);
//! let problem = Problem { p: vec![-1.0; 2], y: y.to_vec(), c: vec![10.0; 2], alpha: vec![0.0; 2] };
//! let sol = solve(&mut q, problem, &SolverOptions::default(), &mut ())?;
//! // Hard-margin solution: α = (½, ½), w = Σ α_i y_i x_i = 1, b = 0.
//! assert!((sol.alpha[0] - 0.5).abs() < 1e-9 && sol.rho.abs() < 1e-9);
//! # Ok::<(), margin_core::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod batched;
pub mod cd;
mod checks;
pub mod dcd;
pub mod gd;
pub mod lbfgs;
pub mod loss;
pub mod newton;
pub mod pegasos;
pub mod risk;
mod sample_rows;
pub mod smo;

/// The termination type, run record, fit report and observer every solver shares, defined in
/// `margin-core` (k-means and boosting, in crates that do not depend on this one, report
/// through them too) and re-exported here beside the solvers.
pub use margin_core::fit::{
    Control, Criterion, FitReport, LossHistory, Mark, Observer, Progress, Run, Stop, StopAfter,
};

/// What every solver's observer tests check, given a solve that takes an observer and
/// returns its result with its run.
#[cfg(test)]
pub(crate) mod observed {
    use super::{Control, Observer, Progress, Run, Stop, StopAfter};
    use margin_core::DenseMatrix;
    use std::fmt::Debug;

    /// Six points in the plane with ±1 labels no line separates: the smooth solvers' shared
    /// test problem.
    pub(crate) fn six_points() -> (DenseMatrix, [f64; 6]) {
        let x = DenseMatrix::from_rows(&[
            [0.5, 1.0],
            [1.5, -0.5],
            [-1.0, 0.3],
            [-0.2, -1.2],
            [0.9, 0.8],
            [-1.4, 0.1],
        ])
        .unwrap();
        (x, [1.0, 1.0, -1.0, -1.0, -1.0, 1.0])
    }

    /// An observer that only records sees every iteration, from 1, and leaves the result
    /// bit-identical; one that stops at `k` (fewer than the run needs) gives a run of `k`
    /// iterations with the observer's stop. Returns the plain run.
    pub(crate) fn check<T: PartialEq + Debug>(
        solver: &str,
        k: usize,
        mut solve: impl FnMut(&mut dyn Observer) -> (T, Run),
    ) -> Run {
        let (plain, plain_run) = solve(&mut ());
        let mut seen = Vec::new();
        let mut record = |p: &Progress<'_>| {
            assert_eq!(p.solver, solver);
            seen.push(p.iteration);
            Control::Continue
        };
        let (watched, watched_run) = solve(&mut record);
        assert_eq!(
            plain, watched,
            "{solver}: a recording observer changed the result"
        );
        assert_eq!(format!("{plain_run:?}"), format!("{watched_run:?}"));
        assert_eq!(
            seen,
            (1..=plain_run.iterations).collect::<Vec<_>>(),
            "{solver}"
        );
        assert!(
            k < plain_run.iterations,
            "{solver}: k = {k} of {}",
            plain_run.iterations
        );
        let mut stop = StopAfter::new(k);
        let (_, stopped) = solve(&mut stop);
        assert_eq!(
            (stopped.iterations, stopped.stop),
            (k, Stop::Observer),
            "{solver}"
        );
        assert_eq!(stop.seen, k, "{solver}");
        plain_run
    }
}
