//! Class labels as the caller spelled them, and the conversions between them and the caller's
//! own types: `Label::from("setosa")`, `label == 3`, `i64::try_from(&label)?`,
//! [`labels_to::<i64>(&predicted)?`](labels_to).

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// An original class label, as the data file or caller spelled it.
///
/// Built from the caller's values with `From` (`&str`, `String`, `i64`, `i32`, `u32`, `usize`,
/// `f64`; integers become [`Label::Number`], exact up to ±2⁵³), compared with them with `==`
/// (`&str`, `str`, `String`, `i64`, `i32`, `f64`, either side; a text label never equals a
/// number), and turned back with `TryFrom` (`String`, `i64`, `f64`) or, for a whole vector of
/// predictions, [`labels_to`].
///
/// ```
/// use margin_core::{Label, labels_to};
///
/// let predicted = vec![Label::from(3), Label::from(-1)];
/// assert_eq!(predicted, [3, -1]);
/// assert!(Label::from("cat") == "cat" && Label::from("3") != 3);
/// let back: Vec<i64> = labels_to(&predicted)?;
/// assert_eq!(back, [3, -1]);
/// assert!(i64::try_from(&Label::from("cat")).is_err());
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Label {
    /// A numeric label (LIBSVM files: `-1`, `+1`, `0`, `2`, `26`, `-1.0`).
    Number(f64),
    /// A text label (CSV files: `"setosa"`).
    Text(#[serde(deserialize_with = "crate::stored::string")] String),
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Number(x) => write!(f, "{}", crate::format::format_shortest(*x)),
            Label::Text(s) => f.write_str(s),
        }
    }
}

impl Label {
    /// The label as an `i64`, when it is a number with no fractional part inside `i64`'s range.
    fn as_i64(&self) -> Option<i64> {
        // 2^63 is exact in f64; every integer-valued f64 in [-2^63, 2^63) converts exactly.
        const LIMIT: f64 = 9_223_372_036_854_775_808.0;
        match *self {
            Label::Number(x) if x.fract() == 0.0 && (-LIMIT..LIMIT).contains(&x) => Some(x as i64),
            _ => None,
        }
    }

    /// The error for a label that is not of the type asked for.
    fn not_a(&self, wanted: &str) -> Error {
        Error::LabelType {
            label: self.to_string(),
            wanted: wanted.to_string(),
        }
    }
}

/// The order classes are numbered in: numbers by value (−0 and 0 are one label), then text
/// lexicographically, as scikit-learn's sorted `classes_`.
pub fn class_order(a: &Label, b: &Label) -> Ordering {
    match (a, b) {
        (Label::Number(x), Label::Number(y)) => (x + 0.0).total_cmp(&(y + 0.0)),
        (Label::Number(_), Label::Text(_)) => Ordering::Less,
        (Label::Text(_), Label::Number(_)) => Ordering::Greater,
        (Label::Text(s), Label::Text(t)) => s.cmp(t),
    }
}

impl From<&str> for Label {
    fn from(s: &str) -> Self {
        Label::Text(s.to_owned())
    }
}

impl From<&String> for Label {
    fn from(s: &String) -> Self {
        Label::Text(s.clone())
    }
}

impl From<String> for Label {
    fn from(s: String) -> Self {
        Label::Text(s)
    }
}

impl From<f64> for Label {
    fn from(x: f64) -> Self {
        Label::Number(x)
    }
}

/// Integers become numbers: exact for every `i32`/`u32`, and for `i64`/`usize` up to ±2⁵³
/// (larger ones round, as `as f64` does).
macro_rules! label_from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Label {
            #[allow(clippy::cast_precision_loss)]
            fn from(k: $t) -> Self {
                Label::Number(k as f64)
            }
        }
    )*};
}
label_from_integer!(i64, i32, u32, usize);

impl PartialEq<str> for Label {
    fn eq(&self, other: &str) -> bool {
        matches!(self, Label::Text(s) if s == other)
    }
}

