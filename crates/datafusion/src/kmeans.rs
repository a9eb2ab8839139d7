//! k-means driven from the client: one query for the rows' count and the features' variances,
//! one `margin_sample_rows` query for the rows the initial centres are chosen among (unless
//! centres are given), then one `margin_lloyd_sums` query per Lloyd step.

use datafusion::common::{Result, plan_err};
use datafusion::prelude::SessionContext;
use margin_cluster::{KMeans, KMeansParams, LloydSums};
use margin_core::{Dataset, DenseMatrix, Error, Records};
use serde::{Deserialize, Serialize};

use crate::steps::{Solver, Step, check_features, count_and_aggregates};

/// `margin_lloyd_sums(step, feature, …)`'s step: the current centres. The sums are a Lloyd
/// step's ([`LloydSums`]).
#[derive(Debug, Deserialize)]
pub(crate) struct LloydStep {
    centers: DenseMatrix,
}

/// A [`LloydStep`] as the client writes it, borrowing the centres.
#[derive(Serialize)]
struct LloydStepRef<'a> {
    centers: &'a DenseMatrix,
}

impl Step for LloydStep {
    type Sums = LloydSums;
    const NAME: &'static str = "margin_lloyd_sums";
    const SUPERVISED: bool = false;

    fn zero(&self) -> margin_core::Result<LloydSums> {
        LloydSums::new(self.centers.nrows(), self.centers.ncols())
    }

    fn add(&self, rows: &Dataset, sums: &mut LloydSums) -> margin_core::Result<()> {
        sums.add(&rows.records, &self.centers)
    }

    fn merge(&self, sums: &mut LloydSums, other: LloydSums) -> margin_core::Result<()> {
        sums.merge(other)
    }
}

/// `margin_sample_rows(step, feature, …)`'s step: how many rows to keep. The sums are the
/// rows of least [`row_key`], a uniform sample without replacement that does not depend on
/// how the rows are parted or ordered (equal rows have equal keys).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SampleStep {
    rows: usize,
}

/// Sampled rows with their keys, in key order.
type Keyed = Vec<(u64, Vec<f64>)>;

impl SampleStep {
    /// Keeps the `rows` first of `sums` in (key, bits) order.
    fn keep(&self, sums: &mut Keyed) {
        let bits = |row: &[f64]| row.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        sums.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| bits(&a.1).cmp(&bits(&b.1))));
        sums.truncate(self.rows);
    }
}

impl Step for SampleStep {
    type Sums = Keyed;
    const NAME: &'static str = "margin_sample_rows";
    const SUPERVISED: bool = false;

    fn zero(&self) -> margin_core::Result<Keyed> {
        Ok(Vec::new())
    }

    fn add(&self, rows: &Dataset, sums: &mut Keyed) -> margin_core::Result<()> {
        let x = &rows.records;
        let mut row = vec![0.0; x.n_features()];
        let mut keys: Vec<(u64, usize)> = (0..x.n_samples())
            .map(|i| {
                x.row(i).to_dense_into(&mut row);
                (row_key(&row), i)
            })
            .collect();
        // Only the `rows` least keys of the batch can be kept (and those tied with the last).
        keys.sort_unstable();
        let last = keys
            .get(self.rows.saturating_sub(1))
            .map_or(u64::MAX, |k| k.0);
        for (key, i) in keys.into_iter().take_while(|k| k.0 <= last) {
            let mut values = vec![0.0; x.n_features()];
            x.row(i).to_dense_into(&mut values);
            sums.push((key, values));
        }
        self.keep(sums);
        Ok(())
    }

    fn merge(&self, sums: &mut Keyed, other: Keyed) -> margin_core::Result<()> {
        sums.extend(other);
        self.keep(sums);
        Ok(())
    }
}

/// A row's sampling key: its values' bits mixed by SplitMix64's finalizer (`-0.0` as `0.0`).
fn row_key(row: &[f64]) -> u64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    row.iter()
        .fold(mix(row.len() as u64), |h, v| mix(h ^ (v + 0.0).to_bits()))
}

