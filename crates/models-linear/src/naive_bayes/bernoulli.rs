//! Bernoulli naive Bayes (scikit-learn's `BernoulliNB`), for binary features.

use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, FitStats, Label, Merge, PartialFit, Records, Result, validate,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use super::classes::check_trained;
use super::discrete::{
    self, CountModel, Counts, CountsSoFar, DiscreteParams, Reading, check_records_in,
    count_accessors, feature_major, linear_jll, table,
};
use super::{JointLogLikelihood, rows_in_parallel};

/// Parameters of [`BernoulliNB`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct BernoulliNBParams {
    /// `alpha`, `fit_prior` and `class_prior`, shared with `MultinomialNBParams`.
    #[param(flatten)]
    discrete: DiscreteParams,
    /// The threshold that makes features binary (default `Some(0.0)`): a value above it reads
    /// as 1 (present), any other as 0. `None` reads the values as they are; they must then lie
    /// in [0, 1] (binary already, or fractional evidence).
    #[param(
        help = "threshold above which a feature reads as present (none: values already in [0, 1])",
        default = Some(0.0),
        valid = (
            "a finite threshold, or None for records already in [0, 1]",
            |t| t.is_none_or(f64::is_finite)
        )
    )]
    binarize: Option<f64>,
}

impl BernoulliNBParams {
    fn reading(&self) -> Reading {
        self.binarize.map_or(Reading::Values, Reading::Threshold)
    }

    /// Without a threshold the values are probabilities of presence, so they must lie in [0, 1].
    fn check_records<R: Records + ?Sized>(&self, records: &R) -> Result<()> {
        match self.binarize {
            Some(_) => Ok(()),
            None => check_records_in(
                records,
                0.0,
                1.0,
                "values in [0, 1] when binarize is None (or set a binarize threshold)",
            ),
        }
    }
}

/// A fitted Bernoulli naive Bayes classifier: feature `j` of a class-`c` sample is present
/// with probability `p_cj = (N_cj + α) / (N_c + 2α)` (`N_cj`: weighted count of samples of
/// class `c` with the feature, `N_c`: of class `c`), and a sample `x` scores
/// `ln P(c) + Σ_j [x_j ln p_cj + (1 − x_j) ln(1 − p_cj)]`: an absent feature counts against
/// classes where it is common.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "BernoulliFile")]
pub struct BernoulliNB {
    params: BernoulliNBParams,
    counts: Counts,
    class_log_prior: Vec<f64>,
    feature_log_prob: DenseMatrix,
    /// `k × d`: `ln(1 − p_cj)`, from the counts (not `ln(1 − exp(ln p))`, which loses digits
    /// as `p → 1`).
    neg_log_prob: DenseMatrix,
    /// Per class, `ln P(c) + Σ_j ln(1 − p_cj)`: the score of an all-zero sample.
    base: Vec<f64>,
    /// `d × k`: `ln p_cj − ln(1 − p_cj)`, what a present feature adds. The sparse scoring
    /// reads only a sample's present features.
    by_feature: Vec<f64>,
    /// Some `p_cj` is exactly 0 or 1 (only with α = 0): the sums above would meet `∞ − ∞`,
    /// so samples are scored feature by feature instead.
    has_certain_features: bool,
}

/// The stored form: parameters and counts; the rest is recomputed (and so validated) on load.
#[derive(Serialize, Deserialize)]
struct BernoulliFile {
    params: BernoulliNBParams,
    counts: Counts,
}

impl TryFrom<BernoulliFile> for BernoulliNB {
    type Error = Error;

    fn try_from(f: BernoulliFile) -> Result<Self> {
        f.counts.check()?;
        let fc = &f.counts.feature_count;
        if (0..fc.nrows()).any(|c| fc.row(c).iter().any(|&n| n > f.counts.class_count[c])) {
            return Err(Error::model_file(
                "a feature is counted present more often than its class has samples",
            ));
        }
        discrete::load(f.params, f.counts)
    }
}

super::serialize_stored!(BernoulliNB, "BernoulliFile", BernoulliNBParams, counts: Counts);

