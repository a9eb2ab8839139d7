//! margin's SVMs against LIBSVM 3.37 itself, on the bundled data at tolerance 1e-6 (fixtures
//! and the command that made them: tests/fixtures/gen_libsvm.py). Objectives within 1e-6
//! relative, the same support vectors, the same predictions.

use std::collections::BTreeSet;

use margin_core::{Dataset, Fit, Label, Predict, Records};

use margin_io::datasets;
use margin_kernels::Gamma;
use margin_svm::{
    ClassWeight, KernelChoice, LabelOrder, NuSvrParams, OneClassSvm, OneClassSvmParams, Svc,
    SvcParams, Svr, SvrParams,
};

use crate::common::{polynomial, rbf};

pub(crate) const HEART_GAMMA: f64 = 0.0769230769230769;

/// What gen_libsvm.py recorded of one LIBSVM run.
pub(crate) struct Fixture {
    /// Per binary problem: iterations, objective, ρ, nSV, nBSV.
    pub(crate) problems: Vec<(usize, f64, f64, usize, usize)>,
    pub(crate) labels: Vec<f64>,
    pub(crate) sv_indices: BTreeSet<usize>,
    pub(crate) predictions: Vec<f64>,
}

pub(crate) fn fixture(name: &str) -> Fixture {
    let path = format!("{}/tests/fixtures/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut f = Fixture {
        problems: Vec::new(),
        labels: Vec::new(),
        sv_indices: BTreeSet::new(),
        predictions: Vec::new(),
    };
    for line in text.lines() {
        let (key, rest) = line.split_once(": ").unwrap();
        let nums = || rest.split_whitespace().map(|v| v.parse::<f64>().unwrap());
        match key {
            "labels" => f.labels = nums().collect(),
            "sv_indices" => f.sv_indices = nums().map(|v| v as usize - 1).collect(),
            "predictions" => f.predictions = nums().collect(),
            k if k.starts_with("problem") => {
                let w: Vec<&str> = rest.split_whitespace().collect();
                f.problems.push((
                    w[1].parse().unwrap(),
                    w[3].parse().unwrap(),
                    w[5].parse().unwrap(),
                    w[7].parse().unwrap(),
                    w[9].parse().unwrap(),
                ));
            }
            _ => {}
        }
    }
    f
}

/// Every prediction of run `name` within `rel` relative (absolute below 1) of LIBSVM's, and
/// as many of them.
#[track_caller]
pub(crate) fn assert_predictions_close(name: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{name}: number of predictions");
    for (p, w) in got.iter().zip(want) {
        assert!(
            (p - w).abs() <= rel * w.abs().max(1.0),
            "{name}: {p} vs {w}"
        );
    }
}

/// The ε-SVR of LIBSVM's run `housing_svr`: C = 10, ε = 0.5, RBF γ = [`HEART_GAMMA`],
/// tolerance 1e-6.
pub(crate) fn housing_svr_params() -> SvrParams {
    Svr::params()
        .c(10.0)
        .epsilon(0.5)
        .tol(1e-6)
        .kernel(rbf(HEART_GAMMA))
}

/// The ν-SVR of LIBSVM's run `housing_nu_svr`: C = 10, ν = 0.5, RBF γ = [`HEART_GAMMA`],
/// tolerance 1e-6.
pub(crate) fn housing_nu_svr_params() -> NuSvrParams {
    Svr::nu_params()
        .c(10.0)
        .nu(0.5)
        .tol(1e-6)
        .kernel(rbf(HEART_GAMMA))
}

/// The one-class SVM of LIBSVM's run `heart_one_class`: ν = 0.3, RBF γ = [`HEART_GAMMA`],
/// tolerance 1e-6.
pub(crate) fn heart_one_class_params() -> OneClassSvmParams {
    OneClassSvm::params()
        .nu(0.3)
        .tol(1e-6)
        .kernel(rbf(HEART_GAMMA))
}

