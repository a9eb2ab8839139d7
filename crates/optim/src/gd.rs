//! (Sub)gradient descent: batch, mini-batch and stochastic, with the textbook step rules.
//!
//! The problem is a [`FiniteSum`] `f(w) = (1/n) Σᵢ fᵢ(w)` (a regularized empirical risk such
//! as [`crate::risk::LinearRisk`]); full-batch descent only ever asks for the whole gradient,
//! mini-batch and stochastic descent ask for unbiased estimates from a few terms.
//!
//! An *iteration* is one gradient step in full-batch mode and one epoch (a pass over a fresh
//! random permutation of the terms, in mini-batches) otherwise; the objective, the full
//! gradient norm and the stopping tests are evaluated once per iteration, and an
//! [`Observer`] sees each one (progress bars, loss curves, early stopping).
//!
//! ```
//! use margin_optim::gd::{minimize, Batch, GdOptions, LossHistory, StepRule};
//! use margin_optim::{Criterion, Stop};
//! use margin_optim::risk::LinearRisk;
//! use margin_optim::loss::Loss;
//! use margin_core::DenseMatrix;
//!
//! // Least squares y = 2x through the origin: the minimizer of ½(2x − w x)² averaged is w = 2.
//! let x = DenseMatrix::from_rows(&[vec![1.0], vec![2.0], vec![3.0]])?;
//! let y = [2.0, 4.0, 6.0];
//! let risk = LinearRisk::new(&x, &y, None, Loss::Squared, 0.0, false)?;
//! let options = GdOptions { step: StepRule::Constant(0.1), grad_tol: 1e-10, ..GdOptions::default() };
//! let mut history = LossHistory::default();
//! let result = minimize(&risk, vec![0.0], &options, &mut history)?;
//! assert_eq!(result.stop, Stop::Converged(Criterion::GradientNorm));
//! assert!((result.w[0] - 2.0).abs() < 1e-9);
//! assert!(history.values.windows(2).all(|p| p[1] <= p[0]));
//! # Ok::<(), margin_core::Error>(())
//! ```

use margin_core::split::rng_from_seed;
use margin_core::{Error, Result};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::checks;
pub use crate::{Control, LossHistory, Observer, Progress};
use crate::{Criterion, Run, Stop};

/// A differentiable (or subdifferentiable) objective of `dim()` parameters.
pub trait Objective {
    /// The number of parameters.
    fn dim(&self) -> usize;
    /// `f(w)`.
    fn value(&self, w: &[f64]) -> f64;
    /// `f(w)`, writing `∇f(w)` (a subgradient where `f` has a kink) into `grad`.
    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64;
    /// Whether an L1 penalty applies to parameter `j` (intercepts are usually exempt).
    fn is_penalized(&self, j: usize) -> bool {
        let _ = j;
        true
    }
}

/// An objective that is an average of `n_terms()` terms, so a few terms give an unbiased
/// estimate of its gradient.
pub trait FiniteSum: Objective {
    /// The number of terms `n`.
    fn n_terms(&self) -> usize;
    /// Writes an unbiased estimate of `∇f(w)` computed from the terms in `batch` into `grad`.
    fn batch_gradient(&self, w: &[f64], batch: &[usize], grad: &mut [f64]);
}

/// Which terms each step's gradient is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Batch {
    /// All terms: classic gradient descent.
    Full,
    /// `k` terms per step, drawn without replacement from each epoch's permutation.
    MiniBatch(usize),
    /// One term per step (`MiniBatch(1)`).
    Stochastic,
}

/// The step size `η_t` at step `t = 1, 2, …` (steps are counted across epochs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum StepRule {
    /// `η_t = η`.
    Constant(f64),
    /// `η_t = η₀ / t`.
    InverseT(f64),
    /// `η_t = η₀ / √t`.
    InverseSqrtT(f64),
    /// Armijo backtracking (full batch only): starting from `min(initial, 2·η_{t−1})`, multiply
    /// by `shrink` until `f(w − η g) ≤ f(w) − c·η·‖g‖²`.
    Armijo {
        /// The first trial step.
        initial: f64,
        /// Factor in (0, 1) applied after each rejected trial.
        shrink: f64,
        /// The sufficient-decrease constant `c` in (0, 1).
        c: f64,
    },
}

