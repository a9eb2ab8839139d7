//! Datasets: records plus typed targets, optional sample weights and feature names.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::into_records::{IntoRecords, Value};
use crate::label::{Label, class_order};
use crate::records::{Matrix, Records};

/// Class targets: each sample's class as a dense index into a sorted list of original labels.
///
/// Labels are sorted (numbers by value, then text lexicographically), as scikit-learn's
/// `classes_` are, so class `k` means the same thing whatever order the file listed them in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Classes {
    indices: Vec<usize>,
    labels: Vec<Label>,
}

/// Each value's index among the distinct values of `values` sorted by `cmp`, and those
/// distinct values (borrowed): the one numbering every class constructor uses.
fn index_sorted<T>(values: &[T], cmp: impl Fn(&T, &T) -> Ordering) -> (Vec<usize>, Vec<&T>) {
    let mut uniq: Vec<&T> = values.iter().collect();
    uniq.sort_unstable_by(|a, b| cmp(a, b));
    uniq.dedup_by(|a, b| cmp(a, b).is_eq());
    let indices = values
        .iter()
        .map(|v| uniq.partition_point(|u| cmp(u, v).is_lt()))
        .collect();
    (indices, uniq)
}

/// Refuses a numeric class label that is not finite or not a whole number.
fn check_class_number(row: usize, v: f64) -> Result<()> {
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
    Ok(())
}

impl Classes {
    /// Maps numeric labels to classes. Labels must be finite and integer-valued (LIBSVM casts
    /// other values to `int` silently; margin refuses them: they look like regression targets).
    pub fn from_numbers(values: &[f64]) -> Result<Self> {
        for (row, &v) in values.iter().enumerate() {
            check_class_number(row, v)?;
        }
        // `+ 0.0` turns -0.0 into 0.0: they are one label, and total_cmp would split them.
        let normalized: Vec<f64> = values.iter().map(|&v| v + 0.0).collect();
        let (indices, uniq) = index_sorted(&normalized, f64::total_cmp);
        Ok(Self {
            indices,
            labels: uniq.into_iter().map(|&v| Label::Number(v)).collect(),
        })
    }

    /// Maps text labels to classes.
    pub fn from_text<S: AsRef<str>>(values: &[S]) -> Self {
        let (indices, uniq) = index_sorted(values, |a, b| a.as_ref().cmp(b.as_ref()));
        Self {
            indices,
            labels: uniq
                .into_iter()
                .map(|s| Label::Text(s.as_ref().to_owned()))
                .collect(),
        }
    }

    /// Maps labels of either kind to classes, numbered in sorted order (numbers by value, then
    /// text). Numeric labels follow [`Classes::from_numbers`]'s rule: finite whole numbers.
    pub fn from_labels(values: &[Label]) -> Result<Self> {
        for (row, v) in values.iter().enumerate() {
            if let Label::Number(x) = v {
                check_class_number(row, *x)?;
            }
        }
        let (indices, uniq) = index_sorted(values, class_order);
        Ok(Self {
            indices,
            labels: uniq
                .into_iter()
                .map(|l| match l {
                    Label::Number(x) => Label::Number(x + 0.0),
                    text => text.clone(),
                })
                .collect(),
        })
    }

