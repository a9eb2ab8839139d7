//! A fit that cannot do its job says so: when the samples trees are grown on cannot give two
//! leaves of `min_samples_leaf`, no node could ever split and the model would be a constant;
//! every tree model refuses such a fit, and fits at the boundary `n = 2 · min_samples_leaf`.

use margin_core::{Dataset, DenseMatrix, Error, Fit, Predict, Result, Targets};
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, EarlyStopping,
    GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier,
    RandomForestRegressor,
};

/// `n` samples x = 1..n, the target a step from 0 to 1 halfway.
fn step(n: usize) -> Dataset {
    let x: Vec<f64> = (1..=n).map(|i| i as f64).collect();
    let y = (0..n).map(|i| f64::from(u8::from(2 * i >= n))).collect();
    Dataset::new(
        DenseMatrix::from_row_major(x, n, 1).unwrap(),
        Targets::Values(y),
    )
    .unwrap()
}

/// The refusal's value and expected range, after checking it names `min_samples_leaf`.
fn refusal<M: std::fmt::Debug>(fit: Result<M>) -> (String, String) {
    match fit {
        Err(Error::InvalidParameter {
            name,
            value,
            expected,
        }) if name == "min_samples_leaf" => (value, expected),
        other => panic!("expected a min_samples_leaf refusal, got {other:?}"),
    }
}

/// Refused with the value, the sample count and the way out in the text.
fn refused_at<M: std::fmt::Debug>(fit: Result<M>, value: &str, n: usize) {
    let (v, expected) = refusal(fit);
    assert!(v.starts_with(value), "{v}");
    assert!(v.contains(&format!("{n} training samples")), "{v}");
    assert!(
        expected.contains(&format!("at most n/2 = {} for n = {n} samples", n / 2))
            && expected.contains("lower min_samples_leaf or give at least"),
        "{expected}"
    );
}

/// Predictions on both sides of the step differ: the model split.
fn splits(predict: impl Fn(&DenseMatrix) -> Vec<f64>) -> bool {
    let p = predict(&DenseMatrix::from_rows(&[[1.0], [1000.0]]).unwrap());
    p[0] != p[1]
}

fn as_numbers(labels: Vec<margin_core::Label>) -> Vec<f64> {
    labels
        .iter()
        .map(|l| l.to_string().parse().unwrap())
        .collect()
}

#[test]
fn decision_trees_refuse_leaves_that_cannot_split_and_fit_at_the_boundary() {
    let data = step(12);
    for fit in [
        DecisionTreeClassifier::params()
            .min_samples_leaf(7)
            .fit(&data)
            .map(drop),
        DecisionTreeRegressor::params()
            .min_samples_leaf(7)
            .fit(&data)
            .map(drop),
    ] {
        refused_at(fit, "7", 12);
    }
    // A fraction is refused by the count it gives: ⌈0.55 · 12⌉ = 7.
    let (value, _) = refusal(
        DecisionTreeClassifier::params()
            .min_samples_leaf(0.55)
            .fit(&data),
    );
    assert!(
        value.starts_with("0.55 (⌈0.55 · 12⌉ = 7 samples)"),
        "{value}"
    );

    let tree = DecisionTreeClassifier::params()
        .min_samples_leaf(6)
        .fit(&data)
        .unwrap();
    assert_eq!(tree.n_leaves(), 2);
    let tree = DecisionTreeRegressor::params()
        .min_samples_leaf(0.5)
        .fit(&data)
        .unwrap();
    assert_eq!(tree.n_leaves(), 2);
    // A leaf of one sample is never refused: on one sample there is nothing to lower.
    assert!(DecisionTreeRegressor::params().fit(&step(1)).is_ok());
}

