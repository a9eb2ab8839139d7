//! Lasso and ElasticNet against scikit-learn 1.9.1 (tests/fixtures/gen_elastic_net.py).

use margin_core::{Dataset, Error, Fit, Predict};
use margin_io::{ModelFile, datasets};
use margin_linear::{ElasticNet, ElasticNetParams, alpha_grid};
use margin_optim::Stop;
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;

use crate::common::keyed_numbers;

/// `(alpha, coef, intercept)` per model in the fixture.
fn reference(case: &str) -> Vec<(f64, Vec<f64>, f64)> {
    let mut out: Vec<(f64, Vec<f64>, f64)> = Vec::new();
    for (key, nums) in keyed_numbers(&format!("enet_{case}.txt")) {
        match key.as_str() {
            "alpha" => out.push((nums[0], Vec::new(), 0.0)),
            "coef" => out.last_mut().unwrap().1 = nums,
            "intercept" => out.last_mut().unwrap().2 = nums[0],
            other => panic!("unknown fixture line {other}"),
        }
    }
    out
}

fn assert_close(model: &ElasticNet, coef: &[f64], intercept: f64, what: &str) {
    let scale = coef.iter().map(|v| v.abs()).fold(intercept.abs(), f64::max);
    for (a, b) in model.coef().row(0).iter().zip(coef) {
        assert!(
            (a - b).abs() <= 1e-8 * scale,
            "{what}: {:?} vs {coef:?}",
            model.coef().row(0)
        );
        // Exact zeros where scikit-learn has them: the soft threshold is exact.
        assert_eq!(*a == 0.0, *b == 0.0, "{what}: sparsity differs");
    }
    assert!(
        (model.intercept()[0] - intercept).abs() <= 1e-8 * scale,
        "{what}: intercept"
    );
}

fn tight() -> ElasticNetParams {
    ElasticNet::params().tol(1e-12).max_iter(1_000_000)
}

#[test]
fn fits_match_scikit_learn() {
    let housing = datasets::housing_scale().unwrap();
    let weighted = housing
        .clone()
        .with_sample_weights((0..506).map(|i| 1.0 + (i % 3) as f64).collect())
        .unwrap();
    let cases: [(&str, ElasticNetParams, &Dataset); 4] = [
        ("lasso", tight().l1_ratio(1.0).alpha(0.05), &housing),
        (
            "lasso_no_intercept",
            tight().l1_ratio(1.0).alpha(0.2).fit_intercept(false),
            &housing,
        ),
        ("elastic_net", tight().alpha(0.1).l1_ratio(0.3), &housing),
        (
            "elastic_net_weighted",
            tight().alpha(0.1).l1_ratio(0.7),
            &weighted,
        ),
    ];
    for (case, params, data) in cases {
        let (_, coef, intercept) = &reference(case)[0];
        let model = params.fit(data).unwrap();
        assert_eq!(model.fit_report().runs()[0].stop, Stop::CONVERGED, "{case}");
        assert_close(&model, coef, *intercept, case);
    }
}

#[test]
fn the_path_matches_lasso_path_with_warm_starts() {
    let housing = datasets::housing_scale().unwrap();
    let expected = reference("lasso_path");
    let grid = alpha_grid(&housing, 1.0, true, 8, 1e-3).unwrap();
    for (a, (b, _, _)) in grid.iter().zip(&expected) {
        assert!((a - b).abs() <= 1e-12 * b, "alpha grid {grid:?}");
    }
    let params = ElasticNet::lasso_params().tol(1e-12).max_iter(1_000_000);
    let path = params.path(&housing, &grid).unwrap();
    let mut warm_epochs = 0;
    let mut cold_epochs = 0;
    for (model, (alpha, coef, intercept)) in path.iter().zip(&expected) {
        assert_close(model, coef, *intercept, &format!("alpha {alpha}"));
        let cold = params.clone().alpha(*alpha).fit(&housing).unwrap();
        assert_close(&cold, coef, *intercept, &format!("cold alpha {alpha}"));
        warm_epochs += model.n_iter();
        cold_epochs += cold.n_iter();
    }
    assert!(
        warm_epochs < cold_epochs,
        "warm {warm_epochs} vs cold {cold_epochs}"
    );
}

#[test]
fn paths_ignore_the_thread_count() {
    let housing = datasets::housing_scale().unwrap();
    let grid = alpha_grid(&housing, 0.5, true, 5, 1e-2).unwrap();
    let run = |threads: usize| {
        with_threads(threads, || {
            ElasticNet::params().path(&housing, &grid).unwrap()
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn large_gram_products_ignore_the_thread_count() {
    // 4,000 × 40: XᵀX is large enough for faer's parallel product under
    // `margin_core::parallel`'s rule (housing's is not).
    let (n, d) = (4_000, 40);
    let mut s = 7u64;
    let mut r = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let x: Vec<f64> = (0..n * d).map(|_| r()).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| x[i * d] - 2.0 * x[i * d + 3] + 0.1 * r())
        .collect();
    let data = Dataset::new(
        margin_core::DenseMatrix::from_row_major(x, n, d).unwrap(),
        margin_core::Targets::Values(y),
    )
    .unwrap();
    let run = |threads: usize| {
        with_threads(threads, || {
            ElasticNet::params().alpha(0.01).fit(&data).unwrap()
        })
    };
    assert_eq!(run(1).to_bytes().unwrap(), run(2).to_bytes().unwrap());
}

#[test]
fn ridge_limit_and_zero_penalty() {
    // l1_ratio = 0 is ridge with the penalty α‖w‖²/2 on the mean loss; α = 0 is least squares.
    let housing = datasets::housing_scale().unwrap();
    let ols = tight().alpha(0.0).fit(&housing).unwrap();
    let ridge_small = tight().alpha(1e-12).l1_ratio(0.0).fit(&housing).unwrap();
    for (a, b) in ols.coef().row(0).iter().zip(ridge_small.coef().row(0)) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
}

#[test]
fn estimator_contract() {
    check_estimator(&ElasticNet::params(), Task::Regression);
    check_estimator(&ElasticNet::lasso_params().alpha(0.01), Task::Regression);
    let housing = datasets::housing_scale().unwrap();
    let model = ElasticNet::params().alpha(0.05).fit(&housing).unwrap();
    let back = ElasticNet::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&housing.records).unwrap(),
        model.predict(&housing.records).unwrap()
    );
    let named = |params: ElasticNetParams, name: &str| match params.fit(&housing) {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("{name}: {other:?}"),
    };
    named(ElasticNet::params().alpha(-1.0), "alpha");
    named(ElasticNet::params().l1_ratio(1.5), "l1_ratio");
    named(ElasticNet::params().tol(f64::NAN), "tol");
    named(ElasticNet::params().max_iter(0), "max_iter");
}
