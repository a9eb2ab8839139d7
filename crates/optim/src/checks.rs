//! Input checks the solvers share, each returning the typed error a caller can act on.

use margin_core::{Error, Result, memory, validate};

/// `n ≥ 1` samples and `y` of length `n` with every label `−1` or `+1`.
pub(crate) fn signed_labels(y: &[f64], n: usize, solver: &str) -> Result<()> {
    if n == 0 {
        return Err(Error::EmptyDataset(format!(
            "{solver} needs at least one sample"
        )));
    }
    if y.len() != n {
        return Err(Error::shape("labels", n, y.len()));
    }
    if let Some(row) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
        return Err(Error::invalid_parameter(
            format!("label of sample {row}"),
            y[row],
            "-1 or +1",
        ));
    }
    Ok(())
}

/// Optional per-sample weights: `n` of them, finite and `≥ 0`.
pub(crate) fn sample_weights(weights: Option<&[f64]>, n: usize) -> Result<()> {
    if let Some(s) = weights {
        if s.len() != n {
            return Err(Error::shape("sample weights", n, s.len()));
        }
        validate::check_finite_slice(s)?;
        if let Some(row) = s.iter().position(|&v| v < 0.0) {
            return Err(Error::invalid_parameter(
                format!("sample weight {row}"),
                s[row],
                "a number >= 0",
            ));
        }
    }
    Ok(())
}

/// A finite strength `≥ 0` named `name`.
pub(crate) fn non_negative(name: &str, value: f64) -> Result<()> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            name,
            value,
            "a finite number >= 0",
        ))
    }
}

/// A starting point of `dim` finite values.
pub(crate) fn start_point(w0: &[f64], dim: usize) -> Result<()> {
    if w0.len() != dim {
        return Err(Error::shape("starting point length", dim, w0.len()));
    }
    validate::check_finite_slice(w0)
}

/// A zeroed vector of `len` parameters (`what`, for the message), asked for first: a linear
/// model's width is the data's largest feature index, which a sparse file can make larger
/// than this machine holds.
pub(crate) fn parameters(len: usize, what: &str) -> Result<Vec<f64>> {
    memory::filled_vec(
        len,
        0.0,
        &format!("{what} ({len} values)"),
        memory::FEWER_FEATURES,
    )
}

/// Refuses up front a solver that keeps `count` vectors of `len` values (`what`) when they
/// cannot all be had, naming the whole size, before any is allocated.
pub(crate) fn vectors(count: usize, len: usize, what: &str) -> Result<()> {
    memory::check(
        memory::bytes_of_grid::<f64>(count, len),
        &format!("{what} ({count} × {len} values)"),
        memory::FEWER_FEATURES,
    )
}
