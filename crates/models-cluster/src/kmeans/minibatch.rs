//! Mini-batch k-means (Sculley 2010), as scikit-learn's `MiniBatchKMeans`.

use margin_core::fit::{Control, FitObserved, FitReport, Observer, Progress, Run, Stop};
use margin_core::{
    DenseMatrix, Fit, Matrix, Predict, Records, Result, Transform, split::rng_from_seed, validate,
};
use margin_io::ModelFile;
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Clusters, KMeansInit, assign, centre_queries, check_decoded, initial};
use crate::AutoOr;
use margin_core::params::Params;

/// Parameters of [`MiniBatchKMeans`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct MiniBatchKMeansParams {
    #[param(flatten)]
    clusters: Clusters,
    /// Initialisations tried, the best on a held-out random sample kept (default: scikit-learn's
    /// `"auto"`, 1 for k-means++ and given centres, 3 for random rows).
    #[param(
        help = "runs from different starts, best inertia kept (auto: 3)",
        ty = AutoOr,
        get = |p| AutoOr(p.n_init),
        set = |p, v| p.n_init = v.0,
        valid = ("an integer ≥ 1", AutoOr::at_least_one),
        applies = ("without given centres", |p| p.clusters.centers.is_none()),
        setter(strip_option)
    )]
    n_init: Option<usize>,
    /// Passes over the data, in units of `n / batch_size` mini-batch steps (default 100, ≥ 1).
    #[param(
        help = "passes over the data (epochs)",
        default = 100,
        valid = ("an integer ≥ 1", |n| *n >= 1)
    )]
    max_iter: usize,
    /// Rows per mini-batch, drawn with replacement (default 1024, ≥ 1; capped at `n`).
    #[param(help = "rows per mini-batch", default = 1024, valid = ("an integer ≥ 1", |b| *b >= 1))]
    batch_size: usize,
    /// Stop when the centres move by at most `tol × mean feature variance` in one step
    /// (default 0: off).
    #[param(
        help = "stop when centres move ≤ tol × mean feature variance (0: off)",
        default = 0.0,
        valid = ("a finite number ≥ 0", |t| t.is_finite() && *t >= 0.0)
    )]
    tol: f64,
    /// Stop after this many steps without improving the smoothed batch inertia (default 10;
    /// `None`: never stop early on it).
    #[param(
        help = "stop after this many batches without improving the smoothed inertia (none: off)",
        default = Some(10)
    )]
    max_no_improvement: Option<usize>,
    /// Rows the initialisation sees (default `3 × batch_size`, at least `3k`, at most `n`).
    #[param(
        help = "rows sampled to choose the initial centres (none: 3 × batch_size)",
        valid = ("an integer ≥ 1", |s| *s != Some(0)),
        setter(strip_option)
    )]
    init_size: Option<usize>,
    /// A centre whose row count falls below this fraction of the largest count is moved to a
    /// random batch row (default 0.01, in [0, 1]; 0 turns reassignment off).
    #[param(
        help = "centres with fewer than this share of the largest count are reassigned",
        default = 0.01,
        valid = ("a number in [0, 1]", |r| (0.0..=1.0).contains(r))
    )]
    reassignment_ratio: f64,
    /// Seed of the initialisation and of the batches (default 0).
    #[param(help = "seed of the initialisation and of the batches")]
    seed: u64,
}

impl MiniBatchKMeansParams {
    /// Initialisation (default [`KMeansInit::KMeansPlusPlus`]), run on `init_size` random rows.
    pub fn init(mut self, init: KMeansInit) -> Self {
        self.clusters.set_init(init);
        self
    }

    fn runs(&self) -> usize {
        self.clusters.runs(self.n_init, 3)
    }
}

/// k-means by mini-batch steps: each step assigns a random batch to the nearest centres and
/// moves every centre towards its batch rows with step `1 / (rows it has seen)`. Much cheaper
/// than [`KMeans`](super::KMeans) for large `n`, at a somewhat higher inertia.
///
/// Stopping follows scikit-learn: after `max_iter × n / batch_size` steps, or when an
/// exponentially weighted average of the batch inertia has not improved for
/// `max_no_improvement` steps, or (with `tol > 0`) when the centres barely move. Rarely used
/// centres are moved to random batch rows every `10k` rows seen (`reassignment_ratio`). The
/// final labels and inertia are computed on all rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MiniBatchKMeans {
    centers: DenseMatrix,
    labels: Vec<usize>,
    inertia: f64,
    n_steps: usize,
    n_iter: usize,
    /// Why the steps stopped.
    stop: Stop,
    /// The hyperparameters the model was fitted with.
    params: MiniBatchKMeansParams,
}

