//! The centred triangular summary of a tall matrix, mergeable across parts of its rows: what a
//! least-squares fit and PCA need of their data, in `O(m²)` memory whatever the row count.
//!
//! For rows `aᵢ` with weights `wᵢ`, the summary holds `W = Σ wᵢ`, the weighted mean `ā`, and an
//! upper-triangular `R` with `RᵀR = Σ wᵢ (aᵢ − ā)(aᵢ − ā)ᵀ` — the `R` of a QR decomposition of
//! the centred, `√w`-scaled rows. Two parts merge as Chan, Golub & LeVeque (1979) merge
//! variances, but on the factor: the `R` of the stacked
//! `[R₁; R₂; √(W₁W₂/W) (ā₁ − ā₂)ᵀ]` (the QR of `m` rows or so), so the co-moment matrix is
//! never formed and its condition number never squared. Without centring the means stay zero and
//! the merge stacks the two triangles alone.

use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};

use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::model_check;
use crate::orthogonal::qr_in_place;
use crate::traits::Merge;

/// The centred triangular summary of a set of weighted rows (see the [module](self) doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CentredQr {
    centred: bool,
    n_rows: usize,
    weight_sum: f64,
    mean: Vec<f64>,
    /// `m × m`, upper triangular (zero below the diagonal); `0 × 0` before the first part.
    r: DenseMatrix,
}

impl CentredQr {
    /// An empty summary: of rows about their weighted mean when `centred`, else about zero.
    pub fn new(centred: bool) -> Self {
        Self {
            centred,
            n_rows: 0,
            weight_sum: 0.0,
            mean: Vec::new(),
            r: DenseMatrix::zeros(0, 0),
        }
    }

    /// The summary of one part whose factor is known: `n_rows` rows of total weight
    /// `weight_sum`, weighted mean `mean` (zeros when not `centred`) and the `R` of the centred,
    /// `√w`-scaled rows (`m × m` or fewer rows of it, from a QR; only the upper triangle is
    /// read). Refuses shapes that disagree and values that are not finite.
    pub fn from_part(
        centred: bool,
        n_rows: usize,
        weight_sum: f64,
        mean: Vec<f64>,
        r: MatRef<'_, f64>,
    ) -> Result<Self> {
        let m = mean.len();
        if r.ncols() != m {
            return Err(Error::shape(
                "the factor's columns (one per mean)",
                m,
                r.ncols(),
            ));
        }
        if r.nrows() > m {
            return Err(Error::shape(
                "the factor's rows (at most its columns)",
                m,
                r.nrows(),
            ));
        }
        let r = DenseMatrix::from_faer(
            Mat::from_fn(m, m, |i, j| {
                if i <= j && i < r.nrows() {
                    r[(i, j)]
                } else {
                    0.0
                }
            })
            .as_ref(),
        );
        let part = Self {
            centred,
            n_rows,
            weight_sum,
            mean,
            r,
        };
        part.check()?;
        Ok(part)
    }

    /// Whether the rows are summarized about their mean.
    pub fn centred(&self) -> bool {
        self.centred
    }
    /// The number of rows seen.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    /// `W`, the rows' total weight (the row count when unweighted).
    pub fn weight_sum(&self) -> f64 {
        self.weight_sum
    }
    /// The width `m` (0 before the first part).
    pub fn width(&self) -> usize {
        self.mean.len()
    }
    /// The weighted mean of every column (zeros when not centred).
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }
    /// The triangular factor `R` (`m × m`, upper triangular): `RᵀR` is the weighted co-moment
    /// matrix.
    pub fn r(&self) -> &DenseMatrix {
        &self.r
    }

    /// Checks a summary read from elsewhere (a file, another process): square factor of the
    /// means' width, finite values, a positive weight once rows were seen.
    pub fn check(&self) -> Result<()> {
        let m = self.mean.len();
        model_check::matrix("r", &self.r, m, m)?;
        model_check::finite("mean", &self.mean)?;
        if self.n_rows == 0 {
            if m != 0 || self.weight_sum != 0.0 {
                return Err(model_check::refuse(
                    "n_rows",
                    "is 0 for a summary with data",
                ));
            }
        } else {
            model_check::positive("weight_sum", self.weight_sum)?;
        }
        if !self.centred && self.mean.iter().any(|&v| v != 0.0) {
            return Err(model_check::refuse(
                "mean",
                "is not zero in an uncentred summary",
            ));
        }
        Ok(())
    }
}

