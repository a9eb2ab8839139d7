//! Leaf-size limits as scikit-learn reads them: fractional `min_samples_split` /
//! `min_samples_leaf` (`⌈fraction · n_samples⌉`) and `min_weight_fraction_leaf`.

use margin_core::{Dataset, DenseMatrix, Error, Fit, Targets};
use margin_tree::{DecisionTreeClassifier, DecisionTreeRegressor, MinSamples};
use proptest::prelude::*;

fn dataset(x: &[f64], y: Vec<f64>) -> Dataset {
    let rows: Vec<Vec<f64>> = x.iter().map(|&v| vec![v]).collect();
    Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y)).unwrap()
}

fn twelve() -> Dataset {
    let x: Vec<f64> = (1..=12).map(f64::from).collect();
    dataset(&x, vec![0., 1., 0., 0., 1., 1., 0., 1., 1., 0., 1., 0.])
}

#[test]
fn fractions_are_rounded_up_counts_of_the_samples() {
    let data = twelve();
    let fit = |p: margin_tree::DecisionTreeClassifierParams| p.fit(&data).unwrap().tree().clone();
    let base = DecisionTreeClassifier::params();
    // ⌈0.2 · 12⌉ = 3, ⌈0.25 · 12⌉ = 3.
    assert_eq!(
        fit(base.clone().min_samples_leaf(0.2)),
        fit(base.clone().min_samples_leaf(3))
    );
    assert_eq!(
        fit(base.clone().min_samples_leaf(0.25)),
        fit(base.clone().min_samples_leaf(3))
    );
    assert_ne!(fit(base.clone().min_samples_leaf(3)), fit(base.clone()));
    // ⌈0.45 · 12⌉ = 6; a fraction never gives fewer than 2.
    assert_eq!(
        fit(base.clone().min_samples_split(0.45)),
        fit(base.clone().min_samples_split(6))
    );
    assert_ne!(fit(base.clone().min_samples_split(6)), fit(base.clone()));
    assert_eq!(fit(base.clone().min_samples_split(0.01)), fit(base.clone()));
    // ⌈1.0 · 12⌉ = 12: only the root may split.
    assert_eq!(fit(base.clone().min_samples_split(1.0)).n_nodes(), 3);

    assert_eq!(
        "0.5".parse::<MinSamples>().unwrap(),
        MinSamples::Fraction(0.5)
    );
    assert_eq!("4".parse::<MinSamples>().unwrap(), MinSamples::Count(4));
    assert!("few".parse::<MinSamples>().is_err());
}

#[test]
fn out_of_range_limits_are_refused() {
    let data = twelve();
    let refused = |p: margin_tree::DecisionTreeClassifierParams, name: &str| match p.fit(&data) {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("{name}: {other:?}"),
    };
    let base = DecisionTreeClassifier::params();
    refused(base.clone().min_samples_leaf(1.0), "min_samples_leaf");
    refused(base.clone().min_samples_leaf(0.0), "min_samples_leaf");
    refused(base.clone().min_samples_leaf(0), "min_samples_leaf");
    refused(base.clone().min_samples_split(1.5), "min_samples_split");
    refused(base.clone().min_samples_split(1), "min_samples_split");
    refused(
        base.clone().min_samples_split(f64::NAN),
        "min_samples_split",
    );
    refused(
        base.clone().min_weight_fraction_leaf(0.6),
        "min_weight_fraction_leaf",
    );
    refused(
        base.clone().min_weight_fraction_leaf(-0.1),
        "min_weight_fraction_leaf",
    );
    refused(
        base.min_weight_fraction_leaf(f64::NAN),
        "min_weight_fraction_leaf",
    );
}

/// x = 1..4, classes 0 0 1 1, weights 1 1 1 5 (total 8). Unlimited, `x <= 2.5` separates the
/// classes. With `min_weight_fraction_leaf = 0.3` each side needs weight 2.4: the left sides of
/// `x <= 1.5` (1) and `x <= 2.5` (2) are too light, so `x <= 3.5` (3 | 5) is the only split.
#[test]
fn min_weight_fraction_leaf_bounds_each_side_weight() {
    let data = dataset(&[1.0, 2.0, 3.0, 4.0], vec![0.0, 0.0, 1.0, 1.0])
        .with_sample_weights(vec![1.0, 1.0, 1.0, 5.0])
        .unwrap();
    let free = DecisionTreeClassifier::params().fit(&data).unwrap();
    assert_eq!(free.tree().node(0).threshold(), Some(2.5));
    let bound = DecisionTreeClassifier::params()
        .min_weight_fraction_leaf(0.3)
        .fit(&data)
        .unwrap();
    let t = bound.tree();
    assert_eq!(t.node(0).threshold(), Some(3.5));
    assert_eq!(t.n_leaves(), 2);
    let (l, r) = t.node(0).children().unwrap();
    assert_eq!(t.node(l).weighted_n_samples(), 3.0);
    assert_eq!(t.node(r).weighted_n_samples(), 5.0);
    // 0.5 asks for half the weight on each side: no split of 3 | 5 qualifies.
    let half = DecisionTreeClassifier::params()
        .min_weight_fraction_leaf(0.5)
        .fit(&data)
        .unwrap();
    assert_eq!(half.n_leaves(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// With unit weights, a weight fraction f asks each side for `f·n` samples: the same tree
    /// as `min_samples_leaf = ⌈f·n⌉`, when `n` samples can give two such leaves; when they
    /// cannot, that count is refused and the weight fraction leaves the root a leaf.
    #[test]
    fn unit_weight_fractions_act_as_sample_counts(
        y in proptest::collection::vec(-2.0f64..2.0, 6..50),
        f in 0.0f64..0.5,
    ) {
        let n = y.len();
        let x: Vec<f64> = (0..n).map(|i| ((i * 7) % n) as f64).collect();
        let data = dataset(&x, y);
        let by_weight = DecisionTreeRegressor::params()
            .min_weight_fraction_leaf(f)
            .fit(&data)
            .unwrap();
        let count = ((f * n as f64).ceil() as usize).max(1);
        let by_count = DecisionTreeRegressor::params()
            .min_samples_leaf(count)
            .fit(&data);
        if 2 * count > n {
            prop_assert!(
                matches!(&by_count, Err(Error::InvalidParameter { name, .. }) if name == "min_samples_leaf"),
                "{:?}",
                by_count
            );
            prop_assert_eq!(by_weight.n_leaves(), 1);
        } else {
            let by_count = by_count.unwrap();
            prop_assert_eq!(by_weight.tree(), by_count.tree());
        }
    }
}
