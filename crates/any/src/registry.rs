//! The one registry of estimators: each registered once, by its command-line name, its
//! scikit-learn class, its role and its params constructor; the CLI and the Python package
//! look estimators up here, and set their parameters through [`DynParams`], one rule for
//! every surface.
//!
//! ```
//! use margin_any::registry::{Role, estimator};
//! use margin_core::Dataset;
//!
//! let ridge = estimator("ridge").expect("registered");
//! assert_eq!((ridge.class, ridge.role), (Some("Ridge"), Role::Regressor));
//! let mut params = ridge.params();
//! params.set("alpha", "0.5")?;
//! let data = Dataset::regression(&[[0.0], [1.0], [2.0]], [0.0, 1.0, 2.0])?;
//! let fitted = params.fit(&data)?;
//! assert_eq!(fitted.model.kind(), params.kind());
//! # Ok::<(), margin_core::Error>(())
//! ```

use margin_core::params::{ParamInfo, Params, Value};
use margin_core::{Convergence, Dataset, Fit, Iterative, Matrix, Result};
use margin_io::ModelFile;

use margin_cluster::{KMeans, MiniBatchKMeans, Pca};
use margin_kernels::{Nystroem, RandomFourierFeatures};
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};
use margin_linear::{
    ElasticNet, KernelPerceptron, KernelRidge, LinearRegression, LogisticRegression, Perceptron,
    Ridge,
};
use margin_neighbors::{KNeighborsClassifier, KNeighborsRegressor};
use margin_preprocessing::{MinMaxScaler, PolynomialFeatures, StandardScaler};
use margin_svm::{LinearSolver, LinearSvc, OneClassSvm, Svc, SvmLoss, Svr};
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
};

use crate::AnyModel;

/// What an estimator is for: what it fits on and what its model gives (scikit-learn's mixin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Predicts classes (`ClassifierMixin`).
    Classifier,
    /// Predicts values (`RegressorMixin`).
    Regressor,
    /// Fitted on features alone; predicts +1 inlier, -1 outlier (`OutlierMixin`).
    Outlier,
    /// Fitted on features alone; predicts cluster indices (`ClusterMixin`).
    Clusterer,
    /// Fitted on features alone; transforms them (`TransformerMixin`).
    Transformer,
}

impl Role {
    /// The role's name: `classifier`, `regressor`, `outlier`, `clusterer` or `transformer`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Classifier => "classifier",
            Role::Regressor => "regressor",
            Role::Outlier => "outlier",
            Role::Clusterer => "clusterer",
            Role::Transformer => "transformer",
        }
    }
}

/// A params struct, whatever its type: described, and set by name from text (every
/// [`Params`] type is one).
pub trait DynParams: Send + Sync {
    /// Every parameter described with its value, in declaration order (a parameter after those
    /// that decide whether it is used).
    fn describe(&self) -> Vec<ParamInfo>;
    /// Sets parameter `name` (scikit-learn's name or the command-line spelling) from text;
    /// see [`Params::set`].
    fn set(&mut self, name: &str, text: &str) -> Result<()>;
    /// The value of parameter `name`, if there is one.
    fn get(&self, name: &str) -> Option<Value>;
    /// The first of `given` (names or command-line spellings) that this configuration does not
    /// use, described; see [`Params::first_unused`].
    fn first_unused(&self, given: &[&str]) -> Option<ParamInfo>;
    /// Checks every parameter and the rules that tie them together; see [`Params::check`].
    fn check(&self) -> Result<()>;
}

impl<P: Params + Send + Sync> DynParams for P {
    fn describe(&self) -> Vec<ParamInfo> {
        Params::describe(self)
    }
    fn set(&mut self, name: &str, text: &str) -> Result<()> {
        Params::set(self, name, text)
    }
    fn get(&self, name: &str) -> Option<Value> {
        Params::get(self, name)
    }
    fn first_unused(&self, given: &[&str]) -> Option<ParamInfo> {
        let param = Params::first_unused(self, given.iter().copied())?;
        Params::describe(self)
            .into_iter()
            .find(|info| info.name == param.name)
    }
    fn check(&self) -> Result<()> {
        Params::check(self)
    }
}

/// A fitted model, and for one fitted by an iterative solver how its runs ended.
pub struct Fitted {
    /// The model.
    pub model: Box<dyn AnyModel>,
    /// How the solver runs ended; `None` for a fit without an iteration limit.
    pub convergence: Option<Convergence>,
}

