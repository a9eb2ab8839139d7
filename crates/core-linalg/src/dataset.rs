//! Datasets: records plus typed targets, optional sample weights and feature names.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};
use crate::records::{Matrix, Records};

/// An original class label, as the data file or caller spelled it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Label {
    /// A numeric label (LIBSVM files: `-1`, `+1`, `0`, `2`, `26`, `-1.0`).
    Number(f64),
    /// A text label (CSV files: `"setosa"`).
    Text(#[serde(deserialize_with = "text_in_place")] String),
}

/// Reads a text label where the input holds it (`deserialize_str`), not into a buffer sized by
/// the length the input claims: the model-file codec allocates a claimed `String` length before
/// reading it, so a forged file claiming a label of gigabytes would abort the process. The
/// label is copied once it is known to be there.
fn text_in_place<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    struct Text;
    impl serde::de::Visitor<'_> for Text {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a text label")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<String, E> {
            Ok(s.to_owned())
        }
        fn visit_string<E: serde::de::Error>(self, s: String) -> std::result::Result<String, E> {
            Ok(s)
        }
    }
    d.deserialize_str(Text)
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Number(x) => write!(f, "{}", crate::format::format_shortest(*x)),
            Label::Text(s) => f.write_str(s),
        }
    }
}

/// Class targets: each sample's class as a dense index into a sorted list of original labels.
///
/// Labels are sorted (numbers by value, text lexicographically), as scikit-learn's
/// `classes_` are, so class `k` means the same thing whatever order the file listed them in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Classes {
    indices: Vec<u32>,
    labels: Vec<Label>,
}

impl Classes {
    /// Maps numeric labels to classes. Labels must be finite and integer-valued (LIBSVM casts
    /// other values to `int` silently; margin refuses them: they look like regression targets).
    pub fn from_numbers(values: &[f64]) -> Result<Self> {
        for (row, &v) in values.iter().enumerate() {
            if !v.is_finite() {
                return Err(Error::NonFinite { row, col: 0 });
            }
            if v.fract() != 0.0 {
                return Err(Error::invalid_parameter(
                    "class label",
                    format!("{v} (sample {row})"),
                    "integer-valued class labels; these targets look continuous: use a regressor",
                ));
            }
        }
        // `+ 0.0` turns -0.0 into 0.0: they are one label, and total_cmp would split them.
        let normalized: Vec<f64> = values.iter().map(|&v| v + 0.0).collect();
        let mut uniq = normalized.clone();
        uniq.sort_by(f64::total_cmp);
        uniq.dedup();
        let indices = normalized
            .iter()
            .map(|v| uniq.partition_point(|u| u.total_cmp(v).is_lt()) as u32)
            .collect();
        Ok(Self {
            indices,
            labels: uniq.into_iter().map(Label::Number).collect(),
        })
    }

    /// Maps text labels to classes.
    pub fn from_text<S: AsRef<str>>(values: &[S]) -> Self {
        let mut uniq: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
        uniq.sort_unstable();
        uniq.dedup();
        let indices = values
            .iter()
            .map(|v| uniq.partition_point(|u| *u < v.as_ref()) as u32)
            .collect();
        Self {
            indices,
            labels: uniq
                .into_iter()
                .map(|s| Label::Text(s.to_owned()))
                .collect(),
        }
    }

    /// Builds classes from dense indices and their labels (`labels[k]` names class `k`).
    pub fn from_indices(indices: Vec<u32>, labels: Vec<Label>) -> Result<Self> {
        if let Some((row, &k)) = indices
            .iter()
            .enumerate()
            .find(|(_, k)| **k as usize >= labels.len())
        {
            return Err(Error::invalid_parameter(
                "class index",
                format!("{k} (sample {row})"),
                format!("below the number of labels, {}", labels.len()),
            ));
        }
        Ok(Self { indices, labels })
    }

