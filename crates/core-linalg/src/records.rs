//! The one trait algorithms use to read samples, dense or sparse, without copying.

use serde::{Deserialize, Serialize};

use crate::dense::DenseMatrix;
use crate::error::Result;
use crate::sparse::{CsrMatrix, SparseRow};

/// One sample (a row of the records), dense or sparse.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowView<'a> {
    /// All `d` values.
    Dense(&'a [f64]),
    /// Only the stored entries.
    Sparse(SparseRow<'a>),
}

/// Dot product of two dense slices of equal length.
///
/// Four independent accumulators let the compiler vectorize the loop; the summation order is
/// fixed, so the result does not depend on threads.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

fn sparse_dot_sparse(a: SparseRow<'_>, b: SparseRow<'_>) -> f64 {
    let (mut i, mut j, mut s) = (0, 0, 0.0);
    while i < a.indices.len() && j < b.indices.len() {
        match a.indices[i].cmp(&b.indices[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                s += a.values[i] * b.values[j];
                i += 1;
                j += 1;
            }
        }
    }
    s
}

impl<'a> RowView<'a> {
    /// `x · w` for a dense vector `w` of length `d`.
    #[inline]
    pub fn dot_dense(&self, w: &[f64]) -> f64 {
        match self {
            RowView::Dense(x) => dot(x, w),
            RowView::Sparse(r) => r
                .indices
                .iter()
                .zip(r.values)
                .map(|(&j, &v)| v * w[j as usize])
                .sum(),
        }
    }

    /// `x · z` for another row of the same width.
    #[inline]
    pub fn dot(&self, other: &RowView<'_>) -> f64 {
        match (self, other) {
            (RowView::Dense(a), RowView::Dense(b)) => dot(a, b),
            (RowView::Sparse(a), RowView::Sparse(b)) => sparse_dot_sparse(*a, *b),
            (RowView::Sparse(_), RowView::Dense(b)) => self.dot_dense(b),
            (RowView::Dense(a), RowView::Sparse(_)) => other.dot_dense(a),
        }
    }

    /// `‖x‖²`.
    #[inline]
    pub fn sq_norm(&self) -> f64 {
        match self {
            RowView::Dense(x) => dot(x, x),
            RowView::Sparse(r) => dot(r.values, r.values),
        }
    }

    /// `out += alpha · x`.
    #[inline]
    pub fn axpy(&self, alpha: f64, out: &mut [f64]) {
        match self {
            RowView::Dense(x) => out.iter_mut().zip(*x).for_each(|(o, &v)| *o += alpha * v),
            RowView::Sparse(r) => r
                .indices
                .iter()
                .zip(r.values)
                .for_each(|(&j, &v)| out[j as usize] += alpha * v),
        }
    }

    /// Writes the row into a dense buffer of length `d` (zeros where nothing is stored).
    pub fn to_dense_into(&self, out: &mut [f64]) {
        match self {
            RowView::Dense(x) => out.copy_from_slice(x),
            RowView::Sparse(r) => {
                out.fill(0.0);
                r.indices
                    .iter()
                    .zip(r.values)
                    .for_each(|(&j, &v)| out[j as usize] = v);
            }
        }
    }

    /// Calls `f(column, value)` for every stored entry (every column of a dense row).
    #[inline]
    pub fn for_each_stored(&self, mut f: impl FnMut(usize, f64)) {
        match self {
            RowView::Dense(x) => x.iter().enumerate().for_each(|(j, &v)| f(j, v)),
            RowView::Sparse(r) => r
                .indices
                .iter()
                .zip(r.values)
                .for_each(|(&j, &v)| f(j as usize, v)),
        }
    }
}

/// Samples an algorithm can read: `n_samples × n_features`, one row per sample.
///
/// Implemented by [`DenseMatrix`], [`CsrMatrix`] and [`Matrix`]. Algorithms that only need dot
/// products and norms (linear models, kernels, kNN) take `&R where R: Records + ?Sized` and so
/// accept either layout without copying.
pub trait Records: Sync {
    /// Number of samples (rows).
    fn n_samples(&self) -> usize;
    /// Number of features (columns).
    fn n_features(&self) -> usize;
    /// Sample `i`.
    fn row(&self, i: usize) -> RowView<'_>;
    /// The dense matrix behind these records, if they are dense (for GEMM paths).
    fn as_dense(&self) -> Option<&DenseMatrix>;
    /// The CSR matrix behind these records, if they are sparse.
    fn as_sparse(&self) -> Option<&CsrMatrix>;

    /// `x_i · x_j`.
    fn dot_rows(&self, i: usize, j: usize) -> f64 {
        self.row(i).dot(&self.row(j))
    }

    /// `‖x_i‖²`.
    fn row_sq_norm(&self, i: usize) -> f64 {
        self.row(i).sq_norm()
    }

    /// `x_i · w`.
    fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        self.row(i).dot_dense(w)
    }

    /// `out[i] = x_i · w` for every row.
    fn mul_vec(&self, w: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.row_dot(i, w);
        }
    }

    /// A dense copy.
    fn to_dense(&self) -> DenseMatrix {
        match (self.as_dense(), self.as_sparse()) {
            (Some(d), _) => d.clone(),
            (None, Some(s)) => s.to_dense(),
            (None, None) => {
                let mut out = DenseMatrix::zeros(self.n_samples(), self.n_features());
                for i in 0..self.n_samples() {
                    self.row(i).to_dense_into(out.row_mut(i));
                }
                out
            }
        }
    }

    /// A sparse copy (zeros of dense rows are not stored).
    fn to_sparse(&self) -> CsrMatrix {
        match self.as_sparse() {
            Some(s) => s.clone(),
            None => CsrMatrix::from_dense(&self.to_dense()),
        }
    }

    /// Number of stored values (`n × d` when dense).
    fn nnz(&self) -> usize {
        match self.as_sparse() {
            Some(s) => s.nnz(),
            None => self.n_samples() * self.n_features(),
        }
    }
}

