//! `margin svm-train` and `margin svm-predict`: LIBSVM's tools, flag for flag, output line for
//! output line, model file for model file.
//!
//! Options are checked as LIBSVM 3.37 checks them (`svm-train.c`'s command line,
//! `svm_check_parameter`, `svm-predict.c`), with LIBSVM's messages, before any data is read or
//! any output touched. Where LIBSVM's `atoi`/`atof` would read `abc` as 0 or `1.5` as 1, margin
//! refuses the value instead. svm-train's options, trainings, cross-validation and printed text
//! are `margin_svm::TrainOptions` and `TrainLog`, which the Python package's `svm_train` shares;
//! this module reads and writes the files. Outputs (the model file, the predictions) are written whole or
//! not at all, and an output that is also an input is refused.

use std::path::{Path, PathBuf};

use clap::Args;
use margin_core::format::format_g;
use margin_core::{Dataset, Targets};
use margin_io::{IndexBase, LibsvmOptions, read_libsvm};
use margin_svm::{
    Evaluation, LibsvmModel, LibsvmRun, OptionError, TrainLog, TrainOptions, TrainOutput,
};

use crate::Failure;
use crate::output::{Out, check_outputs, outln, warn};

const TRAIN_USAGE: &str = "Usage: margin svm-train [options] training_set_file [model_file]
options:
-s svm_type : set type of SVM (default 0)
	0 -- C-SVC		(multi-class classification)
	1 -- nu-SVC		(multi-class classification)
	2 -- one-class SVM
	3 -- epsilon-SVR	(regression)
	4 -- nu-SVR		(regression)
-t kernel_type : set type of kernel function (default 2)
	0 -- linear: u'*v
	1 -- polynomial: (gamma*u'*v + coef0)^degree
	2 -- radial basis function: exp(-gamma*|u-v|^2)
	3 -- sigmoid: tanh(gamma*u'*v + coef0)
	4 -- precomputed kernel (kernel values in training_set_file)
-d degree : set degree in kernel function (default 3)
-g gamma : set gamma in kernel function (default 1/num_features)
-r coef0 : set coef0 in kernel function (default 0)
-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)
-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)
-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)
-m cachesize : set cache memory size in MB (default 100)
-e epsilon : set tolerance of termination criterion (default 0.001)
-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n: n-fold cross validation mode
-q : quiet mode (no outputs)
--solver smo|batched : margin's own option, not LIBSVM's (default smo: LIBSVM's SMO, step for step);
	batched: margin's working-set solver, the same optimum to within -e, faster on large data";

/// Arguments of `margin svm-train` (LIBSVM's flags; see `margin svm-train --help`).
#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct SvmTrainArgs {
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    rest: Vec<String>,
}

/// Prints a usage text (what `--help` asks for).
fn print_usage(usage: &str) -> Result<(), Failure> {
    let mut out = Out::stdout();
    outln!(out, "{usage}")?;
    out.finish()
}

/// svm-train's command line: its options, the training file and the model file.
struct TrainCommand {
    options: TrainOptions,
    train: PathBuf,
    model: PathBuf,
}

/// An option refused, as svm-train refuses it (with the usage text where LIBSVM shows it).
fn refused(e: OptionError) -> Failure {
    if e.wants_usage() {
        Failure::usage(format!("{e}\n{TRAIN_USAGE}"))
    } else {
        Failure::usage(e.to_string())
    }
}

fn parse_train(words: &[String]) -> Result<Option<TrainCommand>, Failure> {
    let (options, used) = TrainOptions::parse(words).map_err(refused)?;
    let rest = &words[used..];
    match rest {
        [help, ..] if help == "--help" => {
            print_usage(TRAIN_USAGE)?;
            Ok(None)
        }
        [other, ..] if other.starts_with("--") => Err(Failure::usage(format!(
            "Unknown option: {other}\n{TRAIN_USAGE}"
        ))),
        [train] | [train, _] => {
            let model = match rest.get(1) {
                Some(m) => PathBuf::from(m),
                None => PathBuf::from(format!(
                    "{}.model",
                    Path::new(train)
                        .file_name()
                        .map_or_else(|| train.clone(), |n| n.to_string_lossy().into_owned())
                )),
            };
            Ok(Some(TrainCommand {
                options,
                train: PathBuf::from(train),
                model,
            }))
        }
        _ => Err(Failure::usage(TRAIN_USAGE)),
    }
}

/// Where svm-train's text goes: stdout (the first write failure kept for the end of the
/// run) and stderr.
struct Printer<'a> {
    out: &'a mut Out,
    failed: Option<Failure>,
}

