//! Checks every estimator runs before fitting or predicting, so that bad input becomes a typed
//! error and never a panic or a silently wrong model.

use crate::dataset::{Classes, Dataset, Targets};
use crate::error::{Error, Result};
use crate::records::Records;

/// Refuses records with no samples or no features.
pub fn check_non_empty<R: Records + ?Sized>(records: &R) -> Result<()> {
    if records.n_samples() == 0 {
        return Err(Error::EmptyDataset(
            "no samples: give at least one row".into(),
        ));
    }
    if records.n_features() == 0 {
        return Err(Error::EmptyDataset(
            "no features: every row is empty".into(),
        ));
    }
    Ok(())
}

/// Finds the first NaN or infinity (in row order) and reports its row and column.
///
/// Dense and CSR records are first checked as one contiguous run of values (vectorized, on
/// every thread when large); only records that hold a bad value are walked row by row to name
/// it.
pub fn check_finite<R: Records + ?Sized>(records: &R) -> Result<()> {
    if stored_values(records).is_some_and(all_finite) {
        return Ok(());
    }
    first_non_finite(records)
}

/// Every stored value of `records` in one slice, when they are: a dense block's values or a
/// CSR matrix's stored entries, for checks that read each value once in one pass (other
/// records are walked row by row).
pub fn stored_values<R: Records + ?Sized>(records: &R) -> Option<&[f64]> {
    match (records.as_dense(), records.as_sparse()) {
        (Some(d), _) => Some(d.as_slice()),
        (None, Some(s)) => Some(s.values()),
        (None, None) => None,
    }
}

/// [`check_finite`] for records whose every stored value has just gone through a linear map
/// with finite weights into `outputs` (a product with a model's coefficients, a projection): a
/// NaN or infinity in the input makes some output NaN or infinite (`NaN·w`, `∞·0` and `∞ − ∞`
/// are NaN, `∞·w` is infinite), so finite outputs prove finite records without reading them
/// again, and only non-finite outputs (bad input, or an overflow of finite input, which passes)
/// send the records through [`check_finite`] to name the bad value.
pub fn check_finite_through<R: Records + ?Sized>(records: &R, outputs: &[f64]) -> Result<()> {
    if all_finite(outputs) {
        Ok(())
    } else {
        check_finite(records)
    }
}

/// Whether every value is finite: eight branch-free running sums, on several threads for many
/// values (what [`check_finite_through`] asks of the outputs, for callers that check outputs
/// in a pass of their own).
pub fn all_finite(values: &[f64]) -> bool {
    use rayon::prelude::*;
    // `x·0` is ±0 for a finite `x` and NaN for a NaN or an infinity; eight running sums of it
    // vectorize, where a short-circuiting test would branch on every value.
    fn run(values: &[f64]) -> bool {
        let mut sums = [0.0f64; 8];
        let chunks = values.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for (s, &v) in sums.iter_mut().zip(c) {
                *s += v * 0.0;
            }
        }
        sums.iter().all(|&s| s == 0.0) && tail.iter().all(|v| v.is_finite())
    }
    if crate::parallel::should_split(values.len(), crate::parallel::Overhead::Loop) {
        values
            .par_chunks(crate::parallel::chunk_len(values.len(), 1))
            .all(run)
    } else {
        run(values)
    }
}

/// The row-by-row walk behind [`check_finite`]: the first non-finite value's row and column.
fn first_non_finite<R: Records + ?Sized>(records: &R) -> Result<()> {
    for i in 0..records.n_samples() {
        let mut bad = None;
        records.row(i).for_each_stored(|j, v| {
            if bad.is_none() && !v.is_finite() {
                bad = Some(j);
            }
        });
        if let Some(col) = bad {
            return Err(Error::NonFinite { row: i, col });
        }
    }
    Ok(())
}

