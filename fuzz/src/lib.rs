//! What the `model_file` fuzz target and its seed generator share: the table of every margin
//! model kind (one entry per kind, in a fixed order: an input's first byte picks the entry), the
//! check run on a body, and sound models of every kind to seed the corpus with.

use margin_testing::battery::loaded_model_failure;
use margin_preprocessing::{
    BinEncoding, KBinsDiscretizer, MinMaxScaler, OneHotEncoder, PolynomialFeatures, StandardScaler,
    UnknownCategory,
};
use margin_core::{Dataset, DecisionFunction, DenseMatrix, Error, Fit, Matrix, Predict, PredictProba, Records, Result, Targets, Transform};
use margin_io::{ModelFile, body_of, seal};
use margin_kernels::{Nystroem, Polynomial, RandomFourierFeatures, Rbf};
use margin_cluster::{KMeans, MiniBatchKMeans, NComponents, Pca};
use margin_linear::{
    BernoulliNB, ElasticNet, GaussianNB, KernelPerceptron, KernelRidge, LinearRegression,
    LogisticRegression, MultinomialNB, Perceptron, Ridge,
};
use margin_neighbors::{KNeighborsClassifier, KNeighborsRegressor, Metric, NearestNeighbors};
use margin_svm::{LinearSvc, Multiclass, OneClassSvm, Svc, KernelChoice, Svr};
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
};

/// One prediction-side method of a model: the row count of its answer on the records.
type Method<M> = fn(&M, &Matrix) -> Result<usize>;

/// Seals `body` as a file of `M`'s kind and loads it: a refusal must be
/// [`Error::ModelFile`]; a loaded model must answer every method on probes of its width
/// (found through the width a 1-column probe is refused with) with one row per probe row or a
/// typed error. Panics otherwise (the fuzzer's crash).
fn check<M: ModelFile>(body: &[u8], methods: &[Method<M>]) {
    let file = seal(M::KIND, M::SCHEMA, body).expect("a body of a fuzz input fits a file");
    let model = match M::from_bytes(&file) {
        Ok(m) => m,
        Err(Error::ModelFile { .. }) => return,
        Err(e) => panic!(
            "a `{}` file refused with `{e}`, not Error::ModelFile",
            M::KIND
        ),
    };
    for method in methods {
        let failure = loaded_model_failure(&model, 1, |m, x| Ok(vec![method(m, x)?]));
        if let Some(f) = failure {
            panic!("a loaded `{}` model {f}", M::KIND);
        }
    }
}

/// The row count of the answers of the methods every model of a family offers.
fn predict<M: Predict>(m: &M, x: &Matrix) -> Result<usize>
where
    M::Output: margin_testing::battery::Prediction,
{
    use margin_testing::battery::Prediction;
    Ok(m.predict(x)?.n_predictions())
}
fn decision<M: DecisionFunction>(m: &M, x: &Matrix) -> Result<usize> {
    Ok(m.decision_function(x)?.nrows())
}
fn proba<M: PredictProba>(m: &M, x: &Matrix) -> Result<usize> {
    Ok(m.predict_proba(x)?.nrows())
}
fn transform<M: Transform>(m: &M, x: &Matrix) -> Result<usize> {
    Ok(m.transform(x)?.n_samples())
}
fn labels<M: Predict<Output = Vec<usize>>>(m: &M, x: &Matrix) -> Result<usize> {
    Ok(m.predict(x)?.len())
}

/// Every kind, by the index an input's first byte selects (modulo the count), with the
/// methods probed on a loaded model.
macro_rules! kinds {
    ($($model:ty => [$($method:expr),* $(,)?]),* $(,)?) => {
        /// The kinds, in table order.
        pub const KINDS: &[&str] = &[$(<$model as ModelFile>::KIND),*];

        /// Runs the check of kind `index` (modulo [`KINDS`]`.len()`) on `body`.
        pub fn check_kind(index: usize, body: &[u8]) {
            let mut i = index % KINDS.len();
            $(
                if i == 0 {
                    return check::<$model>(body, &[$($method),*]);
                }
                i -= 1;
            )*
            unreachable!("{i} is below the number of kinds")
        }
    };
}

