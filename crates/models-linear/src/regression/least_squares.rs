//! Ordinary and weighted least squares, with the Gaussian-noise inference around them.

use margin_core::faer::linalg::matmul::matmul;
use margin_core::faer::linalg::triangular_inverse::invert_upper_triangular;
use margin_core::faer::linalg::triangular_solve::solve_upper_triangular_in_place;
use margin_core::faer::{Accum, Mat, MatRef, Par};
use margin_core::fit::{FitObserved, FitReport, Observer, Run};
use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, FitStats, LinearRegressorCore, Predict, Records, Result,
    model_check,
};
use margin_io::ModelFile;
use margin_optim::Stop;
use margin_optim::gd::{self, GdOptions};
use margin_optim::loss::Loss;
use margin_optim::risk::LinearRisk;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::design::{Design, predict_linear, rcond};
use super::solve::{Spectral, blocked_gram, cholesky_solve_in_place, tsqr};
use super::stats::LeastSquaresStats;
use super::student_t::t_quantile;

/// How [`LinearRegression`] solves its least-squares problem.
///
/// QR and SVD start from the same tall-skinny QR of `[X | y]`: row blocks whose size depends
/// only on the data's shape are factored in parallel and their triangles once more, so the
/// answer is bit-for-bit the same on any number of threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LstsqSolver {
    /// Householder QR, then back substitution (the default). When `R` shows the design to be
    /// rank-deficient or too ill-conditioned to trust (`‖R‖_F ‖R⁻¹‖_F ≥ 1 / (ε · max(n, d))`),
    /// or there are no more samples than features, the fit switches to
    /// [`LstsqSolver::Svd`].
    #[default]
    Qr,
    /// The minimum-norm least-squares solution through the SVD (of the `d × d` factor `R`
    /// after the QR when `n > d`, else of `X`), singular values at most
    /// `ε · max(n, d) · s_max` treated as zero (numpy's `lstsq` rule). Reports the singular
    /// values. Costs the QR plus `O(d³)`.
    Svd,
    /// Cholesky factorization of `XᵀX`: the fastest for `n ≫ d`, but it squares the condition
    /// number, so it loses accuracy on ill-conditioned data. Falls back to
    /// [`LstsqSolver::Svd`] when the factor is numerically singular
    /// (`min Lᵢᵢ ≤ √(ε · max(n, d)) · max Lᵢᵢ`).
    NormalEquations,
    /// Full-batch gradient descent on `(1/2n)‖y − Xw‖²` over the centred, scaled design, with
    /// Armijo backtracking, from `w = 0` until the gradient norm falls below `tol` or
    /// `max_iter` steps ran ([`LinearRegression::fit_report`] says which). The textbook
    /// iterative fit: it reaches the QR answer, slowly when the design is ill-conditioned
    /// (steps grow with the condition number). Starting at zero it stays in the row space of
    /// `X`, so on a rank-deficient design it tends to the minimum-norm solution, as the SVD
    /// gives. It never factors the design, so the rank is reported as the feature count
    /// unchecked, and the standard errors and prediction intervals (which need `(XᵀX)⁻¹`)
    /// are unavailable: use a direct solver for inference.
    GradientDescent,
}

margin_core::param_choice!(LstsqSolver {
    Qr => "qr",
    Svd => "svd",
    NormalEquations => "normal-equations",
    GradientDescent => "gradient-descent",
});

/// Parameters of [`LinearRegression`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct LinearRegressionParams {
    /// Fit an intercept by centring the data (default true); false forces the model through
    /// the origin.
    #[param(help = "fit an intercept by centring", default = true)]
    fit_intercept: bool,
    /// The solver (default [`LstsqSolver::Qr`]).
    #[param(
        help = "QR (SVD when the data are rank-deficient), SVD, Cholesky of X'X, or gradient descent",
        default = LstsqSolver::Qr
    )]
    solver: LstsqSolver,
    /// Step limit of [`LstsqSolver::GradientDescent`] (default 100,000; the direct solvers
    /// ignore it).
    #[param(
        help = "gradient descent's step limit",
        default = 100_000,
        valid = ("at least 1", |n| *n >= 1),
        applies = ("with solver gradient-descent", |p| p.solver == LstsqSolver::GradientDescent)
    )]
    max_iter: usize,
    /// [`LstsqSolver::GradientDescent`] stops when the gradient of `(1/2n)‖y − Xw‖²`, in the
    /// design's scaled units (features and targets divided by a power of two near their
    /// largest magnitude), has norm at most `tol` (default 1e-10; the direct solvers ignore
    /// it).
    #[param(
        help = "gradient descent stops when the scaled gradient norm is below it",
        default = 1e-10,
        valid = ("a finite number ≥ 0", crate::finite_non_negative),
        applies = ("with solver gradient-descent", |p| p.solver == LstsqSolver::GradientDescent)
    )]
    tol: f64,
}

