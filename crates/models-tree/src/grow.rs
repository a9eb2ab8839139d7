//! Growing one CART tree.
//!
//! Every feature is sorted once ([`Presorted`]); a tree keeps, per feature, its samples in
//! ascending value order and each node owns one contiguous segment of every feature's list.
//! Finding a node's best split is one left-to-right scan per feature over its segment (no
//! sorting), and splitting a node partitions every segment stably, so children's segments
//! stay sorted. That costs `O(n · d)` per tree level, where sorting at every node (as
//! scikit-learn does) costs `O(n · d · log n)`. Missing values (NaN, when allowed) sort last
//! in every list, so a segment is its present values in order followed by its missing ones.
//! A categorical feature's segment is therefore grouped by category code, which is what its
//! subset search ([`scan_categorical`]) reads.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use margin_core::parallel::{Overhead, should_split};
use margin_core::{Records, Result, memory};
use rand::Rng;
use rayon::prelude::*;

use crate::criterion::Criterion;
use crate::splitter::{AbsoluteSplitter, ClassSplitter, Sides, Splitter, SquaredSplitter};
use crate::tree::{NodeRecord, Tree};

/// Element operations one (sample, feature) pair of a node counts for when deciding to go
/// parallel (`margin_core::parallel`'s unit): a comparison and the move of a value and a
/// sample, so nodes of fewer than 2¹⁵ pairs are scanned on one thread.
const PAIR_WORK: usize = 2;

/// Every feature's values sorted ascending, with the sample each value belongs to.
///
/// Built from dense or sparse records alike: sparse ones are read column by column with their
/// zeros filled in, so memory is `n × d` whatever the layout.
pub(crate) struct Presorted {
    n: usize,
    d: usize,
    values: Vec<f64>,
    order: Vec<u32>,
}

impl Presorted {
    /// Sorts every feature (features in parallel; the result does not depend on threads).
    /// The `n × d` tables are asked for first: a sparse file's largest feature index can make
    /// them more than a machine holds.
    pub(crate) fn new<R: Records + ?Sized>(records: &R) -> Result<Self> {
        let (n, d) = (records.n_samples(), records.n_features());
        // The columns, the sorted values and the order: 20 bytes per (sample, feature).
        memory::check(
            memory::bytes_of_grid::<[u32; 5]>(n, d),
            &format!("the tree's presorted features ({n} × {d})"),
            memory::DENSE_COPY,
        )?;
        let mut columns = grid(n, d, 0.0, "the tree's feature columns")?;
        for i in 0..n {
            records
                .row(i)
                .for_each_stored(|j, v| columns[j * n + i] = v);
        }
        let mut values = grid(n, d, 0.0, "the tree's sorted feature values")?;
        let mut order = grid(n, d, 0u32, "the tree's sorted feature order")?;
        order
            .par_chunks_mut(n.max(1))
            .zip(values.par_chunks_mut(n.max(1)))
            .enumerate()
            .for_each(|(f, (o, v))| {
                let col = &columns[f * n..(f + 1) * n];
                o.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
                // Missing values (NaN) sort last, whatever their sign bit.
                o.sort_unstable_by(|&a, &b| {
                    let (x, y) = (col[a as usize], col[b as usize]);
                    (x.is_nan().cmp(&y.is_nan()))
                        .then(x.total_cmp(&y))
                        .then(a.cmp(&b))
                });
                v.iter_mut()
                    .zip(o.iter())
                    .for_each(|(x, &i)| *x = col[i as usize]);
            });
        Ok(Self {
            n,
            d,
            values,
            order,
        })
    }
}

/// `n × d` copies of `value` for `what`, asked for first.
fn grid<T: Clone>(n: usize, d: usize, value: T, what: &str) -> Result<Vec<T>> {
    memory::filled_grid(
        n,
        d,
        value,
        &format!("{what} ({n} × {d})"),
        memory::DENSE_COPY,
    )
}