    /// Builds classes from dense indices and their labels (`labels[k]` names class `k`).
    pub fn from_indices(indices: Vec<usize>, labels: Vec<Label>) -> Result<Self> {
        if let Some((row, &k)) = indices
            .iter()
            .enumerate()
            .find(|(_, k)| **k >= labels.len())
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
    pub fn indices(&self) -> &[usize] {
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
            c[k] += 1;
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

    /// The class targets, borrowed: `data.targets.classes()?.n_classes()` chains.
    ///
    /// Numeric targets (regression values, or the labels of a LIBSVM file, which are read as
    /// numbers) are [`Error::InvalidParameter`] naming the way out: a classifier maps them with
    /// [`Targets::to_classes`], and [`Dataset::classification`] builds class targets directly.
    pub fn classes(&self) -> Result<&Classes> {
        match self {
            Targets::Classes(c) => Ok(c),
            Targets::Values(_) => Err(Error::invalid_parameter(
                "targets",
                "numeric values",
                "class labels: build the dataset with Dataset::classification, or map numeric \
                 labels (a LIBSVM file's) with targets.to_classes()",
            )),
        }
    }

    /// The targets as classes, mapping numeric values to classes when they are numbers (see
    /// [`Classes::from_numbers`]): borrowed for class targets, a new [`Classes`] otherwise.
    /// What classifiers fit on, so a LIBSVM file's numeric labels train a classifier.
    pub fn to_classes(&self) -> Result<Cow<'_, Classes>> {
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
                .map(|&k| match &c.labels()[k] {
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

    /// Class data from the caller's own values: `x` is any row-shaped data ([`IntoRecords`]:
    /// `Vec<Vec<f64>>`, `&[[f64; N]]`, `f32` rows, a [`DenseMatrix`](crate::DenseMatrix), a
    /// CSR matrix, an ndarray array…) and `labels` one label per row, of any type that becomes
    /// a [`Label`] (`&str`, `String`, integers, `f64`).
    ///
    /// Rows of unequal length and a label count that differs from the row count are
    /// [`Error::ShapeMismatch`]; numeric labels must be finite whole numbers (as
    /// [`Classes::from_numbers`]). Non-finite feature values are refused by `fit`, as for
    /// [`Dataset::new`].
    ///
    /// ```
    /// use margin_core::Dataset;
    ///
    /// let data = Dataset::classification(&[[0.0, 1.0], [1.0, 0.0], [0.9, 0.1]], ["b", "a", "a"])?;
    /// assert_eq!(data.labels()?, ["b", "a", "a"]);
    /// assert_eq!(data.targets.classes()?.n_classes(), 2);
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    pub fn classification<L: Into<Label>>(
        x: impl IntoRecords,
        labels: impl IntoIterator<Item = L>,
    ) -> Result<Self> {
        let records = x.into_records()?;
        let labels: Vec<Label> = labels.into_iter().map(Into::into).collect();
        check_target_count(&records, labels.len())?;
        Self::new(records, Targets::Classes(Classes::from_labels(&labels)?))
    }

    /// Regression data from the caller's own values: `x` as for [`Dataset::classification`],
    /// `y` one number per row (`Vec<f64>`, `&[f64]`, `&[f32]`, or any iterator of them).
    ///
    /// ```
    /// use margin_core::Dataset;
    ///
    /// let data = Dataset::regression(vec![vec![1.0], vec![2.0]], [2.0f32, 4.0])?;
    /// assert_eq!(data.targets.values()?[1], 4.0);
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    pub fn regression<V: Value>(
        x: impl IntoRecords,
        y: impl IntoIterator<Item = V>,
    ) -> Result<Self> {
        let records = x.into_records()?;
        let y: Vec<f64> = y.into_iter().map(Value::to_f64).collect();
        check_target_count(&records, y.len())?;
        Self::new(records, Targets::Values(y))
    }

    /// Each sample's original label, for class data, borrowed ([`SampleLabels`]: compare it with
    /// `==` to predictions or to the caller's own labels, or iterate it).
    ///
    /// Numeric targets are [`Error::InvalidParameter`]: they are regression values, or a LIBSVM
    /// file's labels, which compare directly with `targets.values()?`.
    pub fn labels(&self) -> Result<SampleLabels<'_>> {
        match &self.targets {
            Targets::Classes(classes) => Ok(SampleLabels { classes }),
            Targets::Values(_) => Err(Error::invalid_parameter(
                "targets",
                "numeric values",
                "class labels for Dataset::labels(); numeric targets are read with \
                 targets.values()",
            )),
        }
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

/// Refuses a target count that differs from the row count, before the targets are mapped
/// (so a miscount is reported as such, not as a problem with some label).
fn check_target_count(records: &Matrix, n_targets: usize) -> Result<()> {
    if records.n_samples() != n_targets {
        return Err(Error::shape(
            "targets (one per sample: as many labels or values as rows)",
            records.n_samples(),
            n_targets,
        ));
    }
    Ok(())
}

/// Each sample's original label, borrowed from a dataset's [`Classes`] (no label is copied):
/// what [`Dataset::labels`] returns. Compares with `==` to a slice or vector of labels or of
/// the caller's values (`&str`, `String`, integers, `f64`), either way round.
#[derive(Clone, Copy)]
pub struct SampleLabels<'a> {
    classes: &'a Classes,
}

impl<'a> SampleLabels<'a> {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Sample `i`'s label (`None` past the end).
    pub fn get(&self, i: usize) -> Option<&'a Label> {
        let classes = self.classes;
        classes.indices.get(i).map(|&k| &classes.labels[k])
    }

    /// The labels in sample order.
    pub fn iter(&self) -> SampleLabelsIter<'a> {
        SampleLabelsIter {
            labels: &self.classes.labels,
            indices: self.classes.indices.iter(),
        }
    }

    /// An owned copy of the labels.
    pub fn to_vec(&self) -> Vec<Label> {
        self.iter().cloned().collect()
    }
}

impl fmt::Debug for SampleLabels<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for SampleLabels<'a> {
    type Item = &'a Label;
    type IntoIter = SampleLabelsIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The labels of [`SampleLabels`], in sample order.
#[derive(Clone, Debug)]
pub struct SampleLabelsIter<'a> {
    labels: &'a [Label],
    indices: std::slice::Iter<'a, usize>,
}

impl<'a> Iterator for SampleLabelsIter<'a> {
    type Item = &'a Label;

