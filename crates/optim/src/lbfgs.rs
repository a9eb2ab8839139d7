//! Limited-memory BFGS (Nocedal & Wright, *Numerical Optimization*, Algorithms 7.4 and 7.5)
//! with a line search satisfying the strong Wolfe conditions (their Algorithms 3.5 and 3.6).
//!
//! Stopping follows SciPy's L-BFGS-B, which scikit-learn's `lbfgs` solver calls, so `tol`
//! means the same in both: stop when `max_j |∂f/∂w_j| ≤ grad_tol`, or when the relative
//! decrease `(f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) ≤ f_tol`.
//!
//! ```
//! use margin_optim::gd::{Control, Objective, Progress};
//! use margin_optim::lbfgs::{lbfgs, LbfgsOptions};
//!
//! /// Rosenbrock's banana, minimum at (1, 1).
//! struct Rosenbrock;
//! impl Objective for Rosenbrock {
//!     fn dim(&self) -> usize { 2 }
//!     fn value(&self, w: &[f64]) -> f64 { (1.0 - w[0]).powi(2) + 100.0 * (w[1] - w[0] * w[0]).powi(2) }
//!     fn value_and_gradient(&self, w: &[f64], g: &mut [f64]) -> f64 {
//!         g[0] = -2.0 * (1.0 - w[0]) - 400.0 * w[0] * (w[1] - w[0] * w[0]);
//!         g[1] = 200.0 * (w[1] - w[0] * w[0]);
//!         self.value(w)
//!     }
//! }
//! let options = LbfgsOptions { grad_tol: 1e-10, ..LbfgsOptions::default() };
//! let r = lbfgs(&Rosenbrock, vec![-1.2, 1.0], &options, &mut |_: &Progress<'_>| Control::Continue)?;
//! assert!((r.w[0] - 1.0).abs() < 1e-8 && (r.w[1] - 1.0).abs() < 1e-8);
//! # Ok::<(), margin_core::Error>(())
//! ```

use margin_core::{Error, Result, dot};
use serde::{Deserialize, Serialize};

use crate::checks;

use crate::gd::{GdResult, Objective};
use crate::{Control, Criterion, Observer, Progress, Stop};

/// Settings of [`lbfgs`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LbfgsOptions {
    /// Correction pairs kept (default 10, SciPy's `maxcor`).
    pub memory: usize,
    /// Iteration limit (default 1000).
    pub max_iter: usize,
    /// Stop when the largest gradient component is at most this (default 1e-5).
    pub grad_tol: f64,
    /// Stop when the relative decrease of `f` is at most this (default `64·ε` ≈ 1.4e-14,
    /// what scikit-learn passes to SciPy; 0 disables the test).
    pub f_tol: f64,
    /// Function evaluations allowed per line search (default 20).
    pub max_line_search: usize,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        Self {
            memory: 10,
            max_iter: 1000,
            grad_tol: 1e-5,
            f_tol: 64.0 * f64::EPSILON,
            max_line_search: 20,
        }
    }
}

pub(crate) fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `f` and its derivative along `p` at `w + α p`, with scratch for the point and gradient.
struct Line<'a, F: Objective + ?Sized> {
    f: &'a F,
    w: &'a [f64],
    p: &'a [f64],
    point: Vec<f64>,
    grad: Vec<f64>,
    evaluations: usize,
    /// The step of the last evaluation (whose point and gradient are in the scratch).
    last: f64,
}

impl<F: Objective + ?Sized> Line<'_, F> {
    fn eval(&mut self, alpha: f64) -> (f64, f64) {
        self.evaluations += 1;
        self.last = alpha;
        for ((x, w), p) in self.point.iter_mut().zip(self.w).zip(self.p) {
            *x = w + alpha * p;
        }
        let value = self.f.value_and_gradient(&self.point, &mut self.grad);
        (value, dot(&self.grad, self.p))
    }
}

/// The minimizer of the cubic through `(a, fa, da)` and `(b, fb, db)`, kept inside the
/// interval's middle part so that zoom always makes progress.
fn cubic_step(a: f64, fa: f64, da: f64, b: f64, fb: f64, db: f64) -> f64 {
    let d1 = da + db - 3.0 * (fa - fb) / (a - b);
    let disc = d1 * d1 - da * db;
    let (lo, hi) = (a.min(b), a.max(b));
    let fallback = 0.5 * (a + b);
    if disc < 0.0 {
        return fallback;
    }
    let d2 = (b - a).signum() * disc.sqrt();
    let t = b - (b - a) * (db + d2 - d1) / (db - da + 2.0 * d2);
    let margin = 0.1 * (hi - lo);
    if t.is_finite() && t > lo + margin && t < hi - margin {
        t
    } else {
        fallback
    }
}

