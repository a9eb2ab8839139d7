//! The regressors against numpy, scipy and scikit-learn: the fixtures in tests/fixtures/reg_*
//! (see gen_regression.py for the exact command and versions).

use std::collections::HashMap;
use std::path::Path;

use margin_core::{Dataset, DenseMatrix, Fit, Predict, Records};

use margin_io::datasets;
use margin_kernels::{Polynomial, Rbf};
use margin_linear::{KernelRidge, LinearRegression, LstsqSolver, Ridge, RidgeSolver};

use crate::common::fit_each_solver;

/// `key: v1 v2 ...` lines; `#` starts a comment.
fn fixture(name: &str) -> HashMap<String, Vec<f64>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| {
            let values = v.split(' ').map(|x| x.parse().unwrap()).collect();
            (k.to_owned(), values)
        })
        .collect()
}

fn get<'a>(f: &'a HashMap<String, Vec<f64>>, key: &str) -> &'a [f64] {
    f.get(key)
        .unwrap_or_else(|| panic!("fixture key {key} missing"))
}

/// Every entry within `rel` of the reference, relative to the reference vector's largest
/// magnitude (so that a coefficient near zero is not held to an impossible relative bound).
fn assert_close(what: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * scale,
            "{what}[{i}]: {g} vs {w} (tolerance {rel} × {scale})"
        );
    }
}

fn housing_weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| 1.0 + (i % 3) as f64).collect()
}

fn first_rows(data: &Dataset, n: usize) -> Dataset {
    data.select(&(0..n).collect::<Vec<_>>()).unwrap()
}

#[test]
fn least_squares_matches_numpy_and_the_statsmodels_formulas() {
    let f = fixture("reg_ols.txt");
    let data = datasets::housing_scale().unwrap();
    let n = data.n_samples();
    let weighted = data
        .clone()
        .with_sample_weights(housing_weights(n))
        .unwrap();
    let head = first_rows(&data, 5).records;
    let cases = [
        ("plain", &data, true),
        ("weighted", &weighted, true),
        ("origin", &data, false),
    ];
    for (name, d, intercept) in cases {
        for solver in [
            LstsqSolver::Qr,
            LstsqSolver::Svd,
            LstsqSolver::NormalEquations,
        ] {
            let what = format!("{name} {solver:?}");
            let m = LinearRegression::params()
                .fit_intercept(intercept)
                .solver(solver)
                .fit(d)
                .unwrap();
            assert_eq!(m.solver(), solver, "{what}: no fallback on full-rank data");
            // The normal equations square the condition number (≈ 40 here): still far
            // inside 1e-8.
            assert_close(
                &what,
                m.coef().row(0),
                get(&f, &format!("{name}.coef")),
                1e-10,
            );
            assert_close(
                &what,
                &[m.intercept()[0]],
                get(&f, &format!("{name}.intercept")),
                1e-10,
            );
            assert_eq!(m.rank() as f64, get(&f, &format!("{name}.rank"))[0]);
            assert_close(&what, &[m.rss()], get(&f, &format!("{name}.rss")), 1e-10);
            assert_close(
                &what,
                &[m.noise_variance_ml()],
                get(&f, &format!("{name}.sigma2_ml")),
                1e-10,
            );
            assert_close(
                &what,
                &[m.noise_variance().unwrap()],
                get(&f, &format!("{name}.sigma2")),
                1e-10,
            );
            assert_close(
                &what,
                &m.coef_standard_errors().unwrap(),
                get(&f, &format!("{name}.coef_se")),
                1e-9,
            );
            if intercept {
                assert_close(
                    &what,
                    &[m.intercept_standard_error().unwrap()],
                    get(&f, &format!("{name}.intercept_se")),
                    1e-9,
                );
            } else {
                assert_eq!(m.intercept_standard_error(), None);
            }
            let band = m.predict_interval(&head, 0.95).unwrap();
            assert_close(
                &what,
                &band.prediction,
                get(&f, &format!("{name}.interval_prediction")),
                1e-10,
            );
            assert_close(
                &what,
                &band.lower,
                get(&f, &format!("{name}.interval_lower")),
                1e-9,
            );
            assert_close(
                &what,
                &band.upper,
                get(&f, &format!("{name}.interval_upper")),
                1e-9,
            );
        }
    }
    let svd = LinearRegression::params()
        .solver(LstsqSolver::Svd)
        .fit(&data)
        .unwrap();
    assert_close(
        "singular values",
        svd.singular_values().unwrap(),
        get(&f, "plain.singular_values"),
        1e-12,
    );
}

/// housing_scale plus a duplicate of x0, 2·x1 − x2 and a constant column.
fn rank_deficient() -> Dataset {
    let data = datasets::housing_scale().unwrap();
    let x = data.records.to_dense().unwrap();
    let rows: Vec<Vec<f64>> = x
        .rows()
        .map(|r| {
            let mut v = r.to_vec();
            v.extend([r[0], 2.0 * r[1] - r[2], 0.5]);
            v
        })
        .collect();
    Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), data.targets).unwrap()
}

