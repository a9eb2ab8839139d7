//! The ν one-class SVM (LIBSVM's `-s 2`, scikit-learn's `OneClassSVM`).

use core_linalg::{
    Dataset, DecisionFunction, DenseMatrix, Fit, Label, ModelFile, Predict, Records, Result,
    validate,
};
use kernels::KernelSpec;
use optim::StopReason;
use optim::smo::{self, Problem};
use serde::{Deserialize, Serialize};

use crate::expansion::Expansion;
use crate::q::SignedQ;
use crate::settings::{Settings, settings_builders};

/// Parameters of [`OneClassSvm`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneClassSvmParams {
    settings: Settings,
    nu: f64,
}

impl Default for OneClassSvmParams {
    fn default() -> Self {
        Self {
            settings: Settings::default(),
            nu: 0.5,
        }
    }
}

settings_builders!(OneClassSvmParams);

impl OneClassSvmParams {
    /// ν in (0, 1]: an upper bound on the fraction of training samples outside the boundary
    /// and a lower bound on the fraction of support vectors (default 0.5).
    pub fn nu(mut self, nu: f64) -> Self {
        self.nu = nu;
        self
    }
}

/// A fitted one-class SVM: `f(x) = Σ_s α_s K(sv_s, x) − ρ`, inlier (`+1`) where `f(x) > 0`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneClassSvm {
    pub(crate) expansion: Expansion,
}

impl OneClassSvm {
    /// Default parameters.
    pub fn params() -> OneClassSvmParams {
        OneClassSvmParams::default()
    }
    /// The resolved kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.expansion.kernel
    }
    /// Training-set indices of the support vectors.
    pub fn support_indices(&self) -> &[usize] {
        &self.expansion.support_indices
    }
    /// Dual coefficients `α_s`.
    pub fn dual_coef(&self) -> &[f64] {
        &self.expansion.coef
    }
    /// The offset ρ.
    pub fn rho(&self) -> f64 {
        self.expansion.rho
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
}

impl Fit for OneClassSvmParams {
    type Model = OneClassSvm;

    /// Targets are ignored: the model describes the records alone.
    fn fit(&self, data: &Dataset) -> Result<OneClassSvm> {
        self.settings.check()?;
        validate::check_in_range("nu", self.nu, 0.0, 1.0, true)?;
        validate::check_dataset(data)?;
        let kernel = self.settings.kernel.resolve(&data.records)?;
        Expansion::check_kernel(&kernel, data)?;
        let l = data.n_samples();
        // LIBSVM's feasible start: the first ⌊νl⌋ variables at 1, the next at the remainder.
        let total = self.nu * l as f64;
        let whole = total as usize;
        let alpha: Vec<f64> = (0..l)
            .map(|i| match i.cmp(&whole) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => total - whole as f64,
                std::cmp::Ordering::Greater => 0.0,
            })
            .collect();
        let problem = Problem {
            p: vec![0.0; l],
            y: vec![1; l],
            c: vec![1.0; l],
            alpha,
        };
        let mut q = SignedQ::new(
            &kernel,
            &data.records,
            (0..l).collect(),
            vec![1; l],
            self.settings.cache_bytes(),
        )?;
        let sol = smo::solve(&mut q, problem, &self.settings.solver())?;
        Ok(OneClassSvm {
            expansion: Expansion::new(kernel, data, &sol.alpha, &sol)?,
        })
    }
}

impl Predict for OneClassSvm {
    type Output = Vec<Label>;

    /// `+1` for inliers (`f(x) > 0`), `−1` for outliers.
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        Ok(self
            .expansion
            .decision(records)?
            .into_iter()
            .map(|f| Label::Number(if f > 0.0 { 1.0 } else { -1.0 }))
            .collect())
    }
}

impl DecisionFunction for OneClassSvm {
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let f = self.expansion.decision(records)?;
        let n = f.len();
        DenseMatrix::from_row_major(f, n, 1)
    }
}

impl ModelFile for OneClassSvm {
    const KIND: &'static str = "one-class-svm";
    const SCHEMA: u32 = 1;
}
