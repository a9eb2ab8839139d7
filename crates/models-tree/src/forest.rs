//! Random forests: trees grown on bootstrap samples with random feature subsets, in parallel.

use margin_core::{
    ClassWeight, Dataset, DenseMatrix, Error, Fit, Label, Predict, PredictProba, Records, Result,
    memory, model_check,
};

use margin_io::ModelFile;
use rand::{Rng, RngCore};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::{argmax, check_input, class_problem, over_leaves, regression_problem};
use crate::export::FeatureNames;
use crate::grow::{Presorted, Settings, Target, grow};
use crate::model::{model_methods, predict_labels};
use crate::params::Growth;
use crate::tree::Tree;
use margin_core::params::Params;

/// The ensemble settings both forests share: a settings block both forests' params flatten
/// (their builder methods are generated onto each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block, check = Ensemble::check_oob_needs_bootstrap)]
pub(crate) struct Ensemble {
    /// Number of trees (default 100, ≥ 1).
    #[param(help = "number of trees", default = 100, valid = ("at least 1", |n| *n >= 1))]
    n_estimators: usize,
    /// Grow each tree on a bootstrap sample of `n` draws with replacement (default true;
    /// false grows every tree on all samples, randomized by `max_features` only).
    #[param(
        help = "grow each tree on a bootstrap sample (false: on every sample)",
        default = true
    )]
    bootstrap: bool,
    /// Score each sample with the trees whose bootstrap sample missed it (default false;
    /// needs `bootstrap`). Read it with `oob_score()` on the model.
    #[param(
        help = "score each sample with the trees whose bootstrap missed it",
        applies = ("with bootstrap true", |p| p.bootstrap)
    )]
    oob_score: bool,
    /// Seed of the bootstrap samples and feature subsets (default 0). Each tree draws
    /// from its own generator seeded from this one in tree order, so the forest does
    /// not depend on the number of threads.
    #[param(help = "seed of the bootstrap samples and feature subsets")]
    seed: u64,
}

impl Ensemble {
    /// The rule between the ensemble parameters (their ranges are on the fields).
    fn check_oob_needs_bootstrap(&self) -> Result<()> {
        if self.oob_score && !self.bootstrap {
            return Err(Error::invalid_parameter(
                "oob_score",
                true,
                "false when bootstrap is off (no sample is out of the bag)",
            ));
        }
        Ok(())
    }
}

/// Which samples a tree's bootstrap drew (a bit per sample).
struct InBag(Vec<u64>);

impl InBag {
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
}

/// Grows the trees in parallel; each tree's generator is seeded in tree order from the
/// forest's seed, first drawing the bootstrap, then the tree's own seed.
fn grow_trees(
    pre: &Presorted,
    target: Target<'_>,
    weights: &[f64],
    settings: &Settings,
    ensemble: &Ensemble,
) -> Result<Vec<(Tree, Option<InBag>)>> {
    // The seeds and the grown trees' handles are held at once: asked for together, so that a
    // forest of 10^12 trees is refused naming its size instead of aborting.
    let count = ensemble.n_estimators;
    memory::check(
        memory::bytes_of::<u64>(count)
            .saturating_add(memory::bytes_of::<(Tree, Option<InBag>)>(count)),
        &format!("the forest's {count} trees"),
        "grow fewer trees (n_estimators)",
    )?;
    let mut master = margin_core::split::rng_from_seed(ensemble.seed);
    let seeds: Vec<u64> = (0..count).map(|_| master.next_u64()).collect();
    let n = weights.len();
    seeds
        .par_iter()
        .map(|&seed| {
            let mut rng = margin_core::split::rng_from_seed(seed);
            let (w, bag) = if ensemble.bootstrap {
                let mut counts = vec![0u32; n];
                for _ in 0..n {
                    counts[rng.random_range(0..n)] += 1;
                }
                let mut bits = vec![0u64; n.div_ceil(64)];
                let w: Vec<f64> = (0..n)
                    .map(|i| {
                        if counts[i] > 0 {
                            bits[i / 64] |= 1 << (i % 64);
                        }
                        weights[i] * counts[i] as f64
                    })
                    .collect();
                // A bootstrap of only zero-weight samples leaves nothing to learn from: that
                // tree uses every sample instead.
                if w.iter().any(|&x| x > 0.0) {
                    (w, Some(InBag(bits)))
                } else {
                    (
                        weights.to_vec(),
                        Some(InBag(vec![u64::MAX; n.div_ceil(64)])),
                    )
                }
            } else {
                (weights.to_vec(), None)
            };
            let tree_settings = Settings {
                seed: rng.next_u64(),
                ..settings.clone()
            };
            Ok((grow(pre, target, &w, &tree_settings)?, bag))
        })
        .collect()
}

/// Mean of the trees' normalized importances, over trees that split at least once,
/// normalized to sum to 1 (scikit-learn's `feature_importances_`).
fn mean_importances(trees: &[Tree], d: usize) -> Vec<f64> {
    let mut sum = vec![0.0; d];
    for t in trees.iter().filter(|t| t.n_nodes() > 1) {
        sum.iter_mut()
            .zip(t.feature_importances())
            .for_each(|(s, v)| *s += v);
    }
    let total: f64 = sum.iter().sum();
    if total > 0.0 {
        sum.iter_mut().for_each(|s| *s /= total);
    }
    sum
}

