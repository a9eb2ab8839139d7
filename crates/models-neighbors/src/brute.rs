//! Brute-force k-nearest-neighbour search.
//!
//! For the dot-product kinds (Euclidean family, cosine) against dense training records, a
//! block of up to [`QUERY_BLOCK`] queries meets each block of [`TRAIN_BLOCK`] training rows in one
//! GEMM (faer), and `‖x‖² + ‖z‖² − 2x·z` (or `1 − x·z / (‖x‖‖z‖)`) screens the candidates.
//! That expansion cancels when `x ≈ z`, so it only *screens*: a training row enters a query's
//! selection with its distance recomputed exactly from the differences, and is skipped only
//! when the expansion exceeds the current k-th exact distance by more than its rounding error
//! can explain ([`Screen`]). The answer is therefore the exact k nearest, ties to the smaller
//! index, identical to the kd-tree's and independent of GEMM's summation order or threads.
//!
//! Sparse training records take the same screen with sparse dot products (each query
//! scattered into a dense buffer once); the other metrics loop over pairs directly.
//!
//! Memory: each rayon task holds a `QUERY_BLOCK × TRAIN_BLOCK` block of dot products (1 MiB),
//! its queries densified (`QUERY_BLOCK × d`) and `QUERY_BLOCK` selections of `k`; nothing
//! scales with `n × m`.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use margin_core::{DenseMatrix, Matrix, Records, RowView, parallel};
use rayon::prelude::*;

use crate::metric::Kind;
use crate::select::KBest;

/// Queries per rayon task and GEMM block, at most.
pub(crate) const QUERY_BLOCK: usize = 128;
/// Queries per rayon task and GEMM block, at least (below, GEMM loses its efficiency).
const MIN_QUERY_BLOCK: usize = 16;
/// Training rows per GEMM block.
pub(crate) const TRAIN_BLOCK: usize = 1024;
/// Screening values checked together before any is looked at alone.
const SCREEN_CHUNK: usize = 16;
/// Queries per rayon task on the pair-by-pair paths.
const DIRECT_TASK: usize = 32;

/// The search space a query is compared with.
pub(crate) struct Space<'a> {
    pub(crate) kind: Kind,
    pub(crate) records: &'a Matrix,
    /// Squared norm of every training row (dot-product kinds only).
    pub(crate) sq_norms: &'a [f64],
}

/// Where a query's answer goes: row `q` of `m × k` distances and indices.
pub(crate) struct Out<'a> {
    pub(crate) k: usize,
    pub(crate) dist: &'a mut [f64],
    pub(crate) index: &'a mut [usize],
}

/// When the screening value of a pair can be skipped: it exceeds `bound + slack`, with
/// `slack` a bound on the rounding of the expansion and of the exact recomputation (a few
/// `(d + 4) u` times the magnitudes involved, `u` the unit roundoff, doubled for margin).
#[derive(Clone, Copy)]
struct Screen {
    kind: Kind,
    /// `4 (d + 4) u`.
    eps: f64,
    /// `‖x‖² + max ‖z‖²` (Euclidean kinds).
    scale: f64,
}

impl Screen {
    fn new(kind: Kind, d: usize, sq_x: f64, max_sq_z: f64) -> Self {
        Self {
            kind,
            eps: 4.0 * (d as f64 + 4.0) * f64::EPSILON,
            scale: sq_x + max_sq_z,
        }
    }

    /// The largest screening value that may still enter a selection whose k-th exact rank
    /// distance is `bound`.
    #[inline]
    fn limit(&self, bound: f64) -> f64 {
        match self.kind {
            Kind::Cosine => bound + self.eps * 3.0,
            _ => bound + self.eps * (self.scale + bound),
        }
    }
}

/// Finds the `k` nearest training rows of every query into `out`.
pub(crate) fn search<Q: Records + ?Sized>(
    space: &Space<'_>,
    queries: &Q,
    q_sq: &[f64],
    out: Out<'_>,
) {
    match (space.kind.uses_dot_products(), space.records) {
        (true, Matrix::Dense(train)) => gemm_search(space, train, queries, q_sq, out),
        (true, Matrix::Sparse(_)) => sparse_dot_search(space, queries, q_sq, out),
        (false, _) => direct_search(space, queries, out),
    }
}

