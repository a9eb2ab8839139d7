//! Corrupt Parquet and Arrow IPC files are refused with a typed error or read, never a panic or
//! an abort. The arrow and parquet crates allocate the lengths a file claims (a page's
//! uncompressed size, a dictionary's value count, a block's body length, a compressed buffer's
//! decompressed length) before checking them; a failed allocation aborts the process, so
//! margin-io checks those claims first. The forgeries below are refused by those checks (their
//! messages say so), and a sweep flips every byte of small files. Each test runs in a child
//! process of this binary under an address-space limit (`prlimit --as=1000000000`, as the
//! CLI's memory tests run): a claim that slipped through would abort there (failing the test)
//! rather than succeed on a machine with memory to spare.
#![cfg(feature = "parquet")]

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_ipc::CompressionType;
use arrow_ipc::writer::IpcWriteOptions;
use margin_core::Error;
use margin_io::TableColumns;
use margin_io::table::{read_arrow_ipc_bytes, read_parquet_bytes};
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::WriterProperties;

/// Five rows: an integer and a float feature (one null), a text label.
fn rows() -> RecordBatch {
    RecordBatch::try_from_iter([
        (
            "n",
            Arc::new(Int64Array::from(vec![1, 2, 3, 2, 1])) as ArrayRef,
        ),
        (
            "x",
            Arc::new(Float64Array::from(vec![
                Some(0.5),
                None,
                Some(-1.0),
                Some(2.0),
                Some(0.5),
            ])),
        ),
        (
            "kind",
            Arc::new(StringArray::from(vec!["a", "b", "a", "c", "b"])),
        ),
    ])
    .unwrap()
}

fn parquet(compression: Compression) -> Vec<u8> {
    let props = WriterProperties::builder()
        .set_compression(compression)
        .build();
    let b = rows();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, b.schema(), Some(props)).unwrap();
    w.write(&b).unwrap();
    w.close().unwrap();
    out
}

fn arrow(compression: Option<CompressionType>) -> Vec<u8> {
    let b = rows();
    let options = IpcWriteOptions::default()
        .try_with_compression(compression)
        .unwrap();
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::FileWriter::try_new_with_options(&mut out, &b.schema(), options)
        .unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    drop(w);
    out
}

/// Reads a Parquet file with nulls as NaN (the rows hold one).
fn read_parquet(bytes: Vec<u8>) -> margin_core::Result<margin_core::Dataset> {
    read_parquet_bytes(bytes, &nan_columns())
}

fn read_arrow(bytes: Vec<u8>) -> margin_core::Result<margin_core::Dataset> {
    read_arrow_ipc_bytes(bytes, &nan_columns())
}

fn nan_columns() -> TableColumns {
    TableColumns {
        nulls: margin_io::Nulls::AsNan,
        ..TableColumns::default()
    }
}

/// The message of an error that must be the file's refusal.
fn refusal(r: margin_core::Result<margin_core::Dataset>) -> String {
    match r {
        Err(Error::Io { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::InvalidData, "{source}");
            source.to_string()
        }
        other => panic!("expected the file to be refused, got {other:?}"),
    }
}

#[test]
fn the_sound_files_read() {
    for compression in [Compression::SNAPPY, Compression::UNCOMPRESSED] {
        let d = read_parquet(parquet(compression)).unwrap();
        assert_eq!((d.n_samples(), d.n_features()), (5, 2));
    }
    for compression in [
        None,
        Some(CompressionType::LZ4_FRAME),
        Some(CompressionType::ZSTD),
    ] {
        let d = read_arrow(arrow(compression)).unwrap();
        assert_eq!((d.n_samples(), d.n_features()), (5, 2));
    }
}

// ---- Parquet forgeries -------------------------------------------------------------------

/// A compact-protocol varint at `at`: its value and length.
fn varint(bytes: &[u8], at: usize) -> (u64, usize) {
    let (mut v, mut k) = (0u64, 0);
    loop {
        let b = bytes[at + k];
        v |= u64::from(b & 0x7f) << (7 * k);
        k += 1;
        if b & 0x80 == 0 {
            return (v, k);
        }
    }
}

fn encode(v: i32) -> Vec<u8> {
    let mut z = ((v << 1) ^ (v >> 31)) as u32;
    let mut out = Vec::new();
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
    out
}

