//! LogisticRegression against scikit-learn 1.9.1 fixtures (tests/fixtures/gen_logistic.py),
//! across solvers, and the estimator contract.

use margin_core::{
    ClassWeight, Classes, Dataset, DenseMatrix, Error, Fit, Predict, PredictProba, Targets,
};
use margin_io::{ModelFile, datasets};
use margin_linear::{LogisticRegression, LogisticRegressionParams, LogisticSolver, Penalty};
use margin_optim::Stop;
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;

use crate::common::keyed_numbers;

struct Reference {
    coef: Vec<Vec<f64>>,
    intercept: Vec<f64>,
    proba: Vec<Vec<f64>>,
}

fn reference(case: &str) -> Reference {
    let mut r = Reference {
        coef: Vec::new(),
        intercept: Vec::new(),
        proba: Vec::new(),
    };
    for (key, nums) in keyed_numbers(&format!("logistic_{case}.txt")) {
        match key.as_str() {
            "labels" => {}
            "coef" => r.coef.push(nums),
            "intercept" => r.intercept.push(nums[0]),
            "proba" => r.proba.push(nums),
            other => panic!("unknown fixture line {other}"),
        }
    }
    r
}

fn norm(v: impl Iterator<Item = f64>) -> f64 {
    v.map(|x| x * x).sum::<f64>().sqrt()
}

fn check(
    case: &str,
    data: &Dataset,
    params: LogisticRegressionParams,
    tol: f64,
) -> LogisticRegression {
    let r = reference(case);
    let model = params.fit(data).unwrap();
    assert_eq!(model.coef().nrows(), r.coef.len(), "{case}");
    for (k, (w, w_ref)) in model.coef().rows().zip(&r.coef).enumerate() {
        let diff = norm(w.iter().zip(w_ref).map(|(a, b)| a - b))
            + (model.intercept()[k] - r.intercept[k]).abs();
        let scale = norm(w_ref.iter().copied()) + r.intercept[k].abs();
        assert!(
            diff <= tol * scale,
            "{case} row {k}: relative error {}",
            diff / scale
        );
    }
    let first = data.select(&(0..20).collect::<Vec<_>>()).unwrap();
    let proba = model.predict_proba(&first.records).unwrap();
    for (row, expected) in proba.rows().zip(&r.proba) {
        for (p, q) in row.iter().zip(expected) {
            assert!((p - q).abs() <= tol, "{case}: probability {p} vs {q}");
        }
    }
    model
}

fn tight() -> LogisticRegressionParams {
    LogisticRegression::params().tol(1e-10).max_iter(10_000)
}

#[test]
fn l2_fits_match_scikit_learn() {
    let heart = datasets::heart_scale().unwrap();
    check("heart_l2", &heart, tight(), 1e-6);
    check(
        "heart_l2_no_intercept",
        &heart,
        tight().c(0.1).fit_intercept(false),
        1e-6,
    );
    check(
        "heart_balanced",
        &heart,
        tight().class_weight(ClassWeight::Balanced),
        1e-6,
    );
    check("heart_none", &heart, tight().penalty(Penalty::None), 1e-6);
    // scikit-learn's multinomial L-BFGS stops on its f-tolerance (64ε) before the gradient
    // reaches 1e-12, leaving ~4e-6 relative error in its weights.
    check(
        "dna_multinomial",
        &datasets::dna().unwrap(),
        tight().c(0.1),
        1e-5,
    );
}

#[test]
fn every_solver_reaches_the_same_l2_optimum() {
    let heart = datasets::heart_scale().unwrap();
    let newton = check(
        "heart_l2",
        &heart,
        tight().solver(LogisticSolver::Newton),
        1e-6,
    );
    assert!(
        newton.n_iter() < 15,
        "{} Newton iterations",
        newton.n_iter()
    );
    check(
        "heart_l2",
        &heart,
        tight().tol(1e-7).solver(LogisticSolver::GradientDescent),
        1e-5,
    );
    // SGD approximates: its objective lands within 1% of the optimum.
    let sgd = LogisticRegression::params()
        .solver(LogisticSolver::Sgd {
            batch_size: 8,
            eta0: 0.5,
        })
        .max_iter(1000)
        .seed(1)
        .fit(&heart)
        .unwrap();
    let reference = tight().fit(&heart).unwrap();
    let gap = sgd.objective() / reference.objective() - 1.0;
    assert!(
        (0.0..0.01).contains(&gap),
        "SGD objective {gap:e} above the optimum"
    );
}

