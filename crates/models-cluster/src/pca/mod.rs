//! Principal component analysis ([`Pca`]), as scikit-learn's `PCA`.

mod factor;
mod stats;

pub use stats::PcaStats;

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use margin_core::params::{ParamType, Params, Value};
use margin_core::{
    DenseMatrix, Error, Fit, Matrix, Records, Result, Transform, memory, parallel, validate,
};
use margin_io::ModelFile;
use rayon::prelude::*;
use std::borrow::Cow;

use crate::AutoOr;
use serde::{Deserialize, Serialize};

/// How many components to keep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NComponents {
    /// `min(n_samples, n_features)` (scikit-learn's `None`).
    All,
    /// Exactly this many (between 1 and `min(n_samples, n_features)`).
    Count(usize),
    /// The fewest components whose explained variance ratios add up to more than this fraction,
    /// in (0, 1) (full and covariance solvers only).
    Fraction(f64),
}

/// `all` (or `none`, scikit-learn's `None`), a count (`3`) or a fraction (`0.95`).
impl ParamType for NComponents {
    fn kind() -> Cow<'static, str> {
        "all|<int>|<fraction>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        let text = text.trim();
        if text == "all" || text == "none" {
            return Ok(NComponents::All);
        }
        if let Ok(c) = text.parse::<usize>() {
            return Ok(NComponents::Count(c));
        }
        text.parse::<f64>()
            .map(NComponents::Fraction)
            .map_err(|_| "all, a count or a fraction in (0, 1)".to_owned())
    }
    fn to_value(&self) -> Value {
        match self {
            NComponents::All => Value::Text("all".into()),
            NComponents::Count(c) => c.to_value(),
            NComponents::Fraction(f) => Value::Float(*f),
        }
    }
}

/// Which factorization computes the components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SvdSolver {
    /// scikit-learn's rule: the covariance eigendecomposition when `d ≤ 1000` and `n ≥ 10 d`;
    /// else the full SVD when `max(n, d) ≤ 500`; else the randomized SVD when a count of fewer
    /// than `0.8 min(n, d)` components is asked for; else the full SVD.
    Auto,
    /// Thin SVD of the centred data (faer).
    Full,
    /// Eigendecomposition of the `d × d` covariance matrix (faer): fastest for tall data.
    CovarianceEigh,
    /// Halko et al.'s randomized SVD (needs a count of components).
    Randomized,
}

margin_core::param_choice!(SvdSolver {
    Auto => "auto",
    Full => "full",
    CovarianceEigh => "covariance-eigh" | "covariance_eigh",
    Randomized => "randomized",
});

/// Parameters of [`Pca`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(check = |p| counted_if_randomized(p.svd_solver, &p.n_components))]
pub struct PcaParams {
    /// Components to keep (default [`NComponents::All`]).
    #[param(
        help = "components to keep: all, a count, or the fewest explaining more than a fraction of the variance",
        default = NComponents::All,
        valid = ("all, a count ≥ 1 or a fraction in (0, 1)", |n| match n {
            NComponents::All => true,
            NComponents::Count(c) => *c >= 1,
            NComponents::Fraction(f) => *f > 0.0 && *f < 1.0,
        })
    )]
    n_components: NComponents,
    /// Scale the projections to unit variance (default false).
    #[param(help = "scale the projections to unit variance")]
    whiten: bool,
    /// The factorization (default [`SvdSolver::Auto`]).
    #[param(
        help = "factorization: auto (scikit-learn's rule), full SVD, covariance eigendecomposition or randomized SVD",
        default = SvdSolver::Auto
    )]
    svd_solver: SvdSolver,
    /// Power iterations of the randomized solver (default: scikit-learn's `"auto"`, 7 when
    /// fewer than `0.1 min(n, d)` components are kept, else 4).
    #[param(
        help = "power iterations of the randomized solver (auto: 7 for few components, else 4)",
        ty = AutoOr,
        get = |p| AutoOr(p.iterated_power),
        set = |p, v| p.iterated_power = v.0,
        applies = ("with svd_solver randomized or auto", may_randomize),
        setter(strip_option)
    )]
    iterated_power: Option<usize>,
    /// Extra random directions of the randomized solver (default 10).
    #[param(
        help = "extra random directions of the randomized solver",
        default = 10,
        applies = ("with svd_solver randomized or auto", may_randomize)
    )]
    n_oversamples: usize,
    /// Seed of the randomized solver's test matrix (default 0).
    #[param(
        help = "seed of the randomized solver's test matrix",
        applies = ("with svd_solver randomized or auto", may_randomize)
    )]
    seed: u64,
}

