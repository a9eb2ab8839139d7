//! Reference fixtures for tests: the text files the model crates' tests compare against, written
//! by the generator scripts beside them (`tests/fixtures/gen_*.py`, which record the command and
//! the versions of scikit-learn or LIBSVM that produced them).
//!
//! A fixture is a list of `key shape values...` lines (`#` starts a comment line): the key names
//! a field, the shape is `RxC` for a matrix (row-major values) and anything else (`-`, a length)
//! otherwise, the values are whitespace-separated words.
//! The accessors panic with the file and key named when a field is missing or does not parse,
//! so they belong in tests only, like [`crate::battery`].
//!
//! ```
//! use margin_testing::fixture::Fixture;
//!
//! let f = Fixture::parse("# written by gen.py\ncoef 1x2 0.5 -1.25\nparams - alpha=0.1 fit=true\n")
//!     .unwrap();
//! assert_eq!(f.floats("coef"), [0.5, -1.25]);
//! assert_eq!(f.params()["alpha"], "0.1");
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use margin_core::{Dataset, DenseMatrix, Error, Result};
use margin_io::{LibsvmOptions, read_libsvm};

/// The LIBSVM data set at `path`, relative to the repository root, with `n_features` features
/// (sparse records): the fixtures name their data that way, and `manifest_dir` (pass
/// `env!("CARGO_MANIFEST_DIR")`) is a crate two levels below that root.
///
/// # Panics
/// If the file cannot be read (tests only).
pub fn repo_libsvm(manifest_dir: &str, path: &str, n_features: usize) -> Dataset {
    let opts = LibsvmOptions {
        n_features: Some(n_features),
        ..Default::default()
    };
    read_libsvm(&Path::new(manifest_dir).join("../..").join(path), &opts)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One fixture file's fields.
#[derive(Clone, Debug)]
pub struct Fixture {
    origin: String,
    /// Key → (shape, words).
    fields: HashMap<String, (String, Vec<String>)>,
}

impl Fixture {
    /// Reads the fixture at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let mut fixture = Self::parse(&text)?;
        fixture.origin = path.display().to_string();
        Ok(fixture)
    }

    /// Reads `tests/fixtures/<file>` of the crate whose manifest directory is `manifest_dir`
    /// (pass `env!("CARGO_MANIFEST_DIR")`): where every model crate keeps its fixtures, so the
    /// suites need not each rebuild the path.
    ///
    /// # Panics
    /// If the file cannot be read or parsed (tests only).
    pub fn bundled(manifest_dir: &str, file: &str) -> Self {
        Self::read(Path::new(manifest_dir).join("tests/fixtures").join(file))
            .unwrap_or_else(|e| panic!("fixture {file}: {e}"))
    }

    /// The fixture's file name without directory and extension (`fixture text` when parsed
    /// from text): how the suites' failure messages say which fixture failed.
    pub fn name(&self) -> &str {
        Path::new(&self.origin)
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or(&self.origin)
    }

    /// Parses fixture text; a line with a key but no shape is refused with its line number.
    pub fn parse(text: &str) -> Result<Self> {
        let mut fields = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut words = line.split_whitespace().map(str::to_owned);
            let (Some(key), Some(shape)) = (words.next(), words.next()) else {
                return Err(Error::parse(
                    number + 1,
                    1,
                    "expected `key shape values...` (a key, then a shape such as 3x4 or -)",
                ));
            };
            fields.insert(key, (shape, words.collect()));
        }
        Ok(Self {
            origin: "fixture text".into(),
            fields,
        })
    }

    /// The words of field `key`.
    ///
    /// # Panics
    /// If the fixture has no such field.
    pub fn words(&self, key: &str) -> &[String] {
        &self.field(key).1
    }

    /// The shape word of field `key`.
    ///
    /// # Panics
    /// If the fixture has no such field.
    pub fn shape(&self, key: &str) -> &str {
        &self.field(key).0
    }

    /// Field `key`, of shape `RxC`, as an `R × C` matrix.
    ///
    /// # Panics
    /// If the field is missing, its shape is not `RxC` or does not match its values, or a word
    /// is not a number.
    pub fn matrix(&self, key: &str) -> DenseMatrix {
        let shape = self.shape(key);
        let dims = shape
            .split_once('x')
            .and_then(|(r, c)| Some((r.parse().ok()?, c.parse().ok()?)));
        let Some((rows, cols)) = dims else {
            panic!(
                "{}: field `{key}` has shape `{shape}`, not RxC",
                self.origin
            )
        };
        DenseMatrix::from_row_major(self.floats(key), rows, cols)
            .unwrap_or_else(|e| panic!("{}: field `{key}`: {e}", self.origin))
    }

    fn field(&self, key: &str) -> &(String, Vec<String>) {
        self.fields
            .get(key)
            .unwrap_or_else(|| panic!("{}: no field `{key}`", self.origin))
    }

    /// The first word of field `key`.
    ///
    /// # Panics
    /// If the field is missing or empty.
    pub fn word(&self, key: &str) -> &str {
        self.words(key)
            .first()
            .unwrap_or_else(|| panic!("{}: field `{key}` is empty", self.origin))
    }

    /// Field `key` as numbers.
    ///
    /// # Panics
    /// If the field is missing or a word is not a number.
    pub fn floats(&self, key: &str) -> Vec<f64> {
        self.parsed(key)
    }

    /// Field `key` as integers.
    ///
    /// # Panics
    /// If the field is missing or a word is not an integer.
    pub fn ints(&self, key: &str) -> Vec<i64> {
        self.parsed(key)
    }

    /// The first number of field `key`.
    ///
    /// # Panics
    /// If the field is missing, empty or not a number.
    pub fn float(&self, key: &str) -> f64 {
        self.parse_word(key, self.word(key))
    }

    /// Field `params` (`name=value` words) as a map from name to value, as the generator
    /// wrote them.
    ///
    /// # Panics
    /// If the field is missing or a word has no `=`.
    pub fn params(&self) -> HashMap<String, String> {
        self.words("params")
            .iter()
            .map(|kv| {
                let (k, v) = kv
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{}: param `{kv}` has no `=`", self.origin));
                (k.to_owned(), v.to_owned())
            })
            .collect()
    }

    /// Field `key` as per-sample weights for `n_samples` samples: `none` gives `None`, and
    /// `cycle a b c` gives sample `i` the `(i mod 3)`-th value, the pattern the generator scripts
    /// use to weight samples unevenly without writing one weight per sample.
    ///
    /// # Panics
    /// If the field is missing, is neither `none` nor `cycle` with at least one number.
    pub fn cycled_weights(&self, key: &str, n_samples: usize) -> Option<Vec<f64>> {
        match self.words(key) {
            [none] if none == "none" => None,
            [cycle, values @ ..] if cycle == "cycle" && !values.is_empty() => {
                let values: Vec<f64> = values.iter().map(|w| self.parse_word(key, w)).collect();
                Some((0..n_samples).map(|i| values[i % values.len()]).collect())
            }
            other => panic!(
                "{}: field `{key}`: {other:?} is neither `none` nor `cycle a b ...`",
                self.origin
            ),
        }
    }

    fn parsed<T: FromStr>(&self, key: &str) -> Vec<T> {
        self.words(key)
            .iter()
            .map(|w| self.parse_word(key, w))
            .collect()
    }

    fn parse_word<T: FromStr>(&self, key: &str, word: &str) -> T {
        word.parse().unwrap_or_else(|_| {
            panic!(
                "{}: field `{key}`: `{word}` is not a {}",
                self.origin,
                std::any::type_name::<T>()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_comments_and_malformed_lines() {
        let f =
            Fixture::parse("# c\n\nn 1 3\nlabels 3 -1 2 7\nname - heart\nm 2x2 1 2 3 4\n").unwrap();
        assert_eq!(f.ints("labels"), [-1, 2, 7]);
        assert_eq!(f.matrix("m").row(1), [3.0, 4.0]);
        assert_eq!(f.shape("name"), "-");
        assert_eq!(f.float("n"), 3.0);
        assert_eq!(f.word("name"), "heart");
        assert_eq!(f.name(), "fixture text");
        let w = Fixture::parse("w - cycle 1 2\nn - none\n").unwrap();
        assert_eq!(w.cycled_weights("w", 3), Some(vec![1.0, 2.0, 1.0]));
        assert_eq!(w.cycled_weights("n", 3), None);
        match Fixture::parse("a 1 2\nlonely\n") {
            Err(Error::Parse { line, .. }) => assert_eq!(line, 2),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    #[should_panic(expected = "no field `missing`")]
    fn a_missing_field_names_itself() {
        Fixture::parse("a 1 2\n").unwrap().words("missing");
    }
}
