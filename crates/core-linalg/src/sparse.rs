//! Sparse records in compressed sparse row (CSR) form, as LIBSVM files (a9a, w8a, rcv1) are.

use serde::{Deserialize, Serialize};

use crate::dense::DenseMatrix;
use crate::error::{Error, Result};

/// A sparse `n × d` matrix in CSR form. Column indices within a row are strictly increasing.
///
/// Explicitly stored zeros are kept (a file that says `13:0` reads back as it was written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "CsrParts")]
pub struct CsrMatrix {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
    ncols: usize,
}

/// The serialized fields of a [`CsrMatrix`]; decoding re-checks every invariant through
/// [`CsrMatrix::new`].
#[derive(Deserialize)]
struct CsrParts {
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
    ncols: usize,
}

impl TryFrom<CsrParts> for CsrMatrix {
    type Error = Error;

    fn try_from(p: CsrParts) -> Result<Self> {
        Self::new(p.indptr, p.indices, p.values, p.ncols)
    }
}

/// One sparse row: parallel slices of strictly increasing column indices and their values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SparseRow<'a> {
    /// Column indices, strictly increasing.
    pub indices: &'a [u32],
    /// Values, one per index.
    pub values: &'a [f64],
}

impl CsrMatrix {
    /// Builds a CSR matrix from its three arrays, checking every invariant.
    pub fn new(
        indptr: Vec<usize>,
        indices: Vec<u32>,
        values: Vec<f64>,
        ncols: usize,
    ) -> Result<Self> {
        if indptr.first() != Some(&0) {
            return Err(Error::invalid_parameter(
                "indptr",
                "first entry",
                "indptr[0] = 0",
            ));
        }
        if indices.len() != values.len() {
            return Err(Error::shape(
                "CSR values (one per index)",
                indices.len(),
                values.len(),
            ));
        }
        if *indptr.last().unwrap_or(&0) != indices.len() {
            return Err(Error::shape(
                "CSR indptr's last entry (= nnz)",
                indices.len(),
                *indptr.last().unwrap_or(&0),
            ));
        }
        if ncols > u32::MAX as usize {
            return Err(Error::invalid_parameter(
                "ncols",
                ncols,
                "at most 2^32 - 1 columns",
            ));
        }
        if !well_formed(&indptr, &indices, ncols) {
            first_malformed_row(&indptr, &indices, ncols)?;
        }
        Ok(Self {
            indptr,
            indices,
            values,
            ncols,
        })
    }

    /// An `nrows × ncols` matrix with no stored entries.
    pub fn empty(nrows: usize, ncols: usize) -> Self {
        Self {
            indptr: vec![0; nrows + 1],
            indices: Vec::new(),
            values: Vec::new(),
            ncols,
        }
    }

    /// Builds a matrix `ncols` wide from rows that say, column by column, which values are
    /// stored (`Some`, zeros included) and which are not (`None`): the form tests and property
    /// strategies write sparse data in. Checked as [`CsrMatrix::new`] checks.
    pub fn from_optional_rows<R>(rows: impl IntoIterator<Item = R>, ncols: usize) -> Result<Self>
    where
        R: IntoIterator<Item = Option<f64>>,
    {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for row in rows {
            for (j, v) in row.into_iter().enumerate() {
                if let Some(v) = v {
                    let j = u32::try_from(j).map_err(|_| {
                        Error::invalid_parameter("ncols", ncols, "at most 2^32 - 1 columns")
                    })?;
                    indices.push(j);
                    values.push(v);
                }
            }
            indptr.push(values.len());
        }
        Self::new(indptr, indices, values, ncols)
    }

    /// Converts a dense matrix, storing only its non-zero entries.
    pub fn from_dense(m: &DenseMatrix) -> Self {
        Self::from_rows_of(m)
    }

    /// Copies any records, storing only their non-zero entries.
    pub(crate) fn from_rows_of<R: crate::Records + ?Sized>(records: &R) -> Self {
        let mut indptr = Vec::with_capacity(records.n_samples() + 1);
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.push(0);
        for i in 0..records.n_samples() {
            records.row(i).for_each_stored(|j, v| {
                if v != 0.0 {
                    indices.push(j as u32);
                    values.push(v);
                }
            });
            indptr.push(indices.len());
        }
        Self {
            indptr,
            indices,
            values,
            ncols: records.n_features(),
        }
    }

