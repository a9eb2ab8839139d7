//! # models-tree: decision trees and ensembles
//!
//! CART decision trees ([`DecisionTreeClassifier`], [`DecisionTreeRegressor`]), random forests
//! ([`RandomForestClassifier`], [`RandomForestRegressor`]), AdaBoost ([`AdaBoostClassifier`],
//! SAMME), histogram gradient boosting ([`gradient_boosting`]), and text / Graphviz exports
//! ([`export_text`], [`export_dot`]). Trees also take C4.5's tools: categorical features split
//! by category subsets, missing values, and reduced-error and pessimistic pruning next to
//! CART's cost-complexity pruning. Names and defaults are scikit-learn's, so results compare
//! one to one; the fitted trees are open to inspection through [`Tree`] and [`Node`].
//!
//! ```
//! use margin_core::{split, Fit, Predict, PredictProba, Records};
//! use margin_io::datasets;
//! use margin_tree::{Criterion, DecisionTreeClassifier, RandomForestClassifier, export_text};
//!
//! let data = datasets::heart_scale()?;
//! let (train, test) = split::train_test_split(&data, 0.25, true, 1)?;
//! let tree = DecisionTreeClassifier::params()
//!     .criterion(Criterion::Entropy)
//!     .max_depth(Some(3))
//!     .fit(&train)?;
//! assert!(tree.depth() <= 3);
//! println!("{}", export_text(tree.tree(), &tree.export_options()));
//! let forest = RandomForestClassifier::params().n_estimators(50).seed(7).fit(&train)?;
//! let proba = forest.predict_proba(&test.records)?;
//! assert_eq!(proba.nrows(), test.n_samples());
//! assert_eq!(forest.predict(&test.records)?.len(), test.n_samples());
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! ## How trees are grown
//!
//! Binary splits `x[j] <= t` with `t` the midpoint between consecutive distinct values, chosen
//! by one left-to-right scan per feature over the node's samples in sorted order. Every
//! feature is sorted once per fit; a node owns a contiguous segment of each feature's sorted
//! list and splitting it partitions the segments stably, so no node sorts anything (cost
//! `O(n·d)` per tree level). The records are copied column by column (`n × d` values, sparse
//! records with their zeros filled in): trees suit data with up to a few thousand features.
//! A node stops when it is pure, when no split is possible, or by the limits below. Samples of
//! weight zero are dropped, as scikit-learn does; sample and class weights multiply.
//!
//! Two deliberate differences from scikit-learn: values are compared as `f64` (scikit-learn
//! splits float32 copies and ignores gaps below 1e-7), and when two features' best splits
//! improve the impurity equally, the lower feature index wins (scikit-learn visits features in
//! a random order, so `random_state` breaks such ties). Trees whose splits are not decided by
//! ties are identical to scikit-learn's (tests/tree_fixtures.rs). And a fit that cannot do its
//! job says so: a `min_samples_leaf` of 2 or more on fewer than twice as many samples, where
//! no node could split, is refused (scikit-learn returns a one-leaf model); so is the same in
//! forests (counted on the samples given, not a tree's bootstrap), AdaBoost and the boosters
//! (counted on the samples their trees grow on).
//!
//! ## Feature names
//!
//! A model fitted on a [`Dataset`](margin_core::Dataset) with `feature_names` (a CSV file's
//! header, or `with_feature_names`) keeps them, as scikit-learn's `feature_names_in_`:
//! `feature_names()` on the trees, forests and AdaBoost, stored in their model files. Their
//! `export_options()` start from them, so [`export_text`] prints `petal_width <= 0.80`
//! rather than `feature_3 <= 0.80`; [`ExportOptions::feature_names`] still overrides them.
//! Categorical splits print category codes (`feature_3 in {0,2,5}`): datasets carry no
//! category names.
//!
//! ## Categorical features
//!
//! Columns named in `categorical_features` hold category codes, integers `0..=63` stored as
//! `f64` (NaN for missing with `missing_values`); other values are refused, naming their row
//! and column, and a column with more categories must be one-hot encoded. Such a column
//! splits by subsets, "`x[j]` ∈ S goes left". The node's categories, with its missing values
//! as one more group, are searched as follows:
//!
//! - two classes (any criterion) and `squared_error`: groups ordered by share of class 1 /
//!   mean target, and the ordered prefixes scanned, which finds the best subset (Fisher 1958;
//!   Breiman et al., CART, 1984);
//! - more classes and `absolute_error`: every subset when the node has at most 10 groups
//!   (`2^(g−1) − 1` splits); beyond that the ordered prefixes, ordered by the share of the
//!   node's most frequent class / the mean target (a heuristic there).
//!
//! A code no training sample of a node had (unseen categories, codes ≥ 64) goes where that
//! node sends missing values: learned if it saw some, else to the child with more samples.
//! Categorical splits render as `feature_3 in {0,2,5}` and read through
//! [`Node::left_categories`]. Forests and AdaBoost take the same setter; the random
//! splitter (extra trees) refuses it.
//!
//! ```
//! use margin_core::{Dataset, Fit};
//! use margin_tree::DecisionTreeClassifier;
//!
//! // Class 1 exactly for codes 1 and 3: one subset split, where thresholds need three.
//! let codes = [[0.0], [1.0], [2.0], [3.0], [0.0], [3.0]];
//! let data = Dataset::classification(&codes, [0, 1, 0, 1, 0, 1])?;
//! let tree = DecisionTreeClassifier::params().categorical_features([0]).fit(&data)?;
//! assert_eq!(tree.n_leaves(), 2);
//! assert_eq!(tree.tree().node(0).left_categories(), Some(vec![0, 2]));
//! assert_eq!(tree.prune_pessimistic(0.25)?.n_leaves(), 2);
//! # Ok::<(), margin_core::Error>(())
//! ```
//!
//! ## Pruning
//!
//! - `ccp_alpha` (a parameter): minimal cost-complexity pruning, as scikit-learn.
//! - `prune_reduced_error(&validation)` (on a fitted classifier or regressor): Quinlan's
//!   reduced-error pruning against a validation set.
//! - `prune_pessimistic(confidence)` (on a fitted classifier): C4.5's error-based pruning at
//!   confidence factor CF (C4.5's default 0.25), without subtree raising.
//!
//! ## Hyperparameters
//!
//! Every tree-based params type has the growth setters (defaults as scikit-learn):
//!
//! | setter | default | meaning |
//! |---|---|---|
//! | `criterion` | `Gini` / `SquaredError` | [`Criterion`]: gini, entropy, log_loss, squared_error, absolute_error |
//! | `max_depth` | `None` | deepest level (root at 0) |
//! | `min_samples_split` | 2 | smallest node that may be split ([`MinSamples`]: a count, or a fraction of the samples) |
//! | `min_samples_leaf` | 1 | fewest samples on each side of a split (count or fraction) |
//! | `min_weight_fraction_leaf` | 0 | least fraction of the total weight on each side of a split |
//! | `max_leaf_nodes` | `None` | grow best-first up to this many leaves |
//! | `min_impurity_decrease` | 0 | least weighted impurity decrease of a split |
//! | `max_features` | `All` (trees), `Sqrt` (forest classifier), `All` (forest regressor) | [`MaxFeatures`] examined per node |
//! | `splitter` | `Best` | [`SplitStrategy`]: best thresholds, or one random threshold per feature |
//! | `missing_values` | false | accept NaN; each split learns where missing values go (scikit-learn ≥ 1.3's rule) |
//! | `categorical_features` | none | columns of category codes `0..=63`, split by subsets (see above) |
//! | `ccp_alpha` | 0 | minimal cost-complexity pruning after growth (see [`PruningPath`] and `cost_complexity_pruning_path` on the tree params) |
//!
//! Per model:
//!
//! | model | setter | default | meaning |
//! |---|---|---|---|
//! | [`DecisionTreeClassifier`] | `class_weight` | uniform | `ClassWeight`, incl. balanced |
//! | | `seed` | 0 | random feature subsets (with `max_features`) |
//! | [`DecisionTreeRegressor`] | `seed` | 0 | random feature subsets |
//! | [`RandomForestClassifier`], [`RandomForestRegressor`] | `n_estimators` | 100 | trees |
//! | | `bootstrap` | true | trees on bootstrap samples |
//! | | `oob_score` | false | out-of-bag accuracy / R² |
//! | | `seed` | 0 | bootstraps and feature subsets; same seed, same forest on any thread count |
//! | | `class_weight` (classifier) | uniform | class weights |
//! | [`AdaBoostClassifier`] | `n_estimators` | 50 | boosting rounds |
//! | | `learning_rate` | 1.0 | shrinks each learner's vote |
//! | | `max_depth` | 1 | weak learner depth (a stump) |
//! | | `seed` | 0 | learners' feature subsets |
//!
//! Extremely randomized trees (scikit-learn's `ExtraTreesClassifier` / `Regressor`) are the
//! forests with [`SplitStrategy::Random`]: `RandomForestClassifierParams::extra_trees()` and
//! `RandomForestRegressorParams::extra_trees()` give scikit-learn's defaults.
//!
//! Post-fit pruning methods (not parameters, as they need a validation set or act on a fitted
//! tree):
//!
//! | model | method | argument | meaning |
//! |---|---|---|---|
//! | [`DecisionTreeClassifier`] | `prune_reduced_error` | validation `Dataset` | collapse branches that do not lower the validation misclassifications |
//! | | `prune_pessimistic` | CF in `(0, 0.5]` (C4.5: 0.25) | collapse branches whose pessimistic error estimate is no better than a leaf's |
//! | [`DecisionTreeRegressor`] | `prune_reduced_error` | validation `Dataset` | the same with the squared error |