impl MiniBatchKMeans {
    /// The hyperparameters the model was fitted with (see [`MiniBatchKMeansParams`]).
    pub fn hyperparams(&self) -> &MiniBatchKMeansParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.centers.ncols()
    }
    /// Default parameters.
    pub fn params() -> MiniBatchKMeansParams {
        MiniBatchKMeansParams::default()
    }

    /// The centres, one row per cluster (`k × d`).
    pub fn cluster_centers(&self) -> &DenseMatrix {
        &self.centers
    }

    /// The cluster of every training row.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Sum of squared distances of the training rows to their centres.
    pub fn inertia(&self) -> f64 {
        self.inertia
    }

    /// Mini-batch steps taken.
    pub fn n_steps(&self) -> usize {
        self.n_steps
    }

    /// How the fit went: one run of [`Self::n_steps`] steps, whose iterations are the
    /// passes over the data they amount to (rounded up: [`Self::n_iter`]). At the limit when
    /// `max_iter` passes ran out before a stopping rule (`max_no_improvement`, or `tol > 0`)
    /// fired; [`Stop::NoImprovement`] when `max_no_improvement` fired, converged when the
    /// centres moved less than `tol`. With both rules off the fit runs its `max_iter` passes
    /// by design and counts as converged. Observers see each step, numbered from 1.
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![Run::new(self.n_iter, self.stop)])
    }

    /// The opposite of the inertia of `records` (higher is better).
    pub fn score<R: Records + ?Sized>(&self, records: &R) -> Result<f64> {
        super::score(&self.centers, records)
    }
}

/// The rows at `idx` (with repeats), in the records' own layout where it is known.
fn gather<R: Records + ?Sized>(x: &R, idx: &[usize]) -> Result<Matrix> {
    Ok(match (x.as_dense(), x.as_sparse()) {
        (Some(d), _) => Matrix::Dense(d.select_rows(idx)?),
        (None, Some(s)) => Matrix::Sparse(s.select_rows(idx)?),
        (None, None) => Matrix::Dense(super::init::rows_as_centers(x, idx)),
    })
}

fn draw(rng: &mut impl Rng, n: usize, size: usize) -> Vec<usize> {
    (0..size).map(|_| rng.random_range(0..n)).collect()
}

/// The smoothed-inertia early stop.
struct Monitor {
    alpha: f64,
    ewa: Option<f64>,
    best: Option<f64>,
    stale: usize,
    patience: Option<usize>,
}

impl Monitor {
    /// Whether to stop after a step whose mean batch inertia is `inertia`.
    fn stop(&mut self, inertia: f64) -> bool {
        let ewa = match self.ewa {
            None => inertia,
            Some(e) => e * (1.0 - self.alpha) + inertia * self.alpha,
        };
        self.ewa = Some(ewa);
        if self.best.is_none_or(|b| ewa < b) {
            self.best = Some(ewa);
            self.stale = 0;
        } else {
            self.stale += 1;
        }
        self.patience.is_some_and(|p| self.stale >= p)
    }
}

impl<R: Records + ?Sized> Fit<R> for MiniBatchKMeansParams {
    type Model = MiniBatchKMeans;

    fn fit(&self, x: &R) -> Result<MiniBatchKMeans> {
        self.fit_observed(x, &mut ())
    }
}

