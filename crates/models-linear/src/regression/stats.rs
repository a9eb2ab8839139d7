//! Least squares' statistics: what [`LinearRegression`](super::LinearRegression) and
//! [`Ridge`](super::Ridge) need of their rows, gathered batch by batch and merged across
//! partitions.

use margin_core::centred_qr::CentredQr;
use margin_core::{Dataset, Error, Merge, PartialFit, Result};
use serde::{Deserialize, Serialize};

use super::design::Design;

/// The centred triangular summary of `[X y]` (weighted means, total weight, row count, and the
/// `R` of the centred, `√w`-scaled rows; see [`CentredQr`]): `(d + 2)(d + 1)` numbers whatever
/// the row count, from which [`FitStats::fit_stats`](margin_core::FitStats::fit_stats) gives
/// the model `fit` gives on the rows, to rounding.
///
/// Each batch is factored with the same tall-skinny QR a fit uses; batches and partitions then
/// merge by a QR of their stacked triangles, so the fit never squares the design's condition
/// number (the normal equations do only when asked for).
///
/// ```
/// use margin_core::{Dataset, Fit, FitStats, Merge, PartialFit};
/// use margin_linear::Ridge;
///
/// let x = vec![vec![0.0, 1.0], vec![1.0, 0.5], vec![2.0, 2.0], vec![3.0, 1.0], vec![4.0, 3.5]];
/// let y = vec![1.0, 2.1, 4.9, 5.2, 8.8];
/// let params = Ridge::params().alpha(0.5);
/// let (mut left, mut right) = (params.stats(), params.stats());
/// left.partial_fit(&Dataset::regression(x[..2].to_vec(), y[..2].to_vec())?)?;
/// right.partial_fit(&Dataset::regression(x[2..].to_vec(), y[2..].to_vec())?)?;
/// left.merge(&right)?;
/// let merged = params.fit_stats(&left)?;
/// let whole = params.fit(&Dataset::regression(x, y)?)?;
/// assert!((merged.intercept()[0] - whole.intercept()[0]).abs() < 1e-12);
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeastSquaresStats {
    summary: CentredQr,
}

impl LeastSquaresStats {
    /// Empty statistics, centred for a fit with an intercept.
    pub fn new(fit_intercept: bool) -> Self {
        Self {
            summary: CentredQr::new(fit_intercept),
        }
    }

    /// The summary of `[X y]`: the features' columns, then the target's.
    pub fn summary(&self) -> &CentredQr {
        &self.summary
    }

    /// The number of features (0 before the first batch).
    pub fn n_features(&self) -> usize {
        self.summary.width().saturating_sub(1)
    }

    /// The design a fit with(out) an intercept solves, after checking the statistics were
    /// gathered for it.
    pub(crate) fn design(&self, fit_intercept: bool) -> Result<Design> {
        self.summary.check()?;
        if self.summary.centred() != fit_intercept {
            return Err(Error::invalid_parameter(
                "fit_intercept",
                fit_intercept.to_string(),
                format!(
                    "{} (the statistics were gathered for it; make them with this params value's stats())",
                    self.summary.centred()
                ),
            ));
        }
        Design::from_summary(&self.summary)
    }
}

impl PartialFit<Dataset> for LeastSquaresStats {
    /// Adds a regression batch (validated as `fit` validates its data, sample weights
    /// included); a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &Dataset) -> Result<()> {
        let width = self.summary.width();
        if width > 0 && batch.n_features() + 1 != width {
            return Err(Error::shape(
                "features of the batch (the statistics' width)",
                width - 1,
                batch.n_features(),
            ));
        }
        let centred = self.summary.centred();
        let part = Design::new(batch, centred)?.summarize(centred)?;
        self.summary.merge(&part)
    }
}

impl Merge for LeastSquaresStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.summary.merge(&other.summary)
    }
}
