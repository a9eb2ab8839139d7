//! The tree-based params as data: every struct passes the params battery in each
//! configuration, its defaults are scikit-learn's (or differ for a stated reason), and the
//! checks that moved from fitting into the params keep their names and phrases.

use margin_core::params::{Params, Value};
use margin_core::{ClassWeight, Error, Fit};
use margin_io::datasets;
use margin_testing::battery::{check_defaults, check_params};
use margin_tree::{
    AdaBoostClassifierParams, Criterion, DecisionTreeClassifierParams, DecisionTreeRegressorParams,
    EarlyStopping, GradientBoostingClassifierParams, GradientBoostingRegressorParams, MaxFeatures,
    MinSamples, RandomForestClassifierParams, RandomForestRegressorParams, RegressionLoss,
    SplitStrategy,
};

#[test]
fn every_params_passes_the_battery_in_every_configuration() {
    let tree = DecisionTreeClassifierParams::default();
    check_params(&tree);
    check_params(
        &tree
            .clone()
            .criterion(Criterion::Entropy)
            .max_depth(Some(3))
            .min_samples_split(0.1)
            .min_samples_leaf(2)
            .max_features(MaxFeatures::Fraction(0.5))
            .max_leaf_nodes(Some(8))
            .categorical_features([0, 2])
            .missing_values(true)
            .class_weight(ClassWeight::Balanced),
    );
    check_params(
        &tree
            .splitter(SplitStrategy::Random)
            .max_features(MaxFeatures::Count(2)),
    );
    check_params(&DecisionTreeRegressorParams::default().criterion(Criterion::AbsoluteError));
    check_params(&RandomForestClassifierParams::default().oob_score(true));
    check_params(&RandomForestClassifierParams::extra_trees());
    check_params(&RandomForestRegressorParams::default().max_features(MaxFeatures::Log2));
    check_params(&RandomForestRegressorParams::extra_trees());
    check_params(&AdaBoostClassifierParams::default());
    check_params(
        &AdaBoostClassifierParams::default()
            .max_depth(None)
            .learning_rate(0.5),
    );
    check_params(&GradientBoostingClassifierParams::default());
    check_params(
        &GradientBoostingClassifierParams::default()
            .early_stopping(EarlyStopping::Off)
            .max_leaf_nodes(None)
            .max_depth(Some(4)),
    );
    check_params(&GradientBoostingRegressorParams::default().loss(RegressionLoss::AbsoluteError));
}

/// scikit-learn 1.9's documented defaults (sklearn.tree.DecisionTreeClassifier/Regressor,
/// sklearn.ensemble.RandomForestClassifier/Regressor, AdaBoostClassifier,
/// HistGradientBoostingClassifier/Regressor). margin-only, or different on purpose:
/// - `seed`: scikit-learn's `random_state=None` draws from the global generator; margin is
///   deterministic.
/// - `missing_values` and `categorical_features` of the trees: scikit-learn's trees take NaN
///   without a switch and have no categorical splits; margin refuses NaN unless asked.
/// - `splitter` of the forests: scikit-learn's forests have none; their trees split as `best`
///   does (ExtraTrees* are the `random` ones, margin's `extra_trees()`).
/// - AdaBoost's tree parameters: scikit-learn's `estimator=None` is
///   `DecisionTreeClassifier(max_depth=1)`, whose defaults they are.
/// - The boosters' `subsample` (the classic GradientBoosting*'s, 1.0) and `allow_missing`
///   (scikit-learn always treats NaN as missing).
#[test]
fn defaults_are_scikit_learns() {
    let growth = [
        ("splitter", "best"),
        ("max_depth", "none"),
        ("min_samples_split", "2"),
        ("min_samples_leaf", "1"),
        ("min_weight_fraction_leaf", "0.0"),
        ("max_leaf_nodes", "none"),
        ("min_impurity_decrease", "0.0"),
        ("ccp_alpha", "0.0"),
    ];
    let with = |own: &[(&'static str, &'static str)]| [&growth[..], own].concat();
    let tree_only = ["seed", "missing_values", "categorical_features"];
    check_defaults::<DecisionTreeClassifierParams>(
        &with(&[
            ("criterion", "gini"),
            ("max_features", "none"),
            ("class_weight", "none"),
        ]),
        &tree_only,
    );
    check_defaults::<DecisionTreeRegressorParams>(
        &with(&[("criterion", "squared_error"), ("max_features", "none")]),
        &tree_only,
    );
    let forest = [
        ("n_estimators", "100"),
        ("bootstrap", "true"),
        ("oob_score", "false"),
    ];
    check_defaults::<RandomForestClassifierParams>(
        &with(
            &[
                &forest[..],
                &[
                    ("criterion", "gini"),
                    ("max_features", "sqrt"),
                    ("class_weight", "none"),
                ],
            ]
            .concat(),
        ),
        &tree_only,
    );
    check_defaults::<RandomForestRegressorParams>(
        &with(
            &[
                &forest[..],
                // scikit-learn's 1.0: every feature, stored as `all`.
                &[("criterion", "squared_error"), ("max_features", "all")],
            ]
            .concat(),
        ),
        &tree_only,
    );
    let stump = [
        ("criterion", "gini"),
        ("splitter", "best"),
        ("max_depth", "1"),
        ("min_samples_split", "2"),
        ("min_samples_leaf", "1"),
        ("min_weight_fraction_leaf", "0.0"),
        ("max_features", "none"),
        ("max_leaf_nodes", "none"),
        ("min_impurity_decrease", "0.0"),
        ("ccp_alpha", "0.0"),
        ("n_estimators", "50"),
        ("learning_rate", "1.0"),
    ];
    check_defaults::<AdaBoostClassifierParams>(&stump, &tree_only);
    let hist = [
        ("learning_rate", "0.1"),
        ("max_iter", "100"),
        ("max_leaf_nodes", "31"),
        ("max_depth", "none"),
        ("min_samples_leaf", "20"),
        ("l2_regularization", "0.0"),
        ("max_bins", "255"),
        ("early_stopping", "auto"),
        ("validation_fraction", "0.1"),
        ("n_iter_no_change", "10"),
        ("tol", "1e-7"),
    ];
    let booster_only = ["subsample", "allow_missing", "seed"];
    check_defaults::<GradientBoostingClassifierParams>(
        &[&hist[..], &[("class_weight", "none")]].concat(),
        &booster_only,
    );
    check_defaults::<GradientBoostingRegressorParams>(
        &[&hist[..], &[("loss", "squared_error")]].concat(),
        &booster_only,
    );
}

