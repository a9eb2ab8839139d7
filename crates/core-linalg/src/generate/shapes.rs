//! Two classes on curves in the plane: concentric circles and interleaving half circles
//! (scikit-learn's `make_circles` and `make_moons`).

use std::f64::consts::{PI, TAU};

use serde::{Deserialize, Serialize};

use super::{Drawn, NSamples, dataset, fill_standard_normal, records};
use crate::dataset::Dataset;
use crate::error::Result;
use crate::params::Params;
use crate::split::rng_from_seed;

/// `n_samples` for two classes: a total (the inner class takes the odd sample) or two counts.
fn two_counts(n: &NSamples) -> bool {
    n.some() && n.groups().is_none_or(|g| g == 2)
}

/// Parameters of [`make_circles`] (scikit-learn's names and defaults): 100 samples, the inner
/// circle's radius 0.8 times the outer one's, no noise, shuffled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct Circles {
    /// Samples in all (the second class takes the odd one), or `[first, second]`
    /// counts (default 100 in all).
    #[param(
        help = "samples in all (the inner circle takes the odd one), or outer,inner counts",
        default = NSamples::Total(100),
        valid = ("at least 1 sample in all, as a total or two counts", two_counts),
        setter(into)
    )]
    n_samples: NSamples,
    /// Whether to shuffle the samples (default true); unshuffled, the outer circle comes first.
    #[param(
        help = "shuffle the samples (otherwise outer circle first)",
        default = true
    )]
    shuffle: bool,
    /// Standard deviation of Gaussian noise added to each coordinate (default none).
    #[param(
        help = "standard deviation of Gaussian noise added to both coordinates (none: none)",
        valid = ("none or a finite number ≥ 0", noise_ok),
        setter(strip_option)
    )]
    noise: Option<f64>,
    /// Inner radius over outer radius, in [0, 1) (default 0.8).
    #[param(
        help = "inner radius over outer radius",
        default = 0.8,
        valid = ("a number in [0, 1)", |f| (0.0..1.0).contains(f))
    )]
    factor: f64,
    /// Seed of the random draws (default 0).
    #[param(help = "seed of the random draws")]
    seed: u64,
}

/// Parameters of [`make_moons`] (scikit-learn's names and defaults): 100 samples, no noise,
/// shuffled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct Moons {
    /// Samples in all (the second class takes the odd one), or `[first, second]`
    /// counts (default 100 in all).
    #[param(
        help = "samples in all (the second moon takes the odd one), or a count per moon",
        default = NSamples::Total(100),
        valid = ("at least 1 sample in all, as a total or two counts", two_counts),
        setter(into)
    )]
    n_samples: NSamples,
    /// Whether to shuffle the samples (default true); unshuffled, the upper moon comes first.
    #[param(
        help = "shuffle the samples (otherwise upper moon first)",
        default = true
    )]
    shuffle: bool,
    /// Standard deviation of Gaussian noise added to each coordinate (default none).
    #[param(
        help = "standard deviation of Gaussian noise added to both coordinates (none: none)",
        valid = ("none or a finite number ≥ 0", noise_ok),
        setter(strip_option)
    )]
    noise: Option<f64>,
    /// Seed of the random draws (default 0).
    #[param(help = "seed of the random draws")]
    seed: u64,
}

/// The valid noise levels: none, or a finite standard deviation ≥ 0.
fn noise_ok(noise: &Option<f64>) -> bool {
    noise.is_none_or(|s| s.is_finite() && s >= 0.0)
}

/// A point of class `class` at parameter `t` of its curve.
type Curve<'a> = &'a dyn Fn(usize, f64) -> (f64, f64);

/// Two classes of points along curves: class `c`'s `count_c` points at parameters from
/// `step(count_c)`, then shuffled and noised as the parameters ask.
fn two_curves(
    n_samples: &NSamples,
    shuffle: bool,
    noise: Option<f64>,
    seed: u64,
    step: fn(usize) -> f64,
    curve: Curve<'_>,
) -> Result<Dataset> {
    let counts = match n_samples {
        NSamples::Total(n) => [n / 2, n - n / 2],
        NSamples::PerGroup(c) => [c[0], c[1]],
    };
    let n = counts[0] + counts[1];
    let mut x = records(n, 2)?;
    let mut y = super::buffer(n, 0, "generated classes")?;
    let mut row = 0;
    for (class, &count) in counts.iter().enumerate() {
        let dt = step(count);
        for i in 0..count {
            let (a, b) = curve(class, i as f64 * dt);
            x.row_mut(row).copy_from_slice(&[a, b]);
            y[row] = class;
            row += 1;
        }
    }
    let mut rng = rng_from_seed(seed);
    if shuffle {
        super::shuffle_rows(&mut x, &mut y, &mut rng);
    }
    if let Some(std) = noise {
        let mut z = super::buffer(2 * n, 0.0, "noise")?;
        fill_standard_normal(&mut rng, &mut z);
        for (v, e) in x.as_mut_slice().iter_mut().zip(z) {
            *v += std * e;
        }
    }
    dataset(x, Drawn::Classes(y, 2))
}

/// A large circle (class 0, radius 1) around a smaller one (class 1, radius `factor`), points
/// evenly spaced in angle from 0, plus optional Gaussian noise (scikit-learn's
/// `make_circles`).
///
/// ```
/// use margin_core::generate::{Circles, make_circles};
///
/// let data = make_circles(&Circles::default().n_samples(7).factor(0.5))?;
/// assert_eq!(data.targets.classes()?.counts(), [3, 4]);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn make_circles(params: &Circles) -> Result<Dataset> {
    params.check()?;
    let factor = params.factor;
    two_curves(
        &params.n_samples,
        params.shuffle,
        params.noise,
        params.seed,
        // Endpoint excluded: the first point is not repeated at angle 2π.
        |count| TAU / count.max(1) as f64,
        &|class, t| {
            let r = if class == 0 { 1.0 } else { factor };
            (r * t.cos(), r * t.sin())
        },
    )
}

/// Two interleaving half circles of radius 1 (scikit-learn's `make_moons`): class 0 on the
/// upper half of the circle around (0, 0), class 1 on the lower half of the circle around
/// (1, 0.5), each from end to end, plus optional Gaussian noise.
///
/// ```
/// use margin_core::generate::{Moons, make_moons};
///
/// let data = make_moons(&Moons::default().n_samples([20, 30]).noise(0.1).seed(4))?;
/// assert_eq!(data.targets.classes()?.counts(), [20, 30]);
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn make_moons(params: &Moons) -> Result<Dataset> {
    params.check()?;
    two_curves(
        &params.n_samples,
        params.shuffle,
        params.noise,
        params.seed,
        // Both ends included.
        |count| PI / count.saturating_sub(1).max(1) as f64,
        &|class, t| {
            if class == 0 {
                (t.cos(), t.sin())
            } else {
                (1.0 - t.cos(), 0.5 - t.sin())
            }
        },
    )
}
