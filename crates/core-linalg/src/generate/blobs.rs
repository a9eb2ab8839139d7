//! Isotropic Gaussian blobs (scikit-learn's `make_blobs`).

use std::borrow::Cow;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Drawn, NSamples, Per, dataset, fill_standard_normal, records};
use crate::dataset::Dataset;
use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::params::{ParamType, Params, Value};
use crate::split::rng_from_seed;

/// The blobs' centres: how many to place at random in `center_box`, or where they are (one
/// row per centre; their width sets the number of features). Written `3` or `0,0;5,5` (rows
/// separated by `;`) as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Centers {
    /// This many centres, drawn uniformly in `center_box`.
    Count(usize),
    /// The centres themselves.
    Points(DenseMatrix),
}

impl Centers {
    fn is_valid(&self) -> bool {
        match self {
            Centers::Count(k) => *k >= 1,
            Centers::Points(c) => {
                c.nrows() >= 1 && c.ncols() >= 1 && c.as_slice().iter().all(|v| v.is_finite())
            }
        }
    }
}

impl From<usize> for Centers {
    fn from(k: usize) -> Self {
        Centers::Count(k)
    }
}

impl From<DenseMatrix> for Centers {
    fn from(points: DenseMatrix) -> Self {
        Centers::Points(points)
    }
}

impl ParamType for Centers {
    fn kind() -> Cow<'static, str> {
        "<int>|x,y,...;x,y,...".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        if let Ok(k) = usize::parse(text) {
            return Ok(Centers::Count(k));
        }
        let expected = || {
            "a count, or centre points: numbers separated by commas, rows by `;` (as 0,0;5,5)"
                .to_owned()
        };
        let rows = text
            .split(';')
            .filter(|row| !row.trim().is_empty())
            .map(Vec::<f64>::parse)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| expected())?;
        DenseMatrix::from_rows(&rows)
            .map(Centers::Points)
            .map_err(|_| expected())
    }
    fn to_value(&self) -> Value {
        match self {
            Centers::Count(k) => k.to_value(),
            Centers::Points(c) => Value::Text(
                c.rows()
                    .map(|row| row.to_vec().to_value().to_string())
                    .collect::<Vec<_>>()
                    .join(";"),
            ),
        }
    }
}

/// Parameters of [`make_blobs`] (scikit-learn's names and defaults): `n_samples` 100 split
/// evenly over the centres, 2 features, 3 centres drawn in the box (−10, 10), standard
/// deviation 1, shuffled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(check = |p| {
    let k = p.n_centers();
    if let (Some(groups), Some(centers)) = (p.n_samples.groups(), &p.centers)
        && groups != k
    {
        return Err(Error::invalid_parameter(
            "centers",
            centers.to_value(),
            format!("one centre per count in n_samples ({groups}), or none"),
        ));
    }
    p.cluster_std.check_len("cluster_std", k, "centre")
})]
pub struct Blobs {
    /// Samples in all, split evenly over the centres (the first ones take one more when the
    /// split is uneven), or one count per centre (default 100 in all).
    #[param(
        help = "samples in all (split evenly over the centres), or one count per centre",
        default = NSamples::Total(100),
        valid = ("at least 1 sample in all", NSamples::some),
        setter(into)
    )]
    n_samples: NSamples,
    /// Features per sample (default 2; given centre points set it instead).
    #[param(
        help = "features per sample",
        default = 2,
        valid = ("an integer ≥ 1", |d| *d >= 1),
        applies = ("without given centre points", |p| !p.has_points())
    )]
    n_features: usize,
    /// How many centres to draw in [`Blobs::center_box`], or the centres themselves (default:
    /// 3, or one per count when [`Blobs::n_samples`] gives counts per centre).
    #[param(
        help = "number of centres or the centres themselves (none: 3, or one per count in n_samples)",
        valid = ("a count ≥ 1, or at least one finite point", |c| c.as_ref().is_none_or(Centers::is_valid)),
        setter(via = |p, centers, _| p.centers = Some(centers), arg = Centers)
    )]
    centers: Option<Centers>,
    /// Standard deviation of every blob, or one per centre (default 1).
    #[param(
        help = "standard deviation of every blob, or one per centre",
        default = Per::All(1.0),
        valid = ("finite numbers ≥ 0", |s| s.all(|v| v.is_finite() && v >= 0.0)),
        setter(into)
    )]
    cluster_std: Per,
    #[param(
        help = "range (min, max) of every coordinate of the random centres",
        default = (-10.0, 10.0),
        valid = ("finite min ≤ max", |(lo, hi)| lo.is_finite() && hi.is_finite() && lo <= hi),
        applies = ("without given centre points", |p| !p.has_points()),
        setter(skip)
    )]
    center_box: (f64, f64),
    /// Whether to shuffle the samples (default true); unshuffled, they come centre by centre.
    #[param(
        help = "shuffle the samples (otherwise grouped by centre)",
        default = true
    )]
    shuffle: bool,
    /// Seed of the random draws (default 0).
    #[param(help = "seed of the random draws")]
    seed: u64,
}