impl Merge for CentredQr {
    /// Checks `other` first (it may come from another process).
    fn merge(&mut self, other: &Self) -> Result<()> {
        other.check()?;
        if other.n_rows == 0 {
            return Ok(());
        }
        if self.centred != other.centred {
            return Err(Error::invalid_parameter(
                "centred",
                other.centred.to_string(),
                "the same centring in both summaries (fit_intercept must agree)",
            ));
        }
        if self.n_rows == 0 {
            *self = other.clone();
            return Ok(());
        }
        let m = self.width();
        if other.width() != m {
            return Err(Error::shape(
                "columns of the merged summary",
                m,
                other.width(),
            ));
        }
        let (w1, w2) = (self.weight_sum, other.weight_sum);
        let w = w1 + w2;
        let mut stacked = Mat::<f64>::zeros(2 * m + usize::from(self.centred), m);
        for (k, part) in [&self.r, &other.r].into_iter().enumerate() {
            stacked
                .as_mut()
                .get_mut(k * m..(k + 1) * m, ..)
                .copy_from(part.as_faer());
        }
        let mut mean = self.mean.clone();
        if self.centred {
            // The between-parts term, computed from the difference so it is exact for equal
            // means; the pooled mean moves each part's mean by its share of the difference.
            let scale = (w1 / w * w2).sqrt();
            for j in 0..m {
                let delta = self.mean[j] - other.mean[j];
                stacked[(2 * m, j)] = scale * delta;
                mean[j] = self.mean[j] - delta * (w2 / w);
            }
        }
        qr_in_place(stacked.as_mut());
        let r = Mat::from_fn(m, m, |i, j| if i <= j { stacked[(i, j)] } else { 0.0 });
        if !(r.as_ref().norm_max().is_finite() && mean.iter().all(|v| v.is_finite())) {
            return Err(Error::OutOfRange {
                what: "the columns".into(),
                reason: "merging two summaries overflowed f64: scale the columns".into(),
            });
        }
        self.n_rows += other.n_rows;
        self.weight_sum = w;
        self.mean = mean;
        self.r = DenseMatrix::from_faer(r.as_ref());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of `rows` straight from its definition: mean, then the QR of the centred rows.
    fn direct(rows: &[[f64; 3]], centred: bool) -> CentredQr {
        let n = rows.len();
        let mean: Vec<f64> = (0..3)
            .map(|j| {
                if centred {
                    rows.iter().map(|r| r[j]).sum::<f64>() / n as f64
                } else {
                    0.0
                }
            })
            .collect();
        let mut a = Mat::from_fn(n, 3, |i, j| rows[i][j] - mean[j]);
        qr_in_place(a.as_mut());
        let k = n.min(3);
        CentredQr::from_part(centred, n, n as f64, mean, a.as_ref().get(..k, ..)).unwrap()
    }

    /// `RᵀR`, which is sign-independent (a QR's rows may flip sign).
    fn gram(s: &CentredQr) -> Mat<f64> {
        let r = s.r().as_faer();
        r.transpose() * r
    }

    fn assert_same(a: &CentredQr, b: &CentredQr) {
        assert_eq!((a.n_rows(), a.weight_sum()), (b.n_rows(), b.weight_sum()));
        for (x, y) in a.mean().iter().zip(b.mean()) {
            assert!((x - y).abs() < 1e-12, "{x} {y}");
        }
        let (ga, gb) = (gram(a), gram(b));
        for i in 0..3 {
            for j in 0..3 {
                assert!((ga[(i, j)] - gb[(i, j)]).abs() < 1e-10, "{i} {j}");
            }
        }
    }

    const ROWS: [[f64; 3]; 6] = [
        [1.0, 2.0, 0.5],
        [3.0, -1.0, 2.0],
        [0.5, 4.0, -3.0],
        [2.0, 2.5, 1.0],
        [-1.0, 0.0, 7.0],
        [4.0, 1.0, 1.5],
    ];

    #[test]
    fn merged_parts_equal_the_whole_centred_or_not() {
        for centred in [true, false] {
            let whole = direct(&ROWS, centred);
            for cut in 1..ROWS.len() {
                let mut a = direct(&ROWS[..cut], centred);
                a.merge(&direct(&ROWS[cut..], centred)).unwrap();
                assert_same(&a, &whole);
                // The other order, and merging into an empty summary.
                let mut b = CentredQr::new(centred);
                b.merge(&direct(&ROWS[cut..], centred)).unwrap();
                b.merge(&direct(&ROWS[..cut], centred)).unwrap();
                assert_same(&b, &whole);
            }
        }
    }

    #[test]
    fn mismatched_summaries_are_refused_and_leave_self_alone() {
        let mut a = direct(&ROWS, true);
        let before = a.clone();
        assert!(a.merge(&direct(&ROWS, false)).is_err());
        let narrow = CentredQr::from_part(true, 1, 1.0, vec![0.0], Mat::zeros(1, 1).as_ref());
        assert!(a.merge(&narrow.unwrap()).is_err());
        assert_eq!(a, before);
        assert!(
            CentredQr::from_part(true, 1, 1.0, vec![0.0; 2], Mat::zeros(3, 2).as_ref()).is_err()
        );
        assert!(CentredQr::from_part(false, 1, 1.0, vec![1.0], Mat::zeros(1, 1).as_ref()).is_err());
        assert!(CentredQr::from_part(true, 1, 0.0, vec![1.0], Mat::zeros(1, 1).as_ref()).is_err());
    }
}
