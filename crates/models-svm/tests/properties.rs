//! Properties of the fitted SVMs: KKT conditions at the SMO solution (proptest over random
//! separable and non-separable data and every kernel), a hand-solved hard-margin case, the
//! shared estimator battery, save→load identity and thread-count independence.

use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Fit, Label, Predict, Records, RowView, Targets,
};
use margin_io::ModelFile;
use margin_kernels::{Gamma, Kernel, Laplacian, Rbf, Sigmoid};
use margin_svm::{KernelChoice, Multiclass, OneClassSvm, Svc, Svr};
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;
use proptest::prelude::*;

use crate::common::polynomial;

fn kernels_under_test() -> Vec<KernelChoice> {
    vec![
        KernelChoice::Linear,
        Rbf::with_gamma(0.7).unwrap().into(),
        polynomial(2, 0.5, 1.0).into(),
        Sigmoid::with_gamma(0.2)
            .unwrap()
            .with_coef0(0.0)
            .unwrap()
            .into(),
        Laplacian::with_gamma(0.5).unwrap().into(),
    ]
}

/// The maximal violation m(α) − M(α) of a binary C-SVC's dual solution, recomputed from
/// scratch in f64 from the model's dual coefficients.
fn max_violation(model: &Svc, data: &Dataset, c: f64) -> f64 {
    let x = data.records.to_dense().unwrap();
    let classes = data.targets.to_classes().unwrap();
    let n = x.nrows();
    let positive = model.classes()[model.problems()[0].positive].clone();
    let y: Vec<f64> = classes
        .indices()
        .iter()
        .map(|&k| {
            if classes.labels()[k] == positive {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    let mut alpha = vec![0.0; n];
    for &(s, a) in &model.problems()[0].coef {
        alpha[model.support_indices()[s]] = a.abs();
    }
    let kernel = model.kernel();
    let (mut m_up, mut m_low) = (f64::NEG_INFINITY, f64::INFINITY);
    for t in 0..n {
        let g = -1.0
            + (0..n)
                .map(|j| {
                    y[t] * y[j]
                        * alpha[j]
                        * kernel.eval(RowView::Dense(x.row(t)), RowView::Dense(x.row(j)))
                })
                .sum::<f64>();
        let v = -y[t] * g;
        if (y[t] > 0.0 && alpha[t] < c) || (y[t] < 0.0 && alpha[t] > 0.0) {
            m_up = m_up.max(v);
        }
        if (y[t] < 0.0 && alpha[t] < c) || (y[t] > 0.0 && alpha[t] > 0.0) {
            m_low = m_low.min(v);
        }
    }
    m_up - m_low
}

fn binary_data(points: &[(f64, f64)], shift: f64) -> Dataset {
    let rows: Vec<[f64; 2]> = points
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            if i % 2 == 0 {
                [a + shift, b]
            } else {
                [a - shift, b]
            }
        })
        .collect();
    let labels = (0..points.len())
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    Dataset::new(
        DenseMatrix::from_rows(&rows).unwrap(),
        Targets::Values(labels),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn kkt_conditions_hold_at_the_solution(
        points in proptest::collection::vec((-1.0f64..1.0, -1.0f64..1.0), 6..40),
        separable in any::<bool>(),
        c in prop_oneof![Just(0.5), Just(5.0)],
    ) {
        let data = binary_data(&points, if separable { 3.0 } else { 0.1 });
        for kernel in kernels_under_test() {
            let tol = 1e-3;
            let model = Svc::params().c(c).tol(tol).kernel(kernel.clone()).fit(&data).unwrap();
            let v = max_violation(&model, &data, c);
            // The solver stops below tol on its f32 cache; recomputing in f64 adds rounding.
            prop_assert!(v < tol + 1e-4, "{kernel:?}: violation {v}");
        }
    }
}

#[test]
fn hard_margin_matches_the_hand_solution() {
    // (0,0) and (0,2) are −1, (2,0) and (3,3) are +1. The widest separating band is
    // bounded by x₁ = 0 and x₁ = 2: w = (1, 0), b = −1, margin 1/‖w‖ = 1. The support
    // vectors are the three points on the band's edges; (3,3) is not one. With α₁ = α₂ on
    // the −1 side by symmetry of the solution SMO reaches (both lie on x₁ = 0), and
    // Σ α y = 0 with w = Σ α y x = (1, 0): α_(2,0) = ½, α_(0,0) + α_(0,2) = ½.
    let x = DenseMatrix::from_rows(&[[0.0, 0.0], [0.0, 2.0], [2.0, 0.0], [3.0, 3.0]]).unwrap();
    let data = Dataset::new(x, Targets::Values(vec![-1.0, -1.0, 1.0, 1.0])).unwrap();
    let model = Svc::params()
        .c(f64::INFINITY)
        .tol(1e-12)
        .kernel(KernelChoice::Linear)
        .fit(&data)
        .unwrap();
    // scikit-learn's convention: w·x + b = decision value, positive for classes()[1] = +1.
    assert_eq!(model.classes()[1], Label::Number(1.0));
    let coef = model.coef().unwrap();
    let w = coef.row(0);
    assert!((w[0] - 1.0).abs() < 1e-9 && w[1].abs() < 1e-9, "{w:?}");
    assert!(
        (model.intercept()[0] + 1.0).abs() < 1e-9,
        "{:?}",
        model.intercept()
    );
    let dec = model.decision_function(&data.records).unwrap();
    for i in 0..4 {
        let by_hand = data.records.row(i).dot_dense(w);
        assert!((dec.get(i, 0) - by_hand - model.intercept()[0]).abs() < 1e-9);
    }
    assert!((model.margin().unwrap()[0] - 1.0).abs() < 1e-9);
    let mut alpha = [0.0; 4];
    for &(s, a) in &model.problems()[0].coef {
        alpha[model.support_indices()[s]] = a.abs();
    }
    assert!(
        (alpha[2] - 0.5).abs() < 1e-9
            && (alpha[0] + alpha[1] - 0.5).abs() < 1e-9
            && alpha[3] == 0.0,
        "{alpha:?}"
    );
    // decision_function follows scikit-learn: positive means classes()[1] = +1.
    let dec = model
        .decision_function(&DenseMatrix::from_rows(&[[4.0, 0.0], [-1.0, 0.0]]).unwrap())
        .unwrap();
    assert!((dec.get(0, 0) - 3.0).abs() < 1e-9 && (dec.get(1, 0) + 2.0).abs() < 1e-9);
}

#[test]
fn the_estimator_battery_passes() {
    check_estimator(&Svc::params(), Task::Classification);
    check_estimator(
        &Svc::params().kernel(KernelChoice::Linear),
        Task::Classification,
    );
    check_estimator(
        &Svc::params().multiclass(Multiclass::OneVsRest),
        Task::Classification,
    );
    check_estimator(&Svr::params(), Task::Regression);
    check_estimator(&OneClassSvm::params(), Task::Unsupervised);
}

/// Two classes make one binary problem whatever the multiclass strategy: one-vs-rest must
/// predict from its sign as one-vs-one does (it used to answer the first class for every
/// sample, an argmax over a single column).
#[test]
fn two_class_one_vs_rest_predicts_as_one_vs_one() {
    let data = margin_io::datasets::heart_scale().unwrap();
    let ovo = Svc::params().fit(&data).unwrap();
    let ovr = Svc::params()
        .multiclass(Multiclass::OneVsRest)
        .fit(&data)
        .unwrap();
    let (a, b) = (
        ovo.predict(&data.records).unwrap(),
        ovr.predict(&data.records).unwrap(),
    );
    assert_eq!(a, b);
    let labels = ovr.classes();
    assert!(labels.iter().all(|l| b.contains(l)), "one class for all");
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let data = margin_io::datasets::heart_scale().unwrap();
    let name_of = |r: margin_core::Result<Svc>| match r {
        Err(margin_core::Error::InvalidParameter { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(name_of(Svc::params().c(0.0).fit(&data)), "C");
    assert_eq!(name_of(Svc::params().c(-1.0).fit(&data)), "C");
    assert_eq!(
        name_of(
            Svc::params()
                .kernel(KernelChoice::Rbf {
                    gamma: Gamma::Value(0.0)
                })
                .fit(&data)
        ),
        "gamma"
    );
    assert_eq!(name_of(Svc::params().tol(0.0).fit(&data)), "tol");
    assert!(matches!(
        OneClassSvm::params().nu(1.5).fit(&data),
        Err(margin_core::Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        OneClassSvm::params().nu(0.0).fit(&data),
        Err(margin_core::Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Svr::params().epsilon(-1.0).fit(&data),
        Err(margin_core::Error::InvalidParameter { .. })
    ));
}

#[test]
fn multiclass_models_save_load_and_ignore_the_thread_count() {
    let train = margin_io::datasets::dna().unwrap();
    let test = margin_io::datasets::dna_test().unwrap();
    let sub = train.select(&(0..600).collect::<Vec<_>>()).unwrap();
    let fit = |threads: usize| with_threads(threads, || Svc::params().fit(&sub).unwrap());
    let (one, two) = (fit(1), fit(2));
    assert_eq!(one, two);
    let back = Svc::from_bytes(&one.to_bytes().unwrap()).unwrap();
    assert_eq!(
        back.predict(&test.records).unwrap(),
        one.predict(&test.records).unwrap()
    );
    assert_eq!(
        back.decision_function(&test.records).unwrap(),
        one.decision_function(&test.records).unwrap()
    );
    let dec = one.decision_function(&test.records).unwrap();
    assert_eq!(dec.ncols(), 3);
}

#[test]
fn precomputed_kernel_gives_the_same_machine() {
    let data = margin_io::datasets::heart_scale().unwrap();
    let x = data.records.to_dense().unwrap();
    let rbf = Rbf::with_gamma(0.1).unwrap();
    let k = margin_kernels::gram(&rbf, &x).unwrap();
    // LIBSVM's precomputed layout: column 0 is the 1-based serial number.
    let rows: Vec<Vec<f64>> = (0..x.nrows())
        .map(|i| [vec![(i + 1) as f64], k.row(i).to_vec()].concat())
        .collect();
    let pre = Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), data.targets.clone()).unwrap();
    let direct = Svc::params().kernel(rbf).fit(&data).unwrap();
    let via_gram = Svc::params()
        .kernel(KernelChoice::Precomputed)
        .fit(&pre)
        .unwrap();
    let (a, b) = (&direct.problems()[0], &via_gram.problems()[0]);
    assert!(
        (a.objective - b.objective).abs() < 1e-6 * a.objective.abs(),
        "{} vs {}",
        a.objective,
        b.objective
    );
    assert_eq!(direct.support_indices(), via_gram.support_indices());
    assert_eq!(
        direct.predict(&data.records).unwrap(),
        via_gram.predict(&pre.records).unwrap()
    );
}

#[test]
fn sample_and_balanced_class_weights_scale_c_as_documented() {
    let data = margin_io::datasets::heart_scale().unwrap();
    let doubled = data
        .clone()
        .with_sample_weights(vec![2.0; data.n_samples()])
        .unwrap();
    let a = Svc::params().c(2.0).fit(&data).unwrap();
    let b = Svc::params().c(1.0).fit(&doubled).unwrap();
    assert_eq!(a.problems()[0].coef, b.problems()[0].coef);
    // heart_scale has 150 of −1 and 120 of +1: balanced weights are 270/(2·150) and 270/(2·120).
    let balanced = Svc::params()
        .class_weight(margin_svm::ClassWeight::Balanced)
        .fit(&data)
        .unwrap();
    let given = Svc::params()
        .class_weight(margin_svm::ClassWeight::Given(vec![
            (Label::Number(-1.0), 0.9),
            (Label::Number(1.0), 1.125),
        ]))
        .fit(&data)
        .unwrap();
    assert_eq!(balanced.problems()[0].coef, given.problems()[0].coef);
    assert_ne!(balanced.problems()[0].coef, a.problems()[0].coef);
}
