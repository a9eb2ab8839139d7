//! Random forests: the battery, independence from the thread count, accuracy parity with
//! scikit-learn 1.9.1 (tests/fixtures/ensemble_forest_*.txt: mean test accuracy over five
//! seeds, written by gen_tree.py), out-of-bag scores, save → load.

use crate::common;

use common::{accuracy, bundled, fixture, labels};
use margin_core::{Dataset, Fit, Predict, PredictProba, Records};
use margin_io::ModelFile;
use margin_testing::battery::{Task, check_estimator};
use margin_tree::{
    DecisionTreeClassifier, MaxFeatures, RandomForestClassifier, RandomForestClassifierParams,
    RandomForestRegressor, RandomForestRegressorParams,
};

#[test]
fn forests_pass_the_battery() {
    check_estimator(
        &RandomForestClassifier::params().n_estimators(8),
        Task::Classification,
    );
    check_estimator(
        &RandomForestClassifierParams::extra_trees().n_estimators(8),
        Task::Classification,
    );
    check_estimator(
        &RandomForestRegressorParams::extra_trees().n_estimators(8),
        Task::Regression,
    );
    check_estimator(
        &RandomForestRegressor::params()
            .n_estimators(8)
            .max_features(MaxFeatures::Fraction(0.5)),
        Task::Regression,
    );
}

#[test]
fn forests_do_not_depend_on_the_thread_count() {
    let data = bundled("heart_scale");
    common::assert_same_on_one_and_two_threads(|| {
        let m = RandomForestClassifier::params()
            .n_estimators(20)
            .oob_score(true)
            .seed(5)
            .fit(&data)
            .unwrap();
        (
            m.to_bytes().unwrap(),
            m.predict_proba(&data.records).unwrap(),
        )
    });
}

/// Mean test accuracy over seeds 0..5 against scikit-learn's mean over its seeds 0..5.
fn forest_parity(name: &str, tolerance: f64) {
    let fx = fixture(name);
    let (train, test) = (bundled(fx.word("train")), bundled(fx.word("test")));
    let truth = labels(&test);
    let seeds = 0..5u64;
    let mean: f64 = seeds
        .clone()
        .map(|s| {
            let m = RandomForestClassifier::params()
                .seed(s)
                .fit(&train)
                .unwrap();
            accuracy(&m.predict(&test.records).unwrap(), &truth)
        })
        .sum::<f64>()
        / seeds.count() as f64;
    let sklearn = fx.float("mean");
    eprintln!("{name}: margin {mean:.4} vs scikit-learn {sklearn:.4}");
    assert!(
        (mean - sklearn).abs() <= tolerance,
        "margin {mean:.4} vs scikit-learn {sklearn:.4}"
    );
}

#[test]
fn forest_accuracy_matches_scikit_learn_on_svmguide1() {
    forest_parity("ensemble_forest_svmguide1.txt", 0.005);
}

#[test]
fn extra_trees_accuracy_matches_scikit_learn_on_svmguide1() {
    let fx = fixture("ensemble_extra_trees_svmguide1.txt");
    let (train, test) = (bundled(fx.word("train")), bundled(fx.word("test")));
    let truth = labels(&test);
    let mean: f64 = (0..5u64)
        .map(|s| {
            let m = RandomForestClassifierParams::extra_trees()
                .seed(s)
                .fit(&train)
                .unwrap();
            accuracy(&m.predict(&test.records).unwrap(), &truth)
        })
        .sum::<f64>()
        / 5.0;
    let sklearn = fx.float("mean");
    eprintln!("extra trees: margin {mean:.4} vs scikit-learn {sklearn:.4}");
    assert!(
        (mean - sklearn).abs() <= 0.005,
        "margin {mean:.4} vs scikit-learn {sklearn:.4}"
    );
}

#[test]
fn forest_beats_a_single_tree_and_its_oob_score_tracks_test_accuracy() {
    let (train, test) = (bundled("svmguide1"), bundled("svmguide1.t"));
    let truth = labels(&test);
    let forest = RandomForestClassifier::params()
        .oob_score(true)
        .fit(&train)
        .unwrap();
    let tree = DecisionTreeClassifier::params().fit(&train).unwrap();
    let (acc_forest, acc_tree) = (
        accuracy(&forest.predict(&test.records).unwrap(), &truth),
        accuracy(&tree.predict(&test.records).unwrap(), &truth),
    );
    assert!(acc_forest > acc_tree, "{acc_forest} vs {acc_tree}");
    let oob = forest.oob_score().unwrap();
    assert!(
        (oob - acc_forest).abs() < 0.02,
        "oob {oob} vs test {acc_forest}"
    );
    let imp = forest.feature_importances();
    assert!((imp.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let p = forest.predict_proba(&test.records).unwrap();
    assert!(
        p.rows()
            .all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-12)
    );
    assert!(
        RandomForestClassifier::params()
            .oob_score(false)
            .fit(&train)
            .unwrap()
            .oob_score()
            .is_none()
    );
}

#[test]
fn regression_forest_oob_and_save_load() {
    let data = bundled("housing_scale");
    let forest = RandomForestRegressor::params()
        .n_estimators(50)
        .oob_score(true)
        .fit(&data)
        .unwrap();
    // scikit-learn's RandomForestRegressor(oob_score=True) reaches about 0.86 here.
    let oob = forest.oob_score().unwrap();
    assert!((0.8..0.92).contains(&oob), "{oob}");
    let back = RandomForestRegressor::from_bytes(&forest.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&data.records).unwrap(),
        forest.predict(&data.records).unwrap()
    );
}

