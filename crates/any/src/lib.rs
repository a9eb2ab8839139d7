//! # margin-any: any fitted model behind one trait
//!
//! Any fitted model behind one object-safe trait, [`AnyModel`], and [`load`], which reads any
//! model file into it: the one place code that handles every model kind (the Python package,
//! margin-datafusion's scoring functions) asks what a model can do. Each model type states
//! what `predict` gives (classes, values, clusters or ±1 outliers), whether it has
//! `decision_function`, `predict_proba` and `transform`, and which fitted attributes it shows,
//! under scikit-learn's names. The [`registry`] lists every estimator once (command-line name,
//! scikit-learn class, role, parameters) and fits it from parameters given as text.
//!
//! ```
//! use margin_any::Predicted;
//! use margin_core::{Dataset, Fit};
//! use margin_io::ModelFile;
//! use margin_linear::naive_bayes::GaussianNB;
//!
//! let data = Dataset::classification(&[[0.0], [0.2], [1.0], [1.2]], ["low", "low", "high", "high"])?;
//! let bytes = GaussianNB::params().fit(&data)?.to_bytes()?;
//!
//! let model = margin_any::load(&bytes)?; // whatever kind the file holds
//! assert_eq!(model.kind(), "gaussian-nb");
//! let Predicted::Classes(k) = model.predict(&data.records)? else { unreachable!() };
//! assert_eq!(model.classes()[k[2] as usize], "high");
//! assert_eq!(model.predict_proba(&data.records)?.ncols(), 2);
//! assert!(model.transform(&data.records).is_err()); // naive Bayes has no transform
//! # Ok::<(), margin_core::Error>(())
//! ```

#![forbid(unsafe_code)]

pub mod registry;

use std::cmp::Ordering;
use std::collections::HashMap;

use margin_core::params::{Hyperparams, ParamInfo};
use margin_core::{
    DecisionFunction, DenseMatrix, Error, Iterative, Label, Matrix, NFeatures, Predict,
    PredictProba, Records, Result, Transform, class_order, labels_to,
};
use margin_io::{ModelFile, peek_kind};

use margin_cluster::{KMeans, MiniBatchKMeans, Pca};
use margin_kernels::{KernelSpec, Nystroem, RandomFourierFeatures};
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

/// What `predict` gives.
pub enum Predicted {
    /// Each sample's class, as an index into [`AnyModel::classes`] (Python maps it through
    /// `classes_`, so labels come back in the caller's own type).
    Classes(Vec<i64>),
    /// Continuous values.
    Values(Vec<f64>),
    /// Integers that name no class: cluster indices, a one-class SVM's ±1.
    Integers(Vec<i64>),
}

/// A fitted attribute's value.
pub enum Attr {
    /// A matrix (rows × columns).
    Matrix(DenseMatrix),
    /// A vector of numbers.
    Floats(Vec<f64>),
    /// A vector of integers (indices, counts).
    Integers(Vec<i64>),
    /// One number.
    Float(f64),
    /// One integer.
    Integer(i64),
}

/// Fitted attributes, under scikit-learn's names (`coef_`, `support_`, …).
pub type Attrs = Vec<(&'static str, Attr)>;

/// What a model type can do, as the names `any_model!` was given: `classes`, `values`,
/// `clusters` or `outliers` (what `predict` gives), `decision`, `proba`, `transform`. The
/// Python class offers the matching methods and no others.
pub trait Capabilities {
    /// The capabilities.
    const METHODS: &'static [&'static str];
}

/// A fitted margin model, whatever its type.
pub trait AnyModel: Send + Sync {
    /// The kind its model file carries.
    fn kind(&self) -> &'static str;
    /// The number of features it was fitted on.
    fn n_features(&self) -> usize;
    /// Its model file.
    fn to_bytes(&self) -> Result<Vec<u8>>;
    /// The hyperparameters it was fitted with.
    fn hyperparams(&self) -> Vec<ParamInfo>;
    /// A classifier's classes, in the order of its probability and decision columns.
    fn classes(&self) -> &[Label] {
        &[]
    }
    /// Predicts each row.
    fn predict(&self, _x: &dyn Records) -> Result<Predicted> {
        Err(not_for(self.kind(), "predict"))
    }
    /// Decision values, one column per binary problem.
    fn decision_function(&self, _x: &dyn Records) -> Result<DenseMatrix> {
        Err(not_for(self.kind(), "decision_function"))
    }
    /// Class probabilities, one column per class.
    fn predict_proba(&self, _x: &dyn Records) -> Result<DenseMatrix> {
        Err(not_for(self.kind(), "predict_proba"))
    }
    /// The records in the model's output space.
    fn transform(&self, _x: &dyn Records) -> Result<DenseMatrix> {
        Err(not_for(self.kind(), "transform"))
    }
    /// The fitted attributes users read.
    fn attributes(&self) -> Result<Attrs> {
        Ok(Vec::new())
    }
    /// What the model can do: its type's [`Capabilities::METHODS`].
    fn methods(&self) -> &'static [&'static str];
    /// Whether the model was fitted on a precomputed kernel (LIBSVM's `-t 4`), so that the rows
    /// it predicts are kernel values against its training samples, not features.
    fn precomputed(&self) -> bool {
        false
    }
}

