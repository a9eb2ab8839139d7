//! LIBSVM's rounding for the kernel columns SMO reads, so that a training follows LIBSVM's to
//! the last bit on any data, extreme feature scales included.
//!
//! LIBSVM's training kernel (`Kernel::kernel_*` in svm.cpp) sums each dot product and each
//! squared norm term by term in feature order, writes the RBF exponent as
//! `−γ (‖x_i‖² + ‖x_j‖² − 2 x_i·x_j)` (nothing clamps it at 0: where the norms dwarf the
//! distance, cancellation can make it positive), takes libm's `exp`, and rounds the value to
//! `float` in its cache. With features near 10⁵ the norms are near 10¹¹ and a different
//! summation order moves the exponent by 10⁻⁵, far more than a `float` ulp: the columns, and
//! with them ρ and the coefficients, then differ. Prediction (`k_function`) sums squared
//! differences instead; that is `RowView::sq_dist`, which the LIBSVM-exact decision values use.

use margin_core::{Records, RowView};

use crate::kernel::DotForm;
use crate::simd::exp_into_f32_as_libm;

/// `x · w` summed term by term in increasing feature order, each product rounded before it is
/// added: LIBSVM's `dot`.
#[inline]
pub(crate) fn sequential_dot_dense(x: RowView<'_>, w: &[f64]) -> f64 {
    let mut s = 0.0;
    match x {
        RowView::Dense(x) => x.iter().zip(w).for_each(|(a, b)| s += a * b),
        RowView::Sparse(r) => r
            .indices
            .iter()
            .zip(r.values)
            .for_each(|(&j, v)| s += v * w[j as usize]),
    }
    s
}

/// `dots.push(rows[s] · w)` for each `s` of `order`, each sum as [`sequential_dot_dense`]
/// forms it. A single running sum waits on the latency of every addition; four rows are
/// summed side by side so that their chains overlap, each still in its own feature order.
pub(crate) fn sequential_dots<Q: Records + ?Sized>(
    rows: &Q,
    order: &[usize],
    w: &[f64],
    dots: &mut Vec<f64>,
) {
    let mut groups = order.chunks_exact(4);
    for g in &mut groups {
        let four = [
            rows.row(g[0]),
            rows.row(g[1]),
            rows.row(g[2]),
            rows.row(g[3]),
        ];
        dots.extend(sequential_dots4(four, w));
    }
    dots.extend(
        groups
            .remainder()
            .iter()
            .map(|&s| sequential_dot_dense(rows.row(s), w)),
    );
}

