//! Householder QR, sequential, and the tall-skinny QR built on it: the same bits on any thread
//! count (faer's parallel QR rounds differently with the number of threads). PCA's randomized
//! solver and the low-rank data generator
//! ([`generate::Regression`](crate::generate::Regression)'s `effective_rank`) build their
//! orthonormal bases here; least squares and PCA factor tall data with [`tsqr`].

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::householder;
use faer::linalg::qr::no_pivoting::factor as qr_factor;
use faer::{Conj, Mat, MatMut, Par};
use rayon::prelude::*;

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

/// `count` consecutive row blocks covering rows `0..n`, as `(start, length)`, their sizes
/// differing by at most one row. The blocked routines split by this rule, which depends on the
/// shape alone, so their results are the same bits whatever the thread count.
pub fn row_blocks(n: usize, count: usize) -> Vec<(usize, usize)> {
    let count = count.max(1);
    (0..count)
        .map(|b| {
            let start = b * n / count;
            (start, (b + 1) * n / count - start)
        })
        .collect()
}

/// `a` cut into the row blocks `blocks` (consecutive, from row 0, as [`row_blocks`] gives),
/// each one mutable on its own (to be filled or factored in parallel).
pub fn split_rows_mut<'a>(a: MatMut<'a, f64>, blocks: &[(usize, usize)]) -> Vec<MatMut<'a, f64>> {
    let mut parts = Vec::with_capacity(blocks.len());
    let mut rest = a;
    for &(_, len) in blocks.iter().take(blocks.len().saturating_sub(1)) {
        let (top, bottom) = rest.split_at_row_mut(len);
        parts.push(top);
        rest = bottom;
    }
    parts.push(rest);
    parts
}

/// The `m × m` upper-triangular `R` of `a = QR` for `a` (`n × m`, overwritten; rows of `R` past
/// the `n`-th are zero), by tall-skinny QR: the `count` [`row_blocks`] are each factored
/// sequentially, the blocks in parallel, and their stacked triangles are factored once more.
/// The same arithmetic runs on any number of threads, so the result is the same bits on one
/// thread or many, which faer's parallel QR does not promise.
pub fn tsqr(a: MatMut<'_, f64>, count: usize) -> Mat<f64> {
    let m = a.ncols();
    let blocks = row_blocks(a.nrows(), count);
    let mut triangles: Vec<Mat<f64>> = split_rows_mut(a, &blocks)
        .into_par_iter()
        .map(triangle)
        .collect();
    if triangles.len() == 1 {
        return triangles.swap_remove(0);
    }
    let mut stacked = Mat::<f64>::zeros(m * triangles.len(), m);
    for (k, t) in triangles.iter().enumerate() {
        stacked.as_mut().subrows_mut(k * m, m).copy_from(t);
    }
    triangle(stacked.as_mut())
}

/// Householder QR of `a` (`n × m`) in place, sequentially, and a copy of its `m × m` triangle:
/// below the diagonal `a` holds Householder vectors, not zeros, and rows past the `n`-th are
/// zero.
fn triangle(mut a: MatMut<'_, f64>) -> Mat<f64> {
    let (n, m) = (a.nrows(), a.ncols());
    qr_in_place(a.as_mut());
    Mat::from_fn(m, m, |i, j| if i <= j && i < n { a[(i, j)] } else { 0.0 })
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

    #[test]
    fn tsqr_in_blocks_gives_the_triangle_of_one_qr() {
        let a = Mat::from_fn(50, 4, |i, j| {
            ((i * 7 + j * 13) % 11) as f64 - 5.0 + (i == j) as u8 as f64
        });
        let one = tsqr(a.clone().as_mut(), 1);
        for count in [2, 3, 7] {
            let blocked = tsqr(a.clone().as_mut(), count);
            // R is unique up to the signs of its rows: compare RᵀR, and |R|.
            let (g1, g2) = (one.transpose() * &one, blocked.transpose() * &blocked);
            for i in 0..4 {
                for j in 0..4 {
                    assert!((g1[(i, j)] - g2[(i, j)]).abs() <= 1e-10 * (1.0 + g1[(i, j)].abs()));
                    assert!((one[(i, j)].abs() - blocked[(i, j)].abs()).abs() <= 1e-10);
                    assert!(i <= j || blocked[(i, j)] == 0.0);
                }
            }
        }
        // A wide matrix: rows of R past the n-th are zero.
        let wide = tsqr(Mat::from_fn(2, 4, |i, j| (i + j) as f64 + 1.0).as_mut(), 1);
        assert_eq!((wide.nrows(), wide.ncols()), (4, 4));
        assert!((2..4).all(|i| (0..4).all(|j| wide[(i, j)] == 0.0)));
    }

    #[test]
    fn row_blocks_cover_the_rows_in_order() {
        for (n, count) in [(10, 3), (7, 7), (100, 1), (5, 0)] {
            let blocks = row_blocks(n, count);
            assert_eq!(blocks.len(), count.max(1));
            let mut next = 0;
            for &(start, len) in &blocks {
                assert_eq!(start, next);
                next = start + len;
            }
            assert_eq!(next, n);
        }
    }
}
