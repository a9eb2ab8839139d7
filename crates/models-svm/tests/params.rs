//! The SVM params as data: every struct passes the params battery in each configuration, its
//! defaults are scikit-learn's (or differ for a stated reason), setting parameters by name does
//! not depend on the order, and the flat kernel parameters fit the very model the kernel
//! builder fits.

use margin_core::params::{Params, Value};
use margin_core::{ClassWeight, Error, Fit, Label, Records};
use margin_io::{ModelFile, datasets};
use margin_kernels::{Gamma, Laplacian, Polynomial, Rbf, Sigmoid};
use margin_svm::{
    Iterate, KernelChoice, LabelOrder, LinearSolver, LinearSvc, LinearSvcParams, Multiclass,
    NuSvcParams, NuSvrParams, OneClassSvm, OneClassSvmParams, Svc, SvcParams, SvmLoss, Svr,
    SvrParams,
};
use margin_testing::battery::{check_defaults, check_params};

use crate::common::polynomial;

/// Every way a kernel can be given to the builder: the named forms, the kernels crate's
/// standard kernels (which the params store as the named forms), and kernels that only a
/// custom kernel describes.
fn kernels() -> Vec<KernelChoice> {
    vec![
        KernelChoice::default(),
        KernelChoice::Linear,
        KernelChoice::Rbf { gamma: Gamma::Auto },
        KernelChoice::Rbf {
            gamma: Gamma::Value(0.25),
        },
        KernelChoice::Polynomial {
            degree: 2,
            gamma: Gamma::Value(0.5),
            coef0: 1.0,
        },
        KernelChoice::Sigmoid {
            gamma: Gamma::Scale,
            coef0: -0.5,
        },
        KernelChoice::Precomputed,
        Rbf::with_gamma(0.7).unwrap().into(),
        Sigmoid::with_gamma(0.2)
            .unwrap()
            .with_coef0(0.1)
            .unwrap()
            .into(),
        polynomial(4, 0.5, 1.0).into(),
        Polynomial::libsvm(0.5, -1.0, 0).unwrap().into(),
        Laplacian::with_gamma(0.5).unwrap().into(),
    ]
}

#[test]
fn every_svm_params_passes_the_battery_in_every_configuration() {
    for k in kernels() {
        check_params(&Svc::params().kernel(k.clone()));
        check_params(&Svc::params().kernel(k.clone()).probability(true).seed(7));
        check_params(&Svc::nu_params().kernel(k.clone()).nu(0.3));
        check_params(&Svr::params().kernel(k.clone()).probability(true));
        check_params(&Svr::nu_params().kernel(k.clone()));
        check_params(&OneClassSvm::params().kernel(k).probability(true));
    }
    check_params(
        &Svc::params()
            .c(f64::INFINITY)
            .multiclass(Multiclass::OneVsRest)
            .label_order(LabelOrder::FirstSeen)
            .class_weight(ClassWeight::Given(vec![
                (Label::Number(1.0), 0.5),
                (Label::Text("b".into()), 2.0),
            ]))
            .max_iter(10)
            .shrinking(false),
    );
    check_params(&Svc::params().class_weight(ClassWeight::Balanced));
}

#[test]
fn every_linear_svc_params_passes_the_battery_in_every_configuration() {
    check_params(&LinearSvc::params());
    check_params(&LinearSvc::params().lambda(0.01).fit_intercept(false));
    check_params(
        &LinearSvc::params()
            .loss(SvmLoss::Hinge)
            .solver(LinearSolver::Pegasos {
                epochs: 3,
                batch_size: 4,
                projection: true,
                iterate: Iterate::Average,
            })
            .class_weight(ClassWeight::Balanced),
    );
}

/// The defaults of Pegasos's parameters are those of [`LinearSolver::pegasos`], which the
/// `solver` builder stores.
#[test]
fn linear_svc_defaults_hold_pegasos_defaults() {
    assert_eq!(
        LinearSvc::params(),
        LinearSvc::params()
            .solver(LinearSolver::pegasos())
            .solver(LinearSolver::Dcd)
    );
    assert_eq!(
        LinearSvc::params().solver(LinearSolver::Dcd),
        LinearSvc::params()
    );
}

