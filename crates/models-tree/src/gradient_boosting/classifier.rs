//! `GradientBoostingClassifier`: log-loss boosting, binary (one tree per iteration on the
//! log-odds) or multiclass (one tree per class per iteration on softmax scores).

use margin_core::fit::{FitObserved, Observer};
use margin_core::params::Params;
use margin_core::{
    ClassWeight, Dataset, DecisionFunction, DenseMatrix, Error, Fit, Label, PartClasses, Predict,
    PredictProba, Records, Result, labels_from_scores, model_check, validate,
};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use super::booster::{Ensemble, checked_records};
use super::loss::{Loss, sigmoid, softmax};
use super::params::Boosting;
use super::parts::{BoostingStep, BoostingSums};
use crate::model::model_methods;

/// Parameters of [`GradientBoostingClassifier`] (scikit-learn's
/// `HistGradientBoostingClassifier` names and defaults; see the [module](super) docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct GradientBoostingClassifierParams {
    #[param(flatten)]
    boosting: Boosting,
    /// Per-class weights multiplying the sample weights (default uniform).
    #[param(
        help = "class weights multiplying the sample weights: balanced weighs classes by n / (k · n_class); LABEL:W,... weighs the classes named (the others keep 1)"
    )]
    class_weight: ClassWeight,
}

impl GradientBoostingClassifierParams {
    /// Fits on rows held in parts (files, partitions of a table, machines) that are never
    /// gathered, as XGBoost and Spark distribute boosting:
    /// - `counts` is a first pass over the labels: each label with its number of rows;
    /// - `sample(m)` returns `m` of the rows' features drawn uniformly without replacement
    ///   (every row when `m` is the row count); their quantiles give the bins. At most
    ///   200 000 rows are asked for, as in memory, but drawn without replacement and
    ///   without class weights;
    /// - `sums(step)` returns `step.zero()` plus [`BoostingStep::add`] of every part (parts
    ///   merged with [`BoostingSums::merge`]). Each tree takes one call for its root and one
    ///   per level grown.
    ///
    /// Up to the rounding of sums taken in another order, the model is the in-memory fit's
    /// on the same rows (for at most 200 000 rows; above, the bins come from another
    /// sample): rows summed in the same order, as in one part, give the same trees bit for
    /// bit. The training scores are empty; `observer` sees each iteration.
    ///
    /// # Errors
    /// The parameters' refusals; early stopping (set it off: it holds rows out by position),
    /// `subsample` below 1; fewer than two classes; the first error `sample` or `sums`
    /// returned; sums not counting the first pass's rows.
    pub fn fit_parts(
        &self,
        counts: &[(Label, usize)],
        sample: impl FnOnce(usize) -> Result<DenseMatrix>,
        sums: impl FnMut(&BoostingStep) -> Result<BoostingSums>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<GradientBoostingClassifier> {
        margin_core::params::Params::check(self)?;
        let classes = PartClasses::new(counts, &self.class_weight)?;
        let k = classes.labels().len();
        let loss = if k == 2 {
            Loss::BinaryLog
        } else {
            Loss::MultinomialLog(k)
        };
        // The class frequencies, weighted: one entry per class stands for its rows.
        let ids: Vec<f64> = (0..k).map(|c| c as f64).collect();
        let mass: Vec<f64> = classes
            .counts()
            .iter()
            .zip(classes.weights())
            .map(|(&count, &w)| count as f64 * w)
            .collect();
        let baseline = loss.baseline(&ids, Some(&mass));
        let n = classes.n_samples();
        let labels = classes.labels().to_vec();
        let ensemble = Ensemble::fit_parts(
            &self.boosting,
            (loss, Some(classes), baseline),
            n,
            sample,
            sums,
            observer,
        )?;
        Ok(GradientBoostingClassifier {
            params: self.clone(),
            labels,
            ensemble,
        })
    }
}

/// A fitted gradient-boosted classifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradientBoostingClassifier {
    params: GradientBoostingClassifierParams,
    labels: Vec<Label>,
    ensemble: Ensemble,
}

impl GradientBoostingClassifier {
    model_methods!(params GradientBoostingClassifierParams);
    model_methods!(classes);
    model_methods!(boosting);

    /// Trees per iteration: 1 for two classes, else the number of classes.
    pub fn n_trees_per_iteration(&self) -> usize {
        self.ensemble.baseline.len()
    }

    /// The raw prediction before any tree: the log-odds of the positive class, or the centred
    /// log class frequencies.
    pub fn baseline(&self) -> &[f64] {
        &self.ensemble.baseline
    }

    /// Negated mean log-loss on the training samples, before the first tree and after each
    /// iteration; empty when early stopping is off (as scikit-learn's `train_score_`).
    pub fn train_score(&self) -> &[f64] {
        &self.ensemble.train_score
    }
}

impl Fit for GradientBoostingClassifierParams {
    type Model = GradientBoostingClassifier;

    fn fit(&self, data: &Dataset) -> Result<GradientBoostingClassifier> {
        self.fit_observed(data, &mut ())
    }
}

