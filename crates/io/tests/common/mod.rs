//! Helpers shared by margin-io's integration tests and its unit tests (which include this file
//! by `#[path]`): one way to take a parse error apart.

use margin_core::Error;

/// The line, column and message of the parse error `r` must be; anything else panics with
/// `what` and what came instead.
pub fn parse_error<T: std::fmt::Debug>(r: Result<T, Error>, what: &str) -> (usize, usize, String) {
    match r {
        Err(Error::Parse {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("{what}: {other:?}"),
    }
}
