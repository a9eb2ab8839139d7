//! Pruning a grown tree: minimal cost-complexity pruning (Breiman et al., CART, ch. 3), as
//! scikit-learn's `ccp_alpha` and `cost_complexity_pruning_path`; and bottom-up pruning
//! against a per-node leaf cost, which is Quinlan's reduced-error pruning (cost: validation
//! error) and C4.5's pessimistic pruning (cost: an upper confidence bound of the errors).
//!
//! A subtree `T` costs `R_α(T) = R(T) + α·|leaves(T)|`, with `R` the leaves' impurities
//! weighted by their share of the root's sample weight. Collapsing the branch at node `t`
//! into a leaf pays off once `α` exceeds `g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1)`; the
//! weakest link (smallest `g`, the lowest node id among equals) is collapsed again and again,
//! which gives the nested sequence of pruned trees.

use margin_core::{Dataset, Error, Records, Result, validate};
use serde::{Deserialize, Serialize};

use crate::tree::Tree;

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
    let leaves: Vec<bool> = state.iter().map(|s| *s == Some(true)).collect();
    collapse(&tree, &leaves)
}

/// Bottom-up pruning: from the deepest nodes up, an inner node becomes a leaf when its cost
/// as a leaf, `leaf_cost[node]`, is at most the summed cost of the leaves below it (after
/// their own pruning). Children come after parents, so reverse id order visits children
/// first.
fn prune_bottom_up(tree: &Tree, leaf_cost: &[f64]) -> Tree {
    let n = tree.nodes.len();
    let mut branch = vec![0.0; n];
    let mut leaves = vec![false; n];
    for i in (0..n).rev() {
        let node = &tree.nodes[i];
        let below = if node.left == 0 {
            f64::INFINITY
        } else {
            branch[node.left as usize] + branch[node.right as usize]
        };
        leaves[i] = leaf_cost[i] <= below;
        branch[i] = if leaves[i] { leaf_cost[i] } else { below };
    }
    collapse(tree, &leaves)
}

