//! The naive Bayes models against scikit-learn 1.9.1 on real data: fitted attributes and the
//! first 50 test rows' (log-)probabilities to 1e-10 relative, every test prediction exactly,
//! on sparse and on dense records. The fixtures and the command that wrote them are in
//! tests/fixtures (gen_nb.py; each file's header names the versions).

use margin_core::{Dataset, DenseMatrix, Fit, Matrix, PartialFit, Predict, PredictProba, Records};
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};
use margin_testing::fixture::{Fixture, repo_libsvm};

/// The fixture tests/fixtures/`name`.
fn read(name: &str) -> Fixture {
    Fixture::bundled(env!("CARGO_MANIFEST_DIR"), name)
}

/// The readings of a fixture's data specs.
trait Data {
    fn n_features(&self) -> usize;
    fn data(&self, key: &str) -> Dataset;
    fn train(&self) -> Dataset;
}

impl Data for Fixture {
    fn n_features(&self) -> usize {
        self.float("n_features") as usize
    }

    /// A `path [a..b]` data spec, relative to the repository root, as sparse records.
    fn data(&self, key: &str) -> Dataset {
        let spec = self.words(key);
        let data = repo_libsvm(env!("CARGO_MANIFEST_DIR"), &spec[0], self.n_features());
        match spec.get(1) {
            Some(range) => data.select(&rows(range)).unwrap(),
            None => data,
        }
    }

    /// The training data with the fixture's weights.
    fn train(&self) -> Dataset {
        let data = self.data("train");
        match self.cycled_weights("weights", data.n_samples()) {
            Some(w) => data.with_sample_weights(w).unwrap(),
            None => data,
        }
    }
}

fn rows(range: &str) -> Vec<usize> {
    let (a, b) = range.split_once("..").unwrap();
    (a.parse().unwrap()..b.parse().unwrap()).collect()
}

fn optional_list(v: Option<&String>) -> Option<Vec<f64>> {
    v.filter(|s| *s != "none")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
}

fn dense(data: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Dense(data.records.to_dense().unwrap()),
        ..data.clone()
    }
}

/// `|got − want| ≤ rel · max(|want|, floor)` entry by entry.
fn close_to(what: &str, got: &[f64], want: &[f64], rel: f64, floor: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = g == w || (g - w).abs() <= rel * w.abs().max(floor);
        assert!(ok, "{what}[{i}]: margin {g:e}, scikit-learn {w:e}");
    }
}

/// Relative closeness (down to the smallest normal magnitudes).
fn close(what: &str, got: &[f64], want: &[f64], rel: f64) {
    close_to(what, got, want, rel, 1e-300);
}

