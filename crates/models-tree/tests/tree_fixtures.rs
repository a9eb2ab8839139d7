//! Whole trees against scikit-learn 1.9.1 (tests/fixtures/gen_tree.py, which checks that no
//! node of these trees is decided by a tie between features): the same structure, split
//! features, thresholds (to 1e-6 relative: scikit-learn splits float32 copies of the records),
//! impurities, sample counts, node values, training predictions and feature importances, on
//! sparse and dense records; and the cost-complexity pruning path and a pruned tree.

use crate::common;

use common::{Fixture, bundled, dense, fixture};
use margin_core::{ClassWeight, CsrMatrix, Dataset, Fit, Label, Matrix, Predict, Records};
use margin_tree::{Criterion, DecisionTreeClassifier, DecisionTreeRegressor, PruningPath, Tree};

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * (1.0 + a.abs().max(b.abs()))
}

/// Asserts `got` is the fixture's list `key`, to a relative 1e-9, entry by entry.
fn assert_close_to(got: &[f64], fx: &Fixture, key: &str) {
    for (k, (a, b)) in got.iter().zip(fx.floats(key)).enumerate() {
        assert!(close(*a, b, 1e-9), "{key} {k}: {a} vs {b}");
    }
}

fn with_weights(data: Dataset, fx: &Fixture) -> Dataset {
    if fx.word("weighted") == "1" {
        let w = (0..data.n_samples())
            .map(|i| [1.0, 1.5, 2.0][i % 3])
            .collect();
        data.with_sample_weights(w).unwrap()
    } else {
        data
    }
}

/// Compares every node; `value` rows are normalized for classifiers (scikit-learn stores
/// fractions), as is for regressors.
fn compare(tree: &Tree, fx: &Fixture, classification: bool) {
    let left = fx.ints("children_left");
    let right = fx.ints("children_right");
    let feature = fx.ints("feature");
    let threshold = fx.floats("threshold");
    let impurity = fx.floats("impurity");
    let n_samples = fx.ints("n_node_samples");
    let weighted = fx.floats("weighted_n_node_samples");
    let value = fx.floats("value");
    let k = tree.n_values();
    assert_eq!(tree.n_nodes(), left.len(), "node count");
    for node in tree.nodes() {
        let i = node.id();
        match node.children() {
            None => assert_eq!((left[i], right[i]), (-1, -1), "node {i} should split"),
            Some((l, r)) => {
                assert_eq!(
                    (l as i64, r as i64),
                    (left[i], right[i]),
                    "node {i} children"
                );
                assert_eq!(
                    node.feature().unwrap() as i64,
                    feature[i],
                    "node {i} feature"
                );
                let t = node.threshold().unwrap();
                assert!(
                    close(t, threshold[i], 1e-6),
                    "node {i}: {t} vs {}",
                    threshold[i]
                );
            }
        }
        assert!(
            close(node.impurity(), impurity[i], 1e-9),
            "node {i} impurity"
        );
        assert_eq!(node.n_samples() as i64, n_samples[i], "node {i} samples");
        assert!(
            close(node.weighted_n_samples(), weighted[i], 1e-12),
            "node {i} weight"
        );
        let v = node.value();
        let total: f64 = if classification { v.iter().sum() } else { 1.0 };
        for c in 0..k {
            assert!(
                close(v[c] / total, value[i * k + c], 1e-9),
                "node {i} value {c}"
            );
        }
    }
}

/// The pruning path and the tree pruned at the fixture's alpha.
fn compare_pruning(path: &PruningPath, pruned: &Tree, pruned_predict: &[f64], fx: &Fixture) {
    let alphas = fx.floats("ccp_alphas");
    assert_eq!(path.ccp_alphas.len(), alphas.len(), "path length");
    assert_close_to(&path.ccp_alphas, fx, "ccp_alphas");
    assert_close_to(&path.impurities, fx, "ccp_impurities");
    assert_eq!(pruned.n_nodes() as i64, fx.ints("pruned_node_count")[0]);
    assert_close_to(pruned_predict, fx, "pruned_predict");
}

