//! Borrowed dense records: a row-major `n × d` window on memory the caller owns.
//!
//! [`DenseView`] is what every dense fast path reads (GEMM, the kernel cache, the linear
//! solvers, k-means, PCA, trees), so a user's `&[f64]`, a row-major faer view or a standard
//! layout ndarray view (feature `ndarray`) reaches every model without a copy. A
//! [`DenseMatrix`] reads itself through the same view: its read-only methods are written here,
//! once.

use faer::{Mat, MatRef};

use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::memory;
use crate::records::{Records, RowView};
use crate::sparse::CsrMatrix;

/// A borrowed dense `n × d` matrix of `f64`, stored row by row (`data[i * d + j]` is entry
/// `(i, j)`). `Copy`, like a slice: pass it by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DenseView<'a> {
    data: &'a [f64],
    nrows: usize,
    ncols: usize,
}

/// The error for a shape no memory can hold.
fn too_large(nrows: usize, ncols: usize) -> Error {
    Error::invalid_parameter(
        "shape",
        format!("{nrows}x{ncols}"),
        "a size that fits in memory",
    )
}

/// `nrows × ncols`, or the error saying the shape cannot be counted.
fn checked_len(nrows: usize, ncols: usize) -> Result<usize> {
    nrows
        .checked_mul(ncols)
        .ok_or_else(|| too_large(nrows, ncols))
}

/// Checks that a row-major buffer of `len` values holds `nrows × ncols` of them.
pub(crate) fn check_row_major(len: usize, nrows: usize, ncols: usize) -> Result<()> {
    let expected = checked_len(nrows, ncols)?;
    if len != expected {
        return Err(Error::shape(
            format!(
                "row-major buffer length for {nrows} rows × {ncols} columns (give exactly \
                 rows × columns values, sample after sample)"
            ),
            expected,
            len,
        ));
    }
    Ok(())
}

/// The error for memory that is not one row-major block: what it is, and the copy that works.
fn not_row_major(found: String, way_out: &str) -> Error {
    Error::Layout {
        found,
        way_out: way_out.to_string(),
    }
}

impl<'a> DenseView<'a> {
    /// Views `data` as `n_rows × n_cols`, row after row (no copy).
    ///
    /// A buffer whose length is not `n_rows * n_cols` is [`Error::ShapeMismatch`]; a shape whose
    /// size overflows `usize` is [`Error::InvalidParameter`].
    pub fn new(data: &'a [f64], n_rows: usize, n_cols: usize) -> Result<Self> {
        check_row_major(data.len(), n_rows, n_cols)?;
        Ok(Self {
            data,
            nrows: n_rows,
            ncols: n_cols,
        })
    }

    /// A view of a buffer whose shape its owner has checked already ([`DenseMatrix`]).
    #[inline]
    pub(crate) fn from_checked(data: &'a [f64], nrows: usize, ncols: usize) -> Self {
        debug_assert_eq!(Some(data.len()), nrows.checked_mul(ncols));
        Self { data, nrows, ncols }
    }

