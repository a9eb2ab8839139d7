//! Checks every estimator runs before fitting or predicting, so that bad input becomes a typed
//! error and never a panic or a silently wrong model.

use crate::dataset::{Classes, Dataset, Targets};
use crate::error::{Error, Result};
use crate::records::Records;

/// Refuses records with no samples or no features.
pub fn check_non_empty<R: Records + ?Sized>(records: &R) -> Result<()> {
    if records.n_samples() == 0 {
        return Err(Error::EmptyDataset(
            "no samples: give at least one row".into(),
        ));
    }
    if records.n_features() == 0 {
        return Err(Error::EmptyDataset(
            "no features: every row is empty".into(),
        ));
    }
    Ok(())
}

/// Finds the first NaN or infinity (in row order) and reports its row and column.
pub fn check_finite<R: Records + ?Sized>(records: &R) -> Result<()> {
    for i in 0..records.n_samples() {
        let mut bad = None;
        records.row(i).for_each_stored(|j, v| {
            if bad.is_none() && !v.is_finite() {
                bad = Some(j);
            }
        });
        if let Some(col) = bad {
            return Err(Error::NonFinite { row: i, col });
        }
    }
    Ok(())
}

/// Refuses a non-finite value in a vector (targets, weights); `col` is reported as 0.
pub fn check_finite_slice(values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(Error::NonFinite { row, col: 0 }),
        None => Ok(()),
    }
}

/// Refuses records whose feature count differs from the one the model was fitted on.
pub fn check_n_features<R: Records + ?Sized>(fitted: usize, records: &R) -> Result<()> {
    if records.n_features() != fitted {
        return Err(Error::shape(
            "feature count at predict (must equal the count the model was fitted on)",
            fitted,
            records.n_features(),
        ));
    }
    Ok(())
}

/// Refuses fewer than `required` classes that actually occur in the data.
pub fn check_min_classes(classes: &Classes, required: usize) -> Result<()> {
    let found = classes.counts().iter().filter(|&&c| c > 0).count();
    if found < required {
        return Err(Error::TooFewClasses { found, required });
    }
    Ok(())
}

/// Everything a supervised `fit` checks first: consistent lengths, at least one sample and one
/// feature, finite records, finite numeric targets and weights, and a positive total weight.
pub fn check_dataset(data: &Dataset) -> Result<()> {
    data.check_consistent()?;
    check_non_empty(&data.records)?;
    check_finite(&data.records)?;
    if let Targets::Values(v) = &data.targets {
        check_finite_slice(v)?;
    }
    check_some_weight(data)
}

/// Refuses sample weights that are all zero: such a fit has no sample to learn from.
pub fn check_some_weight(data: &Dataset) -> Result<()> {
    match &data.sample_weights {
        Some(w) if w.iter().all(|&v| v == 0.0) => Err(Error::invalid_parameter(
            "sample_weights",
            "all zero",
            "at least one positive weight (a sample of weight zero is left out of the fit)",
        )),
        _ => Ok(()),
    }
}

/// Everything a `predict` checks: finite records of the fitted width (zero rows is allowed and
/// gives an empty answer).
pub fn check_predict<R: Records + ?Sized>(fitted_features: usize, records: &R) -> Result<()> {
    check_n_features(fitted_features, records)?;
    check_finite(records)
}

/// Refuses a parameter that is not finite and strictly positive.
pub fn check_positive(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(name, value, "a finite number > 0"))
    }
}

/// Refuses a parameter outside `[lo, hi]` (or outside `(lo, hi]` when `lo_open`).
pub fn check_in_range(name: &str, value: f64, lo: f64, hi: f64, lo_open: bool) -> Result<()> {
    let above = if lo_open { value > lo } else { value >= lo };
    if above && value <= hi {
        Ok(())
    } else {
        let open = if lo_open { "(" } else { "[" };
        Err(Error::invalid_parameter(
            name,
            value,
            format!("a number in {open}{lo}, {hi}]"),
        ))
    }
}
