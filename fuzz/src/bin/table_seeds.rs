//! Writes the seed corpus of the `table` fuzz target: small sound Parquet files (Snappy,
//! uncompressed, ZSTD; dictionary-encoded text labels, a null, a sparse list column) and Arrow
//! IPC files (uncompressed, LZ4, ZSTD), each prefixed with the byte that picks its reader (even:
//! Parquet, odd: Arrow IPC), into the directory given (default `fuzz/corpus/table`).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_ipc::CompressionType;
use arrow_ipc::writer::{FileWriter, IpcWriteOptions};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

fn dense() -> RecordBatch {
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
    .expect("a sound batch")
}

/// heart_scale's first rows as a sparse `List<Struct<index, value>>` column and a label.
fn sparse() -> RecordBatch {
    let text = "+1 1:0.7 3:1 7:-0.5\n-1 2:1 5:0.25\n+1 13:-1\n";
    let data = margin_io::read_libsvm_from(text.as_bytes(), &Default::default())
        .expect("sound LIBSVM text");
    margin_io::table::batch_from_dataset(&data).expect("a batch")
}

fn parquet(batch: &RecordBatch, compression: Compression) -> Vec<u8> {
    let props = WriterProperties::builder()
        .set_compression(compression)
        .build();
    let mut out = vec![0];
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).expect("a writer");
    w.write(batch).expect("written");
    w.close().expect("closed");
    out
}

fn arrow(batch: &RecordBatch, compression: Option<CompressionType>) -> Vec<u8> {
    let options = IpcWriteOptions::default()
        .try_with_compression(compression)
        .expect("a codec this build has");
    let mut out = vec![1];
    {
        let mut w =
            FileWriter::try_new_with_options(&mut out, &batch.schema(), options).expect("a writer");
        w.write(batch).expect("written");
        w.finish().expect("finished");
    }
    out
}

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("fuzz/corpus/table"), PathBuf::from);
    std::fs::create_dir_all(&dir)?;
    let zstd = Compression::ZSTD(ZstdLevel::default());
    let mut seeds = Vec::new();
    for (name, batch) in [("dense", dense()), ("sparse", sparse())] {
        for (codec, c) in [
            ("snappy", Compression::SNAPPY),
            ("plain", Compression::UNCOMPRESSED),
            ("zstd", zstd),
        ] {
            seeds.push((format!("{name}-{codec}.parquet"), parquet(&batch, c)));
        }
        for (codec, c) in [
            ("plain", None),
            ("lz4", Some(CompressionType::LZ4_FRAME)),
            ("zstd", Some(CompressionType::ZSTD)),
        ] {
            seeds.push((format!("{name}-{codec}.arrow"), arrow(&batch, c)));
        }
    }
    for (name, bytes) in &seeds {
        std::fs::write(dir.join(name), bytes)?;
    }
    println!("{} seeds in {}", seeds.len(), dir.display());
    Ok(())
}