/// What the tree predicts.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// Class indices `0..n_classes`.
    Classes { y: &'a [u32], n_classes: usize },
    /// Continuous values.
    Values(&'a [f64]),
}

/// Validated growth settings (see the params types for their meaning).
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) criterion: Criterion,
    pub(crate) max_depth: usize,
    pub(crate) min_samples_split: usize,
    pub(crate) min_samples_leaf: usize,
    /// Each side of a split holds at least this fraction of the total weight.
    pub(crate) min_weight_fraction_leaf: f64,
    pub(crate) max_leaf_nodes: Option<usize>,
    pub(crate) min_impurity_decrease: f64,
    /// Features examined per node, `1..=d`.
    pub(crate) max_features: usize,
    /// Draw one random threshold per feature instead of scanning them all (extremely
    /// randomized trees).
    pub(crate) random_splits: bool,
    /// Whether missing values (NaN) are allowed.
    pub(crate) missing: bool,
    /// Per feature, whether it is categorical (empty: none is).
    pub(crate) categorical: Vec<bool>,
    /// Cost-complexity pruning after growth (0: none).
    pub(crate) ccp_alpha: f64,
    pub(crate) seed: u64,
    /// Scan features of big nodes on several threads (off inside a forest, whose trees
    /// already run in parallel).
    pub(crate) parallel: bool,
}

/// Grows a tree on the samples of positive weight (a zero weight removes the sample, as in
/// scikit-learn), then prunes it at `ccp_alpha`. At least one weight must be positive.
pub(crate) fn grow(
    pre: &Presorted,
    target: Target<'_>,
    weights: &[f64],
    s: &Settings,
) -> Result<Tree> {
    let mut local = vec![u32::MAX; pre.n];
    let mut kept = Vec::new();
    for (i, &w) in weights.iter().enumerate() {
        if w > 0.0 {
            local[i] = kept.len() as u32;
            kept.push(i);
        }
    }
    let w: Vec<f64> = kept.iter().map(|&i| weights[i]).collect();
    let m = kept.len();
    let mut vals = grid(pre.d, m, 0.0, "the tree's per-feature samples")?;
    let mut ids = grid(pre.d, m, 0u32, "the tree's per-feature sample order")?;
    let fill = |(f, (v, id)): (usize, (&mut [f64], &mut [u32]))| {
        let src = f * pre.n..(f + 1) * pre.n;
        let mut k = 0;
        for (&x, &i) in pre.values[src.clone()].iter().zip(&pre.order[src]) {
            let l = local[i as usize];
            if l != u32::MAX {
                v[k] = x;
                id[k] = l;
                k += 1;
            }
        }
    };
    let chunks = vals
        .par_chunks_mut(m.max(1))
        .zip(ids.par_chunks_mut(m.max(1)));
    if s.parallel {
        chunks.enumerate().for_each(fill);
    } else {
        vals.chunks_mut(m.max(1))
            .zip(ids.chunks_mut(m.max(1)))
            .enumerate()
            .for_each(fill);
    }
    let work = Work {
        d: pre.d,
        m,
        vals,
        ids,
        goes_left: vec![false; m],
        scratch_v: Vec::new(),
        scratch_i: Vec::new(),
    };
    let leaf = LeafSize {
        samples: s.min_samples_leaf,
        weight: s.min_weight_fraction_leaf * w.iter().sum::<f64>(),
    };
    let tree = match target {
        Target::Classes { y, n_classes } => {
            let y: Vec<u32> = kept.iter().map(|&i| y[i]).collect();
            let sp = ClassSplitter {
                y: &y,
                w: &w,
                n_classes,
                entropy: s.criterion != Criterion::Gini,
            };
            Builder::new(&sp, work, s, leaf, n_classes).run()
        }
        Target::Values(y) => {
            let y: Vec<f64> = kept.iter().map(|&i| y[i]).collect();
            if s.criterion == Criterion::AbsoluteError {
                Builder::new(&AbsoluteSplitter { y: &y, w: &w }, work, s, leaf, 1).run()
            } else {
                Builder::new(&SquaredSplitter { y: &y, w: &w }, work, s, leaf, 1).run()
            }
        }
    };
    Ok(crate::prune::prune(tree, s.ccp_alpha))
}

/// The least a side of a split may hold: samples, and weight.
#[derive(Clone, Copy)]
struct LeafSize {
    samples: usize,
    weight: f64,
}

impl LeafSize {
    /// Whether a split sending `n_left` of `n` samples left (the scan's state) leaves enough
    /// on both sides.
    #[inline]
    fn allows<S: Splitter>(
        self,
        sp: &S,
        node: &S::Node,
        scan: &S::Scan,
        n_left: usize,
        n: usize,
    ) -> bool {
        n_left >= self.samples
            && n - n_left >= self.samples
            && (self.weight <= 0.0 || {
                let (l, r) = sp.side_weights(node, scan);
                l >= self.weight && r >= self.weight
            })
    }
}

