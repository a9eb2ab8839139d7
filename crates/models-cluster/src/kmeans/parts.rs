//! k-means over rows held in parts (the partitions of a table, other machines), as Spark fits
//! it: each Lloyd step asks every part for its [`LloydSums`] at the current centres, and the
//! centres move to the means those sums give. The parts assign rows by the in-memory rule
//! (see [`super::assign`]), so the fit follows the in-memory one from the same start and stops
//! at the same iteration, its centres equal to rounding.

use std::cmp::Ordering;

use margin_core::fit::Stop;
use margin_core::params::Params;
use margin_core::split::rng_from_seed;
use margin_core::{DenseMatrix, Error, Records, Result, validate};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::assign::{assign_and_sum, sq_dist_to, sq_norms};
use super::{KMeans, KMeansInit, KMeansParams, check_common, finish, initial, lloyd};

/// A row far from its centre: the candidate for a cluster left empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Far {
    dist: f64,
    label: usize,
    row: Vec<f64>,
}

impl Far {
    /// Farthest first; equal distances by the rows' bits, so which rows are kept never
    /// depends on how the rows were parted.
    fn order(&self, other: &Self) -> Ordering {
        other
            .dist
            .total_cmp(&self.dist)
            .then_with(|| by_bits(&self.row, &other.row))
            .then(self.label.cmp(&other.label))
    }
}

/// Two rows ordered by their values' bits, lexicographically.
fn by_bits(a: &[f64], b: &[f64]) -> Ordering {
    a.iter()
        .map(|v| v.to_bits())
        .cmp(b.iter().map(|v| v.to_bits()))
}

/// One Lloyd step's sums over some rows, at given centres: each cluster's row count and
/// feature sums, the rows' squared distances to their nearest centre summed (the inertia at
/// those centres), and the `k` rows farthest from their centres (which clusters left empty
/// take, as in the in-memory fit). The sums of two parts [`merge`](Self::merge) into the sums
/// of their rows; serializable, to travel from the parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LloydSums {
    counts: Vec<usize>,
    sums: DenseMatrix,
    inertia: f64,
    farthest: Vec<Far>,
}

impl LloydSums {
    /// Nothing summed yet, for `k` centres of `d` features.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when `k × d` sums do not fit in memory.
    pub fn new(k: usize, d: usize) -> Result<Self> {
        Ok(Self {
            counts: vec![0; k],
            sums: DenseMatrix::try_zeros(
                k,
                d,
                &format!("k-means's sums for {k} centres of {d} features"),
                margin_core::memory::FEWER_FEATURES,
            )?,
            inertia: 0.0,
            farthest: Vec::new(),
        })
    }

