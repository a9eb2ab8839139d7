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

#[cfg(test)]
mod tests {
    use super::*;

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
