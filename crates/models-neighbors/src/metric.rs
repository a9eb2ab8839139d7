//! Distance metrics between samples, and the per-pair distance each search computes.
//!
//! Searches rank candidates by a *rank distance* that orders pairs as the metric does but is
//! cheaper (the squared Euclidean distance for the Euclidean family, `Σ|x_j − z_j|^p` for
//! Minkowski) and turn the k winners into metric distances at the end ([`Kind::finish`]).

use margin_core::params::ParamType;
use margin_core::{DenseMatrix, Error, Records, Result, RowView, validate};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// [`Metric`] without its payload: the `metric` parameter (Minkowski's power is the `p`
/// parameter; a given Mahalanobis covariance has no text form and is set with the builder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MetricName {
    Euclidean,
    SqEuclidean,
    Manhattan,
    Chebyshev,
    Minkowski,
    Cosine,
    Mahalanobis,
    Hamming,
}
margin_core::param_choice!(MetricName {
    Euclidean => "euclidean" | "l2",
    SqEuclidean => "sqeuclidean",
    Manhattan => "manhattan" | "l1" | "cityblock",
    Chebyshev => "chebyshev" | "infinity",
    Minkowski => "minkowski",
    Cosine => "cosine",
    Mahalanobis => "mahalanobis",
    Hamming => "hamming",
});

impl MetricName {
    /// The metric of this name, with Minkowski's power `p` and Mahalanobis' covariance
    /// (`None`: from the training records); each is read by its metric only.
    pub(crate) fn with(self, p: f64, covariance: Option<DenseMatrix>) -> Metric {
        match self {
            MetricName::Euclidean => Metric::Euclidean,
            MetricName::SqEuclidean => Metric::SqEuclidean,
            MetricName::Manhattan => Metric::Manhattan,
            MetricName::Chebyshev => Metric::Chebyshev,
            MetricName::Minkowski => Metric::Minkowski(p),
            MetricName::Cosine => Metric::Cosine,
            MetricName::Mahalanobis => {
                Metric::Mahalanobis(covariance.map_or(Covariance::FromTraining, Covariance::Given))
            }
            MetricName::Hamming => Metric::Hamming,
        }
    }
}

/// A distance between two samples `x` and `z` of `d` features.
///
/// | metric | distance |
/// |---|---|
/// | `Euclidean` (default) | `√Σ (x_j − z_j)²` (scikit-learn's default `minkowski` with `p = 2`) |
/// | `SqEuclidean` | `Σ (x_j − z_j)²` (ranks as Euclidean; not a metric: no triangle inequality) |
/// | `Manhattan` | `Σ |x_j − z_j|` |
/// | `Chebyshev` | `max_j |x_j − z_j|` |
/// | `Minkowski(p)` | `(Σ |x_j − z_j|^p)^(1/p)`, `p ≥ 1`; `p = 1, 2, ∞` are computed as Manhattan, Euclidean, Chebyshev |
/// | `Cosine` | `1 − x·z / (‖x‖ ‖z‖)`, in `[0, 2]`: 0 for the same direction, 1 for orthogonal, 2 for opposite |
/// | `Mahalanobis(cov)` | `√((x − z)ᵀ Σ⁻¹ (x − z))` for a covariance `Σ` (see [`Covariance`]) |
/// | `Hamming` | the fraction of the `d` coordinates where `x_j ≠ z_j` |
///
/// Cosine distance follows scipy's and scikit-learn's convention (one minus the similarity,
/// so a larger value is farther). It is undefined for an all-zero row: margin refuses one (in
/// the training or the query records) with [`Error::InvalidParameter`] naming the metric and
/// the row, where scikit-learn silently treats the zero vector as at distance 1 from
/// everything.
///
/// Mahalanobis search whitens the records once (`x ↦ L⁻¹ x` with `Σ = L Lᵀ`, faer's Cholesky)
/// and then searches Euclidean distances, so it uses the same GEMM search and kd-tree. A
/// singular (or numerically singular) covariance is refused with [`Error::InvalidParameter`]
/// naming the feature that makes it so: no pseudo-inverse, because a direction of zero
/// variance would make distances along it meaningless.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Metric {
    /// `√Σ (x_j − z_j)²`.
    #[default]
    Euclidean,
    /// `Σ (x_j − z_j)²`.
    SqEuclidean,
    /// `Σ |x_j − z_j|` (L1, city block).
    Manhattan,
    /// `max_j |x_j − z_j|` (L∞).
    Chebyshev,
    /// `(Σ |x_j − z_j|^p)^(1/p)` for `p ≥ 1` (`f64::INFINITY` is Chebyshev).
    Minkowski(f64),
    /// `1 − cos(x, z)`.
    Cosine,
    /// `√((x − z)ᵀ Σ⁻¹ (x − z))`.
    Mahalanobis(Covariance),
    /// Fraction of differing coordinates.
    Hamming,
}

