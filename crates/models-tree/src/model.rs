//! The inherent methods the fitted models share, written once.
//!
//! The methods stay inherent (callers use them without importing a trait), so they are
//! generated inside each model's `impl` block: [`model_methods!`] reads the fields the models
//! have in common (`params`, `labels`, `feature_names`, `tree` or `trees`) by name.

/// Writes a group of shared methods into the `impl` block it is invoked in:
/// - `params P`: `params()` (the defaults of the params type `P`) and `hyperparams()`;
/// - `classes`: `classes()`, the sorted labels (field `labels`);
/// - `features FIELD`: `n_features()` of the tree at `self.FIELD` and `feature_names()`;
/// - `trees`: an ensemble's `trees()` (field `trees`) and its `features`;
/// - `export` / `export labels`: `export_options()` naming the features and the criterion
///   (and a classifier's classes, field `labels`);
/// - `one tree`: a single tree's `tree()`, `feature_importances()`, `depth()`,
///   `n_leaves()` and `apply()`;
/// - `boosting`: a gradient-boosted model's methods read from its `ensemble`, and the raw
///   predictions behind its `predict`;
/// - `pruning path`: a single tree's params' `cost_complexity_pruning_path()`, through their
///   `fit_parallel`.
macro_rules! model_methods {
    (params $params:ident) => {
        /// Default parameters.
        pub fn params() -> $params {
            $params::default()
        }
        #[doc = concat!(
            "The hyperparameters the model was fitted with (see [`",
            stringify!($params),
            "`])."
        )]
        pub fn hyperparams(&self) -> &$params {
            &self.params
        }
    };
    (classes) => {
        /// Class labels, sorted (scikit-learn's `classes_`).
        pub fn classes(&self) -> &[margin_core::Label] {
            &self.labels
        }
    };
    (features $($tree:tt)+) => {
        /// Number of features.
        pub fn n_features(&self) -> usize {
            self.$($tree)+.n_features()
        }
        /// The names of the features, from the dataset the model was fitted on (scikit-learn's
        /// `feature_names_in_`); `None` when it had none.
        pub fn feature_names(&self) -> Option<&[String]> {
            self.feature_names.get()
        }
    };
    (trees) => {
        /// The trees, in the order they were grown (a forest's seed order, AdaBoost's
        /// rounds).
        pub fn trees(&self) -> &[crate::Tree] {
            &self.trees
        }
        model_methods!(features trees[0]);
    };
    (export $($classes:ident)?) => {
        /// Options for [`export_text`](crate::export_text) / [`export_dot`](crate::export_dot)
        /// of the model's tree (of one of its trees for an ensemble), naming this model's
        /// features (when it has [`feature_names`](Self::feature_names)), classes (of a
        /// classifier) and criterion.
        pub fn export_options(&self) -> crate::ExportOptions<'_> {
            self.feature_names
                .export_options()
                $(.class_labels(&self.$classes))?
                .criterion(self.params.growth.criterion)
        }
    };
    (one tree) => {
        /// The tree: nodes, thresholds, per-node values (class counts or predictions).
        pub fn tree(&self) -> &crate::Tree {
            &self.tree
        }
        /// Normalized total impurity decrease per feature (scikit-learn's `feature_importances_`).
        pub fn feature_importances(&self) -> Vec<f64> {
            self.tree.feature_importances()
        }
        /// Depth of the tree (a lone leaf has depth 0).
        pub fn depth(&self) -> usize {
            self.tree.depth()
        }
        /// Number of leaves.
        pub fn n_leaves(&self) -> usize {
            self.tree.n_leaves()
        }
        /// The leaf (node id) each sample falls into.
        pub fn apply<R: margin_core::Records + ?Sized>(
            &self,
            records: &R,
        ) -> margin_core::Result<Vec<usize>> {
            crate::data::check_input(&self.tree, records)?;
            Ok(crate::data::map_rows(records, |row| self.tree.leaf_of(&row)))
        }
    };
    (boosting) => {
        /// Number of features.
        pub fn n_features(&self) -> usize {
            self.ensemble.n_features()
        }
        /// How the boosting loop went: one run of [`Self::n_iter`] rounds (fewer than
        /// `max_iter` when early stopping or an observer stopped it), at the limit when early
        /// stopping was on and `max_iter` rounds ran out while the held-out loss still
        /// improved by more than `tol` (more rounds would likely help); with early stopping
        /// off, never.
        pub fn fit_report(&self) -> margin_core::fit::FitReport {
            self.ensemble.fit_report(&self.params.boosting)
        }
        /// Negated mean loss on the held-out samples, as [`Self::train_score`].
        pub fn validation_score(&self) -> &[f64] {
            &self.ensemble.validation_score
        }
        /// Feature `j`'s bin edges: a value `x` is in bin `i` iff `edges[i-1] < x <= edges[i]`
        /// (empty for a feature constant in training). Panics if `j >= n_features()`.
        pub fn bin_edges(&self, j: usize) -> &[f64] {
            &self.ensemble.mapper.edges[j]
        }
        /// Gain-based feature importances, summing to 1 (0 everywhere if no tree split).
        pub fn feature_importances(&self) -> Vec<f64> {
            self.ensemble.feature_importances()
        }
        /// The raw predictions of `records` (one column per tree of an iteration), checked
        /// as the model's fit allowed.
        fn raw_predict<R: margin_core::Records + ?Sized>(
            &self,
            records: &R,
        ) -> margin_core::Result<margin_core::DenseMatrix> {
            let x = crate::gradient_boosting::booster::checked_predict(
                records,
                self.n_features(),
                self.params.boosting.allow_missing,
            )?;
            Ok(self.ensemble.raw_predict(x.view()))
        }
    };
    (pruning path) => {
        /// The pruning path of the tree these parameters grow on `data` (fitted without
        /// pruning): the effective alphas worth trying as `ccp_alpha` (scikit-learn's
        /// `cost_complexity_pruning_path`).
        pub fn cost_complexity_pruning_path(
            &self,
            data: &margin_core::Dataset,
        ) -> margin_core::Result<crate::PruningPath> {
            let mut unpruned = self.clone();
            unpruned.growth.ccp_alpha = 0.0;
            Ok(crate::prune::pruning_path(
                unpruned.fit_parallel(data, true)?.tree(),
            ))
        }
    };
}
pub(crate) use model_methods;

/// Writes `Predict` for a classifier with a `predict_indices` method: the labels of the
/// indices, and the class scores from the methods named (margin-core's `class_scores_from!`).
macro_rules! predict_labels {
    ($model:ty, $($scores:ident),+) => {
        impl margin_core::Predict for $model {
            type Output = Vec<margin_core::Label>;

            fn predict<R: margin_core::Records + ?Sized>(
                &self,
                records: &R,
            ) -> margin_core::Result<Vec<margin_core::Label>> {
                Ok(self
                    .predict_indices(records)?
                    .into_iter()
                    .map(|k| self.labels[k].clone())
                    .collect())
            }

            margin_core::class_scores_from!($($scores),+);
        }
    };
}
pub(crate) use predict_labels;
