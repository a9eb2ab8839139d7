//! The neighbour params structs as data: shared checks in every configuration, defaults
//! against scikit-learn's, order-free setting of the metric and its `p`, and model files that
//! keep the metric as they stored it.

use margin_core::params::{Params, Value};
use margin_core::{Classes, Dataset, DenseMatrix, Error, Fit, Targets};
use margin_io::ModelFile;
use margin_neighbors::{
    Algorithm, Covariance, KNeighborsClassifier, KNeighborsClassifierParams, KNeighborsRegressor,
    KNeighborsRegressorParams, Metric, NearestNeighbors, NearestNeighborsParams, Weights,
};
use margin_testing::battery::check_params;

use Value::{Float, Int, Text};

fn text(s: &str) -> Value {
    Text(s.to_owned())
}

/// scikit-learn 1.9's defaults (sklearn.neighbors.KNeighborsClassifier, …), in margin's
/// order. margin differs on purpose in `metric`: scikit-learn's default is `minkowski` with
/// `p = 2`, the same distance, which margin names `euclidean` and computes directly.
/// NearestNeighbors has no `weights` (as scikit-learn's) and no `radius` (margin has no
/// radius queries).
fn sklearn_defaults(with_weights: bool) -> Vec<(&'static str, Value)> {
    let mut rows = vec![("n_neighbors", Int(5))];
    if with_weights {
        rows.push(("weights", text("uniform")));
    }
    rows.extend([
        ("algorithm", text("auto")),
        ("leaf_size", Int(30)),
        ("metric", text("euclidean")),
        ("p", Float(2.0)),
    ]);
    rows
}

#[test]
fn defaults_are_scikit_learns() {
    assert_eq!(
        KNeighborsClassifierParams::defaults(),
        sklearn_defaults(true)
    );
    assert_eq!(
        KNeighborsRegressorParams::defaults(),
        sklearn_defaults(true)
    );
    assert_eq!(NearestNeighborsParams::defaults(), sklearn_defaults(false));
}

#[test]
fn every_configuration_passes_the_params_checks() {
    let metrics = [
        Metric::Euclidean,
        Metric::SqEuclidean,
        Metric::Manhattan,
        Metric::Chebyshev,
        Metric::Minkowski(3.0),
        Metric::Minkowski(f64::INFINITY),
        Metric::Cosine,
        Metric::Mahalanobis(Covariance::FromTraining),
        Metric::Hamming,
    ];
    for metric in metrics {
        for algorithm in [Algorithm::Auto, Algorithm::Brute, Algorithm::KdTree] {
            check_params(
                &KNeighborsClassifier::params()
                    .metric(metric.clone())
                    .algorithm(algorithm)
                    .weights(Weights::Distance),
            );
            check_params(
                &KNeighborsRegressor::params()
                    .metric(metric.clone())
                    .algorithm(algorithm),
            );
            check_params(
                &NearestNeighbors::params()
                    .metric(metric.clone())
                    .algorithm(algorithm),
            );
        }
    }
    check_params(&KNeighborsClassifier::params().n_neighbors(1).leaf_size(1));
}

#[test]
fn metric_and_p_set_by_name_in_any_order() {
    let built = KNeighborsClassifier::params().metric(Metric::Minkowski(3.0));
    let mut a = KNeighborsClassifier::params();
    a.set("metric", "minkowski").unwrap();
    a.set("p", "3").unwrap();
    let mut b = KNeighborsClassifier::params();
    b.set("p", "3").unwrap();
    b.set("metric", "minkowski").unwrap();
    assert_eq!(a, built);
    assert_eq!(b, built);
    // Aliases the command line accepted before.
    let mut c = KNeighborsRegressor::params();
    c.set("metric", "l1").unwrap();
    c.set("algorithm", "kd-tree").unwrap();
    assert_eq!(
        c,
        KNeighborsRegressor::params()
            .metric(Metric::Manhattan)
            .algorithm(Algorithm::KdTree)
    );
    assert_eq!(c.get("metric"), Some(text("manhattan")));
    // A builder call replaces the metric's payload too.
    let p = NearestNeighbors::params()
        .metric(Metric::Minkowski(1.5))
        .metric(Metric::Cosine);
    assert_eq!(p, NearestNeighbors::params().metric(Metric::Cosine));
}

