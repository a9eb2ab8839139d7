//! The generators as a course uses them: each one's data is learnable by the model it is made
//! to teach, straight from `margin::prelude`.

use margin::cluster::KMeans;
use margin::generate::{make_blobs_with_centers, make_regression_with_coef};
use margin::linear::{LinearRegression, LogisticRegression};
use margin::metrics::{accuracy, adjusted_rand_index};
use margin::prelude::*;
use margin::svm::Svc;
use margin::tree::DecisionTreeClassifier;
use margin_testing::with_threads;

/// Each sample's class index (generic, so it reads indices stored as u32 or as usize).
fn indices(data: &Dataset) -> Vec<usize> {
    fn index<K: Copy + TryInto<usize, Error: std::fmt::Debug>>(k: &K) -> usize {
        (*k).try_into().unwrap()
    }
    data.targets
        .classes()
        .unwrap()
        .indices()
        .iter()
        .map(index)
        .collect()
}

/// Each sample's label, as a classifier predicts it.
fn truth(data: &Dataset) -> Vec<Label> {
    let classes = data.targets.classes().unwrap();
    indices(data)
        .into_iter()
        .map(|k| classes.labels()[k].clone())
        .collect()
}

/// Held-out accuracy of `fit` on a stratified 70/30 split of `data`.
fn held_out<M: Predict<Output = Vec<Label>>>(data: &Dataset, fit: impl Fn(&Dataset) -> M) -> f64 {
    let (train, test) = train_test_split(data, 0.3, true, 0).unwrap();
    let model = fit(&train);
    accuracy(&truth(&test), &model.predict(&test.records).unwrap()).unwrap()
}

#[test]
fn informative_features_separate_the_classes() {
    // Two clusters per class on the square's corners (an XOR): a tree's job.
    let p = Classification::default()
        .n_samples(600)
        .class_sep(2.0)
        .flip_y(0.0)
        .seed(1);
    let data = make_classification(&p).unwrap();
    let tree = held_out(&data, |d| DecisionTreeClassifier::params().fit(d).unwrap());
    assert!(tree > 0.9, "tree accuracy {tree}");
    // One cluster per class: linearly separable enough for logistic regression.
    let data = make_classification(&p.n_clusters_per_class(1)).unwrap();
    let logistic = held_out(&data, |d| LogisticRegression::params().fit(d).unwrap());
    assert!(logistic > 0.9, "logistic accuracy {logistic}");
}

#[test]
fn an_rbf_svm_learns_the_moons_and_the_circles() {
    let moons = make_moons(&Moons::default().n_samples(400).noise(0.1).seed(3)).unwrap();
    let svm = held_out(&moons, |d| Svc::params().fit(d).unwrap());
    assert!(svm > 0.95, "moons accuracy {svm}");
    let circles = make_circles(
        &Circles::default()
            .n_samples(400)
            .factor(0.5)
            .noise(0.05)
            .seed(3),
    )
    .unwrap();
    let svm = held_out(&circles, |d| Svc::params().fit(d).unwrap());
    assert!(svm > 0.95, "circles accuracy {svm}");
}

#[test]
fn least_squares_recovers_the_true_coefficients() {
    let p = Regression::default()
        .n_samples(200)
        .n_features(10)
        .n_informative(5)
        .bias(4.0)
        .seed(2);
    let (data, coef) = make_regression_with_coef(&p).unwrap();
    let model = LinearRegression::params().fit(&data).unwrap();
    for (got, want) in model.coef().row(0).iter().zip(&coef) {
        assert!((got - want).abs() < 1e-8, "{got} vs {want}");
    }
    assert!((model.intercept()[0] - 4.0).abs() < 1e-8);
}

#[test]
fn k_means_finds_the_blobs() {
    let p = Blobs::default()
        .n_samples(600)
        .centers(3)
        .cluster_std(0.5)
        .seed(4);
    let (data, centers) = make_blobs_with_centers(&p).unwrap();
    let model = KMeans::params().n_clusters(3).fit(&data.records).unwrap();
    assert_eq!(
        adjusted_rand_index(&indices(&data), model.labels()).unwrap(),
        1.0
    );
    for found in model.cluster_centers().rows() {
        let nearest = centers
            .rows()
            .map(|c| {
                c.iter()
                    .zip(found)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            nearest.sqrt() < 0.15,
            "centre {found:?} is {} away",
            nearest.sqrt()
        );
    }
}

#[test]
fn one_and_two_threads_generate_the_same_data() {
    let all = || {
        let low_rank = Regression::default()
            .n_samples(300)
            .n_features(200)
            .effective_rank(Some(10))
            .noise(1.0);
        [
            make_blobs(&Blobs::default().n_samples(500)).unwrap(),
            make_circles(&Circles::default().noise(0.1)).unwrap(),
            make_moons(&Moons::default().noise(0.1)).unwrap(),
            make_classification(&Classification::default().n_samples(500)).unwrap(),
            make_regression(&low_rank).unwrap(),
        ]
    };
    assert_eq!(with_threads(1, all), with_threads(2, all));
}
