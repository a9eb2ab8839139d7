//! Pegasos: primal estimated sub-gradient solver for the linear SVM (Shalev-Shwartz, Singer,
//! Srebro & Cotter, 2011), and its kernelized textbook form.
//!
//! It minimizes `(λ/2)‖w‖² + (1/n) Σᵢ sᵢ max(0, 1 − yᵢ w·xᵢ)` by steps of size `1/(λt)` on
//! mini-batches of `k` samples drawn from a fresh permutation each epoch. With `λ = 1/(nC)`
//! this is the SVM primal `½‖w‖² + C Σ sᵢ hingeᵢ` divided by `nC`, so both share a minimizer.
//!
//! `w` is stored as `a·v`: the shrink `w ← (1 − 1/t) w` touches only the scalar `a`, and a
//! violator's update touches only its stored features, so a step costs `O(nnz)` on sparse
//! records, not `O(d)`. Averaged iterates keep the same cost through a second vector (the
//! running sum is `S = A·v − u` with `A` the sum of the scales so far and `u` the increments
//! of `v` weighted by the `A` at their time).
//!
//! An intercept, when asked for, is LIBLINEAR's: a constant feature of value `bias` appended
//! to every sample, regularized like the other weights.

use margin_core::split::rng_from_seed;
use margin_core::{Error, Records, Result, RowView};
use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::checks;
use crate::sample_rows::{CsrRows, DenseRows, Layout, Rows};
use crate::{Control, Observer, Progress, Run, Stop};

/// Which iterate Pegasos returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Iterate {
    /// The last `w_T` (the paper's practical choice).
    Last,
    /// The mean of all iterates `w_1 … w_T` (the paper's Theorem 1 bounds its objective).
    Average,
    /// The mean of the last half `w_{T/2+1} … w_T`, which removes the `log T` of the full
    /// average (Rakhlin, Shamir & Sridharan, 2012).
    SuffixAverage,
}

margin_core::param_choice!(Iterate {
    Last => "last",
    Average => "average",
    SuffixAverage => "suffix-average",
});

/// Settings of [`pegasos`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PegasosOptions {
    /// The regularization `λ > 0` (`1/(nC)` for an SVM with cost `C`).
    pub lambda: f64,
    /// Passes over the data (default 20).
    pub epochs: usize,
    /// Samples per step `k` (default 1).
    pub batch_size: usize,
    /// Project `w` onto the ball of radius `1/√λ` after each step (default false).
    pub projection: bool,
    /// Which iterate to return (default [`Iterate::Last`]).
    pub iterate: Iterate,
    /// LIBLINEAR's bias feature: `Some(B)` appends a feature of value `B` (default `None`).
    pub bias: Option<f64>,
    /// Seed of the epoch permutations.
    pub seed: u64,
}

impl Default for PegasosOptions {
    fn default() -> Self {
        Self {
            lambda: 1e-4,
            epochs: 20,
            batch_size: 1,
            projection: false,
            iterate: Iterate::Last,
            bias: None,
            seed: 0,
        }
    }
}

/// The weights Pegasos found.
#[derive(Clone, Debug, PartialEq)]
pub struct PegasosSolution {
    /// `w` (`d` entries, plus the bias feature's weight last when `bias` was set).
    pub w: Vec<f64>,
    /// Steps taken `T`.
    pub steps: usize,
    /// Epochs run.
    pub epochs: usize,
    /// Why it stopped: Pegasos has no tolerance, so a run that completes its epochs (the
    /// schedule asked for) reports [`Stop::CONVERGED`], and one an observer ended
    /// [`Stop::Observer`].
    pub stop: Stop,
}

impl PegasosSolution {
    /// The run as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.epochs, self.stop)
    }
}

fn check_common(n: usize, y: &[f64], lambda: f64) -> Result<()> {
    checks::signed_labels(y, n, "Pegasos")?;
    if !(lambda > 0.0 && lambda.is_finite()) {
        return Err(Error::invalid_parameter(
            "lambda",
            lambda,
            "a finite number > 0",
        ));
    }
    Ok(())
}

/// `w = a·v` plus the running sum for averaged iterates.
struct ScaledWeights {
    a: f64,
    v: Vec<f64>,
    /// `‖v‖²`, kept only when projecting.
    v_sq: f64,
    /// Sum of the scales contributed since the last renormalization.
    scale_sum: f64,
    /// Increments of `v` weighted by `scale_sum` at their time.
    u: Vec<f64>,
    /// The materialized part of the running sum.
    sum: Vec<f64>,
    terms: usize,
}

