//! Pipelines: transformers (scalers, polynomial features, PCA, kernel feature maps) followed by
//! an estimator, fitted, applied, cross-validated, searched and saved as one model
//! (scikit-learn's `Pipeline`).
//!
//! The steps are types, not trait objects: a pipeline of a scaler and an SVC is a
//! `Pipeline<(StandardScalerParams,), SvcParams>`, and its fitted model a
//! `PipelineModel<(StandardScaler,), Svc>`, which is also the type that loads its model file.
//! Each step keeps its own parameters, reached by name as `step__param` (scikit-learn's
//! spelling) by [`ParamsByName`] and so by grid search. A pipeline that ends with an estimator
//! (any params type fitted on a [`Dataset`]) fits; the umbrella crate `margin-ml` shows one
//! searched, saved and loaded. The names, on transformers alone:
//!
//! ```
//! use margin_core::generate::{Blobs, make_blobs};
//! use margin_core::params::ParamsByName;
//! use margin_core::{Fit, Predict};
//! use margin_preprocessing::{MinMaxScaler, Pipeline, PolynomialFeatures, StandardScaler};
//!
//! let data = make_blobs(&Blobs::default().n_samples(40).seed(3))?;
//! let mut pipe = Pipeline::new("poly", PolynomialFeatures::params())
//!     .step("scale", StandardScaler::params())
//!     .step("minmax", MinMaxScaler::params());
//! pipe.set_by_name("poly__degree", "3")?;
//! assert_eq!(pipe.step_names(), ["poly", "scale", "minmax"]);
//! # Ok::<(), margin_core::Error>(())
//! ```

use std::collections::HashSet;

use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use margin_core::params::{Params, ParamsByName, Value};
use margin_core::{
    ClassScores, Dataset, DecisionFunction, DenseMatrix, Error, Evidence, Fit, Matrix, NFeatures,
    Predict, PredictProba, Records, Result, Transform,
};
use margin_io::ModelFile;

/// What separates a step's name from its parameter's in a pipeline parameter name.
pub const SEPARATOR: &str = "__";

/// A transformer's params as a pipeline step: fitted on the records the previous steps give,
/// its fitted model transforms them and saves to a model file. Every transformer's params type
/// is one (scalers, polynomial features, binning, one-hot, PCA, Nyström, random Fourier
/// features).
pub trait TransformerStep: Params + Send + Sync {
    /// The fitted transformer.
    type Fitted: Transform + ModelFile + NFeatures + Send + Sync;
    /// Fits the transformer on `records`.
    fn fit_step(&self, records: &Matrix) -> Result<Self::Fitted>;
}

impl<P> TransformerStep for P
where
    P: Params + Send + Sync + Fit<Matrix>,
    P::Model: Transform + ModelFile + NFeatures + Send + Sync,
{
    type Fitted = P::Model;
    fn fit_step(&self, records: &Matrix) -> Result<P::Model> {
        self.fit(records)
    }
}

/// The transformer steps of a pipeline, in order: a tuple of up to four
/// [`TransformerStep`]s (`()` for none).
pub trait Transformers: Clone + Send + Sync + 'static {
    /// The fitted steps, a tuple of the same length.
    type Fitted: FittedTransformers;
    /// The number of steps.
    const LEN: usize;
    /// Fits each step on what the previous ones output, starting from `records`, and returns
    /// the fitted steps with the records they output (`None` when there are no steps).
    fn fit_all(&self, records: &Matrix) -> Result<(Self::Fitted, Option<Matrix>)>;
    /// The full name of parameter `name` of step `step` (0-based), as [`Params::param`] gives.
    fn param_name(&self, step: usize, name: &str) -> Result<&'static str>;
    /// Sets parameter `name` of step `step` (see [`Params::set`]).
    fn set(&mut self, step: usize, name: &str, text: &str) -> Result<()>;
    /// The parameters of step `step` with their values.
    fn values(&self, step: usize) -> Vec<(&'static str, Value)>;
}

/// The fitted transformer steps of a pipeline model (a tuple, as [`Transformers::Fitted`]).
pub trait FittedTransformers: Send + Sync + Sized {
    /// The number of steps.
    const LEN: usize;
    /// Applies every step in order (`None` when there are none: the records go on as they are).
    fn transform_all<R: Records + ?Sized>(&self, records: &R) -> Result<Option<Matrix>>;
    /// The input width of the first step (`None` when there are no steps).
    fn n_features(&self) -> Option<usize>;
    /// Each step's model file, in order.
    fn to_files(&self) -> Result<Vec<Vec<u8>>>;
    /// The steps read back from their model files (exactly [`Self::LEN`] of them).
    fn from_files(files: &[Vec<u8>]) -> Result<Self>;
}

fn no_step(step: usize) -> Error {
    Error::invalid_parameter("pipeline step", step, "an index below the number of steps")
}