/// Support-vector indices as a set, the form the fixtures record them in.
fn support_set(indices: &[usize]) -> BTreeSet<usize> {
    indices.iter().copied().collect()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1.0)
}

pub(crate) fn number(l: &Label) -> f64 {
    match l {
        Label::Number(x) => *x,
        Label::Text(t) => panic!("text label {t}"),
    }
}

/// A classifier's predictions for `records` as the numbers LIBSVM prints for them (panics on a
/// text label, which no LIBSVM data set has).
pub(crate) fn predicted_numbers<M, R>(model: &M, records: &R) -> Vec<f64>
where
    M: Predict<Output = Vec<Label>>,
    R: Records + ?Sized,
{
    model.predict(records).unwrap().iter().map(number).collect()
}

/// C-SVC of LIBSVM's run `dna_rbf`: C = 1, RBF γ = 1/180.
pub(crate) fn dna_rbf_params() -> SvcParams {
    Svc::params().c(1.0).kernel(rbf(0.005555555555555556))
}

/// LIBSVM prints objective and ρ with 6 decimals: compare to that precision.
/// `got` and `want` are (iterations, objective, ρ, nSV, nBSV).
fn check_problem(
    name: &str,
    k: usize,
    want: (usize, f64, f64, usize, usize),
    got: (usize, f64, f64, usize, usize),
) {
    let (iters, obj, rho, n_sv, n_bsv) = got;
    let (w_iter, w_obj, w_rho, w_nsv, w_nbsv) = want;
    assert!(
        close(obj, w_obj, 1e-6) || (obj - w_obj).abs() <= 5e-7,
        "{name} problem {k}: obj {obj} vs LIBSVM {w_obj}"
    );
    assert!(
        (rho - w_rho).abs() <= 1e-5,
        "{name} problem {k}: rho {rho} vs LIBSVM {w_rho}"
    );
    assert_eq!(
        (n_sv, n_bsv),
        (w_nsv, w_nbsv),
        "{name} problem {k}: nSV/nBSV"
    );
    // Same working sets, same shrinking: the same number of iterations as LIBSVM.
    assert_eq!(iters, w_iter, "{name} problem {k}: iterations");
}

fn check_svc(name: &str, params: margin_svm::SvcParams, train: &Dataset, test: &Dataset) {
    check_classifier(
        name,
        &params
            .label_order(LabelOrder::FirstSeen)
            .tol(1e-6)
            .fit(train)
            .unwrap(),
        test,
    );
}

fn check_classifier(name: &str, model: &Svc, test: &Dataset) {
    let f = fixture(name);
    assert_eq!(
        model.classes().iter().map(number).collect::<Vec<_>>(),
        f.labels,
        "{name}: label order"
    );
    for (k, (p, want)) in model.problems().iter().zip(&f.problems).enumerate() {
        check_problem(
            name,
            k,
            *want,
            (p.iterations, p.objective, p.rho, p.coef.len(), p.n_bounded),
        );
    }
    let svs: BTreeSet<usize> = model.support_indices().iter().copied().collect();
    assert_eq!(svs, f.sv_indices, "{name}: support vectors");
    // A fixture without predictions records the training side only (see gen_libsvm.py).
    if !f.predictions.is_empty() {
        let pred = predicted_numbers(model, &test.records);
        assert_eq!(pred, f.predictions, "{name}: predictions");
    }
}

#[test]
fn c_svc_rbf_on_heart_scale() {
    let d = datasets::heart_scale().unwrap();
    check_svc(
        "heart_rbf",
        Svc::params().c(1.0).kernel(rbf(0.0769230769230769)),
        &d,
        &d,
    );
}

#[test]
fn c_svc_rbf_without_shrinking() {
    let d = datasets::heart_scale().unwrap();
    check_svc(
        "heart_rbf_c10_noshrink",
        Svc::params().c(10.0).shrinking(false).kernel(rbf(0.2)),
        &d,
        &d,
    );
}

