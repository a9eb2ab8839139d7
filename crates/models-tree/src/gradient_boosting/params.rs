//! The hyperparameters both boosters share, with scikit-learn's names and defaults, and their
//! checks.

use serde::{Deserialize, Serialize};

/// When to stop adding trees before `max_iter` (scikit-learn's `early_stopping`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EarlyStopping {
    /// On when the training set has more than 10 000 samples (scikit-learn's `"auto"`).
    #[default]
    Auto,
    /// Hold out `validation_fraction` of the samples and stop when their loss has not
    /// improved by more than `tol` for `n_iter_no_change` iterations.
    On,
    /// Always grow `max_iter` iterations on every sample.
    Off,
}

/// Hyperparameters shared by both estimators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Boosting {
    pub(crate) learning_rate: f64,
    pub(crate) max_iter: usize,
    pub(crate) max_leaf_nodes: Option<usize>,
    pub(crate) max_depth: Option<usize>,
    pub(crate) min_samples_leaf: usize,
    pub(crate) l2_regularization: f64,
    pub(crate) max_bins: usize,
    pub(crate) early_stopping: EarlyStopping,
    pub(crate) validation_fraction: f64,
    pub(crate) n_iter_no_change: usize,
    pub(crate) tol: f64,
    pub(crate) subsample: f64,
    pub(crate) allow_missing: bool,
    pub(crate) seed: u64,
}

impl Default for Boosting {
    fn default() -> Self {
        Self {
            learning_rate: 0.1,
            max_iter: 100,
            max_leaf_nodes: Some(31),
            max_depth: None,
            min_samples_leaf: 20,
            l2_regularization: 0.0,
            max_bins: 255,
            early_stopping: EarlyStopping::Auto,
            validation_fraction: 0.1,
            n_iter_no_change: 10,
            tol: 1e-7,
            subsample: 1.0,
            allow_missing: true,
            seed: 0,
        }
    }
}

margin_core::param_choice!(EarlyStopping { Auto => "auto", On => "true", Off => "false" });

/// Implements [`margin_core::params::Params`] for a booster's params (a type with a `boosting`
/// field): the entries of `head`, then the shared ones in scikit-learn's order, then those of
/// `tail`.
macro_rules! boosting_params {
    ($t:ty { $($head:tt)* } { $($tail:tt)* }) => {
        margin_core::params! {
            $t {
                $($head)*
                learning_rate: f64 {
                    at: boosting.learning_rate,
                    help: "shrinkage applied to every leaf value",
                    valid: ("a finite number > 0", |v| v.is_finite() && *v > 0.0),
                },
                max_iter: usize {
                    at: boosting.max_iter,
                    help: "boosting iterations, each adding one tree (one per class for more than two classes)",
                    valid: ("an integer ≥ 1", |v| *v >= 1),
                },
                max_leaf_nodes: Option<usize> {
                    at: boosting.max_leaf_nodes,
                    help: "leaves per tree, grown best-first (none: no limit)",
                    valid: ("an integer ≥ 2, or none", |v| v.is_none_or(|m| m >= 2)),
                },
                max_depth: Option<usize> {
                    at: boosting.max_depth,
                    help: "edges from the root to the deepest leaf (none: no limit)",
                    valid: ("an integer ≥ 1, or none", |v| *v != Some(0)),
                },
                min_samples_leaf: usize {
                    at: boosting.min_samples_leaf,
                    help: "fewest training samples in a leaf",
                    valid: ("an integer ≥ 1", |v| *v >= 1),
                },
                l2_regularization: f64 {
                    at: boosting.l2_regularization,
                    help: "L2 penalty on leaf values",
                    valid: ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0),
                },
                max_bins: usize {
                    at: boosting.max_bins,
                    help: "bins per feature for the non-missing values (missing values have one more)",
                    valid: (
                        "an integer in [2, 255] (one more bin is kept for missing values)",
                        |v| (2..=255).contains(v)
                    ),
                },
                early_stopping: EarlyStopping {
                    at: boosting.early_stopping,
                    help: "stop on a held-out loss; auto: when more than 10 000 samples",
                },
                validation_fraction: f64 {
                    at: boosting.validation_fraction,
                    help: "share of the samples held out for early stopping",
                    valid: ("a number in (0, 1)", |v| *v > 0.0 && *v < 1.0),
                    applies: ("with early_stopping true or auto", |p| p.boosting.early_stopping != EarlyStopping::Off),
                },
                n_iter_no_change: usize {
                    at: boosting.n_iter_no_change,
                    help: "iterations without improvement before early stopping stops",
                    valid: ("an integer ≥ 1", |v| *v >= 1),
                    applies: ("with early_stopping true or auto", |p| p.boosting.early_stopping != EarlyStopping::Off),
                },
                tol: f64 {
                    at: boosting.tol,
                    help: "smallest validation-loss improvement that counts",
                    valid: ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0),
                    applies: ("with early_stopping true or auto", |p| p.boosting.early_stopping != EarlyStopping::Off),
                },
                subsample: f64 {
                    at: boosting.subsample,
                    help: "share of the training samples each iteration grows on (drawn without replacement)",
                    valid: ("a number in (0, 1]", |v| *v > 0.0 && *v <= 1.0),
                },
                allow_missing: bool {
                    at: boosting.allow_missing,
                    help: "NaN means missing (each split learns where missing values go); false refuses NaN",
                },
                seed: u64 {
                    at: boosting.seed,
                    help: "seed of the binning subsample, the validation split and subsample",
                },
                $($tail)*
            }
        }
    };
}
pub(crate) use boosting_params;