/// Whether the randomized solver may run: the iteration-count parameters apply to it only.
fn may_randomize(p: &PcaParams) -> bool {
    matches!(p.svd_solver, SvdSolver::Auto | SvdSolver::Randomized)
}

/// The randomized solver needs a count of components, not a fraction (a fraction needs the
/// full spectrum): for the solver asked for, and for the one `auto` resolves to at fit.
fn counted_if_randomized(solver: SvdSolver, n: &NComponents) -> Result<()> {
    match (solver, n) {
        (SvdSolver::Randomized, NComponents::Fraction(f)) => Err(Error::invalid_parameter(
            "n_components",
            f,
            "a count with svd_solver = randomized (a fraction needs the full spectrum)",
        )),
        _ => Ok(()),
    }
}

impl PcaParams {
    /// The solver `Auto` resolves to for `n × d` data.
    fn solver_for(&self, n: usize, d: usize) -> SvdSolver {
        if self.svd_solver != SvdSolver::Auto {
            return self.svd_solver;
        }
        let m = n.min(d);
        if d <= 1000 && n >= 10 * d {
            SvdSolver::CovarianceEigh
        } else if n.max(d) <= 500 {
            SvdSolver::Full
        } else if matches!(self.n_components, NComponents::Count(c) if (c as f64) < 0.8 * m as f64)
        {
            SvdSolver::Randomized
        } else {
            SvdSolver::Full
        }
    }

    /// What needs the data's shape `n × d`: a count of components at most `min(n, d)`, and
    /// (when `auto` resolves to the randomized solver) a count rather than a fraction.
    fn check_for(&self, n: usize, d: usize, solver: SvdSolver) -> Result<()> {
        let m = n.min(d);
        match self.n_components {
            NComponents::Count(c) if c > m => Err(Error::invalid_parameter(
                "n_components",
                c,
                format!("an integer between 1 and min(n_samples, n_features) = {m}"),
            )),
            _ => counted_if_randomized(solver, &self.n_components),
        }
    }
}

/// Principal component analysis: the centred data's leading right singular vectors.
///
/// Fitted on records (sparse ones are densified). The sign of each component is fixed so that
/// its largest-magnitude entry is positive (scikit-learn's rule since 1.5), so components,
/// transforms and model files are reproducible.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pca {
    components: DenseMatrix,
    explained_variance: Vec<f64>,
    explained_variance_ratio: Vec<f64>,
    singular_values: Vec<f64>,
    mean: Vec<f64>,
    noise_variance: f64,
    n_samples: usize,
    solver: SvdSolver,
    /// The hyperparameters the model was fitted with.
    params: PcaParams,
}

