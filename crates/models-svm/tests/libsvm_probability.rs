//! Probability models of regression and one-class SVMs against LIBSVM 3.37 itself (`-b 1`;
//! fixtures and the command that made them: tests/fixtures/gen_libsvm_probability.py): the
//! fitted `probA` and `prob_density_marks`, the model files and the predictions, to the last
//! digit.

use margin_core::format::format_g;
use margin_core::{Dataset, Fit, PredictProba};
use margin_io::{ModelFile, datasets};
use margin_kernels::Gamma;
use margin_svm::{KernelChoice, LibsvmModel, OneClassSvm, Svc, Svr};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// LIBSVM's `svm-train` defaults that margin's library spells differently: γ = 1/d and a
/// 100 MB cache (the cache changes no result).
fn rbf_auto() -> KernelChoice {
    KernelChoice::Rbf { gamma: Gamma::Auto }
}

/// ε-SVR with LIBSVM's default kernel ([`rbf_auto`]) and probability estimates (`-b 1`),
/// fitted on `data`.
fn svr_with_probability(data: &Dataset) -> Svr {
    Svr::params()
        .kernel(rbf_auto())
        .probability(true)
        .fit(data)
        .unwrap()
}

/// One-class SVM with LIBSVM's default ν and kernel ([`rbf_auto`]) and probability estimates
/// (`-b 1`), fitted on `data`.
fn one_class_with_probability(data: &Dataset) -> OneClassSvm {
    OneClassSvm::params()
        .kernel(rbf_auto())
        .probability(true)
        .fit(data)
        .unwrap()
}

/// A line of `svm-predict -b 1` for a one-class model: the label, then the normal and outlier
/// probabilities (each `%g`).
fn libsvm_probability_line(label: f64, probs: &[f64]) -> String {
    format!(
        "{} {} {}",
        format_g(label, 6),
        format_g(probs[0], 6),
        format_g(probs[1], 6)
    )
}

fn check_regressor(name: &str, model: &Svr, data: &Dataset) {
    let want = fixture(&format!("{name}.model"));
    let text = LibsvmModel::Svr(model.clone()).to_text().unwrap();
    assert_eq!(text, want, "{name}: model file");
    // svm-predict -b 1 prints the values with %.17g.
    let values = LibsvmModel::Svr(model.clone())
        .predict_values(&data.records)
        .unwrap();
    let printed: String = values.iter().map(|v| format_g(*v, 17) + "\n").collect();
    assert_eq!(
        printed,
        fixture(&format!("{name}.predict")),
        "{name}: predictions"
    );
}

#[test]
fn epsilon_svr_probability_is_libsvm_s_to_the_last_digit() {
    let d = datasets::housing_scale().unwrap();
    let model = svr_with_probability(&d);
    let sigma = model.laplace_scale().unwrap();
    assert_eq!(sigma, 3.5915331891026154);
    check_regressor("housing_svr_probability", &model, &d);
    let poly = Svr::params()
        .c(10.0)
        .epsilon(0.5)
        .kernel(KernelChoice::Polynomial {
            degree: 2,
            gamma: Gamma::Auto,
            coef0: 1.0,
        })
        .probability(true)
        .fit(&d)
        .unwrap();
    check_regressor("housing_svr_probability_c10", &poly, &d);
}

#[test]
fn nu_svr_probability_is_libsvm_s_to_the_last_digit() {
    let d = datasets::housing_scale().unwrap();
    let model = Svr::nu_params()
        .c(10.0)
        .nu(0.4)
        .kernel(rbf_auto())
        .probability(true)
        .fit(&d)
        .unwrap();
    check_regressor("housing_nu_svr_probability", &model, &d);
}

