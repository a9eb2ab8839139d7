//! Preprocessing that is fitted on training records and applied to any others: scalers,
//! polynomial features, log transform, binning and one-hot encoding; the column statistics
//! they share ([`column_ranges`]); and the [`Pipeline`] that chains transformers (these, PCA,
//! kernel feature maps) before an estimator.
//!
//! Every fitted transformer is serializable (and a [`ModelFile`](margin_io::ModelFile)), so the
//! exact transform used in training can be shipped with the model, alone or inside a fitted
//! pipeline.

mod kbins;
mod log1p;
mod minmax;
mod onehot;
pub mod pipeline;
mod polynomial;
mod ranges;
mod standard;

pub use kbins::{BinEncoding, BinStrategy, KBinsDiscretizer, KBinsDiscretizerParams};
pub use log1p::Log1p;
pub use minmax::{MinMaxScaler, MinMaxScalerParams, MinMaxScalerStats};
pub use onehot::{OneHotEncoder, OneHotEncoderParams, UnknownCategory};
pub use pipeline::{Pipeline, PipelineModel};
pub use polynomial::{PolynomialFeatures, PolynomialFeaturesParams};
pub use ranges::{ColumnRanges, column_ranges};
pub use standard::{StandardScaler, StandardScalerParams, StandardScalerStats};

use margin_core::{Records, Result, validate};

/// What every transformer checks at fit time: at least one sample and feature, all finite.
fn check_fit_input<R: Records + ?Sized>(records: &R) -> Result<()> {
    validate::check_non_empty(records)?;
    validate::check_finite(records)
}

/// Column values as a dense vector per column (for quantiles and category sets).
fn columns<R: Records + ?Sized>(records: &R) -> Result<Vec<Vec<f64>>> {
    let x = records.to_dense()?;
    // The columns are a second dense copy.
    margin_core::memory::check(
        margin_core::memory::bytes_of_grid::<f64>(x.nrows(), x.ncols()),
        "the records by column",
        margin_core::memory::DENSE_COPY,
    )?;
    Ok((0..x.ncols())
        .map(|j| x.rows().map(|r| r[j]).collect())
        .collect())
}

margin_core::impl_n_features!(
    KBinsDiscretizer,
    MinMaxScaler,
    OneHotEncoder,
    PolynomialFeatures,
    StandardScaler,
);
margin_core::impl_hyperparams!(
    KBinsDiscretizer,
    MinMaxScaler,
    OneHotEncoder,
    PolynomialFeatures,
    StandardScaler,
);
