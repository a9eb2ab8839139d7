//! A single kernel expansion `f(x) = Σ_s c_s K(sv_s, x) − ρ`: what ε-SVR and the one-class SVM
//! fit.

use core_linalg::{Dataset, Matrix, Records, Result, validate};
use kernels::{Kernel, KernelSpec};
use optim::StopReason;
use optim::smo::Solution;
use serde::{Deserialize, Serialize};

use crate::decision::{Width, kernel_rows, linear_weights};

/// The support vectors, their coefficients and the solver's report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Expansion {
    pub(crate) kernel: KernelSpec,
    pub(crate) n_features: usize,
    pub(crate) support: Matrix,
    pub(crate) support_indices: Vec<usize>,
    pub(crate) coef: Vec<f64>,
    pub(crate) rho: f64,
    pub(crate) objective: f64,
    pub(crate) iterations: usize,
    pub(crate) stop: StopReason,
    /// For the linear kernel, `w = Σ c_s sv_s`.
    pub(crate) weights: Option<Vec<f64>>,
}

impl Expansion {
    /// Keeps the samples whose coefficient is non-zero.
    pub(crate) fn new(
        kernel: KernelSpec,
        data: &Dataset,
        coef_all: &[f64],
        sol: &Solution,
    ) -> Result<Self> {
        let support_indices: Vec<usize> = (0..coef_all.len())
            .filter(|&i| coef_all[i] != 0.0)
            .collect();
        let support = data.records.select_rows(&support_indices)?;
        let coef: Vec<f64> = support_indices.iter().map(|&i| coef_all[i]).collect();
        Self {
            kernel,
            n_features: data.n_features(),
            support,
            support_indices,
            coef,
            rho: sol.rho,
            objective: sol.objective,
            iterations: sol.iterations,
            stop: sol.stop,
            weights: None,
        }
        .with_linear_weights()
    }

    /// Collapses a linear kernel's expansion into `w = Σ c_s sv_s`, where that is not wider
    /// than the support vectors (see [`linear_weights`]).
    pub(crate) fn with_linear_weights(mut self) -> Result<Self> {
        self.weights = linear_weights(
            &self.kernel,
            &self.support,
            self.n_features,
            std::iter::once(self.coef.iter().copied().enumerate()),
            Width::Bounded,
        )?
        .and_then(|ws| ws.into_iter().next());
        Ok(self)
    }

    /// The same expansion over `n_features` columns (wider only).
    pub(crate) fn with_n_features(mut self, n_features: usize) -> Result<Self> {
        self.support = self.support.with_n_features(n_features)?;
        self.n_features = n_features;
        self.with_linear_weights()
    }

    /// `f(x)` for every row.
    pub(crate) fn decision<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        validate::check_predict(self.n_features, records)?;
        if let Some(w) = &self.weights {
            return Ok((0..records.n_samples())
                .map(|i| records.row_dot(i, w) - self.rho)
                .collect());
        }
        let mut out = vec![0.0; records.n_samples()];
        kernel_rows(&self.kernel, records, &self.support, |i, k| {
            out[i] = self.coef.iter().zip(k).map(|(c, v)| c * v).sum::<f64>() - self.rho;
        })?;
        Ok(out)
    }

    pub(crate) fn check_kernel(kernel: &KernelSpec, data: &Dataset) -> Result<()> {
        kernel.check(&&data.records)
    }
}
