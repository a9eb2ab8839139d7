//! Class probabilities for SVMs, as LIBSVM computes them: Platt's sigmoid fitted on
//! cross-validated decision values (with the improvements of Lin, Lin & Weng 2007: target
//! smoothing, a Newton method with backtracking, and overflow-free evaluation), for more than
//! two classes the pairwise coupling of Wu, Lin & Weng (2004, their second method), and for the
//! one-class SVM the density binning of Que & Lin (LIBSVM 3.3x's `prob_density_marks`).

// The coupling iteration indexes its k × k matrix as the paper writes it.
#![allow(clippy::needless_range_loop)]

use margin_core::{DenseMatrix, Error};

/// The refusal of `operation`, which needs a probability model, by a model fitted without one.
pub(crate) fn no_probability_model(operation: &str) -> Error {
    Error::unsupported(
        operation,
        "the model was fitted without probability estimates: refit with probability(true) (LIBSVM: svm-train -b 1)",
    )
}

/// Probabilities are kept in `[MIN_PROB, 1 − MIN_PROB]` before coupling, as LIBSVM does, so no
/// pairwise estimate is exactly 0 or 1.
const MIN_PROB: f64 = 1e-7;

/// `log(1 + e^{−|z|})`-style terms of the sigmoid's negative log-likelihood, without overflow.
fn nll_term(dec: f64, a: f64, b: f64, target: f64) -> f64 {
    let f = dec * a + b;
    if f >= 0.0 {
        target * f + (-f).exp().ln_1p()
    } else {
        (target - 1.0) * f + f.exp().ln_1p()
    }
}

/// How the Newton iteration of a sigmoid fit ended: LIBSVM prints a line for the two ways it
/// can end before the gradient vanishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigmoidEnd {
    /// The gradient fell below the tolerance.
    Converged,
    /// No step along the Newton direction lowered the objective (as with decision values that
    /// are NaN, from a fold whose ν-SVC solver ended degenerate): the last `(A, B)` is kept.
    /// LIBSVM: "Line search fails in two-class probability estimates".
    LineSearchFailed,
    /// 100 iterations passed. LIBSVM: "Reaching maximal iterations in two-class probability
    /// estimates".
    MaxIterations,
}

/// Fits `P(positive | f) = 1 / (1 + exp(A f + B))` to decision values `dec` with labels
/// `positive`, returning `(A, B)` and how the iteration ended. Targets are Platt's smoothed
/// `(n₊ + 1)/(n₊ + 2)` and `1/(n₋ + 2)`.
pub(crate) fn sigmoid_fit(dec: &[f64], positive: &[bool]) -> ((f64, f64), SigmoidEnd) {
    const MAX_ITER: usize = 100;
    const MIN_STEP: f64 = 1e-10;
    const SIGMA: f64 = 1e-12;
    const EPS: f64 = 1e-5;
    let prior1 = positive.iter().filter(|&&p| p).count() as f64;
    let prior0 = positive.len() as f64 - prior1;
    let (hi, lo) = ((prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0));
    let t: Vec<f64> = positive.iter().map(|&p| if p { hi } else { lo }).collect();
    let objective = |a: f64, b: f64| {
        dec.iter()
            .zip(&t)
            .map(|(&d, &ti)| nll_term(d, a, b, ti))
            .sum::<f64>()
    };
    let (mut a, mut b) = (0.0, ((prior0 + 1.0) / (prior1 + 1.0)).ln());
    let mut fval = objective(a, b);
    let mut end = SigmoidEnd::MaxIterations;
    for _ in 0..MAX_ITER {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (SIGMA, SIGMA, 0.0, 0.0, 0.0);
        for (&d, &ti) in dec.iter().zip(&t) {
            let f = d * a + b;
            let (p, q) = if f >= 0.0 {
                let e = (-f).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = f.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += d * d * d2;
            h22 += d2;
            h21 += d * d2;
            let d1 = ti - p;
            g1 += d * d1;
            g2 += d1;
        }
        if g1.abs() < EPS && g2.abs() < EPS {
            end = SigmoidEnd::Converged;
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let (da, db) = (-(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det);
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        while step >= MIN_STEP {
            let (na, nb) = (a + step * da, b + step * db);
            let nf = objective(na, nb);
            if nf < fval + 1e-4 * step * gd {
                (a, b, fval) = (na, nb, nf);
                break;
            }
            step /= 2.0;
        }
        if step < MIN_STEP {
            end = SigmoidEnd::LineSearchFailed;
            break;
        }
    }
    ((a, b), end)
}

/// `P(positive | f)` under a fitted sigmoid.
pub(crate) fn sigmoid_predict(dec: f64, a: f64, b: f64) -> f64 {
    let f = dec * a + b;
    if f >= 0.0 {
        let e = (-f).exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + f.exp())
    }
}

/// Class probabilities from pairwise ones: `r[(i, j)]` estimates `P(i | i or j)`. Solves Wu,
/// Lin & Weng's quadratic problem `min ½ pᵀQp` on the simplex by their fixed-point iteration.
pub(crate) fn couple(r: &DenseMatrix) -> Vec<f64> {
    let k = r.nrows();
    if k == 2 {
        return vec![r.get(0, 1), r.get(1, 0)];
    }
    let mut q = vec![vec![0.0; k]; k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t][t] += r.get(j, t) * r.get(j, t);
                q[t][j] = -r.get(j, t) * r.get(t, j);
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let eps = 0.005 / k as f64;
    for _ in 0..100.max(k) {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t][j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        if qp.iter().all(|&v| (v - pqp).abs() < eps) {
            break;
        }
        for t in 0..k {
            let diff = (-qp[t] + pqp) / q[t][t];
            p[t] += diff;
            pqp = (pqp + diff * (diff * q[t][t] + 2.0 * qp[t])) / ((1.0 + diff) * (1.0 + diff));
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t][j]) / (1.0 + diff);
                p[j] /= 1.0 + diff;
            }
        }
    }
    p
}

