//! Boosting on rows held in parts (files, partitions of a table, machines), as XGBoost and
//! Spark distribute it: the trees are grown on the client from gradient histograms, and each
//! pass over the parts sums the histograms of the nodes the growers wait for.
//!
//! A pass's [`BoostingStep`] carries the ensemble so far (each part recomputes its rows'
//! raw predictions and gradients: nothing is kept between passes) and the trees being grown
//! with the histograms wanted. For every open node that may be split next, a pass sums the
//! rows its candidate split sends to the smaller side; the larger side's histograms are the
//! node's minus those, as in memory. The growers then split best-first exactly as
//! [`grow`](super::grower::grow) does, so a tree takes one pass per level it is grown to
//! (plus one for the roots), and rows summed in the same order give the in-memory trees bit
//! for bit.

use margin_core::fit::{Control, Observer, Progress};
use margin_core::{
    Dataset, DenseMatrix, Error, PartClasses, Records, Result, Targets, memory, validate,
};
use serde::{Deserialize, Serialize};

use super::binning::{BINNING_SUBSAMPLE, BinMapper};
use super::booster::{Ensemble, check_row_count, early_stopping_on, grown_on};
use super::grower::{
    Candidate, FeatureBins, MIN_HESSIAN_TO_SPLIT, Next, Sums, TreeLimits, best_first, best_split,
    split_node,
};
use super::histogram::{Bin, Histograms};
use super::loss::Loss;
use super::params::Boosting;
use super::tree::{Node, Tree};
use crate::data::check_records;
use crate::params::check_leaf_can_split;

/// Rows of the side of a candidate split (of a node not yet split).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Side {
    feature: u32,
    bin: u8,
    missing_left: bool,
    left: bool,
}

impl Side {
    /// Whether a row with bin `b` of the split's feature is on this side.
    fn holds(&self, b: u8, missing_bin: u8) -> bool {
        let left = if b == missing_bin {
            self.missing_left
        } else {
            b <= self.bin
        };
        left == self.left
    }
}

/// A histogram a pass sums: of the rows reaching `node` of tree `tree` (of those being grown),
/// those on `side` (every one for `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Wanted {
    tree: u32,
    node: u32,
    side: Option<Side>,
}

/// What one pass over the parts asks of each: the gradient histograms of some nodes of the
/// trees being grown. Sent to every part; [`BoostingStep::add`] sums a part's rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoostingStep {
    loss: Loss,
    /// The classifier's classes (their weights multiply the gradients); `None` for a regressor.
    classes: Option<PartClasses>,
    allow_missing: bool,
    mapper: BinMapper,
    baseline: Vec<f64>,
    /// The finished trees, iteration by iteration.
    trees: Vec<Tree>,
    /// One tree per raw prediction, split as far as grown.
    growing: Vec<Tree>,
    wanted: Vec<Wanted>,
}

/// The histograms of a [`BoostingStep`] summed over some rows: for each histogram wanted,
/// feature by feature, the non-missing bins then the missing one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoostingSums {
    g: Vec<f64>,
    h: Vec<f64>,
    n: Vec<u32>,
    rows: u64,
}

impl BoostingSums {
    /// Adds another part's sums of the same step.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for sums of another step's size.
    pub fn merge(&mut self, other: BoostingSums) -> Result<()> {
        if other.g.len() != self.g.len() {
            return Err(Error::shape(
                "boosting histograms to merge",
                self.g.len(),
                other.g.len(),
            ));
        }
        for (a, b) in self.g.iter_mut().zip(&other.g) {
            *a += b;
        }
        for (a, b) in self.h.iter_mut().zip(&other.h) {
            *a += b;
        }
        for (a, b) in self.n.iter_mut().zip(&other.n) {
            *a += b;
        }
        self.rows += other.rows;
        Ok(())
    }
}

