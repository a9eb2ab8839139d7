//! Nearest-centre search and per-cluster sums over row blocks.
//!
//! Squared distances are `‖x‖² + ‖c‖² − 2 x·c`: for dense records the `x·c` of a block of
//! [`BLOCK`] rows against every centre is one product (sequential inside the block; rayon runs
//! blocks in parallel), so memory stays at `BLOCK × k` per task whatever `n`: the register
//! kernel of [`super::dots`] for up to [`FEW_CENTRES`] centres, a faer GEMM beyond. Sparse rows
//! take their dot products one by one.
//!
//! Rows are cut into [`groups`] that depend on `n` alone, never on the thread count; each group
//! is one task that accumulates its own per-cluster sums, and the groups' sums are added in
//! group order. Every floating-point sum therefore happens in the same order on 1 thread or 32.
//!
//! **The assignment rule.** A row's label is the centre with the smallest *direct* squared
//! distance [`sq_dist_to`] (`Σ (x_j − c_j)²`), the lowest index on exact ties. The product form
//! only decides when it is safe: its rounding error, and that of the direct form, are below
//! `tie × (‖x‖ + ‖c‖)²` with `tie = 4 (d + 4) ε` (dot products of length `d` err by at most
//! `d u ‖x‖‖c‖`, fused multiply-adds or not), so when the runner-up's product value is within
//! the two centres' error bounds of the best, the close centres are compared again by
//! [`sq_dist_to`]. Every assignment (Lloyd, Elkan, `predict`) therefore gives the same labels,
//! whatever arithmetic found them.

use std::ops::Range;

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, Par};
use margin_core::{DenseMatrix, Records, Result, RowView, memory};
use rayon::prelude::*;

use super::dots::{self, PackedCenters};

/// Rows per product block (scikit-learn uses the same chunk size).
pub(crate) const BLOCK: usize = 256;
/// At most this many groups, so the per-group `k × d` sums stay bounded.
const MAX_GROUPS: usize = 64;
/// Up to this many centres, dense rows meet them through [`dots::products`]; beyond, faer's
/// GEMM (streaming 100,000 × 50 rows on one thread: 2.1× faster than faer at 10 centres,
/// 1.2× at 32, even at 48 and 64).
pub(crate) const FEW_CENTRES: usize = 32;

/// Contiguous row ranges covering `0..n`, fixed by `n` alone.
pub(crate) fn groups(n: usize) -> Vec<Range<usize>> {
    let n_blocks = n.div_ceil(BLOCK);
    let n_groups = n_blocks.clamp(1, MAX_GROUPS);
    let rows = n_blocks.div_ceil(n_groups).max(1) * BLOCK;
    (0..n).step_by(rows).map(|s| s..(s + rows).min(n)).collect()
}

/// `Σ_j (x_j − c_j)²` from the differences: the distance that decides every assignment.
pub(crate) fn sq_dist_to(x: &RowView<'_>, c: &[f64]) -> f64 {
    match x {
        RowView::Dense(x) => sq_dist_dense(x, c),
        RowView::Sparse(_) => x.sq_dist(&RowView::Dense(c)),
    }
}

/// `Σ_j (a_j − b_j)²` in eight interleaved partial sums (so the compiler vectorises it).
pub(crate) fn sq_dist_dense(a: &[f64], b: &[f64]) -> f64 {
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ac
        .remainder()
        .iter()
        .zip(bc.remainder())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    let mut acc = [0.0f64; 8];
    for (x, y) in ac.zip(bc) {
        for l in 0..8 {
            let t = x[l] - y[l];
            acc[l] += t * t;
        }
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail
}

/// Centres with their norms, ready for distance computations.
pub(crate) struct CenterTable<'a> {
    pub(crate) centers: &'a DenseMatrix,
    /// The centres packed for [`dots::products`], for dense records and at most
    /// [`FEW_CENTRES`] centres (sparse rows never read them: a sparse data set's `d` can be
    /// large enough that a packed copy would be the largest allocation of the pass).
    packed: Option<PackedCenters>,
    sq_norms: Vec<f64>,
    norms: Vec<f64>,
    max_norm: f64,
    /// `4 (d + 4) ε`: see the module documentation.
    tie: f64,
}

