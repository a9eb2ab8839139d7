//! `GradientBoostingRegressor`: boosting on the squared or the absolute error.

use margin_core::fit::{FitObserved, Observer};
use margin_core::params::Params;
use margin_core::{Dataset, DenseMatrix, Error, Fit, Predict, Records, Result};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize};

use super::booster::{Ensemble, checked_records};
use super::loss::Loss;
use super::params::Boosting;
use super::parts::{BoostingStep, BoostingSums};
use crate::model::model_methods;

/// The loss [`GradientBoostingRegressor`] minimizes (scikit-learn's `loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegressionLoss {
    /// `½ (y − f)²`: the conditional mean. Baseline: the weighted mean.
    #[default]
    SquaredError,
    /// `|y − f|`: the conditional median, robust to outliers. Trees are grown on the signs of
    /// the residuals, then each leaf is set to the weighted median residual of its samples
    /// (times the learning rate), as scikit-learn does. Baseline: the weighted median.
    AbsoluteError,
}

/// Parameters of [`GradientBoostingRegressor`] (scikit-learn's
/// `HistGradientBoostingRegressor` names and defaults; see the [module](super) docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(loss, boosting))]
pub struct GradientBoostingRegressorParams {
    #[param(flatten)]
    boosting: Boosting,
    /// The loss (default [`RegressionLoss::SquaredError`]).
    #[param(help = "squared_error: the conditional mean; absolute_error: the median")]
    loss: RegressionLoss,
}

margin_core::param_choice!(RegressionLoss {
    SquaredError => "squared_error" | "squared-error",
    AbsoluteError => "absolute_error" | "absolute-error",
});

impl GradientBoostingRegressorParams {
    /// Fits on rows held in parts (files, partitions of a table, machines) that are never
    /// gathered, as XGBoost and Spark distribute boosting:
    /// - `n` and `target_sum` are a first pass: the rows and the sum of their targets (the
    ///   baseline is their mean);
    /// - `sample(m)` (every row when `m = n`) and `sums(step)` as for
    ///   [`GradientBoostingClassifierParams::fit_parts`](super::GradientBoostingClassifierParams::fit_parts),
    ///   which says how close the model comes to the in-memory fit's.
    ///
    /// # Errors
    /// The parameters' refusals; the absolute error (its leaves are medians); early stopping
    /// (set it off: it holds rows out by position), `subsample` below 1; a non-finite
    /// `target_sum`; the first error `sample` or `sums` returned; sums not counting `n` rows.
    pub fn fit_parts(
        &self,
        n: usize,
        target_sum: f64,
        sample: impl FnOnce(usize) -> Result<DenseMatrix>,
        sums: impl FnMut(&BoostingStep) -> Result<BoostingSums>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<GradientBoostingRegressor> {
        margin_core::params::Params::check(self)?;
        if !target_sum.is_finite() {
            return Err(Error::invalid_parameter(
                "target_sum",
                target_sum,
                "the finite sum of finite targets",
            ));
        }
        let loss = match self.loss {
            RegressionLoss::SquaredError => Loss::SquaredError,
            RegressionLoss::AbsoluteError => Loss::AbsoluteError,
        };
        let baseline = vec![target_sum / n as f64];
        let ensemble = Ensemble::fit_parts(
            &self.boosting,
            (loss, None, baseline),
            n,
            sample,
            sums,
            observer,
        )?;
        Ok(GradientBoostingRegressor {
            params: self.clone(),
            ensemble,
        })
    }
}

/// A fitted gradient-boosted regressor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradientBoostingRegressor {
    params: GradientBoostingRegressorParams,
    ensemble: Ensemble,
}

impl GradientBoostingRegressor {
    model_methods!(params GradientBoostingRegressorParams);
    model_methods!(boosting);

    /// The prediction before any tree: the weighted mean or median of the targets.
    pub fn baseline(&self) -> f64 {
        self.ensemble.baseline[0]
    }

    /// Negated mean loss (`½ (y − f)²` or `|y − f|`) on the training samples, before the first
    /// tree and after each iteration; empty when early stopping is off.
    pub fn train_score(&self) -> &[f64] {
        &self.ensemble.train_score
    }
}

impl Fit for GradientBoostingRegressorParams {
    type Model = GradientBoostingRegressor;

    fn fit(&self, data: &Dataset) -> Result<GradientBoostingRegressor> {
        self.fit_observed(data, &mut ())
    }
}

impl FitObserved for GradientBoostingRegressorParams {
    fn fit_observed(
        &self,
        data: &Dataset,
        observer: &mut dyn Observer,
    ) -> Result<GradientBoostingRegressor> {
        margin_core::params::Params::check(self)?;
        let x = checked_records(data, &self.boosting)?;
        let y = data.targets.values()?;
        margin_core::validate::check_finite_slice(&y)?;
        // Gradients and leaf values are differences of targets and predictions, summed.
        margin_core::validate::check_sum_of_squares(
            "the regression targets",
            y.iter().copied(),
            data.sample_weights.as_deref(),
        )?;
        let loss = match self.loss {
            RegressionLoss::SquaredError => Loss::SquaredError,
            RegressionLoss::AbsoluteError => Loss::AbsoluteError,
        };
        let w = data.sample_weights.as_deref();
        let ensemble = Ensemble::fit(&self.boosting, loss, x.view(), &y, w, false, observer)?;
        Ok(GradientBoostingRegressor {
            params: self.clone(),
            ensemble,
        })
    }
}

impl Predict for GradientBoostingRegressor {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        Ok(self.raw_predict(records)?.into_vec())
    }
}

impl ModelFile for GradientBoostingRegressor {
    const KIND: &'static str = "gradient-boosting-regressor";
    const SCHEMA: u32 = 1;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        let loss_ok = matches!(
            (self.params.loss, self.ensemble.loss),
            (RegressionLoss::SquaredError, Loss::SquaredError)
                | (RegressionLoss::AbsoluteError, Loss::AbsoluteError)
        );
        if loss_ok && self.ensemble.is_consistent() {
            Ok(())
        } else {
            Err(Error::model_file(
                "the loss, bin edges and tree structure do not fit together",
            ))
        }
    }
}
