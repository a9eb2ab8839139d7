//! Rows of a Gram matrix a block at a time: what a working-set solver asks for.

use faer::{Accum, MatMut, Par};
use margin_core::{DenseMatrix, Records, Result, memory, parallel};
use rayon::prelude::*;

use crate::gram::{apply_form, row_norms};
use crate::kernel::{DotForm, Kernel};

/// Samples per parallel task of [`GramRows::rows`]: each task computes this many columns of
/// the block (one GEMM of `COLUMNS × d` by `d × rows`) in its own scratch.
const COLUMNS: usize = 2048;

/// `k(x_a, x_t)` for a block of samples `a` against every sample `t` of a set, computed as one
/// matrix product for a kernel with a [`DotForm`] (the form then applied entry by entry, RBF
/// exponentials vectorized), pair by pair otherwise.
///
/// The samples are held densely (`n × d` values, asked for first): this serves data whose
/// dense copy fits, which is what a matrix product needs. Each entry depends only on its two
/// samples and the block's split into tasks is fixed by `n`, so the values do not depend on
/// the thread count. They are not LIBSVM's bits (the dot products are summed in GEMM's order).
pub struct GramRows<'a, K: ?Sized> {
    kernel: &'a K,
    form: Option<DotForm>,
    x: DenseMatrix,
    sq_norms: Vec<f64>,
}