fn not_for(kind: &str, operation: &str) -> Error {
    Error::unsupported(operation, format!("a {kind} model has no {operation}"))
}

/// A label as a hash key, equal where labels are equal (`-0` and `0` are one number).
#[derive(Hash, PartialEq, Eq)]
enum Key<'a> {
    Number(u64),
    Text(&'a str),
}

fn key(label: &Label) -> Key<'_> {
    match label {
        Label::Number(x) => Key::Number((x + 0.0).to_bits()),
        Label::Text(s) => Key::Text(s),
    }
}

/// Each predicted label's index among `classes`. This runs once per predicted row (hashing each
/// row's label took five times the prediction of a9a's test rows), so where the classes are in
/// [`class_order`] (every model's but an SVC's kept in LIBSVM's label order) the index is
/// counted: for a few numeric classes, the classes below the label, compared without a branch
/// (a search's branches follow the labels, which are as unpredictable as the data); else
/// found by binary search. Other classes are looked up in a map.
fn class_indices(classes: &[Label], predicted: &[Label]) -> Result<Predicted> {
    /// The most classes counted past; more are searched.
    const FEW: usize = 16;
    let missing = |label: &Label| {
        Error::unsupported(
            "predict",
            format!("the model predicted {label}, which is not one of its classes"),
        )
    };
    let numbers = labels_to::<f64>(classes).ok();
    let sorted = classes.is_sorted_by(|a, b| class_order(a, b) == Ordering::Less);
    let mut indices = Vec::with_capacity(predicted.len());
    if let Some(values) = numbers.filter(|v| sorted && v.len() <= FEW) {
        for label in predicted {
            let Label::Number(x) = *label else {
                return Err(missing(label));
            };
            // −0 and 0 are one class: neither is below the other, and they compare equal.
            let k = values.iter().filter(|&&c| c < x).count();
            if values.get(k) != Some(&x) {
                return Err(missing(label));
            }
            indices.push(k as i64);
        }
    } else if sorted {
        for label in predicted {
            let k = classes.binary_search_by(|c| class_order(c, label));
            indices.push(k.map_err(|_| missing(label))? as i64);
        }
    } else {
        let index: HashMap<Key<'_>, i64> = classes
            .iter()
            .enumerate()
            .map(|(k, c)| (key(c), k as i64))
            .collect();
        for label in predicted {
            let k = index.get(&key(label)).ok_or_else(|| missing(label))?;
            indices.push(*k);
        }
    }
    Ok(Predicted::Classes(indices))
}

/// A one-class SVM's label, +1 (inlier) or −1 (outlier), as an integer.
fn inlier_sign(label: &Label) -> Result<i64> {
    match label {
        Label::Number(x) if x.abs() == 1.0 => Ok(*x as i64),
        other => Err(Error::unsupported(
            "predict",
            format!("a one-class SVM predicted {other}, not +1 or -1"),
        )),
    }
}

fn integers(v: impl IntoIterator<Item = usize>) -> Attr {
    Attr::Integers(v.into_iter().map(|x| x as i64).collect())
}

fn dense(m: Matrix) -> Result<DenseMatrix> {
    match m {
        Matrix::Dense(d) => Ok(d),
        Matrix::Sparse(s) => s.to_dense(),
    }
}

/// A one-row matrix as a vector (scikit-learn's `coef_` of a single-output regressor).
fn first_row(m: &DenseMatrix) -> Attr {
    Attr::Floats(m.rows().next().map(<[f64]>::to_vec).unwrap_or_default())
}

/// The one intercept of a single-output regressor.
fn single(intercept: &[f64]) -> Attr {
    Attr::Float(intercept.first().copied().unwrap_or(0.0))
}