impl<'a> CenterTable<'a> {
    /// The table for records that are `dense` or not.
    pub(crate) fn new(centers: &'a DenseMatrix, dense: bool) -> Self {
        let sq_norms: Vec<f64> = centers.rows().map(|c| margin_core::dot(c, c)).collect();
        let norms: Vec<f64> = sq_norms.iter().map(|s| s.sqrt()).collect();
        let max_norm = norms.iter().copied().fold(0.0, f64::max);
        let tie = 4.0 * (centers.ncols() as f64 + 4.0) * f64::EPSILON;
        let packed = (dense && centers.nrows() <= FEW_CENTRES).then(|| PackedCenters::new(centers));
        Self {
            centers,
            packed,
            sq_norms,
            norms,
            max_norm,
            tie,
        }
    }

    fn k(&self) -> usize {
        self.centers.nrows()
    }
}

/// Scratch for one task: the block's products (each row's `k` together) and a block-long
/// buffer (the block's squared row norms, or its distances when those are not wanted).
pub(crate) struct Scratch {
    prod: Vec<f64>,
    buf: Vec<f64>,
}

impl Scratch {
    pub(crate) fn new(k: usize) -> Self {
        Self {
            prod: vec![0.0; k * BLOCK],
            buf: vec![0.0; BLOCK],
        }
    }
}

/// For the rows `rows` (at most [`BLOCK`]) with squared norms `x_sq`: the nearest centre
/// (the module's assignment rule) into `labels` and the squared distance to it (clamped at 0)
/// into `dists`.
///
/// Through faer the product is `C · X_blockᵀ` (`k × rows`, column-major): the rows of a
/// row-major block are the columns of the right-hand side, which GEMM reads without a strided
/// gather, and each row's `k` products come out together, as [`dots::products`] writes them.
fn nearest_block<R: Records + ?Sized>(
    x: &R,
    rows: Range<usize>,
    x_sq: &[f64],
    table: &CenterTable<'_>,
    prod: &mut [f64],
    labels: &mut [u32],
    dists: &mut [f64],
) {
    let len = rows.len();
    let k = table.k();
    let prod = &mut prod[..k * len];
    match (x.as_dense(), &table.packed) {
        (Some(d), Some(packed)) => dots::products(d.as_slice(), rows.clone(), packed, prod),
        (Some(d), None) => matmul(
            MatMut::from_column_major_slice_mut(prod, k, len),
            Accum::Replace,
            table.centers.as_faer(),
            d.as_faer().subrows(rows.start, len).transpose(),
            1.0,
            Par::Seq,
        ),
        (None, _) => {
            for (p, i) in prod.chunks_exact_mut(k).zip(rows.clone()) {
                let xi = x.row(i);
                for (p, c) in p.iter_mut().zip(table.centers.rows()) {
                    *p = xi.dot_dense(c);
                }
            }
        }
    }
    for (r, col) in prod.chunks_exact(k).enumerate() {
        let (mut best, mut best_j) = (f64::INFINITY, 0);
        for (j, (&c_sq, &p)) in table.sq_norms.iter().zip(col).enumerate() {
            let v = c_sq - 2.0 * p;
            if v < best {
                best = v;
                best_j = j;
            }
        }
        // Product values within the error bounds of the best are settled by direct distances.
        // First a branch-free count against the widest bound (the largest centre norm).
        let xn = x_sq[r].max(0.0).sqrt();
        let err = |j: usize| table.tie * (xn + table.norms[j]) * (xn + table.norms[j]);
        let reach = best + err(best_j);
        let widest = reach + table.tie * (xn + table.max_norm) * (xn + table.max_norm);
        let within = (table.sq_norms.iter().zip(col))
            .map(|(&c_sq, &p)| usize::from(c_sq - 2.0 * p <= widest))
            .sum::<usize>();
        let close = |j: usize, p: f64| j != best_j && table.sq_norms[j] - 2.0 * p <= reach + err(j);
        if within > 1 {
            let xi = x.row(rows.start + r);
            let (mut win, mut win_d) = (best_j, sq_dist_to(&xi, table.centers.row(best_j)));
            for (j, &p) in col.iter().enumerate() {
                if close(j, p) {
                    let dj = sq_dist_to(&xi, table.centers.row(j));
                    if dj < win_d || (dj == win_d && j < win) {
                        (win, win_d) = (j, dj);
                    }
                }
            }
            labels[r] = win as u32;
            dists[r] = win_d;
        } else {
            labels[r] = best_j as u32;
            dists[r] = (x_sq[r] + best).max(0.0);
        }
    }
}