impl Pca {
    /// The hyperparameters the model was fitted with (see [`PcaParams`]).
    pub fn hyperparams(&self) -> &PcaParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.mean.len()
    }
    /// Default parameters.
    pub fn params() -> PcaParams {
        PcaParams::default()
    }

    /// The principal axes, one row per component (`n_components × d`), orthonormal.
    pub fn components(&self) -> &DenseMatrix {
        &self.components
    }

    /// Variance of the data along each component (`s² / (n − 1)`).
    pub fn explained_variance(&self) -> &[f64] {
        &self.explained_variance
    }

    /// Each component's share of the total variance.
    pub fn explained_variance_ratio(&self) -> &[f64] {
        &self.explained_variance_ratio
    }

    /// Singular values of the centred data for the kept components.
    pub fn singular_values(&self) -> &[f64] {
        &self.singular_values
    }

    /// Per-feature means of the training data.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Average variance of the discarded directions (0 when all are kept): the noise variance
    /// of probabilistic PCA (Tipping & Bishop).
    pub fn noise_variance(&self) -> f64 {
        self.noise_variance
    }

    /// Number of kept components.
    pub fn n_components(&self) -> usize {
        self.components.nrows()
    }

    /// Training samples seen.
    pub fn n_samples(&self) -> usize {
        self.n_samples
    }

    /// The factorization that was used (what `Auto` resolved to).
    pub fn solver(&self) -> SvdSolver {
        self.solver
    }

    /// Maps projections back to the feature space: `z · components (+ mean)`, undoing the
    /// whitening first. Exact (up to rounding) when all components are kept.
    pub fn inverse_transform<R: Records + ?Sized>(&self, z: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_components(), z)?;
        memory::check_products(z.n_samples(), self.mean.len(), self.n_components())?;
        let mut zd = z.to_dense()?;
        if self.params.whiten {
            let scale: Vec<f64> = self.explained_variance.iter().map(|v| v.sqrt()).collect();
            scale_columns(&mut zd, &scale, false);
        }
        let mut out = Mat::<f64>::zeros(zd.nrows(), self.mean.len());
        matmul(
            out.as_mut(),
            Accum::Replace,
            zd.as_faer(),
            self.components.as_faer(),
            1.0,
            par_for(zd.nrows(), self.n_components(), self.mean.len()),
        );
        let mut out = DenseMatrix::from_faer(out.as_ref());
        out.as_mut_slice()
            .par_chunks_mut(self.mean.len().max(1))
            .for_each(|row| row.iter_mut().zip(&self.mean).for_each(|(v, m)| *v += m));
        Ok(out)
    }
}

/// Divides (or, with `divide` false, multiplies) every column by its scale; zero scales leave the
/// column as it is (a direction without variance).
fn scale_columns(m: &mut DenseMatrix, scale: &[f64], divide: bool) {
    let c = scale.len();
    m.as_mut_slice().par_chunks_mut(c.max(1)).for_each(|row| {
        for (v, &s) in row.iter_mut().zip(scale) {
            if s > 0.0 {
                *v = if divide { *v / s } else { *v * s };
            }
        }
    });
}

/// faer's parallelism for the product of `rows × inner` by `inner × cols`. Products split the
/// output, so the bits do not depend on the thread count.
fn par_for(rows: usize, inner: usize, cols: usize) -> Par {
    parallel::faer_par(
        rows as f64 * inner as f64 * cols as f64,
        parallel::Overhead::Product,
    )
}

/// `row += offset` for every row of `m` (blocks of rows in parallel); whether every result is
/// finite, checked block by block while the block is in cache.
fn add_to_rows(m: &mut DenseMatrix, offset: &[f64]) -> bool {
    let c = offset.len().max(1);
    let rows_per_task = parallel::chunk_len(m.nrows(), 2 * c);
    m.as_mut_slice()
        .par_chunks_mut(c * rows_per_task)
        .map(|block| {
            for row in block.chunks_exact_mut(c) {
                row.iter_mut().zip(offset).for_each(|(v, o)| *v += o);
            }
            validate::all_finite(block)
        })
        .reduce(|| true, |a, b| a && b)
}

/// The records minus their column means, stored column by column (the layout faer's
/// factorizations work in).
struct Centered {
    columns: Vec<f64>,
    n: usize,
    d: usize,
}

impl Centered {
    /// Centres `x` and returns it with the column means. Columns are handled in parallel in
    /// groups of `COLUMNS` (64): each task reads every row's slice of its columns (one cache line)
    /// and writes its columns contiguously, so the transposition is cache-friendly; each mean
    /// is summed by one task in row order.
    fn new<R: Records + ?Sized>(x: &R) -> Result<(Self, Vec<f64>)> {
        const COLUMNS: usize = 64;
        let (n, d) = (x.n_samples(), x.n_features());
        let dense = x.dense_view()?;
        let dense = dense.view();
        let mut columns = memory::filled_vec(
            n.saturating_mul(d),
            0.0,
            &format!("the centred copy of the {n} × {d} records"),
            memory::DENSE_COPY,
        )?;
        let mut mean = vec![0.0; d];
        columns
            .par_chunks_mut(COLUMNS * n)
            .zip(mean.par_chunks_mut(COLUMNS))
            .enumerate()
            .for_each(|(c, (chunk, mean))| {
                let j0 = c * COLUMNS;
                let w = mean.len();
                for row in dense.rows() {
                    mean.iter_mut()
                        .zip(&row[j0..j0 + w])
                        .for_each(|(m, v)| *m += v);
                }
                mean.iter_mut().for_each(|m| *m /= n as f64);
                for (i, row) in dense.rows().enumerate() {
                    for (t, (&v, m)) in row[j0..j0 + w].iter().zip(mean.iter()).enumerate() {
                        chunk[t * n + i] = v - m;
                    }
                }
            });
        Ok((Self { columns, n, d }, mean))
    }

