//! The estimators the Python package offers: for each, scikit-learn's class name (its role,
//! which mixins the Python class takes, is margin-any's registry's), the params constructor
//! whose descriptors become the class's `__init__` parameters and defaults, and how to fit it.
//!
//! Parameter names are margin's, which are scikit-learn's, with two spellings changed for
//! Python: `seed` is `random_state` (scikit-learn's name for it) and `lambda`, a Python
//! keyword, is `lambda_`.

use std::sync::OnceLock;

use margin_any::registry;
use margin_any::{AnyModel, Capabilities};
use margin_core::fit::{FitObserved, Observer};
use margin_core::params::{ParamInfo, Params};
use margin_core::{Classes, Dataset, Error, Fit, Records, Result, Targets};
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
use margin_svm::{LinearSvc, OneClassSvm, Svc, Svr};
use margin_tree::{
    AdaBoostClassifier, DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier,
    GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor,
};

use crate::convert::Features;
use crate::interrupt::Job;

pub use margin_any::registry::Role;

/// Training data as the fit functions receive it.
pub struct Training<'a> {
    /// The features.
    pub x: Features<'a>,
    /// The targets: labels for a classifier, values for a regressor, none otherwise.
    pub y: Option<Target>,
    /// One weight per sample, if given.
    pub sample_weight: Option<Vec<f64>>,
    /// The features' names (a pandas DataFrame's columns), if known.
    pub feature_names: Option<Vec<String>>,
}

/// Targets as the fit functions receive them.
pub enum Target {
    /// Class labels.
    Labels(Vec<margin_core::Label>),
    /// Continuous values.
    Values(Vec<f64>),
}

/// Parameters by their margin names, as text ([`margin_core::params::Params::set`] reads it).
pub type Settings = [(String, String)];

/// Fits one estimator family.
trait Fitter: Send + Sync {
    /// The parameters described, with the constructor's values.
    fn describe(&self) -> Vec<ParamInfo>;
    /// The fit, ready to run ([`crate::interrupt::run`]): `settings` applied to the
    /// constructor's parameters and checked, the data in the form the family reads.
    fn prepare<'a>(&self, settings: &Settings, data: Training<'a>) -> Result<Job<'a>>;
}

/// How a family fitted on a dataset runs: plainly, or watched by an observer that stops its
/// solver when the caller is interrupted (see [`crate::interrupt`]).
type FitDataset<P, M> = fn(&P, &Dataset, &mut dyn Observer) -> Result<M>;

/// How a family fitted on records alone runs (see [`FitDataset`]).
type FitRecords<P, M> = fn(&P, &dyn Records, &mut dyn Observer) -> Result<M>;

/// A family fitted on a [`Dataset`] (targets, weights, feature names).
struct OnDataset<P: Fit<Dataset>> {
    make: fn() -> P,
    fit: FitDataset<P, P::Model>,
    /// Whether the fit runs on rayon's pool, to be left there when the caller is interrupted
    /// ([`Job::Pool`]), rather than on the calling thread ([`Job::Here`]).
    pool: bool,
}

/// A family fitted on the records alone (clustering, decomposition, scaling).
struct OnRecords<P, M> {
    make: fn() -> P,
    fit: FitRecords<P, M>,
}

/// A fit with no solver loop to observe: it runs to its end.
fn plain<P: Fit<Dataset>>(params: &P, data: &Dataset, _: &mut dyn Observer) -> Result<P::Model> {
    params.fit(data)
}

/// A fit whose solver reports each iteration to `observer`, which may stop it.
fn stoppable<P: FitObserved>(
    params: &P,
    data: &Dataset,
    observer: &mut dyn Observer,
) -> Result<P::Model> {
    params.fit_observed(data, observer)
}

/// [`plain`] on records.
fn plain_records<P, M>(params: &P, x: &dyn Records, _: &mut dyn Observer) -> Result<M>
where
    P: for<'r> Fit<dyn Records + 'r, Model = M>,
{
    params.fit(x)
}

/// [`stoppable`] on records.
fn stoppable_records<P, M>(params: &P, x: &dyn Records, observer: &mut dyn Observer) -> Result<M>
where
    P: for<'r> FitObserved<dyn Records + 'r> + for<'r> Fit<dyn Records + 'r, Model = M>,
{
    params.fit_observed(x, observer)
}