    fn next(&mut self) -> Option<&'a Label> {
        self.indices.next().map(|&k| &self.labels[k])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.indices.size_hint()
    }
}

impl ExactSizeIterator for SampleLabelsIter<'_> {}

impl<T> PartialEq<[T]> for SampleLabels<'_>
where
    Label: PartialEq<T>,
{
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(l, t)| l == t)
    }
}

impl<T, const N: usize> PartialEq<[T; N]> for SampleLabels<'_>
where
    Label: PartialEq<T>,
{
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T> PartialEq<Vec<T>> for SampleLabels<'_>
where
    Label: PartialEq<T>,
{
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl PartialEq<SampleLabels<'_>> for Vec<Label> {
    fn eq(&self, other: &SampleLabels<'_>) -> bool {
        other == self
    }
}

impl PartialEq<SampleLabels<'_>> for [Label] {
    fn eq(&self, other: &SampleLabels<'_>) -> bool {
        *other == *self
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
            y: self.indices().iter().map(|&c| index[c]).collect(),
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
        .map(|s| class_of_scores(s.iter().copied(), n_classes))
        .collect()
}

/// The labels [`classes_from_scores`] picks, `classes[k]` for each row, computed on every
/// thread for many rows (a prediction's last step: a label per row is as much memory to write
/// as the scores were).
pub fn labels_from_scores(scores: &crate::DenseMatrix, classes: &[Label]) -> Vec<Label> {
    let numbers = crate::labels_to::<f64>(classes).ok();
    // Numeric classes (every LIBSVM file's) are written from their values: cloning each row's
    // label matches on its variant, which kept the loop from vectorizing (w8a's 14,951 test
    // labels: 24 µs cloned, 15 µs written).
    match numbers {
        Some(values) => labels_by(scores, classes.len(), |c| Label::Number(values[c])),
        None => labels_by(scores, classes.len(), |c| classes[c].clone()),
    }
}

/// `label(class)` for each row's class under [`classes_from_scores`]' rule.
fn labels_by(
    scores: &crate::DenseMatrix,
    n_classes: usize,
    label: impl Fn(usize) -> Label + Sync,
) -> Vec<Label> {
    use rayon::prelude::*;
    let k = scores.ncols().max(1);
    let rows = scores.as_slice();
    // A label is a comparison per score and a 24-byte write: below the parallel rule's work
    // the calling thread writes them, without waking the pool.
    if crate::parallel::should_split(rows.len(), crate::parallel::Overhead::Loop) {
        rows.par_chunks_exact(k)
            .with_min_len(crate::parallel::min_len(k))
            .map(|s| label(class_of_scores(s.iter().copied(), n_classes)))
            .collect()
    } else if n_classes == 2 && k == 1 {
        // Two classes, one score a row: a pass over the scores, which the compiler vectorizes.
        rows.iter().map(|&s| label(usize::from(s > 0.0))).collect()
    } else {
        rows.chunks_exact(k)
            .map(|s| label(class_of_scores(s.iter().copied(), n_classes)))
            .collect()
    }
}

/// One row's class under [`classes_from_scores`]' rule, from its scores in column order.
pub(crate) fn class_of_scores(scores: impl IntoIterator<Item = f64>, n_classes: usize) -> usize {
    let mut scores = scores.into_iter();
    if n_classes == 2 {
        return usize::from(scores.next().is_some_and(|s| s > 0.0));
    }
    let first = scores.next().unwrap_or(f64::NAN);
    let (best, _) =
        scores.enumerate().fold(
            (0, first),
            |(best, top), (k, s)| {
                if s > top { (k + 1, s) } else { (best, top) }
            },
        );
    best
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

/// The classes of rows held in parts (the partitions of a table, other machines), from a
/// first pass over their labels: sorted as a fitted classifier's classes, each with its
/// weight, and the rows' count. Serializable, to travel to the parts, where
/// [`PartClasses::of`] maps a part's labels to these classes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartClasses {
    labels: Vec<Label>,
    weights: Vec<f64>,
    counts: Vec<usize>,
    n: usize,
}

impl PartClasses {
    /// The classes of `counts` (each label with its number of rows, in any order), weighted
    /// by `class_weight`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a label listed twice, fewer than two classes, or
    /// `class_weight`'s refusals ([`ClassWeight::per_class`]).
    pub fn new(counts: &[(Label, usize)], class_weight: &ClassWeight) -> Result<Self> {
        let seen: Vec<Label> = counts.iter().map(|(l, _)| l.clone()).collect();
        let labels = Classes::from_labels(&seen)?.labels;
        if labels.len() != seen.len() {
            return Err(Error::invalid_parameter(
                "counts",
                "a label listed twice",
                "each label once, with its number of rows",
            ));
        }
        if labels.len() < 2 {
            return Err(Error::invalid_parameter(
                "classes",
                labels.len(),
                "at least two classes among the labels",
            ));
        }
        let sorted: Vec<usize> = labels
            .iter()
            .map(|l| counts.iter().find(|(c, _)| c == l).map_or(0, |(_, k)| *k))
            .collect();
        let weights = class_weight.per_class(&labels, &sorted)?;
        Ok(Self {
            labels,
            weights,
            n: sorted.iter().sum(),
            counts: sorted,
        })
    }

    /// The classes, sorted.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// The rows counted by the first pass.
    pub fn n_samples(&self) -> usize {
        self.n
    }

    /// Each class's weight, in the order of [`labels`](Self::labels).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Each class's rows, in the order of [`labels`](Self::labels), as the first pass counted
    /// them.
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// Each row's class among [`labels`](Self::labels), and each row's class weight (`None`
    /// when every class weighs 1).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a label the first pass did not see.
    pub fn of(&self, targets: &Targets) -> Result<(Vec<usize>, Option<Vec<f64>>)> {
        let local = targets.to_classes()?;
        let global: Vec<usize> = local
            .labels()
            .iter()
            .map(|label| {
                self.labels.iter().position(|l| l == label).ok_or_else(|| {
                    Error::invalid_parameter(
                        "label",
                        label,
                        "one of the classes the first pass over the labels saw",
                    )
                })
            })
            .collect::<Result<_>>()?;
        let y: Vec<usize> = local.indices().iter().map(|&c| global[c]).collect();
        let weights = self
            .weights
            .iter()
            .any(|&w| w != 1.0)
            .then(|| y.iter().map(|&c| self.weights[c]).collect());
        Ok((y, weights))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CsrMatrix, DenseMatrix, DenseView};

    /// Every path of `labels_from_scores` (numeric and text classes, one score a row or one
    /// per class, few rows and enough for both threads) gives `classes[classes_from_scores]`,
    /// NaN scores and ties included.
    #[test]
    fn labels_from_scores_are_the_classes_of_the_scores() {
        let score = |i: usize| match i % 7 {
            0 => f64::NAN,
            1 => 0.0,
            2 => -0.0,
            t => (t as f64 - 4.5) * (i as f64).sin(),
        };
        let numeric = [Label::Number(-1.0), Label::Number(1.0), Label::Number(2.5)];
        let text = [Label::from("a"), Label::from("b"), Label::from("c")];
        for n in [0, 1, 9, 70_000] {
            for n_classes in [2, 3] {
                let k = if n_classes == 2 { 1 } else { n_classes };
                let scores =
                    DenseMatrix::from_row_major((0..n * k).map(score).collect(), n, k).unwrap();
                let want = classes_from_scores(&scores, n_classes);
                for classes in [&numeric[..n_classes], &text[..n_classes]] {
                    let got = labels_from_scores(&scores, classes);
                    assert_eq!(got.len(), n);
                    for (g, &c) in got.iter().zip(&want) {
                        assert_eq!(*g, classes[c], "n {n}, {n_classes} classes");
                    }
                }
            }
        }
    }

    #[test]
    fn classification_reads_every_row_shape_and_label_type() {
        let rows = vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![2.0, 2.0]];
        let rows32: Vec<Vec<f32>> = vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![2.0, 2.0]];
        let arrays = [[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]];
        let dense = DenseMatrix::from_rows(&rows).unwrap();
        let flat = dense.as_slice().to_vec();
        let names: Vec<String> = vec!["b".into(), "a".into(), "b".into()];
        let by_text = Dataset::classification(&rows, ["b", "a", "b"]).unwrap();
        let shapes = [
            Dataset::classification(rows.clone(), ["b", "a", "b"]).unwrap(),
            Dataset::classification(rows32.as_slice(), ["b", "a", "b"]).unwrap(),
            Dataset::classification(arrays, ["b", "a", "b"]).unwrap(),
            Dataset::classification(&arrays[..], vec!["b", "a", "b"]).unwrap(),
            Dataset::classification(dense.clone(), ["b", "a", "b"]).unwrap(),
            Dataset::classification(DenseView::new(&flat, 3, 2).unwrap(), ["b", "a", "b"]).unwrap(),
            Dataset::classification(Matrix::Dense(dense.clone()), ["b", "a", "b"]).unwrap(),
            Dataset::classification(&rows, names.clone()).unwrap(),
            Dataset::classification(&rows, &names).unwrap(),
        ];
        for (k, d) in shapes.iter().enumerate() {
            assert_eq!(d, &by_text, "shape {k}");
        }
        assert_eq!(by_text.targets.classes().unwrap().labels(), ["a", "b"]);
        assert_eq!(by_text.targets.classes().unwrap().indices(), &[1, 0, 1]);
        let sparse = Dataset::classification(CsrMatrix::from_dense(&dense), [1, 0, 1]).unwrap();
        assert!(sparse.records.as_sparse().is_some());
        assert_eq!(sparse.labels().unwrap(), [1, 0, 1]);
        let by_float = Dataset::classification(&rows, [1.0, -1.0, 1.0]).unwrap();
        assert_eq!(by_float.labels().unwrap(), [1.0, -1.0, 1.0]);
        let by_int = Dataset::classification(&rows, [1i64, -1, 1]).unwrap();
        assert_eq!(by_int.targets, by_float.targets);
        assert_eq!(by_int.targets.classes().unwrap().labels(), [-1, 1]);
    }

    #[test]
    fn classification_refuses_miscounts_ragged_rows_and_unusable_labels() {
        let rows = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
        match Dataset::classification(&rows, ["a", "b", "c"]) {
            Err(Error::ShapeMismatch {
                expected, found, ..
            }) => {
                assert_eq!((expected, found), (2, 3));
            }
            other => panic!("{other:?}"),
        }
        let ragged = vec![vec![0.0, 1.0], vec![1.0]];
        assert!(matches!(
            Dataset::classification(&ragged, ["a", "b"]),
            Err(Error::ShapeMismatch {
                expected: 2,
                found: 1,
                ..
            })
        ));
        assert!(matches!(
            Dataset::classification(&rows, [0.0, f64::NAN]),
            Err(Error::NonFinite { row: 1, col: 0 })
        ));
        assert!(matches!(
            Dataset::classification(&rows, [0.0, 0.5]),
            Err(Error::InvalidParameter { .. })
        ));
        // Non-finite features are kept for `fit` to refuse, as `Dataset::new` does.
        let nan =
            Dataset::classification(vec![vec![0.0, 1.0], vec![f64::NAN, 0.0]], ["a", "b"]).unwrap();
        assert!(matches!(
            crate::validate::check_dataset(&nan),
            Err(Error::NonFinite { row: 1, col: 0 })
        ));
    }

    #[test]
    fn regression_takes_any_float_sequence_of_the_right_length() {
        let x = [[1.0], [2.0], [3.0]];
        let want = Targets::Values(vec![2.0, 4.0, 6.5]);
        let y = vec![2.0, 4.0, 6.5];
        let y32 = [2.0f32, 4.0, 6.5];
        for d in [
            Dataset::regression(x, y.clone()).unwrap(),
            Dataset::regression(x, &y).unwrap(),
            Dataset::regression(x, y.as_slice()).unwrap(),
            Dataset::regression(x, y32).unwrap(),
            Dataset::regression(x, &y32[..]).unwrap(),
            Dataset::regression(x, (1..=3).map(|k| [2.0, 4.0, 6.5][k - 1])).unwrap(),
            Dataset::regression(vec![vec![1.0f32], vec![2.0], vec![3.0]], y.clone()).unwrap(),
        ] {
            assert_eq!(d.targets, want);
            assert_eq!(d.n_samples(), 3);
        }
        assert!(matches!(
            Dataset::regression(x, [1.0, 2.0]),
            Err(Error::ShapeMismatch {
                expected: 3,
                found: 2,
                ..
            })
        ));
        assert!(Dataset::regression(x, y).unwrap().labels().is_err());
    }

    #[test]
    fn classes_borrow_and_numeric_targets_map_only_when_asked() {
        let data = Dataset::classification([[0.0], [1.0]], ["x", "y"]).unwrap();
        assert_eq!(data.targets.classes().unwrap().n_classes(), 2);
        assert!(matches!(
            data.targets.to_classes().unwrap(),
            Cow::Borrowed(_)
        ));
        let numeric = Dataset::regression([[0.0], [1.0]], [3.0, -1.0]).unwrap();
        let e = numeric.targets.classes().unwrap_err();
        assert!(e.to_string().contains("to_classes"), "{e}");
        let mapped = numeric.targets.to_classes().unwrap();
        assert!(matches!(mapped, Cow::Owned(_)));
        assert_eq!(mapped.labels(), [-1, 3]);
        assert_eq!(mapped.indices(), &[1, 0]);
    }

    #[test]
    fn labels_are_each_samples_original_label_borrowed() {
        let data = Dataset::classification([[0.0], [1.0], [2.0]], ["b", "a", "b"]).unwrap();
        let labels = data.labels().unwrap();
        assert_eq!(labels.len(), 3);
        assert_eq!(labels.get(2), Some(&Label::from("b")));
        assert_eq!(labels.get(3), None);
        assert!(std::ptr::eq(
            labels.get(0).unwrap(),
            &data.targets.classes().unwrap().labels()[1]
        ));
        assert_eq!(labels, vec!["b", "a", "b"]);
        assert_ne!(labels, ["b", "a"]);
        assert_ne!(labels, ["b", "b", "b"]);
        let predicted = vec![Label::from("b"), Label::from("a"), Label::from("b")];
        assert_eq!(predicted, labels);
        assert_eq!(labels.to_vec(), predicted);
        assert_eq!(labels.into_iter().len(), 3);
        assert_eq!(format!("{labels:?}"), format!("{predicted:?}"));
    }

    #[test]
    fn from_labels_numbers_sorted_numbers_then_text() {
        let labels = [
            Label::from("b"),
            Label::from(2),
            Label::from(-0.0),
            Label::from("a"),
            Label::from(0),
            Label::from(2),
        ];
        let c = Classes::from_labels(&labels).unwrap();
        assert_eq!(
            c.labels(),
            [Label::from(0), Label::from(2), "a".into(), "b".into()]
        );
        assert!(matches!(c.labels()[0], Label::Number(z) if z.is_sign_positive()));
        assert_eq!(c.indices(), &[3, 1, 0, 2, 0, 1]);
        // The same numbering as the single-kind constructors.
        let text = ["q", "p", "q"];
        assert_eq!(
            Classes::from_labels(&text.map(Label::from)).unwrap(),
            Classes::from_text(&text)
        );
        let numbers = [5.0, -2.0, 5.0, -0.0];
        assert_eq!(
            Classes::from_labels(&numbers.map(Label::from)).unwrap(),
            Classes::from_numbers(&numbers).unwrap()
        );
    }

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
