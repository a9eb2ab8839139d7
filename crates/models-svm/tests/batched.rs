//! The working-set solver (`solver = "batched"`) against LIBSVM 3.37's runs recorded in the
//! fixtures (tests/fixtures/gen_libsvm.py, tolerance 1e-6): the same optimum (objective within
//! 1e-6 relative, ρ within 1e-4), support-vector counts within 0.5 % and the same predictions
//! but for points within 1e-3 of the decision boundary, and the same bits on any thread count.

use margin_core::{Dataset, DecisionFunction, Fit, Predict, Records};
use margin_io::{ModelFile, datasets};
use margin_svm::{ClassWeight, KernelChoice, LabelOrder, Svc, SvmSolver, Svr};

use crate::common::{polynomial, rbf};
use crate::libsvm_fixtures::{
    HEART_GAMMA, assert_predictions_close, dna_rbf_params, fixture, heart_one_class_params,
    housing_nu_svr_params, housing_svr_params, number, predicted_numbers,
};

/// The objective within 1e-6 relative (LIBSVM prints six decimals), ρ within 1e-4 and the
/// support-vector count within 0.5 % (at least one) of LIBSVM's.
/// `want` is a fixture's problem line: iterations, objective, ρ, nSV, nBSV.
fn check_optimum(
    name: &str,
    (obj, rho, n_sv): (f64, f64, usize),
    want: (usize, f64, f64, usize, usize),
) {
    let (_, w_obj, w_rho, w_sv, _) = want;
    assert!(
        (obj - w_obj).abs() <= 1e-6 * w_obj.abs() + 5e-7,
        "{name}: objective {obj} vs LIBSVM's {w_obj}"
    );
    assert!(
        (rho - w_rho).abs() <= 1e-4,
        "{name}: ρ {rho} vs LIBSVM's {w_rho}"
    );
    let slack = (w_sv as f64 * 0.005).ceil() as usize;
    assert!(
        n_sv.abs_diff(w_sv) <= slack.max(1),
        "{name}: {n_sv} SV vs LIBSVM's {w_sv}"
    );
}

/// Predictions equal to LIBSVM's wherever the decision value is at least 1e-3 from 0.
fn check_predictions(name: &str, got: &[f64], want: &[f64], decisions: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}");
    for (i, ((g, w), d)) in got.iter().zip(want).zip(decisions).enumerate() {
        assert!(
            g == w || d.abs() < 1e-3,
            "{name}: sample {i} predicted {g}, LIBSVM {w} (decision {d})"
        );
    }
}

fn check_svc(name: &str, params: margin_svm::SvcParams, train: &Dataset, test: &Dataset) {
    let params = params
        .solver(SvmSolver::Batched)
        .label_order(LabelOrder::FirstSeen)
        .tol(1e-6);
    check_classifier(name, &params.fit(train).unwrap(), test);
}

/// A classifier fitted by the batched solver against LIBSVM's run `name`.
fn check_classifier(name: &str, model: &Svc, test: &Dataset) {
    let f = fixture(name);
    assert_eq!(
        model.classes().iter().map(number).collect::<Vec<_>>(),
        f.labels
    );
    for (k, (p, want)) in model.problems().iter().zip(&f.problems).enumerate() {
        check_optimum(
            &format!("{name} problem {k}"),
            (p.objective, p.rho, p.coef.len()),
            *want,
        );
    }
    if !f.predictions.is_empty() {
        let got = predicted_numbers(model, &test.records);
        let dec = model.decision_function(&test.records).unwrap();
        // The smallest decision value of any problem stands for the sample's margin.
        let near: Vec<f64> = (0..dec.nrows())
            .map(|i| dec.row(i).iter().fold(f64::INFINITY, |m, v| m.min(v.abs())))
            .collect();
        check_predictions(name, &got, &f.predictions, &near);
    }
}

#[test]
fn c_svc_reaches_libsvms_optimum_with_every_kernel() {
    let heart = datasets::heart_scale().unwrap();
    check_svc(
        "heart_rbf",
        Svc::params().c(1.0).kernel(rbf(HEART_GAMMA)),
        &heart,
        &heart,
    );
    check_svc(
        "heart_rbf_c10_noshrink",
        Svc::params().c(10.0).kernel(rbf(0.2)),
        &heart,
        &heart,
    );
    check_svc(
        "heart_linear",
        Svc::params().c(0.5).kernel(KernelChoice::Linear),
        &heart,
        &heart,
    );
    let weights = ClassWeight::Given(vec![
        (margin_core::Label::Number(1.0), 3.0),
        (margin_core::Label::Number(-1.0), 0.5),
    ]);
    let poly = polynomial(2, 0.1, 1.0);
    check_svc(
        "heart_poly_weighted",
        Svc::params().c(2.0).class_weight(weights).kernel(poly),
        &heart,
        &heart,
    );
}