/// Where a Mahalanobis metric's covariance `Σ` comes from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Covariance {
    /// The sample covariance of the training records (denominator `n − 1`, as `numpy.cov`).
    #[default]
    FromTraining,
    /// A given `d × d` symmetric positive definite matrix.
    Given(DenseMatrix),
}

impl Metric {
    /// The metric named as scikit-learn names it: `euclidean` (`l2`), `sqeuclidean`,
    /// `manhattan` (`l1`, `cityblock`), `chebyshev` (`infinity`), `minkowski` (with `p`),
    /// `cosine`, `mahalanobis` (covariance from the training data), `hamming`. `p` is read
    /// only by `minkowski`.
    pub fn from_name(name: &str, p: f64) -> Result<Self> {
        let metric = MetricName::parse(name)
            .map_err(|expected| Error::invalid_parameter("metric", name, expected))?;
        Ok(metric.with(p, None))
    }

    /// The metric's name and its payload, one parameter each: Minkowski's `p` (2 for the
    /// others, scikit-learn's default) and a given Mahalanobis covariance.
    pub(crate) fn split(self) -> (MetricName, f64, Option<DenseMatrix>) {
        match self {
            Metric::Euclidean => (MetricName::Euclidean, 2.0, None),
            Metric::SqEuclidean => (MetricName::SqEuclidean, 2.0, None),
            Metric::Manhattan => (MetricName::Manhattan, 2.0, None),
            Metric::Chebyshev => (MetricName::Chebyshev, 2.0, None),
            Metric::Minkowski(p) => (MetricName::Minkowski, p, None),
            Metric::Cosine => (MetricName::Cosine, 2.0, None),
            Metric::Mahalanobis(Covariance::FromTraining) => (MetricName::Mahalanobis, 2.0, None),
            Metric::Mahalanobis(Covariance::Given(cov)) => {
                (MetricName::Mahalanobis, 2.0, Some(cov))
            }
            Metric::Hamming => (MetricName::Hamming, 2.0, None),
        }
    }

    /// Checks what the metric's parameter ranges cannot: a given covariance's shape (against
    /// the data's width) and values. (`p ≥ 1` is the `p` parameter's range.)
    pub(crate) fn check(&self, n_features: Option<usize>) -> Result<()> {
        match self {
            Metric::Mahalanobis(Covariance::Given(cov)) => {
                if cov.nrows() != cov.ncols() {
                    return Err(Error::shape(
                        "Mahalanobis covariance (must be square)",
                        cov.nrows(),
                        cov.ncols(),
                    ));
                }
                if let Some(d) = n_features
                    && cov.nrows() != d
                {
                    return Err(Error::shape(
                        "Mahalanobis covariance size (one row per feature)",
                        d,
                        cov.nrows(),
                    ));
                }
                margin_core::validate::check_finite(cov)
            }
            _ => Ok(()),
        }
    }

    /// How searches compute this metric.
    pub(crate) fn kind(&self) -> Kind {
        match *self {
            Metric::Euclidean | Metric::Mahalanobis(_) => Kind::L2,
            Metric::Minkowski(2.0) => Kind::L2,
            Metric::SqEuclidean => Kind::SqL2,
            Metric::Manhattan => Kind::L1,
            Metric::Minkowski(1.0) => Kind::L1,
            Metric::Chebyshev => Kind::Chebyshev,
            Metric::Minkowski(p) if p.is_infinite() => Kind::Chebyshev,
            Metric::Minkowski(p) => Kind::Minkowski(p),
            Metric::Cosine => Kind::Cosine,
            Metric::Hamming => Kind::Hamming,
        }
    }
}

/// A metric as a search computes it: a rank distance per pair, then [`Kind::finish`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Ranked by the squared distance, finished by a square root.
    L2,
    /// Ranked and returned as the squared distance.
    SqL2,
    L1,
    Chebyshev,
    /// Ranked by `Σ|x_j − z_j|^p`, finished by the `1/p` power.
    Minkowski(f64),
    Cosine,
    Hamming,
}

