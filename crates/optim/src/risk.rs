//! The regularized empirical risk of a linear model, as a [`FiniteSum`] for the descent
//! solvers:
//!
//! `f(w, b) = (1/n) Σᵢ sᵢ ℓ(yᵢ, w·xᵢ + b) + (λ/2) ‖w‖²`
//!
//! with per-sample weights `sᵢ` (1 by default) and an unpenalized intercept `b` stored as the
//! last parameter when `fit_intercept`. The SVM primal `½‖w‖² + C Σᵢ sᵢ ℓᵢ` is this risk times
//! `nC` with `λ = 1/(nC)`, so both have the same minimizer.
//!
//! The full gradient is summed over fixed blocks of rows in parallel and the block sums are
//! added in block order, so the result does not depend on the number of threads.

use std::sync::{Mutex, PoisonError};

use margin_core::{Error, Records, Result, memory, validate};
use rayon::prelude::*;

use faer::Mat;

use crate::checks;
use crate::gd::{FiniteSum, Objective};
use crate::loss::Loss;
use crate::newton::Hessian;

/// Rows per parallel block: large enough to amortize a gradient-sized partial sum.
const BLOCK: usize = 2048;

/// Largest scratch of per-block partial sums held at once, in bytes. Below it every block has
/// its own buffer (a call is one parallel map); above it, as when a sparse file's largest index
/// makes the weights huge, blocks run in waves of one buffer per thread.
const PARTIALS_BYTES: u64 = 64 << 20;

