//! The integration tests of `margin-cluster`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod elkan;
mod errors;
mod observed;
mod params;
mod pca_stats;
mod properties;
mod sklearn_fixtures;
