use serde::{Deserialize, Serialize};

use super::check_fit_input;
use margin_core::memory::{DENSE_COPY, FEWER_FEATURES, filled_vec};
use margin_core::params::Params;
use margin_core::{
    DenseMatrix, Fit, FitStats, Matrix, Merge, PartialFit, Records, Result, Transform, model_check,
    validate,
};
use margin_io::ModelFile;

/// Parameters of [`StandardScaler`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct StandardScalerParams {
    /// Subtract the mean (default true). Turn off to keep sparse records sparse.
    #[param(
        help = "subtract the mean (turn off to keep sparse records sparse)",
        default = true
    )]
    with_mean: bool,
    /// Divide by the standard deviation (default true).
    #[param(help = "divide by the standard deviation", default = true)]
    with_std: bool,
}

/// Centres each feature to mean 0 and scales it to unit (population, `ddof = 0`) standard
/// deviation, as scikit-learn's `StandardScaler`. A feature with zero variance is only centred.
///
/// Supports [`PartialFit`]: statistics of several batches merge exactly (Chan et al.'s
/// pairwise update), so streaming a file in chunks gives the same scaler as fitting it whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StandardScaler {
    params: StandardScalerParams,
    n_seen: usize,
    mean: Vec<f64>,
    /// Sum of squared deviations from the mean, per feature.
    m2: Vec<f64>,
}

/// A zeroed per-feature sum, asked for first.
fn per_feature(d: usize) -> Result<Vec<f64>> {
    filled_vec(d, 0.0, "per-feature sums", FEWER_FEATURES)
}

impl StandardScaler {
    /// The hyperparameters the model was fitted with (see [`StandardScalerParams`]).
    pub fn hyperparams(&self) -> &StandardScalerParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.mean.len()
    }
    /// Default parameters.
    pub fn params() -> StandardScalerParams {
        StandardScalerParams::default()
    }

    /// An unfitted scaler to feed with [`PartialFit::partial_fit`]; its per-feature sums are
    /// asked for first.
    pub fn empty(params: StandardScalerParams, n_features: usize) -> Result<Self> {
        Ok(Self {
            params,
            n_seen: 0,
            mean: per_feature(n_features)?,
            m2: per_feature(n_features)?,
        })
    }

    /// Per-feature means.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Per-feature population variances.
    pub fn variance(&self) -> Vec<f64> {
        self.m2
            .iter()
            .map(|m| {
                if self.n_seen == 0 {
                    0.0
                } else {
                    m / self.n_seen as f64
                }
            })
            .collect()
    }

    /// Per-feature divisors: the standard deviation, or 1 where it is zero or scaling is off.
    pub fn scale(&self) -> Vec<f64> {
        self.variance()
            .into_iter()
            .map(|v| {
                if self.params.with_std && v > 0.0 {
                    v.sqrt()
                } else {
                    1.0
                }
            })
            .collect()
    }

    /// Samples seen so far.
    pub fn n_samples_seen(&self) -> usize {
        self.n_seen
    }
}

impl<R: Records + ?Sized> PartialFit<R> for StandardScaler {
    fn partial_fit(&mut self, batch: &R) -> Result<()> {
        check_fit_input(batch)?;
        validate::check_n_features(self.mean.len(), batch)?;
        let (n, d) = (batch.n_samples(), batch.n_features());
        let mut mean_b = per_feature(d)?;
        for i in 0..n {
            batch.row(i).axpy(1.0, &mut mean_b);
        }
        mean_b.iter_mut().for_each(|m| *m /= n as f64);
        // Deviations of the batch about its own mean; unstored sparse zeros contribute
        // (0 − mean)² each, added per feature below.
        let mut m2_b = per_feature(d)?;
        let mut stored = filled_vec(d, 0usize, "per-feature counts", FEWER_FEATURES)?;
        for i in 0..n {
            batch.row(i).for_each_stored(|j, v| {
                m2_b[j] += (v - mean_b[j]).powi(2);
                stored[j] += 1;
            });
        }
        for j in 0..d {
            m2_b[j] += (n - stored[j]) as f64 * mean_b[j] * mean_b[j];
        }
        let (na, nb) = (self.n_seen as f64, n as f64);
        let total = na + nb;
        for j in 0..d {
            let delta = mean_b[j] - self.mean[j];
            self.mean[j] += delta * nb / total;
            self.m2[j] += m2_b[j] + delta * delta * na * nb / total;
        }
        self.n_seen += n;
        Ok(())
    }
}

