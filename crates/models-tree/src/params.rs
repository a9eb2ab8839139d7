//! The hyperparameters that shape one tree, shared by every model of the crate.

use std::fmt;
use std::str::FromStr;

use std::borrow::Cow;

use margin_core::params::{ParamType, Params, Value};
use margin_core::{Dataset, Error, Result};
use serde::{Deserialize, Serialize};

use crate::criterion::Criterion;
use crate::grow::{Presorted, Settings};

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

/// Refuses a `min_samples_leaf` of `leaf ≥ 2` samples when the `n` samples trees are grown on
/// cannot give two leaves of it (`n < 2 · leaf`): no node could ever split and the fit would
/// silently be a constant model. `given` is the value as the user gave it, `samples` says
/// which samples `n` counts. A `leaf` of 1 passes whatever `n`: lowering it cannot help.
pub(crate) fn check_leaf_can_split(
    given: impl fmt::Display,
    leaf: usize,
    n: usize,
    samples: &str,
) -> Result<()> {
    if leaf < 2 || n >= 2 * leaf {
        return Ok(());
    }
    Err(Error::invalid_parameter(
        "min_samples_leaf",
        format!("{given} with {samples}"),
        format!(
            "at most n/2 = {} for n = {n} samples, so that a node can split into two leaves \
             (else the fit is a constant model): lower min_samples_leaf or give at least {} \
             samples",
            n / 2,
            2 * leaf
        ),
    ))
}

/// A least number of samples (scikit-learn's `min_samples_split` / `min_samples_leaf`,
/// which take an int or a float): a count, or a fraction of the training samples (all rows,
/// as scikit-learn's `n_samples`), rounded up. `From<usize>` gives a count, `From<f64>` a
/// fraction, so `.min_samples_leaf(5)` and `.min_samples_leaf(0.01)` both read as in Python.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum MinSamples {
    /// This many samples.
    Count(usize),
    /// `⌈fraction · n_samples⌉` samples.
    Fraction(f64),
}

impl From<usize> for MinSamples {
    fn from(n: usize) -> Self {
        MinSamples::Count(n)
    }
}

impl From<f64> for MinSamples {
    fn from(f: f64) -> Self {
        MinSamples::Fraction(f)
    }
}

impl MinSamples {
    /// The count for `n` training samples: a count must be at least `least`; a fraction
    /// must lie in `(0, 1]` (`(0, 1)` when `least` is 1, as scikit-learn's
    /// `min_samples_leaf`), and gives at least `least`.
    fn resolve(self, name: &str, least: usize, n: usize) -> Result<usize> {
        let below_one = least == 1;
        match self {
            MinSamples::Count(k) if k >= least => Ok(k),
            MinSamples::Count(k) => Err(Error::invalid_parameter(
                name,
                k,
                format!("an integer ≥ {least}, or a fraction"),
            )),
            MinSamples::Fraction(f) if f > 0.0 && (f < 1.0 || (f == 1.0 && !below_one)) => {
                Ok(((f * n as f64).ceil() as usize).max(least))
            }
            MinSamples::Fraction(f) => Err(Error::invalid_parameter(
                name,
                f,
                if below_one {
                    "a fraction in (0, 1), or an integer ≥ 1"
                } else {
                    "a fraction in (0, 1], or an integer ≥ 2"
                },
            )),
        }
    }
}

impl fmt::Display for MinSamples {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MinSamples::Count(k) => write!(f, "{k}"),
            MinSamples::Fraction(x) => write!(f, "{x:?}"),
        }
    }
}

impl FromStr for MinSamples {
    type Err = Error;

    /// An integer count (`5`) or a fraction written with a decimal point (`0.01`), as
    /// scikit-learn tells ints from floats.
    fn from_str(s: &str) -> Result<Self> {
        let parsed = if s.contains(['.', 'e']) {
            s.parse().ok().map(MinSamples::Fraction)
        } else {
            s.parse().ok().map(MinSamples::Count)
        };
        parsed.ok_or_else(|| {
            Error::invalid_parameter(
                "min_samples",
                s,
                "a count (5) or a fraction of the samples (0.01)",
            )
        })
    }
}

