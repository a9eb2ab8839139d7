//! Histogram gradient boosting registered with `margin train` / `margin predict`:
//! `gradient-boosting` and `gradient-boosting-regressor` (scikit-learn's
//! HistGradientBoostingClassifier / HistGradientBoostingRegressor). The regressor has its own
//! name, as `tree-regressor` and `svr` do, so each name fixes what the model file holds.

use std::borrow::Cow;

use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_tree::{
    EarlyStopping, GradientBoostingClassifier, GradientBoostingRegressor, RegressionLoss,
};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, regression_values,
    second_class_probability,
};
use crate::output::warn;

const BOOSTING_HELP: &str = "  --learning-rate <number>           shrinkage of every leaf value > 0 (default 0.1)
  --max-iter <int>                   boosting iterations (default 100)
  --max-leaf-nodes <int>|none        leaves per tree, grown best-first (default 31)
  --max-depth <int>|none             edges from the root to the deepest leaf (default none)
  --min-samples-leaf <int>           fewest samples in a leaf (default 20)
  --l2-regularization <number>       L2 penalty on leaf values ≥ 0 (default 0)
  --max-bins <int>                   bins per feature for non-missing values, 2..255 (default 255)
  --early-stopping auto|true|false   stop on a held-out loss; auto: when more than 10 000 samples (default auto)
  --validation-fraction <number>     share held out for early stopping (default 0.1)
  --n-iter-no-change <int>           patience of early stopping (default 10)
  --tol <number>                     smallest improvement that counts (default 1e-7)
  --subsample <number>               share of rows each iteration grows on, in (0, 1] (default 1)
  --seed <int>                       seed of the binning subsample, validation split, subsample (default 0)";

/// Applies the flags both boosters take (their params types share these setters).
macro_rules! boosting {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        if let Some(v) = $p.take("learning-rate")? {
            params = params.learning_rate(v);
        }
        if let Some(v) = $p.take("max-iter")? {
            params = params.max_iter(v);
        }
        if let Some(v) = $p.take_optional("max-leaf-nodes")? {
            params = params.max_leaf_nodes(v);
        }
        if let Some(v) = $p.take_optional("max-depth")? {
            params = params.max_depth(v);
        }
        if let Some(v) = $p.take("min-samples-leaf")? {
            params = params.min_samples_leaf(v);
        }
        if let Some(v) = $p.take("l2-regularization")? {
            params = params.l2_regularization(v);
        }
        if let Some(v) = $p.take("max-bins")? {
            params = params.max_bins(v);
        }
        if let Some(v) = $p.take::<String>("early-stopping")? {
            params = params.early_stopping(match v.as_str() {
                "auto" => EarlyStopping::Auto,
                "true" => EarlyStopping::On,
                "false" => EarlyStopping::Off,
                other => {
                    return Err(Failure::usage(format!(
                        "--early-stopping: expected auto, true or false, found `{other}`"
                    )));
                }
            });
        }
        if let Some(v) = $p.take("validation-fraction")? {
            params = params.validation_fraction(v);
        }
        if let Some(v) = $p.take("n-iter-no-change")? {
            params = params.n_iter_no_change(v);
        }
        if let Some(v) = $p.take("tol")? {
            params = params.tol(v);
        }
        if let Some(v) = $p.take("subsample")? {
            params = params.subsample(v);
        }
        if let Some(v) = $p.take("seed")? {
            params = params.seed(v);
        }
        params
    }};
}

/// Reports how many iterations were grown, on stderr (early stopping may stop before
/// `--max-iter`).
fn report_iterations(n_iter: usize) {
    warn(format_args!("boosting iterations: {n_iter}"));
}

fn train_classifier(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = boosting!(GradientBoostingClassifier::params(), &mut p);
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    p.finish("gradient-boosting")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}

fn train_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = boosting!(GradientBoostingRegressor::params(), &mut p);
    match p.take::<String>("loss")?.as_deref() {
        None | Some("squared_error") => {}
        Some("absolute_error") => params = params.loss(RegressionLoss::AbsoluteError),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--loss: expected squared_error or absolute_error, found `{other}`"
            )));
        }
    }
    p.finish("gradient-boosting-regressor")?;
    let model = params.fit(data)?;
    report_iterations(model.n_iter());
    Fitted::iterative(&model)
}

fn predict_classifier(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, GradientBoostingClassifier::classes)
}

fn predict_regressor(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<GradientBoostingRegressor>(bytes, x, proba, "gradient-boosting-regressor")
}

/// For a ROC curve: the probability of the second class.
fn scores_classifier(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, GradientBoostingClassifier::classes)
}

/// The gradient-boosting entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "gradient-boosting",
        classifier: true,
        kind: GradientBoostingClassifier::KIND,
        summary: "histogram gradient boosting, log loss (scikit-learn's HistGradientBoostingClassifier)",
        params: None,
        params_help: "  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)",
        common_help: BOOSTING_HELP,
        train: train_classifier,
        predict: predict_classifier,
        scores: Some(scores_classifier),
    },
    ModelEntry {
        name: "gradient-boosting-regressor",
        classifier: false,
        kind: GradientBoostingRegressor::KIND,
        summary: "histogram gradient boosting regression (scikit-learn's HistGradientBoostingRegressor)",
        params: None,
        params_help: "  --loss squared_error|absolute_error  the loss (default squared_error)",
        common_help: BOOSTING_HELP,
        train: train_regressor,
        predict: predict_regressor,
        scores: None,
    },
];
