//! The integration tests of `margin-linear`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod coef_shape;
mod common;
mod elastic_net;
mod least_squares_stats;
mod logistic;
mod memory;
mod model_files;
mod naive_bayes_errors;
mod naive_bayes_fixtures;
mod naive_bayes_properties;
mod observed;
mod params;
mod perceptron;
mod perceptron_properties;
mod perceptron_sklearn;
mod regression;
mod regression_fixtures;
