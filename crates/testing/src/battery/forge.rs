//! Forged model files: the encoded body of a sound model, altered and sealed again with a valid
//! header and checksum (what a buggy writer, another tool or a hand could produce). Each must be
//! refused with [`Error::ModelFile`] or load into a model that answers a probe with a result or
//! a typed error, never a panic.
//!
//! The alterations are deterministic (forgery `i` is the same on every run) and aimed at what
//! the body codec (bincode, variable-length integers) is made of: bytes set to values that mean
//! something to it (0, 1, `0x7f`, `0x80`, the length markers `0xfb`–`0xff`), bit flips, small
//! increments (a length or an index one off), integers re-encoded longer or shorter or made huge, bytes
//! deleted or inserted (every later field shifts), truncation and extension, non-finite floats,
//! swapped and duplicated ranges.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use margin_core::split::rng_from_seed;
use margin_core::{CsrMatrix, Dataset, DenseMatrix, Error, Matrix, Records, Result, Targets};
use margin_io::{ModelFile, body_of, seal};

/// Forgeries per model in [`crate::battery::check_estimator`] and the forging tests of kinds it
/// does not reach: enough to hit every field of a small model's body many times over, few
/// enough to keep each estimator's battery well under a second.
pub const FORGERIES: usize = 400;

/// The widest probe built at the width a forged model asks for: a forged width beyond it is
/// left at the refusal (a probe of a forged huge width would only test the allocator).
pub const MAX_PROBE_WIDTH: usize = 64;

/// `n` rows of three features in [-1, 1), spread deterministically, with `k` classes
/// (`Some(k)`: bands of the first two features' sum) or a continuous target (`None`): the small
/// data the model-file tests fit models on before forging their files.
///
/// # Panics
/// Never for `k ≠ Some(0)` (tests only).
pub fn forge_data(n: usize, k: Option<usize>) -> Dataset {
    let x: Vec<f64> = (0..n * 3)
        .map(|i| ((i * 37 + 11) % 97) as f64 / 48.0 - 1.0)
        .collect();
    let y = (0..n)
        .map(|i| {
            let s = x[3 * i] + x[3 * i + 1] + 2.0;
            k.map_or(s - 1.0, |k| {
                (s * k as f64 / 4.0).floor().min(k as f64 - 1.0)
            })
        })
        .collect();
    Dataset::new(
        DenseMatrix::from_row_major(x, n, 3).expect("n × 3 values"),
        Targets::Values(y),
    )
    .expect("one target per row")
}

/// Records as a model file stores them ([`Matrix`]'s serialized layout), without the checks
/// `Matrix` makes when it decodes: how a test writes records no sound model would hold.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum RawMatrix {
    /// Row-major values.
    Dense {
        /// `nrows × ncols` values, row after row.
        data: Vec<f64>,
        /// Number of rows.
        nrows: usize,
        /// Number of columns.
        ncols: usize,
    },
    /// Compressed sparse rows.
    Sparse {
        /// Row `i`'s entries are `indptr[i]..indptr[i + 1]`.
        indptr: Vec<usize>,
        /// Column of each entry.
        indices: Vec<u32>,
        /// Value of each entry.
        values: Vec<f64>,
        /// Number of columns.
        ncols: usize,
    },
}

/// Asserts that loading `file` as an `M` is refused with [`Error::ModelFile`] whose reason
/// contains `words` (the field or fact a test forged): a forged file must be refused, not
/// loaded, and refused for what was forged.
///
/// # Panics
/// When the file loads, is refused otherwise, or the reason does not contain `words`.
pub fn check_refused<M: ModelFile>(file: &[u8], words: &str) {
    match M::from_bytes(file) {
        Err(Error::ModelFile { reason }) => {
            assert!(reason.contains(words), "`{words}` not named in: {reason}")
        }
        Err(other) => panic!("`{words}`: refused with {other}"),
        Ok(_) => panic!("`{words}`: an inconsistent file was loaded"),
    }
}

/// Bytes that mean something to the body codec: small values and lengths, the edges of a
/// one-byte integer and the markers of longer ones.
const BYTES: [u8; 12] = [0, 1, 2, 3, 0x7f, 0x80, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff];