/// Fixed blocks of `BLOCK` rows covering `0..n`, for a parallel map whose results are then
/// combined in block order.
fn row_blocks(n: usize) -> impl IndexedParallelIterator<Item = std::ops::Range<usize>> {
    (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(move |b| b * BLOCK..((b + 1) * BLOCK).min(n))
}

/// Per-block sums of `len` values over the fixed blocks of `0..n`, handed out in block order:
/// computed in parallel a wave of blocks at a time, into buffers asked for once (through the
/// memory helper) and reused. The blocks and the order of their sums do not depend on the wave
/// or the thread count, so neither do the results.
struct BlockSums {
    n: usize,
    buffers: Mutex<Vec<Vec<f64>>>,
}

impl BlockSums {
    fn new(n: usize, len: usize, what: &str) -> Result<Self> {
        let blocks = n.div_ceil(BLOCK).max(1);
        let threads = rayon::current_num_threads().clamp(1, blocks);
        let fit = PARTIALS_BYTES / memory::bytes_of::<f64>(len).max(1);
        let wave = usize::try_from(fit)
            .unwrap_or(usize::MAX)
            .clamp(threads, blocks);
        Self::with_wave(n, len, wave, what)
    }

    /// Sums computed `wave ≥ 1` blocks at a time.
    fn with_wave(n: usize, len: usize, wave: usize, what: &str) -> Result<Self> {
        checks::vectors(wave, len, what)?;
        let buffers = (0..wave)
            .map(|_| checks::parameters(len, what))
            .collect::<Result<_>>()?;
        Ok(Self {
            n,
            buffers: Mutex::new(buffers),
        })
    }

    /// Runs `block(rows, sums)` on every block, `sums` zeroed, and passes each block's returned
    /// value and sums to `take`, in block order.
    fn run(
        &self,
        block: impl Fn(std::ops::Range<usize>, &mut [f64]) -> f64 + Sync,
        mut take: impl FnMut(f64, &[f64]),
    ) {
        let mut buffers = self.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        let (n, wave) = (self.n, buffers.len());
        let blocks = n.div_ceil(BLOCK);
        let mut first = 0;
        while first < blocks {
            let count = wave.min(blocks - first);
            let values: Vec<f64> = buffers[..count]
                .par_iter_mut()
                .enumerate()
                .map(|(k, sums)| {
                    let b = first + k;
                    sums.fill(0.0);
                    block(b * BLOCK..((b + 1) * BLOCK).min(n), sums)
                })
                .collect();
            for (&v, sums) in values.iter().zip(buffers.iter()) {
                take(v, sums);
            }
            first += count;
        }
    }

    /// Sums the blocks' `(loss, gradient)` in block order into `grad` and returns the loss.
    fn sum(
        &self,
        grad: &mut [f64],
        block: impl Fn(std::ops::Range<usize>, &mut [f64]) -> f64 + Sync,
    ) -> f64 {
        grad.fill(0.0);
        let mut loss = 0.0;
        self.run(block, |l, g| {
            loss += l;
            for (a, b) in grad.iter_mut().zip(g) {
                *a += b;
            }
        });
        loss
    }
}

/// A risk's loss summed over its rows, without the `1/n` and the penalty: what one part of
/// rows held elsewhere contributes to a [`PartedRisk`].
pub trait LossSums {
    /// `Σᵢ sᵢ ℓᵢ(w)`, writing `Σᵢ sᵢ ∇ℓᵢ(w)` into `grad`, summed in fixed blocks of rows.
    fn loss_sums(&self, w: &[f64], grad: &mut [f64]) -> f64;
}

/// Checks one part before its [`LossSums`] are taken: its `features` against the fit's
/// `n_features`, and the weights `w` and `grad` against the solver's `n_weights`.
///
/// # Errors
/// [`Error::ShapeMismatch`] naming what differs.
pub fn check_part(
    features: usize,
    n_features: usize,
    w: &[f64],
    grad: &[f64],
    n_weights: usize,
) -> Result<()> {
    if features != n_features {
        return Err(Error::shape("a part's features", n_features, features));
    }
    for (what, len) in [("weights", w.len()), ("gradient", grad.len())] {
        if len != n_weights {
            return Err(Error::shape(what, n_weights, len));
        }
    }
    Ok(())
}

/// `(1/n) Σᵢ sᵢ ℓᵢ(w)` + the L2 penalty of rows held in parts elsewhere (partitions of a table,
/// machines): `sums` gathers every part's [`LossSums`] at `w` and adds them. The penalty and
/// the scaling are [`LinearRisk`]'s and [`SoftmaxRisk`]'s, so the solvers walk the in-memory
/// path to rounding.
///
/// `sums` may fail (a query, a network); the first failure makes the value NaN, which stops
/// the solver, and [`PartedRisk::failure`] returns it.
pub struct PartedRisk<F> {
    sums: F,
    n: usize,
    n_features: usize,
    /// `k × p` parameters: one block per class for a softmax risk, one for a linear one.
    blocks: usize,
    l2: f64,
    fit_intercept: bool,
    failure: Mutex<Option<Error>>,
}

impl<F: Fn(&[f64], &mut [f64]) -> Result<f64>> PartedRisk<F> {
    /// The risk of `n ≥ 1` rows of `n_features` features, with `blocks` weight vectors (1 for
    /// [`LinearRisk`], `k` for [`SoftmaxRisk`]), L2 strength `l2` and intercepts when
    /// `fit_intercept`, whose loss sums `sums` gathers.
    pub fn new(
        sums: F,
        n: usize,
        n_features: usize,
        blocks: usize,
        l2: f64,
        fit_intercept: bool,
    ) -> Result<Self> {
        if n == 0 {
            return Err(Error::EmptyDataset(
                "the risk needs at least one sample".into(),
            ));
        }
        checks::non_negative("l2", l2)?;
        Ok(Self {
            sums,
            n,
            n_features,
            blocks,
            l2,
            fit_intercept,
            failure: Mutex::new(None),
        })
    }

    /// The first error `sums` returned, if any.
    pub fn failure(self) -> Option<Error> {
        self.failure
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn width(&self) -> usize {
        self.n_features + usize::from(self.fit_intercept)
    }
}

impl<F: Fn(&[f64], &mut [f64]) -> Result<f64>> Objective for PartedRisk<F> {
    fn dim(&self) -> usize {
        self.blocks * self.width()
    }

    fn is_penalized(&self, j: usize) -> bool {
        !self.fit_intercept || j % self.width() != self.n_features
    }

    fn value(&self, w: &[f64]) -> f64 {
        let mut grad = vec![0.0; w.len()];
        self.value_and_gradient(w, &mut grad)
    }

    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let loss = match (self.sums)(w, grad) {
            Ok(loss) => loss,
            Err(e) => {
                let mut failure = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
                failure.get_or_insert(e);
                return f64::NAN;
            }
        };
        let inv_n = 1.0 / self.n as f64;
        let mut penalty = 0.0;
        for (j, (g, w)) in grad.iter_mut().zip(w).enumerate() {
            *g *= inv_n;
            if self.is_penalized(j) {
                *g += self.l2 * w;
                penalty += w * w;
            }
        }
        loss * inv_n + 0.5 * self.l2 * penalty
    }
}

/// `(1/n) Σ sᵢ ℓ(yᵢ, w·xᵢ + b) + (λ/2)‖w‖²` over borrowed records.
pub struct LinearRisk<'a, R: Records + ?Sized> {
    x: &'a R,
    y: &'a [f64],
    weights: Option<&'a [f64]>,
    loss: Loss,
    l2: f64,
    fit_intercept: bool,
    partials: BlockSums,
}

