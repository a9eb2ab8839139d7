//! Lloyd's algorithm, stopping as scikit-learn's `_kmeans_single_lloyd` does, and the iteration
//! loop it shares with Elkan's variant.

use margin_core::fit::{Control, Observer, Progress, Stop};
use margin_core::{DenseMatrix, Records};
use rayon::prelude::*;

use super::assign::{Assignment, assign_and_sum, inertia, nearest, sq_dist_to, sq_norms};

/// One k-means run from given initial centres.
pub(crate) struct Run {
    pub(crate) centers: DenseMatrix,
    pub(crate) labels: Vec<u32>,
    pub(crate) inertia: f64,
    pub(crate) n_iter: usize,
    pub(crate) stop: Stop,
}

/// Lloyd iterations, every assignment by GEMM blocks ([`assign_and_sum`]).
pub(crate) fn lloyd<R: Records + ?Sized>(
    x: &R,
    centers: DenseMatrix,
    max_iter: usize,
    tol: f64,
    observer: &mut dyn Observer,
) -> Run {
    let x_sq = sq_norms(x);
    let assign = |c: &DenseMatrix| assign_and_sum(x, &x_sq, c);
    iterate(x, centers, (max_iter, tol), ("lloyd", observer), assign)
}

/// The k-means iteration: `assign` gives every row's nearest centre (the assignment rule of
/// [`super::assign`]) with the per-cluster sums, and each centre moves to the mean of its rows.
/// Stops when an assignment repeats the previous one ("strict convergence"), when the centres
/// moved by at most `tol` in total squared distance, or after `max_iter` iterations. Unless the
/// assignment repeated, the returned labels are recomputed for the final centres, so labels,
/// centres and inertia always agree. Two `assign` functions that give the same labels and sums
/// give bit-identical runs.
///
/// `observer` sees each iteration with the centre shift as its violation and, when it asks
/// ([`Observer::wants_objective`]), the inertia of the iteration's assignment to the moved
/// centres: that never rises (a mean is the best centre of its rows, and the next assignment
/// can only lower each row's distance).
pub(crate) fn iterate<R: Records + ?Sized>(
    x: &R,
    mut centers: DenseMatrix,
    (max_iter, tol): (usize, f64),
    (solver, observer): (&'static str, &mut dyn Observer),
    mut assign: impl FnMut(&DenseMatrix) -> Assignment,
) -> Run {
    let mut previous: Option<Vec<u32>> = None;
    let mut settled: Option<Vec<u32>> = None;
    let mut stop = Stop::MaxIterations;
    let mut n_iter = 0;
    for it in 0..max_iter {
        n_iter = it + 1;
        let mut a = assign(&centers);
        let next = centers_from(x, &centers, &mut a);
        let shift = moved(&centers, &next);
        centers = next;
        let progress = Progress {
            violation: Some(shift),
            objective: observer
                .wants_objective()
                .then(|| inertia(x, &centers, &a.labels)),
            ..Progress::new(solver, n_iter)
        };
        if observer.observe(&progress) == Control::Stop {
            stop = Stop::Observer;
            break;
        }
        if previous.as_ref() == Some(&a.labels) {
            // The centres are the means of this very assignment: labels and centres agree.
            stop = Stop::CONVERGED;
            settled = Some(a.labels);
            break;
        }
        if shift <= tol {
            stop = Stop::CONVERGED;
            break;
        }
        previous = Some(a.labels);
    }
    let labels = settled.unwrap_or_else(|| nearest(x, &centers).0);
    let inertia = inertia(x, &centers, &labels);
    Run {
        centers,
        labels,
        inertia,
        n_iter,
        stop,
    }
}

/// How far the centres moved: the total squared distance from `old` to `new`.
pub(crate) fn moved(old: &DenseMatrix, new: &DenseMatrix) -> f64 {
    new.as_slice()
        .iter()
        .zip(old.as_slice())
        .map(|(a, b)| (a - b) * (a - b))
        .sum()
}

/// The means of the assigned rows. A cluster left empty takes the row farthest from its own
/// centre in `old` (by [`sq_dist_to`]; the farthest rows go to the empty clusters in cluster
/// order, ties to the lower row index), and that row leaves its old cluster's mean:
/// scikit-learn's relocation rule.
pub(crate) fn centers_from<R: Records + ?Sized>(
    x: &R,
    old: &DenseMatrix,
    a: &mut Assignment,
) -> DenseMatrix {
    let empty: Vec<usize> = (0..a.counts.len()).filter(|&j| a.counts[j] == 0).collect();
    if !empty.is_empty() {
        let dists: Vec<f64> = (0..x.n_samples())
            .into_par_iter()
            .map(|i| sq_dist_to(&x.row(i), old.row(a.labels[i] as usize)))
            .collect();
        let mut order: Vec<usize> = (0..dists.len()).collect();
        order.sort_by(|&i, &j| dists[j].total_cmp(&dists[i]).then(i.cmp(&j)));
        for (&j, &i) in empty.iter().zip(&order) {
            let old = a.labels[i] as usize;
            if a.counts[old] > 1 {
                x.row(i).axpy(-1.0, a.sums.row_mut(old));
                a.counts[old] -= 1;
            }
            x.row(i).to_dense_into(a.sums.row_mut(j));
            a.counts[j] = 1;
        }
    }
    let mut centers = a.sums.clone();
    for (j, &c) in a.counts.iter().enumerate() {
        if c > 0 {
            centers.row_mut(j).iter_mut().for_each(|v| *v /= c as f64);
        }
    }
    centers
}
