//! The params structs as data: each one's descriptions pass the shared checks in every
//! configuration, its defaults are scikit-learn's, and setting parameters by name is checked
//! and independent of the order.

use margin_core::params::{Params, Value};
use margin_core::{ClassWeight, Error, Fit, Label};
use margin_io::datasets;
use margin_linear::{
    BernoulliNBParams, ElasticNet, ElasticNetParams, GaussianNBParams, KernelPerceptronParams,
    KernelRidgeParams, LinearRegressionParams, LogisticRegression, LogisticRegressionParams,
    LogisticSolver, LstsqSolver, MultinomialNBParams, Penalty, PerceptronParams, RidgeParams,
    RidgeSolver,
};
use margin_testing::battery::check_params;

use Value::{Bool, Float, Int, Text};

/// One row of a defaults table: the parameter, margin's default, and where margin's default
/// is not scikit-learn 1.9's (or scikit-learn has no such parameter), why; empty when it is
/// scikit-learn's documented default.
type Row = (&'static str, Value, &'static str);

/// Asserts that `P`'s parameters and defaults are exactly the table's, in order.
fn defaults_are<P: Params + Default>(table: &[Row]) {
    let expected: Vec<(&str, Value)> = table.iter().map(|(n, v, _)| (*n, v.clone())).collect();
    assert_eq!(P::defaults(), expected, "{}", std::any::type_name::<P>());
}

fn text(s: &str) -> Value {
    Text(s.to_owned())
}

#[test]
fn defaults_are_scikit_learns() {
    // From scikit-learn 1.9's API reference (sklearn.linear_model.LogisticRegression, …).
    defaults_are::<LogisticRegressionParams>(&[
        (
            "penalty",
            text("l2"),
            "scikit-learn 1.9 deprecates penalty for l1_ratio and C=inf; margin keeps 1.7's",
        ),
        (
            "l1_ratio",
            Value::None,
            "1.9's default is 0.0 (it chooses the penalty there); margin's, as 1.7's, is none",
        ),
        ("C", Float(1.0), ""),
        ("solver", text("lbfgs"), ""),
        (
            "batch_size",
            Int(1),
            "margin's SGD solver (scikit-learn's is SGDClassifier)",
        ),
        ("eta0", Float(0.1), "margin's SGD solver"),
        ("tol", Float(1e-4), ""),
        ("max_iter", Int(100), ""),
        ("fit_intercept", Bool(true), ""),
        ("class_weight", Value::None, ""),
        (
            "seed",
            Int(0),
            "random_state=None; margin is deterministic by default",
        ),
    ]);
    defaults_are::<GaussianNBParams>(&[
        ("priors", Value::None, ""),
        ("var_smoothing", Float(1e-9), ""),
    ]);
    defaults_are::<MultinomialNBParams>(&[
        ("alpha", Float(1.0), ""),
        ("fit_prior", Bool(true), ""),
        ("class_prior", Value::None, ""),
    ]);
    defaults_are::<BernoulliNBParams>(&[
        ("alpha", Float(1.0), ""),
        ("fit_prior", Bool(true), ""),
        ("class_prior", Value::None, ""),
        ("binarize", Float(0.0), ""),
    ]);
    defaults_are::<PerceptronParams>(&[
        ("max_iter", Int(1000), ""),
        ("shuffle", Bool(true), ""),
        ("seed", Int(0), "scikit-learn's random_state=0"),
        ("eta0", Float(1.0), ""),
        ("fit_intercept", Bool(true), ""),
    ]);
    // scikit-learn has no kernel perceptron: its Perceptron's names and defaults.
    defaults_are::<KernelPerceptronParams>(&[
        ("kernel", text("poly"), "margin's own: (x·z + 1)²"),
        ("degree", Int(2), ""),
        ("gamma", Float(1.0), ""),
        ("coef0", Float(1.0), ""),
        ("max_iter", Int(1000), ""),
        ("shuffle", Bool(true), ""),
        ("seed", Int(0), ""),
        ("fit_intercept", Bool(true), ""),
        ("gram_budget_mb", Float(200.0), "margin's own"),
    ]);
    defaults_are::<LinearRegressionParams>(&[
        ("fit_intercept", Bool(true), ""),
        (
            "solver",
            text("qr"),
            "margin's own (scikit-learn calls scipy's lstsq)",
        ),
        ("max_iter", Int(100_000), "margin's gradient descent"),
        (
            "tol",
            Float(1e-10),
            "1e-6 there bounds lsqr on sparse data; here gradient descent",
        ),
    ]);
    defaults_are::<RidgeParams>(&[
        ("alpha", Float(1.0), ""),
        ("fit_intercept", Bool(true), ""),
        (
            "solver",
            text("cholesky"),
            "scikit-learn's auto picks cholesky for dense data",
        ),
    ]);
    defaults_are::<KernelRidgeParams>(&[
        ("alpha", Float(1.0), ""),
        ("kernel", text("linear"), ""),
        ("degree", Int(3), ""),
        (
            "gamma",
            text("auto"),
            "scikit-learn's gamma=None means 1 / n_features",
        ),
        ("coef0", Float(1.0), ""),
    ]);
    defaults_are::<ElasticNetParams>(&[
        ("alpha", Float(1.0), ""),
        ("l1_ratio", Float(0.5), ""),
        ("fit_intercept", Bool(true), ""),
        ("tol", Float(1e-4), ""),
        ("max_iter", Int(1000), ""),
    ]);
    // Lasso is the elastic net with l1_ratio 1.
    assert_eq!(ElasticNet::lasso_params().get("l1_ratio"), Some(Float(1.0)));
}