/// Number of bins of the one-class probability model (LIBSVM's `nr_marks`).
pub(crate) const NR_MARKS: usize = 10;

/// LIBSVM's `svm_one_class_probability`: bin boundaries for the training decision values,
/// half of the bins over the negative values and half over the non-negative ones, each holding
/// about as many samples. `None` when either side has fewer than `NR_MARKS / 2` values (LIBSVM
/// then warns and fits no probability model).
pub(crate) fn one_class_marks(mut dec: Vec<f64>) -> Option<[f64; NR_MARKS]> {
    let l = dec.len();
    dec.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    // As LIBSVM: with no non-negative value the negative count stays 0.
    let negative = dec.iter().position(|&v| v >= 0.0).unwrap_or(0);
    let positive = l - negative;
    let mid = NR_MARKS / 2;
    if negative < mid || positive < mid {
        return None;
    }
    let mut edges = [0.0; NR_MARKS + 1];
    for (i, edge) in edges.iter_mut().enumerate() {
        *edge = match i.cmp(&mid) {
            std::cmp::Ordering::Less => dec[i * negative / mid],
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Greater => dec[negative - 1 + (i - mid) * positive / mid],
        };
    }
    let mut marks = [0.0; NR_MARKS];
    for (i, m) in marks.iter_mut().enumerate() {
        *m = (edges[i] + edges[i + 1]) / 2.0;
    }
    Some(marks)
}

/// LIBSVM's `predict_one_class_probability`: the probability that a sample with decision
/// value `dec` is normal (not an outlier), `i / NR_MARKS` for the first mark above `dec`, 0.001
/// below every mark and 0.999 above them.
pub(crate) fn one_class_probability(marks: &[f64; NR_MARKS], dec: f64) -> f64 {
    if dec < marks[0] {
        0.001
    } else if dec > marks[NR_MARKS - 1] {
        0.999
    } else {
        // A value equal to the last mark (or NaN) falls through every test: LIBSVM's 0.
        (1..NR_MARKS)
            .find(|&i| dec < marks[i])
            .map_or(0.0, |i| i as f64 / NR_MARKS as f64)
    }
}

