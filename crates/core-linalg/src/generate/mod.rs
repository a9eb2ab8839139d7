//! Data generators for teaching and tests: scikit-learn's [`make_blobs`], [`make_circles`],
//! [`make_moons`], [`make_classification`] and [`make_regression`], with its parameter names
//! and defaults, seeded.
//!
//! Every generator is a function that takes its parameters struct by reference and returns a
//! [`Dataset`]: `make_blobs(&Blobs::default().n_samples(300).centers(3).seed(7))?`. The
//! parameters structs ([`Blobs`], [`Circles`], [`Moons`], [`Classification`],
//! [`Regression`]) are margin's usual ones: builder methods, [`Params`](crate::params::Params)
//! (`check`, `set(name, text)`, `describe`), and `Default` holds scikit-learn's defaults.
//! A parameter that takes several forms in scikit-learn takes a small enum here, which the
//! builders fill from plain values: [`NSamples`] (a total, or a count per group:
//! `.n_samples(300)` or `.n_samples([100, 200])`), [`Centers`] (a count, or the points:
//! `.centers(4)` or `.centers(points)`), [`Per`] (one value for all, or one each:
//! `.cluster_std(0.5)` or `.cluster_std([0.5, 1.0, 2.0])`).
//!
//! - Classification generators give classes `0..k` as numeric labels
//!   ([`Label::Number`]), every class listed even when it drew no sample (a flipped label
//!   or a zero count can empty one); [`make_regression`] gives values.
//! - scikit-learn's `return_centers=True` and `coef=True` are [`make_blobs_with_centers`] and
//!   [`make_regression_with_coef`].
//! - `seed` replaces `random_state`: the same seed gives the same data, on every platform and
//!   whatever the number of threads (the draws come from one ChaCha8 stream,
//!   [`rng_from_seed`](crate::split::rng_from_seed), and nothing runs in parallel). The
//!   distributions are scikit-learn's, the numbers are not (NumPy draws from another stream).
//! - Invalid parameters are [`Error::InvalidParameter`] naming the parameter, its value and
//!   the allowed range; the `n_samples × n_features` records are asked for before anything
//!   is drawn ([`memory`](crate::memory)).
//!
//! ```
//! use margin_core::generate::{Blobs, Classification, Regression, make_blobs,
//!     make_classification, make_regression_with_coef};
//! use margin_core::Records;
//!
//! let blobs = make_blobs(&Blobs::default().n_samples(300).centers(3).seed(7))?;
//! assert_eq!((blobs.n_samples(), blobs.n_features()), (300, 2));
//! assert_eq!(blobs.targets.classes()?.counts(), [100, 100, 100]);
//!
//! let data = make_classification(&Classification::default().n_samples(200).seed(1))?;
//! assert_eq!((data.n_samples(), data.n_features()), (200, 20));
//!
//! let (data, coef) = make_regression_with_coef(
//!     &Regression::default().n_features(5).n_informative(2).bias(3.0).seed(2),
//! )?;
//! // Without noise, y = X · coef + bias.
//! let y = data.targets.values()?;
//! let mut fit = vec![0.0; data.n_samples()];
//! data.records.mul_vec(&coef, &mut fit);
//! assert!(fit.iter().zip(y.iter()).all(|(f, y)| (f + 3.0 - y).abs() < 1e-9));
//! # Ok::<(), margin_core::Error>(())
//! ```

mod blobs;
mod classification;
mod regression;
mod shapes;

use std::borrow::Cow;

use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::dataset::{Classes, Dataset, Targets};
use crate::dense::DenseMatrix;
use crate::error::{Error, Result};
use crate::label::Label;
use crate::params::{ParamType, Value};

pub use blobs::{Blobs, Centers, make_blobs, make_blobs_with_centers};
pub use classification::{Classification, make_classification};
pub use regression::{Regression, make_regression, make_regression_with_coef};
pub use shapes::{Circles, Moons, make_circles, make_moons};

/// The way out when the generated records do not fit in memory.
const FEWER: &str = "ask for fewer samples or features";

/// How many samples to draw: a total (split by the generator, as scikit-learn does), or a
/// count per group (per centre for [`Blobs`], outer and inner for [`Circles`] and [`Moons`]).
/// Written `300` or `100,200` as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NSamples {
    /// A total.
    Total(usize),
    /// One count per group.
    PerGroup(Vec<usize>),
}

impl NSamples {
    /// The total number of samples (`None` when the per-group counts overflow).
    pub fn total(&self) -> Option<usize> {
        match self {
            NSamples::Total(n) => Some(*n),
            NSamples::PerGroup(counts) => counts.iter().try_fold(0usize, |s, &c| s.checked_add(c)),
        }
    }

    /// Whether the total is at least one sample.
    fn some(&self) -> bool {
        self.total().is_some_and(|n| n >= 1)
    }

    /// The number of groups given, if counts were given per group.
    fn groups(&self) -> Option<usize> {
        match self {
            NSamples::Total(_) => None,
            NSamples::PerGroup(counts) => Some(counts.len()),
        }
    }
}

impl From<usize> for NSamples {
    fn from(n: usize) -> Self {
        NSamples::Total(n)
    }
}

impl From<Vec<usize>> for NSamples {
    fn from(counts: Vec<usize>) -> Self {
        NSamples::PerGroup(counts)
    }
}

impl<const N: usize> From<[usize; N]> for NSamples {
    fn from(counts: [usize; N]) -> Self {
        NSamples::PerGroup(counts.to_vec())
    }
}