#[test]
fn every_configuration_passes_the_params_checks() {
    let logistic = LogisticRegression::params;
    for p in [
        logistic(),
        logistic().penalty(Penalty::None),
        logistic()
            .penalty(Penalty::L1)
            .solver(LogisticSolver::GradientDescent),
        logistic()
            .penalty(Penalty::ElasticNet { l1_ratio: 0.3 })
            .solver(LogisticSolver::Sgd {
                batch_size: 8,
                eta0: 0.05,
            }),
        logistic().solver(LogisticSolver::Newton),
        logistic().class_weight(ClassWeight::Balanced),
        logistic().class_weight(ClassWeight::Given(vec![
            (Label::Number(1.0), 2.0),
            (Label::Text("b".into()), 0.5),
        ])),
    ] {
        check_params(&p);
    }
    check_params(&GaussianNBParams::default());
    check_params(&GaussianNBParams::default().priors(vec![0.25, 0.75]));
    check_params(&MultinomialNBParams::default());
    check_params(&MultinomialNBParams::default().class_prior(vec![0.1, 0.2, 0.7]));
    check_params(&BernoulliNBParams::default());
    check_params(&BernoulliNBParams::default().binarize(None));
    check_params(
        &BernoulliNBParams::default()
            .binarize(Some(0.5))
            .class_prior(vec![0.5, 0.5]),
    );
    check_params(&PerceptronParams::default());
    check_params(&PerceptronParams::default().shuffle(false));
    check_params(&KernelPerceptronParams::default());
    check_params(&KernelPerceptronParams::default().shuffle(false));
    check_params(&LinearRegressionParams::default());
    for solver in [
        LstsqSolver::Svd,
        LstsqSolver::NormalEquations,
        LstsqSolver::GradientDescent,
    ] {
        check_params(&LinearRegressionParams::default().solver(solver));
    }
    check_params(&RidgeParams::default());
    check_params(&RidgeParams::default().solver(RidgeSolver::Svd));
    check_params(&KernelRidgeParams::default());
    check_params(&ElasticNetParams::default());
    check_params(&ElasticNet::lasso_params());
}

#[test]
fn logistic_penalty_and_solver_set_by_name_in_any_order() {
    let built = LogisticRegression::params()
        .penalty(Penalty::ElasticNet { l1_ratio: 0.25 })
        .solver(LogisticSolver::Sgd {
            batch_size: 4,
            eta0: 0.5,
        });
    let settings = [
        ("l1_ratio", "0.25"),
        ("penalty", "elasticnet"),
        ("eta0", "0.5"),
        ("batch_size", "4"),
        ("solver", "sgd"),
    ];
    let mut forward = LogisticRegression::params();
    for (name, value) in settings {
        forward.set(name, value).unwrap();
    }
    let mut backward = LogisticRegression::params();
    for (name, value) in settings.iter().rev() {
        backward.set(name, value).unwrap();
    }
    assert_eq!(forward, built);
    assert_eq!(backward, built);
    assert!(built.check().is_ok());
    // Aliases the command line accepted before.
    let mut p = LogisticRegression::params();
    p.set("solver", "newton-cholesky").unwrap();
    assert_eq!(
        p,
        LogisticRegression::params().solver(LogisticSolver::Newton)
    );
    p.set("solver", "gradient-descent").unwrap();
    p.set("penalty", "elastic-net").unwrap();
    assert_eq!(p.get("penalty"), Some(text("elasticnet")));
    assert_eq!(p.get("solver"), Some(text("gd")));
}

