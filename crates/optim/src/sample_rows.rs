//! Samples as the solvers that step through them in random order read them (DCD, Pegasos):
//! cut straight from the CSR or dense arrays, so a step's loop is a plain slice loop (reaching
//! a short row through `Records::row` cost as much as its product), and asked for ahead of
//! their step, since the hardware prefetchers follow strides, not a shuffled order.

use std::borrow::Cow;

use margin_core::hint::prefetch;
use margin_core::{CsrMatrix, DenseView, Records, RowView, SparseRow};

/// The records as the solvers read them: CSR or dense rows as they are, any other records
/// copied to CSR once.
pub(crate) enum Layout<'a> {
    /// Sparse rows.
    Sparse(Cow<'a, CsrMatrix>),
    /// Dense rows.
    Dense(DenseView<'a>),
}

impl<'a> Layout<'a> {
    /// The layout of `x`.
    pub(crate) fn of<R: Records + ?Sized>(x: &'a R) -> Self {
        match (x.as_sparse(), x.as_dense()) {
            (Some(csr), _) => Layout::Sparse(Cow::Borrowed(csr)),
            (None, Some(dense)) => Layout::Dense(dense),
            (None, None) => Layout::Sparse(Cow::Owned(x.to_sparse())),
        }
    }
}

/// Row access specialised per layout: a solver generic over it compiles its step loop once
/// for each.
pub(crate) trait Rows {
    /// Sample `i`'s range in the layout's arrays.
    fn range(&self, i: usize) -> (usize, usize);
    /// The row stored in `start..end`.
    fn view(&self, start: usize, end: usize) -> RowView<'_>;
    /// Asks the cache for the first lines of the row that starts at `start`.
    fn prefetch(&self, start: usize);
    /// Asks the cache for where sample `i`'s row is ([`range`](Self::range)'s reads).
    fn prefetch_range(&self, i: usize);
}

/// CSR rows.
pub(crate) struct CsrRows<'a> {
    indptr: &'a [usize],
    indices: &'a [u32],
    values: &'a [f64],
}

impl<'a> CsrRows<'a> {
    /// The rows of `csr`.
    pub(crate) fn new(csr: &'a CsrMatrix) -> Self {
        Self {
            indptr: csr.indptr(),
            indices: csr.indices(),
            values: csr.values(),
        }
    }
}

impl Rows for CsrRows<'_> {
    #[inline(always)]
    fn range(&self, i: usize) -> (usize, usize) {
        (self.indptr[i], self.indptr[i + 1])
    }
    #[inline(always)]
    fn view(&self, start: usize, end: usize) -> RowView<'_> {
        RowView::Sparse(SparseRow {
            indices: &self.indices[start..end],
            values: &self.values[start..end],
        })
    }
    #[inline(always)]
    fn prefetch(&self, start: usize) {
        prefetch(self.indices.as_ptr().wrapping_add(start));
        prefetch(self.values.as_ptr().wrapping_add(start));
        prefetch(self.values.as_ptr().wrapping_add(start + 8));
    }
    #[inline(always)]
    fn prefetch_range(&self, i: usize) {
        prefetch(self.indptr.as_ptr().wrapping_add(i));
    }
}

/// Dense rows.
pub(crate) struct DenseRows<'a> {
    data: &'a [f64],
    d: usize,
}

impl<'a> DenseRows<'a> {
    /// The rows of `dense`.
    pub(crate) fn new(dense: DenseView<'a>) -> Self {
        Self {
            data: dense.as_slice(),
            d: dense.ncols(),
        }
    }
}

impl Rows for DenseRows<'_> {
    #[inline(always)]
    fn range(&self, i: usize) -> (usize, usize) {
        (i * self.d, (i + 1) * self.d)
    }
    #[inline(always)]
    fn view(&self, start: usize, end: usize) -> RowView<'_> {
        RowView::Dense(&self.data[start..end])
    }
    #[inline(always)]
    fn prefetch(&self, start: usize) {
        prefetch(self.data.as_ptr().wrapping_add(start));
    }
    #[inline(always)]
    fn prefetch_range(&self, _: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::DenseMatrix;

    /// Each layout's rows are the records' rows, whatever the records' own type.
    #[test]
    fn rows_are_the_records_rows() {
        let dense = DenseMatrix::from_rows(&[vec![1.0, 0.0, 2.0], vec![0.0, 0.0, 0.0]]).unwrap();
        let csr = dense.to_sparse();
        // A block of CSR rows lends neither layout: it is copied to CSR.
        let range = margin_core::RowRange::new(&csr, 0..2).unwrap();
        let check = |rows: &dyn Rows| {
            for i in 0..2 {
                let (start, end) = rows.range(i);
                let mut got = vec![0.0; 3];
                rows.view(start, end).to_dense_into(&mut got);
                assert_eq!(got, dense.row(i));
                rows.prefetch(start);
            }
        };
        for layout in [Layout::of(&dense), Layout::of(&csr), Layout::of(&range)] {
            match &layout {
                Layout::Sparse(csr) => check(&CsrRows::new(csr)),
                Layout::Dense(view) => check(&DenseRows::new(*view)),
            }
        }
        assert!(matches!(Layout::of(&range), Layout::Sparse(Cow::Owned(_))));
    }
}
