//! A random n-class problem of Gaussian clusters on hypercube vertices (scikit-learn's
//! `make_classification`, after Guyon's design of the Madelon dataset).

use rand::Rng;
use rand::seq::index;
use serde::{Deserialize, Serialize};

use super::{Drawn, Per, buffer, dataset, fill_standard_normal, records};
use crate::dataset::Dataset;
use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::params::{ParamType, Params};
use crate::split::rng_from_seed;

/// Parameters of [`make_classification`] (scikit-learn's names and defaults): 100 samples, 20
/// features of which 2 informative, 2 redundant and 0 repeated, 2 classes of 2 clusters each,
/// balanced, 1% of labels flipped, `class_sep` 1 on a hypercube, no shift, scale 1, shuffled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(check = Classification::check_counts)]
pub struct Classification {
    /// Number of samples (default 100).
    #[param(help = "number of samples", default = 100, valid = ("an integer ≥ 1", at_least_one))]
    n_samples: usize,
    /// Features in all (default 20): informative, redundant and repeated ones first (before
    /// shuffling), random noise for the rest.
    #[param(
        help = "features in all: informative, redundant, repeated, and random ones for the rest",
        default = 20,
        valid = ("an integer ≥ 1", at_least_one)
    )]
    n_features: usize,
    /// Informative features (default 2): the clusters sit on the vertices of a hypercube of
    /// this dimension, so `n_classes · n_clusters_per_class ≤ 2^n_informative`.
    #[param(
        help = "features that place the clusters (dimension of the hypercube)",
        default = 2,
        valid = ("an integer ≥ 1", at_least_one)
    )]
    n_informative: usize,
    /// Redundant features: random linear combinations of the informative ones (default 2).
    #[param(
        help = "random linear combinations of the informative features",
        default = 2
    )]
    n_redundant: usize,
    /// Repeated features: copies of informative or redundant ones, drawn at random (default 0).
    #[param(help = "copies of informative or redundant features")]
    n_repeated: usize,
    /// Number of classes (default 2).
    #[param(help = "number of classes", default = 2, valid = ("an integer ≥ 1", at_least_one))]
    n_classes: usize,
    /// Gaussian clusters per class (default 2).
    #[param(
        help = "Gaussian clusters per class",
        default = 2,
        valid = ("an integer ≥ 1", at_least_one)
    )]
    n_clusters_per_class: usize,
    /// Share of samples per class, `n_classes` values or `n_classes − 1` (the last class takes
    /// the rest of 1); summing to at most 1, what is left is spread over the clusters in turn
    /// (default: balanced).
    #[param(
        help = "share of samples per class, n_classes or n_classes − 1 of them (none: balanced)",
        valid = ("none, or finite numbers ≥ 0", |w| w.as_ref().is_none_or(|w| w.iter().all(|v| v.is_finite() && *v >= 0.0))),
        setter(strip_option)
    )]
    weights: Option<Vec<f64>>,
    /// Share of samples whose class is redrawn uniformly at random, in [0, 1] (default 0.01).
    #[param(
        help = "share of samples whose class is redrawn at random",
        default = 0.01,
        valid = ("a number in [0, 1]", |f| (0.0..=1.0).contains(f))
    )]
    flip_y: f64,
    /// Half the side of the hypercube (default 1): larger spreads the classes apart.
    #[param(
        help = "half the side of the hypercube: larger spreads the classes apart",
        default = 1.0,
        valid = ("a finite number > 0", |s| s.is_finite() && *s > 0.0)
    )]
    class_sep: f64,
    /// Clusters on hypercube vertices (default true), or on the vertices of a random polytope.
    #[param(
        help = "clusters on hypercube vertices (false: on a random polytope)",
        default = true
    )]
    hypercube: bool,
    /// Added to every feature, or one value per feature (default 0); `None` draws one per
    /// feature in [−class_sep, class_sep].
    #[param(
        help = "added to every feature, or one per feature (none: random in [−class_sep, class_sep])",
        default = Some(Per::All(0.0)),
        valid = ("none, or finite numbers", |s| s.as_ref().is_none_or(|s| s.all(f64::is_finite)))
    )]
    shift: Option<Per>,
    /// Multiplies every feature after the shift, or one value per feature (default 1); `None`
    /// draws one per feature in [1, 101].
    #[param(
        help = "multiplies every feature after the shift, or one per feature (none: random in [1, 101])",
        default = Some(Per::All(1.0)),
        valid = ("none, or finite numbers > 0", |s| s.as_ref().is_none_or(|s| s.all(|v| v.is_finite() && v > 0.0)))
    )]
    scale: Option<Per>,
    /// Whether to shuffle the samples and the features (default true).
    #[param(help = "shuffle the samples and the features", default = true)]
    shuffle: bool,
    /// Seed of the random draws (default 0).
    #[param(help = "seed of the random draws")]
    seed: u64,
}

fn at_least_one(n: &usize) -> bool {
    *n >= 1
}

