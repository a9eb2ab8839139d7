//! Running the Parquet and Arrow readers so that a corrupt file is an error, not a crash.
//!
//! The arrow and parquet crates panic on some malformed input (an out-of-range slice, a
//! division by zero, an `unwrap` on a missing schema part). A panic there says that the file is
//! broken, not that margin is, so it is caught here and reported as the file's error (exit code
//! 2 in the CLI), without the panic message the process-wide hook would print. Allocation
//! failures cannot be caught: the checks in `parquet_check` and `ipc` keep the readers from
//! being handed a length they would allocate unchecked.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

use margin_core::{Error, Result};

thread_local! {
    /// Whether this thread is inside [`guarded`]: its panics are reported as errors.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Wraps the process's panic hook (once): a panic inside [`guarded`] prints nothing, every
/// other panic goes to the hook that was there (the CLI's one-line "internal error").
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `read` (a call into the `reader` crate: "Parquet", "Arrow IPC") on the file at
/// `path`; a panic inside it becomes the error that the file cannot be read.
pub(crate) fn guarded<T>(path: &Path, reader: &str, read: impl FnOnce() -> Result<T>) -> Result<T> {
    install_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    GUARDED.with(|g| g.set(outer));
    result.unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned());
        Err(unreadable(
            path,
            reader,
            format!("the {reader} reader failed on it ({what})"),
        ))
    })
}

/// The error for a table file that cannot be read: `detail` says what is wrong with it.
pub(crate) fn unreadable(path: &Path, format: &str, detail: impl std::fmt::Display) -> Error {
    Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not a readable {format} file: {detail}; the file is corrupt or truncated (write it again)"
            ),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_is_the_files_error_and_the_flag_is_restored() {
        let path = Path::new("t.parquet");
        let e = guarded::<()>(path, "Parquet", || panic!("index out of bounds")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("t.parquet")
                && text.contains("index out of bounds")
                && text.contains("not a readable Parquet file"),
            "{text}"
        );
        assert!(!GUARDED.with(Cell::get));
        assert_eq!(guarded(path, "Parquet", || Ok(7)).unwrap(), 7);
    }
}
