//! LinearSvc against LIBLINEAR 2.50 (fixtures and command: tests/fixtures/gen_liblinear.py),
//! against SMO on the same problem, and the estimator contract.

use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Error, Fit, Label, Predict, Records, Targets,
};
use margin_io::{ModelFile, datasets};
use margin_optim::loss::Loss;
use margin_svm::{ClassWeight, Iterate, KernelChoice, LinearSolver, LinearSvc, Svc, SvmLoss};
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;

struct Reference {
    /// LIBLINEAR's label order.
    labels: Vec<f64>,
    /// Per label: weights and intercept, positive for that label.
    problems: Vec<(f64, Vec<f64>, f64)>,
}

fn reference(case: &str) -> Reference {
    let path = format!(
        "{}/tests/fixtures/liblinear_{case}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut labels = Vec::new();
    let mut problems: Vec<(f64, Vec<f64>, f64)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split_whitespace();
        let key = words.next().unwrap();
        let nums: Vec<f64> = words.map(|w| w.parse().unwrap()).collect();
        match key {
            "labels" => labels = nums,
            "w" => problems.push((nums[0], nums[1..].to_vec(), 0.0)),
            "b" => problems.last_mut().unwrap().2 = nums[1],
            other => panic!("unknown fixture line {other}"),
        }
    }
    Reference { labels, problems }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `‖(w, b) − (w_ref, b_ref)‖ / ‖(w_ref, b_ref)‖`.
fn relative_error(w: &[f64], b: f64, w_ref: &[f64], b_ref: f64) -> f64 {
    let diff: Vec<f64> = w
        .iter()
        .zip(w_ref)
        .map(|(a, r)| a - r)
        .chain([b - b_ref])
        .collect();
    let reference: Vec<f64> = w_ref.iter().copied().chain([b_ref]).collect();
    norm(&diff) / norm(&reference)
}

fn check_against_liblinear(case: &str, data: &Dataset, params: margin_svm::LinearSvcParams) {
    let r = reference(case);
    let model = params.max_iter(100_000).fit(data).unwrap();
    let labels: Vec<f64> = model
        .classes()
        .iter()
        .map(|l| match l {
            Label::Number(v) => *v,
            Label::Text(_) => unreachable!(),
        })
        .collect();
    if labels.len() == 2 {
        // LIBLINEAR's single vector is positive for its first label; ours for classes()[1].
        let (label, w, b) = &r.problems[0];
        let sign = if *label == labels[1] { 1.0 } else { -1.0 };
        let w_ref: Vec<f64> = w.iter().map(|v| sign * v).collect();
        let err = relative_error(model.coef().row(0), model.intercept()[0], &w_ref, sign * b);
        assert!(err < 1e-4, "{case}: relative error {err}");
    } else {
        assert_eq!(r.labels.len(), labels.len());
        for (label, w, b) in &r.problems {
            let k = labels.iter().position(|l| l == label).unwrap();
            let err = relative_error(model.coef().row(k), model.intercept()[k], w, *b);
            assert!(err < 1e-4, "{case} class {label}: relative error {err}");
        }
    }
}

#[test]
fn weights_match_liblinear_on_heart_scale_and_dna() {
    let heart = datasets::heart_scale().unwrap();
    check_against_liblinear(
        "heart_l1",
        &heart,
        LinearSvc::params().tol(1e-9).loss(SvmLoss::Hinge),
    );
    check_against_liblinear("heart_l2", &heart, LinearSvc::params().tol(1e-9));
    check_against_liblinear(
        "heart_l2_weighted",
        &heart,
        LinearSvc::params()
            .tol(1e-9)
            .c(0.5)
            .intercept_scaling(2.0)
            .class_weight(ClassWeight::Given(vec![(Label::Number(1.0), 3.0)])),
    );
    check_against_liblinear(
        "heart_l1_no_bias",
        &heart,
        LinearSvc::params()
            .tol(1e-9)
            .loss(SvmLoss::Hinge)
            .c(2.0)
            .fit_intercept(false),
    );
    check_against_liblinear(
        "dna_l2",
        &datasets::dna().unwrap(),
        LinearSvc::params().tol(1e-9).c(0.1),
    );
}

#[test]
fn weights_match_liblinear_on_a9a() {
    // The default tolerance 1e-4 already gives 1e-4 relative agreement here (352 epochs).
    check_against_liblinear(
        "a9a_l2",
        &datasets::a9a().unwrap(),
        LinearSvc::params().tol(1e-4),
    );
}

/// heart_scale with every sample mirrored, `(−x, −y)`: the SVM with a free bias then has an
/// optimum with `b = 0`, so SMO's problem and the bias-free linear SVM share their optimum.
fn mirrored_heart() -> Dataset {
    let data = datasets::heart_scale().unwrap();
    let x = data.records.to_dense().unwrap();
    let y = data.targets.values().unwrap();
    let mut rows: Vec<Vec<f64>> = x.rows().map(<[f64]>::to_vec).collect();
    rows.extend(x.rows().map(|r| r.iter().map(|v| -v).collect::<Vec<_>>()));
    let mut labels = y.to_vec();
    labels.extend(y.iter().map(|v| -v));
    Dataset::new(
        DenseMatrix::from_rows(&rows).unwrap(),
        Targets::Classes(margin_core::Classes::from_numbers(&labels).unwrap()),
    )
    .unwrap()
}

/// `½‖w‖² + C Σ hinge(yᵢ (w·xᵢ + b))` with `y = +1` for `classes()[1]`.
fn primal(data: &Dataset, w: &[f64], b: f64, c: f64) -> f64 {
    let y = data.targets.values().unwrap();
    let hinge: f64 = (0..data.n_samples())
        .map(|i| Loss::Hinge.value(y[i], data.records.row(i).dot_dense(w) + b))
        .sum();
    0.5 * norm(w).powi(2) + c * hinge
}

#[test]
fn dcd_and_pegasos_reach_the_smo_objective() {
    let data = mirrored_heart();
    let c = 0.5;
    let smo = Svc::params()
        .kernel(KernelChoice::Linear)
        .c(c)
        .tol(1e-9)
        .fit(&data)
        .unwrap();
    // coef and intercept in the decision function's convention: positive for classes()[1] = +1.
    let w_smo: Vec<f64> = smo.coef().unwrap().row(0).to_vec();
    let b_smo = smo.intercept()[0];
    let f_smo = primal(&data, &w_smo, b_smo, c);

    let dcd = LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .c(c)
        .fit_intercept(false)
        .tol(1e-10)
        .max_iter(100_000)
        .fit(&data)
        .unwrap();
    let f_dcd = primal(&data, dcd.coef().row(0), 0.0, c);
    assert!(
        (f_dcd - f_smo).abs() <= 1e-6 * f_smo,
        "DCD {f_dcd} vs SMO {f_smo}"
    );

    let pegasos = LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .c(c)
        .fit_intercept(false)
        .solver(LinearSolver::Pegasos {
            epochs: 400,
            batch_size: 1,
            projection: false,
            iterate: Iterate::SuffixAverage,
        })
        .fit(&data)
        .unwrap();
    let f_peg = primal(&data, pegasos.coef().row(0), 0.0, c);
    assert!(
        f_peg >= f_smo * (1.0 - 1e-9),
        "Pegasos below the optimum: {f_peg} < {f_smo}"
    );
    assert!(
        (f_peg - f_smo) <= 1e-3 * f_smo,
        "Pegasos {f_peg} vs SMO {f_smo}"
    );
}

#[test]
fn lambda_is_c_over_n() {
    let data = datasets::heart_scale().unwrap();
    let n = data.n_samples() as f64;
    let by_c = LinearSvc::params().c(0.25).fit(&data).unwrap();
    let by_lambda = LinearSvc::params()
        .lambda(1.0 / (n * 0.25))
        .fit(&data)
        .unwrap();
    assert!((by_lambda.c() - 0.25).abs() < 1e-15);
    assert_eq!(
        by_c.predict(&data.records).unwrap(),
        by_lambda.predict(&data.records).unwrap()
    );
    for (a, b) in by_c.coef().row(0).iter().zip(by_lambda.coef().row(0)) {
        assert!((a - b).abs() < 1e-12);
    }
}

#[test]
fn hand_solved_margin() {
    // (1, 1) → +1 and (−1, −1) → −1, hard margin without intercept: w = (½, ½), margin √2.
    let x = DenseMatrix::from_rows(&[[1.0, 1.0], [-1.0, -1.0]]).unwrap();
    let data = Dataset::new(
        x,
        Targets::Classes(margin_core::Classes::from_numbers(&[1.0, -1.0]).unwrap()),
    )
    .unwrap();
    let model = LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .c(1e6)
        .fit_intercept(false)
        .tol(1e-12)
        .fit(&data)
        .unwrap();
    assert!((model.coef().row(0)[0] - 0.5).abs() < 1e-12);
    assert!((model.margin()[0] - 2f64.sqrt()).abs() < 1e-12);
    let scores = model.decision_function(&data.records).unwrap();
    assert!((scores.get(0, 0) - 1.0).abs() < 1e-12 && (scores.get(1, 0) + 1.0).abs() < 1e-12);
}

#[test]
fn the_estimator_battery_passes() {
    check_estimator(&LinearSvc::params(), Task::Classification);
    check_estimator(
        &LinearSvc::params()
            .loss(SvmLoss::Hinge)
            .solver(LinearSolver::pegasos()),
        Task::Classification,
    );
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let data = datasets::heart_scale().unwrap();
    let named = |params: margin_svm::LinearSvcParams, name: &str| match params.fit(&data) {
        Err(Error::InvalidParameter { name: n, .. }) => assert!(n.starts_with(name), "{n}"),
        other => panic!("{name}: {other:?}"),
    };
    named(LinearSvc::params().c(0.0), "C");
    named(LinearSvc::params().lambda(-1.0), "lambda");
    named(LinearSvc::params().tol(f64::NAN), "tol");
    named(LinearSvc::params().max_iter(0), "max_iter");
    named(
        LinearSvc::params().intercept_scaling(0.0),
        "intercept_scaling",
    );
    named(
        LinearSvc::params()
            .loss(SvmLoss::SquaredHinge)
            .solver(LinearSolver::pegasos()),
        "loss",
    );
    named(
        LinearSvc::params()
            .loss(SvmLoss::Hinge)
            .solver(LinearSolver::Pegasos {
                epochs: 0,
                batch_size: 1,
                projection: false,
                iterate: Iterate::Last,
            }),
        "epochs",
    );
    named(
        LinearSvc::params().class_weight(ClassWeight::Given(vec![(Label::Number(1.0), -2.0)])),
        "class_weight",
    );
}

#[test]
fn multiclass_save_load_and_thread_count() {
    let train = datasets::dna().unwrap();
    let test = datasets::dna_test().unwrap();
    let fit = |threads: usize, solver: LinearSolver| {
        with_threads(threads, || {
            LinearSvc::params()
                .loss(SvmLoss::Hinge)
                .solver(solver)
                .seed(7)
                .fit(&train)
                .unwrap()
        })
    };
    for solver in [LinearSolver::Dcd, LinearSolver::pegasos()] {
        let (one, two) = (fit(1, solver), fit(2, solver));
        assert_eq!(one, two);
        let back = LinearSvc::from_bytes(&one.to_bytes().unwrap()).unwrap();
        assert_eq!(
            back.predict(&test.records).unwrap(),
            one.predict(&test.records).unwrap()
        );
        let scores = one.decision_function(&test.records).unwrap();
        assert_eq!(scores.ncols(), 3);
        let truth = test.targets.to_classes().unwrap();
        let predicted = one.predict(&test.records).unwrap();
        let correct = predicted
            .iter()
            .zip(truth.indices())
            .filter(|&(p, &c)| *p == truth.labels()[c])
            .count();
        let accuracy = correct as f64 / test.n_samples() as f64;
        assert!(accuracy > 0.9, "{solver:?}: {accuracy}");
    }
}

#[test]
fn each_solver_defaults_to_its_own_loss_and_reports_the_primal_objective() {
    let data = datasets::heart_scale().unwrap();
    let pegasos = LinearSvc::params().solver(LinearSolver::pegasos());
    let by_default = pegasos.clone().fit(&data).unwrap();
    let hinge = pegasos.loss(SvmLoss::Hinge).fit(&data).unwrap();
    assert_eq!(by_default.coef(), hinge.coef());
    let dcd = LinearSvc::params().fit(&data).unwrap();
    let squared = LinearSvc::params()
        .loss(SvmLoss::SquaredHinge)
        .fit(&data)
        .unwrap();
    assert_eq!(dcd.coef(), squared.coef());
    // The reported objective is ½‖w‖² + C Σ loss, recomputed here from the weights.
    let y: Vec<f64> = data
        .targets
        .values()
        .unwrap()
        .iter()
        .map(|&v| if v > 0.0 { 1.0 } else { -1.0 })
        .collect();
    for (model, loss) in [(&dcd, SvmLoss::SquaredHinge), (&by_default, SvmLoss::Hinge)] {
        let (w, b) = (model.coef().row(0), model.intercept()[0]);
        let hinge = |m: f64| match loss {
            SvmLoss::Hinge => (1.0 - m).max(0.0),
            SvmLoss::SquaredHinge => (1.0 - m).max(0.0).powi(2),
        };
        let fit: f64 = (0..y.len())
            .map(|i| hinge(y[i] * (data.records.row_dot(i, w) + b)))
            .sum();
        // The intercept is LIBLINEAR's regularized bias feature (value 1).
        let expected = 0.5 * (w.iter().map(|v| v * v).sum::<f64>() + b * b) + fit;
        let reported = model.fit_report().runs()[0].objective.unwrap();
        assert!(
            (reported - expected).abs() < 1e-9 * expected,
            "{reported} vs {expected}"
        );
    }
}