impl Transformers for () {
    type Fitted = ();
    const LEN: usize = 0;
    fn fit_all(&self, _records: &Matrix) -> Result<((), Option<Matrix>)> {
        Ok(((), None))
    }
    fn param_name(&self, step: usize, _name: &str) -> Result<&'static str> {
        Err(no_step(step))
    }
    fn set(&mut self, step: usize, _name: &str, _text: &str) -> Result<()> {
        Err(no_step(step))
    }
    fn values(&self, _step: usize) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
}

impl FittedTransformers for () {
    const LEN: usize = 0;
    fn transform_all<R: Records + ?Sized>(&self, _records: &R) -> Result<Option<Matrix>> {
        Ok(None)
    }
    fn n_features(&self) -> Option<usize> {
        None
    }
    fn to_files(&self) -> Result<Vec<Vec<u8>>> {
        Ok(Vec::new())
    }
    fn from_files(_files: &[Vec<u8>]) -> Result<()> {
        Ok(())
    }
}

/// Implements [`Transformers`] and [`FittedTransformers`] for a tuple: its length, then per
/// element its index, its type parameter and a name for its fitted step.
macro_rules! transformer_tuple {
    ($len:literal; $first:tt $A:ident $a:ident $(, $i:tt $T:ident $t:ident)*) => {
        impl<$A: TransformerStep + Clone + 'static $(, $T: TransformerStep + Clone + 'static)*>
            Transformers for ($A, $($T,)*)
        {
            type Fitted = ($A::Fitted, $($T::Fitted,)*);
            const LEN: usize = $len;

            fn fit_all(&self, records: &Matrix) -> Result<(Self::Fitted, Option<Matrix>)> {
                let ($a, out) = fit_then_transform(&self.$first, records)?;
                $(let ($t, out) = fit_then_transform(&self.$i, &out)?;)*
                Ok((($a, $($t,)*), Some(out)))
            }

            fn param_name(&self, step: usize, name: &str) -> Result<&'static str> {
                match step {
                    $first => Ok($A::param(name)?.name),
                    $($i => Ok($T::param(name)?.name),)*
                    _ => Err(no_step(step)),
                }
            }

            fn set(&mut self, step: usize, name: &str, text: &str) -> Result<()> {
                match step {
                    $first => self.$first.set(name, text),
                    $($i => self.$i.set(name, text),)*
                    _ => Err(no_step(step)),
                }
            }

            fn values(&self, step: usize) -> Vec<(&'static str, Value)> {
                match step {
                    $first => self.$first.values(),
                    $($i => self.$i.values(),)*
                    _ => Vec::new(),
                }
            }
        }

        impl<$A: Transform + ModelFile + NFeatures + Send + Sync
            $(, $T: Transform + ModelFile + NFeatures + Send + Sync)*>
            FittedTransformers for ($A, $($T,)*)
        {
            const LEN: usize = $len;

            fn transform_all<R: Records + ?Sized>(&self, records: &R) -> Result<Option<Matrix>> {
                let out = self.$first.transform(records)?;
                $(let out = self.$i.transform(&out)?;)*
                Ok(Some(out))
            }

            fn n_features(&self) -> Option<usize> {
                Some(self.$first.n_features())
            }

            fn to_files(&self) -> Result<Vec<Vec<u8>>> {
                Ok(vec![self.$first.to_bytes()?, $(self.$i.to_bytes()?,)*])
            }

            fn from_files(files: &[Vec<u8>]) -> Result<Self> {
                if files.len() != $len {
                    return Err(Error::shape("transformer files", $len, files.len()));
                }
                Ok(($A::from_bytes(&files[$first])?, $($T::from_bytes(&files[$i])?,)*))
            }
        }
    };
}

/// Fits one step on `records` and transforms them with it.
fn fit_then_transform<S: TransformerStep>(
    step: &S,
    records: &Matrix,
) -> Result<(S::Fitted, Matrix)> {
    let fitted = step.fit_step(records)?;
    let out = fitted.transform(records)?;
    Ok((fitted, out))
}

transformer_tuple!(1; 0 A a);
transformer_tuple!(2; 0 A a, 1 B b);
transformer_tuple!(3; 0 A a, 1 B b, 2 C c);
transformer_tuple!(4; 0 A a, 1 B b, 2 C c, 3 D d);

/// Adds one more transformer step at the end of a tuple of them: how
/// [`Pipeline::step`] turns the previous last step into a transformer.
pub trait Append<S> {
    /// The longer tuple.
    type Output;
    /// `self` with `step` at the end.
    fn append(self, step: S) -> Self::Output;
}

impl<S> Append<S> for () {
    type Output = (S,);
    fn append(self, step: S) -> (S,) {
        (step,)
    }
}