/// The `expected` part of a parse error (what [`ParamType::parse`] reports).
pub(crate) fn expected(e: Error) -> String {
    match e {
        Error::InvalidParameter { expected, .. } => expected,
        other => other.to_string(),
    }
}

/// `all`, `sqrt`, `log2`, a count or a fraction (as [`FromStr`] reads them). Any count or
/// fraction reads; the range is checked against the data at fit time.
impl ParamType for MaxFeatures {
    fn kind() -> Cow<'static, str> {
        "all|sqrt|log2|<int>|<fraction>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        text.trim().parse().map_err(expected)
    }
    fn to_value(&self) -> Value {
        match *self {
            MaxFeatures::Count(k) => k.to_value(),
            MaxFeatures::Fraction(f) => Value::Float(f),
            other => Value::Text(other.to_string()),
        }
    }
}

/// A count (`5`) or a fraction (`0.01`), as [`FromStr`] reads them.
impl ParamType for MinSamples {
    fn kind() -> Cow<'static, str> {
        "<int>|<fraction>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        text.trim().parse().map_err(expected)
    }
    fn to_value(&self) -> Value {
        match *self {
            MinSamples::Count(k) => k.to_value(),
            MinSamples::Fraction(f) => Value::Float(f),
        }
    }
}

/// Column indices (scikit-learn's `categorical_features` as a list of indices), written
/// `0,3,5`; `none` for no column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns(pub Vec<usize>);

impl ParamType for Columns {
    fn kind() -> Cow<'static, str> {
        "none|<int>,<int>,...".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        let text = text.trim();
        if text == "none" || text.is_empty() {
            return Ok(Columns(Vec::new()));
        }
        text.split(',')
            .map(|c| c.trim().parse())
            .collect::<std::result::Result<_, _>>()
            .map(Columns)
            .map_err(|_| "none, or column indices (from 0) such as 0,3,5".to_owned())
    }
    fn to_value(&self) -> Value {
        if self.0.is_empty() {
            return Value::None;
        }
        let list: Vec<String> = self.0.iter().map(usize::to_string).collect();
        Value::Text(list.join(","))
    }
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

margin_core::param_choice!(SplitStrategy { Best => "best", Random => "random" });

