//! `--kernel precomputed` with scikit-learn's contract: the training data is the Gram matrix
//! `K(train, train)` (one column per training sample, in the rows' order), the data to predict
//! is `K(test, train)` in the same column order.
//!
//! The library's [`margin_kernels::Precomputed`] reads LIBSVM's layout instead (`-t 4`): column 0 holds
//! a training sample's 1-based serial number, columns `1..=n` its kernel values, and
//! `k(x, z) = x[serial of z]`. This module converts: training rows get their serial numbers,
//! rows to predict an unused column 0. A model file so stores `n + 1` features for a kernel of
//! `n` training samples; users only ever see `n`.

use std::borrow::Cow;

use margin_core::{Dataset, DenseMatrix, Matrix, Records, memory};

use crate::Failure;
use crate::models::Selection;

/// How an SVM reads its training data: features as given, or a precomputed kernel's Gram rows.
#[derive(Debug)]
pub enum KernelInput {
    /// The records are features.
    Features,
    /// The records are rows of `K(train, train)`; with a [`Selection`] they are some rows of the
    /// Gram matrix of the whole data file (a cross-validation fold), whose columns still name
    /// every sample of the file.
    Gram(Option<Selection>),
}

impl KernelInput {
    /// The training data in the layout the library's kernel reads: borrowed for features; for a
    /// Gram matrix a copy with the serial-number column in front (its memory asked for first).
    pub fn training<'a>(&self, data: &'a Dataset) -> Result<Cow<'a, Dataset>, Failure> {
        let KernelInput::Gram(selection) = self else {
            return Ok(Cow::Borrowed(data));
        };
        let (n, rows) = match selection {
            Some(s) => (s.of, Some(s.rows.as_slice())),
            None => (data.n_samples(), None),
        };
        let width = data.n_features();
        if !fits(&data.records, n) {
            return Err(Failure::usage(format!(
                "--kernel precomputed: the training data must be the square Gram matrix K(train, train), one column per training sample in the order of the rows; found {n} rows and {width} columns, it needs {n} columns"
            )));
        }
        // Row i is training sample i + 1 (LIBSVM's serial numbers start at 1); a fold's rows keep
        // the serial numbers they have in the whole file, as LIBSVM's `-v` keeps them.
        let records =
            with_first_column(&data.records, n, |i| (rows.map_or(i, |r| r[i]) + 1) as f64)?;
        Ok(Cow::Owned(Dataset {
            records: Matrix::Dense(records),
            targets: data.targets.clone(),
            sample_weights: data.sample_weights.clone(),
            // Names of the n columns would not fit the n + 1 of the stored layout.
            feature_names: None,
        }))
    }
}

/// The rows to predict for a model trained on a precomputed kernel of `n_train` samples:
/// `K(test, train)` with an unused column 0 in front (the library's kernel reads only the
/// columns the support vectors' serial numbers name).
pub fn test_rows(x: &Matrix, n_train: usize) -> Result<Matrix, Failure> {
    if !fits(x, n_train) {
        return Err(Failure::usage(format!(
            "the model was trained on a precomputed kernel of {n_train} training samples: the data must be K(test, train), one column per training sample in the training order ({n_train} columns), found {} columns",
            x.n_features()
        )));
    }
    Ok(Matrix::Dense(with_first_column(x, n_train, |_| 0.0)?))
}

/// Whether `x` holds `n` columns of kernel values. A CSV file lists every column; a LIBSVM file
/// stores no zeros, so its highest index may stop below `n` (the rest are zero kernel values).
fn fits(x: &Matrix, n: usize) -> bool {
    match x {
        Matrix::Dense(d) => d.ncols() == n,
        Matrix::Sparse(s) => s.ncols() <= n,
    }
}

/// The `n` columns of `x` (at most `n` for sparse records, zeros after) behind a column 0 that
/// holds `first(row)`: a dense copy whose memory is asked for first.
fn with_first_column(
    x: &Matrix,
    n: usize,
    first: impl Fn(usize) -> f64,
) -> Result<DenseMatrix, Failure> {
    let mut out = DenseMatrix::try_zeros(
        x.n_samples(),
        n.saturating_add(1),
        "the precomputed kernel values with LIBSVM's serial-number column",
        memory::FEWER_SAMPLES,
    )?;
    for i in 0..x.n_samples() {
        let row = out.row_mut(i);
        row[0] = first(i);
        x.row(i).to_dense_into(&mut row[1..]);
    }
    Ok(out)
}