/// With missing values allowed, forests and AdaBoost learn from and predict rows with NaN.
#[test]
fn ensembles_accept_missing_values_when_allowed() {
    let data = bundled("heart_scale");
    let mut x = data.records.to_dense().unwrap();
    for i in (0..x.nrows()).step_by(3) {
        x.row_mut(i)[i % 13] = f64::NAN;
    }
    let data = Dataset {
        records: x.into(),
        ..data
    };
    let truth = labels(&data);
    let forest = RandomForestClassifier::params()
        .n_estimators(20)
        .missing_values(true)
        .oob_score(true)
        .fit(&data)
        .unwrap();
    assert!(accuracy(&forest.predict(&data.records).unwrap(), &truth) > 0.9);
    assert!(forest.oob_score().unwrap() > 0.6);
    let boost = margin_tree::AdaBoostClassifier::params()
        .missing_values(true)
        .fit(&data)
        .unwrap();
    assert!(accuracy(&boost.predict(&data.records).unwrap(), &truth) > 0.8);
    assert!(RandomForestClassifier::params().fit(&data).is_err());
}

/// A forest's probabilities are the mean, over its trees, of the class frequencies in the leaf
/// each row reaches: walked here node by node through the public node view (the threshold,
/// and where missing values go), rows with NaN among them.
#[test]
fn probabilities_are_mean_leaf_frequencies_walked_by_hand() {
    let data = bundled("heart_scale");
    let mut x = data.records.to_dense().unwrap();
    for i in (0..x.nrows()).step_by(2) {
        x.row_mut(i)[(i / 2) % 13] = f64::NAN;
    }
    let data = Dataset {
        records: x.clone().into(),
        ..data
    };
    let forest = RandomForestClassifier::params()
        .n_estimators(12)
        .missing_values(true)
        .fit(&data)
        .unwrap();
    let p = forest.predict_proba(&data.records).unwrap();
    let mut went_left_missing = false;
    for i in 0..x.nrows() {
        let row = x.row(i);
        let mut want = vec![0.0; forest.classes().len()];
        for tree in forest.trees() {
            let mut node = tree.node(0);
            while let Some((l, r)) = node.children() {
                let v = row[node.feature().unwrap()];
                let left = if v.is_nan() {
                    let missing_left = node.missing_goes_left().unwrap();
                    went_left_missing |= missing_left;
                    missing_left
                } else {
                    v <= node.threshold().unwrap()
                };
                node = tree.node(if left { l } else { r });
            }
            let total: f64 = node.value().iter().sum();
            want.iter_mut()
                .zip(node.value())
                .for_each(|(w, c)| *w += c / total / forest.trees().len() as f64);
        }
        for (got, want) in p.row(i).iter().zip(&want) {
            assert!((got - want).abs() < 1e-12, "row {i}: {got} vs {want}");
        }
    }
    assert!(
        went_left_missing,
        "no missing value went left: the walk is not tested"
    );
}

#[test]
fn bad_ensemble_parameters_are_refused() {
    let d = bundled("heart_scale");
    for r in [
        RandomForestClassifier::params()
            .n_estimators(0)
            .fit(&d)
            .map(|_| ()),
        RandomForestClassifier::params()
            .bootstrap(false)
            .oob_score(true)
            .fit(&d)
            .map(|_| ()),
    ] {
        assert!(matches!(
            r,
            Err(margin_core::Error::InvalidParameter { .. })
        ));
    }
}

#[test]
fn a_forest_too_large_to_hold_is_refused_before_any_tree_grows() {
    let data = Dataset::classification([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]).unwrap();
    let e = RandomForestClassifier::params()
        .n_estimators(1_000_000_000_000)
        .fit(&data)
        .unwrap_err();
    assert!(matches!(e, margin_core::Error::OutOfMemory { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("n_estimators") && text.contains("trees"),
        "{text}"
    );
    let e = RandomForestRegressor::params()
        .n_estimators(1_000_000_000_000)
        .fit(&Dataset::regression([[0.0], [1.0]], [0.0, 1.0]).unwrap())
        .unwrap_err();
    assert!(matches!(e, margin_core::Error::OutOfMemory { .. }), "{e}");
}