    /// A view of a faer matrix whose rows are contiguous and follow each other (column stride
    /// 1, row stride `ncols`: what [`MatRef::from_row_major_slice`] makes), without a copy.
    ///
    /// Any other layout (faer's own column-major [`Mat`], a transposed or strided view) is
    /// [`Error::Layout`]: copy it with `DenseMatrix::from(m)` instead.
    pub fn from_faer(m: MatRef<'a, f64>) -> Result<Self> {
        let (nrows, ncols) = (m.nrows(), m.ncols());
        let (rs, cs) = (m.row_stride(), m.col_stride());
        let len = checked_len(nrows, ncols)?;
        if len == 0 {
            return Ok(Self {
                data: &[],
                nrows,
                ncols,
            });
        }
        if len > isize::MAX as usize / std::mem::size_of::<f64>() {
            // No memory holds this many values; only a forged view could claim it.
            return Err(too_large(nrows, ncols));
        }
        // A stride along an axis of length one is never used, so it may be anything.
        let contiguous = (ncols == 1 || cs == 1) && (nrows == 1 || rs == ncols as isize);
        if !contiguous {
            return Err(not_row_major(
                format!(
                    "a {nrows} × {ncols} faer matrix with row stride {rs} and column stride {cs}"
                ),
                "a borrowed view needs rows stored one after another (row stride = columns, \
                 column stride 1); copy it with DenseMatrix::from(m) instead",
            ));
        }
        #[allow(unsafe_code)]
        // SAFETY: a `MatRef<'a, f64>` promises that every entry `ptr + i·rs + j·cs` with
        // `i < nrows`, `j < ncols` is readable and not mutated for `'a`. With the strides
        // checked above those offsets are exactly `i·ncols + j`, i.e. every index of
        // `0..nrows·ncols`, so the slice covers only memory the view already lends; `len > 0`,
        // so the pointer is not a dangling placeholder.
        let data = unsafe { std::slice::from_raw_parts(m.as_ptr(), len) };
        Ok(Self { data, nrows, ncols })
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
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.data[i * self.ncols..(i + 1) * self.ncols]
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.ncols + j]
    }

    /// The row-major buffer.
    #[inline]
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }

    /// A faer view of the same memory (no copy).
    #[inline]
    pub fn as_faer(&self) -> MatRef<'a, f64> {
        MatRef::from_row_major_slice(self.data, self.nrows, self.ncols)
    }

    /// Copies into an owned (column-major) faer matrix.
    pub fn to_faer(self) -> Mat<f64> {
        self.as_faer().to_owned()
    }

    /// Iterates over the rows.
    pub fn rows(self) -> impl ExactSizeIterator<Item = &'a [f64]> + 'a {
        // `chunks_exact(0)` panics, so a matrix with no columns yields empty rows explicitly.
        (0..self.nrows).map(move |i| self.row(i))
    }

    /// Rows `start..start + len` (no copy).
    ///
    /// # Panics
    /// If the rows are not all inside the view: bounds are the caller's own.
    pub fn subrows(self, start: usize, len: usize) -> Self {
        Self {
            data: &self.data[start * self.ncols..(start + len) * self.ncols],
            nrows: len,
            ncols: self.ncols,
        }
    }

    /// An owned copy, its memory asked for first ([`Error::OutOfMemory`] when it cannot be had).
    pub fn to_owned(self) -> Result<DenseMatrix> {
        let mut data = memory::vec_with_capacity(
            self.data.len(),
            &format!("a copy of {} rows × {} columns", self.nrows, self.ncols),
            memory::DENSE_COPY,
        )?;
        data.extend_from_slice(self.data);
        DenseMatrix::from_row_major(data, self.nrows, self.ncols)
    }

    /// A new matrix holding the rows at `indices`, in that order; its memory is asked for
    /// first (a copy of the data, as cross-validation makes for each fold).
    pub fn select_rows(self, indices: &[usize]) -> Result<DenseMatrix> {
        let mut data = memory::vec_with_capacity(
            indices.len().saturating_mul(self.ncols),
            &format!("a copy of {} rows × {} columns", indices.len(), self.ncols),
            memory::SMALLER_INPUT,
        )?;
        for &i in indices {
            data.extend_from_slice(self.row(i));
        }
        DenseMatrix::from_row_major(data, indices.len(), self.ncols)
    }
}

impl Records for DenseView<'_> {
    fn n_samples(&self) -> usize {
        self.nrows
    }
    fn n_features(&self) -> usize {
        self.ncols
    }
    #[inline]
    fn row(&self, i: usize) -> RowView<'_> {
        RowView::Dense(DenseView::row(self, i))
    }
    fn as_dense(&self) -> Option<DenseView<'_>> {
        Some(*self)
    }
    fn as_sparse(&self) -> Option<&CsrMatrix> {
        None
    }
}

