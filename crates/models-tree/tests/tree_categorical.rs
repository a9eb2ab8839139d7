//! Categorical features: a hand-computed subset split, the subset search against brute force
//! over every subset, a categorical column against ordinal and one-hot encodings, unseen and
//! invalid codes, export, pruning, save → load, forests and thread counts.

use margin_core::{Dataset, DenseMatrix, Error, Fit, Predict, PredictProba, Targets};

use margin_io::ModelFile;
use margin_tree::{
    AdaBoostClassifier, Criterion, DecisionTreeClassifier, DecisionTreeRegressor, MaxFeatures,
    RandomForestClassifier, SplitStrategy, export_dot, export_text,
};
use proptest::prelude::*;

fn dataset(rows: &[Vec<f64>], y: Vec<f64>) -> Dataset {
    Dataset::new(DenseMatrix::from_rows(rows).unwrap(), Targets::Values(y)).unwrap()
}

fn column(codes: &[f64]) -> Vec<Vec<f64>> {
    codes.iter().map(|&c| vec![c]).collect()
}

/// Three categories: code 0 has classes {0, 0, 1}, code 1 {1, 1}, code 2 {0, 0, 0}.
fn three_categories() -> Dataset {
    let codes = [0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.0];
    let y = vec![0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    dataset(&column(&codes), y)
}

/// By hand, with Gini. Root: 5 of class 0, 3 of class 1, `1 − (25 + 9)/64 = 30/64`.
/// The share of class 1 per code orders them 2 (0), 0 (1/3), 1 (1); the three possible
/// splits weigh their children's Gini as
/// - {2} | {0, 1}: `3/8·0 + 5/8·(1 − (4 + 9)/25) = 0.3`,
/// - {0, 2} | {1}: `6/8·(1 − (25 + 1)/36) + 2/8·0 = 10/48 ≈ 0.2083` (the best),
/// - {0} | {1, 2}: `3/8·4/9 + 5/8·12/25 ≈ 0.4667` (not a prefix of the order, and worse).
#[test]
fn the_hand_computed_subset_split_is_chosen() {
    let model = DecisionTreeClassifier::params()
        .categorical_features([0])
        .max_depth(Some(1))
        .fit(&three_categories())
        .unwrap();
    let tree = model.tree();
    let root = tree.node(0);
    assert_eq!(root.impurity(), 30.0 / 64.0);
    assert_eq!(root.feature(), Some(0));
    assert_eq!(root.threshold(), None);
    assert_eq!(root.left_categories(), Some(vec![0, 2]));
    assert_eq!(root.seen_categories(), Some(vec![0, 1, 2]));
    let (l, r) = root.children().unwrap();
    assert_eq!(tree.node(l).value(), &[5.0, 1.0]);
    assert!((tree.node(l).impurity() - 10.0 / 36.0).abs() <= 1e-15);
    assert_eq!(tree.node(r).value(), &[0.0, 2.0]);
    assert_eq!(tree.node(r).impurity(), 0.0);
    // No missing value in training: unseen codes go to the larger child, the left one.
    assert_eq!(root.missing_goes_left(), Some(true));
    let unseen = DenseMatrix::from_rows(&[[7.0], [1.0], [2.0], [1000.0]]).unwrap();
    assert_eq!(model.apply(&unseen).unwrap(), vec![l, r, l, l]);
    let p = model.predict_proba(&unseen).unwrap();
    assert_eq!(p.row(0), &[5.0 / 6.0, 1.0 / 6.0]);
    assert_eq!(model.feature_importances(), vec![1.0]);

    let text = export_text(tree, &model.export_options());
    assert!(text.contains("feature_0 in {0,2}"), "{text}");
    assert!(text.contains("feature_0 not in {0,2}"), "{text}");
    assert!(export_dot(tree, &model.export_options()).contains("feature_0 in {0,2}"));
}

/// y = 1 exactly for codes 1 and 3: one categorical split separates the classes; the same
/// codes as an ordered feature need three thresholds, one-hot columns two splits.
#[test]
fn a_categorical_column_beats_ordinal_and_one_hot_encodings() {
    let codes: Vec<f64> = (0..40).map(|i| (i % 4) as f64).collect();
    let y: Vec<f64> = codes
        .iter()
        .map(|&c| f64::from(c == 1.0 || c == 3.0))
        .collect();
    let categorical = DecisionTreeClassifier::params()
        .categorical_features([0])
        .fit(&dataset(&column(&codes), y.clone()))
        .unwrap();
    assert_eq!(categorical.n_leaves(), 2);
    assert_eq!(
        categorical.tree().node(0).left_categories(),
        Some(vec![0, 2])
    );
    let ordinal = DecisionTreeClassifier::params()
        .fit(&dataset(&column(&codes), y.clone()))
        .unwrap();
    assert_eq!(ordinal.n_leaves(), 4);
    let one_hot: Vec<Vec<f64>> = codes
        .iter()
        .map(|&c| (0..4).map(|k| f64::from(c == k as f64)).collect())
        .collect();
    let one_hot = DecisionTreeClassifier::params()
        .fit(&dataset(&one_hot, y.clone()))
        .unwrap();
    assert_eq!(one_hot.n_leaves(), 3);
    let labels: Vec<f64> = categorical
        .predict(&DenseMatrix::from_rows(&column(&codes)).unwrap())
        .unwrap()
        .iter()
        .map(|l| l.to_string().parse().unwrap())
        .collect();
    assert_eq!(labels, y);
    // AdaBoost's stumps take the same declaration: one stump already separates the classes.
    let boosted = AdaBoostClassifier::params()
        .categorical_features([0])
        .n_estimators(3)
        .fit(&dataset(&column(&codes), y.clone()))
        .unwrap();
    let x = DenseMatrix::from_rows(&column(&codes)).unwrap();
    assert_eq!(
        boosted.predict(&x).unwrap(),
        categorical.predict(&x).unwrap()
    );
    assert_eq!(
        boosted.trees()[0].node(0).left_categories(),
        Some(vec![0, 2])
    );
}

#[test]
fn bad_codes_and_declarations_are_refused() {
    let params = DecisionTreeClassifier::params().categorical_features([1]);
    for bad in [1.5, -1.0, 64.0] {
        let rows = vec![
            vec![0.0, 0.0],
            vec![1.0, 1.0],
            vec![2.0, bad],
            vec![3.0, 2.0],
        ];
        match params.fit(&dataset(&rows, vec![0.0, 1.0, 0.0, 1.0])) {
            Err(Error::InvalidParameter { name, value, .. }) => {
                assert_eq!(name, "categorical_features");
                assert!(value.contains("row 2, column 1"), "{value}");
            }
            other => panic!("{bad} accepted: {other:?}"),
        }
    }
    let rows = vec![
        vec![0.0, 0.0],
        vec![1.0, 1.0],
        vec![2.0, 0.0],
        vec![3.0, 1.0],
    ];
    let data = dataset(&rows, vec![0.0, 1.0, 0.0, 1.0]);
    for cols in [vec![2], vec![1, 1]] {
        assert!(matches!(
            DecisionTreeClassifier::params()
                .categorical_features(cols)
                .fit(&data),
            Err(Error::InvalidParameter { .. })
        ));
    }
    assert!(matches!(
        params.clone().splitter(SplitStrategy::Random).fit(&data),
        Err(Error::InvalidParameter { .. })
    ));
    // NaN is a missing value: refused unless missing values are allowed.
    let mut with_nan = rows.clone();
    with_nan[2][1] = f64::NAN;
    let with_nan = dataset(&with_nan, vec![0.0, 1.0, 0.0, 1.0]);
    assert!(matches!(
        params.fit(&with_nan),
        Err(Error::NonFinite { row: 2, col: 1 })
    ));
    assert!(params.clone().missing_values(true).fit(&with_nan).is_ok());

    // At predict, any non-negative integer is a code (unseen ones are routed); others are not.
    let model = params.fit(&data).unwrap();
    assert!(
        model
            .predict(&DenseMatrix::from_rows(&[[0.0, 500.0]]).unwrap())
            .is_ok()
    );
    for bad in [-1.0, 0.5] {
        let x = DenseMatrix::from_rows(&[[0.0, 1.0], [0.0, bad]]).unwrap();
        match model.predict(&x) {
            Err(Error::InvalidParameter { value, .. }) => {
                assert!(value.contains("row 1, column 1"), "{value}")
            }
            other => panic!("{bad} accepted at predict: {other:?}"),
        }
    }
}

/// Missing values form a group of their own in the subset search, so they go where they fit
/// best; codes a node never saw follow them.
#[test]
fn missing_values_join_the_subset_search_and_unseen_codes_follow_them() {
    let codes = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, f64::NAN, f64::NAN, f64::NAN];
    let y = vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let model = DecisionTreeClassifier::params()
        .categorical_features([0])
        .missing_values(true)
        .fit(&dataset(&column(&codes), y))
        .unwrap();
    let root = model.tree().node(0);
    assert_eq!(model.n_leaves(), 2);
    assert_eq!(root.left_categories(), Some(vec![0, 2]));
    assert_eq!(root.missing_goes_left(), Some(false));
    let x = DenseMatrix::from_rows(&[[f64::NAN], [5.0], [0.0]]).unwrap();
    let leaves = model.apply(&x).unwrap();
    let (l, r) = root.children().unwrap();
    assert_eq!(leaves, vec![r, r, l]);
}

