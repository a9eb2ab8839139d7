//! The fitted search structure every model queries: training records, the metric as searches
//! compute it, and brute force or a kd-tree.

use margin_core::{DenseMatrix, Error, Matrix, Records, Result, memory, validate};
use serde::{Deserialize, Serialize};

use crate::brute::{self, Out, Space};
use crate::kd_tree::KdTree;
use crate::metric::{Kind, Metric, MetricName, checked_sq_norms};
use crate::whitening::Whitening;
use margin_core::params::{ParamType, Params};

/// `algorithm = auto` picks the kd-tree up to this many features (scikit-learn's rule).
pub const AUTO_TREE_MAX_FEATURES: usize = 15;

/// How `kneighbors` searches (scikit-learn's `algorithm`, without `ball_tree`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algorithm {
    /// The kd-tree when the records have at most [`AUTO_TREE_MAX_FEATURES`] features, the
    /// metric is one the tree supports (Euclidean, squared Euclidean, Manhattan, Chebyshev,
    /// Minkowski, Mahalanobis) and `n_neighbors` is below half the training rows; brute force
    /// otherwise.
    #[default]
    Auto,
    /// Compare every query with every training row (GEMM-blocked for the Euclidean family and
    /// cosine).
    Brute,
    /// The kd-tree (sparse records are densified into it); refused for cosine or Hamming
    /// distance.
    KdTree,
}

impl Algorithm {
    /// `auto`, `brute` or `kd_tree` (scikit-learn's names; `kd-tree` is accepted too).
    pub fn from_name(name: &str) -> Result<Self> {
        Self::parse(name).map_err(|expected| Error::invalid_parameter("algorithm", name, expected))
    }
}

margin_core::param_choice!(Algorithm {
    Auto => "auto",
    Brute => "brute",
    KdTree => "kd_tree" | "kd-tree",
});

/// The `k` nearest training rows of each query, nearest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbors {
    k: usize,
    distances: Vec<f64>,
    indices: Vec<usize>,
}

impl Neighbors {
    /// Number of queries.
    pub fn n_queries(&self) -> usize {
        self.indices.len().checked_div(self.k).unwrap_or(0)
    }

    /// Neighbours per query.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Query `i`'s distances, ascending.
    pub fn distances(&self, i: usize) -> &[f64] {
        &self.distances[i * self.k..(i + 1) * self.k]
    }

    /// Query `i`'s neighbours' training-row indices, in the order of [`Self::distances`].
    pub fn indices(&self, i: usize) -> &[usize] {
        &self.indices[i * self.k..(i + 1) * self.k]
    }

    /// All distances as an `m × k` matrix (scikit-learn's first return value).
    pub fn distance_matrix(&self) -> DenseMatrix {
        DenseMatrix::from_row_major(self.distances.clone(), self.n_queries(), self.k)
            .unwrap_or_else(|_| DenseMatrix::zeros(0, self.k))
    }
}

/// The search parameters every model shares, one field per parameter: the metric's name,
/// Minkowski's `p` and a given Mahalanobis covariance are stored apart (so that setting them
/// by name does not depend on the order) and [`Metric`] is built from them. Model files store
/// the built metric, as before ([`StoredSearch`]). A settings block: each model's params hold
/// it as a `#[param(flatten)]` field and gain its parameters (`algorithm`, `leaf_size`,
/// `metric`, `p`, after their own) and the builder methods `metric`, `algorithm` and
/// `leaf_size`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[serde(into = "StoredSearch", from = "StoredSearch")]
#[params(block, order(algorithm, leaf_size, metric, p), check = |s| s.check_metric())]
pub(crate) struct SearchParams {
    // The explicit link targets are for the builder methods this doc becomes, in the modules
    // of the params structs, where `Metric` and `Algorithm` may not be in scope.
    #[allow(rustdoc::redundant_explicit_links)]
    /// The distance (default [`Metric::Euclidean`](crate::Metric::Euclidean)).
    #[param(
        help = "distance: euclidean, sqeuclidean, manhattan, chebyshev, minkowski, cosine, mahalanobis (covariance of the training data) or hamming",
        default = crate::metric::MetricName::Euclidean,
        setter(via = |s, metric, _| s.set_metric(metric), arg = crate::Metric)
    )]
    pub(crate) metric: crate::metric::MetricName,
    /// Minkowski's power; 2 (the default) unless the metric is Minkowski.
    #[param(
        help = "Minkowski power",
        default = 2.0,
        valid = (
            "a number ≥ 1 (or infinity); below 1 Minkowski is not a metric",
            |p| *p >= 1.0
        ),
        applies = ("with metric minkowski", |s| {
            s.metric == crate::metric::MetricName::Minkowski
        }),
        setter(skip)
    )]
    pub(crate) p: f64,
    /// A given Mahalanobis covariance (`None`: from the training records).
    #[param(skip)]
    pub(crate) covariance: Option<margin_core::DenseMatrix>,
    #[allow(rustdoc::redundant_explicit_links)]
    /// The search (default [`Algorithm::Auto`](crate::Algorithm::Auto)).
    #[param(
        help = "search: auto (kd-tree for dense data, ≤ 15 features, a supported metric), brute or kd_tree",
        default = crate::Algorithm::Auto
    )]
    pub(crate) algorithm: crate::Algorithm,
    /// Most points in a kd-tree leaf (default 30, ≥ 1); results do not depend on it.
    #[param(
        help = "most points in a kd-tree leaf (results do not depend on it)",
        default = 30,
        valid = ("an integer ≥ 1", |l| *l >= 1)
    )]
    pub(crate) leaf_size: usize,
}

