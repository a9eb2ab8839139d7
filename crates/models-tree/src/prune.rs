//! Minimal cost-complexity pruning (Breiman et al., CART, ch. 3), as scikit-learn's
//! `ccp_alpha` and `cost_complexity_pruning_path`.
//!
//! A subtree `T` costs `R_α(T) = R(T) + α·|leaves(T)|`, with `R` the leaves' impurities
//! weighted by their share of the root's sample weight. Collapsing the branch at node `t`
//! into a leaf pays off once `α` exceeds `g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1)`; the
//! weakest link (smallest `g`, the lowest node id among equals) is collapsed again and again,
//! which gives the nested sequence of pruned trees.

use serde::{Deserialize, Serialize};

use crate::tree::{NodeRecord, Tree};

/// The effective alphas at which the weakest links are pruned and the total leaf impurity
/// after each step (scikit-learn's `cost_complexity_pruning_path`). Starts at `α = 0` with
/// the full tree's impurity and ends with the root collapsed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PruningPath {
    /// Non-decreasing effective alphas, the first 0.
    pub ccp_alphas: Vec<f64>,
    /// `R(T)` of the tree pruned at each alpha.
    pub impurities: Vec<f64>,
}

/// Weakest-link pruning until the next link's `g` exceeds `max_alpha`: the path so far and,
/// per node, whether it is a leaf of the pruned tree (`None`: removed).
fn weakest_links(tree: &Tree, max_alpha: f64) -> (PruningPath, Vec<Option<bool>>) {
    let nodes = &tree.nodes;
    let n = nodes.len();
    let total = nodes[0].weighted_n_samples;
    let r_node: Vec<f64> = nodes
        .iter()
        .map(|t| t.weighted_n_samples * t.impurity / total)
        .collect();
    let mut parent = vec![usize::MAX; n];
    for (i, t) in nodes.iter().enumerate() {
        if t.left != 0 {
            parent[t.left as usize] = i;
            parent[t.right as usize] = i;
        }
    }
    let mut r_branch = vec![0.0; n];
    let mut n_leaves = vec![0usize; n];
    for (i, t) in nodes.iter().enumerate() {
        if t.left == 0 {
            let mut a = i;
            while a != usize::MAX {
                n_leaves[a] += 1;
                r_branch[a] += r_node[i];
                a = parent[a];
            }
        }
    }
    // Some(true): a leaf of the pruned tree; Some(false): an inner node; None: pruned away.
    let mut state: Vec<Option<bool>> = nodes.iter().map(|t| Some(t.left == 0)).collect();
    let mut path = PruningPath {
        ccp_alphas: vec![0.0],
        impurities: vec![r_branch[0]],
    };
    while state[0] == Some(false) {
        let mut best = (f64::INFINITY, 0);
        for i in 0..n {
            if state[i] == Some(false) {
                let g = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1) as f64;
                if g < best.0 {
                    best = (g, i);
                }
            }
        }
        let (alpha, p) = best;
        if alpha > max_alpha {
            break;
        }
        let mut stack = vec![nodes[p].left as usize, nodes[p].right as usize];
        while let Some(i) = stack.pop() {
            if state[i].take() == Some(false) {
                stack.push(nodes[i].left as usize);
                stack.push(nodes[i].right as usize);
            }
        }
        state[p] = Some(true);
        let removed = n_leaves[p] - 1;
        let diff = r_node[p] - r_branch[p];
        n_leaves[p] = 1;
        r_branch[p] = r_node[p];
        let mut a = parent[p];
        while a != usize::MAX {
            n_leaves[a] -= removed;
            r_branch[a] += diff;
            a = parent[a];
        }
        path.ccp_alphas.push(alpha);
        path.impurities.push(r_branch[0]);
    }
    (path, state)
}

/// The pruning path of a fitted tree.
pub(crate) fn pruning_path(tree: &Tree) -> PruningPath {
    weakest_links(tree, f64::INFINITY).0
}

/// The tree pruned at `ccp_alpha`: every weakest link with `g ≤ ccp_alpha` collapsed, nodes
/// renumbered in pre-order. `ccp_alpha = 0` leaves the tree as it is (as scikit-learn, which
/// keeps splits that do not lower the impurity).
pub(crate) fn prune(tree: Tree, ccp_alpha: f64) -> Tree {
    if ccp_alpha <= 0.0 {
        return tree;
    }
    let (_, state) = weakest_links(&tree, ccp_alpha);
    let k = tree.n_values;
    let mut out = Tree {
        nodes: Vec::with_capacity(tree.nodes.len()),
        values: Vec::with_capacity(tree.values.len()),
        n_values: k,
        n_features: tree.n_features,
        missing: tree.missing,
    };
    let mut stack: Vec<(usize, Option<(usize, bool)>)> = vec![(0, None)];
    while let Some((i, link)) = stack.pop() {
        let id = out.nodes.len();
        let old = &tree.nodes[i];
        let leaf = state[i] == Some(true);
        // A collapsed branch keeps its statistics but not its split.
        out.nodes.push(if leaf {
            NodeRecord {
                left: 0,
                right: 0,
                feature: 0,
                threshold: 0.0,
                missing_left: false,
                ..old.clone()
            }
        } else {
            old.clone()
        });
        out.values.extend_from_slice(tree.value(i));
        if let Some((parent, left)) = link {
            let p = &mut out.nodes[parent];
            if left {
                p.left = id as u32;
            } else {
                p.right = id as u32;
            }
        }
        if !leaf {
            stack.push((old.right as usize, Some((id, false))));
            stack.push((old.left as usize, Some((id, true))));
        }
    }
    out
}
