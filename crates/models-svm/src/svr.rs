//! ε-support vector regression (LIBSVM's `-s 3`, scikit-learn's `SVR`).

use margin_core::fit::FitReport;
use margin_core::params::Params;
use margin_core::{Convergence, Dataset, DenseMatrix, Error, Predict, Records, Result, validate};
use margin_io::ModelFile;
use margin_kernels::KernelSpec;
use margin_optim::smo::Problem;
use serde::{Deserialize, Serialize};

use crate::expansion::Expansion;
use crate::libsvm_run::{LibsvmRun, RunReport, SummaryLine, training_part};
use crate::q::solve_svr;
use crate::settings::{Settings, kept_params, nu_in_range};

/// Parameters of [`Svr`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(c, epsilon, settings, laplace))]
pub struct SvrParams {
    #[param(flatten)]
    settings: Settings,
    /// Regularization `C > 0` (default 1).
    #[param(
        name = "C",
        help = "regularization C",
        default = 1.0,
        valid = ("a number > 0", |c| *c > 0.0)
    )]
    c: f64,
    /// Half-width of the tube inside which errors cost nothing (default 0.1, ≥ 0).
    #[param(
        help = "half-width of the tube inside which errors cost nothing",
        default = 0.1,
        valid = ("a finite number ≥ 0", |e| e.is_finite() && *e >= 0.0)
    )]
    epsilon: f64,
    #[param(flatten)]
    laplace: LaplaceSetup,
}

/// LIBSVM's probability model of a regressor's residuals and its seed: a block both
/// [`SvrParams`] and [`NuSvrParams`] flatten.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block)]
struct LaplaceSetup {
    /// Also fit LIBSVM's probability model (`-b 1`): the scale σ of a Laplace distribution
    /// for `y − f(x)`, fitted on 5-fold cross-validated residuals (five more trainings). See
    /// [`Svr::laplace_scale`](crate::Svr::laplace_scale) and
    /// [`Svr::predict_interval`](crate::Svr::predict_interval).
    #[param(help = "fit LIBSVM's Laplace model of the residuals (-b 1: five more trainings)")]
    probability: bool,
    /// Seed of the cross-validation folds behind the probability model (default 0). The folds
    /// are drawn as LIBSVM draws them, with glibc's `rand()` after `srand(seed)` (the seed
    /// taken modulo 2³²): the default 0 (like 1) gives the sequence of a program that never
    /// seeds, so σ is LIBSVM's to the last digit.
    #[param(
        help = "seed of glibc's rand() for the probability folds (0: LIBSVM's unseeded sequence)",
        applies = ("with probability true", |s| s.probability)
    )]
    seed: u64,
}

impl RegressorParams for SvrParams {
    fn common(&self) -> (&Settings, f64, &LaplaceSetup) {
        (&self.settings, self.c, &self.laplace)
    }

    fn formulation(&self) -> Formulation {
        Formulation::Epsilon(self.epsilon)
    }
}

impl SvrParams {
    /// Fits as [`Fit::fit`](margin_core::Fit::fit) does, drawing the probability folds from
    /// `run`'s `rand()` sequence (continuing it, as LIBSVM's tools do across the trainings of
    /// one run; the params' `seed` is not used) and reporting the solver runs to its observer.
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<Svr> {
        fit_params_in(self, data, run)
    }
}

kept_params! {
    /// The hyperparameters a fitted [`Svr`] keeps: those of the ε-SVR or of the ν-SVR it was
    /// fitted as.
    ///
    /// A model read from a LIBSVM text file ([`crate::LibsvmModel`]) keeps what the file's
    /// header implies, as scikit-learn does for the estimators it rebuilds from such files: the
    /// formulation (`svm_type`), the kernel (`kernel_type`, `gamma`, `degree`, `coef0`, with
    /// those the kernel does not use at their defaults) and `probability` (true when the file
    /// has `probA`); every other parameter (C, ε, ν, `tol`, `cache_size`, …) is at its
    /// default, since LIBSVM's files do not record it.
    SvrHyperparams { Epsilon(SvrParams), Nu(NuSvrParams) }
}

impl From<SvrParams> for SvrHyperparams {
    fn from(p: SvrParams) -> Self {
        SvrHyperparams::Epsilon(p)
    }
}

impl From<NuSvrParams> for SvrHyperparams {
    fn from(p: NuSvrParams) -> Self {
        SvrHyperparams::Nu(p)
    }
}

