//! Properties of single trees: the shared estimator battery (bad input, save → load, thread
//! count), a fully grown tree reproducing its distinct training points, integer weights
//! acting as repeated rows, absolute-error splits against brute force, and seeded feature
//! subsets.

use crate::common;

use common::bundled;
use margin_core::{Dataset, DenseMatrix, Fit, Label, Predict, PredictProba, Targets};
use margin_io::ModelFile;
use margin_testing::battery::{Task, check_estimator};
use margin_tree::{
    Criterion, DecisionTreeClassifier, DecisionTreeRegressor, MaxFeatures, SplitStrategy, Tree,
};
use proptest::prelude::*;

#[test]
fn classifiers_pass_the_battery() {
    check_estimator(&DecisionTreeClassifier::params(), Task::Classification);
    check_estimator(
        &DecisionTreeClassifier::params().splitter(SplitStrategy::Random),
        Task::Classification,
    );
    check_estimator(
        &DecisionTreeClassifier::params()
            .criterion(Criterion::Entropy)
            .max_features(MaxFeatures::Sqrt)
            .max_leaf_nodes(Some(6)),
        Task::Classification,
    );
}

#[test]
fn regressors_pass_the_battery() {
    check_estimator(&DecisionTreeRegressor::params(), Task::Regression);
    check_estimator(
        &DecisionTreeRegressor::params()
            .criterion(Criterion::AbsoluteError)
            .max_depth(Some(4)),
        Task::Regression,
    );
}

/// dna (2,000 × 180) is large enough for the top nodes to scan and partition features on
/// several threads; the tree must not depend on how many.
#[test]
fn a_tree_does_not_depend_on_the_thread_count() {
    let data = bundled("dna.scale");
    common::assert_same_on_one_and_two_threads(|| {
        let m = DecisionTreeClassifier::params()
            .criterion(Criterion::Entropy)
            .fit(&data)
            .unwrap();
        (
            m.to_bytes().unwrap(),
            m.predict_proba(&data.records).unwrap(),
        )
    });
}

#[test]
fn models_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<DecisionTreeClassifier>();
    check::<DecisionTreeRegressor>();
    check::<Tree>();
}

#[test]
fn save_then_load_gives_the_same_model() {
    let data = bundled("heart_scale");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.margin");
    let model = DecisionTreeClassifier::params().fit(&data).unwrap();
    model.save(&path).unwrap();
    let back = DecisionTreeClassifier::load(&path).unwrap();
    assert_eq!(back, model);
    assert_eq!(
        back.predict_proba(&data.records).unwrap(),
        model.predict_proba(&data.records).unwrap()
    );
    let reg = DecisionTreeRegressor::params()
        .fit(&bundled("housing_scale"))
        .unwrap();
    let back = DecisionTreeRegressor::from_bytes(&reg.to_bytes().unwrap()).unwrap();
    assert_eq!(back, reg);
    // A classifier file is not a regressor.
    assert!(DecisionTreeRegressor::from_bytes(&model.to_bytes().unwrap()).is_err());
}

#[test]
fn seeded_feature_subsets_are_reproducible_and_seed_dependent() {
    let data = bundled("heart_scale");
    let fit = |seed| {
        DecisionTreeClassifier::params()
            .max_features(MaxFeatures::Sqrt)
            .seed(seed)
            .fit(&data)
            .unwrap()
    };
    assert_eq!(fit(3), fit(3));
    assert_ne!(fit(3).tree(), fit(4).tree());
    // Every node still splits on a feature that improves it.
    let full = fit(3);
    assert_eq!(full.predict(&data.records).unwrap(), common::labels(&data));
}

/// Rows with a distinct first coordinate, so no two samples coincide.
fn distinct_rows(raw: &[(f64, f64)]) -> Vec<Vec<f64>> {
    raw.iter()
        .enumerate()
        .map(|(i, &(a, b))| vec![a + i as f64 * 1e-3, b])
        .collect()
}

