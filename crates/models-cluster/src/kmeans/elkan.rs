//! Elkan's k-means (Elkan 2003): Lloyd's iteration with the triangle inequality skipping
//! distances that cannot change a row's label.
//!
//! Every row keeps an upper bound `u ≥ ‖x − c_a‖` on the distance to its centre `a` and, for
//! every centre `c`, a lower bound `l_c ≤ ‖x − c‖`. When the centres move by `δ_c`, `u` grows by
//! `δ_a` and each `l_c` shrinks by `δ_c`. A centre `c` is skipped when `u < l_c` or
//! `u < ½‖c_a − c‖`, and the whole row when `u < s(a) = ½ min_{c≠a} ‖c_a − c‖`; otherwise the
//! exact distances are computed and the bounds reset to them.
//!
//! Labels follow the assignment rule of [`super::assign`] (smallest [`sq_dist_to`], lowest
//! index on ties), so a run gives the same labels, sums, centres and iteration count as Lloyd's,
//! bit for bit. For that, a skip must be certain despite rounding: it needs the bound to win by
//! `slack = 8 ε R (t + 2)(d + t + 6)`, with `R` the largest norm of a row or centre and `t` the
//! passes so far. Every distance here is at most `2R` and carries a relative error below
//! `(d + 3) u`; a bound updated `t` times has drifted from its true value by less than
//! `2 R u (t + 1)(d + t + 5)`, and the slack covers two such bounds plus the error of the two
//! direct distances being compared, so a skipped centre is farther by [`sq_dist_to`] too.

use margin_core::{DenseMatrix, Records};
use rayon::prelude::*;

use super::assign::{Assignment, groups, reduce, sq_dist_dense, sq_dist_to};
use super::lloyd::{Run, iterate};
use margin_core::fit::Observer;

/// Elkan iterations from `centers`: the same run as [`super::lloyd::lloyd`].
pub(crate) fn elkan<R: Records + ?Sized>(
    x: &R,
    centers: DenseMatrix,
    max_iter: usize,
    tol: f64,
    observer: &mut dyn Observer,
) -> Run {
    let mut bounds = Bounds::new(x, &centers);
    iterate(x, centers, (max_iter, tol), ("elkan", observer), |c| {
        let (sums, counts) = bounds.assign(x, c);
        Assignment {
            labels: bounds.labels.clone(),
            sums,
            counts,
        }
    })
}

/// Labels and bounds of every row, carried from one pass to the next.
struct Bounds {
    labels: Vec<u32>,
    upper: Vec<f64>,
    /// `n × k`, row-major.
    lower: Vec<f64>,
    /// The centres of the previous pass (the bounds hold for them).
    previous: Option<DenseMatrix>,
    /// Largest norm of a row or of any centre seen so far.
    radius: f64,
    passes: usize,
}

fn max_norm(m: &DenseMatrix) -> f64 {
    m.rows()
        .map(|c| margin_core::dot(c, c).sqrt())
        .fold(0.0, f64::max)
}

impl Bounds {
    /// No bound known yet: every row starts on centre 0 with `u = ∞`, `l = 0`, so the first pass
    /// computes what Elkan's initial assignment does.
    fn new<R: Records + ?Sized>(x: &R, centers: &DenseMatrix) -> Self {
        let (n, k) = (x.n_samples(), centers.nrows());
        let rows = (0..n)
            .into_par_iter()
            .map(|i| x.row_sq_norm(i).sqrt())
            .reduce(|| 0.0, f64::max);
        Self {
            labels: vec![0; n],
            upper: vec![f64::INFINITY; n],
            lower: vec![0.0; n * k],
            previous: None,
            radius: rows.max(max_norm(centers)),
            passes: 0,
        }
    }