/// For every sample with at least one out-of-bag tree, `f(i, trees that missed it)`.
fn out_of_bag<T: Send>(
    grown: &[(Tree, Option<InBag>)],
    n: usize,
    f: impl Fn(usize, &mut dyn Iterator<Item = &Tree>) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut trees = grown
                .iter()
                .filter(|(_, bag)| bag.as_ref().is_some_and(|b| !b.contains(i)))
                .map(|(t, _)| t);
            f(i, &mut trees)
        })
        .collect()
}

fn check_trees(trees: &[Tree], classification: bool, n_values: usize) -> Result<()> {
    if trees.is_empty() {
        return Err(Error::model_file("the forest has no trees"));
    }
    let d = trees[0].n_features();
    for t in trees {
        t.check(classification)?;
        if t.n_features() != d || t.n_values() != n_values {
            return Err(Error::model_file(
                "the forest has trees of different shapes",
            ));
        }
    }
    Ok(())
}

/// Parameters of [`RandomForestClassifier`] (scikit-learn's names and defaults: 100 trees,
/// Gini, `max_features = sqrt`, bootstrap).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(ensemble::n_estimators, growth, ensemble, class_weight))]
pub struct RandomForestClassifierParams {
    #[param(
        flatten,
        default = Growth::new(crate::Criterion::Gini, crate::MaxFeatures::Sqrt),
        valid_for(criterion = ("gini, entropy or log_loss (a classification criterion)", |p| p.growth.criterion.is_classification()))
    )]
    growth: Growth,
    #[param(flatten)]
    ensemble: Ensemble,
    /// Per-class weights multiplying the sample weights, computed once on the whole training
    /// set (scikit-learn's `class_weight`; default uniform).
    #[param(
        help = "class weights multiplying the sample weights, computed once on the whole training set: balanced weighs classes by n / (k · n_class); LABEL:W,... weighs the classes named (the others keep 1)",
        default = ClassWeight::Uniform
    )]
    class_weight: ClassWeight,
}

impl RandomForestClassifierParams {
    /// scikit-learn's `ExtraTreesClassifier` defaults: random thresholds
    /// ([`SplitStrategy::Random`](crate::SplitStrategy)), no bootstrap, `max_features = sqrt`.
    pub fn extra_trees() -> Self {
        let mut p = Self::default();
        p.growth.splitter = crate::SplitStrategy::Random;
        p.ensemble.bootstrap = false;
        p
    }
}

/// A fitted random forest classifier: `predict_proba` is the mean of the trees' leaf class
/// frequencies and `predict` its largest class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomForestClassifier {
    params: RandomForestClassifierParams,
    labels: Vec<Label>,
    trees: Vec<Tree>,
    oob_score: Option<f64>,
    feature_names: FeatureNames,
}

impl Fit for RandomForestClassifierParams {
    type Model = RandomForestClassifier;

    fn fit(&self, data: &Dataset) -> Result<RandomForestClassifier> {
        Params::check(self)?;
        let problem = class_problem(data, &self.class_weight, self.growth.missing_values)?;
        let (settings, pre) = self.growth.prepare(data, 0, false)?;
        let k = problem.labels.len();
        let grown = grow_trees(
            &pre,
            problem.target(),
            &problem.weights,
            &settings,
            &self.ensemble,
        )?;
        let oob_score = self.ensemble.oob_score.then(|| {
            let votes = out_of_bag(&grown, data.n_samples(), |i, trees| {
                let row = data.records.row(i);
                let mut p = vec![0.0; k];
                let mut any = false;
                for t in trees {
                    add_normalized(t.leaf_value(&row), &mut p);
                    any = true;
                }
                any.then(|| argmax(&p) == problem.y[i] as usize)
            });
            let scored: Vec<bool> = votes.into_iter().flatten().collect();
            scored.iter().filter(|&&ok| ok).count() as f64 / scored.len().max(1) as f64
        });
        Ok(RandomForestClassifier {
            params: self.clone(),
            labels: problem.labels,
            trees: grown.into_iter().map(|(t, _)| t).collect(),
            oob_score,
            feature_names: FeatureNames::of(data),
        })
    }
}

/// Adds class counts `v`, normalized to frequencies, to `p`.
fn add_normalized(v: &[f64], p: &mut [f64]) {
    let total: f64 = v.iter().sum();
    p.iter_mut().zip(v).for_each(|(a, c)| *a += c / total);
}

impl RandomForestClassifier {
    model_methods!(params RandomForestClassifierParams);
    model_methods!(classes);
    model_methods!(trees);
    model_methods!(export labels);
    /// Out-of-bag accuracy, over the samples at least one tree left out (`None` unless fitted
    /// with `oob_score`).
    pub fn oob_score(&self) -> Option<f64> {
        self.oob_score
    }
    /// Mean impurity-decrease importance per feature, normalized.
    pub fn feature_importances(&self) -> Vec<f64> {
        mean_importances(&self.trees, self.n_features())
    }
    /// Class indices (into [`classes`](Self::classes)) of every row.
    pub fn predict_indices<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        let p = self.predict_proba(records)?;
        Ok(p.rows().map(argmax).collect())
    }
}

