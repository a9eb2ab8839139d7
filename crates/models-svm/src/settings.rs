//! Settings every SVM shares: the kernel and the SMO solver's knobs.

use margin_core::{Error, Result, validate};
use margin_optim::smo::SolverOptions;
use serde::{Deserialize, Serialize};

use crate::kernel_choice::SvmKernel;

/// The kernel and the solver settings of an SVM (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Settings {
    pub(crate) kernel: SvmKernel,
    pub(crate) tol: f64,
    pub(crate) shrinking: bool,
    pub(crate) cache_size_mb: f64,
    pub(crate) max_iter: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            kernel: SvmKernel::default(),
            tol: 1e-3,
            shrinking: true,
            cache_size_mb: 200.0,
            max_iter: None,
        }
    }
}

impl Settings {
    pub(crate) fn check(&self) -> Result<()> {
        validate::check_positive("tol", self.tol)?;
        validate::check_positive("cache_size", self.cache_size_mb)?;
        if self.max_iter == Some(0) {
            return Err(Error::invalid_parameter("max_iter", 0, "at least 1"));
        }
        Ok(())
    }

    pub(crate) fn solver(&self) -> SolverOptions {
        SolverOptions {
            tol: self.tol,
            shrinking: self.shrinking,
            max_iter: self.max_iter,
        }
    }

    pub(crate) fn cache_bytes(&self) -> usize {
        (self.cache_size_mb * 1024.0 * 1024.0) as usize
    }
}

/// Builder methods for the shared settings, on a params type with a `settings` field.
macro_rules! settings_builders {
    ($t:ty) => {
        impl $t {
            /// The kernel (default RBF with `gamma = "scale"`).
            pub fn kernel(mut self, kernel: impl Into<$crate::SvmKernel>) -> Self {
                self.settings.kernel = kernel.into();
                self
            }
            /// Stopping tolerance on the maximal KKT violation (default 1e-3).
            pub fn tol(mut self, tol: f64) -> Self {
                self.settings.tol = tol;
                self
            }
            /// LIBSVM's shrinking heuristic (default true).
            pub fn shrinking(mut self, yes: bool) -> Self {
                self.settings.shrinking = yes;
                self
            }
            /// Kernel cache size in MB (default 200, as scikit-learn).
            pub fn cache_size_mb(mut self, mb: f64) -> Self {
                self.settings.cache_size_mb = mb;
                self
            }
            /// Iteration limit per binary problem (default LIBSVM's `max(10⁷, 100·l)`);
            /// reaching it is reported in the model, not hidden.
            pub fn max_iter(mut self, n: usize) -> Self {
                self.settings.max_iter = Some(n);
                self
            }
        }
    };
}
pub(crate) use settings_builders;