/// An estimator's hyperparameters, whatever their type, ready to fit.
pub trait AnyParams: DynParams {
    /// The kind of model file the fitted model writes.
    fn kind(&self) -> &'static str;
    /// Fits on `data` (a clusterer or transformer on its records alone).
    ///
    /// # Errors
    /// As the estimator's own `fit`: invalid parameters, bad data, memory.
    fn fit(&self, data: &Dataset) -> Result<Fitted>;
}

/// What an estimator's fit reads: the dataset, or its records alone (clusterers, transformers).
trait Input {
    /// The part of `data` the fit reads.
    fn of(data: &Dataset) -> &Self;
}

impl Input for Dataset {
    fn of(data: &Dataset) -> &Self {
        data
    }
}

impl Input for Matrix {
    fn of(data: &Dataset) -> &Self {
        &data.records
    }
}

/// Hyperparameters of type `P`, fitted on input `I`, with what the fitted model says of its
/// solver runs.
struct Typed<P: Fit<I>, I: ?Sized> {
    params: P,
    report: fn(&P::Model) -> Option<Convergence>,
}

impl<P, I> DynParams for Typed<P, I>
where
    P: Params + Fit<I> + Send + Sync,
    I: ?Sized,
{
    fn describe(&self) -> Vec<ParamInfo> {
        self.params.describe()
    }
    fn set(&mut self, name: &str, text: &str) -> Result<()> {
        self.params.set(name, text)
    }
    fn get(&self, name: &str) -> Option<Value> {
        self.params.get(name)
    }
    fn first_unused(&self, given: &[&str]) -> Option<ParamInfo> {
        DynParams::first_unused(&self.params, given)
    }
    fn check(&self) -> Result<()> {
        self.params.check()
    }
}

impl<P, I> AnyParams for Typed<P, I>
where
    P: Params + Fit<I> + Send + Sync,
    P::Model: ModelFile + AnyModel + 'static,
    I: Input + ?Sized,
{
    fn kind(&self) -> &'static str {
        <P::Model as ModelFile>::KIND
    }
    fn fit(&self, data: &Dataset) -> Result<Fitted> {
        let model = self.params.fit(I::of(data))?;
        Ok(Fitted {
            convergence: (self.report)(&model),
            model: Box::new(model),
        })
    }
}

/// Boxes `params`, fitted on the dataset, for a model without an iteration limit.
fn on_dataset<P>(params: P) -> Box<dyn AnyParams>
where
    P: Params + Fit<Dataset> + Send + Sync,
    P::Model: ModelFile + AnyModel + 'static,
{
    Box::new(Typed::<P, Dataset> {
        params,
        report: |_| None,
    })
}

/// Boxes `params`, fitted on the dataset by an iterative solver.
fn iterative<P>(params: P) -> Box<dyn AnyParams>
where
    P: Params + Fit<Dataset> + Send + Sync,
    P::Model: ModelFile + AnyModel + Iterative + 'static,
{
    Box::new(Typed::<P, Dataset> {
        params,
        report: |model| Some(model.convergence()),
    })
}

/// Boxes `params`, fitted on the records alone, for a model without an iteration limit.
fn on_records<P>(params: P) -> Box<dyn AnyParams>
where
    P: Params + Fit<Matrix> + Send + Sync,
    P::Model: ModelFile + AnyModel + 'static,
{
    Box::new(Typed::<P, Matrix> {
        params,
        report: |_| None,
    })
}

/// Boxes `params`, fitted on the records alone by an iterative solver.
fn iterative_on_records<P>(params: P) -> Box<dyn AnyParams>
where
    P: Params + Fit<Matrix> + Send + Sync,
    P::Model: ModelFile + AnyModel + Iterative + 'static,
{
    Box::new(Typed::<P, Matrix> {
        params,
        report: |model| Some(model.convergence()),
    })
}

/// One estimator: a params constructor under its names.
pub struct Estimator {
    /// Its command-line name (`margin train NAME`), unique.
    pub name: &'static str,
    /// The Python class for it (scikit-learn's name), unique; none for an estimator only the
    /// command line offers.
    pub class: Option<&'static str>,
    /// What it is for.
    pub role: Role,
    /// Its hyperparameters at their defaults, with the way they fit.
    make: fn() -> Box<dyn AnyParams>,
}

