//! A single kernel expansion `f(x) = Σ_s c_s K(sv_s, x) − ρ`: what ε-SVR and the one-class SVM
//! fit.

use margin_core::fit::Run;
use margin_core::{Dataset, DenseMatrix, Matrix, Records, Result, model_check, validate};
use margin_kernels::{Kernel, KernelSpec};
use margin_optim::Stop;
use margin_optim::smo::Solution;
use serde::{Deserialize, Serialize};

use crate::decision::{Width, coef_matrix, kernel_rows, libsvm_kernel, linear_weights};

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
    pub(crate) stop: Stop,
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

    /// The one SMO run behind the expansion.
    pub(crate) fn run(&self) -> Run {
        Run::new(self.iterations, self.stop).with_objective(self.objective)
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

    /// For a linear kernel, `w` as a `1 × d` matrix (see [`coef_matrix`]).
    pub(crate) fn coef(&self) -> Result<DenseMatrix> {
        coef_matrix(
            &self.kernel,
            &self.support,
            self.n_features,
            self.weights.as_ref().map(std::slice::from_ref),
            std::iter::once(self.coef.iter().copied().enumerate()),
            1.0,
        )
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

    /// `f(x)` for every row exactly as LIBSVM's `svm_predict_values` computes it: kernel values
    /// by [`libsvm_kernel`], summed over the support vectors in order, then `− ρ`. Used where
    /// LIBSVM's digits matter: the probability models fitted on decision values, and
    /// `svm-predict`'s printed values. Rows are independent, so the result does not depend on
    /// the number of threads.
    pub(crate) fn libsvm_decision<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        use rayon::prelude::*;
        validate::check_predict(self.n_features, records)?;
        self.kernel.check(&self.support)?;
        Ok((0..records.n_samples())
            .into_par_iter()
            .map(|i| {
                let x = records.row(i);
                let mut sum = 0.0;
                for (s, &c) in self.coef.iter().enumerate() {
                    sum += c * libsvm_kernel(&self.kernel, x, self.support.row(s));
                }
                sum - self.rho
            })
            .collect())
    }

    pub(crate) fn check_kernel(kernel: &KernelSpec, data: &Dataset) -> Result<()> {
        kernel.check(&&data.records)
    }

    /// For `ModelFile::check_consistent`: finite support vectors of the model's width, a valid
    /// kernel, one finite coefficient per support vector, a finite offset, the linear
    /// kernel's weights.
    pub(crate) fn check_consistent(&self) -> Result<()> {
        let n_sv = self.support_indices.len();
        model_check::records("support", &self.support, n_sv, self.n_features)?;
        model_check::within("kernel", self.kernel.check_decoded(&self.support))?;
        model_check::len("coef", self.coef.len(), n_sv)?;
        model_check::finite("coef", &self.coef)?;
        model_check::finite("rho", &[self.rho])?;
        check_linear_weights(
            &self.kernel,
            self.weights.as_ref().map(std::slice::from_ref),
            1,
            self.n_features,
        )
    }
}

/// Stored linear-kernel weights (prediction uses them in place of the kernel whenever they are
/// there): present exactly for the linear kernel, `rows` rows of `n_features` finite weights.
pub(crate) fn check_linear_weights(
    kernel: &KernelSpec,
    weights: Option<&[Vec<f64>]>,
    rows: usize,
    n_features: usize,
) -> Result<()> {
    let linear = *kernel == KernelSpec::Linear(margin_kernels::Linear);
    match weights {
        None if !linear => Ok(()),
        Some(ws) if linear => {
            model_check::len("weights", ws.len(), rows)?;
            for w in ws {
                model_check::len("weights row", w.len(), n_features)?;
                model_check::finite("weights", w)?;
            }
            Ok(())
        }
        _ => Err(model_check::refuse(
            "weights",
            "must be stored for the linear kernel and for no other",
        )),
    }
}