/// scikit-learn 1.9's documented defaults (sklearn.svm.SVC, NuSVC, SVR, NuSVR, OneClassSVM,
/// LinearSVC). Where margin differs on purpose, the parameter is in the margin-only list:
/// - `max_iter`: scikit-learn's -1 means no limit; margin's `none` is LIBSVM 3.37's limit
///   `max(10⁷, 100·n)` per binary problem (margin reproduces LIBSVM's runs).
/// - `multiclass`: scikit-learn always trains one-vs-one (its `decision_function_shape` only
///   reshapes the output); margin's default `ovo` is that training, `ovr` is margin's.
/// - `seed`: scikit-learn's `random_state=None` draws from the global generator; margin is
///   deterministic (0: LIBSVM's unseeded `rand()` sequence).
/// - `solver`: margin's choice of SMO (LIBSVM's, the default) or its working-set solver.
/// - `label_order`, and LinearSVC's Pegasos parameters (`lambda`, `solver`, `epochs`,
///   `batch_size`, `projection`, `iterate`): margin only.
#[test]
fn defaults_are_scikit_learns() {
    let kernel = [
        ("kernel", "rbf"),
        ("degree", "3"),
        ("gamma", "scale"),
        ("coef0", "0.0"),
        ("shrinking", "true"),
        ("tol", "0.001"),
        ("cache_size", "200"),
    ];
    let with = |own: &[(&'static str, &'static str)]| [&kernel[..], own].concat();
    let classifier_only = ["max_iter", "solver", "multiclass", "label_order", "seed"];
    check_defaults::<SvcParams>(
        &with(&[
            ("C", "1.0"),
            ("probability", "false"),
            ("class_weight", "none"),
        ]),
        &classifier_only,
    );
    check_defaults::<NuSvcParams>(
        &with(&[("nu", "0.5"), ("probability", "false")]),
        &classifier_only,
    );
    check_defaults::<SvrParams>(
        &with(&[("C", "1.0"), ("epsilon", "0.1")]),
        &["max_iter", "solver", "probability", "seed"],
    );
    check_defaults::<NuSvrParams>(
        &with(&[("C", "1.0"), ("nu", "0.5")]),
        &["max_iter", "solver", "probability", "seed"],
    );
    check_defaults::<OneClassSvmParams>(
        &with(&[("nu", "0.5")]),
        &["max_iter", "solver", "probability"],
    );
    check_defaults::<LinearSvcParams>(
        &[
            ("tol", "0.0001"),
            ("C", "1.0"),
            ("fit_intercept", "true"),
            ("intercept_scaling", "1"),
            ("class_weight", "none"),
            ("max_iter", "1000"),
        ],
        &[
            // `none`: the solver's own loss, scikit-learn's squared hinge with the default
            // solver (tests/linear_svc.rs fits both and compares).
            "loss",
            "lambda",
            "solver",
            "epochs",
            "batch_size",
            "projection",
            "iterate",
            "seed",
        ],
    );
}

/// Sets `pairs` on `P`'s default in the given order.
fn set_all<P: Params + Default>(pairs: &[(&str, &str)]) -> P {
    let mut p = P::default();
    for (name, text) in pairs {
        p.set(name, text)
            .unwrap_or_else(|e| panic!("{name} = {text}: {e}"));
    }
    p
}

