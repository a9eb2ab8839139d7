//! Householder QR, sequential: the same bits on any thread count (faer's parallel QR rounds
//! differently with the number of threads). PCA's randomized solver and the low-rank data
//! generator ([`generate::Regression`](crate::generate::Regression)'s `effective_rank`) build
//! their orthonormal bases here.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::householder;
use faer::linalg::qr::no_pivoting::factor as qr_factor;
use faer::{Conj, Mat, MatMut, Par};

/// Householder QR of `a` in place, sequentially: `R` is left in `a`'s upper triangle, and the
/// block Householder factors are returned (what [`orthonormal`] applies to form `Q`).
pub fn qr_in_place(mut a: MatMut<'_, f64>) -> Mat<f64> {
    let (n, m) = (a.nrows(), a.ncols());
    let block = qr_factor::recommended_block_size::<f64>(n, m);
    let mut q_coeff = Mat::<f64>::zeros(block, m.min(n));
    let mut mem = MemBuffer::new(qr_factor::qr_in_place_scratch::<f64>(
        n,
        m,
        block,
        Par::Seq,
        Default::default(),
    ));
    qr_factor::qr_in_place(
        a.as_mut(),
        q_coeff.as_mut(),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    );
    q_coeff
}

/// An orthonormal basis of the column space of a tall, thin `a`: the thin `Q` (`n × min(n, m)`)
/// of its QR decomposition, computed sequentially.
pub fn orthonormal(mut a: Mat<f64>) -> Mat<f64> {
    let (n, m) = (a.nrows(), a.ncols());
    let q_coeff = qr_in_place(a.as_mut());
    let k = n.min(m);
    let mut q = Mat::<f64>::identity(n, k);
    let mut mem = MemBuffer::new(
        householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(
            n,
            q_coeff.nrows(),
            k,
        ),
    );
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        a.as_ref(),
        q_coeff.as_ref(),
        Conj::No,
        q.as_mut(),
        Par::Seq,
        MemStack::new(&mut mem),
    );
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthonormal_columns_span_the_input() {
        let a = Mat::from_fn(6, 3, |i, j| {
            ((i * 7 + j * 3) % 5) as f64 + (i == j) as u8 as f64
        });
        let q = orthonormal(a.clone());
        assert_eq!((q.nrows(), q.ncols()), (6, 3));
        let qtq = q.transpose() * &q;
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((qtq[(i, j)] - want).abs() < 1e-12);
            }
        }
        // Projecting `a` on the basis gives `a` back: same column space.
        let back = &q * (q.transpose() * &a);
        for i in 0..6 {
            for j in 0..3 {
                assert!((back[(i, j)] - a[(i, j)]).abs() < 1e-12);
            }
        }
    }
}