impl Classification {
    /// The rules that tie the counts together.
    fn check_counts(&self) -> Result<()> {
        let used = self
            .n_informative
            .saturating_add(self.n_redundant)
            .saturating_add(self.n_repeated);
        if used > self.n_features {
            return Err(Error::invalid_parameter(
                "n_features",
                self.n_features,
                format!(
                    "at least n_informative + n_redundant + n_repeated = {} + {} + {} = {used}",
                    self.n_informative, self.n_redundant, self.n_repeated
                ),
            ));
        }
        let clusters = (self.n_classes as u128).saturating_mul(self.n_clusters_per_class as u128);
        if self.n_informative < 128 && clusters > 1u128 << self.n_informative {
            return Err(Error::invalid_parameter(
                "n_informative",
                self.n_informative,
                format!(
                    "enough hypercube vertices for n_classes · n_clusters_per_class = {} · {} = {clusters} clusters (2^n_informative ≥ {clusters})",
                    self.n_classes, self.n_clusters_per_class
                ),
            ));
        }
        if let Some(w) = &self.weights {
            let k = self.n_classes;
            if w.len() != k && w.len() + 1 != k {
                return Err(Error::invalid_parameter(
                    "weights",
                    w.to_value(),
                    format!("n_classes ({k}) or n_classes − 1 values"),
                ));
            }
            if w.iter().sum::<f64>() > 1.0 + 1e-9 {
                return Err(Error::invalid_parameter(
                    "weights",
                    w.to_value(),
                    "shares summing to at most 1",
                ));
            }
        }
        for (name, per) in [("shift", &self.shift), ("scale", &self.scale)] {
            if let Some(per) = per {
                per.check_len(name, self.n_features, "feature")?;
            }
        }
        Ok(())
    }

    /// Each class's share of the samples.
    fn class_shares(&self) -> Result<Vec<f64>> {
        let k = self.n_classes;
        Ok(match &self.weights {
            None => buffer(k, 1.0 / k as f64, "class shares")?,
            Some(w) if w.len() == k => w.clone(),
            Some(w) => {
                let mut all = w.clone();
                all.push((1.0 - w.iter().sum::<f64>()).max(0.0));
                all
            }
        })
    }

    /// Samples per cluster (cluster `c` belongs to class `c % n_classes`): each cluster its
    /// class's share split over the class's clusters, rounded down, and the samples left over
    /// dealt one per cluster in turn.
    fn cluster_sizes(&self) -> Result<Vec<usize>> {
        let n = self.n_samples;
        let k = self.n_classes;
        let per_class = self.n_clusters_per_class;
        let clusters = k.checked_mul(per_class).ok_or_else(|| {
            Error::invalid_parameter(
                "n_clusters_per_class",
                per_class,
                "n_classes · n_clusters_per_class below 2^64",
            )
        })?;
        let mut sizes = buffer(clusters, 0, "cluster sizes")?;
        let shares = self.class_shares()?;
        for (c, size) in sizes.iter_mut().enumerate() {
            *size = (n as f64 * shares[c % k] / per_class as f64) as usize;
        }
        let drawn: usize = sizes.iter().sum();
        let Some(left) = n.checked_sub(drawn) else {
            return Err(Error::invalid_parameter(
                "weights",
                self.weights.to_value(),
                "shares summing to at most 1",
            ));
        };
        for c in 0..left {
            sizes[c % clusters] += 1;
        }
        Ok(sizes)
    }
}

/// `rows × cols` uniform draws in [−1, 1), row by row.
fn signed_uniform(rng: &mut impl Rng, rows: usize, cols: usize) -> Result<DenseMatrix> {
    let mut m = DenseMatrix::try_zeros(rows, cols, "random mixing matrix", super::FEWER)?;
    for v in m.as_mut_slice() {
        *v = 2.0 * rng.random::<f64>() - 1.0;
    }
    Ok(m)
}

/// `count` distinct vertices of the unit hypercube in `dim` dimensions, one row each (0/1
/// coordinates). Distinct in their last `b` coordinates, `b` the fewest bits that can hold
/// `count` distinct values and at least 30 when `dim` allows; the others are random bits.
fn hypercube_vertices(rng: &mut impl Rng, count: usize, dim: usize) -> Result<DenseMatrix> {
    let need = usize::BITS - count.saturating_sub(1).leading_zeros();
    let bits = dim.min((need as usize).max(30));
    let codes = index::sample(rng, 1usize << bits, count);
    let mut v = DenseMatrix::try_zeros(count, dim, "cluster centroids", super::FEWER)?;
    for (c, code) in codes.into_iter().enumerate() {
        let row = v.row_mut(c);
        let (free, coded) = row.split_at_mut(dim - bits);
        for x in free {
            *x = f64::from(u8::from(rng.random::<bool>()));
        }
        for (b, x) in coded.iter_mut().enumerate() {
            *x = ((code >> (bits - 1 - b)) & 1) as f64;
        }
    }
    Ok(v)
}