impl<'a, R: Records + ?Sized> LinearRisk<'a, R> {
    /// The risk of `loss` on `(x, y)` with optional sample weights, L2 strength `l2 = λ ≥ 0`,
    /// and an intercept parameter when `fit_intercept`.
    ///
    /// Classification losses need `y ∈ {−1, +1}`; weights must be finite and `≥ 0`.
    pub fn new(
        x: &'a R,
        y: &'a [f64],
        weights: Option<&'a [f64]>,
        loss: Loss,
        l2: f64,
        fit_intercept: bool,
    ) -> Result<Self> {
        let n = x.n_samples();
        if n == 0 {
            return Err(Error::EmptyDataset(
                "the risk needs at least one sample".into(),
            ));
        }
        if y.len() != n {
            return Err(Error::shape("targets", n, y.len()));
        }
        validate::check_finite_slice(y)?;
        if loss != Loss::Squared
            && let Some(row) = y.iter().position(|&v| v != 1.0 && v != -1.0)
        {
            return Err(Error::invalid_parameter(
                format!("label of sample {row}"),
                y[row],
                "-1 or +1 for a classification loss",
            ));
        }
        checks::sample_weights(weights, n)?;
        checks::non_negative("l2", l2)?;
        let dim = x.n_features() + usize::from(fit_intercept);
        Ok(Self {
            x,
            y,
            weights,
            loss,
            l2,
            fit_intercept,
            partials: BlockSums::new(n, dim, "the risk's partial gradients")?,
        })
    }

    fn n_features(&self) -> usize {
        self.x.n_features()
    }

    fn weight(&self, i: usize) -> f64 {
        self.weights.map_or(1.0, |s| s[i])
    }

    /// `w·xᵢ + b`.
    fn score(&self, w: &[f64], i: usize) -> f64 {
        let d = self.n_features();
        let b = if self.fit_intercept { w[d] } else { 0.0 };
        self.x.row(i).dot_dense(&w[..d]) + b
    }

    fn penalty(&self, w: &[f64]) -> f64 {
        let d = self.n_features();
        0.5 * self.l2 * w[..d].iter().map(|v| v * v).sum::<f64>()
    }
}

impl<R: Records + ?Sized> Objective for LinearRisk<'_, R> {
    fn dim(&self) -> usize {
        self.n_features() + usize::from(self.fit_intercept)
    }

    fn is_penalized(&self, j: usize) -> bool {
        j < self.n_features()
    }

    fn value(&self, w: &[f64]) -> f64 {
        let sums: Vec<f64> = row_blocks(self.x.n_samples())
            .map(|rows| {
                rows.map(|i| self.weight(i) * self.loss.value(self.y[i], self.score(w, i)))
                    .sum()
            })
            .collect();
        sums.iter().sum::<f64>() / self.x.n_samples() as f64 + self.penalty(w)
    }

    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let d = self.n_features();
        let loss = self.loss_sums(w, grad);
        let inv_n = 1.0 / self.x.n_samples() as f64;
        for v in grad.iter_mut() {
            *v *= inv_n;
        }
        for (g, w) in grad[..d].iter_mut().zip(&w[..d]) {
            *g += self.l2 * w;
        }
        loss * inv_n + self.penalty(w)
    }
}

impl<R: Records + ?Sized> LossSums for LinearRisk<'_, R> {
    fn loss_sums(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let d = self.n_features();
        self.partials.sum(grad, |rows, g| {
            let mut loss = 0.0;
            for i in rows {
                let (y, f, s) = (self.y[i], self.score(w, i), self.weight(i));
                loss += s * self.loss.value(y, f);
                let dl = s * self.loss.derivative(y, f);
                if dl != 0.0 {
                    self.x.row(i).axpy(dl, &mut g[..d]);
                    if self.fit_intercept {
                        g[d] += dl;
                    }
                }
            }
            loss
        })
    }
}