fn toy() -> Dataset {
    let x = DenseMatrix::from_rows(&[
        [0.0, 0.0],
        [1.0, 0.2],
        [0.1, 1.0],
        [3.0, 3.0],
        [3.5, 2.9],
        [2.8, 3.6],
    ])
    .unwrap();
    let y = Classes::from_numbers(&[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
    Dataset::new(x, Targets::Classes(y)).unwrap()
}

#[test]
fn p_without_minkowski_and_bad_values_are_refused() {
    let mut p = KNeighborsClassifier::params();
    p.set("p", "3").unwrap();
    match p.fit(&toy()) {
        Err(Error::InvalidParameter { name, .. }) => assert_eq!(name, "p"),
        other => panic!("{other:?}"),
    }
    p.set("metric", "minkowski").unwrap();
    assert!(p.fit(&toy()).is_ok());
    for (name, value) in [
        ("p", "0.5"),
        ("p", "nan"),
        ("leaf_size", "0"),
        ("n_neighbors", "0"),
        ("metric", "jaccard"),
        ("algorithm", "ball_tree"),
        ("weights", "gaussian"),
    ] {
        let before = p.clone();
        assert!(
            matches!(p.set(name, value), Err(Error::InvalidParameter { name: ref n, .. }) if n == name),
            "{name}={value}"
        );
        assert_eq!(p, before);
    }
    // A given covariance goes with the Mahalanobis metric only.
    let cov = DenseMatrix::from_rows(&[[1.0, 0.0], [0.0, 2.0]]).unwrap();
    let mut m = KNeighborsClassifier::params().metric(Metric::Mahalanobis(Covariance::Given(cov)));
    assert!(m.fit(&toy()).is_ok());
    m.set("metric", "euclidean").unwrap();
    assert!(matches!(m.fit(&toy()), Err(Error::InvalidParameter { name, .. }) if name == "metric"));
}

#[test]
fn model_files_keep_the_metric_and_its_payload() {
    let data = toy();
    let cov = DenseMatrix::from_rows(&[[1.0, 0.5], [0.5, 2.0]]).unwrap();
    for metric in [
        Metric::Minkowski(3.0),
        Metric::Minkowski(2.0),
        Metric::Mahalanobis(Covariance::Given(cov.clone())),
        Metric::Manhattan,
    ] {
        let model = KNeighborsClassifier::params()
            .n_neighbors(3)
            .metric(metric.clone())
            .fit(&data)
            .unwrap();
        let back = KNeighborsClassifier::from_bytes(&model.to_bytes().unwrap()).unwrap();
        assert_eq!(back.to_bytes().unwrap(), model.to_bytes().unwrap());
        let nn = NearestNeighbors::params()
            .metric(metric.clone())
            .fit(&data.records)
            .unwrap();
        assert_eq!(nn.metric(), &metric);
        let back = NearestNeighbors::from_bytes(&nn.to_bytes().unwrap()).unwrap();
        assert_eq!(back.metric(), &metric);
    }
}

/// The params layout model files stored before the metric was split into parameters.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredBefore {
    n_neighbors: usize,
    weights: Weights,
    search: (Metric, Algorithm, usize),
}

/// Today's params, under the same kind, to compare the bytes.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredNow(KNeighborsClassifierParams);

macro_rules! model_file {
    ($t:ty) => {
        impl ModelFile for $t {
            const KIND: &'static str = "params";
            const SCHEMA: u32 = 1;
            fn check_consistent(&self) -> margin_core::Result<()> {
                Ok(())
            }
        }
    };
}
model_file!(StoredBefore);
model_file!(StoredNow);

#[test]
fn stored_params_keep_their_layout() {
    let cov = DenseMatrix::from_rows(&[[1.0, 0.5], [0.5, 2.0]]).unwrap();
    for metric in [
        Metric::Euclidean,
        Metric::Minkowski(3.0),
        Metric::Mahalanobis(Covariance::Given(cov)),
        Metric::Hamming,
    ] {
        let now = KNeighborsClassifier::params()
            .n_neighbors(7)
            .weights(Weights::Distance)
            .metric(metric.clone())
            .algorithm(Algorithm::Brute)
            .leaf_size(12);
        let before = StoredBefore {
            n_neighbors: 7,
            weights: Weights::Distance,
            search: (metric, Algorithm::Brute, 12),
        };
        let bytes = before.to_bytes().unwrap();
        assert_eq!(StoredNow(now.clone()).to_bytes().unwrap(), bytes);
        assert_eq!(StoredNow::from_bytes(&bytes).unwrap().0, now);
    }
}