impl ParamType for NSamples {
    fn kind() -> Cow<'static, str> {
        "<int>|<int>,<int>,...".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        if text.contains(',') {
            Vec::<usize>::parse(text).map(NSamples::PerGroup)
        } else {
            usize::parse(text)
                .map(NSamples::Total)
                .map_err(|e| format!("{e}, or counts per group separated by commas"))
        }
    }
    fn to_value(&self) -> Value {
        match self {
            NSamples::Total(n) => n.to_value(),
            NSamples::PerGroup(counts) => counts.to_value(),
        }
    }
}

/// A number for every item (`All`), or one per item (`Each`): scikit-learn's "float or
/// array" parameters (`cluster_std` per centre, `shift` and `scale` per feature). Written
/// `0.5` or `0.5,1,2` as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Per {
    /// The same value for every item.
    All(f64),
    /// One value per item.
    Each(Vec<f64>),
}

impl Per {
    /// The value for item `i` (callers check [`Per::len`] first).
    fn at(&self, i: usize) -> f64 {
        match self {
            Per::All(v) => *v,
            Per::Each(values) => values[i],
        }
    }

    /// How many values were given one each (`None` for one value for all).
    fn len(&self) -> Option<usize> {
        match self {
            Per::All(_) => None,
            Per::Each(values) => Some(values.len()),
        }
    }

    /// Whether every value satisfies `ok`.
    fn all(&self, ok: impl Fn(f64) -> bool) -> bool {
        match self {
            Per::All(v) => ok(*v),
            Per::Each(values) => values.iter().all(|&v| ok(v)),
        }
    }

    /// Refuses a per-item list whose length is not `items`.
    fn check_len(&self, name: &str, items: usize, of_what: &str) -> Result<()> {
        match self.len() {
            Some(len) if len != items => Err(Error::invalid_parameter(
                name,
                self.to_value(),
                format!("one value, or one per {of_what} ({items} values)"),
            )),
            _ => Ok(()),
        }
    }
}

impl From<f64> for Per {
    fn from(v: f64) -> Self {
        Per::All(v)
    }
}

impl From<Vec<f64>> for Per {
    fn from(values: Vec<f64>) -> Self {
        Per::Each(values)
    }
}

impl<const N: usize> From<[f64; N]> for Per {
    fn from(values: [f64; N]) -> Self {
        Per::Each(values.to_vec())
    }
}

impl ParamType for Per {
    fn kind() -> Cow<'static, str> {
        "<number>|<number>,...".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        if text.contains(',') {
            Vec::<f64>::parse(text).map(Per::Each)
        } else {
            f64::parse(text)
                .map(Per::All)
                .map_err(|e| format!("{e}, or one number per item separated by commas"))
        }
    }
    fn to_value(&self) -> Value {
        match self {
            Per::All(v) => v.to_value(),
            Per::Each(values) => values.to_value(),
        }
    }
}

/// Fills `out` with standard normal draws (Box–Muller: two uniforms give two normals; an odd
/// last value uses the first of its pair): what the generators and PCA's randomized solver
/// draw their normals with.
pub fn fill_standard_normal(rng: &mut impl Rng, out: &mut [f64]) {
    for pair in out.chunks_mut(2) {
        let u1: f64 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random::<f64>();
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f64::consts::TAU * u2;
        pair[0] = r * t.cos();
        if let Some(second) = pair.get_mut(1) {
            *second = r * t.sin();
        }
    }
}

/// Zeroed `n × d` records, asked for first.
fn records(n: usize, d: usize) -> Result<DenseMatrix> {
    DenseMatrix::try_zeros(n, d, "generated samples", FEWER)
}

/// A vector of `len` values, asked for first.
fn buffer<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    crate::memory::filled_vec(len, value, what, FEWER)
}

/// Shuffles the rows of `x` and the targets `y` together (Fisher–Yates).
fn shuffle_rows<T>(x: &mut DenseMatrix, y: &mut [T], rng: &mut impl Rng) {
    let d = x.ncols();
    let data = x.as_mut_slice();
    for i in (1..y.len()).rev() {
        let j = rng.random_range(0..=i);
        if j != i {
            y.swap(i, j);
            let (head, tail) = data.split_at_mut(i * d);
            head[j * d..(j + 1) * d].swap_with_slice(&mut tail[..d]);
        }
    }
}

/// Shuffles the columns of `x`; returns the order (new column `j` is old column `order[j]`).
fn shuffle_columns(x: &mut DenseMatrix, rng: &mut impl Rng) -> Result<Vec<usize>> {
    let d = x.ncols();
    let mut order = buffer(d, 0, "feature order")?;
    for (j, o) in order.iter_mut().enumerate() {
        *o = j;
    }
    order.shuffle(rng);
    let mut row = buffer(d, 0.0, "one sample")?;
    for i in 0..x.nrows() {
        let r = x.row_mut(i);
        row.copy_from_slice(r);
        for (v, &o) in r.iter_mut().zip(&order) {
            *v = row[o];
        }
    }
    Ok(order)
}

/// What a generator drew for each sample.
enum Drawn {
    /// Class indices `0..n_classes`.
    Classes(Vec<usize>, usize),
    /// Regression values.
    Values(Vec<f64>),
}

/// The one place generated records and targets become a [`Dataset`]: classes `0..k` keep
/// every label, even one no sample drew.
fn dataset(x: DenseMatrix, drawn: Drawn) -> Result<Dataset> {
    let targets = match drawn {
        Drawn::Values(values) => Targets::Values(values),
        Drawn::Classes(y, n_classes) => {
            let labels = (0..n_classes).map(|k| Label::Number(k as f64)).collect();
            Targets::Classes(Classes::from_indices(y, labels)?)
        }
    };
    Dataset::new(x, targets)
}

#[cfg(test)]
mod tests;