impl<R: Records + ?Sized> FiniteSum for LinearRisk<'_, R> {
    fn n_terms(&self) -> usize {
        self.x.n_samples()
    }

    fn batch_gradient(&self, w: &[f64], batch: &[usize], grad: &mut [f64]) {
        let d = self.n_features();
        grad.fill(0.0);
        let scale = 1.0 / batch.len() as f64;
        for &i in batch {
            let dl = scale * self.weight(i) * self.loss.derivative(self.y[i], self.score(w, i));
            if dl != 0.0 {
                self.x.row(i).axpy(dl, &mut grad[..d]);
                if self.fit_intercept {
                    grad[d] += dl;
                }
            }
        }
        for (g, w) in grad[..d].iter_mut().zip(&w[..d]) {
            *g += self.l2 * w;
        }
    }
}

impl<R: Records + ?Sized> Hessian for LinearRisk<'_, R> {
    /// `(1/n) Σ sᵢ ℓ''ᵢ x̃ᵢx̃ᵢᵀ + λ I` (no λ on the intercept), `x̃ = (x, 1)`; one rank-one
    /// update per row over its stored features, block-parallel and summed in block order.
    fn hessian(&self, w: &[f64], h: &mut Mat<f64>) -> Result<()> {
        let dim = self.dim();
        let d = self.n_features();
        let size = dim.saturating_mul(dim);
        const WHAT: &str = "the Hessian's partial sums";
        let partials = BlockSums::new(self.x.n_samples(), size, WHAT)?;
        // Each entry is the sum over blocks in block order, as `Iterator::sum` adds them.
        let mut total = checks::parameters(size, WHAT)?;
        total.fill(std::iter::empty::<f64>().sum());
        partials.run(
            |rows, block| {
                let mut stored: Vec<(usize, f64)> = Vec::new();
                for i in rows {
                    let c =
                        self.weight(i) * self.loss.second_derivative(self.y[i], self.score(w, i));
                    if c == 0.0 {
                        continue;
                    }
                    stored.clear();
                    self.x.row(i).for_each_stored(|j, v| stored.push((j, v)));
                    if self.fit_intercept {
                        stored.push((d, 1.0));
                    }
                    for &(j, vj) in &stored {
                        let row = &mut block[j * dim..(j + 1) * dim];
                        for &(k, vk) in &stored {
                            row[k] += c * vj * vk;
                        }
                    }
                }
                0.0
            },
            |_, block| {
                for (t, b) in total.iter_mut().zip(block) {
                    *t += b;
                }
            },
        );
        let inv_n = 1.0 / self.x.n_samples() as f64;
        for j in 0..dim {
            for k in 0..dim {
                h[(j, k)] = total[j * dim + k] * inv_n;
            }
        }
        for j in 0..d {
            h[(j, j)] += self.l2;
        }
        Ok(())
    }
}

/// The multinomial logistic (softmax cross-entropy) risk of `k` linear scores:
///
/// `f(W, b) = (1/n) Σᵢ sᵢ [log Σ_c exp(f_ic) − f_{i,yᵢ}] + (λ/2) Σ_c ‖w_c‖²`, `f_ic = w_c·xᵢ + b_c`.
///
/// Parameters are laid out class by class: `w_c` then (when `fit_intercept`) `b_c`, so class
/// `c` owns `[c·p, (c+1)·p)` with `p = d + 1` (or `d`).
pub struct SoftmaxRisk<'a, R: Records + ?Sized> {
    x: &'a R,
    y: &'a [usize],
    k: usize,
    weights: Option<&'a [f64]>,
    l2: f64,
    fit_intercept: bool,
    partials: BlockSums,
}

