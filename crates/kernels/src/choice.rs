//! The kernel a model's params name, before γ is resolved against the training data: the
//! SVMs', kernel ridge's and the kernel perceptron's `kernel`, `gamma`, `degree` and `coef0`.

use margin_core::params::{ParamType, alternatives};
use margin_core::{Error, Records, Result};
use serde::{Deserialize, Serialize};

use crate::spec::KernelSpec;
use crate::standard::{Gamma, Linear, Polynomial, Precomputed, Rbf, Sigmoid};

/// Which kernel a model's params name (scikit-learn's `kernel`); its γ, degree and coef0 are
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
    /// A Gram matrix given as the records ([`KernelChoice::Precomputed`]).
    Precomputed,
    /// A kernel given whole to the params' `kernel` builder ([`KernelChoice::Spec`]) that none
    /// of the named forms describes: a sum, a product, a Laplacian, LIBSVM's polynomial with a
    /// degree 0 or a negative `coef0`. Reported only: help texts do not offer it, and text
    /// can keep such a kernel but not make it.
    Custom,
}

margin_core::param_choice!(KernelKind {
    Linear => "linear",
    Poly => "poly" | "polynomial",
    Rbf => "rbf",
    Sigmoid => "sigmoid",
    Precomputed => "precomputed";
    // Only names a kernel given whole to a `kernel` builder: setting it by text keeps such a
    // kernel (so a params value reads back from its own text), and the params' check refuses
    // it when there is none.
    unlisted: Custom => "custom"
});

/// A [`KernelChoice`] as scikit-learn's four flat parameters (`kernel`, `gamma`, `degree`,
/// `coef0`), with the kernel given whole when those cannot describe it: how params store their
/// kernel, so that setting the parameters by name does not depend on their order. A settings
/// block: a model's params hold it as a `#[param(flatten)]` field, with the model's own
/// defaults as the field's `default` (an SVM's RBF with γ = scale, kernel ridge's linear kernel
/// with coef0 = 1, the kernel perceptron's `(x·z + 1)²`), and gain its four parameters and the
/// builder methods `kernel`, `gamma`, `degree` and `coef0`. Alone, it holds scikit-learn's SVM
/// defaults: RBF with γ = scale, degree 3, coef0 0.
///
/// ```
/// use margin_core::params::Params;
/// use margin_kernels::{Gamma, KernelChoice, KernelKind, KernelParams};
///
/// #[derive(Clone, Debug, PartialEq, Params)]
/// struct Smoother {
///     /// Regularization strength.
///     #[param(help = "regularization strength", default = 1.0)]
///     alpha: f64,
///     #[param(flatten, default = KernelParams::named(KernelKind::Linear, Gamma::Auto, 3, 1.0))]
///     kernel: KernelParams,
/// }
///
/// let names: Vec<_> = Smoother::params().iter().map(|p| p.name).collect();
/// assert_eq!(names, ["alpha", "kernel", "degree", "gamma", "coef0"]);
/// let mut p = Smoother::default().gamma(0.5);
/// assert_eq!(p.kernel.gamma, Gamma::Value(0.5));
/// p.set("kernel", "poly")?;
/// // A custom kernel is given whole to the `kernel` builder; text alone cannot make one.
/// p.set("kernel", "custom")?;
/// assert!(p.check().is_err());
/// // `kernel(…)` leaves what the kernel does not use at the model's defaults (coef0 1 here).
/// let rbf = Smoother::default().kernel(KernelChoice::Rbf { gamma: Gamma::Scale });
/// assert_eq!(rbf.kernel, KernelParams::named(KernelKind::Rbf, Gamma::Scale, 3, 1.0));
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, margin_core::params::Params)]
#[params(block, order(kernel, degree, gamma, coef0), check = |k| k.check_named())]
pub struct KernelParams {
    /// The kernel: a named choice (`KernelChoice`: γ may be `scale` or `auto`, resolved on the
    /// training records) or any kernel of margin-kernels given whole (`KernelSpec`: sums,
    /// products, a Laplacian…). It sets the parameters `kernel`, `gamma`, `degree` and `coef0`,
    /// those the kernel does not use to the model's defaults.
    #[param(
        help = "kernel; precomputed: the records are the Gram matrix K(train, train) when fitting and K(test, train) when predicting",
        default = crate::KernelKind::Rbf,
        set = |k, v| k.set_kind(v),
        setter(
            via = |k, choice, defaults| *k = crate::KernelParams::chosen(choice, defaults),
            arg = crate::KernelChoice
        )
    )]
    pub kernel: crate::KernelKind,
    /// γ of the RBF, polynomial and sigmoid kernels: a number, `Gamma::Scale`
    /// (`1 / (d · Var X)`, scikit-learn's default) or `Gamma::Auto` (`1 / d`, LIBSVM's). A
    /// kernel given whole to `kernel` keeps its own γ.
    #[param(
        help = "kernel γ; scale: 1 / (d · Var X), auto: 1 / d",
        default = crate::Gamma::Scale,
        valid = ("a finite number > 0, \"scale\" or \"auto\"", |g| match g {
            crate::Gamma::Value(g) => g.is_finite() && *g > 0.0,
            _ => true,
        }),
        applies = ("with kernel rbf, poly or sigmoid", |k| matches!(
            k.kernel,
            crate::KernelKind::Rbf | crate::KernelKind::Poly | crate::KernelKind::Sigmoid
        )),
        setter(into)
    )]
    pub gamma: crate::Gamma,
    /// Degree of the polynomial kernel (≥ 1).
    #[param(
        help = "degree of the polynomial kernel",
        default = 3,
        valid = ("an integer ≥ 1", |d| *d >= 1),
        applies = ("with kernel poly", |k| k.kernel == crate::KernelKind::Poly)
    )]
    pub degree: u32,
    /// Constant term of the polynomial (≥ 0) and sigmoid kernels.
    #[param(
        help = "constant term of the polynomial and sigmoid kernels",
        default = 0.0,
        valid = ("a finite number", |c| c.is_finite()),
        applies = ("with kernel poly or sigmoid", |k| matches!(
            k.kernel,
            crate::KernelKind::Poly | crate::KernelKind::Sigmoid
        ))
    )]
    pub coef0: f64,
    /// The kernel of [`KernelKind::Custom`] (`None` for every other kind).
    #[param(skip)]
    custom: Option<KernelSpec>,
}

