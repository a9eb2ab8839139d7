//! The row-shaped data a caller holds, turned into records: one trait, one copy routine.
//!
//! [`IntoRecords`] is what [`Dataset::classification`](crate::Dataset::classification) and
//! [`Dataset::regression`](crate::Dataset::regression) take. Rows of `f64` or `f32` (vectors,
//! arrays, slices) are copied once into a row-major [`DenseMatrix`], their memory asked for
//! first; margin's own records move in without a copy.

use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::memory;
use crate::records::Matrix;
use crate::sparse::CsrMatrix;
use crate::view::DenseView;

/// Data that can become the records of a [`Dataset`](crate::Dataset): a [`Matrix`].
///
/// Implemented for
/// - rows of `f64` or `f32`, each a `Vec`, an array `[T; N]` or a slice `&[T]`, held in a
///   `Vec`, a slice or an array, owned or borrowed: `Vec<Vec<f64>>`, `&[Vec<f32>]`,
///   `&[[f64; 2]]`, `&[[f64; 2]; 4]`, `Vec<[f32; 3]>`, `&Vec<Vec<f64>>`… (copied; rows of
///   unequal length are [`Error::ShapeMismatch`] naming the first such row and its length);
/// - [`DenseMatrix`], [`CsrMatrix`] and [`Matrix`] (moved, no copy) and [`DenseView`] (copied);
/// - with feature `ndarray`, `ndarray::ArrayView2` and `Array2` of `f64` or `f32`, in any
///   layout (copied in logical row-major order).
///
/// The copy's memory is asked for first ([`Error::OutOfMemory`] when it cannot be had).
/// Values are copied as they are: NaN and infinities are refused by `fit`
/// ([`validate::check_dataset`](crate::validate::check_dataset)), as for any dataset.
pub trait IntoRecords {
    /// The records, as a dataset holds them.
    fn into_records(self) -> Result<Matrix>;
}

/// The element types records are copied from.
mod sealed {
    /// `f64`, `f32`, or a reference to either: a value that widens to `f64` exactly.
    pub trait Value: Copy {
        /// The value as `f64` (exact: every `f32` is an `f64`).
        fn to_f64(self) -> f64;
    }

    impl Value for f64 {
        #[inline]
        fn to_f64(self) -> f64 {
            self
        }
    }

    impl Value for f32 {
        #[inline]
        fn to_f64(self) -> f64 {
            f64::from(self)
        }
    }

    impl<T: Value> Value for &T {
        #[inline]
        fn to_f64(self) -> f64 {
            (*self).to_f64()
        }
    }

    /// One row of values: a `Vec`, an array or a slice.
    pub trait Row {
        /// The element type.
        type Elem: Value;
        /// The row's values.
        fn values(&self) -> &[Self::Elem];
    }

    impl<T: Value> Row for Vec<T> {
        type Elem = T;
        fn values(&self) -> &[T] {
            self
        }
    }

    impl<T: Value, const N: usize> Row for [T; N] {
        type Elem = T;
        fn values(&self) -> &[T] {
            self
        }
    }

    impl<T: Value> Row for &[T] {
        type Elem = T;
        fn values(&self) -> &[T] {
            self
        }
    }
}

pub(crate) use sealed::{Row, Value};

/// Copies `n` rows, read by `row(i)`, into one row-major matrix: the first row sets the width,
/// a row of another length is refused (naming it), and the `n × d` values are asked for before
/// any is copied.
pub(crate) fn copy_rows<'a, T: Value + 'a>(
    n: usize,
    row: impl Fn(usize) -> &'a [T],
) -> Result<DenseMatrix> {
    let d = if n == 0 { 0 } else { row(0).len() };
    if let Some(i) = (0..n).find(|&i| row(i).len() != d) {
        return Err(Error::shape(
            format!("row {i}'s length (every row needs as many values as row 0)"),
            d,
            row(i).len(),
        ));
    }
    let what = format!("a copy of {n} rows × {d} columns");
    let len = n.checked_mul(d).ok_or_else(|| {
        Error::out_of_memory(
            what.as_str(),
            memory::bytes_of_grid::<f64>(n, d),
            memory::SMALLER_INPUT,
        )
    })?;
    let mut data = memory::vec_with_capacity(len, &what, memory::SMALLER_INPUT)?;
    for i in 0..n {
        data.extend(row(i).iter().map(|&v| v.to_f64()));
    }
    DenseMatrix::from_row_major(data, n, d)
}