impl BoostingStep {
    /// Refuses a step whose bins, trees and wanted histograms do not fit together, so that
    /// bytes not written by a fit give an error, not a panic.
    fn check(&self) -> Result<()> {
        let d = self.mapper.n_features();
        let k = self.loss.n_trees();
        let bins_of = |j: usize| (j < d).then(|| self.mapper.n_bins_non_missing(j));
        let tree_ok = |t: &Tree| t.is_consistent(bins_of, |j, b| self.mapper.edges[j][b]);
        let wanted_ok = |w: &Wanted| {
            self.growing
                .get(w.tree as usize)
                .is_some_and(|t| (w.node as usize) < t.nodes.len())
                && w.side.is_none_or(|s| (s.feature as usize) < d)
        };
        let classes_ok = match (&self.classes, self.loss) {
            (None, Loss::SquaredError | Loss::AbsoluteError) => true,
            (Some(c), Loss::BinaryLog | Loss::MultinomialLog(_)) => c.labels().len() == k.max(2),
            _ => false,
        };
        let ok = d > 0
            && self.mapper.is_consistent()
            && self.baseline.len() == k
            && self.baseline.iter().all(|b| b.is_finite())
            && self.trees.len().is_multiple_of(k)
            && self.growing.len() == k
            && self.trees.iter().chain(&self.growing).all(tree_ok)
            && self.wanted.iter().all(wanted_ok)
            && classes_ok;
        if ok {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                "step",
                "a boosting step whose bins, trees and histograms do not fit together",
                "the bytes of a step a boosting fit over parts wrote",
            ))
        }
    }

    /// Where each feature's bins start in one histogram, and one histogram's length.
    fn layout(&self) -> (Vec<usize>, usize) {
        let mut offsets = Vec::with_capacity(self.mapper.n_features());
        let mut len = 0;
        for j in 0..self.mapper.n_features() {
            offsets.push(len);
            len += self.mapper.n_bins_non_missing(j) + 1;
        }
        (offsets, len)
    }

    /// Nothing summed yet: zero histograms (asked for first).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a step whose parts do not fit together (one decoded
    /// from bytes not written by a fit); [`Error::OutOfMemory`] when the histograms cannot be
    /// held.
    pub fn zero(&self) -> Result<BoostingSums> {
        self.check()?;
        let (_, len) = self.layout();
        let total = len.saturating_mul(self.wanted.len());
        let what = format!("{} boosting histograms", self.wanted.len());
        Ok(BoostingSums {
            g: memory::filled_vec(total, 0.0, &what, memory::DENSE_COPY)?,
            h: memory::filled_vec(total, 0.0, &what, memory::DENSE_COPY)?,
            n: memory::filled_vec(total, 0, &what, memory::DENSE_COPY)?,
            rows: 0,
        })
    }

    /// Adds the rows of `part` (its features, and its targets: class labels for a
    /// classifier, values for a regressor) to `sums`.
    ///
    /// # Errors
    /// A step whose parts do not fit together; inconsistent data, a part of the wrong width, infinite values (and NaN unless missing
    /// values are allowed), non-finite targets, a label the first pass did not see, sample
    /// weights (the fit over parts takes none), sums of another step.
    pub fn add(&self, part: &Dataset, sums: &mut BoostingSums) -> Result<()> {
        self.check()?;
        part.check_consistent()?;
        validate::check_n_features(self.mapper.n_features(), &part.records)?;
        check_records(&part.records, self.allow_missing)?;
        if part.sample_weights.is_some() {
            return Err(Error::invalid_parameter(
                "sample_weights",
                "given",
                "no sample weights: boosting over parts weighs rows by class_weight only",
            ));
        }
        let (offsets, len) = self.layout();
        if sums.g.len() != len * self.wanted.len() {
            return Err(Error::shape(
                "boosting histograms",
                len * self.wanted.len(),
                sums.g.len(),
            ));
        }
        let (y, w) = self.targets(&part.targets)?;
        let x = part.records.dense_view()?;
        let x = x.view();
        let (d, k) = (self.mapper.n_features(), self.loss.n_trees());
        let missing = self.mapper.missing_bin;
        // Which histogram each node of each tree being grown feeds, if any.
        let mut fed: Vec<Vec<Option<usize>>> = self
            .growing
            .iter()
            .map(|t| vec![None; t.nodes.len()])
            .collect();
        for (r, want) in self.wanted.iter().enumerate() {
            fed[want.tree as usize][want.node as usize] = Some(r);
        }
        let mut bins = vec![0u8; d];
        let (mut raw, mut p) = (vec![0.0; k], vec![0.0; k]);
        let (mut g, mut h) = (vec![0f32; k], vec![0f32; k]);
        for i in 0..x.nrows() {
            for (j, (b, &v)) in bins.iter_mut().zip(x.row(i)).enumerate() {
                *b = self.mapper.bin(j, v);
            }
            // The raw predictions as training accumulates them: tree by tree, in order.
            raw.copy_from_slice(&self.baseline);
            for (t, tree) in self.trees.iter().enumerate() {
                raw[t % k] += tree.predict_binned(missing, |j| bins[j]);
            }
            let wi = w.as_ref().map_or(1.0, |w| w[i]);
            self.loss.point_gradient(y[i], &raw, &mut p, |c, gv, hv| {
                g[c] = (wi * gv) as f32;
                h[c] = (wi * hv) as f32;
            });
            for (c, tree) in self.growing.iter().enumerate() {
                let node = tree.leaf_binned(missing, |j| bins[j]);
                if let Some(r) = fed[c][node] {
                    let side = self.wanted[r].side;
                    if side.is_some_and(|s| !s.holds(bins[s.feature as usize], missing)) {
                        continue;
                    }
                    let base = r * len;
                    for (j, &b) in bins.iter().enumerate() {
                        let slot = if b == missing {
                            self.mapper.n_bins_non_missing(j)
                        } else {
                            usize::from(b)
                        };
                        let at = base + offsets[j] + slot;
                        sums.g[at] += f64::from(g[c]);
                        sums.h[at] += f64::from(h[c]);
                        sums.n[at] += 1;
                    }
                }
            }
        }
        sums.rows += x.nrows() as u64;
        Ok(())
    }

    /// A part's targets as the loss reads them (class indices for a classifier) and their
    /// class weights.
    fn targets(&self, targets: &Targets) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
        match &self.classes {
            Some(classes) => {
                let (y, w) = classes.of(targets)?;
                Ok((y.into_iter().map(|c| c as f64).collect(), w))
            }
            None => {
                let y = targets.values()?.into_owned();
                validate::check_finite_slice(&y)?;
                Ok((y, None))
            }
        }
    }

    /// Histogram `r` of `sums` as the grower reads it.
    fn histograms(&self, sums: &BoostingSums, r: usize) -> Histograms {
        let (offsets, len) = self.layout();
        let d = self.mapper.n_features();
        let mut hist = Histograms::new(d);
        for (j, feature) in hist.features.iter_mut().enumerate() {
            let n_bins = self.mapper.n_bins_non_missing(j);
            for slot in 0..=n_bins {
                let at = r * len + offsets[j] + slot;
                let b = if slot == n_bins {
                    usize::from(self.mapper.missing_bin)
                } else {
                    slot
                };
                feature[b] = Bin {
                    g: sums.g[at],
                    h: sums.h[at],
                    n: sums.n[at],
                };
            }
        }
        hist
    }
}

