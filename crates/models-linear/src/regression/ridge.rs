//! Ridge regression: least squares with an L2 penalty on the weights (not on the intercept).

use margin_core::faer::linalg::matmul::matmul;
use margin_core::faer::{Accum, Mat, Par};
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, FitStats, LinearRegressorCore, Predict, Records, Result,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use margin_core::parallel::{self, Overhead};
use margin_core::params::Params;

use super::design::{Design, col_to_vec, predict_linear};
use super::solve::{Spectral, blocked_gram, cholesky_solve_in_place};
use super::stats::LeastSquaresStats;

/// How [`Ridge`] solves `(XᵀX + αI) w = Xᵀy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RidgeSolver {
    /// Cholesky factorization (the default, scikit-learn's choice for dense data): of the
    /// `d × d` system `XᵀX + αI` when `n ≥ d`, else of the `n × n` system `XXᵀ + αI` (then
    /// `w = Xᵀc`). When the matrix is not numerically positive definite (`α = 0` on collinear
    /// data) the fit switches to [`RidgeSolver::Svd`], as scikit-learn falls back to least
    /// squares.
    #[default]
    Cholesky,
    /// SVD `X = U S Vᵀ` (through the tall-skinny QR when `n > d`, as
    /// [`LstsqSolver::Svd`](super::LstsqSolver::Svd)): `w = V diag(s / (s² + α)) Uᵀy`,
    /// singular values at most `ε · max(n, d) · s_max` left out. Slower, exact for `α = 0` on
    /// rank-deficient data, and what [`RidgeParams::fit_path`] uses for every α at once.
    Svd,
}

margin_core::param_choice!(RidgeSolver { Cholesky => "cholesky", Svd => "svd" });

/// Parameters of [`Ridge`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct RidgeParams {
    /// Penalty strength `α ≥ 0` on `‖w‖²` (default 1).
    #[param(
        help = "penalty strength on |w|²",
        default = 1.0,
        valid = ("a finite number ≥ 0", crate::finite_non_negative)
    )]
    alpha: f64,
    /// Fit an unpenalized intercept by centring (default true).
    #[param(help = "fit an unpenalized intercept by centring", default = true)]
    fit_intercept: bool,
    /// The solver (default [`RidgeSolver::Cholesky`]).
    #[param(
        help = "Cholesky (falls back to SVD when singular) or SVD",
        default = RidgeSolver::Cholesky
    )]
    solver: RidgeSolver,
}

impl RidgeParams {
    /// One model per α in `alphas`, from a single SVD of the design (the regularization path):
    /// each extra α costs `O(d · min(n, d))`. This params value's own `alpha` and
    /// `solver` are not used; every model reports [`RidgeSolver::Svd`], and equals what
    /// `self.alpha(a).solver(RidgeSolver::Svd).fit(data)` returns.
    pub fn fit_path(&self, data: &Dataset, alphas: &[f64]) -> Result<Vec<Ridge>> {
        if alphas.is_empty() {
            return Err(Error::invalid_parameter(
                "alphas",
                "[]",
                "at least one value",
            ));
        }
        for &a in alphas {
            self.clone().alpha(a).check()?;
        }
        let mut design = Design::new(data, self.fit_intercept)?;
        let spectral = Spectral::of(&mut design)?;
        alphas
            .iter()
            .map(|&alpha| {
                let coef = spectral_coef(&spectral, scaled_alpha(alpha, &design));
                Ridge::from_scaled(
                    &design,
                    &coef,
                    self.clone().alpha(alpha).solver(RidgeSolver::Svd),
                    RidgeSolver::Svd,
                )
            })
            .collect()
    }
}

/// A fitted ridge regression `y = x·w + b`, minimizing `Σ wᵢ (yᵢ − xᵢ·w − b)² + α ‖w‖²`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ridge {
    core: LinearRegressorCore,
    solver: RidgeSolver,
    /// The hyperparameters the model was fitted with.
    params: RidgeParams,
}

impl Ridge {
    /// The hyperparameters the model was fitted with (see [`RidgeParams`]).
    pub fn hyperparams(&self) -> &RidgeParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.core.n_features()
    }
    /// Default parameters.
    pub fn params() -> RidgeParams {
        RidgeParams::default()
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
    /// The penalty α the model was fitted with.
    pub fn alpha(&self) -> f64 {
        self.params.alpha
    }
    /// The solver that produced the solution (after any fallback).
    pub fn solver(&self) -> RidgeSolver {
        self.solver
    }

    fn from_scaled(
        design: &Design,
        scaled_coef: &[f64],
        params: RidgeParams,
        solver: RidgeSolver,
    ) -> Result<Self> {
        let (coef, intercept) = design.unscale(scaled_coef);
        if !(coef.iter().all(|c| c.is_finite()) && intercept.is_finite()) {
            return Err(Error::OutOfRange {
                what: "the features and targets".into(),
                reason: "ridge produced non-finite weights: the data's range is too wide for f64; rescale the features or targets".into(),
            });
        }
        Ok(Self {
            core: LinearRegressorCore::new(coef, intercept),
            solver,
            params,
        })
    }
}

