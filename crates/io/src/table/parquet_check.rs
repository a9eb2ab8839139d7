//! Checking a Parquet file's lengths and counts before the parquet crate reads it.
//!
//! The parquet crate allocates what a file claims before it compares the claim with the file:
//! the footer's count of row groups, a schema element's count of children, a page's
//! uncompressed size, a dictionary page's count of values. One changed byte can so ask for
//! gigabytes, and a failed allocation aborts the process: it cannot be caught. These checks
//! read the same fields first, with a Thrift compact-protocol reader written for the purpose
//! that allocates nothing by what it reads, and refuse what the file cannot back:
//!
//! - the footer: its length against the file's; every list's count against the bytes left to
//!   hold it; nesting (of Thrift structures and of the schema) at most [`MAX_DEPTH`] levels;
//!   each schema element's children against the elements that follow; the metadata's decoded
//!   size asked for through [`memory`];
//! - every page of the columns to be read: inside its column chunk, itself inside the file's
//!   data; its uncompressed size at most what its codec can expand its compressed bytes to
//!   (LZ4 255:1, Snappy about 21:1, deflate 1032:1, ZSTD 32768:1: the formats' limits, so no
//!   real file is refused) and asked for through [`memory`]; a dictionary page's count of
//!   values at most what its bytes can hold.

use std::path::Path;

use margin_core::{Error, Result, memory};
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};
use parquet::schema::types::SchemaDescriptor;

use super::Source;
use super::guard::unreadable;

/// The deepest nesting accepted, of Thrift structures and of schema groups (real files nest a
/// handful of levels; the readers recurse once per level).
pub(super) const MAX_DEPTH: usize = 32;

/// What a decoded Thrift structure is reckoned to cost in memory (the parquet crate's row group
/// and column chunk records are a few hundred bytes), for the memory check of the metadata.
const STRUCT_BYTES: u64 = 1024;
/// What any other decoded list element is reckoned to cost.
const VALUE_BYTES: u64 = 32;

/// The way out when the metadata or a page does not fit in memory.
const WAY_OUT: &str = "the Parquet file's metadata or pages are larger than this machine can hold: write it with smaller pages and row groups, or read fewer columns";

const PARQUET: &str = "Parquet";

// Thrift compact protocol types.
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const I8: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

// Parquet page types.
const DATA_PAGE: i32 = 0;
const INDEX_PAGE: i32 = 1;
const DICTIONARY_PAGE: i32 = 2;
const DATA_PAGE_V2: i32 = 3;

/// Why a walk stopped.
#[derive(Debug)]
enum Bad {
    /// The bytes ended inside a structure (a longer read may hold it).
    Ends,
    /// The bytes are not what they claim: the message says what.
    Corrupt(String),
    /// Memory could not be had.
    Margin(Error),
}

impl From<Error> for Bad {
    fn from(e: Error) -> Self {
        Bad::Margin(e)
    }
}

type Walk<T> = std::result::Result<T, Bad>;

fn corrupt<T>(message: impl Into<String>) -> Walk<T> {
    Err(Bad::Corrupt(message.into()))
}

/// A reader of Thrift compact-protocol bytes.
struct Compact<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The decoded size reckoned so far (see [`STRUCT_BYTES`]).
    decoded: u64,
}

