//! The losses the booster minimizes, as scikit-learn's `HistGradientBoosting*` define them:
//! pointwise value, gradient and hessian with respect to the raw prediction, the baseline (the
//! best constant raw prediction), and the link from raw predictions to outputs.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Rows per parallel task when computing gradients and losses.
const CHUNK: usize = 1 << 13;

/// A loss over raw predictions: `K = n_trees()` of them per sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Loss {
    /// `½ (y − f)²`; gradient `f − y`, hessian 1.
    SquaredError,
    /// `|y − f|`; gradient `sign(f − y)`, hessian 1, leaves refitted to residual medians.
    AbsoluteError,
    /// `log(1 + e^f) − y f` for `y ∈ {0, 1}`; gradient `p − y`, hessian `p (1 − p)`.
    BinaryLog,
    /// `log Σ_k e^{f_k} − f_y` for `K` classes; gradient `p_k − [y = k]`, hessian
    /// `p_k (1 − p_k)`.
    MultinomialLog(usize),
}

/// `log(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The logistic function: `1 / (1 + e^−x)` for `x ≥ 0`, `e^x / (1 + e^x)` below (neither
/// overflows). Both forms share `e^−|x|` and the choice is a select, not a branch: the signs of
/// raw predictions are unpredictable, and a mispredicted branch cost as much as the `exp`.
pub(crate) fn sigmoid(x: f64) -> f64 {
    let e = (-x.abs()).exp();
    let numerator = if x >= 0.0 { 1.0 } else { e };
    numerator / (1.0 + e)
}

/// `softmax(raw)` into `out`; returns `log Σ e^raw`.
pub(crate) fn softmax(raw: &[f64], out: &mut [f64]) -> f64 {
    let max = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for (o, &r) in out.iter_mut().zip(raw) {
        *o = (r - max).exp();
        sum += *o;
    }
    out.iter_mut().for_each(|o| *o /= sum);
    max + sum.ln()
}

/// `[g, h]` of every sample of a one-output loss whose pointwise gradient and hessian `point`
/// gives (times the sample weights; hessians left alone unless `with_h`), in parallel chunks.
fn single_gradients(
    y: &[f64],
    raw: &[f64],
    w: Option<&[f64]>,
    gh: &mut [[f32; 2]],
    with_h: bool,
    point: impl Fn(f64, f64) -> (f64, f64) + Sync,
) {
    gh.par_chunks_mut(CHUNK)
        .zip(y.par_chunks(CHUNK).zip(raw.par_chunks(CHUNK)))
        .enumerate()
        .for_each(|(c, (out, (y, raw)))| {
            let samples = out.iter_mut().zip(y.iter().zip(raw));
            match w {
                None => {
                    for (pair, (&y, &r)) in samples {
                        let (g, h) = point(y, r);
                        pair[0] = g as f32;
                        if with_h {
                            pair[1] = h as f32;
                        }
                    }
                }
                Some(w) => {
                    for ((pair, (&y, &r)), &wi) in samples.zip(&w[c * CHUNK..]) {
                        let (g, h) = point(y, r);
                        pair[0] = (wi * g) as f32;
                        if with_h {
                            pair[1] = (wi * h) as f32;
                        }
                    }
                }
            }
        });
}

