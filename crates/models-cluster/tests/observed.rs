//! Observers on k-means (Lloyd, Elkan, mini-batch): a recording observer leaves the model
//! bit-identical, one that stops at iteration k ends the runs there with the observer's stop,
//! and the inertia Lloyd's and Elkan's iterations report never rises.

use margin_cluster::{KMeans, KMeansAlgorithm, MiniBatchKMeans};
use margin_core::Fit;
use margin_core::fit::{FitObserved, LossHistory, Stop, StopAfter};
use margin_io::datasets;
use margin_testing::battery::check_observed;

#[test]
fn lloyd_and_elkan_stop_where_the_observer_says_and_their_inertia_never_rises() {
    let x = datasets::housing_scale().unwrap().records;
    for algorithm in [KMeansAlgorithm::Lloyd, KMeansAlgorithm::Elkan] {
        let params = KMeans::params()
            .n_clusters(8)
            .n_init(3)
            .tol(0.0)
            .seed(3)
            .algorithm(algorithm);
        let report = check_observed(&params, &x, 2);
        assert_eq!(report.runs()[0].stop, Stop::CONVERGED, "{algorithm:?}");
        let mut history = LossHistory::default();
        let one_run = params.clone().n_init(1);
        let model = one_run.fit_observed(&x, &mut history).unwrap();
        assert_eq!(history.values.len(), model.n_iter(), "{algorithm:?}");
        for pair in history.values.windows(2) {
            assert!(
                pair[1] <= pair[0] * (1.0 + 1e-12),
                "{algorithm:?}: {pair:?}"
            );
        }
        // The last assignment repeats and the centres are its means: the kept inertia.
        let last = history.values.last().unwrap();
        assert!(
            (last - model.inertia()).abs() <= 1e-9 * model.inertia(),
            "{algorithm:?}"
        );
        assert_eq!(model, one_run.fit(&x).unwrap(), "{algorithm:?}");
    }
}

#[test]
fn mini_batch_steps_stop_where_the_observer_says() {
    let x = datasets::housing_scale().unwrap().records;
    let params = MiniBatchKMeans::params()
        .n_clusters(5)
        .batch_size(64)
        .max_no_improvement(None)
        .max_iter(20)
        .seed(1);
    let plain = params.fit(&x).unwrap();
    assert_eq!(plain.fit_report().runs()[0].stop, Stop::CONVERGED);
    let mut steps = Vec::new();
    let watched = params
        .fit_observed(&x, &mut |p: &margin_core::fit::Progress<'_>| {
            steps.push(p.iteration);
            margin_core::fit::Control::Continue
        })
        .unwrap();
    assert_eq!(watched, plain);
    assert_eq!(steps, (1..=plain.n_steps()).collect::<Vec<_>>());
    let stopped = params.fit_observed(&x, &mut StopAfter::new(9)).unwrap();
    assert_eq!(stopped.n_steps(), 9);
    let run = stopped.fit_report().runs()[0];
    assert_eq!(
        (run.iterations, run.stop),
        (2, Stop::Observer),
        "9 steps of 64 of 506 rows"
    );
}

#[test]
fn mini_batch_early_stopping_is_no_improvement() {
    let x = datasets::housing_scale().unwrap().records;
    let model = MiniBatchKMeans::params()
        .n_clusters(3)
        .batch_size(32)
        .max_no_improvement(Some(3))
        .max_iter(500)
        .seed(2)
        .fit(&x)
        .unwrap();
    assert_eq!(
        model.fit_report().runs()[0].stop,
        Stop::NoImprovement { rounds: 3 }
    );
    assert!(model.convergence().converged());
}
