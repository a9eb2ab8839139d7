//! ε-support vector regression (LIBSVM's `-s 3`, scikit-learn's `SVR`).

use core_linalg::{Dataset, Fit, ModelFile, Predict, Records, Result, validate};
use kernels::KernelSpec;
use optim::StopReason;
use optim::smo::{self, Problem};
use serde::{Deserialize, Serialize};

use crate::expansion::Expansion;
use crate::q::SvrQ;
use crate::settings::{Settings, settings_builders};

/// Parameters of [`Svr`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SvrParams {
    settings: Settings,
    c: f64,
    epsilon: f64,
}

impl Default for SvrParams {
    fn default() -> Self {
        Self {
            settings: Settings::default(),
            c: 1.0,
            epsilon: 0.1,
        }
    }
}

settings_builders!(SvrParams);

impl SvrParams {
    /// Regularization `C > 0` (default 1).
    pub fn c(mut self, c: f64) -> Self {
        self.c = c;
        self
    }
    /// Half-width of the tube inside which errors cost nothing (default 0.1, ≥ 0).
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }
}

/// A fitted ε-SVR: `f(x) = Σ_s (α_s − α*_s) K(sv_s, x) − ρ`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svr {
    pub(crate) expansion: Expansion,
    /// Trained as ν-SVR (LIBSVM model files say `nu_svr`).
    pub(crate) nu: bool,
}

impl Svr {
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
        self.nu
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
    /// The intercept `b = −ρ`.
    pub fn intercept(&self) -> f64 {
        -self.expansion.rho
    }
    /// Dual objective at the solution.
    pub fn objective(&self) -> f64 {
        self.expansion.objective
    }
    /// SMO iterations.
    pub fn iterations(&self) -> usize {
        self.expansion.iterations
    }
    /// Why SMO stopped.
    pub fn stop_reason(&self) -> StopReason {
        self.expansion.stop
    }
    /// For a linear kernel, `w`.
    pub fn coef(&self) -> Option<&[f64]> {
        self.expansion.weights.as_deref()
    }
}

/// Parameters of ν-SVR (LIBSVM's `-s 4`, scikit-learn's `NuSVR`), which fits the same [`Svr`]
/// model: ν ∈ (0, 1] replaces ε and chooses the tube width itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NuSvrParams {
    settings: Settings,
    c: f64,
    nu: f64,
}

impl Default for NuSvrParams {
    fn default() -> Self {
        Self {
            settings: Settings::default(),
            c: 1.0,
            nu: 0.5,
        }
    }
}

settings_builders!(NuSvrParams);

impl NuSvrParams {
    /// Regularization `C > 0` (default 1).
    pub fn c(mut self, c: f64) -> Self {
        self.c = c;
        self
    }
    /// ν in (0, 1] (default 0.5): an upper bound on the fraction of errors outside the tube and
    /// a lower bound on the fraction of support vectors.
    pub fn nu(mut self, nu: f64) -> Self {
        self.nu = nu;
        self
    }
}

/// The ε or ν formulation of support vector regression.
enum Formulation {
    Epsilon(f64),
    Nu(f64),
}

fn fit_regressor(
    settings: &Settings,
    c: f64,
    formulation: Formulation,
    data: &Dataset,
) -> Result<Svr> {
    settings.check()?;
    if c.is_nan() || c <= 0.0 {
        return Err(core_linalg::Error::invalid_parameter(
            "C",
            c,
            "a number > 0",
        ));
    }
    match formulation {
        Formulation::Epsilon(e) if !(e.is_finite() && e >= 0.0) => {
            return Err(core_linalg::Error::invalid_parameter(
                "epsilon",
                e,
                "a finite number ≥ 0",
            ));
        }
        Formulation::Nu(nu) => validate::check_in_range("nu", nu, 0.0, 1.0, true)?,
        _ => {}
    }
    validate::check_dataset(data)?;
    let y = data.targets.values()?;
    validate::check_finite_slice(&y)?;
    let kernel = settings.kernel.resolve(&data.records)?;
    Expansion::check_kernel(&kernel, data)?;
    let l = data.n_samples();
    let weight = |i: usize| data.sample_weights.as_ref().map_or(1.0, |w| w[i]);
    // Variables α (positions 0..l, y = +1) and α* (l..2l, y = −1), LIBSVM's layout.
    let bounds: Vec<f64> = (0..2 * l)
        .map(|p| c * weight(p % l))
        .map(|b| if b > 0.0 { b } else { f64::MIN_POSITIVE })
        .collect();
    let signs: Vec<i8> = (0..2 * l).map(|p| if p < l { 1 } else { -1 }).collect();
    let mut q = SvrQ::new(&kernel, &data.records, settings.cache_bytes())?;
    let (sol, nu) = match formulation {
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
            (smo::solve(&mut q, problem, &settings.solver())?, false)
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
            (smo::solve_nu(&mut q, problem, &settings.solver())?, true)
        }
    };
    let coef: Vec<f64> = (0..l).map(|i| sol.alpha[i] - sol.alpha[i + l]).collect();
    Ok(Svr {
        expansion: Expansion::new(kernel, data, &coef, &sol)?,
        nu,
    })
}

impl Fit for SvrParams {
    type Model = Svr;

    fn fit(&self, data: &Dataset) -> Result<Svr> {
        fit_regressor(
            &self.settings,
            self.c,
            Formulation::Epsilon(self.epsilon),
            data,
        )
    }
}

impl Fit for NuSvrParams {
    type Model = Svr;

    fn fit(&self, data: &Dataset) -> Result<Svr> {
        fit_regressor(&self.settings, self.c, Formulation::Nu(self.nu), data)
    }
}

impl Predict for Svr {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        self.expansion.decision(records)
    }
}

impl ModelFile for Svr {
    const KIND: &'static str = "svr";
    const SCHEMA: u32 = 1;
}
