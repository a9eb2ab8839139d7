//! The cluster and decomposition params structs as data: shared checks in every
//! configuration, defaults against scikit-learn's, and the rules checked by name.

use margin_cluster::{
    KMeans, KMeansAlgorithm, KMeansInit, KMeansParams, MiniBatchKMeans, MiniBatchKMeansParams,
    NComponents, Pca, PcaParams, SvdSolver,
};
use margin_core::params::{Params, Value};
use margin_core::{DenseMatrix, Error, Fit};
use margin_testing::battery::check_params;

use Value::{Bool, Float, Int, Text};

fn text(s: &str) -> Value {
    Text(s.to_owned())
}

/// scikit-learn 1.9's defaults (sklearn.cluster.KMeans, MiniBatchKMeans,
/// sklearn.decomposition.PCA), in margin's order. margin differs on purpose in `seed`
/// (scikit-learn's `random_state=None` is not reproducible; margin's runs are) and names
/// PCA's `n_components=None` `all`. PCA's `tol` and `power_iteration_normalizer`, and
/// k-means' `copy_x`/`verbose`, are not offered.
#[test]
fn defaults_are_scikit_learns() {
    assert_eq!(
        KMeansParams::defaults(),
        vec![
            ("n_clusters", Int(8)),
            ("init", text("k-means++")),
            ("algorithm", text("lloyd")),
            ("n_init", text("auto")),
            ("max_iter", Int(300)),
            ("tol", Float(1e-4)),
            ("seed", Int(0)),
        ]
    );
    assert_eq!(
        MiniBatchKMeansParams::defaults(),
        vec![
            ("n_clusters", Int(8)),
            ("init", text("k-means++")),
            ("n_init", text("auto")),
            ("max_iter", Int(100)),
            ("batch_size", Int(1024)),
            ("tol", Float(0.0)),
            ("max_no_improvement", Int(10)),
            ("init_size", Value::None),
            ("reassignment_ratio", Float(0.01)),
            ("seed", Int(0)),
        ]
    );
    assert_eq!(
        PcaParams::defaults(),
        vec![
            ("n_components", text("all")),
            ("whiten", Bool(false)),
            ("svd_solver", text("auto")),
            ("iterated_power", text("auto")),
            ("n_oversamples", Int(10)),
            ("seed", Int(0)),
        ]
    );
}

fn centers() -> DenseMatrix {
    DenseMatrix::from_rows(&[[0.0, 0.0], [5.0, 5.0]]).unwrap()
}

#[test]
fn every_configuration_passes_the_params_checks() {
    for init in [
        KMeansInit::KMeansPlusPlus,
        KMeansInit::Random,
        KMeansInit::Centers(centers()),
    ] {
        for algorithm in [KMeansAlgorithm::Lloyd, KMeansAlgorithm::Elkan] {
            check_params(
                &KMeans::params()
                    .init(init.clone())
                    .algorithm(algorithm)
                    .n_init(4),
            );
        }
        check_params(&MiniBatchKMeans::params().init(init.clone()));
        check_params(
            &MiniBatchKMeans::params()
                .init(init)
                .init_size(50)
                .max_no_improvement(None),
        );
    }
    for solver in [
        SvdSolver::Auto,
        SvdSolver::Full,
        SvdSolver::CovarianceEigh,
        SvdSolver::Randomized,
    ] {
        check_params(
            &Pca::params()
                .svd_solver(solver)
                .n_components(NComponents::Count(2)),
        );
        check_params(&Pca::params().svd_solver(solver).iterated_power(3));
    }
    check_params(
        &Pca::params()
            .n_components(NComponents::Fraction(0.9))
            .whiten(true),
    );
}

#[test]
fn set_by_name_matches_the_builders() {
    let mut k = KMeans::params();
    k.set("init", "random").unwrap();
    k.set("n_init", "4").unwrap();
    k.set("algorithm", "elkan").unwrap();
    assert_eq!(
        k,
        KMeans::params()
            .init(KMeansInit::Random)
            .n_init(4)
            .algorithm(KMeansAlgorithm::Elkan)
    );
    k.set("n_init", "auto").unwrap();
    assert_eq!(k.get("n_init"), Some(text("auto")));
    let mut p = Pca::params();
    p.set("n_components", "0.95").unwrap();
    p.set("svd_solver", "covariance_eigh").unwrap();
    assert_eq!(
        p,
        Pca::params()
            .n_components(NComponents::Fraction(0.95))
            .svd_solver(SvdSolver::CovarianceEigh)
    );
    p.set("n_components", "3").unwrap();
    assert_eq!(p.get("n_components"), Some(Int(3)));
    p.set("n_components", "all").unwrap();
    assert_eq!(p.get("n_components"), Some(text("all")));
    // Given centres replace the init name; a later builder init replaces them.
    let given = KMeans::params().init(KMeansInit::Centers(centers()));
    assert_ne!(given, KMeans::params());
    assert_eq!(given.init(KMeansInit::KMeansPlusPlus), KMeans::params());
}

#[test]
fn out_of_range_values_are_refused_by_name() {
    for (name, value) in [
        ("n_clusters", "0"),
        ("n_init", "0"),
        ("n_init", "many"),
        ("max_iter", "0"),
        ("tol", "-1"),
        ("init", "kmeans||"),
        ("algorithm", "full"),
    ] {
        let mut k = KMeans::params();
        assert!(
            matches!(k.set(name, value), Err(Error::InvalidParameter { name: ref n, .. }) if n == name),
            "{name}={value}"
        );
        assert_eq!(k, KMeans::params());
    }
    for (name, value) in [
        ("batch_size", "0"),
        ("init_size", "0"),
        ("reassignment_ratio", "1.5"),
    ] {
        assert!(
            MiniBatchKMeans::params().set(name, value).is_err(),
            "{name}"
        );
    }
    for (name, value) in [
        ("n_components", "0"),
        ("n_components", "1.0"),
        ("n_components", "-0.5"),
        ("svd_solver", "arpack"),
        ("iterated_power", "-1"),
    ] {
        assert!(Pca::params().set(name, value).is_err(), "{name}={value}");
    }
    // A fraction needs the full spectrum: refused with the randomized solver, in any order.
    let mut p = Pca::params();
    p.set("svd_solver", "randomized").unwrap();
    p.set("n_components", "0.5").unwrap();
    let x = DenseMatrix::from_rows(&[[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]).unwrap();
    assert!(
        matches!(p.fit(&x), Err(Error::InvalidParameter { name, .. }) if name == "n_components")
    );
}
