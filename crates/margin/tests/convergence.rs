//! Every iterative model answers "did it converge?" through `Iterative::convergence`: a fit cut
//! off at one iteration reports the run(s) at the limit, a fit with the defaults reports none.

use margin::linalg::{Convergence, Dataset, DenseMatrix, Fit, Iterative, Targets};
use margin::linear::{LogisticSolver, LstsqSolver};
use margin::tree::EarlyStopping;
use margin::{cluster, linear, svm, tree};

/// 40 samples of two features in two well separated groups; `y` the group (0 or 1) or, for
/// regression, a linear function of the features plus a small deterministic wobble.
fn data(regression: bool) -> Dataset {
    let mut values = Vec::new();
    let mut y = Vec::new();
    for i in 0..40 {
        let side = if i % 2 == 0 { -1.0 } else { 1.0 };
        let (a, b) = (((i * 7) % 11) as f64 / 11.0, ((i * 5) % 13) as f64 / 13.0);
        let (x0, x1) = (side * 2.0 + a - 0.5, side + b - 0.5);
        values.extend([x0, x1]);
        y.push(if regression {
            3.0 * x0 - 2.0 * x1 + 1.0 + 0.01 * a
        } else {
            f64::from(side > 0.0)
        });
    }
    let x = DenseMatrix::from_row_major(values, 40, 2).unwrap();
    Dataset::new(x, Targets::Values(y)).unwrap()
}

fn report<M: Iterative>(model: M) -> Convergence {
    model.convergence()
}

/// `(name, the fit cut off at max_iter 1, the fit with the defaults)` for parameters `$p`;
/// after `full:`, the settings (as `.tol(1e-3)`) the full fit needs to converge.
macro_rules! cut_and_default {
    ($name:expr, $p:expr, $data:expr) => {
        cut_and_default!($name, $p, $data, full:)
    };
    ($name:expr, $p:expr, $data:expr, full: $($settings:tt)*) => {
        (
            $name,
            report($p.max_iter(1).fit($data).unwrap()),
            report($p $($settings)* .fit($data).unwrap()),
        )
    };
}

/// `(model, fit with max_iter 1, fit with the defaults)`.
fn fits() -> Vec<(&'static str, Convergence, Convergence)> {
    let c = &data(false);
    let r = &data(true);
    let x = &c.records;
    vec![
        cut_and_default!("Svc", svm::Svc::params(), c),
        cut_and_default!("NuSvc", svm::Svc::nu_params(), c),
        cut_and_default!("Svr", svm::Svr::params(), r),
        cut_and_default!("NuSvr", svm::Svr::nu_params(), r),
        cut_and_default!("OneClassSvm", svm::OneClassSvm::params(), c),
        cut_and_default!("LinearSvc", svm::LinearSvc::params(), c),
        cut_and_default!("Logistic (L-BFGS)", linear::LogisticRegression::params(), c),
        cut_and_default!(
            "Logistic (Newton)",
            linear::LogisticRegression::params().solver(LogisticSolver::Newton),
            c
        ),
        cut_and_default!(
            "Logistic (gradient descent)",
            linear::LogisticRegression::params().solver(LogisticSolver::GradientDescent),
            c,
            full: .tol(1e-3).max_iter(10_000)
        ),
        cut_and_default!("Lasso", linear::ElasticNet::lasso_params().alpha(0.01), r),
        cut_and_default!("ElasticNet", linear::ElasticNet::params().alpha(0.01), r),
        cut_and_default!(
            "LinearRegression (gradient descent)",
            linear::LinearRegression::params().solver(LstsqSolver::GradientDescent),
            r,
            full: .tol(1e-6)
        ),
        cut_and_default!("Perceptron", linear::Perceptron::params(), c),
        cut_and_default!("KernelPerceptron", linear::KernelPerceptron::params(), c),
        cut_and_default!("KMeans", cluster::KMeans::params().n_clusters(2), x),
        cut_and_default!(
            "MiniBatchKMeans",
            cluster::MiniBatchKMeans::params().n_clusters(2),
            x
        ),
        cut_and_default!(
            "GradientBoostingClassifier (early stopping)",
            // Leaves of 5: the trees grow on 36 of the 40 samples, too few for the default 20
            // (which is refused). Trees that split keep improving the held-out log loss of
            // these data by more than the default tol for over 100 iterations.
            tree::GradientBoostingClassifier::params()
                .early_stopping(EarlyStopping::On)
                .min_samples_leaf(5)
                .tol(1e-3),
            c
        ),
        cut_and_default!(
            "GradientBoostingRegressor (early stopping)",
            tree::GradientBoostingRegressor::params()
                .early_stopping(EarlyStopping::On)
                .min_samples_leaf(5)
                .tol(1e-3),
            r
        ),
    ]
}

