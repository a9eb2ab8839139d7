//! # margin: classic machine learning, exact and fast
//!
//! The umbrella crate: it re-exports every margin crate, so one dependency brings them all.
//! Depend on an individual crate (`core-linalg`, `kernels`, `models-svm`, …) to build less.
//!
//! | module | crate | holds |
//! |---|---|---|
//! | [`linalg`] (and the root) | `core-linalg` | records, datasets, traits, errors, I/O, preprocessing, model files |
//! | [`datasets`] | `core-linalg` | the bundled real datasets |
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

pub use core_linalg as linalg;
pub use core_linalg::{
    ClassWeight, Classes, CsrMatrix, Dataset, DenseMatrix, Error, Label, Matrix, Records, Result,
    Targets,
};
pub use core_linalg::{datasets, io, preprocessing, split, validate};
pub use kernels;
pub use metrics;
pub use models_cluster as cluster;
pub use models_linear as linear;
pub use models_neighbors as neighbors;
pub use models_svm as svm;
pub use models_tree as tree;
pub use optim;

/// The names most programs need: `use margin::prelude::*;`.
pub mod prelude {
    pub use core_linalg::preprocessing::{MinMaxScaler, StandardScaler};
    pub use core_linalg::split::{KFold, StratifiedKFold, train_test_split};
    pub use core_linalg::{
        Dataset, DecisionFunction, Error, Fit, FitTransform, Label, Matrix, ModelFile, PartialFit,
        Predict, PredictProba, Records, Result, Targets, Transform,
    };
}
