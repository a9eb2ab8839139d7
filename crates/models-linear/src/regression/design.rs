//! The centred, weighted design every linear regressor solves, and what the solvers share.
//!
//! Fitting an intercept by centring: with weighted means `x̄ = Σ wᵢxᵢ / Σ wᵢ` and `ȳ`, the
//! slopes of `min Σ wᵢ (yᵢ − b − xᵢ·w)²` are the least-squares solution on the centred rows
//! scaled by `√wᵢ`, and `b = ȳ − x̄·w`. The intercept never enters the solver, so ridge does
//! not penalize it.
//!
//! The centred matrix is also divided by a power of two near its largest entry (and the
//! targets likewise): that is exact in floating point, so it changes no digit of the answer,
//! yet keeps sums of squares representable for features around 1e±300.

use std::borrow::Cow;

use margin_core::centred_qr::CentredQr;
use margin_core::faer::{Mat, MatRef};
use margin_core::{Dataset, Error, Records, Result, memory, parallel, validate};

use super::solve::tsqr;
use rayon::prelude::*;

/// Rows per block when copying row-major records into the column-major design, so both the
/// rows read and the column runs written stay in cache.
const COPY_BLOCK: usize = 64;

/// The relative threshold below which singular values (or a triangular factor's diagonal) count
/// as zero: numpy's `lstsq` default, `ε · max(n, d)`.
pub(crate) fn rcond(n: usize, d: usize) -> f64 {
    f64::EPSILON * n.max(d) as f64
}

/// The power of two nearest below `max_abs` (1 for zero), clamped so that its reciprocal is
/// finite too.
fn power_of_two_scale(max_abs: f64) -> f64 {
    if max_abs > 0.0 && max_abs.is_finite() {
        2f64.powi((max_abs.log2().floor() as i32).clamp(-1000, 1000))
    } else {
        1.0
    }
}

/// A regression dataset's targets and sample weights, checked.
pub(crate) struct Supervision<'a> {
    /// One finite target per sample.
    pub y: Cow<'a, [f64]>,
    /// Non-negative weights, at least one positive.
    pub weights: Option<&'a [f64]>,
}

/// Checks a dataset for regression (records, targets, weights) and returns its targets and
/// sample weights.
pub(crate) fn regression_inputs(data: &Dataset) -> Result<Supervision<'_>> {
    validate::check_dataset(data)?;
    let y = data.targets.values()?;
    validate::check_finite_slice(&y)?;
    let weights = data.sample_weights.as_deref();
    Ok(Supervision { y, weights })
}

/// `[√wᵢ (xᵢ − x̄) / x_scale | √wᵢ (yᵢ − ȳ) / y_scale]`, with what is needed to map a solution
/// back to the original units.
///
/// The targets are the last column, so one QR of the `n × (d + 1)` matrix yields `R`, `Qᵀy`
/// and the residual norm together.
pub(crate) struct Design {
    /// The centred, weighted, scaled records and targets, `n × (d + 1)`, column-major.
    pub xy: Mat<f64>,
    /// Weighted feature means (zeros without an intercept).
    pub x_offset: Vec<f64>,
    /// Weighted target mean (zero without an intercept).
    pub y_offset: f64,
    /// The power of two the records were divided by.
    pub x_scale: f64,
    /// The power of two the targets were divided by.
    pub y_scale: f64,
    /// `Σ wᵢ` (`n` without weights).
    pub weight_sum: f64,
    /// The number of samples: `xy`'s rows, or the rows a [`CentredQr`] summarized when `xy` is
    /// its triangle (whose `RᵀR` equals the design's own, so every solver reads it alike).
    n_samples: usize,
}