/// A fitted ε-SVR: `f(x) = Σ_s (α_s − α*_s) K(sv_s, x) − ρ`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svr {
    pub(crate) expansion: Expansion,
    /// The hyperparameters the model was fitted with; ν-SVR's for a model trained as ν-SVR
    /// (LIBSVM model files say `nu_svr`).
    pub(crate) params: SvrHyperparams,
    /// LIBSVM's `probA`: the Laplace scale σ of the residuals, when fitted with
    /// `probability(true)`.
    pub(crate) laplace_scale: Option<f64>,
    /// How the SMO runs of the cross-validation behind `laplace_scale` ended.
    pub(crate) probability_folds: Convergence,
}

impl Svr {
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.expansion.n_features
    }
    /// Default parameters.
    pub fn params() -> SvrParams {
        SvrParams::default()
    }
    /// Default ν-SVR parameters.
    pub fn nu_params() -> NuSvrParams {
        NuSvrParams::default()
    }
    /// Whether the model was trained as ν-SVR.
    pub fn is_nu(&self) -> bool {
        matches!(self.params, SvrHyperparams::Nu(_))
    }
    /// The hyperparameters the model was fitted with (see [`SvrHyperparams`] for a model read
    /// from a LIBSVM file).
    pub fn hyperparams(&self) -> &SvrHyperparams {
        &self.params
    }
    /// The resolved kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.expansion.kernel
    }
    /// Training-set indices of the support vectors.
    pub fn support_indices(&self) -> &[usize] {
        &self.expansion.support_indices
    }
    /// Dual coefficients `α_s − α*_s`, one per support vector.
    pub fn dual_coef(&self) -> &[f64] {
        &self.expansion.coef
    }
    /// The intercept `b = −ρ`, one entry (one output; scikit-learn's `intercept_`).
    pub fn intercept(&self) -> Vec<f64> {
        vec![-self.expansion.rho]
    }
    /// Dual objective at the solution.
    pub fn objective(&self) -> f64 {
        self.expansion.objective
    }
    /// How the fit's SMO runs went: the model's own, and with probability estimates the five
    /// cross-validation runs behind [`Svr::laplace_scale`], counted (LIBSVM warns "reaching
    /// max number of iterations" for each run that stopped at the limit).
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![self.expansion.run()]).with_folds(self.probability_folds)
    }
    /// For a linear kernel, `w` as one row (scikit-learn's `coef_`): `w·x + b` is the
    /// prediction. [`Error::Unsupported`] naming the kernel for
    /// any other kernel.
    pub fn coef(&self) -> Result<DenseMatrix> {
        self.expansion.coef()
    }
    /// The probability model of a regressor fitted with `probability(true)` (LIBSVM's
    /// `probA`, `svm_get_svr_probability`): `y = f(x) + z` with `z` Laplace-distributed, density
    /// `e^(−|z|/σ) / (2σ)`. σ is the mean absolute 5-fold cross-validated residual, residuals
    /// beyond `5·√2·(their mean)` left out as outliers. `None` without `probability(true)`.
    pub fn laplace_scale(&self) -> Option<f64> {
        self.laplace_scale
    }

    /// Prediction intervals from the probability model: one row per sample, columns
    /// `[lower, upper]` = `f(x) ∓ σ·ln(1 / (1 − coverage))`, the central interval that holds
    /// `y` with probability `coverage` ∈ (0, 1) under the Laplace model of
    /// [`Svr::laplace_scale`]. Like `PredictProba` for classifiers, it needs a model fitted with
    /// `probability(true)` (LIBSVM: `svm-train -b 1`); any other is refused with
    /// [`Error::Unsupported`].
    pub fn predict_interval<R: Records + ?Sized>(
        &self,
        records: &R,
        coverage: f64,
    ) -> Result<DenseMatrix> {
        let sigma = self
            .laplace_scale
            .ok_or_else(|| crate::probability::no_probability_model("predict_interval"))?;
        if !(coverage > 0.0 && coverage < 1.0) {
            return Err(Error::invalid_parameter(
                "coverage",
                coverage,
                "a probability strictly between 0 and 1",
            ));
        }
        let half = -sigma * (-coverage).ln_1p();
        let f = self.expansion.decision(records)?;
        let n = f.len();
        let bounds = f.iter().flat_map(|&v| [v - half, v + half]).collect();
        DenseMatrix::from_row_major(bounds, n, 2)
    }
}

