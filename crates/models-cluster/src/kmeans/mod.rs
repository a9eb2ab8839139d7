//! k-means clustering: [`KMeans`] (Lloyd's or Elkan's algorithm) and [`MiniBatchKMeans`].

mod assign;
mod dots;
mod elkan;
mod init;
mod lloyd;
mod minibatch;
mod parts;

pub use minibatch::{MiniBatchKMeans, MiniBatchKMeansParams};
pub use parts::LloydSums;

use margin_core::fit::{FitObserved, FitReport, Observer, Run, Stop};
use margin_core::params::Params;
use margin_core::{
    DenseMatrix, DenseView, Error, Fit, Matrix, Predict, Records, Result, RowView, Transform,
    memory, split::rng_from_seed, validate,
};
use margin_io::ModelFile;
use rand::Rng;

use crate::AutoOr;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How the first centres are chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KMeansInit {
    /// Greedy k-means++ (scikit-learn's default): `2 + ⌊ln k⌋` candidates per centre.
    KMeansPlusPlus,
    /// `k` distinct rows drawn uniformly.
    Random,
    /// These centres (`k × d`); one run whatever `n_init`, since every run would be the same.
    Centers(DenseMatrix),
}

/// [`KMeansInit`] without given centres: the `init` parameter (given centres have no text
/// form; they are set with the `init` builder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum InitName {
    KMeansPlusPlus,
    Random,
}
margin_core::param_choice!(InitName { KMeansPlusPlus => "k-means++", Random => "random" });

margin_core::param_choice!(KMeansAlgorithm { Lloyd => "lloyd", Elkan => "elkan" });

/// How [`KMeans`] iterates (scikit-learn's `algorithm`). Both give the same model from the same
/// start: labels, centres, inertia and iteration count are bit-identical (the assignment rule is
/// shared; see the crate documentation). Only the time differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KMeansAlgorithm {
    /// Lloyd's algorithm (`"lloyd"`, the default): every row against every centre, one
    /// product per block of rows.
    #[default]
    Lloyd,
    /// Elkan's algorithm (`"elkan"`): triangle-inequality bounds skip most distances once the
    /// centres settle, at the cost of `k` bounds per row (`8 n k` bytes).
    Elkan,
}

/// The parameters [`KMeansParams`] and [`MiniBatchKMeansParams`] share, the number of clusters
/// and the initialisation: a settings block both hold as their first field and flatten, so
/// they share its parameters and the `n_clusters` builder (each has its own `init` builder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block)]
struct Clusters {
    /// Number of clusters `k` (default 8; between 1 and the number of samples).
    #[param(
        help = "number of clusters (at most the number of samples)",
        default = 8,
        valid = ("an integer ≥ 1", |k| *k >= 1)
    )]
    n_clusters: usize,
    #[param(
        help = "initial centres: greedy k-means++ or random rows",
        default = InitName::KMeansPlusPlus,
        applies = ("without given centres", |p| p.centers.is_none()),
        setter(skip)
    )]
    init: crate::kmeans::InitName,
    /// Given initial centres (then `init` is not used).
    #[param(skip)]
    centers: Option<margin_core::DenseMatrix>,
}

impl Clusters {
    /// The [`KMeansInit`] the flat fields describe.
    fn init_choice(&self) -> KMeansInit {
        match (&self.centers, self.init) {
            (Some(c), _) => KMeansInit::Centers(c.clone()),
            (None, InitName::KMeansPlusPlus) => KMeansInit::KMeansPlusPlus,
            (None, InitName::Random) => KMeansInit::Random,
        }
    }

    /// Sets the flat fields from `init`: the `init` name (kept as it was when centres are
    /// given) and the given centres.
    fn set_init(&mut self, init: KMeansInit) {
        (self.init, self.centers) = match init {
            KMeansInit::KMeansPlusPlus => (InitName::KMeansPlusPlus, None),
            KMeansInit::Random => (InitName::Random, None),
            KMeansInit::Centers(c) => (self.init, Some(c)),
        };
    }

    /// How many initialisations to run: one for given centres (each would be the same),
    /// else `n_init`, whose `auto` is one for k-means++ and `random_runs` for random rows (each
    /// model's scikit-learn default).
    fn runs(&self, n_init: Option<usize>, random_runs: usize) -> usize {
        match (&self.init_choice(), n_init) {
            (KMeansInit::Centers(_), _) => 1,
            (_, Some(r)) => r,
            (KMeansInit::Random, None) => random_runs,
            (KMeansInit::KMeansPlusPlus, None) => 1,
        }
    }

    /// Checks the records, the parameters (`params`, the struct holding this block), then
    /// what ties them to the records.
    fn check_for<R: Records + ?Sized>(&self, params: &impl Params, x: &R) -> Result<()> {
        validate::check_non_empty(x)?;
        validate::check_finite(x)?;
        params.check()?;
        check_common(self.n_clusters, &self.init_choice(), x)
    }
}

