//! Rows of a Gram matrix a block at a time: what a working-set solver asks for.

use faer::{Accum, MatMut, Par};
use margin_core::{CsrMatrix, DenseMatrix, Records, Result, RowView, memory, parallel};
use rayon::prelude::*;

use crate::cache::{renumbered_subset, stored_in};
use crate::gram::apply_form;
use crate::kernel::{DotForm, Kernel};

/// Samples per parallel task of [`GramRows::rows`]: each task computes the block's entries for
/// this many samples in its own scratch.
const COLUMNS: usize = 2048;

/// Stored entries over all entries below which samples are kept sparse (CSR): a sparse
/// product then does a quarter of the dense one's multiply-adds or fewer, enough to pay for
/// its gathers.
const SPARSE_BELOW: f64 = 0.25;

/// `k(x_a, x_t)` for a block of samples `a` against every sample `t` of a set, computed as one
/// matrix product for a kernel with a [`DotForm`] (the form then applied entry by entry, RBF
/// exponentials vectorized), pair by pair otherwise.
///
/// Dense samples (and sparse ones stored at a quarter or more) are held densely and the
/// product is faer's GEMM; sparser samples are held in CSR and each sample's stored entries
/// add its features' rows of the block, `q` values at a time. Memory: the samples' copy, asked
/// for first. Each entry depends only on its two samples and the block's split into tasks is
/// fixed by `n`, so the values do not depend on the thread count. They are not LIBSVM's bits
/// (the dot products are summed in another order).
pub struct GramRows<'a, K: ?Sized> {
    kernel: &'a K,
    form: Option<DotForm>,
    samples: Samples,
    sq_norms: Vec<f64>,
}

/// The samples as [`GramRows`] holds them.
enum Samples {
    Dense(DenseMatrix),
    /// The features the samples use renumbered `0..F`, in order.
    Sparse(CsrMatrix),
}

impl Samples {
    fn len(&self) -> usize {
        match self {
            Samples::Dense(x) => x.nrows(),
            Samples::Sparse(x) => x.nrows(),
        }
    }

    fn row(&self, i: usize) -> RowView<'_> {
        match self {
            Samples::Dense(x) => RowView::Dense(x.row(i)),
            Samples::Sparse(x) => RowView::Sparse(x.row(i)),
        }
    }
}

impl<'a, K: Kernel + ?Sized> GramRows<'a, K> {
    /// The samples of `records` at `indices`, in that order (positions `0..indices.len()`).
    ///
    /// Refuses with [`Error::OutOfMemory`](margin_core::Error) when their copy cannot be had.
    pub fn new<R: Records + ?Sized>(kernel: &'a K, records: &R, indices: &[usize]) -> Result<Self> {
        let d = records.n_features();
        let cells = (indices.len() as f64) * (d as f64);
        let sparse = records
            .as_sparse()
            .filter(|csr| (stored_in(csr, indices) as f64) < SPARSE_BELOW * cells);
        let samples = match sparse {
            Some(csr) => Samples::Sparse(renumbered_subset(csr, indices)?),
            None => {
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
                Samples::Dense(x)
            }
        };
        let form = kernel.dot_form();
        let sq_norms = match &form {
            Some(f) if f.needs_norms() => (0..samples.len())
                .map(|i| samples.row(i).sq_norm())
                .collect(),
            _ => vec![0.0; samples.len()],
        };
        Ok(Self {
            kernel,
            form,
            samples,
            sq_norms,
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
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
                let row = self.samples.row(p);
                self.kernel.eval(row, row)
            }
        }
    }

    /// Row `rows[r]` of the Gram matrix into `out[r·n .. (r+1)·n]`, as `f32`, for every `r`;
    /// with `signs` (one `±1` per sample), `s_a s_t k(x_a, x_t)`: an SVM dual's `Q` rows.
    pub fn rows(&self, rows: &[usize], signs: Option<&[i8]>, out: &mut [f32]) {
        let sign = |i: usize| signs.map_or(1.0, |s| f64::from(s[i]));
        let n = self.len();
        let m = rows.len();
        if n == 0 || m == 0 {
            return;
        }
        let block = Block::of(&self.samples, rows);
        let starts: Vec<usize> = (0..n).step_by(COLUMNS).collect();
        // Each task writes the entries of its samples in every row of `out`, handed to it as
        // disjoint slices.
        let outs: Vec<Vec<&mut [f32]>> = split_columns(out, n, &starts);
        outs.into_par_iter()
            .zip(starts.par_iter())
            .with_min_len(parallel::min_len(m * block.work_per_sample()))
            .for_each(|(mut parts, &start)| match &self.form {
                Some(form) => block.fill(form, &self.sq_norms, &sign, start, &mut parts),
                None => {
                    for (part, &a) in parts.iter_mut().zip(rows) {
                        let xa = self.samples.row(a);
                        for (k, o) in part.iter_mut().enumerate() {
                            let v = self.kernel.eval(xa, self.samples.row(start + k));
                            *o = (sign(a) * sign(start + k) * v) as f32;
                        }
                    }
                }
            });
    }
}