/// Values that break a float the model divides by or compares with.
const FLOATS: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -1.0,
    0.0,
    -0.0,
    1e308,
    f64::MIN_POSITIVE,
];

/// Large integers for a length or an index (written after the 8-byte marker `0xfd`).
const HUGE: [u64; 5] = [u64::MAX, u64::MAX / 8, 1 << 40, 1 << 32, u32::MAX as u64];

/// Dense and sparse (CSR) forms of the same few rows of `width` columns, for probing a loaded
/// model: a row of zeros (an empty sparse row), negative, fractional, integer and large values.
pub fn probe_records(width: usize) -> [Matrix; 2] {
    const VALUES: [f64; 10] = [0.0, 1.0, -1.0, 2.5, 0.0, 3.0, -0.5, 1e3, 0.0, 7.0];
    let rows = 5;
    let data = (0..rows * width)
        .map(|at| {
            let (i, j) = (at / width.max(1), at % width.max(1));
            if i == 0 {
                0.0
            } else {
                VALUES[(i * 7 + j * 3) % VALUES.len()]
            }
        })
        .collect();
    let dense = DenseMatrix::from_row_major(data, rows, width)
        .unwrap_or_else(|_| DenseMatrix::zeros(rows, width));
    let sparse = CsrMatrix::from_dense(&dense);
    [Matrix::Dense(dense), Matrix::Sparse(sparse)]
}

/// The width a model asked for when it refused a probe of another width
/// ([`Error::ShapeMismatch`]'s `expected`), if it is one a probe can have (1 to
/// [`MAX_PROBE_WIDTH`]).
pub fn asked_width(e: &Error) -> Option<usize> {
    match e {
        Error::ShapeMismatch { expected, .. } if (1..=MAX_PROBE_WIDTH).contains(expected) => {
            Some(*expected)
        }
        _ => None,
    }
}

fn position(rng: &mut ChaCha8Rng, len: usize) -> usize {
    match len {
        0 => 0,
        // Half the time among the first bytes, where the first fields and lengths sit.
        _ if rng.random_bool(0.5) => rng.random_range(0..len.min(48)),
        _ => rng.random_range(0..len),
    }
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, from: &[T]) -> T {
    from[rng.random_range(0..from.len())]
}