/// Growth hyperparameters, with scikit-learn's names and defaults: a settings block every
/// tree-based params type flattens (their builder methods are generated onto each). The
/// defaults are the decision tree classifier's; each model gives its own through
/// [`Growth::new`]. `criterion`'s allowed values are each model's (`valid_for`).
// The field docs are also the docs of the builder methods generated onto the params types of
// other modules, where `MinSamples`, `MaxFeatures`, … are not in scope: their links name
// `crate::…` explicitly, which rustdoc finds redundant here only.
#[allow(rustdoc::redundant_explicit_links)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(
    block,
    order(
        criterion,
        splitter,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        min_weight_fraction_leaf,
        max_features,
        max_leaf_nodes,
        min_impurity_decrease,
        ccp_alpha,
        missing_values,
        categorical_features,
    ),
    check = Growth::check_categorical_splitter
)]
pub(crate) struct Growth {
    /// Split criterion (see [`Criterion`](crate::Criterion)).
    #[param(help = "split quality measure", default = crate::Criterion::Gini)]
    pub(crate) criterion: crate::Criterion,
    /// Maximum depth (default none: grow until leaves are pure or too small to split; ≥ 1).
    #[param(
        help = "maximum depth (none: grow until the leaves are pure or too small to split)",
        valid = ("at least 1, or none (grow until the leaves are pure)", |d| *d != Some(0))
    )]
    pub(crate) max_depth: Option<usize>,
    /// A node with fewer samples is not split (default 2): a count ≥ 2, or a fraction in
    /// `(0, 1]` of the training samples, rounded up (see
    /// [`MinSamples`](crate::MinSamples)).
    #[param(
        help = "a node with fewer samples is not split: a count ≥ 2, or a fraction in (0, 1] of the samples",
        default = crate::MinSamples::Count(2),
        setter(into)
    )]
    pub(crate) min_samples_split: crate::MinSamples,
    /// A split must leave at least this many samples on each side (default 1): a count
    /// ≥ 1, or a fraction in `(0, 1)` of the training samples, rounded up. A count of 2 or
    /// more on fewer than twice as many training samples is refused: no node could split.
    #[param(
        help = "fewest samples on each side of a split: a count ≥ 1, or a fraction in (0, 1) of the samples",
        default = crate::MinSamples::Count(1),
        setter(into)
    )]
    pub(crate) min_samples_leaf: crate::MinSamples,
    /// A split must leave at least this fraction of the total sample weight (sample ×
    /// class weights; bootstrap counts in a forest) on each side (default 0, in
    /// `[0, 0.5]`).
    #[param(
        help = "fewest share of the total sample weight on each side of a split",
        valid = ("a fraction in [0, 0.5]", |f| (0.0..=0.5).contains(f))
    )]
    pub(crate) min_weight_fraction_leaf: f64,
    /// Grow best-first (largest impurity decrease first) up to this many leaves (default
    /// none: depth-first, unlimited; ≥ 2).
    #[param(
        help = "grow best-first up to this many leaves (none: depth-first, unlimited)",
        valid = ("an integer ≥ 2, or none", |k| k.is_none_or(|k| k >= 2))
    )]
    pub(crate) max_leaf_nodes: Option<usize>,
    /// A node is split only if `w_node/w_total · (imp − w_l/w_node · imp_l − w_r/w_node ·
    /// imp_r)` reaches this (scikit-learn's formula; default 0, ≥ 0).
    #[param(
        help = "a node is split only if the weighted impurity decrease reaches this",
        valid = ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0)
    )]
    pub(crate) min_impurity_decrease: f64,
    /// Features examined per node (see [`MaxFeatures`](crate::MaxFeatures)).
    #[param(
        help = "features examined per node: all, sqrt, log2, a count, or a fraction of the features",
        default = crate::MaxFeatures::All
    )]
    pub(crate) max_features: crate::MaxFeatures,
    /// Minimal cost-complexity pruning: after growth, collapse every branch whose
    /// effective alpha is at most this (default 0: no pruning; ≥ 0). See
    /// [`PruningPath`](crate::PruningPath) for the alphas that change the tree.
    #[param(
        help = "minimal cost-complexity pruning: collapse the branches whose effective alpha is at most this",
        valid = ("a finite number ≥ 0", |v| v.is_finite() && *v >= 0.0)
    )]
    pub(crate) ccp_alpha: f64,
    /// Accept missing values (NaN) in the records, at fit and predict (default false:
    /// NaN is refused as `Error::NonFinite`). Each split then learns where missing values
    /// go, as scikit-learn ≥ 1.3 does: both directions are scored at every threshold,
    /// and "present left, missing right" is a split of its own (threshold +∞). Where a
    /// node saw no missing value of its split feature, they follow the larger child.
    #[param(help = "accept NaN as missing (each split learns where missing values go)")]
    pub(crate) missing_values: bool,
    /// Best or random thresholds (see [`SplitStrategy`](crate::SplitStrategy); default
    /// best, extra-trees forests random). Random thresholds send missing values right.
    #[param(
        help = "best thresholds (CART), or one random threshold per feature (extremely randomized trees)",
        default = crate::SplitStrategy::Best
    )]
    pub(crate) splitter: crate::SplitStrategy,
    /// Columns whose values are category codes (default none): non-negative integers
    /// below 64 stored as `f64`, NaN for missing with `missing_values`; one-hot encode a
    /// column with more categories. Such a column splits by subsets, "code ∈ S goes left",
    /// the best subset found exactly for two classes and squared error (Breiman's
    /// ordering), by trying every subset otherwise (up to 10 categories in a node, else
    /// Breiman's ordering by the share of the node's majority class, or the mean target).
    /// At predict, a code the node never saw in training goes where missing values go.
    /// Not combined with the random splitter.
    #[param(
        help = "columns (from 0) of category codes 0..63, split by subsets",
        ty = crate::Columns,
        get = |p| crate::Columns(p.categorical_features.clone()),
        set = |p, v| p.categorical_features = v.0,
        setter(into)
    )]
    pub(crate) categorical_features: Vec<usize>,
}

