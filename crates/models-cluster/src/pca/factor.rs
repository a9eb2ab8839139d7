//! The three factorizations behind PCA, all through faer: the thin SVD of the centred data,
//! the eigendecomposition of its covariance, and Halko et al.'s randomized range finder.
//!
//! Each returns the singular values of the centred data in non-increasing order and the matching
//! right singular vectors as the columns of `V`, signs not yet fixed.
//!
//! Same bits on any thread count: faer's parallel QR and SVD round differently with the number
//! of threads, so the parallel work here is split by rows into blocks that depend on the shape
//! alone. Each block is processed sequentially, and block results are combined in block order
//! (tall-skinny QR for the SVD; sums of per-block products for `xᵀx` and `xᵀq`; stacked
//! per-block products for `x·z`). Only the small square factors are decomposed sequentially.
//! (For these thin products the blocked form is also faster than faer's parallel GEMM: about
//! half the time of the randomized solver on 20,000 × 500.)

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::matmul::matmul;
use faer::linalg::svd::{self, ComputeSvdVectors};
use faer::{Accum, Mat, MatMut, MatRef, Par};
use margin_core::generate::fill_standard_normal;
use margin_core::orthogonal::{self, orthonormal, split_rows_mut};
use margin_core::{Error, Result, split::rng_from_seed};
use rayon::prelude::*;

/// Singular values (non-increasing) and right singular vectors (`d × m` columns).
pub(crate) struct Spectrum {
    pub(crate) s: Vec<f64>,
    pub(crate) v: Mat<f64>,
}

/// Row blocks for `n` rows of width `width`: at least `max(8 · width, 4096)` rows each (so a
/// block's QR runs at speed and the stacked triangles stay small), at most 8 blocks (so
/// per-block `d × d` partial sums stay bounded).
fn block_count(n: usize, width: usize) -> usize {
    (n / (8 * width).max(4096)).clamp(1, 8)
}

/// [`block_count`] blocks of `n` rows, as `(start, length)`.
fn row_blocks(n: usize, width: usize) -> Vec<(usize, usize)> {
    orthogonal::row_blocks(n, block_count(n, width))
}

/// The `R` of `x = QR` (`d × d`; rows past the `n`-th zero) for `x` (overwritten), by
/// tall-skinny QR over [`row_blocks`]: also what PCA's statistics keep of a batch.
pub(crate) fn tsqr(x: MatMut<'_, f64>) -> Mat<f64> {
    let count = block_count(x.nrows(), x.ncols());
    orthogonal::tsqr(x, count)
}

