//! The integration tests of `margin-neighbors`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod errors;
mod huge_index;
mod metrics;
mod model_files;
mod params;
mod search;
mod sklearn_fixtures;