impl<A, S> Append<S> for (A,) {
    type Output = (A, S);
    fn append(self, step: S) -> (A, S) {
        (self.0, step)
    }
}

impl<A, B, S> Append<S> for (A, B) {
    type Output = (A, B, S);
    fn append(self, step: S) -> (A, B, S) {
        (self.0, self.1, step)
    }
}

impl<A, B, C, S> Append<S> for (A, B, C) {
    type Output = (A, B, C, S);
    fn append(self, step: S) -> (A, B, C, S) {
        (self.0, self.1, self.2, step)
    }
}

/// Transformer steps `T` (a tuple) followed by a last step `E`, each named; fitting it fits
/// each step on what the previous ones output and gives a [`PipelineModel`].
#[derive(Clone, Debug)]
pub struct Pipeline<T, E> {
    names: Vec<String>,
    transformers: T,
    last: E,
}

impl<E> Pipeline<(), E> {
    /// A pipeline of one step, `params`, called `name`; [`step`](Pipeline::step) adds more.
    pub fn new(name: &str, params: E) -> Self {
        Self {
            names: vec![name.to_owned()],
            transformers: (),
            last: params,
        }
    }
}

impl<T, E> Pipeline<T, E> {
    /// Adds step `params`, called `name`, at the end; the step that was last becomes a
    /// transformer whose output it is fitted on. Up to five steps (four transformers).
    pub fn step<S>(mut self, name: &str, params: S) -> Pipeline<T::Output, S>
    where
        T: Append<E>,
    {
        self.names.push(name.to_owned());
        Pipeline {
            names: self.names,
            transformers: self.transformers.append(self.last),
            last: params,
        }
    }

    /// The steps' names, in order.
    pub fn step_names(&self) -> &[String] {
        &self.names
    }

    /// The transformer steps' params (a tuple: `.0` is the first).
    pub fn transformers(&self) -> &T {
        &self.transformers
    }

    /// The last step's params.
    pub fn last(&self) -> &E {
        &self.last
    }
}

/// Refuses step names that `step__param` could not address: empty, containing `__`, or twice.
fn check_names(names: &[String]) -> Result<()> {
    let mut seen = HashSet::new();
    for name in names {
        if name.is_empty() || name.contains(SEPARATOR) || !seen.insert(name) {
            return Err(Error::invalid_parameter(
                "pipeline step name",
                format!("`{name}`"),
                format!("distinct, non-empty step names without `{SEPARATOR}`"),
            ));
        }
    }
    Ok(())
}

impl<T: Transformers, E: Params> Pipeline<T, E> {
    /// The step a `step__param` name addresses, and the parameter's own name.
    fn split<'a>(&self, name: &'a str) -> Result<(usize, &'a str)> {
        let unknown = || {
            Error::invalid_parameter(
                "pipeline parameter",
                name,
                format!(
                    "step{SEPARATOR}parameter with a step among {}",
                    self.names.join(", ")
                ),
            )
        };
        let (step, param) = name.split_once(SEPARATOR).ok_or_else(unknown)?;
        let index = self
            .names
            .iter()
            .position(|n| n == step)
            .ok_or_else(unknown)?;
        Ok((index, param))
    }
}

impl<T: Transformers, E: Params> ParamsByName for Pipeline<T, E> {
    fn param_name(&self, name: &str) -> Result<String> {
        let (step, param) = self.split(name)?;
        let param = if step < T::LEN {
            self.transformers.param_name(step, param)?
        } else {
            E::param(param)?.name
        };
        Ok(format!("{}{SEPARATOR}{param}", self.names[step]))
    }

    fn set_by_name(&mut self, name: &str, text: &str) -> Result<()> {
        let (step, param) = self.split(name)?;
        if step < T::LEN {
            self.transformers.set(step, param, text)
        } else {
            self.last.set(param, text)
        }
    }

    fn values_by_name(&self) -> Vec<(String, Value)> {
        let values = (0..T::LEN)
            .map(|step| self.transformers.values(step))
            .chain([self.last.values()]);
        self.names
            .iter()
            .zip(values)
            .flat_map(|(step, values)| {
                values
                    .into_iter()
                    .map(move |(p, v)| (format!("{step}{SEPARATOR}{p}"), v))
            })
            .collect()
    }
}

impl<T, E> Fit for Pipeline<T, E>
where
    T: Transformers,
    E: Fit,
    E::Model: Predict,
{
    type Model = PipelineModel<T::Fitted, E::Model>;

    /// Fits each transformer on the records the previous ones output (the first on the
    /// data's), then the last step on the transformed data with the data's targets and sample
    /// weights. Feature names do not pass through transformers (they may not keep columns).
    fn fit(&self, data: &Dataset) -> Result<Self::Model> {
        check_names(&self.names)?;
        let (transformers, records) = self.transformers.fit_all(&data.records)?;
        let model = match records {
            None => self.last.fit(data)?,
            Some(records) => {
                let mut transformed = Dataset::new(records, data.targets.clone())?;
                transformed.sample_weights = data.sample_weights.clone();
                self.last.fit(&transformed)?
            }
        };
        Ok(PipelineModel {
            names: self.names.clone(),
            transformers,
            model,
        })
    }
}