/// The name of the parameter `fit` refuses, or a panic.
fn refused<F: Fit>(params: &F) -> (String, String) {
    let heart = datasets::heart_scale().unwrap();
    match params.fit(&heart) {
        Err(Error::InvalidParameter { name, expected, .. }) => (name, expected),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("fitted"),
    }
}

#[test]
fn logistic_rules_that_tie_parameters_together_are_checked_at_fit() {
    let mut p = LogisticRegression::params();
    p.set("penalty", "elasticnet").unwrap();
    assert_eq!(refused(&p).0, "l1_ratio", "an elastic net needs l1_ratio");
    let mut p = LogisticRegression::params();
    p.set("l1_ratio", "0.5").unwrap();
    assert_eq!(refused(&p).0, "l1_ratio", "l1_ratio goes with elasticnet");
    // SGD's step and batch are read with SGD only; their values do not block other solvers
    // (a parameter file lists every parameter; the command line refuses flags a
    // configuration does not use through `applies`).
    let mut p = LogisticRegression::params();
    p.set("eta0", "0.5").unwrap();
    p.set("batch_size", "3").unwrap();
    assert!(p.check().is_ok());
    assert!(!(LogisticRegressionParams::param("eta0").unwrap().used)(&p));
    let mut p = LogisticRegression::params();
    p.set("penalty", "l1").unwrap();
    assert_eq!(refused(&p).0, "penalty", "L1 needs a descent solver");
    p.set("solver", "gd").unwrap();
    assert!(p.check().is_ok());
    // Every parameter set back from its own value, as a parameter file does, passes.
    for configured in [
        LogisticRegression::params(),
        LogisticRegression::params()
            .penalty(Penalty::ElasticNet { l1_ratio: 0.5 })
            .solver(LogisticSolver::Sgd {
                batch_size: 2,
                eta0: 1.0,
            }),
    ] {
        let mut q = LogisticRegression::params();
        for (name, value) in configured.values() {
            q.set(name, &value.to_string()).unwrap();
        }
        assert_eq!(q, configured);
        assert!(q.check().is_ok());
    }
}

#[test]
fn refused_values_name_the_parameter_and_keep_the_old_value() {
    let mut p = LogisticRegression::params();
    for (name, value) in [
        ("C", "0"),
        ("C", "nan"),
        ("tol", "-1"),
        ("max_iter", "0"),
        ("l1_ratio", "1.5"),
        ("batch_size", "0"),
        ("eta0", "inf"),
        ("class_weight", "1:-2"),
        ("penalty", "l3"),
        ("solver", "saga"),
    ] {
        match p.set(name, value) {
            Err(Error::InvalidParameter {
                name: n, value: v, ..
            }) => {
                assert_eq!((n.as_str(), v.as_str()), (name, value));
            }
            other => panic!("{name}={value}: {other:?}"),
        }
    }
    assert_eq!(p, LogisticRegression::params());

    let mut nb = GaussianNBParams::default();
    assert!(nb.set("priors", "0.5,0.6").is_err());
    assert!(nb.set("priors", "0.5,x").is_err());
    nb.set("priors", "0.25,0.75").unwrap();
    assert_eq!(nb, GaussianNBParams::default().priors(vec![0.25, 0.75]));
    nb.set("priors", "none").unwrap();
    assert_eq!(nb, GaussianNBParams::default());

    let mut b = BernoulliNBParams::default();
    assert!(b.set("binarize", "inf").is_err());
    b.set("binarize", "none").unwrap();
    assert_eq!(b, BernoulliNBParams::default().binarize(None));
    assert!(MultinomialNBParams::default().set("alpha", "-1").is_err());
    assert!(PerceptronParams::default().set("eta0", "0").is_err());
    assert!(PerceptronParams::default().set("max_iter", "0").is_err());
    assert!(
        KernelPerceptronParams::default()
            .set("gram_budget_mb", "-1")
            .is_err()
    );
    assert!(RidgeParams::default().set("alpha", "-0.5").is_err());
    assert!(RidgeParams::default().set("solver", "lsqr").is_err());
    assert!(KernelRidgeParams::default().set("alpha", "inf").is_err());
    assert!(ElasticNetParams::default().set("l1_ratio", "2").is_err());
    assert!(LinearRegressionParams::default().set("tol", "-1").is_err());
}

