//! The kernel an SVM is configured with, before γ is resolved against the training data.

use margin_core::{Error, Records, Result};
use margin_kernels::{Gamma, KernelSpec, Linear, Polynomial, Precomputed, Rbf, Sigmoid};
use serde::{Deserialize, Serialize};

/// Which kernel an SVM's params name (scikit-learn's `kernel`); its γ, degree and coef0 are
/// parameters of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelKind {
    /// `x·z`.
    Linear,
    /// `(γ x·z + coef0)^degree`.
    Poly,
    /// `exp(−γ‖x − z‖²)` (the default).
    #[default]
    Rbf,
    /// `tanh(γ x·z + coef0)`.
    Sigmoid,
    /// A Gram matrix given as the records ([`SvmKernel::Precomputed`]).
    Precomputed,
    /// A kernel given whole to the params' `kernel` builder ([`SvmKernel::Spec`]) that none of
    /// the named forms describes: a sum, a product, a Laplacian, LIBSVM's polynomial with a
    /// degree 0 or a negative `coef0`. Text can keep it but not make it.
    Custom,
}

margin_core::param_choice!(KernelKind {
    Linear => "linear",
    Poly => "poly" | "polynomial",
    Rbf => "rbf",
    Sigmoid => "sigmoid",
    Precomputed => "precomputed",
    Custom => "custom",
});

/// An [`SvmKernel`] as scikit-learn's four flat parameters (`kernel`, `gamma`, `degree`,
/// `coef0`), with the kernel given whole when those cannot describe it: how SVM params store
/// their kernel, so that setting the parameters by name does not depend on their order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FlatKernel {
    pub(crate) kernel: KernelKind,
    pub(crate) gamma: Gamma,
    pub(crate) degree: u32,
    pub(crate) coef0: f64,
    /// The kernel of [`KernelKind::Custom`] (`None` for every other kind).
    pub(crate) custom: Option<KernelSpec>,
}

impl Default for FlatKernel {
    fn default() -> Self {
        SvmKernel::default().into()
    }
}

impl From<SvmKernel> for FlatKernel {
    /// The parameters a kernel sets; those it does not use take their defaults, so two
    /// params given the same kernel are equal whatever kernel they had before.
    fn from(k: SvmKernel) -> Self {
        let flat = |kernel, gamma, degree, coef0| FlatKernel {
            kernel,
            gamma,
            degree,
            coef0,
            custom: None,
        };
        let (scale, three, zero) = (Gamma::Scale, 3, 0.0);
        match k {
            SvmKernel::Linear => flat(KernelKind::Linear, scale, three, zero),
            SvmKernel::Polynomial {
                degree,
                gamma,
                coef0,
            } => flat(KernelKind::Poly, gamma, degree, coef0),
            SvmKernel::Rbf { gamma } => flat(KernelKind::Rbf, gamma, three, zero),
            SvmKernel::Sigmoid { gamma, coef0 } => flat(KernelKind::Sigmoid, gamma, three, coef0),
            SvmKernel::Precomputed => flat(KernelKind::Precomputed, scale, three, zero),
            SvmKernel::Spec(spec) => {
                let named = match &spec {
                    KernelSpec::Linear(_) => Some(SvmKernel::Linear),
                    KernelSpec::Precomputed(_) => Some(SvmKernel::Precomputed),
                    KernelSpec::Rbf(k) => Some(SvmKernel::Rbf {
                        gamma: Gamma::Value(k.gamma()),
                    }),
                    KernelSpec::Sigmoid(k) => Some(SvmKernel::Sigmoid {
                        gamma: Gamma::Value(k.gamma()),
                        coef0: k.coef0(),
                    }),
                    KernelSpec::Polynomial(k) => Some(SvmKernel::Polynomial {
                        degree: k.degree(),
                        gamma: Gamma::Value(k.gamma()),
                        coef0: k.coef0(),
                    }),
                    _ => None,
                };
                // A named form stands for the kernel only if it builds exactly this kernel
                // (LIBSVM's polynomial may hold values the named form refuses).
                match named {
                    Some(named) if named.build_fixed().as_ref() == Some(&spec) => named.into(),
                    _ => FlatKernel {
                        custom: Some(spec),
                        ..flat(KernelKind::Custom, scale, three, zero)
                    },
                }
            }
        }
    }
}

impl FlatKernel {
    /// The kernel the parameters describe (`None` for [`KernelKind::Custom`] without a kernel,
    /// which `check` refuses).
    pub(crate) fn kernel(&self) -> Option<SvmKernel> {
        let gamma = self.gamma;
        Some(match self.kernel {
            KernelKind::Linear => SvmKernel::Linear,
            KernelKind::Poly => SvmKernel::Polynomial {
                degree: self.degree,
                gamma,
                coef0: self.coef0,
            },
            KernelKind::Rbf => SvmKernel::Rbf { gamma },
            KernelKind::Sigmoid => SvmKernel::Sigmoid {
                gamma,
                coef0: self.coef0,
            },
            KernelKind::Precomputed => SvmKernel::Precomputed,
            KernelKind::Custom => SvmKernel::Spec(self.custom.clone()?),
        })
    }

    /// Sets `kernel` from text: a named kind drops a custom kernel, `custom` keeps it.
    pub(crate) fn set_kind(&mut self, kind: KernelKind) {
        self.kernel = kind;
        if kind != KernelKind::Custom {
            self.custom = None;
        }
    }

    /// The rules between the four parameters: a custom kernel must have been given whole,
    /// and a polynomial kernel needs `coef0 ≥ 0` (the phrase of [`Polynomial::new`]).
    pub(crate) fn check_together(&self) -> Result<()> {
        match self.kernel {
            KernelKind::Custom if self.custom.is_none() => Err(Error::invalid_parameter(
                "kernel",
                "custom",
                "linear, poly, rbf, sigmoid or precomputed (a custom kernel is given to the `kernel` builder as a KernelSpec)",
            )),
            KernelKind::Poly if self.coef0 < 0.0 => Err(Error::invalid_parameter(
                "coef0",
                self.coef0,
                "a finite number ≥ 0 (a negative coef0 breaks positive semi-definiteness)",
            )),
            _ => Ok(()),
        }
    }

    /// The concrete kernel for these training records.
    pub(crate) fn resolve<R: Records + ?Sized>(&self, records: &R) -> Result<KernelSpec> {
        self.kernel()
            .ok_or_else(|| {
                Error::invalid_parameter("kernel", "custom", "a kernel given to the builder")
            })?
            .resolve(records)
    }
}

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
    /// The kernel, when it needs no training data (γ given as a value, or no γ).
    fn build_fixed(&self) -> Option<KernelSpec> {
        let fixed = |g: &Gamma| matches!(g, Gamma::Value(_));
        match self {
            SvmKernel::Polynomial { gamma, .. }
            | SvmKernel::Rbf { gamma }
            | SvmKernel::Sigmoid { gamma, .. }
                if !fixed(gamma) =>
            {
                None
            }
            _ => self.resolve(&margin_core::DenseMatrix::zeros(0, 0)).ok(),
        }
    }

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
