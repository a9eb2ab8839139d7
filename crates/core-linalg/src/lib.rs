//! # core-linalg: margin's ground floor
//!
//! Everything the model crates share:
//!
//! - **Records**: [`DenseMatrix`] (row-major, so one sample is one contiguous slice, with a faer
//!   view for GEMM and decompositions), [`DenseView`] (the same layout borrowed from the
//!   caller's `&[f64]`, a row-major faer view or, with feature `ndarray`, a standard-layout
//!   `ArrayView2`: every model reads it without a copy) and [`CsrMatrix`] (sparse rows, as
//!   LIBSVM files are), all behind the [`Records`] trait (row access, dot products, squared
//!   norms, row-times-vector), and the owned either-layout [`Matrix`].
//! - **Datasets**: [`Dataset`] = records + [`Targets`] (classes mapped to dense indices with the
//!   original [`Label`]s kept, or continuous values) + optional sample weights and feature names.
//! - **The estimator contract**: [`Fit`], [`Predict`], [`PredictProba`], [`DecisionFunction`],
//!   [`Transform`], [`FitTransform`], [`PartialFit`], and the one [`Error`] enum.
//! - **Fit reports** ([`fit`]): one termination type, one report per fitted model, and one
//!   observer of progress for every solver.
//! - **Hyperparameters as data** ([`params`](mod@params)): every params struct describes its parameters
//!   (name, type, default, allowed values, help) once, for the CLI, searches and files.
//! - **Validation** ([`validate`]), **splitting** ([`split`]), **preprocessing**
//!   ([`preprocessing`]), **data files** ([`io`]: LIBSVM and CSV, plain or compressed),
//!   **model files** ([`ModelFile`], checked on load with [`model_check`]), the **bundled
//!   datasets** ([`datasets`], cargo feature `datasets`, on by default) and the shared
//!   **estimator battery** ([`battery`]) every model's tests run, with the reader of their
//!   reference **fixtures** ([`fixture`]).
//!
//! ```
//! use margin_core::{datasets, preprocessing::MinMaxScaler, split, Fit, Records, Transform};
//!
//! let data = datasets::heart_scale()?;
//! assert_eq!((data.n_samples(), data.n_features()), (270, 13));
//! let (train, test) = split::train_test_split(&data, 0.25, true, 42)?;
//! let scaler = MinMaxScaler::params().range(-1.0, 1.0).fit(&train.records)?;
//! let scaled = scaler.transform(&test.records)?;
//! assert_eq!(scaled.n_samples(), test.n_samples());
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! Data the caller already holds row by row is read in place:
//!
//! ```
//! use margin_core::{preprocessing::StandardScaler, DenseView, Fit, Records, Transform};
//!
//! let samples: &[f64] = &[1.0, 10.0, 2.0, 20.0, 3.0, 30.0]; // 3 samples × 2 features
//! let view = DenseView::new(samples, 3, 2)?;
//! assert!(view.as_dense().is_some()); // the dense fast paths read `samples` itself
//! let scaler = StandardScaler::params().fit(&view)?;
//! let z = scaler.transform(&view)?;
//! assert_eq!(z.row(1).get(0), 0.0); // the middle sample is the mean
//! # Ok::<(), margin_core::Error>(())
//! ```

// Denied, not forbidden: `DenseView::from_faer` turns a checked row-major faer view into a
// slice (one `unsafe` line with its SAFETY comment); nothing else in the crate may.
#![deny(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod battery;
mod dataset;
#[cfg(feature = "datasets")]
pub mod datasets;
mod dense;
mod error;
pub mod fit;
pub mod fixture;
pub mod io;
pub mod linear;
pub mod memory;
pub mod model_check;
mod model_file;
pub mod params;
pub mod preprocessing;
mod records;
mod sparse;
pub mod split;
mod traits;
pub mod validate;
mod view;

pub use dataset::{
    ClassWeight, Classes, Dataset, Label, PresentClasses, Targets, classes_from_scores,
};
pub use dense::DenseMatrix;
pub use error::{Error, Result};
pub use linear::{LinearClassifierCore, LinearRegressorCore};
pub use model_file::{FORMAT_VERSION, ModelFile, body_of, is_model_file, peek_kind, seal};
pub use params::Hyperparams;
pub use records::{Matrix, Records, RowView, dot, linear_scores};
pub use sparse::{CsrMatrix, SparseRow};
pub use traits::{
    Convergence, DecisionFunction, Fit, FitTransform, Iterative, NFeatures, PartialFit, Predict,
    PredictProba, Transform,
};
pub use view::{DenseCow, DenseView};

/// faer, re-exported so users build matrices with the same version margin uses.
pub use faer;