fn unzigzag(v: u64) -> i32 {
    ((v >> 1) as i64 ^ -((v & 1) as i64)) as i32
}

/// Where the first page of the first column starts.
fn first_page(bytes: &[u8]) -> usize {
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&bytes::Bytes::from(bytes.to_vec()))
        .unwrap();
    let chunk = meta.row_group(0).column(0);
    chunk
        .dictionary_page_offset()
        .unwrap_or(chunk.data_page_offset()) as usize
}

/// The page header at `at`, as the arrow writer lays it out: fields 1 to 3 (type,
/// uncompressed size, compressed size), each an i32 one field after the other. Returns each
/// value's position and length, and the values.
fn sizes(bytes: &[u8], at: usize) -> [(usize, usize, i32); 3] {
    let mut pos = at;
    let mut out = [(0, 0, 0); 3];
    for slot in &mut out {
        assert_eq!(bytes[pos], 0x15, "a page header field 1, 2 or 3 (i32)");
        let (v, len) = varint(bytes, pos + 1);
        *slot = (pos + 1, len, unzigzag(v));
        pos += 1 + len;
    }
    out
}

/// The file with the value at `field` (position, length) of the page header at `page` set to
/// `value`; the page's compressed size (and with `shrink_uncompressed` its uncompressed size)
/// lowered by the bytes the new value adds, and as many bytes cut from the end of the page's
/// data, so every offset after the page stays where the footer says.
fn forge(
    bytes: &[u8],
    page: usize,
    field: (usize, usize),
    value: i32,
    shrink_uncompressed: bool,
) -> Vec<u8> {
    let [_, u, c] = sizes(bytes, page);
    let end = header_end(bytes, page);
    let new = encode(value);
    let grow = new.len() - field.1;
    let shrunk = |f: (usize, usize, i32)| {
        let e = encode(f.2 - grow as i32);
        assert_eq!(e.len(), f.1, "a size keeps its length when lowered");
        (f.0, f.1, e)
    };
    let mut edits = vec![(field.0, field.1, new), shrunk(c)];
    if shrink_uncompressed {
        edits.push(shrunk(u));
    }
    edits.sort_by_key(|e| e.0);
    let mut out = Vec::new();
    let mut at = 0;
    for (pos, len, new) in edits {
        out.extend(&bytes[at..pos]);
        out.extend(new);
        at = pos + len;
    }
    out.extend(&bytes[at..]);
    // The page's data, shifted by the longer header: its last `grow` bytes go.
    let data_end = end + c.2 as usize + grow;
    out.drain(data_end - grow..data_end);
    assert_eq!(out.len(), bytes.len());
    out
}

/// Where the page header at `at` ends: after its struct's stop byte, skipping the nested
/// header (a data or dictionary page header) that the arrow writer puts after field 3.
fn header_end(bytes: &[u8], at: usize) -> usize {
    let [.., c] = sizes(bytes, at);
    let mut pos = c.0 + c.1;
    // Any fields up to the end of the page header; nested structs of i32 fields and
    // statistics (binary fields), as the writer writes them.
    let mut depth = 1;
    while depth > 0 {
        let b = bytes[pos];
        pos += 1;
        if b == 0 {
            depth -= 1;
            continue;
        }
        match b & 0x0f {
            0x0c => depth += 1,
            0x05 | 0x06 => pos += varint(bytes, pos).1,
            0x08 => {
                let (n, len) = varint(bytes, pos);
                pos += len + n as usize;
            }
            0x01 | 0x02 => {}
            other => panic!("unexpected type {other} in a page header"),
        }
    }
    pos
}

#[test]
fn a_page_claiming_two_gigabytes_uncompressed_is_refused_before_it_is_allocated() {
    under_limit(
        "table_corruption::a_page_claiming_two_gigabytes_uncompressed_is_refused_before_it_is_allocated",
        || {
            let bytes = parquet(Compression::SNAPPY);
            let page = first_page(&bytes);
            let [_, u, _] = sizes(&bytes, page);
            let forged = forge(&bytes, page, (u.0, u.1), i32::MAX, false);
            assert_eq!(sizes(&forged, page)[1].2, i32::MAX);
            let e = refusal(read_parquet(forged));
            assert!(
                e.contains("claims 2147483647 bytes uncompressed") && e.contains("can expand to"),
                "{e}"
            );
        },
    );
}