impl ScaledWeights {
    /// `v·x` for a sample `x` of `d` features (and the bias feature's value last).
    #[inline(always)]
    fn dot(&self, x: RowView<'_>, d: usize, bias: Option<f64>) -> f64 {
        let mut s = x.dot_dense(&self.v[..d]);
        if let Some(b) = bias {
            s += self.v[d] * b;
        }
        s
    }

    /// `v += c·x`, keeping `‖v‖²` and the averaging vector in step.
    #[inline(always)]
    fn add(&mut self, x: RowView<'_>, d: usize, bias: Option<f64>, c: f64, track_norm: bool) {
        if track_norm {
            let x_sq = x.sq_norm() + bias.map_or(0.0, |b| b * b);
            self.v_sq += 2.0 * c * self.dot(x, d, bias) + c * c * x_sq;
        }
        x.axpy(c, &mut self.v[..d]);
        if let Some(b) = bias {
            self.v[d] += c * b;
        }
        if self.scale_sum != 0.0 {
            x.axpy(self.scale_sum * c, &mut self.u[..d]);
            if let Some(b) = bias {
                self.u[d] += self.scale_sum * c * b;
            }
        }
    }

    /// Folds `a` into `v` when it has become so small that `v` would lose precision.
    fn renormalize(&mut self) {
        self.flush();
        for v in &mut self.v {
            *v *= self.a;
        }
        self.v_sq *= self.a * self.a;
        self.a = 1.0;
    }

    /// Moves the lazily kept part of the running sum into `sum`.
    fn flush(&mut self) {
        if self.scale_sum != 0.0 {
            for ((s, v), u) in self.sum.iter_mut().zip(&self.v).zip(&mut self.u) {
                *s += self.scale_sum * v - *u;
                *u = 0.0;
            }
            self.scale_sum = 0.0;
        }
    }

    fn contribute(&mut self) {
        self.scale_sum += self.a;
        self.terms += 1;
    }
}

/// Trains a linear SVM by Pegasos on labels `y ∈ {−1, +1}` with optional per-sample cost
/// multipliers `weights` (class weights × sample weights), reporting each epoch (with its last
/// step size) to `observer` (`&mut ()` for none).
pub fn pegasos<R: Records + ?Sized>(
    x: &R,
    y: &[f64],
    weights: Option<&[f64]>,
    options: &PegasosOptions,
    observer: &mut dyn Observer,
) -> Result<PegasosSolution> {
    let n = x.n_samples();
    check_common(n, y, options.lambda)?;
    if options.epochs == 0 {
        return Err(Error::invalid_parameter("epochs", 0, "at least 1"));
    }
    if options.batch_size == 0 {
        return Err(Error::invalid_parameter("batch_size", 0, "at least 1"));
    }
    if let Some(b) = options.bias
        && !(b > 0.0 && b.is_finite())
    {
        return Err(Error::invalid_parameter("bias", b, "a finite number > 0"));
    }
    checks::sample_weights(weights, n)?;
    let d = x.n_features();
    match Layout::of(x) {
        Layout::Sparse(csr) => run(&CsrRows::new(&csr), d, y, weights, options, observer),
        Layout::Dense(dense) => run(&DenseRows::new(dense), d, y, weights, options, observer),
    }
}

