//! The hyperparameters that shape one tree, shared by every model of the crate.

use std::fmt;
use std::str::FromStr;

use core_linalg::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::criterion::Criterion;
use crate::grow::Settings;

/// How many features a node examines when looking for its split (scikit-learn's
/// `max_features`). Fewer than all makes the trees of a forest differ from one another.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum MaxFeatures {
    /// Every feature (scikit-learn's `None`).
    All,
    /// `max(1, ⌊√d⌋)`.
    Sqrt,
    /// `max(1, ⌊log₂ d⌋)`.
    Log2,
    /// Exactly this many, `1..=d`.
    Count(usize),
    /// `max(1, ⌊fraction · d⌋)`, fraction in `(0, 1]`.
    Fraction(f64),
}

impl MaxFeatures {
    /// The number of features for `d` features, or an error naming the parameter.
    pub fn resolve(self, d: usize) -> Result<usize> {
        let k = match self {
            MaxFeatures::All => d,
            MaxFeatures::Sqrt => ((d as f64).sqrt() as usize).max(1),
            MaxFeatures::Log2 => ((d as f64).log2() as usize).max(1),
            MaxFeatures::Count(k) if (1..=d).contains(&k) => k,
            MaxFeatures::Count(k) => {
                return Err(Error::invalid_parameter(
                    "max_features",
                    k,
                    format!("a count in 1..={d} (the number of features)"),
                ));
            }
            MaxFeatures::Fraction(f) if f > 0.0 && f <= 1.0 => ((f * d as f64) as usize).max(1),
            MaxFeatures::Fraction(f) => {
                return Err(Error::invalid_parameter(
                    "max_features",
                    f,
                    "a fraction in (0, 1]",
                ));
            }
        };
        Ok(k.min(d).max(1))
    }
}

impl fmt::Display for MaxFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxFeatures::All => f.write_str("all"),
            MaxFeatures::Sqrt => f.write_str("sqrt"),
            MaxFeatures::Log2 => f.write_str("log2"),
            MaxFeatures::Count(k) => write!(f, "{k}"),
            MaxFeatures::Fraction(x) => write!(f, "{x:?}"),
        }
    }
}

impl FromStr for MaxFeatures {
    type Err = Error;

    /// `all` (or `none`), `sqrt`, `log2`, an integer count, or a fraction written with a
    /// decimal point (`0.5`, `1.0`), as scikit-learn tells ints from floats.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "all" | "none" | "None" => Ok(MaxFeatures::All),
            "sqrt" => Ok(MaxFeatures::Sqrt),
            "log2" => Ok(MaxFeatures::Log2),
            _ if s.contains(['.', 'e']) => s
                .parse()
                .map(MaxFeatures::Fraction)
                .map_err(|_| bad_max_features(s)),
            _ => s
                .parse()
                .map(MaxFeatures::Count)
                .map_err(|_| bad_max_features(s)),
        }
    }
}

fn bad_max_features(s: &str) -> Error {
    Error::invalid_parameter(
        "max_features",
        s,
        "all, sqrt, log2, a count (3) or a fraction (0.5)",
    )
}

/// How a node chooses its split among the examined features (scikit-learn's `splitter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SplitStrategy {
    /// The best threshold of every examined feature (CART).
    Best,
    /// One threshold drawn uniformly between each examined feature's smallest and largest
    /// value in the node; the best of those (extremely randomized trees).
    Random,
}

/// Growth hyperparameters, with scikit-learn's names and defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Growth {
    pub(crate) criterion: Criterion,
    pub(crate) max_depth: Option<usize>,
    pub(crate) min_samples_split: usize,
    pub(crate) min_samples_leaf: usize,
    pub(crate) max_leaf_nodes: Option<usize>,
    pub(crate) min_impurity_decrease: f64,
    pub(crate) max_features: MaxFeatures,
    pub(crate) ccp_alpha: f64,
    pub(crate) missing_values: bool,
    pub(crate) splitter: SplitStrategy,
}

impl Growth {
    pub(crate) fn new(criterion: Criterion, max_features: MaxFeatures) -> Self {
        Self {
            criterion,
            max_depth: None,
            min_samples_split: 2,
            min_samples_leaf: 1,
            max_leaf_nodes: None,
            min_impurity_decrease: 0.0,
            max_features,
            ccp_alpha: 0.0,
            missing_values: false,
            splitter: SplitStrategy::Best,
        }
    }