impl PredictProba for RandomForestClassifier {
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        check_input(&self.trees[0], records)?;
        let m = self.trees.len() as f64;
        let mut p = over_leaves(records, self.labels.len(), &self.trees, |t, leaf, out| {
            add_normalized(self.trees[t].value(leaf), out)
        });
        p.as_mut_slice().iter_mut().for_each(|v| *v /= m);
        Ok(p)
    }
}

predict_labels!(RandomForestClassifier, predict_proba);

impl ModelFile for RandomForestClassifier {
    const KIND: &'static str = "random-forest-classifier";
    // 2: the feature names of the training data.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::class_labels("labels", &self.labels)?;
        check_trees(&self.trees, true, self.labels.len())?;
        self.feature_names.check(self.n_features())
    }
}

/// Parameters of [`RandomForestRegressor`] (scikit-learn's names and defaults: 100 trees,
/// squared error, `max_features = 1.0` i.e. all features, bootstrap).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(ensemble::n_estimators, growth, ensemble))]
pub struct RandomForestRegressorParams {
    #[param(
        flatten,
        default = Growth::new(crate::Criterion::SquaredError, crate::MaxFeatures::All),
        valid_for(criterion = ("squared_error or absolute_error (a regression criterion)", |p| !p.growth.criterion.is_classification()))
    )]
    growth: Growth,
    #[param(flatten)]
    ensemble: Ensemble,
}

impl RandomForestRegressorParams {
    /// scikit-learn's `ExtraTreesRegressor` defaults: random thresholds
    /// ([`SplitStrategy::Random`](crate::SplitStrategy)), no bootstrap, every feature.
    pub fn extra_trees() -> Self {
        let mut p = Self::default();
        p.growth.splitter = crate::SplitStrategy::Random;
        p.ensemble.bootstrap = false;
        p
    }
}

/// A fitted random forest regressor: the mean of its trees' predictions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomForestRegressor {
    params: RandomForestRegressorParams,
    trees: Vec<Tree>,
    oob_score: Option<f64>,
    feature_names: FeatureNames,
}

impl Fit for RandomForestRegressorParams {
    type Model = RandomForestRegressor;

    fn fit(&self, data: &Dataset) -> Result<RandomForestRegressor> {
        Params::check(self)?;
        let (y, weights) = regression_problem(data, self.growth.missing_values)?;
        let (settings, pre) = self.growth.prepare(data, 0, false)?;
        let grown = grow_trees(
            &pre,
            Target::Values(&y),
            &weights,
            &settings,
            &self.ensemble,
        )?;
        let oob_score = self.ensemble.oob_score.then(|| {
            let pred = out_of_bag(&grown, data.n_samples(), |i, trees| {
                let row = data.records.row(i);
                let (mut s, mut c) = (0.0, 0usize);
                for t in trees {
                    s += t.leaf_value(&row)[0];
                    c += 1;
                }
                (c > 0).then(|| (y[i], s / c as f64))
            });
            r2(pred.into_iter().flatten())
        });
        Ok(RandomForestRegressor {
            params: self.clone(),
            trees: grown.into_iter().map(|(t, _)| t).collect(),
            oob_score,
            feature_names: FeatureNames::of(data),
        })
    }
}

/// R² of (truth, prediction) pairs (1 − SS_res / SS_tot; 0 when the truth is constant).
fn r2(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let pairs: Vec<(f64, f64)> = pairs.collect();
    let mean = pairs.iter().map(|p| p.0).sum::<f64>() / pairs.len().max(1) as f64;
    let ss_res: f64 = pairs.iter().map(|(t, p)| (t - p).powi(2)).sum();
    let ss_tot: f64 = pairs.iter().map(|(t, _)| (t - mean).powi(2)).sum();
    if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        0.0
    }
}

impl RandomForestRegressor {
    model_methods!(params RandomForestRegressorParams);
    model_methods!(trees);
    model_methods!(export);
    /// Out-of-bag R², over the samples at least one tree left out (`None` unless fitted with
    /// `oob_score`).
    pub fn oob_score(&self) -> Option<f64> {
        self.oob_score
    }
    /// Mean impurity-decrease importance per feature, normalized.
    pub fn feature_importances(&self) -> Vec<f64> {
        mean_importances(&self.trees, self.n_features())
    }
}

impl Predict for RandomForestRegressor {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        check_input(&self.trees[0], records)?;
        let m = self.trees.len() as f64;
        let sums = over_leaves(records, 1, &self.trees, |t, leaf, out| {
            out[0] += self.trees[t].value(leaf)[0]
        });
        Ok(sums.as_slice().iter().map(|s| s / m).collect())
    }
}

impl ModelFile for RandomForestRegressor {
    const KIND: &'static str = "random-forest-regressor";
    // 2: the feature names of the training data.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        check_trees(&self.trees, false, 1)?;
        self.feature_names.check(self.n_features())
    }
}
