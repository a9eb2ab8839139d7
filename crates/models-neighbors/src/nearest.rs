//! Unsupervised neighbour search (scikit-learn's `NearestNeighbors`).

use margin_core::params::Params;
use margin_core::{Error, Fit, Matrix, Records, Result};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize, Serializer};

use crate::index::{Algorithm, Neighbors, SearchIndex, SearchParams};
use crate::metric::Metric;

/// Owned records of any layout, kept as dense or CSR.
pub(crate) fn owned_records<R: Records + ?Sized>(records: &R) -> Result<Matrix> {
    Ok(match (records.as_dense(), records.as_sparse()) {
        (_, Some(s)) => Matrix::Sparse(s.clone()),
        (Some(d), _) => Matrix::Dense(d.to_owned()?),
        (None, None) => Matrix::Dense(records.to_dense()?),
    })
}

/// Parameters of [`NearestNeighbors`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct NearestNeighborsParams {
    /// Neighbours per query (default 5, ≥ 1 and at most the training rows).
    #[param(
        help = "neighbours per query (at most the training rows)",
        default = 5,
        valid = ("an integer ≥ 1", |k| *k >= 1)
    )]
    n_neighbors: usize,
    #[param(flatten)]
    search: SearchParams,
}

/// An index over training records answering k-nearest-neighbour queries.
///
/// `n_neighbors` is the `k` the `auto` algorithm rule assumes (as in scikit-learn); each
/// [`kneighbors`](Self::kneighbors) call names its own `k`.
#[derive(Debug, Deserialize)]
#[serde(try_from = "NearestFile")]
pub struct NearestNeighbors {
    params: NearestNeighborsParams,
    index: SearchIndex,
}

/// The stored model: the parameters (`n_neighbors`, then the search's, the layout the file had
/// before it kept them whole) and the training records.
#[derive(Deserialize)]
struct NearestFile {
    params: NearestNeighborsParams,
    records: Matrix,
}

#[derive(Serialize)]
struct NearestFileRef<'a> {
    params: &'a NearestNeighborsParams,
    records: &'a Matrix,
}

impl Serialize for NearestNeighbors {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        NearestFileRef {
            params: &self.params,
            records: self.index.records(),
        }
        .serialize(s)
    }
}

impl TryFrom<NearestFile> for NearestNeighbors {
    type Error = Error;

    fn try_from(f: NearestFile) -> Result<Self> {
        f.params
            .build(f.records)
            .map_err(|e| Error::model_file(format!("the stored neighbour index is invalid: {e}")))
    }
}

impl NearestNeighborsParams {
    fn build(&self, records: Matrix) -> Result<NearestNeighbors> {
        self.check()?;
        Ok(NearestNeighbors {
            params: self.clone(),
            index: SearchIndex::build(&self.search, records, Some(self.n_neighbors))?,
        })
    }
}

impl<R: Records + ?Sized> Fit<R> for NearestNeighborsParams {
    type Model = NearestNeighbors;

    /// Validates the records (non-empty, finite) and the parameters, then builds the index.
    fn fit(&self, records: &R) -> Result<NearestNeighbors> {
        self.build(owned_records(records)?)
    }
}

impl NearestNeighbors {
    /// Default parameters.
    pub fn params() -> NearestNeighborsParams {
        NearestNeighborsParams::default()
    }

    /// The `k` nearest training rows of every row of `queries`, nearest first; equally distant
    /// training rows in index order. `k` must be in `[1, n_samples]`.
    pub fn kneighbors<R: Records + ?Sized>(&self, queries: &R, k: usize) -> Result<Neighbors> {
        self.index.kneighbors(queries, k)
    }

    /// The `n_neighbors` parameter.
    pub fn n_neighbors(&self) -> usize {
        self.params.n_neighbors
    }

    /// The hyperparameters the model was fitted with (see [`NearestNeighborsParams`]; checked
    /// as `fit` checks them when a file is loaded).
    pub fn hyperparams(&self) -> &NearestNeighborsParams {
        &self.params
    }

    /// The metric.
    pub fn metric(&self) -> &Metric {
        self.index.metric()
    }

    /// The algorithm parameter (possibly `Auto`); see [`Self::uses_kd_tree`] for the choice.
    pub fn algorithm(&self) -> Algorithm {
        self.index.params().algorithm
    }

    /// Whether queries go through the kd-tree (else brute force).
    pub fn uses_kd_tree(&self) -> bool {
        self.index.uses_tree()
    }

    /// The training records.
    pub fn records(&self) -> &Matrix {
        self.index.records()
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.index.n_features()
    }
}

impl ModelFile for NearestNeighbors {
    const KIND: &'static str = "nearest-neighbors";
    const SCHEMA: u32 = 1;

    /// Nothing left to check: decoding (`TryFrom<NearestFile>`) rebuilt the search index from
    /// the stored records and parameters, checking them and `n_neighbors ≥ 1` as `fit` does.
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}
