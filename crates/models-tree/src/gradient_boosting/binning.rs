//! Feature binning: per-feature quantile edges, and the records mapped onto them as `u8` bin
//! indices stored column by column (one feature's bins are contiguous, which is the order the
//! histogram builder reads them in).

use margin_core::split::rng_from_seed;
use margin_core::{DenseView, Result, memory};
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Rows used to find the edges when there are more (scikit-learn's `_BinMapper` default).
pub(super) const BINNING_SUBSAMPLE: usize = 200_000;
/// Thresholds are clipped to this so that a split never compares with infinity.
const ALMOST_INF: f64 = 1e300;

/// The bin edges of every feature.
///
/// A value `x` of feature `j` falls in bin `i` iff `edges[j][i-1] < x <= edges[j][i]`; NaN
/// falls in the dedicated bin `missing_bin` (= `max_bins`, whatever the feature's own count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct BinMapper {
    pub(crate) edges: Vec<Vec<f64>>,
    pub(crate) missing_bin: u8,
}

/// Records mapped onto bins: `bins[j * n_rows + i]` is sample `i`'s bin for feature `j`;
/// optionally also row by row, `by_row[i * n_features + j]`, for building the histograms of
/// nodes whose samples are scattered (one cache line then serves every feature of a sample).
pub(crate) struct BinnedData {
    pub(crate) n_rows: usize,
    pub(crate) bins: Vec<u8>,
    pub(crate) by_row: Vec<u8>,
}

impl BinnedData {
    /// Column-major bins only.
    pub(crate) fn from_columns(n_rows: usize, bins: Vec<u8>) -> Self {
        Self {
            n_rows,
            bins,
            by_row: Vec::new(),
        }
    }

    /// Adds the row-major copy (asked for first).
    pub(crate) fn with_rows(mut self) -> Result<Self> {
        let n = self.n_rows;
        let d = self.bins.len().checked_div(n).unwrap_or(0);
        let mut by_row = bins_table(n, d)?;
        if d > 0 {
            by_row
                .par_chunks_mut(d * 4096)
                .enumerate()
                .for_each(|(c, block)| {
                    for (r, row) in block.chunks_mut(d).enumerate() {
                        let i = c * 4096 + r;
                        for (j, b) in row.iter_mut().enumerate() {
                            *b = self.bins[j * n + i];
                        }
                    }
                });
        }
        self.by_row = by_row;
        Ok(self)
    }

    /// Feature `j`'s bins, one per sample.
    #[inline]
    pub(crate) fn column(&self, j: usize) -> &[u8] {
        &self.bins[j * self.n_rows..(j + 1) * self.n_rows]
    }
}

/// `n × d` bin indices, asked for first.
fn bins_table(n: usize, d: usize) -> Result<Vec<u8>> {
    memory::filled_grid(
        n,
        d,
        0u8,
        &format!("the binned features ({n} × {d})"),
        memory::DENSE_COPY,
    )
}

/// The midpoint of two finite values, without overflowing near `f64::MAX`.
fn midpoint(a: f64, b: f64) -> f64 {
    let m = (a + b) / 2.0;
    if m.is_finite() { m } else { a / 2.0 + b / 2.0 }
}

/// Edges of one feature from its (value, weight) pairs: midpoints between distinct values when
/// there are at most `max_bins` of them, else the weighted quantiles `k / max_bins`
/// (`k = 1..max_bins-1`) by the averaged inverted CDF, deduplicated.
fn feature_edges(mut pairs: Vec<(f64, f64)>, max_bins: usize) -> Vec<f64> {
    pairs.retain(|(x, w)| !x.is_nan() && *w > 0.0);
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut distinct: Vec<f64> = pairs.iter().map(|p| p.0 + 0.0).collect();
    distinct.dedup();
    if distinct.len() <= 1 {
        return Vec::new();
    }
    let mut edges: Vec<f64> = if distinct.len() <= max_bins {
        distinct.windows(2).map(|w| midpoint(w[0], w[1])).collect()
    } else {
        let mut cumulative = Vec::with_capacity(pairs.len());
        let mut total = 0.0;
        for &(_, w) in &pairs {
            total += w;
            cumulative.push(total);
        }
        (1..max_bins)
            .map(|k| {
                let target = total * k as f64 / max_bins as f64;
                let i = cumulative
                    .partition_point(|&c| c < target)
                    .min(pairs.len() - 1);
                // On an exact boundary the averaged inverted CDF takes the mean of the value
                // reached and the next one.
                if cumulative[i] == target && i + 1 < pairs.len() {
                    midpoint(pairs[i].0, pairs[i + 1].0)
                } else {
                    pairs[i].0
                }
            })
            .collect()
    };
    // Clamped first: values beyond ALMOST_INF share the last bin (as scikit-learn's), and
    // edges clamped together must become one, or the edges would not increase.
    edges.iter_mut().for_each(|e| *e = e.min(ALMOST_INF));
    edges.dedup();
    edges
}