/// Two scalers fitted on disjoint parts of the rows, combined (Chan et al.'s pairwise update,
/// as between batches): the scaler of all the rows. The parameters are `self`'s.
impl Merge for StandardScaler {
    fn merge(&mut self, other: &Self) -> Result<()> {
        let d = self.mean.len();
        if other.mean.len() != d || other.m2.len() != d {
            return Err(margin_core::Error::shape(
                "features of the merged scaler",
                d,
                other.mean.len(),
            ));
        }
        model_check::finite("mean", &other.mean)?;
        model_check::finite_min("m2", &other.m2, 0.0)?;
        let (na, nb) = (self.n_seen as f64, other.n_seen as f64);
        if other.n_seen == 0 {
            return Ok(());
        }
        let total = na + nb;
        for j in 0..d {
            let delta = other.mean[j] - self.mean[j];
            self.mean[j] += delta * nb / total;
            self.m2[j] += other.m2[j] + delta * delta * na * nb / total;
        }
        self.n_seen += other.n_seen;
        Ok(())
    }
}

/// StandardScaler's statistics: the row count, means and squared deviations of the rows seen
/// (none before the first batch), merged across partitions as [`StandardScaler`]s merge.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StandardScalerStats(Option<StandardScaler>);

impl<R: Records + ?Sized> PartialFit<R> for StandardScalerStats {
    /// Adds a batch of finite records; a refused batch leaves the statistics unchanged.
    fn partial_fit(&mut self, batch: &R) -> Result<()> {
        check_fit_input(batch)?;
        match &mut self.0 {
            Some(scaler) => scaler.partial_fit(batch),
            None => {
                self.0 = Some(StandardScalerParams::default().fit(batch)?);
                Ok(())
            }
        }
    }
}

impl Merge for StandardScalerStats {
    fn merge(&mut self, other: &Self) -> Result<()> {
        match (&mut self.0, &other.0) {
            (_, None) => Ok(()),
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => {
                self.0 = Some(theirs.clone());
                Ok(())
            }
        }
    }
}

/// Batches are [`Matrix`] records (the statistics also take any other [`Records`] through
/// [`PartialFit`]).
impl FitStats<Matrix> for StandardScalerParams {
    type Stats = StandardScalerStats;

    fn stats(&self) -> StandardScalerStats {
        StandardScalerStats::default()
    }

    fn fit_stats(&self, stats: &StandardScalerStats) -> Result<StandardScaler> {
        let mut scaler = stats
            .0
            .clone()
            .ok_or_else(|| margin_core::Error::no_rows_seen("StandardScaler"))?;
        scaler.params = self.clone();
        Ok(scaler)
    }
}

impl<R: Records + ?Sized> Fit<R> for StandardScalerParams {
    type Model = StandardScaler;

    fn fit(&self, records: &R) -> Result<StandardScaler> {
        check_fit_input(records)?;
        let mut s = StandardScaler::empty(self.clone(), records.n_features())?;
        s.partial_fit(records)?;
        Ok(s)
    }
}

