//! Multinomial naive Bayes (scikit-learn's `MultinomialNB`), for counts.

use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, FitStats, Label, Merge, PartialFit, Records, Result, validate,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use super::JointLogLikelihood;
use super::classes::check_trained;
use super::discrete::{
    self, CountModel, Counts, CountsSoFar, DiscreteParams, Reading, check_records_in,
    count_accessors, feature_major, linear_jll, table,
};

/// Parameters of [`MultinomialNB`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct MultinomialNBParams {
    /// `alpha`, `fit_prior` and `class_prior`, shared with `BernoulliNBParams`.
    #[param(flatten)]
    discrete: DiscreteParams,
}

/// What `MultinomialNB` reads: counts, so a negative value is an error.
const COUNTS: &str = "non-negative feature counts (MultinomialNB models counts such as word \
                      frequencies; use GaussianNB for real-valued features)";

/// A fitted multinomial naive Bayes classifier: each class `c` draws a sample's features from
/// one multinomial with probabilities
/// `θ_cj = (N_cj + α) / (N_c + α·d)`, where `N_cj` is the (weighted) count of feature `j`
/// in class `c`, and scores a sample `x` by `ln P(c) + Σ_j x_j ln θ_cj`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "MultinomialFile")]
pub struct MultinomialNB {
    params: MultinomialNBParams,
    counts: Counts,
    class_log_prior: Vec<f64>,
    feature_log_prob: DenseMatrix,
    /// `feature_log_prob` transposed (`d × k`), the layout the sparse scoring loop reads.
    by_feature: Vec<f64>,
}

/// The stored form: parameters and counts only. The log-probabilities are recomputed on
/// load (deterministically, so a loaded model equals the saved one bit for bit), which also
/// validates a decoded file before it can be used.
#[derive(Serialize, Deserialize)]
struct MultinomialFile {
    params: MultinomialNBParams,
    counts: Counts,
}

impl TryFrom<MultinomialFile> for MultinomialNB {
    type Error = Error;

    fn try_from(f: MultinomialFile) -> Result<Self> {
        f.counts.check()?;
        discrete::load(f.params, f.counts)
    }
}

super::serialize_stored!(MultinomialNB, "MultinomialFile", MultinomialNBParams, counts: Counts);

impl MultinomialNB {
    /// The hyperparameters the model was fitted with (see [`MultinomialNBParams`]; checked as `fit` checks
    /// them when a file is loaded).
    pub fn hyperparams(&self) -> &MultinomialNBParams {
        &self.params
    }
    /// Default parameters.
    pub fn params() -> MultinomialNBParams {
        MultinomialNBParams::default()
    }

    /// A model that has seen no sample yet, for [`PartialFit`]: `classes` lists every class
    /// the stream may contain (at least two; sorted here, as `fit` sorts them), and every
    /// batch must have `n_features` columns.
    pub fn empty(
        params: MultinomialNBParams,
        classes: &[Label],
        n_features: usize,
    ) -> Result<Self> {
        discrete::empty(params, classes, n_features)
    }
}

impl CountModel for MultinomialNB {
    type Params = MultinomialNBParams;

    fn discrete(params: &MultinomialNBParams) -> &DiscreteParams {
        &params.discrete
    }

    fn reading(_: &MultinomialNBParams) -> Reading {
        Reading::Values
    }

    fn check_records<R: Records + ?Sized>(_: &MultinomialNBParams, records: &R) -> Result<()> {
        check_records_in(records, 0.0, f64::INFINITY, COUNTS)
    }

    fn params_and_counts(&mut self) -> (&MultinomialNBParams, &mut Counts) {
        (&self.params, &mut self.counts)
    }

    fn from_counts(params: MultinomialNBParams, counts: Counts) -> Result<Self> {
        let mut model = Self {
            params,
            counts,
            class_log_prior: Vec::new(),
            feature_log_prob: DenseMatrix::zeros(0, 0),
            by_feature: Vec::new(),
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
        for c in 0..k {
            let n = counts.feature_count.row(c);
            let total: f64 = n.iter().map(|v| v + alpha).sum();
            let out = flp.row_mut(c);
            if total > 0.0 {
                let log_total = total.ln();
                for (o, v) in out.iter_mut().zip(n) {
                    *o = (v + alpha).ln() - log_total;
                }
            } else {
                // Only with α = 0 and no count in the class: the limit α → 0⁺ of the smoothed
                // estimate, (0 + α)/(0 + α·d) = 1/d, instead of 0/0.
                out.fill(-(d as f64).ln());
            }
        }
        self.class_log_prior = self.params.discrete.class_log_prior(&counts.class_count);
        feature_major(k, d, &mut self.by_feature, |c, j| flp.get(c, j))?;
        self.feature_log_prob = flp;
        Ok(())
    }
}

count_accessors!(MultinomialNB);

impl MultinomialNB {
    /// `k × d`: summed weight × count per class and feature, before smoothing.
    pub fn feature_count(&self) -> &DenseMatrix {
        &self.counts.feature_count
    }
    /// `k × d`: `ln θ_cj`, the smoothed log-probability of feature `j` in class `c`.
    pub fn feature_log_prob(&self) -> &DenseMatrix {
        &self.feature_log_prob
    }
}

impl Fit for MultinomialNBParams {
    type Model = MultinomialNB;

