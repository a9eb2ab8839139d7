//! # core-linalg: margin's ground floor
//!
//! Everything the model crates share:
//!
//! - **Records**: [`DenseMatrix`] (row-major, so one sample is one contiguous slice, with a faer
//!   view for GEMM and decompositions) and [`CsrMatrix`] (sparse rows, as LIBSVM files are),
//!   both behind the [`Records`] trait (row access, dot products, squared norms,
//!   row-times-vector), and the owned either-layout [`Matrix`].
//! - **Datasets**: [`Dataset`] = records + [`Targets`] (classes mapped to dense indices with the
//!   original [`Label`]s kept, or continuous values) + optional sample weights and feature names.
//! - **The estimator contract**: [`Fit`], [`Predict`], [`PredictProba`], [`DecisionFunction`],
//!   [`Transform`], [`FitTransform`], [`PartialFit`], and the one [`Error`] enum.
//! - **Fit reports** ([`fit`]): one termination type, one report per fitted model, and one
//!   observer of progress for every solver.
//! - **Hyperparameters as data** ([`params`](mod@params)): every params struct describes its parameters
//!   (name, type, default, allowed values, help) once, for the CLI, searches and files.
//! - **Validation** ([`validate`]), **splitting** ([`split`]), **memory** asked for before it
//!   is used ([`memory`]) and the shortest round-tripping number text ([`format`](mod@format)).
//!
//! Files (data files, model files, bundled datasets) live in `margin-io`, preprocessing in
//! `margin-preprocessing`, and the estimator battery every model's tests run in
//! `margin-testing`.
//!
//! ```
//! use margin_core::{Classes, Dataset, DenseMatrix, Targets, split};
//!
//! let x = DenseMatrix::from_rows(&[vec![0.0, 1.0], vec![1.0, 0.0], vec![2.0, 2.0], vec![3.0, 1.0]])?;
//! let classes = Classes::from_text(&["a", "b", "a", "b"]);
//! let data = Dataset::new(x, Targets::Classes(classes))?;
//! let (train, test) = split::train_test_split(&data, 0.5, true, 42)?;
//! assert_eq!((train.n_samples(), test.n_samples()), (2, 2));
//! # Ok::<(), margin_core::Error>(())
//! ```

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod dataset;
mod dense;
mod error;
pub mod fit;
pub mod format;
pub mod linear;
pub mod memory;
pub mod model_check;
pub mod parallel;
pub mod params;
mod records;
mod sparse;
pub mod split;
mod traits;
pub mod validate;

pub use dataset::{
    ClassWeight, Classes, Dataset, Label, PresentClasses, Targets, classes_from_scores,
};
pub use dense::DenseMatrix;
pub use error::{Error, Result};
pub use linear::{LinearClassifierCore, LinearRegressorCore};
pub use params::Hyperparams;
pub use records::{Matrix, Records, RowView, dot, linear_scores};
pub use sparse::{CsrMatrix, SparseRow};
pub use traits::{
    Convergence, DecisionFunction, Fit, FitTransform, Iterative, NFeatures, PartialFit, Predict,
    PredictProba, Transform,
};

/// faer, re-exported so users build matrices with the same version margin uses.
pub use faer;