impl Printer<'_> {
    /// The first write failure, if any.
    fn finish(self) -> Result<(), Failure> {
        self.failed.map_or(Ok(()), Err)
    }
}

impl TrainOutput for Printer<'_> {
    fn print(&mut self, text: &str) {
        if self.failed.is_none()
            && let Err(e) = self.out.write_all(text.as_bytes())
        {
            self.failed = Some(e);
        }
    }

    fn warn(&mut self, line: &str) {
        warn(line);
    }
}

/// How svm-train and svm-predict read data and model files: feature index `j` is column `j`,
/// as in LIBSVM's `svm_node`s. Index 0 is then a feature like any other (LIBSVM accepts it in
/// any file), and a precomputed-kernel file's `0:serial` is column 0, whatever the svm type:
/// one rule for every file these commands read or write.
const LIBSVM_INDEXING: IndexBase = IndexBase::Zero;

/// [`LIBSVM_INDEXING`] as data-reading options.
fn libsvm_reading() -> LibsvmOptions {
    LibsvmOptions {
        index_base: LIBSVM_INDEXING,
        ..Default::default()
    }
}

/// Runs `margin svm-train`.
pub fn train(args: &SvmTrainArgs) -> Result<(), Failure> {
    let Some(command) = parse_train(&args.rest)? else {
        return Ok(());
    };
    let o = &command.options;
    o.trainer(1).map_err(refused)?;
    if o.folds().is_none() {
        check_outputs(&[&command.train], &[&command.model])?;
    }
    let data = read_libsvm(&command.train, &libsvm_reading())
        .map_err(|e| Failure::in_file(&command.train, e))?;
    let trainer = o
        .trainer(data.n_features().saturating_sub(1))
        .map_err(refused)?;
    let mut stdout = Out::stdout();
    let mut printer = Printer {
        out: &mut stdout,
        failed: None,
    };
    let mut log = TrainLog::new(&mut printer, o.quiet());
    // One unseeded rand() for the whole run, as svm-train's.
    let mut run = LibsvmRun::new(&mut log);
    if o.folds().is_some() {
        let predicted = trainer.cross_validate(&data, &mut run)?;
        printer.finish()?;
        print_cross_validation(o, &data, &predicted, &mut stdout)?;
        return stdout.finish();
    }
    let model = trainer.fit_in(&data, &mut run)?;
    printer.finish()?;
    let text = model.to_text_indexed(LIBSVM_INDEXING)?;
    let mut file = Out::file(&command.model)?;
    file.write_all(text.as_bytes())?;
    file.finish()?;
    stdout.finish()
}

/// svm-train's closing lines of `-v`: the accuracy, or for regression the mean squared error
/// and the squared correlation coefficient.
fn print_cross_validation(
    o: &TrainOptions,
    data: &Dataset,
    predicted: &[f64],
    out: &mut Out,
) -> Result<(), Failure> {
    let e = Evaluation::of(&data.targets.values()?, predicted);
    if o.is_regression() {
        outln!(
            out,
            "Cross Validation Mean squared error = {}",
            format_g(e.mse, 6)
        )?;
        outln!(
            out,
            "Cross Validation Squared correlation coefficient = {}",
            format_g(e.scc, 6)
        )?;
    } else {
        // svm-train's rounding, `100.0*total_correct/prob.l` (svm-predict's differs).
        let accuracy = 100.0 * e.correct as f64 / e.total as f64;
        outln!(
            out,
            "Cross Validation Accuracy = {}%",
            format_g(accuracy, 6)
        )?;
    }
    Ok(())
}

const PREDICT_USAGE: &str = "Usage: margin svm-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0)
-q : quiet mode (no outputs)";

/// Arguments of `margin svm-predict` (LIBSVM's flags).
#[derive(Args, Debug)]
#[command(disable_help_flag = true)]
pub struct SvmPredictArgs {
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    rest: Vec<String>,
}

/// svm-predict's settings.
struct PredictOptions<'a> {
    quiet: bool,
    probability: bool,
    test: &'a Path,
    model: &'a Path,
    output: &'a Path,
}