impl PartialEq<&str> for Label {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl PartialEq<String> for Label {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<f64> for Label {
    fn eq(&self, other: &f64) -> bool {
        matches!(self, Label::Number(x) if x == other)
    }
}

impl PartialEq<i64> for Label {
    fn eq(&self, other: &i64) -> bool {
        self.as_i64() == Some(*other)
    }
}

impl PartialEq<i32> for Label {
    fn eq(&self, other: &i32) -> bool {
        self == &i64::from(*other)
    }
}

/// `value == label` reads the same as `label == value` (so `assert_eq!(user_labels,
/// predicted)` compiles either way round).
macro_rules! label_eq_reversed {
    ($($t:ty),*) => {$(
        impl PartialEq<Label> for $t {
            fn eq(&self, label: &Label) -> bool {
                label == self
            }
        }
    )*};
}
label_eq_reversed!(str, &str, String, f64, i64, i32);

impl TryFrom<&Label> for String {
    type Error = Error;

    /// A text label's text; a number is [`Error::LabelType`] (its text is `label.to_string()`).
    fn try_from(label: &Label) -> Result<Self> {
        match label {
            Label::Text(s) => Ok(s.clone()),
            Label::Number(_) => Err(label.not_a("text (String)")),
        }
    }
}

impl TryFrom<&Label> for i64 {
    type Error = Error;

    /// A whole number within `i64`'s range; anything else is [`Error::LabelType`].
    fn try_from(label: &Label) -> Result<Self> {
        label
            .as_i64()
            .ok_or_else(|| label.not_a("an integer (i64)"))
    }
}

impl TryFrom<&Label> for f64 {
    type Error = Error;

    /// A numeric label's value; text is [`Error::LabelType`].
    fn try_from(label: &Label) -> Result<Self> {
        match label {
            Label::Number(x) => Ok(*x),
            Label::Text(_) => Err(label.not_a("a number (f64)")),
        }
    }
}

impl TryFrom<Label> for String {
    type Error = Error;

    /// As `String::try_from(&label)`, without copying the text.
    fn try_from(label: Label) -> Result<Self> {
        match label {
            Label::Text(s) => Ok(s),
            number => String::try_from(&number),
        }
    }
}

impl TryFrom<Label> for i64 {
    type Error = Error;

    /// As `i64::try_from(&label)`.
    fn try_from(label: Label) -> Result<Self> {
        i64::try_from(&label)
    }
}

impl TryFrom<Label> for f64 {
    type Error = Error;

