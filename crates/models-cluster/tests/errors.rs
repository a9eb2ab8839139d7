//! Bad input becomes a typed error: the shared estimator battery (through thin adapters, since
//! the battery fits on datasets and these models fit on records) and the cases specific to
//! clustering and PCA.

use margin_cluster::{
    KMeans, KMeansAlgorithm, KMeansInit, KMeansParams, MiniBatchKMeans, MiniBatchKMeansParams,
    NComponents, Pca, PcaParams, SvdSolver,
};
use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Error, Fit, Hyperparams, Predict, Records, Result, Transform,
};
use margin_io::ModelFile;
use margin_testing::battery::{Task, check_estimator, check_forged_files};
use serde::{Deserialize, Serialize};

/// Params that fit on a dataset's records (the battery's entry point).
#[derive(Clone, Debug)]
struct OnRecords<P>(P);

/// A fitted model whose `predict` the battery checks: cluster indices as numbers, or each
/// row's first PCA coordinate.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Fitted<M>(M);

macro_rules! adapter {
    ($params:ty, $model:ty, $kind:literal, |$m:ident, $x:ident| $predict:expr) => {
        impl Fit for OnRecords<$params> {
            type Model = Fitted<$model>;
            fn fit(&self, data: &Dataset) -> Result<Self::Model> {
                data.check_consistent()?;
                self.0.fit(&data.records).map(Fitted)
            }
        }
        impl Predict for Fitted<$model> {
            type Output = Vec<f64>;
            fn predict<R: Records + ?Sized>(&self, $x: &R) -> Result<Vec<f64>> {
                let $m = &self.0;
                $predict
            }
        }
        impl Hyperparams for Fitted<$model> {
            fn describe_hyperparams(&self) -> Vec<margin_core::params::ParamInfo> {
                self.0.describe_hyperparams()
            }
        }
        impl ModelFile for Fitted<$model> {
            const KIND: &'static str = $kind;
            const SCHEMA: u32 = <$model>::SCHEMA;
            fn check_consistent(&self) -> Result<()> {
                self.0.check_consistent()
            }
        }
    };
}

adapter!(KMeansParams, KMeans, "kmeans", |m, x| Ok(m
    .predict(x)?
    .into_iter()
    .map(|l| l as f64)
    .collect()));
adapter!(
    MiniBatchKMeansParams,
    MiniBatchKMeans,
    "minibatch-kmeans",
    |m, x| Ok(m.predict(x)?.into_iter().map(|l| l as f64).collect())
);
adapter!(PcaParams, Pca, "pca", |m, x| {
    let z = m.transform(x)?.to_dense().unwrap();
    Ok(z.rows().map(|r| r[0]).collect())
});

#[test]
fn battery_kmeans() {
    check_estimator(
        &OnRecords(KMeans::params().n_clusters(3)),
        Task::Unsupervised,
    );
    check_estimator(
        &OnRecords(KMeans::params().n_clusters(2).init(KMeansInit::Random)),
        Task::Unsupervised,
    );
    check_estimator(
        &OnRecords(
            KMeans::params()
                .n_clusters(3)
                .algorithm(KMeansAlgorithm::Elkan),
        ),
        Task::Unsupervised,
    );
}

#[test]
fn battery_minibatch_kmeans() {
    check_estimator(
        &OnRecords(MiniBatchKMeans::params().n_clusters(3).batch_size(16)),
        Task::Unsupervised,
    );
}

#[test]
fn battery_pca() {
    check_estimator(&OnRecords(Pca::params()), Task::Unsupervised);
    check_estimator(
        &OnRecords(
            Pca::params()
                .whiten(true)
                .n_components(NComponents::Count(2)),
        ),
        Task::Unsupervised,
    );
}

fn rows(n: usize) -> DenseMatrix {
    DenseMatrix::from_row_major((0..n * 2).map(|v| (v * v % 7) as f64).collect(), n, 2).unwrap()
}

fn invalid(r: Result<impl std::fmt::Debug>, name: &str) {
    match r {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("expected InvalidParameter({name}), got {other:?}"),
    }
}