    /// Moves the bounds to `centers`, reassigns every row that they cannot settle, and returns
    /// the per-cluster sums and counts, added in the groups and order of
    /// [`super::assign::assign_and_sum`] (so the same labels give the same sums, bit for bit).
    fn assign<R: Records + ?Sized>(
        &mut self,
        x: &R,
        centers: &DenseMatrix,
    ) -> (DenseMatrix, Vec<usize>) {
        let (k, d) = (centers.nrows(), centers.ncols());
        let drift: Vec<f64> = match &self.previous {
            Some(p) => (0..k)
                .map(|j| sq_dist_dense(p.row(j), centers.row(j)).sqrt())
                .collect(),
            None => vec![0.0; k],
        };
        let mut half = vec![0.0; k * k];
        for a in 0..k {
            for c in a + 1..k {
                let h = 0.5 * sq_dist_dense(centers.row(a), centers.row(c)).sqrt();
                half[a * k + c] = h;
                half[c * k + a] = h;
            }
        }
        let s: Vec<f64> = (0..k)
            .map(|a| {
                (0..k)
                    .filter(|&c| c != a)
                    .map(|c| half[a * k + c])
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        self.radius = self.radius.max(max_norm(centers));
        let t = self.passes as f64;
        let slack = 8.0 * f64::EPSILON * self.radius * (t + 2.0) * (d as f64 + t + 6.0);
        let table = Table {
            centers,
            drift: &drift,
            half: &half,
            s: &s,
            slack,
        };
        let ranges = groups(x.n_samples());
        let group_rows = ranges.first().map_or(1, |r| r.len().max(1));
        let partial = self
            .labels
            .par_chunks_mut(group_rows)
            .zip(self.upper.par_chunks_mut(group_rows))
            .zip(self.lower.par_chunks_mut(group_rows * k))
            .zip(ranges.par_iter())
            .map(|(((labels, upper), lower), range)| {
                let mut sums = DenseMatrix::zeros(k, d);
                let mut counts = vec![0usize; k];
                let rows = labels.iter_mut().zip(upper).zip(lower.chunks_mut(k));
                for (i, ((label, u), l)) in range.clone().zip(rows) {
                    let xi = x.row(i);
                    table.update_row(&xi, label, u, l);
                    // As `add_rows` does, row by row: the sums match Lloyd's bit for bit.
                    xi.axpy(1.0, sums.row_mut(*label as usize));
                    counts[*label as usize] += 1;
                }
                (sums, counts)
            })
            .collect();
        self.previous = Some(centers.clone());
        self.passes += 1;
        reduce(partial, k, d)
    }
}

/// What one pass shares across rows.
struct Table<'a> {
    centers: &'a DenseMatrix,
    drift: &'a [f64],
    /// `½‖c_a − c_c‖`, `k × k`.
    half: &'a [f64],
    s: &'a [f64],
    slack: f64,
}

impl Table<'_> {
    fn update_row(
        &self,
        xi: &margin_core::RowView<'_>,
        label: &mut u32,
        u: &mut f64,
        l: &mut [f64],
    ) {
        let k = l.len();
        let mut a = *label as usize;
        *u += self.drift[a];
        l.iter_mut()
            .zip(self.drift)
            .for_each(|(lc, dc)| *lc = (*lc - dc).max(0.0));
        if *u + self.slack < self.s[a] {
            return;
        }
        // The direct squared distance to `a`, once computed (then `u` is exact).
        let mut d_a: Option<f64> = None;
        for c in 0..k {
            let skip = |u: f64, a: usize, lc: f64| u + self.slack < lc.max(self.half[a * k + c]);
            if c == a || skip(*u, a, l[c]) {
                continue;
            }
            let da = match d_a {
                Some(v) => v,
                None => {
                    let v = sq_dist_to(xi, self.centers.row(a));
                    *u = v.sqrt();
                    l[a] = *u;
                    d_a = Some(v);
                    if skip(*u, a, l[c]) {
                        continue;
                    }
                    v
                }
            };
            let dc = sq_dist_to(xi, self.centers.row(c));
            l[c] = dc.sqrt();
            if dc < da || (dc == da && c < a) {
                (a, d_a, *u) = (c, Some(dc), l[c]);
            }
        }
        *label = a as u32;
    }
}