impl Blobs {
    /// Range of each coordinate of the random centres (default (−10, 10)).
    pub fn center_box(mut self, min: f64, max: f64) -> Self {
        self.center_box = (min, max);
        self
    }

    fn has_points(&self) -> bool {
        matches!(self.centers, Some(Centers::Points(_)))
    }

    /// The number of centres the parameters ask for.
    fn n_centers(&self) -> usize {
        match (&self.centers, self.n_samples.groups()) {
            (Some(Centers::Count(k)), _) => *k,
            (Some(Centers::Points(c)), _) => c.nrows(),
            (None, Some(groups)) => groups,
            (None, None) => 3,
        }
    }

    /// Samples per centre: the given counts, or the total split evenly.
    fn counts(&self, k: usize) -> Result<Vec<usize>> {
        Ok(match &self.n_samples {
            NSamples::PerGroup(counts) => counts.clone(),
            NSamples::Total(n) => {
                let mut counts = super::buffer(k, n / k, "samples per centre")?;
                counts[..n % k].iter_mut().for_each(|c| *c += 1);
                counts
            }
        })
    }
}

/// Gaussian blobs around centres, one class per centre (scikit-learn's `make_blobs`): sample
/// `i` of centre `k` is `centre_k + cluster_std_k · z` with `z` standard normal.
///
/// ```
/// use margin_core::generate::{Blobs, make_blobs};
///
/// let data = make_blobs(&Blobs::default().n_samples([10, 20]).n_features(3).seed(1))?;
/// assert_eq!((data.n_samples(), data.n_features()), (30, 3));
/// assert_eq!(data.targets.classes()?.counts(), [10, 20]);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn make_blobs(params: &Blobs) -> Result<Dataset> {
    make_blobs_with_centers(params).map(|(data, _)| data)
}

/// [`make_blobs`], with the centres (one row per class; scikit-learn's `return_centers`).
pub fn make_blobs_with_centers(params: &Blobs) -> Result<(Dataset, DenseMatrix)> {
    params.check()?;
    let k = params.n_centers();
    let n = params.n_samples.total().unwrap_or(0);
    let d = match &params.centers {
        Some(Centers::Points(c)) => c.ncols(),
        _ => params.n_features,
    };
    let mut x = records(n, d)?;
    let counts = params.counts(k)?;
    let mut y = super::buffer(n, 0, "generated classes")?;
    let mut rng = rng_from_seed(params.seed);
    let centers = match &params.centers {
        Some(Centers::Points(c)) => c.clone(),
        _ => {
            let (lo, hi) = params.center_box;
            let mut c = DenseMatrix::try_zeros(k, d, "blob centres", super::FEWER)?;
            for v in c.as_mut_slice() {
                *v = lo + (hi - lo) * rng.random::<f64>();
            }
            c
        }
    };
    let mut start = 0;
    for (class, &count) in counts.iter().enumerate() {
        let std = params.cluster_std.at(class);
        let centre = centers.row(class);
        let block = &mut x.as_mut_slice()[start * d..(start + count) * d];
        fill_standard_normal(&mut rng, block);
        for sample in block.chunks_exact_mut(d) {
            for (v, &c) in sample.iter_mut().zip(centre) {
                *v = c + std * *v;
            }
        }
        y[start..start + count].fill(class);
        start += count;
    }
    if params.shuffle {
        super::shuffle_rows(&mut x, &mut y, &mut rng);
    }
    Ok((dataset(x, Drawn::Classes(y, k))?, centers))
}