/// A forest counts the samples it is given, not a tree's bootstrap draw: at the boundary it
/// fits (a tree whose draw cannot split is a leaf), below it is refused.
#[test]
fn forests_check_the_samples_they_are_given() {
    let data = step(12);
    for leaf in [7, 6] {
        for bootstrap in [true, false] {
            let fits = [
                RandomForestClassifier::params()
                    .n_estimators(3)
                    .bootstrap(bootstrap)
                    .min_samples_leaf(leaf)
                    .fit(&data)
                    .map(|f| f.trees().len()),
                RandomForestRegressor::params()
                    .n_estimators(3)
                    .bootstrap(bootstrap)
                    .min_samples_leaf(leaf)
                    .fit(&data)
                    .map(|f| f.trees().len()),
            ];
            for fit in fits {
                if leaf == 7 {
                    refused_at(fit, "7", 12);
                } else {
                    assert_eq!(fit.unwrap(), 3);
                }
            }
        }
    }
    let whole = RandomForestRegressor::params()
        .n_estimators(2)
        .bootstrap(false)
        .min_samples_leaf(6)
        .fit(&data)
        .unwrap();
    assert!(splits(|x| whole.predict(x).unwrap()));
}

#[test]
fn adaboost_refuses_leaves_that_cannot_split() {
    let data = step(12);
    refused_at(
        AdaBoostClassifier::params().min_samples_leaf(7).fit(&data),
        "7",
        12,
    );
    let model = AdaBoostClassifier::params()
        .min_samples_leaf(6)
        .fit(&data)
        .unwrap();
    assert!(splits(|x| as_numbers(model.predict(x).unwrap())));
}

/// The boosters' default `min_samples_leaf` is 20 (scikit-learn's): a set of fewer than 40
/// samples is refused with advice instead of fitting `max_iter` constant trees.
#[test]
fn boosting_refuses_small_sets_at_the_default_leaf_size_and_fits_at_the_boundary() {
    let small = step(39);
    refused_at(
        GradientBoostingRegressor::params().max_iter(3).fit(&small),
        "20",
        39,
    );
    refused_at(
        GradientBoostingClassifier::params().max_iter(3).fit(&small),
        "20",
        39,
    );
    assert!(
        GradientBoostingRegressor::params()
            .max_iter(3)
            .min_samples_leaf(19)
            .fit(&small)
            .is_ok()
    );
    let boundary = step(40);
    let model = GradientBoostingRegressor::params()
        .max_iter(3)
        .fit(&boundary)
        .unwrap();
    assert!(splits(|x| model.predict(x).unwrap()));
    let model = GradientBoostingClassifier::params()
        .max_iter(3)
        .fit(&boundary)
        .unwrap();
    assert!(splits(|x| as_numbers(model.predict(x).unwrap())));
}

/// With early stopping the trees grow on what the validation split leaves, and with
/// `subsample` on each iteration's draw: the check counts those.
#[test]
fn boosting_counts_the_samples_trees_are_grown_on() {
    let data = step(60);
    let params = GradientBoostingRegressor::params().max_iter(3);
    assert!(params.clone().fit(&data).is_ok());
    // A quarter of 60 held out leaves 45 ≥ 40 samples; half leaves 30.
    assert!(
        params
            .clone()
            .early_stopping(EarlyStopping::On)
            .validation_fraction(0.25)
            .fit(&data)
            .is_ok()
    );
    let (value, expected) = refusal(
        params
            .clone()
            .early_stopping(EarlyStopping::On)
            .validation_fraction(0.5)
            .fit(&data),
    );
    assert_eq!(
        value,
        "20 with 30 samples to grow trees on (60 given, 30 held out for early stopping by \
         validation_fraction = 0.5)"
    );
    assert!(
        expected.contains("at most n/2 = 15 for n = 30 samples"),
        "{expected}"
    );
    let classifier = GradientBoostingClassifier::params()
        .max_iter(3)
        .early_stopping(EarlyStopping::On)
        .validation_fraction(0.5);
    let (value, _) = refusal(classifier.fit(&data));
    assert!(value.contains("held out for early stopping"), "{value}");
    // Subsample: 0.6 · 60 = 36 rows per iteration.
    let (value, expected) = refusal(params.clone().subsample(0.6).fit(&data));
    assert_eq!(
        value,
        "20 with 60 training samples, 36 of them drawn per iteration (subsample = 0.6)"
    );
    assert!(expected.contains("n = 36 samples"), "{expected}");
    assert!(params.subsample(0.7).fit(&data).is_ok());
}
