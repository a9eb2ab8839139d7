//! AdaBoost (SAMME): the battery, the SAMME weights on a hand-checkable case, and accuracy
//! parity with scikit-learn 1.9.1's AdaBoostClassifier (tests/fixtures/ensemble_adaboost_*.txt,
//! written by gen_tree.py).

use crate::common;

use common::{accuracy, bundled, fixture, labels};
use margin_core::{Dataset, DecisionFunction, DenseMatrix, Fit, Predict, PredictProba, Targets};
use margin_io::ModelFile;
use margin_testing::battery::{Task, check_estimator};
use margin_tree::AdaBoostClassifier;

#[test]
fn adaboost_passes_the_battery() {
    check_estimator(
        &AdaBoostClassifier::params().n_estimators(10),
        Task::Classification,
    );
}

fn parity(name: &str) {
    let fx = fixture(name);
    let (train, test) = (bundled(fx.word("train")), bundled(fx.word("test")));
    let model = AdaBoostClassifier::params().fit(&train).unwrap();
    let acc = accuracy(&model.predict(&test.records).unwrap(), &labels(&test));
    let sklearn = fx.float("mean");
    eprintln!("{name}: margin {acc:.4} vs scikit-learn {sklearn:.4}");
    assert!(
        (acc - sklearn).abs() <= 0.005,
        "margin {acc:.4} vs scikit-learn {sklearn:.4}"
    );
    let back = AdaBoostClassifier::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&test.records).unwrap(),
        model.predict(&test.records).unwrap()
    );
}

#[test]
fn accuracy_matches_scikit_learn_on_svmguide1() {
    parity("ensemble_adaboost_svmguide1.txt");
}

#[test]
fn accuracy_matches_scikit_learn_on_dna_three_classes() {
    parity("ensemble_adaboost_dna.txt");
}

/// Four points on a line, labels 0 0 1 0: the first stump (x <= 2.5) misclassifies the last
/// point, so ε₁ = 1/4 and α₁ = ln 3; that point's weight grows to 1/2.
#[test]
fn samme_weights_follow_the_formula() {
    let x = DenseMatrix::from_rows(&[[1.0], [2.0], [3.0], [4.0]]).unwrap();
    let data = Dataset::new(x.clone(), Targets::Values(vec![0.0, 0.0, 1.0, 0.0])).unwrap();
    let model = AdaBoostClassifier::params()
        .n_estimators(3)
        .fit(&data)
        .unwrap();
    assert_eq!(model.estimator_errors()[0], 0.25);
    assert!((model.estimator_weights()[0] - 3f64.ln()).abs() < 1e-12);
    // Round 2 sees weights (1/6, 1/6, 1/6, 1/2): the stump x <= 3.5 errs on 1/6 of it.
    assert!((model.estimator_errors()[1] - 1.0 / 6.0).abs() < 1e-12);
    let d = model.decision_function(&x).unwrap();
    let p = model.predict_proba(&x).unwrap();
    for i in 0..4 {
        let e = (d.row(i)[0] / 2.0).exp();
        assert!((p.row(i)[1] - e / (e + 1.0 / e)).abs() < 1e-12);
    }
}