impl Kind {
    /// Whether distances come from dot products and squared norms (the GEMM search).
    pub(crate) fn uses_dot_products(self) -> bool {
        matches!(self, Kind::L2 | Kind::SqL2 | Kind::Cosine)
    }

    /// Whether the kd-tree can bound this distance from a node's bounding box.
    pub(crate) fn tree_supported(self) -> bool {
        matches!(
            self,
            Kind::L2 | Kind::SqL2 | Kind::L1 | Kind::Chebyshev | Kind::Minkowski(_)
        )
    }

    /// The rank distance between `x` and `z` (`d` features; `sq_x`, `sq_z` their squared
    /// norms, read by cosine only). Every search computes returned distances with this one
    /// function, so brute force and the kd-tree return the same bits.
    #[inline]
    pub(crate) fn rank(
        self,
        x: RowView<'_>,
        z: RowView<'_>,
        sq_x: f64,
        sq_z: f64,
        d: usize,
    ) -> f64 {
        match self {
            Kind::L2 | Kind::SqL2 => x.sq_dist(&z),
            Kind::L1 => x.l1_dist(&z),
            Kind::Chebyshev => {
                let mut m = 0.0f64;
                x.zip_union(&z, |a, b| m = m.max((a - b).abs()));
                m
            }
            Kind::Minkowski(p) => {
                let mut s = 0.0;
                x.zip_union(&z, |a, b| s += minkowski_term((a - b).abs(), p));
                s
            }
            Kind::Cosine => cosine(x.dot(&z), sq_x, sq_z),
            Kind::Hamming => {
                let mut differ = 0usize;
                x.zip_union(&z, |a, b| differ += usize::from(a != b));
                differ as f64 / d as f64
            }
        }
    }

    /// The metric distance from a rank distance.
    #[inline]
    pub(crate) fn finish(self, rank: f64) -> f64 {
        match self {
            Kind::L2 => rank.sqrt(),
            Kind::Minkowski(p) => rank.powf(1.0 / p),
            _ => rank,
        }
    }
}

/// `g^p` for a gap `g ≥ 0`: repeated multiplication for a small integer `p` (several times
/// faster than `powf`), `powf` otherwise. Both are monotone in `g`, which the kd-tree's bound
/// relies on.
#[inline]
pub(crate) fn minkowski_term(g: f64, p: f64) -> f64 {
    if p.fract() == 0.0 && p <= 16.0 {
        g.powi(p as i32)
    } else {
        g.powf(p)
    }
}

/// `1 − x·z / (‖x‖ ‖z‖)` from the dot product and the squared norms, clamped to `[0, 2]`
/// (rounding may step outside, and a negative distance would break inverse-distance weights).
/// `√(‖x‖²‖z‖²)` rather than `‖x‖ ‖z‖` makes the distance of a row to itself exactly 0
/// (unless the product overflows).
#[inline]
pub(crate) fn cosine(dot: f64, sq_x: f64, sq_z: f64) -> f64 {
    let product = sq_x * sq_z;
    let norms = if product.is_finite() {
        product.sqrt()
    } else {
        sq_x.sqrt() * sq_z.sqrt()
    };
    (1.0 - dot / norms).clamp(0.0, 2.0)
}

/// Squared norms of every row, checked for what the kind needs: finite (the GEMM search
/// subtracts them, so an overflow would turn into NaN) and, for cosine, non-zero. A NaN or
/// infinity in the records makes its row's norm non-finite, so this also checks the records
/// (reporting the value's row and column as [`validate::check_finite`] does).
pub(crate) fn checked_sq_norms<R: Records + ?Sized>(
    kind: Kind,
    records: &R,
    which: &str,
) -> Result<Vec<f64>> {
    let norms: Vec<f64> = (0..records.n_samples())
        .into_par_iter()
        .map(|i| records.row_sq_norm(i))
        .collect();
    for (i, &s) in norms.iter().enumerate() {
        if !s.is_finite() {
            validate::check_finite(records)?;
            return Err(Error::OutOfRange {
                what: "the features".into(),
                reason: format!(
                    "the squared norm of row {i} of the {which} records overflows f64: scale the \
                     features (their squares must stay below 1e308)"
                ),
            });
        }
        if kind == Kind::Cosine && s == 0.0 {
            return Err(Error::invalid_parameter(
                "metric",
                "cosine",
                format!(
                    "records without all-zero rows (cosine distance is undefined for row {i} of \
                     the {which} records): remove it or choose another metric"
                ),
            ));
        }
    }
    Ok(norms)
}
