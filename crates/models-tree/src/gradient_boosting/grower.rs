//! Growing one tree on the histograms, best-first: the open node with the largest gain is
//! split next, until `max_leaf_nodes` leaves, `max_depth`, `min_samples_leaf` or a gain of zero
//! stop it (scikit-learn's `TreeGrower`).

use margin_core::parallel;
use rayon::prelude::*;

use super::binning::{BinMapper, BinnedData};
use super::histogram::{Bin, Gradients, Histograms, Tile};
use super::params::Boosting;
use super::tree::{Node, Split, Tree};

/// A split must leave at least this much hessian on each side (scikit-learn's
/// `min_hessian_to_split`).
pub(super) const MIN_HESSIAN_TO_SPLIT: f64 = 1e-3;

/// Element operations one bin of a split search counts for when deciding to go parallel
/// (`margin_core::parallel`'s unit): both sides' sums, the gain (two divisions) and the
/// checks, for either side of the missing values, so searches over fewer than 2,048 bins (8
/// features of 255 bins) run on one thread.
const BIN_WORK: usize = 32;

/// Element operations one row of a partition counts for (a bin read and a move).
const PARTITION_ROW_WORK: usize = 1;

/// What limits a tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TreeLimits {
    pub(crate) max_leaf_nodes: Option<usize>,
    pub(crate) max_depth: Option<usize>,
    pub(crate) min_samples_leaf: usize,
    pub(crate) l2_regularization: f64,
    /// Multiplies every leaf value (the learning rate).
    pub(crate) shrinkage: f64,
}

impl TreeLimits {
    /// The limits the hyperparameters set.
    pub(crate) fn of(p: &Boosting) -> Self {
        Self {
            max_leaf_nodes: p.max_leaf_nodes,
            max_depth: p.max_depth,
            min_samples_leaf: p.min_samples_leaf,
            l2_regularization: p.l2_regularization,
            shrinkage: p.learning_rate,
        }
    }
}

/// What the grower knows about each feature from the whole training set.
pub(crate) struct FeatureBins {
    pub(crate) n_bins_non_missing: Vec<usize>,
    pub(crate) has_missing: Vec<bool>,
    pub(crate) missing_bin: u8,
}

impl FeatureBins {
    pub(crate) fn new(mapper: &BinMapper, data: &BinnedData) -> Self {
        let missing = mapper.missing_bin;
        Self {
            n_bins_non_missing: (0..mapper.n_features())
                .map(|j| mapper.n_bins_non_missing(j))
                .collect(),
            has_missing: (0..mapper.n_features())
                .map(|j| data.column(j).contains(&missing))
                .collect(),
            missing_bin: missing,
        }
    }
}

/// `−G / (H + λ)`: the leaf value minimizing the second-order approximation of the loss.
#[inline]
fn node_value(g: f64, h: f64, l2: f64) -> f64 {
    -g / (h + l2 + 1e-15)
}

/// The best split of one node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    /// Gain as scikit-learn ranks it: `loss(node) − loss(left) − loss(right)` with
    /// `loss = value · G`, the root's value taken as 0.
    pub(super) gain: f64,
    pub(super) feature: usize,
    pub(super) bin: usize,
    pub(super) missing_left: bool,
    g_left: f64,
    h_left: f64,
    pub(super) n_left: u32,
}

/// Sums of a node's samples.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sums {
    pub(super) g: f64,
    pub(super) h: f64,
    pub(super) n: u32,
    pub(super) value: f64,
}

/// The best split of feature `j` from its histogram (`None` when none satisfies the limits).
/// Bins are scanned left to right with missing values sent right, and, when the feature has
/// missing values, right to left with them sent left (XGBoost's sparsity-aware search).
fn best_split_of_feature(
    j: usize,
    hist: &[Bin],
    bins: &FeatureBins,
    node: Sums,
    limits: &TreeLimits,
) -> Option<Candidate> {
    let l2 = limits.l2_regularization;
    let min_leaf = limits.min_samples_leaf as u32;
    let loss_node = node.value * node.g;
    let gain_of = |gl: f64, hl: f64, gr: f64, hr: f64| {
        loss_node - node_value(gl, hl, l2) * gl - node_value(gr, hr, l2) * gr
    };
    let n_bins = bins.n_bins_non_missing[j];
    let has_missing = bins.has_missing[j];
    let mut best = Best {
        split: None,
        gain: -1.0,
    };
    // Left to right: the last non-missing bin may go left only if missing values go right.
    let end = n_bins - 1 + usize::from(has_missing);
    best.scan::<false>(
        j,
        hist.iter().enumerate().take(end),
        node,
        min_leaf,
        gain_of,
    );
    if has_missing && n_bins >= 2 {
        // Right to left, the missing values left: bin `b`'s split sends bins above `b` right.
        let order = (0..n_bins - 1).rev().map(|b| (b, &hist[b + 1]));
        best.scan::<true>(j, order, node, min_leaf, gain_of);
    }
    best.split
}

