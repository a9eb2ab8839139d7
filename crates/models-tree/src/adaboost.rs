//! AdaBoost with the SAMME rule (multi-class AdaBoost, Zhu, Zou, Rosset & Hastie 2009) over
//! shallow trees.

use margin_core::{
    ClassWeight, Dataset, DenseMatrix, Error, Fit, Label, PredictProba, Records, Result,
    model_check,
};

use margin_io::ModelFile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::{argmax, check_input, class_problem, over_leaves};
use crate::export::FeatureNames;
use crate::grow::grow;
use crate::model::{model_methods, predict_labels};
use crate::params::Growth;
use crate::tree::Tree;
use margin_core::params::Params;

/// Parameters of [`AdaBoostClassifier`] (scikit-learn's names and defaults: 50 rounds,
/// learning rate 1, stumps).
///
/// The weak learner is a decision tree shaped by the same setters as
/// [`DecisionTreeClassifier`](crate::DecisionTreeClassifier)'s (`max_depth` defaults to 1:
/// a stump), where scikit-learn takes an `estimator` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(n_estimators, learning_rate, growth, seed))]
pub struct AdaBoostClassifierParams {
    #[param(
        flatten,
        default = Growth {
            max_depth: Some(1),
            ..Growth::new(crate::Criterion::Gini, crate::MaxFeatures::All)
        },
        valid_for(criterion = ("gini, entropy or log_loss (a classification criterion)", |p| p.growth.criterion.is_classification()))
    )]
    growth: Growth,
    /// Maximum number of boosting rounds (default 50, ≥ 1); boosting stops early when a
    /// learner fits the weighted data perfectly.
    #[param(
        help = "maximum number of boosting rounds",
        default = 50,
        valid = ("at least 1", |n| *n >= 1)
    )]
    n_estimators: usize,
    /// Shrinks each learner's vote (default 1, > 0).
    #[param(
        help = "shrinks each learner's vote",
        default = 1.0,
        valid = ("a finite number > 0", |r| r.is_finite() && *r > 0.0)
    )]
    learning_rate: f64,
    /// Seed of the learners' random feature subsets (used only with `max_features`; learner
    /// `t` uses `seed + t`; default 0).
    #[param(help = "seed of the learners' random feature subsets (learner t uses seed + t)")]
    seed: u64,
}

/// A fitted AdaBoost (SAMME) classifier.
///
/// Round `t` fits a tree to the weighted samples; with weighted error `ε_t` over `K` classes
/// its vote is `α_t = learning_rate · (ln((1 − ε_t)/ε_t) + ln(K − 1))`, and misclassified
/// samples' weights are multiplied by `e^{α_t}` before renormalizing. The decision function
/// is the vote share of each class, `Σ_t α_t [h_t(x) = k] / Σ_t α_t` (for two classes, one
/// column: class 1's share minus class 0's); `predict_proba` is its softmax after dividing
/// by `K − 1` (by 2 for two classes, as scikit-learn).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdaBoostClassifier {
    params: AdaBoostClassifierParams,
    labels: Vec<Label>,
    trees: Vec<Tree>,
    estimator_weights: Vec<f64>,
    estimator_errors: Vec<f64>,
    feature_names: FeatureNames,
}

impl Fit for AdaBoostClassifierParams {
    type Model = AdaBoostClassifier;

    fn fit(&self, data: &Dataset) -> Result<AdaBoostClassifier> {
        Params::check(self)?;
        let problem = class_problem(data, &ClassWeight::Uniform, self.growth.missing_values)?;
        let k = problem.labels.len();
        let (base, pre) = self.growth.prepare(data, self.seed, true)?;
        let total: f64 = problem.weights.iter().sum();
        let mut w: Vec<f64> = problem.weights.iter().map(|x| x / total).collect();
        let mut model = AdaBoostClassifier {
            params: self.clone(),
            labels: problem.labels.clone(),
            trees: Vec::new(),
            estimator_weights: Vec::new(),
            estimator_errors: Vec::new(),
            feature_names: FeatureNames::of(data),
        };
        for round in 0..self.n_estimators {
            let settings = crate::grow::Settings {
                seed: self.seed.wrapping_add(round as u64),
                ..base.clone()
            };
            let tree = grow(&pre, problem.target(), &w, &settings)?;
            let wrong: Vec<bool> = (0..data.n_samples())
                .into_par_iter()
                .map(|i| argmax(tree.leaf_value(&data.records.row(i))) != problem.y[i] as usize)
                .collect();
            let error: f64 = w
                .iter()
                .zip(&wrong)
                .filter(|(_, b)| **b)
                .map(|(x, _)| x)
                .sum::<f64>()
                / w.iter().sum::<f64>();
            if error <= 0.0 {
                model.trees.push(tree);
                model.estimator_weights.push(1.0);
                model.estimator_errors.push(0.0);
                break;
            }
            if error >= 1.0 - 1.0 / k as f64 {
                if model.trees.is_empty() {
                    return Err(Error::Numerical(format!(
                        "the first weak learner's weighted error {error} is no better than \
                         chance (1 − 1/{k}); use deeper trees (max_depth)"
                    )));
                }
                break;
            }
            let alpha = self.learning_rate * (((1.0 - error) / error).ln() + (k as f64 - 1.0).ln());
            model.trees.push(tree);
            model.estimator_weights.push(alpha);
            model.estimator_errors.push(error);
            if round + 1 == self.n_estimators {
                break;
            }
            for (x, &bad) in w.iter_mut().zip(&wrong) {
                if bad && *x > 0.0 {
                    *x *= alpha.exp();
                }
            }
            let sum: f64 = w.iter().sum();
            if !(sum.is_finite() && sum > 0.0) {
                break;
            }
            w.iter_mut().for_each(|x| *x /= sum);
        }
        Ok(model)
    }
}

