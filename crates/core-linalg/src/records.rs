//! The one trait algorithms use to read samples, dense or sparse, without copying.

use serde::{Deserialize, Serialize};

use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::sparse::{CsrMatrix, SparseRow};
use crate::view::{DenseCow, DenseView};

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

/// `w_p·x_i + b_p` for every sample `i` and weight row `p`: an `n × rows` matrix, computed in
/// parallel over blocks of samples (each entry by one thread, so the result does not depend on
/// the thread count). The caller checks the feature count first, and the values through the
/// scores ([`check_finite_through`](crate::validate::check_finite_through)).
pub fn linear_scores<R: Records + ?Sized>(
    records: &R,
    coef: &crate::DenseMatrix,
    intercept: &[f64],
) -> crate::DenseMatrix {
    let (n, k) = (records.n_samples(), coef.nrows().max(1));
    let row_work = linear_work(records, k);
    let csr = records.as_sparse();
    let mut out = crate::DenseMatrix::zeros(n, coef.nrows());
    // The scores of the rows from `first` on, into `scores` (a block of whole rows), one
    // weight row at a time: with one row (two classes) the loop is a pass over the samples.
    let block = |first: usize, scores: &mut [f64]| {
        for (p, (w, &b)) in coef.rows().zip(intercept).enumerate() {
            let outputs = scores.chunks_exact_mut(k).map(|row| &mut row[p]);
            match csr {
                // CSR rows cut straight from the matrix's arrays: short rows (a9a's 14
                // entries) spent as much on reaching the row through `Records::row` as on
                // the product.
                Some(csr) => {
                    let (starts, indices, values) = (csr.indptr(), csr.indices(), csr.values());
                    for (v, ends) in outputs.zip(starts[first..].windows(2)) {
                        let x = SparseRow {
                            indices: &indices[ends[0]..ends[1]],
                            values: &values[ends[0]..ends[1]],
                        };
                        *v = sparse_dot_dense(x, w) + b;
                    }
                }
                None => {
                    for (r, v) in outputs.enumerate() {
                        *v = records.row(first + r).dot_dense(w) + b;
                    }
                }
            }
        }
    };
    // Blocks of rows, each a plain loop: a rayon item per row cost as much as a short row's
    // product, and below the parallel rule's work (a9a's test set) the calling thread runs
    // them all, in about half the time two threads took.
    crate::parallel::for_row_blocks(out.as_mut_slice(), k, row_work, block);
    out
}

/// Element operations (`margin_core::parallel`'s unit) one sample costs a linear model with
/// `k` weight rows: a stored entry is an index load, a gather and a multiply-add per weight
/// row, 0.4–0.5 ns measured on a9a's rows, so four entries make one operation (a9a's 16,281
/// test rows of 14 entries stay on the calling thread, ijcnn1's 91,701 go parallel).
fn linear_work<R: Records + ?Sized>(records: &R, k: usize) -> usize {
    (records.nnz().div_ceil(records.n_samples().max(1)) * k.max(1)).div_ceil(4)
}

/// `f(x_j, z_j)` over every column of a dense row `x` and a sparse row `z`.
#[inline]
fn dense_sparse_union(x: &[f64], z: SparseRow<'_>, mut f: impl FnMut(f64, f64)) {
    let mut k = 0;
    for (j, &v) in x.iter().enumerate() {
        if z.indices.get(k) == Some(&(j as u32)) {
            f(v, z.values[k]);
            k += 1;
        } else {
            f(v, 0.0);
        }
    }
}

