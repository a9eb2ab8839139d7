//! The model kinds `margin_fit` fits, each one's statistics behind one trait object, so one
//! accumulator serves them all.

use std::fmt::Debug;
use std::marker::PhantomData;

use margin_cluster::Pca;
use margin_core::params::Params;
use margin_core::{Dataset, Error, FitStats, Matrix, Merge, PartialFit, Result};
use margin_io::ModelFile;
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};
use margin_linear::{LinearRegression, Ridge};
use margin_preprocessing::{MinMaxScaler, StandardScaler};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// One kind's parameters and the statistics gathered so far.
pub(crate) trait Gather: Debug + Send + Sync {
    /// Whether a batch carries a label column before its features.
    fn supervised(&self) -> bool;
    /// Adds a batch of rows.
    fn update(&mut self, batch: &Dataset) -> Result<()>;
    /// The statistics as bytes, for another partition's accumulator.
    fn encode(&self) -> Result<Vec<u8>>;
    /// The length of [`encode`](Gather::encode)'s bytes, counted without writing them
    /// (DataFusion asks for an accumulator's size after every batch).
    fn encoded_len(&self) -> usize;
    /// Adds statistics another partition encoded.
    fn merge_encoded(&mut self, bytes: &[u8]) -> Result<()>;
    /// The fitted model's file bytes (what `Model::from_bytes` and `margin predict` read).
    fn model_file(&self) -> Result<Vec<u8>>;
}

/// The kinds, by their model-file names, with whether each takes a label.
pub const KINDS: [(&str, bool); 8] = [
    (LinearRegression::KIND, true),
    (Ridge::KIND, true),
    (GaussianNB::KIND, true),
    (MultinomialNB::KIND, true),
    (BernoulliNB::KIND, true),
    (Pca::KIND, false),
    (StandardScaler::KIND, false),
    (MinMaxScaler::KIND, false),
];

/// The statistics of kind `kind` (a model-file kind, as [`KINDS`] lists), with parameters set
/// from `params`: `name=value` pairs separated by spaces (`"alpha=0.5 fit_intercept=false"`),
/// each name and value as `margin train` takes them.
pub(crate) fn gatherer(kind: &str, params: &str) -> Result<Box<dyn Gather>> {
    Ok(match kind {
        k if k == LinearRegression::KIND => labelled(LinearRegression::params(), params)?,
        k if k == Ridge::KIND => labelled(Ridge::params(), params)?,
        k if k == GaussianNB::KIND => labelled(GaussianNB::params(), params)?,
        k if k == MultinomialNB::KIND => labelled(MultinomialNB::params(), params)?,
        k if k == BernoulliNB::KIND => labelled(BernoulliNB::params(), params)?,
        k if k == Pca::KIND => unlabelled(Pca::params(), params)?,
        k if k == StandardScaler::KIND => unlabelled(StandardScaler::params(), params)?,
        k if k == MinMaxScaler::KIND => unlabelled(MinMaxScaler::params(), params)?,
        other => {
            let known: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
            return Err(Error::invalid_parameter(
                "kind",
                other,
                format!("one of {}", known.join(", ")),
            ));
        }
    })
}

/// `params` with every `name=value` pair of `text` set (and checked) in turn; a parameter the
/// resulting configuration does not use is refused (see [`Params::first_unused`]).
pub(crate) fn configured<P: Params>(mut params: P, text: &str) -> Result<P> {
    let mut given = Vec::new();
    for pair in text.split_whitespace() {
        let (name, value) = pair.split_once('=').ok_or_else(|| {
            Error::invalid_parameter(
                "params",
                pair,
                "name=value pairs separated by spaces, as 'alpha=0.5 fit_intercept=false'",
            )
        })?;
        params.set(name, value)?;
        given.push((name, value));
    }
    // A parameter the configuration does not use is refused, as on the command line.
    if let Some(param) = params.first_unused(given.iter().map(|(name, _)| *name)) {
        let value = given
            .iter()
            .find(|(name, _)| P::param(name).is_ok_and(|p| p.name == param.name))
            .map_or("", |(_, value)| *value);
        return Err(Error::invalid_parameter(
            param.name,
            value,
            format!(
                "no value: {} is used only {}; leave it out or change the configuration",
                param.name, param.applies
            ),
        ));
    }
    params.check()?;
    Ok(params)
}

