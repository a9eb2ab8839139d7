//! The faer factorizations the regressors share, called in place with explicit parallelism so
//! that no `n × d` or `n × n` matrix is copied more than the problem needs.
//!
//! Every routine here returns the same bits whatever the number of threads: the matrix
//! products and the Cholesky factorization run on faer's parallel kernels, whose results do not
//! depend on the thread count (checked by tests); the QR is parallel over row blocks of a size
//! fixed by the shape; the SVD, the eigendecomposition and the triangular solves, whose
//! parallel versions in faer round differently with the thread count, run sequentially.

use margin_core::faer::diag::Diag;
use margin_core::faer::dyn_stack::{MemBuffer, MemStack};
use margin_core::faer::linalg::cholesky::llt;
use margin_core::faer::linalg::evd::{self, ComputeEigenvectors};
use margin_core::faer::linalg::matmul::matmul;
use margin_core::faer::linalg::svd::{self, ComputeSvdVectors};
use margin_core::faer::{Accum, Conj, Mat, MatMut, MatRef, Par};
use margin_core::{Error, Result, orthogonal};

use rayon::prelude::*;

use super::design::{Design, rcond};

/// Factors the symmetric positive definite matrix whose lower triangle is in `a` (overwritten
/// by the Cholesky factor `L`) and solves `a x = b` in place. Returns `false`, leaving `a` and
/// `b` unusable, when `a` is not numerically positive definite.
pub(crate) fn cholesky_solve_in_place(
    mut a: MatMut<'_, f64>,
    b: MatMut<'_, f64>,
    par: Par,
) -> bool {
    let n = a.nrows();
    let mut mem = MemBuffer::new(llt::factor::cholesky_in_place_scratch::<f64>(
        n,
        par,
        Default::default(),
    ));
    let factored = llt::factor::cholesky_in_place(
        a.as_mut(),
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    );
    if factored.is_err() {
        return false;
    }
    // The two triangular solves cost O(n²) against the factorization's O(n³), and faer's
    // parallel ones round differently with the thread count: they run sequentially.
    let mut mem = MemBuffer::new(llt::solve::solve_in_place_scratch::<f64>(
        n,
        b.ncols(),
        Par::Seq,
    ));
    llt::solve::solve_in_place_with_conj(
        a.as_ref(),
        Conj::No,
        b,
        Par::Seq,
        MemStack::new(&mut mem),
    );
    true
}

/// Row blocks of the tall-skinny QR for `n × m`: at least 16 times the width (so the final QR
/// of the stacked triangles costs a small fraction of the blocks' QRs) and 8192 rows (enough
/// for the blocked Householder kernels to run at speed).
fn block_count(n: usize, m: usize) -> usize {
    (n / (16 * m).max(8192)).max(1)
}

/// The `m × m` upper-triangular factor `R` of `A = QR` for a tall `A`, overwriting `A`:
/// [`orthogonal::tsqr`] over [`block_count`] blocks, the same bits on any thread count.
pub(crate) fn tsqr(a: MatMut<'_, f64>) -> Mat<f64> {
    let count = block_count(a.nrows(), a.ncols());
    orthogonal::tsqr(a, count)
}

/// `AᵀA` for a tall `A`, summed over the same row blocks as [`tsqr`]: each block's product runs
/// sequentially and the sums are taken in block order, so the result does not depend on the
/// thread count. (faer's parallel product is also slow for this shape: with a small `m × m`
/// output and a long inner dimension, two threads took several times longer than one.)
pub(crate) fn blocked_gram(a: MatRef<'_, f64>) -> Mat<f64> {
    let (n, m) = (a.nrows(), a.ncols());
    let partial: Vec<Mat<f64>> = orthogonal::row_blocks(n, block_count(n, m))
        .into_par_iter()
        .map(|(start, len)| {
            let block = a.subrows(start, len);
            let mut g = Mat::<f64>::zeros(m, m);
            matmul(
                g.as_mut(),
                Accum::Replace,
                block.transpose(),
                block,
                1.0,
                Par::Seq,
            );
            g
        })
        .collect();
    let mut total = Mat::<f64>::zeros(m, m);
    for g in &partial {
        total += g;
    }
    total
}

