//! Helpers shared by the CLI test files: run the `margin` binary from the repository root and
//! check its output or its refusal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the bundled `datasets/` are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `margin ARGS` from the repository root.
pub fn margin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the margin binary runs")
}

/// The standard output of a run that must succeed.
pub fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "margin failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

/// Asserts that `margin ARGS` exits with `code` and says `needle` on stderr, without a panic.
pub fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = margin(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: stderr was {err:?}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}
