//! Properties of the naive Bayes models on random data (proptest, few cases): probabilities
//! form distributions, streaming over any split equals one fit, save→load changes nothing,
//! row order does not matter, sparse and dense records agree. Plus the shared estimator
//! battery and thread-safety of the public types.

use margin_core::params::ParamInfo;
use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Fit, Hyperparams, Label, Matrix, PartialFit, Predict,
    PredictProba, Records, Result, Targets,
};
use margin_io::ModelFile;
use margin_linear::naive_bayes::{
    BernoulliNB, BernoulliNBParams, GaussianNB, GaussianNBParams, MultinomialNB,
    MultinomialNBParams,
};
use margin_testing::battery::{Task, check_estimator};
use margin_testing::stats::fit_in_parts;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// Random small classification data: `(class, features)` rows with at least two classes
/// (rows 0 and 1 are classes 0 and 1), integer weights 1..=3, and cut points for batches.
fn problem(value: BoxedStrategy<f64>) -> impl Strategy<Value = (Dataset, Vec<usize>, u64)> {
    (2usize..=3, 1usize..=5, 4usize..=24).prop_flat_map(move |(k, d, n)| {
        (
            proptest::collection::vec(0..k, n),
            proptest::collection::vec(value.clone(), n * d),
            proptest::collection::vec(1u8..=3, n),
            proptest::collection::vec(0..=n, 0..4),
            any::<u64>(),
        )
            .prop_map(move |(mut classes, values, weights, mut cuts, seed)| {
                classes[0] = 0;
                classes[1] = 1;
                let labels = (0..k)
                    .map(|c| Label::Number(c as f64 * 2.0 - 1.0))
                    .collect();
                let targets = margin_core::Classes::from_indices(classes, labels).unwrap();
                let x = DenseMatrix::from_row_major(values, n, d).unwrap();
                let data = Dataset::new(x, Targets::Classes(targets))
                    .unwrap()
                    .with_sample_weights(weights.into_iter().map(f64::from).collect())
                    .unwrap();
                cuts.push(0);
                cuts.push(n);
                cuts.sort_unstable();
                cuts.dedup();
                (data, cuts, seed)
            })
    })
}

/// Small integer counts, often zero: sums of them (times integer weights) are exact, so
/// the discrete models must agree bit for bit whatever the order of additions.
fn counts() -> BoxedStrategy<f64> {
    prop_oneof![2 => Just(0.0), 3 => (1u8..6).prop_map(f64::from)].boxed()
}

fn reals() -> BoxedStrategy<f64> {
    (-3.0f64..3.0).boxed()
}

fn sparse(data: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Sparse(CsrMatrix::from_dense(&data.records.to_dense().unwrap())),
        ..data.clone()
    }
}

fn permuted(data: &Dataset, seed: u64) -> Dataset {
    data.select(&margin_core::split::permutation(data.n_samples(), seed))
        .unwrap()
}

fn batches(data: &Dataset, cuts: &[usize]) -> Vec<Dataset> {
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| data.select(&(w[0]..w[1]).collect::<Vec<_>>()).unwrap())
        .collect()
}

/// Each row of `p` is a probability distribution, and `predicted` is its most likely class.
fn check_distribution(p: &DenseMatrix, labels: &[Label], predicted: &[Label]) {
    for (row, label) in p.rows().zip(predicted) {
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-12, "{row:?} sums to {sum}");
        assert!(row.iter().all(|v| (0.0..=1.0).contains(v)), "{row:?}");
        let best = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let k = labels.iter().position(|l| l == label).unwrap();
        assert_eq!(row[k], best, "{row:?} vs {label}");
    }
}

/// Everything a discrete model must satisfy on integer counts: exact equalities.
fn discrete_properties<P, M>(
    params: &P,
    empty: impl Fn(&[Label], usize) -> M,
    data: &Dataset,
    cuts: &[usize],
    seed: u64,
) where
    P: Fit<Model = M>,
    M: PartialFit<Dataset>
        + Predict<Output = Vec<Label>>
        + PredictProba
        + ModelFile
        + PartialEq
        + std::fmt::Debug
        + Clone,
    M: Labelled,
{
    let model = params.fit(data).unwrap();
    let p = model.predict_proba(&data.records).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    check_distribution(&p, model.labels(), &predicted);

    let mut streamed = empty(model.labels(), data.n_features());
    for batch in batches(data, cuts) {
        streamed.partial_fit(&batch).unwrap();
    }
    assert_eq!(streamed, model, "streaming over {cuts:?}");

    let back = M::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.predict(&data.records).unwrap(), predicted);

    assert_eq!(
        params.fit(&permuted(data, seed)).unwrap(),
        model,
        "row order"
    );

    let from_sparse = params.fit(&sparse(data)).unwrap();
    assert_eq!(from_sparse, model, "sparse records");
    let s = sparse(data).records;
    assert_eq!(model.predict_proba(&s).unwrap(), p);
}

