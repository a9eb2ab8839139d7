//! Perceptron and KernelPerceptron: a hand-traced run, XOR, the linear kernel against the
//! primal rule, the two ways of reading kernel columns, sample weights, the estimator battery,
//! bad input and model files.

use margin_core::{
    Classes, Dataset, DecisionFunction, DenseMatrix, Error, Fit, Label, Predict, Records, Targets,
    split,
};
use margin_io::{ModelFile, datasets};
use margin_kernels::{Linear, Polynomial, Rbf};
use margin_linear::{KernelPerceptron, KernelPerceptronParams, Perceptron, PerceptronParams};
use margin_optim::Stop;
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;
use rand::Rng;

fn dataset(rows: &[Vec<f64>], labels: &[f64]) -> Dataset {
    Dataset::new(
        DenseMatrix::from_rows(rows).unwrap(),
        Targets::Classes(Classes::from_numbers(labels).unwrap()),
    )
    .unwrap()
}

fn accuracy(predicted: &[Label], data: &Dataset) -> f64 {
    let truth = data.targets.to_classes().unwrap();
    let correct = predicted
        .iter()
        .zip(truth.indices())
        .filter(|&(p, &c)| *p == truth.labels()[c])
        .count();
    correct as f64 / data.n_samples() as f64
}

/// A = (1, 0) → +1, B = (0, 1) → −1, C = (1, 1) → −1, D = (0, −1) → +1.
fn tiny() -> Dataset {
    dataset(
        &[
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 1.0],
            vec![0.0, -1.0],
        ],
        &[1.0, -1.0, -1.0, 1.0],
    )
}

#[test]
fn hand_traced_epochs() {
    // From w = 0, b = 0, η = 1, in the order A, B, C, D:
    // epoch 1: A f=0 mistake → w=(1,0) b=1; B f=1 mistake → w=(1,−1) b=0;
    //          C f=0 mistake → w=(0,−2) b=−1; D f=1 correct.          3 mistakes
    // epoch 2: A f=−1 mistake → w=(1,−2) b=0; B f=−2, C f=−1, D f=2 correct. 1 mistake
    // epoch 3: A 1, B −2, C −1, D 2: no mistake, converged.
    let data = tiny();
    let fit = |epochs: usize| {
        Perceptron::params()
            .shuffle(false)
            .max_iter(epochs)
            .fit(&data)
            .unwrap()
    };
    let expected = [
        (vec![0.0, -2.0], -1.0, 3, Stop::MaxIterations),
        (vec![1.0, -2.0], 0.0, 4, Stop::MaxIterations),
        (vec![1.0, -2.0], 0.0, 4, Stop::CONVERGED),
    ];
    for (epoch, (w, b, mistakes, stop)) in expected.into_iter().enumerate() {
        let model = fit(epoch + 1);
        assert_eq!(model.classes(), [Label::Number(-1.0), Label::Number(1.0)]);
        assert_eq!(model.coef().as_slice(), w, "epoch {}", epoch + 1);
        assert_eq!(model.intercept(), [b], "epoch {}", epoch + 1);
        assert_eq!(model.mistakes(), [mistakes]);
        let report = model.fit_report();
        assert_eq!(report.runs().len(), 1);
        assert_eq!(model.n_iter(), epoch + 1);
        assert_eq!(report.runs()[0].stop, stop);
    }
    let model = Perceptron::params().shuffle(false).fit(&data).unwrap();
    assert!(model.convergence().converged());
    assert_eq!(model.n_iter(), 3);
    assert_eq!(model.predict(&data.records).unwrap(), {
        let y = data.targets.to_classes().unwrap();
        y.indices()
            .iter()
            .map(|&c| y.labels()[c].clone())
            .collect::<Vec<_>>()
    });
    let scores = model.decision_function(&data.records).unwrap();
    assert_eq!(scores.as_slice(), [1.0, -2.0, -1.0, 2.0]);

    // η only rescales (w, b).
    let half = Perceptron::params()
        .shuffle(false)
        .eta0(0.5)
        .fit(&data)
        .unwrap();
    assert_eq!(half.coef().as_slice(), [0.5, -1.0]);
    assert_eq!(half.intercept(), [0.0]);

    // The dual run makes the same mistakes: α = (2, 1, 1, 0), so the support is {A, B, C}
    // and w = 2A − B − C = (1, −2).
    let dual = KernelPerceptron::params()
        .kernel(Linear)
        .shuffle(false)
        .fit(&data)
        .unwrap();
    assert_eq!(dual.support(), [0, 1, 2]);
    assert_eq!(dual.dual_coef(), [vec![2.0, -1.0, -1.0]]);
    assert_eq!(dual.intercept(), [0.0]);
    assert_eq!(dual.mistakes(), [4]);
    assert_eq!(dual.n_iter(), 3);
    assert_eq!(
        dual.decision_function(&data.records).unwrap().as_slice(),
        [1.0, -2.0, -1.0, 2.0]
    );
}