/// Per-feature sorted segments and partition scratch.
struct Work {
    d: usize,
    m: usize,
    vals: Vec<f64>,
    ids: Vec<u32>,
    goes_left: Vec<bool>,
    scratch_v: Vec<f64>,
    scratch_i: Vec<u32>,
}

impl Work {
    fn segment(&self, f: usize, s: usize, e: usize) -> (&[f64], &[u32]) {
        let base = f * self.m;
        (
            &self.vals[base + s..base + e],
            &self.ids[base + s..base + e],
        )
    }

    /// Whether no split on `f` can separate the node's samples: all its values are equal,
    /// or all missing (one missing and one present value can be split apart).
    fn is_constant(&self, f: usize, s: usize, e: usize) -> bool {
        let base = f * self.m;
        let (first, last) = (self.vals[base + s], self.vals[base + e - 1]);
        first.is_nan() || last <= first
    }

    /// Splits segment `s..e` of every feature by `split`, each side keeping its sorted order
    /// (missing values last).
    fn partition(&mut self, s: usize, e: usize, split: &Split, parallel: bool) {
        let m = self.m;
        let base = split.feature * m;
        if split.cut.seen_categories != 0 {
            let (v, ids) = (
                &self.vals[base + s..base + e],
                &self.ids[base + s..base + e],
            );
            for (&x, &i) in v.iter().zip(ids) {
                self.goes_left[i as usize] = if x.is_nan() {
                    split.cut.missing_left
                } else {
                    split.cut.left_categories & (1 << x as u32) != 0
                };
            }
        } else {
            let missing_left = if split.cut.missing_left {
                split.cut.n_missing
            } else {
                0
            };
            let present = split.cut.n_left - missing_left;
            for (k, &i) in self.ids[base + s..base + e].iter().enumerate() {
                self.goes_left[i as usize] = if k < e - s - split.cut.n_missing {
                    k < present
                } else {
                    split.cut.missing_left
                };
            }
        }
        let goes_left = &self.goes_left;
        let split = |v: &mut [f64], id: &mut [u32], sv: &mut Vec<f64>, si: &mut Vec<u32>| {
            let (v, id) = (&mut v[s..e], &mut id[s..e]);
            sv.clear();
            si.clear();
            let mut k = 0;
            for j in 0..v.len() {
                let (x, i) = (v[j], id[j]);
                if goes_left[i as usize] {
                    v[k] = x;
                    id[k] = i;
                    k += 1;
                } else {
                    sv.push(x);
                    si.push(i);
                }
            }
            v[k..].copy_from_slice(sv);
            id[k..].copy_from_slice(si);
        };
        if parallel && should_split((e - s) * self.d * PAIR_WORK, Overhead::Loop) {
            self.vals
                .par_chunks_mut(m)
                .zip(self.ids.par_chunks_mut(m))
                .for_each_init(
                    || (Vec::new(), Vec::new()),
                    |(sv, si), (v, id)| split(v, id, sv, si),
                );
        } else {
            let (mut sv, mut si) = (
                std::mem::take(&mut self.scratch_v),
                std::mem::take(&mut self.scratch_i),
            );
            for (v, id) in self.vals.chunks_mut(m).zip(self.ids.chunks_mut(m)) {
                split(v, id, &mut sv, &mut si);
            }
            self.scratch_v = sv;
            self.scratch_i = si;
        }
    }
}

/// The best split of one node: its best feature's best [`Candidate`].
#[derive(Clone, Copy, Debug)]
struct Split {
    feature: usize,
    cut: Candidate,
}

/// A node waiting to be split.
struct Pending {
    s: usize,
    e: usize,
    depth: usize,
    parent: Option<(usize, bool)>,
}

/// A node whose split is decided but not applied yet (best-first growth).
struct Frontier {
    improvement: f64,
    id: usize,
    s: usize,
    e: usize,
    depth: usize,
    split: Split,
}