/// Fits k-means on the rows of `table` (a table name, or a parenthesized query with an alias)
/// and the numeric feature columns `features`, with `params` as Spark fits it:
/// - one query for the rows' count and the features' variances (`tol` is relative to their
///   mean);
/// - unless centres are given, one query for a uniform sample of rows (the rows of least
///   hash, whatever the partitioning), among which k-means++ or random rows choose the
///   initial centres of each of the `n_init` runs;
/// - one query per Lloyd step, each partition summing its rows per nearest centre
///   (`margin_lloyd_sums`); a cluster left empty takes the row farthest from its centre.
///
/// The table is never held in memory. From the same centres, the model is the in-memory
/// fit's ([`KMeansParams::fit_parts`]); its `labels()` are empty (`margin_predict` labels
/// the rows).
///
/// `ctx` must have margin's functions ([`register`](crate::register)); the caller's Tokio
/// runtime must be multi-threaded.
///
/// # Errors
/// A query's error (an unknown table or column, a null feature); an empty table; the
/// parameters' refusals.
pub async fn fit_kmeans(
    ctx: &SessionContext,
    table: &str,
    features: &[&str],
    params: &KMeansParams,
) -> Result<KMeans> {
    check_features(features)?;
    let (n, mean_variance) = spread(ctx, table, features).await?;
    if n == 0 {
        return plan_err!("{table} has no rows to fit");
    }
    let params = params.clone();
    Solver::run(ctx, table, None, features, move |solver| {
        let sample = |rows| sample_rows(solver, rows);
        let sums = |centers: &DenseMatrix| solver.sums::<LloydStep>(&LloydStepRef { centers });
        params.fit_parts(n, mean_variance, sample, sums)
    })
    .await
}

/// `rows` of the table's rows (their features), drawn uniformly without replacement by
/// `margin_sample_rows`: every row when `rows` is the row count.
pub(crate) fn sample_rows(solver: &Solver, rows: usize) -> margin_core::Result<DenseMatrix> {
    let sample = solver.sums::<SampleStep>(&SampleStep { rows })?;
    let rows: Vec<Vec<f64>> = sample.into_iter().map(|(_, row)| row).collect();
    if rows.is_empty() {
        return Err(Error::Numerical("the sample of rows is empty".into()));
    }
    DenseMatrix::from_rows(&rows)
}

/// The rows' count and the mean of the features' population variances.
async fn spread(ctx: &SessionContext, table: &str, features: &[&str]) -> Result<(usize, f64)> {
    let variances: Vec<String> = features
        .iter()
        .map(|f| format!("VAR_POP(CAST({f} AS DOUBLE))"))
        .collect();
    let (n, variances) = count_and_aggregates(ctx, table, &variances).await?;
    Ok((n, variances.iter().sum::<f64>() / features.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample of `rows` kept from `data` cut at `cuts`, the parts merged in `order`.
    fn sampled(data: &Dataset, cuts: &[usize], order: &[usize], rows: usize) -> Keyed {
        let step = SampleStep { rows };
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(data.n_samples());
        let parts: Vec<Keyed> = bounds
            .windows(2)
            .map(|w| {
                let mut sums = step.zero().unwrap();
                // Each part in two batches.
                let mid = (w[0] + w[1]) / 2;
                for range in [w[0]..mid, mid..w[1]] {
                    let batch = data.select(&range.collect::<Vec<_>>()).unwrap();
                    step.add(&batch, &mut sums).unwrap();
                }
                sums
            })
            .collect();
        let mut total = step.zero().unwrap();
        for &i in order {
            step.merge(&mut total, parts[i].clone()).unwrap();
        }
        total
    }

    #[test]
    fn the_sample_does_not_depend_on_how_the_rows_are_parted() {
        let data = margin_io::datasets::housing_scale().unwrap();
        for rows in [1, 7, 100, 506, 2000] {
            let whole = sampled(&data, &[], &[0], rows);
            assert_eq!(whole.len(), rows.min(506));
            assert!(whole.windows(2).all(|w| w[0].0 <= w[1].0));
            assert_eq!(whole, sampled(&data, &[50, 51, 300], &[2, 0, 3, 1], rows));
            assert_eq!(whole, sampled(&data, &[400], &[1, 0], rows));
        }
    }
}