#[test]
fn c_svc_linear_on_heart_scale() {
    let d = datasets::heart_scale().unwrap();
    check_svc(
        "heart_linear",
        Svc::params().c(0.5).kernel(KernelChoice::Linear),
        &d,
        &d,
    );
}

#[test]
fn c_svc_polynomial_with_class_weights() {
    let d = datasets::heart_scale().unwrap();
    let weights = ClassWeight::Given(vec![(Label::Number(1.0), 3.0), (Label::Number(-1.0), 0.5)]);
    let params = Svc::params()
        .c(2.0)
        .class_weight(weights)
        .kernel(polynomial(2, 0.1, 1.0));
    check_svc("heart_poly_weighted", params, &d, &d);
}

#[test]
fn c_svc_three_classes_one_vs_one_on_dna() {
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    check_svc("dna_rbf", dna_rbf_params(), &train, &test);
}

/// A regressor against its fixture: the solver's report, the support vectors and predictions
/// (to 1e-5 relative: LIBSVM's prediction sums in another order).
fn check_regressor(name: &str, model: &Svr, c: f64, data: &Dataset) {
    let f = fixture(name);
    let n_bsv = model.dual_coef().iter().filter(|v| v.abs() >= c).count();
    let got = (
        model.n_iter(),
        model.objective(),
        -model.intercept()[0],
        model.support_indices().len(),
        n_bsv,
    );
    check_problem(name, 0, f.problems[0], got);
    assert_eq!(support_set(model.support_indices()), f.sv_indices, "{name}");
    let predictions = model.predict(&data.records).unwrap();
    assert_predictions_close(name, &predictions, &f.predictions, 1e-5);
}

#[test]
fn epsilon_svr_on_housing() {
    let d = datasets::housing_scale().unwrap();
    let model = housing_svr_params().fit(&d).unwrap();
    check_regressor("housing_svr", &model, 10.0, &d);
}

#[test]
fn one_class_svm_on_heart_scale() {
    let f = fixture("heart_one_class");
    let d = datasets::heart_scale().unwrap();
    let model = heart_one_class_params().fit(&d).unwrap();
    let n_bsv = model.dual_coef().iter().filter(|&&c| c >= 1.0).count();
    check_problem(
        "heart_one_class",
        0,
        f.problems[0],
        (
            model.n_iter(),
            model.objective(),
            model.rho(),
            model.support_indices().len(),
            n_bsv,
        ),
    );
    assert_eq!(support_set(model.support_indices()), f.sv_indices);
    let pred = predicted_numbers(&model, &d.records);
    assert_eq!(pred, f.predictions);
}

#[test]
fn sorted_class_order_matches_scikit_learn() {
    // scikit-learn's SVC sorts classes; so does margin by default (tests/fixtures/gen_sklearn.py).
    let field = |key| fixture_lines(include_str!("fixtures/sklearn_dna_svc.txt"), key);
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    let model = Svc::params().kernel(rbf(1.0 / 180.0)).fit(&train).unwrap();
    let n_support: Vec<f64> = model.n_support().iter().map(|&n| n as f64).collect();
    assert_eq!(n_support, field("n_support: ")[0]);
    for (got, want) in model.intercept().iter().zip(&field("intercept: ")[0]) {
        assert!((got - want).abs() < 1e-6, "intercept {got} vs {want}");
    }
    let pred = predicted_numbers(&model, &test.records);
    assert_eq!(pred, field("predictions: ")[0]);
    let dec = margin_core::DecisionFunction::decision_function(
        &model,
        &test.records.select_rows(&[0, 1, 2, 3, 4]).unwrap(),
    )
    .unwrap();
    for (r, want) in field("decision: ").iter().enumerate() {
        for (c, w) in want.iter().enumerate() {
            assert!(
                (dec.get(r, c) - w).abs() < 1e-6,
                "decision[{r},{c}] {} vs {w}",
                dec.get(r, c)
            );
        }
    }
    check_dual_coef(&model, &field("support: ")[0], &field("dual_coef: "));
}