impl BernoulliNB {
    /// The hyperparameters the model was fitted with (see [`BernoulliNBParams`]; checked as `fit` checks
    /// them when a file is loaded).
    pub fn hyperparams(&self) -> &BernoulliNBParams {
        &self.params
    }
    /// Default parameters.
    pub fn params() -> BernoulliNBParams {
        BernoulliNBParams::default()
    }

    /// A model that has seen no sample yet, for [`PartialFit`]: `classes` lists every class
    /// the stream may contain (at least two; sorted here, as `fit` sorts them), and every
    /// batch must have `n_features` columns.
    pub fn empty(params: BernoulliNBParams, classes: &[Label], n_features: usize) -> Result<Self> {
        discrete::empty(params, classes, n_features)
    }
}

impl CountModel for BernoulliNB {
    type Params = BernoulliNBParams;

    fn discrete(params: &BernoulliNBParams) -> &DiscreteParams {
        &params.discrete
    }

    fn reading(params: &BernoulliNBParams) -> Reading {
        params.reading()
    }

    fn check_records<R: Records + ?Sized>(params: &BernoulliNBParams, records: &R) -> Result<()> {
        params.check_records(records)
    }

    fn params_and_counts(&mut self) -> (&BernoulliNBParams, &mut Counts) {
        (&self.params, &mut self.counts)
    }

    fn from_counts(params: BernoulliNBParams, counts: Counts) -> Result<Self> {
        let mut model = Self {
            params,
            counts,
            class_log_prior: Vec::new(),
            feature_log_prob: DenseMatrix::zeros(0, 0),
            neg_log_prob: DenseMatrix::zeros(0, 0),
            base: Vec::new(),
            by_feature: Vec::new(),
            has_certain_features: false,
        };
        model.refresh()?;
        Ok(model)
    }

    /// Derives the smoothed log-probabilities from the counts (after every change of counts).
    /// Only the first call asks for memory (the `k × d` tables, then reused).
    fn refresh(&mut self) -> Result<()> {
        let counts = &self.counts;
        let (k, d) = (counts.labels.len(), counts.n_features());
        let alpha = self.params.discrete.alpha;
        let mut flp = table(
            &mut self.feature_log_prob,
            k,
            d,
            "naive Bayes's log-probabilities",
        )?;
        let mut neg = table(
            &mut self.neg_log_prob,
            k,
            d,
            "naive Bayes's log-probabilities of absence",
        )?;
        for c in 0..k {
            let n_c = counts.class_count[c];
            let (present, absent) = (flp.row_mut(c), neg.row_mut(c));
            if n_c + 2.0 * alpha > 0.0 {
                let log_total = (n_c + 2.0 * alpha).ln();
                for ((p, a), &n) in present
                    .iter_mut()
                    .zip(absent.iter_mut())
                    .zip(counts.feature_count.row(c))
                {
                    *p = (n + alpha).ln() - log_total;
                    // n ≤ n_c exactly: both are sums of the same non-negative weights (times
                    // values ≤ 1) in the same order, and rounding is monotone.
                    *a = (n_c - n + alpha).ln() - log_total;
                }
            } else {
                // Only with α = 0 and an empty class: the limit α → 0⁺, α/2α = 1/2.
                present.fill(-std::f64::consts::LN_2);
                absent.fill(-std::f64::consts::LN_2);
            }
        }
        let prior = self.params.discrete.class_log_prior(&counts.class_count);
        self.has_certain_features = flp
            .as_slice()
            .iter()
            .chain(neg.as_slice())
            .any(|v| v.is_infinite());
        self.base = (0..k)
            .map(|c| prior[c] + neg.row(c).iter().sum::<f64>())
            .collect();
        feature_major(k, d, &mut self.by_feature, |c, j| {
            flp.get(c, j) - neg.get(c, j)
        })?;
        self.class_log_prior = prior;
        self.feature_log_prob = flp;
        self.neg_log_prob = neg;
        Ok(())
    }
}

count_accessors!(BernoulliNB);

impl BernoulliNB {
    /// `k × d`: summed weight of the class-`c` samples in which feature `j` is present.
    pub fn feature_count(&self) -> &DenseMatrix {
        &self.counts.feature_count
    }
    /// `k × d`: `ln p_cj`, the smoothed log-probability that feature `j` is present in class `c`.
    pub fn feature_log_prob(&self) -> &DenseMatrix {
        &self.feature_log_prob
    }