impl KernelParams {
    /// A named kernel with its parameters (a model's defaults).
    pub const fn named(kernel: KernelKind, gamma: Gamma, degree: u32, coef0: f64) -> Self {
        Self {
            kernel,
            gamma,
            degree,
            coef0,
            custom: None,
        }
    }

    /// The parameters `choice` sets; those it does not use take the values of `defaults`,
    /// so two params given the same kernel are equal whatever kernel they had before.
    pub fn chosen(choice: KernelChoice, defaults: &KernelParams) -> Self {
        let (gamma, degree, coef0) = (defaults.gamma, defaults.degree, defaults.coef0);
        match choice {
            KernelChoice::Linear => Self::named(KernelKind::Linear, gamma, degree, coef0),
            KernelChoice::Polynomial {
                degree,
                gamma,
                coef0,
            } => Self::named(KernelKind::Poly, gamma, degree, coef0),
            KernelChoice::Rbf { gamma } => Self::named(KernelKind::Rbf, gamma, degree, coef0),
            KernelChoice::Sigmoid { gamma, coef0 } => {
                Self::named(KernelKind::Sigmoid, gamma, degree, coef0)
            }
            KernelChoice::Precomputed => Self::named(KernelKind::Precomputed, gamma, degree, coef0),
            KernelChoice::Spec(spec) => {
                let named = match &spec {
                    KernelSpec::Linear(_) => Some(KernelChoice::Linear),
                    KernelSpec::Precomputed(_) => Some(KernelChoice::Precomputed),
                    KernelSpec::Rbf(k) => Some(KernelChoice::Rbf {
                        gamma: Gamma::Value(k.gamma()),
                    }),
                    KernelSpec::Sigmoid(k) => Some(KernelChoice::Sigmoid {
                        gamma: Gamma::Value(k.gamma()),
                        coef0: k.coef0(),
                    }),
                    KernelSpec::Polynomial(k) => Some(KernelChoice::Polynomial {
                        degree: k.degree(),
                        gamma: Gamma::Value(k.gamma()),
                        coef0: k.coef0(),
                    }),
                    _ => None,
                };
                // A named form stands for the kernel only if it builds exactly this kernel
                // (LIBSVM's polynomial may hold values the named form refuses).
                match named {
                    Some(named) if named.build_fixed().as_ref() == Some(&spec) => {
                        Self::chosen(named, defaults)
                    }
                    _ => KernelParams {
                        custom: Some(spec),
                        ..Self::named(KernelKind::Custom, gamma, degree, coef0)
                    },
                }
            }
        }
    }