    /// Validates the parameters for `d` features.
    pub(crate) fn settings(
        &self,
        classification: bool,
        d: usize,
        seed: u64,
        parallel: bool,
    ) -> Result<Settings> {
        self.criterion.check_for(classification)?;
        if self.max_depth == Some(0) {
            return Err(Error::invalid_parameter(
                "max_depth",
                0,
                "at least 1, or none (grow until the leaves are pure)",
            ));
        }
        if self.min_samples_split < 2 {
            return Err(Error::invalid_parameter(
                "min_samples_split",
                self.min_samples_split,
                "an integer ≥ 2",
            ));
        }
        if self.min_samples_leaf < 1 {
            return Err(Error::invalid_parameter(
                "min_samples_leaf",
                self.min_samples_leaf,
                "an integer ≥ 1",
            ));
        }
        if let Some(k) = self.max_leaf_nodes
            && k < 2
        {
            return Err(Error::invalid_parameter(
                "max_leaf_nodes",
                k,
                "an integer ≥ 2, or none",
            ));
        }
        if !(self.min_impurity_decrease.is_finite() && self.min_impurity_decrease >= 0.0) {
            return Err(Error::invalid_parameter(
                "min_impurity_decrease",
                self.min_impurity_decrease,
                "a finite number ≥ 0",
            ));
        }
        if !(self.ccp_alpha.is_finite() && self.ccp_alpha >= 0.0) {
            return Err(Error::invalid_parameter(
                "ccp_alpha",
                self.ccp_alpha,
                "a finite number ≥ 0",
            ));
        }
        Ok(Settings {
            criterion: self.criterion,
            max_depth: self.max_depth.unwrap_or(usize::MAX),
            // As scikit-learn: a node that cannot give two leaves of min_samples_leaf is a leaf.
            min_samples_split: self.min_samples_split.max(2 * self.min_samples_leaf),
            min_samples_leaf: self.min_samples_leaf,
            max_leaf_nodes: self.max_leaf_nodes,
            min_impurity_decrease: self.min_impurity_decrease,
            max_features: self.max_features.resolve(d)?,
            ccp_alpha: self.ccp_alpha,
            missing: self.missing_values,
            random_splits: self.splitter == SplitStrategy::Random,
            seed,
            parallel,
        })
    }
}

/// The growth setters every tree-based params type offers, delegating to its `growth` field.
macro_rules! growth_setters {
    () => {
        /// Split criterion (see [`Criterion`](crate::Criterion)).
        pub fn criterion(mut self, criterion: $crate::Criterion) -> Self {
            self.growth.criterion = criterion;
            self
        }
        /// Maximum depth (default none: grow until leaves are pure or too small to split; ≥ 1).
        pub fn max_depth(mut self, max_depth: Option<usize>) -> Self {
            self.growth.max_depth = max_depth;
            self
        }
        /// A node with fewer samples is not split (default 2, ≥ 2).
        pub fn min_samples_split(mut self, n: usize) -> Self {
            self.growth.min_samples_split = n;
            self
        }
        /// A split must leave at least this many samples on each side (default 1, ≥ 1).
        pub fn min_samples_leaf(mut self, n: usize) -> Self {
            self.growth.min_samples_leaf = n;
            self
        }
        /// Grow best-first (largest impurity decrease first) up to this many leaves (default
        /// none: depth-first, unlimited; ≥ 2).
        pub fn max_leaf_nodes(mut self, n: Option<usize>) -> Self {
            self.growth.max_leaf_nodes = n;
            self
        }
        /// A node is split only if `w_node/w_total · (imp − w_l/w_node · imp_l − w_r/w_node ·
        /// imp_r)` reaches this (scikit-learn's formula; default 0, ≥ 0).
        pub fn min_impurity_decrease(mut self, v: f64) -> Self {
            self.growth.min_impurity_decrease = v;
            self
        }
        /// Minimal cost-complexity pruning: after growth, collapse every branch whose
        /// effective alpha is at most this (default 0: no pruning; ≥ 0). See
        /// [`PruningPath`](crate::PruningPath) for the alphas that change the tree.
        pub fn ccp_alpha(mut self, alpha: f64) -> Self {
            self.growth.ccp_alpha = alpha;
            self
        }
        /// Accept missing values (NaN) in the records, at fit and predict (default false:
        /// NaN is refused as `Error::NonFinite`). Each split then learns where missing values
        /// go, as scikit-learn ≥ 1.3 does: both directions are scored at every threshold,
        /// and "present left, missing right" is a split of its own (threshold +∞). Where a
        /// node saw no missing value of its split feature, they follow the larger child.
        pub fn missing_values(mut self, allow: bool) -> Self {
            self.growth.missing_values = allow;
            self
        }
        /// Best or random thresholds (see [`SplitStrategy`](crate::SplitStrategy); default
        /// best, extra-trees forests random). Random thresholds send missing values right.
        pub fn splitter(mut self, s: $crate::SplitStrategy) -> Self {
            self.growth.splitter = s;
            self
        }
        /// Features examined per node (see [`MaxFeatures`](crate::MaxFeatures)).
        pub fn max_features(mut self, m: $crate::MaxFeatures) -> Self {
            self.growth.max_features = m;
            self
        }
    };
}
pub(crate) use growth_setters;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_features_resolve_like_scikit_learn() {
        assert_eq!(MaxFeatures::Sqrt.resolve(22).unwrap(), 4);
        assert_eq!(MaxFeatures::Log2.resolve(22).unwrap(), 4);
        assert_eq!(MaxFeatures::Sqrt.resolve(1).unwrap(), 1);
        assert_eq!(MaxFeatures::Fraction(0.5).resolve(13).unwrap(), 6);
        assert_eq!(MaxFeatures::Fraction(0.01).resolve(13).unwrap(), 1);
        assert_eq!(MaxFeatures::All.resolve(13).unwrap(), 13);
        assert!(MaxFeatures::Count(14).resolve(13).is_err());
        assert!(MaxFeatures::Count(0).resolve(13).is_err());
        assert!(MaxFeatures::Fraction(1.5).resolve(13).is_err());
        assert_eq!(
            "0.5".parse::<MaxFeatures>().unwrap(),
            MaxFeatures::Fraction(0.5)
        );
        assert_eq!("3".parse::<MaxFeatures>().unwrap(), MaxFeatures::Count(3));
        assert_eq!("sqrt".parse::<MaxFeatures>().unwrap(), MaxFeatures::Sqrt);
        assert!("many".parse::<MaxFeatures>().is_err());
    }
}
