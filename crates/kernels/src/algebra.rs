//! Kernel algebra: the operations that keep a kernel a kernel (symmetric and, for PSD
//! operands, PSD): non-negative scaling, sums, products (Schur product theorem), composition
//! with a feature map, and the rank-one kernel `f(x) f(z)`.

use margin_core::{DenseMatrix, Error, Records, Result, RowView};
use serde::{Deserialize, Serialize};

use crate::kernel::{DotForm, Kernel};

impl<K: Kernel + ?Sized> Kernel for Box<K> {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (**self).eval(x, z)
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn dot_form(&self) -> Option<DotForm> {
        (**self).dot_form()
    }
    fn is_psd(&self) -> bool {
        (**self).is_psd()
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        (**self).check(records)
    }
}

/// `a · k` for `a ≥ 0`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scaled<K> {
    a: f64,
    k: K,
}

impl<K: Kernel> Scaled<K> {
    /// Refuses a negative or non-finite `a` (a negative multiple is not a kernel).
    pub fn new(a: f64, k: K) -> Result<Self> {
        if !(a.is_finite() && a >= 0.0) {
            return Err(Error::invalid_parameter(
                "scale",
                a,
                "a finite number ≥ 0 (a negative multiple of a kernel is not a kernel)",
            ));
        }
        Ok(Self { a, k })
    }
}

impl<K> Scaled<K> {
    /// The factor `a` and the kernel it scales.
    pub(crate) fn parts(&self) -> (f64, &K) {
        (self.a, &self.k)
    }
    /// The same factor over `f(k)` (a kernel turned into a [`crate::KernelSpec`]).
    pub(crate) fn map<L>(self, f: impl FnOnce(K) -> L) -> Scaled<L> {
        Scaled {
            a: self.a,
            k: f(self.k),
        }
    }
}

impl<K: Kernel> Kernel for Scaled<K> {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        self.a * self.k.eval(x, z)
    }
    fn name(&self) -> String {
        format!("{} * {}", self.a, self.k.name())
    }
    fn dot_form(&self) -> Option<DotForm> {
        Some(DotForm::Scaled(self.a, Box::new(self.k.dot_form()?)))
    }
    fn is_psd(&self) -> bool {
        self.k.is_psd()
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        self.k.check(records)
    }
}

/// Defines a kernel made of two kernels `a` and `b` whose values combine by `$op`: the struct,
/// its constructor, its parts and its `Kernel` impl. A sum and a product differ only in the
/// operator, the name's symbol and the `DotForm` variant; both are PSD when both parts are.
macro_rules! binary_kernel {
    (
        $(#[$doc:meta])*
        $kind:ident, $op:tt, $symbol:literal,
        new: $new_doc:literal, parts: $parts_doc:literal, into_parts: $into_parts_doc:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub struct $kind<A, B> {
            a: A,
            b: B,
        }

        impl<A: Kernel, B: Kernel> $kind<A, B> {
            #[doc = $new_doc]
            pub fn new(a: A, b: B) -> Self {
                Self { a, b }
            }
        }

        impl<A, B> $kind<A, B> {
            #[doc = $parts_doc]
            pub(crate) fn parts(&self) -> (&A, &B) {
                (&self.a, &self.b)
            }
            #[doc = $into_parts_doc]
            pub(crate) fn into_parts(self) -> (A, B) {
                (self.a, self.b)
            }
        }

        impl<A: Kernel, B: Kernel> Kernel for $kind<A, B> {
            fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
                self.a.eval(x, z) $op self.b.eval(x, z)
            }
            fn name(&self) -> String {
                format!(concat!("({} ", $symbol, " {})"), self.a.name(), self.b.name())
            }
            fn dot_form(&self) -> Option<DotForm> {
                Some(DotForm::$kind(
                    Box::new(self.a.dot_form()?),
                    Box::new(self.b.dot_form()?),
                ))
            }
            fn is_psd(&self) -> bool {
                self.a.is_psd() && self.b.is_psd()
            }
            fn check(&self, records: &dyn Records) -> Result<()> {
                self.a.check(records).and_then(|()| self.b.check(records))
            }
        }
    };
}

binary_kernel!(
    /// `k1 + k2`.
    Sum, +, "+",
    new: "The sum of two kernels.",
    parts: "The two terms.",
    into_parts: "The two terms, taken apart."
);

binary_kernel!(
    /// `k1 · k2` (pointwise; PSD by the Schur product theorem).
    Product, *, "*",
    new: "The pointwise product of two kernels.",
    parts: "The two factors.",
    into_parts: "The two factors, taken apart."
);

/// `k(ψ(x), ψ(z))` for a feature map `ψ` given as a closure returning the mapped sample.
///
/// Evaluates `ψ` twice per pair (allocating): use it for experiments and small data, or map the
/// records once with [`map_records`] and use `k` on the result.
pub struct Mapped<K, F> {
    k: K,
    psi: F,
}

impl<K, F> Mapped<K, F>
where
    K: Kernel,
    F: Fn(RowView<'_>) -> Vec<f64> + Send + Sync,
{
    /// `k ∘ ψ`.
    pub fn new(k: K, psi: F) -> Self {
        Self { k, psi }
    }
}

impl<K, F> Kernel for Mapped<K, F>
where
    K: Kernel,
    F: Fn(RowView<'_>) -> Vec<f64> + Send + Sync,
{
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        let (px, pz) = ((self.psi)(x), (self.psi)(z));
        self.k.eval(RowView::Dense(&px), RowView::Dense(&pz))
    }
    fn name(&self) -> String {
        format!("{} ∘ ψ", self.k.name())
    }
    fn is_psd(&self) -> bool {
        self.k.is_psd()
    }
}

/// Applies a feature map to every row, giving dense records.
pub fn map_records<R, F>(records: &R, psi: F) -> Result<DenseMatrix>
where
    R: Records + ?Sized,
    F: Fn(RowView<'_>) -> Vec<f64>,
{
    let rows: Vec<Vec<f64>> = (0..records.n_samples())
        .map(|i| psi(records.row(i)))
        .collect();
    DenseMatrix::from_rows(&rows)
}

/// The rank-one kernel `f(x) f(z)` for any real function `f`.
pub struct RankOne<F> {
    f: F,
}

impl<F: Fn(RowView<'_>) -> f64 + Send + Sync> RankOne<F> {
    /// `f(x) f(z)`.
    pub fn new(f: F) -> Self {
        Self { f }
    }
}

impl<F: Fn(RowView<'_>) -> f64 + Send + Sync> Kernel for RankOne<F> {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (self.f)(x) * (self.f)(z)
    }
    fn name(&self) -> String {
        "f(x)f(z)".into()
    }
}

/// Builder-style algebra on any kernel: `Rbf::with_gamma(1.0)?.plus(Linear)`.
pub trait KernelExt: Kernel + Sized {
    /// `a · self`.
    fn scaled(self, a: f64) -> Result<Scaled<Self>> {
        Scaled::new(a, self)
    }
    /// `self + other`.
    fn plus<B: Kernel>(self, other: B) -> Sum<Self, B> {
        Sum::new(self, other)
    }
    /// `self · other`.
    fn times<B: Kernel>(self, other: B) -> Product<Self, B> {
        Product::new(self, other)
    }
}

impl<K: Kernel> KernelExt for K {}