/// gen_tree.py's `inject_missing`: NaN at rows i % 7 == 0 of feature 0, i % 5 == 0 of
/// feature 12 and i % 4 == 3 of feature 9; sparse again (NaN entries are stored).
fn with_missing(data: Dataset, fx: &Fixture) -> Dataset {
    if fx.word("missing") != "1" {
        return data;
    }
    let mut x = data.records.to_dense().unwrap();
    for i in 0..x.nrows() {
        let row = x.row_mut(i);
        if i % 7 == 0 {
            row[0] = f64::NAN;
        }
        if i % 5 == 0 {
            row[12] = f64::NAN;
        }
        if i % 4 == 3 {
            row[9] = f64::NAN;
        }
    }
    Dataset {
        records: Matrix::Sparse(CsrMatrix::from_dense(&x)),
        ..data
    }
}

fn classifier_case(name: &str) {
    let fx = fixture(name);
    let data = with_missing(with_weights(bundled(fx.word("data")), &fx), &fx);
    let mut params = DecisionTreeClassifier::params()
        .criterion(fx.word("criterion").parse::<Criterion>().unwrap())
        .min_samples_leaf(fx.word("min_samples_leaf").parse::<usize>().unwrap());
    let depth: i64 = fx.word("max_depth").parse().unwrap();
    if depth > 0 {
        params = params.max_depth(Some(depth as usize));
    }
    if fx.word("class_weight") == "balanced" {
        params = params.class_weight(ClassWeight::Balanced);
    }
    if fx.word("missing") == "1" {
        params = params.missing_values(true);
    }
    let sparse_model = params.fit(&data).unwrap();
    let dense_model = params.fit(&dense(&data)).unwrap();
    assert_eq!(
        sparse_model, dense_model,
        "dense and sparse records give one tree"
    );
    compare(sparse_model.tree(), &fx, true);
    let go_left = fx.ints("missing_go_to_left");
    for node in sparse_model.tree().nodes() {
        if let Some(left) = node.missing_goes_left() {
            assert_eq!(
                left,
                go_left[node.id()] == 1,
                "node {} missing direction",
                node.id()
            );
        }
    }
    let want: Vec<Label> = fx
        .floats("predict")
        .into_iter()
        .map(Label::Number)
        .collect();
    assert_eq!(sparse_model.predict(&data.records).unwrap(), want);
    assert_close_to(
        &sparse_model.feature_importances(),
        &fx,
        "feature_importances",
    );
    let path = params.cost_complexity_pruning_path(&data).unwrap();
    let pruned = params.ccp_alpha(fx.float("ccp_alpha")).fit(&data).unwrap();
    let predict: Vec<f64> = pruned
        .predict(&data.records)
        .unwrap()
        .iter()
        .map(|l| match l {
            Label::Number(v) => *v,
            Label::Text(_) => unreachable!(),
        })
        .collect();
    compare_pruning(&path, pruned.tree(), &predict, &fx);
}

#[test]
fn entropy_tree_on_heart_scale_matches_scikit_learn() {
    classifier_case("tree_heart_entropy.txt");
}

/// Missing values: each split learns where NaN goes, as scikit-learn ≥ 1.3.
#[test]
fn entropy_tree_with_missing_values_matches_scikit_learn() {
    classifier_case("tree_heart_entropy_missing.txt");
}

#[test]
fn entropy_tree_on_svmguide1_matches_scikit_learn() {
    classifier_case("tree_svmguide1_entropy.txt");
}

#[test]
fn weighted_balanced_gini_tree_on_heart_scale_matches_scikit_learn() {
    classifier_case("tree_heart_gini_weighted.txt");
}

#[test]
fn regression_tree_on_housing_matches_scikit_learn() {
    let fx = fixture("tree_housing_squared.txt");
    let data = bundled(fx.word("data"));
    let params = DecisionTreeRegressor::params()
        .min_samples_leaf(fx.word("min_samples_leaf").parse::<usize>().unwrap());
    let model = params.fit(&data).unwrap();
    compare(model.tree(), &fx, false);
    let pred = model.predict(&data.records).unwrap();
    assert_close_to(&pred, &fx, "predict");
    assert_close_to(&model.feature_importances(), &fx, "feature_importances");
    let path = params.cost_complexity_pruning_path(&data).unwrap();
    let pruned = params.ccp_alpha(fx.float("ccp_alpha")).fit(&data).unwrap();
    let pruned_predict = pruned.predict(&data.records).unwrap();
    compare_pruning(&path, pruned.tree(), &pruned_predict, &fx);
}
