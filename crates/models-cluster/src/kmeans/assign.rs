//! Nearest-centre search and per-cluster sums over row blocks.
//!
//! Squared distances are `‖x‖² + ‖c‖² − 2 x·c`: for dense records the `x·c` of a block of
//! [`BLOCK`] rows against every centre is one faer GEMM (sequential inside the block; rayon runs
//! blocks in parallel), so memory stays at `BLOCK × k` per task whatever `n`. Sparse rows take
//! their dot products one by one.
//!
//! Rows are cut into [`groups`] that depend on `n` alone, never on the thread count; each group
//! is one task that accumulates its own per-cluster sums, and the groups' sums are added in
//! group order. Every floating-point sum therefore happens in the same order on 1 thread or 32.

use std::ops::Range;

use core_linalg::{DenseMatrix, Records};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use rayon::prelude::*;

/// Rows per GEMM block (scikit-learn uses the same chunk size).
pub(crate) const BLOCK: usize = 256;
/// At most this many groups, so the per-group `k × d` sums stay bounded.
const MAX_GROUPS: usize = 64;

/// Contiguous row ranges covering `0..n`, fixed by `n` alone.
pub(crate) fn groups(n: usize) -> Vec<Range<usize>> {
    let n_blocks = n.div_ceil(BLOCK);
    let n_groups = n_blocks.clamp(1, MAX_GROUPS);
    let rows = n_blocks.div_ceil(n_groups).max(1) * BLOCK;
    (0..n).step_by(rows).map(|s| s..(s + rows).min(n)).collect()
}

/// Centres with their squared norms, ready for distance computations.
pub(crate) struct CenterTable<'a> {
    pub(crate) centers: &'a DenseMatrix,
    sq_norms: Vec<f64>,
}

impl<'a> CenterTable<'a> {
    pub(crate) fn new(centers: &'a DenseMatrix) -> Self {
        let sq_norms = centers.rows().map(|c| core_linalg::dot(c, c)).collect();
        Self { centers, sq_norms }
    }

    fn k(&self) -> usize {
        self.centers.nrows()
    }
}

/// Scratch for one task: the `k × BLOCK` product and the block's squared row norms.
pub(crate) struct Scratch {
    prod: Mat<f64>,
    sq: Vec<f64>,
}

impl Scratch {
    pub(crate) fn new(k: usize) -> Self {
        Self {
            prod: Mat::zeros(k, BLOCK),
            sq: vec![0.0; BLOCK],
        }
    }
}

/// For the rows `rows` (at most [`BLOCK`]) with squared norms `x_sq`: the nearest centre
/// (lowest index on ties) into `labels` and the squared distance to it (clamped at 0) into
/// `dists`.
///
/// The product is `C · X_blockᵀ` (`k × rows`): the rows of a row-major block are the columns of
/// the right-hand side, which GEMM reads without a strided gather, and each row's `k` products
/// come out contiguous.
fn nearest_block<R: Records + ?Sized>(
    x: &R,
    rows: Range<usize>,
    x_sq: &[f64],
    table: &CenterTable<'_>,
    prod: &mut Mat<f64>,
    labels: &mut [u32],
    dists: &mut [f64],
) {
    let len = rows.len();
    let k = table.k();
    let mut prod = prod.as_mut().subcols_mut(0, len);
    match x.as_dense() {
        Some(d) => matmul(
            prod.as_mut(),
            Accum::Replace,
            table.centers.as_faer(),
            d.as_faer().subrows(rows.start, len).transpose(),
            1.0,
            Par::Seq,
        ),
        None => {
            for (r, i) in rows.clone().enumerate() {
                let xi = x.row(i);
                for j in 0..k {
                    prod[(j, r)] = xi.dot_dense(table.centers.row(j));
                }
            }
        }
    }
    let prod = prod.as_ref();
    for r in 0..len {
        let col = prod.col(r);
        let (mut best, mut best_j) = (f64::INFINITY, 0);
        for (j, (&c_sq, &p)) in table.sq_norms.iter().zip(col.iter()).enumerate() {
            let v = c_sq - 2.0 * p;
            if v < best {
                best = v;
                best_j = j;
            }
        }
        labels[r] = best_j as u32;
        dists[r] = (x_sq[r] + best).max(0.0);
    }
}

