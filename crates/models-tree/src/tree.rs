//! The fitted tree: an array of nodes, each a binary split (`x[feature] <= threshold`, or
//! `x[feature] ∈ S` on a categorical feature) or a leaf.

use margin_core::{Error, Result, RowView};
use serde::{Deserialize, Serialize};

/// A stored node. Children always come after their parent (`left`, `right` > own index), so the
/// structure is acyclic by construction and [`Tree::check`] can verify it in one pass; a leaf
/// has `left == right == 0` (the root is nobody's child).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeRecord {
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) feature: u32,
    pub(crate) threshold: f64,
    /// Where a sample whose split value is missing (NaN) goes.
    pub(crate) missing_left: bool,
    pub(crate) impurity: f64,
    pub(crate) n_samples: u64,
    pub(crate) weighted_n_samples: f64,
    /// Categorical split: the categories (bit `c` for code `c`) that go left, among
    /// `seen_categories`.
    pub(crate) left_categories: u64,
    /// Categorical split: the categories the node's training samples had; 0 for a threshold
    /// split or a leaf. A category outside it goes where missing values go.
    pub(crate) seen_categories: u64,
}

impl NodeRecord {
    /// A leaf (or a node whose split is not decided yet) with these statistics.
    pub(crate) fn leaf(impurity: f64, n_samples: u64, weighted_n_samples: f64) -> Self {
        Self {
            left: 0,
            right: 0,
            feature: 0,
            threshold: 0.0,
            missing_left: false,
            impurity,
            n_samples,
            weighted_n_samples,
            left_categories: 0,
            seen_categories: 0,
        }
    }

    /// The same node without its split.
    pub(crate) fn collapsed(&self) -> Self {
        Self::leaf(self.impurity, self.n_samples, self.weighted_n_samples)
    }

    /// Whether a sample whose split value is `x` goes left.
    #[inline]
    pub(crate) fn goes_left(&self, x: f64) -> bool {
        if self.seen_categories == 0 {
            return x <= self.threshold || (self.missing_left && x.is_nan());
        }
        // Codes are checked non-negative integers (or NaN) before prediction; a code of 64
        // or more cannot have been seen at fit, and NaN casts to 0 but is caught first.
        let bit = if x.is_nan() || x >= 64.0 {
            0
        } else {
            1u64 << (x as u32)
        };
        if self.seen_categories & bit == 0 {
            self.missing_left
        } else {
            self.left_categories & bit != 0
        }
    }
}

/// A row's value of `feature`, indexed directly when the row is dense.
#[inline]
pub(crate) fn value_at(row: &RowView<'_>, feature: u32) -> f64 {
    match row {
        RowView::Dense(x) => x[feature as usize],
        RowView::Sparse(_) => row.get(feature as usize),
    }
}

/// A fitted binary decision tree, the structure every tree model of this crate holds.
///
/// Nodes are numbered from 0 (the root). Depth-first growth numbers them in pre-order (a node,
/// then its left subtree, then its right one), as scikit-learn does, so node ids compare with
/// scikit-learn's `tree_` arrays one to one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub(crate) nodes: Vec<NodeRecord>,
    /// `n_nodes × n_values`: weighted class counts (classification) or the prediction
    /// (regression) of every node.
    pub(crate) values: Vec<f64>,
    pub(crate) n_values: usize,
    pub(crate) n_features: usize,
    /// Whether records may hold missing values (NaN) at predict.
    pub(crate) missing: bool,
    /// The categorical features, ascending: their values are category codes (non-negative
    /// integers) and their splits are category sets.
    pub(crate) categorical: Vec<u32>,
}

/// A read-only view of one node of a [`Tree`].
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    tree: &'a Tree,
    id: usize,
}

