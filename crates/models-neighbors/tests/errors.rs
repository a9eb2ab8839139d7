//! Bad input becomes a typed error (never a panic), the shared estimator battery, save → load,
//! and thread-count independence.

use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Error, Fit, Predict, PredictProba, Records, Targets,
};
use margin_io::{ModelFile, datasets};
use margin_neighbors::{
    Algorithm, Covariance, KNeighborsClassifier, KNeighborsRegressor, Metric, NearestNeighbors,
    Weights,
};
use margin_testing::battery::{Task, check_estimator};

fn toy() -> Dataset {
    let x = DenseMatrix::from_rows(&[
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0],
        [5.0, 5.0],
        [6.0, 5.0],
        [5.0, 6.0],
    ])
    .unwrap();
    Dataset::new(x, Targets::Values(vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0])).unwrap()
}

fn invalid(name: &str) -> impl Fn(&Error) -> bool + '_ {
    move |e| matches!(e, Error::InvalidParameter { name: n, .. } if n == name)
}

#[test]
fn the_battery_passes_for_both_models_and_several_settings() {
    check_estimator(&KNeighborsClassifier::params(), Task::Classification);
    check_estimator(&KNeighborsRegressor::params(), Task::Regression);
    check_estimator(
        &KNeighborsClassifier::params()
            .weights(Weights::Distance)
            .metric(Metric::Manhattan)
            .algorithm(Algorithm::Brute),
        Task::Classification,
    );
    check_estimator(
        &KNeighborsRegressor::params()
            .n_neighbors(3)
            .weights(Weights::Distance)
            .metric(Metric::Chebyshev)
            .algorithm(Algorithm::KdTree),
        Task::Regression,
    );
}

#[test]
fn k_zero_and_k_above_n_are_refused() {
    let data = toy();
    for k in [0, 7] {
        let e = KNeighborsClassifier::params()
            .n_neighbors(k)
            .fit(&data)
            .unwrap_err();
        assert!(invalid("n_neighbors")(&e), "{e}");
        let e = KNeighborsRegressor::params()
            .n_neighbors(k)
            .fit(&data)
            .unwrap_err();
        assert!(invalid("n_neighbors")(&e), "{e}");
    }
    let nn = NearestNeighbors::params().fit(&data.records).unwrap();
    for k in [0, 7] {
        assert!(invalid("n_neighbors")(
            &nn.kneighbors(&data.records, k).unwrap_err()
        ));
    }
    assert!(nn.kneighbors(&data.records, 6).is_ok());
    let e = NearestNeighbors::params()
        .n_neighbors(0)
        .fit(&data.records)
        .unwrap_err();
    assert!(invalid("n_neighbors")(&e));
}

#[test]
fn a_feature_count_mismatch_and_nan_are_refused() {
    let data = toy();
    let model = KNeighborsClassifier::params().fit(&data).unwrap();
    let wide = DenseMatrix::zeros(2, 3);
    assert!(matches!(
        model.predict(&wide),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        model.kneighbors(&wide, 1),
        Err(Error::ShapeMismatch { .. })
    ));
    let nan = DenseMatrix::from_rows(&[[0.0, 1.0], [f64::NAN, 0.0]]).unwrap();
    assert!(matches!(
        model.predict_proba(&nan),
        Err(Error::NonFinite { row: 1, col: 0 })
    ));
    // Every search path: the GEMM brute force checks finiteness through the squared norms.
    for (metric, algorithm) in [
        (Metric::Euclidean, Algorithm::Brute),
        (Metric::Euclidean, Algorithm::KdTree),
        (Metric::Cosine, Algorithm::Brute),
        (Metric::Manhattan, Algorithm::Brute),
        (
            Metric::Mahalanobis(Covariance::FromTraining),
            Algorithm::Brute,
        ),
    ] {
        let params = NearestNeighbors::params()
            .metric(metric.clone())
            .algorithm(algorithm);
        assert!(
            matches!(params.fit(&nan), Err(Error::NonFinite { row: 1, col: 0 })),
            "{metric:?}"
        );
        // Without row 0, the origin, which cosine refuses.
        let model = params
            .fit(&data.select(&[1, 2, 3, 4, 5]).unwrap().records)
            .unwrap();
        assert!(
            matches!(
                model.kneighbors(&nan, 1),
                Err(Error::NonFinite { row: 1, col: 0 })
            ),
            "{metric:?}"
        );
    }
}

#[test]
fn zero_vectors_under_cosine_are_refused_in_training_and_queries() {
    let data = toy();
    let cosine = KNeighborsClassifier::params().metric(Metric::Cosine);
    // Row 0 of the toy data is the origin.
    let e = cosine.fit(&data).unwrap_err();
    assert!(
        invalid("metric")(&e) && e.to_string().contains("row 0 of the training"),
        "{e}"
    );
    let model = cosine.fit(&data.select(&[1, 2, 3, 4, 5]).unwrap()).unwrap();
    let queries = DenseMatrix::from_rows(&[[1.0, 1.0], [0.0, 0.0]]).unwrap();
    let e = model.predict(&queries).unwrap_err();
    assert!(
        invalid("metric")(&e) && e.to_string().contains("row 1 of the query"),
        "{e}"
    );
    // Sparse records too (an empty sparse row is the zero vector).
    let sparse = CsrMatrix::from_dense(&queries);
    assert!(invalid("metric")(&model.predict(&sparse).unwrap_err()));
}