/// Whether an SVM's kernel is LIBSVM's precomputed one.
fn precomputed(kernel: &KernelSpec) -> bool {
    matches!(kernel, KernelSpec::Precomputed(_))
}

/// The iterations of each solver run (scikit-learn's per-problem `n_iter_` of the SVMs).
fn runs(report: &margin_core::fit::FitReport) -> Attr {
    integers(report.runs().iter().map(|r| r.iterations))
}

/// Implements [`AnyModel`] for a model type: the common methods, then the capabilities named
/// (`classes`, `values`, `clusters`, `decision`, `proba`, `transform`), then whether it was
/// fitted on a precomputed kernel and its attributes, if it says.
macro_rules! any_model {
    ($model:ty { $($cap:ident),* $(,)? }
     $(precomputed($k:ident) $kernel:block)?
     $(attributes($m:ident) $body:block)?) => {
        impl Capabilities for $model {
            const METHODS: &'static [&'static str] = &[$(stringify!($cap)),*];
        }

        impl AnyModel for $model {
            fn kind(&self) -> &'static str {
                <$model as ModelFile>::KIND
            }
            fn n_features(&self) -> usize {
                NFeatures::n_features(self)
            }
            fn to_bytes(&self) -> Result<Vec<u8>> {
                ModelFile::to_bytes(self)
            }
            fn hyperparams(&self) -> Vec<ParamInfo> {
                Hyperparams::describe_hyperparams(self)
            }
            fn methods(&self) -> &'static [&'static str] {
                <$model as Capabilities>::METHODS
            }
            $(any_model!(@$cap $model);)*
            $(
                fn precomputed(&self) -> bool {
                    let $k = self;
                    $kernel
                }
            )?
            $(
                fn attributes(&self) -> Result<Attrs> {
                    let $m = self;
                    $body
                }
            )?
        }
    };
    (@classes $model:ty) => {
        fn classes(&self) -> &[Label] {
            <$model>::classes(self)
        }
        fn predict(&self, x: &dyn Records) -> Result<Predicted> {
            class_indices(<$model>::classes(self), &Predict::predict(self, x)?)
        }
    };
    (@values $model:ty) => {
        fn predict(&self, x: &dyn Records) -> Result<Predicted> {
            Ok(Predicted::Values(Predict::predict(self, x)?))
        }
    };
    (@clusters $model:ty) => {
        fn predict(&self, x: &dyn Records) -> Result<Predicted> {
            let clusters = Predict::predict(self, x)?;
            Ok(Predicted::Integers(clusters.into_iter().map(|k| k as i64).collect()))
        }
    };
    (@outliers $model:ty) => {
        fn predict(&self, x: &dyn Records) -> Result<Predicted> {
            let labels = Predict::predict(self, x)?;
            labels.iter().map(inlier_sign).collect::<Result<_>>().map(Predicted::Integers)
        }
    };
    (@decision $model:ty) => {
        fn decision_function(&self, x: &dyn Records) -> Result<DenseMatrix> {
            DecisionFunction::decision_function(self, x)
        }
    };
    (@proba $model:ty) => {
        fn predict_proba(&self, x: &dyn Records) -> Result<DenseMatrix> {
            PredictProba::predict_proba(self, x)
        }
    };
    (@transform $model:ty) => {
        fn transform(&self, x: &dyn Records) -> Result<DenseMatrix> {
            dense(Transform::transform(self, x)?)
        }
    };
}

any_model!(Svc { classes, decision, proba } precomputed(m) { precomputed(m.kernel()) } attributes(m) {
    let mut a = vec![
        ("support_", integers(m.support_indices().iter().copied())),
        ("support_vectors_", Attr::Matrix(m.support_vectors().to_dense()?)),
        ("n_support_", integers(m.n_support())),
        ("dual_coef_", Attr::Matrix(m.dual_coef()?)),
        ("intercept_", Attr::Floats(m.intercept())),
        ("n_iter_", runs(&m.fit_report())),
    ];
    if let Ok(coef) = m.coef() {
        a.push(("coef_", Attr::Matrix(coef)));
    }
    Ok(a)
});

any_model!(Svr { values } precomputed(m) { precomputed(m.kernel()) } attributes(m) {
    let mut a = vec![
        ("support_", integers(m.support_indices().iter().copied())),
        ("dual_coef_", Attr::Matrix(DenseMatrix::from_row_major(
            m.dual_coef().to_vec(), 1, m.dual_coef().len())?)),
        ("intercept_", Attr::Floats(m.intercept())),
        ("n_iter_", runs(&m.fit_report())),
    ];
    if let Ok(coef) = m.coef() {
        a.push(("coef_", Attr::Matrix(coef)));
    }
    Ok(a)
});