    /// Each sample's class index.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The original labels, indexed by class.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Number of distinct classes.
    pub fn n_classes(&self) -> usize {
        self.labels.len()
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Samples per class.
    pub fn counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.labels.len()];
        for &k in &self.indices {
            c[k as usize] += 1;
        }
        c
    }

    /// The same label set restricted to the samples at `rows` (labels keep their indices, so a
    /// class may be absent from a subset).
    pub fn select(&self, rows: &[usize]) -> Self {
        Self {
            indices: rows.iter().map(|&i| self.indices[i]).collect(),
            labels: self.labels.clone(),
        }
    }
}

/// What the model should predict for each sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Targets {
    /// Class labels.
    Classes(Classes),
    /// Numbers as read; regression targets, or class labels a classifier will map.
    Values(Vec<f64>),
}

impl Targets {
    /// Number of samples.
    pub fn len(&self) -> usize {
        match self {
            Targets::Classes(c) => c.len(),
            Targets::Values(v) => v.len(),
        }
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The targets as classes (numeric values are mapped; see [`Classes::from_numbers`]).
    pub fn classes(&self) -> Result<Cow<'_, Classes>> {
        match self {
            Targets::Classes(c) => Ok(Cow::Borrowed(c)),
            Targets::Values(v) => Classes::from_numbers(v).map(Cow::Owned),
        }
    }

    /// The targets as numbers, for regression. Numeric class labels convert; text ones cannot.
    pub fn values(&self) -> Result<Cow<'_, [f64]>> {
        match self {
            Targets::Values(v) => Ok(Cow::Borrowed(v)),
            Targets::Classes(c) => c
                .indices()
                .iter()
                .map(|&k| match &c.labels()[k as usize] {
                    Label::Number(x) => Ok(*x),
                    Label::Text(s) => Err(Error::invalid_parameter(
                        "target",
                        format!("{s:?}"),
                        "numeric targets for regression",
                    )),
                })
                .collect::<Result<Vec<_>>>()
                .map(Cow::Owned),
        }
    }

    /// The targets of the samples at `rows`.
    pub fn select(&self, rows: &[usize]) -> Self {
        match self {
            Targets::Classes(c) => Targets::Classes(c.select(rows)),
            Targets::Values(v) => Targets::Values(rows.iter().map(|&i| v[i]).collect()),
        }
    }
}

/// Records plus targets: what `fit` takes.
///
/// Fields are public so examples read `test.records`; [`Dataset::new`] and every `fit` check
/// that their lengths agree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// The samples, one row each.
    pub records: Matrix,
    /// One target per sample.
    pub targets: Targets,
    /// Optional non-negative weight per sample.
    pub sample_weights: Option<Vec<f64>>,
    /// Optional name per feature.
    pub feature_names: Option<Vec<String>>,
}

impl Dataset {
    /// Pairs records with targets, checking that each sample has one target.
    pub fn new(records: impl Into<Matrix>, targets: Targets) -> Result<Self> {
        let ds = Self {
            records: records.into(),
            targets,
            sample_weights: None,
            feature_names: None,
        };
        ds.check_consistent()?;
        Ok(ds)
    }

    /// Adds one weight per sample (finite, non-negative).
    pub fn with_sample_weights(mut self, weights: Vec<f64>) -> Result<Self> {
        self.sample_weights = Some(weights);
        self.check_consistent()?;
        Ok(self)
    }

    /// Adds one name per feature.
    pub fn with_feature_names(mut self, names: Vec<String>) -> Result<Self> {
        self.feature_names = Some(names);
        self.check_consistent()?;
        Ok(self)
    }

    /// Number of samples.
    pub fn n_samples(&self) -> usize {
        self.records.n_samples()
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.records.n_features()
    }

