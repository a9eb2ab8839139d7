//! Settings every SVM shares: the kernel, the solver and its knobs.

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

/// The kernel and the solver settings of an SVM (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Settings {
    pub(crate) kernel: KernelParams,
    pub(crate) solver: SvmSolver,
    pub(crate) tol: f64,
    pub(crate) shrinking: bool,
    pub(crate) cache_size_mb: f64,
    pub(crate) max_iter: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            kernel: KernelParams::default(),
            solver: SvmSolver::Smo,
            tol: 1e-3,
            shrinking: true,
            cache_size_mb: 200.0,
            max_iter: None,
        }
    }
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

/// Builder methods for the shared settings, on a params type with a `settings` field.
macro_rules! settings_builders {
    ($t:ty) => {
        impl $t {
            /// The kernel (default RBF with `gamma = "scale"`). It sets the parameters
            /// `kernel`, `gamma`, `degree` and `coef0` (those the kernel does not use to their
            /// defaults).
            pub fn kernel(mut self, kernel: impl Into<margin_kernels::KernelChoice>) -> Self {
                self.settings.kernel = margin_kernels::KernelParams::chosen(
                    kernel.into(),
                    &margin_kernels::KernelParams::default(),
                );
                self
            }
            /// γ of the named kernel (RBF, polynomial, sigmoid), as the parameter `gamma`:
            /// `Svc::params().gamma(0.5)` is the RBF with γ = 0.5, and `.gamma(Gamma::Auto)`
            /// LIBSVM's `1/d`. A kernel given whole to [`kernel`](Self::kernel) keeps its
            /// own γ.
            pub fn gamma(mut self, gamma: impl Into<margin_kernels::Gamma>) -> Self {
                self.settings.kernel.gamma = gamma.into();
                self
            }
            /// The solver of the dual (default [`SvmSolver::Smo`](crate::SvmSolver), LIBSVM's).
            pub fn solver(mut self, solver: crate::SvmSolver) -> Self {
                self.settings.solver = solver;
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

/// Implements [`margin_core::params::Params`] for an SVM's params (a type with a `settings`
/// field): the entries of `head`, then the shared kernel and solver parameters in
/// scikit-learn's order, then those of `tail`; `together` adds the type's own rules to the
/// kernel's.
macro_rules! svm_params {
    (
        $t:ty { $($head:tt)* } { $($tail:tt)* }
        together: $together:expr
    ) => {
        margin_kernels::kernel_params! {
            $t [settings.kernel] { $($head)* }
            { kernel: { help: "kernel; precomputed: the records are the Gram matrix K(train, train) when fitting and K(test, train) when predicting" } }
            {
                shrinking: bool {
                    at: settings.shrinking,
                    help: "LIBSVM's shrinking heuristic",
                    applies: ("with solver smo", |p| p.settings.solver == $crate::SvmSolver::Smo),
                },
                tol: f64 {
                    at: settings.tol,
                    help: "stopping tolerance on the maximal KKT violation",
                    valid: ("a finite number > 0", |t| t.is_finite() && *t > 0.0),
                },
                cache_size_mb as "cache_size": f64 {
                    at: settings.cache_size_mb,
                    help: "kernel cache size in MB",
                    valid: ("a finite number > 0", |m| m.is_finite() && *m > 0.0),
                    applies: ("with solver smo", |p| p.settings.solver == $crate::SvmSolver::Smo),
                },
                max_iter: Option<usize> {
                    at: settings.max_iter,
                    help: "iteration limit per binary problem (none: LIBSVM's max(10^7, 100·n))",
                    valid: ("at least 1", |m| *m != Some(0)),
                },
                solver: $crate::SvmSolver {
                    at: settings.solver,
                    help: "the dual's solver: smo (LIBSVM's, step for step) or batched (margin's working-set solver: the same optimum to within tol, faster on large data)",
                },
                $($tail)*
            }
            together: $together
        }
    };
}
pub(crate) use svm_params;

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
                        probability,
                        ..$p2::default()
                    })
                } else {
                    Self::$first($p1 {
                        settings,
                        probability,
                        ..$p1::default()
                    })
                }
            }
        }
    };
}
pub(crate) use kept_params;