/// The steps themselves, over validated inputs: `n = y.len()` samples of `d` features.
fn run<X: Rows>(
    rows: &X,
    d: usize,
    y: &[f64],
    weights: Option<&[f64]>,
    options: &PegasosOptions,
    observer: &mut dyn Observer,
) -> Result<PegasosSolution> {
    let n = y.len();
    let lambda = options.lambda;
    let k = options.batch_size.min(n);
    let dim = d + usize::from(options.bias.is_some());
    let steps_per_epoch = n.div_ceil(k);
    let total = options.epochs * steps_per_epoch;
    let average_from = match options.iterate {
        Iterate::Last => usize::MAX,
        Iterate::Average => 1,
        Iterate::SuffixAverage => total / 2 + 1,
    };
    let radius_sq = 1.0 / lambda;
    const WHAT: &str = "Pegasos's weights";
    checks::vectors(3, dim, WHAT)?;
    let mut w = ScaledWeights {
        a: 1.0,
        v: checks::parameters(dim, WHAT)?,
        v_sq: 0.0,
        scale_sum: 0.0,
        u: checks::parameters(dim, WHAT)?,
        sum: checks::parameters(dim, WHAT)?,
        terms: 0,
    };
    let mut rng = rng_from_seed(options.seed);
    let mut order: Vec<usize> = (0..n).collect();
    let mut violators = Vec::with_capacity(k);
    let mut t = 0usize;
    let (mut epochs, mut stop) = (0, Stop::CONVERGED);
    while epochs < options.epochs {
        order.shuffle(&mut rng);
        for (b, batch) in order.chunks(k).enumerate() {
            t += 1;
            // Samples come in a shuffled order: ask for the next batch's rows now, so their
            // loads overlap this step's arithmetic.
            for &i in order.iter().skip((b + 1) * k).take(k) {
                rows.prefetch(rows.range(i).0);
            }
            for &i in order.iter().skip((b + 2) * k).take(k) {
                rows.prefetch_range(i);
            }
            let eta = 1.0 / (lambda * t as f64);
            violators.clear();
            violators.extend(batch.iter().filter_map(|&i| {
                let (start, end) = rows.range(i);
                let score = w.a * w.dot(rows.view(start, end), d, options.bias);
                (y[i] * score < 1.0).then_some((i, start, end))
            }));
            // w ← (1 − ηλ) w = (1 − 1/t) w: zero at t = 1, where v restarts from 0.
            if t == 1 {
                w.v.fill(0.0);
                w.v_sq = 0.0;
                w.a = 1.0;
            } else {
                w.a *= 1.0 - 1.0 / t as f64;
            }
            let step = eta / batch.len() as f64;
            for &(i, start, end) in &violators {
                let s = weights.map_or(1.0, |s| s[i]);
                let c = step * s * y[i] / w.a;
                w.add(
                    rows.view(start, end),
                    d,
                    options.bias,
                    c,
                    options.projection,
                );
            }
            if options.projection {
                let norm_sq = w.a * w.a * w.v_sq;
                if norm_sq > radius_sq {
                    w.a *= (radius_sq / norm_sq).sqrt();
                }
            }
            if w.a.abs() < 1e-9 {
                w.renormalize();
            }
            if t >= average_from {
                w.contribute();
            }
        }
        epochs += 1;
        let progress = Progress {
            step: Some(1.0 / (lambda * t as f64)),
            ..Progress::new("pegasos", epochs)
        };
        if observer.observe(&progress) == Control::Stop {
            stop = Stop::Observer;
            break;
        }
    }
    // The result reuses a buffer: another `dim` values may not be there to have.
    let result = if w.terms > 0 {
        w.flush();
        let inv = 1.0 / w.terms as f64;
        let mut sum = w.sum;
        sum.iter_mut().for_each(|s| *s *= inv);
        sum
    } else {
        let a = w.a;
        let mut v = w.v;
        v.iter_mut().for_each(|v| *v *= a);
        v
    };
    // A step of `η·y·x` with features near f64's largest value overflows the weights: a
    // model of them could only answer NaN, so the fit is refused rather than saved.
    if let Some(j) = result.iter().position(|v| !v.is_finite()) {
        return Err(Error::OutOfRange {
            what: "the features".into(),
            reason: format!(
                "Pegasos's weight {j} overflowed f64 after {t} steps; rescale the features (margin scale, StandardScaler) or use the dual coordinate descent solver"
            ),
        });
    }
    Ok(PegasosSolution {
        w: result,
        steps: t,
        epochs,
        stop,
    })
}

/// Settings of [`kernel_pegasos`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelPegasosOptions {
    /// The regularization `λ > 0`.
    pub lambda: f64,
    /// Steps `T` (each draws one sample uniformly at random).
    pub iterations: usize,
    /// Seed of the draws.
    pub seed: u64,
}

/// The kernelized Pegasos solution: `f(x) = scale · Σⱼ αⱼ yⱼ K(xⱼ, x)`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelPegasosSolution {
    /// `αⱼ`: how many times sample `j` was drawn while violating the margin.
    pub alpha: Vec<u32>,
    /// `1/(λT)`, with `T` the steps taken.
    pub scale: f64,
    /// Steps taken: `iterations`, or fewer when the observer stopped the run.
    pub steps: usize,
    /// Why the run ended.
    pub stop: Stop,
}

