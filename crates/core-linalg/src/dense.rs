//! Dense records: a row-major `n × d` matrix with faer views.
//!
//! Rows are contiguous because the hot loops of SMO, Pegasos and kNN touch one sample at a time;
//! faer reads the same buffer through a strided view (row stride `d`, column stride 1), so GEMM
//! and the decompositions need no copy.

use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::view::DenseView;

/// A dense `n × d` matrix of `f64`, stored row by row.
///
/// Decoding (model files) goes through [`DenseMatrix::from_row_major`], so a file whose buffer
/// length disagrees with its shape is refused instead of breaking indexing later.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "DenseParts")]
pub struct DenseMatrix {
    data: Vec<f64>,
    nrows: usize,
    ncols: usize,
}

/// The serialized fields of a [`DenseMatrix`], before their shape is checked.
#[derive(Deserialize)]
struct DenseParts {
    data: Vec<f64>,
    nrows: usize,
    ncols: usize,
}

impl TryFrom<DenseParts> for DenseMatrix {
    type Error = Error;

    fn try_from(p: DenseParts) -> Result<Self> {
        Self::from_row_major(p.data, p.nrows, p.ncols)
    }
}

impl DenseMatrix {
    /// Wraps a row-major buffer of `nrows * ncols` values.
    pub fn from_row_major(data: Vec<f64>, nrows: usize, ncols: usize) -> Result<Self> {
        crate::view::check_row_major(data.len(), nrows, ncols)?;
        Ok(Self { data, nrows, ncols })
    }

    /// Builds a matrix from rows of equal length (a row of another length is
    /// [`Error::ShapeMismatch`] naming it; the memory is asked for first).
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self> {
        crate::into_records::copy_rows(rows.len(), |i| rows[i].as_ref())
    }

    /// The `1 × len` matrix holding `row` (no copy).
    pub fn row_vector(row: Vec<f64>) -> Self {
        let ncols = row.len();
        Self {
            data: row,
            nrows: 1,
            ncols,
        }
    }

    /// An all-zero matrix.
    pub fn zeros(nrows: usize, ncols: usize) -> Self {
        Self {
            data: vec![0.0; nrows * ncols],
            nrows,
            ncols,
        }
    }

    /// An all-zero matrix whose size comes from the data: the memory is asked for first
    /// ([`memory`](crate::memory)), so a size the machine cannot hold is an
    /// [`Error::OutOfMemory`] naming `what` and `way_out`, not an abort.
    pub fn try_zeros(nrows: usize, ncols: usize, what: &str, way_out: &str) -> Result<Self> {
        let len = nrows.checked_mul(ncols).ok_or_else(|| {
            Error::out_of_memory(
                format!("{what} ({nrows} × {ncols})"),
                crate::memory::bytes_of_grid::<f64>(nrows, ncols),
                way_out,
            )
        })?;
        let data =
            crate::memory::filled_vec(len, 0.0, &format!("{what} ({nrows} × {ncols})"), way_out)?;
        Ok(Self { data, nrows, ncols })
    }

    /// Copies any faer matrix view into row-major storage (a row-major view can be borrowed
    /// instead, with [`DenseView::from_faer`]).
    pub fn from_faer(m: MatRef<'_, f64>) -> Self {
        let (nrows, ncols) = (m.nrows(), m.ncols());
        let mut data = Vec::with_capacity(nrows * ncols);
        for i in 0..nrows {
            data.extend((0..ncols).map(|j| m[(i, j)]));
        }
        Self { data, nrows, ncols }
    }

    /// The matrix as a borrowed [`DenseView`]: the read-only methods below read through it.
    #[inline]
    pub fn view(&self) -> DenseView<'_> {
        // Every constructor checked the shape, so it is not checked again on each row read.
        DenseView::from_checked(&self.data, self.nrows, self.ncols)
    }

    /// Number of rows (samples).
    #[inline]
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns (features).
    #[inline]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Row `i` as a contiguous slice.
    ///
    /// # Panics
    /// If `i >= nrows()`: indices are the caller's own loop bounds, not user input.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        self.view().row(i)
    }

    /// Row `i`, mutable.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.ncols..(i + 1) * self.ncols]
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.view().get(i, j)
    }

    /// The row-major buffer.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The row-major buffer, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.data
    }

    /// Consumes the matrix, returning its row-major buffer.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }

    /// A faer view of the same memory (no copy).
    #[inline]
    pub fn as_faer(&self) -> MatRef<'_, f64> {
        self.view().as_faer()
    }

    /// Copies into an owned (column-major) faer matrix.
    pub fn to_faer(&self) -> Mat<f64> {
        self.view().to_faer()
    }

    /// Iterates over the rows.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f64]> + '_ {
        self.view().rows()
    }

    /// A new matrix holding the rows at `indices`, in that order; its memory is asked for
    /// first (a copy of the data, as cross-validation makes for each fold).
    pub fn select_rows(&self, indices: &[usize]) -> Result<Self> {
        self.view().select_rows(indices)
    }
}

impl From<Mat<f64>> for DenseMatrix {
    fn from(m: Mat<f64>) -> Self {
        Self::from_faer(m.as_ref())
    }
}

impl From<MatRef<'_, f64>> for DenseMatrix {
    fn from(m: MatRef<'_, f64>) -> Self {
        Self::from_faer(m)
    }
}
