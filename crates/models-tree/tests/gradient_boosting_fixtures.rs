//! The histogram boosters against scikit-learn 1.9.1's HistGradientBoosting* on bundled data
//! (fixtures and the command that wrote them: tests/fixtures/gen_gradient_boosting.py; each
//! file's header names the versions). Checked: every bin edge, the decision function after one
//! iteration (same bins and gradients ⇒ the same first tree) and after all iterations (to
//! 1e-8: the same trees, up to summation order), and the test accuracy (within 0.5 point) or
//! R² (within 0.01).

use margin_core::{Dataset, DecisionFunction, DenseMatrix, Fit, Label, Predict, Records};
use margin_io::datasets;
use margin_testing::fixture::Fixture;
use margin_tree::{
    EarlyStopping, GradientBoostingClassifier, GradientBoostingClassifierParams,
    GradientBoostingRegressor, GradientBoostingRegressorParams, RegressionLoss,
};

/// The fixture tests/fixtures/gb_`name`.txt.
fn read(name: &str) -> Fixture {
    Fixture::bundled(env!("CARGO_MANIFEST_DIR"), &format!("gb_{name}.txt"))
}

fn rows(data: &Dataset, range: impl Iterator<Item = usize>) -> Dataset {
    data.select(&range.collect::<Vec<_>>()).unwrap()
}

/// As `with_missing` in gen_gradient_boosting.py.
fn with_missing(data: &Dataset) -> Dataset {
    let mut x = data.records.to_dense().unwrap();
    let d = x.ncols();
    for i in (0..x.nrows()).step_by(5) {
        x.row_mut(i)[(i / 5) % d] = f64::NAN;
    }
    for i in (0..x.nrows()).step_by(3) {
        x.row_mut(i)[1] = f64::NAN;
    }
    Dataset::new(x, data.targets.clone()).unwrap()
}

/// (train, test) for a fixture, as the generator builds them.
fn data_for(name: &str) -> (Dataset, Dataset) {
    let heart = || datasets::heart_scale().unwrap();
    match name {
        "heart" => (rows(&heart(), 0..200), rows(&heart(), 200..270)),
        "heart_weighted" => {
            let w = (0..200).map(|i| [1.0, 1.5, 2.0][i % 3]).collect();
            let train = rows(&heart(), 0..200).with_sample_weights(w).unwrap();
            (train, rows(&heart(), 200..270))
        }
        "heart_missing" => {
            let all = with_missing(&heart());
            (rows(&all, 0..200), rows(&all, 200..270))
        }
        "dna" => (datasets::dna().unwrap(), datasets::dna_test().unwrap()),
        "svmguide1" => (
            datasets::svmguide1().unwrap(),
            datasets::svmguide1_test().unwrap(),
        ),
        "housing" | "housing_absolute" => {
            let all = datasets::housing_scale().unwrap();
            let n = all.n_samples();
            (
                rows(&all, (0..n).filter(|i| i % 4 != 0)),
                rows(&all, (0..n).filter(|i| i % 4 == 0)),
            )
        }
        other => panic!("no data for {other}"),
    }
}