/// Applies one alteration to `b`, returning what it did.
fn alter(b: &mut Vec<u8>, kind: usize, rng: &mut ChaCha8Rng) -> String {
    let at = position(rng, b.len());
    if b.is_empty() && kind % 12 != 8 {
        b.push(pick(rng, &BYTES));
        return "empty body given one byte".into();
    }
    match kind % 12 {
        0 => {
            let v = pick(rng, &BYTES);
            b[at] = v;
            format!("byte {at} set to {v:#04x}")
        }
        1 => {
            let bit = rng.random_range(0..8);
            b[at] ^= 1 << bit;
            format!("bit {bit} of byte {at} flipped")
        }
        2 => {
            let delta: i8 = pick(rng, &[-3, -2, -1, 1, 2, 3]);
            b[at] = b[at].wrapping_add_signed(delta);
            format!("byte {at} changed by {delta}")
        }
        3 if (0xfb..=0xfd).contains(&b[at]) => {
            // A longer integer (u16 after 0xfb, u32 after 0xfc, u64 after 0xfd) cut to its
            // lowest byte, as one byte.
            let wide = [2, 4, 8][usize::from(b[at] - 0xfb)];
            let end = (at + 1 + wide).min(b.len());
            let low = b.get(at + 1).map_or(0, |&v| v.min(0xfa));
            b.splice(at..end, [low]);
            format!("integer at {at} shrunk to the one byte {low:#04x}")
        }
        3 => {
            // The same value in a longer encoding (u16 after 0xfb, u32 after 0xfc).
            let v = b[at];
            let longer: &[u8] = if rng.random_bool(0.5) {
                &[0xfb, v, 0]
            } else {
                &[0xfc, v, 0, 0, 0]
            };
            b.splice(at..=at, longer.iter().copied());
            format!("byte {at} ({v:#04x}) re-encoded in {} bytes", longer.len())
        }
        4 => {
            let v = pick(rng, &HUGE);
            let mut huge = vec![0xfd];
            huge.extend_from_slice(&v.to_le_bytes());
            b.splice(at..=at, huge);
            format!("byte {at} replaced by the integer {v}")
        }
        5 => {
            let n = rng.random_range(1..=8).min(b.len() - at);
            b.drain(at..at + n);
            format!("{n} byte(s) deleted at {at}")
        }
        6 => {
            let n = rng.random_range(1..=8);
            let bytes: Vec<u8> = (0..n).map(|_| pick(rng, &BYTES)).collect();
            b.splice(at..at, bytes);
            format!("{n} byte(s) inserted at {at}")
        }
        7 => {
            b.truncate(at);
            format!("truncated to {at} bytes")
        }
        8 => {
            let n = rng.random_range(1..=16);
            b.extend((0..n).map(|_| pick(rng, &BYTES)));
            format!("extended by {n} byte(s)")
        }
        9 => {
            let n = rng.random_range(1..=16).min(b.len() / 2).max(1);
            let (x, y) = (
                rng.random_range(0..=b.len() - n),
                rng.random_range(0..=b.len() - n),
            );
            // Overlapping ranges: swap their first bytes only.
            let n = if x.abs_diff(y) >= n { n } else { 1 };
            for k in 0..n {
                b.swap(x + k, y + k);
            }
            format!("{n} byte(s) at {x} and {y} swapped")
        }
        10 => {
            let v = pick(rng, &FLOATS);
            let end = (at + 8).min(b.len());
            b[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
            format!("bytes {at}..{end} set to the float {v}")
        }
        _ => {
            let n = rng.random_range(1..=16).min(b.len());
            let from = rng.random_range(0..=b.len() - n);
            let chunk = b[from..from + n].to_vec();
            let to = at.min(b.len() - n);
            b[to..to + n].copy_from_slice(&chunk);
            format!("{n} byte(s) copied from {from} to {to}")
        }
    }
}

/// Forgery `i` of `body`: one alteration, or two for every third forgery. The same `i` gives
/// the same forgery on every run; the text says what was done.
pub fn forged_body(body: &[u8], i: usize) -> (String, Vec<u8>) {
    let mut rng = rng_from_seed(0xf0_46e5 ^ i as u64);
    let mut b = body.to_vec();
    let mut what = alter(&mut b, i, &mut rng);
    if i % 3 == 2 {
        let second = rng.random_range(0..12);
        what = format!("{what}, then {}", alter(&mut b, second, &mut rng));
    }
    (format!("forgery {i} ({what})"), b)
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// What is wrong with a model loaded from a forged file, if anything: `use_model` (which returns
/// the row count of each answer it computes) runs on the dense and sparse [`probe_records`] of
/// `width` columns and may return a typed error; each answer must have one row per probe row.
/// A model that refuses the probes' width is probed once more at the width it asks for
/// ([`asked_width`]). A panic is left to the caller to catch (or, in a fuzzer, to report).
pub fn loaded_model_failure<M>(
    model: &M,
    width: usize,
    use_model: impl Fn(&M, &Matrix) -> Result<Vec<usize>>,
) -> Option<String> {
    let (failure, asked) = probe_at(model, width, &use_model);
    failure.or_else(|| asked.and_then(|w| probe_at(model, w, &use_model).0))
}

/// One round of [`loaded_model_failure`] at `width`: the failure, and the other width asked for.
fn probe_at<M>(
    model: &M,
    width: usize,
    use_model: &impl Fn(&M, &Matrix) -> Result<Vec<usize>>,
) -> (Option<String>, Option<usize>) {
    let mut asked = None;
    for x in probe_records(width) {
        match use_model(model, &x) {
            Ok(rows) => {
                if let Some(r) = rows.iter().find(|&&r| r != x.n_samples()) {
                    let f = format!(
                        "answered {r} rows for the {} rows of a probe",
                        x.n_samples()
                    );
                    return (Some(f), None);
                }
            }
            Err(e) => asked = asked.or(asked_width(&e).filter(|&a| a != width)),
        }
    }
    (None, asked)
}

/// Forges `count` files from `model`'s encoding ([`forged_body`], sealed again with
/// [`seal`]) and returns what went wrong: a forgery must be refused by
/// [`ModelFile::from_bytes`] with [`Error::ModelFile`], or load into a model that `use_model`
/// (which returns the row count of each answer it computes) can run on the dense and sparse
/// [`probe_records`] of `width` columns — and of the width the model asks for, when it refuses
/// those — without panicking.
pub fn forged_file_failures<M: ModelFile>(
    model: &M,
    width: usize,
    count: usize,
    use_model: impl Fn(&M, &Matrix) -> Result<Vec<usize>>,
) -> Vec<String> {
    let bytes = match model.to_bytes() {
        Ok(b) => b,
        Err(e) => return vec![format!("forged files: encoding the model failed: {e}")],
    };
    let body = match body_of(&bytes) {
        Ok(b) => b.to_vec(),
        Err(e) => {
            return vec![format!(
                "forged files: reading back the encoding failed: {e}"
            )];
        }
    };
    let mut failures = Vec::new();
    for i in 0..count {
        let (what, forged) = forged_body(&body, i);
        let file = match seal(M::KIND, M::SCHEMA, &forged) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{what}: sealing failed: {e}"));
                continue;
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| match M::from_bytes(&file) {
            Err(Error::ModelFile { .. }) => None,
            Err(e) => Some(format!("refused with `{e}` instead of Error::ModelFile")),
            Ok(m) => {
                loaded_model_failure(&m, width, &use_model).map(|f| format!("loaded, then {f}"))
            }
        }));
        match outcome {
            Ok(None) => {}
            Ok(Some(f)) => failures.push(format!("{what}: {f}")),
            Err(payload) => failures.push(format!("{what}: panicked: {}", panic_text(&*payload))),
        }
        // A broken kind fails nearly every forgery: the first few say enough.
        if failures.len() >= 5 {
            failures.push(format!("forged files: stopped after forgery {i}"));
            break;
        }
    }
    failures
}