    /// Checks that targets, weights and names agree with the records.
    pub fn check_consistent(&self) -> Result<()> {
        let n = self.records.n_samples();
        if self.targets.len() != n {
            return Err(Error::shape(
                "targets (one per sample)",
                n,
                self.targets.len(),
            ));
        }
        if let Some(w) = &self.sample_weights {
            if w.len() != n {
                return Err(Error::shape("sample weights (one per sample)", n, w.len()));
            }
            if let Some(row) = w.iter().position(|x| !x.is_finite()) {
                return Err(Error::NonFinite { row, col: 0 });
            }
            if let Some((row, &x)) = w.iter().enumerate().find(|(_, x)| **x < 0.0) {
                return Err(Error::invalid_parameter(
                    "sample_weights",
                    format!("{x} (sample {row})"),
                    "non-negative weights",
                ));
            }
        }
        if let Some(names) = &self.feature_names
            && names.len() != self.records.n_features()
        {
            return Err(Error::shape(
                "feature names (one per feature)",
                self.records.n_features(),
                names.len(),
            ));
        }
        Ok(())
    }

    /// The samples at `rows`, in that order, with their targets and weights (a copy whose
    /// memory is asked for first).
    pub fn select(&self, rows: &[usize]) -> Result<Self> {
        Ok(Self {
            records: self.records.select_rows(rows)?,
            targets: self.targets.select(rows),
            sample_weights: self
                .sample_weights
                .as_ref()
                .map(|w| rows.iter().map(|&i| w[i]).collect()),
            feature_names: self.feature_names.clone(),
        })
    }
}

/// The classes that occur in a dataset, in sorted label order, and each sample's index among
/// them: what a classifier trains on (a subset's [`Classes`] may list labels it lacks).
#[derive(Clone, Debug, PartialEq)]
pub struct PresentClasses {
    /// The labels that occur, sorted.
    pub labels: Vec<Label>,
    /// Each sample's index into `labels`.
    pub y: Vec<usize>,
    /// Samples per label.
    pub counts: Vec<usize>,
}

impl Classes {
    /// The classes that occur, re-indexed densely in sorted order.
    pub fn present(&self) -> PresentClasses {
        let all = self.counts();
        let present: Vec<usize> = (0..self.n_classes()).filter(|&c| all[c] > 0).collect();
        let mut index = vec![0; self.n_classes()];
        for (k, &c) in present.iter().enumerate() {
            index[c] = k;
        }
        PresentClasses {
            labels: present.iter().map(|&c| self.labels()[c].clone()).collect(),
            y: self.indices().iter().map(|&c| index[c as usize]).collect(),
            counts: present.iter().map(|&c| all[c]).collect(),
        }
    }
}

/// Class indices from decision scores: for two classes the sign of the one column (positive
/// means class 1, scikit-learn's convention), else the largest column, ties to the earlier
/// class.
pub fn classes_from_scores(scores: &crate::DenseMatrix, n_classes: usize) -> Vec<usize> {
    scores
        .rows()
        .map(|s| {
            if n_classes == 2 {
                usize::from(s[0] > 0.0)
            } else {
                (0..s.len()).fold(0, |best, k| if s[k] > s[best] { k } else { best })
            }
        })
        .collect()
}

/// Per-class weights multiplying each sample's cost or loss (scikit-learn's `class_weight`,
/// LIBSVM's `-wi`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum ClassWeight {
    /// Every class weighs 1.
    #[default]
    Uniform,
    /// `n / (k · n_c)`: rare classes weigh more.
    Balanced,
    /// Given weights for some labels; unlisted labels weigh 1 (see [`ClassWeight::per_class`]
    /// for labels the data does not have).
    Given(Vec<(Label, f64)>),
}

impl ClassWeight {
    /// Refuses a given weight that is negative or not finite, naming its class
    /// (`class_weight[LABEL]`): the rule every params struct with a `class_weight` checks.
    pub fn check(&self) -> Result<()> {
        if let ClassWeight::Given(given) = self
            && let Some((label, w)) = given.iter().find(|(_, w)| !(w.is_finite() && *w >= 0.0))
        {
            return Err(Error::invalid_parameter(
                format!("class_weight[{label}]"),
                w,
                "a finite number ≥ 0",
            ));
        }
        Ok(())
    }