/// Parameters of [`KMeans`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct KMeansParams {
    #[param(flatten)]
    clusters: Clusters,
    /// Lloyd's or Elkan's iteration (default [`KMeansAlgorithm::Lloyd`]); the model is the same.
    #[param(
        help = "Lloyd's or Elkan's iteration (the model is the same)",
        default = KMeansAlgorithm::Lloyd
    )]
    algorithm: KMeansAlgorithm,
    /// Runs from different initialisations, the lowest inertia kept (default: scikit-learn's
    /// `"auto"`, 1 run for k-means++ and given centres, 10 for random rows).
    #[param(
        help = "runs from different starts, best inertia kept (auto: 1 for k-means++, 10 for random)",
        ty = AutoOr,
        get = |p| AutoOr(p.n_init),
        set = |p, v| p.n_init = v.0,
        valid = ("an integer ≥ 1", AutoOr::at_least_one),
        applies = ("without given centres", |p| p.clusters.centers.is_none()),
        setter(strip_option)
    )]
    n_init: Option<usize>,
    /// Maximum iterations per run (default 300, ≥ 1).
    #[param(help = "iterations per run", default = 300, valid = ("an integer ≥ 1", |n| *n >= 1))]
    max_iter: usize,
    /// Convergence tolerance (default 1e-4, ≥ 0), relative to the data: a run stops when the
    /// centres move by at most `tol × mean feature variance` in total squared distance.
    #[param(
        help = "stop when centres move ≤ tol × mean feature variance",
        default = 1e-4,
        valid = ("a finite number ≥ 0", |t| t.is_finite() && *t >= 0.0)
    )]
    tol: f64,
    /// Seed of the initialisation (default 0).
    #[param(help = "seed of the initialisation")]
    seed: u64,
}

impl KMeansParams {
    /// Initialisation (default [`KMeansInit::KMeansPlusPlus`]).
    pub fn init(mut self, init: KMeansInit) -> Self {
        self.clusters.set_init(init);
        self
    }

    fn runs(&self) -> usize {
        self.clusters.runs(self.n_init, 10)
    }
}

/// Checks shared by [`KMeansParams`] and [`MiniBatchKMeansParams`] that need the records
/// (the parameters' own ranges are [`Params::check`]'s).
fn check_common<R: Records + ?Sized>(k: usize, init: &KMeansInit, x: &R) -> Result<()> {
    let n = x.n_samples();
    // The inertia sums squared distances between rows and centres.
    if let Some(values) = validate::stored_values(x) {
        validate::check_sum_of_squares("the records' values", values.iter().copied(), None)?;
    }
    if k == 0 || k > n {
        return Err(Error::invalid_parameter(
            "n_clusters",
            k,
            format!("an integer between 1 and the number of samples, {n}"),
        ));
    }
    if let KMeansInit::Centers(c) = init {
        if c.nrows() != k {
            return Err(Error::shape(
                "initial centres (rows must equal n_clusters)",
                k,
                c.nrows(),
            ));
        }
        if c.ncols() != x.n_features() {
            return Err(Error::shape(
                "initial centres (columns must equal the feature count)",
                x.n_features(),
                c.ncols(),
            ));
        }
        validate::check_finite(c)?;
    }
    // The dense centres (k × d, as scikit-learn's), their sums in each group of rows, the
    // previous and initial centres, the centred copy of dense records (n × d) and Elkan's
    // bounds (n × k): asked for first, since a sparse file's largest feature index can make
    // the centres more than this machine holds (faer and the parallel sums allocate them).
    let d = x.n_features();
    let copies = k
        .saturating_mul(assign::groups(n).len() + 6)
        .saturating_add(if x.as_dense().is_some() { n } else { 0 })
        .saturating_add(4);
    memory::check(
        memory::bytes_of_grid::<f64>(copies, d)
            .saturating_add(memory::bytes_of_grid::<f64>(n, k.saturating_add(2))),
        &format!("k-means's {k} centres of {d} features, with their partial sums"),
        memory::FEWER_FEATURES,
    )?;
    assign::check_products(x, k)
}