/// α in the units of the scaled design: `‖y − Xw‖² + α‖w‖²` on `X/s`, `y/t` with `w = w' t/s`
/// has penalty `α/s²`. Divided twice so that `s²` itself cannot overflow.
fn scaled_alpha(alpha: f64, design: &Design) -> f64 {
    alpha / design.x_scale / design.x_scale
}

/// Cholesky on the smaller of the primal and dual systems. `None` when it is not positive
/// definite.
fn solve_cholesky(design: &Design, alpha: f64) -> Option<Vec<f64>> {
    let (x, y) = (design.x(), design.y());
    // The matrix's rows, not the sample count: a design built from statistics holds the
    // `(d + 1)`-row triangle of its samples.
    let (n, d) = (x.nrows(), design.d());
    if n >= d {
        // [X y]ᵀ[X y] holds XᵀX and Xᵀy.
        let gram_xy = blocked_gram(design.xy.as_ref());
        let mut a = gram_xy.as_ref().get(..d, ..d).to_owned();
        let mut b = gram_xy.as_ref().get(..d, d..).to_owned();
        for i in 0..d {
            a[(i, i)] += alpha;
        }
        cholesky_solve_in_place(a.as_mut(), b.as_mut(), Par::Seq).then(|| col_to_vec(b.as_ref(), d))
    } else {
        // Sized for the Cholesky that follows (the product costs less than it).
        let par = parallel::faer_par(n as f64 * n as f64 * d as f64, Overhead::Decomposition);
        let mut k = Mat::<f64>::zeros(n, n);
        matmul(k.as_mut(), Accum::Replace, x, x.transpose(), 1.0, par);
        for i in 0..n {
            k[(i, i)] += alpha;
        }
        let mut c = y.to_owned();
        if !cholesky_solve_in_place(k.as_mut(), c.as_mut(), Par::Seq) {
            return None;
        }
        let mut w = Mat::<f64>::zeros(d, 1);
        matmul(
            w.as_mut(),
            Accum::Replace,
            x.transpose(),
            c.as_ref(),
            1.0,
            par,
        );
        Some(col_to_vec(w.as_ref(), d))
    }
}

/// The weights for one (scaled) α from the spectral form.
fn spectral_coef(spectral: &Spectral, alpha: f64) -> Vec<f64> {
    // An infinite penalty (α·2^2000 after scaling) gives s/∞ = 0: the limit w = 0.
    let filter: Vec<f64> = spectral.s[..spectral.rank()]
        .iter()
        .map(|s| s / (s * s + alpha))
        .collect();
    spectral.solve(&filter)
}

impl Fit for RidgeParams {
    type Model = Ridge;

    fn fit(&self, data: &Dataset) -> Result<Ridge> {
        self.check()?;
        self.fit_design(Design::new(data, self.fit_intercept)?)
    }
}

impl FitStats for RidgeParams {
    type Stats = LeastSquaresStats;

    /// Statistics centred when the intercept is fitted.
    fn stats(&self) -> LeastSquaresStats {
        LeastSquaresStats::new(self.fit_intercept)
    }

    /// Both solvers read the statistics' triangle as they read the rows' design.
    fn fit_stats(&self, stats: &LeastSquaresStats) -> Result<Ridge> {
        self.check()?;
        self.fit_design(stats.design(self.fit_intercept)?)
    }
}

impl RidgeParams {
    /// Solves the checked parameters' problem on `design`.
    fn fit_design(&self, mut design: Design) -> Result<Ridge> {
        let alpha = scaled_alpha(self.alpha, &design);
        if alpha.is_infinite() {
            // The penalty outweighs any fit by more than f64 can express: w = 0 is the limit.
            return Ridge::from_scaled(&design, &vec![0.0; design.d()], self.clone(), self.solver);
        }
        let (coef, solver) = match self.solver {
            RidgeSolver::Cholesky => match solve_cholesky(&design, alpha) {
                Some(c) => (c, RidgeSolver::Cholesky),
                None => (
                    spectral_coef(&Spectral::of(&mut design)?, alpha),
                    RidgeSolver::Svd,
                ),
            },
            RidgeSolver::Svd => (
                spectral_coef(&Spectral::of(&mut design)?, alpha),
                RidgeSolver::Svd,
            ),
        };
        Ridge::from_scaled(&design, &coef, self.clone(), solver)
    }
}

impl Predict for Ridge {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        predict_linear(records, self.core.w(), self.core.b())
    }
}

impl ModelFile for Ridge {
    const KIND: &'static str = "ridge";
    // 2: the hyperparameters the model was fitted with; 3: α only inside them.
    const SCHEMA: u32 = 3;

    /// Finite weights and intercept.
    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        self.core.check_consistent()
    }
}
