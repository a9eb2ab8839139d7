//! Reading an Arrow IPC file (Feather v2) whose every length is checked before it is used.
//!
//! arrow-ipc's file reader allocates what the file claims: a record batch's block (its
//! metadata and body lengths, from the footer) is allocated whole before it is read, and a
//! compressed buffer's decompressed length (its first eight bytes) before it is decompressed.
//! One changed byte can so ask for 10^12 bytes, and a failed allocation aborts the process. So
//! the file is walked here with arrow-ipc's own flatbuffer accessors (which verify what they
//! read) and decoded block by block with its [`FileDecoder`], after these checks:
//!
//! - the footer lies within the file, after the leading magic number;
//! - every block (dictionaries and record batches) lies between the leading magic number and
//!   the footer, its message within its metadata and its buffers within its body;
//! - a compressed buffer's decompressed length is at most what its codec can expand its bytes
//!   to (LZ4 255:1, ZSTD 32768:1: the formats' limits), and a batch's decompressed total is
//!   asked for through [`memory`];
//! - every block is read into a buffer asked for through [`memory`].
//!
//! What still panics inside arrow-ipc on a malformed file is caught ([`guarded`]).

use std::path::Path;
use std::sync::Arc;

use arrow_ipc::reader::FileDecoder;
use arrow_ipc::{Block, CompressionType, MessageHeader};
use arrow_schema::Schema;
use margin_core::{Dataset, Result, memory};

use super::guard::{guarded, unreadable};
use super::{Assembly, Plan, Source, by_name};
use crate::{SkippedColumn, TableColumns};

const ARROW: &str = "Arrow IPC";
const MAGIC: &[u8] = b"ARROW1";
/// The leading magic number and its padding.
const LEADING: u64 = 8;
/// The footer's length and the trailing magic number.
const TRAILING: u64 = 10;

/// The way out when a block does not fit in memory.
const WAY_OUT: &str = "the Arrow file's record batches are larger than this machine can hold: write it in smaller batches, or read fewer columns";

/// Reads the Arrow IPC file in `source` (see the module doc).
pub(super) fn read(
    path: &Path,
    source: &Source,
    columns: &TableColumns,
) -> Result<(Dataset, Vec<SkippedColumn>)> {
    let refuse = |detail: String| unreadable(path, ARROW, detail);
    let len = source.len();
    if len < LEADING + TRAILING {
        return Err(refuse(format!(
            "it holds {len} bytes, fewer than the {} of an Arrow file's magic numbers and footer length",
            LEADING + TRAILING
        )));
    }
    if source.bytes_at(path, 0, 6)? != MAGIC {
        return Err(refuse(
            "it does not start with Arrow's magic number ARROW1".into(),
        ));
    }
    let tail = source.bytes_at(path, len - TRAILING, TRAILING)?;
    if &tail[4..] != MAGIC {
        return Err(refuse(
            "it does not end with Arrow's magic number ARROW1 (is it cut short, or an Arrow stream rather than a file?)"
                .into(),
        ));
    }
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let data_end = u64::try_from(footer_len)
        .ok()
        .and_then(|n| (len - TRAILING).checked_sub(n))
        .filter(|&start| start >= LEADING)
        .ok_or_else(|| {
            refuse(format!(
                "its footer claims {footer_len} bytes, but the file holds {len} bytes in all"
            ))
        })?;
    let footer_bytes = source.bytes_at(path, data_end, (len - TRAILING) - data_end)?;
    let footer = arrow_ipc::root_as_footer(&footer_bytes)
        .map_err(|e| refuse(format!("its footer is damaged ({e})")))?;
    let fb_schema = footer
        .schema()
        .ok_or_else(|| refuse("its footer holds no schema".into()))?;
    if !fb_schema.endianness().equals_to_target_endianness() {
        return Err(refuse(
            "it was written on a machine of the other byte order, which this reader cannot read"
                .into(),
        ));
    }
    let schema: Schema = guarded(path, ARROW, || {
        Ok(arrow_ipc::convert::fb_to_schema(fb_schema))
    })?;
    let plan = Plan::new(&schema, columns)?;
    let needed = plan.needed();
    let projected = Arc::new(
        schema
            .project(&needed)
            .map_err(|e| refuse(format!("its schema cannot be read ({e})")))?,
    );
    let dictionaries: Vec<Block> = footer
        .dictionaries()
        .map(|v| v.iter().copied().collect())
        .unwrap_or_default();
    let batches: Vec<Block> = footer
        .recordBatches()
        .map(|v| v.iter().copied().collect())
        .unwrap_or_default();
    let mut decoder =
        FileDecoder::new(Arc::new(schema.clone()), footer.version()).with_projection(needed);
    for (k, block) in dictionaries.iter().enumerate() {
        let buffer = read_block(path, source, block, data_end, &format!("dictionary {k}"))?;
        guarded(path, ARROW, || {
            decoder
                .read_dictionary(block, &buffer)
                .map_err(|e| refuse(format!("dictionary {k} cannot be read ({e})")))
        })?;
    }
    let mut assembly = Assembly::new(&projected, &by_name(&schema, &plan, columns.nulls))?;
    for (k, block) in batches.iter().enumerate() {
        let buffer = read_block(path, source, block, data_end, &format!("record batch {k}"))?;
        let batch = guarded(path, ARROW, || {
            decoder
                .read_record_batch(block, &buffer)
                .map_err(|e| refuse(format!("record batch {k} cannot be read ({e})")))
        })?;
        if let Some(batch) = batch {
            assembly.push(&batch)?;
        }
    }
    Ok((assembly.finish()?, plan.skipped))
}

