//! The checked-in list of known differences between margin and LIBSVM 3.37: one line per
//! configuration and artifact, `CONFIGURATION ARTIFACT ITEM`, ITEM being the number of the
//! issue-17 item that explains it (or `other:WORD` for a difference that none explains). The
//! list can only shrink: a listed difference that is gone fails the suite until its line goes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The list's file.
pub fn path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/libsvm_reference/known_differences.txt")
}

/// (configuration, artifact) → item.
pub type Known = BTreeMap<(String, String), String>;

const HEADER: &str = "\
# Known differences between `margin svm-train`/`svm-predict` and LIBSVM 3.37's tools, found by
# crates/margin-cli/tests/libsvm_differential.rs: CONFIGURATION ARTIFACT ITEM, where ITEM is
# the number of issue 17's item that explains the difference (other:WORD: none does).
# Every configuration and artifact not listed must be identical; a listed one that has become
# identical fails the suite until its line is removed (the list only shrinks).
# Rewrite from a run's results: MARGIN_LIBSVM_DIFF_UPDATE=1 cargo test -p margin-cli --test \
# integration libsvm_differential
";

/// Reads the list (missing file: empty); a malformed line is an error naming it.
pub fn read() -> Result<Known, String> {
    let text = match std::fs::read_to_string(path()) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Known::new()),
        Err(e) => return Err(format!("{}: {e}", path().display())),
    };
    let mut known = Known::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [config, artifact, item] = words[..] else {
            return Err(format!(
                "{} line {}: want CONFIGURATION ARTIFACT ITEM, got `{line}`",
                path().display(),
                n + 1
            ));
        };
        let key = (config.to_string(), artifact.to_string());
        if known.insert(key, item.to_string()).is_some() {
            return Err(format!(
                "{} line {}: `{config} {artifact}` is listed twice",
                path().display(),
                n + 1
            ));
        }
    }
    Ok(known)
}

/// Writes the list (sorted).
pub fn write(known: &Known) -> Result<(), String> {
    let mut text = String::from(HEADER);
    for ((config, artifact), item) in known {
        text.push_str(&format!("{config} {artifact} {item}\n"));
    }
    std::fs::write(path(), text).map_err(|e| format!("{}: {e}", path().display()))
}