/// Hager & Zhang's approximate Wolfe conditions (2005): near the optimum, `f` changes by
/// less than its rounding error and the sufficient-decrease test cannot be decided from `f`;
/// the slope still can. Accept a point whose value is within rounding of `f0` and whose slope
/// has risen to `(2c1 − 1)·d0 ≥ d ≥ c2·d0`.
fn approximately_wolfe(f0: f64, d0: f64, fa: f64, da: f64) -> bool {
    const C1: f64 = 1e-4;
    const C2: f64 = 0.9;
    fa <= f0 + 1e-12 * f0.abs() && da >= C2 * d0 && da <= (2.0 * C1 - 1.0) * d0
}

/// A step satisfying the strong Wolfe conditions (`c1 = 1e-4`, `c2 = 0.9`), or `None`.
fn wolfe_step<F: Objective + ?Sized>(
    line: &mut Line<'_, F>,
    f0: f64,
    d0: f64,
    initial: f64,
    max_evaluations: usize,
) -> Option<(f64, f64)> {
    const C1: f64 = 1e-4;
    const C2: f64 = 0.9;
    let (mut prev, mut f_prev, mut d_prev) = (0.0, f0, d0);
    let mut alpha = initial;
    loop {
        if line.evaluations >= max_evaluations {
            return None;
        }
        let (fa, da) = line.eval(alpha);
        if !fa.is_finite() {
            // Overshot into overflow: shrink toward the last good point.
            alpha = prev + 0.1 * (alpha - prev);
            continue;
        }
        if approximately_wolfe(f0, d0, fa, da) {
            return Some((alpha, fa));
        }
        if fa > f0 + C1 * alpha * d0 || (prev > 0.0 && fa >= f_prev) {
            return zoom(
                line,
                f0,
                d0,
                (prev, f_prev, d_prev),
                (alpha, fa, da),
                max_evaluations,
            );
        }
        if da.abs() <= -C2 * d0 {
            return Some((alpha, fa));
        }
        if da >= 0.0 {
            return zoom(
                line,
                f0,
                d0,
                (alpha, fa, da),
                (prev, f_prev, d_prev),
                max_evaluations,
            );
        }
        (prev, f_prev, d_prev) = (alpha, fa, da);
        alpha *= 2.0;
    }
}

fn zoom<F: Objective + ?Sized>(
    line: &mut Line<'_, F>,
    f0: f64,
    d0: f64,
    mut lo: (f64, f64, f64),
    mut hi: (f64, f64, f64),
    max_evaluations: usize,
) -> Option<(f64, f64)> {
    const C1: f64 = 1e-4;
    const C2: f64 = 0.9;
    while line.evaluations < max_evaluations {
        let alpha = cubic_step(lo.0, lo.1, lo.2, hi.0, hi.1, hi.2);
        let (fa, da) = line.eval(alpha);
        if approximately_wolfe(f0, d0, fa, da) {
            return Some((alpha, fa));
        }
        if fa > f0 + C1 * alpha * d0 || fa >= lo.1 {
            hi = (alpha, fa, da);
        } else {
            if da.abs() <= -C2 * d0 {
                return Some((alpha, fa));
            }
            if da * (hi.0 - lo.0) >= 0.0 {
                hi = lo;
            }
            lo = (alpha, fa, da);
        }
        if (hi.0 - lo.0).abs() <= 1e-16 * lo.0.abs().max(1.0) {
            break;
        }
    }
    // No Wolfe point within the budget: accept a sufficient decrease if zoom found one.
    (lo.0 > 0.0 && lo.1 < f0).then_some((lo.0, lo.1))
}