/// `‖x_i‖²` for every row.
pub(crate) fn sq_norms<R: Records + ?Sized>(x: &R) -> Vec<f64> {
    (0..x.n_samples())
        .into_par_iter()
        .map(|i| x.row_sq_norm(i))
        .collect()
}

/// Dense records meet more than [`FEW_CENTRES`] centres through faer's products (`k` centres
/// by a block of rows): their scratch is asked for first.
pub(crate) fn check_products<R: Records + ?Sized>(x: &R, k: usize) -> Result<()> {
    match x.as_dense() {
        Some(_) if k > FEW_CENTRES => {
            memory::check_products(k, BLOCK.min(x.n_samples()), x.n_features())
        }
        _ => Ok(()),
    }
}

/// Nearest centres and squared distances for every row.
pub(crate) fn nearest<R: Records + ?Sized>(x: &R, centers: &DenseMatrix) -> (Vec<u32>, Vec<f64>) {
    let n = x.n_samples();
    let table = CenterTable::new(centers, x.as_dense().is_some());
    let mut labels = vec![0u32; n];
    let mut dists = vec![0.0; n];
    labels
        .par_chunks_mut(BLOCK)
        .zip(dists.par_chunks_mut(BLOCK))
        .enumerate()
        .for_each_init(
            || Scratch::new(centers.nrows()),
            |scratch, (b, (l, d))| {
                let rows = b * BLOCK..b * BLOCK + l.len();
                for (s, i) in scratch.buf.iter_mut().zip(rows.clone()) {
                    *s = x.row_sq_norm(i);
                }
                nearest_block(x, rows, &scratch.buf, &table, &mut scratch.prod, l, d);
            },
        );
    (labels, dists)
}

/// What one assignment pass over all rows gives: labels and per-cluster sums and counts.
pub(crate) struct Assignment {
    pub(crate) labels: Vec<u32>,
    pub(crate) sums: DenseMatrix,
    pub(crate) counts: Vec<usize>,
}

/// Adds the rows `range` into their clusters' sums and counts, in row order.
fn add_rows<R: Records + ?Sized>(
    x: &R,
    range: Range<usize>,
    labels: &[u32],
    sums: &mut DenseMatrix,
    counts: &mut [usize],
) {
    for (i, &c) in range.zip(labels) {
        x.row(i).axpy(1.0, sums.row_mut(c as usize));
        counts[c as usize] += 1;
    }
}

/// Adds the groups' sums and counts in group order.
pub(crate) fn reduce(
    partial: Vec<(DenseMatrix, Vec<usize>)>,
    k: usize,
    d: usize,
) -> (DenseMatrix, Vec<usize>) {
    let mut sums = DenseMatrix::zeros(k, d);
    let mut counts = vec![0usize; k];
    for (s, c) in &partial {
        sums.as_mut_slice()
            .iter_mut()
            .zip(s.as_slice())
            .for_each(|(a, b)| *a += b);
        counts.iter_mut().zip(c).for_each(|(a, b)| *a += b);
    }
    (sums, counts)
}