/// The best split found so far of one feature, and its gain (−1 before any).
struct Best {
    split: Option<Candidate>,
    gain: f64,
}

impl Best {
    /// One direction of [`best_split_of_feature`]'s search: `order` yields each split's bin
    /// `b` with the bin the scan adds to its side, the left side (missing values right)
    /// unless `MISSING_LEFT` (then the right side). A split must leave `min_leaf` samples and
    /// [`MIN_HESSIAN_TO_SPLIT`] on both sides; the scan stops once the other side has too
    /// little, as it only shrinks.
    #[inline]
    fn scan<'h, const MISSING_LEFT: bool>(
        &mut self,
        j: usize,
        order: impl Iterator<Item = (usize, &'h Bin)>,
        node: Sums,
        min_leaf: u32,
        gain_of: impl Fn(f64, f64, f64, f64) -> f64,
    ) {
        let (mut g, mut h, mut n) = (0.0, 0.0, 0u32);
        for (b, bin) in order {
            g += bin.g;
            h += bin.h;
            n += bin.n;
            let (g_other, h_other, n_other) = (node.g - g, node.h - h, node.n - n);
            if n < min_leaf || h < MIN_HESSIAN_TO_SPLIT {
                continue;
            }
            if n_other < min_leaf || h_other < MIN_HESSIAN_TO_SPLIT {
                break;
            }
            let ((gl, hl, nl), (gr, hr)) = if MISSING_LEFT {
                ((g_other, h_other, n_other), (g, h))
            } else {
                ((g, h, n), (g_other, h_other))
            };
            let gain = gain_of(gl, hl, gr, hr);
            if gain > self.gain && gain > 0.0 {
                self.gain = gain;
                self.split = Some(Candidate {
                    gain,
                    feature: j,
                    bin: b,
                    missing_left: MISSING_LEFT,
                    g_left: gl,
                    h_left: hl,
                    n_left: nl,
                });
            }
        }
    }
}

/// The best split over all features; ties go to the lower feature index.
pub(super) fn best_split(
    hist: &Histograms,
    bins: &FeatureBins,
    node: Sums,
    limits: &TreeLimits,
) -> Option<Candidate> {
    let d = bins.n_bins_non_missing.len();
    let of_feature = |j| best_split_of_feature(j, hist.feature(j), bins, node, limits);
    let bins_scanned: usize = bins.n_bins_non_missing.iter().sum();
    let per_feature: Vec<Option<Candidate>> =
        if parallel::should_split(bins_scanned * BIN_WORK, parallel::Overhead::Loop) {
            (0..d).into_par_iter().map(of_feature).collect()
        } else {
            (0..d).map(of_feature).collect()
        };
    // Reduced in feature order, so ties go to the lower index whatever the threads did.
    per_feature
        .into_iter()
        .flatten()
        .fold(None, |best, c| match best {
            Some(b) if c.gain <= b.gain => Some(b),
            _ => Some(c),
        })
}

/// Best-first: the index of the largest gain; ties go to the node opened first.
pub(super) fn best_first(gains: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (k, gain) in gains.enumerate() {
        if k == 0 || gain > best.1 {
            best = (k, gain);
        }
    }
    best.0
}

