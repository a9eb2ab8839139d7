//! Rows of a Gram matrix a block at a time: what a working-set solver asks for.

use faer::{Accum, MatMut, MatRef, Par};
use margin_core::{CsrMatrix, DenseMatrix, Records, Result, RowView, memory, parallel};
use rayon::prelude::*;

use crate::cache::{renumbered_subset, stored_in};
use crate::gram::apply_form;
use crate::kernel::{DotForm, Kernel};
use crate::simd::rbf_into_f32;

/// Samples per parallel task of [`GramRows::add_weighted_rows`]: each task sums the rows over
/// this many samples in its own scratch.
const COLUMNS: usize = 2048;

/// Dot products per tile (64 KiB of `f64`): a tile's samples times the block's rows.
const TILE_ENTRIES: usize = 8192;

/// Stored entries over all entries below which samples are kept sparse (CSR): a sparse
/// product then does a quarter of the dense one's multiply-adds or fewer, enough to pay for
/// its gathers.
const SPARSE_BELOW: f64 = 0.25;

/// `k(x_a, x_t)` for a block of samples `a` against samples `t`: a working set's own block
/// ([`block`](Self::block)) and its rows' weighted sums over every sample
/// ([`add_weighted_rows`](Self::add_weighted_rows)), computed a tile of samples at a time as
/// matrix products for a kernel with a [`DotForm`] (the form then applied entry by entry, RBF
/// exponentials in `f32`), pair by pair otherwise.
///
/// Dense samples (and sparse ones stored at a quarter or more) are held densely and the
/// product is faer's GEMM; sparser samples are held in CSR (their features renumbered for a
/// dot form) and each sample's stored entries add its features' values of the block, 16 rows
/// at a time. Memory: the samples' copy, asked for first, and a 64 KiB tile per task. Each
/// value depends only on its two samples and the tasks are cut by `n` alone, so the results
/// do not depend on the thread count. They are not LIBSVM's bits (the dot products are summed
/// in another order).
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
        let form = kernel.dot_form();
        let samples = match sparse {
            Some(csr) if form.is_some() => Samples::Sparse(renumbered_subset(csr, indices)?),
            // Other kernels may read a feature by its index (a precomputed kernel's serial
            // numbers name columns): their samples keep the records' numbering.
            Some(csr) => Samples::Sparse(csr.select_rows(indices)?),
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
        // Dense samples meet through faer's products; where their scratch cannot be had (an
        // address-space limit below it), pair by pair, the same values up to rounding.
        let n = indices.len();
        let form =
            form.filter(|_| matches!(samples, Samples::Sparse(_)) || memory::products_fit(n, n, d));
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

    /// `out[r·cols.len() + k] = s_a s_t k(x_a, x_t)` for `a = rows[r]`, `t = cols[k]`, as
    /// `f32`, with `s` the `signs` (one `±1` per sample; all `+1` without them): a block of an
    /// SVM dual's `Q`. Computed on the calling thread; meant for blocks of a working set's size.
    pub fn block(&self, rows: &[usize], cols: &[usize], signs: Option<&[i8]>, out: &mut [f32]) {
        let (m, n) = (rows.len(), cols.len());
        if m == 0 || n == 0 {
            return;
        }
        let sign = |i: usize| signs.map_or(1.0, |s| f32::from(s[i]));
        let block = Block::of(&self.samples, rows, self.form.is_some());
        let mut scratch = Scratch::new(m, n);
        let width = scratch.width;
        for (k0, piece) in cols.chunks(width).enumerate() {
            self.tile(&block, Cols::List(piece), &mut scratch, &mut |k, values| {
                let (col, s_t) = (k0 * width + k, sign(piece[k]));
                for ((r, &v), &a) in values.iter().enumerate().zip(rows) {
                    out[r * n + col] = sign(a) * s_t * v;
                }
            });
        }
    }

    /// `g[t] += Σ_r weights[r] · s_a s_t k(x_a, x_t)` with `a = rows[r]`, for every sample `t`:
    /// a working-set solver's gradient update, the rows computed tile by tile and never
    /// stored (memory: the block's own samples and a tile per task). Each `g[t]` gets one sum
    /// over `r`, in an order fixed by `rows.len()` alone, made by one task: the same bits on
    /// any number of threads. Rows of weight 0 are skipped.
    pub fn add_weighted_rows(
        &self,
        rows: &[usize],
        weights: &[f64],
        signs: Option<&[i8]>,
        g: &mut [f64],
    ) {
        let sign = |i: usize| signs.map_or(1.0, |s| f64::from(s[i]));
        // Each row's weight with its sign; the samples' signs are applied to the sums.
        let (moved, signed): (Vec<usize>, Vec<f64>) = rows
            .iter()
            .zip(weights)
            .filter(|e| *e.1 != 0.0)
            .map(|(&a, &w)| (a, sign(a) * w))
            .unzip();
        let m = moved.len();
        if m == 0 || self.is_empty() {
            return;
        }
        let block = Block::of(&self.samples, &moved, self.form.is_some());
        g.par_chunks_mut(COLUMNS)
            .enumerate()
            .with_min_len(parallel::min_len(block.work_per_sample() * COLUMNS))
            .for_each(|(c, part)| {
                let start = c * COLUMNS;
                let mut scratch = Scratch::new(m, part.len());
                let width = scratch.width;
                for (k0, g_tile) in part.chunks_mut(width).enumerate() {
                    let first = start + k0 * width;
                    let cols = Cols::Range(first, g_tile.len());
                    self.tile(&block, cols, &mut scratch, &mut |k, values| {
                        g_tile[k] += sign(first + k) * weighted_sum(&signed, values);
                    });
                }
            });
    }

    /// The block's kernel values against the samples of one tile: `emit(k, values)` for the
    /// tile's `k`-th sample `t`, in order, with `values[r] = k(x_a, x_t)` for `a = rows[r]`.
    fn tile(
        &self,
        block: &Block<'_>,
        cols: Cols<'_>,
        scratch: &mut Scratch,
        emit: &mut dyn FnMut(usize, &[f32]),
    ) {
        let count = cols.len();
        let rows = block.rows();
        let Scratch {
            values,
            sq_rows,
            dots,
            gathered,
            ..
        } = scratch;
        let (Block::Products(products), Some(form)) = (block, &self.form) else {
            for k in 0..count {
                let xt = self.samples.row(cols.at(k));
                for (v, &a) in values.iter_mut().zip(rows) {
                    *v = self.kernel.eval(self.samples.row(a), xt) as f32;
                }
                emit(k, values);
            }
            return;
        };
        if sq_rows.is_empty() {
            sq_rows.extend(rows.iter().map(|&a| self.sq_norms[a]));
        }
        let m = rows.len();
        let dots = &mut dots[..count * m];
        products.dots(cols, gathered, dots);
        for (k, dots) in dots.chunks_mut(m).enumerate() {
            let sq_t = self.sq_norms[cols.at(k)];
            match form {
                DotForm::Rbf { gamma } => rbf_into_f32(*gamma, sq_t, dots, sq_rows, values),
                _ => {
                    apply_form(form, dots, sq_t, sq_rows);
                    for (o, &v) in values.iter_mut().zip(dots.iter()) {
                        *o = v as f32;
                    }
                }
            }
            emit(k, values);
        }
    }
}

