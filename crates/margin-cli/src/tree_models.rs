//! Trees and tree ensembles registered with `margin train` / `margin predict`: `tree`,
//! `tree-regressor`, `forest`, `forest-regressor` and `adaboost` (scikit-learn's
//! DecisionTreeClassifier / DecisionTreeRegressor / RandomForestClassifier /
//! RandomForestRegressor / AdaBoostClassifier). Regression gets its own names rather than a
//! `--task` flag, so each name fixes what the model file holds.

use std::borrow::Cow;

use margin_core::{Dataset, Error, Fit, Matrix, ModelFile, split};
use margin_tree::{
    AdaBoostClassifier, Criterion, DecisionTreeClassifier, DecisionTreeRegressor, MaxFeatures,
    MinSamples, RandomForestClassifier, RandomForestRegressor, SplitStrategy,
};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, regression_values,
    second_class_probability,
};
use crate::output::warn;

const GROWTH_HELP: &str = "  --criterion <name>                 gini, entropy, log_loss (classifiers; default gini) or squared_error, absolute_error (regressors; default squared_error)
  --max-depth <int>|none             deepest level, root at 0 (default none)
  --min-samples-split <int>|<fraction>  smallest node that may be split (default 2; 0.01: 1% of the samples)
  --min-samples-leaf <int>|<fraction>   fewest samples on each side of a split (default 1)
  --min-weight-fraction-leaf <number>   least fraction of the total weight on each side of a split (default 0)
  --max-leaf-nodes <int>|none        grow best-first up to this many leaves (default none)
  --min-impurity-decrease <number>   least weighted impurity decrease of a split (default 0)
  --max-features all|sqrt|log2|<int>|<fraction>  features examined per node (default all; forest: sqrt)
  --ccp-alpha <number>               cost-complexity pruning strength (default 0: none)
  --splitter best|random             best thresholds, or one random threshold per feature (forest --splitter random --bootstrap false: extra trees; default best)
  --categorical-features <i,j,...>   columns (from 0) of category codes 0..63, split by subsets (default none)
  --seed <int>                       seed of the random choices (default 0)";

const TREE_HELP: &str = "  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)
  --pruning none|pessimistic|reduced-error  after growth: C4.5's error-based pruning, or Quinlan's on a held-out part (default none)
  --confidence <number>              pessimistic pruning's confidence factor, in (0, 0.5] (default 0.25)
  --validation-fraction <number>     reduced-error pruning: share of the rows held out (stratified, shuffled by --seed) to prune on (default 0.25)";

const TREE_REGRESSOR_HELP: &str = "  --pruning none|reduced-error       after growth: Quinlan's reduced-error pruning on a held-out part (default none)
  --validation-fraction <number>     share of the rows held out (shuffled by --seed) to prune on (default 0.25)";

const FOREST_HELP: &str = "  --n-estimators <int>               trees (default 100)
  --bootstrap true|false             grow each tree on a bootstrap sample (default true)
  --oob-score true|false             report the out-of-bag score on stderr (default false)";

/// Applies the growth flags every model takes (the params types share these setters).
macro_rules! growth {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        if let Some(c) = $p.take::<String>("criterion")? {
            params = params.criterion(c.parse::<Criterion>()?);
        }
        if let Some(d) = $p.take_optional("max-depth")? {
            params = params.max_depth(d);
        }
        if let Some(n) = $p.take::<String>("min-samples-split")? {
            params = params.min_samples_split(n.parse::<MinSamples>()?);
        }
        if let Some(n) = $p.take::<String>("min-samples-leaf")? {
            params = params.min_samples_leaf(n.parse::<MinSamples>()?);
        }
        if let Some(f) = $p.take("min-weight-fraction-leaf")? {
            params = params.min_weight_fraction_leaf(f);
        }
        if let Some(n) = $p.take_optional("max-leaf-nodes")? {
            params = params.max_leaf_nodes(n);
        }
        if let Some(v) = $p.take("min-impurity-decrease")? {
            params = params.min_impurity_decrease(v);
        }
        if let Some(cols) = $p.take::<String>("categorical-features")? {
            params = params.categorical_features(columns(&cols)?);
        }
        if let Some(m) = $p.take::<String>("max-features")? {
            params = params.max_features(m.parse::<MaxFeatures>()?);
        }
        match $p.take::<String>("splitter")?.as_deref() {
            None | Some("best") => {}
            Some("random") => params = params.splitter(SplitStrategy::Random),
            Some(other) => {
                return Err(Failure::usage(format!(
                    "--splitter: expected best or random, found `{other}`"
                )));
            }
        }
        if let Some(a) = $p.take("ccp-alpha")? {
            params = params.ccp_alpha(a);
        }
        if let Some(seed) = $p.take("seed")? {
            params = params.seed(seed);
        }
        params
    }};
}

macro_rules! forest {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        if let Some(n) = $p.take("n-estimators")? {
            params = params.n_estimators(n);
        }
        if let Some(b) = $p.take("bootstrap")? {
            params = params.bootstrap(b);
        }
        if let Some(b) = $p.take("oob-score")? {
            params = params.oob_score(b);
        }
        params
    }};
}

/// `0,3,5` as column indices.
fn columns(list: &str) -> Result<Vec<usize>, Failure> {
    list.split(',')
        .map(|c| c.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            Failure::usage(format!(
                "--categorical-features: expected column indices such as 0,3,5, found `{list}`"
            ))
        })
}

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

