//! Observers on gradient boosting: a recording observer leaves the ensemble bit-identical,
//! one that stops at round k ends the loop there with the observer's stop, with and without
//! early stopping.

use margin_core::fit::Stop;
use margin_io::datasets;
use margin_testing::battery::check_observed;
use margin_tree::{EarlyStopping, GradientBoostingClassifier, GradientBoostingRegressor};

#[test]
fn boosting_stops_where_the_observer_says() {
    let heart = datasets::heart_scale().unwrap();
    for early in [EarlyStopping::Off, EarlyStopping::On] {
        let params = GradientBoostingClassifier::params()
            .max_iter(12)
            .early_stopping(early)
            .n_iter_no_change(50);
        let report = check_observed(&params, &heart, 5);
        let expected = match early {
            EarlyStopping::On => Stop::MaxIterations,
            _ => Stop::CONVERGED,
        };
        assert_eq!(report.runs()[0].stop, expected, "{early:?}");
        // The training loss is recorded (and reported) only with early stopping.
        assert_eq!(
            report.runs()[0].objective.is_some(),
            early == EarlyStopping::On
        );
    }
    let housing = datasets::housing_scale().unwrap();
    let params = GradientBoostingRegressor::params()
        .max_iter(10)
        .early_stopping(EarlyStopping::Off);
    check_observed(&params, &housing, 3);
}
