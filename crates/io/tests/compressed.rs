//! Compressed data files (.gz, .bz2, as LIBSVM's data sets are distributed) read exactly as the
//! plain text, recognised by content whatever their names.

use std::io::Write;

use margin_io::{DataFormat, LibsvmOptions, read_data, read_libsvm};

const HEART: &[u8] = include_bytes!("../datasets/heart_scale");

#[test]
fn gzip_and_bzip2_files_read_like_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("heart");
    std::fs::write(&plain, HEART).unwrap();
    let gz = dir.path().join("heart.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(HEART).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let bz = dir.path().join("heart.data");
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    enc.write_all(HEART).unwrap();
    std::fs::write(&bz, enc.finish().unwrap()).unwrap();
    let want = read_libsvm(&plain, &LibsvmOptions::default()).unwrap();
    for path in [&gz, &bz] {
        assert_eq!(
            read_libsvm(path, &LibsvmOptions::default()).unwrap(),
            want,
            "{}",
            path.display()
        );
        assert_eq!(
            read_data(path, DataFormat::Auto).unwrap(),
            want,
            "{}",
            path.display()
        );
    }
    let truncated = dir.path().join("cut.gz");
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    match read_libsvm(&truncated, &LibsvmOptions::default()) {
        Err(margin_core::Error::Io { path, source }) => {
            assert_eq!(path, truncated);
            assert!(
                source
                    .to_string()
                    .contains("gzip data is truncated or corrupt"),
                "{source}"
            );
        }
        other => panic!("{other:?}"),
    }
}