/// Dense records as a fast path reads them: borrowed when they are dense already (a
/// [`DenseMatrix`] or a [`DenseView`]), otherwise an owned copy. What
/// [`Records::dense_view`] returns.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseCow<'a> {
    /// The records' own dense memory.
    Borrowed(DenseView<'a>),
    /// A dense copy of records that were not dense.
    Owned(DenseMatrix),
}

impl DenseCow<'_> {
    /// The dense values, borrowed from wherever they live.
    #[inline]
    pub fn view(&self) -> DenseView<'_> {
        match self {
            DenseCow::Borrowed(v) => *v,
            DenseCow::Owned(m) => m.view(),
        }
    }

    /// An owned matrix: the copy itself, or a copy of the borrowed values (memory asked for
    /// first).
    pub fn into_owned(self) -> Result<DenseMatrix> {
        match self {
            DenseCow::Borrowed(v) => v.to_owned(),
            DenseCow::Owned(m) => Ok(m),
        }
    }
}

#[cfg(feature = "ndarray")]
impl<'a> TryFrom<ndarray::ArrayView2<'a, f64>> for DenseView<'a> {
    type Error = Error;

    /// Zero-copy when the array is in standard (C, row-major) layout; otherwise
    /// [`Error::Layout`], whose text names `.as_standard_layout()` (which copies only when it
    /// must).
    fn try_from(a: ndarray::ArrayView2<'a, f64>) -> Result<Self> {
        let (nrows, ncols) = a.dim();
        match a.to_slice() {
            Some(data) => Self::new(data, nrows, ncols),
            None => Err(not_row_major(
                format!(
                    "a {nrows} × {ncols} ndarray view with strides {:?}",
                    a.strides()
                ),
                "a borrowed view needs standard (row-major, contiguous) layout; pass \
                 `a.as_standard_layout().view()` (a copy only when the layout differs)",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn new_refuses_a_buffer_of_the_wrong_length() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0];
        let e = DenseView::new(&data, 2, 3).unwrap_err();
        assert!(
            matches!(
                e,
                Error::ShapeMismatch {
                    expected: 6,
                    found: 5,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("rows × columns"), "{e}");
        let e = DenseView::new(&data, usize::MAX, 2).unwrap_err();
        assert!(matches!(&e, Error::InvalidParameter { name, .. } if name == "shape"));
        let v = DenseView::new(&data[..4], 2, 2).unwrap();
        assert_eq!((v.nrows(), v.ncols(), v.row(1)), (2, 2, &[3.0, 4.0][..]));
        assert_eq!(DenseView::new(&[], 0, 7).unwrap().rows().len(), 0);
    }

    #[test]
    fn a_view_reads_the_callers_memory_and_takes_the_dense_path() {
        let data = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let v = DenseView::new(&data, 3, 2).unwrap();
        let dense = Records::as_dense(&v).expect("a view is dense records");
        assert!(std::ptr::eq(dense.as_slice(), data.as_slice()));
        assert!(std::ptr::eq(dense.as_faer().as_ptr(), data.as_ptr()));
        assert!(
            matches!(v.dense_view().unwrap(), DenseCow::Borrowed(b) if std::ptr::eq(b.as_slice(), data.as_slice()))
        );
        let m = DenseMatrix::from_row_major(data.clone(), 3, 2).unwrap();
        assert!(std::ptr::eq(
            Records::as_dense(&m).unwrap().as_slice(),
            m.as_slice()
        ));
        assert_eq!(v.to_owned().unwrap(), m);
        assert_eq!(m.view(), v);
        assert_eq!(v.subrows(1, 2).row(0), &[3.0, 4.0]);
        assert_eq!(
            v.select_rows(&[2, 0]).unwrap().as_slice(),
            &[5.0, 6.0, 1.0, 2.0]
        );
        // Sparse records are copied, and that copy is what the owned side holds.
        let s = CsrMatrix::from_dense(&m);
        let cow = s.dense_view().unwrap();
        assert!(matches!(cow, DenseCow::Owned(_)));
        assert_eq!(cow.into_owned().unwrap(), m);
    }

    #[test]
    fn faer_views_borrow_when_row_major_and_are_refused_otherwise() {
        let data: Vec<f64> = (0..12).map(f64::from).collect();
        let m = MatRef::from_row_major_slice(&data, 3, 4);
        let v = DenseView::from_faer(m).unwrap();
        assert!(std::ptr::eq(v.as_slice(), data.as_slice()));
        assert_eq!(v.row(2), &[8.0, 9.0, 10.0, 11.0]);
        // One row or one column: the unused stride does not matter.
        let col = MatRef::from_column_major_slice(&data[..3], 3, 1);
        assert_eq!(DenseView::from_faer(col).unwrap().as_slice(), &data[..3]);
        assert_eq!(
            DenseView::from_faer(m.subrows(1, 1)).unwrap().row(0),
            &data[4..8]
        );
        // Column-major, transposed and strided sub-views are not one row-major block.
        for refused in [
            MatRef::from_column_major_slice(&data, 3, 4),
            m.transpose(),
            m.subcols(1, 2),
        ] {
            let e = DenseView::from_faer(refused).unwrap_err();
            assert!(matches!(e, Error::Layout { .. }), "{e}");
            assert!(e.to_string().contains("DenseMatrix::from"), "{e}");
        }
        // Empty views need no memory at all.
        let empty = DenseView::from_faer(m.subrows(0, 0)).unwrap();
        assert_eq!((empty.nrows(), empty.ncols()), (0, 4));
    }

    #[cfg(feature = "ndarray")]
    #[test]
    fn standard_layout_ndarray_views_borrow_and_others_are_refused() {
        let a = ndarray::Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);
        let v = DenseView::try_from(a.view()).unwrap();
        assert!(std::ptr::eq(v.as_slice(), a.as_slice().unwrap()));
        assert_eq!(
            (v.nrows(), v.ncols(), v.row(1)),
            (3, 4, &[4.0, 5.0, 6.0, 7.0][..])
        );
        for refused in [a.t(), a.slice(ndarray::s![.., 1..3])] {
            let e = DenseView::try_from(refused).unwrap_err();
            assert!(matches!(e, Error::Layout { .. }), "{e}");
            assert!(e.to_string().contains("as_standard_layout"), "{e}");
            // The way out the message names works, and reads the same values.
            let std_layout = refused.as_standard_layout();
            let v = DenseView::try_from(std_layout.view()).unwrap();
            assert_eq!(v.get(1, 0), refused[[1, 0]]);
        }
    }

    proptest! {
        #[test]
        fn view_and_owned_matrix_agree_on_every_records_method(
            (n, d, data) in (1usize..8, 0usize..9).prop_flat_map(|(n, d)| {
                (Just(n), Just(d), proptest::collection::vec(-10.0f64..10.0, n * d))
            }),
            w_seed in proptest::collection::vec(-3.0f64..3.0, 9),
        ) {
            let owned = DenseMatrix::from_row_major(data.clone(), n, d).unwrap();
            let view = DenseView::new(&data, n, d).unwrap();
            let w = &w_seed[..d];
            prop_assert_eq!(Records::n_samples(&view), n);
            prop_assert_eq!(Records::n_features(&view), d);
            for i in 0..n {
                prop_assert_eq!(Records::row(&view, i), Records::row(&owned, i));
                prop_assert_eq!(Records::row_sq_norm(&view, i).to_bits(), owned.row_sq_norm(i).to_bits());
                prop_assert_eq!(Records::row_dot(&view, i, w).to_bits(), owned.row_dot(i, w).to_bits());
                for j in 0..n {
                    prop_assert_eq!(view.dot_rows(i, j).to_bits(), owned.dot_rows(i, j).to_bits());
                }
            }
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            view.mul_vec(w, &mut a);
            owned.mul_vec(w, &mut b);
            prop_assert_eq!(a, b);
            prop_assert_eq!(view.nnz(), owned.nnz());
            prop_assert_eq!(Records::to_dense(&view).unwrap(), owned.clone());
            prop_assert_eq!(view.to_sparse(), owned.to_sparse());
        }
    }
}