/// `make()` with every setting applied, in the order the parameters are declared (a parameter
/// comes after those that decide whether it is used), then checked as a whole.
fn configured<P: Params>(make: fn() -> P, settings: &Settings) -> Result<P> {
    let mut params = make();
    // An unknown name is refused with the list of the known ones.
    for (name, _) in settings {
        P::param(name)?;
    }
    for param in P::params() {
        if let Some((_, text)) = settings.iter().find(|(n, _)| n == param.name) {
            params.set(param.name, text)?;
        }
    }
    params.check()?;
    Ok(params)
}

impl<P> Fitter for OnDataset<P>
where
    P: Params + Fit<Dataset> + Send + Sync + 'static,
    P::Model: AnyModel + 'static,
{
    fn describe(&self) -> Vec<ParamInfo> {
        (self.make)().describe()
    }

    fn prepare<'a>(&self, settings: &Settings, data: Training<'a>) -> Result<Job<'a>> {
        let params = configured(self.make, settings)?;
        // The dataset is margin's copy of the caller's data, so the fit owns all it reads.
        let records = data.x.into_matrix()?;
        let targets = match data.y {
            Some(Target::Labels(labels)) => Targets::Classes(Classes::from_labels(&labels)?),
            Some(Target::Values(values)) => Targets::Values(values),
            // A one-class SVM learns from the features alone; its targets are never read.
            None => Targets::Values(vec![0.0; records.n_samples()]),
        };
        let mut dataset = Dataset::new(records, targets)?;
        if let Some(w) = data.sample_weight {
            dataset = dataset.with_sample_weights(w)?;
        }
        if let Some(names) = data.feature_names {
            dataset = dataset.with_feature_names(names)?;
        }
        let fit = self.fit;
        Ok(if self.pool {
            Job::Pool(Box::new(move || {
                Ok(Box::new(fit(&params, &dataset, &mut ())?) as Box<dyn AnyModel>)
            }))
        } else {
            Job::Here(Box::new(move |observer| {
                Ok(Box::new(fit(&params, &dataset, observer)?) as Box<dyn AnyModel>)
            }))
        })
    }
}

impl<P, M> Fitter for OnRecords<P, M>
where
    P: Params + for<'r> Fit<dyn Records + 'r, Model = M> + Send + Sync + 'static,
    M: AnyModel + 'static,
{
    fn describe(&self) -> Vec<ParamInfo> {
        (self.make)().describe()
    }

    fn prepare<'a>(&self, settings: &Settings, data: Training<'a>) -> Result<Job<'a>> {
        let params = configured(self.make, settings)?;
        if data.sample_weight.is_some() {
            return Err(Error::unsupported(
                "fit with sample_weight",
                "this estimator does not weight samples; leave sample_weight out",
            ));
        }
        // The caller's records, borrowed (no copy).
        let (x, fit) = (data.x, self.fit);
        Ok(Job::Here(Box::new(move |observer| {
            Ok(Box::new(fit(&params, x.records(), observer)?) as Box<dyn AnyModel>)
        })))
    }
}

/// One estimator the package offers.
pub struct Entry {
    /// scikit-learn's class name.
    pub class: &'static str,
    /// One line for the class's docstring.
    pub summary: &'static str,
    /// Which mixin.
    pub role: Role,
    /// The model-file kind its fitted models carry.
    pub kind: &'static str,
    /// What the fitted model can do (see [`Capabilities`]).
    pub methods: &'static [&'static str],
    /// Whether `fit` takes `sample_weight`.
    pub sample_weight: bool,
    /// The parameter that, when true, makes NaN a missing value the model handles (trees'
    /// `missing_values`, boosting's `allow_missing`) rather than bad input; none for models
    /// that refuse NaN.
    pub missing_values: Option<&'static str>,
    /// Whether the features must be non-negative (counts).
    pub positive_only: bool,
    /// Whether `transform` maps each feature to one output feature of the same meaning (the
    /// scalers), so the outputs keep the inputs' names.
    pub one_to_one: bool,
    /// Parameters the class fixes and does not show (`l1_ratio` is 1 for `Lasso`).
    pub fixed: &'static [&'static str],
    fitter: Box<dyn Fitter>,
}

