//! Scores from continuous predictions: ROC curve, AUROC, average precision.

use margin_core::{DenseMatrix, Error, Result, validate};
use rayon::slice::ParallelSliceMut;

/// A ROC curve: false- and true-positive rates at each distinct threshold, from (0, 0) (the
/// threshold +∞) to (1, 1).
#[derive(Clone, Debug, PartialEq)]
pub struct RocCurve {
    /// False-positive rates, non-decreasing.
    pub fpr: Vec<f64>,
    /// True-positive rates, non-decreasing.
    pub tpr: Vec<f64>,
    /// Thresholds, decreasing; the first is +∞.
    pub thresholds: Vec<f64>,
}

fn check(positive: &[bool], scores: &[f64]) -> Result<(usize, usize)> {
    crate::check_pair(positive.len(), scores.len())?;
    validate::check_finite_slice(scores)?;
    let n_pos = positive.iter().filter(|&&p| p).count();
    let n_neg = positive.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return Err(Error::TooFewClasses {
            found: 1,
            required: 2,
        });
    }
    Ok((n_pos, n_neg))
}

/// Cumulative (false positives, true positives) at each distinct score, highest first.
fn steps(positive: &[bool], scores: &[f64]) -> Vec<(f64, usize, usize)> {
    // Sorting the (score, label) pairs themselves keeps the sort cache-friendly; rayon's
    // parallel sort is deterministic for a total order with ties broken by the label.
    let mut pairs: Vec<(f64, bool)> = scores
        .iter()
        .copied()
        .zip(positive.iter().copied())
        .collect();
    pairs.par_sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut fp, mut tp) = (0, 0);
    let mut out: Vec<(f64, usize, usize)> = Vec::new();
    for (k, &(score, pos)) in pairs.iter().enumerate() {
        if pos {
            tp += 1
        } else {
            fp += 1
        }
        if pairs.get(k + 1).is_none_or(|next| next.0 != score) {
            out.push((score, fp, tp));
        }
    }
    out
}

/// The ROC curve of `scores` (higher means positive) against `positive`. With
/// `drop_intermediate`, points midway between their neighbours are dropped, as scikit-learn's
/// default does; the curve's area is unchanged.
pub fn roc_curve(positive: &[bool], scores: &[f64], drop_intermediate: bool) -> Result<RocCurve> {
    let (n_pos, n_neg) = check(positive, scores)?;
    let mut pts = steps(positive, scores);
    if drop_intermediate && pts.len() > 2 {
        // scikit-learn's rule: drop a point whose neighbours are equally far on both axes
        // (zero second differences), which lies on the segment between them.
        let second = |k: usize, f: fn(&(f64, usize, usize)) -> usize| {
            f(&pts[k + 1]) as i64 - 2 * f(&pts[k]) as i64 + f(&pts[k - 1]) as i64
        };
        let keep: Vec<bool> = (0..pts.len())
            .map(|k| {
                k == 0 || k == pts.len() - 1 || second(k, |p| p.1) != 0 || second(k, |p| p.2) != 0
            })
            .collect();
        pts = pts
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(p, _)| p)
            .collect();
    }
    pts.insert(0, (f64::INFINITY, 0, 0));
    Ok(RocCurve {
        fpr: pts.iter().map(|p| p.1 as f64 / n_neg as f64).collect(),
        tpr: pts.iter().map(|p| p.2 as f64 / n_pos as f64).collect(),
        thresholds: pts.iter().map(|p| p.0).collect(),
    })
}

/// The area under the ROC curve: the probability that a random positive scores above a random
/// negative, ties counting one half (the Mann–Whitney statistic), in `O(n log n)`.
pub fn roc_auc(positive: &[bool], scores: &[f64]) -> Result<f64> {
    let (n_pos, n_neg) = check(positive, scores)?;
    // Trapezoids between consecutive distinct thresholds: ties contribute half.
    let mut area = 0.0;
    let (mut prev_fp, mut prev_tp) = (0usize, 0usize);
    for (_, fp, tp) in steps(positive, scores) {
        area += (fp - prev_fp) as f64 * (tp + prev_tp) as f64 / 2.0;
        (prev_fp, prev_tp) = (fp, tp);
    }
    Ok(area / (n_pos as f64 * n_neg as f64))
}

/// Average precision `Σ (R_k − R_{k−1}) P_k` over distinct thresholds, as scikit-learn's
/// `average_precision_score` (no interpolation).
pub fn average_precision(positive: &[bool], scores: &[f64]) -> Result<f64> {
    let (n_pos, _) = check(positive, scores)?;
    let mut ap = 0.0;
    let mut prev_recall = 0.0;
    for (_, fp, tp) in steps(positive, scores) {
        let recall = tp as f64 / n_pos as f64;
        ap += (recall - prev_recall) * tp as f64 / (tp + fp) as f64;
        prev_recall = recall;
    }
    Ok(ap)
}

