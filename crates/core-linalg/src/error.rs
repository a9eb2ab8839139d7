//! The one error type every margin crate returns.

use std::path::PathBuf;

/// Everything that can go wrong in margin, with enough context to act on.
///
/// Each variant says what happened and where; its `Display` text says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A hyperparameter is outside its allowed range.
    #[error("invalid parameter `{name}` = {value}: expected {expected}")]
    InvalidParameter {
        /// The parameter's name, as the params builder spells it.
        name: String,
        /// The value that was given.
        value: String,
        /// The allowed range or set of values.
        expected: String,
    },
    /// The fitted model cannot do what was asked: it was fitted without what the operation needs
    /// (for example probability estimates), or its kind or configuration has no such operation.
    /// Not a bad argument to the call: the way out is to refit, or to use another operation.
    #[error("{operation} is not available: {reason}")]
    Unsupported {
        /// The operation asked for (for example "predict_proba").
        operation: String,
        /// Why this model cannot do it, and what to do instead.
        reason: String,
    },
    /// Two things that must agree in size do not.
    #[error("shape mismatch in {what}: expected {expected}, found {found}")]
    ShapeMismatch {
        /// What was being compared (for example "feature count at predict").
        what: String,
        /// The size that was required.
        expected: usize,
        /// The size that was given.
        found: usize,
    },
    /// Borrowed memory is not laid out as the operation reads it (for example a column-major
    /// or strided matrix offered as a row-major [`DenseView`](crate::DenseView)).
    #[error("{found} is not laid out as needed: {way_out}")]
    Layout {
        /// What was given, with its layout (strides).
        found: String,
        /// The layout needed, and the copy that provides it.
        way_out: String,
    },
    /// A NaN or infinite value was found in the input.
    #[error("non-finite value (NaN or ±inf) at row {row}, column {col}: remove or impute it")]
    NonFinite {
        /// Zero-based row (sample) index.
        row: usize,
        /// Zero-based column (feature) index; for targets or weights, 0.
        col: usize,
    },
    /// The input has no samples or no features.
    #[error("empty dataset: {0}")]
    EmptyDataset(String),
    /// A classifier was given fewer distinct classes than it needs.
    #[error("too few classes: found {found} class(es), need at least {required}")]
    TooFewClasses {
        /// Distinct classes present.
        found: usize,
        /// The minimum the estimator needs.
        required: usize,
    },
    /// A class label could not become the type asked for (a text label as a number, a
    /// fractional label as an integer, a number as text).
    #[error(
        "label `{label}` is not {wanted}: convert labels to the type they were given as (`label.to_string()` gives any label's text)"
    )]
    LabelType {
        /// The label, as it displays.
        label: String,
        /// The type asked for.
        wanted: String,
    },
    /// An iterative solver stopped before converging, where the caller asked for that to be an error.
    #[error("did not converge after {iterations} iterations: {message}")]
    NotConverged {
        /// Iterations performed.
        iterations: usize,
        /// What was still violated.
        message: String,
    },
    /// A data file or text input is malformed.
    #[error("parse error at line {line}, column {column}: {message}")]
    Parse {
        /// One-based line number.
        line: usize,
        /// One-based column (byte offset in the line, or field number for CSV).
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A column of a table (Arrow record batches, a Parquet or Arrow IPC file) cannot be read
    /// as asked: a type margin does not read, a null, a name that is not in the table.
    #[error("column `{column}`{}: {message}", row.map(|r| format!(", row {r}")).unwrap_or_default())]
    Column {
        /// The column's name.
        column: String,
        /// The zero-based row at fault, counted from the table's first row, where one is.
        row: Option<usize>,
        /// What was found and what to do.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A model file is corrupt, truncated, of another kind or from an unsupported version.
    #[error("model file refused: {reason}")]
    ModelFile {
        /// Why the file was refused.
        reason: String,
    },
    /// A buffer the data calls for could not be had: larger than the machine's memory, or
    /// refused by the allocator (which includes a process limit such as `ulimit -v`). Nothing
    /// was allocated; the message names the size and what to change.
    #[error(
        "out of memory: {what} needs {} ({bytes} bytes), more than can be allocated here: {way_out}",
        crate::memory::human_bytes(*bytes)
    )]
    OutOfMemory {
        /// What the memory was for (for example "the dense copy of 2 × 2147483647 records").
        what: String,
        /// The bytes asked for (saturated at `u64::MAX` when the count overflows).
        bytes: u64,
        /// What the user can change to make it fit.
        way_out: String,
    },
    /// Input values so large in magnitude that the model's arithmetic (squares, sums) would
    /// overflow `f64`: the fit could only give infinities, so it is refused before it starts.
    #[error("{what} are out of range: {reason}")]
    OutOfRange {
        /// Which values (for example "the regression targets").
        what: String,
        /// What overflows, the value at fault, and what to do (rescale).
        reason: String,
    },
    /// A numerical routine failed on valid-looking input (for example a matrix that should be
    /// positive definite is not).
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// Fitting or scoring one cross-validation fold failed (for example its training part holds
    /// a single class): which fold, and why.
    #[error("cross-validation fold {fold} of {n_folds}: {source}")]
    InFold {
        /// One-based fold number.
        fold: usize,
        /// Number of folds.
        n_folds: usize,
        /// What failed in that fold.
        #[source]
        source: Box<Error>,
    },
}