impl<'a, K: Kernel + ?Sized> GramRows<'a, K> {
    /// The samples of `records` at `indices`, in that order (positions `0..indices.len()`).
    ///
    /// Refuses with [`Error::OutOfMemory`](margin_core::Error) when their dense copy cannot be
    /// had.
    pub fn new<R: Records + ?Sized>(kernel: &'a K, records: &R, indices: &[usize]) -> Result<Self> {
        let d = records.n_features();
        let mut x = DenseMatrix::try_zeros(
            indices.len(),
            d,
            "the dense copy of the samples a working-set solver reads",
            memory::DENSE_COPY,
        )?;
        indices
            .iter()
            .zip(x.as_mut_slice().chunks_mut(d.max(1)))
            .for_each(|(&i, row)| records.row(i).to_dense_into(row));
        let form = kernel.dot_form();
        let sq_norms = match &form {
            Some(f) if f.needs_norms() => row_norms(x.view()),
            _ => vec![0.0; indices.len()],
        };
        Ok(Self {
            kernel,
            form,
            x,
            sq_norms,
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.x.nrows()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `k(x_p, x_p)`.
    pub fn diagonal(&self, p: usize) -> f64 {
        match &self.form {
            Some(f) => f.apply(self.sq_norms[p], self.sq_norms[p], self.sq_norms[p]),
            None => {
                let row = margin_core::RowView::Dense(self.x.row(p));
                self.kernel.eval(row, row)
            }
        }
    }

    /// Row `rows[r]` of the Gram matrix into `out[r·n .. (r+1)·n]`, as `f32`, for every `r`.
    pub fn rows(&self, rows: &[usize], out: &mut [f32]) {
        let (n, m, d) = (self.len(), rows.len(), self.x.ncols());
        if n == 0 || m == 0 {
            return;
        }
        // The block's own samples, gathered: the right-hand side of every task's product.
        let mut xb = DenseMatrix::zeros(m, d);
        for (o, &a) in xb.as_mut_slice().chunks_mut(d.max(1)).zip(rows) {
            o.copy_from_slice(self.x.row(a));
        }
        let starts: Vec<usize> = (0..n).step_by(COLUMNS).collect();
        // Each task writes the entries of its columns in every row of `out`; rows are handed
        // out as disjoint column ranges through this table of row slices.
        let outs: Vec<Vec<&mut [f32]>> = split_columns(out, n, &starts);
        outs.into_par_iter()
            .zip(starts.par_iter())
            .with_min_len(parallel::min_len(m * d * COLUMNS))
            .for_each(|(mut parts, &start)| {
                let len = COLUMNS.min(n - start);
                match &self.form {
                    Some(form) => {
                        // Column-major len × m: column r holds x_t · x_{rows[r]} for this task's t.
                        let mut dots = vec![0.0f64; len * m];
                        faer::linalg::matmul::matmul(
                            MatMut::from_column_major_slice_mut(&mut dots, len, m),
                            Accum::Replace,
                            self.x.view().subrows(start, len).as_faer(),
                            xb.as_faer().transpose(),
                            1.0,
                            Par::Seq,
                        );
                        let sq = &self.sq_norms[start..start + len];
                        for ((col, part), &a) in dots.chunks_mut(len).zip(&mut parts).zip(rows) {
                            apply_form(form, col, self.sq_norms[a], sq);
                            for (o, &v) in part.iter_mut().zip(col.iter()) {
                                *o = v as f32;
                            }
                        }
                    }
                    None => {
                        for (part, &a) in parts.iter_mut().zip(rows) {
                            let xa = margin_core::RowView::Dense(self.x.row(a));
                            for (k, o) in part.iter_mut().enumerate() {
                                let xt = margin_core::RowView::Dense(self.x.row(start + k));
                                *o = self.kernel.eval(xa, xt) as f32;
                            }
                        }
                    }
                }
            });
    }
}

/// `out` (`m` rows of `n`) cut into one table per column range starting at `starts`: table
/// `k` holds every row's slice of range `k`.
fn split_columns<'o>(out: &'o mut [f32], n: usize, starts: &[usize]) -> Vec<Vec<&'o mut [f32]>> {
    let mut tables: Vec<Vec<&mut [f32]>> = starts.iter().map(|_| Vec::new()).collect();
    for row in out.chunks_mut(n) {
        let mut rest = row;
        for (k, table) in tables.iter_mut().enumerate() {
            let len = starts
                .get(k + 1)
                .map_or(rest.len(), |next| next - starts[k]);
            let (head, tail) = rest.split_at_mut(len);
            table.push(head);
            rest = tail;
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Laplacian, Rbf, cross_gram};
    use margin_core::CsrMatrix;

    fn points(n: usize, d: usize) -> DenseMatrix {
        let v: Vec<f64> = (0..n * d)
            .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
            .collect();
        DenseMatrix::from_row_major(v, n, d).unwrap()
    }

    #[test]
    fn rows_are_the_gram_matrix_rows_for_dot_and_pair_kernels() {
        // More samples than one task's columns, so the block is cut.
        let x = points(COLUMNS + 300, 5);
        let sparse = CsrMatrix::from_dense(&x);
        let indices: Vec<usize> = (0..x.nrows()).rev().collect();
        let rbf = Rbf::with_gamma(0.3).unwrap();
        let lap = Laplacian::with_gamma(0.3).unwrap();
        let picked = [0, 17, COLUMNS + 5, 4];
        for (kernel, tol) in [(&rbf as &dyn Kernel, 1e-6), (&lap, 1e-7)] {
            let reference = cross_gram(kernel, &x, &x).unwrap();
            for source in [&x as &dyn Records, &sparse] {
                let g = GramRows::new(kernel, source, &indices).unwrap();
                let n = g.len();
                let mut out = vec![0.0f32; picked.len() * n];
                g.rows(&picked, &mut out);
                for (r, &a) in picked.iter().enumerate() {
                    assert!((g.diagonal(a) - 1.0).abs() < 1e-12);
                    for t in 0..n {
                        let want = reference.get(indices[a], indices[t]);
                        let got = f64::from(out[r * n + t]);
                        assert!((got - want).abs() < tol, "({a}, {t}): {got} vs {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_block_is_the_same_bits_on_one_thread_and_two() {
        let x = points(3 * COLUMNS, 7);
        let rbf = Rbf::with_gamma(0.1).unwrap();
        let g = GramRows::new(&rbf, &x, &(0..x.nrows()).collect::<Vec<_>>()).unwrap();
        let run = |threads| {
            let mut out = vec![0.0f32; 3 * g.len()];
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| g.rows(&[5, 4000, 1], &mut out));
            out
        };
        assert_eq!(run(1), run(2));
    }
}
