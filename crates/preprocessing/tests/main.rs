//! The integration tests of `margin-preprocessing`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod forged_models;
mod preprocessing_params;
mod scaler_stats;