#[test]
fn setting_by_name_does_not_depend_on_the_order() {
    let pairs = [
        ("gamma", "0.5"),
        ("degree", "2"),
        ("coef0", "1"),
        ("kernel", "poly"),
        ("C", "2"),
        ("probability", "true"),
    ];
    let mut reversed = pairs;
    reversed.reverse();
    let forward: SvcParams = set_all(&pairs);
    assert_eq!(forward, set_all::<SvcParams>(&reversed));
    assert_eq!(
        forward,
        Svc::params()
            .kernel(KernelChoice::Polynomial {
                degree: 2,
                gamma: Gamma::Value(0.5),
                coef0: 1.0,
            })
            .c(2.0)
            .probability(true)
    );

    let pegasos = [
        ("epochs", "5"),
        ("lambda", "0.01"),
        ("iterate", "last"),
        ("solver", "pegasos"),
        ("loss", "hinge"),
        ("C", "3"),
    ];
    let mut reversed = pegasos;
    reversed.reverse();
    let forward: LinearSvcParams = set_all(&pegasos);
    assert_eq!(forward, set_all::<LinearSvcParams>(&reversed));
    // The builders keep their meaning: λ replaces C, and C given after λ replaces λ.
    let built = LinearSvc::params().c(3.0).lambda(0.01);
    assert_eq!(built.get("lambda"), Some(Value::Float(0.01)));
    assert_eq!(built.clone().c(3.0).get("lambda"), Some(Value::None));
    assert_eq!(
        forward,
        built.loss(SvmLoss::Hinge).solver(LinearSolver::Pegasos {
            epochs: 5,
            batch_size: 1,
            projection: false,
            iterate: Iterate::Last,
        })
    );
}

#[test]
fn a_kernel_given_whole_is_stored_as_the_parameters_that_describe_it() {
    let p = Svc::params().kernel(Sigmoid::with_gamma(0.2).unwrap().with_coef0(-1.5).unwrap());
    assert_eq!(p.get("kernel"), Some(Value::Text("sigmoid".into())));
    assert_eq!(p.get("gamma"), Some(Value::Float(0.2)));
    assert_eq!(p.get("coef0"), Some(Value::Float(-1.5)));
    // A kernel no named form builds stays whole, reported as custom.
    for k in [
        KernelChoice::from(Polynomial::libsvm(0.0, 1.0, 3).unwrap()),
        Laplacian::with_gamma(0.5).unwrap().into(),
    ] {
        let mut p = Svc::params().kernel(k);
        assert_eq!(p.get("kernel"), Some(Value::Text("custom".into())));
        let kept = p.clone();
        p.set("kernel", "custom").unwrap(); // keeps it
        assert_eq!(p, kept);
        assert!(p.check().is_ok());
        p.set("kernel", "rbf").unwrap(); // drops it
        assert_eq!(p, Svc::params());
    }
    // Text alone cannot make a custom kernel.
    let mut p = Svc::params();
    p.set("kernel", "custom").unwrap();
    assert!(matches!(p.check(), Err(Error::InvalidParameter { ref name, .. }) if name == "kernel"));
}

#[test]
fn the_rules_between_parameters_are_checked_with_their_phrases() {
    let refused = |p: &dyn Fn() -> margin_core::Result<()>, name: &str, phrase: &str| match p() {
        Err(Error::InvalidParameter {
            name: n, expected, ..
        }) => {
            assert_eq!(n, name);
            assert!(expected.contains(phrase), "{expected}");
        }
        other => panic!("{name}: {other:?}"),
    };
    let poly: SvcParams = set_all(&[("kernel", "poly"), ("coef0", "-1")]);
    refused(&|| poly.check(), "coef0", "positive semi-definiteness");
    // The same coef0 is fine for the sigmoid kernel.
    let sigmoid: SvcParams = set_all(&[("kernel", "sigmoid"), ("coef0", "-1")]);
    assert!(sigmoid.check().is_ok());
    let ovr: NuSvcParams = set_all(&[("multiclass", "ovr"), ("probability", "true")]);
    refused(&|| ovr.check(), "probability", "one-vs-one");
    let weights: SvcParams = set_all(&[("class_weight", "1:-2")]);
    refused(&|| weights.check(), "class_weight[1]", "≥ 0");
    let zero: LinearSvcParams = set_all(&[("class_weight", "1:0")]);
    refused(&|| zero.check(), "class_weight[1]", "> 0");
    let pegasos: LinearSvcParams = set_all(&[("solver", "pegasos"), ("loss", "squared_hinge")]);
    refused(&|| pegasos.check(), "loss", "hinge with the Pegasos solver");
    // Ranges are refused by `set` itself, leaving the value as it was.
    let mut p = Svr::params();
    for (name, text) in [
        ("gamma", "0"),
        ("gamma", "-1"),
        ("degree", "0"),
        ("coef0", "inf"),
        ("tol", "0"),
        ("cache_size", "-1"),
        ("max_iter", "0"),
        ("C", "0"),
        ("epsilon", "-0.1"),
    ] {
        assert!(p.set(name, text).is_err(), "{name} = {text}");
    }
    assert_eq!(p, Svr::params());
}

