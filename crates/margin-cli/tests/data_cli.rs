//! `margin info` and `margin scale` on hostile data: sparse files with huge feature indices run
//! in memory proportional to their stored values, endless or oversized input fails quickly
//! with exit code 2 and a clear message (under an address-space limit, as a small machine
//! would have), the parameters file of `scale -s` is written whole or not at all and never over
//! an input, and the readers' messages name the real problem.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{fails_with, margin, root, s, stdout};

/// The address-space limit the memory cases run under (what a small machine would give).
const ADDRESS_SPACE: &str = "--as=1000000000";

/// Runs `margin ARGS` under `prlimit --as=…` and `timeout 120`; `None` (with a note) where
/// prlimit or timeout is missing.
fn limited(args: &[&str]) -> Option<Output> {
    for tool in ["prlimit", "timeout"] {
        if Command::new(tool).arg("--version").output().is_err() {
            eprintln!(
                "skipped: `{tool}` is not installed, so the address-space limit cannot be set"
            );
            return None;
        }
    }
    let out = Command::new("prlimit")
        .args([ADDRESS_SPACE, "--", "timeout", "120"])
        .arg(env!("CARGO_BIN_EXE_margin"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("prlimit runs");
    Some(out)
}

/// Exit code 2 (never 134 for an abort, 101 for a panic or 124 for the timeout) and `needle`
/// on stderr.
fn refused(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `copies` gzip members of `block`, concatenated (a small file that decompresses to a lot).
fn gzip_repeated(path: &Path, block: &[u8], copies: usize) {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(block).unwrap();
    let member = enc.finish().unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    for _ in 0..copies {
        f.write_all(&member).unwrap();
    }
}

/// The 31-byte file of the issue: one feature index is 2^31 - 1.
const HUGE_INDEX: &[u8] = b"1 2147483647:1\n-1 1:1\n";

#[test]
fn info_on_a_huge_feature_index_lists_the_stored_features_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "huge.svm", HUGE_INDEX);
    let Some(out) = limited(&["info", "--features", s(&data)]) else {
        return;
    };
    let text = stdout(&out);
    assert!(text.contains("features: 2147483647\n"), "{text}");
    assert!(
        text.contains("stored values: 2 of 4294967294 (0.0 %, sparse)\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "value range: [0, 1]; constant features: 2147483645\n  1: [0, 1]\n  2147483647: [0, 1]\n  never stored: 2147483645 features, all 0\n"
        ),
        "{text}"
    );
}

#[test]
fn info_features_lists_every_feature_of_dense_data_and_documents_its_format() {
    let out = stdout(&margin(&["info", "--features", "datasets/heart_scale"]));
    let listed = out.lines().filter(|l| l.starts_with("  ")).count();
    assert_eq!(listed, 13, "{out}");
    assert!(!out.contains("never stored"), "{out}");
    let help = stdout(&margin(&["info", "--help"]));
    assert!(help.contains("never stored: N features, all 0"), "{help}");
}

#[test]
fn scale_on_a_huge_feature_index_writes_only_the_used_features() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "huge.svm", HUGE_INDEX);
    let params = dir.path().join("range");
    let Some(out) = limited(&["scale", "-s", s(&params), s(&data)]) else {
        return;
    };
    // As svm-scale: both features range over [0, 1]; missing entries are zeros, scaled to -1.
    assert_eq!(
        stdout(&out),
        "1 1:-1 2147483647:1 \n-1 1:1 2147483647:-1 \n"
    );
    assert_eq!(
        std::fs::read_to_string(&params).unwrap(),
        "x\n-1 1\n1 0 1\n2147483647 0 1\n"
    );
    let Some(out) = limited(&["scale", "-r", s(&params), s(&data)]) else {
        return;
    };
    assert_eq!(
        stdout(&out),
        "1 1:-1 2147483647:1 \n-1 1:1 2147483647:-1 \n"
    );
    // With LOWER 0 the output keeps the input's sparsity.
    let zero_based = write(dir.path(), "range0", b"x\n0 1\n1 0 1\n2147483647 0 1\n");
    let Some(out) = limited(&["scale", "-r", s(&zero_based), s(&data)]) else {
        return;
    };
    assert_eq!(stdout(&out), "1 2147483647:1 \n-1 1:1 \n");
    // The largest legal index, in a parameters file applied to data that lacks it.
    let wide = write(
        dir.path(),
        "wide.range",
        b"x\n0 1\n3 0 2\n4294967295 -1 1\n",
    );
    let small = write(dir.path(), "small.svm", b"1 3:1\n2 3:2\n");
    let Some(out) = limited(&["scale", "-r", s(&wide), s(&small)]) else {
        return;
    };
    assert_eq!(
        stdout(&out),
        "1 3:0.5 4294967295:0.5 \n2 3:1 4294967295:0.5 \n"
    );
}

