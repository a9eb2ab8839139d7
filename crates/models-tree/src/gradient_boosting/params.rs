//! The hyperparameters both boosters share, with scikit-learn's names and defaults, and their
//! validation.

use margin_core::{Error, Result};
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

impl Boosting {
    /// Checks every hyperparameter against its allowed range.
    pub(crate) fn check(&self) -> Result<()> {
        let bad = |name: &str, value: String, expected: &str| {
            Err(Error::invalid_parameter(name, value, expected))
        };
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(
                "learning_rate",
                self.learning_rate.to_string(),
                "a finite number > 0",
            );
        }
        if self.max_iter == 0 {
            return bad("max_iter", "0".into(), "an integer ≥ 1");
        }
        if let Some(m) = self.max_leaf_nodes
            && m < 2
        {
            return bad("max_leaf_nodes", m.to_string(), "an integer ≥ 2, or none");
        }
        if self.max_depth == Some(0) {
            return bad("max_depth", "0".into(), "an integer ≥ 1, or none");
        }
        if self.min_samples_leaf == 0 {
            return bad("min_samples_leaf", "0".into(), "an integer ≥ 1");
        }
        if !(self.l2_regularization.is_finite() && self.l2_regularization >= 0.0) {
            return bad(
                "l2_regularization",
                self.l2_regularization.to_string(),
                "a finite number ≥ 0",
            );
        }
        if !(2..=255).contains(&self.max_bins) {
            return bad(
                "max_bins",
                self.max_bins.to_string(),
                "an integer in [2, 255] (one more bin is kept for missing values)",
            );
        }
        if !(self.validation_fraction > 0.0 && self.validation_fraction < 1.0) {
            return bad(
                "validation_fraction",
                self.validation_fraction.to_string(),
                "a number in (0, 1)",
            );
        }
        if self.n_iter_no_change == 0 {
            return bad("n_iter_no_change", "0".into(), "an integer ≥ 1");
        }
        if !(self.tol.is_finite() && self.tol >= 0.0) {
            return bad("tol", self.tol.to_string(), "a finite number ≥ 0");
        }
        if !(self.subsample > 0.0 && self.subsample <= 1.0) {
            return bad(
                "subsample",
                self.subsample.to_string(),
                "a number in (0, 1]",
            );
        }
        Ok(())
    }
}

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
            /// Fewest training samples in a leaf (default 20, ≥ 1).
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