/// What a kind's batches are: the dataset itself (label included), or its records.
trait Input: Sized + 'static {
    /// Whether the batches carry a label.
    const SUPERVISED: bool;
    /// The part of a batch the kind reads.
    fn of(batch: &Dataset) -> &Self;
}

impl Input for Dataset {
    const SUPERVISED: bool = true;
    fn of(batch: &Dataset) -> &Self {
        batch
    }
}

impl Input for Matrix {
    const SUPERVISED: bool = false;
    fn of(batch: &Dataset) -> &Self {
        &batch.records
    }
}

/// A supervised kind: batches are datasets, label included.
fn labelled<P>(params: P, text: &str) -> Result<Box<dyn Gather>>
where
    P: FitStats + Params + Debug + Send + Sync + 'static,
    P::Stats: Sync,
    P::Model: ModelFile,
{
    gathering::<P, Dataset>(params, text)
}

/// A kind fitted on records alone (scalers, PCA).
fn unlabelled<P>(params: P, text: &str) -> Result<Box<dyn Gather>>
where
    P: FitStats<Matrix> + Params + Debug + Send + Sync + 'static,
    P::Stats: Sync,
    P::Model: ModelFile,
{
    gathering::<P, Matrix>(params, text)
}

fn gathering<P, I>(params: P, text: &str) -> Result<Box<dyn Gather>>
where
    I: Input,
    P: FitStats<I> + Params + Debug + Send + Sync + 'static,
    P::Stats: Sync,
    P::Model: ModelFile,
{
    let params = configured(params, text)?;
    let stats = params.stats();
    Ok(Box::new(Gathering::<P, I> {
        params,
        stats,
        input: PhantomData,
    }))
}

/// A kind's parameters and statistics.
struct Gathering<P: FitStats<I>, I> {
    params: P,
    stats: P::Stats,
    input: PhantomData<fn() -> I>,
}

impl<P: FitStats<I> + Debug, I> Debug for Gathering<P, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gathering")
            .field("params", &self.params)
            .field("stats", &self.stats)
            .finish()
    }
}

impl<P, I> Gather for Gathering<P, I>
where
    I: Input,
    P: FitStats<I> + Debug + Send + Sync,
    P::Stats: Sync,
    P::Model: ModelFile,
{
    fn supervised(&self) -> bool {
        I::SUPERVISED
    }
    fn update(&mut self, batch: &Dataset) -> Result<()> {
        self.stats.partial_fit(I::of(batch))
    }
    fn encode(&self) -> Result<Vec<u8>> {
        encode(&self.stats)
    }
    fn encoded_len(&self) -> usize {
        encoded_len(&self.stats)
    }
    fn merge_encoded(&mut self, bytes: &[u8]) -> Result<()> {
        self.stats.merge(&decode(bytes)?)
    }
    fn model_file(&self) -> Result<Vec<u8>> {
        self.params.fit_stats(&self.stats)?.to_bytes()
    }
}

/// Statistics as bytes: bincode, as model files encode their bodies.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| Error::Numerical(format!("a partition's state could not be encoded: {e}")))
}

/// The length of [`encode`]'s bytes, counted without writing them.
pub(crate) fn encoded_len<T: Serialize>(value: &T) -> usize {
    let mut counter = bincode::enc::write::SizeWriter::default();
    // Counting cannot fail where encoding succeeds; a failure counts what was written.
    let _ = bincode::serde::encode_into_writer(value, &mut counter, bincode::config::standard());
    counter.bytes_written
}

/// Statistics from bytes; the merge that follows checks what it reads.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let (value, used) = bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map_err(|e| {
            Error::model_file(format!(
                "a partition's state could not be decoded ({e}): was it written by another margin version?"
            ))
        })?;
    if used != bytes.len() {
        return Err(Error::model_file("a partition's state has trailing bytes"));
    }
    Ok(value)
}