/// How model files store [`SearchParams`] (the layout before the metric was split).
#[derive(Serialize, Deserialize)]
struct StoredSearch {
    metric: Metric,
    algorithm: Algorithm,
    leaf_size: usize,
}

impl From<SearchParams> for StoredSearch {
    fn from(s: SearchParams) -> Self {
        Self {
            metric: s.metric(),
            algorithm: s.algorithm,
            leaf_size: s.leaf_size,
        }
    }
}

impl From<StoredSearch> for SearchParams {
    fn from(s: StoredSearch) -> Self {
        let mut params = SearchParams {
            algorithm: s.algorithm,
            leaf_size: s.leaf_size,
            ..SearchParams::default()
        };
        params.set_metric(s.metric);
        params
    }
}

impl SearchParams {
    /// The metric the fields describe.
    pub(crate) fn metric(&self) -> Metric {
        self.metric.with(self.p, self.covariance.clone())
    }

    /// Sets the metric and its payload (what the `metric` builder does).
    pub(crate) fn set_metric(&mut self, metric: Metric) {
        (self.metric, self.p, self.covariance) = metric.split();
    }

    /// The rules that tie the metric's parameters together: `p` and a given covariance go
    /// with their metric only.
    fn check_metric(&self) -> Result<()> {
        if self.p != 2.0 && self.metric != MetricName::Minkowski {
            return Err(Error::invalid_parameter(
                "p",
                self.p,
                "2 (the default) unless metric is minkowski",
            ));
        }
        if self.covariance.is_some() && self.metric != MetricName::Mahalanobis {
            return Err(Error::invalid_parameter(
                "metric",
                self.metric.to_value(),
                "mahalanobis when a covariance is given",
            ));
        }
        Ok(())
    }
}

/// Refuses `k` outside `1..=n`.
/// `m × k` copies of `value`, one row of neighbours per query, asked for first (`k` can be as
/// large as the training set).
fn neighbour_table<T: Clone>(m: usize, k: usize, value: T) -> Result<Vec<T>> {
    memory::filled_grid(
        m,
        k,
        value,
        &format!("the neighbours of {m} queries ({k} each)"),
        "ask for fewer neighbours (k) or query fewer rows at a time",
    )
}

pub(crate) fn check_k(k: usize, n: usize) -> Result<()> {
    if k == 0 || k > n {
        return Err(Error::invalid_parameter(
            "n_neighbors",
            k,
            format!(
                "an integer in [1, {n}] (at most the number of training samples, n_samples = {n})"
            ),
        ));
    }
    Ok(())
}

/// Training records ready to be searched.
#[derive(Clone, Debug)]
pub(crate) struct SearchIndex {
    params: SearchParams,
    /// The metric `params` describe.
    metric: Metric,
    kind: Kind,
    records: Matrix,
    /// Mahalanobis: the factor and the whitened training records (the search space).
    whitened: Option<(Whitening, Matrix)>,
    /// Squared norms of the search space's rows (dot-product kinds).
    sq_norms: Vec<f64>,
    tree: Option<KdTree>,
}