/// XOR on (±1, ±1): the label is −x₁x₂.
fn xor() -> Dataset {
    dataset(
        &[
            vec![1.0, 1.0],
            vec![-1.0, -1.0],
            vec![1.0, -1.0],
            vec![-1.0, 1.0],
        ],
        &[-1.0, -1.0, 1.0, 1.0],
    )
}

#[test]
fn xor_needs_the_kernel() {
    let data = xor();
    let primal = Perceptron::params().fit(&data).unwrap();
    assert!(!primal.convergence().converged());
    assert_eq!(primal.n_iter(), 1000);
    assert!(accuracy(&primal.predict(&data.records).unwrap(), &data) < 1.0);

    let poly = Polynomial::with_degree(2)
        .unwrap()
        .with_gamma(1.0)
        .unwrap()
        .with_coef0(1.0)
        .unwrap();
    for params in [
        KernelPerceptron::params(),
        KernelPerceptron::params().kernel(poly),
    ] {
        let dual = params.fit(&data).unwrap();
        assert!(dual.convergence().converged());
        assert!(dual.n_iter() < 10, "{:?}", dual.n_iter());
        assert_eq!(*dual.kernel(), poly.into());
        assert_eq!(accuracy(&dual.predict(&data.records).unwrap(), &data), 1.0);
    }
}

/// Integer features and integer steps: every sum is exact, so the primal and the dual runs
/// can be compared bit for bit.
fn integer_data(n: usize, d: usize, n_classes: usize, seed: u64) -> Dataset {
    let mut rng = split::rng_from_seed(seed);
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|_| {
            (0..d)
                .map(|_| f64::from(rng.random_range(-3..=3)))
                .collect()
        })
        .collect();
    // A noisy rule: the data are not separable, so every epoch runs.
    let labels: Vec<f64> = rows
        .iter()
        .map(|r| {
            let s = r[0] + 2.0 * r[1] - r[2] + f64::from(rng.random_range(-2..=2));
            (s.rem_euclid(n_classes as f64) + 1.0).floor()
        })
        .collect();
    dataset(&rows, &labels)
}

#[test]
fn the_linear_kernel_reproduces_the_primal_perceptron() {
    let probe = integer_data(30, 4, 2, 99).records;
    for (n_classes, shuffle, fit_intercept) in [(2, true, true), (3, true, false), (3, false, true)]
    {
        let data = integer_data(80, 4, n_classes, n_classes as u64);
        let primal_params = Perceptron::params()
            .max_iter(40)
            .shuffle(shuffle)
            .seed(5)
            .fit_intercept(fit_intercept);
        let primal = primal_params.fit(&data).unwrap();
        assert!(!primal.convergence().converged());
        for budget in [200.0, 0.0] {
            let dual = KernelPerceptron::params()
                .kernel(Linear)
                .max_iter(40)
                .shuffle(shuffle)
                .seed(5)
                .fit_intercept(fit_intercept)
                .gram_budget_mb(budget)
                .fit(&data)
                .unwrap();
            let case = format!("{n_classes} classes, shuffle {shuffle}, budget {budget}");
            assert_eq!(dual.mistakes(), primal.mistakes(), "{case}");
            assert_eq!(dual.fit_report(), primal.fit_report(), "{case}");
            assert_eq!(dual.intercept(), primal.intercept(), "{case}");
            // w = Σ αᵢ yᵢ xᵢ over the support.
            let sv = dual.support_vectors();
            for (p, w) in primal.coef().rows().enumerate() {
                let mut from_dual = vec![0.0; w.len()];
                for (s, c) in dual.dual_coef()[p].iter().enumerate() {
                    sv.row(s).axpy(*c, &mut from_dual);
                }
                assert_eq!(&from_dual, w, "{case}, problem {p}");
            }
            for x in [&data.records, &probe] {
                assert_eq!(
                    dual.decision_function(x).unwrap(),
                    primal.decision_function(x).unwrap(),
                    "{case}"
                );
                assert_eq!(dual.predict(x).unwrap(), primal.predict(x).unwrap());
            }
        }
    }
}

