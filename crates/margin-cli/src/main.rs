//! The `margin` command-line tool.
//!
//! ```text
//! margin info <DATA>
//! margin scale [-l LOWER] [-u UPPER] [-y Y_LOWER Y_UPPER] [-s SAVE | -r RESTORE] <DATA>
//! margin train <MODEL> [--param value ...] [--params FILE.json] <TRAIN_DATA> -o <MODEL_FILE>
//! margin params <MODEL> [-o FILE.json]
//! margin predict <MODEL_FILE> <DATA> [-o PREDICTIONS] [--proba]
//! margin transform <MODEL_FILE> <DATA> [-o OUT]
//! margin evaluate <MODEL> [--param value ...] <DATA> --cv K [--seed S] [--metrics m1,m2] [--grid SPEC]
//! margin tree-export <MODEL_FILE> [--dot] [--tree N]
//! margin svm-train [options] training_set_file [model_file]
//! margin svm-predict [options] test_file model_file output_file
//! ```
//!
//! Errors go to stderr; the exit code is 2 for bad input (files, flags, data) and 1 for an
//! internal failure. No command prints a panic trace.

mod boosting_models;
mod columns;
mod convergence;
mod data;
mod entries;
mod evaluate;
mod grid;
mod info;
mod libsvm_cli;
mod model_params;
mod models;
mod neighbor_models;
mod output;
mod precomputed;
mod scale;
mod tour;
mod transform;
mod tree_export;
mod tree_models;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use margin_core::Error;

/// margin: classic machine learning, exact and fast.
#[derive(Parser, Debug)]
#[command(name = "margin", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Describe a data file: rows, features, sparsity, labels, value ranges.
    Info(info::InfoArgs),
    /// Scale features to [LOWER, UPPER], as LIBSVM's svm-scale (same flags, output and params file).
    Scale(scale::ScaleArgs),
    /// Fit a model: `margin train MODEL [--param value ...] TRAIN_DATA -o MODEL_FILE`.
    Train(models::TrainArgs),
    /// Print a model's parameters and the values `train` starts from, as JSON for `--params FILE`.
    Params(model_params::ParamsArgs),
    /// Cross-validate a model: `margin evaluate MODEL [--param value ...] DATA --cv K [--seed S] [--metrics ...]`.
    Evaluate(evaluate::EvaluateArgs),
    /// Predict with a saved model: `margin predict MODEL_FILE DATA [-o PREDICTIONS]`.
    Predict(models::PredictArgs),
    /// Transform data with a saved PCA or k-means model: `margin transform MODEL_FILE DATA [-o OUT]`.
    Transform(transform::TransformArgs),
    /// LIBSVM's svm-train: same flags, output and model files (see `margin svm-train --help`).
    #[command(name = "svm-train")]
    SvmTrain(libsvm_cli::SvmTrainArgs),
    /// LIBSVM's svm-predict: test_file model_file output_file.
    #[command(name = "svm-predict")]
    SvmPredict(libsvm_cli::SvmPredictArgs),
    /// Tour the models on the bundled datasets: a table of scores and times, and ROC charts.
    Tour(tour::TourArgs),
    /// Print a saved tree as text, or as Graphviz DOT with --dot: `margin tree-export MODEL_FILE [--dot]`.
    #[command(name = "tree-export")]
    TreeExport(tree_export::TreeExportArgs),
}

/// An error with the exit code it maps to.
#[derive(Debug)]
pub(crate) struct Failure {
    code: u8,
    message: String,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        // A reader that stops early (`margin scale data | head`) is not an error, as with
        // svm-scale, which the pipe's signal would end quietly.
        if let Error::Io { source, .. } = &e
            && output::is_broken_pipe(source)
        {
            return Failure::quiet();
        }
        let code = match e.root() {
            Error::Numerical(_) | Error::NotConverged { .. } => 1,
            _ => 2,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

impl Failure {
    /// Not a failure: the command ends early and successfully, saying nothing (its reader went
    /// away).
    pub(crate) fn quiet() -> Self {
        Failure {
            code: 0,
            message: String::new(),
        }
    }

    /// A failure of margin's own, not of the input (exit code 1): an output that could not be
    /// written, a numerical breakdown.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Failure {
            code: 1,
            message: message.into(),
        }
    }

    /// Bad input given on the command line.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: message.into(),
        }
    }

    /// The same failure, its message prefixed with where it happened (`tour: SVC on dna`,
    /// `cross-validation fold 2 of 5`).
    pub(crate) fn within(self, context: impl std::fmt::Display) -> Self {
        if self.code == 0 {
            return self;
        }
        Failure {
            message: format!("{context}: {}", self.message),
            ..self
        }
    }

    /// Bad input in a named file.
    pub(crate) fn in_file(path: &std::path::Path, e: Error) -> Self {
        let mut f = Failure::from(e);
        if !f.message.contains(&path.display().to_string()) {
            f.message = format!("{}: {}", path.display(), f.message);
        }
        f
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Scale(a) => scale::run(&a),
        Command::Train(a) => models::train(&a),
        Command::Params(a) => model_params::run(&a),
        Command::Predict(a) => models::predict(&a),
        Command::Transform(a) => transform::run(&a),
        Command::Evaluate(a) => evaluate::run(&a),
        Command::SvmTrain(a) => libsvm_cli::train(&a),
        Command::SvmPredict(a) => libsvm_cli::predict(&a),
        Command::Tour(a) => tour::run(&a),
        Command::TreeExport(a) => tree_export::run(&a),
    }
}

/// A file-size limit (`ulimit -f`) sends SIGXFSZ, whose default action kills the process
/// before any message; ignored, the write fails with EFBIG instead, which the output path
/// reports (exit code 1) after removing its temporary file, leaving the old file in place.
#[allow(unsafe_code)] // `libc::signal` is an FFI call
fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts installs no
    // handler code and touches no Rust state.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

fn main() -> ExitCode {
    ignore_file_size_signal();
    let cli = Cli::parse();
    // A bug must still end with a one-line message and exit code 1, not a trace.
    std::panic::set_hook(Box::new(|info| {
        output::warn(format_args!(
            "margin: internal error: {info}; please report this with the command that caused it"
        ));
    }));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(f)) if f.code == 0 => ExitCode::SUCCESS,
        Ok(Err(f)) => {
            output::warn(format_args!("margin: {}", f.message));
            ExitCode::from(f.code)
        }
        Err(_) => ExitCode::from(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_the_model_cannot_do_is_a_usage_error() {
        // Exit code 2, as for a bad parameter: the user refits or asks for something else.
        let f = Failure::from(Error::unsupported(
            "predict_proba",
            "refit with probability(true)",
        ));
        assert_eq!(f.code, 2);
        assert_eq!(
            f.message,
            "predict_proba is not available: refit with probability(true)"
        );
        let in_fold = Failure::from(Error::unsupported("predict_proba", "refit").in_fold(1, 5));
        assert_eq!(in_fold.code, 2);
    }
}
