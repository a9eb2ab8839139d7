//! The integration tests of `margin-io`, one module per file, built as one test binary: the
//! library's generic code is then compiled and linked once, not once per file. proptest keeps
//! the seeds of past failures of `tests/NAME.rs` in `proptest-regressions/NAME.txt`.

mod common;
mod compressed;
mod io_roundtrip;
mod pipes;
mod table;
mod table_corruption;
mod table_labels;
mod unbounded_input;