/// `‖x_i‖²` for every row.
pub(crate) fn sq_norms<R: Records + ?Sized>(x: &R) -> Vec<f64> {
    (0..x.n_samples())
        .into_par_iter()
        .map(|i| x.row_sq_norm(i))
        .collect()
}

/// Nearest centres and squared distances for every row.
pub(crate) fn nearest<R: Records + ?Sized>(x: &R, centers: &DenseMatrix) -> (Vec<u32>, Vec<f64>) {
    let n = x.n_samples();
    let table = CenterTable::new(centers);
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
                for (s, i) in scratch.sq.iter_mut().zip(rows.clone()) {
                    *s = x.row_sq_norm(i);
                }
                nearest_block(x, rows, &scratch.sq, &table, &mut scratch.prod, l, d);
            },
        );
    (labels, dists)
}

/// What one assignment pass over all rows gives: labels, squared distances to the assigned
/// centre, and per-cluster sums and counts.
pub(crate) struct Assignment {
    pub(crate) labels: Vec<u32>,
    pub(crate) dists: Vec<f64>,
    pub(crate) sums: DenseMatrix,
    pub(crate) counts: Vec<usize>,
}

/// Assigns every row to its nearest centre and sums the rows of each cluster (in group order).
/// `x_sq` holds the rows' squared norms ([`sq_norms`]).
pub(crate) fn assign_and_sum<R: Records + ?Sized>(
    x: &R,
    x_sq: &[f64],
    centers: &DenseMatrix,
) -> Assignment {
    let (n, d, k) = (x.n_samples(), x.n_features(), centers.nrows());
    let table = CenterTable::new(centers);
    let ranges = groups(n);
    let mut labels = vec![0u32; n];
    let mut dists = vec![0.0; n];
    let group_rows = ranges.first().map_or(1, |r| r.len().max(1));
    let partial: Vec<(DenseMatrix, Vec<usize>)> = labels
        .par_chunks_mut(group_rows)
        .zip(dists.par_chunks_mut(group_rows))
        .zip(ranges.par_iter())
        .map(|((labels, dists), range)| {
            let mut prod = Mat::zeros(k, BLOCK);
            let mut sums = DenseMatrix::zeros(k, d);
            let mut counts = vec![0usize; k];
            for start in range.clone().step_by(BLOCK) {
                let end = (start + BLOCK).min(range.end);
                let (l, dd) = (
                    &mut labels[start - range.start..end - range.start],
                    &mut dists[start - range.start..end - range.start],
                );
                nearest_block(x, start..end, &x_sq[start..end], &table, &mut prod, l, dd);
                for (i, &c) in (start..end).zip(l.iter()) {
                    x.row(i).axpy(1.0, sums.row_mut(c as usize));
                    counts[c as usize] += 1;
                }
            }
            (sums, counts)
        })
        .collect();
    let mut sums = DenseMatrix::zeros(k, d);
    let mut counts = vec![0usize; k];
    for (s, c) in &partial {
        sums.as_mut_slice()
            .iter_mut()
            .zip(s.as_slice())
            .for_each(|(a, b)| *a += b);
        counts.iter_mut().zip(c).for_each(|(a, b)| *a += b);
    }
    Assignment {
        labels,
        dists,
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
                    let c = core_linalg::RowView::Dense(centers.row(labels[i] as usize));
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
    use core_linalg::CsrMatrix;

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
        let c = DenseMatrix::from_rows(&[
            [0.0, 0.0, 0.0, 0.0],
            [2.0, 0.0, 1.0, 3.0],
            [-2.0, 1.0, -1.0, 6.0],
        ])
        .unwrap();
        let sx = CsrMatrix::from_dense(&x);
        for (labels, dists) in [nearest(&x, &c), nearest(&sx, &c)] {
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
        let b = nearest(&x, &c);
        assert_eq!(a.labels, b.0);
        assert_eq!(a.counts.iter().sum::<usize>(), 600);
    }
}