impl PartialEq for Frontier {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Frontier {}
impl PartialOrd for Frontier {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Frontier {
    /// Largest improvement first; among equals, the earlier node.
    fn cmp(&self, other: &Self) -> Ordering {
        self.improvement
            .total_cmp(&other.improvement)
            .then(other.id.cmp(&self.id))
    }
}

struct Builder<'a, S: Splitter> {
    sp: &'a S,
    work: Work,
    s: &'a Settings,
    leaf: LeafSize,
    n_values: usize,
    node: S::Node,
    scan: S::Scan,
    rng: rand_chacha::ChaCha8Rng,
    feature_order: Vec<usize>,
    chosen: Vec<usize>,
    /// One uniform draw per chosen feature (random splits).
    draws: Vec<f64>,
    tree: Tree,
    root_weight: f64,
}

impl<'a, S: Splitter> Builder<'a, S> {
    fn new(sp: &'a S, work: Work, s: &'a Settings, leaf: LeafSize, n_values: usize) -> Self {
        let d = work.d;
        Self {
            node: sp.new_node(),
            scan: sp.new_scan(),
            sp,
            work,
            s,
            leaf,
            n_values,
            rng: margin_core::split::rng_from_seed(s.seed),
            feature_order: (0..d).collect(),
            chosen: Vec::with_capacity(d),
            draws: Vec::with_capacity(d),
            tree: Tree {
                nodes: Vec::new(),
                values: Vec::new(),
                n_values,
                n_features: d,
                missing: s.missing,
                categorical: (0..d as u32)
                    .filter(|&f| s.categorical.get(f as usize) == Some(&true))
                    .collect(),
            },
            root_weight: 0.0,
        }
    }

    fn run(mut self) -> Tree {
        let root = Pending {
            s: 0,
            e: self.work.m,
            depth: 0,
            parent: None,
        };
        match self.s.max_leaf_nodes {
            None => self.depth_first(root),
            Some(max_leaves) => self.best_first(root, max_leaves),
        }
        self.tree
    }

    fn depth_first(&mut self, root: Pending) {
        let mut stack = vec![root];
        while let Some(p) = stack.pop() {
            let (id, split) = self.add_node(&p);
            if let Some((split, _)) = split {
                let mid = p.s + split.cut.n_left;
                self.work.partition(p.s, p.e, &split, self.s.parallel);
                stack.push(Pending {
                    s: mid,
                    e: p.e,
                    depth: p.depth + 1,
                    parent: Some((id, false)),
                });
                stack.push(Pending {
                    s: p.s,
                    e: mid,
                    depth: p.depth + 1,
                    parent: Some((id, true)),
                });
            }
        }
    }

    fn best_first(&mut self, root: Pending, max_leaves: usize) {
        let mut heap = BinaryHeap::new();
        let push = |this: &mut Self, heap: &mut BinaryHeap<Frontier>, p: Pending| {
            let (id, split) = this.add_node(&p);
            if let Some((split, improvement)) = split {
                heap.push(Frontier {
                    improvement,
                    id,
                    s: p.s,
                    e: p.e,
                    depth: p.depth,
                    split,
                });
            }
        };
        push(self, &mut heap, root);
        let mut leaves = 1;
        while leaves < max_leaves {
            let Some(f) = heap.pop() else { break };
            self.work.partition(f.s, f.e, &f.split, self.s.parallel);
            let mid = f.s + f.split.cut.n_left;
            for (s, e, left) in [(f.s, mid, true), (mid, f.e, false)] {
                let child = Pending {
                    s,
                    e,
                    depth: f.depth + 1,
                    parent: Some((f.id, left)),
                };
                push(self, &mut heap, child);
            }
            leaves += 1;
        }
    }