/// Assigns every row to its nearest centre and sums the rows of each cluster (in group order).
/// `x_sq` holds the rows' squared norms ([`sq_norms`]).
pub(crate) fn assign_and_sum<R: Records + ?Sized>(
    x: &R,
    x_sq: &[f64],
    centers: &DenseMatrix,
) -> Assignment {
    let (n, d, k) = (x.n_samples(), x.n_features(), centers.nrows());
    let table = CenterTable::new(centers, x.as_dense().is_some());
    let ranges = groups(n);
    let mut labels = vec![0u32; n];
    let group_rows = ranges.first().map_or(1, |r| r.len().max(1));
    let partial = labels
        .par_chunks_mut(group_rows)
        .zip(ranges.par_iter())
        .map(|(labels, range)| {
            let mut scratch = Scratch::new(k);
            let mut sums = DenseMatrix::zeros(k, d);
            let mut counts = vec![0usize; k];
            for start in range.clone().step_by(BLOCK) {
                let end = (start + BLOCK).min(range.end);
                let l = &mut labels[start - range.start..end - range.start];
                let dists = &mut scratch.buf[..end - start];
                let (xs, prod) = (&x_sq[start..end], &mut scratch.prod);
                nearest_block(x, start..end, xs, &table, prod, l, dists);
                add_rows(x, start..end, l, &mut sums, &mut counts);
            }
            (sums, counts)
        })
        .collect();
    let (sums, counts) = reduce(partial, k, d);
    Assignment {
        labels,
        sums,
        counts,
    }
}

/// `Σ_i ‖x_i − c_{label_i}‖²`, each term from the differences (no cancellation), summed per
/// group and then in group order.
pub(crate) fn inertia<R: Records + ?Sized>(x: &R, centers: &DenseMatrix, labels: &[u32]) -> f64 {
    groups(x.n_samples())
        .into_par_iter()
        .map(|range| {
            range
                .map(|i| {
                    let c = margin_core::RowView::Dense(centers.row(labels[i] as usize));
                    x.row(i).sq_dist(&c)
                })
                .sum::<f64>()
        })
        .collect::<Vec<f64>>()
        .into_iter()
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::CsrMatrix;

    #[test]
    fn groups_cover_rows_in_order_and_ignore_threads() {
        for n in [0, 1, 255, 256, 257, 10_000, 100_000] {
            let g = groups(n);
            assert!(g.len() <= MAX_GROUPS);
            let mut next = 0;
            for r in &g {
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, n);
        }
    }

    /// Against brute force, on both sides of [`FEW_CENTRES`] (the register kernel and faer's
    /// GEMM), for dense and sparse rows, and across block boundaries (600 rows).
    #[test]
    fn nearest_matches_brute_force_dense_and_sparse() {
        let rows: Vec<Vec<f64>> = (0..600)
            .map(|i| {
                let t = i as f64;
                vec![
                    (t * 0.37).sin() * 3.0,
                    0.0,
                    (t * 0.11).cos(),
                    (i % 7) as f64,
                ]
            })
            .collect();
        let x = DenseMatrix::from_rows(&rows).unwrap();
        let few = DenseMatrix::from_rows(&[
            [0.0, 0.0, 0.0, 0.0],
            [2.0, 0.0, 1.0, 3.0],
            [-2.0, 1.0, -1.0, 6.0],
        ])
        .unwrap();
        let many: Vec<[f64; 4]> = (0..FEW_CENTRES + 8)
            .map(|j| {
                let t = j as f64;
                [
                    (t * 0.9).sin() * 3.0,
                    0.5,
                    (t * 0.3).cos(),
                    (j % 9) as f64 * 0.75,
                ]
            })
            .collect();
        let sx = CsrMatrix::from_dense(&x);
        for c in [few, DenseMatrix::from_rows(&many).unwrap()] {
            let dense = nearest(&x, &c);
            let sparse = nearest(&sx, &c);
            assert_eq!(dense.0, sparse.0);
            for (labels, dists) in [dense.clone(), sparse] {
                for (i, row) in rows.iter().enumerate() {
                    let d: Vec<f64> = c
                        .rows()
                        .map(|cj| row.iter().zip(cj).map(|(a, b)| (a - b) * (a - b)).sum())
                        .collect();
                    let best = d.iter().cloned().fold(f64::INFINITY, f64::min);
                    assert!((d[labels[i] as usize] - best).abs() < 1e-9);
                    assert!((dists[i] - best).abs() < 1e-9);
                }
            }
            let a = assign_and_sum(&x, &sq_norms(&x), &c);
            assert_eq!(a.labels, dense.0);
            assert_eq!(a.counts.iter().sum::<usize>(), 600);
        }
    }
}