#![forbid(unsafe_code)]

mod adaboost;
mod classifier;
mod criterion;
mod data;
mod export;
mod forest;
pub mod gradient_boosting;
mod grow;
mod model;
mod params;
mod prune;
mod regressor;
mod splitter;
mod steps;
mod tree;

pub use adaboost::{AdaBoostClassifier, AdaBoostClassifierParams};
pub use classifier::{DecisionTreeClassifier, DecisionTreeClassifierParams};
pub use criterion::Criterion;
pub use export::{ExportOptions, export_dot, export_text};
pub use forest::{
    RandomForestClassifier, RandomForestClassifierParams, RandomForestRegressor,
    RandomForestRegressorParams,
};
pub use gradient_boosting::{
    BoostingStep, BoostingSums, EarlyStopping, GradientBoostingClassifier,
    GradientBoostingClassifierParams, GradientBoostingRegressor, GradientBoostingRegressorParams,
    RegressionLoss,
};
pub use params::{Columns, MaxFeatures, MinSamples, SplitStrategy};
pub use prune::PruningPath;
pub use regressor::{DecisionTreeRegressor, DecisionTreeRegressorParams};
pub use tree::{Node, Tree};

/// Writes margin-core's shared traits (`NFeatures`, `Hyperparams`) for every model of the
/// crate, so that a new model is listed once and gets both.
macro_rules! impl_model_traits {
    ($($model:ty),+ $(,)?) => {
        margin_core::impl_n_features!($($model),+);
        margin_core::impl_hyperparams!($($model),+);
    };
}
impl_model_traits!(
    AdaBoostClassifier,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
);
margin_core::impl_iterative!(GradientBoostingClassifier, GradientBoostingRegressor);
