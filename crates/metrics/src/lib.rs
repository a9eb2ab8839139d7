//! # metrics: scores for margin's models
//!
//! Today: the scores every prediction report needs — [`accuracy`] for classifiers;
//! [`mean_squared_error`], [`root_mean_squared_error`], [`mean_absolute_error`], [`r2_score`]
//! and [`squared_correlation`] for regressors. Each refuses empty input and mismatched lengths
//! with a typed error. Confusion matrices, ROC/PR curves, cross-validation, search and plots
//! come with the metrics issue.
//!
//! ```
//! let truth = [3.0, -0.5, 2.0, 7.0];
//! let pred = [2.5, 0.0, 2.0, 8.0];
//! assert_eq!(metrics::mean_squared_error(&truth, &pred)?, 0.375);
//! assert!((metrics::r2_score(&truth, &pred)? - 0.9486081370449679).abs() < 1e-15);
//! assert_eq!(metrics::accuracy(&["a", "b", "b"], &["a", "b", "a"])?, 2.0 / 3.0);
//! # Ok::<(), core_linalg::Error>(())
//! ```

#![warn(missing_docs)]

mod classification;
mod regression;

pub use classification::accuracy;
pub use regression::{
    mean_absolute_error, mean_squared_error, r2_score, root_mean_squared_error, squared_correlation,
};

use core_linalg::{Error, Result};

/// Refuses empty inputs and inputs of different lengths.
fn check_pair(truth: usize, predicted: usize) -> Result<()> {
    if truth == 0 {
        return Err(Error::EmptyDataset("no samples to score".into()));
    }
    if truth != predicted {
        return Err(Error::shape(
            "predictions (one per true value)",
            truth,
            predicted,
        ));
    }
    Ok(())
}
