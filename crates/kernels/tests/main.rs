//! The integration tests of `margin-kernels`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod cache_limit;
mod model_files;
mod properties;