fn categorical_problem(n: usize) -> Dataset {
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let mut r: Vec<f64> = (0..6)
                .map(|j| ((i * (j + 3) + i / 7) % (5 + j)) as f64)
                .collect();
            r.push((i % 11) as f64 * 0.37);
            r
        })
        .collect();
    let y: Vec<f64> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| f64::from((r[0] as usize * 3 + r[2] as usize + i % 3).is_multiple_of(4)))
        .collect();
    dataset(&rows, y)
}

#[test]
fn save_then_load_and_pruning_keep_categorical_splits() {
    let data = categorical_problem(300);
    let params = DecisionTreeClassifier::params()
        .criterion(Criterion::Entropy)
        .categorical_features([0, 1, 2, 3, 4, 5]);
    let model = params.fit(&data).unwrap();
    assert!(model.tree().nodes().any(|n| n.left_categories().is_some()));
    let back = DecisionTreeClassifier::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(back, model);
    assert_eq!(
        back.predict_proba(&data.records).unwrap(),
        model.predict_proba(&data.records).unwrap()
    );
    // Cost-complexity pruning keeps the surviving categorical splits and collapses the rest.
    let path = params.cost_complexity_pruning_path(&data).unwrap();
    let alpha = path.ccp_alphas[path.ccp_alphas.len() / 2];
    let pruned = params.clone().ccp_alpha(alpha).fit(&data).unwrap();
    assert!(pruned.n_leaves() < model.n_leaves());
    assert!(pruned.tree().nodes().any(|n| n.left_categories().is_some()));
    let back = DecisionTreeClassifier::from_bytes(&pruned.to_bytes().unwrap()).unwrap();
    assert_eq!(back, pruned);

    let reg = DecisionTreeRegressor::params()
        .categorical_features([0, 2])
        .max_depth(Some(5))
        .fit(&data)
        .unwrap();
    let back = DecisionTreeRegressor::from_bytes(&reg.to_bytes().unwrap()).unwrap();
    assert_eq!(back, reg);
    assert_eq!(
        back.predict(&data.records).unwrap(),
        reg.predict(&data.records).unwrap()
    );
}