/// A node that may still be split, with its histograms and, once a pass summed them, those
/// of its candidate split's smaller side.
struct OpenNode {
    node: usize,
    depth: usize,
    sums: Sums,
    hist: Histograms,
    split: Candidate,
    smaller: Option<Histograms>,
}

impl OpenNode {
    /// Whether the left child is the smaller (the in-memory grower's choice: ties go right).
    fn left_smaller(&self) -> bool {
        self.split.n_left < self.sums.n - self.split.n_left
    }

    /// Whether a child could be split after this node is (the tree's fullness aside).
    fn children_may_split(&self, limits: &TreeLimits) -> bool {
        let counts = (self.split.n_left, self.sums.n - self.split.n_left);
        let next = Next::after_split(limits, 0, self.depth + 1, counts);
        next.split_left || next.split_right
    }
}

/// One tree grown best-first from histograms summed over parts.
struct PartGrower {
    nodes: Vec<Node>,
    open: Vec<OpenNode>,
    n_leaves: usize,
    /// The root's histograms are not summed yet.
    root_pending: bool,
}

/// What every grower reads: the features' bins, the limits, the edges.
struct Growing<'a> {
    bins: &'a FeatureBins,
    limits: &'a TreeLimits,
    mapper: &'a BinMapper,
}

impl PartGrower {
    fn new() -> Self {
        Self {
            nodes: vec![Node {
                value: 0.0,
                count: 0,
                split: None,
            }],
            open: Vec::new(),
            n_leaves: 0,
            root_pending: true,
        }
    }