/// Sequential SVD, right vectors only.
fn svd_seq(a: MatRef<'_, f64>) -> Result<Spectrum> {
    let (n, d) = (a.nrows(), a.ncols());
    let m = n.min(d);
    let mut s = Diag::<f64>::zeros(m);
    let mut v = Mat::<f64>::zeros(d, m);
    let mut mem = MemBuffer::new(svd::svd_scratch::<f64>(
        n,
        d,
        ComputeSvdVectors::No,
        ComputeSvdVectors::Thin,
        Par::Seq,
        Default::default(),
    ));
    svd::svd(
        a,
        s.as_mut(),
        None,
        Some(v.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| Error::Numerical(format!("the SVD did not converge: {e:?}")))?;
    Ok(Spectrum {
        s: s.column_vector().iter().copied().collect(),
        v,
    })
}

/// The spectrum of data whose triangle (from statistics) is `r`: its right vectors and
/// singular values are the data's.
pub(crate) fn svd_of_triangle(r: MatRef<'_, f64>) -> Result<Spectrum> {
    svd_seq(r)
}

/// Thin SVD of `x` (`n × d`, overwritten), right vectors only: for tall `x = QR`, `x`'s right
/// vectors and singular values are `R`'s; a wide `x` is decomposed directly.
pub(crate) fn thin_svd(x: MatMut<'_, f64>) -> Result<Spectrum> {
    if x.nrows() >= x.ncols() {
        svd_seq(tsqr(x).as_ref())
    } else {
        svd_seq(x.as_ref())
    }
}

/// `aᵀb` for `a` (`n × p`) and `b` (`n × q`) sharing their rows: one sequential product per
/// [`row_blocks`] block, summed in block order. (faer's parallel product of this shape, a small
/// output with a long inner dimension, is slow on two threads and thread-dependent.)
fn at_b(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let (p, q) = (a.ncols(), b.ncols());
    let partial: Vec<Mat<f64>> = row_blocks(a.nrows(), p.max(q))
        .into_par_iter()
        .map(|(start, len)| {
            let mut out = Mat::<f64>::zeros(p, q);
            matmul(
                out.as_mut(),
                Accum::Replace,
                a.subrows(start, len).transpose(),
                b.subrows(start, len),
                1.0,
                Par::Seq,
            );
            out
        })
        .collect();
    let mut total = Mat::<f64>::zeros(p, q);
    for m in &partial {
        total += m;
    }
    total
}

/// Eigendecomposition of `xᵀx` (the `d × d` symmetric eigensolver of faer, sequential): the
/// singular values of `x` are the square roots of its eigenvalues (negative round-off clipped
/// to 0). Far fewer flops than the SVD for tall data, at the cost of the small singular values'
/// relative accuracy.
pub(crate) fn gram_eigh(x: MatRef<'_, f64>) -> Result<Spectrum> {
    let d = x.ncols();
    let g = at_b(x, x);
    let mut lambda = Diag::<f64>::zeros(d);
    let mut u = Mat::<f64>::zeros(d, d);
    let mut mem = MemBuffer::new(evd::self_adjoint_evd_scratch::<f64>(
        d,
        ComputeEigenvectors::Yes,
        Par::Seq,
        Default::default(),
    ));
    evd::self_adjoint_evd(
        g.as_ref(),
        lambda.as_mut(),
        Some(u.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| Error::Numerical(format!("the eigendecomposition did not converge: {e:?}")))?;
    // faer sorts eigenvalues increasingly; PCA wants them decreasing.
    let s = (0..d)
        .rev()
        .map(|j| lambda.column_vector()[j].max(0.0).sqrt())
        .collect();
    let v = Mat::from_fn(d, d, |i, j| u[(i, d - 1 - j)]);
    Ok(Spectrum { s, v })
}

/// `a · b` for a tall `a`: one sequential product per [`row_blocks`] block of `a`'s rows, the
/// blocks in parallel (faer's own parallel product is slower for this thin shape).
fn tall_product(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut out = Mat::<f64>::zeros(a.nrows(), b.ncols());
    let blocks = row_blocks(a.nrows(), a.ncols());
    let parts = split_rows_mut(out.as_mut(), &blocks);
    parts
        .into_par_iter()
        .zip(blocks)
        .for_each(|(dst, (start, len))| {
            matmul(dst, Accum::Replace, a.subrows(start, len), b, 1.0, Par::Seq);
        });
    out
}

/// The leading `keep` singular values and right vectors of `x` by Halko, Martinsson & Tropp
/// (2011), algorithm 4.4: a Gaussian test matrix of `keep + oversamples` columns, `power_iter`
/// subspace iterations re-orthonormalized by QR after every product, then the exact SVD of the
/// small projected matrix `qᵀx`.
pub(crate) fn randomized_svd(
    x: MatRef<'_, f64>,
    keep: usize,
    oversamples: usize,
    power_iter: usize,
    seed: u64,
) -> Result<Spectrum> {
    let (n, d) = (x.nrows(), x.ncols());
    let l = (keep + oversamples).min(n.min(d));
    let mut g = vec![0.0; d * l];
    fill_standard_normal(&mut rng_from_seed(seed), &mut g);
    let omega = Mat::from_fn(d, l, |i, j| g[i * l + j]);
    let mut q = orthonormal(tall_product(x, omega.as_ref()));
    for _ in 0..power_iter {
        let z = orthonormal(at_b(x, q.as_ref()));
        q = orthonormal(tall_product(x, z.as_ref()));
    }
    let bt = at_b(x, q.as_ref());
    let mut small = svd_seq(bt.transpose())?;
    small.s.truncate(keep);
    let v = small.v.as_ref().subcols(0, keep).to_owned();
    Ok(Spectrum { s: small.s, v })
}

/// Fixes each singular vector's sign so that its largest-magnitude entry (the first, on ties) is
/// positive: scikit-learn's `svd_flip(u_based_decision=False)`, used by its PCA since 1.5.
pub(crate) fn flip_signs(v: &mut Mat<f64>) {
    for j in 0..v.ncols() {
        let mut at = 0;
        for i in 1..v.nrows() {
            if v[(i, j)].abs() > v[(at, j)].abs() {
                at = i;
            }
        }
        if v[(at, j)] < 0.0 {
            for i in 0..v.nrows() {
                v[(i, j)] = -v[(i, j)];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_blocks_cover_the_rows() {
        for (n, w) in [
            (10, 3),
            (4096, 1),
            (100_000, 50),
            (20_000, 500),
            (1_000_000, 10),
        ] {
            let b = row_blocks(n, w);
            assert!(!b.is_empty() && b.len() <= 8);
            let mut next = 0;
            for &(s, l) in &b {
                assert_eq!(s, next);
                next = s + l;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn tsqr_gives_the_singular_values_of_a_many_block_matrix() {
        let (n, d) = (9000, 3);
        let mut x = Mat::from_fn(n, d, |i, j| ((i * (j + 2)) % 17) as f64 - 8.0 + j as f64);
        let reference = x.singular_values().unwrap();
        assert!(row_blocks(n, d).len() > 1);
        let s = thin_svd(x.as_mut()).unwrap().s;
        for (a, b) in s.iter().zip(&reference) {
            assert!((a - b).abs() <= 1e-10 * b, "{a} vs {b}");
        }
    }
}