#[test]
fn bad_metric_parameters_are_named() {
    let data = toy();
    for p in [0.5, f64::NAN] {
        let e = KNeighborsClassifier::params()
            .metric(Metric::Minkowski(p))
            .fit(&data)
            .unwrap_err();
        assert!(invalid("p")(&e), "{e}");
    }
    let e = KNeighborsClassifier::params()
        .leaf_size(0)
        .fit(&data)
        .unwrap_err();
    assert!(invalid("leaf_size")(&e));
    assert!(invalid("metric")(
        &Metric::from_name("jaccard", 2.0).unwrap_err()
    ));
    assert!(invalid("algorithm")(
        &Algorithm::from_name("ball_tree").unwrap_err()
    ));
    assert!(invalid("weights")(
        &Weights::from_name("gaussian").unwrap_err()
    ));
    // The kd-tree cannot bound cosine or Hamming distances.
    for metric in [Metric::Cosine, Metric::Hamming] {
        let e = KNeighborsClassifier::params()
            .metric(metric)
            .algorithm(Algorithm::KdTree)
            .fit(&data.select(&[1, 2, 3, 4, 5]).unwrap())
            .unwrap_err();
        assert!(invalid("algorithm")(&e), "{e}");
    }
    // Sample weights would be silently ignored: refused.
    let weighted = toy().with_sample_weights(vec![1.0; 6]).unwrap();
    assert!(invalid("sample_weights")(
        &KNeighborsRegressor::params().fit(&weighted).unwrap_err()
    ));
}

#[test]
fn a_singular_or_malformed_mahalanobis_covariance_is_refused() {
    // Feature 2 = feature 0 + feature 1: the sample covariance is singular.
    let x = DenseMatrix::from_rows(&[
        [0.0, 1.0, 1.0],
        [2.0, 0.5, 2.5],
        [1.0, 3.0, 4.0],
        [4.0, 1.0, 5.0],
        [3.0, 2.0, 5.0],
    ])
    .unwrap();
    let e = NearestNeighbors::params()
        .metric(Metric::Mahalanobis(Covariance::FromTraining))
        .fit(&x)
        .unwrap_err();
    assert!(
        invalid("metric")(&e) && e.to_string().contains("singular: feature 2"),
        "{e}"
    );
    let fit_with = |cov: DenseMatrix| {
        NearestNeighbors::params()
            .metric(Metric::Mahalanobis(Covariance::Given(cov)))
            .fit(&x)
    };
    let e = fit_with(DenseMatrix::zeros(2, 2)).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let mut asymmetric =
        DenseMatrix::from_rows(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
    asymmetric.row_mut(0)[1] = 0.5;
    assert!(invalid("covariance")(&fit_with(asymmetric).unwrap_err()));
    let indefinite =
        DenseMatrix::from_rows(&[[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
    assert!(invalid("metric")(&fit_with(indefinite).unwrap_err()));
    // One sample cannot estimate a covariance.
    assert!(invalid("metric")(
        &NearestNeighbors::params()
            .metric(Metric::Mahalanobis(Covariance::FromTraining))
            .fit(&x.select_rows(&[0]).unwrap())
            .unwrap_err()
    ));
}

#[test]
fn save_load_gives_identical_answers_for_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let (train, test) = (
        datasets::heart_scale().unwrap(),
        datasets::dna_test().unwrap(),
    );
    let queries = train.select(&(200..270).collect::<Vec<_>>()).unwrap();
    let train = train.select(&(0..200).collect::<Vec<_>>()).unwrap();

    let path = dir.path().join("c.margin");
    let c = KNeighborsClassifier::params()
        .weights(Weights::Distance)
        .metric(Metric::Mahalanobis(Covariance::FromTraining))
        .fit(&train)
        .unwrap();
    c.save(&path).unwrap();
    let back = KNeighborsClassifier::load(&path).unwrap();
    assert_eq!(
        c.predict_proba(&queries.records).unwrap(),
        back.predict_proba(&queries.records).unwrap()
    );

    let r = KNeighborsRegressor::params()
        .metric(Metric::Minkowski(3.0))
        .fit(&train)
        .unwrap();
    let back = KNeighborsRegressor::from_bytes(&r.to_bytes().unwrap()).unwrap();
    assert_eq!(
        r.predict(&queries.records).unwrap(),
        back.predict(&queries.records).unwrap()
    );

    // Sparse training records are stored sparse and searched the same way after loading.
    let nn = NearestNeighbors::params()
        .metric(Metric::Cosine)
        .fit(&datasets::dna().unwrap().records)
        .unwrap();
    let back = NearestNeighbors::from_bytes(&nn.to_bytes().unwrap()).unwrap();
    assert!(back.records().as_sparse().is_some());
    assert_eq!(
        nn.kneighbors(&test.records, 4).unwrap(),
        back.kneighbors(&test.records, 4).unwrap()
    );
    // Another kind's file is refused.
    assert!(matches!(
        KNeighborsRegressor::from_bytes(&c.to_bytes().unwrap()),
        Err(Error::ModelFile { .. })
    ));
}

#[test]
fn one_and_two_threads_give_identical_results() {
    let train = datasets::dna().unwrap();
    let test = datasets::dna_test()
        .unwrap()
        .select(&(0..300).collect::<Vec<_>>())
        .unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let dense = Dataset::new(
                Records::to_dense(&train.records).unwrap(),
                train.targets.clone(),
            )
            .unwrap();
            let c = KNeighborsClassifier::params()
                .weights(Weights::Distance)
                .fit(&dense)
                .unwrap();
            let r = KNeighborsRegressor::params()
                .metric(Metric::Manhattan)
                .fit(&train)
                .unwrap();
            (
                c.predict_proba(&test.records).unwrap(),
                c.kneighbors(&test.records, 9).unwrap(),
                r.predict(&test.records).unwrap(),
            )
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn every_public_type_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<NearestNeighbors>();
    check::<KNeighborsClassifier>();
    check::<KNeighborsRegressor>();
    check::<margin_neighbors::Neighbors>();
    check::<Metric>();
}
