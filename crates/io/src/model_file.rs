//! The model file every margin model saves to and loads from.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `MARGINMF` |
//! | 4 | format version (currently 2) |
//! | 2 | length `k` of the model kind |
//! | k | model kind, UTF-8 (for example `svc`) |
//! | 4 | schema version of that kind's body ([`ModelFile::SCHEMA`]) |
//! | 8 | body length `n` |
//! | 4 | CRC-32 of everything from the version up to the end of the body |
//! | n | body: the model, serde-encoded with bincode |
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
/// The model-file format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;

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

    /// Reads a model from `path`.
    fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_bytes(&bytes)
    }
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

/// Wraps an encoded body in a current header with a valid checksum.
///
/// Models are saved with [`ModelFile::to_bytes`]; this is for tests and fuzzers that forge
/// files whose checksum is right but whose contents are not (what
/// [`ModelFile::check_consistent`] must catch).
pub fn seal(kind: &str, schema: u32, body: &[u8]) -> Result<Vec<u8>> {
    let kind_len =
        u16::try_from(kind.len()).map_err(|_| Error::model_file("model kind name too long"))?;
    let mut out = margin_core::memory::vec_with_capacity(
        30 + kind.len() + body.len(),
        "the model file",
        margin_core::memory::FEWER_FEATURES,
    )?;
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&kind_len.to_le_bytes());
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(&schema.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[8..]);
    crc.update(body);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(body);
    Ok(out)
}

/// The encoded body of an intact model file (header and checksum verified), for tools that
/// re-seal altered bodies with [`seal`].
pub fn body_of(bytes: &[u8]) -> Result<&[u8]> {
    Header::parse(bytes).map(|h| h.body)
}

struct Header<'a> {
    kind: &'a str,
    schema: u32,
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
            let s = bytes
                .get(at..at + n)
                .ok_or_else(|| Error::model_file("file is truncated (header incomplete)"))?;
            at += n;
            Ok(s)
        };
        let version = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        if version != FORMAT_VERSION {
            // Older and newer layouts differ after this field: say so before reading on.
            return Err(version_refusal(version));
        }
        let kind_len = u16::from_le_bytes(take(2)?.try_into().unwrap_or_default()) as usize;
        let kind_bytes = take(kind_len)?;
        let schema = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        let body_len = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let stored_crc = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        let header_end = 8 + 4 + 2 + kind_len + 4 + 8;
        let body_start = header_end + 4;
        let available = (bytes.len() - body_start) as u64;
        if body_len > available {
            return Err(Error::model_file(format!(
                "file is truncated: body has {available} of {body_len} bytes"
            )));
        }
        if body_len < available {
            return Err(Error::model_file(format!(
                "file has {} unexpected trailing bytes",
                available - body_len
            )));
        }
        let body = &bytes[body_start..];
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[8..header_end]);
        crc.update(body);
        if crc.finalize() != stored_crc {
            return Err(Error::model_file(
                "checksum mismatch: the file is corrupted",
            ));
        }
        let kind = std::str::from_utf8(kind_bytes)
            .map_err(|_| Error::model_file("model kind is not UTF-8"))?;
        Ok(Self { kind, schema, body })
    }
}

fn version_refusal(version: u32) -> Error {
    if version > FORMAT_VERSION {
        Error::model_file(format!(
            "format version {version} is newer than this margin reads ({FORMAT_VERSION}): upgrade margin"
        ))
    } else {
        Error::model_file(format!(
            "format version {version} is no longer supported (this margin reads {FORMAT_VERSION}): train the model again"
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
        newer[8..12].copy_from_slice(&3u32.to_le_bytes());
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