impl AdaBoostClassifier {
    model_methods!(params AdaBoostClassifierParams);
    model_methods!(classes);
    model_methods!(trees);
    model_methods!(export labels);
    /// Each learner's vote `α_t`.
    pub fn estimator_weights(&self) -> &[f64] {
        &self.estimator_weights
    }
    /// Each learner's weighted training error `ε_t`.
    pub fn estimator_errors(&self) -> &[f64] {
        &self.estimator_errors
    }
    /// Vote-weighted mean of the learners' normalized importances (scikit-learn's).
    pub fn feature_importances(&self) -> Vec<f64> {
        let total: f64 = self.estimator_weights.iter().sum();
        let mut imp = vec![0.0; self.n_features()];
        for (t, a) in self.trees.iter().zip(&self.estimator_weights) {
            imp.iter_mut()
                .zip(t.feature_importances())
                .for_each(|(s, v)| *s += a * v / total);
        }
        imp
    }

    /// `n × K` vote shares (see the type's documentation).
    fn votes<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        check_input(&self.trees[0], records)?;
        let total: f64 = self.estimator_weights.iter().sum();
        let mut v = over_leaves(records, self.labels.len(), &self.trees, |t, leaf, out| {
            out[argmax(self.trees[t].value(leaf))] += self.estimator_weights[t]
        });
        v.as_mut_slice().iter_mut().for_each(|x| *x /= total);
        Ok(v)
    }

    /// Class indices (into [`classes`](Self::classes)) of every row: the largest vote share,
    /// ties to the earlier class.
    pub fn predict_indices<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        Ok(self.votes(records)?.rows().map(argmax).collect())
    }
}

impl margin_core::DecisionFunction for AdaBoostClassifier {
    /// Vote shares; one column (class 1's share minus class 0's) for two classes.
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let v = self.votes(records)?;
        if self.labels.len() != 2 {
            return Ok(v);
        }
        let mut out = DenseMatrix::zeros(v.nrows(), 1);
        for (o, r) in out.as_mut_slice().iter_mut().zip(v.rows()) {
            *o = r[1] - r[0];
        }
        Ok(out)
    }
}

impl PredictProba for AdaBoostClassifier {
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let mut v = self.votes(records)?;
        let k = self.labels.len();
        for r in v.as_mut_slice().chunks_mut(k.max(1)) {
            let scaled: Vec<f64> = if k == 2 {
                let d = r[1] - r[0];
                vec![-d / 2.0, d / 2.0]
            } else {
                r.iter().map(|x| x / (k as f64 - 1.0)).collect()
            };
            let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = scaled.iter().map(|s| (s - max).exp()).sum();
            for (o, s) in r.iter_mut().zip(&scaled) {
                *o = (s - max).exp() / sum;
            }
        }
        Ok(v)
    }
}

predict_labels!(AdaBoostClassifier, decision_function, predict_proba);

impl ModelFile for AdaBoostClassifier {
    const KIND: &'static str = "adaboost-classifier";
    // 2: the feature names of the training data.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::class_labels("labels", &self.labels)?;
        let k = self.labels.len();
        let t = self.trees.len();
        if k < 2
            || t == 0
            || self.estimator_weights.len() != t
            || self.estimator_errors.len() != t
            || self
                .estimator_weights
                .iter()
                .any(|a| !(a.is_finite() && *a > 0.0))
        {
            return Err(Error::model_file(format!(
                "{k} labels, {t} trees, {} weights and {} errors do not fit together",
                self.estimator_weights.len(),
                self.estimator_errors.len()
            )));
        }
        let d = self.trees[0].n_features();
        for tree in &self.trees {
            tree.check(true)?;
            if tree.n_values() != k || tree.n_features() != d {
                return Err(Error::model_file("trees of different shapes"));
            }
        }
        self.feature_names.check(d)
    }
}
