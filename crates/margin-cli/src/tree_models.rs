//! The trees' and forests' own training: `tree` and `tree-regressor` take `--pruning` (the
//! CLI prunes a fitted tree), `forest` and `forest-regressor` report their out-of-bag score.
//! Regression has its own names rather than a `--task` flag, so each name fixes what the model
//! file holds.

use margin_core::params::{Params, Value};
use margin_core::{Dataset, Error, Fit, split};
use margin_tree::{
    DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier, RandomForestRegressor,
};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::ParamArgs;
use crate::output::warn;

/// `--pruning` and its options: the CLI prunes a fitted tree, which the params do not describe.
pub(crate) const TREE_HELP: &str = "  --pruning none|pessimistic|reduced-error  after growth: C4.5's error-based pruning, or Quinlan's on a held-out part (default none)
  --confidence <number>              pessimistic pruning's confidence factor, in (0, 0.5] (default 0.25)
  --validation-fraction <number>     reduced-error pruning: share of the rows held out (stratified, shuffled by --seed) to prune on (default 0.25)";

pub(crate) const TREE_REGRESSOR_HELP: &str = "  --pruning none|reduced-error       after growth: Quinlan's reduced-error pruning on a held-out part (default none)
  --validation-fraction <number>     share of the rows held out (shuffled by --seed) to prune on (default 0.25)";

/// How a single tree is pruned after growth (`--pruning`).
enum Pruning {
    None,
    /// C4.5's pessimistic pruning at this confidence factor.
    Pessimistic(f64),
    /// Reduced-error pruning on this fraction of the rows, held out from growth.
    ReducedError(f64),
}

/// Reads `--pruning` with its `--confidence` / `--validation-fraction`, refusing either
/// without its method (`pessimistic` only for classifiers).
fn take_pruning(p: &mut ParamArgs, classifier: bool) -> Result<Pruning, Failure> {
    let method = p.take::<String>("pruning")?;
    let confidence = p.take::<f64>("confidence")?;
    let fraction = p.take::<f64>("validation-fraction")?;
    let unused = |flag: &str, method: &str| {
        Failure::usage(format!("--{flag} applies only with --pruning {method}"))
    };
    let pruning = match method.as_deref() {
        None | Some("none") => Pruning::None,
        Some("pessimistic") if classifier => Pruning::Pessimistic(confidence.unwrap_or(0.25)),
        Some("reduced-error") => Pruning::ReducedError(fraction.unwrap_or(0.25)),
        Some(other) => {
            let allowed = if classifier {
                "none, pessimistic or reduced-error"
            } else {
                "none or reduced-error"
            };
            return Err(Failure::usage(format!(
                "--pruning: expected {allowed}, found `{other}`"
            )));
        }
    };
    if confidence.is_some() && !matches!(pruning, Pruning::Pessimistic(_)) {
        return Err(unused("confidence", "pessimistic"));
    }
    if fraction.is_some() && !matches!(pruning, Pruning::ReducedError(_)) {
        return Err(unused("validation-fraction", "reduced-error"));
    }
    Ok(pruning)
}

/// Splits off `fraction` of the rows (shuffled by `seed`) for reduced-error pruning; a fraction
/// the split refuses is reported as the flag that gave it.
fn hold_out(
    data: &Dataset,
    fraction: f64,
    stratify: bool,
    seed: u64,
) -> Result<(Dataset, Dataset), Failure> {
    split::train_test_split(data, fraction, stratify, seed).map_err(|e| match e {
        Error::InvalidParameter {
            name,
            value,
            expected,
        } if name == "test_fraction" => Failure::usage(format!(
            "--validation-fraction: expected {expected}, found {value}"
        )),
        other => other.into(),
    })
}

fn report_oob(score: Option<f64>, what: &str) {
    if let Some(s) = score {
        warn(format_args!("out-of-bag {what}: {s:.6}"));
    }
}

/// The seed `params` were given: reduced-error pruning shuffles its held-out rows by it, too.
fn seed_of(params: &impl Params) -> Result<u64, Failure> {
    match params.get("seed") {
        Some(Value::Int(seed)) => u64::try_from(seed).ok(),
        _ => None,
    }
    .ok_or_else(|| Failure::internal("the tree's params describe no seed"))
}

/// `tree`'s training, with `--pruning`.
pub(crate) fn train_tree(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let pruning = take_pruning(&mut p, true)?;
    p.check_class_weight(data)?;
    let params = p.apply(DecisionTreeClassifier::params())?;
    p.finish("tree")?;
    let model = match pruning {
        Pruning::None => params.fit(data)?,
        Pruning::Pessimistic(cf) => params.fit(data)?.prune_pessimistic(cf)?,
        Pruning::ReducedError(f) => {
            let (grow, validation) = hold_out(data, f, true, seed_of(&params)?)?;
            params.fit(&grow)?.prune_reduced_error(&validation)?
        }
    };
    Fitted::new(&model)
}

/// `tree-regressor`'s training, with `--pruning`.
pub(crate) fn train_tree_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let pruning = take_pruning(&mut p, false)?;
    let params = p.apply(DecisionTreeRegressor::params())?;
    p.finish("tree-regressor")?;
    let model = match pruning {
        Pruning::ReducedError(f) => {
            let (grow, validation) = hold_out(data, f, false, seed_of(&params)?)?;
            params.fit(&grow)?.prune_reduced_error(&validation)?
        }
        // take_pruning refuses pessimistic pruning for regressors.
        _ => params.fit(data)?,
    };
    Fitted::new(&model)
}

/// `forest`'s training: the fit, then its out-of-bag accuracy when asked for.
pub(crate) fn train_forest(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    p.check_class_weight(data)?;
    let params = p.apply(RandomForestClassifier::params())?;
    p.finish("forest")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "accuracy");
    Fitted::new(&model)
}

/// `forest-regressor`'s training: the fit, then its out-of-bag R² when asked for.
pub(crate) fn train_forest_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = p.apply(RandomForestRegressor::params())?;
    p.finish("forest-regressor")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "R²");
    Fitted::new(&model)
}