/// Brute force: the smallest `Σ_left w|y − med| + Σ_right w|y − med|` over every split.
fn best_absolute_split(x: &[Vec<f64>], y: &[f64], w: &[f64]) -> f64 {
    let dev = |idx: &[usize]| {
        let mut p: Vec<(f64, f64)> = idx.iter().map(|&i| (y[i], w[i])).collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total: f64 = p.iter().map(|q| q.1).sum();
        let mut cum = 0.0;
        let med = p
            .iter()
            .find(|q| {
                cum += q.1;
                cum >= total / 2.0
            })
            .unwrap()
            .0;
        p.iter().map(|q| q.1 * (q.0 - med).abs()).sum::<f64>()
    };
    let mut best = f64::INFINITY;
    for (j, _) in x[0].iter().enumerate() {
        for t in x.iter().map(|r| r[j]) {
            let (l, r): (Vec<usize>, Vec<usize>) = (0..x.len()).partition(|&i| x[i][j] <= t);
            if !l.is_empty() && !r.is_empty() {
                best = best.min(dev(&l) + dev(&r));
            }
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn pruning_never_increases_the_leaf_count(
        raw in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0), 4..60),
        labels in proptest::collection::vec(0u8..3, 60),
        alphas in proptest::collection::vec(0.0f64..0.2, 1..6),
    ) {
        let rows = distinct_rows(&raw);
        let n = rows.len();
        let mut y: Vec<f64> = labels[..n].iter().map(|&c| c as f64).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let data = Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y)).unwrap();
        let params = DecisionTreeClassifier::params();
        let mut alphas = alphas;
        alphas.sort_by(f64::total_cmp);
        let mut leaves = params.fit(&data).unwrap().n_leaves();
        for a in alphas {
            let pruned = params.clone().ccp_alpha(a).fit(&data).unwrap();
            prop_assert!(pruned.n_leaves() <= leaves);
            leaves = pruned.n_leaves();
        }
        // Each alpha of the path gives a tree whose leaf impurity is the path's. The alphas
        // are compared with a little slack: a step's alpha may round a few ulps above a later
        // one's, and pruning stops at the first link above the given alpha.
        let path = params.cost_complexity_pruning_path(&data).unwrap();
        prop_assert!(path.ccp_alphas.windows(2).all(|w| w[0] <= w[1] + 1e-12));
        for (k, &a) in path.ccp_alphas.iter().enumerate().skip(1) {
            let a = a + 1e-12;
            if path.ccp_alphas.get(k + 1).is_some_and(|&next| next <= a) {
                continue;
            }
            let tree = params.clone().ccp_alpha(a).fit(&data).unwrap();
            let t = tree.tree();
            let root = t.node(0).weighted_n_samples();
            let r: f64 = t
                .nodes()
                .filter(|v| v.is_leaf())
                .map(|v| v.weighted_n_samples() * v.impurity() / root)
                .sum();
            prop_assert!((r - path.impurities[k]).abs() <= 1e-9, "{} vs {}", r, path.impurities[k]);
        }
        let last = *path.ccp_alphas.last().unwrap();
        prop_assert_eq!(params.ccp_alpha(last).fit(&data).unwrap().tree().n_nodes(), 1);
    }

    #[test]
    fn a_fully_grown_tree_predicts_its_distinct_training_points(
        raw in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0), 2..40),
        labels in proptest::collection::vec(0u8..3, 40),
        targets in proptest::collection::vec(-10.0f64..10.0, 40),
        entropy in any::<bool>(),
    ) {
        let rows = distinct_rows(&raw);
        let n = rows.len();
        let x = DenseMatrix::from_rows(&rows).unwrap();
        let mut y: Vec<f64> = labels[..n].iter().map(|&c| c as f64).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let data = Dataset::new(x.clone(), Targets::Values(y.clone())).unwrap();
        let criterion = if entropy { Criterion::Entropy } else { Criterion::Gini };
        let model = DecisionTreeClassifier::params().criterion(criterion).fit(&data).unwrap();
        let want: Vec<Label> = y.iter().map(|&v| Label::Number(v)).collect();
        prop_assert_eq!(model.predict(&x).unwrap(), want);
        let reg_data = Dataset::new(x.clone(), Targets::Values(targets[..n].to_vec())).unwrap();
        for c in [Criterion::SquaredError, Criterion::AbsoluteError] {
            let reg = DecisionTreeRegressor::params().criterion(c).fit(&reg_data).unwrap();
            prop_assert_eq!(reg.predict(&x).unwrap(), targets[..n].to_vec());
        }
    }

    #[test]
    fn integer_weights_act_as_repeated_rows(
        raw in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0), 4..30),
        labels in proptest::collection::vec(0u8..2, 30),
        reps in proptest::collection::vec(1usize..4, 30),
    ) {
        let rows = distinct_rows(&raw);
        let n = rows.len();
        let mut y: Vec<f64> = labels[..n].iter().map(|&c| c as f64).collect();
        y[0] = 0.0;
        y[1] = 1.0;
        let weights: Vec<f64> = reps[..n].iter().map(|&r| r as f64).collect();
        let weighted = Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y.clone()))
            .unwrap()
            .with_sample_weights(weights)
            .unwrap();
        let (mut rrows, mut ry) = (Vec::new(), Vec::new());
        for i in 0..n {
            for _ in 0..reps[i] {
                rrows.push(rows[i].clone());
                ry.push(y[i]);
            }
        }
        let repeated = Dataset::new(DenseMatrix::from_rows(&rrows).unwrap(), Targets::Values(ry)).unwrap();
        let params = DecisionTreeClassifier::params().criterion(Criterion::Entropy).max_depth(Some(3));
        let (a, b) = (params.fit(&weighted).unwrap(), params.fit(&repeated).unwrap());
        prop_assert_eq!(a.tree().n_nodes(), b.tree().n_nodes());
        for (p, q) in a.tree().nodes().zip(b.tree().nodes()) {
            prop_assert_eq!(p.feature(), q.feature());
            prop_assert_eq!(p.threshold(), q.threshold());
            prop_assert_eq!(p.value(), q.value());
        }
    }

    #[test]
    fn absolute_error_root_split_is_the_brute_force_optimum(
        raw in proptest::collection::vec((-5.0f64..5.0, -5.0f64..5.0), 2..25),
        targets in proptest::collection::vec(-10.0f64..10.0, 25),
        weights in proptest::collection::vec(0.5f64..3.0, 25),
    ) {
        let rows = distinct_rows(&raw);
        let n = rows.len();
        let (y, w) = (targets[..n].to_vec(), weights[..n].to_vec());
        let data = Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y.clone()))
            .unwrap()
            .with_sample_weights(w.clone())
            .unwrap();
        let model = DecisionTreeRegressor::params()
            .criterion(Criterion::AbsoluteError)
            .max_depth(Some(1))
            .fit(&data)
            .unwrap();
        let tree = model.tree();
        let root = tree.node(0);
        let best = best_absolute_split(&rows, &y, &w);
        match root.children() {
            Some((l, r)) => {
                let (l, r) = (tree.node(l), tree.node(r));
                let got = l.impurity() * l.weighted_n_samples() + r.impurity() * r.weighted_n_samples();
                prop_assert!((got - best).abs() <= 1e-9 * (1.0 + best), "{} vs {}", got, best);
            }
            // No split: the node was pure (all deviations zero).
            None => prop_assert!(root.impurity() == 0.0),
        }
    }
}
