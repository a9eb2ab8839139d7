//! The boosting loop both estimators share: bin the data, start from the baseline, and at each
//! iteration grow one tree per raw prediction on the loss's gradients; stop early on a held-out
//! validation loss if asked.

use margin_core::fit::{Control, FitReport, Observer, Progress, Run, Stop};
use margin_core::split::{rng_from_seed, train_test_split};
use margin_core::{
    Dataset, DenseCow, DenseMatrix, DenseView, Error, Records, Result, Targets, memory, validate,
};
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::binning::{BinMapper, BinnedData};
use super::grower::{FeatureBins, Grown, TreeLimits, Workspace, grow};
use super::histogram::Gradients;
use super::loss::{Loss, weighted_median};
use super::params::{Boosting, EarlyStopping};
use super::tree::{LANES, Tree, Walk};
use crate::data::check_records;
use crate::params::check_leaf_can_split;

/// Rows per parallel prediction task.
const ROW_CHUNK: usize = 1 << 12;

/// Training sets above this size get early stopping under [`EarlyStopping::Auto`].
const AUTO_EARLY_STOPPING_ABOVE: usize = 10_000;

/// A fitted ensemble: the bin edges, the baseline and the trees, iteration by iteration
/// (`trees[it * K + k]` adds to raw prediction `k`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Ensemble {
    pub(crate) loss: Loss,
    pub(crate) mapper: BinMapper,
    pub(crate) baseline: Vec<f64>,
    pub(crate) trees: Vec<Tree>,
    pub(crate) train_score: Vec<f64>,
    pub(crate) validation_score: Vec<f64>,
}

/// Checks a training set (NaN allowed where missing values are) and returns its records dense.
pub(crate) fn checked_records<'a>(data: &'a Dataset, p: &Boosting) -> Result<DenseCow<'a>> {
    data.check_consistent()?;
    validate::check_non_empty(&data.records)?;
    check_records(&data.records, p.allow_missing)?;
    if let Targets::Values(v) = &data.targets {
        validate::check_finite_slice(v)?;
    }
    validate::check_some_weight(data)?;
    data.records.dense_view()
}

/// Checks records to predict and returns them dense.
pub(crate) fn checked_predict<'a, R: Records + ?Sized>(
    records: &'a R,
    n_features: usize,
    allow_missing: bool,
) -> Result<DenseCow<'a>> {
    validate::check_n_features(n_features, records)?;
    check_records(records, allow_missing)?;
    records.dense_view()
}

/// The training part of the data, and the validation part when early stopping is on.
type Parts = (DenseMatrix, Vec<f64>, Option<Vec<f64>>);

fn split_off_validation(
    p: &Boosting,
    x: DenseView<'_>,
    y: &[f64],
    w: Option<&[f64]>,
    stratify: bool,
    seed: u64,
) -> Result<(Parts, Parts)> {
    // A copy of the records to split (then the two parts): asked for first.
    let mut copy = memory::vec_with_capacity(
        x.as_slice().len(),
        "the records split for validation",
        memory::DENSE_COPY,
    )?;
    copy.extend_from_slice(x.as_slice());
    let copy = DenseMatrix::from_row_major(copy, x.nrows(), x.ncols())?;
    let mut data = Dataset::new(copy, Targets::Values(y.to_vec()))?;
    data.sample_weights = w.map(<[f64]>::to_vec);
    let (train, val) =
        train_test_split(&data, p.validation_fraction, stratify, seed).map_err(|e| match e {
            // Only a split that leaves a side empty is the fraction's fault; running out of
            // memory for the parts is said as it is.
            Error::InvalidParameter { .. } => Error::invalid_parameter(
                "validation_fraction",
                p.validation_fraction,
                format!("a share that leaves samples on both sides of the split ({e})"),
            ),
            other => other,
        })?;
    let unpack = |d: Dataset| -> Result<Parts> {
        let y = d.targets.values()?.into_owned();
        Ok((d.records.dense_view()?.into_owned()?, y, d.sample_weights))
    };
    Ok((unpack(train)?, unpack(val)?))
}

/// Which samples the trees are grown on, for a refusal: `n` after `held_out` went to early
/// stopping's validation set, `n_sub` of them per iteration with `subsample`.
pub(super) fn grown_on(p: &Boosting, n: usize, held_out: usize, n_sub: usize) -> String {
    let mut text = if held_out > 0 {
        format!(
            "{n} samples to grow trees on ({} given, {held_out} held out for early stopping by \
             validation_fraction = {})",
            n + held_out,
            p.validation_fraction
        )
    } else {
        format!("{n} training samples")
    };
    if n_sub < n {
        text += &format!(
            ", {n_sub} of them drawn per iteration (subsample = {})",
            p.subsample
        );
    }
    text
}