/// A random classification problem (scikit-learn's `make_classification`): each class is
/// `n_clusters_per_class` Gaussian clusters (standard normal, mixed by a random matrix with
/// entries in [−1, 1) to give them covariance), each centred on its own vertex of a hypercube
/// of side `2 · class_sep` in the informative features. Then, in this order of columns before
/// shuffling: the informative features, the redundant ones (random linear combinations of the
/// informative ones), the repeated ones (copies of earlier columns), standard normal noise for
/// the rest; `flip_y` of the labels redrawn at random; every feature shifted, then scaled.
///
/// ```
/// use margin_core::generate::{Classification, make_classification};
///
/// // 3 classes of 2 clusters: 6 vertices, so a cube of 3 informative features.
/// let p = Classification::default().n_samples(600).n_classes(3).n_informative(3);
/// // The last class takes what the others leave.
/// let data = make_classification(&p.weights(vec![0.5, 0.25]).flip_y(0.0).seed(3))?;
/// assert_eq!(data.targets.classes()?.counts(), [300, 150, 150]);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn make_classification(params: &Classification) -> Result<Dataset> {
    params.check()?;
    let p = params;
    let (n, d, inf) = (p.n_samples, p.n_features, p.n_informative);
    let mut x = records(n, d)?;
    let mut y = buffer(n, 0, "generated classes")?;
    let sizes = p.cluster_sizes()?;
    let mut rng = rng_from_seed(p.seed);

    let mut centroids = hypercube_vertices(&mut rng, sizes.len(), inf)?;
    for v in centroids.as_mut_slice() {
        *v = *v * 2.0 * p.class_sep - p.class_sep;
    }
    if !p.hypercube {
        let per_cluster: Vec<f64> = (0..sizes.len()).map(|_| rng.random()).collect();
        let per_feature: Vec<f64> = (0..inf).map(|_| rng.random()).collect();
        for (c, &a) in per_cluster.iter().enumerate() {
            for (v, &b) in centroids.row_mut(c).iter_mut().zip(&per_feature) {
                *v *= a * b;
            }
        }
    }

    let mut z = buffer(inf, 0.0, "one sample")?;
    let mut start = 0;
    for (c, &size) in sizes.iter().enumerate() {
        let mix = signed_uniform(&mut rng, inf, inf)?;
        let centre = centroids.row(c);
        y[start..start + size].fill(c % p.n_classes);
        for i in start..start + size {
            fill_standard_normal(&mut rng, &mut z);
            let row = &mut x.row_mut(i)[..inf];
            for (j, v) in row.iter_mut().enumerate() {
                *v = centre[j]
                    + z.iter()
                        .enumerate()
                        .map(|(l, &z)| z * mix.get(l, j))
                        .sum::<f64>();
            }
        }
        start += size;
    }

    if p.n_redundant > 0 {
        let mix = signed_uniform(&mut rng, inf, p.n_redundant)?;
        for i in 0..n {
            let row = x.row_mut(i);
            let (informative, rest) = row.split_at_mut(inf);
            for (j, v) in rest[..p.n_redundant].iter_mut().enumerate() {
                *v = informative
                    .iter()
                    .enumerate()
                    .map(|(l, &a)| a * mix.get(l, j))
                    .sum();
            }
        }
    }
    let useful = inf + p.n_redundant;
    if p.n_repeated > 0 {
        let sources: Vec<usize> = (0..p.n_repeated)
            .map(|_| rng.random_range(0..useful))
            .collect();
        for i in 0..n {
            let row = x.row_mut(i);
            for (r, &s) in sources.iter().enumerate() {
                row[useful + r] = row[s];
            }
        }
    }
    let filled = useful + p.n_repeated;
    for i in 0..n {
        fill_standard_normal(&mut rng, &mut x.row_mut(i)[filled..]);
    }

    if p.flip_y > 0.0 {
        for label in y.iter_mut() {
            if rng.random::<f64>() < p.flip_y {
                *label = rng.random_range(0..p.n_classes);
            }
        }
    }

    let shift = match &p.shift {
        Some(per) => (0..d).map(|j| per.at(j)).collect::<Vec<_>>(),
        None => (0..d)
            .map(|_| (2.0 * rng.random::<f64>() - 1.0) * p.class_sep)
            .collect(),
    };
    let scale = match &p.scale {
        Some(per) => (0..d).map(|j| per.at(j)).collect::<Vec<_>>(),
        None => (0..d).map(|_| 1.0 + 100.0 * rng.random::<f64>()).collect(),
    };
    for i in 0..n {
        for ((v, a), b) in x.row_mut(i).iter_mut().zip(&shift).zip(&scale) {
            *v = (*v + a) * b;
        }
    }

    if p.shuffle {
        super::shuffle_rows(&mut x, &mut y, &mut rng);
        super::shuffle_columns(&mut x, &mut rng)?;
    }
    dataset(x, Drawn::Classes(y, p.n_classes))
}
