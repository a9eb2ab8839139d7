//! KMeans and PCA against scikit-learn 1.9.1: same given initial centres → the same labels,
//! iteration count, centres and inertia to 1e-6 relative (dense and sparse records; Lloyd
//! against `algorithm="lloyd"`, Elkan against `algorithm="elkan"`); PCA components equal up
//! to sign, variances, ratios, singular values and projections to 1e-8. The fixtures and the
//! command that wrote them are in tests/fixtures (gen_cluster.py; headers name the versions).

use margin_cluster::{KMeans, KMeansAlgorithm, KMeansInit, NComponents, Pca, SvdSolver};
use margin_core::{Fit, Matrix, Predict, Records, Transform};
use margin_testing::fixture::{Fixture, repo_libsvm};

/// The fixture tests/fixtures/`name`.
fn read(name: &str) -> Fixture {
    Fixture::bundled(env!("CARGO_MANIFEST_DIR"), name)
}

/// This suite's reading of a fixture's data.
trait Data {
    fn data(&self) -> Matrix;
}

impl Data for Fixture {
    /// `data - path n_features [rows]` (LIBSVM, sparse) or the rows written in the fixture.
    fn data(&self) -> Matrix {
        let words = self.words("data");
        if self.shape("data") != "-" {
            return Matrix::Dense(self.matrix("data"));
        }
        let data = repo_libsvm(
            env!("CARGO_MANIFEST_DIR"),
            &words[0],
            words[1].parse().unwrap(),
        );
        match words.get(2) {
            Some(n) => {
                data.select(&(0..n.parse().unwrap()).collect::<Vec<_>>())
                    .unwrap()
                    .records
            }
            None => data.records,
        }
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * (1.0 + a.abs().max(b.abs()))
}

fn assert_all_close(what: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w, rel), "{what}[{i}]: {g} vs {w}");
    }
}

/// Lloyd against `name`, Elkan against its `_elkan` twin.
fn check_kmeans(name: &str, x: &Matrix) {
    check_kmeans_with(name, x, KMeansAlgorithm::Lloyd);
    check_kmeans_with(
        &name.replace(".txt", "_elkan.txt"),
        x,
        KMeansAlgorithm::Elkan,
    );
}

fn check_kmeans_with(name: &str, x: &Matrix, algorithm: KMeansAlgorithm) {
    let f = read(name);
    let init = f.matrix("init");
    let model = KMeans::params()
        .n_clusters(init.nrows())
        .init(KMeansInit::Centers(init))
        .algorithm(algorithm)
        .fit(x)
        .unwrap();
    let labels: Vec<usize> = f.floats("labels").iter().map(|&l| l as usize).collect();
    assert_eq!(model.labels(), &labels[..], "{name}: labels");
    assert_all_close(
        "centers",
        model.cluster_centers().as_slice(),
        f.matrix("centers").as_slice(),
        1e-6,
    );
    let inertia = f.float("inertia");
    assert!(
        (model.inertia() - inertia).abs() <= 1e-6 * inertia,
        "{name}: inertia {} vs {inertia}",
        model.inertia()
    );
    assert_eq!(model.n_iter(), f.float("n_iter") as usize, "{name}: n_iter");
    let head = x.select_rows(&(0..20).collect::<Vec<_>>()).unwrap();
    let t = model.transform(&head).unwrap().to_dense().unwrap();
    assert_all_close(
        "transform",
        t.as_slice(),
        f.matrix("transform").as_slice(),
        1e-8,
    );
    assert_eq!(
        model.predict(x).unwrap(),
        labels,
        "{name}: predict on the training rows"
    );
}

#[test]
fn kmeans_matches_sklearn_on_blobs() {
    let f = read("kmeans_blobs.txt");
    let x = f.data();
    check_kmeans("kmeans_blobs.txt", &x);
    check_kmeans("kmeans_blobs.txt", &Matrix::Sparse(x.to_sparse()));
}