    /// Scores every feature of every sample, with `0 · ln 0` taken as 0: the path for models
    /// with some `p_cj` exactly 0 or 1.
    fn certain_jll<R: Records + ?Sized>(&self, records: &R) -> DenseMatrix {
        let (k, d) = (self.counts.labels.len(), self.n_features());
        let read = |x: f64| match self.params.binarize {
            Some(t) => f64::from(u8::from(x > t)),
            None => x,
        };
        let term = |weight: f64, log_p: f64| if weight == 0.0 { 0.0 } else { weight * log_p };
        // Two terms per feature and class, each a comparison and a multiply-add.
        rows_in_parallel(records, k, 2 * d * k, |row, out, scratch| {
            scratch.resize(d, 0.0);
            row.to_dense_into(scratch);
            for (c, o) in out.iter_mut().enumerate() {
                let (p, a) = (self.feature_log_prob.row(c), self.neg_log_prob.row(c));
                *o = self.class_log_prior[c]
                    + (0..d)
                        .map(|j| {
                            let v = read(scratch[j]);
                            term(v, p[j]) + term(1.0 - v, a[j])
                        })
                        .sum::<f64>();
            }
        })
    }
}

impl Fit for BernoulliNBParams {
    type Model = BernoulliNB;

    fn fit(&self, data: &Dataset) -> Result<BernoulliNB> {
        discrete::fit(self, data)
    }
}

/// BernoulliNB's statistics: per class, the summed weight and the summed weight of samples
/// showing each feature (values read through the `binarize` threshold of the parameters that
/// made them), gathered batch by batch and merged across partitions (each may see any of the
/// classes); [`FitStats::fit_stats`] makes from them the model `fit` makes from the rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BernoulliNBStats {
    params: BernoulliNBParams,
    counts: CountsSoFar,
}

impl PartialFit<Dataset> for BernoulliNBStats {
    /// Adds a batch; a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        self.params.check_records(&batch.records)?;
        self.counts.absorb(batch, self.params.reading())
    }
}

impl Merge for BernoulliNBStats {
    /// Refuses statistics read through another `binarize` threshold.
    fn merge(&mut self, other: &Self) -> Result<()> {
        same_binarize(self.params.binarize, other.params.binarize)?;
        self.counts.merge(&other.counts)
    }
}

/// Refuses to combine counts read through different thresholds.
fn same_binarize(mine: Option<f64>, theirs: Option<f64>) -> Result<()> {
    if mine == theirs {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "binarize",
            format!("{theirs:?}"),
            format!(
                "{mine:?}, the threshold the statistics were read with (make them with this params value's stats())"
            ),
        ))
    }
}

impl FitStats for BernoulliNBParams {
    type Stats = BernoulliNBStats;

    fn stats(&self) -> BernoulliNBStats {
        BernoulliNBStats {
            params: self.clone(),
            counts: CountsSoFar::default(),
        }
    }

    fn fit_stats(&self, stats: &BernoulliNBStats) -> Result<BernoulliNB> {
        same_binarize(stats.params.binarize, self.binarize)?;
        discrete::fit_stats(self, &stats.counts)
    }
}

impl PartialFit<Dataset> for BernoulliNB {
    /// Adds a batch to the counts. The batch must have the model's width and only its classes;
    /// a refused batch leaves the model unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        discrete::partial_fit(self, batch)
    }
}

impl JointLogLikelihood for BernoulliNB {
    fn class_labels(&self) -> &[Label] {
        &self.counts.labels
    }

    fn joint_log_likelihood<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_features(), records)?;
        check_trained(&self.counts.class_count)?;
        self.params.check_records(records)?;
        Ok(if self.has_certain_features {
            self.certain_jll(records)
        } else {
            linear_jll(records, self.params.reading(), &self.base, &self.by_feature)
        })
    }
}

super::nb_predictions!(BernoulliNB);

impl ModelFile for BernoulliNB {
    const KIND: &'static str = "bernoulli-nb";
    const SCHEMA: u32 = 1;

    /// Nothing left to check: decoding goes through `TryFrom<BernoulliFile>`, which checks the stored
    /// statistics and parameters before the derived tables are computed from them (they must
    /// be, or computing the tables could index out of range).
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}