/// Records `node`'s split by `c` and appends its two children (leaf values not yet shrunk);
/// returns the children's sums.
pub(super) fn split_node(
    nodes: &mut Vec<Node>,
    node: usize,
    sums: Sums,
    c: &Candidate,
    bins: &FeatureBins,
    limits: &TreeLimits,
    edges: &BinMapper,
) -> (Sums, Sums) {
    let l2 = limits.l2_regularization;
    let (g_right, h_right) = (sums.g - c.g_left, sums.h - c.h_left);
    let left_sums = Sums {
        g: c.g_left,
        h: c.h_left,
        n: c.n_left,
        value: node_value(c.g_left, c.h_left, l2),
    };
    let right_sums = Sums {
        g: g_right,
        h: h_right,
        n: sums.n - c.n_left,
        value: node_value(g_right, h_right, l2),
    };
    let missing_left = if bins.has_missing[c.feature] {
        c.missing_left
    } else {
        // No missing value at fit time: at predict time they follow the larger child.
        left_sums.n > right_sums.n
    };
    let threshold = if c.bin + 1 == bins.n_bins_non_missing[c.feature] {
        f64::INFINITY
    } else {
        edges.edges[c.feature][c.bin]
    };
    let parent_loss = sums.g * node_value(sums.g, sums.h, l2);
    let (left, right) = (nodes.len(), nodes.len() + 1);
    nodes[node].split = Some(Split {
        feature: c.feature as u32,
        bin: c.bin as u8,
        threshold,
        missing_left,
        // The loss reduction proper (the ranking gain takes the root's value as 0).
        gain: parent_loss - left_sums.value * left_sums.g - right_sums.value * right_sums.g,
        left: left as u32,
        right: right as u32,
    });
    for s in [left_sums, right_sums] {
        nodes.push(Node {
            value: s.value,
            count: s.n,
            split: None,
        });
    }
    (left_sums, right_sums)
}

/// What may happen after a split.
pub(super) struct Next {
    /// The tree has `max_leaf_nodes` leaves counting every open node: all become leaves.
    pub(super) full: bool,
    pub(super) split_left: bool,
    pub(super) split_right: bool,
}

impl Next {
    /// After a split that leaves `n_leaves` leaves and open nodes, children at `depth` with
    /// `counts` samples.
    pub(super) fn after_split(
        limits: &TreeLimits,
        n_leaves: usize,
        depth: usize,
        counts: (u32, u32),
    ) -> Self {
        let full = limits.max_leaf_nodes.is_some_and(|m| n_leaves >= m);
        let deep = limits.max_depth.is_some_and(|m| depth >= m);
        let splittable = |n: u32| !full && !deep && n as usize >= 2 * limits.min_samples_leaf;
        Self {
            full,
            split_left: splittable(counts.0),
            split_right: splittable(counts.1),
        }
    }
}

/// Stable partition of one block of samples: those going left are compacted at the front of
/// `rows`, the others written to the front of `right`; returns how many go left. Branch-free:
/// every sample is written to both sides and only its own side's cursor advances (the
/// direction is unpredictable).
fn partition_block(
    rows: &mut [u32],
    right: &mut [u32],
    col: &[u8],
    goes_left: impl Fn(u8) -> bool,
) -> usize {
    let (mut n_left, mut n_right) = (0, 0);
    for k in 0..rows.len() {
        let i = rows[k];
        let left = goes_left(col[i as usize]);
        rows[n_left] = i;
        right[n_right] = i;
        n_left += usize::from(left);
        n_right += usize::from(!left);
    }
    n_left
}

/// The first `len` places of `buf`, grown (never shrunk) to hold them; their values are
/// whatever the last use left.
fn room(buf: &mut Vec<u32>, len: usize) -> &mut [u32] {
    if buf.len() < len {
        buf.resize(len, 0);
    }
    &mut buf[..len]
}

/// A node that may still be split.
struct Open {
    /// The node and its samples: the leaf it becomes if it is not split.
    at: Leaf,
    depth: usize,
    sums: Sums,
    hist: Histograms,
    split: Candidate,
}

/// A leaf of the grown tree and the samples (a range of [`Grown::partition`]) it holds.
pub(crate) struct Leaf {
    pub(crate) node: usize,
    pub(crate) start: usize,
    pub(crate) stop: usize,
}

/// A grown tree with the training samples of each leaf.
pub(crate) struct Grown {
    pub(crate) tree: Tree,
    pub(crate) leaves: Vec<Leaf>,
    /// The samples the tree was grown on, grouped leaf by leaf.
    pub(crate) partition: Vec<u32>,
}

/// Buffers reused from tree to tree, so growing allocates nothing per node once warm.
#[derive(Default)]
pub(crate) struct Workspace {
    pool: Vec<Histograms>,
    tile: Tile,
    scratch: Vec<u32>,
    merged: Vec<u32>,
}

impl Workspace {
    fn histograms(&mut self, n_features: usize) -> Histograms {
        self.pool
            .pop()
            .unwrap_or_else(|| Histograms::new(n_features))
    }
}