/// The block's own samples beside the set they are multiplied with: dense rows for GEMM, or
/// for sparse samples each feature the block uses with its `m` values side by side.
enum Block<'s> {
    Dense {
        samples: &'s DenseMatrix,
        /// The block's rows, `m × d`.
        x: DenseMatrix,
        rows: &'s [usize],
    },
    Sparse(SparseBlock<'s>),
}

/// A block of sparse samples: what the sparse product's inner loop reads.
struct SparseBlock<'s> {
    samples: &'s CsrMatrix,
    /// Feature → its row in `values`, or `u32::MAX` when no block sample stores it.
    slot: Vec<u32>,
    /// `features × m`, row-major.
    values: Vec<f64>,
    rows: &'s [usize],
}

impl<'s> Block<'s> {
    fn of(samples: &'s Samples, rows: &'s [usize]) -> Self {
        let m = rows.len();
        match samples {
            Samples::Dense(x) => {
                let d = x.ncols();
                let mut xb = DenseMatrix::zeros(m, d);
                for (o, &a) in xb.as_mut_slice().chunks_mut(d.max(1)).zip(rows) {
                    o.copy_from_slice(x.row(a));
                }
                Block::Dense {
                    samples: x,
                    x: xb,
                    rows,
                }
            }
            Samples::Sparse(csr) => {
                let mut slot = vec![u32::MAX; csr.ncols()];
                let mut used = 0u32;
                let mut values = Vec::new();
                for (r, &a) in rows.iter().enumerate() {
                    let x = csr.row(a);
                    for (&j, &v) in x.indices.iter().zip(x.values) {
                        let s = &mut slot[j as usize];
                        if *s == u32::MAX {
                            *s = used;
                            used += 1;
                            values.resize(used as usize * m, 0.0);
                        }
                        values[*s as usize * m + r] = v;
                    }
                }
                Block::Sparse(SparseBlock {
                    samples: csr,
                    slot,
                    values,
                    rows,
                })
            }
        }
    }

    /// Multiply-adds per sample of the set (what one column of the product costs).
    fn work_per_sample(&self) -> usize {
        match self {
            Block::Dense { x, .. } => x.ncols(),
            Block::Sparse(b) => b.samples.nnz().div_ceil(b.samples.nrows().max(1)),
        }
    }

    /// The block's entries for the samples `start..start + parts[r].len()`: `parts[r][k]` is
    /// `f(x_{start+k} · x_{rows[r]}, ‖x_{start+k}‖², ‖x_{rows[r]}‖²)` for the kernel's form `f`,
    /// times `sign(rows[r]) · sign(start + k)` (±1, so exact).
    fn fill(
        &self,
        form: &DotForm,
        sq_norms: &[f64],
        sign: &dyn Fn(usize) -> f64,
        start: usize,
        parts: &mut [&mut [f32]],
    ) {
        let len = parts.first().map_or(0, |p| p.len());
        let sq = &sq_norms[start..start + len];
        let s_t: Vec<f64> = (start..start + len).map(sign).collect();
        match self {
            Block::Dense {
                samples,
                x: xb,
                rows,
            } => {
                let m = xb.nrows();
                // Column-major len × m: column r holds x_t · x_{rows[r]}.
                let mut dots = vec![0.0f64; len * m];
                faer::linalg::matmul::matmul(
                    MatMut::from_column_major_slice_mut(&mut dots, len, m),
                    Accum::Replace,
                    samples.view().subrows(start, len).as_faer(),
                    xb.as_faer().transpose(),
                    1.0,
                    Par::Seq,
                );
                for ((col, part), &a) in dots.chunks_mut(len).zip(parts.iter_mut()).zip(rows.iter())
                {
                    apply_form(form, col, sq_norms[a], sq);
                    let s_a = sign(a);
                    for ((o, &v), &s) in part.iter_mut().zip(col.iter()).zip(&s_t) {
                        *o = (s_a * s * v) as f32;
                    }
                }
            }
            Block::Sparse(block) => {
                // faer's sparse × dense product computes each entry as its own gathered dot
                // product; here each stored entry of x_t adds one feature's m block values at
                // once (a vectorized axpy). Samples go a tile at a time, so the tile's sums
                // stay in cache while they are turned into kernel values and written out row
                // by row.
                const TILE: usize = 64;
                let m = block.rows.len();
                let sq_block: Vec<f64> = block.rows.iter().map(|&a| sq_norms[a]).collect();
                let mut tile = vec![0.0f64; TILE * m];
                for t0 in (0..len).step_by(TILE) {
                    let count = TILE.min(len - t0);
                    let tile = &mut tile[..count * m];
                    tile.fill(0.0);
                    add_stored(block, start + t0, tile);
                    for (acc, &sq_t) in tile.chunks_mut(m).zip(&sq[t0..t0 + count]) {
                        apply_form(form, acc, sq_t, &sq_block);
                    }
                    for ((r, part), &a) in parts.iter_mut().enumerate().zip(block.rows) {
                        let s_a = sign(a);
                        let outs = part[t0..t0 + count].iter_mut();
                        for (k, (o, &s)) in outs.zip(&s_t[t0..t0 + count]).enumerate() {
                            *o = (s_a * s * tile[k * m + r]) as f32;
                        }
                    }
                }
            }
        }
    }
}

