//! The model file every margin model saves to and loads from.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `MARGINMF` |
//! | 4 | format version (currently 3) |
//! | 2 | length `k` of the model kind |
//! | k | model kind, UTF-8 (for example `svc`) |
//! | 4 | schema version of that kind's body ([`ModelFile::SCHEMA`]) |
//! | 8 | length `f` of the feature names (0 when the model has none) |
//! | 8 | body length `n` |
//! | 4 | CRC-32 of everything from the version up to the end of the body |
//! | f | feature names: their count (4 bytes), then each name's length (4 bytes) and UTF-8 text |
//! | n | body: the model, serde-encoded with bincode |
//!
//! The feature names are the columns the model was fitted on, as a table (CSV header, Parquet
//! or Arrow schema) named them: [`with_feature_names`] writes them, [`feature_names`] reads
//! them, and `margin predict` matches a table's columns to them by name. Format 2 (the same
//! without the names' length and section) is still read, as a file without names.
//!
//! The body codec appears only in this module, so it can be replaced without touching models.
//! It allocates a `String`'s claimed length before reading it, so text stored in a model is
//! decoded in place, through [`margin_core::stored`] (as [`Label`](margin_core::Label)'s text and
//! the trees' feature names are): a new owned `String` field must do the same, or a forged
//! length aborts the process.
//! A truncated, corrupted, foreign, other-kind or newer-version file is refused with
//! [`Error::ModelFile`] saying which. The format version covers this layout; each kind's schema
//! version covers its body, so a change to one model's fields refuses that kind's older files
//! with a clear message and leaves every other kind readable.
//!
//! A checksum only proves the bytes are the ones that were written, not that whoever wrote them
//! wrote a sound model: every kind's [`ModelFile::check_consistent`] (required, no default)
//! checks everything prediction will index or divide by before a decoded model is handed out,
//! with the checks of [`margin_core::model_check`]. The estimator battery forges files to test this
//! (`forged_file_failures` in the `margin-testing` crate), and so does the `model_file` fuzz target.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use margin_core::{Error, Result};

const MAGIC: &[u8; 8] = b"MARGINMF";
/// The model-file format version this build writes (it also reads the previous one, 2).
pub const FORMAT_VERSION: u32 = 3;
/// The previous format, without feature names: still read.
const UNNAMED_VERSION: u32 = 2;

fn codec() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// A model that can be saved to and loaded from a margin model file.
pub trait ModelFile: Serialize + DeserializeOwned {
    /// The kind written in the header (for example `"svc"`); `load` refuses other kinds.
    const KIND: &'static str;

    /// The version of this kind's body layout; files of any other version are refused with a
    /// message naming both versions and what to do (upgrade margin, or train again).
    ///
    /// Raise it in the same change as anything that alters the bytes this kind encodes or what
    /// they mean:
    /// - a field of the model, or of any type it stores (params, trees, kernels, matrices,
    ///   labels), added, removed, renamed into another position, reordered or retyped;
    /// - a variant added to, removed from or reordered in a stored enum (bincode writes the
    ///   variant's position);
    /// - a stored value whose meaning changes (units, sign convention, class order, what a
    ///   derived table holds);
    /// - a rule of [`check_consistent`](Self::check_consistent) tightened so that files this
    ///   kind wrote before would now be refused.
    ///
    /// A change to a type shared by several kinds (for example `DenseMatrix`, `Label`,
    /// `KernelSpec`, the tree nodes) raises the version of every kind that stores it. Adding
    /// a kind, or changing only code that reads the fields, raises nothing.
    const SCHEMA: u32;