/// 5,000 rows × 7 features is above the size where a node's features are scanned and
/// partitioned on several threads; the forest's bootstraps and feature subsets draw from its
/// seed.
#[test]
fn categorical_trees_and_forests_do_not_depend_on_the_thread_count() {
    let data = categorical_problem(5000);
    crate::common::assert_same_on_one_and_two_threads(|| {
        let tree = DecisionTreeClassifier::params()
            .categorical_features([0, 1, 2, 3, 4, 5])
            .fit(&data)
            .unwrap();
        let forest = RandomForestClassifier::params()
            .categorical_features([0, 1, 2, 3, 4, 5])
            .n_estimators(4)
            .max_features(MaxFeatures::Sqrt)
            .max_depth(Some(6))
            .seed(5)
            .fit(&data)
            .unwrap();
        (
            tree.to_bytes().unwrap(),
            forest.to_bytes().unwrap(),
            forest.predict_proba(&data.records).unwrap(),
        )
    });
}

/// The best weighted impurity decrease `N·imp − N_l·imp_l − N_r·imp_r` over every split of
/// the groups (codes, and missing values as one more group) into two non-empty sides.
fn brute_force_decrease(
    groups: &[Option<u32>],
    y: &[f64],
    impurity: impl Fn(&[f64]) -> f64,
) -> f64 {
    let mut distinct: Vec<Option<u32>> = groups.to_vec();
    distinct.sort();
    distinct.dedup();
    let g = distinct.len();
    let all: Vec<f64> = y.to_vec();
    let root = y.len() as f64 * impurity(&all);
    let mut best = 0.0f64;
    for subset in 1..(1u32 << g) - 1 {
        let left_of = |c: &Option<u32>| {
            let k = distinct.iter().position(|d| d == c).unwrap();
            subset & (1 << k) != 0
        };
        let (l, r): (Vec<f64>, Vec<f64>) = {
            let mut l = Vec::new();
            let mut r = Vec::new();
            for (c, &t) in groups.iter().zip(y) {
                if left_of(c) { l.push(t) } else { r.push(t) }
            }
            (l, r)
        };
        let d = root - l.len() as f64 * impurity(&l) - r.len() as f64 * impurity(&r);
        best = best.max(d);
    }
    best
}