    /// Adds the rows of `part`, each assigned to its nearest centre in `centers` (`k × d`).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `centers` or the part's width is not the sums'; a
    /// non-finite value in the part.
    pub fn add<R: Records + ?Sized>(&mut self, part: &R, centers: &DenseMatrix) -> Result<()> {
        let (k, d) = (self.sums.nrows(), self.sums.ncols());
        if centers.nrows() != k || centers.ncols() != d {
            return Err(Error::shape(
                "the centres (k × d)",
                k * d,
                centers.as_slice().len(),
            ));
        }
        if part.n_features() != d {
            return Err(Error::shape("a part's features", d, part.n_features()));
        }
        let n = part.n_samples();
        if n == 0 {
            return Ok(());
        }
        validate::check_finite(part)?;
        let a = assign_and_sum(part, &sq_norms(part), centers);
        let dists: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| sq_dist_to(&part.row(i), centers.row(a.labels[i] as usize)))
            .collect();
        let far = |i: usize| {
            let mut row = vec![0.0; d];
            part.row(i).to_dense_into(&mut row);
            Far {
                dist: dists[i],
                label: a.labels[i] as usize,
                row,
            }
        };
        // The k farthest of this part, ties broken as `Far::order` breaks them (`merge`
        // sorts them).
        let mut order: Vec<usize> = (0..n).collect();
        if n > k {
            if k > 0 {
                // Rows at equal distances are compared in these buffers, not copied.
                let (mut ri, mut rj) = (vec![0.0; d], vec![0.0; d]);
                order.select_nth_unstable_by(k - 1, |&i, &j| {
                    dists[j].total_cmp(&dists[i]).then_with(|| {
                        part.row(i).to_dense_into(&mut ri);
                        part.row(j).to_dense_into(&mut rj);
                        by_bits(&ri, &rj).then(a.labels[i].cmp(&a.labels[j]))
                    })
                });
            }
            order.truncate(k);
        }
        let farthest = order.into_iter().map(far).collect();
        self.merge(Self {
            counts: a.counts,
            sums: a.sums,
            inertia: dists.iter().sum(),
            farthest,
        })
    }

    /// Adds another part's sums.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the two were made for different centres' shapes.
    pub fn merge(&mut self, other: LloydSums) -> Result<()> {
        let (k, d) = (self.sums.nrows(), self.sums.ncols());
        if other.sums.nrows() != k || other.sums.ncols() != d || other.counts.len() != k {
            return Err(Error::shape(
                "another part's sums (k × d)",
                k * d,
                other.sums.as_slice().len(),
            ));
        }
        self.counts
            .iter_mut()
            .zip(&other.counts)
            .for_each(|(a, b)| *a += b);
        self.sums
            .as_mut_slice()
            .iter_mut()
            .zip(other.sums.as_slice())
            .for_each(|(a, b)| *a += b);
        self.inertia += other.inertia;
        self.farthest.extend(other.farthest);
        self.farthest.sort_by(Far::order);
        self.farthest.truncate(k);
        Ok(())
    }

    /// The rows' squared distances to their nearest centre, summed.
    pub fn inertia(&self) -> f64 {
        self.inertia
    }

    /// The rows counted.
    pub fn n_samples(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The centres the step moves to: each cluster's mean; a cluster left empty takes the
    /// farthest row, which leaves its own cluster's mean (the in-memory rule).
    fn centers(mut self) -> DenseMatrix {
        let empty: Vec<usize> = (0..self.counts.len())
            .filter(|&j| self.counts[j] == 0)
            .collect();
        for (&j, far) in empty.iter().zip(&self.farthest) {
            if self.counts[far.label] > 1 {
                let old = self.sums.row_mut(far.label);
                old.iter_mut().zip(&far.row).for_each(|(s, v)| *s -= v);
                self.counts[far.label] -= 1;
            }
            self.sums.row_mut(j).copy_from_slice(&far.row);
            self.counts[j] = 1;
        }
        for (j, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                self.sums.row_mut(j).iter_mut().for_each(|v| *v /= c as f64);
            }
        }
        self.sums
    }
}