    /// Encodes the model with its header.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        encode(Self::KIND, Self::SCHEMA, self)
    }

    /// Checks everything prediction will index or divide by in a decoded model, so that an
    /// intact file (right checksum) whose contents are not a sound model is refused on load
    /// instead of panicking, aborting or answering garbage later.
    ///
    /// Required of every kind (there is no default): shapes that must agree, index ranges
    /// (support vectors, tree children and features, classes, leaves), counts, class tables,
    /// finiteness where a non-finite value would break an answer, and the parameters used at
    /// prediction (kernel parameters, `k ≥ 1`, …). Build it from the checks in
    /// [`margin_core::model_check`]; what a type already checks as it decodes (`DenseMatrix`,
    /// `CsrMatrix`, models decoded through `#[serde(try_from)]`) needs no second check.
    /// [`from_bytes`](Self::from_bytes) reports any error returned here as
    /// [`Error::ModelFile`] naming the kind.
    fn check_consistent(&self) -> Result<()>;

    /// Decodes a model, refusing anything that is not an intact, consistent file of this kind.
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let model: Self = decode(Self::KIND, Self::SCHEMA, bytes)?;
        model.check_consistent().map_err(|e| {
            let reason = match e {
                Error::ModelFile { reason } => reason,
                other => other.to_string(),
            };
            Error::model_file(format!("inconsistent `{}` model: {reason}", Self::KIND))
        })?;
        Ok(model)
    }

    /// Writes the model to `path`, whole or not at all (through a temporary file beside it,
    /// synced and renamed into place: a failed save leaves what was there).
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let bytes = self.to_bytes()?;
        crate::write_atomically(path, |w| w.write_all(&bytes))
    }

    /// Reads a model from `path` (through [`read_model_file`]: its first bytes are checked
    /// before the rest is read).
    fn load(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_bytes(&read_model_file(path.as_ref())?)
    }
}

/// The header's fixed part before the kind: magic, format version, kind length.
const HEAD_BYTES: usize = 8 + 4 + 2;
/// The header's fixed part after the kind in format 3: schema version, names' length, body
/// length, checksum (format 2 has no names' length).
const TAIL_BYTES: usize = 4 + 8 + 8 + 4;

/// Reads the bytes of the margin model file at `path` (a file, a pipe or a FIFO: it is opened
/// once and read in order), for [`ModelFile::from_bytes`] or [`peek_kind`].
///
/// The magic bytes and the format version are checked before anything else is read, and what
/// follows the header is read only up to the lengths it claims, asked for first through
/// [`margin_core::memory`]: `/dev/zero`, a data file or a forged length is refused after a few
/// bytes with [`Error::ModelFile`] (or [`Error::OutOfMemory`] for a claim this machine cannot
/// hold), never read whole.
pub fn read_model_file(path: &Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // A regular file says how long it is, so a claimed body longer than what follows the
    // header is refused before the body is allocated.
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    read_model_from(file, size, path)
}

