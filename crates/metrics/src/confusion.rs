//! The confusion matrix and every score derived from it.

use margin_core::{Classes, Error, Label, Result};

/// How per-class scores are combined for more than two classes (scikit-learn's `average`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Average {
    /// Pool every class's TP, FP and FN, then score once.
    Micro,
    /// The unweighted mean of per-class scores.
    Macro,
    /// The mean of per-class scores weighted by each class's support (true count).
    Weighted,
}

/// What a score is when its denominator is zero (precision with no positive predictions),
/// scikit-learn's `zero_division`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ZeroDivision {
    /// Use this value (scikit-learn's default is 0, with a warning).
    Value(f64),
    /// Return an error instead.
    Error,
}

/// Counts `C[t][p]` of samples whose true class is `t` and predicted class is `p`, over the
/// classes `0..k` (class indices, as `Classes::indices` gives them), or over the labels
/// themselves ([`ConfusionMatrix::from_labels`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfusionMatrix {
    counts: Vec<Vec<u64>>,
    labels: Vec<Label>,
}

impl ConfusionMatrix {
    /// Tallies `truth` against `predicted` (both class indices below `k`).
    pub fn new(truth: &[usize], predicted: &[usize], k: usize) -> Result<Self> {
        crate::check_pair(truth.len(), predicted.len())?;
        let mut counts = vec![vec![0u64; k]; k];
        for (i, (&t, &p)) in truth.iter().zip(predicted).enumerate() {
            if t >= k || p >= k {
                return Err(Error::invalid_parameter(
                    "class index",
                    format!("{} at sample {i}", t.max(p)),
                    format!("below the number of classes, {k}"),
                ));
            }
            counts[t][p] += 1;
        }
        Ok(Self {
            counts,
            labels: Vec::new(),
        })
    }

    /// Tallies true labels against predicted ones, as the caller and the model spell them: the
    /// classes are the sorted union of both (numbers by value, then text), as scikit-learn's
    /// `confusion_matrix` without `labels=`; [`labels`](Self::labels) names them.
    ///
    /// ```
    /// use margin_core::Label;
    /// use margin_metrics::ConfusionMatrix;
    ///
    /// let truth = ["cat", "dog", "cat"].map(Label::from);
    /// let predicted = ["cat", "cat", "bird"].map(Label::from);
    /// let m = ConfusionMatrix::from_labels(&truth, &predicted)?;
    /// assert_eq!(m.labels(), ["bird", "cat", "dog"]);
    /// assert_eq!(m.rows(), [vec![0, 0, 0], vec![1, 1, 0], vec![0, 1, 0]]);
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    ///
    /// Numeric labels must be finite whole numbers, as class labels everywhere in margin.
    pub fn from_labels(truth: &[Label], predicted: &[Label]) -> Result<Self> {
        crate::check_pair(truth.len(), predicted.len())?;
        // One numbering for both sides: the classes of the two lists put end to end.
        let both = Classes::from_labels(&[truth, predicted].concat())?;
        let (t, p) = both.indices().split_at(truth.len());
        let m = Self::new(t, p, both.n_classes())?;
        Ok(Self {
            labels: both.labels().to_vec(),
            ..m
        })
    }

