//! Reduced-error pruning on a validation set and C4.5's pessimistic pruning: hand-built trees
//! whose pruning decisions are computed by hand, and the invariants (never more leaves, never
//! more validation error) on random data.

use margin_core::{Dataset, DenseMatrix, Error, Fit, Predict, Targets};
use margin_tree::{DecisionTreeClassifier, DecisionTreeRegressor};
use proptest::prelude::*;

fn dataset(rows: &[Vec<f64>], y: Vec<f64>) -> Dataset {
    Dataset::new(DenseMatrix::from_rows(rows).unwrap(), Targets::Values(y)).unwrap()
}

/// x = 1..6, classes 0 0 1 1 1 0. Gini grows: node 0 `x <= 2.5` → node 1 leaf [2, 0] and
/// node 2 [1, 3] `x <= 5.5` → node 3 leaf [0, 3] and node 4 leaf [1, 0].
fn grown() -> DecisionTreeClassifier {
    let rows: Vec<Vec<f64>> = (1..=6).map(|x| vec![x as f64]).collect();
    DecisionTreeClassifier::params()
        .fit(&dataset(&rows, vec![0.0, 0.0, 1.0, 1.0, 1.0, 0.0]))
        .unwrap()
}

/// Validation (x, y): (6.5, 1) reaches node 4, which says 0: one error; node 2 as a leaf
/// says 1 (3 of its 4 training samples): no error, so node 2 is pruned. (4, 1) and (1.5, 0)
/// are right either way. The root as a leaf ([3, 3], class 0 on the tie) would miss both
/// class-1 samples against 0 errors below it: kept.
#[test]
fn reduced_error_pruning_collapses_the_hand_computed_branch() {
    let model = grown();
    let t = model.tree();
    assert_eq!(t.n_nodes(), 5);
    assert_eq!(t.node(0).threshold(), Some(2.5));
    assert_eq!(t.node(2).threshold(), Some(5.5));
    assert_eq!(t.node(2).value(), &[1.0, 3.0]);

    let validation = dataset(&[vec![6.5], vec![4.0], vec![1.5]], vec![1.0, 1.0, 0.0]);
    let pruned = model.prune_reduced_error(&validation).unwrap();
    let p = pruned.tree();
    assert_eq!(p.n_nodes(), 3);
    assert_eq!(p.node(0).threshold(), Some(2.5));
    assert!(p.node(1).is_leaf() && p.node(2).is_leaf());
    assert_eq!(p.node(2).value(), &[1.0, 3.0]);
    let labels = |m: &DecisionTreeClassifier| -> Vec<String> {
        m.predict(&validation.records)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(labels(&model), ["0", "1", "0"]);
    assert_eq!(labels(&pruned), ["1", "1", "0"]);

    // A validation set that never reaches node 2's children leaves no evidence for them:
    // they go (Quinlan's rule), and the root stays only while it earns its keep.
    let only_left = dataset(&[vec![1.0], vec![2.0]], vec![0.0, 0.0]);
    assert_eq!(
        model
            .prune_reduced_error(&only_left)
            .unwrap()
            .tree()
            .n_nodes(),
        1
    );
}

#[test]
fn reduced_error_pruning_refuses_mismatched_validation_sets() {
    let model = grown();
    let wide = dataset(&[vec![1.0, 2.0], vec![3.0, 4.0]], vec![0.0, 1.0]);
    assert!(matches!(
        model.prune_reduced_error(&wide),
        Err(Error::ShapeMismatch { .. })
    ));
    let nan = dataset(&[vec![f64::NAN], vec![3.0]], vec![0.0, 1.0]);
    assert!(matches!(
        model.prune_reduced_error(&nan),
        Err(Error::NonFinite { .. })
    ));
    let mut weighted = dataset(&[vec![1.0], vec![3.0]], vec![0.0, 1.0]);
    weighted.sample_weights = Some(vec![1.0, -1.0]);
    assert!(matches!(
        model.prune_reduced_error(&weighted),
        Err(Error::InvalidParameter { .. })
    ));
    let short = dataset(&[vec![1.0], vec![3.0]], vec![0.0, 1.0]);
    let short = Dataset {
        targets: Targets::Values(vec![0.0]),
        ..short
    };
    assert!(matches!(
        model.prune_reduced_error(&short),
        Err(Error::ShapeMismatch { .. })
    ));
    let regressor = DecisionTreeRegressor::params()
        .fit(&dataset(
            &[vec![1.0], vec![2.0], vec![3.0]],
            vec![0.0, 1.0, 4.0],
        ))
        .unwrap();
    assert!(matches!(
        regressor.prune_reduced_error(&wide),
        Err(Error::ShapeMismatch { .. })
    ));
}

/// Two binary features; rows (x0, x1) × count → class:
/// (0, 0) × 6 → 0, (1, 0) × 6 → 0, (0, 1) × 6 → 1, (1, 1) × 1 → 0 and × 1 → 1.
/// Gini splits x1 first: node [12, 0] (pure), node [1, 7] split by x0 into [0, 6] and
/// [1, 1] (which cannot split further).
///
/// C4.5's estimates `N·U_0.25(E, N)` (z = 0.6745; values as SciPy computes them, see
/// tests/fixtures/pessimistic_bounds.txt):
/// - leaves [0, 6]: `6·(1 − 0.25^(1/6)) = 1.2378`; [1, 1]: E = 1, N = 2: 1.7915; sum 3.0293;
/// - [1, 7] as a leaf: E = 1, N = 8: 2.3712 ≤ 3.0293, so it is pruned;
/// - the root's leaves then: [12, 0]: `12·(1 − 0.25^(1/12)) = 1.3092`, plus 2.3712 = 3.6804;
///   the root as a leaf [13, 7]: E = 7, N = 20: 9.0007 > 3.6804, so it is kept.
#[test]
fn pessimistic_pruning_makes_the_hand_computed_decisions() {
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for (x0, x1, count, class) in [
        (0.0, 0.0, 6, 0.0),
        (1.0, 0.0, 6, 0.0),
        (0.0, 1.0, 6, 1.0),
        (1.0, 1.0, 1, 0.0),
        (1.0, 1.0, 1, 1.0),
    ] {
        for _ in 0..count {
            rows.push(vec![x0, x1]);
            y.push(class);
        }
    }
    let model = DecisionTreeClassifier::params()
        .fit(&dataset(&rows, y))
        .unwrap();
    let t = model.tree();
    assert_eq!(t.n_leaves(), 3);
    assert_eq!(t.node(0).feature(), Some(1));
    assert_eq!(t.node(2).value(), &[1.0, 7.0]);
    assert_eq!(t.node(2).feature(), Some(0));

    let pruned = model.prune_pessimistic(0.25).unwrap();
    let p = pruned.tree();
    assert_eq!(p.n_nodes(), 3);
    assert_eq!(p.node(0).feature(), Some(1));
    assert_eq!(p.node(1).value(), &[12.0, 0.0]);
    assert_eq!(p.node(2).value(), &[1.0, 7.0]);
    assert!(p.node(2).is_leaf());

    // At CF = 0.5 (z = 0) the estimates are the continuity-corrected training errors:
    // [1, 7] as a leaf 1.5 against 6·(1 − 0.5^(1/6)) + 1.5 = 2.1546 below: still pruned;
    // the root as a leaf 7.5 against 12·(1 − 0.5^(1/12)) + 1.5 = 2.1736: kept.
    assert_eq!(model.prune_pessimistic(0.5).unwrap().n_leaves(), 2);
    for bad in [0.0, 0.51, -0.1, f64::NAN] {
        assert!(matches!(
            model.prune_pessimistic(bad),
            Err(Error::InvalidParameter { .. })
        ));
    }
}

fn distinct_rows(raw: &[(f64, f64)]) -> Vec<Vec<f64>> {
    let mut rows: Vec<Vec<f64>> = raw.iter().map(|&(a, b)| vec![a, b]).collect();
    rows.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    rows.dedup();
    rows
}

fn misclassified(m: &DecisionTreeClassifier, data: &Dataset) -> usize {
    let truth = data.targets.to_classes().unwrap();
    m.predict(&data.records)
        .unwrap()
        .iter()
        .zip(truth.indices())
        .filter(|(p, k)| **p != truth.labels()[**k])
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn pruning_never_adds_leaves_nor_validation_error(
        raw in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0), 4..60),
        labels in proptest::collection::vec(0u8..3, 60),
        val in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0, 0u8..3), 1..30),
        cf in 0.01f64..0.5,
    ) {
        let rows = distinct_rows(&raw);
        let n = rows.len();
        let mut y: Vec<f64> = labels[..n].iter().map(|&c| f64::from(c)).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let train = dataset(&rows, y.clone());
        let model = DecisionTreeClassifier::params().fit(&train).unwrap();
        let vrows: Vec<Vec<f64>> = val.iter().map(|&(a, b, _)| vec![a, b]).collect();
        let validation = dataset(&vrows, val.iter().map(|v| f64::from(v.2)).collect());

        let rep = model.prune_reduced_error(&validation).unwrap();
        prop_assert!(rep.n_leaves() <= model.n_leaves());
        prop_assert!(misclassified(&rep, &validation) <= misclassified(&model, &validation));

        let pessimistic = model.prune_pessimistic(cf).unwrap();
        prop_assert!(pessimistic.n_leaves() <= model.n_leaves());

        let targets: Vec<f64> = rows.iter().map(|r| r[0] * r[1]).collect();
        let reg = DecisionTreeRegressor::params().fit(&dataset(&rows, targets)).unwrap();
        let vt: Vec<f64> = val.iter().map(|&(a, b, c)| a * b + f64::from(c)).collect();
        let validation = dataset(&vrows, vt.clone());
        let sse = |m: &DecisionTreeRegressor| -> f64 {
            m.predict(&validation.records).unwrap().iter().zip(&vt).map(|(p, t)| (p - t).powi(2)).sum()
        };
        let pruned = reg.prune_reduced_error(&validation).unwrap();
        prop_assert!(pruned.n_leaves() <= reg.n_leaves());
        prop_assert!(sse(&pruned) <= sse(&reg) * (1.0 + 1e-12) + 1e-12);
    }
}