    /// Adds the node for `p` to the tree, links it to its parent, and returns its id and the
    /// split to apply with its improvement (`None` for a leaf).
    fn add_node(&mut self, p: &Pending) -> (usize, Option<(Split, f64)>) {
        let id = self.tree.nodes.len();
        let start = self.tree.values.len();
        self.tree.values.resize(start + self.n_values, 0.0);
        let (_, seg_i) = self.work.segment(0, p.s, p.e);
        let (weight, impurity) =
            self.sp
                .fill_node(seg_i, &mut self.node, &mut self.tree.values[start..]);
        if id == 0 {
            self.root_weight = weight;
        }
        self.tree
            .nodes
            .push(NodeRecord::leaf(impurity, (p.e - p.s) as u64, weight));
        if let Some((parent, left)) = p.parent {
            let node = &mut self.tree.nodes[parent];
            if left {
                node.left = id as u32;
            } else {
                node.right = id as u32;
            }
        }
        let n = p.e - p.s;
        let s = self.s;
        let leaf = p.depth >= s.max_depth
            || n < s.min_samples_split
            || n < 2 * s.min_samples_leaf
            || weight < 2.0 * self.leaf.weight
            || impurity <= f64::EPSILON;
        if leaf {
            return (id, None);
        }
        let Some(split) = self.best_split(p.s, p.e) else {
            return (id, None);
        };
        // scikit-learn's weighted impurity decrease, relative to the whole sample weight.
        let improvement = (weight / self.root_weight)
            * (impurity
                - split.cut.sides.w_right / weight * split.cut.sides.imp_right
                - split.cut.sides.w_left / weight * split.cut.sides.imp_left);
        if improvement + f64::EPSILON < s.min_impurity_decrease {
            return (id, None);
        }
        let node = &mut self.tree.nodes[id];
        node.feature = split.feature as u32;
        node.threshold = split.cut.threshold;
        node.left_categories = split.cut.left_categories;
        node.seen_categories = split.cut.seen_categories;
        // Without missing values in training, a missing value follows the larger child.
        node.missing_left = if split.cut.n_missing > 0 {
            split.cut.missing_left
        } else {
            2 * split.cut.n_left >= n
        };
        (id, Some((split, improvement)))
    }

    /// The features to examine: all non-constant ones, or (with `max_features < d`) the first
    /// `max_features` non-constant ones of a random order drawn for this node.
    fn choose_features(&mut self, s: usize, e: usize) {
        self.chosen.clear();
        let d = self.work.d;
        if self.s.max_features >= d {
            self.chosen
                .extend((0..d).filter(|&f| !self.work.is_constant(f, s, e)));
            return;
        }
        for i in 0..d {
            let j = self.rng.random_range(i..d);
            self.feature_order.swap(i, j);
            let f = self.feature_order[i];
            if !self.work.is_constant(f, s, e) {
                self.chosen.push(f);
                if self.chosen.len() == self.s.max_features {
                    break;
                }
            }
        }
    }

    fn best_split(&mut self, s: usize, e: usize) -> Option<Split> {
        self.choose_features(s, e);
        let leaf = self.leaf;
        // Random splits draw their thresholds here, in feature order, so the draws do not
        // depend on how the scans below are spread over threads.
        self.draws.clear();
        if self.s.random_splits {
            for _ in 0..self.chosen.len() {
                self.draws.push(self.rng.random::<f64>());
            }
        }
        let (sp, node, work, draws) = (self.sp, &self.node, &self.work, &self.draws);
        let categorical = &self.s.categorical;
        let scan_one = |scan: &mut S::Scan, (k, &f): (usize, &usize)| {
            let (v, i) = work.segment(f, s, e);
            let found = if categorical.get(f) == Some(&true) {
                scan_categorical(sp, node, scan, v, i, leaf)
            } else {
                match draws.get(k) {
                    Some(&u) => random_split(sp, node, scan, v, i, leaf, u),
                    None => scan_feature(sp, node, scan, v, i, leaf),
                }
            };
            found.map(|cut| Split { feature: f, cut })
        };
        let found: Vec<Option<Split>> = if self.s.parallel
            && should_split((e - s) * self.chosen.len() * PAIR_WORK, Overhead::Loop)
        {
            self.chosen
                .par_iter()
                .enumerate()
                .map_init(|| sp.new_scan(), |scan, kf| scan_one(scan, kf))
                .collect()
        } else {
            let scan = &mut self.scan;
            self.chosen
                .iter()
                .enumerate()
                .map(|kf| scan_one(scan, kf))
                .collect()
        };
        // In examination order, a later feature must do strictly better to win.
        found
            .into_iter()
            .flatten()
            .fold(None, |best, c| match best {
                Some(b) if b.cut.proxy >= c.cut.proxy => Some(b),
                _ => Some(c),
            })
    }
}

/// One feature's best split of a node.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Samples sent left (present values `<= threshold`, and the missing ones if
    /// `missing_left`).
    n_left: usize,
    /// Samples whose value of the feature is missing.
    n_missing: usize,
    missing_left: bool,
    threshold: f64,
    /// Categorical splits: the codes sent left, among the node's codes (0: a threshold split).
    left_categories: u64,
    seen_categories: u64,
    proxy: f64,
    sides: Sides,
}

