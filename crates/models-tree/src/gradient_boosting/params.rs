//! The hyperparameters both boosters share, with scikit-learn's names and defaults, and their
//! checks.

use margin_core::params::Params;
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

/// Hyperparameters shared by both estimators: a settings block both params types flatten
/// (their builder methods are generated onto each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block)]
pub(crate) struct Boosting {
    /// Shrinkage applied to every leaf value (default 0.1, > 0).
    #[param(
        help = "shrinkage applied to every leaf value",
        default = 0.1,
        valid = ("a finite number > 0", |v| v.is_finite() && *v > 0.0)
    )]
    pub(crate) learning_rate: f64,
    /// Boosting iterations, each adding one tree (one per class for multiclass
    /// problems) (default 100, ≥ 1).
    #[param(
        help = "boosting iterations, each adding one tree (one per class for more than two classes)",
        default = 100,
        valid = ("an integer ≥ 1", |v| *v >= 1)
    )]
    pub(crate) max_iter: usize,
    /// Leaves per tree, grown best-first (default `Some(31)`, ≥ 2; `None`: no limit).
    #[param(
        help = "leaves per tree, grown best-first (none: no limit)",
        default = Some(31),
        valid = ("an integer ≥ 2, or none", |v| v.is_none_or(|m| m >= 2))
    )]
    pub(crate) max_leaf_nodes: Option<usize>,
    /// Edges from the root to the deepest leaf (default `None`: no limit; ≥ 1).
    #[param(
        help = "edges from the root to the deepest leaf (none: no limit)",
        valid = ("an integer ≥ 1, or none", |v| *v != Some(0))
    )]
    pub(crate) max_depth: Option<usize>,
    /// Fewest training samples in a leaf (default 20, ≥ 1). A fit whose trees would grow
    /// on fewer than twice as many samples (after early stopping's validation split,
    /// per `subsample` draw) is refused: no tree could split.
    #[param(
        help = "fewest training samples in a leaf",
        default = 20,
        valid = ("an integer ≥ 1", |v| *v >= 1)
    )]
    pub(crate) min_samples_leaf: usize,
    /// L2 penalty λ on leaf values: a leaf is `−G / (H + λ)` (default 0, ≥ 0).
    #[param(
        help = "L2 penalty on leaf values",
        default = 0.0,
        valid = ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0)
    )]
    pub(crate) l2_regularization: f64,
    /// Bins for the non-missing values of each feature (default 255, in [2, 255]);
    /// missing values have a bin of their own.
    #[param(
        help = "bins per feature for the non-missing values (missing values have one more)",
        default = 255,
        valid = (
            "an integer in [2, 255] (one more bin is kept for missing values)",
            |v| (2..=255).contains(v)
        )
    )]
    pub(crate) max_bins: usize,
    /// When to stop before `max_iter` (default [`EarlyStopping::Auto`](crate::EarlyStopping)).
    #[param(
        help = "stop on a held-out loss; auto: when more than 10 000 samples",
        default = crate::EarlyStopping::Auto
    )]
    pub(crate) early_stopping: crate::EarlyStopping,
    /// Share of the samples held out to decide early stopping (default 0.1, in
    /// (0, 1)); stratified by class for the classifier.
    #[param(
        help = "share of the samples held out for early stopping",
        default = 0.1,
        valid = ("a number in (0, 1)", |v| *v > 0.0 && *v < 1.0),
        applies = ("with early_stopping true or auto", |p| p.early_stopping != EarlyStopping::Off)
    )]
    pub(crate) validation_fraction: f64,
    /// Iterations without an improvement of more than `tol` before early stopping
    /// stops (default 10, ≥ 1).
    #[param(
        help = "iterations without improvement before early stopping stops",
        default = 10,
        valid = ("an integer ≥ 1", |v| *v >= 1),
        applies = ("with early_stopping true or auto", |p| p.early_stopping != EarlyStopping::Off)
    )]
    pub(crate) n_iter_no_change: usize,
    /// Smallest validation-loss improvement that counts (default 1e-7, ≥ 0).
    #[param(
        help = "smallest validation-loss improvement that counts",
        default = 1e-7,
        valid = ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0),
        applies = ("with early_stopping true or auto", |p| p.early_stopping != EarlyStopping::Off)
    )]
    pub(crate) tol: f64,
    /// Share of the training samples each iteration's trees are grown on, drawn
    /// without replacement (default 1, in (0, 1]). scikit-learn's
    /// `HistGradientBoosting*` have no such parameter; this is the classic
    /// `GradientBoosting*`'s `subsample` (stochastic gradient boosting).
    #[param(
        help = "share of the training samples each iteration grows on (drawn without replacement)",
        default = 1.0,
        valid = ("a number in (0, 1]", |v| *v > 0.0 && *v <= 1.0)
    )]
    pub(crate) subsample: f64,
    /// Whether NaN means "missing" (default true, as scikit-learn): each split learns
    /// which side missing values go to. With false, NaN is refused with
    /// [`Error::NonFinite`](margin_core::Error::NonFinite), as other margin models do.
    /// Infinite values are always refused.
    #[param(
        help = "NaN means missing (each split learns where missing values go); false refuses NaN",
        default = true
    )]
    pub(crate) allow_missing: bool,
    /// Seed of the binning subsample, the validation split and `subsample` (default 0).
    #[param(help = "seed of the binning subsample, the validation split and subsample")]
    pub(crate) seed: u64,
}

margin_core::param_choice!(EarlyStopping { Auto => "auto", On => "true", Off => "false" });