impl<R: Row> IntoRecords for &[R] {
    fn into_records(self) -> Result<Matrix> {
        copy_rows(self.len(), |i| self[i].values()).map(Matrix::Dense)
    }
}

impl<R: Row> IntoRecords for &Vec<R> {
    fn into_records(self) -> Result<Matrix> {
        self.as_slice().into_records()
    }
}

impl<R: Row> IntoRecords for Vec<R> {
    fn into_records(self) -> Result<Matrix> {
        self.as_slice().into_records()
    }
}

impl<R: Row, const M: usize> IntoRecords for &[R; M] {
    fn into_records(self) -> Result<Matrix> {
        self.as_slice().into_records()
    }
}

impl<R: Row, const M: usize> IntoRecords for [R; M] {
    fn into_records(self) -> Result<Matrix> {
        self.as_slice().into_records()
    }
}

impl IntoRecords for Matrix {
    fn into_records(self) -> Result<Matrix> {
        Ok(self)
    }
}

impl IntoRecords for DenseMatrix {
    fn into_records(self) -> Result<Matrix> {
        Ok(Matrix::Dense(self))
    }
}

impl IntoRecords for CsrMatrix {
    fn into_records(self) -> Result<Matrix> {
        Ok(Matrix::Sparse(self))
    }
}

impl IntoRecords for DenseView<'_> {
    fn into_records(self) -> Result<Matrix> {
        self.to_owned().map(Matrix::Dense)
    }
}

/// Ragged rows cannot become a matrix, so this is `TryFrom`, not `From`: a row whose length
/// differs from the first row's is [`Error::ShapeMismatch`] naming it.
impl TryFrom<Vec<Vec<f64>>> for Matrix {
    type Error = Error;

    fn try_from(rows: Vec<Vec<f64>>) -> Result<Self> {
        rows.into_records()
    }
}

#[cfg(feature = "ndarray")]
impl<T: Value> IntoRecords for ndarray::ArrayView2<'_, T> {
    fn into_records(self) -> Result<Matrix> {
        let (n, d) = self.dim();
        let what = format!("a copy of {n} rows × {d} columns");
        // An ndarray's shape already fits in memory's address space, so `n · d` cannot overflow.
        let mut data = memory::vec_with_capacity(n * d, &what, memory::SMALLER_INPUT)?;
        data.extend(self.iter().map(|&v| v.to_f64()));
        DenseMatrix::from_row_major(data, n, d).map(Matrix::Dense)
    }
}

#[cfg(feature = "ndarray")]
impl<T: Value> IntoRecords for ndarray::Array2<T> {
    fn into_records(self) -> Result<Matrix> {
        self.view().into_records()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Records;

    /// The 3 × 2 matrix every shape below holds.
    fn expected() -> Matrix {
        Matrix::Dense(
            DenseMatrix::from_row_major(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5], 3, 2).unwrap(),
        )
    }