impl Estimator {
    /// Registers an estimator: command-line name, Python class, role, and its params boxed by
    /// the function saying how they fit.
    const fn new(
        name: &'static str,
        class: Option<&'static str>,
        role: Role,
        make: fn() -> Box<dyn AnyParams>,
    ) -> Self {
        Estimator {
            name,
            class,
            role,
            make,
        }
    }

    /// Its hyperparameters at their defaults, ready to be set and fitted.
    pub fn params(&self) -> Box<dyn AnyParams> {
        (self.make)()
    }

    /// The kind of model file its models write.
    pub fn kind(&self) -> &'static str {
        self.params().kind()
    }
}

/// Every estimator, family by family: the order `margin train --help` and the Python package
/// list them in.
static ESTIMATORS: &[Estimator] = {
    use Role::*;
    &[
        Estimator::new("svc", Some("SVC"), Classifier, || iterative(Svc::params())),
        Estimator::new("svr", Some("SVR"), Regressor, || iterative(Svr::params())),
        Estimator::new("nu-svc", Some("NuSVC"), Classifier, || {
            iterative(Svc::nu_params())
        }),
        Estimator::new("nu-svr", Some("NuSVR"), Regressor, || {
            iterative(Svr::nu_params())
        }),
        Estimator::new("one-class-svm", Some("OneClassSVM"), Outlier, || {
            iterative(OneClassSvm::params())
        }),
        Estimator::new("linear-svc", Some("LinearSVC"), Classifier, || {
            iterative(LinearSvc::params())
        }),
        Estimator::new("pegasos", None, Classifier, || iterative(pegasos_params())),
        Estimator::new("logistic", Some("LogisticRegression"), Classifier, || {
            iterative(LogisticRegression::params())
        }),
        Estimator::new("lasso", Some("Lasso"), Regressor, || {
            iterative(ElasticNet::lasso_params())
        }),
        Estimator::new("elastic-net", Some("ElasticNet"), Regressor, || {
            iterative(ElasticNet::params())
        }),
        Estimator::new("multinomial-nb", Some("MultinomialNB"), Classifier, || {
            on_dataset(MultinomialNB::params())
        }),
        Estimator::new("bernoulli-nb", Some("BernoulliNB"), Classifier, || {
            on_dataset(BernoulliNB::params())
        }),
        Estimator::new("gaussian-nb", Some("GaussianNB"), Classifier, || {
            on_dataset(GaussianNB::params())
        }),
        Estimator::new(
            "knn-classifier",
            Some("KNeighborsClassifier"),
            Classifier,
            || on_dataset(KNeighborsClassifier::params()),
        ),
        Estimator::new(
            "knn-regressor",
            Some("KNeighborsRegressor"),
            Regressor,
            || on_dataset(KNeighborsRegressor::params()),
        ),
        Estimator::new("linear", Some("LinearRegression"), Regressor, || {
            iterative(LinearRegression::params())
        }),
        Estimator::new("ridge", Some("Ridge"), Regressor, || {
            on_dataset(Ridge::params())
        }),
        Estimator::new("kernel-ridge", Some("KernelRidge"), Regressor, || {
            on_dataset(KernelRidge::params())
        }),
        Estimator::new("perceptron", Some("Perceptron"), Classifier, || {
            iterative(Perceptron::params())
        }),
        Estimator::new(
            "kernel-perceptron",
            Some("KernelPerceptron"),
            Classifier,
            || iterative(KernelPerceptron::params()),
        ),
        Estimator::new("tree", Some("DecisionTreeClassifier"), Classifier, || {
            on_dataset(DecisionTreeClassifier::params())
        }),
        Estimator::new(
            "tree-regressor",
            Some("DecisionTreeRegressor"),
            Regressor,
            || on_dataset(DecisionTreeRegressor::params()),
        ),
        Estimator::new("forest", Some("RandomForestClassifier"), Classifier, || {
            on_dataset(RandomForestClassifier::params())
        }),
        Estimator::new(
            "forest-regressor",
            Some("RandomForestRegressor"),
            Regressor,
            || on_dataset(RandomForestRegressor::params()),
        ),
        Estimator::new("adaboost", Some("AdaBoostClassifier"), Classifier, || {
            on_dataset(AdaBoostClassifier::params())
        }),
        Estimator::new(
            "gradient-boosting",
            Some("HistGradientBoostingClassifier"),
            Classifier,
            || iterative(GradientBoostingClassifier::params()),
        ),
        Estimator::new(
            "gradient-boosting-regressor",
            Some("HistGradientBoostingRegressor"),
            Regressor,
            || iterative(GradientBoostingRegressor::params()),
        ),
        Estimator::new("kmeans", Some("KMeans"), Clusterer, || {
            iterative_on_records(KMeans::params())
        }),
        Estimator::new(
            "minibatch-kmeans",
            Some("MiniBatchKMeans"),
            Clusterer,
            || iterative_on_records(MiniBatchKMeans::params()),
        ),
        Estimator::new(
            "pca",
            Some("PCA"),
            Transformer,
            || on_records(Pca::params()),
        ),
        Estimator::new(
            "standard-scaler",
            Some("StandardScaler"),
            Transformer,
            || on_records(StandardScaler::params()),
        ),
        Estimator::new("min-max-scaler", Some("MinMaxScaler"), Transformer, || {
            on_records(MinMaxScaler::params())
        }),
        Estimator::new(
            "polynomial-features",
            Some("PolynomialFeatures"),
            Transformer,
            || on_records(PolynomialFeatures::params()),
        ),
        Estimator::new("nystroem", Some("Nystroem"), Transformer, || {
            on_records(Nystroem::params())
        }),
        Estimator::new(
            "random-fourier-features",
            Some("RBFSampler"),
            Transformer,
            || on_records(RandomFourierFeatures::params()),
        ),
    ]
};