/// [`read_model_file`] over any reader, `size` its total length when known, `path` for errors.
pub(crate) fn read_model_from(
    mut input: impl std::io::Read,
    size: Option<u64>,
    path: &Path,
) -> Result<Vec<u8>> {
    let io = |e| Error::io(path, e);
    let mut bytes = vec![0u8; HEAD_BYTES];
    let got = read_up_to(&mut input, &mut bytes).map_err(io)?;
    if got < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC[..] {
        return Err(Error::model_file(
            "not a margin model file (wrong magic bytes)",
        ));
    }
    if got < HEAD_BYTES {
        return Err(truncated_header());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    let tail = match version {
        FORMAT_VERSION => TAIL_BYTES,
        UNNAMED_VERSION => TAIL_BYTES - 8,
        other => return Err(version_refusal(other)),
    };
    let kind_len = usize::from(u16::from_le_bytes(
        bytes[12..14].try_into().unwrap_or_default(),
    ));
    let header = HEAD_BYTES + kind_len + tail;
    bytes.resize(header, 0);
    if read_up_to(&mut input, &mut bytes[HEAD_BYTES..]).map_err(io)? < kind_len + tail {
        return Err(truncated_header());
    }
    // The lengths of the names and of the body, just before the checksum.
    let lengths = &bytes[HEAD_BYTES + kind_len + 4..header - 4];
    let claimed = lengths
        .chunks_exact(8)
        .map(|l| u64::from_le_bytes(l.try_into().unwrap_or_default()))
        .fold(0u64, u64::saturating_add);
    if let Some(size) = size {
        let available = size.saturating_sub(header as u64);
        if claimed > available {
            return Err(Error::model_file(format!(
                "file is truncated: body has {available} of {claimed} bytes"
            )));
        }
    }
    let rest = usize::try_from(claimed)
        .map_err(|_| Error::model_file(format!("body length {claimed} is not addressable")))?;
    margin_core::memory::reserve(
        &mut bytes,
        rest,
        "the model file's body",
        "the header claims a body this machine cannot hold: the file is corrupt, or was written on a larger machine",
    )?;
    bytes.resize(header + rest, 0);
    let got = read_up_to(&mut input, &mut bytes[header..]).map_err(io)?;
    if got < rest {
        return Err(Error::model_file(format!(
            "file is truncated: body has {got} of {claimed} bytes"
        )));
    }
    // One byte more tells a file with trailing bytes (refused by the header's parse) from an
    // exact one, without reading an endless input on.
    let mut extra = [0u8; 1];
    if read_up_to(&mut input, &mut extra).map_err(io)? > 0 {
        bytes.push(extra[0]);
    }
    Ok(bytes)
}

fn truncated_header() -> Error {
    Error::model_file("file is truncated (header incomplete)")
}

/// Fills `buf` from `input` as far as it goes, returning how many bytes were read (fewer only
/// at the end of the input).
fn read_up_to(input: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Whether `bytes` start as a margin model file does (its magic bytes), whatever follows: for
/// tools that take either a model file or a data file.
pub fn is_model_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The kind named in a model file's header, without decoding the body (for tools that dispatch
/// on it, such as `margin predict`).
pub fn peek_kind(bytes: &[u8]) -> Result<String> {
    Header::parse(bytes).map(|h| h.kind.to_owned())
}

/// The feature names an intact model file carries (the columns its model was fitted on), or
/// `None` when it was fitted on unnamed columns (a LIBSVM file, a headerless CSV, a matrix).
pub fn feature_names(bytes: &[u8]) -> Result<Option<Vec<String>>> {
    let header = Header::parse(bytes)?;
    if header.names.is_empty() {
        return Ok(None);
    }
    decode_names(header.names).map(Some)
}

/// The model file `bytes` with `names` as its feature names (see [`feature_names`]): one name
/// per feature the model reads, as the columns of the table it was fitted on.
pub fn with_feature_names(bytes: &[u8], names: &[String]) -> Result<Vec<u8>> {
    let header = Header::parse(bytes)?;
    seal_with(header.kind, header.schema, Some(names), header.body)
}

fn encode<T: Serialize + ?Sized>(kind: &str, schema: u32, model: &T) -> Result<Vec<u8>> {
    let failed = |e: bincode::error::EncodeError| {
        // A part that refuses to be written (a user's own kernel) says why in its own words.
        let why = match e {
            bincode::error::EncodeError::OtherString(why) => why,
            other => other.to_string(),
        };
        Error::model_file(format!("could not encode the model: {why}"))
    };
    // Sized first, so the buffer (as large as the model: its weights can be dense in a huge
    // width) is asked for once instead of grown until the allocator gives up.
    let mut size = bincode::enc::write::SizeWriter::default();
    bincode::serde::encode_into_writer(model, &mut size, codec()).map_err(failed)?;
    let mut body = margin_core::memory::filled_vec(
        size.bytes_written,
        0u8,
        "the encoded model",
        margin_core::memory::FEWER_FEATURES,
    )?;
    let written = bincode::serde::encode_into_slice(model, &mut body, codec()).map_err(failed)?;
    body.truncate(written);
    seal(kind, schema, &body)
}

/// Wraps an encoded body in a current header with a valid checksum (and no feature names).
///
/// Models are saved with [`ModelFile::to_bytes`]; this is for tests and fuzzers that forge
/// files whose checksum is right but whose contents are not (what
/// [`ModelFile::check_consistent`] must catch).
pub fn seal(kind: &str, schema: u32, body: &[u8]) -> Result<Vec<u8>> {
    seal_with(kind, schema, None, body)
}

/// [`seal`] with feature names.
fn seal_with(kind: &str, schema: u32, names: Option<&[String]>, body: &[u8]) -> Result<Vec<u8>> {
    let kind_len =
        u16::try_from(kind.len()).map_err(|_| Error::model_file("model kind name too long"))?;
    let names = encode_names(names.unwrap_or_default())?;
    let mut out = margin_core::memory::vec_with_capacity(
        HEAD_BYTES + kind.len() + TAIL_BYTES + names.len() + body.len(),
        "the model file",
        margin_core::memory::FEWER_FEATURES,
    )?;
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&kind_len.to_le_bytes());
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(&schema.to_le_bytes());
    out.extend_from_slice(&(names.len() as u64).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[8..]);
    crc.update(&names);
    crc.update(body);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(&names);
    out.extend_from_slice(body);
    Ok(out)
}

/// The names section: empty for no names, else the count and each length-prefixed name.
fn encode_names(names: &[String]) -> Result<Vec<u8>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let too_many = || Error::model_file("too many or too long feature names for a model file");
    let bytes = names
        .iter()
        .try_fold(4usize, |n, s| n.checked_add(4)?.checked_add(s.len()))
        .ok_or_else(too_many)?;
    let mut out = margin_core::memory::vec_with_capacity(
        bytes,
        "the model's feature names",
        margin_core::memory::FEWER_FEATURES,
    )?;
    out.extend_from_slice(
        &u32::try_from(names.len())
            .map_err(|_| too_many())?
            .to_le_bytes(),
    );
    for name in names {
        out.extend_from_slice(
            &u32::try_from(name.len())
                .map_err(|_| too_many())?
                .to_le_bytes(),
        );
        out.extend_from_slice(name.as_bytes());
    }
    Ok(out)
}