    fn view(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.columns, self.n, self.d)
    }

    fn view_mut(&mut self) -> faer::MatMut<'_, f64> {
        faer::MatMut::from_column_major_slice_mut(&mut self.columns, self.n, self.d)
    }
}

/// Sum of squares of the centred data, per column then in column order.
fn total_sum_of_squares(xc: MatRef<'_, f64>) -> f64 {
    (0..xc.ncols())
        .map(|j| xc.col(j).iter().map(|v| v * v).sum::<f64>())
        .sum()
}

impl<R: Records + ?Sized> Fit<R> for PcaParams {
    type Model = Pca;

    fn fit(&self, records: &R) -> Result<Pca> {
        self.check()?;
        validate::check_non_empty(records)?;
        validate::check_finite(records)?;
        let (n, d) = (records.n_samples(), records.n_features());
        if n < 2 {
            return Err(Error::EmptyDataset(format!(
                "PCA needs at least two samples to estimate variances (n_samples = {n})"
            )));
        }
        // Variances sum squared deviations from the mean.
        if let Some(values) = validate::stored_values(records) {
            validate::check_sum_of_squares("the records' values", values.iter().copied(), None)?;
        }
        let solver = self.solver_for(n, d);
        self.check_for(n, d, solver)?;
        let m = n.min(d);
        // The dense records, their centred copy, and the factorization's own (faer's) factors
        // and workspace, a few more `n × d` or `d × d`, and the scratch of faer's products:
        // asked for up front.
        // The covariance's product (d · d · n multiply-adds) bounds every solver's.
        memory::check_products(d, d, n)?;
        memory::check(
            memory::bytes_of_grid::<f64>(4usize.saturating_mul(n).saturating_add(3 * m), d),
            &format!("the principal components of {n} × {d} records"),
            memory::DENSE_COPY,
        )?;
        let (mut xc, mean) = Centered::new(records)?;
        let dof = (n - 1) as f64;
        let (spectrum, total_var) = match solver {
            SvdSolver::Randomized => {
                let keep = match self.n_components {
                    NComponents::Count(c) => c,
                    _ => m,
                };
                let power = self
                    .iterated_power
                    .unwrap_or(if (keep as f64) < 0.1 * m as f64 { 7 } else { 4 });
                let s =
                    factor::randomized_svd(xc.view(), keep, self.n_oversamples, power, self.seed)?;
                (s, Some(total_sum_of_squares(xc.view()) / dof))
            }
            SvdSolver::CovarianceEigh => (factor::gram_eigh(xc.view())?, None),
            _ => (factor::thin_svd(xc.view_mut())?, None),
        };
        Ok(self.model(spectrum, total_var, mean, n, solver))
    }
}

