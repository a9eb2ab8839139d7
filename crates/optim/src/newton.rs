//! Newton's method with a Cholesky-factored Hessian and Armijo backtracking, for smooth
//! strictly convex objectives of few parameters (scikit-learn's `newton-cholesky`).
//!
//! Each iteration solves `H p = −∇f` with faer's Cholesky factorization (`O(d³)`), so it
//! pays off only for small `d`; in return it converges quadratically near the optimum. A
//! Hessian that is not numerically positive definite gets `μI` added (μ grown tenfold until
//! the factorization succeeds), which turns the step into a Levenberg–Marquardt step.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use margin_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::checks;

use crate::gd::{GdResult, Objective};
use crate::lbfgs::max_abs;
use crate::{Control, Criterion, Observer, Progress, Stop};

/// An objective that can also give its Hessian.
pub trait Hessian: Objective {
    /// Writes `∇²f(w)` into `h` (`dim × dim`); fails when its scratch cannot be had.
    fn hessian(&self, w: &[f64], h: &mut Mat<f64>) -> Result<()>;
}

/// Settings of [`newton`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewtonOptions {
    /// Iteration limit (default 100).
    pub max_iter: usize,
    /// Stop when the largest gradient component is at most this (default 1e-8).
    pub grad_tol: f64,
}

impl Default for NewtonOptions {
    fn default() -> Self {
        Self {
            max_iter: 100,
            grad_tol: 1e-8,
        }
    }
}

