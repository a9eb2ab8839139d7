//! Cyclic coordinate descent for the elastic net (Friedman, Hastie & Tibshirani 2010), with
//! scikit-learn's objective and its duality-gap stopping rule:
//!
//! `min_w (1/(2n)) ‖y − Xw‖² + α·ρ·‖w‖₁ + (α(1−ρ)/2)·‖w‖²`
//!
//! Each coordinate is minimized exactly by soft-thresholding while the residual `y − Xw` is
//! kept up to date, so an epoch costs `O(nd)`. Every epoch whose largest weight change is small
//! relative to the largest weight (and the last one) computes the duality gap of the problem
//! (the dual point is the residual, rescaled to be feasible), and the solver stops when the gap
//! is below `tol · ‖y‖²`: a certificate, not a heuristic. A warm start (`w0`) makes
//! regularization paths cheap.

use margin_core::{Error, Result, dot, validate};
use serde::{Deserialize, Serialize};

use crate::checks;

use crate::{Control, Observer, Progress, Run, Stop};

/// Settings of [`elastic_net`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdOptions {
    /// Stop when the duality gap is below `tol · ‖y‖²` (default 1e-4, scikit-learn's).
    pub tol: f64,
    /// Epoch limit (default 1000).
    pub max_iter: usize,
}

impl Default for CdOptions {
    fn default() -> Self {
        Self {
            tol: 1e-4,
            max_iter: 1000,
        }
    }
}

/// The solution of [`elastic_net`].
#[derive(Clone, Debug, PartialEq)]
pub struct CdSolution {
    /// The weights.
    pub w: Vec<f64>,
    /// Epochs run.
    pub iterations: usize,
    /// The last duality gap computed (in the units of `½‖y − Xw‖²`, i.e. the objective times `n`).
    pub gap: f64,
    /// Why it stopped.
    pub stop: Stop,
}

impl CdSolution {
    /// The run as a fit report records it (its violation the last duality gap, when one was
    /// computed).
    pub fn run(&self) -> Run {
        Run {
            violation: self.gap.is_finite().then_some(self.gap),
            ..Run::new(self.iterations, self.stop)
        }
    }
}

/// A column-major `n × d` design matrix: column `j` is `data[j·n .. (j+1)·n]`.
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    data: &'a [f64],
    n: usize,
}

impl<'a> Columns<'a> {
    /// Wraps column-major data with `n` rows.
    pub fn new(data: &'a [f64], n: usize) -> Result<Self> {
        if n == 0 || !data.len().is_multiple_of(n) {
            return Err(Error::shape(
                "column-major data length (a multiple of n)",
                n,
                data.len(),
            ));
        }
        Ok(Self { data, n })
    }

    fn d(&self) -> usize {
        self.data.len() / self.n
    }

    fn col(&self, j: usize) -> &'a [f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }
}

/// The checks both entry points share: the start point, the penalty and the options.
fn check_problem(
    d: usize,
    alpha: f64,
    l1_ratio: f64,
    w0: &[f64],
    options: &CdOptions,
) -> Result<()> {
    checks::start_point(w0, d)?;
    checks::non_negative("alpha", alpha)?;
    validate::check_in_range("l1_ratio", l1_ratio, 0.0, 1.0, false)?;
    checks::non_negative("tol", options.tol)?;
    if options.max_iter == 0 {
        return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
    }
    Ok(())
}

