//! k-nearest-neighbour regression (scikit-learn's `KNeighborsRegressor`).

use margin_core::params::Params;
use margin_core::{Dataset, Error, Fit, Matrix, Predict, Records, Result, validate};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize, Serializer};

use crate::classifier::refuse_sample_weights;
use crate::index::{Neighbors, SearchIndex, SearchParams, check_k};
use crate::weights::Weights;

/// Parameters of [`KNeighborsRegressor`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct KNeighborsRegressorParams {
    /// Neighbours per query (default 5, ≥ 1 and at most the training rows).
    #[param(
        help = "neighbours per query (at most the training rows)",
        default = 5,
        valid = ("an integer ≥ 1", |k| *k >= 1)
    )]
    n_neighbors: usize,
    /// How neighbours' targets are weighted in the mean (default [`Weights::Uniform`]).
    #[param(help = "equal weights, or 1/distance (exact matches take over)", default = Weights::Uniform)]
    weights: Weights,
    #[param(flatten)]
    search: SearchParams,
}

/// A fitted k-nearest-neighbour regressor: predicts the (weighted) mean of the targets of a
/// query's `k` nearest training rows.
#[derive(Debug, Deserialize)]
#[serde(try_from = "RegressorFile")]
pub struct KNeighborsRegressor {
    params: KNeighborsRegressorParams,
    index: SearchIndex,
    y: Vec<f64>,
}

#[derive(Deserialize)]
struct RegressorFile {
    params: KNeighborsRegressorParams,
    records: Matrix,
    y: Vec<f64>,
}

#[derive(Serialize)]
struct RegressorFileRef<'a> {
    params: &'a KNeighborsRegressorParams,
    records: &'a Matrix,
    y: &'a [f64],
}

impl Serialize for KNeighborsRegressor {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        RegressorFileRef {
            params: &self.params,
            records: self.index.records(),
            y: &self.y,
        }
        .serialize(s)
    }
}

impl TryFrom<RegressorFile> for KNeighborsRegressor {
    type Error = Error;

    fn try_from(f: RegressorFile) -> Result<Self> {
        let invalid =
            |what: String| Error::model_file(format!("inconsistent kNN regressor: {what}"));
        if f.y.len() != f.records.n_samples() || f.y.iter().any(|v| !v.is_finite()) {
            return Err(invalid(format!(
                "{} targets (all finite?) for {} training rows",
                f.y.len(),
                f.records.n_samples()
            )));
        }
        f.params.check().map_err(|e| invalid(e.to_string()))?;
        check_k(f.params.n_neighbors, f.y.len()).map_err(|e| invalid(e.to_string()))?;
        let index = SearchIndex::build(&f.params.search, f.records, Some(f.params.n_neighbors))
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Self {
            params: f.params,
            index,
            y: f.y,
        })
    }
}

impl Fit for KNeighborsRegressorParams {
    type Model = KNeighborsRegressor;

    fn fit(&self, data: &Dataset) -> Result<KNeighborsRegressor> {
        self.check()?;
        // The records' finiteness is checked once, by the index.
        data.check_consistent()?;
        validate::check_non_empty(&data.records)?;
        refuse_sample_weights(data)?;
        let y = data.targets.values()?.into_owned();
        validate::check_finite_slice(&y)?;
        // Predictions sum (weighted) neighbours' targets.
        validate::check_sum_of_squares("the regression targets", y.iter().copied(), None)?;
        check_k(self.n_neighbors, data.n_samples())?;
        let index = SearchIndex::build(
            &self.search,
            crate::nearest::owned_records(&data.records)?,
            Some(self.n_neighbors),
        )?;
        Ok(KNeighborsRegressor {
            params: self.clone(),
            index,
            y,
        })
    }
}

impl KNeighborsRegressor {
    /// The hyperparameters the model was fitted with (see [`KNeighborsRegressorParams`]; checked as `fit` checks
    /// them when a file is loaded).
    pub fn hyperparams(&self) -> &KNeighborsRegressorParams {
        &self.params
    }
    /// Default parameters.
    pub fn params() -> KNeighborsRegressorParams {
        KNeighborsRegressorParams::default()
    }

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
    pub fn kneighbors<R: Records + ?Sized>(&self, queries: &R, k: usize) -> Result<Neighbors> {
        self.index.kneighbors(queries, k)
    }
}

impl Predict for KNeighborsRegressor {
    type Output = Vec<f64>;

    /// `Σ w_i y_i / Σ w_i` over each query's neighbours (the plain mean with uniform weights).
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        let k = self.params.n_neighbors;
        let nb = self.index.kneighbors(records, k)?;
        let mut w = vec![0.0; k];
        Ok((0..nb.n_queries())
            .map(|q| {
                self.params.weights.of(nb.distances(q), &mut w);
                let (mut num, mut den) = (0.0, 0.0);
                for (&i, &wi) in nb.indices(q).iter().zip(&w) {
                    num += wi * self.y[i];
                    den += wi;
                }
                num / den
            })
            .collect())
    }
}

impl ModelFile for KNeighborsRegressor {
    const KIND: &'static str = "knn-regressor";
    const SCHEMA: u32 = 1;

    /// Nothing left to check: decoding (`TryFrom<RegressorFile>`) rebuilt the search index from
    /// the stored records and parameters, checking them as `fit` does, and checked the targets
    /// (one finite value per row) and `n_neighbors` against the rows.
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}
