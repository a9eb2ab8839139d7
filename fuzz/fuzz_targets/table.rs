//! Feeds arbitrary bytes to the Parquet and Arrow IPC readers (the first byte picks which; the
//! rest is the file), with the default columns and with nulls read as NaN: a refusal must be a
//! typed error (the file's I/O error, a column's, an empty dataset, running out of memory). A
//! panic, an abort or a runaway allocation is a bug: the readers check every length a file
//! claims before arrow or parquet sizes anything by it, and catch what panics inside them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use margin_core::Error;
use margin_io::table::{read_arrow_ipc_bytes, read_parquet_bytes};
use margin_io::{Nulls, TableColumns};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    for nulls in [Nulls::Refuse, Nulls::AsNan] {
        let columns = TableColumns {
            nulls,
            ..TableColumns::default()
        };
        let read = if pick % 2 == 0 {
            read_parquet_bytes(file.to_vec(), &columns)
        } else {
            read_arrow_ipc_bytes(file.to_vec(), &columns)
        };
        match read {
            Ok(d) => {
                assert!(d.check_consistent().is_ok());
                assert!(d.n_features() <= u32::MAX as usize);
            }
            Err(
                Error::Io { .. }
                | Error::Column { .. }
                | Error::EmptyDataset(_)
                | Error::OutOfMemory { .. }
                | Error::ShapeMismatch { .. }
                | Error::InvalidParameter { .. },
            ) => {}
            Err(other) => panic!("unexpected error kind: {other:?}"),
        }
    }
});