impl<'a> Node<'a> {
    fn record(&self) -> &'a NodeRecord {
        &self.tree.nodes[self.id]
    }
    /// This node's index.
    pub fn id(&self) -> usize {
        self.id
    }
    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.record().left == 0
    }
    /// The split feature (`None` for a leaf).
    pub fn feature(&self) -> Option<usize> {
        (!self.is_leaf()).then(|| self.record().feature as usize)
    }
    /// The split threshold: samples with `x[feature] <= threshold` go left (`None` for a leaf
    /// or a categorical split). `+∞` separates present values (left) from missing ones (right).
    pub fn threshold(&self) -> Option<f64> {
        let r = self.record();
        (!self.is_leaf() && r.seen_categories == 0).then_some(r.threshold)
    }
    /// A categorical split's left categories, ascending: samples whose code is one of them go
    /// left, the other codes the node's training samples had go right, and codes it never
    /// saw go where missing values go (`None` for a leaf or a threshold split).
    pub fn left_categories(&self) -> Option<Vec<u32>> {
        let r = self.record();
        (r.seen_categories != 0).then(|| codes(r.left_categories))
    }
    /// A categorical split's categories seen in training at this node, ascending (`None` for
    /// a leaf or a threshold split).
    pub fn seen_categories(&self) -> Option<Vec<u32>> {
        let r = self.record();
        (r.seen_categories != 0).then(|| codes(r.seen_categories))
    }
    /// Whether a sample whose split feature is missing (NaN), or whose category the node never
    /// saw, goes left (`None` for a leaf): learned where training samples lacked the value,
    /// else toward the child with more samples (left on a tie).
    pub fn missing_goes_left(&self) -> Option<bool> {
        (!self.is_leaf()).then(|| self.record().missing_left)
    }
    /// The left and right children's ids (`None` for a leaf).
    pub fn children(&self) -> Option<(usize, usize)> {
        let r = self.record();
        (!self.is_leaf()).then_some((r.left as usize, r.right as usize))
    }
    /// The impurity of the training samples that reached the node, under the fit criterion.
    pub fn impurity(&self) -> f64 {
        self.record().impurity
    }
    /// How many distinct training samples (of positive weight) reached the node.
    pub fn n_samples(&self) -> u64 {
        self.record().n_samples
    }
    /// Their summed weight (sample weight × class weight).
    pub fn weighted_n_samples(&self) -> f64 {
        self.record().weighted_n_samples
    }
    /// Classifiers: weighted count of each class at the node. Regressors: one value, the
    /// node's prediction (weighted mean, or weighted median for `absolute_error`).
    pub fn value(&self) -> &'a [f64] {
        let k = self.tree.n_values;
        &self.tree.values[self.id * k..(self.id + 1) * k]
    }
}

/// The codes of the bits set in `set`, ascending.
fn codes(set: u64) -> Vec<u32> {
    (0..64).filter(|&c| set & (1 << c) != 0).collect()
}