any_model!(OneClassSvm { outliers, decision } precomputed(m) { precomputed(m.kernel()) } attributes(m) {
    let mut a = vec![
        ("support_", integers(m.support_indices().iter().copied())),
        ("dual_coef_", Attr::Matrix(DenseMatrix::from_row_major(
            m.dual_coef().to_vec(), 1, m.dual_coef().len())?)),
        ("intercept_", Attr::Floats(m.intercept())),
        ("offset_", Attr::Floats(vec![m.rho()])),
        ("n_iter_", runs(&m.fit_report())),
    ];
    if let Ok(coef) = m.coef() {
        a.push(("coef_", Attr::Matrix(coef)));
    }
    Ok(a)
});

/// The attributes of a linear classifier: `coef_` (one row per binary problem), `intercept_`,
/// `n_iter_`.
macro_rules! linear_classifier {
    ($($model:ty { $($cap:ident),* }),+ $(,)?) => {$(
        any_model!($model { classes, decision $(, $cap)* } attributes(m) {
            Ok(vec![
                ("coef_", Attr::Matrix(m.coef().clone())),
                ("intercept_", Attr::Floats(m.intercept().to_vec())),
                ("n_iter_", Attr::Integer(Iterative::n_iter(m) as i64)),
            ])
        });
    )+};
}

linear_classifier!(LinearSvc {}, Perceptron {}, LogisticRegression { proba });

any_model!(KernelPerceptron { classes, decision } attributes(m) {
    Ok(vec![
        ("support_", integers(m.support().iter().copied())),
        ("support_vectors_", Attr::Matrix(m.support_vectors().to_dense()?)),
        ("intercept_", Attr::Floats(m.intercept().to_vec())),
        ("n_iter_", Attr::Integer(m.n_iter() as i64)),
    ])
});

any_model!(LinearRegression { values } attributes(m) {
    let mut a = vec![
        ("coef_", first_row(m.coef())),
        ("intercept_", single(m.intercept())),
        ("rank_", Attr::Integer(m.rank() as i64)),
        ("n_iter_", Attr::Integer(m.n_iter() as i64)),
    ];
    if let Some(s) = m.singular_values() {
        a.push(("singular_values_", Attr::Floats(s.to_vec())));
    }
    Ok(a)
});

any_model!(Ridge { values } attributes(m) {
    Ok(vec![("coef_", first_row(m.coef())), ("intercept_", single(m.intercept()))])
});

any_model!(ElasticNet { values } attributes(m) {
    Ok(vec![
        ("coef_", first_row(m.coef())),
        ("intercept_", single(m.intercept())),
        ("dual_gap_", Attr::Float(m.dual_gap())),
        ("n_iter_", Attr::Integer(m.n_iter() as i64)),
    ])
});

any_model!(KernelRidge { values } attributes(m) {
    Ok(vec![
        ("dual_coef_", Attr::Floats(m.dual_coef().to_vec())),
        ("X_fit_", Attr::Matrix(m.training_records().to_dense()?)),
    ])
});

any_model!(GaussianNB { classes, proba } attributes(m) {
    Ok(vec![
        ("class_count_", Attr::Floats(m.class_count().to_vec())),
        ("class_prior_", Attr::Floats(m.class_prior().to_vec())),
        ("theta_", Attr::Matrix(m.theta().clone())),
        ("var_", Attr::Matrix(m.var().clone())),
        ("epsilon_", Attr::Float(m.epsilon())),
    ])
});

/// The attributes of the discrete naive Bayes models.
macro_rules! discrete_bayes {
    ($($model:ty),+) => {$(
        any_model!($model { classes, proba } attributes(m) {
            Ok(vec![
                ("class_count_", Attr::Floats(m.class_count().to_vec())),
                ("feature_count_", Attr::Matrix(m.feature_count().clone())),
                ("class_log_prior_", Attr::Floats(m.class_log_prior().to_vec())),
                ("feature_log_prob_", Attr::Matrix(m.feature_log_prob().clone())),
            ])
        });
    )+};
}

discrete_bayes!(MultinomialNB, BernoulliNB);

any_model!(KNeighborsClassifier { classes, proba });
any_model!(KNeighborsRegressor { values });