#[test]
fn gram_and_on_the_fly_columns_agree_on_real_data() {
    // On heart_scale the Gram matrix (GEMM) and per-pair evaluation may round differently,
    // so this compares accuracy, not bits; both must also hold nothing but the support set.
    let data = datasets::heart_scale().unwrap();
    let rbf = Rbf::with_gamma(0.2).unwrap();
    let fit = |budget: f64| {
        KernelPerceptron::params()
            .kernel(rbf)
            .max_iter(30)
            .gram_budget_mb(budget)
            .fit(&data)
            .unwrap()
    };
    let (gram, on_the_fly) = (fit(200.0), fit(0.0));
    for model in [&gram, &on_the_fly] {
        assert_eq!(model.support_vectors().n_samples(), model.support().len());
        assert!(model.support().len() < data.n_samples());
        let acc = accuracy(&model.predict(&data.records).unwrap(), &data);
        assert!(acc > 0.9, "{acc}");
    }
}

#[test]
fn zero_weights_remove_samples_and_constant_weights_rescale() {
    let data = integer_data(60, 3, 3, 7);
    let keep: Vec<usize> = (0..60).filter(|i| i % 4 != 1).collect();
    let weights: Vec<f64> = (0..60)
        .map(|i| if i % 4 == 1 { 0.0 } else { 1.0 })
        .collect();
    let weighted = data.clone().with_sample_weights(weights).unwrap();
    let subset = data.select(&keep).unwrap();
    let params = Perceptron::params().max_iter(20).seed(3);
    assert_eq!(
        params.fit(&weighted).unwrap(),
        params.fit(&subset).unwrap(),
        "the remaining samples are visited in the same orders"
    );
    let dual = KernelPerceptron::params().max_iter(20).seed(3);
    let (a, b) = (dual.fit(&weighted).unwrap(), dual.fit(&subset).unwrap());
    assert_eq!(a.dual_coef(), b.dual_coef());
    assert_eq!(
        a.support(),
        b.support().iter().map(|&s| keep[s]).collect::<Vec<_>>()
    );

    let doubled = data.clone().with_sample_weights(vec![2.0; 60]).unwrap();
    let (one, two) = (params.fit(&data).unwrap(), params.fit(&doubled).unwrap());
    for (w1, w2) in one.coef().rows().zip(two.coef().rows()) {
        assert_eq!(w1.iter().map(|v| 2.0 * v).collect::<Vec<_>>(), w2);
    }
    assert_eq!(
        one.predict(&data.records).unwrap(),
        two.predict(&data.records).unwrap()
    );
}

#[test]
fn the_estimator_battery_passes() {
    check_estimator(&Perceptron::params(), Task::Classification);
    check_estimator(
        &Perceptron::params().fit_intercept(false),
        Task::Classification,
    );
    check_estimator(&KernelPerceptron::params(), Task::Classification);
    // Columns computed per mistake; the battery's 1e-300 case makes every RBF value 1 and
    // never converges, so fewer epochs keep the test fast.
    check_estimator(
        &KernelPerceptron::params()
            .kernel(Rbf::with_gamma(0.5).unwrap())
            .gram_budget_mb(0.0)
            .max_iter(100),
        Task::Classification,
    );
}