impl KernelPegasosSolution {
    /// The run, as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.steps, self.stop)
    }
}

/// Kernelized Pegasos: the textbook variant in which `α` counts margin violations. Each step
/// evaluates the kernel against every sample with `α > 0`, so it costs `O(#SV)` kernel
/// evaluations; it is here to teach and to cross-check, not for speed (SMO solves the same
/// problem exactly, faster).
///
/// `kernel(i, j)` returns `K(xᵢ, xⱼ)` for training samples `i`, `j`. Each step is reported
/// (with its step size `1/(λt)`) to `observer` (`&mut ()` for none), which may end the run
/// early.
pub fn kernel_pegasos(
    y: &[f64],
    kernel: &dyn Fn(usize, usize) -> f64,
    options: &KernelPegasosOptions,
    observer: &mut dyn Observer,
) -> Result<KernelPegasosSolution> {
    let n = y.len();
    check_common(n, y, options.lambda)?;
    if options.iterations == 0 {
        return Err(Error::invalid_parameter("iterations", 0, "at least 1"));
    }
    let mut alpha = vec![0u32; n];
    let mut support: Vec<usize> = Vec::new();
    let mut rng = rng_from_seed(options.seed);
    let (mut steps, mut stop) = (options.iterations, Stop::MaxIterations);
    for t in 1..=options.iterations {
        let i = rng.random_range(0..n);
        let sum: f64 = support
            .iter()
            .map(|&j| f64::from(alpha[j]) * y[j] * kernel(i, j))
            .sum();
        let step = 1.0 / (options.lambda * t as f64);
        if y[i] * sum * step < 1.0 {
            if alpha[i] == 0 {
                support.push(i);
            }
            alpha[i] += 1;
        }
        let progress = Progress {
            step: Some(step),
            ..Progress::new("kernel-pegasos", t)
        };
        if observer.observe(&progress) == Control::Stop {
            (steps, stop) = (t, Stop::Observer);
            break;
        }
    }
    Ok(KernelPegasosSolution {
        alpha,
        scale: 1.0 / (options.lambda * steps as f64),
        steps,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gd::Objective;
    use crate::loss::Loss;
    use crate::risk::LinearRisk;
    use margin_core::DenseMatrix;

    /// Two Gaussian-ish blobs from a fixed linear congruential stream.
    fn blobs(n: usize, seed: u64) -> (DenseMatrix, Vec<f64>) {
        let mut state = seed | 1;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let label = if i % 2 == 0 { 1.0 } else { -1.0 };
            rows.push(vec![label * 0.6 + next(), label * 0.3 + next(), next()]);
            y.push(label);
        }
        (DenseMatrix::from_rows(&rows).unwrap(), y)
    }

    fn objective(x: &DenseMatrix, y: &[f64], lambda: f64, w: &[f64]) -> f64 {
        LinearRisk::new(x, y, None, Loss::Hinge, lambda, false)
            .unwrap()
            .value(w)
    }

    #[test]
    fn observers_see_every_epoch_and_can_stop_it() {
        let (x, y) = blobs(30, 2);
        for iterate in [Iterate::Last, Iterate::Average] {
            let options = PegasosOptions {
                lambda: 0.01,
                epochs: 6,
                iterate,
                ..Default::default()
            };
            let run = crate::observed::check("pegasos", 3, |o| {
                let s = pegasos(&x, &y, None, &options, o).unwrap();
                let run = s.run();
                (s, run)
            });
            assert_eq!((run.iterations, run.stop), (6, Stop::CONVERGED));
        }
    }

    #[test]
    fn scaled_sparse_updates_equal_the_plain_dense_algorithm() {
        // The textbook update on a dense w, with the same permutations: the O(nnz) bookkeeping
        // (scale, norm, averages) must not change a single step.
        let (x, y) = blobs(40, 5);
        let sparse = x.to_sparse();
        for (iterate, projection, k) in [
            (Iterate::Last, false, 1),
            (Iterate::Average, true, 3),
            (Iterate::SuffixAverage, true, 1),
        ] {
            let options = PegasosOptions {
                lambda: 0.05,
                epochs: 7,
                batch_size: k,
                projection,
                iterate,
                bias: Some(1.0),
                seed: 2,
            };
            let fast = pegasos(&sparse, &y, None, &options, &mut ()).unwrap();
            let mut rng = rng_from_seed(2);
            let mut order: Vec<usize> = (0..40).collect();
            let mut w = [0.0; 4];
            let (mut sum, mut terms) = ([0.0; 4], 0);
            let total = 7 * 40usize.div_ceil(k);
            let mut t = 0;
            for _ in 0..7 {
                order.shuffle(&mut rng);
                for batch in order.chunks(k) {
                    t += 1;
                    let eta = 1.0 / (0.05 * t as f64);
                    let xi = |i: usize| [x.get(i, 0), x.get(i, 1), x.get(i, 2), 1.0];
                    let viol: Vec<usize> = batch
                        .iter()
                        .copied()
                        .filter(|&i| {
                            y[i] * xi(i).iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() < 1.0
                        })
                        .collect();
                    for v in &mut w {
                        *v *= 1.0 - 1.0 / t as f64;
                    }
                    for i in viol {
                        for (v, xv) in w.iter_mut().zip(xi(i)) {
                            *v += eta / batch.len() as f64 * y[i] * xv;
                        }
                    }
                    if projection {
                        let norm = w.iter().map(|v| v * v).sum::<f64>().sqrt();
                        let r = 1.0 / 0.05f64.sqrt();
                        if norm > r {
                            for v in &mut w {
                                *v *= r / norm;
                            }
                        }
                    }
                    let start = match iterate {
                        Iterate::Last => usize::MAX,
                        Iterate::Average => 1,
                        Iterate::SuffixAverage => total / 2 + 1,
                    };
                    if t >= start {
                        for (s, v) in sum.iter_mut().zip(&w) {
                            *s += v;
                        }
                        terms += 1;
                    }
                }
            }
            let expected: Vec<f64> = if terms > 0 {
                sum.iter().map(|s| s / terms as f64).collect()
            } else {
                w.to_vec()
            };
            for (a, b) in fast.w.iter().zip(&expected) {
                assert!(
                    (a - b).abs() < 1e-10 * (1.0 + b.abs()),
                    "{iterate:?}: {:?} vs {expected:?}",
                    fast.w
                );
            }
        }
    }

    #[test]
    fn objective_decreases_in_expectation_within_the_theorem_bound() {
        // Theorem 1 (with projection, averaged iterate): E f(w̄_T) − f* ≤ G²(1 + ln T)/(2λT),
        // G = √λ + max‖x‖. Averaged over seeds, the gap must shrink as T grows and stay
        // below the bound.
        let (x, y) = blobs(60, 11);
        let lambda = 0.02;
        let reference = pegasos(
            &x,
            &y,
            None,
            &PegasosOptions {
                lambda,
                epochs: 3000,
                iterate: Iterate::SuffixAverage,
                seed: 99,
                ..Default::default()
            },
            &mut (),
        )
        .unwrap();
        let f_star = objective(&x, &y, lambda, &reference.w);
        let r = (0..60)
            .map(|i| x.row(i).iter().map(|v| v * v).sum::<f64>().sqrt())
            .fold(0.0, f64::max);
        let g = lambda.sqrt() + r;
        let mut previous = f64::INFINITY;
        for epochs in [1, 10, 100] {
            let gaps: f64 = (0..20)
                .map(|seed| {
                    let s = pegasos(
                        &x,
                        &y,
                        None,
                        &PegasosOptions {
                            lambda,
                            epochs,
                            projection: true,
                            iterate: Iterate::Average,
                            seed,
                            ..Default::default()
                        },
                        &mut (),
                    )
                    .unwrap();
                    objective(&x, &y, lambda, &s.w) - f_star
                })
                .sum::<f64>()
                / 20.0;
            let t = (epochs * 60) as f64;
            let bound = g * g * (1.0 + t.ln()) / (2.0 * lambda * t);
            assert!(
                gaps >= -1e-9 && gaps <= bound,
                "T={t}: gap {gaps}, bound {bound}"
            );
            assert!(
                gaps < previous,
                "T={t}: gap {gaps} did not shrink from {previous}"
            );
            previous = gaps;
        }
    }

    #[test]
    fn suffix_average_is_no_worse_than_the_last_iterate_on_average() {
        let (x, y) = blobs(80, 3);
        let lambda = 0.01;
        let mean = |iterate| {
            (0..20)
                .map(|seed| {
                    let s = pegasos(
                        &x,
                        &y,
                        None,
                        &PegasosOptions {
                            lambda,
                            epochs: 30,
                            iterate,
                            seed,
                            ..Default::default()
                        },
                        &mut (),
                    )
                    .unwrap();
                    objective(&x, &y, lambda, &s.w)
                })
                .sum::<f64>()
                / 20.0
        };
        let (last, averaged) = (mean(Iterate::Last), mean(Iterate::SuffixAverage));
        assert!(averaged <= last, "averaged {averaged} vs last {last}");
    }

    #[test]
    fn kernel_pegasos_reports_each_step_and_stops_when_asked() {
        let (x, y) = blobs(30, 2);
        let k = |i: usize, j: usize| margin_core::dot(x.row(i), x.row(j));
        let options = KernelPegasosOptions {
            lambda: 0.1,
            iterations: 200,
            seed: 4,
        };
        let run = crate::observed::check("kernel-pegasos", 50, |o| {
            let s = kernel_pegasos(&y, &k, &options, o).unwrap();
            let run = s.run();
            (s, run)
        });
        assert_eq!((run.iterations, run.stop), (200, Stop::MaxIterations));
        let mut stop = crate::StopAfter::new(50);
        let stopped = kernel_pegasos(&y, &k, &options, &mut stop).unwrap();
        assert_eq!(stopped.scale, 1.0 / (0.1 * 50.0));
    }

    #[test]
    fn kernel_pegasos_with_the_linear_kernel_separates_blobs() {
        let (x, y) = blobs(60, 4);
        let k = |i: usize, j: usize| {
            x.row(i)
                .iter()
                .zip(x.row(j))
                .map(|(a, b)| a * b)
                .sum::<f64>()
        };
        let s = kernel_pegasos(
            &y,
            &k,
            &KernelPegasosOptions {
                lambda: 0.01,
                iterations: 3000,
                seed: 1,
            },
            &mut (),
        )
        .unwrap();
        let correct = (0..60)
            .filter(|&i| {
                let f: f64 = (0..60)
                    .map(|j| f64::from(s.alpha[j]) * y[j] * k(i, j))
                    .sum::<f64>()
                    * s.scale;
                f * y[i] > 0.0
            })
            .count();
        assert!(correct >= 50, "{correct}/60");
        assert_eq!(s.scale, 1.0 / (0.01 * 3000.0));
    }

    #[test]
    fn kernel_pegasos_solves_xor_with_an_rbf_kernel() {
        let pts = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]];
        let y = [-1.0, -1.0, 1.0, 1.0];
        let rbf = |i: usize, j: usize| {
            let d: f64 = pts[i]
                .iter()
                .zip(&pts[j])
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            (-2.0 * d).exp()
        };
        let s = kernel_pegasos(
            &y,
            &rbf,
            &KernelPegasosOptions {
                lambda: 0.1,
                iterations: 500,
                seed: 0,
            },
            &mut (),
        )
        .unwrap();
        for i in 0..4 {
            let f: f64 = (0..4)
                .map(|j| f64::from(s.alpha[j]) * y[j] * rbf(i, j))
                .sum::<f64>()
                * s.scale;
            assert!(f * y[i] > 0.0, "point {i}: {f}");
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        let (x, y) = blobs(4, 1);
        let ok = PegasosOptions::default();
        for bad in [
            PegasosOptions { lambda: 0.0, ..ok },
            PegasosOptions { epochs: 0, ..ok },
            PegasosOptions {
                batch_size: 0,
                ..ok
            },
            PegasosOptions {
                bias: Some(-1.0),
                ..ok
            },
        ] {
            assert!(
                matches!(
                    pegasos(&x, &y, None, &bad, &mut ()),
                    Err(Error::InvalidParameter { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            pegasos(&x, &[1.0, 2.0, 1.0, -1.0], None, &ok, &mut ()),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            pegasos(&x, &y[..3], None, &ok, &mut ()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            pegasos(&x, &y, Some(&[1.0; 3]), &ok, &mut ()),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            kernel_pegasos(
                &[],
                &|_, _| 1.0,
                &KernelPegasosOptions {
                    lambda: 1.0,
                    iterations: 1,
                    seed: 0
                },
                &mut ()
            ),
            Err(Error::EmptyDataset(_))
        ));
    }
}
