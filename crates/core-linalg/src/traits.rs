//! The estimator contract every margin model follows.
//!
//! `Params::fit(&data) -> Model`; the model then predicts, scores, or transforms. Inputs are
//! generic over [`Records`], so dense and sparse samples go through the same calls.

use crate::error::Result;
use crate::records::{Matrix, Records};

/// Hyperparameters that can be fitted to data, producing a model.
///
/// `Input` is a [`Dataset`](crate::Dataset) for supervised estimators, or records for
/// unsupervised ones (scalers, encoders).
pub trait Fit<Input: ?Sized = crate::Dataset> {
    /// The fitted model.
    type Model;
    /// Validates the parameters and the data, then fits.
    fn fit(&self, input: &Input) -> Result<Self::Model>;
}

/// A fitted model that predicts one output per sample.
pub trait Predict {
    /// What `predict` returns (`Vec<Label>` for classifiers, `Vec<f64>` for regressors).
    type Output;
    /// Predicts every row of `records`; refuses a feature count other than the one fitted.
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Self::Output>;
}

/// A fitted classifier that estimates class probabilities.
pub trait PredictProba {
    /// Row `i`, column `k`: the probability that sample `i` is of class `k`.
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<crate::DenseMatrix>;
}

/// A fitted model with a real-valued decision function (margins, log-odds).
pub trait DecisionFunction {
    /// One row per sample; one column for binary problems, more for multiclass ones.
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<crate::DenseMatrix>;
}

/// A fitted transformer (scaler, encoder, feature map).
pub trait Transform {
    /// Maps records into the transformer's output space.
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix>;
}

/// Fitting and transforming the same records in one call.
pub trait FitTransform<R: Records + ?Sized>: Fit<R> {
    /// Fits on `records`, then transforms them.
    fn fit_transform(&self, records: &R) -> Result<(Self::Model, Matrix)>;
}

impl<R, P> FitTransform<R> for P
where
    R: Records + ?Sized,
    P: Fit<R>,
    P::Model: Transform,
{
    fn fit_transform(&self, records: &R) -> Result<(Self::Model, Matrix)> {
        let model = self.fit(records)?;
        let out = model.transform(records)?;
        Ok((model, out))
    }
}

/// A fitted model that can take more data without refitting from scratch.
pub trait PartialFit<Input: ?Sized> {
    /// Updates the model with another batch.
    fn partial_fit(&mut self, batch: &Input) -> Result<()>;
}

/// A fitted model's input width: the number of features it was fitted on, which `predict`,
/// `decision_function` and `transform` require of their records.
///
/// Every fitted model also has an inherent `n_features()` with the same meaning; this trait
/// lets code that handles many model kinds (the CLI pads a LIBSVM file that stops below the
/// model's width, refuses a CSV with fewer columns) ask for it generically. It is kept to this
/// one method on purpose: a later redesign of the shared accessors may absorb it.
pub trait NFeatures {
    /// The number of features the model was fitted on.
    fn n_features(&self) -> usize;
}

/// Implements [`NFeatures`] for fitted models by calling their inherent `n_features()`:
/// `core_linalg::impl_n_features!(Svc, Svr);`.
#[macro_export]
macro_rules! impl_n_features {
    ($($model:ty),+ $(,)?) => {
        $(
            impl $crate::NFeatures for $model {
                fn n_features(&self) -> usize {
                    // Inherent methods take precedence over trait methods in paths.
                    <$model>::n_features(self)
                }
            }
        )+
    };
}
