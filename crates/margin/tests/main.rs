//! The integration tests of `margin-ml`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod borrowed_views;
mod convergence;
mod data_in;
mod first_hour;
mod generators;
mod n_features;
mod pipeline;
mod scoring;
mod user_kernel;
