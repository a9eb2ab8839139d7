//! `DecisionTreeRegressor`: CART with squared or absolute error.

use margin_core::{Dataset, Error, Fit, Predict, Records, Result};

use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use crate::data::{check_input, over_leaves, regression_problem};
use crate::export::FeatureNames;
use crate::grow::{Target, grow};
use crate::model::model_methods;
use crate::params::Growth;
use crate::tree::Tree;
use margin_core::params::Params;

/// Parameters of [`DecisionTreeRegressor`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct DecisionTreeRegressorParams {
    #[param(
        flatten,
        default = Growth::new(crate::Criterion::SquaredError, crate::MaxFeatures::All),
        valid_for(criterion = ("squared_error or absolute_error (a regression criterion)", |p| !p.growth.criterion.is_classification()))
    )]
    pub(crate) growth: Growth,
    /// Seed of the random feature subsets (used only when `max_features` is below the
    /// feature count; default 0).
    #[param(help = "seed of the random feature subsets and thresholds")]
    pub(crate) seed: u64,
}

impl DecisionTreeRegressorParams {
    model_methods!(pruning path);

    pub(crate) fn fit_parallel(
        &self,
        data: &Dataset,
        parallel: bool,
    ) -> Result<DecisionTreeRegressor> {
        Params::check(self)?;
        let (y, weights) = regression_problem(data, self.growth.missing_values)?;
        let (settings, pre) = self.growth.prepare(data, self.seed, parallel)?;
        let tree = grow(&pre, Target::Values(&y), &weights, &settings)?;
        Ok(DecisionTreeRegressor {
            params: self.clone(),
            tree,
            feature_names: FeatureNames::of(data),
        })
    }
}

/// A fitted regression tree (splits as [`DecisionTreeClassifier`](crate::DecisionTreeClassifier)'s);
/// a leaf predicts the weighted mean of its training targets (`squared_error`) or their
/// weighted median (`absolute_error`, the mean of the two middle values when the weight splits
/// exactly in half, as scikit-learn).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionTreeRegressor {
    params: DecisionTreeRegressorParams,
    tree: Tree,
    feature_names: FeatureNames,
}

impl DecisionTreeRegressor {
    model_methods!(params DecisionTreeRegressorParams);
    model_methods!(features tree);
    model_methods!(one tree);
    model_methods!(export);
    /// Reduced-error pruning on a validation set (Quinlan 1987, with the squared error as the
    /// error): bottom-up, every inner node whose subtree's weighted squared error on the
    /// validation samples reaching it is at least the node's as a leaf becomes that leaf,
    /// predicting its training value. Nodes no validation sample reaches are pruned. Never
    /// adds leaves nor validation error. The parameters stay those of the fit.
    pub fn prune_reduced_error(&self, validation: &Dataset) -> Result<Self> {
        let y = validation.targets.values()?;
        margin_core::validate::check_finite_slice(&y)?;
        let tree = crate::prune::prune_reduced_error(&self.tree, validation, |i, node| {
            (y[i] - self.tree.value(node)[0]).powi(2)
        })?;
        Ok(Self {
            tree,
            ..self.clone()
        })
    }
}

impl Fit for DecisionTreeRegressorParams {
    type Model = DecisionTreeRegressor;

    fn fit(&self, data: &Dataset) -> Result<DecisionTreeRegressor> {
        self.fit_parallel(data, true)
    }
}

impl Predict for DecisionTreeRegressor {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        check_input(&self.tree, records)?;
        let tree = std::slice::from_ref(&self.tree);
        let v = over_leaves(records, 1, tree, |_, leaf, out| {
            out[0] = self.tree.value(leaf)[0]
        });
        Ok(v.into_vec())
    }
}

impl ModelFile for DecisionTreeRegressor {
    const KIND: &'static str = "decision-tree-regressor";
    // 2: the feature names of the training data.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within(
            "params",
            margin_core::params::Params::check(&self.params),
        )?;
        self.tree.check(false)?;
        self.feature_names.check(self.tree.n_features())?;
        if self.tree.n_values() != 1 {
            return Err(Error::model_file(format!(
                "the tree has {} values per node where a regressor has 1",
                self.tree.n_values()
            )));
        }
        Ok(())
    }
}