/// Least-squares predictions with their Gaussian prediction intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictionInterval {
    /// The point predictions `ŷ`.
    pub prediction: Vec<f64>,
    /// Lower ends `ŷ − t σ̂ √(1 + h)`.
    pub lower: Vec<f64>,
    /// Upper ends `ŷ + t σ̂ √(1 + h)`.
    pub upper: Vec<f64>,
}

/// A fitted least-squares model `y = x·w + b`, with the quantities classical inference uses.
///
/// With sample weights it is weighted least squares: it minimizes `Σ wᵢ (yᵢ − xᵢ·w − b)²`, and
/// the weights are read as precisions (observation `i` has noise variance `σ²/wᵢ`), as
/// statsmodels' `WLS` reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearRegression {
    core: LinearRegressorCore,
    rank: usize,
    singular_values: Option<Vec<f64>>,
    solver: LstsqSolver,
    n_samples: usize,
    rss: f64,
    weight_sum: f64,
    x_offset: Vec<f64>,
    /// `(X̃ᵀX̃)⁻¹` of the centred weighted design after dividing it by `x_scale` (so the
    /// entries stay representable); `None` when the design is rank-deficient.
    inverse_gram: Option<DenseMatrix>,
    x_scale: f64,
    /// Steps and stopping reason of a gradient-descent fit.
    gd: Option<(usize, Stop)>,
    /// The hyperparameters the model was fitted with.
    params: LinearRegressionParams,
}