macro_rules! apply_params {
    ($params:expr, $given:expr) => {{
        let mut p = $params.early_stopping(EarlyStopping::Off);
        for (k, v) in $given.iter() {
            p = match k.as_str() {
                "max_iter" => p.max_iter(v.parse().unwrap()),
                "max_leaf_nodes" => p.max_leaf_nodes(Some(v.parse().unwrap())),
                "max_depth" => p.max_depth(Some(v.parse().unwrap())),
                "min_samples_leaf" => p.min_samples_leaf(v.parse().unwrap()),
                "l2_regularization" => p.l2_regularization(v.parse().unwrap()),
                "learning_rate" => p.learning_rate(v.parse().unwrap()),
                "max_bins" => p.max_bins(v.parse().unwrap()),
                "loss" => p,
                other => panic!("unknown parameter {other}"),
            };
        }
        p
    }};
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The first `m` rows' decision values, flattened.
fn head(m: &DenseMatrix, rows: usize) -> Vec<f64> {
    m.rows().take(rows).flatten().copied().collect()
}

/// Every feature's edges equal scikit-learn's (to rounding: numpy averages quantiles its way).
fn check_edges(fx: &Fixture, n_features: usize, edges: impl Fn(usize) -> Vec<f64>) {
    for j in 0..n_features {
        let expected = fx.floats(&format!("edges_{j}"));
        let got = edges(j);
        assert_eq!(
            got.len(),
            expected.len(),
            "{}: feature {j} bin count",
            fx.name()
        );
        for (g, e) in got.iter().zip(&expected) {
            assert!(
                (g - e).abs() <= 1e-12 * e.abs().max(1.0),
                "{}: feature {j}: {g} vs {e}",
                fx.name()
            );
        }
    }
}

fn check_classifier(name: &str) {
    let fx = read(name);
    let (train, test) = data_for(name);
    let params: GradientBoostingClassifierParams =
        apply_params!(GradientBoostingClassifier::params(), fx.params());
    let model = params.fit(&train).unwrap();
    check_edges(&fx, model.n_features(), |j| model.bin_edges(j).to_vec());
    let one = params.clone().max_iter(1).fit(&train).unwrap();
    let expected_1 = fx.floats("decision_1");
    let k = model.n_trees_per_iteration();
    let n_rows = expected_1.len() / k;
    let got_1 = head(&one.decision_function(&test.records).unwrap(), n_rows);
    let diff_1 = max_abs_diff(&got_1, &expected_1);
    assert!(
        diff_1 < 1e-6,
        "{}: first iteration differs by {diff_1}",
        fx.name()
    );
    let got = head(&model.decision_function(&test.records).unwrap(), n_rows);
    let diff = max_abs_diff(&got, &fx.floats("decision"));
    assert!(
        diff < 1e-8,
        "{}: decision function differs by {diff}",
        fx.name()
    );
    let predicted = model.predict(&test.records).unwrap();
    let truth = test.targets.values().unwrap();
    let correct = predicted
        .iter()
        .zip(truth.iter())
        .filter(|(p, t)| **p == Label::Number(**t))
        .count();
    let accuracy = correct as f64 / test.n_samples() as f64;
    let expected = fx.float("score");
    eprintln!(
        "{}: accuracy {accuracy:.4} vs {expected:.4}, decision max diff {diff:.2e} (first iteration {diff_1:.2e})",
        fx.name()
    );
    assert!(
        (accuracy - expected).abs() <= 0.005,
        "{}: accuracy {accuracy} vs scikit-learn's {expected}",
        fx.name()
    );
    assert_eq!(model.n_iter() as f64, fx.float("n_iter"));
}

fn check_regressor(name: &str, loss: RegressionLoss) {
    let fx = read(name);
    let (train, test) = data_for(name);
    let params: GradientBoostingRegressorParams =
        apply_params!(GradientBoostingRegressor::params().loss(loss), fx.params());
    let model = params.fit(&train).unwrap();
    check_edges(&fx, model.n_features(), |j| model.bin_edges(j).to_vec());
    let one = params.clone().max_iter(1).fit(&train).unwrap();
    let diff_1 = max_abs_diff(
        &one.predict(&test.records).unwrap(),
        &fx.floats("decision_1"),
    );
    assert!(
        diff_1 < 1e-6,
        "{}: first iteration differs by {diff_1}",
        fx.name()
    );
    let predicted = model.predict(&test.records).unwrap();
    let diff = max_abs_diff(&predicted, &fx.floats("decision"));
    assert!(diff < 1e-8, "{}: predictions differ by {diff}", fx.name());
    let truth = test.targets.values().unwrap();
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let ss_res: f64 = truth
        .iter()
        .zip(&predicted)
        .map(|(t, p)| (t - p).powi(2))
        .sum();
    let ss_tot: f64 = truth.iter().map(|t| (t - mean).powi(2)).sum();
    let r2 = 1.0 - ss_res / ss_tot;
    let expected = fx.float("score");
    eprintln!(
        "{}: R² {r2:.5} vs {expected:.5}, prediction max diff {diff:.2e} (first iteration {diff_1:.2e})",
        fx.name()
    );
    assert!(
        (r2 - expected).abs() <= 0.01,
        "{}: R² {r2} vs scikit-learn's {expected}",
        fx.name()
    );
}

#[test]
fn heart_matches_scikit_learn() {
    check_classifier("heart");
}

#[test]
fn weighted_heart_matches_scikit_learn() {
    check_classifier("heart_weighted");
}

#[test]
fn heart_with_missing_values_matches_scikit_learn() {
    check_classifier("heart_missing");
}

#[test]
fn dna_multiclass_matches_scikit_learn() {
    check_classifier("dna");
}

#[test]
fn svmguide1_matches_scikit_learn() {
    check_classifier("svmguide1");
}

#[test]
fn housing_squared_error_matches_scikit_learn() {
    check_regressor("housing", RegressionLoss::SquaredError);
}

#[test]
fn housing_absolute_error_matches_scikit_learn() {
    check_regressor("housing_absolute", RegressionLoss::AbsoluteError);
}
