//! Inputs that can be read only once (a pipe, a FIFO) read as the same file on disk does, in
//! every format: the bytes read to decide the format are handed to the reader, never read
//! again from the stream. Each read runs on a thread with a bound on its wait, so an input
//! opened twice (which blocks forever on a FIFO) fails the test instead of hanging it.
#![cfg(unix)]

use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use margin_core::Dataset;
use margin_io::{DataFormat, DataInput, TableColumns};

/// The longest a read may wait (a debug build on a loaded two-core machine reads these small
/// inputs in well under a second; only a read that blocks forever reaches this).
const BOUND: Duration = Duration::from_secs(120);

const HEART: &[u8] = include_bytes!("../datasets/heart_scale");

/// Reads `path` on a thread; fails the test if the read has not ended within [`BOUND`].
fn read_bounded(path: PathBuf, format: DataFormat) -> margin_core::Result<Dataset> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let read = DataInput::open(&path).and_then(|i| i.read(format, &TableColumns::default()));
        tx.send(read.map(|r| r.data)).ok();
    });
    rx.recv_timeout(BOUND)
        .expect("the read did not end: was the input opened twice?")
}

/// A FIFO at `dir/name` fed `bytes` by a writer thread (one byte per write when `trickle`, as a
/// slow producer delivers them).
fn fifo(dir: &Path, name: &str, bytes: Vec<u8>, trickle: bool) -> PathBuf {
    let path = dir.join(name);
    let made = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let writer = path.clone();
    std::thread::spawn(move || {
        // Opening blocks until the reader opens; a reader that never opens leaves this thread
        // waiting, which the test's end ends.
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer) {
            if trickle {
                for b in bytes {
                    if f.write_all(&[b]).is_err() {
                        return;
                    }
                }
            } else {
                f.write_all(&bytes).ok();
            }
        }
    });
    path
}

/// `bytes` read through a real pipe (`cat`'s output, opened as `/dev/fd/N`, as a shell's
/// process substitution passes it).
fn through_pipe(bytes: Vec<u8>, format: DataFormat) -> margin_core::Result<Dataset> {
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat runs");
    let mut stdin = cat.stdin.take().expect("piped stdin");
    std::thread::spawn(move || stdin.write_all(&bytes).ok());
    let out = cat.stdout.take().expect("piped stdout");
    let path = PathBuf::from(format!("/dev/fd/{}", out.as_raw_fd()));
    let read = read_bounded(path, format);
    drop(out);
    cat.wait().ok();
    read
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A small table: two number columns and a text label.
#[cfg(feature = "parquet")]
fn table() -> arrow_array::RecordBatch {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;

    RecordBatch::try_from_iter([
        (
            "a",
            Arc::new(Float64Array::from(vec![0.5, -1.0, 2.0])) as ArrayRef,
        ),
        ("b", Arc::new(Int64Array::from(vec![1, 2, 3]))),
        ("kind", Arc::new(StringArray::from(vec!["x", "y", "x"]))),
    ])
    .unwrap()
}

#[cfg(feature = "parquet")]
fn parquet_bytes(b: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, b.schema(), None).unwrap();
    w.write(b).unwrap();
    w.close().unwrap();
    out
}

#[cfg(feature = "parquet")]
fn arrow_bytes(b: &arrow_array::RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::FileWriter::try_new(&mut out, &b.schema()).unwrap();
    w.write(b).unwrap();
    w.finish().unwrap();
    drop(w);
    out
}

/// Every format: its name for messages, its bytes, and a file name that does not give the
/// format away (so it is sniffed from the bytes, as from a pipe).
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let csv = b"a,b,kind\n0.5,1,x\n-1,2,y\n2,3,x\n".to_vec();
    #[allow(unused_mut)] // without the `parquet` feature, only text
    let mut inputs = vec![
        ("libsvm", HEART.to_vec()),
        ("libsvm.gz", gzip(HEART)),
        ("csv", csv.clone()),
        ("csv.gz", gzip(&csv)),
    ];
    #[cfg(feature = "parquet")]
    inputs.extend([
        ("parquet", parquet_bytes(&table())),
        ("arrow", arrow_bytes(&table())),
    ]);
    inputs
}

#[test]
fn every_format_reads_from_a_fifo_as_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    for (k, (name, bytes)) in inputs().into_iter().enumerate() {
        let file = dir.path().join(format!("file{k}"));
        std::fs::write(&file, &bytes).unwrap();
        let want = margin_io::read_data(&file, DataFormat::Auto).unwrap();
        assert!(want.n_samples() > 0, "{name}");
        for trickle in [false, true] {
            let path = fifo(
                dir.path(),
                &format!("fifo{k}-{trickle}"),
                bytes.clone(),
                trickle,
            );
            let got = read_bounded(path, DataFormat::Auto)
                .unwrap_or_else(|e| panic!("{name} (trickle {trickle}): {e}"));
            assert_eq!(got, want, "{name} (trickle {trickle})");
        }
    }
}

#[test]
fn every_format_reads_from_a_pipe_as_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    for (k, (name, bytes)) in inputs().into_iter().enumerate() {
        let file = dir.path().join(format!("file{k}"));
        std::fs::write(&file, &bytes).unwrap();
        let want = margin_io::read_data(&file, DataFormat::Auto).unwrap();
        let got = through_pipe(bytes, DataFormat::Auto).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_forced_format_and_a_format_asked_first_read_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = fifo(dir.path(), "heart", HEART.to_vec(), false);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let read = DataInput::open(&path).and_then(|mut input| {
            // Asked twice: the second answer comes from what was kept.
            let first = input.format(DataFormat::Auto)?;
            let again = input.format(DataFormat::Auto)?;
            let head = input.head(3)?.to_vec();
            let data = input.read(DataFormat::Libsvm, &TableColumns::default())?;
            Ok((first, again, head, data.data.n_samples()))
        });
        tx.send(read).ok();
    });
    let (first, again, head, rows) = rx.recv_timeout(BOUND).expect("the read ended").unwrap();
    assert_eq!((first, again), (DataFormat::Libsvm, DataFormat::Libsvm));
    assert_eq!(head, HEART[..3]);
    assert_eq!(rows, 270);
}