/// The `pegasos` estimator: LinearSvc's parameters, starting from the hinge loss and the
/// Pegasos solver.
pub fn pegasos_params() -> margin_svm::LinearSvcParams {
    LinearSvc::params()
        .loss(SvmLoss::Hinge)
        .solver(LinearSolver::pegasos())
}

/// Every registered estimator.
pub fn estimators() -> &'static [Estimator] {
    ESTIMATORS
}

/// The estimator called `name` on the command line.
pub fn estimator(name: &str) -> Option<&'static Estimator> {
    ESTIMATORS.iter().find(|e| e.name == name)
}

/// The estimator whose scikit-learn class is `class`.
pub fn by_class(class: &str) -> Option<&'static Estimator> {
    ESTIMATORS.iter().find(|e| e.class == Some(class))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and classes are unique, and every model-file kind [`crate::load`] reads is some
    /// estimator's.
    #[test]
    fn names_and_classes_are_unique_and_every_kind_is_fitted_by_one() {
        let mut names: Vec<&str> = ESTIMATORS.iter().map(|e| e.name).collect();
        let mut classes: Vec<&str> = ESTIMATORS.iter().filter_map(|e| e.class).collect();
        let (n, n_classes) = (names.len(), classes.len());
        names.sort_unstable();
        names.dedup();
        classes.sort_unstable();
        classes.dedup();
        assert_eq!((names.len(), classes.len()), (n, n_classes));
        for kind in crate::kinds() {
            assert!(
                ESTIMATORS.iter().any(|e| e.kind() == kind),
                "no estimator fits {kind}"
            );
        }
    }

    /// What a model predicts agrees with the role its estimator is registered under.
    #[test]
    fn roles_agree_with_what_the_models_can_do() {
        // Two classes of 30 samples each, apart along the first feature.
        let rows: Vec<[f64; 2]> = (0..60)
            .map(|i| {
                [
                    f64::from(i / 30) + f64::from(i % 7) / 10.0,
                    f64::from(i % 5) / 4.0,
                ]
            })
            .collect();
        let labels: Vec<f64> = (0..60).map(|i| f64::from(i / 30)).collect();
        let data = Dataset::classification(&rows, labels).unwrap();
        for e in ESTIMATORS {
            let mut params = e.params();
            // Small settings so that every estimator fits six samples.
            for (name, value) in [
                ("n_clusters", "2"),
                ("n_neighbors", "2"),
                ("n_components", "2"),
            ] {
                if params.get(name).is_some() {
                    params.set(name, value).unwrap();
                }
            }
            let fitted = params
                .fit(&data)
                .unwrap_or_else(|err| panic!("{}: {err}", e.name));
            let methods = fitted.model.methods();
            let gives = match e.role {
                Role::Classifier => "classes",
                Role::Regressor => "values",
                Role::Outlier => "outliers",
                Role::Clusterer => "clusters",
                Role::Transformer => "transform",
            };
            assert!(methods.contains(&gives), "{}: {methods:?}", e.name);
            assert_eq!(fitted.model.kind(), e.kind(), "{}", e.name);
        }
    }
}
