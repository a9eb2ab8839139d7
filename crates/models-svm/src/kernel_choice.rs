//! The kernel an SVM is configured with, before γ is resolved against the training data.

use margin_core::{Records, Result};
use margin_kernels::{Gamma, KernelSpec, Linear, Polynomial, Precomputed, Rbf, Sigmoid};
use serde::{Deserialize, Serialize};

/// An SVM's kernel, with scikit-learn's parameters (`gamma = "scale"` is resolved at fit time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SvmKernel {
    /// `x·z`.
    Linear,
    /// `(γ x·z + coef0)^degree`.
    Polynomial {
        /// Power (scikit-learn default 3).
        degree: u32,
        /// γ.
        gamma: Gamma,
        /// Constant term (default 0).
        coef0: f64,
    },
    /// `exp(−γ‖x − z‖²)` (the default, with `gamma = "scale"`).
    Rbf {
        /// γ.
        gamma: Gamma,
    },
    /// `tanh(γ x·z + coef0)`.
    Sigmoid {
        /// γ.
        gamma: Gamma,
        /// Constant term (default 0).
        coef0: f64,
    },
    /// A Gram matrix given as the records, in LIBSVM's precomputed format (see
    /// [`margin_kernels::Precomputed`]).
    Precomputed,
    /// Any kernel from the kernels crate, fully specified (including sums, products, multiples).
    Spec(KernelSpec),
}

impl Default for SvmKernel {
    fn default() -> Self {
        SvmKernel::Rbf {
            gamma: Gamma::Scale,
        }
    }
}

impl SvmKernel {
    /// The concrete kernel for these training records.
    pub fn resolve<R: Records + ?Sized>(&self, records: &R) -> Result<KernelSpec> {
        Ok(match self {
            SvmKernel::Linear => Linear.into(),
            SvmKernel::Polynomial {
                degree,
                gamma,
                coef0,
            } => Polynomial::new(gamma.resolve(records)?, *coef0, *degree)?.into(),
            SvmKernel::Rbf { gamma } => Rbf::with_gamma(gamma.resolve(records)?)?.into(),
            SvmKernel::Sigmoid { gamma, coef0 } => {
                Sigmoid::new(gamma.resolve(records)?, *coef0)?.into()
            }
            SvmKernel::Precomputed => Precomputed.into(),
            SvmKernel::Spec(k) => k.clone(),
        })
    }
}

impl<K: Into<KernelSpec>> From<K> for SvmKernel {
    fn from(k: K) -> Self {
        SvmKernel::Spec(k.into())
    }
}