    #[test]
    fn every_row_shape_copies_into_the_same_matrix() {
        let vv: Vec<Vec<f64>> = vec![vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.5]];
        let vv32: Vec<Vec<f32>> = vec![vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.5]];
        let arrays: [[f64; 2]; 3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]];
        let arrays32: [[f32; 2]; 3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]];
        let slices: Vec<&[f64]> = vv.iter().map(Vec::as_slice).collect();
        let all = [
            (&vv).into_records().unwrap(),
            vv.as_slice().into_records().unwrap(),
            vv.clone().into_records().unwrap(),
            (&vv32).into_records().unwrap(),
            vv32.as_slice().into_records().unwrap(),
            vv32.clone().into_records().unwrap(),
            (&arrays).into_records().unwrap(),
            arrays.as_slice().into_records().unwrap(),
            arrays.to_vec().into_records().unwrap(),
            arrays.into_records().unwrap(),
            (&arrays32).into_records().unwrap(),
            arrays32.as_slice().into_records().unwrap(),
            arrays32.to_vec().into_records().unwrap(),
            slices.as_slice().into_records().unwrap(),
            Matrix::try_from(vv.clone()).unwrap(),
        ];
        for (k, m) in all.iter().enumerate() {
            assert_eq!(m, &expected(), "shape {k}");
        }
    }

    #[test]
    fn f32_values_widen_exactly() {
        let x = [[0.1f32, f32::MAX], [f32::MIN_POSITIVE, -3.25]];
        let m = (&x).into_records().unwrap();
        assert_eq!(Records::get(&m, 0, 0), Some(f64::from(0.1f32)));
        assert_eq!(Records::get(&m, 0, 1), Some(f64::from(f32::MAX)));
        assert_eq!(Records::get(&m, 1, 0), Some(f64::from(f32::MIN_POSITIVE)));
    }

    #[test]
    fn margins_own_records_move_in_and_views_are_copied() {
        let dense = DenseMatrix::from_row_major(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5], 3, 2).unwrap();
        let moved = dense.clone();
        let moved_ptr = moved.as_slice().as_ptr();
        assert!(
            matches!(moved.into_records().unwrap(), Matrix::Dense(d) if d.as_slice().as_ptr() == moved_ptr)
        );
        assert_eq!(dense.view().into_records().unwrap(), expected());
        let sparse = CsrMatrix::from_dense(&dense);
        assert_eq!(
            sparse.clone().into_records().unwrap(),
            Matrix::Sparse(sparse.clone())
        );
        assert_eq!(expected().into_records().unwrap(), expected());
    }

    #[test]
    fn ragged_rows_name_the_first_row_of_another_length() {
        let ragged = vec![vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0], vec![6.0]];
        for e in [
            (&ragged).into_records().unwrap_err(),
            Matrix::try_from(ragged.clone()).unwrap_err(),
            vec![vec![1.0f32], vec![2.0, 3.0]]
                .into_records()
                .unwrap_err(),
        ] {
            assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
        }
        match (&ragged).into_records().unwrap_err() {
            Error::ShapeMismatch {
                what,
                expected,
                found,
            } => {
                assert!(what.contains("row 2"), "{what}");
                assert_eq!((expected, found), (2, 1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_rows_is_an_empty_matrix_and_nan_is_kept_for_fit_to_refuse() {
        let empty: Vec<Vec<f64>> = Vec::new();
        let m = empty.into_records().unwrap();
        assert_eq!((m.n_samples(), m.n_features()), (0, 0));
        let m = vec![vec![1.0, f64::NAN]].into_records().unwrap();
        assert!(Records::get(&m, 0, 1).unwrap().is_nan());
        assert!(matches!(
            crate::validate::check_finite(&m),
            Err(Error::NonFinite { row: 0, col: 1 })
        ));
    }

    #[cfg(feature = "ndarray")]
    #[test]
    fn ndarray_arrays_of_either_float_copy_in_logical_order() {
        let a =
            ndarray::Array2::from_shape_vec((3, 2), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5]).unwrap();
        let a32 = a.mapv(|v| v as f32);
        assert_eq!(a.view().into_records().unwrap(), expected());
        assert_eq!(a.clone().into_records().unwrap(), expected());
        assert_eq!(a32.view().into_records().unwrap(), expected());
        assert_eq!(a32.into_records().unwrap(), expected());
        // A column-major (transposed) array is read in its logical order, not its memory order.
        let t =
            ndarray::Array2::from_shape_vec((2, 3), vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.5]).unwrap();
        assert_eq!(t.t().into_records().unwrap(), expected());
    }
}
