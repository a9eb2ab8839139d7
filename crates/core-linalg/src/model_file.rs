//! The model file every margin model saves to and loads from.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `MARGINMF` |
//! | 4 | format version (currently 1) |
//! | 2 | length `k` of the model kind |
//! | k | model kind, UTF-8 (for example `svc`) |
//! | 8 | body length `n` |
//! | 4 | CRC-32 of everything from the version up to the end of the body |
//! | n | body: the model, serde-encoded with bincode |
//!
//! The body codec appears only in this module, so it can be replaced without touching models.
//! A truncated, corrupted, foreign, other-kind or newer-version file is refused with
//! [`Error::ModelFile`] saying which.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"MARGINMF";
/// The model-file format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

fn codec() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// A model that can be saved to and loaded from a margin model file.
pub trait ModelFile: Serialize + DeserializeOwned {
    /// The kind written in the header (for example `"svc"`); `load` refuses other kinds.
    const KIND: &'static str;

    /// Encodes the model with its header.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        encode(Self::KIND, self)
    }

    /// Checks the invariants a decoded model must hold (shapes that agree), so that an intact
    /// file written by something else is refused instead of breaking prediction later. The
    /// default accepts everything; models whose fields must agree override it.
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }

    /// Decodes a model, refusing anything that is not an intact, consistent file of this kind.
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let model: Self = decode(Self::KIND, bytes)?;
        model.check_consistent()?;
        Ok(model)
    }

    /// Writes the model to `path` (through a temporary file, so a failed save leaves no
    /// half-written model behind).
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = self.to_bytes()?;
        let tmp = path.with_extension("margin-tmp");
        std::fs::write(&tmp, &bytes).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Reads a model from `path`.
    fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_bytes(&bytes)
    }
}

/// The kind named in a model file's header, without decoding the body (for tools that dispatch
/// on it, such as `margin predict`).
pub fn peek_kind(bytes: &[u8]) -> Result<String> {
    Header::parse(bytes).map(|h| h.kind.to_owned())
}

fn encode<T: Serialize + ?Sized>(kind: &str, model: &T) -> Result<Vec<u8>> {
    let body = bincode::serde::encode_to_vec(model, codec())
        .map_err(|e| Error::model_file(format!("could not encode the model: {e}")))?;
    let kind_len =
        u16::try_from(kind.len()).map_err(|_| Error::model_file("model kind name too long"))?;
    let mut out = Vec::with_capacity(26 + kind.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&kind_len.to_le_bytes());
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[8..]);
    crc.update(&body);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

struct Header<'a> {
    kind: &'a str,
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
        let kind_len = u16::from_le_bytes(take(2)?.try_into().unwrap_or_default()) as usize;
        let kind_bytes = take(kind_len)?;
        let body_len = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
        let stored_crc = u32::from_le_bytes(take(4)?.try_into().unwrap_or_default());
        let header_end = 8 + 4 + 2 + kind_len + 8;
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
        if version > FORMAT_VERSION {
            return Err(Error::model_file(format!(
                "format version {version} is newer than this margin reads ({FORMAT_VERSION}): upgrade margin"
            )));
        }
        if version < FORMAT_VERSION {
            return Err(Error::model_file(format!(
                "format version {version} is no longer supported (current {FORMAT_VERSION})"
            )));
        }
        let kind = std::str::from_utf8(kind_bytes)
            .map_err(|_| Error::model_file("model kind is not UTF-8"))?;
        Ok(Self { kind, body })
    }
}

fn decode<T: DeserializeOwned>(kind: &str, bytes: &[u8]) -> Result<T> {
    let header = Header::parse(bytes)?;
    if header.kind != kind {
        return Err(Error::model_file(format!(
            "this file holds a `{}` model, not a `{kind}` model",
            header.kind
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
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Other;
    impl ModelFile for Other {
        const KIND: &'static str = "other";
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
            &Dense {
                data: vec![1.0; 3],
                nrows: 2,
                ncols: 2,
            },
        )
        .unwrap();
        assert!(matches!(
            decode::<crate::DenseMatrix>("toy", &dense),
            Err(Error::ModelFile { .. })
        ));
        let good = encode(
            "toy",
            &Dense {
                data: vec![1.0; 4],
                nrows: 2,
                ncols: 2,
            },
        )
        .unwrap();
        assert!(decode::<crate::DenseMatrix>("toy", &good).is_ok());
        let csr = encode(
            "toy",
            &Csr {
                indptr: vec![0, 2],
                indices: vec![1, 0],
                values: vec![1.0, 2.0],
                ncols: 2,
            },
        )
        .unwrap();
        assert!(matches!(
            decode::<crate::CsrMatrix>("toy", &csr),
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
        newer[8..12].copy_from_slice(&2u32.to_le_bytes());
        // Re-seal the checksum so only the version is wrong.
        let kind_len = 3;
        let header_end = 8 + 4 + 2 + kind_len + 8;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&newer[8..header_end]);
        crc.update(&newer[header_end + 4..]);
        newer[header_end..header_end + 4].copy_from_slice(&crc.finalize().to_le_bytes());
        assert!(refusal(&newer).contains("newer"));
        let mut trailing = toy().to_bytes().unwrap();
        trailing.push(0);
        assert!(refusal(&trailing).contains("trailing"));
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
        fn round_trip_is_exact(w in proptest::collection::vec(any::<f64>(), 0..50), name in ".{0,20}", k in any::<Option<u32>>()) {
            let m = Toy { w, name, k };
            let back = Toy::from_bytes(&m.to_bytes().unwrap()).unwrap();
            prop_assert_eq!(back.w.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), m.w.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            prop_assert_eq!(back.name, m.name);
            prop_assert_eq!(back.k, m.k);
        }
    }
}
