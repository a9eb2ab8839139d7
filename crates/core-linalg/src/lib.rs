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
//!   original [`Label`]s kept, or continuous values) + optional sample weights and feature names,
//!   built from the caller's own rows and labels by [`Dataset::classification`] and
//!   [`Dataset::regression`] (any [`IntoRecords`]: `Vec<Vec<f64>>`, `&[[f32; N]]`, ndarray…);
//!   labels compare with the caller's values (`label == "setosa"`, `label == 3`) and convert
//!   back ([`labels_to`]).
//! - **The estimator contract**: [`Fit`], [`Predict`], [`PredictProba`], [`DecisionFunction`],
//!   [`Transform`], [`FitTransform`], [`PartialFit`], and the one [`Error`] enum.
//! - **Fit reports** ([`fit`]): one termination type, one report per fitted model, and one
//!   observer of progress for every solver.
//! - **Hyperparameters as data** ([`params`](mod@params)): every params struct describes its parameters
//!   (name, type, default, allowed values, help) once, for the CLI, searches and files.
//! - **Validation** ([`validate`]), **splitting** ([`split`]), **memory** asked for before it
//!   is used ([`memory`]) and the shortest round-tripping number text ([`format`](mod@format)).
//! - **Hot loops** ([`parallel`]: when work goes to both cores; [`simd`]: loops compiled for
//!   AVX2 + FMA too, chosen at run time; [`hint`]: prefetches).
//! - **Data generators** ([`generate`]): scikit-learn's `make_blobs`, `make_circles`,
//!   `make_moons`, `make_classification` and `make_regression`, seeded, for teaching and tests.
//!
//! Files (data files, model files, bundled datasets) live in `margin-io`, preprocessing in
//! `margin-preprocessing`, and the estimator battery every model's tests run in
//! `margin-testing`.
//!
//! ```
//! use margin_core::{Dataset, split};
//!
//! let x = vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![2.0, 2.0], vec![3.0, 1.0]];
//! let data = Dataset::classification(x, ["a", "b", "a", "b"])?;
//! let (train, test) = split::train_test_split(&data, 0.5, true, 42)?;
//! assert_eq!((train.n_samples(), test.n_samples()), (2, 2));
//! assert_eq!(data.targets.classes()?.n_classes(), 2);
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! Data the caller already holds row by row is read in place:
//!
//! ```
//! use margin_core::{DenseView, Records};
//!
//! let samples: &[f64] = &[1.0, 10.0, 2.0, 20.0, 3.0, 30.0]; // 3 samples × 2 features
//! let view = DenseView::new(samples, 3, 2)?;
//! assert!(view.as_dense().is_some()); // the dense fast paths read `samples` itself
//! let mut scores = vec![0.0; 3];
//! view.mul_vec(&[1.0, 0.5], &mut scores); // what every model's `predict(&view)` reads
//! assert_eq!(scores, [6.0, 12.0, 18.0]);
//! # Ok::<(), margin_core::Error>(())
//! ```

// Denied, not forbidden: `DenseView::from_faer` turns a checked row-major faer view into a
// slice, `hint::prefetch` calls the prefetch intrinsic, and `simd_dispatch!` writes the call
// to a loop's AVX2 + FMA copy into the crates that use it (one `unsafe` line each, with its
// SAFETY comment); nothing else in the crate may.
#![deny(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

// `#[derive(Params)]` writes `::margin_core::…` paths; this crate's own params structs use it too.
extern crate self as margin_core;

pub mod centred_qr;
mod dataset;
mod dense;
mod error;
pub mod fit;
pub mod format;
pub mod generate;
pub mod hint;
mod into_records;
mod label;
pub mod linear;
pub mod memory;
pub mod model_check;
pub mod orthogonal;
pub mod parallel;
pub mod params;
mod records;
pub mod simd;
mod sparse;
pub mod split;
pub mod stored;
mod traits;
pub mod validate;
mod view;

pub use dataset::{
    ClassWeight, Classes, Dataset, PartClasses, PresentClasses, SampleLabels, SampleLabelsIter,
    Targets, classes_from_scores, labels_from_scores,
};
pub use dense::DenseMatrix;
pub use error::{Error, Result};
pub use into_records::IntoRecords;
pub use label::{Label, class_order, labels_to};
pub use linear::{LinearClassifierCore, LinearRegressorCore};
pub use params::Hyperparams;
pub use records::{Matrix, Records, RowRange, RowView, dot, linear_scores};
pub use sparse::{CsrMatrix, SparseRow};
pub use traits::{
    ClassScores, Convergence, DecisionFunction, Evidence, EvidenceSource, Fit, FitStats,
    FitTransform, Iterative, Merge, NFeatures, PartialFit, Predict, PredictProba, Transform,
};
pub use view::{DenseCow, DenseView};

/// faer, re-exported so users build matrices with the same version margin uses.
pub use faer;