impl<'a> Compact<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            at: 0,
            decoded: 0,
        }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Walk<u8> {
        let b = *self.bytes.get(self.at).ok_or(Bad::Ends)?;
        self.at += 1;
        Ok(b)
    }

    fn skip_bytes(&mut self, n: u64) -> Walk<()> {
        if n > self.left() as u64 {
            return Err(Bad::Ends);
        }
        self.at += n as usize;
        Ok(())
    }

    fn varint(&mut self) -> Walk<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return corrupt("a number is longer than 64 bits");
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        corrupt("a number is longer than 64 bits")
    }

    fn zigzag(&mut self) -> Walk<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn i32(&mut self) -> Walk<i32> {
        i32::try_from(self.zigzag()?).or_else(|_| corrupt("a 32-bit field is out of range"))
    }

    /// The next field of a structure, `(id, type)`, or `None` at its end.
    fn field(&mut self, last: &mut i16) -> Walk<Option<(i16, u8)>> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let delta = i16::from(b >> 4);
        let id = if delta == 0 {
            i16::try_from(self.zigzag()?).or_else(|_| corrupt("a field id is out of range"))?
        } else {
            last.checked_add(delta)
                .ok_or_else(|| Bad::Corrupt("a field id is out of range".into()))?
        };
        *last = id;
        Ok(Some((id, b & 0x0f)))
    }

    /// A list or set header: its element type and count. Every element takes at least a byte
    /// (a double eight), so a count the bytes left cannot hold is refused before anything is
    /// sized by it; the elements' decoded size is added to the reckoning.
    fn list(&mut self) -> Walk<(u8, usize)> {
        let b = self.byte()?;
        let ty = b & 0x0f;
        let mut n = u64::from(b >> 4);
        if n == 15 {
            n = self.varint()?;
        }
        let least = if ty == DOUBLE { 8 } else { 1 };
        if n.saturating_mul(least) > self.left() as u64 {
            return corrupt(format!(
                "a list claims {n} elements in the {} bytes that follow",
                self.left()
            ));
        }
        let each = if ty == STRUCT {
            STRUCT_BYTES
        } else {
            VALUE_BYTES
        };
        self.decoded = self.decoded.saturating_add(n.saturating_mul(each));
        Ok((ty, n as usize))
    }

    /// Skips a value of type `ty` at nesting `depth`.
    fn skip(&mut self, ty: u8, depth: usize) -> Walk<()> {
        if depth > MAX_DEPTH {
            return corrupt(format!("the metadata nests deeper than {MAX_DEPTH} levels"));
        }
        match ty {
            TRUE | FALSE => Ok(()),
            I8 => self.skip_bytes(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.skip_bytes(8),
            BINARY => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            LIST | SET => {
                let (element, n) = self.list()?;
                for _ in 0..n {
                    self.skip_element(element, depth + 1)?;
                }
                Ok(())
            }
            MAP => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let kinds = self.byte()?;
                if n.saturating_mul(2) > self.left() as u64 {
                    return corrupt(format!(
                        "a map claims {n} entries in the {} bytes that follow",
                        self.left()
                    ));
                }
                self.decoded = self
                    .decoded
                    .saturating_add(n.saturating_mul(2 * VALUE_BYTES));
                for _ in 0..n {
                    self.skip_element(kinds >> 4, depth + 1)?;
                    self.skip_element(kinds & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => {
                let mut last = 0;
                while let Some((_, ty)) = self.field(&mut last)? {
                    self.skip(ty, depth + 1)?;
                }
                Ok(())
            }
            other => corrupt(format!("unknown Thrift type {other}")),
        }
    }

    /// Skips a list element: booleans take a byte there (in a structure, none).
    fn skip_element(&mut self, ty: u8, depth: usize) -> Walk<()> {
        match ty {
            TRUE | FALSE => self.skip_bytes(1),
            _ => self.skip(ty, depth),
        }
    }
}

/// Walks a `FileMetaData` structure: every list checked against the bytes (in [`Compact`]),
/// the schema's tree of children checked against its elements.
fn walk_file_metadata(c: &mut Compact<'_>) -> Walk<()> {
    let mut last = 0;
    while let Some((id, ty)) = c.field(&mut last)? {
        if id == 2 && ty == LIST {
            let (element, n) = c.list()?;
            if element != STRUCT {
                return corrupt("the schema is not a list of elements");
            }
            let mut children: Vec<i32> = Vec::new();
            children
                .try_reserve_exact(n)
                .map_err(|_| Error::out_of_memory("the Parquet schema", (n as u64) * 4, WAY_OUT))?;
            for _ in 0..n {
                children.push(walk_schema_element(c)?);
            }
            check_schema_tree(&children)?;
        } else {
            c.skip(ty, 1)?;
        }
    }
    Ok(())
}

/// Walks a `SchemaElement`; returns its count of children (0 for a leaf).
fn walk_schema_element(c: &mut Compact<'_>) -> Walk<i32> {
    let mut last = 0;
    let mut children = 0;
    while let Some((id, ty)) = c.field(&mut last)? {
        if id == 5 && ty == I32 {
            children = c.i32()?;
        } else {
            c.skip(ty, 2)?;
        }
    }
    Ok(children)
}

/// The schema's elements form a tree, depth first: each group's children follow it. A count
/// of children that the elements after it cannot hold, or a tree deeper than [`MAX_DEPTH`],
/// is refused (the parquet crate sizes a vector by the count, and recurses once per level).
fn check_schema_tree(children: &[i32]) -> Walk<()> {
    fn subtree(children: &[i32], at: usize, depth: usize) -> Walk<usize> {
        if depth > MAX_DEPTH {
            return corrupt(format!("the schema nests deeper than {MAX_DEPTH} levels"));
        }
        let n = children[at];
        let following = children.len() - at - 1;
        if n < 0 || n as usize > following {
            return corrupt(format!(
                "schema element {at} claims {n} children, but {following} elements follow it"
            ));
        }
        let mut next = at + 1;
        for _ in 0..n {
            if next >= children.len() {
                return corrupt(format!(
                    "the children of schema element {at} run past the schema's end"
                ));
            }
            next = subtree(children, next, depth + 1)?;
        }
        Ok(next)
    }
    if children.is_empty() {
        return corrupt("the schema is empty");
    }
    subtree(children, 0, 0).map(drop)
}

/// Checks the file's frame and footer; returns where the data ends (the footer's start).
pub(super) fn check_footer(path: &Path, source: &Source) -> Result<u64> {
    let len = source.len();
    // "PAR1", the data, the metadata, its 4-byte length and "PAR1" again.
    if len < 12 {
        return Err(unreadable(
            path,
            PARQUET,
            format!("it holds {len} bytes, fewer than Parquet's 12 of magic numbers and footer"),
        ));
    }
    if source.bytes_at(path, 0, 4)? != b"PAR1" {
        return Err(unreadable(
            path,
            PARQUET,
            "it does not start with Parquet's magic number PAR1",
        ));
    }
    let tail = source.bytes_at(path, len - 8, 8)?;
    if tail[4..] != *b"PAR1" {
        return Err(unreadable(
            path,
            PARQUET,
            "it does not end with Parquet's magic number PAR1 (is it cut short, or encrypted?)",
        ));
    }
    let meta_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if meta_len > len - 12 {
        return Err(unreadable(
            path,
            PARQUET,
            format!(
                "its footer claims {meta_len} bytes of metadata, but the file holds {len} bytes in all"
            ),
        ));
    }
    let data_end = len - 8 - meta_len;
    let footer = source.bytes_at(path, data_end, meta_len)?;
    let mut walk = Compact::new(&footer);
    match walk_file_metadata(&mut walk) {
        Ok(()) => {}
        Err(Bad::Ends) => {
            return Err(unreadable(
                path,
                PARQUET,
                "its metadata ends in the middle of a structure",
            ));
        }
        Err(Bad::Corrupt(m)) => {
            return Err(unreadable(
                path,
                PARQUET,
                format!("its metadata is damaged: {m}"),
            ));
        }
        Err(Bad::Margin(e)) => return Err(e),
    }
    memory::check(
        walk.decoded,
        "the Parquet file's metadata, decoded",
        WAY_OUT,
    )?;
    Ok(data_end)
}

/// Checks every page of the column chunks the reader will decode: the leaves under the
/// top-level columns `roots`, in every row group.
pub(super) fn check_pages(
    path: &Path,
    source: &Source,
    data_end: u64,
    metadata: &ParquetMetaData,
    schema: &SchemaDescriptor,
    roots: &[usize],
) -> Result<()> {
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        for (leaf, chunk) in row_group.columns().iter().enumerate() {
            if leaf < schema.num_columns() && roots.contains(&schema.get_column_root_idx(leaf)) {
                check_chunk(path, source, data_end, group, chunk)?;
            }
        }
    }
    Ok(())
}

/// The most a codec can expand its input, per byte (the formats' limits): LZ4 writes at most
/// 255 bytes per input byte, Snappy 64 per 3, deflate 1032 per 1, ZSTD a 128 KiB block per 4.
fn expansion(codec: Compression) -> u64 {
    match codec {
        Compression::UNCOMPRESSED => 1,
        Compression::SNAPPY => 22,
        Compression::LZ4 | Compression::LZ4_RAW => 256,
        Compression::GZIP(_) => 1033,
        // ZSTD, and codecs this build cannot decode (the reader refuses those itself).
        _ => 32_768,
    }
}

/// The fewest bits a plain-encoded value of a dictionary takes.
fn least_bits(physical: PhysicalType, type_length: i32) -> u64 {
    match physical {
        PhysicalType::BOOLEAN => 1,
        PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 32,
        PhysicalType::INT64 | PhysicalType::DOUBLE => 64,
        PhysicalType::INT96 => 96,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => 8 * u64::try_from(type_length.max(1)).unwrap_or(1),
    }
}

/// What a page header says about sizes and counts.
#[derive(Debug, Default)]
struct PageHeader {
    kind: Option<i32>,
    uncompressed: Option<i32>,
    compressed: Option<i32>,
    /// A dictionary page's count of values.
    dictionary_values: Option<i32>,
    /// A version-2 data page's level bytes (stored uncompressed before the values).
    levels: i32,
    /// Whether a version-2 data page's values are compressed (true unless it says not).
    values_compressed: bool,
}

/// Parses a `PageHeader` from the start of `bytes`; returns it and its length in bytes.
fn parse_page_header(bytes: &[u8]) -> Walk<(PageHeader, usize)> {
    let mut c = Compact::new(bytes);
    let mut header = PageHeader {
        values_compressed: true,
        ..PageHeader::default()
    };
    let mut last = 0;
    while let Some((id, ty)) = c.field(&mut last)? {
        match (id, ty) {
            (1, I32) => header.kind = Some(c.i32()?),
            (2, I32) => header.uncompressed = Some(c.i32()?),
            (3, I32) => header.compressed = Some(c.i32()?),
            (7, STRUCT) => {
                let mut inner = 0;
                while let Some((id, ty)) = c.field(&mut inner)? {
                    if (id, ty) == (1, I32) {
                        header.dictionary_values = Some(c.i32()?);
                    } else {
                        c.skip(ty, 2)?;
                    }
                }
            }
            (8, STRUCT) => {
                let mut inner = 0;
                while let Some((id, ty)) = c.field(&mut inner)? {
                    match (id, ty) {
                        (5 | 6, I32) => {
                            let n = c.i32()?;
                            if n < 0 {
                                return corrupt(format!("a page's level bytes are {n}"));
                            }
                            header.levels = header.levels.saturating_add(n);
                        }
                        (7, TRUE) => header.values_compressed = true,
                        (7, FALSE) => header.values_compressed = false,
                        _ => c.skip(ty, 2)?,
                    }
                }
            }
            _ => c.skip(ty, 1)?,
        }
    }
    Ok((header, c.at))
}

/// Checks the pages of one column chunk (see the module doc).
fn check_chunk(
    path: &Path,
    source: &Source,
    data_end: u64,
    group: usize,
    chunk: &ColumnChunkMetaData,
) -> Result<()> {
    let name = chunk.column_path().string();
    let refuse = |detail: String| unreadable(path, PARQUET, detail);
    let start = chunk
        .dictionary_page_offset()
        .unwrap_or_else(|| chunk.data_page_offset());
    let size = chunk.compressed_size();
    let end = u64::try_from(start)
        .ok()
        .zip(u64::try_from(size).ok())
        .and_then(|(s, n)| s.checked_add(n).filter(|&e| s >= 4 && e <= data_end));
    let Some(end) = end else {
        return Err(refuse(format!(
            "column `{name}` of row group {group} claims {size} bytes from byte {start}, outside the file's data (bytes 4 to {data_end})"
        )));
    };
    let codec = chunk.compression();
    let most = expansion(codec);
    let least = least_bits(chunk.column_type(), chunk.column_descr().type_length());
    let mut at = start as u64;
    while at < end {
        let (header, header_len) = read_page_header(path, source, at, end, &name, group)?;
        let page = at;
        at += header_len as u64;
        let (Some(kind), Some(uncompressed), Some(compressed)) =
            (header.kind, header.uncompressed, header.compressed)
        else {
            return Err(refuse(format!(
                "the page header at byte {page} of column `{name}` (row group {group}) lacks its type or sizes"
            )));
        };
        if compressed < 0 || uncompressed < 0 || compressed as u64 > end - at {
            return Err(refuse(format!(
                "the page at byte {page} of column `{name}` (row group {group}) claims {compressed} bytes ({uncompressed} uncompressed), but its column chunk has {} bytes left",
                end - at
            )));
        }
        at += compressed as u64;
        if kind == INDEX_PAGE {
            continue;
        }
        if !matches!(kind, DATA_PAGE | DICTIONARY_PAGE | DATA_PAGE_V2) {
            return Err(refuse(format!(
                "the page at byte {page} of column `{name}` (row group {group}) has the unknown type {kind}"
            )));
        }
        let levels = if kind == DATA_PAGE_V2 {
            header.levels
        } else {
            0
        };
        if levels > compressed || levels > uncompressed {
            return Err(refuse(format!(
                "the page at byte {page} of column `{name}` (row group {group}) claims {levels} bytes of levels in {compressed} bytes"
            )));
        }
        let decompressed = codec != Compression::UNCOMPRESSED
            && (kind != DATA_PAGE_V2 || header.values_compressed);
        let packed = (compressed - levels) as u64;
        let unpacked = (uncompressed - levels) as u64;
        if decompressed && unpacked > packed.saturating_mul(most).saturating_add(64) {
            return Err(refuse(format!(
                "the page at byte {page} of column `{name}` (row group {group}) claims {uncompressed} bytes uncompressed from {compressed} compressed: more than {codec} can expand to"
            )));
        }
        // What the page's values occupy once read: the decompressed bytes, or the stored ones.
        let held = if decompressed {
            uncompressed as u64
        } else {
            compressed as u64
        };
        let mut wanted = held;
        if kind == DICTIONARY_PAGE {
            let n = header.dictionary_values.unwrap_or(0);
            if n < 0 || (n as u64).saturating_mul(least) > held.saturating_mul(8) {
                return Err(refuse(format!(
                    "the dictionary page at byte {page} of column `{name}` (row group {group}) claims {n} values in {held} bytes"
                )));
            }
            // Each value is held again once decoded (as an offset, a view or the value itself).
            wanted = wanted.saturating_add((n as u64).saturating_mul(16));
        }
        memory::check(
            wanted,
            &format!("a page of column `{name}` (row group {group})"),
            WAY_OUT,
        )?;
    }
    Ok(())
}

/// Reads the page header at `at` (the chunk ends at `end`): a short read first, longer ones
/// while the header runs on (statistics can make it long), never past the chunk.
fn read_page_header(
    path: &Path,
    source: &Source,
    at: u64,
    end: u64,
    name: &str,
    group: usize,
) -> Result<(PageHeader, usize)> {
    let left = end - at;
    let mut window = left.min(256);
    loop {
        let bytes = source.bytes_at(path, at, window)?;
        match parse_page_header(&bytes) {
            Ok(found) => return Ok(found),
            Err(Bad::Ends) if window < left => window = left.min(window.saturating_mul(16)),
            Err(Bad::Ends) => {
                return Err(unreadable(
                    path,
                    PARQUET,
                    format!(
                        "the page header at byte {at} of column `{name}` (row group {group}) runs past its column chunk"
                    ),
                ));
            }
            Err(Bad::Corrupt(m)) => {
                return Err(unreadable(
                    path,
                    PARQUET,
                    format!(
                        "the page header at byte {at} of column `{name}` (row group {group}) is damaged: {m}"
                    ),
                ));
            }
            Err(Bad::Margin(e)) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compact-protocol varint.
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// A page header with the given type and sizes (fields 1 to 3), then a dictionary page
    /// header claiming `values`.
    fn page_header(kind: i32, uncompressed: i32, compressed: i32, values: i32) -> Vec<u8> {
        let zz = |v: i32| ((v << 1) ^ (v >> 31)) as u32 as u64;
        let mut out = Vec::new();
        for v in [kind, uncompressed, compressed] {
            out.push(0x15); // delta 1, i32
            varint(zz(v), &mut out);
        }
        out.push(0x4c); // delta 4 (field 7), struct
        out.push(0x15);
        varint(zz(values), &mut out);
        out.push(0); // end of the dictionary page header
        out.push(0); // end of the page header
        out
    }

    #[test]
    fn page_headers_parse_with_their_length() {
        let bytes = page_header(2, 2_147_483_647, 100, 7);
        let (h, len) = parse_page_header(&bytes).unwrap();
        assert_eq!(len, bytes.len());
        assert_eq!(
            (h.kind, h.uncompressed, h.compressed, h.dictionary_values),
            (Some(2), Some(i32::MAX), Some(100), Some(7))
        );
        assert!(matches!(
            parse_page_header(&bytes[..bytes.len() - 1]),
            Err(Bad::Ends)
        ));
    }

    #[test]
    fn lists_longer_than_their_bytes_and_deep_nesting_are_refused() {
        // A list of 2^31 structs in three bytes.
        let mut bytes = vec![0xfc];
        varint(1 << 31, &mut bytes);
        let mut c = Compact::new(&bytes);
        assert!(matches!(c.skip(LIST, 0), Err(Bad::Corrupt(m)) if m.contains("2147483648")));
        // Structs nested 40 deep.
        let mut bytes = vec![0x1c; 40];
        bytes.extend([0; 41]);
        let mut c = Compact::new(&bytes);
        assert!(matches!(c.skip(STRUCT, 0), Err(Bad::Corrupt(m)) if m.contains("deeper")));
    }

    #[test]
    fn schema_children_must_fit_the_elements_that_follow() {
        assert!(check_schema_tree(&[2, 0, 1, 0]).is_ok());
        assert!(matches!(check_schema_tree(&[2, 0]), Err(Bad::Corrupt(_))));
        assert!(matches!(
            check_schema_tree(&[i32::MAX, 0]),
            Err(Bad::Corrupt(_))
        ));
        assert!(matches!(check_schema_tree(&[-1]), Err(Bad::Corrupt(_))));
        let chain = vec![1; 40];
        assert!(matches!(check_schema_tree(&chain), Err(Bad::Corrupt(m)) if m.contains("deeper")));
    }

    #[test]
    fn codec_limits_are_the_formats() {
        assert_eq!(expansion(Compression::SNAPPY), 22);
        assert!(expansion(Compression::ZSTD(Default::default())) >= 32_768);
        assert_eq!(least_bits(PhysicalType::BYTE_ARRAY, 0), 32);
    }
}