/// Reads `block` (named `what` in errors) after checking it against the file (the data ends
/// at `data_end`, where the footer starts): its message, buffers and decompressed lengths.
fn read_block(
    path: &Path,
    source: &Source,
    block: &Block,
    data_end: u64,
    what: &str,
) -> Result<arrow_buffer::Buffer> {
    let refuse = |detail: String| unreadable(path, ARROW, format!("{what}: {detail}"));
    let (offset, meta, body) = (block.offset(), block.metaDataLength(), block.bodyLength());
    let range = u64::try_from(offset)
        .ok()
        .zip(u64::try_from(meta).ok())
        .zip(u64::try_from(body).ok())
        .and_then(|((o, m), b)| {
            let end = o.checked_add(m)?.checked_add(b)?;
            (o >= LEADING && m >= 8 && end <= data_end).then_some((o, m, b))
        });
    let Some((offset, meta, body)) = range else {
        return Err(refuse(format!(
            "the footer places it at byte {offset} with {meta} bytes of metadata and {body} of data, outside the file's data (bytes {LEADING} to {data_end})"
        )));
    };
    let bytes = source.bytes_at(path, offset, meta + body)?;
    let meta_bytes = &bytes[..meta as usize];
    // An encapsulated message: a continuation marker (0xFFFFFFFF) and a length, or (older
    // files) the length alone, then the flatbuffer.
    let (skip, claimed) = if meta_bytes[..4] == [0xff; 4] {
        (
            8,
            i32::from_le_bytes([meta_bytes[4], meta_bytes[5], meta_bytes[6], meta_bytes[7]]),
        )
    } else {
        (
            4,
            i32::from_le_bytes([meta_bytes[0], meta_bytes[1], meta_bytes[2], meta_bytes[3]]),
        )
    };
    if claimed < 0 || skip + claimed as u64 > meta {
        return Err(refuse(format!(
            "its message claims {claimed} bytes in {meta} bytes of metadata"
        )));
    }
    let message = arrow_ipc::root_as_message(&meta_bytes[skip as usize..])
        .map_err(|e| refuse(format!("its message is damaged ({e})")))?;
    if !(0..=body as i64).contains(&message.bodyLength()) {
        return Err(refuse(format!(
            "its message claims {} bytes of data, the footer {body}",
            message.bodyLength()
        )));
    }
    let batch = match message.header_type() {
        MessageHeader::RecordBatch => message.header_as_record_batch(),
        MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data())
        }
        _ => None,
    };
    if let Some(batch) = batch {
        if batch.length() < 0 {
            return Err(refuse(format!("it claims {} rows", batch.length())));
        }
        if let Some(nodes) = batch.nodes()
            && let Some(node) = nodes
                .iter()
                .find(|n| n.length() < 0 || !(0..=n.length()).contains(&n.null_count()))
        {
            return Err(refuse(format!(
                "a column claims {} values of which {} are null",
                node.length(),
                node.null_count()
            )));
        }
        let buffers: Vec<(u64, u64)> = match batch.buffers() {
            Some(list) => {
                let mut out = memory::vec_with_capacity(list.len(), "the buffer list", WAY_OUT)?;
                for b in list.iter() {
                    let start = u64::try_from(b.offset()).ok();
                    let len = u64::try_from(b.length()).ok();
                    match start.zip(len) {
                        Some((s, n)) if s.checked_add(n).is_some_and(|e| e <= body) => {
                            out.push((s, n))
                        }
                        _ => {
                            return Err(refuse(format!(
                                "a buffer claims {} bytes at {}, outside its {body} bytes of data",
                                b.length(),
                                b.offset()
                            )));
                        }
                    }
                }
                out
            }
            None => Vec::new(),
        };
        if let Some(compression) = batch.compression() {
            let (codec, most) = match compression.codec() {
                CompressionType::LZ4_FRAME => ("LZ4", 256u64),
                CompressionType::ZSTD => ("ZSTD", 32_768),
                other => {
                    return Err(refuse(format!(
                        "it is compressed with the unknown codec {}",
                        other.0
                    )));
                }
            };
            let body_bytes = &bytes[meta as usize..];
            let mut total = 0u64;
            for &(start, n) in &buffers {
                if n < 8 {
                    continue;
                }
                let at = start as usize;
                let prefix: [u8; 8] = body_bytes[at..at + 8].try_into().unwrap_or_default();
                let unpacked = i64::from_le_bytes(prefix);
                // -1: stored uncompressed; 0: empty.
                if unpacked == -1 || unpacked == 0 {
                    continue;
                }
                let packed = n - 8;
                if unpacked < 0 || unpacked as u64 > packed.saturating_mul(most).saturating_add(64)
                {
                    return Err(refuse(format!(
                        "a buffer claims {unpacked} bytes once decompressed from {packed} bytes: more than {codec} can expand to"
                    )));
                }
                total = total.saturating_add(unpacked as u64);
            }
            memory::check(
                total,
                &format!("the decompressed buffers of {what}"),
                WAY_OUT,
            )?;
        }
    }
    Ok(arrow_buffer::Buffer::from_vec(bytes))
}