/// What a fitted model gives, whatever its type.
struct Outcome {
    labels: Vec<String>,
    attrs: Vec<(&'static str, Vec<f64>)>,
    predicted: Vec<String>,
    proba: DenseMatrix,
    log_proba: DenseMatrix,
}

fn strings<T: ToString>(v: &[T]) -> Vec<String> {
    v.iter().map(ToString::to_string).collect()
}

/// Fits the fixture's model, with its parameters, on `train`; predicts `test`, and the
/// probabilities of `head`.
fn run(fx: &Fixture, train: &Dataset, test: &Matrix, head: &Matrix) -> Outcome {
    let p = fx.params();
    let float = |k: &str| p.get(k).map(|v| v.parse::<f64>().unwrap());
    let boolean = |k: &str| p.get(k).map(|v| v == "true");
    /// The [`Outcome`] of the fitted model `$m` whose attributes are `$attrs`: the methods are
    /// each model type's own, hence a macro.
    macro_rules! outcome {
        ($m:ident, $attrs:expr) => {
            Outcome {
                labels: strings($m.classes()),
                attrs: $attrs,
                predicted: strings(&$m.predict(test).unwrap()),
                proba: $m.predict_proba(head).unwrap(),
                log_proba: $m.predict_log_proba(head).unwrap(),
            }
        };
    }
    macro_rules! discrete {
        ($model:ident, $params:expr) => {{
            let mut params = $params;
            if let Some(a) = float("alpha") {
                params = params.alpha(a);
            }
            if let Some(f) = boolean("fit_prior") {
                params = params.fit_prior(f);
            }
            if let Some(prior) = optional_list(p.get("class_prior")) {
                params = params.class_prior(prior);
            }
            let m = params.fit(train).unwrap();
            let attrs = vec![
                ("class_count", m.class_count().to_vec()),
                ("class_log_prior", m.class_log_prior().to_vec()),
                ("feature_count", m.feature_count().as_slice().to_vec()),
                ("feature_log_prob", m.feature_log_prob().as_slice().to_vec()),
            ];
            outcome!(m, attrs)
        }};
    }
    match fx.words("model")[0].as_str() {
        "MultinomialNB" => discrete!(MultinomialNB, MultinomialNB::params()),
        "BernoulliNB" => {
            let mut params = BernoulliNB::params();
            if let Some(b) = p.get("binarize") {
                params = params.binarize((b != "none").then(|| b.parse().unwrap()));
            }
            discrete!(BernoulliNB, params)
        }
        "GaussianNB" => {
            let mut params = GaussianNB::params();
            if let Some(v) = float("var_smoothing") {
                params = params.var_smoothing(v);
            }
            if let Some(prior) = optional_list(p.get("priors")) {
                params = params.priors(prior);
            }
            let m = params.fit(train).unwrap();
            let attrs = vec![
                ("class_count", m.class_count().to_vec()),
                ("class_prior", m.class_prior().to_vec()),
                ("theta", m.theta().as_slice().to_vec()),
                ("var", m.var().as_slice().to_vec()),
                ("epsilon", vec![m.epsilon()]),
            ];
            outcome!(m, attrs)
        }
        other => panic!("unknown model {other}"),
    }
}

fn check(name: &str) {
    let fx = read(name);
    let (train, test) = (fx.train(), fx.data("test"));
    let proba_rows: Vec<usize> = (0..50.min(test.n_samples())).collect();
    let head = test.records.select_rows(&proba_rows).unwrap();
    for (layout, train, test, head) in [
        ("sparse", train.clone(), test.records.clone(), head.clone()),
        (
            "dense",
            dense(&train),
            Matrix::Dense(test.records.to_dense().unwrap()),
            Matrix::Dense(head.to_dense().unwrap()),
        ),
    ] {
        let what = |s: &str| format!("{} ({layout}): {s}", fx.name());
        let m = run(&fx, &train, &test, &head);
        assert_eq!(m.labels, fx.words("classes"), "{}", what("classes"));
        for (attr, got) in &m.attrs {
            close(&what(attr), got, &fx.floats(attr), 1e-10);
        }
        assert_eq!(m.predicted, fx.words("predict"), "{}", what("predict"));
        close(
            &what("proba"),
            m.proba.as_slice(),
            &fx.floats("proba"),
            1e-10,
        );
        // A log-probability near 0 is a difference of joint log-likelihoods of magnitude ≥ 1,
        // so its error is relative to those, not to itself.
        close_to(
            &what("log_proba"),
            m.log_proba.as_slice(),
            &fx.floats("log_proba"),
            1e-10,
            1.0,
        );
    }
}

#[test]
fn multinomial_on_dna_matches_scikit_learn() {
    check("nb_multinomial_dna.txt");
}

#[test]
fn multinomial_with_given_priors_and_small_alpha_matches_scikit_learn() {
    check("nb_multinomial_dna_prior.txt");
}

#[test]
fn multinomial_on_pendigits_counts_matches_scikit_learn() {
    check("nb_multinomial_pendigits.txt");
}

#[test]
fn weighted_multinomial_with_uniform_priors_matches_scikit_learn() {
    check("nb_multinomial_pendigits_weighted.txt");
}

#[test]
fn bernoulli_on_dna_matches_scikit_learn() {
    check("nb_bernoulli_dna.txt");
}

#[test]
fn bernoulli_with_a_threshold_weights_and_priors_matches_scikit_learn() {
    check("nb_bernoulli_pendigits.txt");
}

#[test]
fn gaussian_on_heart_matches_scikit_learn() {
    check("nb_gaussian_heart.txt");
}

#[test]
fn weighted_gaussian_with_priors_matches_scikit_learn() {
    check("nb_gaussian_heart_weighted.txt");
}

/// scikit-learn's `partial_fit` merges each batch's weighted means and variances into the
/// running ones; margin's merge must give the same numbers (smoothing off: see gen_nb.py).
#[test]
fn gaussian_streaming_merge_matches_scikit_learns_partial_fit() {
    let fx = read("nb_gaussian_heart_stream.txt");
    let train = fx.train();
    let classes = train.targets.to_classes().unwrap().labels().to_vec();
    let params = GaussianNB::params().var_smoothing(0.0);
    let mut model = GaussianNB::empty(params, &classes, fx.n_features()).unwrap();
    for range in fx.words("batches") {
        model
            .partial_fit(&train.select(&rows(range)).unwrap())
            .unwrap();
    }
    close(
        "class_count",
        model.class_count(),
        &fx.floats("class_count"),
        1e-12,
    );
    close(
        "theta",
        model.theta().as_slice(),
        &fx.floats("theta"),
        1e-12,
    );
    close("var", model.var().as_slice(), &fx.floats("var"), 1e-10);
}