impl KMeansParams {
    /// Fits k-means over rows held in parts by Lloyd steps: `sums(centers)` returns the
    /// [`LloydSums`] of every part at `centers`, merged (one query over a table's partitions).
    /// `n` is the rows' count and `mean_variance` the mean over features of each feature's
    /// population variance (what `tol` is relative to). Unless centres are given, the runs
    /// start from centres chosen (k-means++ or random rows) among `sample(m)`: `m` rows drawn
    /// uniformly from the parts, with `m = min(n, max(3072, 3k))` (scikit-learn's
    /// `MiniBatchKMeans` initializes on as many).
    ///
    /// From the same initial centres, the model is the in-memory fit's: the same iterations,
    /// the centres and inertia equal to rounding. Its `labels()` are empty, since the rows
    /// stay in their parts (`predict` labels them).
    ///
    /// # Errors
    /// The parameters' refusals; `n_clusters` above `n` or above the sample's rows; given
    /// centres that are not `n_clusters` finite rows; the first error `sample` or `sums`
    /// returned; sums of the wrong shape or not counting `n` rows.
    pub fn fit_parts<R: Records>(
        &self,
        n: usize,
        mean_variance: f64,
        sample: impl FnOnce(usize) -> Result<R>,
        mut sums: impl FnMut(&DenseMatrix) -> Result<LloydSums>,
    ) -> Result<KMeans> {
        self.check()?;
        let k = self.clusters.n_clusters;
        if k > n {
            return Err(Error::invalid_parameter(
                "n_clusters",
                k,
                format!("an integer between 1 and the number of samples, {n}"),
            ));
        }
        let init = self.clusters.init_choice();
        let sample = match &init {
            KMeansInit::Centers(c) => {
                if c.nrows() != k {
                    return Err(Error::shape(
                        "initial centres (rows must equal n_clusters)",
                        k,
                        c.nrows(),
                    ));
                }
                validate::check_finite(c)?;
                Start::Given(c)
            }
            _ => {
                let rows = sample(n.min((3 * 1024).max(3 * k)))?;
                validate::check_finite(&rows)?;
                check_common(k, &init, &rows)?;
                Start::Sample(rows)
            }
        };
        let d = match &sample {
            Start::Sample(rows) => rows.n_features(),
            Start::Given(centers) => centers.ncols(),
        };
        let mut step = |centers: &DenseMatrix| {
            let s = sums(centers)?;
            if s.sums.nrows() != k || s.sums.ncols() != d {
                return Err(Error::shape(
                    "the summed parts (k × d)",
                    k * d,
                    s.sums.as_slice().len(),
                ));
            }
            if s.n_samples() != n {
                return Err(Error::shape("the rows the parts summed", n, s.n_samples()));
            }
            Ok(s)
        };
        let tol = self.tol * mean_variance;
        let zero = vec![0.0; d];
        let mut rng = rng_from_seed(self.seed);
        let mut best: Option<lloyd::Run> = None;
        for _ in 0..self.runs() {
            let start = match &sample {
                Start::Sample(rows) => initial(rows, k, &init, &zero, &mut rng),
                Start::Given(centers) => (*centers).clone(),
            };
            let run = lloyd_parts(start, self.max_iter, tol, &mut step)?;
            if best.as_ref().is_none_or(|b| run.inertia < b.inertia) {
                best = Some(run);
            }
        }
        let best = best.ok_or_else(|| Error::invalid_parameter("n_init", 0, "at least one run"))?;
        Ok(finish(best, &zero, self))
    }
}

/// Where a fit over parts starts: given centres, or rows sampled to choose them among.
enum Start<'a, R> {
    Given(&'a DenseMatrix),
    Sample(R),
}