#[test]
fn a_dictionary_claiming_more_values_than_its_bytes_hold_is_refused() {
    under_limit(
        "table_corruption::a_dictionary_claiming_more_values_than_its_bytes_hold_is_refused",
        || {
            // Uncompressed, so the dictionary's bytes reach the decoder as they are.
            let bytes = parquet(Compression::UNCOMPRESSED);
            let page = first_page(&bytes);
            let [kind, _, c] = sizes(&bytes, page);
            assert_eq!(kind.2, 2, "the first page is the dictionary");
            // Field 7 (a struct, four fields after field 3), then its field 1, the value count.
            let nested = c.0 + c.1;
            assert_eq!(bytes[nested..nested + 2], [0x4c, 0x15]);
            let (count, len) = varint(&bytes, nested + 2);
            assert!(unzigzag(count) > 0);
            let forged = forge(&bytes, page, (nested + 2, len), i32::MAX, true);
            let e = refusal(read_parquet(forged));
            assert!(
                e.contains("dictionary page") && e.contains("claims 2147483647 values"),
                "{e}"
            );
        },
    );
}

#[test]
fn a_footer_longer_than_the_file_is_refused() {
    under_limit(
        "table_corruption::a_footer_longer_than_the_file_is_refused",
        || {
            let mut bytes = parquet(Compression::SNAPPY);
            let n = bytes.len();
            bytes[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
            let e = refusal(read_parquet(bytes));
            assert!(e.contains("footer claims 4294967295 bytes"), "{e}");
        },
    );
}

// ---- Arrow IPC forgeries -----------------------------------------------------------------

/// The footer's first record batch block: where its three fields are in the file.
fn first_block(bytes: &[u8]) -> (usize, i64, i32, i64) {
    let n = bytes.len();
    let footer_len = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    let start = n - 10 - footer_len;
    let footer = arrow_ipc::root_as_footer(&bytes[start..n - 10]).unwrap();
    let block = footer.recordBatches().unwrap().get(0);
    // A Block struct: offset (i64), metadata length (i32), padding, body length (i64).
    let mut pattern = block.offset().to_le_bytes().to_vec();
    pattern.extend(block.metaDataLength().to_le_bytes());
    let at = start
        + bytes[start..]
            .windows(pattern.len())
            .position(|w| w == pattern)
            .expect("the block is in the footer");
    (
        at,
        block.offset(),
        block.metaDataLength(),
        block.bodyLength(),
    )
}

#[test]
fn a_block_past_the_end_of_the_file_is_refused_before_it_is_allocated() {
    under_limit(
        "table_corruption::a_block_past_the_end_of_the_file_is_refused_before_it_is_allocated",
        || {
            let mut bytes = arrow(None);
            let (at, ..) = first_block(&bytes);
            // The 7·10^16 bytes.
            bytes[at + 16..at + 24].copy_from_slice(&70_000_000_000_000_000i64.to_le_bytes());
            let e = refusal(read_arrow(bytes));
            assert!(
                e.contains("record batch 0") && e.contains("outside the file's data"),
                "{e}"
            );
        },
    );
}

#[test]
fn a_compressed_buffer_claiming_a_terabyte_is_refused_before_it_is_allocated() {
    under_limit(
        "table_corruption::a_compressed_buffer_claiming_a_terabyte_is_refused_before_it_is_allocated",
        || {
            for codec in [CompressionType::LZ4_FRAME, CompressionType::ZSTD] {
                let mut bytes = arrow(Some(codec));
                let (_, offset, meta, _) = first_block(&bytes);
                let (offset, meta) = (offset as usize, meta as usize);
                let message =
                    arrow_ipc::root_as_message(&bytes[offset + 8..offset + meta]).unwrap();
                let batch = message.header_as_record_batch().unwrap();
                let buffer = batch
                    .buffers()
                    .unwrap()
                    .iter()
                    .find(|b| b.length() >= 8)
                    .expect("a compressed buffer");
                let at = offset + meta + buffer.offset() as usize;
                bytes[at..at + 8].copy_from_slice(&1_000_000_000_000i64.to_le_bytes());
                let e = refusal(read_arrow(bytes));
                assert!(
                    e.contains("1000000000000 bytes once decompressed")
                        && e.contains("can expand to"),
                    "{codec:?}: {e}"
                );
            }
        },
    );
}

#[test]
fn an_arrow_footer_longer_than_the_file_is_refused() {
    under_limit(
        "table_corruption::an_arrow_footer_longer_than_the_file_is_refused",
        || {
            let mut bytes = arrow(None);
            let n = bytes.len();
            bytes[n - 10..n - 6].copy_from_slice(&i32::MAX.to_le_bytes());
            let e = refusal(read_arrow(bytes));
            assert!(e.contains("footer claims 2147483647 bytes"), "{e}");
        },
    );
}

// ---- Every byte flipped -------------------------------------------------------------------

/// Every byte of every small file flipped (all bits, then the lowest), each result a read or a
/// typed error (a panic escaping the reader fails the test; an abort kills the process).
/// Returns the number of cases.
fn sweep() -> usize {
    type Reader = fn(Vec<u8>) -> margin_core::Result<margin_core::Dataset>;
    let files: Vec<(&str, Reader, Vec<u8>)> = vec![
        (
            "parquet (snappy)",
            read_parquet,
            parquet(Compression::SNAPPY),
        ),
        (
            "parquet (plain)",
            read_parquet,
            parquet(Compression::UNCOMPRESSED),
        ),
        ("arrow", read_arrow, arrow(None)),
        (
            "arrow (lz4)",
            read_arrow,
            arrow(Some(CompressionType::LZ4_FRAME)),
        ),
        (
            "arrow (zstd)",
            read_arrow,
            arrow(Some(CompressionType::ZSTD)),
        ),
    ];
    let mut cases = 0;
    for (name, read, bytes) in files {
        for at in 0..bytes.len() {
            for mask in [0xff, 0x01] {
                let mut flipped = bytes.clone();
                flipped[at] ^= mask;
                // Said before the read: an abort leaves this as the last line.
                eprintln!("{name}: byte {at} ^ {mask:#04x}");
                match read(flipped) {
                    Ok(d) => assert!(d.check_consistent().is_ok(), "{name}: byte {at}"),
                    Err(e) => assert!(
                        !e.to_string().is_empty(),
                        "{name}: byte {at}: an error without a message"
                    ),
                }
                cases += 1;
            }
        }
    }
    cases
}

#[test]
fn every_flipped_byte_of_small_tables_is_refused_or_read() {
    under_limit(
        "table_corruption::every_flipped_byte_of_small_tables_is_refused_or_read",
        || assert!(sweep() > 10_000),
    );
}

// ---- Running a test under the memory limit -----------------------------------------------

/// Names the test a child process of this binary runs under the limit.
const CHILD: &str = "MARGIN_TABLE_CORRUPTION_CHILD";
/// The address-space limit (as the CLI's memory tests use): a claim of gigabytes that slipped
/// through would fail to allocate and abort, instead of succeeding on a large machine.
const LIMIT: &str = "--as=1000000000";
/// The longest a child may run (thousands of reads by a debug build on a loaded machine).
const BOUND: Duration = Duration::from_secs(1200);
/// What a child prints when its test body has returned.
const DONE: &str = "[under the limit: done]";

/// Runs `body`, the test named `name` (its path in this binary), in a child process of this
/// test binary under `prlimit --as=1000000000`: an abort there (134) fails the test here, as
/// does a failed assertion. Where prlimit is missing, runs it here (with a note).
fn under_limit(name: &str, body: impl FnOnce()) {
    if std::env::var(CHILD).is_ok_and(|child| child == name) {
        body();
        println!("{DONE}");
        return;
    }
    let prlimit = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !prlimit {
        println!("prlimit (util-linux) is missing: running without a memory limit");
        body();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("prlimit")
        .arg(LIMIT)
        .arg(&exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit starts");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            r.read_to_string(&mut text).ok();
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > BOUND {
            child.kill().ok();
            child.wait().ok();
            panic!("{name} did not end within {BOUND:?} under the limit");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let tail: Vec<&str> = err.lines().rev().take(20).collect();
    assert!(
        status.success() && out.contains(DONE),
        "{name} under `prlimit {LIMIT}` ended with {status}; its last lines:\n{}",
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    );
}