fn train_tree(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    // Taken first: it also shuffles the rows held out for reduced-error pruning.
    let seed = p.take("seed")?.unwrap_or(0);
    let mut params = growth!(DecisionTreeClassifier::params(), &mut p).seed(seed);
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    let pruning = take_pruning(&mut p, true)?;
    p.finish("tree")?;
    let model = match pruning {
        Pruning::None => params.fit(data)?,
        Pruning::Pessimistic(cf) => params.fit(data)?.prune_pessimistic(cf)?,
        Pruning::ReducedError(f) => {
            let (grow, validation) = hold_out(data, f, true, seed)?;
            params.fit(&grow)?.prune_reduced_error(&validation)?
        }
    };
    Fitted::new(&model)
}

fn train_tree_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let seed = p.take("seed")?.unwrap_or(0);
    let params = growth!(DecisionTreeRegressor::params(), &mut p).seed(seed);
    let pruning = take_pruning(&mut p, false)?;
    p.finish("tree-regressor")?;
    let model = match pruning {
        Pruning::ReducedError(f) => {
            let (grow, validation) = hold_out(data, f, false, seed)?;
            params.fit(&grow)?.prune_reduced_error(&validation)?
        }
        // take_pruning refuses pessimistic pruning for regressors.
        _ => params.fit(data)?,
    };
    Fitted::new(&model)
}

fn train_forest(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = forest!(growth!(RandomForestClassifier::params(), &mut p), p);
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    p.finish("forest")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "accuracy");
    Fitted::new(&model)
}

fn train_forest_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = forest!(growth!(RandomForestRegressor::params(), &mut p), p);
    p.finish("forest-regressor")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "R²");
    Fitted::new(&model)
}

fn train_adaboost(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = growth!(AdaBoostClassifier::params(), &mut p);
    if let Some(n) = p.take("n-estimators")? {
        params = params.n_estimators(n);
    }
    if let Some(r) = p.take("learning-rate")? {
        params = params.learning_rate(r);
    }
    p.finish("adaboost")?;
    Fitted::new(&params.fit(data)?)
}

fn predict_tree(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, DecisionTreeClassifier::classes)
}

fn predict_forest(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, RandomForestClassifier::classes)
}

fn predict_adaboost(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, AdaBoostClassifier::classes)
}

fn predict_tree_regressor(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<DecisionTreeRegressor>(bytes, x, proba, "tree-regressor")
}

fn predict_forest_regressor(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    regression_values::<RandomForestRegressor>(bytes, x, proba, "forest-regressor")
}

fn scores_tree(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, DecisionTreeClassifier::classes)
}

fn scores_forest(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, RandomForestClassifier::classes)
}

fn scores_adaboost(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    second_class_probability(bytes, x, AdaBoostClassifier::classes)
}

/// The tree entries of the registry.
pub const ENTRIES: [ModelEntry; 5] = [
    ModelEntry {
        name: "tree",
        classifier: true,
        kind: DecisionTreeClassifier::KIND,
        summary: "CART decision tree classifier (scikit-learn's DecisionTreeClassifier)",
        params: None,
        params_help: TREE_HELP,
        common_help: GROWTH_HELP,
        train: train_tree,
        predict: predict_tree,
        scores: Some(scores_tree),
    },
    ModelEntry {
        name: "tree-regressor",
        classifier: false,
        kind: DecisionTreeRegressor::KIND,
        summary: "CART regression tree (scikit-learn's DecisionTreeRegressor)",
        params: None,
        params_help: TREE_REGRESSOR_HELP,
        common_help: GROWTH_HELP,
        train: train_tree_regressor,
        predict: predict_tree_regressor,
        scores: None,
    },
    ModelEntry {
        name: "forest",
        classifier: true,
        kind: RandomForestClassifier::KIND,
        summary: "random forest classifier (scikit-learn's RandomForestClassifier)",
        params: None,
        params_help: "  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)
  --n-estimators <int>               trees (default 100)
  --bootstrap true|false             grow each tree on a bootstrap sample (default true)
  --oob-score true|false             report the out-of-bag accuracy on stderr (default false)",
        common_help: GROWTH_HELP,
        train: train_forest,
        predict: predict_forest,
        scores: Some(scores_forest),
    },
    ModelEntry {
        name: "forest-regressor",
        classifier: false,
        kind: RandomForestRegressor::KIND,
        summary: "random forest regressor (scikit-learn's RandomForestRegressor)",
        params: None,
        params_help: FOREST_HELP,
        common_help: GROWTH_HELP,
        train: train_forest_regressor,
        predict: predict_forest_regressor,
        scores: None,
    },
    ModelEntry {
        name: "adaboost",
        classifier: true,
        kind: AdaBoostClassifier::KIND,
        summary: "AdaBoost (SAMME) over decision stumps (scikit-learn's AdaBoostClassifier)",
        params: None,
        params_help: "  --n-estimators <int>               boosting rounds (default 50)
  --learning-rate <number>           shrinks each learner's vote (default 1)
  (growth flags shape the weak learner; --max-depth defaults to 1, a stump)",
        common_help: GROWTH_HELP,
        train: train_adaboost,
        predict: predict_adaboost,
        scores: Some(scores_adaboost),
    },
];
