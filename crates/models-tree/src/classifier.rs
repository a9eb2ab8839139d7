//! `DecisionTreeClassifier`: CART with Gini or entropy.

use margin_core::{
    ClassWeight, Dataset, DenseMatrix, Error, Fit, Label, PredictProba, Records, Result,
    model_check,
};

use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use crate::data::{argmax, check_input, class_problem, over_leaves};
use crate::export::FeatureNames;
use crate::grow::grow;
use crate::model::{model_methods, predict_labels};
use crate::params::Growth;
use crate::tree::Tree;
use margin_core::params::Params;

/// Parameters of [`DecisionTreeClassifier`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(growth, seed, class_weight))]
pub struct DecisionTreeClassifierParams {
    #[param(
        flatten,
        default = Growth::new(crate::Criterion::Gini, crate::MaxFeatures::All),
        valid_for(criterion = ("gini, entropy or log_loss (a classification criterion)", |p| p.growth.criterion.is_classification()))
    )]
    pub(crate) growth: Growth,
    /// Per-class weights multiplying the sample weights (default uniform).
    #[param(
        help = "class weights multiplying the sample weights: balanced weighs classes by n / (k · n_class); LABEL:W,... weighs the classes named (the others keep 1)",
        default = ClassWeight::Uniform
    )]
    pub(crate) class_weight: ClassWeight,
    /// Seed of the random feature subsets (used only when `max_features` is below the
    /// feature count; default 0).
    #[param(help = "seed of the random feature subsets and thresholds")]
    pub(crate) seed: u64,
}

impl DecisionTreeClassifierParams {
    model_methods!(pruning path);

    pub(crate) fn fit_parallel(
        &self,
        data: &Dataset,
        parallel: bool,
    ) -> Result<DecisionTreeClassifier> {
        Params::check(self)?;
        let problem = class_problem(data, &self.class_weight, self.growth.missing_values)?;
        let (settings, pre) = self.growth.prepare(data, self.seed, parallel)?;
        let tree = grow(&pre, problem.target(), &problem.weights, &settings)?;
        Ok(DecisionTreeClassifier {
            params: self.clone(),
            labels: problem.labels,
            tree,
            feature_names: FeatureNames::of(data),
        })
    }
}

/// A fitted classification tree: binary splits `x[feature] <= threshold` found by scanning
/// each feature's sorted values, thresholds at midpoints between consecutive distinct values
/// (as scikit-learn). Leaves hold weighted class counts; `predict_proba` is their normalized
/// value at the leaf a sample reaches and `predict` its largest class (ties to the first).
///
/// Differences from scikit-learn: values are split as `f64` (scikit-learn rounds records to
/// `f32` and ignores gaps below 1e-7), and among features whose best splits improve equally
/// the first feature wins (scikit-learn visits features in a random order, so `random_state`
/// decides such ties even without `max_features`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionTreeClassifier {
    params: DecisionTreeClassifierParams,
    labels: Vec<Label>,
    tree: Tree,
    feature_names: FeatureNames,
}

impl DecisionTreeClassifier {
    model_methods!(params DecisionTreeClassifierParams);
    model_methods!(classes);
    model_methods!(features tree);
    model_methods!(one tree);
    model_methods!(export labels);
    /// Reduced-error pruning on a validation set (Quinlan 1987): bottom-up, every inner node
    /// whose subtree misclassifies at least as much validation weight as the node would as
    /// a leaf becomes that leaf, predicting its training class counts. Nodes no validation
    /// sample reaches are pruned (Quinlan's rule: a branch without evidence is not kept).
    /// Never adds leaves nor validation errors. Validation classes the model does not know
    /// count as errors everywhere. The parameters stay those of the fit.
    pub fn prune_reduced_error(&self, validation: &Dataset) -> Result<Self> {
        let classes = validation.targets.to_classes()?;
        let truth: Vec<Option<usize>> = classes
            .labels()
            .iter()
            .map(|l| self.labels.iter().position(|m| m == l))
            .collect();
        let predicted: Vec<usize> = (0..self.tree.n_nodes())
            .map(|i| argmax(self.tree.value(i)))
            .collect();
        let indices = classes.indices();
        let tree = crate::prune::prune_reduced_error(&self.tree, validation, |i, node| {
            f64::from(truth[indices[i]] != Some(predicted[node]))
        })?;
        Ok(Self {
            tree,
            ..self.clone()
        })
    }
    /// C4.5's pessimistic (error-based) pruning with confidence factor `confidence` (C4.5's
    /// `-c`, whose default is 0.25; in `(0, 0.5]`, smaller prunes more): bottom-up, an inner
    /// node becomes a leaf when its estimated errors as a leaf, `N · U_CF(E, N)` from its
    /// training class counts (`E` misclassified of weight `N`), are at most the summed
    /// estimates of the leaves below it. `U_CF` is the upper limit of the binomial error
    /// rate at confidence `1 − CF`, computed as C4.5 does: exact for `E = 0`, the
    /// continuity-corrected normal approximation for `E ≥ 1`, linear in between (weighted
    /// counts), with `z` the normal quantile of `1 − CF`. C4.5's subtree raising is not done.
    /// Never adds leaves.
    pub fn prune_pessimistic(&self, confidence: f64) -> Result<Self> {
        Ok(Self {
            tree: crate::prune::prune_pessimistic(&self.tree, confidence)?,
            ..self.clone()
        })
    }
    /// Class indices (into [`classes`](Self::classes)) of every row.
    pub fn predict_indices<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        check_input(&self.tree, records)?;
        let tree = std::slice::from_ref(&self.tree);
        let k = over_leaves(records, 1, tree, |_, leaf, out| {
            out[0] = argmax(self.tree.value(leaf)) as f64
        });
        Ok(k.as_slice().iter().map(|&c| c as usize).collect())
    }
}