/// [`forged_file_failures`] with [`FORGERIES`] forgeries, panicking with the list of failures:
/// the forging test of a kind that [`crate::battery::check_estimator`] does not reach
/// (transformers, and methods other than `predict`).
pub fn check_forged_files<M: ModelFile>(
    model: &M,
    width: usize,
    use_model: impl Fn(&M, &Matrix) -> Result<Vec<usize>>,
) {
    let failures = forged_file_failures(model, width, FORGERIES, use_model);
    assert!(
        failures.is_empty(),
        "forged `{}` files: {} failure(s):\n  {}",
        M::KIND,
        failures.len(),
        failures.join("\n  ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgeries_are_deterministic_and_varied() {
        let body: Vec<u8> = (0..200u8).collect();
        let all: Vec<(String, Vec<u8>)> = (0..FORGERIES).map(|i| forged_body(&body, i)).collect();
        for (i, f) in all.iter().enumerate().take(40) {
            assert_eq!(&forged_body(&body, i), f);
        }
        let changed = all.iter().filter(|(_, b)| *b != body).count();
        assert!(
            changed > FORGERIES * 9 / 10,
            "{changed} of {FORGERIES} changed"
        );
        assert!(all.iter().any(|(_, b)| b.len() < body.len()));
        assert!(all.iter().any(|(_, b)| b.len() > body.len()));
        assert!(all.iter().any(|(_, b)| b.contains(&0xfd)));
        for (_, b) in (0..50).map(|i| forged_body(&[], i)) {
            assert!(b.len() <= 17);
        }
    }

    #[test]
    fn probes_have_the_width_asked_in_both_layouts() {
        for w in [1, 3, MAX_PROBE_WIDTH] {
            let [dense, sparse] = probe_records(w);
            assert_eq!((dense.n_samples(), dense.n_features()), (5, w));
            assert_eq!((sparse.n_samples(), sparse.n_features()), (5, w));
            assert!(sparse.as_sparse().is_some() && dense.as_dense().is_some());
            assert_eq!(dense.to_dense().unwrap(), sparse.to_dense().unwrap());
        }
        assert_eq!(asked_width(&Error::shape("x", 7, 3)), Some(7));
        assert_eq!(
            asked_width(&Error::shape("x", MAX_PROBE_WIDTH + 1, 3)),
            None
        );
        assert_eq!(asked_width(&Error::shape("x", 0, 3)), None);
        assert_eq!(asked_width(&Error::model_file("x")), None);
    }
}
