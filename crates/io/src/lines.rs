//! Reading untrusted text one bounded line at a time.

use std::io::BufRead;

use margin_core::{Error, Result, memory};

/// The longest line (for CSV, the longest record) the readers accept: 64 MiB.
///
/// Real data lines are far shorter: the widest dense sets of the LIBSVM collection (epsilon with
/// 2,000 features, gisette with 5,000) write 30–60 KB a line, and even a dense row of two million
/// features written at full precision (`1999999:-0.12345678901234567 `, about 31 bytes each) is
/// 62 MB. A longer line is not a row anyone keeps as text: it is a binary file, a file without
/// line breaks, or an endless stream (`/dev/zero`, a decompression bomb), and it is refused after
/// 64 MiB have been read instead of filling memory.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Reads the next line of `reader` into `buf` (cleared first), with its `\n` if it has one.
/// Returns `false` at the end of the input.
///
/// A line longer than [`MAX_LINE_BYTES`] is a parse error at `line_no` (the one-based number of
/// the line being read); the buffer grows through [`memory`].
pub fn read_line<R: BufRead + ?Sized>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    line_no: usize,
) -> Result<bool> {
    buf.clear();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("<input>", e)),
        };
        if chunk.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(p) => (p + 1, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take > MAX_LINE_BYTES {
            return Err(line_too_long(line_no));
        }
        append(buf, &chunk[..take], "a line of the input")?;
        reader.consume(take);
        if done {
            return Ok(true);
        }
    }
}

/// The error for a line (or CSV record) longer than [`MAX_LINE_BYTES`].
pub(crate) fn line_too_long(line_no: usize) -> Error {
    Error::parse(
        line_no,
        MAX_LINE_BYTES + 1,
        format!(
            "line longer than {} ({MAX_LINE_BYTES} bytes), the longest line margin reads: is this a text data file? (binary data, a file without line breaks and endless streams are not)",
            memory::human_bytes(MAX_LINE_BYTES as u64)
        ),
    )
}

/// Appends `bytes` to `buf`, doubling its capacity through [`memory::reserve`] when it is full
/// (so appending is amortised constant time and running out is an error).
pub(crate) fn append(buf: &mut Vec<u8>, bytes: &[u8], what: &str) -> Result<()> {
    if buf.capacity() - buf.len() < bytes.len() {
        let additional = bytes.len().max(buf.len()).max(64);
        memory::reserve(buf, additional, what, memory::SMALLER_INPUT)?;
    }
    buf.extend_from_slice(bytes);
    Ok(())
}

/// A parse error on a line that is not text at all says what the file most likely is instead
/// (a margin model file, a binary file); other errors are returned unchanged.
pub(crate) fn explain_binary(e: Error, line: &[u8]) -> Error {
    let Error::Parse {
        line: at, column, ..
    } = e
    else {
        return e;
    };
    if line.starts_with(b"MARGINMF") {
        Error::parse(
            at,
            column,
            "this is a margin model file, not a data file: give it to `margin predict` (or `transform`, `tree-export`) as the model",
        )
    } else if line.contains(&0) || std::str::from_utf8(line).is_err() {
        Error::parse(
            at,
            column,
            "this line holds binary bytes (NUL or invalid UTF-8), not text: is this a text data file?",
        )
    } else {
        e
    }
}