/// Whether early stopping holds rows out of a fit on `n` rows.
pub(super) fn early_stopping_on(p: &Boosting, n: usize) -> bool {
    match p.early_stopping {
        EarlyStopping::Auto => n > AUTO_EARLY_STOPPING_ABOVE,
        EarlyStopping::On => true,
        EarlyStopping::Off => false,
    }
}

/// Refuses more rows than the trees' `u32` row indices and counts hold.
pub(super) fn check_row_count(n: usize) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::invalid_parameter(
            "records",
            format!("{n} samples"),
            "at most 2³² − 1 samples",
        ));
    }
    Ok(())
}

/// `k` of the `n` rows, ascending, uniformly without replacement (selection sampling).
fn sample_rows(n: usize, k: usize, rng: &mut impl Rng) -> Vec<u32> {
    let mut rows = Vec::with_capacity(k);
    for i in 0..n {
        let left = k - rows.len();
        if left == 0 {
            break;
        }
        if rng.random_range(0..n - i) < left {
            rows.push(i as u32);
        }
    }
    rows
}

/// Whether the last `n_iter_no_change` scores all fail to beat the one before them by `tol`
/// (scikit-learn's rule; scores are negated losses, higher is better).
fn should_stop(scores: &[f64], n_iter_no_change: usize, tol: f64) -> bool {
    let reference = n_iter_no_change + 1;
    if scores.len() < reference {
        return false;
    }
    let base = scores[scores.len() - reference] + tol;
    !scores[scores.len() - n_iter_no_change..]
        .iter()
        .any(|&s| s > base)
}

impl Ensemble {
    /// Fits the ensemble on dense records `x`, targets `y` (class indices as numbers for the
    /// log losses) and optional weights; `stratify` splits the validation set by class.
    pub(crate) fn fit(
        p: &Boosting,
        loss: Loss,
        x: DenseView<'_>,
        y: &[f64],
        w: Option<&[f64]>,
        stratify: bool,
        observer: &mut dyn Observer,
    ) -> Result<Self> {
        let mut rng = rng_from_seed(p.seed);
        let (binning_seed, split_seed): (u64, u64) = (rng.random(), rng.random());
        let early = early_stopping_on(p, x.nrows());
        let split = if early {
            Some(split_off_validation(p, x, y, w, stratify, split_seed)?)
        } else {
            None
        };
        let (x, y, w) = match &split {
            Some((t, _)) => (t.0.view(), &t.1[..], t.2.as_deref()),
            None => (x, y, w),
        };
        let validation = split.as_ref().map(|(_, v)| v);
        let n = x.nrows();
        check_row_count(n)?;
        let n_sub = ((p.subsample * n as f64).round() as usize).clamp(1, n);
        check_leaf_can_split(
            p.min_samples_leaf,
            p.min_samples_leaf,
            n_sub,
            &grown_on(p, n, validation.map_or(0, |v| v.1.len()), n_sub),
        )?;
        let mapper = match w {
            Some(w) => BinMapper::fit(x, w, p.max_bins as u8, binning_seed),
            None => BinMapper::fit(x, &vec![1.0; n], p.max_bins as u8, binning_seed),
        };
        let binned = mapper.transform(x)?.with_rows()?;
        let bins = FeatureBins::new(&mapper, &binned);
        let limits = TreeLimits::of(p);
        let k_trees = loss.n_trees();
        let baseline = loss.baseline(y, w);
        let mut raw: Vec<f64> = baseline
            .iter()
            .flat_map(|&b| std::iter::repeat_n(b, n))
            .collect();
        let val = validation
            .map(|(vx, vy, vw)| Ok((mapper.transform(vx.view())?, &vy[..], vw.as_deref())))
            .transpose()?;
        let mut val_raw: Option<Vec<f64>> = val.as_ref().map(|(_, vy, _)| {
            baseline
                .iter()
                .flat_map(|&b| std::iter::repeat_n(b, vy.len()))
                .collect()
        });
        let mut model = Self {
            loss,
            mapper,
            baseline,
            trees: Vec::new(),
            train_score: Vec::new(),
            validation_score: Vec::new(),
        };
        let record_scores = |m: &mut Self, raw: &[f64], vraw: Option<&[f64]>| {
            m.train_score.push(-loss.mean(y, raw, w));
            if let (Some(vraw), Some((_, vy, vw))) = (vraw, &val) {
                m.validation_score.push(-loss.mean(vy, vraw, *vw));
            }
        };
        if early {
            record_scores(&mut model, &raw, val_raw.as_deref());
        }
        let mut gh = vec![[0f32; 2]; n * k_trees];
        let unit_hessian = loss.constant_hessian() && w.is_none();
        let mut ws = Workspace::default();
        for round in 1..=p.max_iter {
            loss.gradients(y, &raw, w, &mut gh);
            let rows: Vec<u32> = if n_sub < n {
                sample_rows(n, n_sub, &mut rng)
            } else {
                (0..n as u32).collect()
            };
            for k in 0..k_trees {
                let grads = Gradients {
                    pairs: &gh[k * n..(k + 1) * n],
                    unit_hessian,
                };
                let mut grown = grow(
                    &binned,
                    &grads,
                    rows.clone(),
                    &bins,
                    &limits,
                    &mut ws,
                    &model.mapper,
                );
                let raw_k = &mut raw[k * n..(k + 1) * n];
                if loss == Loss::AbsoluteError {
                    set_leaves_to_median_residuals(&mut grown, y, raw_k, w, p.learning_rate);
                }
                if n_sub == n {
                    add_leaf_values(&grown, raw_k);
                } else {
                    add_binned(&grown.tree, &binned, model.mapper.missing_bin, raw_k);
                }
                if let (Some(vr), Some((vb, ..))) = (&mut val_raw, &val) {
                    let m = vb.n_rows;
                    add_binned(
                        &grown.tree,
                        vb,
                        model.mapper.missing_bin,
                        &mut vr[k * m..(k + 1) * m],
                    );
                }
                model.trees.push(grown.tree);
            }
            if early {
                record_scores(&mut model, &raw, val_raw.as_deref());
                if should_stop(&model.validation_score, p.n_iter_no_change, p.tol) {
                    break;
                }
            }
            // The training loss when early stopping records it (scores are negated losses).
            let progress = Progress {
                objective: model.train_score.last().map(|s| -s),
                ..Progress::new("boosting", round)
            };
            if observer.observe(&progress) == Control::Stop {
                break;
            }
        }
        Ok(model)
    }