    /// The kernel the parameters describe (`None` for [`KernelKind::Custom`] without a kernel,
    /// which [`Params::check`](margin_core::params::Params::check) refuses).
    pub fn choice(&self) -> Option<KernelChoice> {
        let gamma = self.gamma;
        Some(match self.kernel {
            KernelKind::Linear => KernelChoice::Linear,
            KernelKind::Poly => KernelChoice::Polynomial {
                degree: self.degree,
                gamma,
                coef0: self.coef0,
            },
            KernelKind::Rbf => KernelChoice::Rbf { gamma },
            KernelKind::Sigmoid => KernelChoice::Sigmoid {
                gamma,
                coef0: self.coef0,
            },
            KernelKind::Precomputed => KernelChoice::Precomputed,
            KernelKind::Custom => KernelChoice::Spec(self.custom.clone()?),
        })
    }

    /// Sets `kernel` from text: a named kind drops a custom kernel, `custom` keeps it.
    pub fn set_kind(&mut self, kind: KernelKind) {
        self.kernel = kind;
        if kind != KernelKind::Custom {
            self.custom = None;
        }
    }

    /// The rules between the four parameters: a custom kernel must have been given whole,
    /// and a polynomial kernel needs `coef0 ≥ 0` (the phrase of [`Polynomial::with_coef0`]).
    fn check_named(&self) -> Result<()> {
        match self.kernel {
            KernelKind::Custom if self.custom.is_none() => Err(Error::invalid_parameter(
                "kernel",
                "custom",
                format!(
                    "{} (a custom kernel is given whole to the params' `kernel` builder)",
                    alternatives(&KernelKind::kind())
                ),
            )),
            KernelKind::Poly if self.coef0 < 0.0 => Err(Error::invalid_parameter(
                "coef0",
                self.coef0,
                crate::standard::POLYNOMIAL_COEF0_RANGE,
            )),
            _ => Ok(()),
        }
    }

    /// The concrete kernel for these training records.
    pub fn resolve<R: Records + ?Sized>(&self, records: &R) -> Result<KernelSpec> {
        self.choice()
            .ok_or_else(|| {
                Error::invalid_parameter("kernel", "custom", "a kernel given to the builder")
            })?
            .resolve(records)
    }
}

/// A model's kernel, with scikit-learn's parameters (`gamma = "scale"` or `"auto"` is resolved
/// at fit time, on the training records): what the `kernel` builders of the SVMs, kernel ridge
/// and the kernel perceptron take, besides any [`KernelSpec`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KernelChoice {
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
    /// [`Precomputed`]).
    Precomputed,
    /// Any kernel of this crate, fully specified (including sums, products, multiples).
    Spec(KernelSpec),
}

impl Default for KernelChoice {
    fn default() -> Self {
        KernelChoice::Rbf {
            gamma: Gamma::Scale,
        }
    }
}

impl KernelChoice {
    /// The kernel, when it needs no training data (γ given as a value, or no γ).
    fn build_fixed(&self) -> Option<KernelSpec> {
        let fixed = |g: &Gamma| matches!(g, Gamma::Value(_));
        match self {
            KernelChoice::Polynomial { gamma, .. }
            | KernelChoice::Rbf { gamma }
            | KernelChoice::Sigmoid { gamma, .. }
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
            KernelChoice::Linear => Linear.into(),
            KernelChoice::Polynomial {
                degree,
                gamma,
                coef0,
            } => Polynomial::checked(gamma.resolve(records)?, *coef0, *degree)?.into(),
            KernelChoice::Rbf { gamma } => Rbf::with_gamma(gamma.resolve(records)?)?.into(),
            KernelChoice::Sigmoid { gamma, coef0 } => Sigmoid::with_gamma(gamma.resolve(records)?)?
                .with_coef0(*coef0)?
                .into(),
            KernelChoice::Precomputed => Precomputed.into(),
            KernelChoice::Spec(k) => k.clone(),
        })
    }
}

