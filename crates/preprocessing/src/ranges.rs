//! Per-column value ranges that keep sparse records sparse.

use margin_core::memory::{self, FEWER_FEATURES};
use margin_core::{Records, Result};

/// Below this many columns the ranges are gathered in dense per-column arrays even when the
/// records store fewer entries (the arrays are then small anyway).
const SMALL_WIDTH: usize = 1 << 16;

/// The minimum and maximum of every column of some records, kept only for the columns that are
/// stored in at least one row, so that its size is proportional to the stored entries, not to
/// the feature count (a LIBSVM file whose one feature index is 2,147,483,647 has two ranges,
/// not two billion).
///
/// As LIBSVM's svm-scale and scikit-learn's `MinMaxScaler` on sparse input count them, entries
/// a sparse row does not store are zeros: a column missing from some row has 0 in its range,
/// and a column that no row stores has the range `[0, 0]`. Records are expected to be finite
/// (the readers and [`validate`](margin_core::validate) ensure it).
///
/// ```
/// use margin_core::CsrMatrix;
/// use margin_preprocessing::column_ranges;
///
/// // Two rows, 2^31 - 1 columns: `1 2147483647:1` and `-1 1:1` in LIBSVM.
/// let x = CsrMatrix::new(vec![0, 1, 2], vec![2147483646, 0], vec![1.0, 1.0], 2147483647)?;
/// let r = column_ranges(&x)?;
/// assert_eq!(r.n_stored(), 2);
/// assert_eq!(r.get(0), (0.0, 1.0)); // missing from the first row: 0 is in the range
/// assert_eq!(r.get(5), (0.0, 0.0)); // never stored
/// assert_eq!(r.iter().collect::<Vec<_>>(), [(0, 0.0, 1.0), (2147483646, 0.0, 1.0)]);
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnRanges {
    n_features: usize,
    /// The stored columns, increasing, with their minima and maxima.
    columns: Vec<usize>,
    min: Vec<f64>,
    max: Vec<f64>,
}

/// Computes the [`ColumnRanges`] of `records` in time proportional to the stored entries
/// (plus their sort when few columns of very many are stored) and memory proportional to the
/// stored entries.
pub fn column_ranges<R: Records + ?Sized>(records: &R) -> Result<ColumnRanges> {
    let (d, stored) = (records.n_features(), records.nnz());
    if d <= stored.max(SMALL_WIDTH) {
        by_dense_accumulators(records)
    } else {
        by_sorted_columns(records)
    }
}

impl ColumnRanges {
    /// The number of columns of the records, stored or not.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// How many columns are stored in at least one row.
    pub fn n_stored(&self) -> usize {
        self.columns.len()
    }

    /// The stored columns, increasing, each with its minimum and maximum:
    /// `(column, min, max)`, zero-based.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (usize, f64, f64)> + '_ {
        self.columns
            .iter()
            .zip(self.min.iter().zip(&self.max))
            .map(|(&j, (&lo, &hi))| (j, lo, hi))
    }

    /// The minimum and maximum of column `j` (`(0, 0)` for a column no row stores).
    pub fn get(&self, j: usize) -> (f64, f64) {
        match self.columns.binary_search(&j) {
            Ok(k) => (self.min[k], self.max[k]),
            Err(_) => (0.0, 0.0),
        }
    }

    /// One minimum and one maximum per column, stored or not: `n_features` values each, asked
    /// for through [`memory`] (for models whose state is dense in the feature count).
    pub fn to_dense(&self) -> Result<(Vec<f64>, Vec<f64>)> {
        let d = self.n_features;
        let mut lo = memory::filled_vec(d, 0.0, "per-feature minima", FEWER_FEATURES)?;
        let mut hi = memory::filled_vec(d, 0.0, "per-feature maxima", FEWER_FEATURES)?;
        for (j, min, max) in self.iter() {
            lo[j] = min;
            hi[j] = max;
        }
        Ok((lo, hi))
    }
}

/// Dense per-column accumulators, compacted at the end: used when the width is at most the
/// stored-entry count (or small), so the arrays stay proportional to the stored entries.
fn by_dense_accumulators<R: Records + ?Sized>(records: &R) -> Result<ColumnRanges> {
    let d = records.n_features();
    let mut lo = memory::filled_vec(d, f64::INFINITY, "per-feature minima", FEWER_FEATURES)?;
    let mut hi = memory::filled_vec(d, f64::NEG_INFINITY, "per-feature maxima", FEWER_FEATURES)?;
    let mut seen = memory::filled_vec(d, 0usize, "per-feature counts", FEWER_FEATURES)?;
    for i in 0..records.n_samples() {
        records.row(i).for_each_stored(|j, v| {
            lo[j] = lo[j].min(v);
            hi[j] = hi[j].max(v);
            seen[j] += 1;
        });
    }
    include_zero_where_missing(&mut lo, &mut hi, &seen, records.n_samples());
    let n_stored = seen.iter().filter(|&&c| c > 0).count();
    let mut out = ColumnRanges::with_capacity(d, n_stored)?;
    for j in (0..d).filter(|&j| seen[j] > 0) {
        out.columns.push(j);
        out.min.push(lo[j]);
        out.max.push(hi[j]);
    }
    Ok(out)
}