impl FitObserved for GradientBoostingClassifierParams {
    fn fit_observed(
        &self,
        data: &Dataset,
        observer: &mut dyn Observer,
    ) -> Result<GradientBoostingClassifier> {
        margin_core::params::Params::check(self)?;
        let x = checked_records(data, &self.boosting)?;
        let classes = data.targets.to_classes()?;
        validate::check_min_classes(&classes, 2)?;
        let present = classes.present();
        let k = present.labels.len();
        let per_class = self
            .class_weight
            .per_class(&present.labels, &present.counts)?;
        let uniform = matches!(self.class_weight, ClassWeight::Uniform);
        let weights: Option<Vec<f64>> = match (&data.sample_weights, uniform) {
            (None, true) => None,
            (sw, _) => Some(
                present
                    .y
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| per_class[c] * sw.as_ref().map_or(1.0, |w| w[i]))
                    .collect(),
            ),
        };
        if let Some(w) = &weights
            && let Some(bad) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0))
        {
            return Err(Error::invalid_parameter(
                "class_weight",
                format!("{} (sample {bad})", w[bad]),
                "finite, non-negative weights",
            ));
        }
        let loss = if k == 2 {
            Loss::BinaryLog
        } else {
            Loss::MultinomialLog(k)
        };
        let y: Vec<f64> = present.y.iter().map(|&c| c as f64).collect();
        let ensemble = Ensemble::fit(
            &self.boosting,
            loss,
            x.view(),
            &y,
            weights.as_deref(),
            true,
            observer,
        )?;
        Ok(GradientBoostingClassifier {
            params: self.clone(),
            labels: present.labels,
            ensemble,
        })
    }
}

impl DecisionFunction for GradientBoostingClassifier {
    /// Raw scores: one column of log-odds of the second class for two classes, else one column
    /// per class (softmax inputs).
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        self.raw_predict(records)
    }
}

impl PredictProba for GradientBoostingClassifier {
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let raw = self.decision_function(records)?;
        let k = self.labels.len();
        let mut out = DenseMatrix::zeros(raw.nrows(), k);
        for (i, r) in raw.rows().enumerate() {
            let o = out.row_mut(i);
            if k == 2 {
                let p = sigmoid(r[0]);
                o[0] = 1.0 - p;
                o[1] = p;
            } else {
                softmax(r, o);
            }
        }
        Ok(out)
    }
}

impl Predict for GradientBoostingClassifier {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        let raw = self.decision_function(records)?;
        Ok(labels_from_scores(&raw, &self.labels))
    }

    margin_core::class_scores_from!(decision_function, predict_proba);
}

impl ModelFile for GradientBoostingClassifier {
    const KIND: &'static str = "gradient-boosting-classifier";
    const SCHEMA: u32 = 1;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::class_labels("labels", &self.labels)?;
        let k = self.labels.len();
        let loss_ok = match self.ensemble.loss {
            Loss::BinaryLog => k == 2,
            Loss::MultinomialLog(m) => m == k && k > 2,
            _ => false,
        };
        if loss_ok && self.ensemble.is_consistent() {
            Ok(())
        } else {
            Err(Error::model_file(
                "the loss, classes, bin edges and tree structure do not fit together",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::Targets;

    fn fitted() -> GradientBoostingClassifier {
        let x: Vec<f64> = (0..40).map(|i| f64::from(i % 10)).collect();
        let y = (0..40).map(|i| f64::from(u8::from(i % 10 >= 5))).collect();
        let data = Dataset::new(
            DenseMatrix::from_row_major(x, 40, 1).unwrap(),
            Targets::Values(y),
        )
        .unwrap();
        GradientBoostingClassifier::params()
            .max_iter(3)
            .min_samples_leaf(5)
            .fit(&data)
            .unwrap()
    }

    fn refused(model: &GradientBoostingClassifier) -> bool {
        matches!(
            GradientBoostingClassifier::from_bytes(&model.to_bytes().unwrap()),
            Err(Error::ModelFile { .. })
        )
    }

    /// Files with a valid header and checksum but an unusable ensemble are refused on load.
    #[test]
    fn well_sealed_but_inconsistent_files_are_refused() {
        let good = fitted();
        assert!(GradientBoostingClassifier::from_bytes(&good.to_bytes().unwrap()).is_ok());
        let mut cycle = good.clone();
        cycle.ensemble.trees[0].nodes[0]
            .split
            .as_mut()
            .unwrap()
            .left = 0;
        assert!(refused(&cycle));
        let mut out_of_range = good.clone();
        out_of_range.ensemble.trees[0].nodes[0]
            .split
            .as_mut()
            .unwrap()
            .right = 999;
        assert!(refused(&out_of_range));
        let mut feature = good.clone();
        feature.ensemble.trees[0].nodes[0]
            .split
            .as_mut()
            .unwrap()
            .feature = 1;
        assert!(refused(&feature));
        let mut threshold = good.clone();
        threshold.ensemble.trees[0].nodes[0]
            .split
            .as_mut()
            .unwrap()
            .threshold += 0.25;
        assert!(refused(&threshold));
        let mut edges = good.clone();
        edges.ensemble.mapper.edges[0].reverse();
        assert!(refused(&edges));
        let mut trees = good.clone();
        trees.ensemble.loss = Loss::MultinomialLog(2);
        assert!(refused(&trees));
    }
}