/// Pairwise probability clipped into `[MIN_PROB, 1 − MIN_PROB]`.
pub(crate) fn clip(p: f64) -> f64 {
    // LIBSVM's `min(max(p, MIN_PROB), 1 − MIN_PROB)` with its comparisons, which take a NaN
    // (the decision value of a degenerate fold model) to MIN_PROB; `f64::clamp` keeps NaN.
    let p = if p > MIN_PROB { p } else { MIN_PROB };
    if p < 1.0 - MIN_PROB {
        p
    } else {
        1.0 - MIN_PROB
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn nan_decision_values_end_the_sigmoid_fit_and_clip_as_libsvm_s() {
        // A degenerate fold's decision values: LIBSVM's line search fails at once and keeps
        // the starting point (A = 0, B = log((n₋ + 1)/(n₊ + 1))).
        let dec = [f64::NAN, 0.5, f64::NAN, -1.0];
        let positive = [true, true, false, true];
        let ((a, b), end) = sigmoid_fit(&dec, &positive);
        assert_eq!(end, SigmoidEnd::LineSearchFailed);
        assert_eq!((a, b), (0.0, (2.0f64 / 4.0).ln()));
        // LIBSVM's min/max take NaN to the lower clip.
        assert_eq!(clip(f64::NAN), MIN_PROB);
        assert_eq!(clip(0.0), MIN_PROB);
        assert_eq!(clip(1.0), 1.0 - MIN_PROB);
        assert_eq!(clip(0.25), 0.25);
    }

    #[test]
    fn sigmoid_fit_reaches_a_stationary_point() {
        let dec: Vec<f64> = (0..60).map(|i| (i as f64 - 30.0) / 7.0).collect();
        let positive: Vec<bool> = (0..60).map(|i| (i * 37 % 60) < i).collect();
        let ((a, b), end) = sigmoid_fit(&dec, &positive);
        assert_eq!(end, SigmoidEnd::Converged);
        let prior1 = positive.iter().filter(|&&p| p).count() as f64;
        let prior0 = 60.0 - prior1;
        let t: Vec<f64> = positive
            .iter()
            .map(|&p| {
                if p {
                    (prior1 + 1.0) / (prior1 + 2.0)
                } else {
                    1.0 / (prior0 + 2.0)
                }
            })
            .collect();
        let f = |a: f64, b: f64| {
            dec.iter()
                .zip(&t)
                .map(|(&d, &ti)| nll_term(d, a, b, ti))
                .sum::<f64>()
        };
        let h = 1e-6;
        let (ga, gb) = (
            (f(a + h, b) - f(a - h, b)) / (2.0 * h),
            (f(a, b + h) - f(a, b - h)) / (2.0 * h),
        );
        assert!(
            ga.abs() < 1e-4 && gb.abs() < 1e-4,
            "gradient ({ga}, {gb}) at ({a}, {b})"
        );
        assert!(
            a < 0.0,
            "larger decision values must mean the positive class: A = {a}"
        );
    }

    #[test]
    fn sigmoid_predict_is_overflow_free_and_monotone() {
        assert_eq!(sigmoid_predict(1e308, -1.0, 0.0), 1.0);
        assert_eq!(sigmoid_predict(-1e308, -1.0, 0.0), 0.0);
        assert!(sigmoid_predict(1.0, -2.0, 0.1) > sigmoid_predict(0.5, -2.0, 0.1));
    }

    #[test]
    fn one_class_marks_split_each_side_into_five_bins() {
        // 10 negative values −10…−1 and 10 non-negative 0…9.
        let dec: Vec<f64> = (-10..10).rev().map(f64::from).collect();
        let marks = one_class_marks(dec).unwrap();
        // Edges: dec[0], dec[2], …, dec[8] (−10, −8, −6, −4, −2), 0, then dec[9 + 2k]
        // (1, 3, 5, 7, 9) for k = 1…5.
        assert_eq!(
            marks,
            [-9.0, -7.0, -5.0, -3.0, -1.0, 0.5, 2.0, 4.0, 6.0, 8.0]
        );
        assert_eq!(one_class_probability(&marks, -100.0), 0.001);
        assert_eq!(one_class_probability(&marks, 100.0), 0.999);
        assert_eq!(one_class_probability(&marks, -8.0), 0.1);
        assert_eq!(one_class_probability(&marks, 0.0), 0.5);
        assert_eq!(one_class_probability(&marks, 7.9), 0.9);
        assert_eq!(one_class_probability(&marks, 8.0), 0.0);
    }

    #[test]
    fn too_few_values_on_one_side_give_no_marks() {
        let four_negative: Vec<f64> = (-4..20).map(f64::from).collect();
        assert_eq!(one_class_marks(four_negative), None);
        let all_positive: Vec<f64> = (0..30).map(f64::from).collect();
        assert_eq!(one_class_marks(all_positive), None);
        let four_positive: Vec<f64> = (-30..4).map(f64::from).collect();
        assert_eq!(one_class_marks(four_positive), None);
    }

    proptest! {
        #[test]
        fn one_class_marks_are_sorted_and_bins_rise_with_the_decision_value(
            neg in proptest::collection::vec(-100.0f64..-1e-9, 5..40),
            pos in proptest::collection::vec(0.0f64..100.0, 5..40),
            probes in proptest::collection::vec(-150.0f64..150.0, 2..20),
        ) {
            let mut dec = pos;
            dec.extend(&neg);
            let marks = one_class_marks(dec).unwrap();
            prop_assert!(marks.windows(2).all(|w| w[0] <= w[1]), "{marks:?}");
            prop_assert!(marks[NR_MARKS / 2 - 1] <= 0.0 && marks[NR_MARKS / 2] >= 0.0);
            let mut probes = probes;
            probes.retain(|&p| p != marks[NR_MARKS - 1]);
            probes.sort_by(f64::total_cmp);
            let p: Vec<f64> = probes.iter().map(|&d| one_class_probability(&marks, d)).collect();
            prop_assert!(p.windows(2).all(|w| w[0] <= w[1]), "{probes:?} -> {p:?}");
            prop_assert!(p.iter().all(|&v| v > 0.0 && v < 1.0));
        }

        #[test]
        fn coupling_recovers_consistent_pairwise_probabilities(raw in proptest::collection::vec(0.05f64..1.0, 3..7)) {
            let total: f64 = raw.iter().sum();
            let truth: Vec<f64> = raw.iter().map(|v| v / total).collect();
            let k = truth.len();
            let mut r = DenseMatrix::zeros(k, k);
            for i in 0..k {
                for j in 0..k {
                    if i != j {
                        r.row_mut(i)[j] = truth[i] / (truth[i] + truth[j]);
                    }
                }
            }
            let p = couple(&r);
            prop_assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            for (a, b) in p.iter().zip(&truth) {
                prop_assert!((a - b).abs() < 5e-3, "{p:?} vs {truth:?}");
            }
        }
    }
}
