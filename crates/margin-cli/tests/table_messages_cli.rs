//! What the CLI says about tables and CSV files at the data door: labels exact or refused
//! (naming the column, the value and the way out), dictionary-encoded labels read, columns that
//! hold no numbers named once on stderr when skipped and refused when named, a CSV header that
//! names two columns alike refused, a table's sparse indices listed zero-based; and corrupt or
//! forged Parquet and Arrow files refused with exit code 2 under an address-space limit, never
//! an abort, a panic or an internal error.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, Date32Array, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use common::{fails_with, margin, root, s, stdout};

fn parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    margin_io::table::write_parquet(path, &batch).unwrap();
}

fn floats(v: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(v.to_vec()))
}

#[test]
fn an_int64_label_above_2_53_is_refused_and_exact_ones_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.parquet");
    parquet(
        &big,
        vec![
            ("x", floats(&[1.0, 2.0, 3.0])),
            (
                "id",
                Arc::new(Int64Array::from(vec![1 << 53, (1 << 53) + 1, 1 << 53])),
            ),
        ],
    );
    // Read as f64 they were "1 distinct".
    for command in ["info", "scale"] {
        fails_with(
            &[command, s(&big)],
            2,
            "column `id`, row 1: label 9007199254740993 has no exact f64",
        );
    }
    fails_with(&["info", s(&big)], 2, "cast the label column to string");
    let exact = dir.path().join("exact.parquet");
    parquet(
        &exact,
        vec![
            ("x", floats(&[1.0, 2.0, 3.0])),
            (
                "id",
                Arc::new(Int64Array::from(vec![1 << 60, (1 << 60) + 256, 1 << 60])),
            ),
        ],
    );
    let info = stdout(&margin(&["info", s(&exact)]));
    assert!(info.contains("integer labels, 2 distinct"), "{info}");
}

#[test]
fn a_csv_label_above_2_53_is_refused_naming_line_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("ids.csv");
    std::fs::write(&csv, "x,id\n1,9007199254740992\n2,9007199254740993\n").unwrap();
    fails_with(
        &["info", s(&csv)],
        2,
        "parse error at line 3, column 2: label `9007199254740993` has no exact f64",
    );
    fails_with(&["info", s(&csv)], 2, "write such labels as text");
}

#[test]
fn dictionary_encoded_integer_labels_are_read_as_dictionary_text_is() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Int32Array::from(vec![0, 1, 1, 0]);
    let ints: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys.clone(), Arc::new(Int64Array::from(vec![3, 7]))).unwrap();
    let texts: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys, Arc::new(StringArray::from(vec!["a", "b"]))).unwrap();
    let x = floats(&[0.5, 1.0, 1.5, 2.0]);
    for (name, label, want) in [
        (
            "ints",
            Arc::new(ints) as ArrayRef,
            "integer labels, 2 distinct",
        ),
        (
            "texts",
            Arc::new(texts) as ArrayRef,
            "text labels, 2 distinct",
        ),
    ] {
        let path = dir.path().join(format!("{name}.arrow"));
        let batch = RecordBatch::try_from_iter([("x", x.clone()), ("y", label)]).unwrap();
        margin_io::table::write_arrow_ipc(&path, &batch).unwrap();
        let info = stdout(&margin(&["info", s(&path)]));
        assert!(info.contains(want), "{name}: {info}");
    }
}

#[test]
fn columns_without_numbers_are_named_once_on_stderr_or_refused_when_named() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("mixed.parquet");
    parquet(
        &table,
        vec![
            (
                "note",
                Arc::new(StringArray::from(vec!["a", "b", "c", "d"])),
            ),
            ("x", floats(&[0.0, 1.0, 0.5, 1.5])),
            ("when", Arc::new(Date32Array::from(vec![1, 2, 3, 4]))),
            ("y", Arc::new(Int32Array::from(vec![0, 1, 0, 1]))),
        ],
    );
    let model = dir.path().join("m.margin");
    for args in [
        vec!["info", s(&table)],
        vec!["train", "logistic", s(&table), "-o", s(&model)],
    ] {
        let o = margin(&args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{args:?}: {err}");
        let note = "columns skipped, holding no numbers: `note` (Utf8), `when` (Date32)";
        assert_eq!(err.matches(note).count(), 1, "{args:?}: {err}");
        assert!(err.contains("--features"), "{err}");
    }
    // Named features read what was named and say nothing; a named text column is refused.
    let o = margin(&["info", s(&table), "--features=x"]);
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("skipped"));
    fails_with(
        &["info", s(&table), "--features=x,note", "--label", "y"],
        2,
        "column `note`: holds Utf8; a feature column holds numbers",
    );
}

