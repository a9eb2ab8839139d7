//! # testing: what every margin model's tests run
//!
//! A dev-dependency of the model crates, kept out of the libraries users depend on:
//!
//! - the **estimator battery** ([`battery`]): one set of bad and awkward inputs every model must
//!   survive (empty, non-finite, one class, wrong width, sparse and dense alike), forged model
//!   files every kind must refuse or survive, parameter descriptors that must agree with the
//!   library's defaults, observers that must see every iteration;
//! - the reader of the reference **fixtures** ([`fixture`]) the model crates compare against
//!   (scikit-learn and LIBSVM outputs, each written by a generator script that records the
//!   command and versions that produced it);
//! - fitting from **statistics** gathered in parts and merged in a random order ([`stats`]).
//!
//! Both panic with a list of what failed, so they belong in tests only.

#![forbid(unsafe_code)]

pub mod battery;
pub mod fixture;
pub mod stats;

/// Runs `f` in a rayon pool of `threads` threads: how tests compare a fit on one thread with
/// the same fit on two, bit for bit.
///
/// # Panics
/// When the pool cannot be built (tests only).
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool of a few threads")
        .install(f)
}
