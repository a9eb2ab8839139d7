//! [`KernelSpec`]: the serializable kernel models store in their files.

use std::cell::Cell;

use margin_core::{Records, Result, RowView};
use serde::{Deserialize, Deserializer, Serialize};

use crate::algebra::{Product, Scaled, Sum};
use crate::kernel::{DotForm, Kernel};
use crate::standard::{
    ChiSquared, Laplacian, Linear, MatrixDot, Polynomial, Precomputed, Rbf, Sigmoid,
};
use crate::user::UserKernel;

/// Any standard kernel or algebraic combination of them, as plain data (serializable, so a
/// model can save the kernel it was trained with), or a kernel of the caller's own type
/// ([`UserKernel`], which a model uses but cannot save). Closure-based kernels
/// ([`Mapped`](crate::Mapped), [`RankOne`](crate::RankOne)) work with every function of this
/// crate; wrapped in a [`UserKernel`] they reach the models too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KernelSpec {
    /// [`Linear`].
    Linear(Linear),
    /// [`Polynomial`].
    Polynomial(Polynomial),
    /// [`Rbf`].
    Rbf(Rbf),
    /// [`Sigmoid`].
    Sigmoid(Sigmoid),
    /// [`Laplacian`].
    Laplacian(Laplacian),
    /// [`ChiSquared`].
    ChiSquared(ChiSquared),
    /// [`MatrixDot`].
    MatrixDot(MatrixDot),
    /// [`Precomputed`].
    Precomputed(Precomputed),
    /// `a · k`.
    Scaled(#[serde(deserialize_with = "nested")] Box<Scaled<KernelSpec>>),
    /// `k1 + k2`.
    Sum(#[serde(deserialize_with = "nested")] Box<Sum<KernelSpec, KernelSpec>>),
    /// `k1 · k2`.
    Product(#[serde(deserialize_with = "nested")] Box<Product<KernelSpec, KernelSpec>>),
    /// A kernel of the caller's own type (never in a file: see [`UserKernel`]).
    User(UserKernel),
}

/// The deepest nesting of scaled, summed and multiplied kernels a model file may hold.
///
/// Decoding recurses once per level, so a forged file of nested sums (one byte per level) would
/// otherwise overflow the stack and abort the process.
pub const MAX_KERNEL_DEPTH: usize = 128;

thread_local! {
    /// Levels of combined kernels being decoded on this thread.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Decodes one level of a combined kernel, refusing more than [`MAX_KERNEL_DEPTH`] levels.
fn nested<'de, D, T>(d: D) -> std::result::Result<Box<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    /// Leaves the level on every exit, also by unwinding.
    struct Level(usize);
    impl Drop for Level {
        fn drop(&mut self) {
            DEPTH.set(self.0);
        }
    }
    let depth = DEPTH.get();
    if depth >= MAX_KERNEL_DEPTH {
        return Err(serde::de::Error::custom(format!(
            "kernel combinations nested deeper than {MAX_KERNEL_DEPTH} levels"
        )));
    }
    DEPTH.set(depth + 1);
    let _level = Level(depth);
    T::deserialize(d).map(Box::new)
}

macro_rules! dispatch {
    ($self:ident, $k:ident => $e:expr) => {
        match $self {
            KernelSpec::Linear($k) => $e,
            KernelSpec::Polynomial($k) => $e,
            KernelSpec::Rbf($k) => $e,
            KernelSpec::Sigmoid($k) => $e,
            KernelSpec::Laplacian($k) => $e,
            KernelSpec::ChiSquared($k) => $e,
            KernelSpec::MatrixDot($k) => $e,
            KernelSpec::Precomputed($k) => $e,
            KernelSpec::Scaled($k) => $e,
            KernelSpec::Sum($k) => $e,
            KernelSpec::Product($k) => $e,
            KernelSpec::User($k) => $e,
        }
    };
}

impl Kernel for KernelSpec {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        dispatch!(self, k => k.eval(x, z))
    }
    fn name(&self) -> String {
        dispatch!(self, k => k.name())
    }
    fn dot_form(&self) -> Option<DotForm> {
        dispatch!(self, k => k.dot_form())
    }
    fn is_psd(&self) -> bool {
        dispatch!(self, k => k.is_psd())
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        dispatch!(self, k => k.check(records))
    }
}

impl KernelSpec {
    /// Checks a kernel decoded from a model file as its constructors check a new one (γ finite
    /// and positive, `coef0` and `degree` in range, a symmetric positive-definite matrix, a
    /// non-negative scale) and that it is defined on `records`, the rows the model evaluates it
    /// against (support vectors, landmarks, training rows): a matrix-dot kernel of another
    /// width, a χ² kernel over negative values or precomputed rows without a serial number
    /// are refused.
    pub fn check_decoded(&self, records: &dyn Records) -> Result<()> {
        self.check_params()?;
        self.check(records)
    }

    fn check_params(&self) -> Result<()> {
        match self {
            // A user kernel checks itself (its `Kernel::check`).
            KernelSpec::Linear(_) | KernelSpec::Precomputed(_) | KernelSpec::User(_) => Ok(()),
            KernelSpec::Polynomial(k) => {
                Polynomial::checked(k.gamma(), k.coef0(), k.degree()).map(drop)
            }
            KernelSpec::Rbf(k) => Rbf::with_gamma(k.gamma()).map(drop),
            KernelSpec::Sigmoid(k) => Sigmoid::with_gamma(k.gamma())?
                .with_coef0(k.coef0())
                .map(drop),
            KernelSpec::Laplacian(k) => Laplacian::with_gamma(k.gamma()).map(drop),
            KernelSpec::ChiSquared(k) => ChiSquared::with_gamma(k.gamma()).map(drop),
            KernelSpec::MatrixDot(k) => MatrixDot::new(k.matrix().clone()).map(drop),
            KernelSpec::Scaled(k) => {
                let (a, inner) = k.parts();
                Scaled::new(a, Linear)?;
                inner.check_params()
            }
            KernelSpec::Sum(k) => {
                let (a, b) = k.parts();
                a.check_params().and_then(|()| b.check_params())
            }
            KernelSpec::Product(k) => {
                let (a, b) = k.parts();
                a.check_params().and_then(|()| b.check_params())
            }
        }
    }
}

macro_rules! into_spec {
    ($($t:ident),*) => {$(
        impl From<$t> for KernelSpec {
            fn from(k: $t) -> Self {
                KernelSpec::$t(k)
            }
        }
    )*};
}
into_spec!(
    Linear,
    Polynomial,
    Rbf,
    Sigmoid,
    Laplacian,
    ChiSquared,
    MatrixDot,
    Precomputed
);

// Generic over the parts, so a composed kernel (`Rbf::with_gamma(0.5)?.scaled(2.0)?.plus(Linear)`)
// goes into a model's params as it is written, each part turned into a spec on the way.
impl<K: Into<KernelSpec>> From<Scaled<K>> for KernelSpec {
    fn from(k: Scaled<K>) -> Self {
        KernelSpec::Scaled(Box::new(k.map(Into::into)))
    }
}

impl<A: Into<KernelSpec>, B: Into<KernelSpec>> From<Sum<A, B>> for KernelSpec {
    fn from(k: Sum<A, B>) -> Self {
        let (a, b) = k.into_parts();
        KernelSpec::Sum(Box::new(Sum::new(a.into(), b.into())))
    }
}

impl<A: Into<KernelSpec>, B: Into<KernelSpec>> From<Product<A, B>> for KernelSpec {
    fn from(k: Product<A, B>) -> Self {
        let (a, b) = k.into_parts();
        KernelSpec::Product(Box::new(Product::new(a.into(), b.into())))
    }
}

impl From<UserKernel> for KernelSpec {
    fn from(k: UserKernel) -> Self {
        KernelSpec::User(k)
    }
}