kinds! {
    Svc => [predict, decision, proba, |m, x| Ok(m.predict_classes(x)?.len())],
    Svr => [predict],
    OneClassSvm => [predict, decision],
    LinearSvc => [predict, decision],
    LogisticRegression => [predict, decision, proba, |m, x| Ok(m.predict_log_proba(x)?.nrows())],
    Perceptron => [predict, decision],
    KernelPerceptron => [predict, decision],
    LinearRegression => [predict, |m, x| Ok(m.predict_interval(x, 0.9)?.upper.len())],
    Ridge => [predict],
    KernelRidge => [predict],
    ElasticNet => [predict],
    GaussianNB => [predict, proba, |m, x| Ok(m.predict_log_proba(x)?.nrows())],
    MultinomialNB => [predict, proba, |m, x| Ok(m.predict_log_proba(x)?.nrows())],
    BernoulliNB => [predict, proba, |m, x| Ok(m.predict_log_proba(x)?.nrows())],
    DecisionTreeClassifier => [predict, proba],
    DecisionTreeRegressor => [predict],
    RandomForestClassifier => [predict, proba],
    RandomForestRegressor => [predict],
    AdaBoostClassifier => [predict, proba],
    GradientBoostingClassifier => [predict, decision, proba],
    GradientBoostingRegressor => [predict],
    KNeighborsClassifier => [predict, proba, |m, x| Ok(m.kneighbors(x, m.n_neighbors())?.n_queries())],
    KNeighborsRegressor => [predict, |m, x| Ok(m.kneighbors(x, m.n_neighbors())?.n_queries())],
    NearestNeighbors => [|m, x| Ok(m.kneighbors(x, m.n_neighbors())?.n_queries())],
    KMeans => [labels, transform, |m, x| m.score(x).map(|_| x.n_samples())],
    MiniBatchKMeans => [labels, transform, |m, x| m.score(x).map(|_| x.n_samples())],
    Pca => [transform, |m, x| Ok(m.inverse_transform(x)?.nrows())],
    StandardScaler => [transform],
    MinMaxScaler => [transform],
    OneHotEncoder => [transform],
    KBinsDiscretizer => [transform],
    PolynomialFeatures => [transform],
    Nystroem => [transform],
    RandomFourierFeatures => [transform],
}

/// The fuzz target's whole work: the first byte picks the kind, the rest is the body.
pub fn check_input(data: &[u8]) {
    if let Some((&kind, body)) = data.split_first() {
        check_kind(usize::from(kind), body);
    }
}

/// `n` rows of `d` columns in `[-1, 1)` (a fixed pattern, no randomness needed), with classes
/// (`k` of them) or continuous targets.
fn data(n: usize, d: usize, k: Option<usize>) -> Dataset {
    let x: Vec<f64> = (0..n * d)
        .map(|i| ((i * 7919 + 13) % 200) as f64 / 100.0 - 1.0)
        .collect();
    let y = (0..n)
        .map(|i| {
            let s: f64 = x[i * d..(i + 1) * d].iter().sum();
            match k {
                Some(k) => ((s + 3.0) * k as f64 / 6.0)
                    .floor()
                    .clamp(0.0, k as f64 - 1.0),
                None => 2.0 * s + 0.5,
            }
        })
        .collect();
    let records = DenseMatrix::from_row_major(x, n, d).expect("n × d values");
    Dataset::new(records, Targets::Values(y)).expect("one target per row")
}

/// An input for kind `M`: its table index, then the body of `model`.
fn seed<M: ModelFile>(model: Result<M>) -> (String, Vec<u8>) {
    let model = model.unwrap_or_else(|e| panic!("fitting a `{}` seed: {e}", M::KIND));
    let index = KINDS
        .iter()
        .position(|k| *k == M::KIND)
        .expect("every kind is in the table");
    let bytes = model.to_bytes().expect("a fitted model encodes");
    let mut input = vec![u8::try_from(index).expect("fewer than 256 kinds")];
    input.extend_from_slice(body_of(&bytes).expect("an intact file"));
    (M::KIND.to_owned(), input)
}