    /// The root from its histograms (every row): opened, or a leaf adding nothing.
    fn root(&mut self, hist: Histograms, n: usize, at: &Growing<'_>) {
        self.root_pending = false;
        self.nodes[0].count = n as u32;
        // Any feature's histogram sums to the node's totals.
        let g: f64 = hist.feature(0).iter().map(|b| b.g).sum();
        let h: f64 = hist.feature(0).iter().map(|b| b.h).sum();
        let root = Sums {
            g,
            h,
            n: n as u32,
            value: 0.0,
        };
        if n >= 2 * at.limits.min_samples_leaf && h >= MIN_HESSIAN_TO_SPLIT {
            self.consider(0, 0, root, hist, at);
        } else {
            self.n_leaves += 1;
        }
    }

    /// Opens a node with its best split, or makes it a leaf when it has none.
    fn consider(&mut self, node: usize, depth: usize, sums: Sums, hist: Histograms, at: &Growing) {
        match best_split(&hist, at.bins, sums, at.limits) {
            Some(split) => self.open.push(OpenNode {
                node,
                depth,
                sums,
                hist,
                split,
                smaller: None,
            }),
            None => self.n_leaves += 1,
        }
    }

    /// Splits best-first, as the in-memory grower does, until the tree is grown or the node
    /// to split next waits for its smaller side's histograms.
    fn advance(&mut self, at: &Growing<'_>) {
        while !self.open.is_empty() {
            let pick = best_first(self.open.iter().map(|o| o.split.gain));
            let o = &self.open[pick];
            let counts = (o.split.n_left, o.sums.n - o.split.n_left);
            let n_leaves = self.n_leaves + self.open.len() - 1 + 2;
            let next = Next::after_split(at.limits, n_leaves, o.depth + 1, counts);
            let children = next.split_left || next.split_right;
            if children && o.smaller.is_none() {
                return;
            }
            let o = self.open.remove(pick);
            let (left_sums, right_sums) = split_node(
                &mut self.nodes,
                o.node,
                o.sums,
                &o.split,
                at.bins,
                at.limits,
                at.mapper,
            );
            let (left, right) = (self.nodes.len() - 2, self.nodes.len() - 1);
            if next.full {
                self.n_leaves += self.open.len();
                self.open.clear();
            }
            self.n_leaves += usize::from(!next.split_left) + usize::from(!next.split_right);
            if !children {
                continue;
            }
            let left_smaller = o.left_smaller();
            // Present: a node whose children split waits for it above.
            let (Some(smaller), mut hist) = (o.smaller, o.hist) else {
                continue;
            };
            hist.subtract(&smaller);
            let (left_hist, right_hist) = if left_smaller {
                (smaller, hist)
            } else {
                (hist, smaller)
            };
            let depth = o.depth + 1;
            if next.split_left {
                self.consider(left, depth, left_sums, left_hist, at);
            }
            if next.split_right {
                self.consider(right, depth, right_sums, right_hist, at);
            }
        }
    }

    /// The histograms this tree (number `tree`) waits for: the root's, or the smaller side
    /// of every open node whose children could still be split.
    fn wanted(&self, tree: usize, limits: &TreeLimits) -> Vec<Wanted> {
        if self.root_pending {
            return vec![Wanted {
                tree: tree as u32,
                node: 0,
                side: None,
            }];
        }
        self.open
            .iter()
            .filter(|o| o.smaller.is_none() && o.children_may_split(limits))
            .map(|o| Wanted {
                tree: tree as u32,
                node: o.node as u32,
                side: Some(Side {
                    feature: o.split.feature as u32,
                    bin: o.split.bin as u8,
                    missing_left: o.split.missing_left,
                    left: o.left_smaller(),
                }),
            })
            .collect()
    }

    /// The grown tree, leaf values shrunk.
    fn finish(mut self, shrinkage: f64) -> Tree {
        for node in self.nodes.iter_mut().filter(|n| n.split.is_none()) {
            node.value *= shrinkage;
        }
        Tree { nodes: self.nodes }
    }
}

/// The trees being grown as a pass routes rows through them.
fn growing_trees(growers: &[PartGrower]) -> Vec<Tree> {
    growers
        .iter()
        .map(|g| Tree {
            nodes: g.nodes.clone(),
        })
        .collect()
}

