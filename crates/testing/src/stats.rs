//! Fitting from statistics gathered in parts: what every [`FitStats`] test runs to show that
//! any partitioning of the rows, merged in any order, gives the model one pass gives.

use margin_core::{Dataset, DenseMatrix, FitStats, Matrix, Merge, PartialFit, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Fits `params` from statistics gathered in parts ([`merge_parts`]): the dataset's rows cut
/// into parts of batches as [`part_rows`] cuts them.
pub fn fit_in_parts<P: FitStats>(
    params: &P,
    data: &Dataset,
    cuts: &[usize],
    seed: u64,
) -> Result<P::Model> {
    let parts = part_rows(cuts)
        .iter()
        .map(|batches| batches.iter().map(|rows| data.select(rows)).collect())
        .collect::<Result<Vec<_>>>()?;
    merge_parts(params, &parts, seed)
}

/// A matrix's rows cut into parts of batches as [`part_rows`] cuts them: the parts
/// [`merge_parts`] takes for a transformer.
pub fn matrix_parts(x: &DenseMatrix, cuts: &[usize]) -> Result<Vec<Vec<Matrix>>> {
    part_rows(cuts)
        .iter()
        .map(|batches| {
            batches
                .iter()
                .map(|rows| x.select_rows(rows).map(Matrix::from))
                .collect()
        })
        .collect()
}

/// Cut points as [`part_rows`] takes them: `cuts` (any row indices up to `n`, as a test
/// strategy draws them) with the first row and the end `n` added, sorted and deduplicated.
pub fn cut_points(mut cuts: Vec<usize>, n: usize) -> Vec<usize> {
    cuts.extend([0, n]);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// The rows of each part's batches: the rows cut at `cuts` (increasing row indices, the first
/// and the end included; empty ranges skipped), each part streaming two batches (the first
/// half of its rows, then the rest; one batch for a one-row part).
pub fn part_rows(cuts: &[usize]) -> Vec<Vec<Vec<usize>>> {
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| {
            let middle = w[0] + (w[1] - w[0]).div_ceil(2);
            [w[0]..middle, middle..w[1]]
                .into_iter()
                .filter(|range| !range.is_empty())
                .map(|range| range.collect())
                .collect()
        })
        .collect()
}

/// Fits `params` from statistics gathered on each part (a list of batches, streamed in order),
/// sent through bytes (bincode, as between processes), then merged two at a time in an order
/// and a grouping drawn from `seed` (a random binary tree over the parts). No parts gives
/// empty statistics, which `fit_stats` refuses.
pub fn merge_parts<I, P: FitStats<I>>(params: &P, parts: &[Vec<I>], seed: u64) -> Result<P::Model> {
    let mut stats = Vec::new();
    for batches in parts {
        let mut part = params.stats();
        for batch in batches {
            part.partial_fit(batch)?;
        }
        stats.push(through_bytes(&part));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    stats.shuffle(&mut rng);
    while stats.len() > 1 {
        let i = rng.random_range(0..stats.len() - 1);
        let right = stats.remove(i + 1);
        stats[i].merge(&right)?;
    }
    let merged = stats.pop().unwrap_or_else(|| params.stats());
    params.fit_stats(&merged)
}

/// `value` encoded and decoded again, as statistics travel between processes.
fn through_bytes<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    let codec = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(value, codec).expect("statistics encode");
    bincode::serde::decode_from_slice(&bytes, codec)
        .expect("statistics decode")
        .0
}