/// `X = U diag(s) Vᵀ` restricted to what least squares and ridge need: the singular values
/// (non-increasing), `V`, the coordinates `Uᵀy` of the targets, and the part of `‖y‖²` outside
/// the span of `U`.
pub(crate) struct Spectral {
    pub s: Vec<f64>,
    v: Mat<f64>,
    pub uty: Vec<f64>,
    pub rss_outside: f64,
    n: usize,
}

impl Spectral {
    /// The spectral form of the design's least-squares problem. For `n > d` this is the SVD
    /// of the `d × d` factor `R` of `[X | y] = QR` (the QR destroys `design.xy`): `X` and `R`
    /// share singular values and `V`, `Uᵀy = U_Rᵀ (Qᵀy)`, and the residual outside the span is
    /// the last diagonal entry of the augmented `R`, squared. Otherwise, the SVD of `X` itself.
    pub(crate) fn of(design: &mut Design) -> Result<Self> {
        let (n, d) = (design.n(), design.d());
        if n > d {
            return Self::from_r(&tsqr(design.xy.as_mut()), n);
        }
        let svd = thin_svd(design.x())?;
        let mut uty = Mat::<f64>::zeros(svd.u.ncols(), 1);
        matmul(
            uty.as_mut(),
            Accum::Replace,
            svd.u.transpose(),
            design.y(),
            1.0,
            Par::Seq,
        );
        let mut r = design.y().to_owned();
        matmul(
            r.as_mut(),
            Accum::Add,
            svd.u.as_ref(),
            uty.as_ref(),
            -1.0,
            Par::Seq,
        );
        Ok(Self {
            s: svd.s,
            v: svd.v,
            uty: (0..uty.nrows()).map(|i| uty[(i, 0)]).collect(),
            rss_outside: r.col(0).squared_norm_l2(),
            n,
        })
    }

    /// From the `(d + 1) × (d + 1)` factor `R` of `[X | y]`, for `n` samples.
    pub(crate) fn from_r(r_aug: &Mat<f64>, n: usize) -> Result<Self> {
        let d = r_aug.ncols() - 1;
        let svd = thin_svd(r_aug.as_ref().get(..d, ..d))?;
        let uty = (0..d)
            .map(|k| (0..d).map(|i| svd.u[(i, k)] * r_aug[(i, d)]).sum())
            .collect();
        Ok(Self {
            s: svd.s,
            v: svd.v,
            uty,
            rss_outside: r_aug[(d, d)] * r_aug[(d, d)],
            n,
        })
    }

    /// Number of features.
    pub(crate) fn d(&self) -> usize {
        self.v.nrows()
    }

    /// Singular values above numpy's `lstsq` cut-off, `ε · max(n, d) · s_max`.
    pub(crate) fn rank(&self) -> usize {
        let cut = rcond(self.n, self.d()) * self.s.first().copied().unwrap_or(0.0);
        self.s.iter().take_while(|&&s| s > cut).count()
    }

    /// `V diag(f) Uᵀy` over the first `f.len()` singular triplets: every spectral-filter
    /// solution (least squares `f = 1/s`, ridge `f = s/(s² + α)`).
    pub(crate) fn solve(&self, filter: &[f64]) -> Vec<f64> {
        let d = self.d();
        (0..d)
            .map(|i| {
                filter
                    .iter()
                    .enumerate()
                    .map(|(k, f)| self.v[(i, k)] * f * self.uty[k])
                    .sum()
            })
            .collect()
    }

    /// `V diag(1/s²) Vᵀ` = `(XᵀX)⁻¹`, for a full-rank `X`.
    pub(crate) fn inverse_gram(&self) -> Mat<f64> {
        let d = self.d();
        let scaled = Mat::<f64>::from_fn(d, d, |i, k| self.v[(i, k)] / self.s[k]);
        let mut out = Mat::<f64>::zeros(d, d);
        matmul(
            out.as_mut(),
            Accum::Replace,
            scaled.as_ref(),
            scaled.transpose(),
            1.0,
            Par::Seq,
        );
        out
    }
}

