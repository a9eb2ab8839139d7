//! Sparse data with huge feature indices (a LIBSVM file may use any index up to 2³² − 1): the
//! SMO path runs in memory proportional to the stored entries and fits the model the same data
//! with compact indices gives, bit for bit; linear models' dense weights are refused, typed,
//! when no machine holds them.

use margin_core::{Dataset, DecisionFunction, Fit, Predict};
use margin_io::datasets;
use margin_kernels::{Linear, Rbf};
use margin_svm::{LinearSolver, LinearSvc, OneClassSvm, Svc, SvmLoss, Svr};
use margin_testing::battery::{Task, assert_refused_for_memory, compact_and_spread, huge_width};

/// The first `n` rows of `data`, compact and spread to `j · step` (see
/// [`compact_and_spread`]).
fn narrow_and_wide(data: &Dataset, n: usize, step: u32) -> (Dataset, Dataset) {
    let part = data.select(&(0..n).collect::<Vec<_>>()).unwrap();
    compact_and_spread(&part, step).unwrap()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn svc_on_huge_indices_is_the_compact_model_bit_for_bit() {
    let (narrow, wide) = narrow_and_wide(&datasets::dna().unwrap(), 400, 20_000_000);
    for nu in [false, true] {
        let fit = |d: &Dataset| {
            if nu {
                Svc::nu_params()
                    .nu(0.3)
                    .kernel(Rbf::with_gamma(0.02).unwrap())
                    .fit(d)
            } else {
                Svc::params().kernel(Rbf::with_gamma(0.02).unwrap()).fit(d)
            }
            .unwrap()
        };
        let (a, b) = (fit(&narrow), fit(&wide));
        assert_eq!(a.support_indices(), b.support_indices());
        assert_eq!(a.problems().len(), 3);
        for (p, q) in a.problems().iter().zip(b.problems()) {
            assert_eq!(p.iterations, q.iterations);
            assert_eq!(p.rho.to_bits(), q.rho.to_bits());
            assert_eq!(p.objective.to_bits(), q.objective.to_bits());
            let (ca, cb): (Vec<f64>, Vec<f64>) = (
                p.coef.iter().map(|c| c.1).collect(),
                q.coef.iter().map(|c| c.1).collect(),
            );
            assert_eq!(bits(&ca), bits(&cb));
        }
        assert_eq!(
            a.predict(&narrow.records).unwrap(),
            b.predict(&wide.records).unwrap()
        );
    }
}

#[test]
fn svr_and_one_class_on_huge_indices_are_the_compact_models_bit_for_bit() {
    let (narrow, wide) = narrow_and_wide(&datasets::housing_scale().unwrap(), 300, 300_000_000);
    let svr = |d: &Dataset| {
        Svr::params()
            .c(10.0)
            .kernel(Rbf::with_gamma(0.1).unwrap())
            .fit(d)
            .unwrap()
    };
    let (a, b) = (svr(&narrow), svr(&wide));
    assert_eq!(bits(a.dual_coef()), bits(b.dual_coef()));
    assert_eq!(a.intercept()[0].to_bits(), b.intercept()[0].to_bits());
    // Predictions sum the same kernel terms, through a dense product on the compact records
    // and pair by pair on the wide ones: equal up to rounding.
    let (pa, pb) = (
        a.predict(&narrow.records).unwrap(),
        b.predict(&wide.records).unwrap(),
    );
    for (x, y) in pa.iter().zip(&pb) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + x.abs()), "{x} vs {y}");
    }
    let one = |d: &Dataset| {
        OneClassSvm::params()
            .nu(0.2)
            .kernel(Rbf::with_gamma(0.1).unwrap())
            .fit(d)
            .unwrap()
    };
    let (a, b) = (one(&narrow), one(&wide));
    assert_eq!(bits(a.dual_coef()), bits(b.dual_coef()));
    assert_eq!(a.rho().to_bits(), b.rho().to_bits());
}

#[test]
fn a_linear_kernel_too_wide_for_dense_weights_predicts_through_its_support_vectors() {
    let (narrow, wide) = narrow_and_wide(&datasets::dna().unwrap(), 300, 20_000_000);
    let fit = |d: &Dataset| Svc::params().kernel(Linear).fit(d).unwrap();
    let (a, b) = (fit(&narrow), fit(&wide));
    assert_eq!(a.support_indices(), b.support_indices());
    // The compact model keeps w (180 features); the wide one (3 × 2³² values) cannot.
    assert!(a.coef().is_ok());
    let (da, db) = (
        a.decision_function(&narrow.records).unwrap(),
        b.decision_function(&wide.records).unwrap(),
    );
    for (x, y) in da.as_slice().iter().zip(db.as_slice()) {
        assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{x} vs {y}");
    }
    assert_eq!(
        a.predict(&narrow.records).unwrap(),
        b.predict(&wide.records).unwrap()
    );
}

#[test]
fn linear_svm_weights_no_machine_holds_are_refused_naming_the_size() {
    // 64 classes, one weight vector each, 2³² − 1 features wide: 2 TiB.
    let data = huge_width(Task::Classification);
    let pegasos = LinearSvc::params()
        .solver(LinearSolver::pegasos())
        .loss(SvmLoss::Hinge);
    for params in [LinearSvc::params(), pegasos] {
        assert_refused_for_memory(params.fit(&data).unwrap_err());
    }
    // The SMO path needs no such thing: 2016 one-vs-one problems on compact copies.
    let svc = Svc::params()
        .kernel(Rbf::with_gamma(0.5).unwrap())
        .fit(&data)
        .unwrap();
    assert_eq!(svc.n_features(), u32::MAX as usize);
    let predicted = svc.predict(&data.records).unwrap();
    assert_eq!(predicted.len(), data.n_samples());
}