/// A fitted [`Pipeline`]: its fitted transformers `T` (a tuple) and its fitted last step `M`.
/// It predicts (and gives probabilities and decision values where `M` does) by transforming
/// the records through every step first, and saves to one model file (kind `pipeline`) that
/// holds each step's own model file.
#[derive(Debug)]
pub struct PipelineModel<T, M> {
    names: Vec<String>,
    transformers: T,
    model: M,
}

impl<T: FittedTransformers, M> PipelineModel<T, M> {
    /// The steps' names, in order.
    pub fn step_names(&self) -> &[String] {
        &self.names
    }

    /// The fitted transformers (a tuple: `.0` is the first).
    pub fn transformers(&self) -> &T {
        &self.transformers
    }

    /// The fitted last step.
    pub fn model(&self) -> &M {
        &self.model
    }
}

/// Calls `$call` of the fitted last step on what the transformers make of `$records` (the
/// records themselves when there are no transformers).
macro_rules! through {
    ($self:ident, $records:ident, $trait:ident :: $call:ident $(, $arg:expr)*) => {
        match $self.transformers.transform_all($records)? {
            Some(out) => $trait::$call(&$self.model, &out $(, $arg)*),
            None => $trait::$call(&$self.model, $records $(, $arg)*),
        }
    };
}

impl<T: FittedTransformers, M: Predict> Predict for PipelineModel<T, M> {
    type Output = M::Output;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<M::Output> {
        through!(self, records, Predict::predict)
    }

    fn class_scores<R: Records + ?Sized>(
        &self,
        records: &R,
        evidence: Evidence,
    ) -> Result<ClassScores> {
        through!(self, records, Predict::class_scores, evidence)
    }
}

impl<T: FittedTransformers, M: PredictProba> PredictProba for PipelineModel<T, M> {
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        through!(self, records, PredictProba::predict_proba)
    }
}

impl<T: FittedTransformers, M: DecisionFunction> DecisionFunction for PipelineModel<T, M> {
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        through!(self, records, DecisionFunction::decision_function)
    }
}

impl<T: FittedTransformers, M: NFeatures> NFeatures for PipelineModel<T, M> {
    /// The width of the records the pipeline takes: its first step's.
    fn n_features(&self) -> usize {
        self.transformers
            .n_features()
            .unwrap_or_else(|| self.model.n_features())
    }
}

/// What a pipeline's model file body holds: each step's name and model file, as bytes (a
/// claimed length is then read as it comes, never allocated up front).
type StoredSteps = Vec<(Vec<u8>, Vec<u8>)>;

impl<T: FittedTransformers, M: ModelFile> Serialize for PipelineModel<T, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut files = self.transformers.to_files().map_err(S::Error::custom)?;
        files.push(self.model.to_bytes().map_err(S::Error::custom)?);
        let steps: StoredSteps = self
            .names
            .iter()
            .map(|n| n.as_bytes().to_vec())
            .zip(files)
            .collect();
        steps.serialize(serializer)
    }
}

impl<'de, T: FittedTransformers, M: ModelFile> Deserialize<'de> for PipelineModel<T, M> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let steps = StoredSteps::deserialize(deserializer)?;
        if steps.len() != T::LEN + 1 {
            return Err(D::Error::custom(format!(
                "the file holds {} steps; this pipeline type has {}",
                steps.len(),
                T::LEN + 1
            )));
        }
        let (names, files): (Vec<Vec<u8>>, Vec<Vec<u8>>) = steps.into_iter().unzip();
        let names = names
            .into_iter()
            .map(String::from_utf8)
            .collect::<std::result::Result<Vec<String>, _>>()
            .map_err(|_| D::Error::custom("a step name is not UTF-8"))?;
        let transformers = T::from_files(&files[..T::LEN]).map_err(D::Error::custom)?;
        let model = M::from_bytes(&files[T::LEN])
            .map_err(|e| D::Error::custom(format!("step `{}`: {e}", names[T::LEN])))?;
        Ok(Self {
            names,
            transformers,
            model,
        })
    }
}

impl<T: FittedTransformers, M: ModelFile> ModelFile for PipelineModel<T, M> {
    const KIND: &'static str = "pipeline";
    const SCHEMA: u32 = 1;

    /// Each step's own file was checked as it was read; what remains is the names.
    fn check_consistent(&self) -> Result<()> {
        check_names(&self.names)
    }
}