impl Design {
    /// Validates `data` and builds its design.
    pub(crate) fn new(data: &Dataset, fit_intercept: bool) -> Result<Self> {
        let Supervision { y, weights: w } = regression_inputs(data)?;
        let (n, d) = (data.n_samples(), data.n_features());
        // The dense records, the centred design [X y] (n × (d + 1)) and what the solvers build
        // from it with faer (a factor and a square of the smaller side, `m · max(n, d)` and
        // `m²` with `m = min(n, d)`): asked for before any of it.
        let (m, big) = (n.min(d), n.max(d));
        memory::check_products(big, m, m)?;
        memory::check(
            memory::bytes_of_grid::<f64>(n, d.saturating_mul(2).saturating_add(1))
                .saturating_add(memory::bytes_of_grid::<f64>(m, big.saturating_add(m))),
            &format!("the least-squares design of {n} × {d} records"),
            memory::DENSE_COPY,
        )?;
        let x = data.records.dense_view()?;
        let x = x.view();
        let weight = |i: usize| w.map_or(1.0, |w| w[i]);
        let weight_sum: f64 = w.map_or(n as f64, |w| w.iter().sum());
        let mut x_offset = vec![0.0; d];
        let mut y_offset = 0.0;
        if fit_intercept {
            // Each term is at most the largest |x|, so the means cannot overflow where a plain
            // sum of 1e300s would.
            for (i, row) in x.rows().enumerate() {
                let share = weight(i) / weight_sum;
                for (m, &v) in x_offset.iter_mut().zip(row) {
                    *m += share * v;
                }
                y_offset += share * y[i];
            }
        }
        let sqrt_w: Vec<f64> = (0..n).map(|i| weight(i).sqrt()).collect();
        let mut xy = Mat::<f64>::zeros(n, d + 1);
        for start in (0..n).step_by(COPY_BLOCK) {
            let rows = start..(start + COPY_BLOCK).min(n);
            for (j, &mean) in x_offset.iter().enumerate() {
                let col = xy.col_as_slice_mut(j);
                for i in rows.clone() {
                    col[i] = (x.get(i, j) - mean) * sqrt_w[i];
                }
            }
        }
        for (i, v) in xy.col_as_slice_mut(d).iter_mut().enumerate() {
            *v = (y[i] - y_offset) * sqrt_w[i];
        }
        let x_scale = power_of_two_scale(max_abs(xy.as_ref().get(.., ..d)));
        let y_scale = power_of_two_scale(max_abs(xy.as_ref().get(.., d..)));
        for j in 0..=d {
            let factor = if j < d { 1.0 / x_scale } else { 1.0 / y_scale };
            if factor != 1.0 {
                xy.col_as_slice_mut(j).iter_mut().for_each(|v| *v *= factor);
            }
        }
        Ok(Self {
            xy,
            x_offset,
            y_offset,
            x_scale,
            y_scale,
            weight_sum,
            n_samples: n,
        })
    }

    /// The design whose solution is the one [`Design::new`] gives for the rows `stats`
    /// summarizes: the summary's triangle `R` of the centred `[X y]`, divided by powers of two
    /// as [`Design::new`] divides the rows. `RᵀR` is the design's `[X y]ᵀ[X y]`, so the QR,
    /// SVD and Cholesky solvers give the rows' answer to rounding.
    pub(crate) fn from_summary(stats: &CentredQr) -> Result<Self> {
        if stats.n_rows() == 0 {
            return Err(Error::no_rows_seen("least-squares"));
        }
        let m = stats.width();
        let d = m - 1;
        let r = stats.r().as_faer();
        let x_scale = power_of_two_scale(max_abs(r.get(.., ..d)));
        let y_scale = power_of_two_scale(max_abs(r.get(.., d..)));
        let xy = Mat::from_fn(m, m, |i, j| {
            r[(i, j)] / if j < d { x_scale } else { y_scale }
        });
        Ok(Self {
            xy,
            x_offset: stats.mean()[..d].to_vec(),
            y_offset: stats.mean()[d],
            x_scale,
            y_scale,
            weight_sum: stats.weight_sum(),
            n_samples: stats.n_rows(),
        })
    }

    /// The summary of this design's rows (its triangle in the original units, with the means
    /// and weight), for merging with other batches'.
    pub(crate) fn summarize(mut self, centred: bool) -> Result<CentredQr> {
        let (n, d) = (self.n(), self.d());
        let mut r = tsqr(self.xy.as_mut());
        // Powers of two: undoing the scaling is exact.
        for j in 0..=d {
            let scale = if j < d { self.x_scale } else { self.y_scale };
            r.col_mut(j).iter_mut().for_each(|v| *v *= scale);
        }
        let mut mean = self.x_offset;
        mean.push(self.y_offset);
        CentredQr::from_part(centred, n, self.weight_sum, mean, r.as_ref())
    }

    /// Number of samples.
    pub(crate) fn n(&self) -> usize {
        self.n_samples
    }

    /// Number of features.
    pub(crate) fn d(&self) -> usize {
        self.xy.ncols() - 1
    }