/// The class labels of a fitted model (each model has its own inherent accessor).
trait Labelled {
    fn labels(&self) -> &[Label];
}

impl Labelled for MultinomialNB {
    fn labels(&self) -> &[Label] {
        MultinomialNB::classes(self)
    }
}

impl Labelled for BernoulliNB {
    fn labels(&self) -> &[Label] {
        BernoulliNB::classes(self)
    }
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * y.abs().max(1.0))
}

/// Two GaussianNB models agree up to rounding (their means and variances merge in a different
/// order), and so do their probabilities.
fn assert_gaussian_close(a: &GaussianNB, b: &GaussianNB, x: &Matrix, what: &str) {
    assert_eq!(a.classes(), b.classes(), "{what}");
    assert_eq!(a.class_count(), b.class_count(), "{what}");
    assert!(
        close(a.theta().as_slice(), b.theta().as_slice(), 1e-12),
        "{what}: theta"
    );
    assert!(
        close(a.var().as_slice(), b.var().as_slice(), 1e-10),
        "{what}: var"
    );
    let (pa, pb) = (a.predict_proba(x).unwrap(), b.predict_proba(x).unwrap());
    assert!(close(pa.as_slice(), pb.as_slice(), 1e-9), "{what}: proba");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn multinomial_properties((data, cuts, seed) in problem(counts())) {
        let params = MultinomialNB::params().alpha(0.5);
        discrete_properties(&params, |l, d| MultinomialNB::empty(params.clone(), l, d).unwrap(), &data, &cuts, seed);
    }

    #[test]
    fn bernoulli_properties((data, cuts, seed) in problem(counts()), threshold in prop_oneof![Just(0.0), Just(2.5), Just(-1.0)]) {
        let params = BernoulliNB::params().binarize(Some(threshold)).fit_prior(false);
        discrete_properties(&params, |l, d| BernoulliNB::empty(params.clone(), l, d).unwrap(), &data, &cuts, seed);
    }

    /// A negative threshold reads negative stored values below it as 0 and every unstored zero
    /// as 1: sparse rows, expanded under it, must read as their dense copies do.
    #[test]
    fn bernoulli_reads_real_values_under_a_negative_threshold((data, cuts, seed) in problem(reals()), threshold in -2.0f64..0.0) {
        let params = BernoulliNB::params().binarize(Some(threshold)).fit_prior(false);
        discrete_properties(&params, |l, d| BernoulliNB::empty(params.clone(), l, d).unwrap(), &data, &cuts, seed);
    }

    /// Statistics gathered in parts (each may see one class) and merged in any order give
    /// the fit: the counts exactly (integer counts and weights), the moments to rounding.
    /// Counts are often all zero, which GaussianNB refuses (no variance to smooth by): the
    /// merged statistics must then be refused with the fit's error.
    #[test]
    fn statistics_in_parts_give_the_fit((data, cuts, seed) in problem(counts())) {
        let multinomial = MultinomialNB::params().alpha(0.5);
        prop_assert_eq!(fit_in_parts(&multinomial, &data, &cuts, seed).unwrap(), multinomial.fit(&data).unwrap());
        let bernoulli = BernoulliNB::params().binarize(Some(1.5));
        prop_assert_eq!(fit_in_parts(&bernoulli, &data, &cuts, seed).unwrap(), bernoulli.fit(&data).unwrap());
        let gaussian = GaussianNB::params();
        match gaussian.fit(&data) {
            Ok(model) => assert_gaussian_close(&fit_in_parts(&gaussian, &data, &cuts, seed).unwrap(), &model, &data.records, "statistics"),
            Err(refused) => prop_assert_eq!(fit_in_parts(&gaussian, &data, &cuts, seed).unwrap_err().to_string(), refused.to_string()),
        }
    }

    #[test]
    fn gaussian_properties((data, cuts, seed) in problem(reals())) {
        let params = GaussianNB::params();
        let model = params.fit(&data).unwrap();
        let p = model.predict_proba(&data.records).unwrap();
        check_distribution(&p, model.classes(), &model.predict(&data.records).unwrap());

        let mut streamed = GaussianNB::empty(params.clone(), model.classes(), data.n_features()).unwrap();
        for batch in batches(&data, &cuts) {
            streamed.partial_fit(&batch).unwrap();
        }
        assert_gaussian_close(&streamed, &model, &data.records, "streaming");
        assert_gaussian_close(&fit_in_parts(&params, &data, &cuts, seed).unwrap(), &model, &data.records, "statistics");

        let back = GaussianNB::from_bytes(&model.to_bytes().unwrap()).unwrap();
        prop_assert_eq!(&back, &model);
        prop_assert_eq!(back.predict_proba(&data.records).unwrap(), p);

        assert_gaussian_close(&params.fit(&permuted(&data, seed)).unwrap(), &model, &data.records, "row order");
        prop_assert_eq!(params.fit(&sparse(&data)).unwrap(), model);
    }
}