#[test]
fn l1_and_elastic_net_match_scikit_learn_saga() {
    let heart = datasets::heart_scale().unwrap();
    let gd = |penalty| {
        tight()
            .c(0.5)
            .penalty(penalty)
            .tol(1e-9)
            .max_iter(200_000)
            .solver(LogisticSolver::GradientDescent)
    };
    let l1 = check("heart_l1", &heart, gd(Penalty::L1), 1e-5);
    assert!(
        l1.coef().row(0).contains(&0.0),
        "an L1 fit is sparse: {:?}",
        l1.coef().row(0)
    );
    check(
        "heart_elastic_net",
        &heart,
        gd(Penalty::ElasticNet { l1_ratio: 0.5 }),
        1e-5,
    );
}

#[test]
fn huge_scores_give_finite_probabilities() {
    // Separable data without a penalty drives |w·x| up; probabilities must stay in [0, 1].
    let x = DenseMatrix::from_rows(&[[-2.0], [-1.0], [1.0], [2.0]]).unwrap();
    let data = Dataset::new(
        x,
        Targets::Classes(Classes::from_numbers(&[0.0, 0.0, 1.0, 1.0]).unwrap()),
    )
    .unwrap();
    let model = LogisticRegression::params()
        .penalty(Penalty::None)
        .max_iter(50)
        .fit(&data)
        .unwrap();
    let far = DenseMatrix::from_rows(&[[1e4 / model.coef().get(0, 0).max(1e-3)], [-1e6]]).unwrap();
    let proba = model.predict_proba(&far).unwrap();
    assert!(
        proba.as_slice().iter().all(|p| (0.0..=1.0).contains(p)),
        "{proba:?}"
    );
    let log = model.predict_log_proba(&far).unwrap();
    assert!(
        log.as_slice().iter().all(|v| v.is_finite() && *v <= 0.0),
        "{log:?}"
    );
}

#[test]
fn the_estimator_battery_passes() {
    check_estimator(&LogisticRegression::params(), Task::Classification);
    check_estimator(
        &LogisticRegression::params().solver(LogisticSolver::Newton),
        Task::Classification,
    );
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let heart = datasets::heart_scale().unwrap();
    let dna = datasets::dna().unwrap();
    let named =
        |params: LogisticRegressionParams, data: &Dataset, name: &str| match params.fit(data) {
            Err(Error::InvalidParameter { name: n, .. }) => assert!(n.starts_with(name), "{n}"),
            other => panic!("{name}: {other:?}"),
        };
    named(LogisticRegression::params().c(0.0), &heart, "C");
    named(LogisticRegression::params().tol(-1.0), &heart, "tol");
    named(LogisticRegression::params().max_iter(0), &heart, "max_iter");
    named(
        LogisticRegression::params().penalty(Penalty::L1),
        &heart,
        "penalty",
    );
    named(
        LogisticRegression::params().penalty(Penalty::ElasticNet { l1_ratio: 1.5 }),
        &heart,
        "l1_ratio",
    );
    named(
        LogisticRegression::params().solver(LogisticSolver::Newton),
        &dna,
        "solver",
    );
    named(
        LogisticRegression::params().solver(LogisticSolver::Sgd {
            batch_size: 0,
            eta0: 1.0,
        }),
        &heart,
        "batch_size",
    );
}

#[test]
fn save_load_and_thread_count() {
    let train = datasets::dna().unwrap();
    let fit = |threads: usize| {
        with_threads(threads, || {
            LogisticRegression::params().c(0.1).fit(&train).unwrap()
        })
    };
    let (one, two) = (fit(1), fit(2));
    assert_eq!(one, two);
    let test = datasets::dna_test().unwrap();
    let back = LogisticRegression::from_bytes(&one.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&test.records).unwrap(),
        one.predict(&test.records).unwrap()
    );
    assert_eq!(
        back.predict_proba(&test.records).unwrap(),
        one.predict_proba(&test.records).unwrap()
    );
    assert_ne!(one.fit_report().runs()[0].stop, Stop::MaxIterations);
}