/// Solves the elastic net from `w0` (zeros for a cold start) with `α ≥ 0` and `ρ = l1_ratio`
/// in [0, 1], reporting each epoch (with the duality gap on the epochs that compute it) to
/// `observer` (`&mut ()` for none).
pub fn elastic_net(
    x: Columns<'_>,
    y: &[f64],
    alpha: f64,
    l1_ratio: f64,
    w0: Vec<f64>,
    options: &CdOptions,
    observer: &mut dyn Observer,
) -> Result<CdSolution> {
    let (n, d) = (x.n, x.d());
    if y.len() != n {
        return Err(Error::shape("targets", n, y.len()));
    }
    validate::check_finite_slice(x.data)?;
    validate::check_finite_slice(y)?;
    check_problem(d, alpha, l1_ratio, &w0, options)?;
    // The objective times n: ½‖y − Xw‖² + l1‖w‖₁ + (l2/2)‖w‖².
    let l1 = alpha * l1_ratio * n as f64;
    let l2 = alpha * (1.0 - l1_ratio) * n as f64;
    let sq_norms: Vec<f64> = (0..d).map(|j| dot(x.col(j), x.col(j))).collect();
    let overflow = || Error::OutOfRange {
        what: "the features and targets".into(),
        reason: "squared norms overflow at this scale: rescale the features and targets \
                     (e.g. StandardScaler)"
            .into(),
    };
    if !sq_norms.iter().all(|v| v.is_finite()) || !dot(y, y).is_finite() {
        return Err(overflow());
    }
    let mut w = w0;
    let mut residual = y.to_vec();
    for (j, &wj) in w.iter().enumerate() {
        if wj != 0.0 {
            for (r, v) in residual.iter_mut().zip(x.col(j)) {
                *r -= wj * v;
            }
        }
    }
    let tol = options.tol * dot(y, y);
    let mut gap = f64::INFINITY;
    let mut iterations = 0;
    let stop = loop {
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        iterations += 1;
        let (mut max_change, mut max_w) = (0.0f64, 0.0f64);
        for j in 0..d {
            if sq_norms[j] == 0.0 {
                continue;
            }
            let col = x.col(j);
            let old = w[j];
            // ρⱼ = xⱼ·(r + wⱼxⱼ) without touching r twice.
            let rho = dot(col, &residual) + old * sq_norms[j];
            let new = rho.signum() * (rho.abs() - l1).max(0.0) / (sq_norms[j] + l2);
            if new != old {
                let delta = new - old;
                for (r, v) in residual.iter_mut().zip(col) {
                    *r -= delta * v;
                }
                w[j] = new;
            }
            max_change = max_change.max((new - old).abs());
            max_w = max_w.max(new.abs());
        }
        let check =
            max_w == 0.0 || max_change / max_w < options.tol || iterations == options.max_iter;
        if check {
            gap = duality_gap(x, y, &w, &residual, l1, l2);
        }
        if let Some(stop) = after_pass(observer, iterations, check.then_some(gap), tol) {
            break stop;
        }
    };
    if !w.iter().all(|v| v.is_finite()) {
        return Err(overflow());
    }
    Ok(CdSolution {
        w,
        iterations,
        gap,
        stop,
    })
}

/// Precomputed products of a design with `n` rows: `gram = XᵀX` (`d × d`, row-major),
/// `xty = Xᵀy`, `y_sq = ‖y‖²`.
#[derive(Clone, Copy, Debug)]
pub struct Products<'a> {
    /// `XᵀX`, row-major.
    pub gram: &'a [f64],
    /// `Xᵀy`.
    pub xty: &'a [f64],
    /// `‖y‖²`.
    pub y_sq: f64,
    /// Rows of `X`.
    pub n: usize,
}