/// The battery's records are uniform in [−1, 1], which MultinomialNB must refuse (counts are
/// never negative), so MultinomialNB meets it through this adapter that feeds it `|x|`. Every
/// case keeps its meaning: NaN and ±∞ stay non-finite, shapes and classes are untouched.
#[derive(Clone, Debug)]
struct AbsoluteCounts(MultinomialNBParams);

#[derive(Debug, Serialize, Deserialize)]
struct AbsoluteModel(MultinomialNB);

impl Hyperparams for AbsoluteModel {
    fn describe_hyperparams(&self) -> Vec<ParamInfo> {
        self.0.describe_hyperparams()
    }
}

impl ModelFile for AbsoluteModel {
    const KIND: &'static str = "test-absolute-multinomial-nb";
    const SCHEMA: u32 = 1;
    fn check_consistent(&self) -> Result<()> {
        self.0.check_consistent()
    }
}

/// `|x|`, in the records' own layout (a sparse matrix stays sparse, whatever its width).
fn absolute<R: Records + ?Sized>(records: &R) -> Result<Matrix> {
    Ok(match records.as_sparse() {
        Some(s) => {
            let mut s = s.clone();
            s.values_mut().iter_mut().for_each(|v| *v = v.abs());
            Matrix::Sparse(s)
        }
        None => {
            let mut x = records.to_dense()?;
            x.as_mut_slice().iter_mut().for_each(|v| *v = v.abs());
            Matrix::Dense(x)
        }
    })
}

impl Fit for AbsoluteCounts {
    type Model = AbsoluteModel;

    fn fit(&self, data: &Dataset) -> Result<AbsoluteModel> {
        let data = Dataset {
            records: absolute(&data.records)?,
            ..data.clone()
        };
        self.0.fit(&data).map(AbsoluteModel)
    }
}

impl Predict for AbsoluteModel {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        self.0.predict(&absolute(records)?)
    }
}

#[test]
fn the_estimator_battery_passes() {
    check_estimator(&BernoulliNB::params(), Task::Classification);
    check_estimator(
        &BernoulliNB::params().binarize(Some(-0.25)).alpha(0.1),
        Task::Classification,
    );
    check_estimator(&GaussianNB::params(), Task::Classification);
    check_estimator(
        &GaussianNB::params().var_smoothing(1e-3),
        Task::Classification,
    );
    check_estimator(
        &AbsoluteCounts(MultinomialNB::params()),
        Task::Classification,
    );
    check_estimator(
        &AbsoluteCounts(MultinomialNB::params().alpha(0.0).fit_prior(false)),
        Task::Classification,
    );
}

#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<MultinomialNB>();
    send_sync::<MultinomialNBParams>();
    send_sync::<BernoulliNB>();
    send_sync::<BernoulliNBParams>();
    send_sync::<GaussianNB>();
    send_sync::<GaussianNBParams>();
}

#[test]
fn fit_then_partial_fit_equals_one_fit_on_real_data() {
    let data = margin_io::datasets::dna().unwrap();
    let (first, rest): (Vec<usize>, Vec<usize>) = (0..data.n_samples()).partition(|i| i % 3 != 0);
    let all: Vec<usize> = first.iter().chain(&rest).copied().collect();
    let whole = data.select(&all).unwrap();

    let mut m = MultinomialNB::params()
        .fit(&data.select(&first).unwrap())
        .unwrap();
    m.partial_fit(&data.select(&rest).unwrap()).unwrap();
    assert_eq!(m, MultinomialNB::params().fit(&whole).unwrap());

    let mut b = BernoulliNB::params()
        .fit(&data.select(&first).unwrap())
        .unwrap();
    b.partial_fit(&data.select(&rest).unwrap()).unwrap();
    assert_eq!(b, BernoulliNB::params().fit(&whole).unwrap());

    let mut g = GaussianNB::params()
        .fit(&data.select(&first).unwrap())
        .unwrap();
    g.partial_fit(&data.select(&rest).unwrap()).unwrap();
    let test = margin_io::datasets::dna_test().unwrap();
    let g_whole = GaussianNB::params().fit(&whole).unwrap();
    assert_gaussian_close(&g, &g_whole, &test.records, "dna");
    assert_eq!(
        g.predict(&test.records).unwrap(),
        g_whole.predict(&test.records).unwrap()
    );
}

#[test]
fn models_survive_a_file_on_disk() {
    let data = margin_io::datasets::heart_scale().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nb.margin");
    let g = GaussianNB::params().fit(&data).unwrap();
    g.save(&path).unwrap();
    assert_eq!(GaussianNB::load(&path).unwrap(), g);
    // A file of another naive Bayes kind is refused, not misread.
    assert!(matches!(
        BernoulliNB::load(&path),
        Err(margin_core::Error::ModelFile { .. })
    ));
}
