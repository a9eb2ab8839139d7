//! Model files whose checksum is right but whose contents are not: the battery's forgeries over
//! the methods the battery does not call (`predict_proba`, `decision_function`), for every
//! classifier of the crate, and over `predict` for trees with categorical features and missing
//! values (layouts the battery's models do not have), and stored feature names that do not fit
//! the features.

use margin_core::{
    Dataset, DecisionFunction, Error, Fit, Matrix, Predict, PredictProba, Records, Targets,
};
use margin_io::{ModelFile, body_of, seal};
use margin_testing::battery::{check_forged_files, forge_data};
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
    RandomForestClassifier, RandomForestRegressor,
};

/// The battery's forging data with its third column made categorical (codes 0..4; the
/// targets do not read it).
fn data(n: usize, k: usize) -> Dataset {
    let d = forge_data(n, Some(k));
    let mut x = d.records.to_dense().unwrap();
    for r in 0..n {
        x.row_mut(r)[2] = ((3 * r + 2) * 7 % 5) as f64;
    }
    Dataset {
        records: Matrix::Dense(x),
        ..d
    }
}

#[test]
fn forged_classifier_files_are_refused_or_harmless_in_every_method() {
    for k in [2, 3] {
        let d = data(40, k);
        check_forged_files(
            &DecisionTreeClassifier::params().fit(&d).unwrap(),
            3,
            |m, x| Ok(vec![m.predict_proba(x)?.nrows()]),
        );
        check_forged_files(
            &RandomForestClassifier::params()
                .n_estimators(3)
                .fit(&d)
                .unwrap(),
            3,
            |m, x| Ok(vec![m.predict_proba(x)?.nrows()]),
        );
        check_forged_files(
            &AdaBoostClassifier::params()
                .n_estimators(3)
                .fit(&d)
                .unwrap(),
            3,
            |m, x| Ok(vec![m.predict_proba(x)?.nrows()]),
        );
        check_forged_files(
            &GradientBoostingClassifier::params()
                .max_iter(3)
                .fit(&d)
                .unwrap(),
            3,
            |m, x| {
                Ok(vec![
                    m.decision_function(x)?.nrows(),
                    m.predict_proba(x)?.nrows(),
                ])
            },
        );
    }
}

#[test]
fn forged_categorical_tree_files_are_refused_or_harmless() {
    let d = data(40, 3);
    let tree = DecisionTreeClassifier::params()
        .categorical_features([2])
        .fit(&d)
        .unwrap();
    check_forged_files(&tree, 3, |m, x| Ok(vec![m.predict(x)?.len()]));
    let mut reg = d.clone();
    reg.targets = Targets::Values((0..40).map(|i| f64::from(i % 5)).collect());
    let tree = DecisionTreeRegressor::params()
        .categorical_features([2])
        .fit(&reg)
        .unwrap();
    check_forged_files(&tree, 3, |m, x| Ok(vec![m.predict(x)?.len()]));
}

/// The feature names are the last field of every tree kind's body: an unnamed model's body
/// ends with `None` (byte 0). Replaced by one name for a model of three features, the file is
/// refused on load, naming the field; so is a name whose claimed length is absurd.
fn refuses_a_name_count_that_is_not_the_feature_count<M: ModelFile>(model: &M) {
    let bytes = model.to_bytes().unwrap();
    let body = body_of(&bytes).unwrap();
    assert_eq!(body.last(), Some(&0), "{}: the names are not last", M::KIND);
    let mut forged = body[..body.len() - 1].to_vec();
    // Some, a list of 1, a string of 1 byte: "a".
    forged.extend_from_slice(&[1, 1, 1, b'a']);
    match M::from_bytes(&seal(M::KIND, M::SCHEMA, &forged).unwrap()) {
        Err(Error::ModelFile { reason }) => {
            assert!(reason.contains("feature_names"), "{}: {reason}", M::KIND)
        }
        other => panic!("{}: {:?}", M::KIND, other.err()),
    }
    // A name claiming 2⁴⁰ bytes: refused, not allocated (which would abort the process).
    let mut huge = body[..body.len() - 1].to_vec();
    huge.extend_from_slice(&[1, 1, 0xfd, 0, 0, 0, 0, 0, 1, 0, 0, b'a']);
    assert!(matches!(
        M::from_bytes(&seal(M::KIND, M::SCHEMA, &huge).unwrap()),
        Err(Error::ModelFile { .. })
    ));
}

#[test]
fn tree_files_whose_names_do_not_fit_the_features_are_refused() {
    let d = data(40, 2);
    let mut values = d.clone();
    values.targets = Targets::Values((0..40).map(f64::from).collect());
    refuses_a_name_count_that_is_not_the_feature_count(
        &DecisionTreeClassifier::params().fit(&d).unwrap(),
    );
    refuses_a_name_count_that_is_not_the_feature_count(
        &DecisionTreeRegressor::params().fit(&values).unwrap(),
    );
    refuses_a_name_count_that_is_not_the_feature_count(
        &RandomForestClassifier::params()
            .n_estimators(2)
            .fit(&d)
            .unwrap(),
    );
    refuses_a_name_count_that_is_not_the_feature_count(
        &RandomForestRegressor::params()
            .n_estimators(2)
            .fit(&values)
            .unwrap(),
    );
    refuses_a_name_count_that_is_not_the_feature_count(
        &AdaBoostClassifier::params()
            .n_estimators(2)
            .fit(&d)
            .unwrap(),
    );
}