impl PcaParams {
    /// The model from the centred data's spectrum (its leading part, with the total variance
    /// `total_var`, from the randomized solver; else all of it, the total summed from it).
    fn model(
        &self,
        spectrum: factor::Spectrum,
        total_var: Option<f64>,
        mean: Vec<f64>,
        n: usize,
        solver: SvdSolver,
    ) -> Pca {
        let m = n.min(mean.len());
        let dof = (n - 1) as f64;
        let variances: Vec<f64> = spectrum.s.iter().map(|s| s * s / dof).collect();
        let total_var = total_var.unwrap_or_else(|| variances.iter().sum());
        let kept = match self.n_components {
            NComponents::All => m,
            NComponents::Count(c) => c,
            NComponents::Fraction(f) => {
                let mut acc = 0.0;
                let mut k = 0;
                // The fewest components whose cumulative ratio exceeds f.
                for v in &variances {
                    acc += v / total_var;
                    k += 1;
                    if acc > f {
                        break;
                    }
                }
                k
            }
        };
        let mut v = spectrum.v;
        factor::flip_signs(&mut v);
        let explained_variance = variances[..kept].to_vec();
        let noise_variance = if kept >= m {
            0.0
        } else if solver == SvdSolver::Randomized {
            (total_var - explained_variance.iter().sum::<f64>()) / (m - kept) as f64
        } else {
            variances[kept..m].iter().sum::<f64>() / (m - kept) as f64
        };
        let ratio_of = |v: &f64| if total_var > 0.0 { v / total_var } else { 0.0 };
        Pca {
            components: DenseMatrix::from_faer(v.as_ref().subcols(0, kept).transpose()),
            explained_variance_ratio: explained_variance.iter().map(ratio_of).collect(),
            explained_variance,
            singular_values: spectrum.s[..kept].to_vec(),
            mean,
            noise_variance,
            n_samples: n,
            solver,
            params: self.clone(),
        }
    }
}

impl Transform for Pca {
    /// `(x − mean) · componentsᵀ`, divided by `√explained_variance` when whitening: one row
    /// per sample, one column per component.
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_n_features(self.mean.len(), records)?;
        let c = self.n_components();
        let n = records.n_samples();
        memory::check_products(n, c, self.mean.len())?;
        // x·Cᵀ − mean·Cᵀ: the product, then −mean·Cᵀ added to every row in the pass that
        // checks the outputs; sparse rows are never densified.
        let offset: Vec<f64> = self
            .components
            .rows()
            .map(|w| -margin_core::dot(w, &self.mean))
            .collect();
        let mut out = DenseMatrix::try_zeros(
            n,
            c,
            "the projections",
            "transform fewer rows at a time, or keep fewer components",
        )?;
        match records.as_dense() {
            // The row-major n × c output is faer's column-major c × n, C · Xᵀ: written in
            // place, in the layout faer's kernels write fastest (a third faster than X · Cᵀ
            // into a column-major n × c and a copy, 2,000 × 500 by 500).
            Some(d) => matmul(
                MatMut::from_column_major_slice_mut(out.as_mut_slice(), c, n),
                Accum::Replace,
                self.components.as_faer(),
                d.as_faer().transpose(),
                1.0,
                par_for(n, c, self.mean.len()),
            ),
            None => out
                .as_mut_slice()
                .par_chunks_mut(c.max(1))
                .enumerate()
                .for_each(|(i, row)| {
                    let xi = records.row(i);
                    for (o, w) in row.iter_mut().zip(self.components.rows()) {
                        *o = xi.dot_dense(w);
                    }
                }),
        }
        if !add_to_rows(&mut out, &offset) {
            // A non-finite projection comes from a NaN or an infinity in the records (named
            // here) or from finite records that overflow, which pass.
            validate::check_finite(records)?;
        }
        if self.params.whiten {
            let scale: Vec<f64> = self.explained_variance.iter().map(|v| v.sqrt()).collect();
            scale_columns(&mut out, &scale, true);
        }
        Ok(Matrix::Dense(out))
    }
}

impl ModelFile for Pca {
    const KIND: &'static str = "pca";
    // 2: the hyperparameters the model was fitted with; 3: `whiten` only inside them.
    const SCHEMA: u32 = 3;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        let (c, d) = (self.components.nrows(), self.components.ncols());
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let ok = c >= 1
            && d >= 1
            && c <= d
            && self.mean.len() == d
            && self.explained_variance.len() == c
            && self.explained_variance_ratio.len() == c
            && self.singular_values.len() == c
            && finite(self.components.as_slice())
            && finite(&self.mean)
            && finite(&self.explained_variance)
            && finite(&self.explained_variance_ratio)
            && finite(&self.singular_values)
            && self.explained_variance.iter().all(|&v| v >= 0.0)
            && self.noise_variance.is_finite();
        if ok {
            Ok(())
        } else {
            Err(Error::model_file(format!(
                "{c} components of {d} features, {} means and {} variances do not fit together",
                self.mean.len(),
                self.explained_variance.len()
            )))
        }
    }
}