/// Settings of [`minimize`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GdOptions {
    /// Terms per step (default full batch).
    pub batch: Batch,
    /// Step rule (default Armijo from 1 with shrink ½ and c = 10⁻⁴).
    pub step: StepRule,
    /// Iteration limit (steps in full-batch mode, epochs otherwise; default 1000).
    pub max_iter: usize,
    /// Stop when `‖∇f(w)‖₂ ≤ grad_tol` (default 1e-6; 0 disables). With an L1 penalty the
    /// norm is that of the smallest subgradient of the penalized objective, 0 at its optimum.
    pub grad_tol: f64,
    /// Stop when `|f_prev − f| ≤ rel_tol · max(|f_prev|, |f|)` between iterations (default 0,
    /// disabled; subgradient methods are not monotone, so use it with care there).
    pub rel_tol: f64,
    /// Weight of an L1 penalty `l1 · Σ |w_j|` over the objective's penalized parameters
    /// ([`Objective::is_penalized`]), handled by a soft-threshold (proximal) step after each
    /// gradient step: proximal gradient descent (ISTA), or truncated stochastic gradient
    /// (default 0, none).
    pub l1: f64,
    /// Seed of the epoch permutations.
    pub seed: u64,
}

impl Default for GdOptions {
    fn default() -> Self {
        Self {
            batch: Batch::Full,
            step: StepRule::Armijo {
                initial: 1.0,
                shrink: 0.5,
                c: 1e-4,
            },
            max_iter: 1000,
            grad_tol: 1e-6,
            rel_tol: 0.0,
            l1: 0.0,
            seed: 0,
        }
    }
}

/// The result of [`minimize`].
#[derive(Clone, Debug, PartialEq)]
pub struct GdResult {
    /// The final parameters.
    pub w: Vec<f64>,
    /// `f(w)`.
    pub objective: f64,
    /// `‖∇f(w)‖₂`.
    pub gradient_norm: f64,
    /// Iterations run (steps or epochs).
    pub iterations: usize,
    /// Why it stopped.
    pub stop: Stop,
}

impl GdResult {
    /// The run as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.iterations, self.stop)
            .with_objective(self.objective)
            .with_violation(self.gradient_norm)
    }
}

fn check_options(options: &GdOptions) -> Result<()> {
    let positive = |name: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(())
        } else {
            Err(Error::invalid_parameter(name, v, "a finite number > 0"))
        }
    };
    match options.step {
        StepRule::Constant(eta) | StepRule::InverseT(eta) | StepRule::InverseSqrtT(eta) => {
            positive("step", eta)?
        }
        StepRule::Armijo { initial, shrink, c } => {
            positive("armijo initial step", initial)?;
            if !(shrink > 0.0 && shrink < 1.0) {
                return Err(Error::invalid_parameter(
                    "armijo shrink",
                    shrink,
                    "in (0, 1)",
                ));
            }
            if !(c > 0.0 && c < 1.0) {
                return Err(Error::invalid_parameter("armijo c", c, "in (0, 1)"));
            }
            if options.batch != Batch::Full {
                return Err(Error::invalid_parameter(
                    "step",
                    "armijo",
                    "a fixed rule (constant, 1/t, 1/sqrt t) with mini-batch or stochastic descent: \
                     a line search needs the full objective",
                ));
            }
        }
    }
    if options.batch == Batch::MiniBatch(0) {
        return Err(Error::invalid_parameter("batch_size", 0, "at least 1"));
    }
    if options.max_iter == 0 {
        return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
    }
    for (name, v) in [
        ("grad_tol", options.grad_tol),
        ("rel_tol", options.rel_tol),
        ("l1", options.l1),
    ] {
        checks::non_negative(name, v)?;
    }
    Ok(())
}

/// `f(w) + l1 · Σ_{penalized} |w_j|`.
fn composite<F: Objective + ?Sized>(f: &F, value: f64, w: &[f64], l1: f64) -> f64 {
    if l1 == 0.0 {
        return value;
    }
    value
        + l1 * w
            .iter()
            .enumerate()
            .filter(|&(j, _)| f.is_penalized(j))
            .map(|(_, v)| v.abs())
            .sum::<f64>()
}

/// The norm of the smallest subgradient of `f + l1‖·‖₁` at `w`.
fn optimality<F: Objective + ?Sized>(f: &F, grad: &[f64], w: &[f64], l1: f64) -> f64 {
    grad.iter()
        .zip(w)
        .enumerate()
        .map(|(j, (&g, &w))| {
            let s = if l1 == 0.0 || !f.is_penalized(j) {
                g
            } else if w != 0.0 {
                g + l1 * w.signum()
            } else {
                (g.abs() - l1).max(0.0)
            };
            s * s
        })
        .sum::<f64>()
        .sqrt()
}