    /// Expands into a dense matrix, asking for its `n × d` values first (a sparse file with a
    /// large feature index can describe a dense matrix no machine holds).
    pub fn to_dense(&self) -> Result<DenseMatrix> {
        let mut out = DenseMatrix::try_zeros(
            self.nrows(),
            self.ncols,
            "the dense copy of sparse records",
            crate::memory::DENSE_COPY,
        )?;
        for i in 0..self.nrows() {
            let r = self.row(i);
            let dst = out.row_mut(i);
            for (&j, &v) in r.indices.iter().zip(r.values) {
                dst[j as usize] = v;
            }
        }
        Ok(out)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> SparseRow<'_> {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        SparseRow {
            indices: &self.indices[a..b],
            values: &self.values[a..b],
        }
    }

    /// Row offsets (`nrows + 1` entries).
    pub fn indptr(&self) -> &[usize] {
        &self.indptr
    }

    /// Column indices of all stored entries.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Values of all stored entries.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Values of all stored entries, mutable (the sparsity pattern stays fixed).
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// The same matrix with `ncols` columns; refuses to drop a stored column.
    pub fn with_ncols(mut self, ncols: usize) -> Result<Self> {
        let max = self.indices.iter().max().map_or(0, |&m| m as usize + 1);
        if ncols < max {
            return Err(Error::shape(
                "column count (the data uses a higher feature index)",
                max,
                ncols,
            ));
        }
        self.ncols = ncols;
        Ok(self)
    }

    /// A new matrix holding the rows at `rows`, in that order; its memory is asked for first
    /// (a copy of the data, as cross-validation makes for each fold).
    pub fn select_rows(&self, rows: &[usize]) -> Result<Self> {
        let stored = rows
            .iter()
            .fold(0usize, |s, &i| s.saturating_add(self.row(i).indices.len()));
        let what = format!(
            "a copy of {} sparse rows ({stored} stored values)",
            rows.len()
        );
        let mut indptr = Vec::with_capacity(rows.len() + 1);
        let mut indices =
            crate::memory::vec_with_capacity(stored, &what, crate::memory::SMALLER_INPUT)?;
        let mut values =
            crate::memory::vec_with_capacity(stored, &what, crate::memory::SMALLER_INPUT)?;
        indptr.push(0);
        for &i in rows {
            let r = self.row(i);
            indices.extend_from_slice(r.indices);
            values.extend_from_slice(r.values);
            indptr.push(indices.len());
        }
        Ok(Self {
            indptr,
            indices,
            values,
            ncols: self.ncols,
        })
    }
}

/// Whether CSR arrays whose last offset is the entry count are well formed: offsets that
/// never decrease, and in every row column indices that increase strictly and stay below
/// `ncols`. Flat passes without early exits (a walk row by row cost 8 ns a row, as much as a
/// linear model's prediction of the row): the column descents over all entries must be
/// exactly those where a row starts, which are counted a row at a time.
fn well_formed(indptr: &[usize], indices: &[u32], ncols: usize) -> bool {
    if !indptr.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1])) {
        return false;
    }
    let (max, descents) = max_and_descents(indices);
    // Offsets never decrease and end at the entry count, so a non-empty row's start is an
    // entry; the descent into it from the entry before is not within a row.
    let at_row_starts = indptr.windows(2).fold(0usize, |n, w| {
        n + usize::from(w[0] > 0 && w[0] < w[1] && indices[w[0] - 1] >= indices[w[0]])
    });
    (indices.is_empty() || (max as usize) < ncols) && descents == at_row_starts
}

crate::simd_dispatch! {
    /// The largest of `indices` (0 for none) and how many times one is not below the next.
    fn max_and_descents(indices: &[u32]) -> (u32, usize) => max_and_descents_loop;
}

/// [`max_and_descents`]: eight lanes of 32-bit maxima and counts, so that the loop vectorizes
/// (`Iterator::max` compiled to a branch per entry, and 64-bit counts to two lanes a vector),
/// counted in runs short enough for a lane's count. No multiply-adds: `FMA` is not read.
#[inline(always)]
fn max_and_descents_loop<const FMA: bool>(indices: &[u32]) -> (u32, usize) {
    const LANES: usize = 8;
    const RUN: usize = 1 << 31;
    let (mut max, mut descents) = (indices.last().copied().unwrap_or(0), 0usize);
    let pairs = indices.len().saturating_sub(1);
    for start in (0..pairs).step_by(RUN) {
        let end = pairs.min(start + RUN);
        let (a, b) = (&indices[start..end], &indices[start + 1..end + 1]);
        let (mut m, mut d) = ([0u32; LANES], [0u32; LANES]);
        for (a, b) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
            for l in 0..LANES {
                m[l] = m[l].max(a[l]);
                d[l] += u32::from(a[l] >= b[l]);
            }
        }
        let tail = a.len() - a.len() % LANES;
        for (&x, &y) in a[tail..].iter().zip(&b[tail..]) {
            max = max.max(x);
            descents += usize::from(x >= y);
        }
        max = m.into_iter().fold(max, u32::max);
        descents += d.into_iter().map(|c| c as usize).sum::<usize>();
    }
    (max, descents)
}

