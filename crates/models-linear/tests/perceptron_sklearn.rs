//! `Perceptron` against scikit-learn 1.9.1's `Perceptron(shuffle=False, tol=None, ...)` on
//! real data: the weights, the intercepts and every test prediction. The fixtures and the
//! command that wrote them are in tests/fixtures (gen_perceptron.py, whose docstring explains
//! why the update rules coincide exactly under these settings and not under others).
//!
//! dna's features are 0/1 and its steps ±1, so every value is an integer and the weights must
//! be equal bit for bit. heart_scale's are not, and scikit-learn sums `w·x` in another order
//! than margin does, so its weights are compared to a relative 1e-12 (with scikit-learn 1.9.1
//! they agree bit for bit too: no score falls close enough to 0 for the order to flip a
//! mistake, and the updates themselves are the same operations).

use margin_core::{Dataset, Fit, Label, Matrix, Predict, Records};
use margin_linear::Perceptron;
use margin_testing::fixture::{Fixture, repo_libsvm};

/// This suite's readings of a fixture.
trait Run {
    fn data(&self, key: &str) -> Dataset;
    fn train(&self) -> Dataset;
    fn perceptron(&self) -> margin_linear::PerceptronParams;
}

impl Run for Fixture {
    fn data(&self, key: &str) -> Dataset {
        let n_features = self.word("n_features").parse().unwrap();
        repo_libsvm(env!("CARGO_MANIFEST_DIR"), &self.words(key)[0], n_features)
    }

    /// The training data with the fixture's weights.
    fn train(&self) -> Dataset {
        let data = self.data("train");
        match self.cycled_weights("weights", data.n_samples()) {
            Some(w) => data.with_sample_weights(w).unwrap(),
            None => data,
        }
    }

    /// Perceptron's parameters as the fixture's `params` set them, without shuffling.
    fn perceptron(&self) -> margin_linear::PerceptronParams {
        let given = self.params();
        let mut params = Perceptron::params().shuffle(false);
        if let Some(n) = given.get("max_iter") {
            params = params.max_iter(n.parse().unwrap());
        }
        if let Some(eta) = given.get("eta0") {
            params = params.eta0(eta.parse().unwrap());
        }
        if let Some(yes) = given.get("fit_intercept") {
            params = params.fit_intercept(yes.parse().unwrap());
        }
        params
    }
}

fn label_text(l: &Label) -> String {
    l.to_string()
}

fn check(name: &str, exact: bool) {
    let fx = Fixture::bundled(env!("CARGO_MANIFEST_DIR"), name);
    let train = fx.train();
    let test = fx.data("test");
    let params = fx.perceptron();
    // The rule reads records through dot products only: dense and sparse must agree.
    let dense = Dataset {
        records: Matrix::Dense(train.records.to_dense().unwrap()),
        ..train.clone()
    };
    let model = params.fit(&train).unwrap();
    assert_eq!(
        model,
        params.fit(&dense).unwrap(),
        "{name}: sparse vs dense"
    );

    let labels: Vec<String> = model.classes().iter().map(label_text).collect();
    assert_eq!(labels, fx.words("classes"), "{name}");
    let coef: Vec<f64> = model.coef().as_slice().to_vec();
    let want = fx.floats("coef");
    assert_eq!(coef.len(), want.len(), "{name}");
    let close = |a: f64, b: f64, scale: f64| {
        if exact {
            a == b
        } else {
            (a - b).abs() <= 1e-12 * scale
        }
    };
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (j, (a, b)) in coef.iter().zip(&want).enumerate() {
        assert!(close(*a, *b, scale), "{name}: coef[{j}] {a} vs {b}");
    }
    for (a, b) in model.intercept().iter().zip(fx.floats("intercept")) {
        assert!(close(*a, b, scale), "{name}: intercept {a} vs {b}");
    }

    let predicted: Vec<String> = model
        .predict(&test.records)
        .unwrap()
        .iter()
        .map(label_text)
        .collect();
    // `predict N labels...`: the reader took N as the shape.
    assert_eq!(predicted, fx.words("predict"), "{name}: predictions");
}

#[test]
fn matches_scikit_learn_on_heart_scale() {
    check("perceptron_heart.txt", false);
}

#[test]
fn matches_scikit_learn_with_sample_weights_a_step_and_no_intercept() {
    check("perceptron_heart_weighted.txt", false);
}

#[test]
fn matches_scikit_learn_one_vs_rest_on_dna_exactly() {
    check("perceptron_dna.txt", true);
}
