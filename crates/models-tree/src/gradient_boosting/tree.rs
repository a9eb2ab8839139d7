//! A fitted histogram tree: nodes in an array, children after their parent.

use serde::{Deserialize, Serialize};

/// One node. A split sends `x[feature] <= threshold` left and NaN the way `missing_left` says;
/// a leaf adds `value` to the raw prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Node {
    /// Leaf value (shrinkage applied); for a split, the value the node would have as a leaf.
    pub(crate) value: f64,
    /// Training samples that reached the node.
    pub(crate) count: u32,
    /// `None` for a leaf.
    pub(crate) split: Option<Split>,
}

/// The test of an internal node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Split {
    pub(crate) feature: u32,
    /// Samples in bins `<= bin` go left.
    pub(crate) bin: u8,
    /// The bin's upper edge, or +∞ for a split that sends every non-missing value left.
    pub(crate) threshold: f64,
    pub(crate) missing_left: bool,
    /// Loss reduction `G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)`.
    pub(crate) gain: f64,
    pub(crate) left: u32,
    pub(crate) right: u32,
}

/// Rows a [`Walk`] takes through a tree together.
pub(crate) const LANES: usize = 16;

/// One node as a [`Walk`] reads it: a leaf is a split whose children are itself, so every row
/// takes the same number of steps through a tree and no step branches on the row.
#[derive(Clone, Copy, Debug)]
struct Step {
    threshold: f64,
    value: f64,
    feature: u32,
    left: u32,
    right: u32,
    missing_left: bool,
}

/// Trees laid out for prediction: all nodes in one array, each tree walked by [`LANES`] rows in
/// lock step for its depth. A node-by-node walk of one row spends most of its time on
/// mispredicted branches and waiting for the next node; here the rows' choices are selects
/// and their loads overlap. The leaf each row reaches is the one [`Tree`]'s own walk reaches.
pub(crate) struct Walk {
    steps: Vec<Step>,
    /// Each tree's root in `steps` and its depth (the most splits from root to leaf).
    trees: Vec<(u32, u32)>,
}

impl Walk {
    /// The layout of `trees` (small: a few dozen nodes per tree, built per prediction call).
    pub(crate) fn new(trees: &[Tree]) -> Self {
        let mut steps = Vec::with_capacity(trees.iter().map(|t| t.nodes.len()).sum());
        let mut roots = Vec::with_capacity(trees.len());
        for tree in trees {
            let root = steps.len() as u32;
            // Children come after their parent, so one pass finds every node's depth.
            let mut depth = vec![0u32; tree.nodes.len()];
            for (i, node) in tree.nodes.iter().enumerate() {
                let at = root + i as u32;
                steps.push(match &node.split {
                    Some(s) => {
                        depth[s.left as usize] = depth[i] + 1;
                        depth[s.right as usize] = depth[i] + 1;
                        Step {
                            threshold: s.threshold,
                            value: node.value,
                            feature: s.feature,
                            left: root + s.left,
                            right: root + s.right,
                            missing_left: s.missing_left,
                        }
                    }
                    None => Step {
                        threshold: f64::INFINITY,
                        value: node.value,
                        feature: 0,
                        left: at,
                        right: at,
                        missing_left: true,
                    },
                });
            }
            roots.push((root, depth.iter().copied().max().unwrap_or(0)));
        }
        Self {
            steps,
            trees: roots,
        }
    }

    /// The trees, in order.
    pub(crate) fn n_trees(&self) -> usize {
        self.trees.len()
    }

    /// Tree `t`'s leaf value for each of `rows` (at most [`LANES`]), into `out`.
    #[inline]
    pub(crate) fn leaf_values(&self, t: usize, rows: &[&[f64]], out: &mut [f64; LANES]) {
        let (root, depth) = self.trees[t];
        let mut at = [root; LANES];
        for _ in 0..depth {
            for (a, x) in at.iter_mut().zip(rows) {
                let s = &self.steps[*a as usize];
                let v = x[s.feature as usize];
                // NaN fails `<=`, so it goes left exactly when missing values do.
                let left = (v <= s.threshold) | (v.is_nan() & s.missing_left);
                *a = if left { s.left } else { s.right };
            }
        }
        for (o, a) in out.iter_mut().zip(&at).take(rows.len()) {
            *o = self.steps[*a as usize].value;
        }
    }
}

/// A tree as grown by the grower.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
}

impl Tree {
    /// The leaf value for one sample's raw features, one node at a time: the reference the
    /// lock-step walk of [`Walk`] is tested against.
    #[cfg(test)]
    pub(crate) fn predict_row(&self, x: &[f64]) -> f64 {
        let mut at = 0;
        loop {
            let node = &self.nodes[at];
            match &node.split {
                None => return node.value,
                Some(s) => {
                    let v = x[s.feature as usize];
                    let left = if v.is_nan() {
                        s.missing_left
                    } else {
                        v <= s.threshold
                    };
                    at = if left { s.left } else { s.right } as usize;
                }
            }
        }
    }