impl Candidate {
    /// A threshold split (no categories), scored by `proxy` with children `sides`.
    fn threshold(
        n_left: usize,
        n_missing: usize,
        missing_left: bool,
        threshold: f64,
        proxy: f64,
        sides: Sides,
    ) -> Self {
        Self {
            n_left,
            n_missing,
            missing_left,
            threshold,
            left_categories: 0,
            seen_categories: 0,
            proxy,
            sides,
        }
    }
}

/// The best split of one feature's sorted segment (present values ascending, then the
/// missing ones): a threshold between two consecutive distinct present values, with the
/// missing values sent right, then left; or every present value left and every missing one
/// right (threshold +∞). Each side must hold what `leaf` asks. Among equal scores
/// the first one found wins.
fn scan_feature<S: Splitter>(
    sp: &S,
    node: &S::Node,
    scan: &mut S::Scan,
    v: &[f64],
    ids: &[u32],
    leaf: LeafSize,
) -> Option<Candidate> {
    let len = v.len();
    let present = v.partition_point(|x| !x.is_nan());
    let n_missing = len - present;
    if len < 2 * leaf.samples || present == 0 || (n_missing == 0 && v[len - 1] <= v[0]) {
        return None;
    }
    let mut best: Option<Candidate> = None;
    for missing_left in [false, true] {
        if missing_left && n_missing == 0 {
            break;
        }
        let extra = if missing_left { n_missing } else { 0 };
        sp.reset(node, scan);
        if missing_left {
            ids[present..].iter().for_each(|&i| sp.push(node, scan, i));
        }
        for p in 1..=present {
            sp.push(node, scan, ids[p - 1]);
            let between = p < present && v[p] > v[p - 1];
            // All present values left, all missing right (its mirror image is the same split).
            let missing_apart = p == present && n_missing > 0 && !missing_left;
            let n_left = p + extra;
            if !(between || missing_apart) || !leaf.allows(sp, node, scan, n_left, len) {
                continue;
            }
            let proxy = sp.proxy(node, scan);
            if proxy > best.as_ref().map_or(f64::NEG_INFINITY, |b| b.proxy) {
                let threshold = if between {
                    midpoint(v[p - 1], v[p])
                } else {
                    f64::INFINITY
                };
                let sides = sp.sides(node, scan);
                best = Some(Candidate::threshold(
                    n_left,
                    n_missing,
                    missing_left,
                    threshold,
                    proxy,
                    sides,
                ));
            }
        }
    }
    best
}

/// An extremely randomized split of one feature (Geurts, Ernst & Wehenkel 2006): threshold
/// `min + u·(max − min)` over the node's present values (`min` if that rounds to `max`),
/// missing values sent right. `None` when the feature is constant among present values or a
/// side would hold less than `leaf` asks.
fn random_split<S: Splitter>(
    sp: &S,
    node: &S::Node,
    scan: &mut S::Scan,
    v: &[f64],
    ids: &[u32],
    leaf: LeafSize,
    u: f64,
) -> Option<Candidate> {
    let present = v.partition_point(|x| !x.is_nan());
    if present == 0 || v[present - 1] <= v[0] {
        return None;
    }
    let (lo, hi) = (v[0], v[present - 1]);
    let mut threshold = lo + u * (hi - lo);
    if threshold >= hi || !threshold.is_finite() {
        threshold = lo;
    }
    let n_left = v[..present].partition_point(|&x| x <= threshold);
    sp.reset(node, scan);
    ids[..n_left].iter().for_each(|&i| sp.push(node, scan, i));
    if !leaf.allows(sp, node, scan, n_left, v.len()) {
        return None;
    }
    let proxy = sp.proxy(node, scan);
    (proxy > f64::NEG_INFINITY).then(|| {
        let n_missing = v.len() - present;
        Candidate::threshold(
            n_left,
            n_missing,
            false,
            threshold,
            proxy,
            sp.sides(node, scan),
        )
    })
}

/// Categorical splits with more groups than this (categories present in the node, plus one
/// for missing values) search ordered prefixes even where that is not exact.
const EXHAUSTIVE_MAX_GROUPS: usize = 10;