impl Ensemble {
    /// Fits on `n` rows held in parts: `sample(m)` returns `m` of the rows drawn uniformly
    /// (every row when `m = n`), whose quantiles give the bins; `sums(step)` sums a
    /// [`BoostingStep`] over every part.
    pub(crate) fn fit_parts(
        p: &Boosting,
        start: (Loss, Option<PartClasses>, Vec<f64>),
        n: usize,
        sample: impl FnOnce(usize) -> Result<DenseMatrix>,
        mut sums: impl FnMut(&BoostingStep) -> Result<BoostingSums>,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Self> {
        let (loss, classes, baseline) = start;
        check_parts(p, loss, n)?;
        let rows = sample(n.min(BINNING_SUBSAMPLE))?;
        validate::check_non_empty(&rows)?;
        check_records(&rows, p.allow_missing)?;
        // At most `BINNING_SUBSAMPLE` rows: the edges are the quantiles of all of them.
        let mapper = BinMapper::fit(rows.view(), &vec![1.0; rows.nrows()], p.max_bins as u8, 0);
        let limits = TreeLimits::of(p);
        let mut step = BoostingStep {
            loss,
            classes,
            allow_missing: p.allow_missing,
            mapper,
            baseline,
            trees: Vec::new(),
            growing: Vec::new(),
            wanted: Vec::new(),
        };
        let mut bins: Option<FeatureBins> = None;
        let mut observer = observer;
        for round in 1..=p.max_iter {
            let mut growers: Vec<PartGrower> =
                (0..loss.n_trees()).map(|_| PartGrower::new()).collect();
            loop {
                step.wanted = growers
                    .iter()
                    .enumerate()
                    .flat_map(|(t, g)| g.wanted(t, &limits))
                    .collect();
                if step.wanted.is_empty() {
                    break;
                }
                step.growing = growing_trees(&growers);
                let summed = sums(&step)?;
                let slots = step.layout().1 * step.wanted.len();
                if summed.rows != n as u64 || summed.g.len() != slots {
                    return Err(Error::Numerical(format!(
                        "the parts' histograms counted {} rows in {} slots, the first pass {n} \
                         rows and this step {slots} slots: the parts changed during the fit",
                        summed.rows,
                        summed.g.len(),
                    )));
                }
                let missing = usize::from(step.mapper.missing_bin);
                let bins = bins.get_or_insert_with(|| {
                    // The first root holds every row: a feature has missing values iff its
                    // missing bin counts some.
                    let root = step.histograms(&summed, 0);
                    FeatureBins {
                        n_bins_non_missing: (0..step.mapper.n_features())
                            .map(|j| step.mapper.n_bins_non_missing(j))
                            .collect(),
                        has_missing: root.features.iter().map(|f| f[missing].n > 0).collect(),
                        missing_bin: step.mapper.missing_bin,
                    }
                });
                let at = Growing {
                    bins,
                    limits: &limits,
                    mapper: &step.mapper,
                };
                for (r, want) in step.wanted.iter().enumerate() {
                    let hist = step.histograms(&summed, r);
                    let grower = &mut growers[want.tree as usize];
                    match want.side {
                        None => grower.root(hist, n, &at),
                        Some(_) => {
                            if let Some(o) =
                                grower.open.iter_mut().find(|o| o.node as u32 == want.node)
                            {
                                o.smaller = Some(hist);
                            }
                        }
                    }
                }
                for grower in &mut growers {
                    grower.advance(&at);
                }
            }
            step.trees
                .extend(growers.into_iter().map(|g| g.finish(p.learning_rate)));
            let progress = Progress::new("boosting", round);
            if let Some(o) = observer.as_deref_mut()
                && o.observe(&progress) == Control::Stop
            {
                break;
            }
        }
        Ok(Self {
            loss,
            mapper: step.mapper,
            baseline: step.baseline,
            trees: step.trees,
            train_score: Vec::new(),
            validation_score: Vec::new(),
        })
    }
}

/// Refuses what the fit over parts cannot do as in memory.
fn check_parts(p: &Boosting, loss: Loss, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::EmptyDataset(
            "the first pass counted no rows: give rows to fit on".into(),
        ));
    }
    check_row_count(n)?;
    if early_stopping_on(p, n) {
        return Err(Error::invalid_parameter(
            "early_stopping",
            format!("{:?} with {n} samples", p.early_stopping),
            "false: boosting over parts grows every iteration on every row (early stopping \
             holds rows out by position, which parts do not have)",
        ));
    }
    if p.subsample < 1.0 {
        return Err(Error::invalid_parameter(
            "subsample",
            p.subsample,
            "1: boosting over parts grows every tree on every row",
        ));
    }
    if loss == Loss::AbsoluteError {
        return Err(Error::invalid_parameter(
            "loss",
            "absolute_error",
            "squared_error: absolute error's leaves are medians, which histograms do not give",
        ));
    }
    check_leaf_can_split(
        p.min_samples_leaf,
        p.min_samples_leaf,
        n,
        &grown_on(p, n, 0, n),
    )
}