    /// As `f64::try_from(&label)`.
    fn try_from(label: Label) -> Result<Self> {
        f64::try_from(&label)
    }
}

/// Converts predicted labels back to the type the caller gave them as (`String`, `i64` or
/// `f64`): the first label that does not convert is [`Error::LabelType`], naming it.
///
/// ```
/// use margin_core::{Label, labels_to};
///
/// let predicted = vec![Label::from("spam"), Label::from("ham")];
/// let names: Vec<String> = labels_to(&predicted)?;
/// assert_eq!(names, ["spam", "ham"]);
/// assert!(labels_to::<i64>(&predicted).is_err());
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn labels_to<T>(labels: &[Label]) -> Result<Vec<T>>
where
    T: for<'a> TryFrom<&'a Label, Error = Error>,
{
    labels.iter().map(T::try_from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_built_from_the_callers_values() {
        assert_eq!(Label::from("a"), Label::Text("a".into()));
        assert_eq!(Label::from(String::from("a")), Label::Text("a".into()));
        assert_eq!(Label::from(&String::from("a")), Label::Text("a".into()));
        assert_eq!(Label::from(-3i64), Label::Number(-3.0));
        assert_eq!(Label::from(-3i32), Label::Number(-3.0));
        assert_eq!(Label::from(7u32), Label::Number(7.0));
        assert_eq!(Label::from(7usize), Label::Number(7.0));
        assert_eq!(Label::from(0.5), Label::Number(0.5));
    }

    #[test]
    fn labels_equal_the_callers_values_of_their_own_kind_only() {
        let text = Label::from("3");
        let number = Label::from(3);
        let three = String::from("3");
        assert_eq!(text, "3");
        assert_eq!(text, *"3");
        assert_eq!(text, three);
        assert_eq!("3", text);
        assert_eq!(three, text);
        assert_ne!(text, 3);
        assert_ne!(text, 3i32);
        assert_ne!(text, 3.0);
        assert_eq!(number, 3);
        assert_eq!(number, 3i32);
        assert_eq!(number, 3.0);
        assert_eq!(3, number);
        assert_eq!(3.0, number);
        assert_ne!(number, "3");
        assert_ne!(number, three);
        assert_ne!("3", number);
        assert_ne!(number, 4);
        assert_ne!(Label::from(3.5), 3);
        assert_eq!(Label::from(3.5), 3.5);
        let nan = f64::NAN;
        assert!(Label::Number(nan) != nan);
        // Vectors compare element by element, either way round.
        let predicted = vec![Label::from("b"), Label::from("a")];
        assert_eq!(predicted, ["b", "a"]);
        assert_eq!(vec!["b", "a"], predicted);
        assert_ne!(predicted, ["a", "a"]);
    }

    #[test]
    fn labels_convert_back_and_name_the_label_that_does_not() {
        for k in [0i64, -1, 26, 1 << 53, i64::MIN] {
            assert_eq!(i64::try_from(&Label::from(k)).unwrap(), k);
            assert_eq!(i64::try_from(Label::from(k)).unwrap(), k);
        }
        for x in [0.25, -1.0, 1e300] {
            assert_eq!(f64::try_from(&Label::from(x)).unwrap(), x);
            assert_eq!(f64::try_from(Label::from(x)).unwrap(), x);
        }
        for s in ["", "setosa", "3"] {
            assert_eq!(String::try_from(&Label::from(s)).unwrap(), s);
            assert_eq!(String::try_from(Label::from(s)).unwrap(), s);
        }
        let refused = [
            (
                Label::from("setosa"),
                i64::try_from(&Label::from("setosa")).err(),
            ),
            (Label::from(0.5), i64::try_from(&Label::from(0.5)).err()),
            (Label::from(1e19), i64::try_from(&Label::from(1e19)).err()),
            (
                Label::from(f64::NAN),
                i64::try_from(Label::from(f64::NAN)).err(),
            ),
            (Label::from("x"), f64::try_from(&Label::from("x")).err()),
            (Label::from(2), String::try_from(Label::from(2)).err()),
        ];
        for (label, err) in refused {
            match err {
                Some(Error::LabelType { label: named, .. }) => assert_eq!(named, label.to_string()),
                other => panic!("{label}: {other:?}"),
            }
        }
    }

    #[test]
    fn labels_to_converts_a_whole_prediction_or_names_the_first_misfit() {
        let predicted = vec![Label::from(1), Label::from(-1), Label::from(1)];
        assert_eq!(labels_to::<i64>(&predicted).unwrap(), [1, -1, 1]);
        assert_eq!(labels_to::<f64>(&predicted).unwrap(), [1.0, -1.0, 1.0]);
        let mixed = vec![Label::from(1), Label::from("two"), Label::from("three")];
        let e = labels_to::<i64>(&mixed).unwrap_err();
        assert!(
            matches!(&e, Error::LabelType { label, .. } if label == "two"),
            "{e}"
        );
        assert!(e.to_string().contains("two"), "{e}");
    }

    #[test]
    fn class_order_sorts_numbers_then_text_and_merges_signed_zero() {
        let mut labels = vec![
            Label::from("b"),
            Label::from(2),
            Label::from("a"),
            Label::from(-1),
        ];
        labels.sort_by(class_order);
        assert_eq!(
            labels,
            [
                Label::from(-1),
                Label::from(2),
                Label::from("a"),
                Label::from("b")
            ]
        );
        assert_eq!(
            class_order(&Label::from(-0.0), &Label::from(0.0)),
            Ordering::Equal
        );
    }
}