/// The elastic net from precomputed [`Products`] (glmnet's "covariance updates",
/// scikit-learn's `precompute=True`).
///
/// A coordinate step then costs `O(d)` instead of `O(n)`, so when `n ≫ d` a whole path costs
/// little more than forming `XᵀX` once. Same objective, updates and duality gap as
/// [`elastic_net`], and each epoch reported to `observer` as there.
pub fn elastic_net_gram(
    products: &Products<'_>,
    alpha: f64,
    l1_ratio: f64,
    w0: Vec<f64>,
    options: &CdOptions,
    observer: &mut dyn Observer,
) -> Result<CdSolution> {
    let Products { gram, xty, y_sq, n } = *products;
    let d = xty.len();
    if gram.len() != d * d {
        return Err(Error::shape("Gram matrix entries (d²)", d * d, gram.len()));
    }
    if n == 0 {
        return Err(Error::EmptyDataset(
            "the elastic net needs at least one sample".into(),
        ));
    }
    check_problem(d, alpha, l1_ratio, &w0, options)?;
    if !gram.iter().chain(xty).all(|v| v.is_finite()) || !y_sq.is_finite() {
        return Err(Error::OutOfRange {
            what: "the features and targets".into(),
            reason: "XᵀX or Xᵀy overflowed: rescale the features and targets (e.g. StandardScaler)"
                .into(),
        });
    }
    let l1 = alpha * l1_ratio * n as f64;
    let l2 = alpha * (1.0 - l1_ratio) * n as f64;
    let row = |j: usize| &gram[j * d..(j + 1) * d];
    let mut w = w0;
    // q = XᵀX w, kept up to date as coordinates move.
    let mut q: Vec<f64> = (0..d).map(|j| dot(row(j), &w)).collect();
    let tol = options.tol * y_sq;
    let mut gap = f64::INFINITY;
    let mut iterations = 0;
    let stop = loop {
        if iterations == options.max_iter {
            break Stop::MaxIterations;
        }
        iterations += 1;
        let (mut max_change, mut max_w) = (0.0f64, 0.0f64);
        for j in 0..d {
            let g_jj = gram[j * d + j];
            if g_jj == 0.0 {
                continue;
            }
            let old = w[j];
            let rho = xty[j] - q[j] + old * g_jj;
            let new = rho.signum() * (rho.abs() - l1).max(0.0) / (g_jj + l2);
            if new != old {
                let delta = new - old;
                for (q, g) in q.iter_mut().zip(row(j)) {
                    *q += delta * g;
                }
                w[j] = new;
            }
            max_change = max_change.max((new - old).abs());
            max_w = max_w.max(new.abs());
        }
        let check =
            max_w == 0.0 || max_change / max_w < options.tol || iterations == options.max_iter;
        if check {
            // ‖r‖² = ‖y‖² − 2wᵀXᵀy + wᵀXᵀXw, rᵀy = ‖y‖² − wᵀXᵀy, Xᵀr = Xᵀy − q.
            let w_xty = dot(&w, xty);
            let r_sq = (y_sq - 2.0 * w_xty + dot(&w, &q)).max(0.0);
            let xtr: Vec<f64> = xty.iter().zip(&q).map(|(a, b)| a - b).collect();
            gap = gap_from_products(&xtr, &w, r_sq, y_sq - w_xty, l1, l2);
        }
        if let Some(stop) = after_pass(observer, iterations, check.then_some(gap), tol) {
            break stop;
        }
    };
    if !w.iter().all(|v| v.is_finite()) {
        return Err(Error::OutOfRange {
            what: "the features and targets".into(),
            reason: "the weights overflowed: rescale the features and targets".into(),
        });
    }
    Ok(CdSolution {
        w,
        iterations,
        gap,
        stop,
    })
}

/// The elastic net's duality gap at `w` (residual `r = y − Xw`), scikit-learn's formula.
fn duality_gap(x: Columns<'_>, y: &[f64], w: &[f64], r: &[f64], l1: f64, l2: f64) -> f64 {
    let xtr: Vec<f64> = (0..w.len()).map(|j| dot(x.col(j), r)).collect();
    gap_from_products(&xtr, w, dot(r, r), dot(r, y), l1, l2)
}

/// The duality gap from `Xᵀr`, `‖r‖²` and `rᵀy`: the residual, rescaled to be dual feasible,
/// is the dual point.
fn gap_from_products(xtr: &[f64], w: &[f64], r_sq: f64, r_y: f64, l1: f64, l2: f64) -> f64 {
    let dual_norm = xtr
        .iter()
        .zip(w)
        .map(|(a, w)| (a - l2 * w).abs())
        .fold(0.0, f64::max);
    // Without an L1 term every residual is dual feasible (the rescaling is for ‖Xᵀθ‖∞ ≤ l1).
    let (scale, mut gap) = if l1 > 0.0 && dual_norm > l1 {
        let c = l1 / dual_norm;
        (c, 0.5 * r_sq * (1.0 + c * c))
    } else {
        (1.0, r_sq)
    };
    let l1_norm: f64 = w.iter().map(|v| v.abs()).sum();
    gap += l1 * l1_norm - scale * r_y + 0.5 * l2 * (1.0 + scale * scale) * dot(w, w);
    gap
}