impl Records for DenseMatrix {
    fn n_samples(&self) -> usize {
        self.nrows()
    }
    fn n_features(&self) -> usize {
        self.ncols()
    }
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Dense(DenseMatrix::row(self, i))
    }
    fn as_dense(&self) -> Option<&DenseMatrix> {
        Some(self)
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        None
    }
}

impl Records for CsrMatrix {
    fn n_samples(&self) -> usize {
        self.nrows()
    }
    fn n_features(&self) -> usize {
        self.ncols()
    }
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Sparse(CsrMatrix::row(self, i))
    }
    fn as_dense(&self) -> Option<&DenseMatrix> {
        None
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        Some(self)
    }
}

/// Owned records in either layout: what a [`Dataset`](crate::Dataset) holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Matrix {
    /// Dense, row-major.
    Dense(DenseMatrix),
    /// Sparse, CSR.
    Sparse(CsrMatrix),
}

impl Matrix {
    /// Fraction of entries that are stored (1 for dense).
    pub fn density(&self) -> f64 {
        let total = self.n_samples() * self.n_features();
        if total == 0 {
            0.0
        } else {
            self.nnz() as f64 / total as f64
        }
    }

    /// The rows at `indices`, in that order, in the same layout.
    pub fn select_rows(&self, indices: &[usize]) -> Self {
        match self {
            Matrix::Dense(d) => Matrix::Dense(d.select_rows(indices)),
            Matrix::Sparse(s) => Matrix::Sparse(s.select_rows(indices)),
        }
    }

    /// Widens the records to `n_features` columns (a test file may lack the highest index its
    /// training file uses). Refuses to narrow.
    pub fn with_n_features(self, n_features: usize) -> Result<Self> {
        match self {
            Matrix::Sparse(s) => Ok(Matrix::Sparse(s.with_ncols(n_features)?)),
            Matrix::Dense(d) if d.ncols() == n_features => Ok(Matrix::Dense(d)),
            Matrix::Dense(d) if d.ncols() < n_features => {
                let mut out = DenseMatrix::zeros(d.nrows(), n_features);
                for i in 0..d.nrows() {
                    out.row_mut(i)[..d.ncols()].copy_from_slice(d.row(i));
                }
                Ok(Matrix::Dense(out))
            }
            Matrix::Dense(d) => Err(crate::Error::shape(
                "column count (cannot drop dense columns)",
                d.ncols(),
                n_features,
            )),
        }
    }
}

impl Records for Matrix {
    fn n_samples(&self) -> usize {
        match self {
            Matrix::Dense(d) => d.nrows(),
            Matrix::Sparse(s) => s.nrows(),
        }
    }
    fn n_features(&self) -> usize {
        match self {
            Matrix::Dense(d) => d.ncols(),
            Matrix::Sparse(s) => s.ncols(),
        }
    }
    fn row(&self, i: usize) -> RowView<'_> {
        match self {
            Matrix::Dense(d) => RowView::Dense(d.row(i)),
            Matrix::Sparse(s) => RowView::Sparse(s.row(i)),
        }
    }
    fn as_dense(&self) -> Option<&DenseMatrix> {
        match self {
            Matrix::Dense(d) => Some(d),
            Matrix::Sparse(_) => None,
        }
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        match self {
            Matrix::Dense(_) => None,
            Matrix::Sparse(s) => Some(s),
        }
    }
}

impl From<DenseMatrix> for Matrix {
    fn from(d: DenseMatrix) -> Self {
        Matrix::Dense(d)
    }
}

impl From<CsrMatrix> for Matrix {
    fn from(s: CsrMatrix) -> Self {
        Matrix::Sparse(s)
    }
}

impl From<faer::Mat<f64>> for Matrix {
    fn from(m: faer::Mat<f64>) -> Self {
        Matrix::Dense(m.into())
    }
}