impl LinearRegression {
    /// The hyperparameters the model was fitted with (see [`LinearRegressionParams`]).
    pub fn hyperparams(&self) -> &LinearRegressionParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.core.n_features()
    }
    /// Default parameters.
    pub fn params() -> LinearRegressionParams {
        LinearRegressionParams::default()
    }
    /// The weights `w` as scikit-learn's `coef_` for every linear model: one row (one output),
    /// one column per feature.
    pub fn coef(&self) -> &DenseMatrix {
        self.core.coef()
    }
    /// The intercept `b`, one per row of `coef()` (one entry; 0 when fitted without one).
    pub fn intercept(&self) -> &[f64] {
        self.core.intercept()
    }
    /// Rank of the (centred) design: below the feature count when features are collinear or
    /// constant, in which case `coef` is the minimum-norm solution.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// Singular values of the centred, weighted design in non-increasing order, when the SVD
    /// solved the problem (chosen, or fallen back to).
    pub fn singular_values(&self) -> Option<&[f64]> {
        self.singular_values.as_deref()
    }
    /// The solver that produced the solution (after any fallback to SVD).
    pub fn solver(&self) -> LstsqSolver {
        self.solver
    }
    /// How the fit went: one run for [`LstsqSolver::GradientDescent`] (its steps, and
    /// [`Stop::MaxIterations`] when it took `max_iter` steps without meeting `tol`: raise
    /// `max_iter` or `tol`); no runs for the direct solvers.
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(
            self.gd
                .map(|(n, stop)| Run::new(n, stop))
                .into_iter()
                .collect(),
        )
    }
    /// Residual sum of squares on the training data, `Σ wᵢ rᵢ²`.
    pub fn rss(&self) -> f64 {
        self.rss
    }
    /// Residual degrees of freedom `N − p`, with `p` = rank plus one for the intercept.
    pub fn df_resid(&self) -> usize {
        self.n_samples
            .saturating_sub(self.rank + usize::from(self.params.fit_intercept))
    }
    /// The maximum-likelihood noise variance `σ̂² = RSS / N`.
    pub fn noise_variance_ml(&self) -> f64 {
        self.rss / self.n_samples as f64
    }
    /// The unbiased noise variance `σ̂² = RSS / (N − p)`; `None` when `N ≤ p`.
    pub fn noise_variance(&self) -> Option<f64> {
        match self.df_resid() {
            0 => None,
            df => Some(self.rss / df as f64),
        }
    }

    /// `(X̃ᵀX̃)⁻¹` (scaled) and the unbiased σ̂², when inference is defined.
    fn inference(&self) -> Option<(MatRef<'_, f64>, f64)> {
        Some((
            self.inverse_gram.as_ref()?.as_faer(),
            self.noise_variance()?,
        ))
    }

    /// The refusal of `operation`, which needs `(X̃ᵀX̃)⁻¹` and σ̂², by a fit that has not both:
    /// why not, and what to refit with.
    fn no_inference(&self, operation: &str) -> Error {
        let d = self.n_features();
        let reason = if self.solver == LstsqSolver::GradientDescent {
            "the model was fitted by gradient descent, which never factors the design: refit with a direct solver (LstsqSolver::Qr, Svd or NormalEquations)".to_owned()
        } else if self.inverse_gram.is_none() {
            format!(
                "the design was rank-deficient (rank {} of {d} features), so the weights are not identifiable: drop the collinear or constant features and refit",
                self.rank
            )
        } else {
            format!(
                "the fit left no residual degrees of freedom ({} samples for {} parameters): refit on more samples than parameters",
                self.n_samples,
                self.rank + usize::from(self.params.fit_intercept)
            )
        };
        Error::unsupported(operation, reason)
    }

    /// `zᵀ G z` for the scaled inverse Gram `G` and `z = (x − x̄) / x_scale`.
    fn leverage(&self, g: MatRef<'_, f64>, x: impl Fn(usize) -> f64) -> f64 {
        let d = self.n_features();
        let z: Vec<f64> = (0..d)
            .map(|j| (x(j) - self.x_offset[j]) / self.x_scale)
            .collect();
        (0..d)
            .map(|i| z[i] * (0..d).map(|j| g[(i, j)] * z[j]).sum::<f64>())
            .sum()
    }

    /// Standard errors of the weights, `√(σ̂² [(X̃ᵀX̃)⁻¹]ⱼⱼ)` with the unbiased σ̂². `None` when
    /// the design is rank-deficient (the weights are then not identifiable) or `N ≤ p`.
    pub fn coef_standard_errors(&self) -> Option<Vec<f64>> {
        let (g, sigma2) = self.inference()?;
        Some(
            (0..self.n_features())
                .map(|j| (sigma2 * g[(j, j)]).sqrt() / self.x_scale)
                .collect(),
        )
    }

    /// Standard error of the intercept, `σ̂ √(1/Σwᵢ + x̄ᵀ(X̃ᵀX̃)⁻¹x̄)` (the intercept's entry of
    /// `σ̂² (ZᵀWZ)⁻¹` for the design `Z = [1 X]`). `None` without an intercept or when
    /// [`coef_standard_errors`](Self::coef_standard_errors) is.
    pub fn intercept_standard_error(&self) -> Option<f64> {
        if !self.params.fit_intercept {
            return None;
        }
        let (g, sigma2) = self.inference()?;
        // The leverage of the origin x = 0 is x̄ᵀ G x̄.
        let h = self.leverage(g, |_| 0.0);
        Some((sigma2 * (1.0 / self.weight_sum + h)).sqrt())
    }

    /// Predictions with two-sided prediction intervals for new observations at `confidence`
    /// (in (0, 1), e.g. 0.95), under the model's Gaussian noise assumption:
    /// `ŷ ± t_{(1+confidence)/2, N−p} σ̂ √(1 + h)`, where `h = 1/Σwᵢ + (x − x̄)ᵀ(X̃ᵀX̃)⁻¹(x − x̄)`
    /// (without the `1/Σwᵢ` term when there is no intercept) and each new observation has unit
    /// weight.
    ///
    /// Fails with [`Error::Unsupported`], saying which and what to refit with, when the model
    /// was fitted by gradient descent, on a rank-deficient design, or without residual degrees
    /// of freedom.
    pub fn predict_interval<R: Records + ?Sized>(
        &self,
        records: &R,
        confidence: f64,
    ) -> Result<PredictionInterval> {
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(Error::invalid_parameter(
                "confidence",
                confidence,
                "a number in (0, 1)",
            ));
        }
        let prediction = self.predict(records)?;
        let (g, sigma2) = self
            .inference()
            .ok_or_else(|| self.no_inference("predict_interval"))?;
        let t = t_quantile(0.5 + 0.5 * confidence, self.df_resid() as f64);
        let base = if self.params.fit_intercept {
            1.0 + 1.0 / self.weight_sum
        } else {
            1.0
        };
        let d = self.n_features();
        let half: Vec<f64> = (0..records.n_samples())
            .into_par_iter()
            // A row's leverage is a d × d quadratic form.
            .with_min_len(margin_core::parallel::min_len(d * d + d))
            .map_init(
                || vec![0.0; d],
                |row, i| {
                    records.row(i).to_dense_into(row);
                    let h = self.leverage(g, |j| row[j]);
                    t * (sigma2 * (base + h)).sqrt()
                },
            )
            .collect();
        Ok(PredictionInterval {
            lower: prediction.iter().zip(&half).map(|(p, h)| p - h).collect(),
            upper: prediction.iter().zip(&half).map(|(p, h)| p + h).collect(),
            prediction,
        })
    }
}