/// Trees and their ensembles: `feature_importances_`.
macro_rules! with_importances {
    ($($model:ty { $($cap:ident),* }),+ $(,)?) => {$(
        any_model!($model { $($cap),* } attributes(m) {
            Ok(vec![("feature_importances_", Attr::Floats(m.feature_importances()))])
        });
    )+};
}

with_importances!(
    DecisionTreeClassifier { classes, proba },
    DecisionTreeRegressor { values },
    RandomForestClassifier { classes, proba },
    RandomForestRegressor { values },
);

any_model!(AdaBoostClassifier { classes, decision, proba } attributes(m) {
    Ok(vec![
        ("feature_importances_", Attr::Floats(m.feature_importances())),
        ("estimator_weights_", Attr::Floats(m.estimator_weights().to_vec())),
        ("estimator_errors_", Attr::Floats(m.estimator_errors().to_vec())),
    ])
});

any_model!(GradientBoostingClassifier { classes, decision, proba } attributes(m) {
    Ok(vec![("n_iter_", Attr::Integer(m.n_iter() as i64))])
});

any_model!(GradientBoostingRegressor { values } attributes(m) {
    Ok(vec![("n_iter_", Attr::Integer(m.n_iter() as i64))])
});

/// k-means and mini-batch k-means: centres, training labels, inertia, iterations.
macro_rules! clustering {
    ($($model:ty),+) => {$(
        any_model!($model { clusters, transform } attributes(m) {
            Ok(vec![
                ("cluster_centers_", Attr::Matrix(m.cluster_centers().clone())),
                ("labels_", integers(m.labels().iter().copied())),
                ("inertia_", Attr::Float(m.inertia())),
                ("n_iter_", Attr::Integer(m.n_iter() as i64)),
            ])
        });
    )+};
}

clustering!(KMeans, MiniBatchKMeans);

any_model!(Pca { transform } attributes(m) {
    let mut a = vec![
        ("components_", Attr::Matrix(m.components().clone())),
        ("explained_variance_", Attr::Floats(m.explained_variance().to_vec())),
        ("explained_variance_ratio_", Attr::Floats(m.explained_variance_ratio().to_vec())),
        ("singular_values_", Attr::Floats(m.singular_values().to_vec())),
        ("mean_", Attr::Floats(m.mean().to_vec())),
        ("n_components_", Attr::Integer(m.components().nrows() as i64)),
    ];
    a.push(("noise_variance_", Attr::Float(m.noise_variance())));
    Ok(a)
});

any_model!(StandardScaler { transform } attributes(m) {
    Ok(vec![
        ("mean_", Attr::Floats(m.mean().to_vec())),
        ("var_", Attr::Floats(m.variance())),
        ("scale_", Attr::Floats(m.scale())),
        ("n_samples_seen_", Attr::Integer(m.n_samples_seen() as i64)),
    ])
});

any_model!(MinMaxScaler { transform } attributes(m) {
    let (low, high) = m.range();
    let range: Vec<f64> = m.data_max().iter().zip(m.data_min()).map(|(a, b)| a - b).collect();
    // scikit-learn's form of the map: x * scale_ + min_.
    let scale: Vec<f64> = range
        .iter()
        .map(|r| if *r == 0.0 { 1.0 } else { (high - low) / r })
        .collect();
    let min: Vec<f64> = m.data_min().iter().zip(&scale).map(|(d, s)| low - d * s).collect();
    Ok(vec![
        ("data_min_", Attr::Floats(m.data_min().to_vec())),
        ("data_max_", Attr::Floats(m.data_max().to_vec())),
        ("data_range_", Attr::Floats(range)),
        ("scale_", Attr::Floats(scale)),
        ("min_", Attr::Floats(min)),
    ])
});

any_model!(PolynomialFeatures { transform } attributes(m) {
    let powers = m.powers();
    let width = m.n_features();
    let flat: Vec<f64> = powers.iter().flat_map(|p| p.iter().map(|&e| f64::from(e))).collect();
    Ok(vec![
        ("n_output_features_", Attr::Integer(m.n_output_features() as i64)),
        ("powers_", Attr::Matrix(DenseMatrix::from_row_major(flat, powers.len(), width)?)),
    ])
});

any_model!(Nystroem { transform } attributes(m) {
    Ok(vec![("components_", Attr::Matrix(m.landmarks().clone()))])
});

any_model!(RandomFourierFeatures { transform });

/// Reads a model file of type `M` into an [`AnyModel`].
fn read<M: ModelFile + AnyModel + 'static>(bytes: &[u8]) -> Result<Box<dyn AnyModel>> {
    Ok(Box::new(M::from_bytes(bytes)?))
}