impl Fit for DecisionTreeClassifierParams {
    type Model = DecisionTreeClassifier;

    fn fit(&self, data: &Dataset) -> Result<DecisionTreeClassifier> {
        self.fit_parallel(data, true)
    }
}

predict_labels!(DecisionTreeClassifier, predict_proba);

impl PredictProba for DecisionTreeClassifier {
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        check_input(&self.tree, records)?;
        let tree = std::slice::from_ref(&self.tree);
        Ok(over_leaves(
            records,
            self.labels.len(),
            tree,
            |_, leaf, out| {
                let v = self.tree.value(leaf);
                let total: f64 = v.iter().sum();
                out.iter_mut().zip(v).for_each(|(o, c)| *o = c / total);
            },
        ))
    }
}

impl ModelFile for DecisionTreeClassifier {
    const KIND: &'static str = "decision-tree-classifier";
    // 2: the feature names of the training data.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::class_labels("labels", &self.labels)?;
        self.tree.check(true)?;
        self.feature_names.check(self.tree.n_features())?;
        if self.labels.len() < 2 || self.labels.len() != self.tree.n_values() {
            return Err(Error::model_file(format!(
                "{} labels but {} values per tree node",
                self.labels.len(),
                self.tree.n_values()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{DenseMatrix, Targets};

    fn model() -> DecisionTreeClassifier {
        let x = DenseMatrix::from_rows(&[[1.0], [2.0], [3.0], [4.0]]).unwrap();
        let data = Dataset::new(x, Targets::Values(vec![0.0, 0.0, 1.0, 1.0])).unwrap();
        DecisionTreeClassifier::params().fit(&data).unwrap()
    }

    /// Intact files (right header and checksum) holding a broken tree are refused on load.
    #[test]
    fn well_sealed_but_inconsistent_trees_are_refused() {
        let good = model();
        assert_eq!(good.tree.n_nodes(), 3);
        assert!(DecisionTreeClassifier::from_bytes(&good.to_bytes().unwrap()).is_ok());
        let forgeries: [fn(&mut DecisionTreeClassifier); 11] = [
            // Found by the battery's forgeries: `n_nodes × n_values` overflowed in the check.
            |m| m.tree.n_values = usize::MAX,
            |m| m.labels[1] = m.labels[0].clone(),
            |m| m.tree.nodes[0].left = 7,
            |m| m.tree.nodes[0].right = 0,
            |m| m.tree.nodes[0].left = m.tree.nodes[0].right,
            |m| m.tree.nodes[0].feature = 1,
            |m| m.tree.nodes[0].threshold = f64::NAN,
            |m| m.tree.values[2] = -1.0,
            |m| {
                m.labels.pop();
            },
            // One feature, so one name.
            |m| m.feature_names = FeatureNames(Some(vec!["a".into(), "b".into()])),
            |m| m.feature_names = FeatureNames(Some(Vec::new())),
        ];
        for (k, forge) in forgeries.iter().enumerate() {
            let mut bad = good.clone();
            forge(&mut bad);
            assert!(
                matches!(
                    DecisionTreeClassifier::from_bytes(&bad.to_bytes().unwrap()),
                    Err(Error::ModelFile { .. })
                ),
                "forgery {k} was accepted"
            );
        }
    }
}