/// Parameters of ν-SVR (LIBSVM's `-s 4`, scikit-learn's `NuSVR`), which fits the same [`Svr`]
/// model: ν ∈ (0, 1] replaces ε and chooses the tube width itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(c, nu, settings, laplace))]
pub struct NuSvrParams {
    #[param(flatten)]
    settings: Settings,
    /// Regularization `C > 0` (default 1).
    #[param(
        name = "C",
        help = "regularization C",
        default = 1.0,
        valid = ("a number > 0", |c| *c > 0.0)
    )]
    c: f64,
    /// ν in (0, 1] (default 0.5): an upper bound on the fraction of errors outside the tube and
    /// a lower bound on the fraction of support vectors.
    #[param(
        help = "bound on the fraction of errors outside the tube (above) and of support vectors (below)",
        default = 0.5,
        valid = ("a number in (0, 1]", nu_in_range)
    )]
    nu: f64,
    #[param(flatten)]
    laplace: LaplaceSetup,
}

impl RegressorParams for NuSvrParams {
    fn common(&self) -> (&Settings, f64, &LaplaceSetup) {
        (&self.settings, self.c, &self.laplace)
    }

    fn formulation(&self) -> Formulation {
        Formulation::Nu(self.nu)
    }
}

impl NuSvrParams {
    /// Fits as [`SvrParams::fit_in`] does.
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<Svr> {
        fit_params_in(self, data, run)
    }
}

/// The parameters of ε-SVR and ν-SVR: one fit, two formulations.
trait RegressorParams: Params + Into<SvrHyperparams> {
    /// The kernel and solver settings, `C`, and the probability model's setup.
    fn common(&self) -> (&Settings, f64, &LaplaceSetup);

    /// ε-SVR's or ν-SVR's formulation, with its parameter.
    fn formulation(&self) -> Formulation;
}

/// What both regressors' `fit_in` do: check the params, fit, keep the params in the model.
fn fit_params_in<P: RegressorParams>(
    params: &P,
    data: &Dataset,
    run: &mut LibsvmRun<'_>,
) -> Result<Svr> {
    params.check()?;
    let (settings, c, laplace) = params.common();
    let (formulation, probability) = (params.formulation(), laplace.probability);
    fit_with_probability(settings, c, formulation, data, probability, run).map(|model| Svr {
        params: params.clone().into(),
        ..model
    })
}

/// The ε or ν formulation of support vector regression.
#[derive(Clone, Copy)]
enum Formulation {
    Epsilon(f64),
    Nu(f64),
}

fn fit_regressor(
    settings: &Settings,
    c: f64,
    formulation: Formulation,
    data: &Dataset,
    run: &mut LibsvmRun<'_>,
) -> Result<Svr> {
    crate::settings::check_training(data)?;
    let y = data.targets.values()?;
    validate::check_finite_slice(&y)?;
    let kernel = settings.kernel.resolve(&data.records)?;
    Expansion::check_kernel(&kernel, data)?;
    let l = data.n_samples();
    let weight = |i: usize| data.sample_weights.as_ref().map_or(1.0, |w| w[i]);
    // Variables α (positions 0..l, y = +1) and α* (l..2l, y = −1), LIBSVM's layout.
    let bound = |i: usize| {
        let b = c * weight(i);
        if b > 0.0 { b } else { f64::MIN_POSITIVE }
    };
    let bounds: Vec<f64> = (0..2 * l).map(|p| bound(p % l)).collect();
    let signs: Vec<i8> = (0..2 * l).map(|p| if p < l { 1 } else { -1 }).collect();
    let (problem, nu) = match formulation {
        Formulation::Epsilon(eps) => {
            let p = (0..2 * l)
                .map(|p| if p < l { eps - y[p] } else { eps + y[p - l] })
                .collect();
            let problem = Problem {
                p,
                y: signs,
                c: bounds,
                alpha: vec![0.0; 2 * l],
            };
            (problem, false)
        }
        Formulation::Nu(nu) => {
            // LIBSVM's feasible start: C·ν·l/2 spread over the first samples, equally on α and α*.
            let mut left = c * nu * l as f64 / 2.0;
            let mut alpha = vec![0.0; 2 * l];
            for i in 0..l {
                let a = left.min(bounds[i]);
                alpha[i] = a;
                alpha[i + l] = a;
                left -= a;
            }
            let p = (0..2 * l)
                .map(|p| if p < l { -y[p] } else { y[p - l] })
                .collect();
            let problem = Problem {
                p,
                y: signs,
                c: bounds,
                alpha,
            };
            (problem, true)
        }
    };
    let sol = solve_svr(settings, &kernel, &data.records, problem, nu, run.marks())?;
    let coef: Vec<f64> = (0..l).map(|i| sol.alpha[i] - sol.alpha[i + l]).collect();
    let line = if nu {
        SummaryLine::Epsilon(-sol.r)
    } else {
        SummaryLine::Nu(coef.iter().map(|a| a.abs()).sum::<f64>() / (c * l as f64))
    };
    run.observer().solved(&RunReport {
        iterations: sol.iterations,
        line: Some(line),
        objective: sol.objective,
        rho: sol.rho,
        n_sv: coef.iter().filter(|a| a.abs() > 0.0).count(),
        n_bsv: (0..l).filter(|&i| coef[i].abs() >= bound(i)).count(),
    });
    Ok(Svr {
        // What the formulation fixes; `fit_in` puts the params it was given in place.
        params: SvrHyperparams::from_libsvm(&kernel, nu, false),
        expansion: Expansion::new(kernel, data, &coef, &sol)?,
        laplace_scale: None,
        probability_folds: Convergence::default(),
    })
}