#[test]
fn kmeans_parameters_are_checked() {
    let x = rows(10);
    let sparse = CsrMatrix::from_dense(&x);
    for algorithm in [KMeansAlgorithm::Lloyd, KMeansAlgorithm::Elkan] {
        let p = || KMeans::params().algorithm(algorithm);
        invalid(p().n_clusters(0).fit(&x), "n_clusters");
        invalid(p().n_clusters(11).fit(&x), "n_clusters");
        invalid(p().n_clusters(11).fit(&sparse), "n_clusters");
        invalid(p().n_init(0).fit(&x), "n_init");
        invalid(p().max_iter(0).fit(&x), "max_iter");
        invalid(p().tol(-1.0).fit(&x), "tol");
        invalid(p().tol(f64::NAN).fit(&x), "tol");
    }
    invalid(
        MiniBatchKMeans::params().n_clusters(0).fit(&x),
        "n_clusters",
    );
    invalid(
        MiniBatchKMeans::params()
            .n_clusters(3)
            .batch_size(0)
            .fit(&x),
        "batch_size",
    );
    invalid(
        MiniBatchKMeans::params()
            .n_clusters(3)
            .reassignment_ratio(2.0)
            .fit(&x),
        "reassignment_ratio",
    );
    let wrong_k = KMeansInit::Centers(rows(3));
    assert!(matches!(
        KMeans::params().n_clusters(2).init(wrong_k).fit(&x),
        Err(Error::ShapeMismatch { .. })
    ));
    let wrong_d = KMeansInit::Centers(DenseMatrix::zeros(2, 3));
    assert!(matches!(
        KMeans::params().n_clusters(2).init(wrong_d).fit(&x),
        Err(Error::ShapeMismatch { .. })
    ));
    let nan_init =
        KMeansInit::Centers(DenseMatrix::from_rows(&[[0.0, f64::NAN], [1.0, 1.0]]).unwrap());
    assert!(matches!(
        KMeans::params().n_clusters(2).init(nan_init).fit(&x),
        Err(Error::NonFinite { row: 0, col: 1 })
    ));
}