#[cfg(test)]
mod tests {
    use margin_core::split::rng_from_seed;
    use margin_core::{ClassWeight, DecisionFunction, Fit, Label, Predict};
    use margin_testing::stats::part_rows;
    use rand::Rng;
    use rand::seq::SliceRandom;

    use super::*;
    use crate::{
        EarlyStopping, GradientBoostingClassifier, GradientBoostingClassifierParams,
        GradientBoostingRegressorParams,
    };

    /// `n` rows of 4 continuous features (a tenth of feature 2 missing), a regression target
    /// and a 3-class label from them.
    fn data(n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>, Vec<&'static str>) {
        let mut rng = rng_from_seed(seed);
        let x: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                let mut row: Vec<f64> = (0..4).map(|_| rng.random_range(-2.0..2.0)).collect();
                if rng.random_range(0.0..1.0) < 0.1 {
                    row[2] = f64::NAN;
                }
                row
            })
            .collect();
        let y = x
            .iter()
            .map(|r| r[0].sin() + r[1] * r[1] + 0.3 * r[3] + rng.random_range(-0.1..0.1))
            .collect();
        let labels = x
            .iter()
            .map(|r| {
                let s = r[0] + 0.5 * r[1] - 0.25 * r[3] + rng.random_range(-0.5..0.5);
                if r[2].is_nan() || s < -0.5 {
                    "low"
                } else if s < 0.7 {
                    "mid"
                } else {
                    "high"
                }
            })
            .collect();
        (x, y, labels)
    }

    /// A `sums` callback over `data` cut at `cuts` (each part in two batches), parts merged
    /// in an order drawn from `seed`.
    fn summer(
        data: &Dataset,
        cuts: &[usize],
        seed: u64,
    ) -> impl FnMut(&BoostingStep) -> Result<BoostingSums> {
        let parts: Vec<Vec<Dataset>> = part_rows(cuts)
            .iter()
            .map(|batches| batches.iter().map(|r| data.select(r).unwrap()).collect())
            .collect();
        let mut rng = rng_from_seed(seed);
        move |step| {
            let mut each = Vec::new();
            for batches in &parts {
                let mut sums = step.zero()?;
                for batch in batches {
                    step.add(batch, &mut sums)?;
                }
                each.push(sums);
            }
            each.shuffle(&mut rng);
            let mut total = step.zero()?;
            for sums in each {
                total.merge(sums)?;
            }
            Ok(total)
        }
    }

    fn counts(labels: &[&str]) -> Vec<(Label, usize)> {
        ["high", "low", "mid"]
            .iter()
            .map(|&c| (Label::from(c), labels.iter().filter(|&&l| l == c).count()))
            .filter(|(_, k)| *k > 0)
            .collect()
    }

    /// Every row as the sample (what `sample(n)` gives).
    fn all_rows(x: &[Vec<f64>]) -> impl FnOnce(usize) -> Result<DenseMatrix> + '_ {
        move |_| DenseMatrix::from_rows(x)
    }

    /// One part summed in row order is the in-memory fit bit for bit: the same trees, leaf
    /// values and edges, for the squared error, two classes and three (balanced weights).
    #[test]
    fn one_part_is_the_in_memory_fit() {
        let (x, y, labels) = data(300, 1);
        let n = x.len();
        let reg = GradientBoostingRegressorParams::default()
            .max_iter(8)
            .max_leaf_nodes(Some(9))
            .min_samples_leaf(5)
            .early_stopping(EarlyStopping::Off);
        let data = Dataset::regression(&x, y.iter().copied()).unwrap();
        let memory = reg.fit(&data).unwrap();
        let sum: f64 = y.iter().sum();
        let parts = reg
            .fit_parts(n, sum, all_rows(&x), summer(&data, &[0, n], 0), None)
            .unwrap();
        assert_eq!(parts, memory);
        // The trees split on every feature the target depends on.
        let importances = memory.feature_importances();
        assert!([0, 1, 3].iter().all(|&j| importances[j] > 0.0));

        // 200 rows: at most 255 distinct values per feature, so the edges are the midpoints
        // between them, which class weights do not move (the sample is not weighted).
        let (x, labels) = (&x[..200], &labels[..200]);
        let n = x.len();
        let binary: Vec<&str> = labels
            .iter()
            .map(|&l| if l == "high" { "high" } else { "other" })
            .collect();
        let three = GradientBoostingClassifierParams::default()
            .max_iter(6)
            .max_depth(Some(3))
            .min_samples_leaf(4)
            .early_stopping(EarlyStopping::Off);
        for (labels, params, weighted) in [
            (&binary[..], three.clone(), false),
            (
                labels,
                three.clone().class_weight(ClassWeight::Balanced),
                true,
            ),
        ] {
            let data = Dataset::classification(x, labels.iter().copied()).unwrap();
            let memory = params.fit(&data).unwrap();
            let counts: Vec<(Label, usize)> = ["high", "low", "mid", "other"]
                .iter()
                .map(|&c| (Label::from(c), labels.iter().filter(|&&l| l == c).count()))
                .filter(|(_, k)| *k > 0)
                .collect();
            let parts = params
                .fit_parts(&counts, all_rows(x), summer(&data, &[0, n], 0), None)
                .unwrap();
            if !weighted {
                assert_eq!(parts, memory);
            } else {
                // The baseline's weighted class frequencies are the counts times the weights,
                // not the weights added row by row: equal to rounding.
                let rows = DenseMatrix::from_rows(x).unwrap();
                assert_same_scores(&parts, &memory, &rows, 1e-12);
            }
        }
    }

    /// Parts merged in any order sum in another order: the same trees up to rounding, and
    /// predictions equal to 1e-9.
    #[test]
    fn parts_in_any_order_give_the_in_memory_model() {
        let (x, y, labels) = data(500, 2);
        let n = x.len();
        let data = Dataset::regression(&x, y.iter().copied()).unwrap();
        let reg = GradientBoostingRegressorParams::default()
            .max_iter(10)
            .early_stopping(EarlyStopping::Off);
        let memory = reg.fit(&data).unwrap();
        let sum: f64 = y.iter().sum();
        let rows = DenseMatrix::from_rows(&x).unwrap();
        let expected = memory.predict(&rows).unwrap();
        for (cuts, seed) in [(vec![0, 170, 171, 400, n], 3), (vec![0, 250, n], 4)] {
            let parts = reg
                .fit_parts(n, sum, all_rows(&x), summer(&data, &cuts, seed), None)
                .unwrap();
            let got = parts.predict(&rows).unwrap();
            for (a, b) in got.iter().zip(&expected) {
                assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
        let data = Dataset::classification(&x, labels.iter().copied()).unwrap();
        let clf = GradientBoostingClassifierParams::default()
            .max_iter(10)
            .early_stopping(EarlyStopping::Off);
        let memory = clf.fit(&data).unwrap();
        let parts = clf
            .fit_parts(
                &counts(&labels),
                all_rows(&x),
                summer(&data, &[0, 123, 321, n], 5),
                None,
            )
            .unwrap();
        assert_same_scores(&parts, &memory, &rows, 1e-9);
    }

    /// The same classes, and decision values within `tol` (relative to 1 + |value|).
    fn assert_same_scores(
        a: &GradientBoostingClassifier,
        b: &GradientBoostingClassifier,
        rows: &DenseMatrix,
        tol: f64,
    ) {
        assert_eq!(a.predict(rows).unwrap(), b.predict(rows).unwrap());
        let (a, b) = (
            a.decision_function(rows).unwrap(),
            b.decision_function(rows).unwrap(),
        );
        for (a, b) in a.as_slice().iter().zip(b.as_slice()) {
            assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn what_parts_cannot_do_is_refused() {
        let (x, y, _) = data(60, 3);
        let n = x.len();
        let data = Dataset::regression(&x, y.iter().copied()).unwrap();
        let off = GradientBoostingRegressorParams::default()
            .max_iter(2)
            .early_stopping(EarlyStopping::Off);
        let fit = |p: &GradientBoostingRegressorParams, n: usize| {
            p.fit_parts(n, 1.0, all_rows(&x), summer(&data, &[0, 60], 0), None)
                .unwrap_err()
                .to_string()
        };
        // Early stopping holds rows out: auto turns it on above 10 000 rows.
        let auto = off.clone().early_stopping(EarlyStopping::Auto);
        assert!(fit(&auto, 20_000).contains("early_stopping"));
        assert!(fit(&off.clone().subsample(0.5), n).contains("subsample"));
        let absolute = off
            .clone()
            .loss(super::super::RegressionLoss::AbsoluteError);
        assert!(fit(&absolute, n).contains("absolute_error"));
        // The parts hold fewer rows than the first pass counted.
        assert!(fit(&off, n + 1).contains("changed during the fit"));
        assert!(
            off.fit_parts(0, 0.0, all_rows(&x), summer(&data, &[0, 60], 0), None)
                .is_err()
        );
        // A part of another width, a part with sample weights.
        let mut seen = None;
        off.fit_parts(
            n,
            1.0,
            all_rows(&x),
            |s| {
                seen = Some(s.clone());
                summer(&data, &[0, 60], 0)(s)
            },
            None,
        )
        .unwrap();
        let step = seen.unwrap();
        let narrow = Dataset::regression(vec![vec![1.0; 3]], [1.0]).unwrap();
        assert!(step.add(&narrow, &mut step.zero().unwrap()).is_err());
        let mut weighted = data.select(&[0, 1]).unwrap();
        weighted.sample_weights = Some(vec![1.0, 2.0]);
        let err = step.add(&weighted, &mut step.zero().unwrap()).unwrap_err();
        assert!(err.to_string().contains("sample_weights"), "{err}");
        // A step whose parts do not fit together (bytes not written by a fit) is refused.
        let mut stray = step.clone();
        stray.wanted.push(Wanted {
            tree: 7,
            node: 0,
            side: None,
        });
        let mut short = step.clone();
        short.baseline.clear();
        for bad in [stray, short] {
            let err = bad.zero().unwrap_err().to_string();
            assert!(err.contains("do not fit together"), "{err}");
            assert!(bad.add(&data, &mut step.zero().unwrap()).is_err());
        }
        // Sums of another step do not merge.
        let mut other = step.zero().unwrap();
        other.g.push(0.0);
        assert!(step.zero().unwrap().merge(other).is_err());
    }

    /// Three classes' rows and a step of a fit on them: trees grown, a tree per class being
    /// grown, histograms of several sides wanted.
    fn late_step() -> &'static (Dataset, BoostingStep) {
        static LATE: std::sync::OnceLock<(Dataset, BoostingStep)> = std::sync::OnceLock::new();
        LATE.get_or_init(|| {
            let (x, _, labels) = data(200, 4);
            let data = Dataset::classification(&x, labels.iter().copied()).unwrap();
            let mut seen = None;
            GradientBoostingClassifierParams::default()
                .max_iter(3)
                .early_stopping(EarlyStopping::Off)
                .fit_parts(
                    &counts(&labels),
                    all_rows(&x),
                    |s| {
                        // The pass of a later iteration asking for the most histograms.
                        let more = seen
                            .as_ref()
                            .is_none_or(|b: &BoostingStep| s.wanted.len() > b.wanted.len());
                        if !s.trees.is_empty() && more {
                            seen = Some(s.clone());
                        }
                        summer(&data, &[0, 200], 0)(s)
                    },
                    None,
                )
                .unwrap();
            let step = seen.unwrap();
            assert!(step.wanted.len() > 1 && step.wanted.iter().all(|w| w.side.is_some()));
            (data, step)
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Any cutting of the rows into parts, merged in any order, gives the one-pass sums:
        /// the counts exactly, gradient and hessian sums to 1e-12 of their scale.
        #[test]
        fn sums_do_not_depend_on_the_parts(
            cuts in proptest::collection::vec(0usize..=200, 0..6),
            seed in proptest::prelude::any::<u64>(),
        ) {
            let (data, step) = late_step();
            let mut cuts = cuts;
            cuts.extend([0, 200]);
            cuts.sort_unstable();
            let whole = summer(data, &[0, 200], 0)(step).unwrap();
            let parted = summer(data, &cuts, seed)(step).unwrap();
            proptest::prop_assert_eq!(&parted.n, &whole.n);
            proptest::prop_assert_eq!(parted.rows, 200);
            for (a, b) in [(&parted.g, &whole.g), (&parted.h, &whole.h)] {
                let scale = 1.0 + b.iter().map(|v| v.abs()).sum::<f64>();
                for (x, y) in a.iter().zip(b) {
                    proptest::prop_assert!((x - y).abs() <= 1e-12 * scale, "{} vs {}", x, y);
                }
            }
        }
    }
}
