//! Preprocessing that is fitted on training records and applied to any others: scalers,
//! polynomial features, log transform, binning and one-hot encoding.
//!
//! Every fitted transformer is serializable (and a [`ModelFile`](crate::ModelFile)), so the
//! exact transform used in training can be shipped with the model.

mod kbins;
mod log1p;
mod minmax;
mod onehot;
mod polynomial;
mod standard;

pub use kbins::{BinEncoding, BinStrategy, KBinsDiscretizer, KBinsDiscretizerParams};
pub use log1p::Log1p;
pub use minmax::{MinMaxScaler, MinMaxScalerParams};
pub use onehot::{OneHotEncoder, OneHotEncoderParams, UnknownCategory};
pub use polynomial::{PolynomialFeatures, PolynomialFeaturesParams};
pub use standard::{StandardScaler, StandardScalerParams};

use crate::error::Result;
use crate::records::Records;
use crate::validate;

/// What every transformer checks at fit time: at least one sample and feature, all finite.
fn check_fit_input<R: Records + ?Sized>(records: &R) -> Result<()> {
    validate::check_non_empty(records)?;
    validate::check_finite(records)
}

/// Per-column minimum and maximum; entries a sparse row does not store count as zeros.
fn column_min_max<R: Records + ?Sized>(records: &R) -> Result<(Vec<f64>, Vec<f64>)> {
    use crate::memory::{FEWER_FEATURES, filled_vec};
    let d = records.n_features();
    let mut lo = filled_vec(d, f64::INFINITY, "per-feature minima", FEWER_FEATURES)?;
    let mut hi = filled_vec(d, f64::NEG_INFINITY, "per-feature maxima", FEWER_FEATURES)?;
    let mut seen = filled_vec(d, 0usize, "per-feature counts", FEWER_FEATURES)?;
    for i in 0..records.n_samples() {
        records.row(i).for_each_stored(|j, v| {
            lo[j] = lo[j].min(v);
            hi[j] = hi[j].max(v);
            seen[j] += 1;
        });
    }
    for j in 0..d {
        if seen[j] < records.n_samples() {
            lo[j] = lo[j].min(0.0);
            hi[j] = hi[j].max(0.0);
        }
    }
    Ok((lo, hi))
}

/// Column values as a dense vector per column (for quantiles and category sets).
fn columns<R: Records + ?Sized>(records: &R) -> Result<Vec<Vec<f64>>> {
    let x = records.to_dense()?;
    // The columns are a second dense copy.
    crate::memory::check(
        crate::memory::bytes_of_grid::<f64>(x.nrows(), x.ncols()),
        "the records by column",
        crate::memory::DENSE_COPY,
    )?;
    Ok((0..x.ncols())
        .map(|j| x.rows().map(|r| r[j]).collect())
        .collect())
}