impl Growth {
    /// The defaults with a model's own criterion and `max_features`.
    pub(crate) fn new(criterion: Criterion, max_features: MaxFeatures) -> Self {
        Self {
            criterion,
            max_features,
            ..Self::default()
        }
    }

    /// What every tree fit grows from: the [`settings`](Self::settings) for `data`, then its
    /// records sorted per feature.
    pub(crate) fn prepare(
        &self,
        data: &Dataset,
        seed: u64,
        parallel: bool,
    ) -> Result<(Settings, Presorted)> {
        let settings = self.settings(data, seed, parallel)?;
        Ok((settings, Presorted::new(&data.records)?))
    }

    /// The settings for `data`, checking what depends on it (category codes and columns,
    /// `min_samples_*` and `max_features` against its size); the params' own check comes first.
    pub(crate) fn settings(&self, data: &Dataset, seed: u64, parallel: bool) -> Result<Settings> {
        let d = data.n_features();
        let categorical = self.categorical_mask(d)?;
        if !categorical.is_empty() {
            crate::data::check_codes(&data.records, &categorical, true)?;
        }
        let n = data.n_samples();
        let min_samples_split = self.min_samples_split.resolve("min_samples_split", 2, n)?;
        let min_samples_leaf = self.min_samples_leaf.resolve("min_samples_leaf", 1, n)?;
        let given = match self.min_samples_leaf {
            MinSamples::Fraction(f) => format!("{f} (⌈{f} · {n}⌉ = {min_samples_leaf} samples)"),
            MinSamples::Count(k) => k.to_string(),
        };
        // Counted on the samples the fit is given, not on a forest tree's bootstrap draw
        // (which differs per tree): below 2 · leaf of them no tree of any draw can split.
        check_leaf_can_split(given, min_samples_leaf, n, &format!("{n} training samples"))?;
        Ok(Settings {
            criterion: self.criterion,
            max_depth: self.max_depth.unwrap_or(usize::MAX),
            // As scikit-learn: a node that cannot give two leaves of min_samples_leaf is a leaf.
            min_samples_split: min_samples_split.max(2 * min_samples_leaf),
            min_samples_leaf,
            min_weight_fraction_leaf: self.min_weight_fraction_leaf,
            max_leaf_nodes: self.max_leaf_nodes,
            min_impurity_decrease: self.min_impurity_decrease,
            max_features: self.max_features.resolve(d)?,
            ccp_alpha: self.ccp_alpha,
            missing: self.missing_values,
            categorical,
            random_splits: self.splitter == SplitStrategy::Random,
            seed,
            parallel,
        })
    }
}

impl Growth {
    /// Per feature, whether it is declared categorical (empty when none is).
    fn categorical_mask(&self, d: usize) -> Result<Vec<bool>> {
        let cols = &self.categorical_features;
        if cols.is_empty() {
            return Ok(Vec::new());
        }
        let mut mask = margin_core::memory::filled_vec(
            d,
            false,
            "the categorical feature mask",
            margin_core::memory::FEWER_FEATURES,
        )?;
        for &j in cols {
            if j >= d || mask[j] {
                return Err(Error::invalid_parameter(
                    "categorical_features",
                    format!("{cols:?}"),
                    format!("distinct column indices below {d} (the number of features)"),
                ));
            }
            mask[j] = true;
        }
        Ok(mask)
    }

    /// The rule between growth parameters (their ranges are on the fields).
    fn check_categorical_splitter(&self) -> Result<()> {
        let cols = &self.categorical_features;
        if !cols.is_empty() && self.splitter == SplitStrategy::Random {
            return Err(Error::invalid_parameter(
                "categorical_features",
                format!("{cols:?}"),
                "none with splitter random (random thresholds are for ordered features)",
            ));
        }
        Ok(())
    }
}

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