    /// The label of each row and column, for a matrix built by
    /// [`from_labels`](Self::from_labels); empty for one built from class indices.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.counts.len()
    }

    /// `C[t][p]`.
    pub fn get(&self, truth: usize, predicted: usize) -> u64 {
        self.counts[truth][predicted]
    }

    /// Rows (true classes) of counts.
    pub fn rows(&self) -> &[Vec<u64>] {
        &self.counts
    }

    fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// True positives of class `c` (one-vs-rest).
    pub fn tp(&self, c: usize) -> u64 {
        self.counts[c][c]
    }

    /// False positives of class `c`: predicted `c`, truly another class.
    pub fn fp(&self, c: usize) -> u64 {
        (0..self.n_classes())
            .filter(|&t| t != c)
            .map(|t| self.counts[t][c])
            .sum()
    }

    /// False negatives of class `c`: truly `c`, predicted another class.
    pub fn fn_(&self, c: usize) -> u64 {
        (0..self.n_classes())
            .filter(|&p| p != c)
            .map(|p| self.counts[c][p])
            .sum()
    }

    /// True negatives of class `c`.
    pub fn tn(&self, c: usize) -> u64 {
        self.total() - self.tp(c) - self.fp(c) - self.fn_(c)
    }

    /// Samples whose true class is `c`.
    pub fn support(&self, c: usize) -> u64 {
        self.counts[c].iter().sum()
    }

    /// The fraction predicted correctly.
    pub fn accuracy(&self) -> f64 {
        (0..self.n_classes()).map(|c| self.tp(c)).sum::<u64>() as f64 / self.total() as f64
    }

    /// The mean of per-class recalls over classes that occur.
    pub fn balanced_accuracy(&self) -> f64 {
        let present: Vec<usize> = (0..self.n_classes())
            .filter(|&c| self.support(c) > 0)
            .collect();
        present
            .iter()
            .map(|&c| self.tp(c) as f64 / self.support(c) as f64)
            .sum::<f64>()
            / present.len() as f64
    }

    /// Precision of class `c`: TP / (TP + FP).
    pub fn precision(&self, c: usize, zero: ZeroDivision) -> Result<f64> {
        ratio(
            self.tp(c),
            self.tp(c) + self.fp(c),
            zero,
            "precision (no sample predicted as this class)",
        )
    }

    /// Recall (sensitivity, true-positive rate) of class `c`: TP / (TP + FN).
    pub fn recall(&self, c: usize, zero: ZeroDivision) -> Result<f64> {
        ratio(
            self.tp(c),
            self.tp(c) + self.fn_(c),
            zero,
            "recall (no sample of this class)",
        )
    }

    /// Specificity (true-negative rate) of class `c`: TN / (TN + FP).
    pub fn specificity(&self, c: usize, zero: ZeroDivision) -> Result<f64> {
        ratio(
            self.tn(c),
            self.tn(c) + self.fp(c),
            zero,
            "specificity (no sample of another class)",
        )
    }

    /// False-positive rate of class `c`: FP / (FP + TN) = 1 − specificity.
    pub fn false_positive_rate(&self, c: usize, zero: ZeroDivision) -> Result<f64> {
        ratio(
            self.fp(c),
            self.tn(c) + self.fp(c),
            zero,
            "false-positive rate (no sample of another class)",
        )
    }

    /// F-β of class `c`: `(1 + β²)·P·R / (β²·P + R)`, computed from counts as scikit-learn does.
    pub fn f_beta(&self, c: usize, beta: f64, zero: ZeroDivision) -> Result<f64> {
        f_beta_counts(self.tp(c), self.fp(c), self.fn_(c), beta, zero)
    }

    /// Precision, recall or F-β combined over classes.
    pub fn averaged(&self, score: Score, average: Average, zero: ZeroDivision) -> Result<f64> {
        let k = self.n_classes();
        if average == Average::Micro {
            let (tp, fp, fn_) = (0..k).fold((0, 0, 0), |(a, b, c), i| {
                (a + self.tp(i), b + self.fp(i), c + self.fn_(i))
            });
            return match score {
                Score::Precision => ratio(tp, tp + fp, zero, "micro precision"),
                Score::Recall => ratio(tp, tp + fn_, zero, "micro recall"),
                Score::FBeta(beta) => f_beta_counts(tp, fp, fn_, beta, zero),
            };
        }
        let per_class: Vec<f64> = (0..k)
            .map(|c| match score {
                Score::Precision => self.precision(c, zero),
                Score::Recall => self.recall(c, zero),
                Score::FBeta(beta) => self.f_beta(c, beta, zero),
            })
            .collect::<Result<_>>()?;
        Ok(match average {
            Average::Macro => per_class.iter().sum::<f64>() / k as f64,
            _ => {
                let total = self.total() as f64;
                per_class
                    .iter()
                    .enumerate()
                    .map(|(c, s)| s * self.support(c) as f64 / total)
                    .sum()
            }
        })
    }

    /// The classification report, with `names[c]` naming class `c`.
    pub fn report(&self, names: &[String]) -> Result<ClassificationReport> {
        if names.len() != self.n_classes() {
            return Err(Error::shape(
                "class names (one per class)",
                self.n_classes(),
                names.len(),
            ));
        }
        let zero = ZeroDivision::Value(0.0);
        let classes: Vec<ReportRow> = (0..self.n_classes())
            .map(|c| {
                Ok(ReportRow {
                    name: names[c].clone(),
                    precision: self.precision(c, zero)?,
                    recall: self.recall(c, zero)?,
                    f1: self.f_beta(c, 1.0, zero)?,
                    support: self.support(c),
                })
            })
            .collect::<Result<_>>()?;
        let avg = |name: &str, average: Average| -> Result<ReportRow> {
            Ok(ReportRow {
                name: name.into(),
                precision: self.averaged(Score::Precision, average, zero)?,
                recall: self.averaged(Score::Recall, average, zero)?,
                f1: self.averaged(Score::FBeta(1.0), average, zero)?,
                support: self.total(),
            })
        };
        Ok(ClassificationReport {
            classes,
            accuracy: self.accuracy(),
            macro_avg: avg("macro avg", Average::Macro)?,
            weighted_avg: avg("weighted avg", Average::Weighted)?,
        })
    }

    /// Matthews correlation coefficient (the multiclass `R_K` statistic; 0 when undefined).
    pub fn matthews(&self) -> f64 {
        let k = self.n_classes();
        let s = self.total() as f64;
        let c = (0..k).map(|i| self.tp(i)).sum::<u64>() as f64;
        let t: Vec<f64> = (0..k).map(|i| self.support(i) as f64).collect();
        let p: Vec<f64> = (0..k)
            .map(|j| (0..k).map(|i| self.counts[i][j]).sum::<u64>() as f64)
            .collect();
        let tp_sum: f64 = t.iter().zip(&p).map(|(a, b)| a * b).sum();
        let den = ((s * s - p.iter().map(|v| v * v).sum::<f64>())
            * (s * s - t.iter().map(|v| v * v).sum::<f64>()))
        .sqrt();
        if den == 0.0 {
            0.0
        } else {
            (c * s - tp_sum) / den
        }
    }

    /// Cohen's κ: agreement beyond chance, `(p_o − p_e) / (1 − p_e)` (0 when `p_e = 1`).
    pub fn cohen_kappa(&self) -> f64 {
        let k = self.n_classes();
        let s = self.total() as f64;
        let po = self.accuracy();
        let pe: f64 = (0..k)
            .map(|c| self.support(c) as f64 * (0..k).map(|t| self.counts[t][c]).sum::<u64>() as f64)
            .sum::<f64>()
            / (s * s);
        if pe == 1.0 {
            0.0
        } else {
            (po - pe) / (1.0 - pe)
        }
    }
}

