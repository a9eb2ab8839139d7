//! Shared inputs for margin's criterion benches: seeded synthetic matrices and the shared
//! data sets (read from `../shared/data` when present; a bench that needs one skips cleanly
//! without it).
#![forbid(unsafe_code)]

pub mod coverage;

use std::path::PathBuf;

use margin_core::{Dataset, DenseMatrix};
use margin_io::{LibsvmOptions, read_libsvm};

/// A dense `n × d` matrix of values in [−1, 1) from a fixed linear congruential sequence (the
/// same numbers on every machine, no RNG dependency).
pub fn dense(n: usize, d: usize, seed: u64) -> DenseMatrix {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let data = (0..n * d)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    DenseMatrix::from_row_major(data, n, d).expect("n * d values")
}

/// The shared data directory, if this checkout sits beside one.
pub fn shared_data_dir() -> Option<PathBuf> {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [here.join("../../shared/data"), here.join("../shared/data")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// Reads a shared LIBSVM data set by file name, or `None` (with a note on stderr) when absent.
pub fn shared_dataset(name: &str, n_features: usize) -> Option<Dataset> {
    let path = shared_data_dir()?.join(name);
    if !path.exists() {
        eprintln!("skipping: {} not found", path.display());
        return None;
    }
    read_libsvm(
        &path,
        &LibsvmOptions {
            n_features: Some(n_features),
            ..Default::default()
        },
    )
    .ok()
}