/// Reads a names section, every length checked against what the section holds.
fn decode_names(section: &[u8]) -> Result<Vec<String>> {
    let bad = |what: &str| Error::model_file(format!("the feature names are corrupt: {what}"));
    let mut at = 0;
    let next_u32 = |at: &mut usize| -> Result<usize> {
        let bytes = take(section, at, 4).ok_or_else(|| bad("a length runs past the section"))?;
        Ok(u32::from_le_bytes(bytes.try_into().unwrap_or_default()) as usize)
    };
    let count = next_u32(&mut at)?;
    // Every name takes at least its 4-byte length: a count the section cannot hold is refused
    // before anything is allocated for it.
    if count == 0 || count > (section.len() - at) / 4 {
        return Err(bad("the count does not match the section"));
    }
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        let len = next_u32(&mut at)?;
        let text =
            take(section, &mut at, len).ok_or_else(|| bad("a name runs past the section"))?;
        let text = std::str::from_utf8(text).map_err(|_| bad("a name is not UTF-8"))?;
        names.push(text.to_owned());
    }
    if at != section.len() {
        return Err(bad("bytes left over after the last name"));
    }
    Ok(names)
}

/// The `n` bytes of `bytes` at `*at`, moving `at` past them; `None` past the end.
fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let part = bytes.get(*at..at.checked_add(n)?)?;
    *at += n;
    Some(part)
}

/// The encoded body of an intact model file (header and checksum verified), for tools that
/// re-seal altered bodies with [`seal`].
pub fn body_of(bytes: &[u8]) -> Result<&[u8]> {
    Header::parse(bytes).map(|h| h.body)
}

struct Header<'a> {
    kind: &'a str,
    schema: u32,
    /// The names section (empty when the file has none).
    names: &'a [u8],
    body: &'a [u8],
}

impl<'a> Header<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(Error::model_file(
                "not a margin model file (wrong magic bytes)",
            ));
        }
        let mut at = 8;
        let mut take = |n: usize| -> Result<&'a [u8]> {
            let s = bytes.get(at..at + n).ok_or_else(truncated_header)?;
            at += n;
            Ok(s)
        };
        let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let version = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        if version != FORMAT_VERSION && version != UNNAMED_VERSION {
            // Older and newer layouts differ after this field: say so before reading on.
            return Err(version_refusal(version));
        }
        let kind_len = u16::from_le_bytes(take(2)?.try_into().unwrap_or_default()) as usize;
        let kind_bytes = take(kind_len)?;
        let schema = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        let names_len = if version == FORMAT_VERSION {
            u64_at(take(8)?)
        } else {
            0
        };
        let body_len = u64_at(take(8)?);
        let stored_crc = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        let checked_end = at - 4;
        let available = (bytes.len() - at) as u64;
        let claimed = names_len.saturating_add(body_len);
        if claimed > available {
            return Err(Error::model_file(format!(
                "file is truncated: body has {available} of {claimed} bytes"
            )));
        }
        if claimed < available {
            return Err(Error::model_file(format!(
                "file has {} unexpected trailing bytes",
                available - claimed
            )));
        }
        let (names, body) = bytes[at..].split_at(names_len as usize);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[8..checked_end]);
        crc.update(names);
        crc.update(body);
        if crc.finalize() != stored_crc {
            return Err(Error::model_file(
                "checksum mismatch: the file is corrupted",
            ));
        }
        let kind = std::str::from_utf8(kind_bytes)
            .map_err(|_| Error::model_file("model kind is not UTF-8"))?;
        Ok(Self {
            kind,
            schema,
            names,
            body,
        })
    }
}