/// A regressor, with LIBSVM's probability model when asked for.
fn fit_with_probability(
    settings: &Settings,
    c: f64,
    formulation: Formulation,
    data: &Dataset,
    probability: bool,
    run: &mut LibsvmRun<'_>,
) -> Result<Svr> {
    let mut model = fit_regressor(settings, c, formulation, data, run)?;
    if probability {
        // The folds use the kernel resolved on all the data, as LIBSVM's (γ is not re-derived
        // from each fold).
        let folds = settings.with_resolved(model.kernel());
        let (sigma, runs) = laplace_scale(&folds, c, formulation, data, run)?;
        run.observer().laplace_scale(sigma);
        model.laplace_scale = Some(sigma);
        model.probability_folds = runs;
    }
    Ok(model)
}

/// LIBSVM's `svm_svr_probability`: 5-fold cross-validated residuals (folds shuffled as LIBSVM's
/// `svm_cross_validation` does, with `run`'s `rand()`), their mean absolute
/// value, then the mean again without those beyond 5 times the Laplace standard deviation;
/// with how the folds' SMO runs ended.
fn laplace_scale(
    settings: &Settings,
    c: f64,
    formulation: Formulation,
    data: &Dataset,
    run: &mut LibsvmRun<'_>,
) -> Result<(f64, Convergence)> {
    let l = data.n_samples();
    if l < 2 {
        return Err(Error::invalid_parameter(
            "probability",
            true,
            format!("at least 2 samples to cross-validate the probability model (found {l})"),
        ));
    }
    let y = data.targets.values()?;
    let folds = run.folds(l, l.min(5));
    let mut residual = vec![0.0; l];
    let mut runs = Convergence::default();
    for (f, held_out) in folds.iter().enumerate() {
        let train = training_part(&folds, f);
        let model = fit_regressor(settings, c, formulation, &data.select(&train)?, run)?;
        runs = runs.and(model.expansion.run().convergence());
        let predicted = model
            .expansion
            .libsvm_decision(&data.records.select_rows(held_out)?)?;
        for (&i, p) in held_out.iter().zip(predicted) {
            residual[i] = y[i] - p;
        }
    }
    let mut mae = residual.iter().map(|r| r.abs()).sum::<f64>() / l as f64;
    let std = (2.0 * mae * mae).sqrt();
    let kept: Vec<f64> = residual
        .iter()
        .map(|r| r.abs())
        .filter(|&r| r <= 5.0 * std)
        .collect();
    mae = kept.iter().sum::<f64>() / kept.len() as f64;
    Ok((mae, runs))
}

crate::libsvm_run::observed_fits!(SvrParams => Svr, |p| p.laplace.seed);
crate::libsvm_run::observed_fits!(NuSvrParams => Svr, |p| p.laplace.seed);

impl Predict for Svr {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        self.expansion.decision(records)
    }
}

impl ModelFile for Svr {
    const KIND: &'static str = "svr";
    // 2: the probability model (`laplace_scale`); 3: `probability_folds`; 4: the
    // hyperparameters (in place of the ν-SVR flag); 5: the `solver` setting in them.
    const SCHEMA: u32 = 5;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        self.expansion.check_consistent()?;
        // σ scales the prediction interval: a negative or non-finite one is no Laplace model.
        if let Some(sigma) = self.laplace_scale {
            margin_core::model_check::finite_min("laplace_scale", &[sigma], 0.0)?;
        }
        Ok(())
    }
}