impl<'a, R: Records + ?Sized> SoftmaxRisk<'a, R> {
    /// The risk on `(x, y)` with class indices `y < k`, optional sample weights, L2 strength
    /// `λ ≥ 0`, and per-class intercepts when `fit_intercept`.
    pub fn new(
        x: &'a R,
        y: &'a [usize],
        k: usize,
        weights: Option<&'a [f64]>,
        l2: f64,
        fit_intercept: bool,
    ) -> Result<Self> {
        let n = x.n_samples();
        if n == 0 {
            return Err(Error::EmptyDataset(
                "the risk needs at least one sample".into(),
            ));
        }
        if y.len() != n {
            return Err(Error::shape("targets", n, y.len()));
        }
        if k < 2 {
            return Err(Error::invalid_parameter("k", k, "at least 2 classes"));
        }
        if let Some(row) = y.iter().position(|&c| c >= k) {
            return Err(Error::invalid_parameter(
                format!("class of sample {row}"),
                y[row],
                format!("an index below {k}"),
            ));
        }
        checks::sample_weights(weights, n)?;
        checks::non_negative("l2", l2)?;
        let dim = k.saturating_mul(x.n_features() + usize::from(fit_intercept));
        Ok(Self {
            x,
            y,
            k,
            weights,
            l2,
            fit_intercept,
            partials: BlockSums::new(n, dim, "the risk's partial gradients")?,
        })
    }

    fn width(&self) -> usize {
        self.x.n_features() + usize::from(self.fit_intercept)
    }

    /// The `k` scores of sample `i` into `out`.
    fn scores(&self, w: &[f64], i: usize, out: &mut [f64]) {
        let (d, p) = (self.x.n_features(), self.width());
        let row = self.x.row(i);
        for (c, o) in out.iter_mut().enumerate() {
            let wc = &w[c * p..(c + 1) * p];
            *o = row.dot_dense(&wc[..d]) + if self.fit_intercept { wc[d] } else { 0.0 };
        }
    }

    /// Turns scores into probabilities in place and returns `log Σ exp`.
    fn softmax(scores: &mut [f64]) -> f64 {
        let max = scores.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let mut sum = 0.0;
        for v in scores.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        for v in scores.iter_mut() {
            *v /= sum;
        }
        max + sum.ln()
    }

    fn penalty(&self, w: &[f64]) -> f64 {
        (0..w.len())
            .filter(|&j| self.is_penalized(j))
            .map(|j| w[j] * w[j])
            .sum::<f64>()
            * 0.5
            * self.l2
    }

    /// Adds sample `i`'s gradient, scaled by `scale`, into `grad`; returns its weighted loss.
    fn add_sample(
        &self,
        w: &[f64],
        i: usize,
        scale: f64,
        scores: &mut [f64],
        grad: &mut [f64],
    ) -> f64 {
        let (d, p) = (self.x.n_features(), self.width());
        self.scores(w, i, scores);
        let own = scores[self.y[i]];
        let lse = Self::softmax(scores);
        let s = self.weights.map_or(1.0, |s| s[i]);
        let row = self.x.row(i);
        for (c, &prob) in scores.iter().enumerate() {
            let coef = scale * s * (prob - f64::from(u8::from(c == self.y[i])));
            if coef != 0.0 {
                let gc = &mut grad[c * p..(c + 1) * p];
                row.axpy(coef, &mut gc[..d]);
                if self.fit_intercept {
                    gc[d] += coef;
                }
            }
        }
        s * (lse - own)
    }
}

impl<R: Records + ?Sized> Objective for SoftmaxRisk<'_, R> {
    fn dim(&self) -> usize {
        self.k * self.width()
    }

    fn is_penalized(&self, j: usize) -> bool {
        !self.fit_intercept || j % self.width() != self.x.n_features()
    }

    fn value(&self, w: &[f64]) -> f64 {
        let sums: Vec<f64> = row_blocks(self.x.n_samples())
            .map(|rows| {
                let mut scores = vec![0.0; self.k];
                rows.map(|i| {
                    self.scores(w, i, &mut scores);
                    let own = scores[self.y[i]];
                    self.weights.map_or(1.0, |s| s[i]) * (Self::softmax(&mut scores) - own)
                })
                .sum()
            })
            .collect();
        sums.iter().sum::<f64>() / self.x.n_samples() as f64 + self.penalty(w)
    }

    fn value_and_gradient(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let loss = self.loss_sums(w, grad);
        let inv_n = 1.0 / self.x.n_samples() as f64;
        for (j, g) in grad.iter_mut().enumerate() {
            *g *= inv_n;
            if self.is_penalized(j) {
                *g += self.l2 * w[j];
            }
        }
        loss * inv_n + self.penalty(w)
    }
}