impl BinMapper {
    /// Finds the edges of every feature from `records` (rows drawn with replacement by `seed`
    /// when there are more than 200 000, as scikit-learn does), weighting values by `weights`.
    pub(crate) fn fit(x: DenseView<'_>, weights: &[f64], max_bins: u8, seed: u64) -> Self {
        let n = x.nrows();
        let rows: Vec<usize> = if n > BINNING_SUBSAMPLE {
            let mut rng = rng_from_seed(seed);
            let mut r: Vec<usize> = (0..BINNING_SUBSAMPLE)
                .map(|_| rng.random_range(0..n))
                .collect();
            r.sort_unstable();
            r
        } else {
            (0..n).collect()
        };
        let edges = (0..x.ncols())
            .into_par_iter()
            .map(|j| {
                let pairs = rows.iter().map(|&i| (x.get(i, j), weights[i])).collect();
                feature_edges(pairs, max_bins as usize)
            })
            .collect();
        Self {
            edges,
            missing_bin: max_bins,
        }
    }

    /// Number of features.
    pub(crate) fn n_features(&self) -> usize {
        self.edges.len()
    }

    /// Bins used by feature `j`'s non-missing values.
    pub(crate) fn n_bins_non_missing(&self, j: usize) -> usize {
        self.edges[j].len() + 1
    }

    /// The bin of value `v` of feature `j`.
    #[inline]
    pub(crate) fn bin(&self, j: usize, v: f64) -> u8 {
        if v.is_nan() {
            self.missing_bin
        } else {
            self.edges[j].partition_point(|&e| e < v) as u8
        }
    }

    /// Maps every sample of `x` onto its bins, features in parallel (the `n × d` bins asked
    /// for first).
    pub(crate) fn transform(&self, x: DenseView<'_>) -> Result<BinnedData> {
        let n = x.nrows();
        let mut bins = bins_table(n, self.n_features())?;
        if n > 0 {
            bins.par_chunks_mut(n).enumerate().for_each(|(j, col)| {
                for (i, b) in col.iter_mut().enumerate() {
                    *b = self.bin(j, x.get(i, j));
                }
            });
        }
        Ok(BinnedData::from_columns(n, bins))
    }

    /// Whether the stored edges are usable: at most `missing_bin` bins per feature, edges
    /// finite and strictly increasing.
    pub(crate) fn is_consistent(&self) -> bool {
        self.missing_bin >= 2
            && self.edges.iter().all(|e| {
                e.len() < self.missing_bin as usize
                    && e.iter().all(|v| v.is_finite())
                    && e.windows(2).all(|w| w[0] < w[1])
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unweighted(values: &[f64]) -> Vec<(f64, f64)> {
        values.iter().map(|&v| (v, 1.0)).collect()
    }

    #[test]
    fn few_distinct_values_give_midpoints() {
        let e = feature_edges(unweighted(&[3.0, 1.0, 2.0, 2.0, f64::NAN, 1.0]), 255);
        assert_eq!(e, vec![1.5, 2.5]);
        assert!(feature_edges(unweighted(&[4.0, 4.0, f64::NAN]), 255).is_empty());
    }

    #[test]
    fn many_distinct_values_give_quantiles() {
        // 0..8 in 4 bins: quantiles 1/4, 2/4, 3/4 fall exactly on boundaries (2, 4, 6 of 8
        // samples), where the averaged inverted CDF takes midpoints.
        let values: Vec<f64> = (0..8).map(f64::from).collect();
        assert_eq!(feature_edges(unweighted(&values), 4), vec![1.5, 3.5, 5.5]);
        // 0..9 in 4 bins: 9/4 = 2.25 → the 3rd value (2), 4.5 → the 5th (4), 6.75 → the 7th (6).
        let values: Vec<f64> = (0..9).map(f64::from).collect();
        assert_eq!(feature_edges(unweighted(&values), 4), vec![2.0, 4.0, 6.0]);
    }

    #[test]
    fn values_map_to_bins_by_their_edges_and_nan_to_the_missing_bin() {
        let mapper = BinMapper {
            edges: vec![vec![1.5, 2.5]],
            missing_bin: 255,
        };
        let bins: Vec<u8> = [1.0, 1.5, 1.6, 2.5, 9.0, f64::NAN]
            .iter()
            .map(|&v| mapper.bin(0, v))
            .collect();
        assert_eq!(bins, vec![0, 0, 1, 1, 2, 255]);
    }
}