fn parse_predict(words: &[String]) -> Result<Option<PredictOptions<'_>>, Failure> {
    let (mut quiet, mut probability) = (false, false);
    let mut i = 0;
    while i < words.len() && words[i].starts_with('-') {
        match words[i].as_str() {
            "-q" => {
                quiet = true;
                i += 1;
            }
            "-b" => {
                let value = words
                    .get(i + 1)
                    .ok_or_else(|| Failure::usage(format!("-b needs a value\n{PREDICT_USAGE}")))?;
                probability = match value.as_str() {
                    "0" => false,
                    "1" => true,
                    other => {
                        return Err(Failure::usage(format!(
                            "-b probability_estimates: `{other}` is not 0 or 1"
                        )));
                    }
                };
                i += 2;
            }
            "--help" => {
                print_usage(PREDICT_USAGE)?;
                return Ok(None);
            }
            other => {
                return Err(Failure::usage(format!(
                    "Unknown option: {other}\n{PREDICT_USAGE}"
                )));
            }
        }
    }
    let [test, model, output] = &words[i..] else {
        return Err(Failure::usage(PREDICT_USAGE));
    };
    Ok(Some(PredictOptions {
        quiet,
        probability,
        test: Path::new(test),
        model: Path::new(model),
        output: Path::new(output),
    }))
}

/// The lines of svm-predict's output file and its predicted values, as LIBSVM writes them.
fn predicted_lines<R: margin_core::Records + ?Sized>(
    model: &LibsvmModel,
    records: &R,
    probability: bool,
) -> Result<(Vec<String>, Vec<f64>), Failure> {
    let mut lines = Vec::new();
    if !probability {
        let predicted = model.predict_values(records)?;
        lines.extend(predicted.iter().map(|v| format_g(*v, 17)));
        return Ok((lines, predicted));
    }
    let (predicted, probs) = model.predict_probability(records)?;
    match model {
        LibsvmModel::Svc(m) => {
            let head: Vec<String> = m.classes().iter().map(ToString::to_string).collect();
            lines.push(format!("labels {}", head.join(" ")));
        }
        LibsvmModel::OneClass(_) => lines.push("label normal outlier".to_owned()),
        LibsvmModel::SingleClass(m) => lines.push(format!("labels {}", m.label())),
        // Regression: the values alone (the probability model is printed on stdout).
        LibsvmModel::Svr(_) => {
            lines.extend(predicted.iter().map(|v| format_g(*v, 17)));
            return Ok((lines, predicted));
        }
    }
    for (label, row) in predicted.iter().zip(probs.rows()) {
        let mut line = format_g(*label, 6);
        for p in row {
            line.push(' ');
            line.push_str(&format_g(*p, 6));
        }
        lines.push(line);
    }
    Ok((lines, predicted))
}

/// Runs `margin svm-predict`.
pub fn predict(args: &SvmPredictArgs) -> Result<(), Failure> {
    let Some(o) = parse_predict(&args.rest)? else {
        return Ok(());
    };
    check_outputs(&[o.test, o.model], &[o.output])?;
    let model = LibsvmModel::load_indexed(o.model, LIBSVM_INDEXING)
        .map_err(|e| Failure::in_file(o.model, e))?;
    if o.probability && !model.has_probability() {
        return Err(Failure::usage(format!(
            "Model does not support probability estimates: {} was trained without -b 1 (a one-class model also has none when svm-train warned of too few decision values)",
            o.model.display()
        )));
    }
    let test = read_libsvm(o.test, &libsvm_reading()).map_err(|e| Failure::in_file(o.test, e))?;
    let width = test.n_features().max(model.n_features());
    let model = model.with_n_features(width)?;
    let records = test.records.clone().with_n_features(width)?;
    let (lines, predicted) = predicted_lines(&model, &records, o.probability)?;
    let mut stdout = Out::stdout();
    let regression = matches!(model, LibsvmModel::Svr(_));
    if !o.quiet {
        match (&model, o.probability) {
            (LibsvmModel::Svr(m), true) => {
                let sigma = m.laplace_scale().unwrap_or(0.0);
                outln!(
                    stdout,
                    "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={}",
                    format_g(sigma, 6)
                )?;
            }
            (_, false) if model.has_probability() => {
                outln!(
                    stdout,
                    "Model supports probability estimates, but disabled in prediction."
                )?;
            }
            _ => {}
        }
    }
    let mut out = Out::file(o.output)?;
    for line in &lines {
        outln!(out, "{line}")?;
    }
    out.finish()?;
    if !o.quiet {
        let truth = match &test.targets {
            Targets::Values(v) => v.clone(),
            Targets::Classes(_) => return stdout.finish(),
        };
        let e = Evaluation::of(&truth, &predicted);
        if regression {
            outln!(
                stdout,
                "Mean squared error = {} (regression)",
                format_g(e.mse, 6)
            )?;
            outln!(
                stdout,
                "Squared correlation coefficient = {} (regression)",
                format_g(e.scc, 6)
            )?;
        } else {
            outln!(
                stdout,
                "Accuracy = {}% ({}/{}) (classification)",
                format_g(e.accuracy, 6),
                e.correct,
                e.total
            )?;
        }
    }
    stdout.finish()
}
