//! Endless or oversized input (`/dev/zero`, a line that never ends, a gzip bomb, a quote that
//! is never closed) fails with a parse error after at most one line's worth of reading, never
//! by filling memory. The streams are generated here; nothing large is stored on disk.

use std::cell::Cell;
use std::io::{BufReader, Read, Write};
use std::rc::Rc;

use margin_core::Error;

use crate::common::parse_error;
use margin_io::{
    CsvOptions, DataFormat, LibsvmOptions, MAX_LINE_BYTES, read_csv_from, read_data,
    read_libsvm_from, read_line, resolve_format,
};

/// `prefix`, then `fill` repeated forever; counts the bytes handed out.
struct Endless {
    prefix: Vec<u8>,
    fill: Vec<u8>,
    at: usize,
    given: Rc<Cell<u64>>,
}

impl Endless {
    fn new(prefix: &[u8], fill: &[u8]) -> (Self, Rc<Cell<u64>>) {
        let given = Rc::new(Cell::new(0));
        let s = Endless {
            prefix: prefix.to_vec(),
            fill: fill.to_vec(),
            at: 0,
            given: Rc::clone(&given),
        };
        (s, given)
    }
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        for b in buf.iter_mut() {
            *b = match self.prefix.get(self.at) {
                Some(&p) => p,
                None => self.fill[(self.at - self.prefix.len()) % self.fill.len()],
            };
            self.at += 1;
        }
        self.given.set(self.given.get() + buf.len() as u64);
        Ok(buf.len())
    }
}

/// The error is a parse error at `line` naming the limit, and reading stopped soon after it.
fn assert_refused_at(r: Result<impl std::fmt::Debug, Error>, line: usize, given: u64) {
    let (l, _, message) = parse_error(r, &format!("expected a parse error at line {line}, got"));
    assert_eq!(l, line, "{message}");
    assert!(
        message.contains("64.0 MiB") || message.contains("64 MiB"),
        "{message}"
    );
    let limit = MAX_LINE_BYTES as u64;
    assert!(
        given <= 2 * limit,
        "read {given} bytes for a {limit}-byte limit"
    );
}

#[test]
fn dev_zero_is_one_line_too_long_for_both_readers() {
    let (zeros, given) = Endless::new(b"", b"\0");
    let r = read_libsvm_from(BufReader::new(zeros), &LibsvmOptions::default());
    assert_refused_at(r, 1, given.get());
    let (zeros, given) = Endless::new(b"", b"\0");
    let r = read_csv_from(zeros, &CsvOptions::default());
    assert_refused_at(r, 1, given.get());
}

#[test]
fn an_endless_line_after_good_ones_is_refused_at_its_number() {
    let (s, given) = Endless::new(b"1 1:1\n-1 2:3\n", b"1:1 ");
    let r = read_libsvm_from(BufReader::new(s), &LibsvmOptions::default());
    assert_refused_at(r, 3, given.get());
    let (s, given) = Endless::new(b"a,b,y\n1,2,0\n", b"1,");
    let r = read_csv_from(s, &CsvOptions::default());
    assert_refused_at(r, 3, given.get());
}

#[test]
fn a_line_at_the_limit_is_read_and_one_byte_more_is_not() {
    let mut line = vec![b' '; MAX_LINE_BYTES - 1];
    line.push(b'\n');
    let mut buf = Vec::new();
    let mut input = &line[..];
    assert!(read_line(&mut input, &mut buf, 1).unwrap());
    assert_eq!(buf.len(), MAX_LINE_BYTES);
    line.insert(0, b' ');
    let mut input = &line[..];
    assert!(matches!(
        read_line(&mut input, &mut buf, 7),
        Err(Error::Parse { line: 7, .. })
    ));
}

#[test]
fn a_quote_that_never_closes_is_refused_where_it_opened() {
    let (s, given) = Endless::new(b"a,b,y\n1,2,0\n3,\"4", b"x,5\n");
    let (line, column, message) = parse_error(
        read_csv_from(s, &CsvOptions::default()),
        "an unclosed quote was accepted",
    );
    assert_eq!((line, column), (3, 2), "{message}");
    assert!(message.contains("closing quote"), "{message}");
    assert!(given.get() <= 2 * MAX_LINE_BYTES as u64);
}

/// 1.5 GB of zeros as concatenated gzip members of 16 MiB each (about 1.5 MB on disk).
fn gzip_bomb(dir: &std::path::Path) -> std::path::PathBuf {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![0u8; 16 << 20]).unwrap();
    let member = enc.finish().unwrap();
    let path = dir.join("bomb.gz");
    let mut f = std::fs::File::create(&path).unwrap();
    for _ in 0..90 {
        f.write_all(&member).unwrap();
    }
    path
}

#[test]
fn a_gzip_bomb_is_refused_after_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = gzip_bomb(dir.path());
    assert!(std::fs::metadata(&bomb).unwrap().len() < 4 << 20);
    for format in [DataFormat::Auto, DataFormat::Libsvm, DataFormat::Csv] {
        let (line, _, message) = parse_error(read_data(&bomb, format), &format!("{format:?}"));
        assert_eq!(line, 1, "{message}");
        assert!(message.contains("text data file"), "{message}");
    }
    assert!(matches!(
        resolve_format(&bomb, DataFormat::Auto),
        Err(Error::Parse { line: 1, .. })
    ));
}