/// Refuses a non-finite value in a vector (targets, weights); `col` is reported as 0.
pub fn check_finite_slice(values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(Error::NonFinite { row, col: 0 }),
        None => Ok(()),
    }
}

/// Refuses values whose (weighted) squares sum past `f64`'s largest value, with room for the
/// differences between them: models that sum squared errors or distances (a regression tree's
/// variance, k-means' inertia) could only give infinities, and a model holding them would be
/// refused when its file is read. `what` names the values ("the regression targets").
pub fn check_sum_of_squares(
    what: &str,
    values: impl Iterator<Item = f64> + Clone,
    weights: Option<&[f64]>,
) -> Result<()> {
    // A difference of two values is at most twice the larger: (2v)² bounds every square the
    // models form.
    let total: f64 = match weights {
        Some(w) => values
            .clone()
            .zip(w)
            .map(|(v, w)| w * (2.0 * v) * (2.0 * v))
            .sum(),
        None => values.clone().map(|v| (2.0 * v) * (2.0 * v)).sum(),
    };
    if total.is_finite() {
        return Ok(());
    }
    let largest = values.fold(0.0f64, |m, v| m.max(v.abs()));
    Err(Error::OutOfRange {
        what: what.to_string(),
        reason: format!(
            "the sum of their squares overflows f64 (the largest magnitude is {largest:e}); rescale them, for example divide by a power of ten"
        ),
    })
}

/// Refuses records whose feature count differs from the one the model was fitted on.
pub fn check_n_features<R: Records + ?Sized>(fitted: usize, records: &R) -> Result<()> {
    if records.n_features() != fitted {
        return Err(Error::shape(
            "feature count at predict (must equal the count the model was fitted on)",
            fitted,
            records.n_features(),
        ));
    }
    Ok(())
}

/// Refuses fewer than `required` classes that actually occur in the data.
pub fn check_min_classes(classes: &Classes, required: usize) -> Result<()> {
    let found = classes.counts().iter().filter(|&&c| c > 0).count();
    if found < required {
        return Err(Error::TooFewClasses { found, required });
    }
    Ok(())
}

/// Everything a supervised `fit` checks first: consistent lengths, at least one sample and one
/// feature, finite records, finite numeric targets and weights, and a positive total weight.
pub fn check_dataset(data: &Dataset) -> Result<()> {
    data.check_consistent()?;
    check_non_empty(&data.records)?;
    check_finite(&data.records)?;
    if let Targets::Values(v) = &data.targets {
        check_finite_slice(v)?;
    }
    check_some_weight(data)
}

/// Refuses sample weights that are all zero: such a fit has no sample to learn from.
pub fn check_some_weight(data: &Dataset) -> Result<()> {
    match &data.sample_weights {
        Some(w) if w.iter().all(|&v| v == 0.0) => Err(Error::invalid_parameter(
            "sample_weights",
            "all zero",
            "at least one positive weight (a sample of weight zero is left out of the fit)",
        )),
        _ => Ok(()),
    }
}

/// Everything a `predict` checks: finite records of the fitted width (zero rows is allowed and
/// gives an empty answer).
pub fn check_predict<R: Records + ?Sized>(fitted_features: usize, records: &R) -> Result<()> {
    check_n_features(fitted_features, records)?;
    check_finite(records)
}

/// Refuses a parameter that is not finite and strictly positive.
pub fn check_positive(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(name, value, "a finite number > 0"))
    }
}