/// The end of a pass over the coordinates: reports it to `observer` (with the duality gap when
/// this pass computed one) and says whether to stop, for the observer or at the tolerance.
fn after_pass(
    observer: &mut dyn Observer,
    iterations: usize,
    gap: Option<f64>,
    tol: f64,
) -> Option<Stop> {
    let progress = Progress {
        violation: gap,
        ..Progress::new("cd", iterations)
    };
    if observer.observe(&progress) == Control::Stop {
        return Some(Stop::Observer);
    }
    gap.is_some_and(|g| g <= tol).then_some(Stop::CONVERGED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn columns(seed: u64, n: usize, d: usize) -> Vec<f64> {
        let mut state = seed | 1;
        (0..n * d)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn one_feature_is_the_soft_threshold() {
        // n = 4, x = (1, 2, −1, ½): w* = S(xᵀy/n, α) / (xᵀx/n) for the lasso.
        let x = [1.0, 2.0, -1.0, 0.5];
        let y = [0.3, 0.9, -0.2, 0.1];
        let (xy, xx) = (2.35 / 4.0, 6.25 / 4.0);
        for alpha in [0.0, 0.1, 0.5, 0.6] {
            let s = elastic_net(
                Columns::new(&x, 4).unwrap(),
                &y,
                alpha,
                1.0,
                vec![0.0],
                &CdOptions {
                    tol: 1e-14,
                    ..Default::default()
                },
                &mut (),
            )
            .unwrap();
            let expected = f64::max(xy - alpha, 0.0) / xx;
            assert!(
                (s.w[0] - expected).abs() < 1e-14,
                "alpha {alpha}: {} vs {expected}",
                s.w[0]
            );
            assert_eq!(s.stop, Stop::CONVERGED);
        }
        // Ridge (ρ = 0): w* = xᵀy / (xᵀx + nα).
        let s = elastic_net(
            Columns::new(&x, 4).unwrap(),
            &y,
            0.3,
            0.0,
            vec![0.0],
            &CdOptions {
                tol: 1e-14,
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        assert!((s.w[0] - 2.35 / (6.25 + 4.0 * 0.3)).abs() < 1e-14);
    }

    #[test]
    fn observers_see_every_epoch_and_can_stop_it() {
        let (n, d) = (30, 5);
        let data = columns(11, n, d);
        let x = Columns::new(&data, n).unwrap();
        let y: Vec<f64> = (0..n).map(|i| data[i] - 2.0 * data[n + i]).collect();
        let options = CdOptions {
            tol: 1e-12,
            max_iter: 10_000,
        };
        let by_cols = crate::observed::check("cd", 1, |o| {
            let s = elastic_net(x, &y, 0.01, 0.5, vec![0.0; d], &options, o).unwrap();
            let run = s.run();
            (s, run)
        });
        let mut gram = vec![0.0; d * d];
        for (j, k) in (0..d).flat_map(|j| (0..d).map(move |k| (j, k))) {
            gram[j * d + k] = dot(x.col(j), x.col(k));
        }
        let xty: Vec<f64> = (0..d).map(|j| dot(x.col(j), &y)).collect();
        let products = Products {
            gram: &gram,
            xty: &xty,
            y_sq: dot(&y, &y),
            n,
        };
        let by_gram = crate::observed::check("cd", 1, |o| {
            let s = elastic_net_gram(&products, 0.01, 0.5, vec![0.0; d], &options, o).unwrap();
            let run = s.run();
            (s, run)
        });
        for run in [by_cols, by_gram] {
            assert_eq!(run.stop, Stop::CONVERGED);
            assert!(run.violation.unwrap() <= options.tol * dot(&y, &y));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// At the solution the subgradient optimality conditions hold for every coordinate, and
        /// a warm start from it stops at once.
        #[test]
        fn kkt_conditions_hold(seed in any::<u64>(), alpha in 0.001f64..0.5, l1_ratio in 0.0f64..=1.0) {
            let (n, d) = (25, 6);
            let data = columns(seed, n, d);
            let x = Columns::new(&data, n).unwrap();
            let y: Vec<f64> = (0..n).map(|i| data[i] * 2.0 - data[n + i] + 0.1 * data[2 * n + i]).collect();
            let s = elastic_net(x, &y, alpha, l1_ratio, vec![0.0; d], &CdOptions { tol: 1e-12, max_iter: 100_000 }, &mut ()).unwrap();
            prop_assert_eq!(s.stop, Stop::CONVERGED);
            let r: Vec<f64> = (0..n).map(|i| y[i] - (0..d).map(|j| data[j * n + i] * s.w[j]).sum::<f64>()).collect();
            for j in 0..d {
                // g = −xⱼᵀr/n + α(1−ρ)wⱼ must lie in −αρ·∂|wⱼ|.
                let g = -dot(x.col(j), &r) / n as f64 + alpha * (1.0 - l1_ratio) * s.w[j];
                let bound = alpha * l1_ratio;
                if s.w[j] == 0.0 {
                    prop_assert!(g.abs() <= bound + 1e-6, "j={}: |{}| > {}", j, g, bound);
                } else {
                    prop_assert!((g + bound * s.w[j].signum()).abs() < 1e-6, "j={}: {}", j, g);
                }
            }
            let warm = elastic_net(x, &y, alpha, l1_ratio, s.w.clone(), &CdOptions { tol: 1e-12, max_iter: 100_000 }, &mut ()).unwrap();
            prop_assert!(warm.iterations <= 2);
        }
    }

    #[test]
    fn gram_updates_give_the_column_solution() {
        let (n, d) = (40, 7);
        let data = columns(9, n, d);
        let x = Columns::new(&data, n).unwrap();
        let y: Vec<f64> = (0..n)
            .map(|i| data[i] - 0.5 * data[3 * n + i] + 0.05 * data[6 * n + i])
            .collect();
        let gram: Vec<f64> = (0..d * d)
            .map(|k| dot(x.col(k / d), x.col(k % d)))
            .collect();
        let xty: Vec<f64> = (0..d).map(|j| dot(x.col(j), &y)).collect();
        for (alpha, rho) in [(0.01, 1.0), (0.05, 0.5), (0.1, 0.0)] {
            let options = CdOptions {
                tol: 1e-13,
                max_iter: 100_000,
            };
            let by_cols = elastic_net(x, &y, alpha, rho, vec![0.0; d], &options, &mut ()).unwrap();
            let products = Products {
                gram: &gram,
                xty: &xty,
                y_sq: dot(&y, &y),
                n,
            };
            let by_gram =
                elastic_net_gram(&products, alpha, rho, vec![0.0; d], &options, &mut ()).unwrap();
            assert_eq!(by_gram.stop, Stop::CONVERGED);
            for (a, b) in by_cols.w.iter().zip(&by_gram.w) {
                assert!((a - b).abs() < 1e-9, "{:?} vs {:?}", by_cols.w, by_gram.w);
            }
            assert_eq!(by_cols.iterations, by_gram.iterations);
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        let x = [1.0, 2.0];
        let cols = Columns::new(&x, 2).unwrap();
        assert!(matches!(
            Columns::new(&x, 3),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            elastic_net(
                cols,
                &[1.0],
                0.1,
                1.0,
                vec![0.0],
                &CdOptions::default(),
                &mut ()
            ),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            elastic_net(
                cols,
                &[1.0, 2.0],
                -0.1,
                1.0,
                vec![0.0],
                &CdOptions::default(),
                &mut ()
            ),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            elastic_net(
                cols,
                &[1.0, 2.0],
                0.1,
                1.5,
                vec![0.0],
                &CdOptions::default(),
                &mut ()
            ),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            elastic_net(
                cols,
                &[1.0, f64::NAN],
                0.1,
                1.0,
                vec![0.0],
                &CdOptions::default(),
                &mut ()
            ),
            Err(Error::NonFinite { .. })
        ));
    }
}