/// The proximal step of `η·l1‖·‖₁`: soft-thresholding of the penalized parameters.
fn soft_threshold<F: Objective + ?Sized>(f: &F, w: &mut [f64], threshold: f64) {
    if threshold == 0.0 {
        return;
    }
    for (j, v) in w.iter_mut().enumerate() {
        if f.is_penalized(j) {
            *v = v.signum() * (v.abs() - threshold).max(0.0);
        }
    }
}

fn fixed_step(rule: StepRule, t: usize) -> f64 {
    let t = t as f64;
    match rule {
        StepRule::Constant(eta) => eta,
        StepRule::InverseT(eta) => eta / t,
        StepRule::InverseSqrtT(eta) => eta / t.sqrt(),
        StepRule::Armijo { initial, .. } => initial,
    }
}

/// Minimizes `f` from `w0` by (sub)gradient descent.
///
/// Errors: invalid options, `w0` of the wrong length or not finite, or an objective that
/// becomes non-finite (a step too large for the problem: the error says so).
pub fn minimize<F: FiniteSum + ?Sized>(
    f: &F,
    w0: Vec<f64>,
    options: &GdOptions,
    observer: &mut dyn Observer,
) -> Result<GdResult> {
    check_options(options)?;
    checks::start_point(&w0, f.dim())?;
    let mut w = w0;
    const WHAT: &str = "gradient descent's vectors";
    checks::vectors(3, w.len(), WHAT)?;
    let mut grad = checks::parameters(w.len(), WHAT)?;
    let l1 = options.l1;
    let mut smooth = f.value_and_gradient(&w, &mut grad);
    let mut value = composite(f, smooth, &w, l1);
    let mut gradient_norm = optimality(f, &grad, &w, l1);
    let mut rng = rng_from_seed(options.seed);
    let mut order: Vec<usize> = (0..f.n_terms()).collect();
    let mut trial = checks::parameters(w.len(), WHAT)?;
    let mut step = fixed_step(options.step, 1);
    let mut t = 0usize;
    let mut iterations = 0;
    let stop = loop {
        if options.grad_tol > 0.0 && gradient_norm <= options.grad_tol {
            break Stop::Converged(Criterion::GradientNorm);
        }
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        let previous = value;
        match (options.batch, options.step) {
            (Batch::Full, StepRule::Armijo { initial, shrink, c }) => {
                step = if iterations == 0 {
                    initial
                } else {
                    initial.min(2.0 * step)
                };
                let decrease = c * gradient_norm * gradient_norm;
                // f is only known to rounding: without this slack, backtracking near the
                // optimum shrinks the step to nothing on noise.
                let slack = 4.0 * f64::EPSILON * smooth.abs();
                let accepted = loop {
                    for ((t, w), g) in trial.iter_mut().zip(&w).zip(&grad) {
                        *t = w - step * g;
                    }
                    let enough = if l1 == 0.0 {
                        f.value(&trial) <= value - step * decrease + slack
                    } else {
                        // Proximal gradient's test (Beck & Teboulle 2009): the quadratic
                        // model at w must bound f at the shrunk trial point.
                        soft_threshold(f, &mut trial, step * l1);
                        let v = f.value(&trial);
                        let model: f64 = trial
                            .iter()
                            .zip(&w)
                            .zip(&grad)
                            .map(|((t, w), g)| g * (t - w) + (t - w) * (t - w) / (2.0 * step))
                            .sum();
                        v <= smooth + model + slack
                    };
                    if enough {
                        break true;
                    }
                    step *= shrink;
                    if step < 1e-20 {
                        break false;
                    }
                };
                if !accepted {
                    break Stop::StepTooSmall;
                }
                std::mem::swap(&mut w, &mut trial);
            }
            (Batch::Full, rule) => {
                t += 1;
                step = fixed_step(rule, t);
                for (w, g) in w.iter_mut().zip(&grad) {
                    *w -= step * g;
                }
                soft_threshold(f, &mut w, step * l1);
            }
            (batch, rule) => {
                let k = match batch {
                    Batch::MiniBatch(k) => k,
                    _ => 1,
                };
                order.shuffle(&mut rng);
                for chunk in order.chunks(k) {
                    t += 1;
                    step = fixed_step(rule, t);
                    f.batch_gradient(&w, chunk, &mut grad);
                    for (w, g) in w.iter_mut().zip(&grad) {
                        *w -= step * g;
                    }
                    soft_threshold(f, &mut w, step * l1);
                }
            }
        }
        iterations += 1;
        smooth = f.value_and_gradient(&w, &mut grad);
        value = composite(f, smooth, &w, l1);
        gradient_norm = optimality(f, &grad, &w, l1);
        if !value.is_finite() {
            return Err(Error::Numerical(format!(
                "the objective became {value} at iteration {iterations}: the step size ({step:e}) \
                 is too large for this problem; choose a smaller one or Armijo backtracking"
            )));
        }
        let progress = Progress {
            objective: Some(value),
            violation: Some(gradient_norm),
            step: Some(step),
            w: Some(&w),
            ..Progress::new("gd", iterations)
        };
        if observer.observe(&progress) == Control::Stop {
            break Stop::Observer;
        }
        if options.rel_tol > 0.0
            && (previous - value).abs() <= options.rel_tol * previous.abs().max(value.abs())
        {
            break Stop::Converged(Criterion::RelativeChange);
        }
    };
    Ok(GdResult {
        w,
        objective: value,
        gradient_norm,
        iterations,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f(w) = (1/n) Σ ½ a_i (w − c_i)²`: minimizer the a-weighted mean of `c`.
    struct Quadratic {
        a: Vec<f64>,
        c: Vec<f64>,
    }

    impl Objective for Quadratic {
        fn dim(&self) -> usize {
            1
        }
        fn value(&self, w: &[f64]) -> f64 {
            let n = self.a.len() as f64;
            self.a
                .iter()
                .zip(&self.c)
                .map(|(a, c)| 0.5 * a * (w[0] - c).powi(2))
                .sum::<f64>()
                / n
        }
        fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
            let all: Vec<usize> = (0..self.a.len()).collect();
            self.batch_gradient(w, &all, grad);
            self.value(w)
        }
    }

    impl FiniteSum for Quadratic {
        fn n_terms(&self) -> usize {
            self.a.len()
        }
        fn batch_gradient(&self, w: &[f64], batch: &[usize], grad: &mut [f64]) {
            grad[0] = batch
                .iter()
                .map(|&i| self.a[i] * (w[0] - self.c[i]))
                .sum::<f64>()
                / batch.len() as f64;
        }
    }

    fn problem() -> (Quadratic, f64) {
        let q = Quadratic {
            a: vec![1.0, 2.0, 3.0, 0.5],
            c: vec![-1.0, 2.0, 0.5, 4.0],
        };
        let optimum =
            q.a.iter().zip(&q.c).map(|(a, c)| a * c).sum::<f64>() / q.a.iter().sum::<f64>();
        (q, optimum)
    }

    fn run(options: GdOptions) -> GdResult {
        let (q, _) = problem();
        minimize(&q, vec![10.0], &options, &mut |_: &Progress<'_>| {
            Control::Continue
        })
        .unwrap()
    }

    #[test]
    fn every_step_rule_reaches_the_minimizer_in_full_batch() {
        let (_, optimum) = problem();
        for step in [
            StepRule::Constant(0.5),
            StepRule::InverseT(1.5),
            StepRule::InverseSqrtT(1.0),
            StepRule::Armijo {
                initial: 1.0,
                shrink: 0.5,
                c: 1e-4,
            },
        ] {
            let r = run(GdOptions {
                step,
                grad_tol: 1e-9,
                max_iter: 100_000,
                ..GdOptions::default()
            });
            assert_eq!(r.stop, Stop::Converged(Criterion::GradientNorm), "{step:?}");
            assert!(
                (r.w[0] - optimum).abs() < 1e-8,
                "{step:?}: {} vs {optimum}",
                r.w[0]
            );
        }
    }

    #[test]
    fn stochastic_and_mini_batch_descent_approach_the_minimizer() {
        let (_, optimum) = problem();
        for batch in [Batch::Stochastic, Batch::MiniBatch(2)] {
            let r = run(GdOptions {
                batch,
                step: StepRule::InverseT(1.0),
                grad_tol: 0.0,
                max_iter: 20_000,
                seed: 3,
                ..GdOptions::default()
            });
            assert_eq!(r.stop, Stop::MaxIterations);
            assert!(
                (r.w[0] - optimum).abs() < 1e-3,
                "{batch:?}: {} vs {optimum}",
                r.w[0]
            );
        }
    }

    #[test]
    fn l1_proximal_steps_reach_the_soft_threshold_solution() {
        // min (1/n) Σ ½(w xᵢ − yᵢ)² + l1 |w| has w* = S(mean(x y), l1) / mean(x²).
        let x = margin_core::DenseMatrix::from_rows(&[[1.0], [2.0], [-1.0], [0.5]]).unwrap();
        let y = [0.3, 0.9, -0.2, 0.1];
        let risk =
            crate::risk::LinearRisk::new(&x, &y, None, crate::loss::Loss::Squared, 0.0, false)
                .unwrap();
        let (xy, xx): (f64, f64) = (
            (0.3 + 1.8 + 0.2 + 0.05) / 4.0,
            (1.0 + 4.0 + 1.0 + 0.25) / 4.0,
        );
        for l1 in [0.1, 0.5, 1.0] {
            let expected = xy.signum() * (xy.abs() - l1).max(0.0) / xx;
            for step in [
                StepRule::Constant(0.3),
                StepRule::Armijo {
                    initial: 1.0,
                    shrink: 0.5,
                    c: 1e-4,
                },
            ] {
                let options = GdOptions {
                    step,
                    l1,
                    grad_tol: 1e-12,
                    max_iter: 10_000,
                    ..GdOptions::default()
                };
                let r = minimize(&risk, vec![0.0], &options, &mut |_: &Progress<'_>| {
                    Control::Continue
                })
                .unwrap();
                assert_eq!(
                    r.stop,
                    Stop::Converged(Criterion::GradientNorm),
                    "l1={l1} {step:?}"
                );
                assert!(
                    (r.w[0] - expected).abs() < 1e-10,
                    "l1={l1} {step:?}: {} vs {expected}",
                    r.w[0]
                );
            }
        }
    }

    #[test]
    fn same_seed_same_path() {
        let options = GdOptions {
            batch: Batch::Stochastic,
            step: StepRule::InverseSqrtT(0.3),
            max_iter: 50,
            seed: 9,
            ..GdOptions::default()
        };
        assert_eq!(run(options), run(options));
        assert_ne!(
            run(options).w,
            run(GdOptions {
                seed: 10,
                ..options
            })
            .w
        );
    }

    #[test]
    fn observer_sees_every_iteration_and_can_stop() {
        let (q, _) = problem();
        let mut seen = Vec::new();
        let mut observer = |p: &Progress<'_>| {
            seen.push(p.iteration);
            if p.iteration == 3 {
                Control::Stop
            } else {
                Control::Continue
            }
        };
        let r = minimize(
            &q,
            vec![10.0],
            &GdOptions {
                step: StepRule::Constant(0.01),
                ..GdOptions::default()
            },
            &mut observer,
        )
        .unwrap();
        assert_eq!((r.stop, r.iterations), (Stop::Observer, 3));
        assert_eq!(seen, [1, 2, 3]);
    }

    #[test]
    fn relative_change_and_iteration_limit_stop_the_run() {
        let r = run(GdOptions {
            step: StepRule::Constant(0.01),
            grad_tol: 0.0,
            rel_tol: 1e-3,
            ..GdOptions::default()
        });
        assert_eq!(r.stop, Stop::Converged(Criterion::RelativeChange));
        let r = run(GdOptions {
            step: StepRule::Constant(0.01),
            max_iter: 7,
            ..GdOptions::default()
        });
        assert_eq!((r.stop, r.iterations), (Stop::MaxIterations, 7));
    }

    #[test]
    fn divergence_and_bad_options_are_errors() {
        let (q, _) = problem();
        let mut go_on = |_: &Progress<'_>| Control::Continue;
        let diverging = GdOptions {
            step: StepRule::Constant(1e3),
            max_iter: 10_000,
            ..GdOptions::default()
        };
        assert!(matches!(
            minimize(&q, vec![10.0], &diverging, &mut go_on),
            Err(Error::Numerical(_))
        ));
        for bad in [
            GdOptions {
                step: StepRule::Constant(-1.0),
                ..GdOptions::default()
            },
            GdOptions {
                step: StepRule::InverseT(f64::NAN),
                ..GdOptions::default()
            },
            GdOptions {
                batch: Batch::Stochastic,
                ..GdOptions::default()
            },
            GdOptions {
                batch: Batch::MiniBatch(0),
                step: StepRule::Constant(0.1),
                ..GdOptions::default()
            },
            GdOptions {
                max_iter: 0,
                ..GdOptions::default()
            },
            GdOptions {
                grad_tol: -1.0,
                ..GdOptions::default()
            },
        ] {
            assert!(
                matches!(
                    minimize(&q, vec![0.0], &bad, &mut go_on),
                    Err(Error::InvalidParameter { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            minimize(&q, vec![0.0, 1.0], &GdOptions::default(), &mut go_on),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            minimize(&q, vec![f64::NAN], &GdOptions::default(), &mut go_on),
            Err(Error::NonFinite { .. })
        ));
    }
}