    /// Iterations grown.
    pub(crate) fn n_iter(&self) -> usize {
        self.trees.len() / self.baseline.len().max(1)
    }

    /// How the boosting loop went, `p` being the parameters it was fitted with: one run of
    /// [`Self::n_iter`] rounds. It stopped on [`Stop::NoImprovement`] when early stopping
    /// fired, at the limit when early stopping was on and `max_iter` iterations ran out before
    /// it fired (the held-out loss still improved by more than `tol`). Without early stopping
    /// `max_iter` is the size of the ensemble by design, never a limit reached: converged. A
    /// loop that ended before `max_iter` on neither was ended by an observer. Nothing of this
    /// is stored: the scores and the parameters say it all.
    pub(crate) fn fit_report(&self, p: &Boosting) -> FitReport {
        // Scores are recorded only with early stopping on.
        let early = !self.validation_score.is_empty();
        let stop = if early && should_stop(&self.validation_score, p.n_iter_no_change, p.tol) {
            Stop::NoImprovement {
                rounds: p.n_iter_no_change,
            }
        } else if self.n_iter() < p.max_iter {
            Stop::Observer
        } else if early {
            Stop::MaxIterations
        } else {
            Stop::CONVERGED
        };
        let run = Run::new(self.n_iter(), stop);
        FitReport::new(vec![match self.train_score.last() {
            Some(s) => run.with_objective(-s),
            None => run,
        }])
    }

    /// Number of features.
    pub(crate) fn n_features(&self) -> usize {
        self.mapper.n_features()
    }

    /// Raw predictions, `n × K`: the baseline plus every tree's leaf, in iteration order (the
    /// order training accumulated them, so training rows get the same numbers).
    pub(crate) fn raw_predict(&self, x: DenseView<'_>) -> DenseMatrix {
        let k = self.baseline.len();
        let walk = Walk::new(&self.trees);
        let mut out = DenseMatrix::zeros(x.nrows(), k);
        out.as_mut_slice()
            .par_chunks_mut(k * ROW_CHUNK)
            .enumerate()
            .for_each(|(c, block)| {
                let mut leaves = [0.0; LANES];
                for (g, o) in block.chunks_mut(k * LANES).enumerate() {
                    let first = c * ROW_CHUNK + g * LANES;
                    let mut lanes = [x.row(first); LANES];
                    for (lane, i) in lanes.iter_mut().zip(first..first + o.len() / k) {
                        *lane = x.row(i);
                    }
                    let rows = &lanes[..o.len() / k];
                    for row in o.chunks_mut(k) {
                        row.copy_from_slice(&self.baseline);
                    }
                    for t in 0..walk.n_trees() {
                        walk.leaf_values(t, rows, &mut leaves);
                        for (row, v) in o.chunks_mut(k).zip(&leaves) {
                            row[t % k] += v;
                        }
                    }
                }
            });
        out
    }