/// One run of Lloyd steps from `centers`, stopping as [`lloyd::iterate`] does: when the
/// centres move by at most `tol` (an assignment that repeats the previous one moves them by
/// exactly zero) or after `max_iter` steps.
fn lloyd_parts(
    mut centers: DenseMatrix,
    max_iter: usize,
    tol: f64,
    step: &mut impl FnMut(&DenseMatrix) -> Result<LloydSums>,
) -> Result<lloyd::Run> {
    let mut stop = Stop::MaxIterations;
    let mut n_iter = 0;
    let mut settled = None;
    for it in 0..max_iter {
        n_iter = it + 1;
        let sums = step(&centers)?;
        let inertia = sums.inertia;
        let next = sums.centers();
        let shift = lloyd::moved(&centers, &next);
        centers = next;
        if shift <= tol {
            stop = Stop::CONVERGED;
            // Unmoved centres: this step's inertia is the final one.
            settled = (shift == 0.0).then_some(inertia);
            break;
        }
    }
    let inertia = match settled {
        Some(i) => i,
        None => step(&centers)?.inertia,
    };
    Ok(lloyd::Run {
        centers,
        labels: Vec::new(),
        inertia,
        n_iter,
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::Fit;

    /// Rows in three clusters, with a far outlier.
    fn rows() -> DenseMatrix {
        let rows: Vec<Vec<f64>> = (0..90)
            .map(|i| {
                let t = i as f64;
                let c = (i % 3) as f64 * 4.0;
                vec![c + (t * 0.37).sin(), -c + (t * 0.11).cos(), (t * 0.7).sin()]
            })
            .chain([vec![40.0, 40.0, 40.0]])
            .collect();
        DenseMatrix::from_rows(&rows).unwrap()
    }

    /// `x`'s rows cut in `cuts` parts, as records.
    fn parted(x: &DenseMatrix, cuts: &[usize]) -> Vec<DenseMatrix> {
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(x.nrows());
        bounds
            .windows(2)
            .map(|w| x.select_rows(&(w[0]..w[1]).collect::<Vec<_>>()).unwrap())
            .collect()
    }

    fn summed(parts: &[DenseMatrix], centers: &DenseMatrix) -> Result<LloydSums> {
        let mut total = LloydSums::new(centers.nrows(), centers.ncols())?;
        for p in parts.iter().rev() {
            let mut s = LloydSums::new(centers.nrows(), centers.ncols())?;
            s.add(p, centers)?;
            total.merge(s)?;
        }
        Ok(total)
    }

    #[test]
    fn sums_over_parts_are_the_whole_sums() {
        let x = rows();
        let c =
            DenseMatrix::from_rows(&[[0.0, 0.0, 0.0], [4.0, -4.0, 0.0], [9.0, 9.0, 9.0]]).unwrap();
        let whole = summed(std::slice::from_ref(&x), &c).unwrap();
        let split = summed(&parted(&x, &[17, 40, 41, 77]), &c).unwrap();
        assert_eq!(whole.counts, split.counts);
        assert_eq!(whole.farthest, split.farthest);
        assert_eq!(whole.farthest[0].row, vec![40.0, 40.0, 40.0]);
        for (a, b) in whole.sums.as_slice().iter().zip(split.sums.as_slice()) {
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0));
        }
        assert!((whole.inertia - split.inertia).abs() <= 1e-12 * whole.inertia);
    }

    #[test]
    fn a_fit_over_parts_is_the_in_memory_fit() {
        let x = rows();
        let parts = parted(&x, &[30, 31, 60]);
        let mean_variance = super::super::mean_variance(&x);
        let given = DenseMatrix::from_rows(&[
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [2.0, 2.0, 2.0],
            [100.0, 100.0, 100.0],
        ])
        .unwrap();
        for params in [
            KMeans::params().n_clusters(3).seed(3),
            KMeans::params()
                .n_clusters(4)
                .init(KMeansInit::Random)
                .seed(5),
            // The last centre is far from every row: its cluster empties and is relocated.
            KMeans::params()
                .n_clusters(4)
                .init(KMeansInit::Centers(given.clone())),
        ] {
            let memory = params.fit(&x).unwrap();
            let fitted = params
                .fit_parts(
                    x.nrows(),
                    mean_variance,
                    |_| Ok(x.clone()),
                    |c| summed(&parts, c),
                )
                .unwrap();
            assert!(fitted.labels().is_empty());
            assert_eq!(fitted.n_iter, memory.n_iter);
            assert_eq!(fitted.stop, memory.stop);
            for (a, b) in fitted
                .centers
                .as_slice()
                .iter()
                .zip(memory.centers.as_slice())
            {
                assert!((a - b).abs() <= 1e-10, "{a} vs {b}");
            }
            assert!((fitted.inertia - memory.inertia).abs() <= 1e-10 * memory.inertia);
        }
    }

    #[test]
    fn bad_sums_and_shapes_are_refused() {
        let x = rows();
        let p = KMeans::params().n_clusters(3);
        let err = p
            .fit_parts(
                2,
                1.0,
                |_| Ok(x.clone()),
                |c| summed(std::slice::from_ref(&x), c),
            )
            .unwrap_err();
        assert!(err.to_string().contains("n_clusters"), "{err}");
        let err = p
            .fit_parts(
                x.nrows(),
                1.0,
                |_| Ok(x.clone()),
                |c| {
                    summed(&parted(&x, &[10]), c).map(|mut s| {
                        s.counts[0] += 1;
                        s
                    })
                },
            )
            .unwrap_err();
        assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
        let failed = p.fit_parts(
            x.nrows(),
            1.0,
            |_| Ok(x.clone()),
            |_| Err(Error::Numerical("lost".into())),
        );
        assert!(failed.unwrap_err().to_string().contains("lost"));
        let mut s = LloydSums::new(3, 3).unwrap();
        assert!(
            s.add(&DenseMatrix::zeros(2, 2), &DenseMatrix::zeros(3, 3))
                .is_err()
        );
        assert!(s.merge(LloydSums::new(3, 2).unwrap()).is_err());
    }
}