impl Tree {
    /// The categorical features, ascending.
    pub fn categorical_features(&self) -> &[u32] {
        &self.categorical
    }
    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.nodes.len()
    }
    /// Node `id` (panics if `id >= n_nodes()`, like slice indexing).
    pub fn node(&self, id: usize) -> Node<'_> {
        assert!(id < self.nodes.len(), "node {id} of {}", self.nodes.len());
        Node { tree: self, id }
    }
    /// Every node, by id.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = Node<'_>> + '_ {
        (0..self.nodes.len()).map(move |id| Node { tree: self, id })
    }
    /// Number of features the tree was fitted on.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// Values per node (the number of classes, or 1 for regression).
    pub fn n_values(&self) -> usize {
        self.n_values
    }
    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.left == 0).count()
    }
    /// Length of the longest root-to-leaf path, in edges (a lone root has depth 0).
    pub fn depth(&self) -> usize {
        let mut depth = vec![0usize; self.nodes.len()];
        let mut max = 0;
        for (i, n) in self.nodes.iter().enumerate() {
            if n.left != 0 {
                depth[n.left as usize] = depth[i] + 1;
                depth[n.right as usize] = depth[i] + 1;
                max = max.max(depth[i] + 1);
            }
        }
        max
    }

    /// The leaf a sample falls into.
    #[inline]
    pub(crate) fn leaf_of(&self, row: &RowView<'_>) -> usize {
        self.walk(row, |_| {})
    }

    /// `visit(node)` for every node on a sample's path, root first; returns its leaf.
    #[inline]
    pub(crate) fn walk(&self, row: &RowView<'_>, mut visit: impl FnMut(usize)) -> usize {
        let mut i = 0;
        loop {
            visit(i);
            let n = &self.nodes[i];
            if n.left == 0 {
                return i;
            }
            let x = value_at(row, n.feature);
            i = if n.goes_left(x) { n.left } else { n.right } as usize;
        }
    }

    /// The values of node `id`.
    #[inline]
    pub(crate) fn value(&self, id: usize) -> &[f64] {
        &self.values[id * self.n_values..(id + 1) * self.n_values]
    }

    /// Values of the leaf a sample falls into.
    #[inline]
    pub(crate) fn leaf_value(&self, row: &RowView<'_>) -> &[f64] {
        let leaf = self.leaf_of(row);
        &self.values[leaf * self.n_values..(leaf + 1) * self.n_values]
    }

    /// Impurity decrease per feature, `Σ w_node·imp_node − w_left·imp_left − w_right·imp_right`
    /// over the nodes splitting on it, normalized to sum to 1 (all zeros for a lone leaf).
    pub fn feature_importances(&self) -> Vec<f64> {
        let mut imp = vec![0.0; self.n_features];
        for n in &self.nodes {
            if n.left != 0 {
                let (l, r) = (&self.nodes[n.left as usize], &self.nodes[n.right as usize]);
                imp[n.feature as usize] += n.weighted_n_samples * n.impurity
                    - l.weighted_n_samples * l.impurity
                    - r.weighted_n_samples * r.impurity;
            }
        }
        let total: f64 = imp.iter().sum();
        if total > 0.0 {
            imp.iter_mut().for_each(|v| *v /= total);
        }
        imp
    }

    /// Checks a decoded tree: children after their parent and inside the array, each node but
    /// the root the child of exactly one node, features in range, finite numbers, class counts
    /// non-negative with positive leaf totals.
    pub(crate) fn check(&self, classification: bool) -> Result<()> {
        let bad = |why: String| Err(Error::model_file(format!("tree: {why}")));
        let n = self.nodes.len();
        if n == 0 || self.n_values == 0 || n.checked_mul(self.n_values) != Some(self.values.len()) {
            return bad(format!(
                "{n} nodes, {} values per node, {} values",
                self.n_values,
                self.values.len()
            ));
        }
        if u32::try_from(n).is_err() {
            return bad(format!("{n} nodes"));
        }
        if self.categorical.windows(2).any(|w| w[0] >= w[1])
            || self
                .categorical
                .last()
                .is_some_and(|&j| j as usize >= self.n_features)
        {
            return bad(format!("categorical features {:?}", self.categorical));
        }
        let mut parents = vec![0u32; n];
        for (i, node) in self.nodes.iter().enumerate() {
            if !(node.impurity.is_finite() && node.weighted_n_samples.is_finite()) {
                return bad(format!("node {i} has a non-finite impurity or weight"));
            }
            let value = &self.values[i * self.n_values..(i + 1) * self.n_values];
            if value.iter().any(|v| !v.is_finite())
                || (classification
                    && (value.iter().any(|&v| v < 0.0)
                        || (node.left == 0 && value.iter().sum::<f64>() <= 0.0)))
            {
                return bad(format!("node {i} has unusable values {value:?}"));
            }
            if node.left == 0 && node.right == 0 {
                if node.seen_categories != 0 {
                    return bad(format!("leaf {i} has a category set"));
                }
                continue;
            }
            let categorical = self.categorical.binary_search(&node.feature).is_ok();
            if (node.seen_categories != 0) != categorical
                || node.left_categories & !node.seen_categories != 0
            {
                return bad(format!(
                    "node {i} splits feature {} by categories {:#x} of {:#x}",
                    node.feature, node.left_categories, node.seen_categories
                ));
            }
            let (l, r) = (node.left as usize, node.right as usize);
            if l <= i || r <= i || l >= n || r >= n || l == r {
                return bad(format!("node {i} has children {l} and {r}"));
            }
            if node.feature as usize >= self.n_features
                || node.threshold.is_nan()
                || node.threshold == f64::NEG_INFINITY
            {
                return bad(format!(
                    "node {i} splits feature {} at {}",
                    node.feature, node.threshold
                ));
            }
            parents[l] += 1;
            parents[r] += 1;
        }
        if let Some(i) = (1..n).find(|&i| parents[i] != 1) {
            return bad(format!("node {i} has {} parents", parents[i]));
        }
        Ok(())
    }
}
