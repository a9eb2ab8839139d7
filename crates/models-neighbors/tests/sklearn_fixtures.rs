//! The classifier and regressor against scikit-learn 1.9.1 on the bundled data: every
//! prediction, `predict_proba` to 1e-12, and `kneighbors` (the same neighbours, distances to
//! 1e-9 relative). Where training rows tie at the k-th place, scikit-learn's choice among them
//! follows no rule, so the fixtures hold a reference built from scikit-learn's distances with
//! margin's documented rule (smaller index first), which gen_knn.py checks against
//! scikit-learn's own answers on every row without such a tie. Each fixture runs by brute force
//! on the sparse records as loaded, and on dense ones with `algorithm = auto` (the kd-tree
//! where the rule picks it). Fixtures and the command that wrote them: tests/fixtures/gen_knn.py.

use margin_core::{Dataset, Fit, Label, Matrix, Predict, PredictProba, Records};
use margin_io::datasets;
use margin_neighbors::{
    Algorithm, KNeighborsClassifier, KNeighborsRegressor, Metric, Neighbors, Weights,
};
use margin_testing::fixture::Fixture;

/// The fixture tests/fixtures/`name`.txt.
fn read(name: &str) -> Fixture {
    Fixture::bundled(env!("CARGO_MANIFEST_DIR"), &format!("{name}.txt"))
}

/// This suite's readings of a fixture.
trait Knn {
    fn data(&self) -> (Dataset, Dataset);
    fn metric(&self) -> Metric;
    fn k(&self) -> usize;
    fn weights(&self) -> Weights;
}

impl Knn for Fixture {
    /// Training and test sets, as gen_knn.py splits them.
    fn data(&self) -> (Dataset, Dataset) {
        let range =
            |d: &Dataset, r: std::ops::Range<usize>| d.select(&r.collect::<Vec<_>>()).unwrap();
        match self.word("data") {
            "heart" => {
                let d = datasets::heart_scale().unwrap();
                (range(&d, 0..200), range(&d, 200..270))
            }
            "dna" => (
                datasets::dna().unwrap(),
                range(&datasets::dna_test().unwrap(), 0..300),
            ),
            "housing" => {
                let d = datasets::housing_scale().unwrap();
                (range(&d, 0..400), range(&d, 400..506))
            }
            other => panic!("unknown data {other}"),
        }
    }

    fn metric(&self) -> Metric {
        Metric::from_name(self.word("metric"), self.floats("p")[0]).unwrap()
    }

    fn k(&self) -> usize {
        self.word("n_neighbors").parse().unwrap()
    }

    fn weights(&self) -> Weights {
        Weights::from_name(self.word("weights")).unwrap()
    }
}

fn dense(d: &Dataset) -> Dataset {
    Dataset::new(
        Matrix::Dense(d.records.to_dense().unwrap()),
        d.targets.clone(),
    )
    .unwrap()
}

/// Our neighbours against the reference's: the same training rows (the same set; within it,
/// rows whose distances agree to rounding may come in either order) at the same distances to
/// 1e-9 relative.
fn same_neighbours(f: &Fixture, ours: &Neighbors) {
    let (dist, ind) = (f.floats("kn_dist"), f.floats("kn_ind"));
    let k = ours.k();
    for q in 0..ours.n_queries() {
        let mut want: Vec<usize> = (0..k).map(|j| ind[q * k + j] as usize).collect();
        let mut got = ours.indices(q).to_vec();
        for (j, &d) in dist[q * k..(q + 1) * k].iter().enumerate() {
            let od = ours.distances(q)[j];
            assert!(
                (od - d).abs() <= 1e-9 * (1.0 + d),
                "{} query {q} #{j}: {od} vs {d}",
                f.name()
            );
        }
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{} query {q}", f.name());
    }
}

fn check_classifier(name: &str) {
    let f = read(name);
    let (train, test) = f.data();
    let params = KNeighborsClassifier::params()
        .n_neighbors(f.k())
        .weights(f.weights())
        .metric(f.metric());
    let predicted: Vec<Label> = f.floats("predict").into_iter().map(Label::Number).collect();
    let proba = f.floats("proba");
    for (train, test, algorithm) in [
        (train.clone(), test.clone(), Algorithm::Brute),
        (dense(&train), dense(&test), Algorithm::Auto),
    ] {
        let model = params.clone().algorithm(algorithm).fit(&train).unwrap();
        for (i, (a, b)) in model
            .predict(&test.records)
            .unwrap()
            .iter()
            .zip(&predicted)
            .enumerate()
        {
            assert_eq!(a, b, "{name}: row {i}");
        }
        let ours = model.predict_proba(&test.records).unwrap();
        for (a, b) in ours.as_slice().iter().zip(&proba) {
            assert!((a - b).abs() <= 1e-12, "{name}: proba {a} vs {b}");
        }
        same_neighbours(&f, &model.kneighbors(&test.records, f.k()).unwrap());
    }
}

fn check_regressor(name: &str) {
    let f = read(name);
    let (train, test) = f.data();
    let params = KNeighborsRegressor::params()
        .n_neighbors(f.k())
        .weights(f.weights())
        .metric(f.metric());
    let want = f.floats("predict");
    for (train, test, algorithm) in [
        (train.clone(), test.clone(), Algorithm::Brute),
        (dense(&train), dense(&test), Algorithm::Auto),
    ] {
        let model = params.clone().algorithm(algorithm).fit(&train).unwrap();
        for (a, b) in model.predict(&test.records).unwrap().iter().zip(&want) {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{name}: {a} vs {b}"
            );
        }
        same_neighbours(&f, &model.kneighbors(&test.records, f.k()).unwrap());
    }
}

#[test]
fn heart_classifiers_match_scikit_learn() {
    for name in [
        "knn_heart_euclidean",
        "knn_heart_manhattan_distance",
        "knn_heart_chebyshev",
        "knn_heart_minkowski3_distance",
        "knn_heart_cosine",
        "knn_heart_mahalanobis_distance",
    ] {
        check_classifier(name);
    }
}

#[test]
fn dna_classifiers_match_scikit_learn() {
    for name in [
        "knn_dna_euclidean",
        "knn_dna_hamming",
        "knn_dna_cosine_distance",
    ] {
        check_classifier(name);
    }
}

#[test]
fn housing_regressors_match_scikit_learn() {
    check_regressor("knn_housing_euclidean");
    check_regressor("knn_housing_manhattan_distance");
}