/// Refuses a parameter outside `[lo, hi]` (or outside `(lo, hi]` when `lo_open`).
pub fn check_in_range(name: &str, value: f64, lo: f64, hi: f64, lo_open: bool) -> Result<()> {
    let above = if lo_open { value > lo } else { value >= lo };
    if above && value <= hi {
        Ok(())
    } else {
        let open = if lo_open { "(" } else { "[" };
        Err(Error::invalid_parameter(
            name,
            value,
            format!("a number in {open}{lo}, {hi}]"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CsrMatrix, DenseMatrix, DenseView, linear_scores};
    use proptest::prelude::*;

    /// The first bad value in row order, read entry by entry: the answer both checks must give.
    fn naive(rows: &[Vec<f64>]) -> Option<(usize, usize)> {
        rows.iter()
            .enumerate()
            .find_map(|(i, r)| r.iter().position(|v| !v.is_finite()).map(|j| (i, j)))
    }

    fn named(result: Result<()>) -> Option<(usize, usize)> {
        match result {
            Ok(()) => None,
            Err(Error::NonFinite { row, col }) => Some((row, col)),
            Err(e) => panic!("not a NonFinite error: {e}"),
        }
    }

    /// Records of `n × d` values in [-2, 2] (a quarter of them zero), with up to three
    /// entries replaced by NaN or an infinity.
    fn with_bad_values() -> impl Strategy<Value = Vec<Vec<f64>>> {
        (1usize..40, 1usize..30).prop_flat_map(|(n, d)| {
            let value = prop_oneof![1 => Just(0.0), 3 => -2.0f64..2.0];
            let bad = prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)];
            (
                proptest::collection::vec(proptest::collection::vec(value, d), n),
                proptest::collection::vec((0..n, 0..d, bad), 0..4),
            )
                .prop_map(|(mut rows, bad)| {
                    for (i, j, v) in bad {
                        rows[i][j] = v;
                    }
                    rows
                })
        })
    }

    proptest! {
        // The fast path over the stored values and the walk that names the value agree with a
        // naive scan, dense or sparse, and so does the check through a linear map's outputs.
        #[test]
        fn every_check_names_the_first_bad_value(rows in with_bad_values(), w0 in -1.0f64..1.0) {
            let expected = naive(&rows);
            let dense = DenseMatrix::from_rows(&rows).unwrap();
            let sparse = CsrMatrix::from_dense(&dense);
            let flat: Vec<f64> = rows.concat();
            let view = DenseView::new(&flat, rows.len(), rows[0].len()).unwrap();
            prop_assert_eq!(named(check_finite(&dense)), expected);
            prop_assert_eq!(named(check_finite(&view)), expected);
            prop_assert_eq!(named(check_finite(&sparse)), expected);
            // Finite weights with zeros among them: `∞·0` must still be caught.
            let d = rows[0].len();
            let w: Vec<f64> = (0..d).map(|j| if j % 3 == 0 { 0.0 } else { w0 + j as f64 }).collect();
            let coef = DenseMatrix::from_rows(&[w]).unwrap();
            for records in [&dense as &dyn Records, &sparse] {
                let scores = linear_scores(records, &coef, &[0.5]);
                prop_assert_eq!(named(check_finite_through(records, scores.as_slice())), expected);
            }
        }
    }

    #[test]
    fn a_large_run_of_values_is_checked_on_every_thread_and_still_names_the_value() {
        let (n, d) = (2_000, 100);
        let mut values = vec![1.0; n * d];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let view = DenseView::new(&values, n, d).unwrap();
        assert!(pool.install(|| check_finite(&view)).is_ok());
        values[1_234 * d + 56] = f64::NEG_INFINITY;
        values[1_900 * d + 1] = f64::NAN;
        let view = DenseView::new(&values, n, d).unwrap();
        assert_eq!(
            named(pool.install(|| check_finite(&view))),
            Some((1_234, 56))
        );
    }

    #[test]
    fn an_overflowing_product_of_finite_records_passes() {
        let x = DenseMatrix::from_rows(&[vec![1e300, 1e300]]).unwrap();
        let coef = DenseMatrix::from_rows(&[vec![1e10, 1e10]]).unwrap();
        let scores = linear_scores(&x, &coef, &[0.0]);
        assert!(scores.as_slice()[0].is_infinite());
        assert!(check_finite_through(&x, scores.as_slice()).is_ok());
    }
}