#[test]
fn endless_input_fails_quickly_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    // 1.5 GB of zeros in about 1.5 MB.
    let bomb = dir.path().join("bomb.gz");
    gzip_repeated(&bomb, &vec![0u8; 16 << 20], 90);
    for args in [
        vec!["info", "/dev/zero"],
        vec!["info", s(&bomb)],
        vec!["scale", s(&bomb)],
        vec!["info", "--format", "csv", s(&bomb)],
    ] {
        let Some(out) = limited(&args) else {
            return;
        };
        refused(&out, "is this a text data file?");
        let err = String::from_utf8_lossy(&out.stderr);
        let name = args.last().unwrap();
        assert!(
            err.contains(&format!("{name}: parse error at line 1")),
            "{err}"
        );
    }
}

#[test]
fn running_out_of_memory_while_reading_is_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    // About 670 MB of valid lines (4 MB compressed): more than the limit lets the reader keep.
    let line: String = std::iter::once("1".to_owned())
        .chain((1..=1000).map(|j| format!(" {j}:1")))
        .collect::<String>()
        + "\n";
    let block = line.repeat((16 << 20) / line.len());
    let many = dir.path().join("many.gz");
    gzip_repeated(&many, block.as_bytes(), 40);
    let Some(out) = limited(&["info", s(&many)]) else {
        return;
    };
    refused(&out, "out of memory");
}

#[test]
fn scale_s_never_writes_over_an_input_and_writes_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "d.svm", b"1 1:2\n-1 1:4\n");
    fails_with(&["scale", "-s", s(&data), s(&data)], 2, "also an input");
    assert_eq!(std::fs::read(&data).unwrap(), b"1 1:2\n-1 1:4\n");
    // A failure after the arguments were checked leaves the previous parameters in place.
    let params = write(dir.path(), "range", b"x\n-1 1\n1 0 9\n");
    let bad = write(dir.path(), "bad.svm", b"1 1:2\n-1 2:1 1:4\n");
    fails_with(&["scale", "-s", s(&params), s(&bad)], 2, "increase");
    assert_eq!(std::fs::read(&params).unwrap(), b"x\n-1 1\n1 0 9\n");
    stdout(&margin(&["scale", "-s", s(&params), s(&data)]));
    assert_eq!(
        std::fs::read_to_string(&params).unwrap(),
        "x\n-1 1\n1 2 4\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 3, "{leftovers:?}");
}

#[test]
fn scale_r_messages_name_the_line_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty", b"");
    fails_with(
        &["scale", "-r", s(&empty), "datasets/heart_scale"],
        2,
        "line 1, column 1: the parameters file is empty",
    );
    let short = write(dir.path(), "short", b"x\n");
    fails_with(
        &["scale", "-r", s(&short), "datasets/heart_scale"],
        2,
        "line 2, column 1: the parameters file ends before the x limits",
    );
    let too_big = write(dir.path(), "big", b"x\n-1 1\n4294967296 0 1\n");
    fails_with(
        &["scale", "-r", s(&too_big), "datasets/heart_scale"],
        2,
        "from 0 to 4294967295",
    );
    // CSV is dense: parameters for a feature it does not have are refused.
    let csv = write(dir.path(), "d.csv", b"a,b,y\n1,2,0\n3,4,1\n");
    let wide = write(dir.path(), "wide", b"x\n-1 1\n1 0 1\n2147483647 0 1\n");
    fails_with(
        &["scale", "-r", s(&wide), s(&csv)],
        2,
        "lists feature 2147483647, but",
    );
}

#[test]
fn reader_messages_name_the_real_problem() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.svm", b"1 1:1\n1 1000000000000:1\n");
    fails_with(
        &["info", s(&big)],
        2,
        "line 2, column 3: feature index 1000000000000 is above the largest legal index, 4294967295",
    );
    let csv = write(dir.path(), "data.txt", b"1,2,0\n3,4,1\n");
    fails_with(
        &["info", "--format", "libsvm", s(&csv)],
        2,
        "looks like CSV",
    );
    fails_with(&["svm-train", s(&csv)], 2, "looks like CSV");
    let quote = write(dir.path(), "q.csv", b"a,b,y\n1,2,0\n3,\"4,1\n5,6,1\n");
    fails_with(
        &["info", s(&quote)],
        2,
        "line 3, column 2: unterminated quote",
    );
    let long = dir.path().join("long.csv");
    let mut text = b"a,b,y\n1,2,0\n".to_vec();
    text.resize(text.len() + (64 << 20) + 1, b'7');
    std::fs::write(&long, &text).unwrap();
    fails_with(
        &["info", s(&long)],
        2,
        "line 3, column 67108865: line longer than 64.0 MiB",
    );
}