/// Grows one tree on the samples `rows` (ascending; all rows of `data`, or a subsample).
pub(crate) fn grow(
    data: &BinnedData,
    grads: &Gradients<'_>,
    rows: Vec<u32>,
    bins: &FeatureBins,
    limits: &TreeLimits,
    ws: &mut Workspace,
    edges: &BinMapper,
) -> Grown {
    let n_features = bins.n_bins_non_missing.len();
    let mut grower = Grower {
        data,
        bins,
        limits,
        edges,
        partition: rows,
        nodes: Vec::new(),
        leaves: Vec::new(),
        open: Vec::new(),
    };
    let n = grower.partition.len();
    let mut hist = ws.histograms(n_features);
    hist.build(data, grads, &grower.partition, &mut ws.tile);
    // Any feature's histogram sums to the node's totals.
    let g: f64 = hist.feature(0).iter().map(|b| b.g).sum();
    let h: f64 = if grads.unit_hessian {
        n as f64
    } else {
        hist.feature(0).iter().map(|b| b.h).sum()
    };
    // scikit-learn gives the root the value 0 when ranking its splits, and keeps it if the
    // root cannot be split: such a tree adds nothing to the baseline.
    let root = Sums {
        g,
        h,
        n: n as u32,
        value: 0.0,
    };
    grower.nodes.push(Node {
        value: 0.0,
        count: n as u32,
        split: None,
    });
    let at = Leaf {
        node: 0,
        start: 0,
        stop: n,
    };
    if n >= 2 * limits.min_samples_leaf && h >= MIN_HESSIAN_TO_SPLIT {
        grower.consider(at, 0, root, hist, ws);
    } else {
        grower.leaves.push(at);
        ws.pool.push(hist);
    }
    while !grower.open.is_empty() {
        grower.split_next(grads, ws);
    }
    for leaf in &grower.leaves {
        grower.nodes[leaf.node].value *= limits.shrinkage;
    }
    Grown {
        tree: Tree {
            nodes: grower.nodes,
        },
        leaves: grower.leaves,
        partition: grower.partition,
    }
}

struct Grower<'a> {
    data: &'a BinnedData,
    bins: &'a FeatureBins,
    limits: &'a TreeLimits,
    edges: &'a BinMapper,
    partition: Vec<u32>,
    nodes: Vec<Node>,
    leaves: Vec<Leaf>,
    open: Vec<Open>,
}