/// `Σ_r w[r] · v[r]` in eight running sums, then those in a fixed order: vectorized, and the
/// same bits wherever it runs.
fn weighted_sum(w: &[f64], v: &[f32]) -> f64 {
    const LANES: usize = 8;
    let mut acc = [0.0f64; LANES];
    let (w_body, v_body) = (w.chunks_exact(LANES), v.chunks_exact(LANES));
    let (w_rest, v_rest) = (w_body.remainder(), v_body.remainder());
    for (w8, v8) in w_body.zip(v_body) {
        for l in 0..LANES {
            acc[l] += w8[l] * f64::from(v8[l]);
        }
    }
    for (l, (&w, &v)) in w_rest.iter().zip(v_rest).enumerate() {
        acc[l] += w * f64::from(v);
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

/// The samples of one tile: a run of consecutive samples, or a list.
#[derive(Clone, Copy)]
enum Cols<'c> {
    /// Samples `first..first + count`.
    Range(usize, usize),
    List(&'c [usize]),
}

impl Cols<'_> {
    fn len(&self) -> usize {
        match self {
            Cols::Range(_, count) => *count,
            Cols::List(list) => list.len(),
        }
    }

    /// The tile's `k`-th sample.
    fn at(&self, k: usize) -> usize {
        match self {
            Cols::Range(first, _) => first + k,
            Cols::List(list) => list[k],
        }
    }
}

/// A task's working memory for [`GramRows`]'s tiles, sized once: `width` samples a tile.
struct Scratch {
    width: usize,
    /// One sample's values against the block's rows.
    values: Vec<f32>,
    /// The block rows' squared norms (filled by the first tile).
    sq_rows: Vec<f64>,
    /// `dots[k·m + r]`: the tile's `k`-th sample times the block's `r`-th.
    dots: Vec<f64>,
    /// What a tile gathers from its samples.
    gathered: Gathered,
}

impl Scratch {
    /// For a block of `m` rows against tiles out of `n` samples: tiles of about
    /// [`TILE_ENTRIES`] dot products, so that they stay in cache while they are turned into
    /// kernel values.
    fn new(m: usize, n: usize) -> Self {
        let width = (TILE_ENTRIES / m.max(1)).clamp(8, n.max(8));
        Self {
            width,
            values: vec![0.0; m],
            sq_rows: Vec::with_capacity(m),
            dots: vec![0.0; width * m],
            gathered: Gathered::default(),
        }
    }
}

/// A block's rows: for a kernel with a dot form, its samples ready for products; for one
/// evaluated pair by pair, only which samples they are.
enum Block<'s> {
    PerPair(&'s [usize]),
    Products(Products<'s>),
}

impl<'s> Block<'s> {
    /// The block of `rows`, ready for products when `products` (a kernel with a dot form).
    fn of(samples: &'s Samples, rows: &'s [usize], products: bool) -> Self {
        if products {
            Block::Products(Products::of(samples, rows))
        } else {
            Block::PerPair(rows)
        }
    }

    /// The block's samples, in the order of its rows.
    fn rows(&self) -> &'s [usize] {
        match self {
            Block::PerPair(rows) => rows,
            Block::Products(p) => p.rows(),
        }
    }

    /// Operations per sample of the set (what one column of the block costs).
    fn work_per_sample(&self) -> usize {
        match self {
            // Counted as a short dot product per row.
            Block::PerPair(rows) => 64 * rows.len(),
            Block::Products(p) => p.rows().len() * p.work_per_sample(),
        }
    }
}

/// What a tile gathers from its samples, kept from tile to tile (no allocation per tile): a
/// listed tile's dense rows for GEMM, or each sparse sample's stored entries the block has.
#[derive(Default)]
struct Gathered {
    /// `count × d`, row-major.
    rows: Vec<f64>,
    /// `(offset in the block's values, value)` of the tile's samples, one after another.
    hits: Vec<(usize, f64)>,
    /// Where each sample's hits end.
    ends: Vec<usize>,
}

/// The block's own samples beside the set they are multiplied with: dense rows for GEMM, or
/// for sparse samples each feature the block uses with its `m` values side by side.
enum Products<'s> {
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

impl<'s> Products<'s> {
    fn of(samples: &'s Samples, rows: &'s [usize]) -> Self {
        let m = rows.len();
        match samples {
            Samples::Dense(x) => {
                let d = x.ncols();
                let mut xb = DenseMatrix::zeros(m, d);
                for (o, &a) in xb.as_mut_slice().chunks_mut(d.max(1)).zip(rows) {
                    o.copy_from_slice(x.row(a));
                }
                Products::Dense {
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
                Products::Sparse(SparseBlock {
                    samples: csr,
                    slot,
                    values,
                    rows,
                })
            }
        }
    }

    /// The block's samples, in the order of its rows.
    fn rows(&self) -> &'s [usize] {
        match self {
            Products::Dense { rows, .. } => rows,
            Products::Sparse(block) => block.rows,
        }
    }

    /// Multiply-adds per sample of the set (what one column of the product costs).
    fn work_per_sample(&self) -> usize {
        match self {
            Products::Dense { x, .. } => x.ncols(),
            Products::Sparse(b) => b.samples.nnz().div_ceil(b.samples.nrows().max(1)),
        }
    }

    /// `dots[k·m + r] = x_{cols[k]} · x_{rows[r]}` (sample-major); `gathered` is scratch.
    fn dots(&self, cols: Cols<'_>, gathered: &mut Gathered, dots: &mut [f64]) {
        let count = cols.len();
        match self {
            Products::Dense { samples, x: xb, .. } => {
                let d = samples.ncols();
                let lhs = match cols {
                    Cols::Range(first, _) => samples.view().subrows(first, count).as_faer(),
                    Cols::List(list) => {
                        let rows = &mut gathered.rows;
                        rows.resize(count * d, 0.0);
                        for (o, &t) in rows.chunks_mut(d.max(1)).zip(list) {
                            o.copy_from_slice(DenseMatrix::row(samples, t));
                        }
                        MatRef::from_row_major_slice(rows, count, d)
                    }
                };
                // Row-major count × m is column-major m × count: X_B · X_tileᵀ.
                faer::linalg::matmul::matmul(
                    MatMut::from_column_major_slice_mut(dots, xb.nrows(), count),
                    Accum::Replace,
                    xb.as_faer(),
                    lhs.transpose(),
                    1.0,
                    Par::Seq,
                );
            }
            Products::Sparse(block) => {
                // faer's sparse × dense product computes each entry as its own gathered dot
                // product; here each stored entry of x_t adds one feature's block values, a
                // vector at a time.
                add_stored(block, cols, gathered, dots);
            }
        }
    }
}

margin_core::simd_dispatch! {
    /// `tile[k]` (a row of `m`) `= Σ v · values[slot[j]]` over the stored `(j, v)` of the
    /// tile's `k`-th sample: the sparse product's inner loop, compiled for AVX2 + FMA too and
    /// taken when the CPU has them (users build for the x86-64 baseline, where it would run two
    /// lanes wide).
    fn add_stored(
        block: &SparseBlock<'_>,
        cols: Cols<'_>,
        gathered: &mut Gathered,
        tile: &mut [f64],
    ) => add_stored_loop;
}

#[inline(always)]
fn add_stored_loop<const FMA: bool>(
    block: &SparseBlock<'_>,
    cols: Cols<'_>,
    gathered: &mut Gathered,
    tile: &mut [f64],
) {
    // The sums are made LANES block rows at a time for every sample of the tile, so that the
    // block values those rows read (LANES per feature) stay in L1; each sum is held in
    // registers over the sample's stored entries (in stored order, from 0) and written once.
    const LANES: usize = 16;
    let m = block.rows.len();
    let Gathered { hits, ends, .. } = gathered;
    hits.clear();
    ends.clear();
    for k in 0..cols.len() {
        let x = block.samples.row(cols.at(k));
        hits.extend(x.indices.iter().zip(x.values).filter_map(|(&j, &v)| {
            let s = block.slot[j as usize];
            (s != u32::MAX).then_some((s as usize * m, v))
        }));
        ends.push(hits.len());
    }
    let madd = |v: f64, b: f64, a: f64| if FMA { v.mul_add(b, a) } else { a + v * b };
    for r0 in (0..m).step_by(LANES) {
        let lanes = LANES.min(m - r0);
        let mut start = 0;
        for (out, &end) in tile.chunks_mut(m).zip(ends.iter()) {
            let mut acc = [0.0f64; LANES];
            if lanes == LANES {
                for &(at, v) in &hits[start..end] {
                    let feature = &block.values[at + r0..at + r0 + LANES];
                    for (a, &b) in acc.iter_mut().zip(feature) {
                        *a = madd(v, b, *a);
                    }
                }
            } else {
                for &(at, v) in &hits[start..end] {
                    let feature = &block.values[at + r0..at + m];
                    for (a, &b) in acc.iter_mut().zip(feature) {
                        *a = madd(v, b, *a);
                    }
                }
            }
            out[r0..r0 + lanes].copy_from_slice(&acc[..lanes]);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Laplacian, Precomputed, Rbf};

    fn points(n: usize, d: usize) -> DenseMatrix {
        let v: Vec<f64> = (0..n * d)
            .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
            .collect();
        DenseMatrix::from_row_major(v, n, d).unwrap()
    }

    /// The CSR matrix of `rows`, each its `(feature, value)` pairs in increasing feature order.
    fn csr_of(rows: &[Vec<(u32, f64)>], width: usize) -> CsrMatrix {
        let mut indptr = vec![0];
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        for row in rows {
            for &(j, v) in row {
                indices.push(j);
                values.push(v);
            }
            indptr.push(indices.len());
        }
        CsrMatrix::new(indptr, indices, values, width).unwrap()
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
        csr_of(&rows, width)
    }

    /// `s_a s_t k(x_a, x_t)` from the kernel's own `eval`, for the samples at `indices`.
    fn want(
        kernel: &dyn Kernel,
        records: &dyn Records,
        indices: &[usize],
        signs: &[i8],
        a: usize,
        t: usize,
    ) -> f64 {
        let k = kernel.eval(records.row(indices[a]), records.row(indices[t]));
        f64::from(signs[a] * signs[t]) * k
    }

    #[test]
    fn blocks_and_weighted_rows_are_the_kernels_values_for_dense_and_sparse_samples() {
        // More samples than one task's, so the sums are cut; the samples in reverse order.
        let n = COLUMNS + 300;
        let dense = points(n, 5);
        let from_dense = CsrMatrix::from_dense(&dense);
        let sparse = sparse_points(n);
        let indices: Vec<usize> = (0..n).rev().collect();
        let rbf = Rbf::with_gamma(0.3).unwrap();
        let lap = Laplacian::with_gamma(0.3).unwrap();
        // A repeated row and one of weight 0 (skipped).
        let picked = [0, 17, COLUMNS + 5, 4, 17, 9];
        let weights = [0.5, -1.25, 2.0, 0.0, 0.75, 1e-3];
        let cols: Vec<usize> = (0..n).step_by(7).chain([n - 1, 3]).collect();
        let signs: Vec<i8> = (0..n).map(|i| if i % 3 == 0 { -1 } else { 1 }).collect();
        for records in [&dense as &dyn Records, &from_dense, &sparse] {
            for (kernel, tol) in [(&rbf as &dyn Kernel, 1e-6), (&lap, 1e-6)] {
                let g = GramRows::new(kernel, records, &indices).unwrap();
                assert_eq!(g.len(), n);
                let mut out = vec![0.0f32; picked.len() * cols.len()];
                g.block(&picked, &cols, Some(&signs), &mut out);
                for (r, &a) in picked.iter().enumerate() {
                    let xa = records.row(indices[a]);
                    assert!((g.diagonal(a) - kernel.eval(xa, xa)).abs() < 1e-12);
                    for (k, &t) in cols.iter().enumerate() {
                        let want = want(kernel, records, &indices, &signs, a, t);
                        let got = f64::from(out[r * cols.len() + k]);
                        assert!((got - want).abs() < tol, "({a}, {t}): {got} vs {want}");
                    }
                }
                let start: Vec<f64> = (0..n).map(|t| t as f64 / 100.0).collect();
                let mut sums = start.clone();
                g.add_weighted_rows(&picked, &weights, Some(&signs), &mut sums);
                for t in 0..n {
                    let add: f64 = picked
                        .iter()
                        .zip(&weights)
                        .map(|(&a, &w)| w * want(kernel, records, &indices, &signs, a, t))
                        .sum();
                    let got = sums[t] - start[t];
                    assert!((got - add).abs() < 8.0 * tol, "t {t}: {got} vs {add}");
                }
            }
        }
    }

    #[test]
    fn a_precomputed_kernel_reads_its_serial_numbers_in_sparse_records() {
        // Rows `[serial | K(i, ·)]` of a banded Gram matrix where odd samples have no
        // similarities: sparse enough for the sparse copy (at most 4 of 41 columns stored),
        // and no row stores an even column, so renumbering the stored columns would shift the
        // ones the serial numbers name.
        let n: usize = 40;
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|i| {
                let mut row = vec![(0u32, (i + 1) as f64)];
                if i % 2 == 0 {
                    for j in (i.saturating_sub(2)..(i + 3).min(n)).step_by(2) {
                        row.push(((j + 1) as u32, 1.0 / (1.0 + i.abs_diff(j) as f64)));
                    }
                }
                row
            })
            .collect();
        let gram = csr_of(&rows, n + 1);
        let all: Vec<usize> = (0..n).collect();
        let g = GramRows::new(&Precomputed, &gram, &all).unwrap();
        let picked = [0, 7, 8, 39];
        let mut out = vec![0.0f32; picked.len() * n];
        g.block(&picked, &all, None, &mut out);
        for (r, &a) in picked.iter().enumerate() {
            for t in 0..n {
                let want =
                    Precomputed.eval(RowView::Sparse(gram.row(a)), RowView::Sparse(gram.row(t)));
                assert_eq!(out[r * n + t], want as f32, "({a}, {t})");
            }
        }
    }

    #[test]
    fn the_sums_are_the_same_bits_on_one_thread_and_two() {
        let rbf = Rbf::with_gamma(0.1).unwrap();
        let (dense, sparse) = (points(3 * COLUMNS, 7), sparse_points(3 * COLUMNS));
        for records in [&dense as &dyn Records, &sparse] {
            let all: Vec<usize> = (0..records.n_samples()).collect();
            let g = GramRows::new(&rbf, records, &all).unwrap();
            let run = |threads| {
                let mut sums = vec![1.0; g.len()];
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| {
                        g.add_weighted_rows(&[5, 4000, 1], &[0.3, -0.7, 0.1], None, &mut sums)
                    });
                sums
            };
            assert_eq!(run(1), run(2));
        }
    }
}