#[test]
fn text_parameters_fit_the_model_the_builders_fit() {
    let data = datasets::heart_scale().unwrap();
    let bytes = |p: &SvcParams| p.fit(&data).unwrap().to_bytes().unwrap();
    let by_text: SvcParams = set_all(&[
        ("kernel", "poly"),
        ("gamma", "0.1"),
        ("degree", "2"),
        ("coef0", "0.5"),
        ("C", "2"),
    ]);
    let by_builder = Svc::params()
        .kernel(KernelChoice::Polynomial {
            degree: 2,
            gamma: Gamma::Value(0.1),
            coef0: 0.5,
        })
        .c(2.0);
    let by_kernel = Svc::params().kernel(polynomial(2, 0.1, 0.5)).c(2.0);
    assert!(bytes(&by_text) == bytes(&by_builder));
    assert!(bytes(&by_text) == bytes(&by_kernel));
    // LIBSVM's constructor with values the named form allows is the named form.
    let libsvm = Svc::params()
        .kernel(Polynomial::libsvm(0.1, 0.5, 2).unwrap())
        .c(2.0);
    assert_eq!(libsvm, by_builder);
    let regression = datasets::heart_scale().unwrap();
    let svr: SvrParams = set_all(&[("kernel", "rbf"), ("gamma", "auto"), ("epsilon", "0.2")]);
    assert!(
        svr.fit(&regression).unwrap().to_bytes().unwrap()
            == Svr::params()
                .kernel(KernelChoice::Rbf { gamma: Gamma::Auto })
                .epsilon(0.2)
                .fit(&regression)
                .unwrap()
                .to_bytes()
                .unwrap()
    );
}

#[test]
fn a_composed_kernel_goes_into_the_builder_as_written() {
    use margin_kernels::{Kernel, KernelExt, KernelSpec, Linear};
    let data = datasets::heart_scale().unwrap();
    // The line: no part turned into a `KernelSpec` by hand.
    let composed = Rbf::with_gamma(0.5)
        .unwrap()
        .scaled(0.5)
        .unwrap()
        .plus(polynomial(2, 0.1, 1.0));
    let x = data.records.row(0);
    let z = data.records.row(1);
    let expected = composed.eval(x, z);
    let model = Svc::params().kernel(composed).fit(&data).unwrap();
    assert_eq!(model.kernel().eval(x, z), expected);
    assert!(matches!(model.kernel(), KernelSpec::Sum(_)));
    // Products and multiples nest the same way, and the model file keeps them.
    let product = Linear.times(Rbf::with_gamma(0.2).unwrap().scaled(2.0).unwrap());
    let model = Svr::params().kernel(product.clone()).fit(&data).unwrap();
    assert_eq!(model.kernel().eval(x, z), product.eval(x, z));
    let again = Svr::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(again, model);
}

#[test]
fn the_gamma_shortcut_is_the_gamma_parameter() {
    let by_shortcut = Svc::params().gamma(0.5);
    assert_eq!(
        by_shortcut,
        Svc::params().kernel(Rbf::with_gamma(0.5).unwrap())
    );
    assert_eq!(by_shortcut.get("gamma"), Some(Value::Float(0.5)));
    assert_eq!(
        Svr::params().gamma(Gamma::Auto).get("gamma"),
        Some(Value::Text("auto".into()))
    );
    // On a named polynomial it keeps the degree and coef0.
    let poly = NuSvcParams::default()
        .kernel(polynomial(2, 1.0, 0.5))
        .gamma(0.25);
    assert_eq!(
        poly,
        NuSvcParams::default().kernel(polynomial(2, 0.25, 0.5))
    );
    // A refused γ is refused by the check, as when set by name.
    assert!(matches!(
        Svc::params().gamma(-1.0).check(),
        Err(Error::InvalidParameter { ref name, .. }) if name == "gamma"
    ));
}