/// A solution of the scaled problem `min ‖y − X w‖`.
struct Solution {
    coef: Vec<f64>,
    rank: usize,
    singular_values: Option<Vec<f64>>,
    rss: f64,
    inverse_gram: Option<Mat<f64>>,
    solver: LstsqSolver,
    gd: Option<(usize, Stop)>,
}

/// `‖R‖_F` over the upper triangle of a square matrix.
fn upper_frobenius(r: MatRef<'_, f64>) -> f64 {
    (0..r.ncols())
        .map(|j| (0..=j).map(|i| r[(i, j)] * r[(i, j)]).sum::<f64>())
        .sum::<f64>()
        .sqrt()
}

/// `A Aᵀ`.
fn times_transpose(a: MatRef<'_, f64>) -> Mat<f64> {
    let mut out = Mat::<f64>::zeros(a.nrows(), a.nrows());
    matmul(
        out.as_mut(),
        Accum::Replace,
        a,
        a.transpose(),
        1.0,
        Par::Seq,
    );
    out
}

/// Back substitution with the QR factor `R` of `[X | y]` (`(d + 1) × (d + 1)`): `R₁₁ w = R₁₂`,
/// and the last diagonal entry is the residual norm. `None` when `R₁₁` is too close to
/// singular to trust, for the SVD to take over.
fn solve_qr(r_aug: &Mat<f64>, n: usize) -> Option<Solution> {
    let d = r_aug.ncols() - 1;
    let r = r_aug.as_ref().get(..d, ..d);
    let mut r_inv = Mat::<f64>::zeros(d, d);
    invert_upper_triangular(r_inv.as_mut(), r, Par::Seq);
    // ‖R‖_F ‖R⁻¹‖_F bounds the condition number from above (within a factor d), so this
    // sends every design the SVD would call rank-deficient to the SVD; a NaN or ∞ from a zero
    // pivot fails the comparison too.
    let cond = upper_frobenius(r) * upper_frobenius(r_inv.as_ref());
    let trusted = cond * rcond(n, d) < 1.0;
    if !trusted {
        return None;
    }
    let mut coef = r_aug.as_ref().get(..d, d..).to_owned();
    solve_upper_triangular_in_place(r, coef.as_mut(), Par::Seq);
    Some(Solution {
        coef: (0..d).map(|i| coef[(i, 0)]).collect(),
        rank: d,
        singular_values: None,
        rss: r_aug[(d, d)] * r_aug[(d, d)],
        inverse_gram: Some(times_transpose(r_inv.as_ref())),
        solver: LstsqSolver::Qr,
        gd: None,
    })
}