/// The tree with every node marked in `leaves` turned into a leaf (its statistics kept, its
/// subtree dropped; the original leaves must be marked too), nodes renumbered in pre-order.
fn collapse(tree: &Tree, leaves: &[bool]) -> Tree {
    let mut out = Tree {
        nodes: Vec::with_capacity(tree.nodes.len()),
        values: Vec::with_capacity(tree.values.len()),
        n_values: tree.n_values,
        n_features: tree.n_features,
        missing: tree.missing,
        categorical: tree.categorical.clone(),
    };
    let mut stack: Vec<(usize, Option<(usize, bool)>)> = vec![(0, None)];
    while let Some((i, link)) = stack.pop() {
        let id = out.nodes.len();
        let old = &tree.nodes[i];
        let leaf = leaves[i];
        // A collapsed branch keeps its statistics but not its split.
        out.nodes
            .push(if leaf { old.collapsed() } else { old.clone() });
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

/// Reduced-error pruning (Quinlan 1987): `error(i, node)` is validation sample `i`'s error
/// (weighted) if `node` predicted it; per node, the errors of the validation samples reaching
/// it are its cost as a leaf, and [`prune_bottom_up`] collapses every branch that does no
/// better than its root as a leaf. A node no validation sample reaches costs 0 and is pruned.
pub(crate) fn prune_reduced_error(
    tree: &Tree,
    validation: &Dataset,
    error: impl Fn(usize, usize) -> f64,
) -> Result<Tree> {
    validation.check_consistent()?;
    validate::check_non_empty(&validation.records)?;
    crate::data::check_input(tree, &validation.records)?;
    let mut cost = vec![0.0; tree.n_nodes()];
    for i in 0..validation.n_samples() {
        let w = validation.sample_weights.as_ref().map_or(1.0, |w| w[i]);
        tree.walk(&validation.records.row(i), |node| {
            cost[node] += w * error(i, node)
        });
    }
    Ok(prune_bottom_up(tree, &cost))
}

/// C4.5's pessimistic (error-based) pruning at confidence factor `cf` in `(0, 0.5]`: a node's
/// cost as a leaf is [`pessimistic_errors`] of its training class counts. Subtree raising
/// (C4.5's grafting of a child in its parent's place) is not done.
pub(crate) fn prune_pessimistic(tree: &Tree, cf: f64) -> Result<Tree> {
    if !(cf > 0.0 && cf <= 0.5) {
        return Err(Error::invalid_parameter(
            "confidence",
            cf,
            "a confidence factor in (0, 0.5]",
        ));
    }
    let z = upper_deviate(cf);
    let cost: Vec<f64> = (0..tree.n_nodes())
        .map(|i| {
            let v = tree.value(i);
            let n: f64 = v.iter().sum();
            let e = n - v.iter().fold(0.0, |m: f64, &c| m.max(c));
            pessimistic_errors(e, n, z, cf)
        })
        .collect();
    Ok(prune_bottom_up(tree, &cost))
}

/// The normal deviate `z` with `P(Z > z) = cf` (Acklam's rational approximation of the
/// normal quantile, relative error below 1.2e-9), for `cf` in `(0, 0.5]`.
pub(crate) fn upper_deviate(cf: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let poly = |c: &[f64], x: f64| c.iter().fold(0.0, |acc, &k| acc * x + k);
    if cf < 0.02425 {
        // The tail: z = −quantile(cf).
        let q = (-2.0 * cf.ln()).sqrt();
        -poly(&C, q) / (poly(&D, q) * q + 1.0)
    } else {
        let q = 0.5 - cf;
        let r = q * q;
        poly(&A, r) * q / (poly(&B, r) * r + 1.0)
    }
}

/// C4.5's pessimistic estimate of the errors of a leaf holding `n` (weighted) training
/// samples of which `e` are misclassified: `n · U_CF(e, n)`, with `U_CF` the upper limit of
/// a confidence interval of the binomial error rate at confidence `1 − cf`:
///
/// - `e = 0`: the exact binomial limit, `U = 1 − cf^(1/n)` (the rate `p` at which `n` trials
///   have no error with probability `cf`);
/// - `e ≥ 1`: the normal approximation with continuity correction (Wilson's score limit
///   with `e + ½` errors, capped at `n`): with `f = min(e + ½, n)/n` and `z` the upper
///   `cf`-quantile of the standard normal,
///   `U = (f + z²/2n + z·√(f(1 − f)/n + z²/4n²)) / (1 + z²/n)`;
/// - `0 < e < 1` (weighted samples): linear between the two.
///
/// These are the rules of Quinlan's C4.5 release 8, except that C4.5 interpolates `z` in a
/// small table (0.69 at `cf = 0.25`) where this uses the normal quantile (0.6745).
pub(crate) fn pessimistic_errors(e: f64, n: f64, z: f64, cf: f64) -> f64 {
    let none = n * (1.0 - cf.powf(1.0 / n));
    if e <= 0.0 {
        return none;
    }
    if e < 1.0 {
        return none + e * (pessimistic_errors(1.0, n, z, cf) - none);
    }
    let f = (e + 0.5).min(n) / n;
    let z2 = z * z;
    let u =
        (f + z2 / (2.0 * n) + z * (f * (1.0 - f) / n + z2 / (4.0 * n * n)).sqrt()) / (1.0 + z2 / n);
    n * u
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n · U_CF(e, n)` and `z` against SciPy's root-finding values (tests/fixtures/
    /// gen_pessimistic.py), which do not use the closed forms above.
    #[test]
    fn pessimistic_errors_match_scipy() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/pessimistic_bounds.txt"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut cases = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let v: Vec<f64> = line
                .split_whitespace()
                .map(|w| w.parse().unwrap())
                .collect();
            let [cf, z, e, n, errors] = v[..] else {
                panic!("bad line {line}")
            };
            assert!((upper_deviate(cf) - z).abs() <= 2e-9, "z at cf = {cf}");
            let ours = pessimistic_errors(e, n, upper_deviate(cf), cf);
            assert!(
                (ours - errors).abs() <= 1e-8 * errors,
                "cf {cf} e {e} n {n}: {ours} vs {errors}"
            );
            cases += 1;
        }
        assert_eq!(cases, 10);
    }
}
