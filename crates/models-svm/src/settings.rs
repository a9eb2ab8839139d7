//! Settings every SVM shares: the kernel, the solver and its knobs.

use margin_core::params::Params;
use margin_core::{Dataset, Result, validate};
use margin_kernels::{KernelChoice, KernelParams, KernelSpec};
use margin_optim::batched::BatchedOptions;
use margin_optim::smo::SolverOptions;
use serde::{Deserialize, Serialize};

/// The solver of a kernel SVM's dual (the `solver` parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SvmSolver {
    /// LIBSVM's SMO, step for step: the same iterations, support vectors and model file as
    /// LIBSVM 3.37 (the default). Kernel columns are computed one or two at a time and cached
    /// (`cache_size`); `shrinking` applies.
    #[default]
    Smo,
    /// margin's working-set solver (ThunderSVM's scheme, `margin_optim::batched`): 256
    /// variables a round, their kernel rows computed as matrix products. It stops on the same
    /// rule and tolerance as SMO, so it reaches the same optimum to within `tol`, not the same
    /// bits; on tens of thousands of samples it takes a fraction of SMO's time. Every SVM
    /// formulation; `cache_size` and `shrinking` do not apply.
    Batched,
}

margin_core::param_choice!(SvmSolver {
    Smo => "smo",
    Batched => "batched",
});

/// The kernel and the solver settings of an SVM (scikit-learn's names and defaults): a block
/// every SVM's params flatten, so they share its parameters and builder methods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block, order(kernel, shrinking, tol, cache_size_mb, max_iter, solver))]
pub(crate) struct Settings {
    #[param(flatten)]
    pub(crate) kernel: margin_kernels::KernelParams,
    /// The solver of the dual (default [`SvmSolver::Smo`](crate::SvmSolver), LIBSVM's).
    #[param(
        help = "the dual's solver: smo (LIBSVM's, step for step) or batched (margin's working-set solver: the same optimum to within tol, faster on large data)"
    )]
    pub(crate) solver: crate::SvmSolver,
    /// Stopping tolerance on the maximal KKT violation (default 1e-3).
    #[param(
        help = "stopping tolerance on the maximal KKT violation",
        default = 1e-3,
        valid = ("a finite number > 0", |t| t.is_finite() && *t > 0.0)
    )]
    pub(crate) tol: f64,
    /// LIBSVM's shrinking heuristic (default true).
    #[param(
        help = "LIBSVM's shrinking heuristic",
        default = true,
        applies = ("with solver smo", |s| s.solver == crate::SvmSolver::Smo)
    )]
    pub(crate) shrinking: bool,
    /// Kernel cache size in MB (default 200, as scikit-learn).
    #[param(
        name = "cache_size",
        help = "kernel cache size in MB",
        default = 200.0,
        valid = ("a finite number > 0", |m| m.is_finite() && *m > 0.0),
        applies = ("with solver smo", |s| s.solver == crate::SvmSolver::Smo)
    )]
    pub(crate) cache_size_mb: f64,
    /// Iteration limit per binary problem (default LIBSVM's `max(10⁷, 100·l)`); reaching it is
    /// reported in the model, not hidden.
    #[param(
        help = "iteration limit per binary problem (none: LIBSVM's max(10^7, 100·n))",
        valid = ("at least 1", |m| *m != Some(0)),
        setter(strip_option)
    )]
    pub(crate) max_iter: Option<usize>,
}

impl Settings {
    /// The SMO solver's settings.
    pub(crate) fn solver(&self) -> SolverOptions {
        SolverOptions {
            tol: self.tol,
            shrinking: self.shrinking,
            max_iter: self.max_iter,
        }
    }

    /// The working-set solver's settings (its default working set).
    pub(crate) fn batched(&self) -> BatchedOptions {
        BatchedOptions {
            tol: self.tol,
            max_iter: self.max_iter,
            ..BatchedOptions::default()
        }
    }

    pub(crate) fn cache_bytes(&self) -> usize {
        (self.cache_size_mb * 1024.0 * 1024.0) as usize
    }

    /// These settings with `kernel` given whole (a kernel already resolved on the training
    /// data, for the cross-validation folds of the probability models).
    pub(crate) fn with_resolved(&self, kernel: &KernelSpec) -> Settings {
        Settings {
            kernel: KernelParams::chosen(
                KernelChoice::Spec(kernel.clone()),
                &KernelParams::default(),
            ),
            ..self.clone()
        }
    }
}

/// ν's range in every ν formulation, (0, 1].
/// Checks the training data of a kernel SVM: [`validate::check_dataset`], and values whose
/// squares, summed, stay within `f64` (kernels read squared norms and dot products; beyond,
/// the solver's answers would be NaN and its model file refused on load).
pub(crate) fn check_training(data: &Dataset) -> Result<()> {
    validate::check_dataset(data)?;
    if let Some(values) = validate::stored_values(&data.records) {
        validate::check_sum_of_squares("the records' values", values.iter().copied(), None)?;
    }
    Ok(())
}

pub(crate) fn nu_in_range(nu: &f64) -> bool {
    *nu > 0.0 && *nu <= 1.0
}

/// Declares the hyperparameters a fitted SVM keeps when two params types fit it (C- and
/// ν-SVC, ε- and ν-SVR): an enum of the two with `describe` and `check` of the one held, and
/// `from_libsvm`, what a LIBSVM model file's header implies (the formulation, the kernel and
/// `probability`; the rest at the defaults).
macro_rules! kept_params {
    ($(#[$doc:meta])* $name:ident { $first:ident($p1:ident), $nu:ident($p2:ident) $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            #[doc = concat!("Fitted with [`", stringify!($p1), "`].")]
            $first($p1),
            #[doc = concat!("Fitted with [`", stringify!($p2), "`].")]
            $nu($p2),
        }

        impl $name {
            /// The parameters described, with their values
            /// ([`Params::describe`](margin_core::params::Params::describe) of those held).
            pub fn describe(&self) -> Vec<margin_core::params::ParamInfo> {
                use margin_core::params::Params;
                match self {
                    Self::$first(p) => p.describe(),
                    Self::$nu(p) => p.describe(),
                }
            }

            /// [`Params::check`](margin_core::params::Params::check) of the parameters held.
            pub fn check(&self) -> margin_core::Result<()> {
                use margin_core::params::Params;
                match self {
                    Self::$first(p) => p.check(),
                    Self::$nu(p) => p.check(),
                }
            }

            /// What a LIBSVM model file's header implies: the ν formulation or not, the
            /// kernel, and whether the file has a probability model.
            pub(crate) fn from_libsvm(
                kernel: &margin_kernels::KernelSpec,
                nu: bool,
                probability: bool,
            ) -> Self {
                let settings = $crate::settings::Settings::default().with_resolved(kernel);
                if nu {
                    Self::$nu($p2 {
                        settings,
                        ..$p2::default().probability(probability)
                    })
                } else {
                    Self::$first($p1 {
                        settings,
                        ..$p1::default().probability(probability)
                    })
                }
            }
        }
    };
}
pub(crate) use kept_params;
