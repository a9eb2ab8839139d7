//! Initial centres: greedy k-means++ and uniformly drawn rows.

use margin_core::{DenseMatrix, Records};
use rand::Rng;
use rayon::prelude::*;

use super::assign::groups;

/// `k` distinct rows drawn uniformly (scikit-learn's `init="random"`).
pub(crate) fn random_rows<R: Records + ?Sized>(x: &R, k: usize, rng: &mut impl Rng) -> DenseMatrix {
    let idx = rand::seq::index::sample(rng, x.n_samples(), k).into_vec();
    rows_as_centers(x, &idx)
}

/// Greedy k-means++ (Arthur & Vassilvitskii 2007, with scikit-learn's greedy refinement): the
/// first centre is a uniform row; each next one is the best, by resulting potential
/// `Σ_i min_c ‖x_i − c‖²`, of `2 + ⌊ln k⌋` rows drawn with probability proportional to their
/// current squared distance to the nearest centre.
pub(crate) fn kmeans_plusplus<R: Records + ?Sized>(
    x: &R,
    k: usize,
    rng: &mut impl Rng,
) -> DenseMatrix {
    let n = x.n_samples();
    let trials = 2 + (k as f64).ln() as usize;
    let mut chosen = vec![rng.random_range(0..n)];
    let mut closest = sq_dists_to(x, chosen[0]);
    let mut potential = ordered_sum(&closest);
    let mut cumsum = vec![0.0; n];
    for _ in 1..k {
        let mut acc = 0.0;
        for (c, d) in cumsum.iter_mut().zip(&closest) {
            acc += d;
            *c = acc;
        }
        let candidates: Vec<usize> = (0..trials)
            .map(|_| {
                let target = rng.random::<f64>() * potential;
                cumsum.partition_point(|&c| c < target).min(n - 1)
            })
            .collect();
        // Potentials of every candidate, summed per fixed row group then in group order.
        let per_group: Vec<Vec<f64>> = groups(n)
            .into_par_iter()
            .map(|range| {
                let mut pot = vec![0.0; trials];
                for i in range {
                    let xi = x.row(i);
                    for (p, &c) in pot.iter_mut().zip(&candidates) {
                        *p += xi.sq_dist(&x.row(c)).min(closest[i]);
                    }
                }
                pot
            })
            .collect();
        let mut pots = vec![0.0; trials];
        for g in &per_group {
            pots.iter_mut().zip(g).for_each(|(a, b)| *a += b);
        }
        let mut best = 0;
        for t in 1..trials {
            if pots[t] < pots[best] {
                best = t;
            }
        }
        let c = candidates[best];
        chosen.push(c);
        let to_c = sq_dists_to(x, c);
        closest
            .iter_mut()
            .zip(&to_c)
            .for_each(|(a, &b)| *a = a.min(b));
        potential = ordered_sum(&closest);
    }
    rows_as_centers(x, &chosen)
}

/// `‖x_i − x_c‖²` for every row `i`.
fn sq_dists_to<R: Records + ?Sized>(x: &R, c: usize) -> Vec<f64> {
    let xc = x.row(c);
    (0..x.n_samples())
        .into_par_iter()
        .map(|i| x.row(i).sq_dist(&xc))
        .collect()
}

/// A sum in a fixed order (per group, then groups in order).
fn ordered_sum(v: &[f64]) -> f64 {
    groups(v.len())
        .into_par_iter()
        .map(|r| v[r].iter().sum::<f64>())
        .collect::<Vec<f64>>()
        .into_iter()
        .sum()
}

/// The rows at `idx` as a dense `k × d` matrix.
pub(crate) fn rows_as_centers<R: Records + ?Sized>(x: &R, idx: &[usize]) -> DenseMatrix {
    let mut c = DenseMatrix::zeros(idx.len(), x.n_features());
    for (j, &i) in idx.iter().enumerate() {
        x.row(i).to_dense_into(c.row_mut(j));
    }
    c
}
