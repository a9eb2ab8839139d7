//! # margin: classic machine learning, exact and fast
//!
//! The umbrella crate (package `margin-ml`, library `margin`): it re-exports every margin crate,
//! so one dependency brings them all. Depend on an individual crate (`margin-core`,
//! `margin-kernels`, `margin-svm`, …) to build less.
//!
//! | module | crate | holds |
//! |---|---|---|
//! | [`linalg`] (and the root) | `margin-core` | records, datasets, traits, errors, I/O, preprocessing, model files |
//! | [`datasets`] | `margin-core` | the bundled real datasets (feature `datasets`, on by default) |
//! | [`generate`] | `margin-core` | scikit-learn's data generators: blobs, circles, moons, classification, regression |
//! | [`optim`] | `margin-optim` | solvers (SMO, gradient descent, Pegasos, DCD) |
//! | [`kernels`] | `margin-kernels` | kernel functions, Gram matrices, kernel cache |
//! | [`metrics`] | `margin-metrics` | scores, cross-validation, search, charts (PNG with feature `png`) |
//! | [`linear`] | `margin-linear` | linear models, perceptrons, naive Bayes |
//! | [`svm`] | `margin-svm` | support vector machines |
//! | [`tree`] | `margin-tree` | trees and ensembles |
//! | [`neighbors`] | `margin-neighbors` | nearest neighbours |
//! | [`cluster`] | `margin-cluster` | k-means, PCA |
//! | [`any`] | `margin-any` | any fitted model behind one trait; [`any::load`] reads any model file |
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
//!
//! Records the caller already holds row by row (a `&[f64]`, a row-major faer view, or an
//! `ndarray::ArrayView2` with feature `ndarray`) reach every model through a [`DenseView`],
//! without a copy:
//!
//! ```
//! use margin::prelude::*;
//! use margin::DenseView;
//!
//! let x = [0.0, 0.0, 0.1, 0.2, 1.0, 1.1, 0.9, 1.0]; // 4 samples × 2 features, row by row
//! let view = DenseView::new(&x, 4, 2)?;
//! let train = Dataset::classification(view, [0, 0, 1, 1])?; // the dataset keeps a copy
//! let model = margin::svm::Svc::params().fit(&train)?;
//! let labels = model.predict(&view)?; // read in place
//! assert_eq!(labels, [0, 0, 1, 1]);
//! # Ok::<(), margin::Error>(())
//! ```
//!
//! ## Your own data
//!
//! [`Dataset::classification`] and [`Dataset::regression`] take rows as the program holds them
//! (`Vec<Vec<f64>>`, `&[[f64; N]]`, `f32` rows, a [`DenseMatrix`], a [`CsrMatrix`], ndarray
//! arrays with feature `ndarray`: anything [`IntoRecords`]) and labels of the program's own
//! type (`&str`, `String`, integers, `f64`). Predicted [`Label`]s compare with those values
//! with `==`, and [`labels_to`] turns them back:
//!
//! ```
//! use margin::prelude::*;
//! use margin::labels_to;
//!
//! let x = vec![vec![0.0, 0.1], vec![0.2, 0.0], vec![4.0, 4.1], vec![4.2, 3.9]];
//! let data = Dataset::classification(&x, ["near", "near", "far", "far"])?;
//! let model = margin::svm::Svc::params().fit(&data)?;
//! let predicted = model.predict(&data.records)?;
//! assert_eq!(predicted, ["near", "near", "far", "far"]);
//! assert!(predicted == data.labels()?);
//! let names: Vec<String> = labels_to(&predicted)?;
//! assert_eq!(names[2], "far");
//!
//! let fit = margin::linear::LinearRegression::params()
//!     .fit(&Dataset::regression(&[[1.0], [2.0], [3.0]], [3.0, 5.0, 7.0])?)?;
//! assert!((fit.intercept()[0] - 1.0).abs() < 1e-9);
//! # Ok::<(), margin::Error>(())
//! ```
//!
//! ## Pipelines, scorers and search
//!
//! A [`Pipeline`](preprocessing::Pipeline) chains transformers before an estimator and is
//! fitted, cross-validated, searched and saved as one model; its steps' parameters are
//! `step__param`, and scores are named as in scikit-learn:
//!
//! ```
//! use margin::prelude::*;
//! use margin::preprocessing::PipelineModel;
//! use margin::svm::Svc;
//!
//! let data = make_moons(&Moons::default().n_samples(200).noise(0.2).seed(1))?;
//! let pipe = Pipeline::new("scale", StandardScaler::params()).step("svc", Svc::params());
//! let grid = Grid::new(pipe).param("svc__C", [0.1, 1.0, 10.0])?.param("svc__gamma", [0.5, 2.0])?;
//! let folds = StratifiedKFold::new(5).shuffle(7).split(&data)?;
//! let found = search(grid.candidates()?, &data, &folds, "roc_auc")?;
//! println!("{}", found.table()); // every setting, mean ± sd, the best marked
//!
//! let path = std::env::temp_dir().join("moons-pipeline.model");
//! found.model.save(&path)?; // the best, refitted on all the data: one file for both steps
//! let model = PipelineModel::<(StandardScaler,), Svc>::load(&path)?;
//! assert!(Scoring::Accuracy.score(&model, &data)? > 0.9);
//! # Ok::<(), margin::Error>(())
//! ```
#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use margin_any as any;
pub use margin_cluster as cluster;
pub use margin_core as linalg;
pub use margin_core::{
    ClassWeight, Classes, CsrMatrix, Dataset, DenseMatrix, DenseView, Error, IntoRecords, Label,
    Matrix, Records, Result, SampleLabels, Targets, labels_to,
};
pub use margin_core::{generate, split, validate};
pub use margin_io as io;
#[cfg(feature = "datasets")]
pub use margin_io::datasets;
pub use margin_kernels as kernels;
pub use margin_linear as linear;
pub use margin_metrics as metrics;
pub use margin_neighbors as neighbors;
pub use margin_optim as optim;
pub use margin_preprocessing as preprocessing;
pub use margin_svm as svm;
pub use margin_tree as tree;

/// The names most programs need: `use margin::prelude::*;`.
pub mod prelude {
    pub use margin_core::fit::FitObserved;
    pub use margin_core::generate::{
        Blobs, Circles, Classification, Moons, Regression, make_blobs, make_circles,
        make_classification, make_moons, make_regression,
    };
    pub use margin_core::params::ParamsByName;
    pub use margin_core::split::{KFold, StratifiedKFold, train_test_split};
    pub use margin_core::{
        Dataset, DecisionFunction, Error, Fit, FitStats, FitTransform, Iterative, Label, Matrix,
        Merge, PartialFit, Predict, PredictProba, Records, Result, Targets, Transform,
    };
    pub use margin_io::ModelFile;
    pub use margin_kernels::KernelExt;
    pub use margin_metrics::{Grid, Scorer, Scoring, cross_validate, search};
    pub use margin_preprocessing::{MinMaxScaler, Pipeline, StandardScaler};
}