/// One line of a [`ClassificationReport`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReportRow {
    /// Class name (or `macro avg` / `weighted avg`).
    pub name: String,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1 score.
    pub f1: f64,
    /// Number of samples of the class (all samples for the averages).
    pub support: u64,
}

/// Per-class precision, recall, F1 and support with their averages, as scikit-learn's
/// `classification_report` (undefined ratios count 0). `Display` prints scikit-learn's layout
/// with 4 decimals.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassificationReport {
    /// One row per class.
    pub classes: Vec<ReportRow>,
    /// Accuracy.
    pub accuracy: f64,
    /// Unweighted means.
    pub macro_avg: ReportRow,
    /// Means weighted by support.
    pub weighted_avg: ReportRow,
}

impl std::fmt::Display for ClassificationReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let width = self
            .classes
            .iter()
            .map(|r| r.name.chars().count())
            .chain([12, 4])
            .max()
            .unwrap_or(12);
        writeln!(
            f,
            "{:>width$}  {:>9} {:>9} {:>9} {:>9}\n",
            "", "precision", "recall", "f1-score", "support"
        )?;
        let row = |f: &mut std::fmt::Formatter<'_>, r: &ReportRow| {
            writeln!(
                f,
                "{:>width$}  {:>9.4} {:>9.4} {:>9.4} {:>9}",
                r.name, r.precision, r.recall, r.f1, r.support
            )
        };
        for r in &self.classes {
            row(f, r)?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "{:>width$}  {:>9} {:>9} {:>9.4} {:>9}",
            "accuracy", "", "", self.accuracy, self.weighted_avg.support
        )?;
        row(f, &self.macro_avg)?;
        row(f, &self.weighted_avg)
    }
}