/// A function reading one kind's model files.
type Reader = fn(&[u8]) -> Result<Box<dyn AnyModel>>;

/// Each model type's kind, with the function reading its files.
macro_rules! loaders {
    ($($model:ty),+ $(,)?) => {
        &[$((<$model as ModelFile>::KIND, read::<$model> as Reader)),+]
    };
}

/// The model kinds [`load`] reads, with their readers.
const LOADERS: &[(&str, Reader)] = loaders!(
    Svc,
    Svr,
    OneClassSvm,
    LinearSvc,
    Perceptron,
    LogisticRegression,
    KernelPerceptron,
    LinearRegression,
    Ridge,
    ElasticNet,
    KernelRidge,
    GaussianNB,
    MultinomialNB,
    BernoulliNB,
    KNeighborsClassifier,
    KNeighborsRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    AdaBoostClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    KMeans,
    MiniBatchKMeans,
    Pca,
    StandardScaler,
    MinMaxScaler,
    PolynomialFeatures,
    Nystroem,
    RandomFourierFeatures,
);

/// The model-file kinds [`load`] reads (`"svc"`, `"ridge"`, `"pca"`, …).
pub fn kinds() -> impl Iterator<Item = &'static str> {
    LOADERS.iter().map(|(kind, _)| *kind)
}

/// Reads a model file of any kind [`kinds`] lists, as its header names it.
///
/// # Errors
/// [`Error::ModelFile`] when the bytes are not a margin model file, hold a kind not listed
/// (a pipeline, say: load it with its own type), or do not decode as that kind.
pub fn load(bytes: &[u8]) -> Result<Box<dyn AnyModel>> {
    let kind = peek_kind(bytes)?;
    match LOADERS.iter().find(|(k, _)| *k == kind) {
        Some((_, read)) => read(bytes),
        None => Err(Error::model_file(format!(
            "a `{kind}` model cannot be loaded as any model; the kinds are {}",
            kinds().collect::<Vec<_>>().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Indices of predicted labels among sorted classes (numbers, −0 as 0, then text) and
    /// among classes in another order; a label that is not a class is refused.
    #[test]
    fn class_indices_find_each_label_in_sorted_and_unsorted_classes() {
        let sorted = [
            Label::Number(-1.0),
            Label::Number(0.0),
            Label::Number(2.5),
            Label::from("a"),
            Label::from("b"),
        ];
        let predicted = [
            Label::from("b"),
            Label::Number(-0.0),
            Label::Number(2.5),
            Label::Number(-1.0),
            Label::from("a"),
        ];
        let Predicted::Classes(k) = class_indices(&sorted, &predicted).unwrap() else {
            panic!("not classes")
        };
        assert_eq!(k, [4, 1, 2, 0, 3]);
        let libsvm_order = [Label::Number(1.0), Label::Number(-1.0)];
        let predicted = [Label::Number(-1.0), Label::Number(1.0)];
        let Predicted::Classes(k) = class_indices(&libsvm_order, &predicted).unwrap() else {
            panic!("not classes")
        };
        assert_eq!(k, [1, 0]);
        let numbers = &sorted[..3];
        let predicted = [Label::Number(2.5), Label::Number(-0.0), Label::Number(-1.0)];
        let Predicted::Classes(k) = class_indices(numbers, &predicted).unwrap() else {
            panic!("not classes")
        };
        assert_eq!(k, [2, 1, 0]);
        for classes in [&sorted[..], &libsvm_order[..], numbers] {
            for label in [Label::Number(7.0), Label::Number(0.5), Label::from("c")] {
                let Err(err) = class_indices(classes, &[label]) else {
                    panic!("a label that is no class was found")
                };
                assert!(err.to_string().contains("not one of its classes"), "{err}");
            }
        }
    }

    #[test]
    fn every_kind_is_listed_once() {
        let mut seen: Vec<&str> = kinds().collect();
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
    }

    #[test]
    fn refuses_what_is_not_a_listed_model() {
        assert!(matches!(load(b"not a model"), Err(Error::ModelFile { .. })));
        let other = margin_io::seal("no-such-kind", 1, b"").unwrap();
        let Err(Error::ModelFile { reason }) = load(&other) else {
            panic!("an unknown kind loaded");
        };
        assert!(
            reason.contains("no-such-kind") && reason.contains("ridge"),
            "{reason}"
        );
    }
}