#[test]
fn collinear_columns_give_numpys_minimum_norm_solution() {
    let f = fixture("reg_rank_deficient.txt");
    let data = rank_deficient();
    for (solver, m) in fit_each_solver(&data) {
        let what = format!("centred {solver:?}");
        // QR and the normal equations detect the deficiency and fall back to the SVD.
        assert_eq!(m.solver(), LstsqSolver::Svd, "{what}");
        assert_eq!(m.rank() as f64, get(&f, "centred.rank")[0], "{what}");
        assert_close(&what, m.coef().row(0), get(&f, "centred.coef"), 1e-10);
        assert_close(
            &what,
            &[m.intercept()[0]],
            get(&f, "centred.intercept"),
            1e-10,
        );
        assert_close(
            &what,
            m.singular_values().unwrap(),
            get(&f, "centred.singular_values"),
            1e-10,
        );
        // Not identifiable: no standard errors, no intervals, but a noise estimate.
        assert!(m.coef_standard_errors().is_none());
        assert!(matches!(
            m.predict_interval(&data.records, 0.9),
            Err(margin_core::Error::Unsupported { .. })
        ));
        assert!(m.noise_variance().is_some());
    }
    let m = LinearRegression::params()
        .fit_intercept(false)
        .fit(&data)
        .unwrap();
    assert_eq!(m.rank() as f64, get(&f, "origin.rank")[0]);
    assert_close("origin", m.coef().row(0), get(&f, "origin.coef"), 1e-10);
    assert_close(
        "origin",
        m.singular_values().unwrap(),
        get(&f, "origin.singular_values"),
        1e-10,
    );
}

#[test]
fn ridge_matches_scikit_learn_and_the_path_matches_single_fits() {
    let f = fixture("reg_ridge.txt");
    let data = datasets::housing_scale().unwrap();
    let alphas = get(&f, "alphas").to_vec();
    let path = Ridge::params().fit_path(&data, &alphas).unwrap();
    for (alpha, from_path) in alphas.iter().zip(&path) {
        let (want_coef, want_b) = (
            get(&f, &format!("alpha{alpha:?}.coef")),
            get(&f, &format!("alpha{alpha:?}.intercept")),
        );
        for solver in [RidgeSolver::Cholesky, RidgeSolver::Svd] {
            let m = Ridge::params()
                .alpha(*alpha)
                .solver(solver)
                .fit(&data)
                .unwrap();
            let what = format!("alpha {alpha} {solver:?}");
            assert_eq!(m.solver(), solver);
            assert_close(&what, m.coef().row(0), want_coef, 1e-10);
            assert_close(&what, &[m.intercept()[0]], want_b, 1e-10);
            if solver == RidgeSolver::Svd {
                assert_eq!(&m, from_path, "{what}: path and single fit differ");
            }
        }
        assert_eq!(from_path.alpha(), *alpha);
    }
    let weighted = data
        .clone()
        .with_sample_weights(housing_weights(data.n_samples()))
        .unwrap();
    let m = Ridge::params().fit_intercept(false).fit(&weighted).unwrap();
    assert_close(
        "origin weighted",
        m.coef().row(0),
        get(&f, "origin_weighted.coef"),
        1e-10,
    );
    assert_eq!(m.intercept()[0], 0.0);
    // 8 samples, 13 features: the Cholesky runs on the 8 × 8 dual system.
    let wide = first_rows(&data, 8);
    for solver in [RidgeSolver::Cholesky, RidgeSolver::Svd] {
        let m = Ridge::params()
            .alpha(0.5)
            .solver(solver)
            .fit(&wide)
            .unwrap();
        assert_close("wide", m.coef().row(0), get(&f, "wide.coef"), 1e-10);
        assert_close(
            "wide",
            &[m.intercept()[0]],
            get(&f, "wide.intercept"),
            1e-10,
        );
    }
}

#[test]
fn kernel_ridge_matches_scikit_learn() {
    let f = fixture("reg_kernel_ridge.txt");
    let data = datasets::housing_scale().unwrap();
    let train = first_rows(&data, 400);
    let test = data
        .select(&(400..data.n_samples()).collect::<Vec<_>>())
        .unwrap();
    let rbf = KernelRidge::params()
        .alpha(0.5)
        .kernel(Rbf::with_gamma(0.1).unwrap())
        .fit(&train)
        .unwrap();
    assert_close("rbf dual", rbf.dual_coef(), get(&f, "rbf.dual_coef"), 1e-9);
    assert_close(
        "rbf",
        &rbf.predict(&test.records).unwrap(),
        get(&f, "rbf.predictions"),
        1e-10,
    );
    // Sparse records give the same predictions.
    let sparse = test.records.to_sparse();
    assert_close(
        "rbf sparse",
        &rbf.predict(&sparse).unwrap(),
        get(&f, "rbf.predictions"),
        1e-10,
    );
    let poly = KernelRidge::params()
        .kernel(
            Polynomial::with_degree(2)
                .unwrap()
                .with_gamma(0.1)
                .unwrap()
                .with_coef0(1.0)
                .unwrap(),
        )
        .fit(&train)
        .unwrap();
    assert_close(
        "poly",
        &poly.predict(&test.records).unwrap(),
        get(&f, "poly.predictions"),
        1e-9,
    );
    let weighted = train
        .clone()
        .with_sample_weights(housing_weights(400))
        .unwrap();
    let m = KernelRidge::params()
        .alpha(0.5)
        .kernel(Rbf::with_gamma(0.1).unwrap())
        .fit(&weighted)
        .unwrap();
    assert_close(
        "rbf weighted",
        &m.predict(&test.records).unwrap(),
        get(&f, "rbf_weighted.predictions"),
        1e-10,
    );
}
