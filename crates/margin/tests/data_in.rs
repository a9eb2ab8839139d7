//! A user's own data in, their own labels out: plain Rust rows and labels build datasets, and
//! predictions compare with the user's labels with `==` and convert back to their type.

use margin::linear::LinearRegression;
use margin::metrics::ConfusionMatrix;
use margin::prelude::*;
use margin::svm::Svc;
use margin::{Label, labels_to};

/// Two well-separated groups: rows near (0, 0) and rows near (4, 4).
fn two_groups() -> Vec<Vec<f64>> {
    vec![
        vec![0.0, 0.1],
        vec![0.2, 0.0],
        vec![0.1, 0.3],
        vec![4.0, 4.1],
        vec![4.2, 3.9],
        vec![3.8, 4.0],
    ]
}

#[test]
fn svc_on_vec_rows_with_text_labels_predicts_the_users_labels() {
    let x = two_groups();
    let labels = ["near", "near", "near", "far", "far", "far"];
    let data = Dataset::classification(&x, labels).unwrap();
    let model = Svc::params().fit(&data).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    assert_eq!(predicted, labels);
    assert!(predicted == data.labels().unwrap());
    let back: Vec<String> = labels_to(&predicted).unwrap();
    assert_eq!(back, labels);
    // New points, given the way the user holds them.
    let new = Dataset::classification([[0.1, 0.1], [3.9, 4.2]], ["near", "far"]).unwrap();
    assert_eq!(model.predict(&new.records).unwrap(), ["near", "far"]);
    let m =
        ConfusionMatrix::from_labels(new.labels().unwrap().to_vec().as_slice(), &predicted[..2])
            .unwrap();
    assert_eq!(m.labels(), ["far", "near"]);
    assert_eq!(m.rows(), [vec![0, 1], vec![0, 1]]);
}

#[test]
fn svc_on_array_rows_with_integer_labels_predicts_the_users_integers() {
    let x: &[[f64; 2]] = &[
        [0.0, 0.1],
        [0.2, 0.0],
        [0.1, 0.3],
        [4.0, 4.1],
        [4.2, 3.9],
        [3.8, 4.0],
    ];
    let labels: Vec<i64> = vec![-1, -1, -1, 7, 7, 7];
    let data = Dataset::classification(x, labels.iter().copied()).unwrap();
    let model = Svc::params().fit(&data).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    assert_eq!(predicted, labels);
    assert_eq!(labels_to::<i64>(&predicted).unwrap(), labels);
    assert!(labels_to::<String>(&predicted).is_err());
    // The class indices are `usize`, as `ConfusionMatrix::new` takes them.
    let classes = data.targets.classes().unwrap();
    let m =
        ConfusionMatrix::new(classes.indices(), classes.indices(), classes.n_classes()).unwrap();
    assert_eq!(m.accuracy(), 1.0);
}

#[test]
fn linear_regression_on_vec_rows_recovers_the_users_line() {
    // y = 1 + 2·x₀ − 3·x₁, exactly.
    let x = two_groups();
    let y: Vec<f64> = x.iter().map(|r| 1.0 + 2.0 * r[0] - 3.0 * r[1]).collect();
    let data = Dataset::regression(x.clone(), &y).unwrap();
    let model = LinearRegression::params().fit(&data).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    for (p, t) in predicted.iter().zip(&y) {
        assert!((p - t).abs() < 1e-9, "{p} vs {t}");
    }
    assert!((model.intercept()[0] - 1.0).abs() < 1e-9);
    // f32 rows and targets give the same model on values that f32 holds exactly.
    let x32: Vec<[f32; 2]> = vec![[0.0, 0.5], [1.0, 0.25], [2.0, 1.0], [3.0, 0.0]];
    let y32: Vec<f32> = x32.iter().map(|r| 1.0 + 2.0 * r[0] - 3.0 * r[1]).collect();
    let m32 = LinearRegression::params()
        .fit(&Dataset::regression(x32, &y32[..]).unwrap())
        .unwrap();
    assert!((m32.intercept()[0] - 1.0).abs() < 1e-9);
}

#[test]
fn mistakes_in_the_users_data_are_typed_errors() {
    // (A ragged row's refusal is margin-core's own test.)
    assert!(matches!(
        Dataset::regression(two_groups(), [1.0, 2.0]),
        Err(Error::ShapeMismatch {
            expected: 6,
            found: 2,
            ..
        })
    ));
    assert!(margin::Matrix::try_from(vec![vec![0.0, 1.0], vec![1.0]]).is_err());
    let nan = Dataset::regression(vec![vec![0.0], vec![f64::NAN]], [1.0, 2.0]).unwrap();
    assert!(matches!(
        LinearRegression::params().fit(&nan),
        Err(Error::NonFinite { row: 1, col: 0 })
    ));
    assert!(matches!(
        i64::try_from(&Label::from("a")),
        Err(Error::LabelType { .. })
    ));
}
