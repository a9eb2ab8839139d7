//! Hand-computed trees: the entropies and chosen split of a 12-row toy set, checked against
//! the formulas and against a brute-force search over every threshold; and each stopping
//! rule (pure node, max_depth, min_impurity_decrease, min_samples_*, max_leaf_nodes).

use margin_core::{Dataset, DenseMatrix, Fit, Predict, PredictProba, Records, Targets};
use margin_tree::{Criterion, DecisionTreeClassifier, DecisionTreeRegressor, Tree};

use crate::common::toy;

fn h(p: f64) -> f64 {
    if p == 0.0 || p == 1.0 {
        0.0
    } else {
        -p * p.log2() - (1.0 - p) * (1.0 - p).log2()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

/// Information gain of every (feature, midpoint) split of the rows `rows`, by brute force.
fn best_gain(x: &[Vec<f64>], y: &[f64], rows: &[usize]) -> (usize, f64, f64) {
    let ent = |r: &[usize]| h(r.iter().filter(|&&i| y[i] == 1.0).count() as f64 / r.len() as f64);
    let n = rows.len() as f64;
    let mut best = (0, 0.0, f64::NEG_INFINITY);
    for (j, _) in x[0].iter().enumerate() {
        let mut vals: Vec<f64> = rows.iter().map(|&i| x[i][j]).collect();
        vals.sort_by(f64::total_cmp);
        vals.dedup();
        for w in vals.windows(2) {
            let t = (w[0] + w[1]) / 2.0;
            let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| x[i][j] <= t);
            let gain = ent(rows) - (l.len() as f64 * ent(&l) + r.len() as f64 * ent(&r)) / n;
            if gain > best.2 + 1e-12 {
                best = (j, t, gain);
            }
        }
    }
    best
}

fn entropy_tree() -> DecisionTreeClassifier {
    DecisionTreeClassifier::params()
        .criterion(Criterion::Entropy)
        .fit(&toy())
        .unwrap()
}

#[test]
fn root_entropies_and_split_are_the_hand_computed_ones() {
    let model = entropy_tree();
    let tree = model.tree();
    let root = tree.node(0);
    // 6 of each class: 1 bit.
    assert_eq!(root.impurity(), 1.0);
    // x1 <= 4.5: four class-0 samples left (0 bits); right 2 of class 0 and 6 of class 1,
    // H(1/4) = 0.5 + 0.75·log2(4/3) = 0.8112781244591328 bits; gain 1 − 8/12 · that.
    assert_eq!(root.feature(), Some(0));
    assert_eq!(root.threshold(), Some(4.5));
    let (l, r) = root.children().unwrap();
    assert_eq!(tree.node(l).impurity(), 0.0);
    assert!(tree.node(l).is_leaf());
    assert!(close(tree.node(r).impurity(), 0.8112781244591328));
    assert!(close(h(0.25), 0.5 + 0.75 * (4.0f64 / 3.0).log2()));
    assert_eq!(tree.node(l).value(), &[4.0, 0.0]);
    assert_eq!(tree.node(r).value(), &[2.0, 6.0]);

    // The brute-force search over all 2 × 11 thresholds agrees, and its gain is 0.459148.
    let data = toy();
    let x: Vec<Vec<f64>> = (0..12)
        .map(|i| data.records.as_dense().unwrap().row(i).to_vec())
        .collect();
    let y = data.targets.values().unwrap().into_owned();
    let all: Vec<usize> = (0..12).collect();
    let (f, t, gain) = best_gain(&x, &y, &all);
    assert_eq!((f, t), (0, 4.5));
    assert!(close(gain, 1.0 - 8.0 / 12.0 * h(0.25)));
    // The right child splits on x2 <= 3 (the one class-0 sample with x2 = 2 goes left).
    let right: Vec<usize> = (4..12).collect();
    let (f, t, _) = best_gain(&x, &y, &right);
    assert_eq!(tree.node(r).feature(), Some(f));
    assert_eq!(tree.node(r).threshold(), Some(t));
    assert_eq!(t, 3.0);
}

/// Every leaf of a fully grown tree is pure and every internal node is impure.
fn check_pure_leaves(tree: &Tree) {
    for node in tree.nodes() {
        assert_eq!(node.is_leaf(), node.impurity() == 0.0, "node {}", node.id());
    }
}

#[test]
fn a_pure_node_stops_and_the_full_tree_fits_the_toy_set() {
    let model = entropy_tree();
    check_pure_leaves(model.tree());
    // scikit-learn 1.9.1's tree on the same data (criterion="entropy"): 7 nodes, depth 3,
    // impurities [1, 0, 0.811, 0, 0.592, 0, 0].
    assert_eq!(
        (model.tree().n_nodes(), model.depth(), model.n_leaves()),
        (7, 3, 4)
    );
    let imp: Vec<f64> = model.tree().nodes().map(|n| n.impurity()).collect();
    assert!(close(imp[4], h(1.0 / 7.0)));
    assert_eq!(model.predict(&toy().records).unwrap(), {
        let y = toy().targets.values().unwrap().into_owned();
        y.into_iter()
            .map(margin_core::Label::Number)
            .collect::<Vec<_>>()
    });
    // Gini grows a fully fitting tree too.
    let gini = DecisionTreeClassifier::params().fit(&toy()).unwrap();
    check_pure_leaves(gini.tree());
    assert_eq!(gini.tree().node(0).impurity(), 0.5);
}

#[test]
fn max_depth_is_respected() {
    for depth in 1..=3 {
        let model = DecisionTreeClassifier::params()
            .criterion(Criterion::Entropy)
            .max_depth(Some(depth))
            .fit(&toy())
            .unwrap();
        assert_eq!(model.depth(), depth);
    }
    let stump = DecisionTreeClassifier::params()
        .criterion(Criterion::Entropy)
        .max_depth(Some(1))
        .fit(&toy())
        .unwrap();
    assert_eq!(stump.tree().n_nodes(), 3);
    // The right leaf predicts class 1 with probability 6/8.
    let p = stump
        .predict_proba(&DenseMatrix::from_rows(&[[10.0, 0.0]]).unwrap())
        .unwrap();
    assert_eq!(p.row(0), &[0.25, 0.75]);
}

#[test]
fn min_impurity_decrease_is_respected() {
    let fit = |eps: f64| {
        DecisionTreeClassifier::params()
            .criterion(Criterion::Entropy)
            .min_impurity_decrease(eps)
            .fit(&toy())
            .unwrap()
    };
    let root_gain = 1.0 - 8.0 / 12.0 * h(0.25); // 0.459
    // The right child's split: 8/12 · (H(1/4) − 7/8 · H(1/7)) = 0.196.
    let child_gain = 8.0 / 12.0 * (h(0.25) - 7.0 / 8.0 * h(1.0 / 7.0));
    assert_eq!(fit(root_gain + 1e-9).tree().n_nodes(), 1);
    assert_eq!(fit(child_gain + 1e-9).tree().n_nodes(), 3);
    assert!(fit(child_gain - 1e-9).tree().n_nodes() > 3);
    assert_eq!(fit(0.0).tree().n_nodes(), 7);
}

#[test]
fn sample_count_rules_are_respected() {
    // min_samples_leaf = 5: the root cannot put 4 samples left; every leaf holds ≥ 5.
    let model = DecisionTreeClassifier::params()
        .min_samples_leaf(5)
        .fit(&toy())
        .unwrap();
    for node in model.tree().nodes() {
        if node.is_leaf() {
            assert!(node.n_samples() >= 5);
        }
    }
    // min_samples_split = 13 > n: the root stays a leaf.
    let model = DecisionTreeClassifier::params()
        .min_samples_split(13)
        .fit(&toy())
        .unwrap();
    assert_eq!(model.tree().n_nodes(), 1);
    // max_leaf_nodes = 2 and 3: best-first growth stops at that many leaves.
    for leaves in [2, 3] {
        let model = DecisionTreeClassifier::params()
            .criterion(Criterion::Entropy)
            .max_leaf_nodes(Some(leaves))
            .fit(&toy())
            .unwrap();
        assert_eq!(model.n_leaves(), leaves);
        assert_eq!(model.tree().node(0).threshold(), Some(4.5));
    }
}

#[test]
fn regression_leaves_hold_means_and_medians() {
    let x = DenseMatrix::from_rows(&[[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]]).unwrap();
    let y = vec![1.0, 2.0, 6.0, 20.0, 21.0, 40.0];
    let data = Dataset::new(x, Targets::Values(y)).unwrap();
    let mse = DecisionTreeRegressor::params()
        .max_depth(Some(1))
        .fit(&data)
        .unwrap();
    let root = mse.tree().node(0);
    assert_eq!(root.threshold(), Some(6.5));
    assert_eq!(root.value(), &[15.0]);
    let (l, r) = root.children().unwrap();
    assert_eq!(mse.tree().node(l).value(), &[3.0]);
    assert_eq!(mse.tree().node(r).value(), &[27.0]);
    // Variances: left (4 + 1 + 9)/3, right (49 + 36 + 169)/3.
    assert!(close(mse.tree().node(l).impurity(), 14.0 / 3.0));
    assert!(close(mse.tree().node(r).impurity(), 254.0 / 3.0));
    let mae = DecisionTreeRegressor::params()
        .criterion(Criterion::AbsoluteError)
        .max_depth(Some(1))
        .fit(&data)
        .unwrap();
    let root = mae.tree().node(0);
    assert_eq!(root.threshold(), Some(6.5));
    // Median of six equally weighted targets: the mean of the middle two.
    assert_eq!(root.value(), &[13.0]);
    let (l, r) = root.children().unwrap();
    assert_eq!(mae.tree().node(l).value(), &[2.0]);
    assert_eq!(mae.tree().node(r).value(), &[21.0]);
    // Mean absolute deviations from the medians: (1 + 0 + 4)/3 and (1 + 0 + 19)/3.
    assert!(close(mae.tree().node(l).impurity(), 5.0 / 3.0));
    assert!(close(mae.tree().node(r).impurity(), 20.0 / 3.0));
}
