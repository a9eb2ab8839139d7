//! PCA's statistics: the centred triangular summary of the records, gathered batch by batch
//! and merged across partitions.

use margin_core::centred_qr::CentredQr;
use margin_core::params::Params;
use margin_core::{Error, FitStats, Matrix, Merge, PartialFit, Records, Result, memory, validate};
use serde::{Deserialize, Serialize};

use super::{Centered, Pca, PcaParams, SvdSolver, factor};

/// The records' mean, row count and the triangle `R` of their centred rows
/// ([`CentredQr`], `d(d + 1)` numbers whatever the row count): `R`'s singular values and right
/// vectors are the centred data's, so [`FitStats::fit_stats`] gives the components, variances
/// and mean a full-SVD fit gives, to rounding.
///
/// ```
/// use margin_core::{DenseMatrix, Fit, FitStats, Merge, PartialFit};
/// use margin_cluster::{NComponents, Pca};
///
/// let x = DenseMatrix::from_rows(&[[1.0, 2.0], [2.0, 3.5], [3.0, 3.0], [4.0, 6.5], [5.0, 5.0]])?;
/// let params = Pca::params().n_components(NComponents::Count(1));
/// let (mut a, mut b) = (params.stats(), params.stats());
/// a.partial_fit(&x.select_rows(&[0, 1])?)?; // any records: dense, sparse, borrowed
/// b.partial_fit(&x.select_rows(&[2, 3, 4])?)?;
/// a.merge(&b)?;
/// let merged = params.fit_stats(&a)?;
/// let whole = params.fit(&x)?;
/// assert!((merged.explained_variance()[0] - whole.explained_variance()[0]).abs() < 1e-12);
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PcaStats(CentredQr);

impl<R: Records + ?Sized> PartialFit<R> for PcaStats {
    /// Adds a batch of finite records (its centred copy is asked for first); a refused batch
    /// leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &R) -> Result<()> {
        validate::check_non_empty(batch)?;
        validate::check_finite(batch)?;
        let (n, d) = (batch.n_samples(), batch.n_features());
        if self.0.width() > 0 && self.0.width() != d {
            return Err(Error::shape(
                "features of the batch (the statistics' width)",
                self.0.width(),
                d,
            ));
        }
        memory::check(
            memory::bytes_of_grid::<f64>(2usize.saturating_mul(n), d),
            &format!("the centred copy of a {n} × {d} batch"),
            memory::DENSE_COPY,
        )?;
        let (mut centred, mean) = Centered::new(batch)?;
        let r = factor::tsqr(centred.view_mut());
        self.0
            .merge(&CentredQr::from_part(true, n, n as f64, mean, r.as_ref())?)
    }
}

impl Merge for PcaStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.0.merge(&other.0)
    }
}

/// Batches are [`Matrix`] records (the statistics also take any other [`Records`] through
/// [`PartialFit`]). From statistics every solver is the full SVD, of the `d × d` triangle
/// (exact and cheap): the model reports [`SvdSolver::Full`].
impl FitStats<Matrix> for PcaParams {
    type Stats = PcaStats;

    fn stats(&self) -> PcaStats {
        PcaStats(CentredQr::new(true))
    }

    fn fit_stats(&self, stats: &PcaStats) -> Result<Pca> {
        self.check()?;
        let summary = &stats.0;
        summary.check()?;
        if !summary.centred() {
            return Err(Error::model_file("PCA statistics must be centred"));
        }
        let (n, d) = (summary.n_rows(), summary.width());
        if n < 2 {
            return Err(Error::EmptyDataset(format!(
                "PCA needs at least two samples to estimate variances (n_samples = {n})"
            )));
        }
        self.check_for(n, d, SvdSolver::Full)?;
        let spectrum = factor::svd_of_triangle(summary.r().as_faer())?;
        Ok(self.model(spectrum, None, summary.mean().to_vec(), n, SvdSolver::Full))
    }
}