/// A precision–recall curve in scikit-learn's layout: thresholds increasing; `precision[k]` and
/// `recall[k]` at `thresholds[k]`, then a final point (1, 0) with no threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecisionRecallCurve {
    /// Precision at each threshold, then 1.
    pub precision: Vec<f64>,
    /// Recall at each threshold (non-increasing), then 0.
    pub recall: Vec<f64>,
    /// The distinct scores, increasing.
    pub thresholds: Vec<f64>,
}

/// The precision–recall curve of `scores` against `positive`.
pub fn precision_recall_curve(positive: &[bool], scores: &[f64]) -> Result<PrecisionRecallCurve> {
    let (n_pos, _) = check(positive, scores)?;
    let pts = steps(positive, scores);
    let mut curve = PrecisionRecallCurve {
        precision: pts
            .iter()
            .rev()
            .map(|&(_, fp, tp)| tp as f64 / (tp + fp) as f64)
            .collect(),
        recall: pts
            .iter()
            .rev()
            .map(|&(_, _, tp)| tp as f64 / n_pos as f64)
            .collect(),
        thresholds: pts.iter().rev().map(|p| p.0).collect(),
    };
    curve.precision.push(1.0);
    curve.recall.push(0.0);
    Ok(curve)
}

/// How [`roc_auc_multiclass`] reduces a multiclass problem to binary ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MulticlassRoc {
    /// Each class against the rest, averaged with equal weights.
    OneVsRestMacro,
    /// Each class against the rest, weighted by class frequency.
    OneVsRestWeighted,
    /// Every pair of classes on their samples only, both directions averaged (Hand & Till 2001).
    OneVsOne,
}