impl<K: Into<KernelSpec>> From<K> for KernelChoice {
    fn from(k: K) -> Self {
        KernelChoice::Spec(k.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;

    const RIDGE: KernelParams = KernelParams::named(KernelKind::Linear, Gamma::Auto, 3, 1.0);

    #[test]
    fn a_choice_leaves_the_parameters_it_does_not_use_at_the_models_defaults() {
        let rbf = KernelParams::chosen(
            KernelChoice::Rbf {
                gamma: Gamma::Value(0.5),
            },
            &RIDGE,
        );
        assert_eq!(
            rbf,
            KernelParams::named(KernelKind::Rbf, Gamma::Value(0.5), 3, 1.0)
        );
        // A concrete kernel that a named form builds exactly is stored by name.
        let spec: KernelSpec = Polynomial::with_degree(4)
            .unwrap()
            .with_gamma(0.25)
            .unwrap()
            .with_coef0(2.0)
            .unwrap()
            .into();
        let poly = KernelParams::chosen(spec.clone().into(), &RIDGE);
        assert_eq!(
            poly,
            KernelParams::named(KernelKind::Poly, Gamma::Value(0.25), 4, 2.0)
        );
        assert_eq!(poly.resolve(&DenseMatrix::zeros(1, 2)).unwrap(), spec);
        // A Laplacian is not a named form: kept whole, reported as custom.
        let laplacian = crate::Laplacian::with_gamma(1.0).unwrap();
        let custom = KernelParams::chosen(KernelChoice::from(laplacian), &RIDGE);
        assert_eq!(custom.kernel, KernelKind::Custom);
        assert_eq!(
            custom.resolve(&DenseMatrix::zeros(1, 2)).unwrap(),
            KernelSpec::from(laplacian)
        );
        // Naming a kind by text drops the custom kernel.
        let mut named = custom.clone();
        named.set_kind(KernelKind::Rbf);
        assert_eq!(
            named.choice(),
            Some(KernelChoice::Rbf { gamma: Gamma::Auto })
        );
    }

    #[test]
    fn gamma_auto_and_scale_resolve_on_the_training_records() {
        let x = DenseMatrix::from_rows(&[[0.0, 2.0], [2.0, 0.0]]).unwrap();
        let auto = KernelParams::named(KernelKind::Rbf, Gamma::Auto, 3, 0.0);
        assert_eq!(
            auto.resolve(&x).unwrap(),
            KernelSpec::from(Rbf::with_gamma(0.5).unwrap())
        );
        // Var over all four entries is 1, d = 2: γ = 1 / 2 as well; a sigmoid keeps coef0.
        let scale = KernelParams::named(KernelKind::Sigmoid, Gamma::Scale, 3, -1.0);
        assert_eq!(
            scale.resolve(&x).unwrap(),
            KernelSpec::from(Sigmoid::with_gamma(0.5).unwrap().with_coef0(-1.0).unwrap())
        );
    }

    #[test]
    fn custom_is_read_and_written_but_not_offered() {
        assert_eq!(KernelKind::kind(), "linear|poly|rbf|sigmoid|precomputed");
        assert_eq!(KernelKind::parse("custom"), Ok(KernelKind::Custom));
        assert_eq!(
            KernelKind::Custom.to_value(),
            margin_core::params::Value::Text("custom".into())
        );
    }

    #[test]
    fn rules_between_the_parameters() {
        let negative = KernelParams::named(KernelKind::Poly, Gamma::Scale, 3, -1.0);
        assert!(margin_core::params::Params::check_together(&negative).is_err());
        let mut custom = KernelParams::default();
        custom.set_kind(KernelKind::Custom);
        let refused = margin_core::params::Params::check_together(&custom)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("expected linear, poly, rbf, sigmoid or precomputed (a custom"),
            "{refused}"
        );
        assert!(margin_core::params::Params::check_together(&KernelParams::default()).is_ok());
    }
}