fn gemm_search<Q: Records + ?Sized>(
    space: &Space<'_>,
    train: &DenseMatrix,
    queries: &Q,
    q_sq: &[f64],
    out: Out<'_>,
) {
    let (n, d, k) = (train.nrows(), train.ncols(), out.k);
    let kind = space.kind;
    let max_sq_z = space.sq_norms.iter().fold(0.0f64, |a, &b| a.max(b));
    let inv_norms: Vec<f64> = match kind {
        Kind::Cosine => space.sq_norms.iter().map(|s| 1.0 / s.sqrt()).collect(),
        _ => Vec::new(),
    };
    // Few queries are cut into smaller blocks so that every thread gets some (the answer does
    // not depend on the blocks).
    let m = out.dist.len() / k;
    let block = m
        .div_ceil(parallel::TASKS_PER_THREAD * parallel::threads())
        .clamp(MIN_QUERY_BLOCK, QUERY_BLOCK);
    out.dist
        .par_chunks_mut(block * k)
        .zip(out.index.par_chunks_mut(block * k))
        .enumerate()
        .for_each(|(task, (dist, index))| {
            let q0 = task * block;
            let bq = dist.len() / k;
            let mut qbuf = vec![0.0; bq * d];
            for (r, row) in qbuf.chunks_exact_mut(d.max(1)).enumerate() {
                queries.row(q0 + r).to_dense_into(row);
            }
            let qmat = MatRef::from_row_major_slice(&qbuf, bq, d);
            let mut dots = vec![0.0; TRAIN_BLOCK * bq];
            let mut best: Vec<KBest> = (0..bq).map(|_| KBest::new(k)).collect();
            let screens: Vec<Screen> = (0..bq)
                .map(|r| Screen::new(kind, d, q_sq[q0 + r], max_sq_z))
                .collect();
            for z0 in (0..n).step_by(TRAIN_BLOCK) {
                let bz = TRAIN_BLOCK.min(n - z0);
                let zmat =
                    MatRef::from_row_major_slice(&train.as_slice()[z0 * d..(z0 + bz) * d], bz, d);
                // Column r of the `bz × bq` column-major product holds query r's dot products.
                let dst = MatMut::from_column_major_slice_mut(&mut dots[..bz * bq], bz, bq);
                matmul(dst, Accum::Replace, zmat, qmat.transpose(), 1.0, Par::Seq);
                for r in 0..bq {
                    let col = &dots[r * bz..(r + 1) * bz];
                    let (sel, screen) = (&mut best[r], screens[r]);
                    let sq_x = q_sq[q0 + r];
                    let x = RowView::Dense(&qbuf[r * d..(r + 1) * d]);
                    let mut limit = screen.limit(sel.bound());
                    match kind {
                        Kind::Cosine => {
                            let inv_x = 1.0 / sq_x.sqrt();
                            for (j, &dot) in col.iter().enumerate() {
                                let z = z0 + j;
                                if 1.0 - dot * inv_x * inv_norms[z] <= limit {
                                    let exact = kind.rank(
                                        x,
                                        RowView::Dense(train.row(z)),
                                        sq_x,
                                        space.sq_norms[z],
                                        d,
                                    );
                                    sel.push(exact, z);
                                    limit = screen.limit(sel.bound());
                                }
                            }
                        }
                        _ => {
                            // `‖z‖² − 2x·z ≤ limit − ‖x‖²`, with `‖x‖²` moved out of the loop.
                            let mut reduced = limit - sq_x;
                            let norms = &space.sq_norms[z0..z0 + bz];
                            // Most chunks hold no candidate: their minimum (a vectorizable
                            // reduction) rules all of them out at once.
                            for (c, (dots, sq_zs)) in col
                                .chunks(SCREEN_CHUNK)
                                .zip(norms.chunks(SCREEN_CHUNK))
                                .enumerate()
                            {
                                let lowest = dots
                                    .iter()
                                    .zip(sq_zs)
                                    .fold(f64::INFINITY, |m, (&dot, &sq_z)| {
                                        m.min(sq_z - 2.0 * dot)
                                    });
                                if lowest > reduced {
                                    continue;
                                }
                                for (j, (&dot, &sq_z)) in dots.iter().zip(sq_zs).enumerate() {
                                    if sq_z - 2.0 * dot <= reduced {
                                        let z = z0 + c * SCREEN_CHUNK + j;
                                        let exact = kind.rank(
                                            x,
                                            RowView::Dense(train.row(z)),
                                            sq_x,
                                            sq_z,
                                            d,
                                        );
                                        sel.push(exact, z);
                                        limit = screen.limit(sel.bound());
                                        reduced = limit - sq_x;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            for (r, sel) in best.into_iter().enumerate() {
                sel.write_sorted(
                    &mut dist[r * k..(r + 1) * k],
                    &mut index[r * k..(r + 1) * k],
                    |v| kind.finish(v),
                );
            }
        });
}

fn sparse_dot_search<Q: Records + ?Sized>(
    space: &Space<'_>,
    queries: &Q,
    q_sq: &[f64],
    out: Out<'_>,
) {
    let (train, kind, k) = (space.records, space.kind, out.k);
    let (n, d) = (train.n_samples(), train.n_features());
    let max_sq_z = space.sq_norms.iter().fold(0.0f64, |a, &b| a.max(b));
    // A dense copy of the query makes each screening dot product a gather, but it is as wide
    // as the records: only where that is of the order of their stored entries (a sparse file
    // with a huge feature index would make it larger than the data). Elsewhere the sparse
    // rows are merged; either way the exact distances decide.
    let dense_query = d <= train.nnz().saturating_add(n);
    out.dist
        .par_chunks_mut(DIRECT_TASK * k)
        .zip(out.index.par_chunks_mut(DIRECT_TASK * k))
        .enumerate()
        .for_each(|(task, (dist, index))| {
            let mut x = vec![0.0; if dense_query { d } else { 0 }];
            for r in 0..dist.len() / k {
                let q = task * DIRECT_TASK + r;
                let xv = queries.row(q);
                if dense_query {
                    xv.to_dense_into(&mut x);
                }
                let sq_x = q_sq[q];
                let screen = Screen::new(kind, d, sq_x, max_sq_z);
                let mut sel = KBest::new(k);
                let mut limit = screen.limit(sel.bound());
                for z in 0..n {
                    let zv = train.row(z);
                    let sq_z = space.sq_norms[z];
                    let dot = if dense_query {
                        zv.dot_dense(&x)
                    } else {
                        zv.dot(&xv)
                    };
                    let approx = match kind {
                        Kind::Cosine => crate::metric::cosine(dot, sq_x, sq_z),
                        _ => sq_x + sq_z - 2.0 * dot,
                    };
                    if approx <= limit {
                        sel.push(kind.rank(xv, zv, sq_x, sq_z, d), z);
                        limit = screen.limit(sel.bound());
                    }
                }
                sel.write_sorted(
                    &mut dist[r * k..(r + 1) * k],
                    &mut index[r * k..(r + 1) * k],
                    |v| kind.finish(v),
                );
            }
        });
}

fn direct_search<Q: Records + ?Sized>(space: &Space<'_>, queries: &Q, out: Out<'_>) {
    let (train, kind, k) = (space.records, space.kind, out.k);
    let (n, d) = (train.n_samples(), train.n_features());
    out.dist
        .par_chunks_mut(DIRECT_TASK * k)
        .zip(out.index.par_chunks_mut(DIRECT_TASK * k))
        .enumerate()
        .for_each(|(task, (dist, index))| {
            for r in 0..dist.len() / k {
                let x = queries.row(task * DIRECT_TASK + r);
                let mut sel = KBest::new(k);
                for z in 0..n {
                    sel.push(kind.rank(x, train.row(z), 0.0, 0.0, d), z);
                }
                sel.write_sorted(
                    &mut dist[r * k..(r + 1) * k],
                    &mut index[r * k..(r + 1) * k],
                    |v| kind.finish(v),
                );
            }
        });
}