fn class_counts(y: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; 3];
    y.iter().for_each(|&t| c[t as usize] += 1.0);
    c
}

fn gini(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    1.0 - class_counts(y).iter().map(|c| (c / n).powi(2)).sum::<f64>()
}

fn entropy(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    class_counts(y)
        .iter()
        .filter(|&&c| c > 0.0)
        .map(|c| -(c / n) * (c / n).log2())
        .sum()
}

fn variance(y: &[f64]) -> f64 {
    let m = y.iter().sum::<f64>() / y.len() as f64;
    y.iter().map(|t| (t - m).powi(2)).sum::<f64>() / y.len() as f64
}

fn mean_absolute_deviation(y: &[f64]) -> f64 {
    let mut s = y.to_vec();
    s.sort_by(f64::total_cmp);
    let median = s[(s.len() - 1) / 2];
    s.iter().map(|t| (t - median).abs()).sum::<f64>() / s.len() as f64
}

/// The root's weighted impurity decrease in a fitted tree (0 for a lone leaf).
fn root_decrease(tree: &margin_tree::Tree) -> f64 {
    let root = tree.node(0);
    match root.children() {
        None => 0.0,
        Some((l, r)) => {
            let (l, r) = (tree.node(l), tree.node(r));
            root.weighted_n_samples() * root.impurity()
                - l.weighted_n_samples() * l.impurity()
                - r.weighted_n_samples() * r.impurity()
        }
    }
}