/// Mean over features of each feature's population variance (unstored sparse entries are
/// zeros): what scikit-learn scales `tol` by.
fn mean_variance<R: Records + ?Sized>(x: &R) -> f64 {
    let (n, d) = (x.n_samples(), x.n_features());
    let mut mean = vec![0.0; d];
    for i in 0..n {
        x.row(i).axpy(1.0, &mut mean);
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut m2 = vec![0.0; d];
    let mut stored = vec![0usize; d];
    for i in 0..n {
        x.row(i).for_each_stored(|j, v| {
            m2[j] += (v - mean[j]).powi(2);
            stored[j] += 1;
        });
    }
    let total: f64 = (0..d)
        .map(|j| (m2[j] + (n - stored[j]) as f64 * mean[j] * mean[j]) / n as f64)
        .sum();
    total / d as f64
}

/// Column means of dense records and the records minus them: k-means runs on centred dense data
/// (as scikit-learn does) so that `‖x‖² + ‖c‖² − 2x·c` does not lose digits to a large offset.
fn centered(x: DenseView<'_>) -> Result<(DenseMatrix, Vec<f64>)> {
    let (n, d) = (x.nrows(), x.ncols());
    let mut mean = vec![0.0; d];
    for row in x.rows() {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut out = x.to_owned()?;
    out.as_mut_slice()
        .par_chunks_mut(d.max(1))
        .for_each(|row| row.iter_mut().zip(&mean).for_each(|(v, m)| *v -= m));
    Ok((out, mean))
}

fn shift_rows(m: &mut DenseMatrix, by: &[f64], sign: f64) {
    for j in 0..m.nrows() {
        m.row_mut(j)
            .iter_mut()
            .zip(by)
            .for_each(|(v, s)| *v += sign * s);
    }
}

/// Initial centres for one run.
fn initial<R: Records + ?Sized>(
    x: &R,
    k: usize,
    init: &KMeansInit,
    offset: &[f64],
    rng: &mut impl Rng,
) -> DenseMatrix {
    match init {
        KMeansInit::KMeansPlusPlus => init::kmeans_plusplus(x, k, rng),
        KMeansInit::Random => init::random_rows(x, k, rng),
        KMeansInit::Centers(c) => {
            let mut c = c.clone();
            shift_rows(&mut c, offset, -1.0);
            c
        }
    }
}

/// k-means clustering by Lloyd's or Elkan's algorithm, as scikit-learn's `KMeans`.
///
/// Fitted on records (dense or sparse): `KMeans::params().n_clusters(3).fit(&records)`.
/// Dense records are centred first (on a copy); Lloyd's assignment step is one product per
/// block of 256 rows, Elkan's ([`KMeansAlgorithm::Elkan`], dense or sparse) skips the distances its
/// bounds rule out. Both give the same model; Lloyd is the default (the crate documentation
/// has the measurements).
///
/// Weights per sample are not supported; a fitted model keeps the training labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KMeans {
    centers: DenseMatrix,
    labels: Vec<usize>,
    inertia: f64,
    n_iter: usize,
    stop: Stop,
    /// The hyperparameters the model was fitted with.
    params: KMeansParams,
}

impl KMeans {
    /// The hyperparameters the model was fitted with (see [`KMeansParams`]).
    pub fn hyperparams(&self) -> &KMeansParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.centers.ncols()
    }
    /// Default parameters.
    pub fn params() -> KMeansParams {
        KMeansParams::default()
    }

    /// The centres, one row per cluster (`k × d`).
    pub fn cluster_centers(&self) -> &DenseMatrix {
        &self.centers
    }

    /// The cluster of every training row; empty for a fit over parts
    /// ([`KMeansParams::fit_parts`]), whose rows stay in their parts.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Sum of squared distances of the training rows to their centres.
    pub fn inertia(&self) -> f64 {
        self.inertia
    }

    /// How the kept run went (the one the model is; the other initializations are
    /// discarded): converged on the tolerance or a repeated assignment, or at the limit when
    /// `max_iter` iterations left the centres moving by more than `tol`; its objective the
    /// inertia.
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![
            Run::new(self.n_iter, self.stop).with_objective(self.inertia),
        ])
    }

    /// Number of clusters.
    pub fn n_clusters(&self) -> usize {
        self.centers.nrows()
    }

    /// The opposite of the inertia of `records` under this model (higher is better), as
    /// scikit-learn's `score`.
    pub fn score<R: Records + ?Sized>(&self, records: &R) -> Result<f64> {
        score(&self.centers, records)
    }
}

/// Builds the fitted model from the best run, undoing the centring.
fn finish(mut run: lloyd::Run, offset: &[f64], params: &KMeansParams) -> KMeans {
    shift_rows(&mut run.centers, offset, 1.0);
    KMeans {
        centers: run.centers,
        labels: run.labels.into_iter().map(|l| l as usize).collect(),
        inertia: run.inertia,
        n_iter: run.n_iter,
        stop: run.stop,
        params: params.clone(),
    }
}