/// The named error for CSR arrays [`well_formed`] refused: the first row whose offsets or
/// column indices are wrong.
fn first_malformed_row(indptr: &[usize], indices: &[u32], ncols: usize) -> Result<()> {
    for (row, w) in indptr.windows(2).enumerate() {
        if w[0] > w[1] {
            return Err(Error::invalid_parameter(
                "indptr",
                format!("decreasing at row {row}"),
                "non-decreasing offsets",
            ));
        }
        // An offset past the end (a forged file) must be refused, not sliced.
        let Some(idx) = indices.get(w[0]..w[1]) else {
            return Err(Error::invalid_parameter(
                "indptr",
                format!("row {row} ends at {} of {} entries", w[1], indices.len()),
                "offsets within the stored entries",
            ));
        };
        if let Some(k) = idx.windows(2).position(|p| p[0] >= p[1]) {
            return Err(Error::invalid_parameter(
                "indices",
                format!("row {row}: {} then {}", idx[k], idx[k + 1]),
                "strictly increasing column indices within a row",
            ));
        }
        if let Some(&last) = idx.last()
            && last as usize >= ncols
        {
            return Err(Error::invalid_parameter(
                "indices",
                format!("row {row}: column {last}"),
                format!("column indices below ncols = {ncols}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Some` values are stored where they stand, zeros too; `None` is not stored; a row
    /// wider than `ncols` is refused.
    #[test]
    fn optional_rows_store_what_they_hold() {
        let x = CsrMatrix::from_optional_rows(
            [
                vec![None, Some(2.0), Some(0.0)],
                vec![],
                vec![Some(-1.0), None, None],
            ],
            3,
        )
        .unwrap();
        assert_eq!(x.indptr(), &[0, 2, 2, 3]);
        assert_eq!(x.indices(), &[1, 2, 0]);
        assert_eq!(x.values(), &[2.0, 0.0, -1.0]);
        assert_eq!((x.nrows(), x.ncols()), (3, 3));
        assert!(CsrMatrix::from_optional_rows([[None, Some(1.0)]], 1).is_err());
    }

    /// The flat check agrees with the row walk on many small arrays (up to 4 rows and 5
    /// entries, offsets and indices drawn to hit each way of being wrong, and up to 40 entries
    /// in rows drawn increasing but for one change, for the check's lanes of eight), and a
    /// malformed array's error is the walk's.
    #[test]
    fn the_flat_check_is_the_row_walk() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let mut refused = 0;
        for case in 0..20_000 {
            let long = case % 2 == 1;
            let nnz = next(if long { 41 } else { 6 }) as usize;
            let rows = next(4) as usize;
            let mut indptr = vec![0];
            for _ in 1..rows {
                // Past the entries (refused) in short cases; sorted offsets in long ones.
                indptr.push(next(nnz as u64 + if long { 1 } else { 2 }) as usize);
            }
            indptr.push(nnz);
            if long {
                indptr.sort_unstable();
            }
            let mut indices: Vec<u32> = (0..nnz).map(|_| next(5) as u32).collect();
            let mut ncols = next(6) as usize;
            if long {
                // Each row increasing (3 apart from 0 up), then one entry changed.
                for w in indptr.windows(2) {
                    for (k, j) in indices[w[0]..w[1]].iter_mut().enumerate() {
                        *j = 3 * k as u32;
                    }
                }
                ncols = 3 * nnz + next(2) as usize;
                if nnz > 0 && next(2) == 0 {
                    indices[next(nnz as u64) as usize] = next(3 * nnz as u64 + 3) as u32;
                }
            }
            let walk = first_malformed_row(&indptr, &indices, ncols);
            assert_eq!(
                well_formed(&indptr, &indices, ncols),
                walk.is_ok(),
                "{indptr:?} {indices:?} {ncols}"
            );
            refused += usize::from(walk.is_err());
            let built = CsrMatrix::new(indptr, indices, vec![1.0; nnz], ncols);
            assert_eq!(
                built.err().map(|e| e.to_string()),
                walk.err().map(|e| e.to_string())
            );
        }
        // Both answers came up often.
        assert!((2_000..18_000).contains(&refused), "{refused}");
    }

    /// A row offset beyond the stored entries (as a forged model file can hold, with the last
    /// offset still equal to the entry count) is refused, not sliced.
    #[test]
    fn offsets_past_the_entries_are_refused() {
        assert!(CsrMatrix::new(vec![0, 1, 2], vec![0, 1], vec![1.0, 2.0], 2).is_ok());
        for indptr in [vec![0, 5, 2], vec![0, usize::MAX, 2], vec![0, 3, 3, 2]] {
            assert!(matches!(
                CsrMatrix::new(indptr.clone(), vec![0, 1], vec![1.0, 2.0], 2),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
}