/// `tile[k]` (a row of `m`) `+= v · values[slot[j]]` for every stored `(j, v)` of sample
/// `first + k`: the sparse product's inner loop, compiled for AVX2 + FMA too and taken when the
/// CPU has them (users build for the x86-64 baseline, where it would run two lanes wide).
#[allow(unsafe_code)] // the call to the AVX2 copy, after the run-time check
fn add_stored(block: &SparseBlock<'_>, first: usize, tile: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports the features the function was compiled for.
            unsafe { add_stored_avx2_fma(block, first, tile) };
            return;
        }
    }
    add_stored_loop::<false>(block, first, tile);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn add_stored_avx2_fma(block: &SparseBlock<'_>, first: usize, tile: &mut [f64]) {
    add_stored_loop::<true>(block, first, tile);
}

#[inline(always)]
fn add_stored_loop<const FMA: bool>(block: &SparseBlock<'_>, first: usize, tile: &mut [f64]) {
    let m = block.rows.len();
    for (k, acc) in tile.chunks_mut(m).enumerate() {
        let x = block.samples.row(first + k);
        for (&j, &v) in x.indices.iter().zip(x.values) {
            let s = block.slot[j as usize];
            if s != u32::MAX {
                let feature = &block.values[s as usize * m..(s as usize + 1) * m];
                for (a, &b) in acc.iter_mut().zip(feature) {
                    *a = if FMA { v.mul_add(b, *a) } else { *a + v * b };
                }
            }
        }
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
    use crate::{Laplacian, Rbf};

    fn points(n: usize, d: usize) -> DenseMatrix {
        let v: Vec<f64> = (0..n * d)
            .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
            .collect();
        DenseMatrix::from_row_major(v, n, d).unwrap()
    }

    /// `n` sparse rows over a million features: a few stored each, drawn from 60 features
    /// spread over the width (so most of the width is never used).
    fn sparse_points(n: usize) -> CsrMatrix {
        let width = 1_000_000;
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|i| {
                let mut row: Vec<(u32, f64)> = (0..1 + i % 5)
                    .map(|k| {
                        let f = ((i * 31 + k * 17) % 60) as u32 * 16_661;
                        (f, ((i * 13 + k * 7) % 11) as f64 / 5.0 - 1.0)
                    })
                    .collect();
                row.sort_by_key(|e| e.0);
                row.dedup_by_key(|e| e.0);
                row
            })
            .collect();
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for row in &rows {
            for &(j, v) in row {
                indices.push(j);
                values.push(v);
            }
            indptr.push(indices.len());
        }
        CsrMatrix::new(indptr, indices, values, width).unwrap()
    }

    #[test]
    fn rows_are_the_kernels_values_for_dense_and_sparse_samples() {
        // More samples than one task's, so the block is cut; the samples in reverse order.
        let n = COLUMNS + 300;
        let dense = points(n, 5);
        let from_dense = CsrMatrix::from_dense(&dense);
        let sparse = sparse_points(n);
        let indices: Vec<usize> = (0..n).rev().collect();
        let rbf = Rbf::with_gamma(0.3).unwrap();
        let lap = Laplacian::with_gamma(0.3).unwrap();
        let picked = [0, 17, COLUMNS + 5, 4, 17];
        let signs: Vec<i8> = (0..n).map(|i| if i % 3 == 0 { -1 } else { 1 }).collect();
        for records in [&dense as &dyn Records, &from_dense, &sparse] {
            for (kernel, tol) in [(&rbf as &dyn Kernel, 1e-6), (&lap, 1e-7)] {
                let g = GramRows::new(kernel, records, &indices).unwrap();
                assert_eq!(g.len(), n);
                let mut out = vec![0.0f32; picked.len() * n];
                g.rows(&picked, Some(&signs), &mut out);
                for (r, &a) in picked.iter().enumerate() {
                    let xa = records.row(indices[a]);
                    assert!((g.diagonal(a) - kernel.eval(xa, xa)).abs() < 1e-12);
                    for t in 0..n {
                        let s = f64::from(signs[a] * signs[t]);
                        let want = s * kernel.eval(xa, records.row(indices[t]));
                        let got = f64::from(out[r * n + t]);
                        assert!((got - want).abs() < tol, "({a}, {t}): {got} vs {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_block_is_the_same_bits_on_one_thread_and_two() {
        let rbf = Rbf::with_gamma(0.1).unwrap();
        let (dense, sparse) = (points(3 * COLUMNS, 7), sparse_points(3 * COLUMNS));
        for records in [&dense as &dyn Records, &sparse] {
            let all: Vec<usize> = (0..records.n_samples()).collect();
            let g = GramRows::new(&rbf, records, &all).unwrap();
            let run = |threads| {
                let mut out = vec![0.0f32; 3 * g.len()];
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| g.rows(&[5, 4000, 1], None, &mut out));
                out
            };
            assert_eq!(run(1), run(2));
        }
    }
}