/// AUROC for `k ≥ 2` classes from class probabilities (row `i`, column `c`: the score of class
/// `c` for sample `i`), as scikit-learn's `roc_auc_score(multi_class=…)`.
pub fn roc_auc_multiclass(
    truth: &[usize],
    proba: &DenseMatrix,
    strategy: MulticlassRoc,
) -> Result<f64> {
    crate::check_pair(truth.len(), proba.nrows())?;
    let k = proba.ncols();
    if let Some(&t) = truth.iter().find(|&&t| t >= k) {
        return Err(Error::invalid_parameter(
            "class index",
            t,
            format!("below the {k} score columns"),
        ));
    }
    let column =
        |c: usize, rows: &[usize]| -> Vec<f64> { rows.iter().map(|&i| proba.get(i, c)).collect() };
    let all: Vec<usize> = (0..truth.len()).collect();
    match strategy {
        MulticlassRoc::OneVsRestMacro | MulticlassRoc::OneVsRestWeighted => {
            let mut total = 0.0;
            for c in 0..k {
                let pos: Vec<bool> = truth.iter().map(|&t| t == c).collect();
                let auc = roc_auc(&pos, &column(c, &all))?;
                let support = pos.iter().filter(|&&p| p).count() as f64;
                total += if strategy == MulticlassRoc::OneVsRestMacro {
                    auc / k as f64
                } else {
                    auc * support / truth.len() as f64
                };
            }
            Ok(total)
        }
        MulticlassRoc::OneVsOne => {
            let mut total = 0.0;
            for a in 0..k {
                for b in a + 1..k {
                    let rows: Vec<usize> = all
                        .iter()
                        .copied()
                        .filter(|&i| truth[i] == a || truth[i] == b)
                        .collect();
                    let is_a: Vec<bool> = rows.iter().map(|&i| truth[i] == a).collect();
                    let is_b: Vec<bool> = is_a.iter().map(|&x| !x).collect();
                    total += (roc_auc(&is_a, &column(a, &rows))?
                        + roc_auc(&is_b, &column(b, &rows))?)
                        / 2.0;
                }
            }
            Ok(total / (k * (k - 1) / 2) as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn values_match_scikit_learn() {
        // sklearn 1.9.1: y = [0, 0, 1, 1, 0, 1], s = [0.1, 0.4, 0.35, 0.8, 0.35, 0.9]:
        // roc_auc_score 0.8333333333333333, average_precision_score 0.8666666666666667,
        // roc_curve fpr [0, 0, 0, 1/3, 2/3, 1], tpr [0, 1/3, 2/3, 2/3, 1, 1],
        // thresholds [inf, 0.9, 0.8, 0.4, 0.35, 0.1].
        let y = [false, false, true, true, false, true];
        let s = [0.1, 0.4, 0.35, 0.8, 0.35, 0.9];
        assert!((roc_auc(&y, &s).unwrap() - 0.833_333_333_333_333_3).abs() < 1e-15);
        assert!((average_precision(&y, &s).unwrap() - 0.866_666_666_666_666_7).abs() < 1e-15);
        let c = roc_curve(&y, &s, true).unwrap();
        assert_eq!(c.thresholds, vec![f64::INFINITY, 0.9, 0.8, 0.4, 0.35, 0.1]);
        let third = 1.0 / 3.0;
        assert_eq!(c.fpr, vec![0.0, 0.0, 0.0, third, 2.0 * third, 1.0]);
        assert_eq!(c.tpr, vec![0.0, third, 2.0 * third, 2.0 * third, 1.0, 1.0]);
    }

    proptest! {
        #[test]
        fn auc_is_the_fraction_of_correctly_ordered_pairs(data in proptest::collection::vec((any::<bool>(), 0u8..6), 2..60)) {
            let y: Vec<bool> = data.iter().map(|d| d.0).collect();
            let s: Vec<f64> = data.iter().map(|d| f64::from(d.1)).collect();
            prop_assume!(y.contains(&true) && y.contains(&false));
            let (mut num, mut den) = (0.0, 0.0);
            for i in 0..y.len() {
                for j in 0..y.len() {
                    if y[i] && !y[j] {
                        den += 1.0;
                        num += if s[i] > s[j] { 1.0 } else if s[i] == s[j] { 0.5 } else { 0.0 };
                    }
                }
            }
            prop_assert!((roc_auc(&y, &s).unwrap() - num / den).abs() < 1e-12);
            for drop in [false, true] {
                let c = roc_curve(&y, &s, drop).unwrap();
                prop_assert_eq!((c.fpr[0], c.tpr[0]), (0.0, 0.0));
                prop_assert_eq!((*c.fpr.last().unwrap(), *c.tpr.last().unwrap()), (1.0, 1.0));
                prop_assert!(c.fpr.windows(2).all(|w| w[0] <= w[1]) && c.tpr.windows(2).all(|w| w[0] <= w[1]));
                let area: f64 = (1..c.fpr.len()).map(|k| (c.fpr[k] - c.fpr[k - 1]) * (c.tpr[k] + c.tpr[k - 1]) / 2.0).sum();
                prop_assert!((area - num / den).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn precision_recall_and_multiclass_auc_match_scikit_learn() {
        let y = [false, false, true, true, false, true];
        let s = [0.1, 0.4, 0.35, 0.8, 0.35, 0.9];
        let pr = precision_recall_curve(&y, &s).unwrap();
        let (t, h) = (1.0 / 3.0, 2.0 / 3.0);
        assert_eq!(pr.thresholds, vec![0.1, 0.35, 0.4, 0.8, 0.9]);
        assert_eq!(pr.recall, vec![1.0, 1.0, h, h, t, 0.0]);
        assert_eq!(pr.precision, vec![0.5, 0.6, h, 1.0, 1.0, 1.0]);
        // scikit-learn 1.9.1 roc_auc_score(y, P, multi_class=ovr macro / ovr weighted / ovo):
        // 0.8244047619047619, 0.8273809523809523, 0.826388888888889.
        let truth = [0, 1, 2, 2, 1, 0, 2, 1, 0, 2];
        let p = DenseMatrix::from_rows(&[
            [0.5, 0.3, 0.2],
            [0.4, 0.4, 0.2],
            [0.1, 0.2, 0.7],
            [0.3, 0.4, 0.3],
            [0.4, 0.3, 0.3],
            [0.3, 0.3, 0.4],
            [0.2, 0.5, 0.3],
            [0.1, 0.7, 0.2],
            [0.6, 0.2, 0.2],
            [0.3, 0.3, 0.4],
        ])
        .unwrap();
        let auc = |s| roc_auc_multiclass(&truth, &p, s).unwrap();
        assert!((auc(MulticlassRoc::OneVsRestMacro) - 0.824_404_761_904_761_9).abs() < 1e-15);
        assert!((auc(MulticlassRoc::OneVsRestWeighted) - 0.827_380_952_380_952_3).abs() < 1e-15);
        assert!((auc(MulticlassRoc::OneVsOne) - 0.826_388_888_888_889).abs() < 1e-15);
    }

    #[test]
    fn one_class_and_bad_scores_are_refused() {
        assert!(matches!(
            roc_auc(&[true, true], &[0.1, 0.2]),
            Err(Error::TooFewClasses { .. })
        ));
        assert!(roc_auc(&[true, false], &[f64::NAN, 0.2]).is_err());
        assert!(roc_auc(&[], &[]).is_err());
    }
}