/// The weighted median (scikit-learn's `_weighted_percentile(…, 50)` rule: the smallest value
/// whose cumulative weight reaches half the total; unweighted, `numpy.median`).
pub(crate) fn weighted_median(values: &[f64], weights: Option<&[f64]>) -> f64 {
    let mut pairs: Vec<(f64, f64)> = match weights {
        Some(w) => values.iter().copied().zip(w.iter().copied()).collect(),
        None => values.iter().map(|&v| (v, 1.0)).collect(),
    };
    if pairs.is_empty() {
        return 0.0;
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    if weights.is_none() {
        let n = pairs.len();
        return if n % 2 == 1 {
            pairs[n / 2].0
        } else {
            (pairs[n / 2 - 1].0 + pairs[n / 2].0) / 2.0
        };
    }
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    let mut acc = 0.0;
    for &(v, w) in &pairs {
        acc += w;
        if acc >= total / 2.0 {
            return v;
        }
    }
    pairs[pairs.len() - 1].0
}

impl Loss {
    /// Raw predictions (and trees) per sample per iteration.
    pub(crate) fn n_trees(self) -> usize {
        match self {
            Loss::MultinomialLog(k) => k,
            _ => 1,
        }
    }

    /// Whether every hessian is 1 before weighting.
    pub(crate) fn constant_hessian(self) -> bool {
        matches!(self, Loss::SquaredError | Loss::AbsoluteError)
    }

    /// Loss of one sample with raw predictions `raw` (length `n_trees`).
    pub(crate) fn point(self, y: f64, raw: &[f64]) -> f64 {
        match self {
            Loss::SquaredError => 0.5 * (y - raw[0]).powi(2),
            Loss::AbsoluteError => (y - raw[0]).abs(),
            Loss::BinaryLog => softplus(raw[0]) - y * raw[0],
            Loss::MultinomialLog(_) => {
                let max = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = raw.iter().map(|r| (r - max).exp()).sum();
                max + sum.ln() - raw[y as usize]
            }
        }
    }

    /// Gradient and hessian of one sample's loss for each raw prediction; `p` is scratch of
    /// length `n_trees`.
    pub(crate) fn point_gradient(
        self,
        y: f64,
        raw: &[f64],
        p: &mut [f64],
        mut out: impl FnMut(usize, f64, f64),
    ) {
        match self {
            Loss::MultinomialLog(_) => {
                softmax(raw, p);
                for (k, &q) in p.iter().enumerate() {
                    let target = if y as usize == k { 1.0 } else { 0.0 };
                    out(k, q - target, q * (1.0 - q));
                }
            }
            single => {
                let (g, h) = single.single_gradient(y, raw[0]);
                out(0, g, h);
            }
        }
    }

    /// Gradient and hessian of one sample's loss with one raw prediction `r`. The multinomial's
    /// classes are coupled (the softmax in [`Loss::point_gradient`]) and never come here; its
    /// arm is the binary form, a class against the rest.
    #[inline(always)]
    fn single_gradient(self, y: f64, r: f64) -> (f64, f64) {
        match self {
            Loss::SquaredError => (r - y, 1.0),
            Loss::AbsoluteError => (if r > y { 1.0 } else { -1.0 }, 1.0),
            Loss::BinaryLog | Loss::MultinomialLog(_) => {
                let q = sigmoid(r);
                (q - y, q * (1.0 - q))
            }
        }
    }

    /// The best constant raw prediction: the weighted mean (squared error), the weighted median
    /// (absolute error), the log-odds of the positive class's weighted frequency, or the
    /// centred log class frequencies, frequencies clipped away from 0 and 1 as scikit-learn does.
    pub(crate) fn baseline(self, y: &[f64], w: Option<&[f64]>) -> Vec<f64> {
        let total: f64 = w.map_or(y.len() as f64, |w| w.iter().sum());
        let weighted_sum = |f: &dyn Fn(f64) -> f64| -> f64 {
            match w {
                Some(w) => y.iter().zip(w).map(|(&v, &wi)| wi * f(v)).sum(),
                None => y.iter().map(|&v| f(v)).sum(),
            }
        };
        match self {
            Loss::SquaredError => vec![weighted_sum(&|v| v) / total],
            Loss::AbsoluteError => vec![weighted_median(y, w)],
            Loss::BinaryLog => {
                let eps = 10.0 * f64::EPSILON;
                let p = (weighted_sum(&|v| v) / total).clamp(eps, 1.0 - eps);
                vec![(p / (1.0 - p)).ln()]
            }
            Loss::MultinomialLog(k) => {
                let eps = f64::EPSILON;
                let logs: Vec<f64> = (0..k)
                    .map(|c| {
                        let p = weighted_sum(&|v| f64::from(v as usize == c)) / total;
                        p.clamp(eps, 1.0 - eps).ln()
                    })
                    .collect();
                let mean = logs.iter().sum::<f64>() / k as f64;
                logs.iter().map(|l| l - mean).collect()
            }
        }
    }

    /// Gradients and hessians (times the sample weights) of every sample as `[g, h]` pairs,
    /// tree `k`'s in `gh[k * n..(k + 1) * n]`; `raw` is laid out the same way. Hessians are
    /// left alone when they are constant and there are no weights.
    pub(crate) fn gradients(self, y: &[f64], raw: &[f64], w: Option<&[f64]>, gh: &mut [[f32; 2]]) {
        let n = y.len();
        let k_trees = self.n_trees();
        if k_trees == 1 {
            let with_h = !(self.constant_hessian() && w.is_none());
            // One loop per loss (the loss a constant inside it), not a match per sample.
            match self {
                Loss::SquaredError => single_gradients(y, raw, w, gh, with_h, |y, r| {
                    Loss::SquaredError.single_gradient(y, r)
                }),
                Loss::AbsoluteError => single_gradients(y, raw, w, gh, with_h, |y, r| {
                    Loss::AbsoluteError.single_gradient(y, r)
                }),
                // The binary log loss: the only other loss with one tree per iteration.
                _ => single_gradients(y, raw, w, gh, with_h, |y, r| {
                    Loss::BinaryLog.single_gradient(y, r)
                }),
            }
            return;
        }
        // Multiclass: gather a sample's K raw predictions, scatter its K gradients.
        let chunks: Vec<Vec<[f32; 2]>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let rows = c * CHUNK..((c + 1) * CHUNK).min(n);
                let len = rows.len();
                let mut out = vec![[0f32; 2]; len * k_trees];
                let (mut r, mut p) = (vec![0.0; k_trees], vec![0.0; k_trees]);
                for (i, row) in rows.enumerate() {
                    for (k, rk) in r.iter_mut().enumerate() {
                        *rk = raw[k * n + row];
                    }
                    let wi = w.map_or(1.0, |w| w[row]);
                    self.point_gradient(y[row], &r, &mut p, |k, gv, hv| {
                        out[k * len + i] = [(wi * gv) as f32, (wi * hv) as f32];
                    });
                }
                out
            })
            .collect();
        for (c, out) in chunks.iter().enumerate() {
            let start = c * CHUNK;
            let len = out.len() / k_trees;
            for k in 0..k_trees {
                gh[k * n + start..k * n + start + len]
                    .copy_from_slice(&out[k * len..(k + 1) * len]);
            }
        }
    }

    /// The weighted mean loss (raw laid out as in [`Loss::gradients`]); summed chunk by chunk
    /// in a fixed order, so it does not depend on the thread count.
    pub(crate) fn mean(self, y: &[f64], raw: &[f64], w: Option<&[f64]>) -> f64 {
        let n = y.len();
        let k_trees = self.n_trees();
        let partial: Vec<f64> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut r = vec![0.0; k_trees];
                (c * CHUNK..((c + 1) * CHUNK).min(n))
                    .map(|row| {
                        for (k, rk) in r.iter_mut().enumerate() {
                            *rk = raw[k * n + row];
                        }
                        w.map_or(1.0, |w| w[row]) * self.point(y[row], &r)
                    })
                    .sum()
            })
            .collect();
        let total: f64 = w.map_or(n as f64, |w| w.iter().sum());
        partial.iter().sum::<f64>() / total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Central finite differences of the pointwise loss in raw prediction `k`.
    fn numeric(loss: Loss, y: f64, raw: &[f64], k: usize) -> (f64, f64) {
        let eps = 1e-4;
        let at = |d: f64| {
            let mut r = raw.to_vec();
            r[k] += d;
            loss.point(y, &r)
        };
        let g = (at(eps) - at(-eps)) / (2.0 * eps);
        let h = (at(eps) - 2.0 * at(0.0) + at(-eps)) / (eps * eps);
        (g, h)
    }

    fn check(loss: Loss, y: f64, raw: &[f64], check_h: bool) {
        let mut p = vec![0.0; raw.len()];
        let mut analytic = vec![(0.0, 0.0); raw.len()];
        loss.point_gradient(y, raw, &mut p, |k, g, h| analytic[k] = (g, h));
        for (k, &(g, h)) in analytic.iter().enumerate() {
            let (ng, nh) = numeric(loss, y, raw, k);
            assert!((g - ng).abs() < 1e-5, "{loss:?} gradient {g} vs {ng}");
            if check_h {
                assert!((h - nh).abs() < 1e-3, "{loss:?} hessian {h} vs {nh}");
            }
        }
    }

    proptest! {
        #[test]
        fn gradients_match_finite_differences(
            raw in prop::collection::vec(-5.0f64..5.0, 3),
            y in -3.0f64..3.0,
            class in 0usize..3,
        ) {
            check(Loss::SquaredError, y, &raw[..1], true);
            // |y − f| is not differentiable at y = f; stay clear of the kink.
            if (y - raw[0]).abs() > 1e-3 {
                check(Loss::AbsoluteError, y, &raw[..1], false);
            }
            check(Loss::BinaryLog, (class % 2) as f64, &raw[..1], true);
            check(Loss::MultinomialLog(3), class as f64, &raw, true);
        }
    }

    /// Both forms of the logistic function, with no overflow at either end.
    #[test]
    fn sigmoid_is_finite_and_symmetric() {
        for x in [
            -1e308, -800.0, -30.0, -1.5, -1e-300, 0.0, 1e-300, 0.25, 30.0, 800.0, 1e308,
        ] {
            let p = sigmoid(x);
            assert!((0.0..=1.0).contains(&p), "{x}: {p}");
            assert!((p + sigmoid(-x) - 1.0).abs() <= f64::EPSILON, "{x}");
        }
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(sigmoid(2.0), 1.0 / (1.0 + (-2.0f64).exp()));
        assert_eq!(sigmoid(-2.0), (-2.0f64).exp() / (1.0 + (-2.0f64).exp()));
    }

    #[test]
    fn baselines_are_the_best_constants() {
        let y = [1.0, 2.0, 4.0, 10.0];
        assert_eq!(Loss::SquaredError.baseline(&y, None), vec![4.25]);
        assert_eq!(Loss::AbsoluteError.baseline(&y, None), vec![3.0]);
        assert_eq!(
            Loss::AbsoluteError.baseline(&y, Some(&[1.0, 1.0, 1.0, 5.0])),
            vec![10.0]
        );
        let b = Loss::BinaryLog.baseline(&[0.0, 1.0, 1.0, 1.0], None);
        assert!((b[0] - 3f64.ln()).abs() < 1e-12);
        let m = Loss::MultinomialLog(3).baseline(&[0.0, 1.0, 1.0, 2.0], None);
        let mut p = vec![0.0; 3];
        softmax(&m, &mut p);
        assert!((p[1] - 0.5).abs() < 1e-12 && (p[0] - 0.25).abs() < 1e-12);
        assert!(m.iter().sum::<f64>().abs() < 1e-12);
    }
}