/// Minimizes a smooth `f` from `w0` by L-BFGS.
pub fn lbfgs<F: Objective + ?Sized>(
    f: &F,
    w0: Vec<f64>,
    options: &LbfgsOptions,
    observer: &mut dyn Observer,
) -> Result<GdResult> {
    if options.memory == 0 {
        return Err(Error::invalid_parameter("memory", 0, "at least 1"));
    }
    if options.max_iter == 0 {
        return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
    }
    if options.max_line_search == 0 {
        return Err(Error::invalid_parameter("max_line_search", 0, "at least 1"));
    }
    for (name, v) in [("grad_tol", options.grad_tol), ("f_tol", options.f_tol)] {
        checks::non_negative(name, v)?;
    }
    let n = f.dim();
    checks::start_point(&w0, n)?;
    // w, its gradient, the direction, the line search's point and gradient, and the
    // correction pairs (plus one spare): asked for before the first is used.
    const WHAT: &str = "L-BFGS's vectors";
    checks::vectors(2 * options.memory + 7, n, WHAT)?;
    let mut w = w0;
    let mut grad = checks::parameters(n, WHAT)?;
    let mut value = f.value_and_gradient(&w, &mut grad);
    if !value.is_finite() {
        return Err(Error::Numerical(format!(
            "the objective is {value} at the starting point"
        )));
    }
    // Correction pairs (s, y, 1/yᵀs), oldest first.
    let mut pairs: std::collections::VecDeque<(Vec<f64>, Vec<f64>, f64)> =
        std::collections::VecDeque::with_capacity(options.memory);
    let mut direction = checks::parameters(n, WHAT)?;
    // Buffers handed from one iteration to the next instead of allocated each time.
    let (mut spare_point, mut spare_grad) =
        (checks::parameters(n, WHAT)?, checks::parameters(n, WHAT)?);
    let mut spare_pair: Option<(Vec<f64>, Vec<f64>)> = None;
    let mut alphas = vec![0.0; options.memory];
    let mut iterations = 0;
    let stop = loop {
        if max_abs(&grad) <= options.grad_tol {
            break Stop::Converged(Criterion::GradientNorm);
        }
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        // Two-loop recursion: direction = −H ∇f.
        direction.copy_from_slice(&grad);
        for (k, (s, y, rho)) in pairs.iter().enumerate().rev() {
            let a = rho * dot(s, &direction);
            alphas[k] = a;
            for (d, y) in direction.iter_mut().zip(y) {
                *d -= a * y;
            }
        }
        let gamma = pairs.back().map_or(1.0, |(s, y, _)| dot(s, y) / dot(y, y));
        for d in &mut direction {
            *d *= gamma;
        }
        for (k, (s, y, rho)) in pairs.iter().enumerate() {
            let b = rho * dot(y, &direction);
            for (d, s) in direction.iter_mut().zip(s) {
                *d += (alphas[k] - b) * s;
            }
        }
        for d in &mut direction {
            *d = -*d;
        }
        let mut slope = dot(&grad, &direction);
        if slope >= 0.0 {
            // Not a descent direction (curvature information went stale): restart.
            pairs.clear();
            for (d, g) in direction.iter_mut().zip(&grad) {
                *d = -g;
            }
            slope = -dot(&grad, &grad);
        }
        let initial = if pairs.is_empty() {
            (1.0 / max_abs(&grad).max(1e-300)).min(1.0)
        } else {
            1.0
        };
        let mut line = Line {
            f,
            w: &w,
            p: &direction,
            point: std::mem::take(&mut spare_point),
            grad: std::mem::take(&mut spare_grad),
            evaluations: 0,
            last: f64::NAN,
        };
        let step = wolfe_step(&mut line, value, slope, initial, options.max_line_search);
        // The line search left the gradient of its last evaluation in `line.grad`; re-evaluate
        // only if the accepted step was not the last one tried.
        let accepted = step.is_some_and(|(alpha, _)| line.last == alpha);
        let (mut new_point, mut new_grad) = (
            std::mem::take(&mut line.point),
            std::mem::take(&mut line.grad),
        );
        let Some((alpha, new_value)) = step else {
            break Stop::StepTooSmall;
        };
        if !accepted {
            for ((p, w), d) in new_point.iter_mut().zip(&w).zip(&direction) {
                *p = w + alpha * d;
            }
            f.value_and_gradient(&new_point, &mut new_grad);
        }
        let (mut s, mut y) = match spare_pair.take() {
            Some(pair) => pair,
            None => (checks::parameters(n, WHAT)?, checks::parameters(n, WHAT)?),
        };
        for ((s, a), b) in s.iter_mut().zip(&new_point).zip(&w) {
            *s = a - b;
        }
        for ((y, a), b) in y.iter_mut().zip(&new_grad).zip(&grad) {
            *y = a - b;
        }
        let sy = dot(&s, &y);
        // Skip pairs without positive curvature, which would break H's positive definiteness.
        if sy > 1e-10 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            if pairs.len() == options.memory {
                spare_pair = pairs.pop_front().map(|(s, y, _)| (s, y));
            }
            pairs.push_back((s, y, 1.0 / sy));
        } else {
            spare_pair = Some((s, y));
        }
        let previous = value;
        spare_point = std::mem::replace(&mut w, new_point);
        spare_grad = std::mem::replace(&mut grad, new_grad);
        value = new_value;
        iterations += 1;
        let progress = Progress {
            objective: Some(value),
            violation: Some(max_abs(&grad)),
            step: Some(alpha),
            w: Some(&w),
            ..Progress::new("lbfgs", iterations)
        };
        if observer.observe(&progress) == Control::Stop {
            break Stop::Observer;
        }
        if options.f_tol > 0.0
            && (previous - value) <= options.f_tol * previous.abs().max(value.abs()).max(1.0)
        {
            break Stop::Converged(Criterion::RelativeChange);
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
    use crate::loss::Loss;
    use crate::risk::LinearRisk;

    fn go_on() -> impl FnMut(&Progress<'_>) -> Control {
        |_: &Progress<'_>| Control::Continue
    }

    /// A strictly convex quadratic ½wᵀAw − bᵀw with a known minimizer A⁻¹b.
    struct Quadratic;
    impl Objective for Quadratic {
        fn dim(&self) -> usize {
            3
        }
        fn value(&self, w: &[f64]) -> f64 {
            let mut g = [0.0; 3];
            self.value_and_gradient(w, &mut g)
        }
        fn value_and_gradient(&self, w: &[f64], g: &mut [f64]) -> f64 {
            let a = [[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]];
            let b = [1.0, 2.0, 3.0];
            let mut v = 0.0;
            for i in 0..3 {
                g[i] = (0..3).map(|j| a[i][j] * w[j]).sum::<f64>() - b[i];
                v += 0.5 * w[i] * (g[i] + b[i]) - b[i] * w[i];
            }
            v
        }
    }

    #[test]
    fn quadratic_minimizer_is_found() {
        let r = lbfgs(
            &Quadratic,
            vec![0.0; 3],
            &LbfgsOptions {
                grad_tol: 1e-12,
                f_tol: 0.0,
                ..Default::default()
            },
            &mut go_on(),
        )
        .unwrap();
        assert_eq!(r.stop, Stop::Converged(Criterion::GradientNorm));
        // At the minimizer the gradient A w − b vanishes.
        let mut g = [0.0; 3];
        Quadratic.value_and_gradient(&r.w, &mut g);
        assert!(max_abs(&g) <= 1e-12);
        assert!(
            r.iterations <= 10,
            "{} iterations on a 3-d quadratic",
            r.iterations
        );
    }

    #[test]
    fn logistic_risk_agrees_with_gradient_descent() {
        let (x, y) = crate::observed::six_points();
        let risk = LinearRisk::new(&x, &y, None, Loss::Logistic, 0.1, true).unwrap();
        let quasi = lbfgs(
            &risk,
            vec![0.0; 3],
            &LbfgsOptions {
                grad_tol: 1e-10,
                f_tol: 0.0,
                ..Default::default()
            },
            &mut go_on(),
        )
        .unwrap();
        let plain = crate::gd::minimize(
            &risk,
            vec![0.0; 3],
            &crate::gd::GdOptions {
                grad_tol: 1e-8,
                max_iter: 100_000,
                ..Default::default()
            },
            &mut go_on(),
        )
        .unwrap();
        for (a, b) in quasi.w.iter().zip(&plain.w) {
            // Gradient descent stops at ‖∇f‖ ≤ 1e-8 with strong convexity ≥ λ = 0.1.
            assert!((a - b).abs() < 1e-7, "{:?} vs {:?}", quasi.w, plain.w);
        }
        assert_eq!(
            (quasi.stop, plain.stop),
            (
                Stop::Converged(Criterion::GradientNorm),
                Stop::Converged(Criterion::GradientNorm)
            )
        );
        assert!(quasi.iterations < plain.iterations);
    }

    #[test]
    fn observer_and_limits() {
        let mut seen = 0;
        let mut stop_at_two = |p: &Progress<'_>| {
            seen = p.iteration;
            if p.iteration == 2 {
                Control::Stop
            } else {
                Control::Continue
            }
        };
        let r = lbfgs(
            &Quadratic,
            vec![5.0; 3],
            &LbfgsOptions::default(),
            &mut stop_at_two,
        )
        .unwrap();
        assert_eq!((r.stop, r.iterations, seen), (Stop::Observer, 2, 2));
        let r = lbfgs(
            &Quadratic,
            vec![5.0; 3],
            &LbfgsOptions {
                max_iter: 1,
                grad_tol: 0.0,
                ..Default::default()
            },
            &mut go_on(),
        )
        .unwrap();
        assert_eq!((r.stop, r.iterations), (Stop::MaxIterations, 1));
        for bad in [
            LbfgsOptions {
                memory: 0,
                ..Default::default()
            },
            LbfgsOptions {
                grad_tol: -1.0,
                ..Default::default()
            },
            LbfgsOptions {
                max_iter: 0,
                ..Default::default()
            },
        ] {
            assert!(matches!(
                lbfgs(&Quadratic, vec![0.0; 3], &bad, &mut go_on()),
                Err(Error::InvalidParameter { .. })
            ));
        }
        assert!(matches!(
            lbfgs(
                &Quadratic,
                vec![0.0; 2],
                &LbfgsOptions::default(),
                &mut go_on()
            ),
            Err(Error::ShapeMismatch { .. })
        ));
    }
}