#[test]
fn priors_per_class_are_checked_against_the_data() {
    // heart_scale has two classes: three priors are refused when fitting, not when set.
    let mut nb = GaussianNBParams::default();
    nb.set("priors", "0.2,0.3,0.5").unwrap();
    let (name, expected) = refused(&nb);
    assert_eq!(name, "priors");
    assert!(expected.contains("one prior per class (2"), "{expected}");
}

#[test]
fn ridge_paths_check_every_alpha_as_the_alpha_parameter() {
    let heart = datasets::heart_scale().unwrap();
    match RidgeParams::default().fit_path(&heart, &[1.0, -1.0]) {
        Err(Error::InvalidParameter { name, value, .. }) => {
            assert_eq!((name.as_str(), value.as_str()), ("alpha", "-1.0"));
        }
        other => panic!("{other:?}"),
    }
}

/// The kernel models' kernels by name: the four parameters set by text give the same fitted
/// model as the kernel given whole, whatever order they are set in, and the defaults are the
/// documented kernels.
#[test]
fn kernel_models_take_their_kernel_by_name() {
    use margin_kernels::{Gamma, KernelChoice, Polynomial, Rbf, Sigmoid};
    let data = datasets::housing_scale().unwrap();
    let d = data.n_features() as f64;

    // Kernel ridge: RBF with gamma auto is γ = 1 / d.
    let mut by_name = KernelRidgeParams::default();
    by_name.set("gamma", "auto").unwrap();
    by_name.set("kernel", "rbf").unwrap();
    let whole = KernelRidgeParams::default().kernel(Rbf::with_gamma(1.0 / d).unwrap());
    let (a, b) = (by_name.fit(&data).unwrap(), whole.fit(&data).unwrap());
    assert_eq!(a.kernel(), b.kernel());
    assert_eq!(a.dual_coef(), b.dual_coef());
    // The sigmoid is scikit-learn's too; coef0 keeps its default 1 when not set.
    let mut sigmoid = KernelRidgeParams::default();
    sigmoid.set("kernel", "sigmoid").unwrap();
    sigmoid.set("gamma", "0.01").unwrap();
    let expected = KernelRidgeParams::default().kernel(KernelChoice::Sigmoid {
        gamma: Gamma::Value(0.01),
        coef0: 1.0,
    });
    assert_eq!(sigmoid, expected);
    assert_eq!(
        sigmoid.fit(&data).unwrap().kernel(),
        &Sigmoid::with_gamma(0.01)
            .unwrap()
            .with_coef0(1.0)
            .unwrap()
            .into()
    );
    check_params(&sigmoid);

    // The kernel perceptron's default is (x·z + 1)², as before the kernel had names.
    let heart = datasets::heart_scale().unwrap();
    let default = KernelPerceptronParams::default()
        .max_iter(3)
        .fit(&heart)
        .unwrap();
    assert_eq!(
        default.kernel(),
        &Polynomial::with_degree(2)
            .unwrap()
            .with_gamma(1.0)
            .unwrap()
            .with_coef0(1.0)
            .unwrap()
            .into()
    );
    let mut rbf = KernelPerceptronParams::default().max_iter(3);
    rbf.set("kernel", "rbf").unwrap();
    rbf.set("gamma", "scale").unwrap();
    let scale = Gamma::Scale.resolve(&heart.records).unwrap();
    let fitted = rbf.fit(&heart).unwrap();
    assert_eq!(fitted.kernel(), &Rbf::with_gamma(scale).unwrap().into());
    // A parameter the kernel does not read is reported as unused.
    let unused: Vec<_> = KernelPerceptronParams::params()
        .iter()
        .filter(|p| !(p.used)(&rbf))
        .map(|p| p.name)
        .collect();
    assert_eq!(unused, ["degree", "coef0"]);
}