/// `x · w` for a sparse `x`: a gather with four independent accumulators (a single running sum
/// would serialize on the adder's latency).
#[inline]
fn sparse_dot_dense(x: SparseRow<'_>, w: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ci, cv) = (x.indices.chunks_exact(4), x.values.chunks_exact(4));
    let (ri, rv) = (ci.remainder(), cv.remainder());
    for (idx, val) in ci.zip(cv) {
        for k in 0..4 {
            acc[k] += val[k] * w[idx[k] as usize];
        }
    }
    let mut tail = 0.0;
    for (&j, &v) in ri.iter().zip(rv) {
        tail += v * w[j as usize];
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
            RowView::Sparse(r) => sparse_dot_dense(*r, w),
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

    /// `‖x − z‖²`, computed from the differences (no cancellation when `x ≈ z`).
    #[inline]
    pub fn sq_dist(&self, other: &RowView<'_>) -> f64 {
        let mut s = 0.0;
        self.zip_union(other, |a, b| s += (a - b) * (a - b));
        s
    }

    /// `‖x − z‖₁`.
    #[inline]
    pub fn l1_dist(&self, other: &RowView<'_>) -> f64 {
        let mut s = 0.0;
        self.zip_union(other, |a, b| s += (a - b).abs());
        s
    }

    /// Calls `f(x_j, z_j)` for every column `j` stored in either row (zeros fill the gaps; for
    /// two dense rows, every column).
    #[inline]
    pub fn zip_union(&self, other: &RowView<'_>, mut f: impl FnMut(f64, f64)) {
        match (self, other) {
            (RowView::Dense(a), RowView::Dense(b)) => a.iter().zip(*b).for_each(|(&x, &z)| f(x, z)),
            (RowView::Sparse(a), RowView::Sparse(b)) => {
                let (mut i, mut j) = (0, 0);
                while i < a.indices.len() || j < b.indices.len() {
                    let ka = a.indices.get(i).copied().unwrap_or(u32::MAX);
                    let kb = b.indices.get(j).copied().unwrap_or(u32::MAX);
                    match ka.cmp(&kb) {
                        std::cmp::Ordering::Less => {
                            f(a.values[i], 0.0);
                            i += 1;
                        }
                        std::cmp::Ordering::Greater => {
                            f(0.0, b.values[j]);
                            j += 1;
                        }
                        std::cmp::Ordering::Equal => {
                            f(a.values[i], b.values[j]);
                            i += 1;
                            j += 1;
                        }
                    }
                }
            }
            (RowView::Dense(a), RowView::Sparse(b)) => dense_sparse_union(a, *b, &mut f),
            (RowView::Sparse(a), RowView::Dense(b)) => dense_sparse_union(b, *a, |z, x| f(x, z)),
        }
    }

    /// Value of column `j` (zero when a sparse row does not store it).
    #[inline]
    pub fn get(&self, j: usize) -> f64 {
        match self {
            RowView::Dense(x) => x.get(j).copied().unwrap_or(0.0),
            RowView::Sparse(r) => r
                .indices
                .binary_search(&(j as u32))
                .map_or(0.0, |k| r.values[k]),
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
/// Implemented by [`DenseMatrix`], [`DenseView`] (borrowed row-major memory), [`CsrMatrix`],
/// [`Matrix`], and fixed-width rows (`[[f64; N]]` slices and arrays, read in place:
/// `model.predict(&[[0.5, 1.0]])`). Algorithms that only need dot products and norms (linear
/// models, kernels, kNN) take `&R where R: Records + ?Sized` and so accept either layout
/// without copying. Rows of varying length (`Vec<Vec<f64>>`) may be ragged: they become records
/// through a checked conversion, `Matrix::try_from(rows)?` or `DenseMatrix::from_rows(&rows)?`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not records margin can read directly",
    note = "convert rows first: `Matrix::try_from(rows)?` or `DenseMatrix::from_rows(&rows)?` \
            (checked: rows of one width), or pass fixed-width rows `&[[f64; N]]`"
)]
pub trait Records: Sync {
    /// Number of samples (rows).
    fn n_samples(&self) -> usize;
    /// Number of features (columns).
    fn n_features(&self) -> usize;
    /// Sample `i`.
    fn row(&self, i: usize) -> RowView<'_>;
    /// The dense values behind these records, borrowed, if they are dense (an owned
    /// [`DenseMatrix`] or a [`DenseView`] of the caller's memory): what GEMM and the other dense
    /// fast paths read, without a copy.
    fn as_dense(&self) -> Option<DenseView<'_>>;
    /// The CSR matrix behind these records, if they are sparse.
    fn as_sparse(&self) -> Option<&CsrMatrix>;

    /// Entry `(i, j)`, or `None` outside the `n_samples × n_features` records. A sparse row's
    /// absent entry is `Some(0.0)`.
    ///
    /// [`DenseMatrix`] and [`DenseView`] also have an inherent `get(i, j) -> f64` for loops
    /// whose bounds are known (it panics out of range); method-call syntax picks that one on
    /// them, so call `Records::get(&m, i, j)` for the checked read.
    fn get(&self, i: usize, j: usize) -> Option<f64> {
        (i < self.n_samples() && j < self.n_features()).then(|| self.row(i).get(j))
    }

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

    /// A dense copy, its `n × d` values asked for first ([`Error::OutOfMemory`](crate::Error)
    /// when sparse records describe more than the machine holds).
    fn to_dense(&self) -> Result<DenseMatrix> {
        match (self.as_dense(), self.as_sparse()) {
            (Some(d), _) => d.to_owned(),
            (None, Some(s)) => s.to_dense(),
            (None, None) => {
                let mut out = DenseMatrix::try_zeros(
                    self.n_samples(),
                    self.n_features(),
                    "the dense copy of records",
                    crate::memory::DENSE_COPY,
                )?;
                for i in 0..self.n_samples() {
                    self.row(i).to_dense_into(out.row_mut(i));
                }
                Ok(out)
            }
        }
    }

    /// The records as a dense matrix: borrowed when they are dense (see
    /// [`as_dense`](Records::as_dense)), otherwise a copy whose memory is asked for first (see
    /// [`to_dense`](Records::to_dense)). Read it through [`DenseCow::view`].
    fn dense_view(&self) -> Result<DenseCow<'_>> {
        match self.as_dense() {
            Some(d) => Ok(DenseCow::Borrowed(d)),
            None => self.to_dense().map(DenseCow::Owned),
        }
    }

    /// A sparse copy (zeros of dense rows are not stored).
    fn to_sparse(&self) -> CsrMatrix {
        match self.as_sparse() {
            Some(s) => s.clone(),
            None => CsrMatrix::from_rows_of(self),
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
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Dense(DenseMatrix::row(self, i))
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        Some(self.view())
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
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Sparse(CsrMatrix::row(self, i))
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        None
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        Some(self)
    }
}

/// A reference to records is records too (so `&R` with `R: ?Sized` can become `&dyn Records`).
impl<R: Records + ?Sized> Records for &R {
    fn n_samples(&self) -> usize {
        (**self).n_samples()
    }
    fn n_features(&self) -> usize {
        (**self).n_features()
    }
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        (**self).row(i)
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        (**self).as_dense()
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        (**self).as_sparse()
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
        // In floating point: n · d of sparse records can exceed usize.
        let total = self.n_samples() as f64 * self.n_features() as f64;
        if total == 0.0 {
            0.0
        } else {
            self.nnz() as f64 / total
        }
    }

    /// The rows at `indices`, in that order, in the same layout (a copy whose memory is asked
    /// for first).
    pub fn select_rows(&self, indices: &[usize]) -> Result<Self> {
        Ok(match self {
            Matrix::Dense(d) => Matrix::Dense(d.select_rows(indices)?),
            Matrix::Sparse(s) => Matrix::Sparse(s.select_rows(indices)?),
        })
    }

    /// Widens the records to `n_features` columns (a test file may lack the highest index its
    /// training file uses). Refuses to narrow.
    pub fn with_n_features(self, n_features: usize) -> Result<Self> {
        match self {
            Matrix::Sparse(s) => Ok(Matrix::Sparse(s.with_ncols(n_features)?)),
            Matrix::Dense(d) if d.ncols() == n_features => Ok(Matrix::Dense(d)),
            Matrix::Dense(d) if d.ncols() < n_features => {
                let mut out = DenseMatrix::try_zeros(
                    d.nrows(),
                    n_features,
                    "the widened dense records",
                    crate::memory::FEWER_FEATURES,
                )?;
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
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        match self {
            Matrix::Dense(d) => RowView::Dense(d.row(i)),
            Matrix::Sparse(s) => RowView::Sparse(s.row(i)),
        }
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        match self {
            Matrix::Dense(d) => Some(d.view()),
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

/// Rows `start..end` of other records, borrowed, as records: a block of samples a model
/// predicts at once. Dense records lend the block as a [`DenseView`], so GEMM fast paths apply
/// to it; sparse ones are read row by row.
pub struct RowRange<'a, R: ?Sized> {
    inner: &'a R,
    start: usize,
    len: usize,
}

impl<'a, R: Records + ?Sized> RowRange<'a, R> {
    /// Rows `rows` of `inner`; a range past its samples is [`Error::InvalidParameter`].
    pub fn new(inner: &'a R, rows: std::ops::Range<usize>) -> Result<Self> {
        let n = inner.n_samples();
        if rows.start > rows.end || rows.end > n {
            return Err(Error::invalid_parameter(
                "rows",
                format!("{}..{}", rows.start, rows.end),
                format!("a range within the {n} samples"),
            ));
        }
        Ok(Self {
            inner,
            start: rows.start,
            len: rows.end - rows.start,
        })
    }
}

impl<R: Records + ?Sized> Records for RowRange<'_, R> {
    fn n_samples(&self) -> usize {
        self.len
    }
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }
    fn row(&self, i: usize) -> RowView<'_> {
        self.inner.row(self.start + i)
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        Some(self.inner.as_dense()?.subrows(self.start, self.len))
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        None
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

/// Fixed-width rows, read in place: they are row-major memory already.
impl<const N: usize> Records for [[f64; N]] {
    fn n_samples(&self) -> usize {
        self.len()
    }
    fn n_features(&self) -> usize {
        N
    }
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Dense(&self[i])
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        DenseView::new(self.as_flattened(), self.len(), N).ok()
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        None
    }
}

/// An array of fixed-width rows, as its slice.
impl<const N: usize, const M: usize> Records for [[f64; N]; M] {
    fn n_samples(&self) -> usize {
        M
    }
    fn n_features(&self) -> usize {
        N
    }
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        self.as_slice().row(i)
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        self.as_slice().as_dense()
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_row_range_borrows_dense_rows_and_reads_sparse_ones() {
        let dense = DenseMatrix::from_rows(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).unwrap();
        let block = RowRange::new(&dense, 1..3).unwrap();
        let view = block.as_dense().unwrap();
        assert_eq!(view.as_slice(), &[3.0, 4.0, 5.0, 6.0]);
        assert!(
            std::ptr::eq(view.row(0), dense.row(1)),
            "copied, not borrowed"
        );
        let sparse = CsrMatrix::from_dense(&dense);
        let block = RowRange::new(&sparse, 2..3).unwrap();
        assert!(block.as_dense().is_none() && block.as_sparse().is_none());
        assert_eq!(block.to_dense().unwrap().row(0), &[5.0, 6.0]);
        // `get` reads the parent's rows, and nothing past the range.
        assert_eq!((block.get(0, 1), block.get(1, 0)), (Some(6.0), None));
        assert_eq!(RowRange::new(&dense, 3..3).unwrap().n_samples(), 0);
        let (start, end) = (2, 1);
        for bad in [2..4, start..end] {
            assert!(matches!(
                RowRange::new(&dense, bad),
                Err(Error::InvalidParameter { ref name, .. }) if name == "rows"
            ));
        }
    }

    /// A matrix of `n × d` values in -3..3 of which about half are zeros, as rows.
    fn mostly_zero_rows() -> impl Strategy<Value = Vec<Vec<f64>>> {
        (0usize..7, 0usize..7).prop_flat_map(|(n, d)| {
            proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0.0), -3.0f64..3.0], d),
                n,
            )
        })
    }

    proptest! {
        #[test]
        fn get_reads_the_dense_copys_entry_in_every_layout_and_none_outside(
            rows in mostly_zero_rows(),
            extra in 0usize..3,
        ) {
            let dense = DenseMatrix::from_rows(&rows).unwrap();
            let (n, d) = (dense.nrows(), dense.ncols());
            let sparse = CsrMatrix::from_dense(&dense);
            let copy = sparse.to_dense().unwrap();
            let all: [&dyn Records; 7] = [
                &dense,
                &dense.view(),
                &sparse,
                &Matrix::Sparse(sparse.clone()),
                &Matrix::Dense(dense.clone()),
                &RowRange::new(&dense, 0..n).unwrap(),
                &RowRange::new(&sparse, 0..n).unwrap(),
            ];
            for (k, r) in all.into_iter().enumerate() {
                for i in 0..n + extra {
                    for j in 0..d + extra {
                        let want = (i < n && j < d).then(|| copy.get(i, j));
                        prop_assert_eq!(r.get(i, j), want, "layout {}, ({}, {})", k, i, j);
                        prop_assert_eq!(Records::get(&r, i, j), want);
                    }
                }
            }
        }

        #[test]
        fn row_operations_agree_across_layouts(
            a in proptest::collection::vec(prop_oneof![Just(0.0), -5.0f64..5.0], 1..12),
            b_seed in proptest::collection::vec(prop_oneof![Just(0.0), -5.0f64..5.0], 12),
        ) {
            let b: Vec<f64> = b_seed[..a.len()].to_vec();
            let dense = DenseMatrix::from_rows(&[a.clone(), b.clone()]).unwrap();
            let sparse = CsrMatrix::from_dense(&dense);
            let (da, db, sa, sb) = (dense.row(0), dense.row(1), Records::row(&sparse, 0), Records::row(&sparse, 1));
            let (da, db) = (RowView::Dense(da), RowView::Dense(db));
            let dot_def: f64 = a.iter().zip(&b).map(|(x, z)| x * z).sum();
            let sq_def: f64 = a.iter().zip(&b).map(|(x, z)| (x - z) * (x - z)).sum();
            let l1_def: f64 = a.iter().zip(&b).map(|(x, z)| (x - z).abs()).sum();
            for (x, z) in [(da, db), (sa, sb), (da, sb), (sa, db)] {
                prop_assert!((x.dot(&z) - dot_def).abs() <= 1e-12 * (1.0 + dot_def.abs()));
                prop_assert!((x.sq_dist(&z) - sq_def).abs() <= 1e-12 * (1.0 + sq_def));
                prop_assert!((x.l1_dist(&z) - l1_def).abs() <= 1e-12 * (1.0 + l1_def));
                for (j, &v) in a.iter().enumerate() {
                    prop_assert_eq!(x.get(j), v);
                }
            }
        }
    }

    /// Rows of 4 entries (5 features, one left out per row) with values from `i` and `j`. At
    /// 1–4 of the parallel rule's operations a row (layout and weight rows), 37 rows stay on
    /// the calling thread and 200,000 split into tasks.
    fn sparse_rows(n: usize) -> CsrMatrix {
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..5)
                    .map(|j| {
                        if j == i % 5 {
                            0.0
                        } else {
                            ((i * 7 + j * 3) % 11) as f64 - 5.0
                        }
                    })
                    .collect()
            })
            .collect();
        CsrMatrix::from_dense(&DenseMatrix::from_rows(&rows).unwrap())
    }

    #[test]
    fn linear_scores_are_each_rows_products_on_the_calling_thread_and_split() {
        let coef = DenseMatrix::from_rows(&[
            [0.5, -1.25, 2.0, 0.0, 3.5],
            [1.0, 1.0, -0.75, 0.25, -2.0],
            [0.0, 0.125, 0.5, -1.5, 1.0],
        ])
        .unwrap();
        let intercept = [0.25, -0.5, 1.0];
        for n in [0, 1, 37, 200_000] {
            let sparse = sparse_rows(n);
            let dense = sparse.to_dense().unwrap();
            for k in [1, 3] {
                let w = DenseMatrix::from_rows(&coef.rows().take(k).collect::<Vec<_>>()).unwrap();
                let b = &intercept[..k];
                for (layout, records) in [("sparse", &sparse as &dyn Records), ("dense", &dense)] {
                    let scores = linear_scores(records, &w, b);
                    assert_eq!((scores.nrows(), scores.ncols()), (n, k));
                    for i in 0..n {
                        for (p, (wp, bp)) in w.rows().zip(b).enumerate() {
                            let want = records.row(i).dot_dense(wp) + bp;
                            assert!(
                                (scores.get(i, p) - want).abs() <= 1e-12 * (1.0 + want.abs()),
                                "{layout}, n {n}, row {i}, output {p}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fixed_width_rows_are_dense_records_in_place() {
        let rows = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
        assert_eq!((rows.n_samples(), rows.n_features()), (3, 2));
        let view = rows.as_dense().unwrap();
        assert_eq!(view.as_slice().as_ptr(), rows[0].as_ptr());
        assert_eq!(rows.row_dot(1, &[1.0, 1.0]), 7.0);
        let slice: &[[f64; 2]] = &rows[1..];
        assert_eq!(slice.to_dense().unwrap().as_slice(), [3.0, 4.0, 5.0, 6.0]);
        assert!(slice.as_sparse().is_none());
    }
}