impl<R: Records + ?Sized> FitObserved<R> for MiniBatchKMeansParams {
    fn fit_observed(&self, x: &R, observer: &mut dyn Observer) -> Result<MiniBatchKMeans> {
        self.clusters.check_for(self, x)?;
        let (n, k) = (x.n_samples(), self.clusters.n_clusters);
        let batch = self.batch_size.min(n);
        let mut init_size = self.init_size.unwrap_or(3 * batch);
        if init_size < k {
            init_size = 3 * k;
        }
        let init_size = init_size.min(n);
        let tol = self.tol * super::mean_variance(x);
        let zero = vec![0.0; x.n_features()];
        let mut rng = rng_from_seed(self.seed);
        let init = self.clusters.init_choice();

        let valid = gather(x, &draw(&mut rng, n, init_size))?;
        let mut candidate = || -> Result<(DenseMatrix, f64)> {
            let sample = gather(x, &draw(&mut rng, n, init_size))?;
            let centers = initial(&sample, k, &init, &zero, &mut rng);
            let (labels, _) = assign::nearest(&valid, &centers);
            let inertia = assign::inertia(&valid, &centers, &labels);
            Ok((centers, inertia))
        };
        let mut best = candidate()?;
        for _ in 1..self.runs() {
            let next = candidate()?;
            if next.1 < best.1 {
                best = next;
            }
        }
        let mut centers = best.0;

        let mut counts = vec![0.0f64; k];
        let n_steps = (self.max_iter * n) / batch;
        let mut monitor = Monitor {
            alpha: (batch as f64 * 2.0 / (n as f64 + 1.0)).min(1.0),
            ewa: None,
            best: None,
            stale: 0,
            patience: self.max_no_improvement,
        };
        let mut since_reassign = 0;
        let mut steps_done = 0;
        let mut stop = None;
        for step in 0..n_steps {
            steps_done = step + 1;
            let xb = gather(x, &draw(&mut rng, n, batch))?;
            since_reassign += batch;
            let reassign = counts.contains(&0.0) || since_reassign >= 10 * k;
            if reassign {
                since_reassign = 0;
            }
            let (labels, dists) = assign::nearest(&xb, &centers);
            let batch_inertia: f64 = dists.iter().sum();
            let before = (tol > 0.0).then(|| centers.clone());
            self.step(&xb, &labels, &mut centers, &mut counts, reassign, &mut rng);
            if let Some(old) = before {
                let shift: f64 = centers
                    .as_slice()
                    .iter()
                    .zip(old.as_slice())
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                if step > 0 && shift <= tol {
                    stop = Some(Stop::CONVERGED);
                    break;
                }
            }
            // The first batch's inertia mostly reflects the initialisation: not monitored.
            if step > 0 && monitor.stop(batch_inertia / batch as f64) {
                stop = Some(Stop::NoImprovement {
                    rounds: monitor.stale,
                });
                break;
            }
            let progress = Progress {
                objective: Some(batch_inertia / batch as f64),
                ..Progress::new("minibatch-kmeans", steps_done)
            };
            if observer.observe(&progress) == Control::Stop {
                stop = Some(Stop::Observer);
                break;
            }
        }
        let rule_on = tol > 0.0 || self.max_no_improvement.is_some();
        let stop = stop.unwrap_or(if rule_on {
            Stop::MaxIterations
        } else {
            Stop::CONVERGED
        });
        let (labels, _) = assign::nearest(x, &centers);
        let inertia = assign::inertia(x, &centers, &labels);
        Ok(MiniBatchKMeans {
            centers,
            labels: labels.into_iter().map(|l| l as usize).collect(),
            inertia,
            n_steps: steps_done,
            n_iter: (steps_done * batch).div_ceil(n),
            stop,
            params: self.clone(),
        })
    }
}

impl MiniBatchKMeansParams {
    /// One mini-batch update of `centers` and the per-centre row counts.
    fn step(
        &self,
        xb: &Matrix,
        labels: &[u32],
        centers: &mut DenseMatrix,
        counts: &mut [f64],
        reassign: bool,
        rng: &mut impl Rng,
    ) {
        let k = centers.nrows();
        let mut sums = DenseMatrix::zeros(k, centers.ncols());
        let mut batch_counts = vec![0.0; k];
        for (i, &l) in labels.iter().enumerate() {
            xb.row(i).axpy(1.0, sums.row_mut(l as usize));
            batch_counts[l as usize] += 1.0;
        }
        for j in 0..k {
            if batch_counts[j] > 0.0 {
                let total = counts[j] + batch_counts[j];
                let (old, add) = (counts[j], sums.row(j).to_vec());
                centers
                    .row_mut(j)
                    .iter_mut()
                    .zip(&add)
                    .for_each(|(c, s)| *c = (*c * old + s) / total);
                counts[j] = total;
            }
        }
        if !(reassign && self.reassignment_ratio > 0.0) {
            return;
        }
        let max = counts.iter().cloned().fold(0.0, f64::max);
        let mut low: Vec<usize> = (0..k)
            .filter(|&j| counts[j] < self.reassignment_ratio * max)
            .collect();
        // Never move more than half a batch of centres at once: keep the least-used ones.
        let cap = xb.n_samples() / 2;
        if low.len() > cap {
            low.sort_by(|&a, &b| counts[a].total_cmp(&counts[b]).then(a.cmp(&b)));
            low.truncate(cap);
            low.sort_unstable();
        }
        if low.is_empty() {
            return;
        }
        let kept_min = (0..k)
            .filter(|j| !low.contains(j))
            .map(|j| counts[j])
            .fold(f64::INFINITY, f64::min);
        let picks = rand::seq::index::sample(rng, xb.n_samples(), low.len()).into_vec();
        for (&j, &i) in low.iter().zip(&picks) {
            xb.row(i).to_dense_into(centers.row_mut(j));
            counts[j] = if kept_min.is_finite() { kept_min } else { 0.0 };
        }
    }
}

centre_queries!(MiniBatchKMeans);

impl ModelFile for MiniBatchKMeans {
    const KIND: &'static str = "minibatch-kmeans";
    // 2: `at_limit`. 3: `stop`, a `Stop` (early stopping and an observer's stop kept), and
    // the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 3;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        check_decoded(&self.centers, &self.labels, self.inertia)
    }
}