    /// The records part, `n × d`.
    pub(crate) fn x(&self) -> MatRef<'_, f64> {
        self.xy.as_ref().get(.., ..self.d())
    }

    /// The targets part, `n × 1`.
    pub(crate) fn y(&self) -> MatRef<'_, f64> {
        self.xy.as_ref().get(.., self.d()..)
    }

    /// Maps a solution of the scaled problem to the original units: `(coef, intercept)`.
    pub(crate) fn unscale(&self, scaled_coef: &[f64]) -> (Vec<f64>, f64) {
        let ratio = self.y_scale / self.x_scale;
        let coef: Vec<f64> = scaled_coef.iter().map(|&c| c * ratio).collect();
        let intercept = self.y_offset - margin_core::dot(&self.x_offset, &coef);
        (coef, intercept)
    }
}

fn max_abs(m: MatRef<'_, f64>) -> f64 {
    (0..m.ncols())
        .flat_map(|j| m.col(j).iter().copied())
        .fold(0.0f64, |acc, v| acc.max(v.abs()))
}

/// `xᵢ·coef + intercept` for every row, after checking the records' width (and their values,
/// through the products: see [`validate::check_finite_through`]).
pub(crate) fn predict_linear<R: Records + ?Sized>(
    records: &R,
    coef: &[f64],
    intercept: f64,
) -> Result<Vec<f64>> {
    validate::check_n_features(coef.len(), records)?;
    // A row's dot product costs about its stored entries.
    let per_row = records.nnz().div_ceil(records.n_samples().max(1));
    let predicted: Vec<f64> = (0..records.n_samples())
        .into_par_iter()
        .with_min_len(parallel::min_len(per_row))
        .map(|i| records.row_dot(i, coef) + intercept)
        .collect();
    validate::check_finite_through(records, &predicted)?;
    Ok(predicted)
}

/// The column vector `m[.., 0]` as a `Vec`.
pub(crate) fn col_to_vec(m: MatRef<'_, f64>, rows: usize) -> Vec<f64> {
    (0..rows).map(|i| m[(i, 0)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{DenseMatrix, Targets};

    #[test]
    fn powers_of_two_leave_every_digit_alone() {
        for v in [1e300, 3.5, 1.0, 0.75, 1e-300] {
            let s = power_of_two_scale(v);
            assert!(s <= v && v < 2.0 * s, "{v}: {s}");
            assert_eq!(s.log2().fract(), 0.0);
        }
        assert_eq!(power_of_two_scale(0.0), 1.0);
    }

    #[test]
    fn the_design_is_centred_weighted_and_scaled() {
        let x = DenseMatrix::from_rows(&[[1.0, 10.0], [3.0, 30.0], [5.0, 20.0]]).unwrap();
        let data = Dataset::new(x, Targets::Values(vec![1.0, 2.0, 6.0]))
            .unwrap()
            .with_sample_weights(vec![1.0, 2.0, 1.0])
            .unwrap();
        let d = Design::new(&data, true).unwrap();
        assert_eq!(d.x_offset, vec![3.0, 22.5]);
        assert_eq!(d.y_offset, 2.75);
        assert_eq!(d.weight_sum, 4.0);
        // Largest centred entry |10 − 22.5|·1 = 12.5 → scale 8; targets: |6 − 2.75| → 2.
        assert_eq!((d.x_scale, d.y_scale), (8.0, 2.0));
        let want_row1 = [0.0, 7.5 * 2f64.sqrt() / 8.0];
        for (j, w) in want_row1.iter().enumerate() {
            assert!((d.x()[(1, j)] - w).abs() < 1e-15);
        }
        assert!((d.y()[(1, 0)] - (2.0 - 2.75) * 2f64.sqrt() / 2.0).abs() < 1e-15);
        // Weighted centred columns sum to zero after the √w scaling times √w.
        let sw = [1.0, 2f64.sqrt(), 1.0];
        let s: f64 = (0..3).map(|i| d.x()[(i, 0)] * sw[i]).sum();
        assert!(s.abs() < 1e-15);
    }

    #[test]
    fn all_zero_weights_are_refused() {
        let x = DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap();
        let data = Dataset::new(x, Targets::Values(vec![1.0, 2.0]))
            .unwrap()
            .with_sample_weights(vec![0.0, 0.0])
            .unwrap();
        assert!(matches!(
            Design::new(&data, true),
            Err(margin_core::Error::InvalidParameter { name, .. }) if name == "sample_weights"
        ));
    }
}
