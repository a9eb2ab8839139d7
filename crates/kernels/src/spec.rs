//! [`KernelSpec`]: the serializable kernel models store in their files.

use core_linalg::{Records, Result, RowView};
use serde::{Deserialize, Serialize};

use crate::algebra::{Product, Scaled, Sum};
use crate::kernel::{DotForm, Kernel};
use crate::standard::{
    ChiSquared, Laplacian, Linear, MatrixDot, Polynomial, Precomputed, Rbf, Sigmoid,
};

/// Any standard kernel or algebraic combination of them, as plain data (serializable, so a
/// model can save the kernel it was trained with). Closure-based kernels ([`Mapped`](crate::Mapped),
/// [`RankOne`](crate::RankOne)) work with every function of this crate but cannot be saved.
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
    Scaled(Box<Scaled<KernelSpec>>),
    /// `k1 + k2`.
    Sum(Box<Sum<KernelSpec, KernelSpec>>),
    /// `k1 · k2`.
    Product(Box<Product<KernelSpec, KernelSpec>>),
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

impl From<Scaled<KernelSpec>> for KernelSpec {
    fn from(k: Scaled<KernelSpec>) -> Self {
        KernelSpec::Scaled(Box::new(k))
    }
}

impl From<Sum<KernelSpec, KernelSpec>> for KernelSpec {
    fn from(k: Sum<KernelSpec, KernelSpec>) -> Self {
        KernelSpec::Sum(Box::new(k))
    }
}

impl From<Product<KernelSpec, KernelSpec>> for KernelSpec {
    fn from(k: Product<KernelSpec, KernelSpec>) -> Self {
        KernelSpec::Product(Box::new(k))
    }
}