/// The numbers of every line of `text` that starts with `key`, one vector per line.
fn fixture_lines(text: &str, key: &str) -> Vec<Vec<f64>> {
    text.lines()
        .filter_map(|l| l.strip_prefix(key))
        .map(|rest| {
            rest.split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect()
        })
        .collect()
}

/// `support_indices` equal to scikit-learn's `support_`, and `dual_coef()` to its `dual_coef_`
/// (same layout and signs) to 1e-6.
fn check_dual_coef(model: &Svc, support: &[f64], dual: &[Vec<f64>]) {
    let indices: Vec<f64> = model.support_indices().iter().map(|&i| i as f64).collect();
    assert_eq!(indices, support);
    let got = model.dual_coef().unwrap();
    assert_eq!((got.nrows(), got.ncols()), (dual.len(), support.len()));
    for (r, want) in dual.iter().enumerate() {
        for (s, w) in want.iter().enumerate() {
            assert!(
                (got.get(r, s) - w).abs() < 1e-6,
                "dual_coef[{r},{s}] {} vs {w}",
                got.get(r, s)
            );
        }
    }
}

#[test]
fn binary_dual_coefficients_carry_scikit_learns_sign() {
    // tests/fixtures/gen_sklearn.py: SVC(C=1, gamma=1/13) on heart_scale.
    let field = |key| fixture_lines(include_str!("fixtures/sklearn_heart_svc.txt"), key);
    let model = Svc::params()
        .gamma(1.0 / 13.0)
        .fit(&datasets::heart_scale().unwrap())
        .unwrap();
    assert!((model.intercept()[0] - field("intercept: ")[0][0]).abs() < 1e-6);
    check_dual_coef(&model, &field("support: ")[0], &field("dual_coef: "));
}

#[test]
fn nu_svc_on_heart_scale_and_dna() {
    let d = datasets::heart_scale().unwrap();
    let params = Svc::nu_params().nu(0.4).kernel(rbf(HEART_GAMMA));
    check_classifier(
        "heart_nu_svc",
        &params
            .label_order(LabelOrder::FirstSeen)
            .tol(1e-6)
            .fit(&d)
            .unwrap(),
        &d,
    );
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    let params = Svc::nu_params().nu(0.3).kernel(rbf(0.005555555555555556));
    check_classifier(
        "dna_nu_svc",
        &params
            .label_order(LabelOrder::FirstSeen)
            .tol(1e-6)
            .fit(&train)
            .unwrap(),
        &test,
    );
    let infeasible = Svc::nu_params().nu(0.95).fit(&d);
    assert!(
        matches!(infeasible, Err(margin_core::Error::InvalidParameter { .. })),
        "{infeasible:?}"
    );
}

/// ν-SVC with the sigmoid kernel (not positive semi-definite) can end with r < 0: LIBSVM divides
/// by r all the same (`svm-train -s 1 -t 3 -n 0.2 -g 0.1 -r 0 heart_scale` prints `C =
/// -7.763716` and keeps 57 support vectors, all at the bound), and so does margin.
#[test]
fn nu_svc_with_a_negative_r_is_rescaled_as_libsvm_rescales_it() {
    let d = datasets::heart_scale().unwrap();
    let model = Svc::nu_params()
        .nu(0.2)
        .kernel(KernelChoice::Sigmoid {
            gamma: Gamma::Value(0.1),
            coef0: 0.0,
        })
        .label_order(LabelOrder::FirstSeen)
        .fit(&d)
        .unwrap();
    let p = &model.problems()[0];
    let c = p.equivalent_c.unwrap();
    assert!((c + 7.763716).abs() < 5e-7, "C = {c}");
    // LIBSVM counts a support vector as bounded when |α·y/r| ≥ 1/r: with r < 0, all of them.
    assert_eq!((p.coef.len(), p.n_bounded), (57, 57));
    // α ∈ [0, 1] times y/r with r < 0: every coefficient has the sign opposite to its class's.
    for &(s, a) in &p.coef {
        let positive = model.support_class()[s] == p.positive;
        assert_eq!(a < 0.0, positive, "support vector {s}: {a}");
        assert!(a.abs() <= c.abs(), "support vector {s}: {a}");
    }
    // A positive r keeps the C of the equivalent C-SVC too; C-SVC has none.
    let rbf = Svc::nu_params().nu(0.4).fit(&d).unwrap();
    assert!(rbf.problems()[0].equivalent_c.unwrap() > 0.0);
    assert_eq!(
        Svc::params().fit(&d).unwrap().problems()[0].equivalent_c,
        None
    );
}