#[test]
fn a_precomputed_gram_matrix_gives_the_rbf_kernels_optimum() {
    // heart's RBF Gram matrix in LIBSVM's -t 4 layout, `[serial | K(i, ·)]`: the batched
    // solver must reach the optimum LIBSVM reached with the kernel itself.
    let heart = datasets::heart_scale().unwrap();
    let n = heart.n_samples();
    let rbf = margin_kernels::Rbf::with_gamma(HEART_GAMMA).unwrap();
    let mut gram = Vec::with_capacity(n * (n + 1));
    for i in 0..n {
        gram.push((i + 1) as f64);
        for j in 0..n {
            gram.push(margin_kernels::Kernel::eval(
                &rbf,
                heart.records.row(i),
                heart.records.row(j),
            ));
        }
    }
    let records = margin_core::DenseMatrix::from_row_major(gram, n, n + 1).unwrap();
    let data = Dataset::new(records, heart.targets.clone()).unwrap();
    let params = Svc::params().c(1.0).kernel(KernelChoice::Precomputed);
    check_svc("heart_rbf", params, &data, &data);
}

#[test]
fn c_svc_on_three_classes_predicts_libsvms_test_labels() {
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    check_svc("dna_rbf", dna_rbf_params(), &train, &test);
}

/// A regressor fitted by the batched solver against LIBSVM's run `name`: the optimum, and
/// predictions within 1e-3 relative.
fn check_regressor(name: &str, svr: &Svr, data: &Dataset) {
    let f = fixture(name);
    let got = (
        svr.objective(),
        -svr.intercept()[0],
        svr.support_indices().len(),
    );
    check_optimum(name, got, f.problems[0]);
    let predictions = svr.predict(&data.records).unwrap();
    assert_predictions_close(name, &predictions, &f.predictions, 1e-3);
}

#[test]
fn epsilon_svr_and_the_one_class_svm_reach_libsvms_optimum() {
    let housing = datasets::housing_scale().unwrap();
    let svr = housing_svr_params()
        .solver(SvmSolver::Batched)
        .fit(&housing)
        .unwrap();
    check_regressor("housing_svr", &svr, &housing);

    let heart = datasets::heart_scale().unwrap();
    let f = fixture("heart_one_class");
    let one = heart_one_class_params()
        .solver(SvmSolver::Batched)
        .fit(&heart)
        .unwrap();
    let got = (one.objective(), one.rho(), one.support_indices().len());
    check_optimum("heart_one_class", got, f.problems[0]);
    let pred = predicted_numbers(&one, &heart.records);
    let dec = one.decision_function(&heart.records).unwrap();
    check_predictions("heart_one_class", &pred, &f.predictions, dec.as_slice());
}

#[test]
fn the_model_is_the_same_bits_on_one_thread_and_two() {
    let dna = datasets::dna().unwrap();
    let params = Svc::params().solver(SvmSolver::Batched);
    let fit = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| params.fit(&dna).unwrap().to_bytes().unwrap())
    };
    assert_eq!(fit(1), fit(2));
}

#[test]
fn nu_svc_and_nu_svr_reach_libsvms_optimum() {
    let heart = datasets::heart_scale().unwrap();
    let nu_svc = |nu| {
        Svc::nu_params()
            .nu(nu)
            .solver(SvmSolver::Batched)
            .label_order(LabelOrder::FirstSeen)
            .tol(1e-6)
    };
    let model = nu_svc(0.4).kernel(rbf(HEART_GAMMA)).fit(&heart).unwrap();
    check_classifier("heart_nu_svc", &model, &heart);
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    let model = nu_svc(0.3)
        .kernel(rbf(0.005555555555555556))
        .fit(&train)
        .unwrap();
    check_classifier("dna_nu_svc", &model, &test);

    let housing = datasets::housing_scale().unwrap();
    let svr = housing_nu_svr_params()
        .solver(SvmSolver::Batched)
        .fit(&housing)
        .unwrap();
    check_regressor("housing_nu_svr", &svr, &housing);
}