fn refused(result: Result<impl std::fmt::Debug, Error>, name: &str) {
    match result {
        Err(Error::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let data = tiny();
    refused(Perceptron::params().max_iter(0).fit(&data), "max_iter");
    refused(
        KernelPerceptron::params().max_iter(0).fit(&data),
        "max_iter",
    );
    for eta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        refused(Perceptron::params().eta0(eta).fit(&data), "eta0");
    }
    for mb in [-1.0, f64::NAN, f64::INFINITY] {
        refused(
            KernelPerceptron::params().gram_budget_mb(mb).fit(&data),
            "gram_budget_mb",
        );
    }
    let unweighted = data.clone().with_sample_weights(vec![0.0; 4]).unwrap();
    refused(Perceptron::params().fit(&unweighted), "sample_weights");
    refused(
        KernelPerceptron::params().fit(&unweighted),
        "sample_weights",
    );

    let mut nan = data.clone();
    nan.records = DenseMatrix::from_rows(&[[1.0, 0.0], [0.0, f64::NAN], [1.0, 1.0], [0.0, -1.0]])
        .unwrap()
        .into();
    assert!(matches!(
        Perceptron::params().fit(&nan),
        Err(Error::NonFinite { row: 1, col: 1 })
    ));
    assert!(matches!(
        KernelPerceptron::params().fit(&nan),
        Err(Error::NonFinite { row: 1, col: 1 })
    ));

    let one_class = Dataset {
        targets: Targets::Values(vec![1.0; 4]),
        ..data.clone()
    };
    assert!(matches!(
        Perceptron::params().fit(&one_class),
        Err(Error::TooFewClasses {
            found: 1,
            required: 2
        })
    ));
    assert!(matches!(
        KernelPerceptron::params().fit(&one_class),
        Err(Error::TooFewClasses { .. })
    ));

    let huge = dataset(&[vec![1e300, 1e300], vec![-1e300, 1e300]], &[1.0, -1.0]);
    assert!(matches!(
        KernelPerceptron::params().fit(&huge),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        KernelPerceptron::params().gram_budget_mb(0.0).fit(&huge),
        Err(Error::OutOfRange { .. })
    ));

    let model = Perceptron::params().fit(&data).unwrap();
    assert!(matches!(
        model.predict(&DenseMatrix::zeros(2, 3)),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn multiclass_save_load_and_thread_count() {
    let train = datasets::dna()
        .unwrap()
        .select(&(0..400).collect::<Vec<_>>())
        .unwrap();
    let test = datasets::dna_test().unwrap();
    let in_pool = |threads: usize, f: &(dyn Fn() -> (Perceptron, KernelPerceptron) + Sync)| {
        with_threads(threads, f)
    };
    let fit = || {
        (
            Perceptron::params().seed(11).fit(&train).unwrap(),
            KernelPerceptron::params()
                .kernel(
                    Polynomial::with_degree(2)
                        .unwrap()
                        .with_gamma(1.0 / 180.0)
                        .unwrap()
                        .with_coef0(1.0)
                        .unwrap(),
                )
                .seed(11)
                .fit(&train)
                .unwrap(),
        )
    };
    let (one, two) = (in_pool(1, &fit), in_pool(2, &fit));
    assert_eq!(one, two);
    let (primal, dual) = one;
    assert_eq!(primal.coef().nrows(), 3);
    assert_eq!(dual.dual_coef().len(), 3);
    assert_eq!(dual.decision_function(&test.records).unwrap().ncols(), 3);

    let dir = tempfile::tempdir().unwrap();
    let (p_path, d_path) = (dir.path().join("p.margin"), dir.path().join("d.margin"));
    primal.save(&p_path).unwrap();
    dual.save(&d_path).unwrap();
    let (p_back, d_back) = (
        Perceptron::load(&p_path).unwrap(),
        KernelPerceptron::load(&d_path).unwrap(),
    );
    assert_eq!(p_back, primal);
    assert_eq!(d_back, dual);
    assert_eq!(
        d_back.decision_function(&test.records).unwrap(),
        dual.decision_function(&test.records).unwrap()
    );
    assert!(matches!(
        Perceptron::load(&d_path),
        Err(Error::ModelFile { .. })
    ));

    for (name, predicted) in [
        ("primal", primal.predict(&test.records).unwrap()),
        ("kernel", dual.predict(&test.records).unwrap()),
    ] {
        let acc = accuracy(&predicted, &test);
        assert!(acc > 0.8, "{name}: {acc}");
    }
}

#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
    send_sync::<Perceptron>();
    send_sync::<PerceptronParams>();
    send_sync::<KernelPerceptron>();
    send_sync::<KernelPerceptronParams>();
}

#[test]
fn long_on_the_fly_columns_ignore_the_thread_count() {
    // 2,500 samples: each column (one per update) is long enough to be computed in parallel
    // under `margin_core::parallel`'s rule, and a zero budget forces columns on the fly.
    let data = integer_data(2_500, 4, 2, 5);
    let fit = |threads: usize| {
        with_threads(threads, || {
            KernelPerceptron::params()
                .kernel(Rbf::with_gamma(0.3).unwrap())
                .max_iter(2)
                .gram_budget_mb(0.0)
                .seed(3)
                .fit(&data)
                .unwrap()
        })
    };
    let (one, two) = (fit(1), fit(2));
    assert!(one.support().len() > 10);
    assert_eq!(one.to_bytes().unwrap(), two.to_bytes().unwrap());
}