    /// The leaf value for one binned sample (`bin_of(j)` is its bin for feature `j`).
    #[inline]
    pub(crate) fn predict_binned(&self, missing_bin: u8, bin_of: impl Fn(usize) -> u8) -> f64 {
        self.nodes[self.leaf_binned(missing_bin, bin_of)].value
    }

    /// The leaf (a node without split) one binned sample reaches.
    #[inline]
    pub(crate) fn leaf_binned(&self, missing_bin: u8, bin_of: impl Fn(usize) -> u8) -> usize {
        let mut at = 0;
        loop {
            match &self.nodes[at].split {
                None => return at,
                Some(s) => {
                    let b = bin_of(s.feature as usize);
                    let left = if b == missing_bin {
                        s.missing_left
                    } else {
                        b <= s.bin
                    };
                    at = if left { s.left } else { s.right } as usize;
                }
            }
        }
    }

    /// Number of leaves.
    #[cfg(test)]
    pub(crate) fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.split.is_none()).count()
    }

    /// Whether the structure can be walked: children after their parent and in range, every
    /// node but the root the child of exactly one split, values and gains finite, features
    /// and bins within `bins_of(feature)` (the feature's non-missing bin count), thresholds
    /// the bin's edge (`edge(feature, bin)`).
    pub(crate) fn is_consistent(
        &self,
        bins_of: impl Fn(usize) -> Option<usize>,
        edge: impl Fn(usize, usize) -> f64,
    ) -> bool {
        let n = self.nodes.len();
        let mut parents = vec![0u32; n];
        for (i, node) in self.nodes.iter().enumerate() {
            if !node.value.is_finite() {
                return false;
            }
            if let Some(s) = &node.split {
                let (l, r) = (s.left as usize, s.right as usize);
                let Some(n_bins) = bins_of(s.feature as usize) else {
                    return false;
                };
                let b = s.bin as usize;
                let threshold_ok = if b + 1 == n_bins {
                    s.threshold == f64::INFINITY
                } else {
                    b + 1 < n_bins && s.threshold == edge(s.feature as usize, b)
                };
                if l <= i || r <= i || l >= n || r >= n || l == r || !threshold_ok {
                    return false;
                }
                if !s.gain.is_finite() {
                    return false;
                }
                parents[l] += 1;
                parents[r] += 1;
            }
        }
        n > 0 && parents[0] == 0 && parents[1..].iter().all(|&p| p == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A tree grown by splitting random leaves `splits` times (children appended after their
    /// parent, as the grower does), with random features, thresholds (some +∞), missing-value
    /// directions and leaf values.
    fn random_tree(d: usize) -> impl Strategy<Value = Tree> {
        let split = (
            0usize..64,
            0..d as u32,
            prop_oneof![4 => -2.0f64..2.0, 1 => Just(f64::INFINITY)],
            any::<bool>(),
        );
        (
            proptest::collection::vec(split, 0..40),
            proptest::collection::vec(-1.0f64..1.0, 81),
        )
            .prop_map(|(splits, values)| {
                let leaf = |value| Node {
                    value,
                    count: 1,
                    split: None,
                };
                let mut nodes = vec![leaf(values[0])];
                for (pick, feature, threshold, missing_left) in splits {
                    let leaves: Vec<usize> = (0..nodes.len())
                        .filter(|&i| nodes[i].split.is_none())
                        .collect();
                    let at = leaves[pick % leaves.len()];
                    let left = nodes.len() as u32;
                    nodes.push(leaf(values[left as usize]));
                    nodes.push(leaf(values[left as usize + 1]));
                    nodes[at].split = Some(Split {
                        feature,
                        bin: 0,
                        threshold,
                        missing_left,
                        gain: 1.0,
                        left,
                        right: left + 1,
                    });
                }
                Tree { nodes }
            })
    }

    proptest! {
        // Rows walked in lock step reach the leaf a row walked alone reaches, NaN included,
        // in groups of every size up to the lane count.
        #[test]
        fn the_lock_step_walk_reaches_each_rows_own_leaf(
            trees in proptest::collection::vec(random_tree(4), 1..4),
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![4 => -3.0f64..3.0, 1 => Just(f64::NAN)], 4),
                1..=LANES,
            ),
        ) {
            let walk = Walk::new(&trees);
            let views: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
            let mut out = [0.0; LANES];
            for (t, tree) in trees.iter().enumerate() {
                walk.leaf_values(t, &views, &mut out);
                for (r, row) in rows.iter().enumerate() {
                    prop_assert_eq!(out[r].to_bits(), tree.predict_row(row).to_bits());
                }
            }
        }
    }
}