/// Every initialization's run, each seen by `observer`; the one of least inertia is kept.
fn fit_runs<R: Records + ?Sized>(
    p: &KMeansParams,
    x: &R,
    offset: &[f64],
    observer: &mut dyn Observer,
) -> lloyd::Run {
    let tol = p.tol * mean_variance(x);
    let mut rng = rng_from_seed(p.seed);
    let init = p.clusters.init_choice();
    let mut run = || {
        let start = initial(x, p.clusters.n_clusters, &init, offset, &mut rng);
        match p.algorithm {
            KMeansAlgorithm::Lloyd => lloyd::lloyd(x, start, p.max_iter, tol, &mut *observer),
            KMeansAlgorithm::Elkan => elkan::elkan(x, start, p.max_iter, tol, &mut *observer),
        }
    };
    let mut best = run();
    for _ in 1..p.runs() {
        let next = run();
        if next.inertia < best.inertia {
            best = next;
        }
    }
    best
}

impl<R: Records + ?Sized> Fit<R> for KMeansParams {
    type Model = KMeans;

    fn fit(&self, records: &R) -> Result<KMeans> {
        self.fit_observed(records, &mut ())
    }
}

impl<R: Records + ?Sized> FitObserved<R> for KMeansParams {
    fn fit_observed(&self, records: &R, observer: &mut dyn Observer) -> Result<KMeans> {
        self.clusters.check_for(self, records)?;
        Ok(match records.as_dense() {
            Some(d) => {
                let (xc, mean) = centered(d)?;
                finish(fit_runs(self, &xc, &mean, observer), &mean, self)
            }
            None => {
                let zero = vec![0.0; records.n_features()];
                finish(fit_runs(self, records, &zero, observer), &zero, self)
            }
        })
    }
}

/// The nearest centre of every row of `records` (lowest index on ties), the records checked
/// against `centers` first: what a fitted k-means model's predictions and scores start from.
fn nearest_checked<R: Records + ?Sized>(centers: &DenseMatrix, records: &R) -> Result<Vec<u32>> {
    validate::check_predict(centers.ncols(), records)?;
    assign::check_products(records, centers.nrows())?;
    Ok(assign::nearest(records, centers).0)
}

/// The opposite of the inertia of `records` under `centers` (higher is better), as
/// scikit-learn's `score` (both k-means models).
fn score<R: Records + ?Sized>(centers: &DenseMatrix, records: &R) -> Result<f64> {
    let labels = nearest_checked(centers, records)?;
    Ok(-assign::inertia(records, centers, &labels))
}

/// `Predict` (the nearest centre) and `Transform` (the distances to the centres) for a k-means
/// model with a `centers` field: both models answer the same from their centres.
macro_rules! centre_queries {
    ($model:ty) => {
        impl Predict for $model {
            /// The index of the nearest centre (lowest index on ties).
            type Output = Vec<usize>;

            fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
                let labels = $crate::kmeans::nearest_checked(&self.centers, records)?;
                Ok(labels.into_iter().map(|l| l as usize).collect())
            }
        }

        impl Transform for $model {
            /// Distances to the centres, one column per cluster (scikit-learn's `transform`).
            fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
                validate::check_predict(self.centers.ncols(), records)?;
                Ok(Matrix::Dense($crate::kmeans::center_distances(
                    records,
                    &self.centers,
                )))
            }
        }
    };
}
use centre_queries;

centre_queries!(KMeans);

/// Euclidean distances from every row to every centre (`n × k`), each from the differences.
fn center_distances<R: Records + ?Sized>(x: &R, centers: &DenseMatrix) -> DenseMatrix {
    let k = centers.nrows();
    let mut out = DenseMatrix::zeros(x.n_samples(), k);
    out.as_mut_slice()
        .par_chunks_mut(k.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            let xi = x.row(i);
            for (o, c) in row.iter_mut().zip(centers.rows()) {
                *o = xi.sq_dist(&RowView::Dense(c)).sqrt();
            }
        });
    out
}

/// Checks decoded centres and labels (shared by both k-means models).
fn check_decoded(centers: &DenseMatrix, labels: &[usize], inertia: f64) -> Result<()> {
    let k = centers.nrows();
    if k == 0 || centers.ncols() == 0 {
        return Err(Error::model_file("k-means model without centres"));
    }
    if centers.as_slice().iter().any(|v| !v.is_finite()) {
        return Err(Error::model_file("k-means centres are not finite"));
    }
    if labels.iter().any(|&l| l >= k) {
        return Err(Error::model_file(format!(
            "k-means label out of range (k = {k})"
        )));
    }
    if !(inertia.is_finite() && inertia >= 0.0) {
        return Err(Error::model_file(
            "k-means inertia is not a finite number ≥ 0",
        ));
    }
    Ok(())
}

impl ModelFile for KMeans {
    const KIND: &'static str = "kmeans";
    // 2: the kept run's stop is stored as a `Stop` (was a `converged` flag), and the
    // hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        check_decoded(&self.centers, &self.labels, self.inertia)
    }
}
