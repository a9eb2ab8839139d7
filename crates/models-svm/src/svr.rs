//! ε-support vector regression (LIBSVM's `-s 3`, scikit-learn's `SVR`).

use core_linalg::{Dataset, Fit, ModelFile, Predict, Records, Result, validate};
use kernels::KernelSpec;
use optim::smo::{self, Problem, StopReason};
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
}

impl Svr {
    /// Default parameters.
    pub fn params() -> SvrParams {
        SvrParams::default()
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

impl Fit for SvrParams {
    type Model = Svr;

    fn fit(&self, data: &Dataset) -> Result<Svr> {
        self.settings.check()?;
        if self.c.is_nan() || self.c <= 0.0 {
            return Err(core_linalg::Error::invalid_parameter(
                "C",
                self.c,
                "a number > 0",
            ));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(core_linalg::Error::invalid_parameter(
                "epsilon",
                self.epsilon,
                "a finite number ≥ 0",
            ));
        }
        validate::check_dataset(data)?;
        let y = data.targets.values()?;
        validate::check_finite_slice(&y)?;
        let kernel = self.settings.kernel.resolve(&data.records)?;
        Expansion::check_kernel(&kernel, data)?;
        let l = data.n_samples();
        let weight = |i: usize| data.sample_weights.as_ref().map_or(1.0, |w| w[i]);
        // Variables α (positions 0..l, y = +1) and α* (l..2l, y = −1), LIBSVM's layout.
        let problem = Problem {
            p: (0..2 * l)
                .map(|p| {
                    if p < l {
                        self.epsilon - y[p]
                    } else {
                        self.epsilon + y[p - l]
                    }
                })
                .collect(),
            y: (0..2 * l).map(|p| if p < l { 1 } else { -1 }).collect(),
            c: (0..2 * l)
                .map(|p| self.c * weight(p % l))
                .map(|c| if c > 0.0 { c } else { f64::MIN_POSITIVE })
                .collect(),
            alpha: vec![0.0; 2 * l],
        };
        let mut q = SvrQ::new(&kernel, &data.records, self.settings.cache_bytes());
        let sol = smo::solve(&mut q, problem, &self.settings.solver())?;
        let coef: Vec<f64> = (0..l).map(|i| sol.alpha[i] - sol.alpha[i + l]).collect();
        Ok(Svr {
            expansion: Expansion::new(kernel, data, &coef, &sol),
        })
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
}