/// Four rows' [`sequential_dot_dense`], interleaved over the terms all four have.
#[inline]
fn sequential_dots4(rows: [RowView<'_>; 4], w: &[f64]) -> [f64; 4] {
    let mut s = [0.0; 4];
    match rows {
        [
            RowView::Dense(a),
            RowView::Dense(b),
            RowView::Dense(c),
            RowView::Dense(d),
        ] => {
            let r = [a, b, c, d];
            for (k, &wk) in w.iter().enumerate().take(a.len()) {
                for (s, r) in s.iter_mut().zip(&r) {
                    *s += r[k] * wk;
                }
            }
        }
        [
            RowView::Sparse(a),
            RowView::Sparse(b),
            RowView::Sparse(c),
            RowView::Sparse(d),
        ] => {
            let r = [a, b, c, d];
            let common = r.iter().map(|r| r.values.len()).min().unwrap_or(0);
            // Cut to the common length first, so that the loop indexes without bounds checks.
            let v = r.map(|r| &r.values[..common]);
            let j = r.map(|r| &r.indices[..common]);
            for k in 0..common {
                s[0] += v[0][k] * w[j[0][k] as usize];
                s[1] += v[1][k] * w[j[1][k] as usize];
                s[2] += v[2][k] * w[j[2][k] as usize];
                s[3] += v[3][k] * w[j[3][k] as usize];
            }
            for (s, r) in s.iter_mut().zip(&r) {
                for (&j, v) in r.indices[common..].iter().zip(&r.values[common..]) {
                    *s += v * w[j as usize];
                }
            }
        }
        mixed => s = mixed.map(|r| sequential_dot_dense(r, w)),
    }
    s
}

/// `‖x‖²` as LIBSVM's `x_square` (its `dot(x, x)`, term by term in feature order).
pub(crate) fn sequential_sq_norm(x: RowView<'_>) -> f64 {
    let values = match x {
        RowView::Dense(x) => x,
        RowView::Sparse(r) => r.values,
    };
    values.iter().fold(0.0, |s, v| s + v * v)
}

/// `out[t] = f(dots[t], sq_x, sq_z[t])` rounded to `f32` as LIBSVM's cache rounds it; `dots`
/// is used as scratch.
pub(crate) fn form_into_f32(
    form: &DotForm,
    dots: &mut [f64],
    sq_x: f64,
    sq_z: &[f64],
    out: &mut [f32],
) {
    debug_assert_eq!(dots.len(), out.len());
    match form {
        DotForm::Rbf { gamma } => {
            for (v, &sz) in dots.iter_mut().zip(sq_z) {
                let a = -gamma * (sq_x + sz - 2.0 * *v);
                // NaN only where the norms overflow (features beyond 1e154): LIBSVM would
                // cache NaN; the value stays 1, as before, so that training stays finite.
                *v = if a.is_nan() { 0.0 } else { a };
            }
            exp_into_f32_as_libm(dots, out);
        }
        DotForm::Linear => {
            for (o, &v) in out.iter_mut().zip(dots.iter()) {
                *o = v as f32;
            }
        }
        _ => {
            for ((o, &v), &sz) in out.iter_mut().zip(dots.iter()).zip(sq_z) {
                *o = form.apply(v, sq_x, sz) as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::SparseRow;

    #[test]
    fn dots_and_norms_are_summed_term_by_term_in_feature_order() {
        // Four-way partial sums round differently here: (a + b) + (c + d) ≠ ((a + b) + c) + d.
        let x = [
            0.999661908292038,
            250002.71018682403,
            599771.6040641716,
            599529.7431671598,
            0.9990627555243506,
            300282.8571948764,
            250055.23356148368,
        ];
        let w = [6e5 + 0.5, 2e-7, 3.0e5, 2.5e5 + 0.25, -1.0, 7.7e4, 0.7];
        let mut want = 0.0;
        for (a, b) in x.iter().zip(&w) {
            want += a * b;
        }
        assert_eq!(sequential_dot_dense(RowView::Dense(&x), &w), want);
        let mut sq = 0.0;
        for a in &x {
            sq += a * a;
        }
        assert_eq!(sequential_sq_norm(RowView::Dense(&x)), sq);
        assert_ne!(
            margin_core::dot(&x, &x),
            sq,
            "the data must tell the orders apart"
        );
        let idx = [0u32, 2, 3, 5];
        let vals = [x[0], x[2], x[3], x[5]];
        let row = RowView::Sparse(SparseRow {
            indices: &idx,
            values: &vals,
        });
        let mut want = 0.0;
        for (&j, v) in idx.iter().zip(&vals) {
            want += v * w[j as usize];
        }
        assert_eq!(sequential_dot_dense(row, &w), want);
        assert_eq!(
            sequential_sq_norm(row),
            vals.iter().fold(0.0, |s, v| s + v * v)
        );
    }

    #[test]
    fn rows_summed_four_at_a_time_are_each_summed_in_feature_order() {
        use margin_core::DenseMatrix;
        // Rows of 0 to 9 stored entries at scales where the order of the additions shows.
        let rows: Vec<Vec<f64>> = (0..23)
            .map(|i| {
                (0..9)
                    .map(|j| {
                        if (i * 7 + j * 3) % 5 < i % 4 {
                            0.0
                        } else {
                            [6e5, 1e-7, 250.0, -3e5, 0.75][(i + j) % 5] * (1.0 + 1e-6 * i as f64)
                        }
                    })
                    .collect()
            })
            .collect();
        let w: Vec<f64> = (0..9)
            .map(|j| [1e5, -2.5, 3e-4][j % 3] + j as f64)
            .collect();
        let dense = DenseMatrix::from_rows(&rows).unwrap();
        let sparse = dense.to_sparse();
        let order: Vec<usize> = (0..23).rev().chain([4, 4, 9]).collect();
        for records in [&dense as &dyn Records, &sparse] {
            for len in [0, 3, 4, 7, order.len()] {
                let mut dots = Vec::new();
                sequential_dots(records, &order[..len], &w, &mut dots);
                let want: Vec<u64> = order[..len]
                    .iter()
                    .map(|&s| sequential_dot_dense(records.row(s), &w).to_bits())
                    .collect();
                assert_eq!(dots.iter().map(|d| d.to_bits()).collect::<Vec<_>>(), want);
            }
        }
    }

    #[test]
    fn rbf_values_are_libsvm_s_expression_rounded_to_f32_unclamped() {
        let gamma: f64 = 0.2;
        // Norms of 3.6e11: the exponent cancels to a few 1e-5, of either sign.
        let sq_x = 3.600_000_000_12e11;
        let sq_z = [3.600_000_000_13e11, 3.599_999_999_9e11, sq_x];
        let mut dots = [3.600_000_000_125e11, 3.600_000_000_1e11, sq_x];
        let want: Vec<f32> = dots
            .iter()
            .zip(&sq_z)
            .map(|(&d, &sz)| (-gamma * (sq_x + sz - 2.0 * d)).exp() as f32)
            .collect();
        assert!(
            want.iter().any(|&v| v > 1.0),
            "a positive exponent: {want:?}"
        );
        let mut out = [0.0f32; 3];
        form_into_f32(&DotForm::Rbf { gamma }, &mut dots, sq_x, &sq_z, &mut out);
        assert_eq!(
            out.map(f32::to_bits),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()[..]
        );
    }
}
