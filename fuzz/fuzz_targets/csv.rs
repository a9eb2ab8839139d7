//! Feeds arbitrary bytes to the CSV reader, with text columns refused (the default) and one-hot
//! encoded: errors are fine, panics are not.

#![no_main]

use margin_io::{CategoricalColumns, CsvOptions, read_csv_from};
use margin_core::{Error, Records};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for opts in [
        CsvOptions::default(),
        CsvOptions {
            categorical: CategoricalColumns::OneHot,
            ..Default::default()
        },
    ] {
        match read_csv_from(data, &opts) {
            Ok(d) => {
                assert!(d.check_consistent().is_ok());
                let dense = d.records.as_dense().expect("CSV records are dense");
                assert!(dense.as_slice().iter().all(|x| x.is_finite()));
            }
            Err(Error::Parse { line, column, .. }) => assert!(line >= 1 && column >= 1),
            Err(
                Error::ShapeMismatch { .. } | Error::InvalidParameter { .. } | Error::Io { .. },
            ) => {}
            Err(other) => panic!("unexpected error kind: {other:?}"),
        }
    }
});
