//! Bad input to the trees: typed errors naming what is wrong, never a panic; and the
//! documented behaviour at the edges (one sample, constant features).

use crate::common;

use common::bundled;
use margin_core::{Dataset, DenseMatrix, Error, Fit, Label, Predict, PredictProba, Targets};
use margin_io::ModelFile;
use margin_tree::{Criterion, DecisionTreeClassifier, DecisionTreeRegressor, MaxFeatures};

fn data(rows: &[&[f64]], y: &[f64]) -> Dataset {
    Dataset::new(
        DenseMatrix::from_rows(rows).unwrap(),
        Targets::Values(y.to_vec()),
    )
    .unwrap()
}

fn invalid<T: std::fmt::Debug>(r: margin_core::Result<T>) -> String {
    match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn nan_is_refused_with_its_position() {
    let bad = data(
        &[&[1.0, 2.0], &[3.0, f64::NAN], &[0.0, 1.0]],
        &[0.0, 1.0, 0.0],
    );
    assert!(matches!(
        DecisionTreeClassifier::params().fit(&bad),
        Err(Error::NonFinite { row: 1, col: 1 })
    ));
    assert!(matches!(
        DecisionTreeRegressor::params().fit(&bad),
        Err(Error::NonFinite { row: 1, col: 1 })
    ));
    let good = data(&[&[1.0, 2.0], &[3.0, 4.0], &[0.0, 1.0]], &[0.0, 1.0, 0.0]);
    let model = DecisionTreeClassifier::params().fit(&good).unwrap();
    assert!(matches!(
        model.predict(&bad.records),
        Err(Error::NonFinite { row: 1, col: 1 })
    ));
    let narrow = DenseMatrix::from_rows(&[[1.0]]).unwrap();
    assert!(matches!(
        model.predict_proba(&narrow),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn missing_values_are_opt_in_and_infinity_is_always_refused() {
    let x = [&[1.0, 2.0][..], &[f64::NAN, 4.0], &[3.0, 1.0], &[4.0, 0.0]];
    let with_nan = data(&x, &[0.0, 1.0, 1.0, 0.0]);
    let model = DecisionTreeClassifier::params()
        .missing_values(true)
        .fit(&with_nan)
        .unwrap();
    // Feature 1 separates the classes; a NaN there follows the learned direction.
    let probe = DenseMatrix::from_rows(&[[f64::NAN, f64::NAN], [0.0, 3.0]]).unwrap();
    assert_eq!(model.predict(&probe).unwrap().len(), 2);
    let mut inf = with_nan.clone();
    inf.records = DenseMatrix::from_rows(&[[1.0, f64::INFINITY], [2.0, 1.0]])
        .unwrap()
        .into();
    inf.targets = Targets::Values(vec![0.0, 1.0]);
    assert!(matches!(
        DecisionTreeClassifier::params()
            .missing_values(true)
            .fit(&inf),
        Err(Error::NonFinite { row: 0, col: 1 })
    ));
    let strict = DecisionTreeRegressor::params()
        .fit(&data(&[&[1.0], &[2.0]], &[0.0, 1.0]))
        .unwrap();
    assert!(matches!(
        strict.predict(&DenseMatrix::from_rows(&[[f64::NAN]]).unwrap()),
        Err(Error::NonFinite { row: 0, col: 0 })
    ));
    // A missing value alone can decide: present left, missing right (threshold +inf).
    let only_missing = data(
        &[&[1.0], &[1.0], &[f64::NAN], &[f64::NAN]],
        &[0.0, 0.0, 1.0, 1.0],
    );
    let model = DecisionTreeClassifier::params()
        .missing_values(true)
        .fit(&only_missing)
        .unwrap();
    let root = model.tree().node(0);
    assert_eq!(root.threshold(), Some(f64::INFINITY));
    assert_eq!(root.missing_goes_left(), Some(false));
    assert_eq!(
        model.predict(&only_missing.records).unwrap(),
        [0.0, 0.0, 1.0, 1.0].map(Label::Number)
    );
    let back = DecisionTreeClassifier::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(back, model);
}

#[test]
fn one_class_and_one_sample() {
    let one_class = data(&[&[1.0], &[2.0]], &[3.0, 3.0]);
    assert!(matches!(
        DecisionTreeClassifier::params().fit(&one_class),
        Err(Error::TooFewClasses { found: 1, .. })
    ));
    let one = data(&[&[1.0, 2.0]], &[5.0]);
    assert!(matches!(
        DecisionTreeClassifier::params().fit(&one),
        Err(Error::TooFewClasses { .. })
    ));
    // A regressor on one sample is a leaf predicting it.
    let model = DecisionTreeRegressor::params().fit(&one).unwrap();
    assert_eq!(model.tree().n_nodes(), 1);
    assert_eq!(
        model
            .predict(&DenseMatrix::from_rows(&[[9.0, 9.0]]).unwrap())
            .unwrap(),
        vec![5.0]
    );
}

#[test]
fn constant_features_give_a_single_leaf() {
    let d = data(
        &[&[1.0, 7.0], &[1.0, 7.0], &[1.0, 7.0], &[1.0, 7.0]],
        &[0.0, 1.0, 1.0, 1.0],
    );
    let model = DecisionTreeClassifier::params().fit(&d).unwrap();
    assert_eq!(model.tree().n_nodes(), 1);
    assert_eq!(
        model.predict(&d.records).unwrap(),
        vec![Label::Number(1.0); 4]
    );
    assert_eq!(
        model.predict_proba(&d.records).unwrap().row(0),
        &[0.25, 0.75]
    );
    assert_eq!(model.feature_importances(), vec![0.0, 0.0]);
    let reg = DecisionTreeRegressor::params().fit(&d).unwrap();
    assert_eq!(reg.predict(&d.records).unwrap(), vec![0.75; 4]);
}

#[test]
fn negative_and_all_zero_weights_are_refused() {
    let mut d = data(&[&[1.0], &[2.0], &[3.0]], &[0.0, 1.0, 1.0]);
    for weights in [vec![1.0, -1.0, 1.0], vec![0.0; 3]] {
        d.sample_weights = Some(weights);
        assert_eq!(
            invalid(DecisionTreeClassifier::params().fit(&d)),
            "sample_weights"
        );
        assert_eq!(
            invalid(DecisionTreeRegressor::params().fit(&d)),
            "sample_weights"
        );
    }
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let d = bundled("heart_scale");
    let p = DecisionTreeClassifier::params;
    assert_eq!(invalid(p().max_depth(Some(0)).fit(&d)), "max_depth");
    assert_eq!(
        invalid(p().min_samples_split(1).fit(&d)),
        "min_samples_split"
    );
    assert_eq!(invalid(p().min_samples_leaf(0).fit(&d)), "min_samples_leaf");
    assert_eq!(
        invalid(p().max_leaf_nodes(Some(1)).fit(&d)),
        "max_leaf_nodes"
    );
    for v in [-0.1, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid(p().min_impurity_decrease(v).fit(&d)),
            "min_impurity_decrease"
        );
    }
    for m in [
        MaxFeatures::Count(0),
        MaxFeatures::Count(14),
        MaxFeatures::Fraction(0.0),
    ] {
        assert_eq!(invalid(p().max_features(m).fit(&d)), "max_features");
    }
    assert_eq!(
        invalid(p().criterion(Criterion::SquaredError).fit(&d)),
        "criterion"
    );
    for v in [-0.1, f64::NAN] {
        assert_eq!(invalid(p().ccp_alpha(v).fit(&d)), "ccp_alpha");
    }
    let r = DecisionTreeRegressor::params;
    assert_eq!(invalid(r().criterion(Criterion::Gini).fit(&d)), "criterion");
    // Text labels cannot be regressed.
    let text = Dataset::new(
        DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap(),
        Targets::Classes(margin_core::Classes::from_text(&["a", "b"])),
    )
    .unwrap();
    assert_eq!(invalid(r().fit(&text)), "target");
}

#[test]
fn text_labels_are_predicted_back() {
    let d = Dataset::new(
        DenseMatrix::from_rows(&[[1.0], [2.0], [3.0], [4.0]]).unwrap(),
        Targets::Classes(margin_core::Classes::from_text(&["no", "no", "yes", "yes"])),
    )
    .unwrap();
    let model = DecisionTreeClassifier::params().fit(&d).unwrap();
    assert_eq!(
        model.predict(&d.records).unwrap(),
        ["no", "no", "yes", "yes"].map(|s| Label::Text(s.into()))
    );
}