/// `Result` with margin's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds [`Error::InvalidParameter`] from anything printable.
    pub fn invalid_parameter(
        name: impl Into<String>,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        Error::InvalidParameter {
            name: name.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }

    /// Builds [`Error::Unsupported`]: `operation` is not available on this model, because of
    /// `reason` (which says what to do instead).
    pub fn unsupported(operation: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Unsupported {
            operation: operation.into(),
            reason: reason.into(),
        }
    }

    /// Builds [`Error::EmptyDataset`] for statistics ([`FitStats`](crate::FitStats)) of `what`
    /// that have seen no rows yet, so no model can be made from them.
    pub fn no_rows_seen(what: &str) -> Self {
        Error::EmptyDataset(format!(
            "the {what} statistics have seen no rows: update them with at least one batch"
        ))
    }

    /// Builds [`Error::ShapeMismatch`].
    pub fn shape(what: impl Into<String>, expected: usize, found: usize) -> Self {
        Error::ShapeMismatch {
            what: what.into(),
            expected,
            found,
        }
    }

    /// Builds [`Error::Parse`].
    pub fn parse(line: usize, column: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            line,
            column,
            message: message.into(),
        }
    }

    /// Builds [`Error::Column`].
    pub fn column(
        column: impl Into<String>,
        row: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Error::Column {
            column: column.into(),
            row,
            message: message.into(),
        }
    }

    /// Builds [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Builds [`Error::OutOfMemory`].
    pub fn out_of_memory(what: impl Into<String>, bytes: u64, way_out: impl Into<String>) -> Self {
        Error::OutOfMemory {
            what: what.into(),
            bytes,
            way_out: way_out.into(),
        }
    }

    /// An I/O error reported against a placeholder name (`<output>`) renamed to `path`;
    /// other errors unchanged.
    pub fn at_path(self, path: impl Into<PathBuf>) -> Self {
        match self {
            Error::Io { source, .. } => Error::Io {
                path: path.into(),
                source,
            },
            other => other,
        }
    }

    /// Wraps the error of zero-based fold `index` of `n_folds` in [`Error::InFold`].
    pub fn in_fold(self, index: usize, n_folds: usize) -> Self {
        Error::InFold {
            fold: index + 1,
            n_folds,
            source: Box::new(self),
        }
    }

    /// The error itself, or for [`Error::InFold`] the error of the fold: what to match on.
    pub fn root(&self) -> &Error {
        match self {
            Error::InFold { source, .. } => source.root(),
            other => other,
        }
    }

    /// Builds [`Error::ModelFile`].
    pub fn model_file(reason: impl Into<String>) -> Self {
        Error::ModelFile {
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_names_the_operation_and_the_way_out() {
        let e = Error::unsupported("predict_proba", "refit with probability(true)");
        assert!(matches!(
            &e,
            Error::Unsupported { operation, reason }
                if operation == "predict_proba" && reason == "refit with probability(true)"
        ));
        assert_eq!(
            e.to_string(),
            "predict_proba is not available: refit with probability(true)"
        );
        // Inside a fold it is still what callers match on.
        assert!(matches!(e.in_fold(0, 3).root(), Error::Unsupported { .. }));
    }
}
