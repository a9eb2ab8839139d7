//! # metrics: scores for margin's models
//!
//! - Classification: [`accuracy`]; the [`ConfusionMatrix`] with TP/FP/TN/FN per class,
//!   precision, recall, specificity, false-positive rate, F-β (micro / macro / weighted
//!   [`Average`]), balanced accuracy, Matthews correlation, Cohen's κ, and an explicit
//!   [`ZeroDivision`] policy for undefined ratios, and the [`ClassificationReport`].
//! - Ranking and probabilities: [`roc_curve`] (optionally dropping intermediate points),
//!   [`roc_auc`] (the Mann–Whitney statistic, ties counting one half), [`roc_auc_multiclass`]
//!   (one-vs-rest or one-vs-one), [`precision_recall_curve`], [`average_precision`],
//!   [`log_loss`], [`brier_score`].
//! - Regression: [`mean_squared_error`], [`root_mean_squared_error`], [`mean_absolute_error`],
//!   [`median_absolute_error`], [`r2_score`], [`explained_variance`], [`max_error`],
//!   [`mean_absolute_percentage_error`], [`squared_correlation`].
//! - Clustering: [`adjusted_rand_index`], [`silhouette`].
//!
//! - Model selection: [`cross_validate`] and [`cross_val_predict`] (folds fitted in parallel),
//!   [`search`](fn@search) over a [`Grid`] of named parameter values (all of them, or a seeded random
//!   sample), refitting the best, and the data of [`learning_curve`] and [`validation_curve`];
//!   each scores with a [`Scorer`]: a [`Scoring`] by name (`"f1_macro"`, `"roc_auc"`,
//!   `"neg_mean_squared_error"`, scikit-learn's names) or a closure.
//!
//! - [`plot`]: SVG charts of ROC and precision–recall curves, the confusion matrix, and learning
//!   and validation curves; PNG output with the cargo feature `png` (off by default, so the
//!   scores alone compile no image renderer).
//!
//! Each refuses empty input and mismatched lengths with a typed error.
//!
//! ```
//! let truth = [3.0, -0.5, 2.0, 7.0];
//! let pred = [2.5, 0.0, 2.0, 8.0];
//! assert_eq!(margin_metrics::mean_squared_error(&truth, &pred)?, 0.375);
//! assert!((margin_metrics::r2_score(&truth, &pred)? - 0.9486081370449679).abs() < 1e-15);
//! assert_eq!(margin_metrics::accuracy(&["a", "b", "b"], &["a", "b", "a"])?, 2.0 / 3.0);
//! # Ok::<(), margin_core::Error>(())
//! ```

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly: mark feature-gated items as such.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod classification;
mod clustering;
mod confusion;
pub mod plot;
mod probabilistic;
mod ranking;
mod regression;
mod scoring;
mod search;
mod selection;

pub use classification::accuracy;
pub use clustering::{adjusted_rand_index, silhouette};
pub use confusion::{
    Average, ClassificationReport, ConfusionMatrix, ReportRow, Score, ZeroDivision,
};
pub use probabilistic::{brier_score, log_loss};
pub use ranking::{
    MulticlassRoc, PrecisionRecallCurve, RocCurve, average_precision, precision_recall_curve,
    roc_auc, roc_auc_multiclass, roc_curve,
};
pub use regression::{
    explained_variance, max_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_error, median_absolute_error, r2_score, root_mean_squared_error,
    squared_correlation,
};
pub use scoring::{Predictions, Scorer, Scoring};
pub use search::{Candidate, Grid, SearchResult, search};
pub use selection::{
    CurvePoint, cross_val_predict, cross_validate, learning_curve, validation_curve,
};

use margin_core::{Error, Result};

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
