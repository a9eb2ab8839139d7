//! Trees and tree ensembles registered with `margin train` / `margin predict`: `tree`,
//! `tree-regressor`, `forest`, `forest-regressor` and `adaboost` (scikit-learn's
//! DecisionTreeClassifier / DecisionTreeRegressor / RandomForestClassifier /
//! RandomForestRegressor / AdaBoostClassifier). Regression gets its own names rather than a
//! `--task` flag, so each name fixes what the model file holds.

use core_linalg::{Dataset, Fit, Matrix, ModelFile, Predict};
use models_tree::{
    AdaBoostClassifier, Criterion, DecisionTreeClassifier, DecisionTreeRegressor, MaxFeatures,
    RandomForestClassifier, RandomForestRegressor, SplitStrategy,
};

use crate::Failure;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, second_class_probability,
};

const GROWTH_HELP: &str = "  --criterion <name>                 gini, entropy, log_loss (classifiers; default gini) or squared_error, absolute_error (regressors; default squared_error)
  --max-depth <int>|none             deepest level, root at 0 (default none)
  --min-samples-split <int>          smallest node that may be split (default 2)
  --min-samples-leaf <int>           fewest samples on each side of a split (default 1)
  --max-leaf-nodes <int>|none        grow best-first up to this many leaves (default none)
  --min-impurity-decrease <number>   least weighted impurity decrease of a split (default 0)
  --max-features all|sqrt|log2|<int>|<fraction>  features examined per node (default all; forest: sqrt)
  --ccp-alpha <number>               cost-complexity pruning strength (default 0: none)
  --splitter best|random             best thresholds, or one random threshold per feature (forest --splitter random --bootstrap false: extra trees; default best)
  --seed <int>                       seed of the random choices (default 0)";

const CLASS_WEIGHT_HELP: &str =
    "  --class-weight balanced            weight classes by n / (k · n_class)";

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
        if let Some(n) = $p.take("min-samples-split")? {
            params = params.min_samples_split(n);
        }
        if let Some(n) = $p.take("min-samples-leaf")? {
            params = params.min_samples_leaf(n);
        }
        if let Some(n) = $p.take_optional("max-leaf-nodes")? {
            params = params.max_leaf_nodes(n);
        }
        if let Some(v) = $p.take("min-impurity-decrease")? {
            params = params.min_impurity_decrease(v);
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

fn report_oob(score: Option<f64>, what: &str) {
    if let Some(s) = score {
        eprintln!("out-of-bag {what}: {s:.6}");
    }
}

fn train_tree(data: &Dataset, mut p: ParamArgs) -> Result<Vec<u8>, Failure> {
    let mut params = growth!(DecisionTreeClassifier::params(), &mut p);
    if let Some(w) = p.take_class_weight()? {
        params = params.class_weight(w);
    }
    p.finish("tree")?;
    Ok(params.fit(data)?.to_bytes()?)
}

fn train_tree_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Vec<u8>, Failure> {
    let params = growth!(DecisionTreeRegressor::params(), &mut p);
    p.finish("tree-regressor")?;
    Ok(params.fit(data)?.to_bytes()?)
}

fn train_forest(data: &Dataset, mut p: ParamArgs) -> Result<Vec<u8>, Failure> {
    let mut params = forest!(growth!(RandomForestClassifier::params(), &mut p), p);
    if let Some(w) = p.take_class_weight()? {
        params = params.class_weight(w);
    }
    p.finish("forest")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "accuracy");
    Ok(model.to_bytes()?)
}

fn train_forest_regressor(data: &Dataset, mut p: ParamArgs) -> Result<Vec<u8>, Failure> {
    let params = forest!(growth!(RandomForestRegressor::params(), &mut p), p);
    p.finish("forest-regressor")?;
    let model = params.fit(data)?;
    report_oob(model.oob_score(), "R²");
    Ok(model.to_bytes()?)
}

fn train_adaboost(data: &Dataset, mut p: ParamArgs) -> Result<Vec<u8>, Failure> {
    let mut params = growth!(AdaBoostClassifier::params(), &mut p);
    if let Some(n) = p.take("n-estimators")? {
        params = params.n_estimators(n);
    }
    if let Some(r) = p.take("learning-rate")? {
        params = params.learning_rate(r);
    }
    p.finish("adaboost")?;
    Ok(params.fit(data)?.to_bytes()?)
}

fn predict_tree(bytes: &[u8], x: &Matrix, proba: bool) -> Result<Predictions, Failure> {
    let m = DecisionTreeClassifier::from_bytes(bytes)?;
    class_predictions(&m, m.labels(), x, proba)
}

fn predict_forest(bytes: &[u8], x: &Matrix, proba: bool) -> Result<Predictions, Failure> {
    let m = RandomForestClassifier::from_bytes(bytes)?;
    class_predictions(&m, m.labels(), x, proba)
}

fn predict_adaboost(bytes: &[u8], x: &Matrix, proba: bool) -> Result<Predictions, Failure> {
    let m = AdaBoostClassifier::from_bytes(bytes)?;
    class_predictions(&m, m.labels(), x, proba)
}

fn predict_tree_regressor(bytes: &[u8], x: &Matrix, _: bool) -> Result<Predictions, Failure> {
    Ok(Predictions::Values(
        DecisionTreeRegressor::from_bytes(bytes)?.predict(x)?,
    ))
}

fn predict_forest_regressor(bytes: &[u8], x: &Matrix, _: bool) -> Result<Predictions, Failure> {
    Ok(Predictions::Values(
        RandomForestRegressor::from_bytes(bytes)?.predict(x)?,
    ))
}

fn scores_tree(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    let m = DecisionTreeClassifier::from_bytes(bytes)?;
    second_class_probability(&m, m.labels().len(), x)
}

fn scores_forest(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    let m = RandomForestClassifier::from_bytes(bytes)?;
    second_class_probability(&m, m.labels().len(), x)
}

fn scores_adaboost(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    let m = AdaBoostClassifier::from_bytes(bytes)?;
    second_class_probability(&m, m.labels().len(), x)
}

/// The tree entries of the registry.
pub const ENTRIES: [ModelEntry; 5] = [
    ModelEntry {
        name: "tree",
        classifier: true,
        kind: DecisionTreeClassifier::KIND,
        summary: "CART decision tree classifier (scikit-learn's DecisionTreeClassifier)",
        params_help: CLASS_WEIGHT_HELP,
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
        params_help: "",
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
        params_help: "  --class-weight balanced            weight classes by n / (k · n_class)
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
        params_help: "  --n-estimators <int>               boosting rounds (default 50)
  --learning-rate <number>           shrinks each learner's vote (default 1)
  (growth flags shape the weak learner; --max-depth defaults to 1, a stump)",
        common_help: GROWTH_HELP,
        train: train_adaboost,
        predict: predict_adaboost,
        scores: Some(scores_adaboost),
    },
];
