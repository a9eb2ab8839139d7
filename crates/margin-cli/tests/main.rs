//! The integration tests of `margin-cli`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod boosting_cli;
mod class_weight_cli;
mod cli;
mod cluster_cli;
mod common;
mod convergence_cli;
mod data_cli;
mod libsvm_cli;
mod libsvm_differential;
mod libsvm_folds_cli;
mod libsvm_inputs_cli;
mod libsvm_numerics_cli;
mod linear_svm_cli;
mod logistic_cli;
mod memory_cli;
mod messages_cli;
mod naive_bayes_cli;
mod neighbors_cli;
mod output_cli;
mod params_cli;
mod perceptron_cli;
mod pipes_cli;
mod precomputed_cli;
mod registry_cli;
mod regression_cli;
mod shape_cli;
mod table_cli;
mod table_messages_cli;
mod tour_cli;
mod tree_categorical_cli;
mod tree_cli;