/// The samples of one category (or the missing ones) in a categorical feature's segment.
struct Group {
    /// `None` for the missing values.
    code: Option<u32>,
    start: usize,
    end: usize,
    key: f64,
}

/// The best subset split of a categorical feature's segment (sorted by code, missing values
/// last, so each category's samples are contiguous). The missing values, if any, form one
/// more group, so the search also decides where they go.
///
/// Where ordering is exact ([`Splitter::ordered_search_is_exact`]: two classes, squared
/// error), the groups are sorted by [`Splitter::group_key`] (then by code) and only the
/// `g − 1` prefixes of that order are scored: the best subset is one of them (Fisher 1958
/// for least squares; Breiman et al., CART, 1984, for two classes under a concave impurity). Otherwise every subset is scored when
/// there are at most [`EXHAUSTIVE_MAX_GROUPS`] groups (`2^(g−1) − 1` splits, the first group
/// kept left), and beyond that the ordered prefixes are a heuristic. Each side must hold at
/// least what `leaf` asks; among equal scores the first one found wins.
fn scan_categorical<S: Splitter>(
    sp: &S,
    node: &S::Node,
    scan: &mut S::Scan,
    v: &[f64],
    ids: &[u32],
    leaf: LeafSize,
) -> Option<Candidate> {
    let len = v.len();
    let mut groups: Vec<Group> = Vec::new();
    let mut start = 0;
    while start < len {
        let x = v[start];
        let end = if x.is_nan() {
            len
        } else {
            start + v[start..].partition_point(|&y| y <= x)
        };
        groups.push(Group {
            code: (!x.is_nan()).then_some(x as u32),
            start,
            end,
            key: sp.group_key(node, &ids[start..end]),
        });
        start = end;
    }
    let g = groups.len();
    if g < 2 || len < 2 * leaf.samples {
        return None;
    }
    let seen = groups
        .iter()
        .filter_map(|gr| gr.code)
        .fold(0u64, |m, c| m | 1 << c);
    let n_missing = groups
        .last()
        .filter(|gr| gr.code.is_none())
        .map_or(0, |gr| gr.end - gr.start);
    let mut best: Option<Candidate> = None;
    let mut consider = |left: &[&Group], scan: &S::Scan| {
        let n_left: usize = left.iter().map(|gr| gr.end - gr.start).sum();
        if !leaf.allows(sp, node, scan, n_left, len) {
            return;
        }
        let proxy = sp.proxy(node, scan);
        if proxy > best.as_ref().map_or(f64::NEG_INFINITY, |b| b.proxy) {
            best = Some(Candidate {
                n_left,
                n_missing,
                missing_left: left.iter().any(|gr| gr.code.is_none()),
                threshold: 0.0,
                left_categories: left
                    .iter()
                    .filter_map(|gr| gr.code)
                    .fold(0u64, |m, c| m | 1 << c),
                seen_categories: seen,
                proxy,
                sides: sp.sides(node, scan),
            });
        }
    };
    let push = |scan: &mut S::Scan, gr: &Group| {
        ids[gr.start..gr.end]
            .iter()
            .for_each(|&i| sp.push(node, scan, i));
    };
    if sp.ordered_search_is_exact() || g > EXHAUSTIVE_MAX_GROUPS {
        groups.sort_by(|a, b| {
            a.key
                .total_cmp(&b.key)
                .then(a.code.unwrap_or(u32::MAX).cmp(&b.code.unwrap_or(u32::MAX)))
        });
        let order: Vec<&Group> = groups.iter().collect();
        sp.reset(node, scan);
        for p in 1..g {
            push(scan, order[p - 1]);
            consider(&order[..p], scan);
        }
    } else {
        let mut left: Vec<&Group> = Vec::with_capacity(g);
        for subset in 0..(1u32 << (g - 1)) - 1 {
            left.clear();
            left.push(&groups[0]);
            left.extend(
                (1..g)
                    .filter(|j| subset & (1 << (j - 1)) != 0)
                    .map(|j| &groups[j]),
            );
            sp.reset(node, scan);
            left.iter().for_each(|gr| push(scan, gr));
            consider(&left, scan);
        }
    }
    best
}

/// The threshold between two consecutive distinct values: their midpoint, or the lower value
/// when the midpoint rounds up to the higher one (adjacent floats) or overflows.
fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo / 2.0 + hi / 2.0;
    if t == hi || t.is_infinite() { lo } else { t }
}
