//! A random linear regression problem (scikit-learn's `make_regression`, with its
//! `make_low_rank_matrix` for `effective_rank`).

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, Par};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Drawn, buffer, dataset, fill_standard_normal, records};
use crate::dataset::Dataset;
use crate::dense::DenseMatrix;
use crate::error::Result;
use crate::memory;
use crate::orthogonal::orthonormal;
use crate::params::Params;
use crate::split::rng_from_seed;

/// Parameters of [`make_regression`] (scikit-learn's names and defaults): 100 samples, 100
/// standard normal features of which 10 informative, one target, no bias, no noise, shuffled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct Regression {
    /// Number of samples (default 100).
    #[param(help = "number of samples", default = 100, valid = ("an integer ≥ 1", |n| *n >= 1))]
    n_samples: usize,
    /// Number of features (default 100).
    #[param(help = "number of features", default = 100, valid = ("an integer ≥ 1", |d| *d >= 1))]
    n_features: usize,
    /// Features with a non-zero coefficient, drawn uniformly in [0, 100) (default 10; more than
    /// `n_features` means all of them, as in scikit-learn).
    #[param(
        help = "features with a non-zero coefficient (at most n_features are)",
        default = 10
    )]
    n_informative: usize,
    /// Values per sample (default 1, the only value margin's regression targets hold).
    #[param(
        help = "values per sample",
        default = 1,
        valid = ("1 (a margin dataset holds one regression target per sample)", |t| *t == 1)
    )]
    n_targets: usize,
    /// Intercept of the linear model (default 0).
    #[param(help = "intercept of the linear model", valid = ("a finite number", |b| b.is_finite()))]
    bias: f64,
    /// Records of approximate rank `rank` (default none: independent standard normal
    /// features): singular values `(1 − tail_strength) · exp(−(i / rank)²) + tail_strength ·
    /// exp(−0.1 · i / rank)` for `i = 0, 1, …`, between random orthonormal bases.
    #[param(
        help = "approximate rank of the records: singular values decay past it (none: well conditioned)",
        valid = ("none or an integer ≥ 1", |r| r.is_none_or(|r| r >= 1))
    )]
    effective_rank: Option<usize>,
    /// Weight of the slowly decaying tail of the singular values with
    /// [`Regression::effective_rank`], in [0, 1] (default 0.5).
    #[param(
        help = "weight of the slowly decaying tail of the singular values",
        default = 0.5,
        valid = ("a number in [0, 1]", |t| (0.0..=1.0).contains(t)),
        applies = ("with effective_rank", |p| p.effective_rank.is_some())
    )]
    tail_strength: f64,
    /// Standard deviation of Gaussian noise added to the targets (default 0).
    #[param(
        help = "standard deviation of Gaussian noise added to the targets",
        valid = ("a finite number ≥ 0", |s| s.is_finite() && *s >= 0.0)
    )]
    noise: f64,
    /// Whether to shuffle the samples and the features (default true).
    #[param(help = "shuffle the samples and the features", default = true)]
    shuffle: bool,
    /// Seed of the random draws (default 0).
    #[param(help = "seed of the random draws")]
    seed: u64,
}

/// The `i`-th singular value of a low-rank matrix of effective rank `rank`
/// (scikit-learn's `make_low_rank_matrix` profile): a bell of width `rank` plus a slowly
/// decaying tail.
fn singular_value(i: usize, rank: usize, tail_strength: f64) -> f64 {
    let t = i as f64 / rank as f64;
    (1.0 - tail_strength) * (-t * t).exp() + tail_strength * (-0.1 * t).exp()
}

/// Fills `x` (`n × d`) with `U · diag(s) · Vᵀ` for random orthonormal `U` (`n × k`) and `V`
/// (`d × k`), `k = min(n, d)`, and the singular values `s` of [`singular_value`].
fn fill_low_rank(
    x: &mut DenseMatrix,
    rank: usize,
    tail_strength: f64,
    rng: &mut impl Rng,
) -> Result<()> {
    let (n, d) = (x.nrows(), x.ncols());
    let k = n.min(d);
    // The bases, their draws and their QR factors, on top of the records already held.
    let bytes = memory::bytes_of_grid::<f64>(n.saturating_add(d), k.saturating_mul(3));
    memory::check(bytes, "low-rank bases", super::FEWER)?;
    memory::check_products(n, d, k)?;
    let mut basis = |rows: usize| {
        let mut g = vec![0.0; rows * k];
        fill_standard_normal(rng, &mut g);
        orthonormal(Mat::from_fn(rows, k, |i, j| g[i * k + j]))
    };
    let mut u = basis(n);
    let v = basis(d);
    for j in 0..k {
        let s = singular_value(j, rank, tail_strength);
        for i in 0..n {
            u[(i, j)] *= s;
        }
    }
    let out = MatMut::from_row_major_slice_mut(x.as_mut_slice(), n, d);
    // Sequential: the same bits on any thread count.
    matmul(
        out,
        Accum::Replace,
        u.as_ref(),
        v.transpose(),
        1.0,
        Par::Seq,
    );
    Ok(())
}

/// A random linear regression problem (scikit-learn's `make_regression`): standard normal
/// records (or low-rank ones, with `effective_rank`), `min(n_informative, n_features)`
/// coefficients drawn uniformly in [0, 100) and the others zero, and
/// `y = X · coef + bias + noise · z` with `z` standard normal. Shuffling permutes the samples
/// and the features (and the coefficients with them).
pub fn make_regression(params: &Regression) -> Result<Dataset> {
    make_regression_with_coef(params).map(|(data, _)| data)
}

/// [`make_regression`], with the true coefficients, one per feature in the returned order
/// (scikit-learn's `coef=True`).
///
/// ```
/// use margin_core::generate::{Regression, make_regression_with_coef};
///
/// let p = Regression::default().n_samples(50).n_features(8).n_informative(3).seed(5);
/// let (data, coef) = make_regression_with_coef(&p)?;
/// assert_eq!((data.n_samples(), data.n_features(), coef.len()), (50, 8, 8));
/// assert_eq!(coef.iter().filter(|c| **c != 0.0).count(), 3);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn make_regression_with_coef(params: &Regression) -> Result<(Dataset, Vec<f64>)> {
    params.check()?;
    let p = params;
    let (n, d) = (p.n_samples, p.n_features);
    let mut x = records(n, d)?;
    let mut y = buffer(n, 0.0, "generated targets")?;
    let mut coef = buffer(d, 0.0, "coefficients")?;
    let mut rng = rng_from_seed(p.seed);
    match p.effective_rank {
        None => fill_standard_normal(&mut rng, x.as_mut_slice()),
        Some(rank) => fill_low_rank(&mut x, rank, p.tail_strength, &mut rng)?,
    }
    for c in coef.iter_mut().take(p.n_informative) {
        *c = 100.0 * rng.random::<f64>();
    }
    for (i, target) in y.iter_mut().enumerate() {
        *target = crate::dot(x.row(i), &coef) + p.bias;
    }
    if p.noise > 0.0 {
        let mut z = buffer(n, 0.0, "noise")?;
        fill_standard_normal(&mut rng, &mut z);
        for (target, e) in y.iter_mut().zip(z) {
            *target += p.noise * e;
        }
    }
    if p.shuffle {
        super::shuffle_rows(&mut x, &mut y, &mut rng);
        let order = super::shuffle_columns(&mut x, &mut rng)?;
        coef = order.iter().map(|&j| coef[j]).collect();
    }
    Ok((dataset(x, Drawn::Values(y))?, coef))
}