#[test]
fn a_csv_header_naming_two_columns_alike_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("dup.csv");
    std::fs::write(&csv, "x,x,y\n1,2,0\n3,4,1\n").unwrap();
    for command in ["info", "scale"] {
        fails_with(
            &[command, s(&csv)],
            2,
            "the header names two columns `x` (fields 1 and 2): rename one",
        );
    }
}

#[test]
fn a_tables_sparse_indices_are_listed_zero_based() {
    let dir = tempfile::tempdir().unwrap();
    let libsvm = dir.path().join("sparse.txt");
    std::fs::write(&libsvm, "1 1:0.5 4:2\n-1 2:1\n").unwrap();
    let data = margin_io::read_data(&libsvm, margin_io::DataFormat::Auto).unwrap();
    let table = dir.path().join("sparse.parquet");
    let batch = margin_io::table::batch_from_dataset(&data).unwrap();
    margin_io::table::write_parquet(&table, &batch).unwrap();
    // LIBSVM's index 4 is the table's index 3: each is listed as its file numbers it.
    let text = stdout(&margin(&["info", s(&libsvm), "--features"]));
    assert!(text.contains("  4: [0, 2]"), "{text}");
    let info = stdout(&margin(&["info", s(&table), "--features"]));
    assert!(
        info.contains("zero-based index") && info.contains("  3: [0, 2]"),
        "{info}"
    );
    assert!(!info.contains("  4: "), "{info}");
}

// ---- Corrupt and forged tables, under an address-space limit -----------------------------

/// `margin ARGS` under `prlimit --as=1000000000` and `timeout 120`; `None` where either is
/// missing (said on stdout).
fn limited(args: &[&str]) -> Option<Output> {
    for tool in ["prlimit", "timeout"] {
        if Command::new(tool).arg("--version").output().is_err() {
            println!("skipped: `{tool}` is not installed");
            return None;
        }
    }
    Some(
        Command::new("prlimit")
            .args(["--as=1000000000", "--", "timeout", "120"])
            .arg(env!("CARGO_BIN_EXE_margin"))
            .args(args)
            .current_dir(root())
            .output()
            .expect("prlimit runs"),
    )
}

/// Exit code 0 or 2 and no trace of a crash; with `needle`, exit code 2 and it on stderr.
fn ends_well(o: &Output, what: &str, needle: Option<&str>) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0 | 2)),
        "{what}: ended with {} (an abort is 134, a panic 101, the timeout 124): {err}",
        o.status
    );
    for crash in [
        "panicked",
        "internal error",
        "memory allocation",
        "RUST_BACKTRACE",
    ] {
        assert!(!err.contains(crash), "{what}: {err}");
    }
    if let Some(needle) = needle {
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(needle), "{what}: {err}");
    }
}

/// Five rows of heart_scale's first columns, with a text label, as an Arrow IPC file
/// compressed with `codec`.
fn small_arrow(path: &Path, codec: Option<arrow_ipc::CompressionType>) {
    let batch = RecordBatch::try_from_iter([
        ("a", floats(&[0.1, 0.2, 0.3, 0.4, 0.5])),
        (
            "b",
            Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
        ),
        (
            "kind",
            Arc::new(StringArray::from(vec!["u", "v", "u", "v", "u"])),
        ),
    ])
    .unwrap();
    let options = arrow_ipc::writer::IpcWriteOptions::default()
        .try_with_compression(codec)
        .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut w = arrow_ipc::writer::FileWriter::try_new_with_options(file, &batch.schema(), options)
        .unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
}