#[test]
fn a_fit_cut_off_at_one_iteration_reports_the_limit_and_a_default_fit_does_not() {
    for (name, cut, full) in fits() {
        assert!(!cut.converged(), "{name}: {cut:?}");
        assert!(
            cut.at_limit >= 1 && cut.at_limit <= cut.runs,
            "{name}: {cut:?}"
        );
        assert_eq!(cut.limit, 1, "{name}: {cut:?}");
        assert!(full.converged(), "{name}: {full:?}");
        assert!(full.runs >= 1, "{name}: {full:?}");
        assert_eq!(full.limit, 0, "{name}: {full:?}");
    }
}

#[test]
fn fits_without_a_tolerance_never_count_as_stopped_at_a_limit() {
    let c = &data(false);
    // Pegasos runs a fixed number of epochs: one epoch is its whole schedule.
    let pegasos = svm::LinearSvc::params()
        .loss(svm::SvmLoss::Hinge)
        .solver(svm::LinearSolver::Pegasos {
            epochs: 1,
            batch_size: 1,
            projection: false,
            iterate: svm::Iterate::Last,
        })
        .fit(c)
        .unwrap()
        .convergence();
    assert_eq!((pegasos.runs, pegasos.at_limit), (1, 0));
    // A direct least-squares solver runs no iterations at all.
    let direct = linear::LinearRegression::params()
        .fit(&data(true))
        .unwrap()
        .convergence();
    assert_eq!(direct, Convergence::default());
    // Mini-batch k-means with both stopping rules off runs its passes by design.
    let fixed = cluster::MiniBatchKMeans::params()
        .n_clusters(2)
        .max_iter(1)
        .max_no_improvement(None)
        .fit(&c.records)
        .unwrap()
        .convergence();
    assert_eq!((fixed.runs, fixed.at_limit), (1, 0));
    // Boosting without early stopping grows its `max_iter` iterations by design.
    let boosted = tree::GradientBoostingClassifier::params()
        .early_stopping(EarlyStopping::Off)
        .max_iter(1)
        .fit(c)
        .unwrap()
        .convergence();
    assert_eq!((boosted.runs, boosted.at_limit), (1, 0));
}

#[test]
fn probability_estimates_count_their_cross_validation_runs() {
    let c = &data(false);
    let svc = svm::Svc::params()
        .probability(true)
        .max_iter(1)
        .fit(c)
        .unwrap();
    // One problem, and five folds behind its sigmoid, every one stopped after one iteration.
    assert_eq!(
        svc.convergence(),
        Convergence {
            runs: 6,
            at_limit: 6,
            limit: 1
        }
    );
    let svr = svm::Svr::params()
        .probability(true)
        .max_iter(1)
        .fit(&data(true))
        .unwrap();
    assert_eq!((svr.convergence().runs, svr.convergence().at_limit), (6, 6));
    let fine = svm::Svc::params().probability(true).fit(c).unwrap();
    assert_eq!(
        (fine.convergence().runs, fine.convergence().at_limit),
        (6, 0)
    );
}

#[test]
fn the_report_survives_a_model_file() {
    use margin::io::ModelFile;
    let c = &data(false);
    let svc = svm::Svc::params()
        .probability(true)
        .max_iter(1)
        .fit(c)
        .unwrap();
    let back = svm::Svc::from_bytes(&svc.to_bytes().unwrap()).unwrap();
    assert_eq!(back.convergence(), svc.convergence());
    let mb = cluster::MiniBatchKMeans::params()
        .n_clusters(2)
        .max_iter(1)
        .fit(&c.records)
        .unwrap();
    let back = cluster::MiniBatchKMeans::from_bytes(&mb.to_bytes().unwrap()).unwrap();
    assert_eq!(back.convergence(), mb.convergence());
}