#[test]
fn kmeans_data_is_checked() {
    let mut x = rows(10);
    x.row_mut(4)[1] = f64::NAN;
    assert!(matches!(
        KMeans::params().n_clusters(2).fit(&x),
        Err(Error::NonFinite { row: 4, col: 1 })
    ));
    assert!(matches!(
        KMeans::params()
            .n_clusters(1)
            .fit(&DenseMatrix::zeros(0, 2)),
        Err(Error::EmptyDataset(_))
    ));
    let m = KMeans::params().n_clusters(2).fit(&rows(10)).unwrap();
    let wide = DenseMatrix::zeros(3, 3);
    assert!(matches!(m.predict(&wide), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(
        m.transform(&wide),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(m.score(&wide), Err(Error::ShapeMismatch { .. })));
    let sparse_wide = CsrMatrix::from_dense(&wide);
    assert!(matches!(
        m.predict(&sparse_wide),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(m.predict(&DenseMatrix::zeros(0, 2)).unwrap().is_empty());
}

#[test]
fn pca_parameters_and_data_are_checked() {
    let x = rows(10);
    invalid(
        Pca::params().n_components(NComponents::Count(0)).fit(&x),
        "n_components",
    );
    invalid(
        Pca::params().n_components(NComponents::Count(3)).fit(&x),
        "n_components",
    );
    invalid(
        Pca::params()
            .n_components(NComponents::Fraction(1.0))
            .fit(&x),
        "n_components",
    );
    invalid(
        Pca::params()
            .n_components(NComponents::Fraction(0.0))
            .fit(&x),
        "n_components",
    );
    invalid(
        Pca::params()
            .n_components(NComponents::Fraction(0.5))
            .svd_solver(SvdSolver::Randomized)
            .fit(&x),
        "n_components",
    );
    assert!(matches!(
        Pca::params().fit(&rows(1)),
        Err(Error::EmptyDataset(_))
    ));
    let m = Pca::params()
        .n_components(NComponents::Count(1))
        .fit(&x)
        .unwrap();
    assert!(matches!(
        m.transform(&DenseMatrix::zeros(2, 3)),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        m.inverse_transform(&DenseMatrix::zeros(2, 2)),
        Err(Error::ShapeMismatch { .. })
    ));
    let mut z = DenseMatrix::zeros(2, 1);
    z.row_mut(1)[0] = f64::INFINITY;
    assert!(matches!(
        m.inverse_transform(&z),
        Err(Error::NonFinite { row: 1, col: 0 })
    ));
}

#[test]
fn inconsistent_model_files_are_refused() {
    // Valid checksums, impossible contents: a KMeans whose label exceeds k, a PCA whose mean
    // has the wrong length.
    let m = KMeans::params().n_clusters(2).fit(&rows(10)).unwrap();
    let mut bytes = m.to_bytes().unwrap();
    let good = KMeans::from_bytes(&bytes).unwrap();
    assert_eq!(
        good.predict(&rows(4)).unwrap(),
        m.predict(&rows(4)).unwrap()
    );
    // Re-encode a tampered copy through serde: labels are the second field.
    #[derive(Serialize, Deserialize)]
    struct Raw {
        centers: DenseMatrix,
        labels: Vec<usize>,
        inertia: f64,
        n_iter: usize,
        stop: margin_core::fit::Stop,
        params: KMeansParams,
    }
    impl ModelFile for Raw {
        const KIND: &'static str = KMeans::KIND;
        const SCHEMA: u32 = KMeans::SCHEMA;
        fn check_consistent(&self) -> Result<()> {
            Ok(())
        }
    }
    let mut raw = Raw::from_bytes(&bytes).unwrap();
    raw.labels[0] = 7;
    bytes = raw.to_bytes().unwrap();
    assert!(matches!(
        KMeans::from_bytes(&bytes),
        Err(Error::ModelFile { .. })
    ));
    let p = Pca::params().fit(&rows(10)).unwrap();
    assert!(Pca::from_bytes(&p.to_bytes().unwrap()).is_ok());
    assert!(matches!(
        Pca::from_bytes(&m.to_bytes().unwrap()),
        Err(Error::ModelFile { .. })
    ));
}

/// Forged files (valid checksums, altered bodies) of every kind, over every method: refused
/// with `Error::ModelFile` or harmless (the battery above calls `predict` only).
#[test]
fn forged_model_files_are_refused_or_harmless_in_every_method() {
    let x = rows(12);
    check_forged_files(
        &KMeans::params().n_clusters(3).fit(&x).unwrap(),
        2,
        |m, r| {
            Ok(vec![
                m.transform(r)?.n_samples(),
                m.score(r).map(|_| r.n_samples())?,
            ])
        },
    );
    check_forged_files(
        &MiniBatchKMeans::params().n_clusters(2).fit(&x).unwrap(),
        2,
        |m, r| Ok(vec![m.transform(r)?.n_samples()]),
    );
    for whiten in [false, true] {
        let pca = Pca::params().whiten(whiten).fit(&x).unwrap();
        check_forged_files(&pca, 2, |m, r| Ok(vec![m.transform(r)?.n_samples()]));
        check_forged_files(&pca, 2, |m, z| Ok(vec![m.inverse_transform(z)?.nrows()]));
    }
}

/// Sparse records 2³² − 1 features wide (1 kB of data): k-means' dense centres and PCA's dense
/// copy would be terabytes, and are refused up front naming the size.
#[test]
fn dense_centres_and_components_no_machine_holds_are_refused_naming_the_size() {
    let x = margin_testing::battery::huge_width(Task::Unsupervised).records;
    for e in [
        KMeans::params().fit(&x).unwrap_err(),
        MiniBatchKMeans::params().fit(&x).unwrap_err(),
        Pca::params().fit(&x).unwrap_err(),
    ] {
        assert!(
            matches!(e, Error::OutOfMemory { bytes, .. } if bytes > 1 << 40),
            "{e}"
        );
        assert!(e.to_string().contains("TiB"), "{e}");
    }
}