impl Entry {
    fn new<M: ModelFile + AnyModel + Capabilities + 'static>(
        class: &'static str,
        summary: &'static str,
        fitter: Box<dyn Fitter>,
    ) -> Self {
        // The class's role is the registry's: the package cannot disagree with it.
        let role = registry::by_class(class)
            .unwrap_or_else(|| unreachable!("{class} is not in margin-any's registry"))
            .role;
        Entry {
            class,
            summary,
            role,
            kind: M::KIND,
            methods: M::METHODS,
            sample_weight: false,
            missing_values: None,
            positive_only: false,
            one_to_one: false,
            fixed: &[],
            fitter,
        }
    }

    /// An estimator fitted on a dataset, with no solver loop an interrupt can stop (its fit
    /// runs to its end); it takes sample weights unless [`Entry::unweighted`].
    fn on_dataset<P>(class: &'static str, summary: &'static str, make: fn() -> P) -> Self
    where
        P: Params + Fit<Dataset> + Send + Sync + 'static,
        P::Model: AnyModel + Capabilities + ModelFile + 'static,
    {
        Self::weighted(
            class,
            summary,
            OnDataset {
                make,
                fit: plain::<P>,
                pool: false,
            },
        )
    }

    /// An estimator fitted on a dataset by an iterative solver, which an interrupt stops at its
    /// next iteration. Only for families whose observed fit solves its problems as the plain
    /// fit does: those that solve one binary problem per class in parallel solve them in turn
    /// under an observer ([`margin_core::fit::solve_each`]), so they stay [`Entry::on_dataset`].
    fn stoppable<P>(class: &'static str, summary: &'static str, make: fn() -> P) -> Self
    where
        P: Params + FitObserved + Send + Sync + 'static,
        P::Model: AnyModel + Capabilities + ModelFile + 'static,
    {
        let fitter = OnDataset {
            make,
            fit: stoppable::<P>,
            pool: false,
        };
        Self::weighted(class, summary, fitter)
    }

    /// An estimator fitted on a dataset with no solver loop to observe, whose fit can run for
    /// long (the forests): on rayon's pool, so that an interrupted caller returns at once and
    /// leaves it to finish there (see [`crate::interrupt`]).
    fn on_pool<P>(class: &'static str, summary: &'static str, make: fn() -> P) -> Self
    where
        P: Params + Fit<Dataset> + Send + Sync + 'static,
        P::Model: AnyModel + Capabilities + ModelFile + 'static,
    {
        Self::weighted(
            class,
            summary,
            OnDataset {
                make,
                fit: plain::<P>,
                pool: true,
            },
        )
    }

    /// An estimator fitted on a dataset by `fitter`, which takes `sample_weight`.
    fn weighted<P>(class: &'static str, summary: &'static str, fitter: OnDataset<P>) -> Self
    where
        P: Params + Fit<Dataset> + Send + Sync + 'static,
        P::Model: AnyModel + Capabilities + ModelFile + 'static,
    {
        Entry {
            sample_weight: true,
            ..Entry::new::<P::Model>(class, summary, Box::new(fitter))
        }
    }

    /// An estimator fitted on records alone.
    fn on_records<P, M>(class: &'static str, summary: &'static str, make: fn() -> P) -> Self
    where
        P: Params + for<'r> Fit<dyn Records + 'r, Model = M> + Send + Sync + 'static,
        M: AnyModel + Capabilities + ModelFile + 'static,
    {
        let fitter = OnRecords {
            make,
            fit: plain_records::<P, M>,
        };
        Entry::new::<M>(class, summary, Box::new(fitter))
    }

    /// An estimator fitted on records alone by an iterative solver that an interrupt stops.
    fn stoppable_records<P, M>(class: &'static str, summary: &'static str, make: fn() -> P) -> Self
    where
        P: Params
            + for<'r> FitObserved<dyn Records + 'r>
            + for<'r> Fit<dyn Records + 'r, Model = M>
            + Send
            + Sync
            + 'static,
        M: AnyModel + Capabilities + ModelFile + 'static,
    {
        let fitter = OnRecords {
            make,
            fit: stoppable_records::<P, M>,
        };
        Entry::new::<M>(class, summary, Box::new(fitter))
    }

    fn unweighted(self) -> Self {
        Entry {
            sample_weight: false,
            ..self
        }
    }

    fn missing_values(self, switch: &'static str) -> Self {
        Entry {
            missing_values: Some(switch),
            ..self
        }
    }

    fn positive_only(self) -> Self {
        Entry {
            positive_only: true,
            ..self
        }
    }

    fn one_to_one(self) -> Self {
        Entry {
            one_to_one: true,
            ..self
        }
    }

    fn fixing(self, fixed: &'static [&'static str]) -> Self {
        Entry { fixed, ..self }
    }

    /// The parameters the Python class shows, under their Python names, with their defaults.
    pub fn params(&self) -> Vec<ParamInfo> {
        self.fitter
            .describe()
            .into_iter()
            .filter(|p| !self.fixed.contains(&p.name))
            .collect()
    }

    /// The fit, ready to run ([`crate::interrupt::run`]); `settings` are `(Python name,
    /// text)` pairs.
    pub fn prepare<'a>(&self, settings: &Settings, data: Training<'a>) -> Result<Job<'a>> {
        let margin_names: Vec<(String, String)> = settings
            .iter()
            .map(|(name, text)| (margin_name(name).to_owned(), text.clone()))
            .collect();
        if let Some((name, _)) = margin_names
            .iter()
            .find(|(n, _)| self.fixed.contains(&n.as_str()))
        {
            return Err(Error::invalid_parameter(
                "parameter name",
                name,
                format!("a parameter of {} (it fixes {name})", self.class),
            ));
        }
        self.fitter.prepare(&margin_names, data)
    }

    /// Whether a model of this entry's kind fitted with `stored` (its hyperparameters) is one
    /// of this class: the same parameters, and the fixed ones at this class's values.
    pub fn describes(&self, stored: &[ParamInfo]) -> bool {
        let own = self.fitter.describe();
        own.len() == stored.len()
            && own.iter().zip(stored).all(|(a, b)| {
                a.name == b.name && (!self.fixed.contains(&a.name) || a.value == b.value)
            })
    }
}