/// Codes 0..6 with 6 meaning missing (NaN).
fn groups_and_column(raw: &[u32], missing: bool) -> (Vec<Option<u32>>, Vec<Vec<f64>>) {
    let groups: Vec<Option<u32>> = raw
        .iter()
        .map(|&c| if missing && c == 6 { None } else { Some(c % 6) })
        .collect();
    let rows = groups
        .iter()
        .map(|c| vec![c.map_or(f64::NAN, f64::from)])
        .collect();
    (groups, rows)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Two classes: Breiman's ordered prefixes find the best of all subsets.
    #[test]
    fn binary_ordered_search_is_the_brute_force_optimum(
        raw in proptest::collection::vec(0u32..7, 4..40),
        labels in proptest::collection::vec(0u8..2, 40),
        missing: bool,
        use_entropy: bool,
    ) {
        let (groups, rows) = groups_and_column(&raw, missing);
        let mut y: Vec<f64> = labels[..raw.len()].iter().map(|&c| f64::from(c)).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let criterion = if use_entropy { Criterion::Entropy } else { Criterion::Gini };
        let model = DecisionTreeClassifier::params()
            .criterion(criterion)
            .categorical_features([0])
            .missing_values(missing)
            .max_depth(Some(1))
            .fit(&dataset(&rows, y.clone()))
            .unwrap();
        let brute = if use_entropy {
            brute_force_decrease(&groups, &y, entropy)
        } else {
            brute_force_decrease(&groups, &y, gini)
        };
        let ours = root_decrease(model.tree());
        prop_assert!(close(ours, brute), "{} vs {}", ours, brute);
    }

    /// Squared error: ordering by mean target is exact too.
    #[test]
    fn squared_error_ordered_search_is_the_brute_force_optimum(
        raw in proptest::collection::vec(0u32..7, 4..40),
        targets in proptest::collection::vec(-3.0f64..3.0, 40),
        missing: bool,
    ) {
        let (groups, rows) = groups_and_column(&raw, missing);
        let y = targets[..raw.len()].to_vec();
        let model = DecisionTreeRegressor::params()
            .categorical_features([0])
            .missing_values(missing)
            .max_depth(Some(1))
            .fit(&dataset(&rows, y.clone()))
            .unwrap();
        let brute = brute_force_decrease(&groups, &y, variance);
        let ours = root_decrease(model.tree());
        prop_assert!(close(ours, brute), "{} vs {}", ours, brute);
    }

    /// Three classes and absolute error, where no ordering is exact: every subset is tried
    /// (at most 7 groups here).
    #[test]
    fn exhaustive_search_is_the_brute_force_optimum(
        raw in proptest::collection::vec(0u32..7, 4..30),
        labels in proptest::collection::vec(0u8..3, 30),
        targets in proptest::collection::vec(0u8..20, 30),
        missing: bool,
    ) {
        let (groups, rows) = groups_and_column(&raw, missing);
        let n = raw.len();
        let mut y: Vec<f64> = labels[..n].iter().map(|&c| f64::from(c)).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let model = DecisionTreeClassifier::params()
            .categorical_features([0])
            .missing_values(missing)
            .max_depth(Some(1))
            .fit(&dataset(&rows, y.clone()))
            .unwrap();
        let (ours, brute) = (root_decrease(model.tree()), brute_force_decrease(&groups, &y, gini));
        prop_assert!(close(ours, brute), "gini {} vs {}", ours, brute);

        let t: Vec<f64> = targets[..n].iter().map(|&v| f64::from(v)).collect();
        let model = DecisionTreeRegressor::params()
            .criterion(Criterion::AbsoluteError)
            .categorical_features([0])
            .missing_values(missing)
            .max_depth(Some(1))
            .fit(&dataset(&rows, t.clone()))
            .unwrap();
        let brute = brute_force_decrease(&groups, &t, mean_absolute_deviation);
        let ours = root_decrease(model.tree());
        prop_assert!(close(ours, brute), "absolute {} vs {}", ours, brute);
    }
}