fn version_refusal(version: u32) -> Error {
    if version > FORMAT_VERSION {
        Error::model_file(format!(
            "format version {version} is newer than this margin reads ({FORMAT_VERSION}): upgrade margin"
        ))
    } else {
        Error::model_file(format!(
            "format version {version} is no longer supported (this margin reads {UNNAMED_VERSION} and {FORMAT_VERSION}): train the model again"
        ))
    }
}

fn decode<T: DeserializeOwned>(kind: &str, schema: u32, bytes: &[u8]) -> Result<T> {
    let header = Header::parse(bytes)?;
    if header.kind != kind {
        return Err(Error::model_file(format!(
            "this file holds a `{}` model, not a `{kind}` model",
            header.kind
        )));
    }
    if header.schema != schema {
        let advice = if header.schema > schema {
            "it was written by a newer margin: upgrade margin"
        } else {
            "it was written by an older margin: train the model again"
        };
        return Err(Error::model_file(format!(
            "this `{kind}` file has layout version {}, but this margin reads version {schema} of `{kind}` files; {advice}",
            header.schema
        )));
    }
    let (model, used) = bincode::serde::decode_from_slice(header.body, codec())
        .map_err(|e| Error::model_file(format!("body does not decode as a `{kind}` model: {e}")))?;
    if used != header.body.len() {
        return Err(Error::model_file(
            "body has bytes left over after the model",
        ));
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Toy {
        w: Vec<f64>,
        name: String,
        k: Option<u32>,
    }
    impl ModelFile for Toy {
        const KIND: &'static str = "toy";
        const SCHEMA: u32 = 1;
        /// `k = 0` stands for an unusable parameter, refused as a constructor would refuse it.
        fn check_consistent(&self) -> Result<()> {
            match self.k {
                Some(0) => Err(Error::invalid_parameter("k", 0, "k ≥ 1")),
                _ => Ok(()),
            }
        }
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Other;
    impl ModelFile for Other {
        const KIND: &'static str = "other";
        const SCHEMA: u32 = 1;
        fn check_consistent(&self) -> Result<()> {
            Ok(())
        }
    }

    fn toy() -> Toy {
        Toy {
            w: vec![1.0, -2.5, f64::MIN_POSITIVE, f64::NAN],
            name: "x".into(),
            k: Some(3),
        }
    }

    fn refusal(bytes: &[u8]) -> String {
        match Toy::from_bytes(bytes) {
            Err(Error::ModelFile { reason }) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn intact_files_with_inconsistent_matrices_are_refused() {
        // Same field layout as DenseMatrix / CsrMatrix, but shapes that disagree.
        #[derive(Serialize)]
        struct Dense {
            data: Vec<f64>,
            nrows: usize,
            ncols: usize,
        }
        #[derive(Serialize)]
        struct Csr {
            indptr: Vec<usize>,
            indices: Vec<u32>,
            values: Vec<f64>,
            ncols: usize,
        }
        let dense = encode(
            "toy",
            1,
            &Dense {
                data: vec![1.0; 3],
                nrows: 2,
                ncols: 2,
            },
        )
        .unwrap();
        assert!(matches!(
            decode::<margin_core::DenseMatrix>("toy", 1, &dense),
            Err(Error::ModelFile { .. })
        ));
        let good = encode(
            "toy",
            1,
            &Dense {
                data: vec![1.0; 4],
                nrows: 2,
                ncols: 2,
            },
        )
        .unwrap();
        assert!(decode::<margin_core::DenseMatrix>("toy", 1, &good).is_ok());
        let csr = encode(
            "toy",
            1,
            &Csr {
                indptr: vec![0, 2],
                indices: vec![1, 0],
                values: vec![1.0, 2.0],
                ncols: 2,
            },
        )
        .unwrap();
        assert!(matches!(
            decode::<margin_core::CsrMatrix>("toy", 1, &csr),
            Err(Error::ModelFile { .. })
        ));
    }

    #[test]
    fn save_load_round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.margin");
        let m = toy();
        m.save(&path).unwrap();
        let back = Toy::load(&path).unwrap();
        assert_eq!(back.w[..3], m.w[..3]);
        assert!(back.w[3].is_nan());
        assert_eq!(peek_kind(&std::fs::read(&path).unwrap()).unwrap(), "toy");
        assert!(is_model_file(&std::fs::read(&path).unwrap()[..8]));
        assert!(!is_model_file(b"MARGINM") && !is_model_file(b"svm_type c_svc"));
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = toy().to_bytes().unwrap();
        for len in 0..bytes.len() {
            let reason = refusal(&bytes[..len]);
            assert!(
                reason.contains("truncated") || reason.contains("magic"),
                "{len}: {reason}"
            );
        }
    }

    #[test]
    fn every_bit_flip_is_refused() {
        let bytes = toy().to_bytes().unwrap();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                refusal(&b);
            }
        }
    }

    #[test]
    fn foreign_other_kind_newer_and_trailing_files_are_refused() {
        assert!(refusal(b"PK\x03\x04 a zip file").contains("magic"));
        assert!(refusal(&Other.to_bytes().unwrap()).contains("`other` model"));
        let mut newer = toy().to_bytes().unwrap();
        newer[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(refusal(&newer).contains("newer"));
        let mut older = toy().to_bytes().unwrap();
        older[8..12].copy_from_slice(&1u32.to_le_bytes());
        assert!(refusal(&older).contains("no longer supported"));
        let mut trailing = toy().to_bytes().unwrap();
        trailing.push(0);
        assert!(refusal(&trailing).contains("trailing"));
    }

    #[test]
    fn another_schema_of_the_kind_is_refused_with_advice() {
        let body = body_of(&toy().to_bytes().unwrap()).unwrap().to_vec();
        let older = seal("toy", 0, &body).unwrap();
        let reason = refusal(&older);
        assert!(
            reason.contains("layout version 0") && reason.contains("train the model again"),
            "{reason}"
        );
        let newer = seal("toy", 2, &body).unwrap();
        assert!(refusal(&newer).contains("upgrade margin"));
        assert!(Toy::from_bytes(&seal("toy", 1, &body).unwrap()).is_ok());
    }

    #[test]
    fn an_inconsistent_model_is_refused_naming_its_kind() {
        let bad = Toy {
            k: Some(0),
            ..toy()
        };
        let reason = refusal(&bad.to_bytes().unwrap());
        assert!(
            reason.contains("inconsistent `toy` model") && reason.contains("`k`"),
            "{reason}"
        );
    }

    /// Refuses a body of `head` then a string claiming 3.4 GB or 2⁴⁰ bytes followed by three
    /// bytes of text, with a model-file error: the claim must not be allocated (which would
    /// abort the process).
    fn refuses_claimed_text_lengths<M: ModelFile>(head: &[u8]) {
        for claim in [
            &[0xfc, 0x2c, 0xbf, 0x01, 0xcf][..],
            &[0xfd, 0, 0, 0, 0, 0, 1, 0, 0],
        ] {
            let body = [head, claim, b"abc"].concat();
            let file = seal(M::KIND, M::SCHEMA, &body).unwrap();
            assert!(matches!(M::from_bytes(&file), Err(Error::ModelFile { .. })));
        }
    }

    /// Found by the `model_file` fuzz target: a text label claiming 3.4 GB (in a 100-byte
    /// file) was allocated before the codec found the bytes missing, aborting the process.
    #[test]
    fn a_label_claiming_more_bytes_than_the_file_holds_is_refused() {
        #[derive(Debug, Serialize, Deserialize)]
        struct Labels(Vec<margin_core::Label>);
        impl ModelFile for Labels {
            const KIND: &'static str = "labels";
            const SCHEMA: u32 = 1;
            fn check_consistent(&self) -> Result<()> {
                Ok(())
            }
        }
        let good = Labels(vec![
            margin_core::Label::Text("setosa".into()),
            margin_core::Label::Number(2.0),
        ]);
        let back = Labels::from_bytes(&good.to_bytes().unwrap()).unwrap();
        assert_eq!(back.0, good.0);
        // One label: variant 1 (text), then the text.
        refuses_claimed_text_lengths::<Labels>(&[1, 1]);
    }

    #[test]
    fn a_forged_length_of_stored_names_is_refused_not_allocated() {
        #[derive(Serialize, serde::Deserialize)]
        struct Names(
            #[serde(deserialize_with = "margin_core::stored::optional_strings")]
            Option<Vec<String>>,
        );
        impl ModelFile for Names {
            const KIND: &'static str = "names";
            const SCHEMA: u32 = 1;
            fn check_consistent(&self) -> Result<()> {
                Ok(())
            }
        }
        let good = Names(Some(vec!["petal_width".into(), "sepal".into()]));
        let back = Names::from_bytes(&good.to_bytes().unwrap()).unwrap();
        assert_eq!(back.0, good.0);
        // Some, one name, then the name.
        refuses_claimed_text_lengths::<Names>(&[1, 1]);
    }

    #[test]
    fn a_failed_save_keeps_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.margin");
        toy().save(&path).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A directory in the way of the temporary file's rename target: saving into a path
        // whose parent is missing fails without touching anything.
        assert!(toy().save(dir.path().join("missing/m.margin")).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn missing_file_is_an_io_error() {
        assert!(matches!(
            Toy::load("/nonexistent/dir/m.margin"),
            Err(Error::Io { .. })
        ));
    }

    /// An input that never ends: every read fills the buffer, and the bytes handed out are
    /// counted, so a reader that reads on is caught.
    struct Endless {
        byte: u8,
        handed_out: usize,
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(self.byte);
            self.handed_out += buf.len();
            Ok(buf.len())
        }
    }

    #[test]
    fn endless_inputs_are_refused_after_their_first_bytes() {
        let mut zeros = Endless {
            byte: 0,
            handed_out: 0,
        };
        let e = read_model_from(&mut zeros, None, Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("wrong magic bytes"), "{e}");
        assert!(zeros.handed_out <= HEAD_BYTES, "{}", zeros.handed_out);
        // A real header followed by a body without end: read up to the claimed length, plus
        // the one byte that tells trailing bytes, then refused by the header's parse.
        let file = toy().to_bytes().unwrap();
        let header = HEAD_BYTES + 3 + TAIL_BYTES;
        let mut endless = std::io::Read::chain(
            &file[..header],
            Endless {
                byte: 7,
                handed_out: 0,
            },
        );
        let bytes = read_model_from(&mut endless, None, Path::new("pipe")).unwrap();
        assert_eq!(bytes.len(), file.len() + 1);
        assert!(refusal(&bytes).contains("trailing"));
    }

    #[test]
    fn claimed_bodies_are_checked_before_they_are_allocated() {
        let file = toy().to_bytes().unwrap();
        let header = HEAD_BYTES + 3 + TAIL_BYTES;
        let mut forged = file.clone();
        forged[header - 12..header - 4].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        // Known length (a regular file): the claim is compared with what follows the header.
        let e =
            read_model_from(&forged[..], Some(forged.len() as u64), Path::new("m")).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        // Unknown length (a pipe): the claim is asked of the memory module first.
        let e = read_model_from(&forged[..], None, Path::new("m")).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        for cut in 0..file.len() {
            let e = read_model_from(&file[..cut], None, Path::new("m")).unwrap_err();
            assert!(matches!(e, Error::ModelFile { .. }), "{cut}: {e}");
        }
        assert_eq!(
            read_model_from(&file[..], None, Path::new("m")).unwrap(),
            file
        );
    }

    #[test]
    fn feature_names_round_trip_and_leave_the_model_alone() {
        let plain = toy().to_bytes().unwrap();
        assert_eq!(feature_names(&plain).unwrap(), None);
        let names: Vec<String> = ["age", "", "größe"].iter().map(|s| s.to_string()).collect();
        let named = with_feature_names(&plain, &names).unwrap();
        assert_eq!(feature_names(&named).unwrap(), Some(names.clone()));
        assert_eq!(body_of(&named).unwrap(), body_of(&plain).unwrap());
        assert!(Toy::from_bytes(&named).is_ok());
        // Read from a file as from memory, and every truncation refused.
        assert_eq!(
            read_model_from(&named[..], None, Path::new("m")).unwrap(),
            named
        );
        for cut in 0..named.len() {
            assert!(Toy::from_bytes(&named[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn forged_names_sections_are_refused_not_allocated() {
        let header = HEAD_BYTES + 3 + TAIL_BYTES;
        let body = body_of(&toy().to_bytes().unwrap()).unwrap().to_vec();
        for section in [
            // A count of four billion names in nine bytes.
            [&u32::MAX.to_le_bytes()[..], &1u32.to_le_bytes(), b"a"].concat(),
            // A name's length past the section.
            [&1u32.to_le_bytes()[..], &u32::MAX.to_le_bytes(), b"a"].concat(),
            // Not UTF-8, and bytes after the last name.
            [&1u32.to_le_bytes()[..], &1u32.to_le_bytes(), &[0xff]].concat(),
            [&1u32.to_le_bytes()[..], &1u32.to_le_bytes(), b"ab"].concat(),
            vec![0, 0, 0, 0],
        ] {
            let mut forged = seal("toy", 1, &body).unwrap();
            // Magic, version, kind and schema; then the lengths, checksum, names and body.
            forged.truncate(header - 20);
            let mut crc = crc32fast::Hasher::new();
            let lengths = [
                (section.len() as u64).to_le_bytes(),
                (body.len() as u64).to_le_bytes(),
            ]
            .concat();
            crc.update(&forged[8..]);
            crc.update(&lengths);
            crc.update(&section);
            crc.update(&body);
            forged.extend_from_slice(&lengths);
            forged.extend_from_slice(&crc.finalize().to_le_bytes());
            forged.extend_from_slice(&section);
            forged.extend_from_slice(&body);
            let e = feature_names(&forged).unwrap_err();
            assert!(e.to_string().contains("feature names are corrupt"), "{e}");
        }
    }

    #[test]
    fn format_2_files_are_read_as_files_without_names() {
        let current = toy().to_bytes().unwrap();
        let body = body_of(&current).unwrap();
        let mut old = Vec::new();
        old.extend_from_slice(MAGIC);
        old.extend_from_slice(&2u32.to_le_bytes());
        old.extend_from_slice(&3u16.to_le_bytes());
        old.extend_from_slice(b"toy");
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&(body.len() as u64).to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&old[8..]);
        crc.update(body);
        old.extend_from_slice(&crc.finalize().to_le_bytes());
        old.extend_from_slice(body);
        assert!(Toy::from_bytes(&old).is_ok());
        assert_eq!(feature_names(&old).unwrap(), None);
        assert_eq!(
            read_model_from(&old[..], Some(old.len() as u64), Path::new("m")).unwrap(),
            old
        );
    }

    #[test]
    fn model_files_are_read_from_pipes() {
        let file = toy().to_bytes().unwrap();
        let (reader, mut writer) = std::io::pipe().unwrap();
        let sent = file.clone();
        let writing = std::thread::spawn(move || std::io::Write::write_all(&mut writer, &sent));
        let bytes = read_model_from(reader, None, Path::new("pipe")).unwrap();
        writing.join().unwrap().unwrap();
        assert_eq!(bytes, file);
        assert!(Toy::from_bytes(&bytes).is_ok());
    }

    proptest! {
        #[test]
        fn round_trip_is_exact(w in proptest::collection::vec(any::<f64>(), 0..50), name in ".{0,20}", k in proptest::option::of(1u32..)) {
            let m = Toy { w, name, k };
            let back = Toy::from_bytes(&m.to_bytes().unwrap()).unwrap();
            prop_assert_eq!(back.w.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), m.w.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            prop_assert_eq!(back.name, m.name);
            prop_assert_eq!(back.k, m.k);
        }
    }
}