#[test]
fn nu_svr_on_housing() {
    let d = datasets::housing_scale().unwrap();
    let model = housing_nu_svr_params().fit(&d).unwrap();
    check_regressor("housing_nu_svr", &model, 10.0, &d);
}

/// Probabilities against LIBSVM's `-b 1`. LIBSVM draws its cross-validation folds from the C
/// library's `rand()`, margin from its seeded generator, so the sigmoids differ a little: the
/// check is that probabilities agree closely and their argmax gives the same labels nearly
/// everywhere (LIBSVM's `-b 1` predicts the most probable class).
fn check_probabilities(
    name: &str,
    train: &Dataset,
    test: &Dataset,
    gamma: f64,
    max_mean_diff: f64,
) {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let field = |key: &str| -> Vec<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect()
    };
    let (want_labels, want_probs) = (field("predictions: "), field("probabilities: "));
    let model = Svc::params()
        .kernel(rbf(gamma))
        .label_order(LabelOrder::FirstSeen)
        .probability(true)
        .fit(train)
        .unwrap();
    let probs = margin_core::PredictProba::predict_proba(&model, &test.records).unwrap();
    let k = model.classes().len();
    let (mut diff, mut agree) = (0.0, 0);
    for i in 0..test.n_samples() {
        let row = probs.row(i);
        assert!(
            (row.iter().sum::<f64>() - 1.0).abs() < 1e-9
                && row.iter().all(|p| (0.0..=1.0).contains(p))
        );
        diff += row
            .iter()
            .zip(&want_probs[i * k..(i + 1) * k])
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / k as f64;
        let best = (0..k).fold(0, |b, c| if row[c] > row[b] { c } else { b });
        agree += usize::from(number(&model.classes()[best]) == want_labels[i]);
    }
    let (mean, agreement) = (
        diff / test.n_samples() as f64,
        agree as f64 / test.n_samples() as f64,
    );
    assert!(
        mean < max_mean_diff && agreement > 0.98,
        "{name}: mean |Δp| {mean}, label agreement {agreement}"
    );
    let back =
        <Svc as margin_io::ModelFile>::from_bytes(&margin_io::ModelFile::to_bytes(&model).unwrap())
            .unwrap();
    assert_eq!(
        margin_core::PredictProba::predict_proba(&back, &test.records).unwrap(),
        probs
    );
    let text_model =
        margin_svm::LibsvmModel::from_text(&margin_svm::LibsvmModel::Svc(model).to_text().unwrap())
            .unwrap();
    let margin_svm::LibsvmModel::Svc(reread) = text_model else {
        panic!("not an SVC")
    };
    let reprobs = margin_core::PredictProba::predict_proba(&reread, &test.records).unwrap();
    assert!(
        reprobs
            .as_slice()
            .iter()
            .zip(probs.as_slice())
            .all(|(a, b)| (a - b).abs() < 1e-6)
    );
}

#[test]
fn platt_probabilities_agree_with_libsvm() {
    let d = datasets::heart_scale().unwrap();
    check_probabilities("heart_probability", &d, &d, HEART_GAMMA, 0.03);
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    check_probabilities("dna_probability", &train, &test, 0.005555555555555556, 0.03);
}