/// The stored columns found by sorting a copy of the column indices, then one binary search
/// per stored entry: memory proportional to the stored entries whatever the width.
fn by_sorted_columns<R: Records + ?Sized>(records: &R) -> Result<ColumnRanges> {
    let d = records.n_features();
    let mut columns: Vec<usize> =
        memory::vec_with_capacity(records.nnz(), "the stored column indices", FEWER_FEATURES)?;
    for i in 0..records.n_samples() {
        records.row(i).for_each_stored(|j, _| columns.push(j));
    }
    columns.sort_unstable();
    columns.dedup();
    let mut out = ColumnRanges::with_capacity(d, columns.len())?;
    out.min.resize(columns.len(), f64::INFINITY);
    out.max.resize(columns.len(), f64::NEG_INFINITY);
    let mut seen = memory::filled_vec(columns.len(), 0usize, "per-feature counts", FEWER_FEATURES)?;
    out.columns = columns;
    for i in 0..records.n_samples() {
        records.row(i).for_each_stored(|j, v| {
            // Every stored column is in the list.
            if let Ok(k) = out.columns.binary_search(&j) {
                out.min[k] = out.min[k].min(v);
                out.max[k] = out.max[k].max(v);
                seen[k] += 1;
            }
        });
    }
    include_zero_where_missing(&mut out.min, &mut out.max, &seen, records.n_samples());
    Ok(out)
}

impl ColumnRanges {
    fn with_capacity(n_features: usize, n_stored: usize) -> Result<Self> {
        let what = "the stored columns' ranges";
        Ok(Self {
            n_features,
            columns: memory::vec_with_capacity(n_stored, what, FEWER_FEATURES)?,
            min: memory::vec_with_capacity(n_stored, what, FEWER_FEATURES)?,
            max: memory::vec_with_capacity(n_stored, what, FEWER_FEATURES)?,
        })
    }
}

/// A column stored in fewer than all `n_samples` rows (`seen`, per column) holds a zero
/// somewhere.
fn include_zero_where_missing(lo: &mut [f64], hi: &mut [f64], seen: &[usize], n_samples: usize) {
    for ((lo, hi), &count) in lo.iter_mut().zip(hi.iter_mut()).zip(seen) {
        if count < n_samples {
            *lo = lo.min(0.0);
            *hi = hi.max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{CsrMatrix, DenseMatrix};
    use proptest::prelude::*;

    /// The definition, column by column over a dense copy.
    fn naive(x: &DenseMatrix) -> Vec<(f64, f64)> {
        (0..x.ncols())
            .map(|j| {
                x.rows()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), r| {
                        (a.min(r[j]), b.max(r[j]))
                    })
            })
            .collect()
    }

    fn sparse() -> impl Strategy<Value = CsrMatrix> {
        (1usize..8, 1usize..12).prop_flat_map(|(n, d)| {
            proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.3, -5i32..5), d),
                n,
            )
            .prop_map(move |rows| {
                let rows = rows.iter().map(|r| r.iter().map(|v| v.map(f64::from)));
                CsrMatrix::from_optional_rows(rows, d).unwrap()
            })
        })
    }

    proptest! {
        #[test]
        fn both_strategies_agree_with_the_definition(x in sparse()) {
            let dense = x.to_dense().unwrap();
            let want = naive(&dense);
            for r in [by_dense_accumulators(&x).unwrap(), by_sorted_columns(&x).unwrap(),
                      column_ranges(&dense).unwrap()] {
                let got: Vec<(f64, f64)> = (0..x.ncols()).map(|j| r.get(j)).collect();
                prop_assert_eq!(&got, &want);
                let (lo, hi) = r.to_dense().unwrap();
                prop_assert_eq!(lo.into_iter().zip(hi).collect::<Vec<_>>(), want.clone());
            }
            // Dense records store every column; sparse ones list only the stored columns.
            prop_assert_eq!(column_ranges(&dense).unwrap().n_stored(), x.ncols());
            let stored: std::collections::BTreeSet<u32> = x.indices().iter().copied().collect();
            let r = by_sorted_columns(&x).unwrap();
            prop_assert_eq!(r.iter().map(|(j, ..)| j as u32).collect::<Vec<_>>(),
                            stored.into_iter().collect::<Vec<_>>());
            prop_assert_eq!(r, by_dense_accumulators(&x).unwrap());
        }
    }

    #[test]
    fn the_largest_width_costs_only_the_stored_entries() {
        // LIBSVM's `1 4294967295:-3` and `2 1:2 4294967295:5` (one-based): 2^32 - 1 columns.
        let x = CsrMatrix::new(
            vec![0, 1, 3],
            vec![u32::MAX - 1, 0, u32::MAX - 1],
            vec![-3.0, 2.0, 5.0],
            u32::MAX as usize,
        )
        .unwrap();
        let r = column_ranges(&x).unwrap();
        assert_eq!(r.n_features(), u32::MAX as usize);
        assert_eq!(
            r.iter().collect::<Vec<_>>(),
            [(0, 0.0, 2.0), (u32::MAX as usize - 1, -3.0, 5.0)]
        );
        let empty = CsrMatrix::empty(0, 3);
        assert_eq!(column_ranges(&empty).unwrap().n_stored(), 0);
    }
}