/// Cholesky on `XᵀX`. `None` when the factor is numerically singular.
fn solve_normal_equations(design: &Design) -> Option<Solution> {
    let (n, d) = (design.n(), design.d());
    // [X y]ᵀ[X y] holds XᵀX and Xᵀy.
    let gram_xy = blocked_gram(design.xy.as_ref());
    let mut gram = gram_xy.as_ref().get(..d, ..d).to_owned();
    let mut rhs = gram_xy.as_ref().get(..d, d..).to_owned();
    if !cholesky_solve_in_place(gram.as_mut(), rhs.as_mut(), Par::Seq) {
        return None;
    }
    let (lo, hi) = (0..d)
        .map(|i| gram[(i, i)])
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    // Written so that NaN pivots count as singular too.
    let regular = lo > rcond(n, d).sqrt() * hi;
    if !regular {
        return None;
    }
    // (XᵀX)⁻¹ = L⁻ᵀ L⁻¹: invert Lᵀ (upper triangular) and multiply by its transpose.
    let mut l_inv_t = Mat::<f64>::zeros(d, d);
    invert_upper_triangular(l_inv_t.as_mut(), gram.as_ref().transpose(), Par::Seq);
    // The residual from the data, not from the Gram matrix, where it would cancel.
    let mut r = design.y().to_owned();
    matmul(
        r.as_mut(),
        Accum::Add,
        design.x(),
        rhs.as_ref(),
        -1.0,
        Par::Seq,
    );
    Some(Solution {
        coef: (0..d).map(|i| rhs[(i, 0)]).collect(),
        rank: d,
        singular_values: None,
        rss: r.col(0).squared_norm_l2(),
        inverse_gram: Some(times_transpose(l_inv_t.as_ref())),
        solver: LstsqSolver::NormalEquations,
        gd: None,
    })
}

/// The minimum-norm solution from the spectral form.
fn solve_svd(spectral: Spectral) -> Solution {
    let rank = spectral.rank();
    let inverse: Vec<f64> = spectral.s[..rank].iter().map(|s| 1.0 / s).collect();
    let coef = spectral.solve(&inverse);
    // The residual: the part of y outside the span of U, plus its components along the
    // singular directions left out.
    let rss = spectral.rss_outside + spectral.uty[rank..].iter().map(|c| c * c).sum::<f64>();
    let inverse_gram = (rank == spectral.d()).then(|| spectral.inverse_gram());
    Solution {
        coef,
        rank,
        singular_values: Some(spectral.s),
        rss,
        inverse_gram,
        solver: LstsqSolver::Svd,
        gd: None,
    }
}

/// Gradient descent from zero on `(1/2n)‖y − Xw‖²` over the scaled design.
fn solve_gradient_descent(
    design: &Design,
    max_iter: usize,
    tol: f64,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    let x = DenseMatrix::from_faer(design.x());
    let y = design.y().col(0).iter().copied().collect::<Vec<f64>>();
    let risk = LinearRisk::new(&x, &y, None, Loss::Squared, 0.0, false)?;
    let options = GdOptions {
        max_iter,
        grad_tol: tol,
        ..GdOptions::default()
    };
    let result = gd::minimize(&risk, vec![0.0; x.ncols()], &options, observer)?;
    Ok(Solution {
        rank: x.ncols(),
        singular_values: None,
        // The objective is RSS / 2n.
        rss: 2.0 * result.objective * x.nrows() as f64,
        inverse_gram: None,
        solver: LstsqSolver::GradientDescent,
        gd: Some((result.iterations, result.stop)),
        coef: result.w,
    })
}

impl Fit for LinearRegressionParams {
    type Model = LinearRegression;

    fn fit(&self, data: &Dataset) -> Result<LinearRegression> {
        self.fit_observed(data, &mut ())
    }
}

/// Only gradient descent iterates: the direct solvers report nothing to the observer.
impl FitObserved for LinearRegressionParams {
    fn fit_observed(
        &self,
        data: &Dataset,
        observer: &mut dyn Observer,
    ) -> Result<LinearRegression> {
        self.check()?;
        self.fit_design(Design::new(data, self.fit_intercept)?, observer)
    }
}

impl FitStats for LinearRegressionParams {
    type Stats = LeastSquaresStats;

    /// Statistics centred when the intercept is fitted.
    fn stats(&self) -> LeastSquaresStats {
        LeastSquaresStats::new(self.fit_intercept)
    }

    /// The direct solvers read the statistics' triangle as they read the rows' design, and the
    /// model reports the same rank, residual and inference. Gradient descent walks the rows, so
    /// it is refused here.
    fn fit_stats(&self, stats: &LeastSquaresStats) -> Result<LinearRegression> {
        self.check()?;
        if self.solver == LstsqSolver::GradientDescent {
            return Err(Error::unsupported(
                "gradient descent from statistics",
                "it steps over the rows, which the statistics no longer hold; choose the qr, svd or normal-equations solver",
            ));
        }
        self.fit_design(stats.design(self.fit_intercept)?, &mut ())
    }
}