impl Grower<'_> {
    /// Finds the best split of the node `at` and opens it, or makes it a leaf when there is
    /// none.
    fn consider(
        &mut self,
        at: Leaf,
        depth: usize,
        sums: Sums,
        hist: Histograms,
        ws: &mut Workspace,
    ) {
        match best_split(&hist, self.bins, sums, self.limits) {
            Some(split) => self.open.push(Open {
                at,
                depth,
                sums,
                hist,
                split,
            }),
            None => {
                self.leaves.push(at);
                ws.pool.push(hist);
            }
        }
    }

    /// Stable partition of `partition[start..stop]`: samples going left first, then right.
    /// Returns where the right child starts. Large nodes are cut into fixed blocks partitioned
    /// in parallel, then every block's left part and right part are copied, in parallel, to
    /// where the blocks before it end, so the result does not depend on the thread count.
    fn partition(&mut self, start: usize, stop: usize, c: &Candidate, ws: &mut Workspace) -> usize {
        let col = self.data.column(c.feature);
        let (missing, bin, missing_left) = (self.bins.missing_bin, c.bin as u8, c.missing_left);
        let goes_left = |b: u8| (b <= bin) | (missing_left & (b == missing));
        let rows = &mut self.partition[start..stop];
        let scratch = room(&mut ws.scratch, rows.len());
        // Blocks of a fixed length (not one per thread): each is partitioned stably and the
        // blocks are merged in order, which gives the same rows whatever the length.
        let block = parallel::min_len(PARTITION_ROW_WORK);
        if rows.len() <= block {
            let n_left = partition_block(rows, scratch, col, goes_left);
            let n_right = rows.len() - n_left;
            rows[n_left..].copy_from_slice(&scratch[..n_right]);
            return start + n_left;
        }
        let lefts: Vec<usize> = rows
            .par_chunks_mut(block)
            .zip(scratch.par_chunks_mut(block))
            .map(|(r, s)| partition_block(r, s, col, goes_left))
            .collect();
        let n_left: usize = lefts.iter().sum();
        let merged = room(&mut ws.merged, rows.len());
        // Each block's two destinations, cut in block order from the left and right parts.
        let (mut to_left, mut to_right) = merged.split_at_mut(n_left);
        let targets: Vec<(&mut [u32], &mut [u32])> = rows
            .chunks(block)
            .zip(&lefts)
            .map(|(r, &k)| {
                let (left, rest) = std::mem::take(&mut to_left).split_at_mut(k);
                to_left = rest;
                let (right, rest) = std::mem::take(&mut to_right).split_at_mut(r.len() - k);
                to_right = rest;
                (left, right)
            })
            .collect();
        rows.par_chunks(block)
            .zip(scratch.par_chunks(block))
            .zip(targets)
            .for_each(|((r, s), (left, right))| {
                left.copy_from_slice(&r[..left.len()]);
                right.copy_from_slice(&s[..right.len()]);
            });
        rows.par_chunks_mut(block)
            .zip(merged.par_chunks(block))
            .for_each(|(r, m)| r.copy_from_slice(m));
        start + n_left
    }

    fn split_next(&mut self, grads: &Gradients<'_>, ws: &mut Workspace) {
        let pick = best_first(self.open.iter().map(|o| o.split.gain));
        let Open {
            at: Leaf { node, start, stop },
            depth,
            sums,
            mut hist,
            split: c,
        } = self.open.remove(pick);
        let mid = self.partition(start, stop, &c, ws);
        let (left_sums, right_sums) = split_node(
            &mut self.nodes,
            node,
            sums,
            &c,
            self.bins,
            self.limits,
            self.edges,
        );
        let (left, right) = (self.nodes.len() - 2, self.nodes.len() - 1);
        let next = Next::after_split(
            self.limits,
            self.leaves.len() + self.open.len() + 2,
            depth + 1,
            (left_sums.n, right_sums.n),
        );
        if next.full {
            for o in std::mem::take(&mut self.open) {
                self.leaves.push(o.at);
                ws.pool.push(o.hist);
            }
        }
        let depth = depth + 1;
        let (split_left, split_right) = (next.split_left, next.split_right);
        if !split_left {
            self.leaves.push(Leaf {
                node: left,
                start,
                stop: mid,
            });
        }
        if !split_right {
            self.leaves.push(Leaf {
                node: right,
                start: mid,
                stop,
            });
        }
        if !(split_left || split_right) {
            ws.pool.push(hist);
            return;
        }
        // Build the smaller child's histograms; the parent's minus them are the larger's.
        let left_smaller = mid - start < stop - mid;
        let (small_range, n_features) = if left_smaller {
            (start..mid, self.bins.n_bins_non_missing.len())
        } else {
            (mid..stop, self.bins.n_bins_non_missing.len())
        };
        let mut small = ws.histograms(n_features);
        small.build(self.data, grads, &self.partition[small_range], &mut ws.tile);
        hist.subtract(&small);
        let (left_hist, right_hist) = if left_smaller {
            (small, hist)
        } else {
            (hist, small)
        };
        for (split, node, (start, stop), sums, h) in [
            (split_left, left, (start, mid), left_sums, left_hist),
            (split_right, right, (mid, stop), right_sums, right_hist),
        ] {
            if split {
                self.consider(Leaf { node, start, stop }, depth, sums, h, ws);
            } else {
                ws.pool.push(h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gradients with unit hessians.
    fn unit(g: &[f32]) -> Vec<[f32; 2]> {
        g.iter().map(|&g| [g, 1.0]).collect()
    }

    fn limits(min_samples_leaf: usize) -> TreeLimits {
        TreeLimits {
            max_leaf_nodes: Some(31),
            max_depth: None,
            min_samples_leaf,
            l2_regularization: 0.0,
            shrinkage: 1.0,
        }
    }

    /// One feature with bins 0..4 and a step in the gradients between bins 1 and 2: the split
    /// lands on bin 1, the leaves are the mean negative gradients.
    #[test]
    fn a_step_is_split_at_its_bin() {
        let mapper = BinMapper {
            edges: vec![vec![0.5, 1.5, 2.5]],
            missing_bin: 255,
        };
        let data = BinnedData::from_columns(8, vec![0, 0, 1, 1, 2, 2, 3, 3])
            .with_rows()
            .unwrap();
        let g = unit(&[1.0, 1.0, 1.0, 1.0, -3.0, -3.0, -3.0, -3.0]);
        let grads = Gradients {
            pairs: &g,
            unit_hessian: true,
        };
        let bins = FeatureBins::new(&mapper, &data);
        let grown = grow(
            &data,
            &grads,
            (0..8).collect(),
            &bins,
            &limits(1),
            &mut Workspace::default(),
            &mapper,
        );
        let root = grown.tree.nodes[0].split.as_ref().unwrap();
        assert_eq!((root.feature, root.bin, root.threshold), (0, 1, 1.5));
        // Gain: 4²/4 + 12²/4 − 8²/8 = 4 + 36 − 8.
        // (Values carry the 1e-15 scikit-learn adds to every denominator.)
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(root.gain, 32.0), "{}", root.gain);
        let (l, r) = (&grown.tree.nodes[1], &grown.tree.nodes[2]);
        assert!(close(l.value, -1.0) && close(r.value, 3.0));
        // Each side is constant: no further split has a positive gain.
        assert_eq!(grown.tree.n_leaves(), 2);
        assert_eq!(grown.tree.predict_row(&[1.0]), l.value);
        assert_eq!(grown.tree.predict_row(&[2.0]), r.value);
        // No NaN at fit: NaN follows the larger child (a tie goes right).
        assert_eq!(grown.tree.predict_row(&[f64::NAN]), r.value);
    }

    #[test]
    fn min_samples_leaf_and_max_leaf_nodes_are_respected() {
        let n = 64usize;
        let mapper = BinMapper {
            edges: vec![(0..n - 1).map(|k| k as f64 + 0.5).collect()],
            missing_bin: 255,
        };
        let data = BinnedData::from_columns(n, (0..n as u8).collect())
            .with_rows()
            .unwrap();
        let g: Vec<f32> = (0..n).map(|i| ((i * 7919) % 13) as f32 - 6.0).collect();
        let g = unit(&g);
        let grads = Gradients {
            pairs: &g,
            unit_hessian: true,
        };
        let bins = FeatureBins::new(&mapper, &data);
        for (min_leaf, max_leaves) in [(1, 31), (5, 4), (10, 31), (20, 31)] {
            let limits = TreeLimits {
                max_leaf_nodes: Some(max_leaves),
                ..limits(min_leaf)
            };
            let grown = grow(
                &data,
                &grads,
                (0..n as u32).collect(),
                &bins,
                &limits,
                &mut Workspace::default(),
                &mapper,
            );
            assert!(grown.tree.n_leaves() <= max_leaves);
            for leaf in &grown.leaves {
                assert!(leaf.stop - leaf.start >= min_leaf, "{min_leaf}");
            }
            let covered: usize = grown.leaves.iter().map(|l| l.stop - l.start).sum();
            assert_eq!(covered, n);
        }
    }

    /// Large nodes are partitioned block by block in parallel: each leaf still holds its
    /// samples in ascending order, exactly the samples the tree sends there, whatever the
    /// thread count.
    #[test]
    fn parallel_partition_is_stable_and_thread_independent() {
        let (n, d) = (150_000usize, 2usize);
        let bins: Vec<u8> = (0..n * d)
            .map(|k| ((k * 2_654_435_761) % 200) as u8)
            .collect();
        let data = BinnedData::from_columns(n, bins).with_rows().unwrap();
        let mapper = BinMapper {
            edges: vec![(0..199).map(|k| k as f64 + 0.5).collect(); d],
            missing_bin: 255,
        };
        let g: Vec<f32> = (0..n)
            .map(|i| {
                let (a, b) = (data.column(0)[i], data.column(1)[i]);
                f32::from(u8::from(a < 90)) - f32::from(u8::from(b > 150)) + (i % 5) as f32 * 0.1
            })
            .collect();
        let g = unit(&g);
        let bins = FeatureBins::new(&mapper, &data);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    grow(
                        &data,
                        &Gradients {
                            pairs: &g,
                            unit_hessian: true,
                        },
                        (0..n as u32).collect(),
                        &bins,
                        &limits(20),
                        &mut Workspace::default(),
                        &mapper,
                    )
                })
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.tree, two.tree);
        assert_eq!(one.partition, two.partition);
        let mut seen = one.partition.clone();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(k, &i)| k as u32 == i));
        for leaf in &one.leaves {
            let rows = &one.partition[leaf.start..leaf.stop];
            assert!(rows.windows(2).all(|w| w[0] < w[1]));
            let value = one.tree.nodes[leaf.node].value;
            for &i in rows {
                let got = one.tree.predict_binned(255, |j| data.column(j)[i as usize]);
                assert_eq!(got, value);
            }
        }
    }
}
