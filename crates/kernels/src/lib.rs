//! # kernels: kernel functions, Gram matrices and the kernel cache
//!
//! - [`Kernel`]: `k(x, z)` on two samples, dense or sparse. The standard kernels keep
//!   scikit-learn's and LIBSVM's names and meanings: [`Linear`], [`Polynomial`], [`Rbf`] (also
//!   from σ), [`Sigmoid`] (not PSD), [`Laplacian`], [`ChiSquared`], [`MatrixDot`] (`xᵀAz` for an
//!   SPD `A`), [`Precomputed`] (LIBSVM's `-t 4` format); [`Gamma`] resolves `"scale"` and
//!   `"auto"`. Each value is given by name, so γ and coef0 cannot be swapped silently:
//!   `Polynomial::with_degree(3)?.with_gamma(0.5)?.with_coef0(1.0)?`,
//!   `Sigmoid::with_gamma(0.1)?.with_coef0(-1.0)?`.
//! - [`KernelChoice`] and [`KernelParams`]: a model's kernel as scikit-learn's `kernel`,
//!   `gamma`, `degree` and `coef0` parameters, resolved on the training records at fit time;
//!   a model's params hold a [`KernelParams`] as a `#[param(flatten)]` field.
//! - Kernel algebra that keeps a kernel a kernel: [`Scaled`], [`Sum`], [`Product`],
//!   [`Mapped`] (`k(ψ(x), ψ(z))`), [`RankOne`] (`f(x) f(z)`), and [`KernelExt`] to chain them.
//!   [`KernelSpec`] holds any standard kernel or combination as plain, serializable data.
//! - [`gram`](fn@gram) and [`cross_gram`]: Gram matrices through faer's GEMM (triangular for symmetric
//!   ones) for dot-product kernels, with vectorized exponentials; a rayon-parallel tiled loop for
//!   the others; a memory budget that refuses a matrix too large to allocate.
//! - [`ColumnCache`] + [`KernelSource`]: the LRU cache of `f32` kernel columns, with LIBSVM's
//!   swap semantics, that an SMO solver reads through; [`GramRows`]: a working set's block and
//!   its rows' weighted sums, tile by tile as matrix products, what a working-set solver reads.
//! - [`Nystroem`] and [`RandomFourierFeatures`]: explicit approximate feature spaces.
//! - [`polynomial_feature_map`]: the explicit map of the polynomial kernel (the kernel trick,
//!   shown).
//!
//! ```
//! use margin_core::{DenseMatrix, RowView};
//! use margin_kernels::{gram, Kernel, KernelExt, Linear, Rbf};
//!
//! let x = DenseMatrix::from_rows(&[[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])?;
//! let k = Rbf::with_gamma(0.5)?.plus(Linear);
//! let g = gram(&k, &x)?;
//! let direct = k.eval(RowView::Dense(x.row(0)), RowView::Dense(x.row(2)));
//! assert!((g.get(0, 2) - direct).abs() < 1e-12);
//! assert_eq!(g.get(0, 2), g.get(2, 0));
//! # Ok::<(), margin_core::Error>(())
//! ```

mod algebra;
mod approx;
mod cache;
mod choice;
mod dense_by_feature;
mod feature_map;
mod gram;
mod kernel;
mod libsvm_order;
mod rows;
mod simd;
mod spec;
mod standard;
mod user;

pub use algebra::{KernelExt, Mapped, Product, RankOne, Scaled, Sum, map_records};
pub use approx::{
    Landmarks, Nystroem, NystroemParams, RandomFourierFeatures, RandomFourierFeaturesParams,
};
pub use cache::{ColumnCache, ColumnSource, KernelSource};
pub use choice::{KernelChoice, KernelKind, KernelParams};
pub use feature_map::polynomial_feature_map;
pub use gram::{GramMethod, GramOptions, cross_gram, cross_gram_with, gram, gram_with};
pub use kernel::{DotForm, Kernel};
pub use rows::GramRows;
pub use simd::exp_nonpositive_in_place;
pub use spec::{KernelSpec, MAX_KERNEL_DEPTH};
pub use standard::{
    ChiSquared, Gamma, Laplacian, Linear, MatrixDot, Polynomial, Precomputed, Rbf, Sigmoid,
};
pub use user::UserKernel;

margin_core::impl_n_features!(Nystroem, RandomFourierFeatures);
margin_core::impl_hyperparams!(Nystroem, RandomFourierFeatures);