impl SearchIndex {
    /// Validates `records` and the parameters and builds the index; `n_neighbors` (if known
    /// at fit) takes part in the `auto` rule.
    pub(crate) fn build(
        params: &SearchParams,
        records: Matrix,
        n_neighbors: Option<usize>,
    ) -> Result<Self> {
        validate::check_non_empty(&records)?;
        let metric = params.metric();
        metric.check(Some(records.n_features()))?;
        let kind = metric.kind();
        let mahalanobis = matches!(metric, Metric::Mahalanobis(_));
        // The dot-product kinds check finiteness with their squared norms, in one pass.
        if !kind.uses_dot_products() || mahalanobis {
            validate::check_finite(&records)?;
        }
        let whitened = match &metric {
            Metric::Mahalanobis(cov) => {
                let w = Whitening::new(cov, &records)?;
                let space = Matrix::Dense(w.apply(&records)?);
                Some((w, space))
            }
            _ => None,
        };
        let space = whitened.as_ref().map_or(&records, |(_, s)| s);
        let sq_norms = if kind.uses_dot_products() {
            checked_sq_norms(kind, space, "training")?
        } else {
            Vec::new()
        };
        let use_tree = match params.algorithm {
            Algorithm::Brute => false,
            Algorithm::KdTree if !kind.tree_supported() => {
                return Err(Error::invalid_parameter(
                    "algorithm",
                    "kd_tree",
                    format!(
                        "brute or auto for {:?} (the kd-tree supports the Minkowski family and Mahalanobis)",
                        metric
                    ),
                ));
            }
            Algorithm::KdTree => true,
            Algorithm::Auto => {
                kind.tree_supported()
                    && space.n_features() <= AUTO_TREE_MAX_FEATURES
                    && n_neighbors.is_none_or(|k| k < space.n_samples() / 2)
            }
        };
        let tree = match use_tree {
            true => Some(KdTree::build(space, params.leaf_size)?),
            false => None,
        };
        Ok(Self {
            params: params.clone(),
            metric,
            kind,
            records,
            whitened,
            sq_norms,
            tree,
        })
    }

    /// The training records, as fitted.
    pub(crate) fn records(&self) -> &Matrix {
        &self.records
    }

    /// The parameters.
    pub(crate) fn params(&self) -> &SearchParams {
        &self.params
    }

    /// The metric.
    pub(crate) fn metric(&self) -> &Metric {
        &self.metric
    }

    /// Number of training rows.
    pub(crate) fn n_samples(&self) -> usize {
        self.records.n_samples()
    }

    /// Number of features.
    pub(crate) fn n_features(&self) -> usize {
        self.records.n_features()
    }

    /// Whether queries go through the kd-tree.
    pub(crate) fn uses_tree(&self) -> bool {
        self.tree.is_some()
    }

    /// The `k` nearest training rows of every query row.
    pub(crate) fn kneighbors<Q: Records + ?Sized>(
        &self,
        queries: &Q,
        k: usize,
    ) -> Result<Neighbors> {
        validate::check_n_features(self.n_features(), queries)?;
        check_k(k, self.n_samples())?;
        // Brute force with dot products checks finiteness with the queries' squared norms.
        if !self.kind.uses_dot_products() || self.whitened.is_some() || self.tree.is_some() {
            validate::check_finite(queries)?;
        }
        match &self.whitened {
            Some((w, space)) => self.search(space, &w.apply(queries)?, k),
            None => self.search(&self.records, queries, k),
        }
    }

    fn search<Q: Records + ?Sized>(
        &self,
        space: &Matrix,
        queries: &Q,
        k: usize,
    ) -> Result<Neighbors> {
        let m = queries.n_samples();
        let mut distances = neighbour_table(m, k, 0.0)?;
        let mut indices = neighbour_table(m, k, 0)?;
        match &self.tree {
            Some(tree) => tree.search(self.kind, queries, k, &mut distances, &mut indices),
            None => {
                if self.kind.uses_dot_products() && matches!(space, Matrix::Dense(_)) {
                    // Dense training rows meet the queries through faer's products.
                    memory::check_products(
                        brute::QUERY_BLOCK.min(m),
                        brute::TRAIN_BLOCK.min(space.n_samples()),
                        space.n_features(),
                    )?;
                }
                let q_sq = if self.kind.uses_dot_products() {
                    checked_sq_norms(self.kind, queries, "query")?
                } else {
                    Vec::new()
                };
                let space = Space {
                    kind: self.kind,
                    records: space,
                    sq_norms: &self.sq_norms,
                };
                let out = Out {
                    k,
                    dist: &mut distances,
                    index: &mut indices,
                };
                brute::search(&space, queries, &q_sq, out);
            }
        }
        if let Some(p) = distances.iter().position(|v| !v.is_finite()) {
            return Err(Error::OutOfRange {
                what: "the features".into(),
                reason: format!(
                    "the distance from query {} to a neighbour overflows f64: scale the features",
                    p / k
                ),
            });
        }
        Ok(Neighbors {
            k,
            distances,
            indices,
        })
    }
}
