//! Observers on every SVM solver (SMO, ν-SMO, dual coordinate descent, Pegasos): a recording
//! observer leaves each model bit-identical, one that stops at iteration k ends every longer
//! run there with the observer's stop.

use margin_core::Dataset;
use margin_core::fit::Stop;
use margin_io::datasets;
use margin_svm::{LinearSolver, LinearSvc, OneClassSvm, Svc, SvmLoss, Svr};
use margin_testing::battery::check_observed;

fn heart() -> Dataset {
    datasets::heart_scale().unwrap()
}

/// dna's first 300 samples: three classes, so three one-vs-one problems.
fn dna_head() -> Dataset {
    let dna = datasets::dna().unwrap();
    let rows: Vec<usize> = (0..300).collect();
    dna.select(&rows).unwrap()
}

#[test]
fn smo_classifiers_stop_where_the_observer_says() {
    let report = check_observed(&Svc::params(), &heart(), 10);
    assert_eq!(report.runs().len(), 1);
    assert_eq!(report.runs()[0].stop, Stop::CONVERGED);
    assert!(report.runs()[0].objective.is_some());
    let report = check_observed(&Svc::params(), &dna_head(), 5);
    assert_eq!(report.runs().len(), 3);
    check_observed(&Svc::nu_params().nu(0.3), &heart(), 10);
    // With probability estimates the folds' runs are observed too, and stopped alike.
    check_observed(&Svc::params().probability(true), &heart(), 10);
}

#[test]
fn smo_regressors_and_the_one_class_svm_stop_where_the_observer_says() {
    let housing = datasets::housing_scale().unwrap();
    check_observed(&Svr::params(), &housing, 10);
    check_observed(&Svr::nu_params(), &housing, 10);
    check_observed(&OneClassSvm::params().nu(0.2), &heart(), 5);
}

#[test]
fn linear_svc_stops_each_problem_where_the_observer_says() {
    let dcd = check_observed(&LinearSvc::params().tol(1e-6), &dna_head(), 2);
    assert_eq!(dcd.runs().len(), 3);
    let pegasos = LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .solver(LinearSolver::Pegasos {
            epochs: 6,
            batch_size: 1,
            projection: false,
            iterate: margin_svm::Iterate::Last,
        });
    let report = check_observed(&pegasos, &heart(), 3);
    assert_eq!(
        (report.n_iter(), report.runs()[0].stop),
        (6, Stop::CONVERGED)
    );
}
