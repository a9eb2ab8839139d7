//! # margin: classic machine learning, exact and fast
//!
//! The umbrella crate: it re-exports every margin crate, so one dependency brings them all.
//! Depend on an individual crate (`core-linalg`, `kernels`, `models-svm`, …) to build less.
//!
//! | module | crate | holds |
//! |---|---|---|
//! | [`linalg`] (and the root) | `core-linalg` | records, datasets, traits, errors, I/O, preprocessing, model files |
//! | [`datasets`] | `core-linalg` | the bundled real datasets (feature `datasets`, on by default) |
//! | [`optim`] | `optim` | solvers (SMO, gradient descent, Pegasos, DCD) |
//! | [`kernels`] | `kernels` | kernel functions, Gram matrices, kernel cache |
//! | [`metrics`] | `metrics` | scores, cross-validation, search |
//! | [`linear`] | `models-linear` | linear models, perceptrons, naive Bayes |
//! | [`svm`] | `models-svm` | support vector machines |
//! | [`tree`] | `models-tree` | trees and ensembles |
//! | [`neighbors`] | `models-neighbors` | nearest neighbours |
//! | [`cluster`] | `models-cluster` | k-means, PCA |
//!
//! ```
//! use margin::prelude::*;
//!
//! let data = margin::datasets::heart_scale()?;
//! let (train, test) = train_test_split(&data, 0.25, true, 7)?;
//! let scaler = StandardScaler::params().fit(&train.records)?;
//! let z = scaler.transform(&test.records)?;
//! assert_eq!(z.n_features(), 13);
//! # Ok::<(), margin::Error>(())
//! ```
#![forbid(unsafe_code)]

pub use margin_cluster as cluster;
pub use margin_core as linalg;
pub use margin_core::{
    ClassWeight, Classes, CsrMatrix, Dataset, DenseMatrix, Error, Label, Matrix, Records, Result,
    Targets,
};
#[cfg(feature = "datasets")]
pub use margin_core::datasets;
pub use margin_core::{io, preprocessing, split, validate};
pub use margin_kernels as kernels;
pub use margin_linear as linear;
pub use margin_metrics as metrics;
pub use margin_neighbors as neighbors;
pub use margin_optim as optim;
pub use margin_svm as svm;
pub use margin_tree as tree;

/// The names most programs need: `use margin::prelude::*;`.
pub mod prelude {
    pub use margin_core::preprocessing::{MinMaxScaler, StandardScaler};
    pub use margin_core::split::{KFold, StratifiedKFold, train_test_split};
    pub use margin_core::{
        Dataset, DecisionFunction, Error, Fit, FitTransform, Label, Matrix, ModelFile, PartialFit,
        Predict, PredictProba, Records, Result, Targets, Transform,
    };
}