#[test]
fn text_reads_the_numbers_as_scikit_learn_does() {
    let mut p = DecisionTreeClassifierParams::default();
    p.set("min_samples_leaf", "0.05").unwrap();
    p.set("min_samples_split", "4").unwrap();
    p.set("max_features", "3").unwrap();
    p.set("categorical_features", "0,2").unwrap();
    assert_eq!(
        p,
        DecisionTreeClassifierParams::default()
            .min_samples_leaf(MinSamples::Fraction(0.05))
            .min_samples_split(4)
            .max_features(MaxFeatures::Count(3))
            .categorical_features([0, 2])
    );
    assert_eq!(p.get("max_features"), Some(Value::Int(3)));
    assert_eq!(p.get("min_samples_leaf"), Some(Value::Float(0.05)));
    assert_eq!(
        p.get("categorical_features"),
        Some(Value::Text("0,2".into()))
    );
    p.set("categorical_features", "none").unwrap();
    assert_eq!(p.get("categorical_features"), Some(Value::None));
    assert!(p.set("categorical_features", "0,x").is_err());
    assert!(p.set("criterion", "gain").is_err());
}

#[test]
fn checks_moved_from_fitting_keep_their_names_and_phrases() {
    let named = |e: margin_core::Result<()>, name: &str, phrase: &str| match e {
        Err(Error::InvalidParameter {
            name: n, expected, ..
        }) => {
            assert_eq!(n, name);
            assert!(expected.contains(phrase), "{name}: {expected}");
        }
        other => panic!("{name}: {other:?}"),
    };
    let mut tree = DecisionTreeClassifierParams::default();
    named(
        tree.set("criterion", "squared_error"),
        "criterion",
        "a classification criterion",
    );
    let mut reg = DecisionTreeRegressorParams::default();
    named(
        reg.set("criterion", "gini"),
        "criterion",
        "a regression criterion",
    );
    named(tree.set("max_depth", "0"), "max_depth", "at least 1");
    named(
        tree.set("min_weight_fraction_leaf", "0.6"),
        "min_weight_fraction_leaf",
        "[0, 0.5]",
    );
    named(tree.set("max_leaf_nodes", "1"), "max_leaf_nodes", "≥ 2");
    named(tree.set("ccp_alpha", "-1"), "ccp_alpha", "≥ 0");
    assert_eq!(tree, DecisionTreeClassifierParams::default());
    // The rule between two parameters holds whatever the order they are set in.
    for order in [
        ["splitter", "categorical_features"],
        ["categorical_features", "splitter"],
    ] {
        let mut p = DecisionTreeClassifierParams::default();
        for name in order {
            let text = if name == "splitter" { "random" } else { "1" };
            p.set(name, text).unwrap();
        }
        named(p.check(), "categorical_features", "splitter random");
    }
    let mut forest = RandomForestRegressorParams::default();
    forest.set("bootstrap", "false").unwrap();
    forest.set("oob_score", "true").unwrap();
    named(forest.check(), "oob_score", "bootstrap is off");
    let mut ada = AdaBoostClassifierParams::default();
    named(ada.set("n_estimators", "0"), "n_estimators", "at least 1");
    named(ada.set("learning_rate", "0"), "learning_rate", "> 0");
    let mut hist = GradientBoostingRegressorParams::default();
    named(hist.set("max_bins", "256"), "max_bins", "[2, 255]");
    named(hist.set("subsample", "0"), "subsample", "(0, 1]");
    named(
        hist.set("early_stopping", "sometimes"),
        "early_stopping",
        "auto, true or false",
    );
    // fit refuses what check refuses, before looking at the data.
    let data = datasets::heart_scale().unwrap();
    let bad = DecisionTreeClassifierParams::default()
        .splitter(SplitStrategy::Random)
        .categorical_features([0]);
    named(
        bad.fit(&data).map(drop),
        "categorical_features",
        "splitter random",
    );
}
