//! Text read back from model files in place: the model-file codec allocates a `String`'s claimed
//! length before reading it, so a forged file claiming text of gigabytes would abort the
//! process. Every owned `String` a model stores is read through these (with
//! `#[serde(deserialize_with = "margin_core::stored::string")]`), which take the text where the
//! input holds it and copy it once it is known to be there. Sequences are safe as they are:
//! serde caps what it reserves for a claimed element count.

use std::fmt;

use serde::{Deserialize, Deserializer};

/// Reads one string in place.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Text;
    impl serde::de::Visitor<'_> for Text {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("text")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<String, E> {
            Ok(s.to_owned())
        }
        fn visit_string<E: serde::de::Error>(self, s: String) -> Result<String, E> {
            Ok(s)
        }
    }
    d.deserialize_str(Text)
}

/// One string read in place, as a sequence element.
struct InPlace(String);

impl<'de> Deserialize<'de> for InPlace {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        string(d).map(InPlace)
    }
}

/// Reads an optional list of strings (a dataset's feature names), each in place.
pub fn optional_strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let names = Option::<Vec<InPlace>>::deserialize(d)?;
    Ok(names.map(|v| v.into_iter().map(|s| s.0).collect()))
}
