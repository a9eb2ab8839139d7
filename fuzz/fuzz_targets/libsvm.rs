//! Feeds arbitrary bytes to the LIBSVM reader: errors are fine (a parse error must say where),
//! panics are not.

#![no_main]

use margin_io::{IndexBase, LibsvmOptions, read_libsvm_from};
use margin_core::{Error, Records};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for opts in [
        LibsvmOptions::default(),
        LibsvmOptions {
            index_base: IndexBase::Auto,
            n_features: None,
        },
        LibsvmOptions {
            index_base: IndexBase::Zero,
            n_features: Some(8),
        },
    ] {
        match read_libsvm_from(data, &opts) {
            Ok(d) => {
                assert!(d.check_consistent().is_ok());
                assert!(d.n_features() <= u32::MAX as usize);
                for i in 0..d.n_samples() {
                    d.records
                        .row(i)
                        .for_each_stored(|_, v| assert!(v.is_finite()));
                }
            }
            Err(Error::Parse { line, column, .. }) => assert!(line >= 1 && column >= 1),
            // The options are valid: a shape error can only be about the feature count given.
            Err(Error::ShapeMismatch { .. }) => assert!(opts.n_features.is_some()),
            Err(other) => panic!("unexpected error kind: {other:?}"),
        }
    }
});
