//! The integration tests of `margin-tree`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod adaboost;
mod common;
mod export;
mod forest;
mod gradient_boosting;
mod gradient_boosting_fixtures;
mod leaf_size;
mod model_files;
mod observed;
mod params;
mod prediction_walk;
mod tree_categorical;
mod tree_errors;
mod tree_fixtures;
mod tree_hand;
mod tree_limits;
mod tree_properties;
mod tree_pruning;
