//! k-nearest-neighbour regression (scikit-learn's `KNeighborsRegressor`).

use margin_core::params::Params;
use margin_core::{Dataset, Error, Fit, Matrix, Predict, Records, Result, validate};
use margin_io::ModelFile;
use serde::{Deserialize, Serialize, Serializer};

use crate::index::{Neighbors, SearchIndex, SearchParams};
use crate::supervised::{fit_index, inconsistent, index_accessors, load_index};
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
        if f.y.len() != f.records.n_samples() || f.y.iter().any(|v| !v.is_finite()) {
            return Err(inconsistent(
                "regressor",
                format!(
                    "{} targets (all finite?) for {} training rows",
                    f.y.len(),
                    f.records.n_samples()
                ),
            ));
        }
        let k = f.params.n_neighbors;
        let index = load_index("regressor", &f.params, &f.params.search, k, f.records)?;
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
        let (index, y) = fit_index(self, &self.search, self.n_neighbors, data, |data| {
            let y = data.targets.values()?.into_owned();
            validate::check_finite_slice(&y)?;
            // Predictions sum (weighted) neighbours' targets.
            validate::check_sum_of_squares("the regression targets", y.iter().copied(), None)?;
            Ok(y)
        })?;
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
}

index_accessors!(KNeighborsRegressor);

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