struct ThinSvd {
    s: Vec<f64>,
    u: Mat<f64>,
    v: Mat<f64>,
}

/// A thin SVD, computed sequentially: faer's parallel SVD rounds differently with the thread
/// count, and the matrices reaching here are small (`d × d`) or short (`n ≤ d`).
fn thin_svd(x: MatRef<'_, f64>) -> Result<ThinSvd> {
    let (n, d) = (x.nrows(), x.ncols());
    let k = n.min(d);
    let mut s = Diag::<f64>::zeros(k);
    let mut u = Mat::<f64>::zeros(n, k);
    let mut v = Mat::<f64>::zeros(d, k);
    let mut mem = MemBuffer::new(svd::svd_scratch::<f64>(
        n,
        d,
        ComputeSvdVectors::Thin,
        ComputeSvdVectors::Thin,
        Par::Seq,
        Default::default(),
    ));
    svd::svd(
        x,
        s.as_mut(),
        Some(u.as_mut()),
        Some(v.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| Error::Numerical(format!("the SVD did not converge: {e:?}")))?;
    Ok(ThinSvd {
        s: s.column_vector().iter().copied().collect(),
        u,
        v,
    })
}

/// The minimum-norm solution of the symmetric system `a x = b` through an eigendecomposition,
/// eigenvalues below `ε · n · max|λ|` in magnitude treated as zero: what a least-squares solver
/// gives when `a` is singular or indefinite.
pub(crate) fn symmetric_pinv_solve(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Result<Mat<f64>> {
    let n = a.nrows();
    let mut lambda = Diag::<f64>::zeros(n);
    let mut u = Mat::<f64>::zeros(n, n);
    // Sequential, as the SVD above: a fallback path, whose answer must not depend on threads.
    let mut mem = MemBuffer::new(evd::self_adjoint_evd_scratch::<f64>(
        n,
        ComputeEigenvectors::Yes,
        Par::Seq,
        Default::default(),
    ));
    evd::self_adjoint_evd(
        a,
        lambda.as_mut(),
        Some(u.as_mut()),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|e| Error::Numerical(format!("the eigendecomposition did not converge: {e:?}")))?;
    let lambda = lambda.column_vector();
    let largest = lambda.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    let cut = rcond(n, n) * largest;
    let mut utb = Mat::<f64>::zeros(n, b.ncols());
    matmul(
        utb.as_mut(),
        Accum::Replace,
        u.transpose(),
        b,
        1.0,
        Par::Seq,
    );
    for i in 0..n {
        let scale = if lambda[i].abs() > cut {
            1.0 / lambda[i]
        } else {
            0.0
        };
        for j in 0..b.ncols() {
            utb[(i, j)] *= scale;
        }
    }
    let mut out = Mat::<f64>::zeros(n, b.ncols());
    matmul(
        out.as_mut(),
        Accum::Replace,
        u.as_ref(),
        utb.as_ref(),
        1.0,
        Par::Seq,
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_qr_gives_the_triangle_of_the_whole_matrix() {
        // 3 blocks of 8192 rows (the last with the remainder) and the stacked pass.
        let (n, m) = (27_000, 4);
        let mut s = 5u64;
        let a = Mat::<f64>::from_fn(n, m, |_, _| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        });
        let r = tsqr(a.clone().as_mut());
        // RᵀR = AᵀA, and R is upper triangular.
        let mut ata = Mat::<f64>::zeros(m, m);
        matmul(
            ata.as_mut(),
            Accum::Replace,
            a.transpose(),
            a.as_ref(),
            1.0,
            Par::Seq,
        );
        let mut rtr = Mat::<f64>::zeros(m, m);
        matmul(
            rtr.as_mut(),
            Accum::Replace,
            r.transpose(),
            r.as_ref(),
            1.0,
            Par::Seq,
        );
        for i in 0..m {
            for j in 0..m {
                assert!((ata[(i, j)] - rtr[(i, j)]).abs() < 1e-10 * ata[(i, i)]);
                if i > j {
                    assert_eq!(r[(i, j)], 0.0);
                }
            }
        }
    }
}
