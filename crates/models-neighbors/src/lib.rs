//! # models-neighbors: k-nearest neighbours
//!
//! - [`NearestNeighbors`]: an index over training records answering
//!   [`kneighbors`](NearestNeighbors::kneighbors)`(X, k)`: each query's `k` nearest training
//!   rows with their distances, nearest first.
//! - [`KNeighborsClassifier`]: the (weighted) majority class among a query's `k` nearest
//!   training rows, with `predict_proba`.
//! - [`KNeighborsRegressor`]: the (weighted) mean of their targets.
//!
//! Parameter names, defaults and results follow scikit-learn's `sklearn.neighbors` (compared
//! on the bundled data in this crate's tests). Distances ([`Metric`]): Euclidean (default),
//! squared Euclidean, Manhattan, Chebyshev, Minkowski(p ≥ 1), cosine (`1 − cos`; an all-zero
//! row is refused), Mahalanobis (covariance from the training data or given; a singular one is
//! refused) and Hamming, over dense or sparse records.
//!
//! ```
//! use margin_core::{split, Fit, Predict, PredictProba, Records};
//! use margin_io::datasets;
//! use margin_neighbors::{KNeighborsClassifier, Metric, Weights};
//!
//! let data = datasets::heart_scale()?;
//! let (train, test) = split::train_test_split(&data, 0.25, true, 7)?;
//! let model = KNeighborsClassifier::params()
//!     .n_neighbors(7)
//!     .weights(Weights::Distance)
//!     .metric(Metric::Manhattan)
//!     .fit(&train)?;
//! let predicted = model.predict(&test.records)?;
//! let proba = model.predict_proba(&test.records)?;
//! assert_eq!((proba.nrows(), proba.ncols()), (test.n_samples(), 2));
//! let neighbours = model.kneighbors(&test.records, 3)?;
//! assert!(neighbours.distances(0)[0] <= neighbours.distances(0)[2]);
//! let truth = test.targets.values()?; // a LIBSVM file's labels are numbers
//! let correct = predicted.iter().zip(truth.iter()).filter(|(p, t)| p == t).count();
//! assert!(correct as f64 / predicted.len() as f64 > 0.7);
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! ## Hyperparameters
//!
//! | model | parameter | default | meaning |
//! |---|---|---|---|
//! | all | `n_neighbors` | 5 | `k`, in `[1, n_samples]` (for `NearestNeighbors`, the `k` the `auto` rule assumes) |
//! | all | `metric` | `Euclidean` | the distance ([`Metric`]); scikit-learn's default `minkowski`, `p = 2` |
//! | all | `algorithm` | `Auto` | `Auto`, `Brute` or `KdTree` ([`Algorithm`]; rule below) |
//! | all | `leaf_size` | 30 | most points in a kd-tree leaf (speed only; answers do not change) |
//! | classifier, regressor | `weights` | `Uniform` | `Uniform` or `Distance` (`1/d`; exact matches take over) |
//!
//! ## Answers: exact, ties by index
//!
//! `kneighbors` returns the exact `k` smallest distances, ascending; among equally distant
//! training rows the one with the smaller index comes first and wins a place at the k-th
//! position. Brute force and the kd-tree compute returned distances with the same function,
//! so they return the same neighbours and the same distance bits (a property test checks it
//! for every metric the tree supports), and the answer does not depend on the thread count.
//! scikit-learn returns the same neighbours except where rows tie at the k-th place: its
//! choice among them depends on its heap's layout.
//!
//! The classifier's class scores are the summed weights of the neighbours of each class;
//! `predict_proba` normalises them and `predict` takes the largest, ties going to the class
//! first in sorted label order (scikit-learn's rule). With `Weights::Distance`, neighbours at
//! distance 0 (or so near that `1/d` overflows) get weight 1 and all others 0, as in
//! scikit-learn. Sample weights are refused: neighbour methods have no use for them.
//!
//! ## Search
//!
//! - **Brute force.** For the Euclidean family, Mahalanobis and cosine against dense training
//!   records, blocks of up to 128 queries (at least 16; fewer per block when there are few
//!   queries, so every thread gets some) meet blocks of 1,024 training rows in one faer GEMM
//!   (`‖x‖² + ‖z‖² − 2x·z`); rayon runs the query blocks in parallel. The expansion only
//!   *screens* candidates: one that may still enter a query's k best (allowing for the
//!   expansion's rounding) has its distance recomputed from the differences, so cancellation
//!   never changes an answer. Sparse training records use sparse dot products for the same
//!   screen; the other metrics compute each pair directly. **Memory** is bounded by the
//!   blocks: per rayon task at most a 128 × 1,024 block of dot products (1 MiB), 128
//!   densified queries and 128 selections of `k`, plus the `m × k` answer; never `n × m`.
//! - **kd-tree** (Euclidean, squared Euclidean, Manhattan, Chebyshev, Minkowski, Mahalanobis):
//!   median splits on the widest dimension down to `leaf_size` points, points stored in tree
//!   order, depth-first search nearer child first, a node skipped when its bounding box is
//!   farther than the current k-th best. It keeps a dense copy of the training records (so
//!   sparse records are searched dense: the tree serves low dimensions).
//! - **`Algorithm::Auto`** uses the kd-tree when the metric is one it supports, the records
//!   have at most [`AUTO_TREE_MAX_FEATURES`] (15) features and `n_neighbors < n_samples / 2`,
//!   and brute force otherwise (scikit-learn's rule without its ball tree; scikit-learn also
//!   sends sparse records to brute force, margin densifies them for the tree, which at 15
//!   features or fewer costs little). `KdTree` with cosine or Hamming is refused.
//!
//! Mahalanobis distance is searched as Euclidean distance after whitening every record by
//! `L⁻¹` (`Σ = L Lᵀ`, faer's Cholesky), so both searches serve it; whitened records are dense.
//!
//! Model files ([`margin_io::ModelFile`]) store the parameters, the training records (in
//! their layout) and the targets; loading rebuilds the index and so refuses a file whose
//! parts disagree.

#![forbid(unsafe_code)]

mod brute;
mod classifier;
mod index;
mod kd_tree;
mod metric;
mod nearest;
mod regressor;
mod select;
mod supervised;
mod weights;
mod whitening;

pub use classifier::{KNeighborsClassifier, KNeighborsClassifierParams};
pub use index::{AUTO_TREE_MAX_FEATURES, Algorithm, Neighbors};
pub use metric::{Covariance, Metric};
pub use nearest::{NearestNeighbors, NearestNeighborsParams};
pub use regressor::{KNeighborsRegressor, KNeighborsRegressorParams};
pub use weights::Weights;

margin_core::impl_n_features!(KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors);
margin_core::impl_hyperparams!(KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors);