/// Minimizes `f` from `w0` by damped Newton steps.
pub fn newton<F: Hessian + ?Sized>(
    f: &F,
    w0: Vec<f64>,
    options: &NewtonOptions,
    observer: &mut dyn Observer,
) -> Result<GdResult> {
    if options.max_iter == 0 {
        return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
    }
    checks::non_negative("grad_tol", options.grad_tol)?;
    let n = f.dim();
    checks::start_point(&w0, n)?;
    // The Hessian, its damped copy and their factor are `n × n` each: asked for up front (with
    // two more for the Hessian's partial sums), as they grow with the square of the width.
    checks::vectors(5 * n, n, "Newton's Hessian")?;
    margin_core::memory::check_products(n, n, n)?;
    let mut w = w0;
    let mut grad = checks::parameters(n, "Newton's gradient")?;
    let mut value = f.value_and_gradient(&w, &mut grad);
    let mut h = Mat::<f64>::zeros(n, n);
    let mut trial = checks::parameters(n, "Newton's trial point")?;
    let mut iterations = 0;
    let stop = loop {
        if max_abs(&grad) <= options.grad_tol {
            break Stop::Converged(Criterion::GradientNorm);
        }
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        f.hessian(&w, &mut h)?;
        let rhs = Mat::<f64>::from_fn(n, 1, |i, _| -grad[i]);
        if (0..n).any(|j| (0..n).any(|k| !h[(j, k)].is_finite())) {
            return Err(Error::OutOfRange {
                what: "the features".into(),
                reason: "the Hessian overflowed: rescale the features (e.g. StandardScaler)".into(),
            });
        }
        let scale = (0..n)
            .fold(0.0f64, |m, i| m.max(h[(i, i)].abs()))
            .max(1e-300);
        let mut damping = 0.0;
        let step = loop {
            let mut damped = h.clone();
            for i in 0..n {
                damped[(i, i)] += damping;
            }
            if let Ok(llt) = damped.llt(Side::Lower) {
                break llt.solve(&rhs);
            }
            damping = if damping == 0.0 {
                1e-10 * scale
            } else {
                damping * 10.0
            };
            if damping > 1e10 * scale {
                return Err(Error::Numerical(
                    "the Hessian could not be made positive definite: the objective is not \
                     convex here or the data are degenerate"
                        .into(),
                ));
            }
        };
        let slope: f64 = (0..n).map(|i| grad[i] * step[(i, 0)]).sum();
        let mut alpha = 1.0;
        let accepted = loop {
            for i in 0..n {
                trial[i] = w[i] + alpha * step[(i, 0)];
            }
            let v = f.value(&trial);
            // Within rounding of the current value also counts: near the optimum Newton's
            // full step is right even when f cannot show the decrease.
            if v <= value + 1e-4 * alpha * slope
                || (alpha == 1.0 && v <= value + 1e-12 * value.abs())
            {
                break true;
            }
            alpha *= 0.5;
            if alpha < 1e-20 {
                break false;
            }
        };
        if !accepted {
            break Stop::StepTooSmall;
        }
        std::mem::swap(&mut w, &mut trial);
        value = f.value_and_gradient(&w, &mut grad);
        iterations += 1;
        let progress = Progress {
            objective: Some(value),
            violation: Some(max_abs(&grad)),
            step: Some(alpha),
            w: Some(&w),
            ..Progress::new("newton", iterations)
        };
        if observer.observe(&progress) == Control::Stop {
            break Stop::Observer;
        }
    };
    Ok(GdResult {
        gradient_norm: max_abs(&grad),
        w,
        objective: value,
        iterations,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lbfgs::{LbfgsOptions, lbfgs};
    use crate::loss::Loss;
    use crate::risk::LinearRisk;
    use margin_core::{DenseMatrix, Records};

    #[test]
    fn newton_agrees_with_lbfgs_in_few_iterations() {
        let (x, y) = crate::observed::six_points();
        for loss in [Loss::Logistic, Loss::Squared, Loss::SquaredHinge] {
            let risk = LinearRisk::new(&x, &y, None, loss, 0.1, true).unwrap();
            let mut go_on = |_: &Progress<'_>| Control::Continue;
            let exact = newton(
                &risk,
                vec![0.0; 3],
                &NewtonOptions {
                    grad_tol: 1e-12,
                    ..Default::default()
                },
                &mut go_on,
            )
            .unwrap();
            let quasi = lbfgs(
                &risk,
                vec![0.0; 3],
                &LbfgsOptions {
                    grad_tol: 1e-12,
                    f_tol: 0.0,
                    ..Default::default()
                },
                &mut go_on,
            )
            .unwrap();
            assert_eq!(
                exact.stop,
                Stop::Converged(Criterion::GradientNorm),
                "{loss:?}"
            );
            assert!(
                exact.iterations <= 12,
                "{loss:?}: {} iterations",
                exact.iterations
            );
            for (a, b) in exact.w.iter().zip(&quasi.w) {
                assert!(
                    (a - b).abs() < 1e-9,
                    "{loss:?}: {:?} vs {:?}",
                    exact.w,
                    quasi.w
                );
            }
        }
        // Least squares is quadratic: one Newton step lands on the optimum.
        let risk = LinearRisk::new(
            &x,
            &[1.0, 2.0, 0.5, -1.0, 0.0, 3.0],
            None,
            Loss::Squared,
            0.0,
            true,
        )
        .unwrap();
        let mut go_on = |_: &Progress<'_>| Control::Continue;
        let r = newton(&risk, vec![0.0; 3], &NewtonOptions::default(), &mut go_on).unwrap();
        assert_eq!(r.iterations, 1);
        assert_eq!(x.n_samples(), 6);
    }

    #[test]
    fn the_smooth_solvers_observers_see_every_iteration_and_loss_never_rises() {
        use crate::gd::{GdOptions, StepRule, minimize};
        use crate::{LossHistory, Run};
        let (x, y) = crate::observed::six_points();
        let risk = LinearRisk::new(&x, &y, None, Loss::Logistic, 0.1, true).unwrap();
        let with_run = |r: GdResult| {
            let run: Run = r.run();
            (r, run)
        };
        let tight = NewtonOptions {
            grad_tol: 1e-14,
            ..Default::default()
        };
        let quasi = LbfgsOptions {
            grad_tol: 1e-12,
            f_tol: 0.0,
            ..Default::default()
        };
        let armijo = GdOptions {
            step: StepRule::Armijo {
                initial: 1.0,
                shrink: 0.5,
                c: 1e-4,
            },
            grad_tol: 1e-8,
            max_iter: 10_000,
            ..Default::default()
        };
        crate::observed::check("newton", 2, |o| {
            with_run(newton(&risk, vec![0.0; 3], &tight, o).unwrap())
        });
        crate::observed::check("lbfgs", 2, |o| {
            with_run(lbfgs(&risk, vec![0.0; 3], &quasi, o).unwrap())
        });
        crate::observed::check("gd", 2, |o| {
            with_run(minimize(&risk, vec![0.0; 3], &armijo, o).unwrap())
        });
        // The losses these solvers guarantee not to raise: Newton and L-BFGS by their line
        // searches, gradient descent by Armijo's test (up to the rounding slack it allows).
        let mut curves = [
            LossHistory::default(),
            LossHistory::default(),
            LossHistory::default(),
        ];
        newton(&risk, vec![0.0; 3], &tight, &mut curves[0]).unwrap();
        lbfgs(&risk, vec![0.0; 3], &quasi, &mut curves[1]).unwrap();
        minimize(&risk, vec![0.0; 3], &armijo, &mut curves[2]).unwrap();
        for curve in &curves {
            assert!(curve.values.len() >= 3, "{curve:?}");
            for p in curve.values.windows(2) {
                assert!(p[1] <= p[0] + 4.0 * f64::EPSILON * p[0].abs(), "{curve:?}");
            }
        }
    }

    #[test]
    fn bad_options_are_refused() {
        let x = DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap();
        let risk = LinearRisk::new(&x, &[1.0, -1.0], None, Loss::Logistic, 1.0, false).unwrap();
        let mut go_on = |_: &Progress<'_>| Control::Continue;
        assert!(matches!(
            newton(
                &risk,
                vec![0.0],
                &NewtonOptions {
                    max_iter: 0,
                    ..Default::default()
                },
                &mut go_on
            ),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            newton(&risk, vec![0.0, 0.0], &NewtonOptions::default(), &mut go_on),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}