#[test]
fn the_probability_model_depends_on_the_seed_only() {
    let d = datasets::housing_scale().unwrap();
    let fit = |seed: u64| {
        Svr::params()
            .kernel(rbf_auto())
            .probability(true)
            .seed(seed)
            .fit(&d)
            .unwrap()
    };
    let (zero, one, other) = (fit(0), fit(1), fit(7));
    // glibc's srand(0) is srand(1): both are LIBSVM's unseeded sequence.
    assert_eq!(zero.laplace_scale(), one.laplace_scale());
    assert_ne!(zero.laplace_scale(), other.laplace_scale());
    // Another seed draws other folds of the same model: σ stays close.
    let (a, b) = (
        zero.laplace_scale().unwrap(),
        other.laplace_scale().unwrap(),
    );
    assert!((a - b).abs() < 0.1 * a, "{a} vs {b}");
    // The regression itself does not change.
    assert_eq!(zero.dual_coef(), other.dual_coef());
    let plain = Svr::params().kernel(rbf_auto()).fit(&d).unwrap();
    assert_eq!(plain.laplace_scale(), None);
    assert_eq!(plain.dual_coef(), zero.dual_coef());
}

#[test]
fn prediction_intervals_follow_the_laplace_model() {
    let d = datasets::housing_scale().unwrap();
    let model = svr_with_probability(&d);
    let sigma = model.laplace_scale().unwrap();
    let f = margin_core::Predict::predict(&model, &d.records).unwrap();
    let iv = model.predict_interval(&d.records, 0.9).unwrap();
    assert_eq!((iv.nrows(), iv.ncols()), (d.n_samples(), 2));
    // P(|z| ≤ t) = 1 − e^(−t/σ) = 0.9 at t = σ ln 10.
    let half = sigma * 10f64.ln();
    for (i, fi) in f.iter().enumerate() {
        assert!((iv.get(i, 0) - (fi - half)).abs() < 1e-9);
        assert!((iv.get(i, 1) - (fi + half)).abs() < 1e-9);
    }
    // About 90 % of the training targets fall inside (the residuals are cross-validated).
    let y = d.targets.values().unwrap();
    let inside = (0..y.len())
        .filter(|&i| iv.get(i, 0) <= y[i] && y[i] <= iv.get(i, 1))
        .count() as f64
        / y.len() as f64;
    assert!(inside > 0.8, "{inside}");
    for bad in [0.0, 1.0, f64::NAN, -0.5] {
        assert!(model.predict_interval(&d.records, bad).is_err(), "{bad}");
    }
    let plain = Svr::params().kernel(rbf_auto()).fit(&d).unwrap();
    assert_unsupported(plain.predict_interval(&d.records, 0.9), "predict_interval");
    let tiny = d.select(&[0]).unwrap();
    assert!(Svr::params().probability(true).fit(&tiny).is_err());
}

fn check_one_class(name: &str, model: &OneClassSvm, data: &Dataset) {
    assert_eq!(
        LibsvmModel::OneClass(model.clone()).to_text().unwrap(),
        fixture(&format!("{name}.model")),
        "{name}: model file"
    );
    // svm-predict -b 1: `label normal outlier`, then the label and both probabilities (%g).
    let probs = model.predict_proba(&data.records).unwrap();
    let labels = LibsvmModel::OneClass(model.clone())
        .predict_values(&data.records)
        .unwrap();
    let mut printed = String::from("label normal outlier\n");
    for (l, row) in labels.iter().zip(probs.rows()) {
        assert!((row[0] + row[1] - 1.0).abs() < 1e-12);
        printed += &(libsvm_probability_line(*l, row) + "\n");
    }
    assert_eq!(printed, fixture(&format!("{name}.predict")), "{name}");
}

#[test]
fn one_class_density_marks_are_libsvm_s() {
    let d = datasets::heart_scale().unwrap();
    let model = one_class_with_probability(&d);
    let marks = model.density_marks().unwrap();
    assert!(marks.windows(2).all(|w| w[0] <= w[1]), "{marks:?}");
    check_one_class("heart_one_class_probability", &model, &d);
    let linear = OneClassSvm::params()
        .nu(0.2)
        .kernel(KernelChoice::Linear)
        .probability(true)
        .fit(&d)
        .unwrap();
    check_one_class("heart_one_class_probability_linear", &linear, &d);
}