/// A per-class score [`ConfusionMatrix::averaged`] combines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// TP / (TP + FP).
    Precision,
    /// TP / (TP + FN).
    Recall,
    /// F-β.
    FBeta(f64),
}

fn ratio(num: u64, den: u64, zero: ZeroDivision, what: &str) -> Result<f64> {
    if den > 0 {
        return Ok(num as f64 / den as f64);
    }
    match zero {
        ZeroDivision::Value(v) => Ok(v),
        ZeroDivision::Error => Err(Error::invalid_parameter(
            "zero_division",
            "Error",
            format!("a defined {what}: pass ZeroDivision::Value to choose one"),
        )),
    }
}

fn f_beta_counts(tp: u64, fp: u64, fn_: u64, beta: f64, zero: ZeroDivision) -> Result<f64> {
    if !(beta.is_finite() && beta >= 0.0) {
        return Err(Error::invalid_parameter(
            "beta",
            beta,
            "a finite number ≥ 0",
        ));
    }
    let b2 = beta * beta;
    let den = (1.0 + b2) * tp as f64 + b2 * fn_ as f64 + fp as f64;
    if den == 0.0 {
        return ratio(0, 0, zero, "F-score (no positives predicted or present)");
    }
    Ok((1.0 + b2) * tp as f64 / den)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ZERO: ZeroDivision = ZeroDivision::Value(0.0);

    #[test]
    fn scores_match_scikit_learn_on_a_small_case() {
        // sklearn.metrics with y_true = [0, 1, 2, 0, 1, 2, 0, 0], y_pred = [0, 2, 1, 0, 0, 2, 0, 1]:
        // precision macro 0.4166666666666667, recall macro 0.4166666666666667, f1 weighted 0.5,
        // MCC 0.2, kappa 0.19999999999999996, balanced accuracy 0.4166666666666667
        // (scikit-learn 1.9.1).
        let t = [0, 1, 2, 0, 1, 2, 0, 0];
        let p = [0, 2, 1, 0, 0, 2, 0, 1];
        let m = ConfusionMatrix::new(&t, &p, 3).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(
            m.averaged(Score::Precision, Average::Macro, ZERO).unwrap(),
            0.416_666_666_666_666_7
        ));
        assert!(close(
            m.averaged(Score::Recall, Average::Macro, ZERO).unwrap(),
            0.416_666_666_666_666_7
        ));
        assert!(close(
            m.averaged(Score::FBeta(1.0), Average::Weighted, ZERO)
                .unwrap(),
            0.5
        ));
        assert!(close(m.matthews(), 0.2));
        assert!(close(m.cohen_kappa(), 0.199_999_999_999_999_96));
        assert!(close(m.balanced_accuracy(), 0.416_666_666_666_666_7));
        assert!(close(
            m.averaged(Score::FBeta(1.0), Average::Micro, ZERO).unwrap(),
            m.accuracy()
        ));
    }

    #[test]
    fn from_labels_counts_over_the_sorted_union_of_both_sides() {
        // scikit-learn 1.9.1: confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2])
        // = [[2, 0, 0], [0, 0, 1], [1, 0, 2]], here with 1 never predicted and 7 never true.
        let truth = [2, 0, 2, 2, 0, 1].map(Label::from);
        let predicted = [0, 0, 2, 7, 0, 2].map(Label::from);
        let m = ConfusionMatrix::from_labels(&truth, &predicted).unwrap();
        assert_eq!(m.labels(), [0, 1, 2, 7]);
        assert_eq!(
            m.rows(),
            [
                vec![2, 0, 0, 0],
                vec![0, 0, 1, 0],
                vec![1, 0, 1, 1],
                vec![0, 0, 0, 0],
            ]
        );
        // Text sorts after numbers, and each side's spelling is matched exactly.
        let truth = [Label::from("b"), Label::from(1), Label::from("a")];
        let predicted = [Label::from("a"), Label::from(1), Label::from("a")];
        let m = ConfusionMatrix::from_labels(&truth, &predicted).unwrap();
        assert_eq!(m.labels(), [Label::from(1), "a".into(), "b".into()]);
        assert_eq!(m.rows(), [vec![1, 0, 0], vec![0, 1, 0], vec![0, 1, 0]]);
        assert!(
            ConfusionMatrix::new(&[0], &[0], 1)
                .unwrap()
                .labels()
                .is_empty()
        );
    }

    #[test]
    fn from_labels_refuses_miscounts_and_unusable_labels() {
        let two = [Label::from(1), Label::from(2)];
        assert!(matches!(
            ConfusionMatrix::from_labels(&two, &two[..1]),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(matches!(
            ConfusionMatrix::from_labels(&[], &[]),
            Err(Error::EmptyDataset(_))
        ));
        assert!(matches!(
            ConfusionMatrix::from_labels(&two, &[Label::from(1), Label::from(f64::NAN)]),
            Err(Error::NonFinite { .. })
        ));
    }

    #[test]
    fn report_prints_like_scikit_learn() {
        let m =
            ConfusionMatrix::new(&[0, 1, 2, 0, 1, 2, 0, 0], &[0, 2, 1, 0, 0, 2, 0, 1], 3).unwrap();
        let names: Vec<String> = ["0", "1", "2"].iter().map(|s| s.to_string()).collect();
        // scikit-learn 1.9.1: classification_report(y_true, y_pred, digits=4).
        let want = "              precision    recall  f1-score   support

           0     0.7500    0.7500    0.7500         4
           1     0.0000    0.0000    0.0000         2
           2     0.5000    0.5000    0.5000         2

    accuracy                         0.5000         8
   macro avg     0.4167    0.4167    0.4167         8
weighted avg     0.5000    0.5000    0.5000         8
";
        assert_eq!(m.report(&names).unwrap().to_string(), want);
    }

    #[test]
    fn zero_division_is_explicit() {
        let m = ConfusionMatrix::new(&[0, 0], &[0, 0], 2).unwrap();
        assert_eq!(m.precision(1, ZeroDivision::Value(1.0)).unwrap(), 1.0);
        assert!(m.precision(1, ZeroDivision::Error).is_err());
        assert!(ConfusionMatrix::new(&[0, 3], &[0, 0], 2).is_err());
        assert!(ConfusionMatrix::new(&[], &[], 2).is_err());
    }

    proptest! {
        #[test]
        fn counts_and_scores_agree_with_their_definitions(pairs in proptest::collection::vec((0usize..3, 0usize..3), 1..80)) {
            let (t, p): (Vec<usize>, Vec<usize>) = pairs.iter().copied().unzip();
            let m = ConfusionMatrix::new(&t, &p, 3).unwrap();
            for c in 0..3 {
                let tp = pairs.iter().filter(|&&(a, b)| a == c && b == c).count() as u64;
                let fp = pairs.iter().filter(|&&(a, b)| a != c && b == c).count() as u64;
                let fn_ = pairs.iter().filter(|&&(a, b)| a == c && b != c).count() as u64;
                prop_assert_eq!((m.tp(c), m.fp(c), m.fn_(c)), (tp, fp, fn_));
                prop_assert_eq!(m.tn(c), pairs.len() as u64 - tp - fp - fn_);
                if tp + fp > 0 {
                    prop_assert_eq!(m.precision(c, ZERO).unwrap(), tp as f64 / (tp + fp) as f64);
                }
                let (pr, re) = (m.precision(c, ZERO).unwrap(), m.recall(c, ZERO).unwrap());
                let f1 = m.f_beta(c, 1.0, ZERO).unwrap();
                if pr + re > 0.0 {
                    prop_assert!((f1 - 2.0 * pr * re / (pr + re)).abs() < 1e-12);
                }
            }
            // Micro-averaged precision, recall and F1 all equal accuracy for single-label data.
            for s in [Score::Precision, Score::Recall, Score::FBeta(1.0)] {
                prop_assert!((m.averaged(s, Average::Micro, ZERO).unwrap() - m.accuracy()).abs() < 1e-12);
            }
            let macro_p = m.averaged(Score::Precision, Average::Macro, ZERO).unwrap();
            let mean: f64 = (0..3).map(|c| m.precision(c, ZERO).unwrap()).sum::<f64>() / 3.0;
            prop_assert!((macro_p - mean).abs() < 1e-12);
            prop_assert!(m.matthews().abs() <= 1.0 + 1e-12 && m.cohen_kappa() <= 1.0 + 1e-12);
        }
    }
}