/// Inputs made of sound fitted models of every kind (several variants for the kinds whose
/// layout depends on their parameters), each named by its kind.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let two = data(40, 3, Some(2));
    let three = data(45, 3, Some(3));
    let reg = data(40, 3, None);
    let x = &reg.records;
    let counts = {
        let mut c = x.to_dense().expect("dense");
        c.as_mut_slice()
            .iter_mut()
            .for_each(|v| *v = (*v * 3.0).abs().round());
        Dataset::new(c, two.targets.clone()).expect("same rows")
    };
    let rbf = || Rbf::with_gamma(0.5).expect("γ > 0");
    vec![
        seed(Svc::params().fit(&two)),
        seed(Svc::params().kernel(KernelChoice::Linear).fit(&three)),
        seed(Svc::params().probability(true).fit(&three)),
        seed(Svc::params().multiclass(Multiclass::OneVsRest).fit(&three)),
        seed(
            Svc::nu_params()
                .kernel(
                    Polynomial::with_degree(2)
                        .and_then(|k| k.with_gamma(1.0))
                        .and_then(|k| k.with_coef0(1.0))
                        .expect("valid"),
                )
                .fit(&two),
        ),
        seed(Svr::params().fit(&reg)),
        seed(Svr::params().kernel(KernelChoice::Linear).fit(&reg)),
        seed(OneClassSvm::params().fit(&reg)),
        seed(LinearSvc::params().fit(&two)),
        seed(LinearSvc::params().fit(&three)),
        seed(LogisticRegression::params().fit(&two)),
        seed(LogisticRegression::params().fit(&three)),
        seed(Perceptron::params().fit(&three)),
        seed(KernelPerceptron::params().fit(&two)),
        seed(KernelPerceptron::params().kernel(rbf()).fit(&three)),
        seed(LinearRegression::params().fit(&reg)),
        seed(Ridge::params().fit(&reg)),
        seed(KernelRidge::params().kernel(rbf()).fit(&reg)),
        seed(ElasticNet::params().fit(&reg)),
        seed(GaussianNB::params().fit(&three)),
        seed(MultinomialNB::params().fit(&counts)),
        seed(BernoulliNB::params().fit(&two)),
        seed(DecisionTreeClassifier::params().fit(&three)),
        seed(DecisionTreeRegressor::params().max_depth(Some(4)).fit(&reg)),
        seed(RandomForestClassifier::params().n_estimators(3).fit(&two)),
        seed(
            RandomForestRegressor::params()
                .n_estimators(3)
                .max_depth(Some(3))
                .fit(&reg),
        ),
        seed(AdaBoostClassifier::params().n_estimators(4).fit(&three)),
        seed(GradientBoostingClassifier::params().max_iter(3).fit(&two)),
        seed(GradientBoostingClassifier::params().max_iter(2).fit(&three)),
        seed(GradientBoostingRegressor::params().max_iter(3).fit(&reg)),
        seed(KNeighborsClassifier::params().n_neighbors(3).fit(&three)),
        seed(KNeighborsRegressor::params().n_neighbors(3).fit(&reg)),
        seed(NearestNeighbors::params().n_neighbors(2).fit(x)),
        seed(
            NearestNeighbors::params()
                .metric(Metric::Manhattan)
                .n_neighbors(2)
                .fit(x),
        ),
        seed(KMeans::params().n_clusters(3).fit(x)),
        seed(MiniBatchKMeans::params().n_clusters(2).fit(x)),
        seed(Pca::params().fit(x)),
        seed(
            Pca::params()
                .n_components(NComponents::Count(2))
                .whiten(true)
                .fit(x),
        ),
        seed(StandardScaler::params().fit(x)),
        seed(MinMaxScaler::params().fit(x)),
        seed(
            OneHotEncoder::params()
                .columns(vec![0])
                .fit(&counts.records),
        ),
        seed(
            OneHotEncoder::params()
                .handle_unknown(UnknownCategory::Ignore)
                .fit(&counts.records),
        ),
        seed(KBinsDiscretizer::params().n_bins(3).fit(x)),
        seed(
            KBinsDiscretizer::params()
                .encode(BinEncoding::Ordinal)
                .fit(x),
        ),
        seed(PolynomialFeatures::params().fit(x)),
        seed(Nystroem::params().kernel(rbf()).n_components(5).fit(x)),
        seed(RandomFourierFeatures::params().gamma(0.5).n_components(6).fit(x)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every seed is a sound model of its kind that passes the check, and every kind has one.
    #[test]
    fn seeds_cover_every_kind_and_pass() {
        let seeds = seeds();
        for kind in KINDS {
            assert!(seeds.iter().any(|(k, _)| k == kind), "no seed for `{kind}`");
        }
        for (_, input) in &seeds {
            check_input(input);
        }
    }
}
