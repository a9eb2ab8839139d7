//! Observers on the linear models' solvers (coordinate descent, L-BFGS, Newton, gradient
//! descent, SGD, the perceptron rule): a recording observer leaves each model bit-identical,
//! one that stops at iteration k ends every longer run there with the observer's stop, and
//! the losses the smooth solvers guarantee not to raise do not rise.

use margin_core::Dataset;
use margin_core::fit::{FitObserved, LossHistory, Stop};
use margin_io::datasets;
use margin_linear::{
    ElasticNet, KernelPerceptron, LinearRegression, LogisticRegression, LogisticSolver,
    LstsqSolver, Perceptron,
};
use margin_testing::battery::check_observed;

fn heart() -> Dataset {
    datasets::heart_scale().unwrap()
}

/// dna's first 300 samples: three classes, one problem per class for the perceptrons.
fn dna_head() -> Dataset {
    let rows: Vec<usize> = (0..300).collect();
    datasets::dna().unwrap().select(&rows).unwrap()
}

#[test]
fn coordinate_descent_stops_where_the_observer_says() {
    let housing = datasets::housing_scale().unwrap();
    let report = check_observed(&ElasticNet::params().alpha(0.01).tol(1e-8), &housing, 3);
    assert_eq!(report.runs()[0].stop, Stop::CONVERGED);
    assert!(report.runs()[0].violation.is_some());
}

#[test]
fn every_logistic_solver_stops_where_the_observer_says() {
    let solvers = [
        LogisticSolver::Lbfgs,
        LogisticSolver::Newton,
        LogisticSolver::GradientDescent,
        LogisticSolver::Sgd {
            batch_size: 8,
            eta0: 0.1,
        },
    ];
    for solver in solvers {
        let params = LogisticRegression::params().solver(solver).max_iter(20);
        let report = check_observed(&params, &heart(), 2);
        assert!(report.runs()[0].objective.is_some(), "{solver:?}");
    }
    // Multinomial: one run over every class's weights.
    check_observed(&LogisticRegression::params(), &dna_head(), 2);
}

#[test]
fn the_logistic_loss_never_rises_under_lbfgs_newton_and_armijo_descent() {
    for solver in [
        LogisticSolver::Lbfgs,
        LogisticSolver::Newton,
        LogisticSolver::GradientDescent,
    ] {
        let mut history = LossHistory::default();
        let params = LogisticRegression::params().solver(solver).tol(1e-8);
        let model = params.fit_observed(&heart(), &mut history).unwrap();
        assert_eq!(history.values.len(), model.n_iter(), "{solver:?}");
        for pair in history.values.windows(2) {
            assert!(pair[1] <= pair[0] * (1.0 + 1e-15), "{solver:?}: {pair:?}");
        }
        assert_eq!(
            history.values.last(),
            model.fit_report().runs()[0].objective.as_ref()
        );
    }
}

#[test]
fn descent_least_squares_stops_where_the_observer_says() {
    let housing = datasets::housing_scale().unwrap();
    let params = LinearRegression::params().solver(LstsqSolver::GradientDescent);
    check_observed(&params, &housing, 5);
    // The direct solvers run nothing to observe.
    let qr = LinearRegression::params();
    let mut calls = 0;
    let mut count = |_: &margin_core::fit::Progress<'_>| {
        calls += 1;
        margin_core::fit::Control::Continue
    };
    qr.fit_observed(&housing, &mut count).unwrap();
    assert_eq!(calls, 0);
}

#[test]
fn the_perceptrons_stop_each_problem_where_the_observer_says() {
    let report = check_observed(&Perceptron::params().max_iter(30), &dna_head(), 3);
    assert_eq!(report.runs().len(), 3);
    let report = check_observed(&KernelPerceptron::params().max_iter(10), &heart(), 2);
    assert_eq!(report.runs().len(), 1);
}