    fn fit(&self, data: &Dataset) -> Result<MultinomialNB> {
        discrete::fit(self, data)
    }
}

/// MultinomialNB's statistics: the summed weight and feature counts of every class seen,
/// gathered batch by batch and merged across partitions (each may see any of the classes);
/// [`FitStats::fit_stats`] makes from them the model `fit` makes from the rows, with the same
/// counts (exactly so for integer counts and weights).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultinomialNBStats(CountsSoFar);

impl PartialFit<Dataset> for MultinomialNBStats {
    /// Adds a batch of non-negative counts; a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        check_records_in(&batch.records, 0.0, f64::INFINITY, COUNTS)?;
        self.0.absorb(batch, Reading::Values)
    }
}

impl Merge for MultinomialNBStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.0.merge(&other.0)
    }
}

impl FitStats for MultinomialNBParams {
    type Stats = MultinomialNBStats;

    fn stats(&self) -> MultinomialNBStats {
        MultinomialNBStats::default()
    }

    fn fit_stats(&self, stats: &MultinomialNBStats) -> Result<MultinomialNB> {
        discrete::fit_stats(self, &stats.0)
    }
}

impl PartialFit<Dataset> for MultinomialNB {
    /// Adds a batch to the counts. The batch must have the model's width and only its classes;
    /// a refused batch leaves the model unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        discrete::partial_fit(self, batch)
    }
}

impl JointLogLikelihood for MultinomialNB {
    fn class_labels(&self) -> &[Label] {
        &self.counts.labels
    }

    fn joint_log_likelihood<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_features(), records)?;
        check_trained(&self.counts.class_count)?;
        check_records_in(records, 0.0, f64::INFINITY, COUNTS)?;
        Ok(linear_jll(
            records,
            Reading::Values,
            &self.class_log_prior,
            &self.by_feature,
        ))
    }
}

super::nb_predictions!(MultinomialNB);

impl ModelFile for MultinomialNB {
    const KIND: &'static str = "multinomial-nb";
    const SCHEMA: u32 = 1;

    /// Nothing left to check: decoding goes through `TryFrom<MultinomialFile>`, which checks the stored
    /// statistics and parameters before the derived tables are computed from them (they must
    /// be, or computing the tables could index out of range).
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The owned stored form, written as a model file of this kind.
    #[derive(Serialize, Deserialize)]
    #[serde(transparent)]
    struct Forged(MultinomialFile);
    impl ModelFile for Forged {
        const KIND: &'static str = MultinomialNB::KIND;
        const SCHEMA: u32 = 1;
        fn check_consistent(&self) -> Result<()> {
            Ok(())
        }
    }

    /// Saving serializes the stored form borrowed (no copy of the model's tables): the bytes
    /// are those of the owned form, as before.
    #[test]
    fn a_saved_model_is_its_stored_form_byte_for_byte() {
        let model = MultinomialNB::params()
            .fit(&margin_io::datasets::dna().unwrap())
            .unwrap();
        let owned = Forged(MultinomialFile {
            params: model.params.clone(),
            counts: model.counts.clone(),
        });
        assert_eq!(model.to_bytes().unwrap(), owned.to_bytes().unwrap());
        assert_eq!(
            MultinomialNB::from_bytes(&model.to_bytes().unwrap()).unwrap(),
            model
        );
    }

    /// A file with a valid header and checksum whose counts do not fit together (as a buggy or
    /// hostile writer could produce) is refused on load instead of panicking at predict.
    #[test]
    fn a_well_sealed_but_inconsistent_file_is_refused() {
        let labels = vec![Label::Number(0.0), Label::Number(1.0)];
        let mut counts = Counts::new(labels, 3).unwrap();
        counts.class_count.pop();
        let forged = Forged(MultinomialFile {
            params: MultinomialNBParams::default(),
            counts,
        });
        let bytes = forged.to_bytes().unwrap();
        assert!(matches!(
            MultinomialNB::from_bytes(&bytes),
            Err(Error::ModelFile { reason }) if reason.contains("inconsistent")
        ));
    }
}
