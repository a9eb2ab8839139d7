//! What the kNN classifier and regressor share: both fit the same way up to their targets
//! (checked parameters and data, a search index over the training records), rebuild that index
//! the same way from a model file, and answer the same questions about it.

use margin_core::params::Params;
use margin_core::{Dataset, Error, Matrix, Result, validate};

use crate::index::{SearchIndex, SearchParams, check_k};

/// Refuses sample weights: neighbour methods do not weight training samples (scikit-learn's
/// `fit` takes none either), and ignoring them silently would fit another model than asked.
fn refuse_sample_weights(data: &Dataset) -> Result<()> {
    if data.sample_weights.is_some() {
        return Err(Error::invalid_parameter(
            "sample_weights",
            "given",
            "none: k-nearest neighbours does not weight training samples",
        ));
    }
    Ok(())
}

/// Fits the part a kNN model shares: checks `params` and `data`, reads the targets with
/// `targets` (which checks them), checks `k` against the rows and builds the search index over
/// the training records. Returns the index and the targets.
pub(crate) fn fit_index<P: Params, T>(
    params: &P,
    search: &SearchParams,
    k: usize,
    data: &Dataset,
    targets: impl FnOnce(&Dataset) -> Result<T>,
) -> Result<(SearchIndex, T)> {
    params.check()?;
    // The records' finiteness is checked once, by the index.
    data.check_consistent()?;
    validate::check_non_empty(&data.records)?;
    refuse_sample_weights(data)?;
    let targets = targets(data)?;
    check_k(k, data.n_samples())?;
    let index = SearchIndex::build(
        search,
        crate::nearest::owned_records(&data.records)?,
        Some(k),
    )?;
    Ok((index, targets))
}

/// A model file's inconsistency, for the kNN `model` (`classifier` or `regressor`).
pub(crate) fn inconsistent(model: &str, what: impl std::fmt::Display) -> Error {
    Error::model_file(format!("inconsistent kNN {model}: {what}"))
}

/// Rebuilds a decoded kNN `model`'s search index from its stored parameters and records
/// (whose targets the caller has checked against the rows), checking them as `fit` does.
pub(crate) fn load_index<P: Params>(
    model: &str,
    params: &P,
    search: &SearchParams,
    k: usize,
    records: Matrix,
) -> Result<SearchIndex> {
    let invalid = |e: Error| inconsistent(model, e);
    params.check().map_err(invalid)?;
    check_k(k, margin_core::Records::n_samples(&records)).map_err(invalid)?;
    SearchIndex::build(search, records, Some(k)).map_err(invalid)
}

/// The accessors the kNN classifier and regressor share, read from their `params` and `index`
/// fields.
macro_rules! index_accessors {
    ($model:ty) => {
        impl $model {
            /// Number of features.
            pub fn n_features(&self) -> usize {
                self.index.n_features()
            }

            /// The `n_neighbors` parameter.
            pub fn n_neighbors(&self) -> usize {
                self.params.n_neighbors
            }

            /// Whether queries go through the kd-tree (else brute force).
            pub fn uses_kd_tree(&self) -> bool {
                self.index.uses_tree()
            }

            /// The `k` nearest training rows of every query (see
            /// [`NearestNeighbors::kneighbors`](crate::NearestNeighbors::kneighbors)).
            pub fn kneighbors<R: Records + ?Sized>(
                &self,
                queries: &R,
                k: usize,
            ) -> Result<Neighbors> {
                self.index.kneighbors(queries, k)
            }
        }
    };
}
pub(crate) use index_accessors;
