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

/// A tree as grown by the grower.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
}

impl Tree {
    /// The leaf value for one sample's raw features.
    #[inline]
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