#[test]
fn kmeans_matches_sklearn_on_housing_dense() {
    let x = Matrix::Dense(read("kmeans_housing.txt").data().to_dense().unwrap());
    check_kmeans("kmeans_housing.txt", &x);
}

#[test]
fn kmeans_matches_sklearn_on_dna_sparse() {
    let x = read("kmeans_dna_sparse.txt").data();
    assert!(x.as_sparse().is_some());
    check_kmeans("kmeans_dna_sparse.txt", &x);
}

/// Components equal up to one sign per component; the projections carry the same sign.
fn check_pca(name: &str, params: margin_cluster::PcaParams) {
    let f = read(name);
    let x = Matrix::Dense(f.data().to_dense().unwrap());
    let model = params.fit(&x).unwrap();
    assert_eq!(model.n_components(), f.float("n_components") as usize);
    let want = f.matrix("components");
    let shown = want.nrows();
    let got = model.components();
    let mut signs = Vec::new();
    for r in 0..shown {
        let s = if got.row(r)[0] * want.row(r)[0] < 0.0 {
            -1.0
        } else {
            1.0
        };
        let flipped: Vec<f64> = got.row(r).iter().map(|v| s * v).collect();
        assert_all_close(
            &format!("{name}: component {r}"),
            &flipped,
            want.row(r),
            1e-8,
        );
        signs.push(s);
    }
    assert_all_close(
        "explained_variance",
        model.explained_variance(),
        &f.floats("explained_variance"),
        1e-8,
    );
    assert_all_close(
        "explained_variance_ratio",
        model.explained_variance_ratio(),
        &f.floats("explained_variance_ratio"),
        1e-8,
    );
    assert_all_close(
        "singular_values",
        model.singular_values(),
        &f.floats("singular_values"),
        1e-8,
    );
    assert_all_close("mean", model.mean(), &f.floats("mean"), 1e-12);
    assert!(close(
        model.noise_variance(),
        f.float("noise_variance"),
        1e-8
    ));
    let head = x.select_rows(&(0..20).collect::<Vec<_>>()).unwrap();
    let t = model.transform(&head).unwrap().to_dense().unwrap();
    let want_t = f.matrix("transform");
    for i in 0..20 {
        for (j, &s) in signs.iter().enumerate() {
            assert!(
                close(s * t.get(i, j), want_t.get(i, j), 1e-8),
                "{name}: transform ({i}, {j}): {} vs {}",
                t.get(i, j),
                want_t.get(i, j)
            );
        }
    }
}

#[test]
fn pca_full_matches_sklearn_on_housing() {
    check_pca(
        "pca_housing_full.txt",
        Pca::params().svd_solver(SvdSolver::Full),
    );
}

#[test]
fn pca_covariance_whitened_matches_sklearn_on_housing() {
    check_pca(
        "pca_housing_covariance_whiten.txt",
        Pca::params()
            .n_components(NComponents::Count(5))
            .svd_solver(SvdSolver::CovarianceEigh)
            .whiten(true),
    );
}

#[test]
fn pca_variance_fraction_matches_sklearn_on_dna() {
    check_pca(
        "pca_dna_fraction.txt",
        Pca::params()
            .n_components(NComponents::Fraction(0.5))
            .svd_solver(SvdSolver::Full),
    );
}

#[test]
fn sparse_and_dense_records_give_the_same_pca_projection() {
    let f = read("pca_housing_full.txt");
    let sparse = f.data();
    let dense = Matrix::Dense(sparse.to_dense().unwrap());
    let model = Pca::params().fit(&dense).unwrap();
    let a = model.transform(&dense).unwrap().to_dense().unwrap();
    let b = model.transform(&sparse).unwrap().to_dense().unwrap();
    assert_all_close("sparse vs dense", a.as_slice(), b.as_slice(), 1e-12);
    assert_eq!(model.n_components(), sparse.n_features());
}