#[test]
fn one_class_without_enough_decision_values_has_no_marks() {
    let d = datasets::heart_scale().unwrap();
    let model = OneClassSvm::params()
        .nu(0.999)
        .kernel(rbf_auto())
        .probability(true)
        .fit(&d)
        .unwrap();
    assert_eq!(model.density_marks(), None);
    assert_eq!(
        LibsvmModel::OneClass(model.clone()).to_text().unwrap(),
        fixture("heart_one_class_too_few.model")
    );
    assert_unsupported(model.predict_proba(&d.records), "predict_proba");
}

#[test]
fn libsvm_probability_models_load_and_predict_as_libsvm() {
    let housing = datasets::housing_scale().unwrap();
    let heart = datasets::heart_scale().unwrap();
    for (name, data) in [
        ("housing_svr_probability", &housing),
        ("housing_nu_svr_probability", &housing),
        ("heart_one_class_probability", &heart),
    ] {
        let text = fixture(&format!("{name}.model"));
        let model = LibsvmModel::from_text(&text).unwrap();
        assert!(model.has_probability(), "{name}");
        assert_eq!(model.to_text().unwrap(), text, "{name}: written back");
        let (values, probs) = model.predict_probability(&data.records).unwrap();
        let lines: Vec<String> = fixture(&format!("{name}.predict"))
            .lines()
            .map(str::to_owned)
            .collect();
        match &model {
            LibsvmModel::Svr(_) => {
                assert_eq!(probs.ncols(), 0);
                let printed: Vec<String> = values.iter().map(|v| format_g(*v, 17)).collect();
                assert_eq!(printed, lines, "{name}");
            }
            _ => {
                let printed: Vec<String> = values
                    .iter()
                    .zip(probs.rows())
                    .map(|(l, p)| libsvm_probability_line(*l, p))
                    .collect();
                assert_eq!(printed, lines[1..], "{name}");
            }
        }
    }
    let plain = LibsvmModel::from_text(&fixture("housing_svr_default.model")).unwrap();
    assert!(!plain.has_probability());
    assert_unsupported(
        plain.predict_probability(&housing.records),
        "predict_probability",
    );
}

#[test]
fn margin_model_files_keep_the_probability_models() {
    let d = datasets::housing_scale().unwrap();
    let svr = svr_with_probability(&d);
    let back = Svr::from_bytes(&svr.to_bytes().unwrap()).unwrap();
    assert_eq!(back.laplace_scale(), svr.laplace_scale());
    let h = datasets::heart_scale().unwrap();
    let oc = one_class_with_probability(&h);
    let back = OneClassSvm::from_bytes(&oc.to_bytes().unwrap()).unwrap();
    assert_eq!(back.density_marks(), oc.density_marks());
    assert_eq!(
        back.predict_proba(&h.records).unwrap(),
        oc.predict_proba(&h.records).unwrap()
    );
}

#[test]
fn an_svc_fitted_without_probabilities_refuses_them_as_unsupported() {
    let d = datasets::heart_scale().unwrap();
    let untrained = Svc::params().fit(&d).unwrap();
    assert_unsupported(untrained.predict_proba(&d.records), "predict_proba");
    assert_unsupported(
        untrained.libsvm_predict_proba(&d.records),
        "libsvm_predict_proba",
    );
}

/// `result` is the refusal of `operation` by a model fitted without what it needs (not a bad
/// parameter), and its message says how to refit.
#[track_caller]
fn assert_unsupported<T: std::fmt::Debug>(result: margin_core::Result<T>, operation: &str) {
    match result {
        Err(margin_core::Error::Unsupported {
            operation: op,
            reason,
        }) => {
            assert_eq!(op, operation);
            assert!(reason.contains("refit with probability(true)"), "{reason}");
        }
        other => panic!("expected Unsupported for {operation}, got {other:?}"),
    }
}
