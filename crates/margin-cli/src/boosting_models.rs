//! Histogram gradient boosting's own training (`gradient-boosting` and
//! `gradient-boosting-regressor`, scikit-learn's HistGradientBoostingClassifier /
//! HistGradientBoostingRegressor): the fit, then how many iterations it grew.

use margin_core::{Dataset, Fit};
use margin_tree::{GradientBoostingClassifier, GradientBoostingRegressor};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::ParamArgs;
use crate::output::warn;

/// Reports how many iterations were grown, on stderr (early stopping may stop before
/// `--max-iter`).
fn report_iterations(n_iter: usize) {
    warn(format_args!("boosting iterations: {n_iter}"));
}

/// `gradient-boosting`'s training.
pub(crate) fn train_classifier(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    p.check_class_weight(data)?;
    let params = p.apply(GradientBoostingClassifier::params())?;
    p.finish("gradient-boosting")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}

/// `gradient-boosting-regressor`'s training.
pub(crate) fn train_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(GradientBoostingRegressor::params())?;
    p.finish("gradient-boosting-regressor")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}