impl Transform for StandardScaler {
    /// Dense output when centring; sparse records stay sparse when `with_mean` is off.
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_predict(self.mean.len(), records)?;
        let scale = self.scale();
        match (records.as_sparse(), self.params.with_mean) {
            (Some(s), false) => {
                let mut out = s.clone();
                let idx = out.indices().to_vec();
                for (v, &j) in out.values_mut().iter_mut().zip(&idx) {
                    *v /= scale[j as usize];
                }
                Ok(Matrix::Sparse(out))
            }
            _ => {
                let shift: Vec<f64> = if self.params.with_mean {
                    self.mean.clone()
                } else {
                    vec![0.0; scale.len()]
                };
                let mut out = DenseMatrix::try_zeros(
                    records.n_samples(),
                    scale.len(),
                    "the scaled records",
                    DENSE_COPY,
                )?;
                for i in 0..records.n_samples() {
                    let dst = out.row_mut(i);
                    records.row(i).to_dense_into(dst);
                    for j in 0..dst.len() {
                        dst[j] = (dst[j] - shift[j]) / scale[j];
                    }
                }
                Ok(Matrix::Dense(out))
            }
        }
    }
}

impl ModelFile for StandardScaler {
    const KIND: &'static str = "standard-scaler";
    const SCHEMA: u32 = 1;

    /// One finite mean and one finite, non-negative sum of squared deviations per feature.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::len("m2", self.m2.len(), self.mean.len())?;
        model_check::finite("mean", &self.mean)?;
        model_check::finite_min("m2", &self.m2, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(rows: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
        let n = rows.len() as f64;
        let d = rows[0].len();
        let mean: Vec<f64> = (0..d)
            .map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / n)
            .collect();
        let var = (0..d)
            .map(|j| rows.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n)
            .collect();
        (mean, var)
    }

    proptest! {
        #[test]
        fn statistics_match_definition_whole_or_in_batches(
            rows in proptest::collection::vec(proptest::collection::vec(-1e3f64..1e3, 3), 2..40),
            cut in 1usize..39,
        ) {
            let x = DenseMatrix::from_rows(&rows).unwrap();
            let (mean, var) = brute(&rows);
            let whole = StandardScaler::params().fit(&x).unwrap();
            let cut = cut.min(rows.len() - 1);
            let mut parts = StandardScaler::empty(StandardScaler::params(), 3).unwrap();
            parts.partial_fit(&DenseMatrix::from_rows(&rows[..cut]).unwrap()).unwrap();
            parts.partial_fit(&margin_core::CsrMatrix::from_dense(&DenseMatrix::from_rows(&rows[cut..]).unwrap())).unwrap();
            for s in [&whole, &parts] {
                for j in 0..3 {
                    prop_assert!((s.mean()[j] - mean[j]).abs() <= 1e-9 * (1.0 + mean[j].abs()));
                    prop_assert!((s.variance()[j] - var[j]).abs() <= 1e-7 * (1.0 + var[j]));
                }
            }
            let z = whole.transform(&x).unwrap().to_dense().unwrap();
            for j in 0..3 {
                let col: Vec<f64> = (0..rows.len()).map(|i| z.get(i, j)).collect();
                let (m, v) = brute(&col.iter().map(|&c| vec![c]).collect::<Vec<_>>());
                prop_assert!(m[0].abs() < 1e-9);
                prop_assert!(v[0] < 1e-12 || (v[0] - 1.0).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn sparse_without_mean_stays_sparse_and_constant_features_are_only_centred() {
        let x = margin_core::CsrMatrix::from_dense(
            &DenseMatrix::from_rows(&[[0.0, 2.0], [4.0, 2.0]]).unwrap(),
        );
        let s = StandardScaler::params().with_mean(false).fit(&x).unwrap();
        match s.transform(&x).unwrap() {
            Matrix::Sparse(m) => assert_eq!(m.to_dense().unwrap().row(1), &[2.0, 2.0]),
            other => panic!("{other:?}"),
        }
        let c = StandardScaler::params().fit(&x).unwrap();
        assert_eq!(
            c.transform(&x).unwrap().to_dense().unwrap().row(0),
            &[-1.0, 0.0]
        );
    }
}