impl<R: Records + ?Sized> LossSums for SoftmaxRisk<'_, R> {
    fn loss_sums(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        self.partials.sum(grad, |rows, g| {
            let mut scores = vec![0.0; self.k];
            rows.map(|i| self.add_sample(w, i, 1.0, &mut scores, g))
                .sum()
        })
    }
}

impl<R: Records + ?Sized> FiniteSum for SoftmaxRisk<'_, R> {
    fn n_terms(&self) -> usize {
        self.x.n_samples()
    }

    fn batch_gradient(&self, w: &[f64], batch: &[usize], grad: &mut [f64]) {
        grad.fill(0.0);
        let mut scores = vec![0.0; self.k];
        let scale = 1.0 / batch.len() as f64;
        for &i in batch {
            self.add_sample(w, i, scale, &mut scores, grad);
        }
        for (j, g) in grad.iter_mut().enumerate() {
            if self.is_penalized(j) {
                *g += self.l2 * w[j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{CsrMatrix, DenseMatrix};
    use proptest::prelude::*;

    fn rows(seed: u64, n: usize, d: usize) -> DenseMatrix {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let data: Vec<f64> = (0..n * d).map(|_| next()).collect();
        DenseMatrix::from_row_major(data, n, d).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The analytic gradient of every loss's risk agrees with central differences.
        #[test]
        fn gradient_matches_finite_differences(
            seed in any::<u64>(),
            which in 0usize..4,
            l2 in 0.0f64..2.0,
            intercept in any::<bool>(),
            weighted in any::<bool>(),
        ) {
            let loss = [Loss::Hinge, Loss::SquaredHinge, Loss::Logistic, Loss::Squared][which];
            let (n, d) = (9, 4);
            let x = rows(seed, n, d);
            let y: Vec<f64> = (0..n).map(|i| if loss == Loss::Squared { x.get(i, 0) * 3.0 + 0.5 } else if (seed >> i) & 1 == 1 { 1.0 } else { -1.0 }).collect();
            let s: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
            let risk = LinearRisk::new(&x, &y, weighted.then_some(&s[..]), loss, l2, intercept).unwrap();
            let w: Vec<f64> = rows(seed ^ 77, 1, risk.dim()).row(0).to_vec();
            // The hinge is not differentiable where some margin equals 1.
            let kink = (0..n).any(|i| (y[i] * risk.score(&w, i) - 1.0).abs() < 1e-4);
            prop_assume!(loss != Loss::Hinge || !kink);
            let mut grad = vec![0.0; risk.dim()];
            let value = risk.value_and_gradient(&w, &mut grad);
            prop_assert!((value - risk.value(&w)).abs() < 1e-12);
            for j in 0..risk.dim() {
                let h = 1e-6;
                let (mut up, mut down) = (w.clone(), w.clone());
                up[j] += h;
                down[j] -= h;
                let numeric = (risk.value(&up) - risk.value(&down)) / (2.0 * h);
                prop_assert!((numeric - grad[j]).abs() < 1e-6 * (1.0 + grad[j].abs()), "{loss:?} j={j}: {numeric} vs {}", grad[j]);
            }
            // The full batch estimate is the gradient itself, whatever the layout.
            let sparse = x.to_sparse();
            let sparse_risk = LinearRisk::<CsrMatrix>::new(&sparse, &y, weighted.then_some(&s[..]), loss, l2, intercept).unwrap();
            let mut batch = vec![0.0; risk.dim()];
            sparse_risk.batch_gradient(&w, &(0..n).collect::<Vec<_>>(), &mut batch);
            for (a, b) in batch.iter().zip(&grad) {
                prop_assert!((a - b).abs() < 1e-12);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// The softmax risk's gradient agrees with central differences, and with two classes
        /// its value is the logistic risk of the score difference.
        #[test]
        fn softmax_gradient_matches_finite_differences(seed in any::<u64>(), l2 in 0.0f64..1.0, intercept in any::<bool>(), weighted in any::<bool>()) {
            let (n, d, k) = (10, 3, 3);
            let x = rows(seed, n, d);
            let y: Vec<usize> = (0..n).map(|i| ((seed >> (2 * i)) % 3) as usize).collect();
            let s: Vec<f64> = (0..n).map(|i| 0.5 + (i % 2) as f64).collect();
            let risk = SoftmaxRisk::new(&x, &y, k, weighted.then_some(&s[..]), l2, intercept).unwrap();
            let w = rows(seed ^ 5, 1, risk.dim()).row(0).to_vec();
            let mut grad = vec![0.0; risk.dim()];
            let value = risk.value_and_gradient(&w, &mut grad);
            prop_assert!((value - risk.value(&w)).abs() < 1e-12);
            for j in 0..risk.dim() {
                let h = 1e-6;
                let (mut up, mut down) = (w.clone(), w.clone());
                up[j] += h;
                down[j] -= h;
                let numeric = (risk.value(&up) - risk.value(&down)) / (2.0 * h);
                prop_assert!((numeric - grad[j]).abs() < 1e-6 * (1.0 + grad[j].abs()), "j={j}: {numeric} vs {}", grad[j]);
            }
            let mut batch = vec![0.0; risk.dim()];
            risk.batch_gradient(&w, &(0..n).collect::<Vec<_>>(), &mut batch);
            if !weighted {
                for (a, b) in batch.iter().zip(&grad) {
                    prop_assert!((a - b).abs() < 1e-12);
                }
            }
            // Two classes with w_0 = 0: softmax loss = logistic loss of the class-1 score.
            let y2: Vec<usize> = y.iter().map(|&c| c % 2).collect();
            let pm: Vec<f64> = y2.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect();
            let two = SoftmaxRisk::new(&x, &y2, 2, None, 0.0, intercept).unwrap();
            let one = LinearRisk::new(&x, &pm, None, Loss::Logistic, 0.0, intercept).unwrap();
            let p = d + usize::from(intercept);
            let mut w2 = vec![0.0; 2 * p];
            w2[p..].copy_from_slice(&w[..p]);
            prop_assert!((two.value(&w2) - one.value(&w[..p])).abs() < 1e-12);
        }
    }

    /// The loss sums of the parts (rows `cuts[i]..cuts[i + 1]`), each part's risk made by
    /// `risk(part, rows)`, added into `grad`.
    fn summed<'a>(
        w: &[f64],
        grad: &mut [f64],
        parts: &'a [DenseMatrix],
        cuts: &[usize],
        risk: impl Fn(&'a DenseMatrix, std::ops::Range<usize>) -> Result<Box<dyn LossSums + 'a>>,
    ) -> Result<f64> {
        grad.fill(0.0);
        let mut loss = 0.0;
        let mut g = vec![0.0; grad.len()];
        for (part, c) in parts.iter().zip(cuts.windows(2)) {
            loss += risk(part, c[0]..c[1])?.loss_sums(w, &mut g);
            grad.iter_mut().zip(&g).for_each(|(a, b)| *a += b);
        }
        Ok(loss)
    }

    /// A risk whose rows sit in parts, each part's loss sums added, is the risk over all the
    /// rows: the same value and gradient to rounding, the same penalized parameters.
    #[test]
    fn risks_in_parts_are_the_whole_risk() {
        let (n, d) = (700, 5);
        let x = rows(21, n, d);
        let signs: Vec<f64> = (0..n)
            .map(|i| if i % 4 == 0 { 1.0 } else { -1.0 })
            .collect();
        let classes: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 5) as f64 / 4.0).collect();
        let cuts = [0, 100, 333, n];
        let parts: Vec<DenseMatrix> = cuts
            .windows(2)
            .map(|c| x.select_rows(&(c[0]..c[1]).collect::<Vec<_>>()).unwrap())
            .collect();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());
        for intercept in [false, true] {
            let whole = LinearRisk::new(&x, &signs, Some(&weights), Loss::Logistic, 0.3, intercept)
                .unwrap();
            let parted = PartedRisk::new(
                |w: &[f64], grad: &mut [f64]| {
                    summed(w, grad, &parts, &cuts, |part, r| {
                        let risk = LinearRisk::new(
                            part,
                            &signs[r.clone()],
                            Some(&weights[r]),
                            Loss::Logistic,
                            0.0,
                            intercept,
                        )?;
                        Ok(Box::new(risk))
                    })
                },
                n,
                d,
                1,
                0.3,
                intercept,
            )
            .unwrap();
            let softmax = SoftmaxRisk::new(&x, &classes, 3, None, 0.2, intercept).unwrap();
            let softmax_parted = PartedRisk::new(
                |w: &[f64], grad: &mut [f64]| {
                    summed(w, grad, &parts, &cuts, |part, r| {
                        let risk = SoftmaxRisk::new(part, &classes[r], 3, None, 0.0, intercept)?;
                        Ok(Box::new(risk))
                    })
                },
                n,
                d,
                3,
                0.2,
                intercept,
            )
            .unwrap();
            for (one, other) in [
                (&whole as &dyn Objective, &parted as &dyn Objective),
                (&softmax, &softmax_parted),
            ] {
                assert_eq!(one.dim(), other.dim());
                let w = rows(22, 1, one.dim()).row(0).to_vec();
                let (mut g1, mut g2) = (vec![0.0; one.dim()], vec![0.0; one.dim()]);
                let (v1, v2) = (
                    one.value_and_gradient(&w, &mut g1),
                    other.value_and_gradient(&w, &mut g2),
                );
                assert!(close(v2, v1), "{v2} vs {v1}");
                assert!(close(other.value(&w), one.value(&w)));
                for j in 0..one.dim() {
                    assert!(close(g2[j], g1[j]), "{j}: {} vs {}", g2[j], g1[j]);
                    assert_eq!(one.is_penalized(j), other.is_penalized(j));
                }
            }
        }
    }

    /// A part that fails makes the value NaN and is reported once the solver stops.
    #[test]
    fn a_failing_part_is_reported() {
        let risk = PartedRisk::new(
            |_: &[f64], _: &mut [f64]| Err(Error::Numerical("part 2 is gone".into())),
            10,
            2,
            1,
            0.1,
            true,
        )
        .unwrap();
        assert!(risk.value(&[0.0; 3]).is_nan());
        assert!(matches!(risk.failure(), Some(Error::Numerical(m)) if m == "part 2 is gone"));
    }

    /// Wide weights make the per-block sums run in waves of one buffer per thread: the blocks
    /// and the order of their sums are the same, so are the bits.
    #[test]
    fn gradients_summed_in_waves_are_the_gradients_summed_at_once() {
        let (n, d) = (5000, 6);
        let x = rows(11, n, d);
        let sparse = x.to_sparse();
        let signs: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let classes: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for intercept in [false, true] {
            let mut linear =
                LinearRisk::new(&sparse, &signs, None, Loss::Logistic, 0.1, intercept).unwrap();
            let mut softmax = SoftmaxRisk::new(&x, &classes, 3, None, 0.1, intercept).unwrap();
            let (wl, ws) = (
                rows(12, 1, linear.dim()).row(0).to_vec(),
                rows(13, 1, softmax.dim()).row(0).to_vec(),
            );
            let (mut gl, mut gs) = (vec![0.0; linear.dim()], vec![0.0; softmax.dim()]);
            let at_once = (
                linear.value_and_gradient(&wl, &mut gl),
                softmax.value_and_gradient(&ws, &mut gs),
            );
            for wave in [1, 2] {
                linear.partials = BlockSums::with_wave(n, linear.dim(), wave, "test").unwrap();
                softmax.partials = BlockSums::with_wave(n, softmax.dim(), wave, "test").unwrap();
                let (mut hl, mut hs) = (vec![0.0; linear.dim()], vec![0.0; softmax.dim()]);
                let waves = (
                    linear.value_and_gradient(&wl, &mut hl),
                    softmax.value_and_gradient(&ws, &mut hs),
                );
                assert_eq!(at_once.0.to_bits(), waves.0.to_bits());
                assert_eq!(at_once.1.to_bits(), waves.1.to_bits());
                assert_eq!(bits(&gl), bits(&hl));
                assert_eq!(bits(&gs), bits(&hs));
            }
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        let x = rows(1, 3, 2);
        let ok = [1.0, -1.0, 1.0];
        assert!(matches!(
            LinearRisk::new(&x, &ok[..2], None, Loss::Hinge, 0.0, true),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            LinearRisk::new(&x, &[1.0, 0.0, 1.0], None, Loss::Logistic, 0.0, true),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            LinearRisk::new(&x, &ok, Some(&[1.0, -1.0, 1.0]), Loss::Hinge, 0.0, true),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            LinearRisk::new(&x, &ok, None, Loss::Hinge, -1.0, true),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            LinearRisk::new(&x, &[1.0, f64::NAN, 1.0], None, Loss::Squared, 0.0, true),
            Err(Error::NonFinite { .. })
        ));
    }
}