    /// The weight of each class, for classes `labels` with sample counts `counts`.
    ///
    /// Given weights follow scikit-learn's `compute_class_weight`: labels the data does not
    /// have are ignored when every class of the data has a weight (a cross-validation fold
    /// may lack a rare class), and refused with [`Error::InvalidParameter`] when some class
    /// has none, since a weight then most likely went to a mistyped label.
    pub fn per_class(&self, labels: &[Label], counts: &[usize]) -> Result<Vec<f64>> {
        let n: usize = counts.iter().sum();
        let given = match self {
            ClassWeight::Uniform => return Ok(vec![1.0; labels.len()]),
            ClassWeight::Balanced => {
                return Ok(counts
                    .iter()
                    .map(|&c| n as f64 / (labels.len() as f64 * c.max(1) as f64))
                    .collect());
            }
            ClassWeight::Given(given) => given,
        };
        let weight_of = |l: &Label| given.iter().find(|(g, _)| g == l).map(|(_, w)| *w);
        let unweighted: Vec<String> = labels
            .iter()
            .filter(|l| weight_of(l).is_none())
            .map(Label::to_string)
            .collect();
        let absent: Vec<String> = given
            .iter()
            .filter(|(g, _)| !labels.contains(g))
            .map(|(g, _)| g.to_string())
            .collect();
        if !unweighted.is_empty() && !absent.is_empty() {
            return Err(Error::invalid_parameter(
                "class_weight",
                format!(
                    "weights for {} (not classes of the data)",
                    absent.join(", ")
                ),
                format!(
                    "weights for the data's classes ({} have none): correct the labels, or give every class a weight",
                    unweighted.join(", ")
                ),
            ));
        }
        Ok(labels.iter().map(|l| weight_of(l).unwrap_or(1.0)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_weights_for_absent_labels_follow_scikit_learn() {
        let labels = [Label::Number(1.0), Label::Number(2.0)];
        let given = |pairs: &[(f64, f64)]| {
            ClassWeight::Given(pairs.iter().map(|&(l, w)| (Label::Number(l), w)).collect())
        };
        // Every class weighted: an extra label (a class a fold lacks) is ignored.
        assert_eq!(
            given(&[(1.0, 2.0), (2.0, 3.0), (7.0, 9.0)])
                .per_class(&labels, &[4, 5])
                .unwrap(),
            [2.0, 3.0]
        );
        // Some classes weighted, none absent: the others weigh 1.
        assert_eq!(
            given(&[(2.0, 3.0)]).per_class(&labels, &[4, 5]).unwrap(),
            [1.0, 3.0]
        );
        // A weight for a label the data lacks while class 1 has none: refused, naming both.
        let err = given(&[(2.0, 3.0), (3.0, 5.0)])
            .per_class(&labels, &[4, 5])
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::InvalidParameter { .. }), "{text}");
        assert!(
            text.contains("weights for 3") && text.contains("(1 have none)"),
            "{text}"
        );
    }

    #[test]
    fn class_weight_check_names_the_class_of_a_bad_weight() {
        assert!(ClassWeight::Uniform.check().is_ok());
        assert!(ClassWeight::Balanced.check().is_ok());
        let given = |w: f64| {
            ClassWeight::Given(vec![
                (Label::Number(2.0), 1.0),
                (Label::Text("b".into()), w),
            ])
        };
        assert!(given(0.0).check().is_ok());
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            match given(bad).check() {
                Err(Error::InvalidParameter { name, expected, .. }) => {
                    assert_eq!(name, "class_weight[b]");
                    assert_eq!(expected, "a finite number ≥ 0");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
