//! The integration tests of `margin-svm`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod batched;
mod coef_shape;
mod common;
mod huge_index;
mod libsvm_fixtures;
mod libsvm_folds;
mod libsvm_probability;
mod linear_svc;
mod model_files;
mod observed;
mod params;
mod properties;