    /// Gain-based importances: each feature's share of the total loss reduction of all splits.
    pub(crate) fn feature_importances(&self) -> Vec<f64> {
        let mut imp = vec![0.0; self.n_features()];
        for node in self.trees.iter().flat_map(|t| &t.nodes) {
            if let Some(s) = &node.split {
                imp[s.feature as usize] += s.gain.max(0.0);
            }
        }
        let total: f64 = imp.iter().sum();
        if total > 0.0 {
            imp.iter_mut().for_each(|v| *v /= total);
        }
        imp
    }

    /// Whether a decoded ensemble can be used: `K` trees per iteration, valid edges and trees.
    pub(crate) fn is_consistent(&self) -> bool {
        let k = self.loss.n_trees();
        let d = self.n_features();
        self.mapper.is_consistent()
            && d > 0
            && self.baseline.len() == k
            && self.baseline.iter().all(|b| b.is_finite())
            && self.trees.len().is_multiple_of(k)
            && self.trees.iter().all(|t| {
                t.is_consistent(
                    |j| (j < d).then(|| self.mapper.n_bins_non_missing(j)),
                    |j, b| self.mapper.edges[j][b],
                )
            })
    }
}

/// Absolute error: the gradient step only finds the leaves (the gradients are signs); each
/// leaf's value is then `shrinkage ×` the weighted median residual of its samples, the loss's
/// own minimizer (scikit-learn's `_update_leaves_values`).
fn set_leaves_to_median_residuals(
    grown: &mut Grown,
    y: &[f64],
    raw: &[f64],
    w: Option<&[f64]>,
    shrinkage: f64,
) {
    for leaf in &grown.leaves {
        let rows = &grown.partition[leaf.start..leaf.stop];
        let residuals: Vec<f64> = rows
            .iter()
            .map(|&i| y[i as usize] - raw[i as usize])
            .collect();
        let weights: Option<Vec<f64>> = w.map(|w| rows.iter().map(|&i| w[i as usize]).collect());
        grown.tree.nodes[leaf.node].value =
            shrinkage * weighted_median(&residuals, weights.as_deref());
    }
}

/// Adds each leaf's value to the raw predictions of the training rows it holds (every row is
/// in one leaf). Blocks of rows in parallel: a leaf's rows are ascending, so the ones in a
/// block are found by two binary searches.
fn add_leaf_values(grown: &Grown, raw: &mut [f64]) {
    // One add a row; the binary searches, two a leaf, are few beside a block's rows.
    let block = margin_core::parallel::chunk_len(raw.len(), 1);
    raw.par_chunks_mut(block).enumerate().for_each(|(c, part)| {
        let (first, end) = (c * block, c * block + part.len());
        for leaf in &grown.leaves {
            let v = grown.tree.nodes[leaf.node].value;
            let rows = &grown.partition[leaf.start..leaf.stop];
            let from = rows.partition_point(|&i| (i as usize) < first);
            let to = rows.partition_point(|&i| (i as usize) < end);
            for &i in &rows[from..to] {
                part[i as usize - first] += v;
            }
        }
    });
}

/// Adds a tree's leaf value to `raw` for every row of binned data (rows in parallel).
fn add_binned(tree: &Tree, data: &BinnedData, missing_bin: u8, raw: &mut [f64]) {
    raw.par_chunks_mut(ROW_CHUNK)
        .enumerate()
        .for_each(|(c, block)| {
            for (r, v) in block.iter_mut().enumerate() {
                let i = c * ROW_CHUNK + r;
                *v += tree.predict_binned(missing_bin, |j| data.bins[j * data.n_rows + i]);
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_after_n_iter_no_change_without_improvement() {
        assert!(!should_stop(&[-3.0, -2.0, -2.0], 2, 0.0));
        assert!(should_stop(&[-3.0, -2.0, -2.0, -2.0], 2, 0.0));
        assert!(!should_stop(&[-3.0, -2.0, -2.0, -1.0], 2, 0.0));
        // An improvement smaller than tol does not count.
        assert!(should_stop(&[-3.0, -2.0, -1.95, -1.95], 2, 0.1));
    }

    #[test]
    fn row_samples_are_sorted_distinct_and_sized() {
        let mut rng = rng_from_seed(3);
        let rows = sample_rows(100, 37, &mut rng);
        assert_eq!(rows.len(), 37);
        assert!(rows.windows(2).all(|w| w[0] < w[1]));
        assert!(rows.iter().all(|&r| r < 100));
    }
}