/// Builder methods for the shared hyperparameters, on a params type with a `boosting` field.
macro_rules! boosting_setters {
    ($params:ty) => {
        impl $params {
            /// Shrinkage applied to every leaf value (default 0.1, > 0).
            pub fn learning_rate(mut self, v: f64) -> Self {
                self.boosting.learning_rate = v;
                self
            }
            /// Boosting iterations, each adding one tree (one per class for multiclass
            /// problems) (default 100, ≥ 1).
            pub fn max_iter(mut self, v: usize) -> Self {
                self.boosting.max_iter = v;
                self
            }
            /// Leaves per tree, grown best-first (default `Some(31)`, ≥ 2; `None`: no limit).
            pub fn max_leaf_nodes(mut self, v: Option<usize>) -> Self {
                self.boosting.max_leaf_nodes = v;
                self
            }
            /// Edges from the root to the deepest leaf (default `None`: no limit; ≥ 1).
            pub fn max_depth(mut self, v: Option<usize>) -> Self {
                self.boosting.max_depth = v;
                self
            }
            /// Fewest training samples in a leaf (default 20, ≥ 1). A fit whose trees would grow
            /// on fewer than twice as many samples (after early stopping's validation split,
            /// per `subsample` draw) is refused: no tree could split.
            pub fn min_samples_leaf(mut self, v: usize) -> Self {
                self.boosting.min_samples_leaf = v;
                self
            }
            /// L2 penalty λ on leaf values: a leaf is `−G / (H + λ)` (default 0, ≥ 0).
            pub fn l2_regularization(mut self, v: f64) -> Self {
                self.boosting.l2_regularization = v;
                self
            }
            /// Bins for the non-missing values of each feature (default 255, in [2, 255]);
            /// missing values have a bin of their own.
            pub fn max_bins(mut self, v: usize) -> Self {
                self.boosting.max_bins = v;
                self
            }
            /// When to stop before `max_iter` (default [`EarlyStopping::Auto`]).
            pub fn early_stopping(mut self, v: EarlyStopping) -> Self {
                self.boosting.early_stopping = v;
                self
            }
            /// Share of the samples held out to decide early stopping (default 0.1, in
            /// (0, 1)); stratified by class for the classifier.
            pub fn validation_fraction(mut self, v: f64) -> Self {
                self.boosting.validation_fraction = v;
                self
            }
            /// Iterations without an improvement of more than `tol` before early stopping
            /// stops (default 10, ≥ 1).
            pub fn n_iter_no_change(mut self, v: usize) -> Self {
                self.boosting.n_iter_no_change = v;
                self
            }
            /// Smallest validation-loss improvement that counts (default 1e-7, ≥ 0).
            pub fn tol(mut self, v: f64) -> Self {
                self.boosting.tol = v;
                self
            }
            /// Share of the training samples each iteration's trees are grown on, drawn
            /// without replacement (default 1, in (0, 1]). scikit-learn's
            /// `HistGradientBoosting*` have no such parameter; this is the classic
            /// `GradientBoosting*`'s `subsample` (stochastic gradient boosting).
            pub fn subsample(mut self, v: f64) -> Self {
                self.boosting.subsample = v;
                self
            }
            /// Whether NaN means "missing" (default true, as scikit-learn): each split learns
            /// which side missing values go to. With false, NaN is refused with
            /// [`Error::NonFinite`](margin_core::Error::NonFinite), as other margin models do.
            /// Infinite values are always refused.
            pub fn allow_missing(mut self, v: bool) -> Self {
                self.boosting.allow_missing = v;
                self
            }
            /// Seed of the binning subsample, the validation split and `subsample` (default 0).
            pub fn seed(mut self, v: u64) -> Self {
                self.boosting.seed = v;
                self
            }
        }
    };
}

pub(crate) use boosting_setters;
