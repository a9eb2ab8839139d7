//! Splitting CSV text into records, and keeping the rows read compactly, for
//! [`read_csv_from`](crate::read_csv_from).

use std::io::BufRead;

use crate::lines::append;
use crate::{MAX_LINE_BYTES, explain_binary, read_line};
use margin_core::{Error, Result, memory};

/// Where the record reader is within a record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between records: blank lines and `#` comment lines are skipped.
    StartRecord,
    StartField,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: `""` (a quote) or the closing quote.
    QuoteInQuoted,
}

/// Splits CSV text into records the way the `csv` crate does (RFC 4180; `\r`, `\n` and `\r\n`
/// end a record; blank lines and lines starting with `#` are skipped; text after a closing
/// quote belongs to the field), one bounded line at a time.
pub(super) struct RecordReader<R> {
    reader: R,
    delimiter: u8,
    /// The current physical line, its number and the next byte to read in it.
    line: Vec<u8>,
    line_no: usize,
    pos: usize,
    /// The record read last: its field bytes (untrimmed) and the end of each field.
    buf: Vec<u8>,
    ends: Vec<usize>,
}

impl<R: BufRead> RecordReader<R> {
    pub(super) fn new(reader: R, delimiter: u8) -> Self {
        Self {
            reader,
            delimiter,
            line: Vec::new(),
            line_no: 0,
            pos: 0,
            buf: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// Reads the next record; returns the line it starts on, or `None` at the end of the input.
    /// Its fields are then [`len`](Self::len) and [`field`](Self::field).
    pub(super) fn next_record(&mut self) -> Result<Option<usize>> {
        self.buf.clear();
        self.ends.clear();
        let mut state = State::StartRecord;
        let mut start = 0;
        // Where the quoted field being read opened: line and field number.
        let mut quote = (0, 0);
        loop {
            if self.pos == self.line.len() {
                self.pos = 0;
                if !read_line(&mut self.reader, &mut self.line, self.line_no + 1)? {
                    return match state {
                        State::StartRecord => Ok(None),
                        State::Quoted => Err(Error::parse(
                            quote.0,
                            quote.1,
                            "unterminated quote: the quoted field that opens here is never closed, so the rest of the file would be read as one field; close it (a quote inside a quoted field is written `\"\"`)",
                        )),
                        _ => {
                            self.end_field()?;
                            self.finish(start)
                        }
                    };
                }
                self.line_no += 1;
                if self.line_no == 1 {
                    if self.line.starts_with(b"MARGINMF") {
                        return Err(explain_binary(Error::parse(1, 1, ""), &self.line));
                    }
                    // A UTF-8 byte-order mark (as spreadsheets write) is not part of the data.
                    if self.line.starts_with(b"\xEF\xBB\xBF") {
                        self.pos = 3;
                    }
                }
                if state == State::Quoted && self.buf.len() + self.line.len() > MAX_LINE_BYTES {
                    return Err(Error::parse(
                        quote.0,
                        quote.1,
                        format!(
                            "the quoted field that opens here runs on for more than {}: is its closing quote missing?",
                            memory::human_bytes(MAX_LINE_BYTES as u64)
                        ),
                    ));
                }
                continue;
            }
            let b = self.line[self.pos];
            self.pos += 1;
            let terminator = b == b'\n' || b == b'\r';
            match state {
                State::StartRecord if terminator => {}
                State::StartRecord if b == b'#' => self.pos = self.line.len(),
                State::StartRecord => {
                    start = self.line_no;
                    state = State::StartField;
                    self.pos -= 1;
                }
                State::StartField if b == b'"' => {
                    state = State::Quoted;
                    quote = (self.line_no, self.ends.len() + 1);
                }
                State::StartField => {
                    state = State::Unquoted;
                    self.pos -= 1;
                }
                State::Unquoted if b == self.delimiter => {
                    self.end_field()?;
                    state = State::StartField;
                }
                State::Unquoted if terminator => {
                    self.end_field()?;
                    return self.finish(start);
                }
                State::Quoted if b == b'"' => state = State::QuoteInQuoted,
                State::QuoteInQuoted if b == b'"' => {
                    self.push(b'"')?;
                    state = State::Quoted;
                }
                State::QuoteInQuoted => {
                    state = State::Unquoted;
                    self.pos -= 1;
                }
                State::Unquoted | State::Quoted => {
                    // Copy the whole run of ordinary bytes at once.
                    let delimiter = self.delimiter;
                    let special = |c: u8| match state {
                        State::Quoted => c == b'"',
                        _ => c == delimiter || c == b'\n' || c == b'\r',
                    };
                    let rest = &self.line[self.pos - 1..];
                    let run = rest.iter().position(|&c| special(c)).unwrap_or(rest.len());
                    append(&mut self.buf, &rest[..run], "a CSV record")?;
                    self.pos += run - 1;
                }
            }
        }
    }

    fn push(&mut self, b: u8) -> Result<()> {
        append(&mut self.buf, &[b], "a CSV record")
    }

    fn end_field(&mut self) -> Result<()> {
        memory::grow(&mut self.ends, "the fields of a CSV record")?;
        self.ends.push(self.buf.len());
        Ok(())
    }

    /// Checks that every field of the record just read is UTF-8.
    fn finish(&self, start: usize) -> Result<Option<usize>> {
        for k in 0..self.ends.len() {
            if std::str::from_utf8(self.raw(k)).is_err() {
                return Err(explain_binary(
                    Error::parse(start, k + 1, "invalid UTF-8 text"),
                    self.raw(k),
                ));
            }
        }
        Ok(Some(start))
    }

    fn raw(&self, k: usize) -> &[u8] {
        let from = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.buf[from..self.ends[k]]
    }

    /// The number of fields of the record read last.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Field `k` of the record read last, trimmed.
    pub(super) fn field(&self, k: usize) -> &str {
        std::str::from_utf8(self.raw(k)).unwrap_or_default().trim()
    }
}

/// The fields of the data rows, kept compactly: all field texts in one buffer, the end of each
/// field, and the line where each row starts.
#[derive(Default)]
pub(super) struct Table {
    /// UTF-8: only whole `&str` fields are appended.
    text: Vec<u8>,
    ends: Vec<usize>,
    /// The line where each row starts.
    pub(super) lines: Vec<usize>,
    /// Fields per row.
    pub(super) width: usize,
}

impl Table {
    pub(super) fn n_rows(&self) -> usize {
        self.lines.len()
    }

    /// The (trimmed) field `j` of row `i`.
    pub(super) fn field(&self, i: usize, j: usize) -> &str {
        let k = i * self.width + j;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        std::str::from_utf8(&self.text[start..self.ends[k]]).unwrap_or_default()
    }

    /// Adds a row of `width` fields that starts at `line`.
    pub(super) fn push<'a>(
        &mut self,
        line: usize,
        fields: impl Iterator<Item = &'a str>,
    ) -> Result<()> {
        memory::grow(&mut self.lines, "the row line numbers")?;
        self.lines.push(line);
        for f in fields {
            append(&mut self.text, f.as_bytes(), "the CSV fields")?;
            memory::grow(&mut self.ends, "the CSV field offsets")?;
            self.ends.push(self.text.len());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records as the `csv` crate splits them (the reference for `RecordReader`).
    fn csv_crate_records(input: &[u8], delimiter: u8) -> Vec<Vec<Vec<u8>>> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(delimiter)
            .flexible(true)
            .comment(Some(b'#'))
            .from_reader(input);
        rdr.byte_records()
            .map(|r| r.unwrap().iter().map(<[u8]>::to_vec).collect())
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn records_split_exactly_as_the_csv_crate_splits_them(
            input in proptest::collection::vec(
                proptest::sample::select(b"a1 ,;\t\"\n\r#".to_vec()), 0..60),
            delimiter in proptest::sample::select(vec![b',', b';', b'\t']),
        ) {
            let mut ours = Vec::new();
            let mut records = RecordReader::new(&input[..], delimiter);
            let complete = loop {
                match records.next_record() {
                    Ok(Some(_)) => ours.push(
                        (0..records.len()).map(|k| records.raw(k).to_vec()).collect::<Vec<_>>(),
                    ),
                    Ok(None) => break true,
                    Err(Error::Parse { message, .. }) => {
                        proptest::prop_assert!(message.contains("unterminated quote"), "{}", message);
                        break false;
                    }
                    Err(e) => proptest::prop_assert!(false, "{}", e),
                }
            };
            // A comment line ending the input without a line break gives the csv crate one empty
            // field more; blank records are skipped by `read_csv_from` anyway.
            let blank = |r: &Vec<Vec<u8>>| r.len() == 1 && r[0].is_empty();
            ours.retain(|r| !blank(r));
            let mut theirs = csv_crate_records(&input, delimiter);
            theirs.retain(|r| !blank(r));
            if complete {
                proptest::prop_assert_eq!(ours, theirs);
            } else {
                // The csv crate reads the rest of the file as the open field; we stop there.
                // (The open field is its last record, blank when the quote opens an empty field.)
                proptest::prop_assert!(theirs.len() == ours.len() + 1 || theirs.len() == ours.len());
                proptest::prop_assert_eq!(&ours[..], &theirs[..ours.len()]);
            }
        }
    }
}