/// A margin parameter name as Python spells it.
pub fn python_name(name: &str) -> &str {
    match name {
        "seed" => "random_state",
        "lambda" => "lambda_",
        other => other,
    }
}

/// A Python parameter name as margin spells it.
fn margin_name(name: &str) -> &str {
    match name {
        "random_state" => "seed",
        "lambda_" => "lambda",
        other => other,
    }
}

/// Every estimator, in the order the package lists them.
pub fn registry() -> &'static [Entry] {
    static REGISTRY: OnceLock<Vec<Entry>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        vec![
            Entry::stoppable(
                "SVC",
                "C-support vector classification (LIBSVM's C-SVC, iteration for iteration).",
                Svc::params,
            ),
            Entry::stoppable(
                "NuSVC",
                "nu-support vector classification (LIBSVM's nu-SVC).",
                Svc::nu_params,
            )
            .unweighted(),
            Entry::stoppable(
                "SVR",
                "epsilon-support vector regression (LIBSVM's epsilon-SVR).",
                Svr::params,
            ),
            Entry::stoppable(
                "NuSVR",
                "nu-support vector regression (LIBSVM's nu-SVR).",
                Svr::nu_params,
            ),
            Entry::stoppable(
                "OneClassSVM",
                "One-class SVM for novelty detection (LIBSVM's one-class SVM).",
                OneClassSvm::params,
            )
            .unweighted(),
            Entry::on_dataset(
                "LinearSVC",
                "Linear SVM by dual coordinate descent (LIBLINEAR's solver) or Pegasos.",
                LinearSvc::params,
            ),
            Entry::stoppable(
                "LogisticRegression",
                "Logistic regression, binary or multinomial.",
                LogisticRegression::params,
            ),
            Entry::on_dataset(
                "Perceptron",
                "The perceptron rule on mistakes.",
                Perceptron::params,
            ),
            Entry::on_dataset(
                "KernelPerceptron",
                "The perceptron rule in the dual, with a kernel.",
                KernelPerceptron::params,
            ),
            Entry::stoppable(
                "LinearRegression",
                "Ordinary least squares.",
                LinearRegression::params,
            ),
            Entry::on_dataset("Ridge", "Least squares with an L2 penalty.", Ridge::params),
            Entry::stoppable(
                "Lasso",
                "Least squares with an L1 penalty, by coordinate descent.",
                ElasticNet::lasso_params,
            )
            .fixing(&["l1_ratio"]),
            Entry::stoppable(
                "ElasticNet",
                "Least squares with L1 and L2 penalties, by coordinate descent.",
                ElasticNet::params,
            ),
            Entry::on_dataset(
                "KernelRidge",
                "Kernel ridge regression.",
                KernelRidge::params,
            ),
            Entry::on_dataset("GaussianNB", "Gaussian naive Bayes.", GaussianNB::params),
            Entry::on_dataset(
                "MultinomialNB",
                "Multinomial naive Bayes for counts.",
                MultinomialNB::params,
            )
            .positive_only(),
            Entry::on_dataset(
                "BernoulliNB",
                "Bernoulli naive Bayes for binary features.",
                BernoulliNB::params,
            ),
            Entry::on_dataset(
                "KNeighborsClassifier",
                "k-nearest-neighbour vote.",
                KNeighborsClassifier::params,
            )
            .unweighted(),
            Entry::on_dataset(
                "KNeighborsRegressor",
                "k-nearest-neighbour mean.",
                KNeighborsRegressor::params,
            )
            .unweighted(),
            Entry::on_dataset(
                "DecisionTreeClassifier",
                "CART decision tree classifier.",
                DecisionTreeClassifier::params,
            )
            .missing_values("missing_values"),
            Entry::on_dataset(
                "DecisionTreeRegressor",
                "CART regression tree.",
                DecisionTreeRegressor::params,
            )
            .missing_values("missing_values"),
            Entry::on_pool(
                "RandomForestClassifier",
                "Random forest classifier.",
                RandomForestClassifier::params,
            )
            .missing_values("missing_values"),
            Entry::on_pool(
                "RandomForestRegressor",
                "Random forest regressor.",
                RandomForestRegressor::params,
            )
            .missing_values("missing_values"),
            Entry::on_dataset(
                "AdaBoostClassifier",
                "AdaBoost (SAMME) over decision trees.",
                AdaBoostClassifier::params,
            ),
            Entry::stoppable(
                "HistGradientBoostingClassifier",
                "Histogram gradient boosting for classification (log loss).",
                GradientBoostingClassifier::params,
            )
            .missing_values("allow_missing"),
            Entry::stoppable(
                "HistGradientBoostingRegressor",
                "Histogram gradient boosting for regression.",
                GradientBoostingRegressor::params,
            )
            .missing_values("allow_missing"),
            Entry::stoppable_records(
                "KMeans",
                "k-means clustering (Lloyd's or Elkan's algorithm).",
                KMeans::params,
            ),
            Entry::stoppable_records(
                "MiniBatchKMeans",
                "Mini-batch k-means.",
                MiniBatchKMeans::params,
            ),
            Entry::on_records("PCA", "Principal component analysis.", Pca::params),
            Entry::on_records(
                "StandardScaler",
                "Standardize features to zero mean and unit variance.",
                StandardScaler::params,
            )
            .one_to_one(),
            Entry::on_records(
                "MinMaxScaler",
                "Scale features to a range.",
                MinMaxScaler::params,
            )
            .one_to_one(),
            Entry::on_records(
                "PolynomialFeatures",
                "Polynomial and interaction features.",
                PolynomialFeatures::params,
            ),
            Entry::on_records(
                "Nystroem",
                "Kernel map approximated from landmark samples (Nystroem).",
                Nystroem::params,
            ),
            Entry::on_records(
                "RBFSampler",
                "Random Fourier features approximating the RBF kernel.",
                RandomFourierFeatures::params,
            ),
        ]
    })
}

/// The entry of Python class `class`.
pub fn by_class(class: &str) -> Result<&'static Entry> {
    registry().iter().find(|e| e.class == class).ok_or_else(|| {
        Error::invalid_parameter(
            "estimator",
            class,
            format!(
                "one of {}",
                registry()
                    .iter()
                    .map(|e| e.class)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}