/// The byte where the footer's first record batch block starts, and the block.
fn first_block(bytes: &[u8]) -> (usize, i64, i32) {
    let n = bytes.len();
    let footer_len = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    let start = n - 10 - footer_len;
    let footer = arrow_ipc::root_as_footer(&bytes[start..n - 10]).unwrap();
    let block = footer.recordBatches().unwrap().get(0);
    let mut pattern = block.offset().to_le_bytes().to_vec();
    pattern.extend(block.metaDataLength().to_le_bytes());
    let at = start
        + bytes[start..]
            .windows(pattern.len())
            .position(|w| w == pattern)
            .unwrap();
    (at, block.offset(), block.metaDataLength())
}

fn forged(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn forged_lengths_in_arrow_and_parquet_files_are_refused_not_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = d.join("plain.arrow");
    small_arrow(&plain, None);
    let bytes = std::fs::read(&plain).unwrap();
    // The footer's block claims 7·10^16 bytes of data.
    let (at, _, _) = first_block(&bytes);
    let mut block = bytes.clone();
    block[at + 16..at + 24].copy_from_slice(&70_000_000_000_000_000i64.to_le_bytes());
    // The footer claims more bytes than the file holds.
    let mut footer = bytes.clone();
    let n = footer.len();
    footer[n - 10..n - 6].copy_from_slice(&i32::MAX.to_le_bytes());
    let mut cases = vec![
        (forged(d, "block.arrow", &block), "outside the file's data"),
        (
            forged(d, "footer.arrow", &footer),
            "footer claims 2147483647 bytes",
        ),
    ];
    // A compressed buffer claims 10^12 bytes once decompressed.
    for (name, codec) in [
        ("lz4.arrow", arrow_ipc::CompressionType::LZ4_FRAME),
        ("zstd.arrow", arrow_ipc::CompressionType::ZSTD),
    ] {
        let path = d.join(name);
        small_arrow(&path, Some(codec));
        let mut bytes = std::fs::read(&path).unwrap();
        let (_, offset, meta) = first_block(&bytes);
        let (offset, meta) = (offset as usize, meta as usize);
        let message = arrow_ipc::root_as_message(&bytes[offset + 8..offset + meta]).unwrap();
        let buffer = message
            .header_as_record_batch()
            .unwrap()
            .buffers()
            .unwrap()
            .iter()
            .find(|b| b.length() >= 8)
            .unwrap();
        let at = offset + meta + buffer.offset() as usize;
        bytes[at..at + 8].copy_from_slice(&1_000_000_000_000i64.to_le_bytes());
        cases.push((forged(d, name, &bytes), "can expand to"));
    }
    // A Parquet footer longer than the file.
    let table = d.join("t.parquet");
    parquet(
        &table,
        vec![("x", floats(&[1.0, 2.0])), ("y", floats(&[0.0, 1.0]))],
    );
    let mut bytes = std::fs::read(&table).unwrap();
    let n = bytes.len();
    bytes[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push((
        forged(d, "footer.parquet", &bytes),
        "footer claims 4294967295 bytes",
    ));
    for (path, needle) in &cases {
        for command in ["info", "scale"] {
            let Some(o) = limited(&[command, s(path)]) else {
                return;
            };
            ends_well(&o, &format!("{command} {}", path.display()), Some(needle));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(s(path)), "the refusal names the file: {err}");
        }
    }
}

#[test]
fn flipped_bytes_in_small_tables_end_with_exit_code_0_or_2_under_a_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arrow = d.join("a.arrow");
    small_arrow(&arrow, Some(arrow_ipc::CompressionType::LZ4_FRAME));
    let table = d.join("t.parquet");
    parquet(
        &table,
        vec![
            ("x", floats(&[1.0, 2.0, 3.0])),
            ("y", Arc::new(StringArray::from(vec!["a", "b", "a"]))),
        ],
    );
    // Every byte of the files' last 64 (footers, where lengths are) and every 16th before:
    // the library's tests flip every byte in one process; here each case is a whole run.
    for file in [&arrow, &table] {
        let bytes = std::fs::read(file).unwrap();
        let n = bytes.len();
        let positions = (0..n).filter(|&i| i + 64 >= n || i % 16 == 0);
        for at in positions {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xff;
            let path = forged(d, "flipped", &flipped);
            let Some(o) = limited(&["info", s(&path)]) else {
                return;
            };
            ends_well(&o, &format!("{} byte {at}", file.display()), None);
        }
    }
}