impl LinearRegressionParams {
    /// Solves the checked parameters' problem on `design`.
    fn fit_design(
        &self,
        mut design: Design,
        observer: &mut dyn Observer,
    ) -> Result<LinearRegression> {
        let (n, d) = (design.n(), design.d());
        let solution = if self.solver == LstsqSolver::GradientDescent {
            solve_gradient_descent(&design, self.max_iter, self.tol, observer)?
        } else if n <= d {
            // No QR of a short matrix solves least squares: straight to the SVD.
            solve_svd(Spectral::of(&mut design)?)
        } else {
            let normal = match self.solver {
                LstsqSolver::NormalEquations => solve_normal_equations(&design),
                _ => None,
            };
            match normal {
                Some(s) => s,
                None => {
                    let r_aug = tsqr(design.xy.as_mut());
                    let qr = match self.solver {
                        LstsqSolver::Qr => solve_qr(&r_aug, n),
                        _ => None,
                    };
                    match qr {
                        Some(s) => s,
                        None => solve_svd(Spectral::from_r(&r_aug, n)?),
                    }
                }
            }
        };
        let (coef, intercept) = design.unscale(&solution.coef);
        if !(coef.iter().all(|c| c.is_finite()) && intercept.is_finite()) {
            return Err(Error::OutOfRange {
                what: "the features and targets".into(),
                reason: "least squares produced non-finite weights: the data's range is too wide for f64; rescale the features or targets".into(),
            });
        }
        let y_scale2 = design.y_scale * design.y_scale;
        // The model reports its residual sum of squares (and inference built on it): a fit
        // whose residuals' squares overflow could only store infinity.
        if !(solution.rss * y_scale2).is_finite() {
            return Err(Error::OutOfRange {
                what: "the targets".into(),
                reason: "the residual sum of squares overflows f64 (residuals beyond about 1e154); rescale the targets, for example divide by a power of ten".into(),
            });
        }
        Ok(LinearRegression {
            params: self.clone(),
            core: LinearRegressorCore::new(coef, intercept),
            rank: solution.rank,
            singular_values: solution
                .singular_values
                .map(|s| s.iter().map(|v| v * design.x_scale).collect()),
            solver: solution.solver,
            n_samples: n,
            rss: solution.rss * y_scale2,
            weight_sum: design.weight_sum,
            x_offset: design.x_offset,
            inverse_gram: solution
                .inverse_gram
                .map(|g| DenseMatrix::from_faer(g.as_ref())),
            x_scale: design.x_scale,
            gd: solution.gd,
        })
    }
}

impl Predict for LinearRegression {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        predict_linear(records, self.core.w(), self.core.b())
    }
}

impl ModelFile for LinearRegression {
    const KIND: &'static str = "linear-regression";
    // 2: a descent fit's stop is stored as a `Stop` (was the descent solvers' own `GdStop`),
    // and the hyperparameters the model was fitted with; 3: `fit_intercept` only inside them.
    const SCHEMA: u32 = 3;

    /// Finite weights and intercept, and what prediction intervals and standard errors read:
    /// one finite mean per feature, a `d × d` finite inverse Gram (when stored), a positive
    /// scale and weight sum, a finite residual sum of squares, a rank of at most `d`.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let d = self.n_features();
        self.core.check_consistent()?;
        model_check::len("x_offset", self.x_offset.len(), d)?;
        model_check::finite("x_offset", &self.x_offset)?;
        if let Some(g) = &self.inverse_gram {
            model_check::matrix("inverse_gram", g, d, d)?;
        }
        model_check::positive("x_scale", self.x_scale)?;
        model_check::positive("weight_sum", self.weight_sum)?;
        model_check::finite_min("rss", &[self.rss], 0.0)?;
        model_check::at_least("n_samples", self.n_samples, 1)?;
        if self.rank > d {
            return Err(model_check::refuse(
                "rank",
                format!("is {} for {d} features", self.rank),
            ));
        }
        Ok(())
    }
}
