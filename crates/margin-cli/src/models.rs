//! `margin train` and `margin predict`: the grammar every model family registers into.
//!
//! A model family adds a slice of [`ModelEntry`]s to `FAMILIES`: its command-line name, the model-file
//! kind it writes, its parameters, and functions to fit and to predict. `train` parses
//! `--name value` pairs into [`ParamArgs`] and hands them to the entry; `predict` reads the kind
//! from the model file's header and dispatches on it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, UInt64Array};
use clap::{Args, ValueEnum};
use margin_core::params::{ParamInfo, ParamType, Params, flag_of};
use margin_core::{
    Dataset, DecisionFunction, Error, Hyperparams, Label, Matrix, NFeatures, Predict, PredictProba,
    Records, Targets,
};
use margin_io::ModelFile;
use margin_io::table::labels_column;

use crate::Failure;
use crate::convergence::Fitted;
use crate::data::{DataArgs, FormatArg, load, nulls_for, table_output, write_table};
use crate::model_params::{params_help, read_param_file};
use crate::output::{Out, check_outputs, outln, warn};

/// Parameters given as `--name value` pairs, consumed by a model entry.
#[derive(Clone, Debug, Default)]
pub struct ParamArgs {
    values: BTreeMap<String, String>,
    /// Parameters whose value came from a `--params` file, which lists every parameter
    /// whether or not the configuration uses it.
    from_file: Vec<String>,
    selection: Option<Selection>,
}

/// Which rows of the data file a training set holds when it is a part of it (a
/// cross-validation fold): a precomputed kernel's columns name samples of the whole file.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Each training row's index among the file's samples.
    pub rows: Vec<usize>,
    /// The file's number of samples.
    pub of: usize,
}

impl ParamArgs {
    /// Says that the training set is the rows `rows` of a data file of `of` samples.
    pub fn selected(mut self, rows: &[usize], of: usize) -> Self {
        self.selection = Some(Selection {
            rows: rows.to_vec(),
            of,
        });
        self
    }

    /// Whether parameter `flag` (command-line spelling, without dashes) is given.
    pub fn contains(&self, flag: &str) -> bool {
        self.values.contains_key(flag)
    }

    /// Gives parameter `flag` (command-line spelling, without dashes) the value `value`.
    pub fn insert(&mut self, flag: &str, value: &str) {
        self.values.insert(flag.to_owned(), value.to_owned());
    }

    /// Removes the [`Selection`], if the training set is a part of the data file.
    pub fn take_selection(&mut self) -> Option<Selection> {
        self.selection.take()
    }

    /// Removes and parses parameter `name`, if given.
    pub fn take<T>(&mut self, name: &str) -> Result<Option<T>, Failure>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        match self.values.remove(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|e| {
                Failure::usage(format!(
                    "--{name}: expected {}, found `{v}` ({e})",
                    value_kind::<T>()
                ))
            }),
        }
    }

    /// Removes `--class-weight`, if given: `balanced`, or weights per class `LABEL:W,LABEL:W`
    /// (scikit-learn's `class_weight` dict, LIBSVM's `-wLABEL W`; a class not named keeps
    /// weight 1). As scikit-learn, a named class the training data lacks is refused.
    pub fn take_class_weight(
        &mut self,
        data: &Dataset,
    ) -> Result<Option<margin_core::ClassWeight>, Failure> {
        let Some(text) = self.take::<String>("class-weight")? else {
            return Ok(None);
        };
        let given = match <margin_core::ClassWeight as ParamType>::parse(&text) {
            Ok(margin_core::ClassWeight::Given(given)) => given,
            Ok(other) => return Ok(Some(other)),
            Err(expected) => {
                return Err(Failure::usage(format!(
                    "--class-weight: expected {expected}, found `{text}`"
                )));
            }
        };
        let classes = data.targets.to_classes()?;
        if let Some((label, _)) = given.iter().find(|(l, _)| !classes.labels().contains(l)) {
            let known: Vec<String> = classes.labels().iter().map(ToString::to_string).collect();
            return Err(Failure::usage(format!(
                "--class-weight: class {label} is not in the training data (its classes: {})",
                known.join(", ")
            )));
        }
        Ok(Some(margin_core::ClassWeight::Given(given)))
    }

    /// Sets every given parameter that `P` describes on `params`, in `P::params()` order (a
    /// parameter is listed after those that decide whether it is used), and leaves other flags
    /// for the entry's own options. A value `P` refuses, or a parameter given on the command
    /// line that the resulting configuration does not use (`--gamma` with `--kernel linear`),
    /// is a usage error; a parameter file may hold unused ones (it lists them all).
    pub fn apply<P: Params>(&mut self, mut params: P) -> Result<P, Failure> {
        let mut given = Vec::new();
        // A refusal names the flag, as the command line spells the parameter.
        let as_flag = |e: Error| match e {
            Error::InvalidParameter {
                name,
                value,
                expected,
            } if P::param(&name).is_ok() => Failure::usage(format!(
                "--{}: expected {expected}, found `{value}`",
                flag_of(&name)
            )),
            other => Failure::from(other),
        };
        for param in P::params() {
            let flag = param.flag();
            if let Some(text) = self.values.remove(&flag) {
                params.set(param.name, &text).map_err(as_flag)?;
                if !self.from_file.contains(&flag) {
                    given.push((param, flag));
                }
            }
        }
        if let Some(param) = params.first_unused(given.iter().map(|(param, _)| param.name)) {
            let flag = param.flag();
            return Err(Failure::usage(format!(
                "--{flag}: {} is used only {}; leave out --{flag} or change the configuration",
                param.name, param.applies
            )));
        }
        params.check().map_err(as_flag)?;
        Ok(params)
    }

    /// Adds `name value` pairs read from a parameter file; a parameter also given on the
    /// command line keeps the command line's value.
    pub fn add_defaults(&mut self, pairs: Vec<(String, String)>) {
        for (name, value) in pairs {
            let flag = flag_of(&name);
            if !self.values.contains_key(&flag) {
                self.values.insert(flag.clone(), value);
                self.from_file.push(flag);
            }
        }
    }

    /// Fails on any parameter no entry consumed (a typo must not be silently ignored).
    pub fn finish(self, model: &str) -> Result<(), Failure> {
        match self.values.keys().next() {
            None => Ok(()),
            Some(k) => Err(Failure::usage(format!(
                "model `{model}` has no parameter --{k} (see `margin train {model} --help`)"
            ))),
        }
    }
}

/// How a flag's value type reads in a message ("a number", not `f64`).
fn value_kind<T>() -> &'static str {
    match std::any::type_name::<T>() {
        "f64" | "f32" => "a number",
        "usize" | "u64" | "u32" | "u16" | "u8" => "a non-negative integer",
        "isize" | "i64" | "i32" => "an integer",
        "bool" => "true or false",
        _ => "a value",
    }
}

/// What a model predicts for a data file.
pub enum Predictions {
    /// Class labels.
    Labels(Vec<Label>),
    /// Class labels with each class's probability (columns in `classes` order).
    Probabilities {
        labels: Vec<Label>,
        classes: Vec<Label>,
        probs: margin_core::DenseMatrix,
    },
    /// Continuous values.
    Values(Vec<f64>),
    /// Cluster indices (`0..k`), which name no class: scored against labels by the adjusted
    /// Rand index, which ignores how clusters are numbered.
    Clusters(Vec<usize>),
}

/// Computes a binary classifier's scores from model-file bytes.
pub type ScoreFn = fn(&[u8], &Matrix) -> Result<Vec<f64>, Failure>;

/// Reads the hyperparameters a model file stores, described (names, kinds, help, values).
pub type StoredFn = fn(&[u8]) -> Result<Vec<ParamInfo>, Failure>;

/// The hyperparameters a model file of kind `M` stores, in `M`'s params' descriptor order:
/// every entry's [`ModelEntry::hyperparams`].
pub fn stored<M: ModelFile + Hyperparams>(bytes: &[u8]) -> Result<Vec<ParamInfo>, Failure> {
    Ok(M::from_bytes(bytes)?.describe_hyperparams())
}

/// Predicts from model-file bytes: the records (borrowed, or owned so that padding them costs
/// no copy) and whether class probabilities are wanted.
pub type PredictFn = fn(&[u8], Cow<'_, Matrix>, bool) -> Result<Predictions, Failure>;

/// The records a model fitted on `width` features reads, one rule for every model kind.
///
/// Sparse records come from LIBSVM/svmlight files, which store only non-zeros: a file whose
/// highest index is below the model's width has zeros in the features above it, so it is
/// padded to the width (owned records are widened in place, without a copy). A sparse file
/// with a higher index than the model knows is refused. Dense records (CSV) list every column,
/// so any other count of columns is refused: padding them would silently shift meanings.
pub fn at_width(x: Cow<'_, Matrix>, width: usize) -> Result<Cow<'_, Matrix>, Failure> {
    let found = x.n_features();
    if found == width {
        return Ok(x);
    }
    match &*x {
        Matrix::Sparse(_) if found < width => {
            Ok(Cow::Owned(x.into_owned().with_n_features(width)?))
        }
        Matrix::Sparse(_) => Err(Failure::usage(format!(
            "the data uses feature index {found}, above the {width} features the model was fitted on: give data with feature indices 1 to {width}"
        ))),
        Matrix::Dense(_) => Err(Failure::usage(format!(
            "the data has {found} feature columns, the model was fitted on {width}: a CSV or table file must have the columns the model was fitted on, in the same order (name them with --features; --no-label if the data has no label column; only a LIBSVM file may stop below the model's highest feature index)"
        ))),
    }
}

/// Decodes a model file and brings the records to its width (see [`at_width`]).
pub fn decode<'a, M: ModelFile + NFeatures>(
    bytes: &[u8],
    x: Cow<'a, Matrix>,
) -> Result<(M, Cow<'a, Matrix>), Failure> {
    let model = M::from_bytes(bytes)?;
    let x = at_width(x, model.n_features())?;
    Ok((model, x))
}

/// A classifier's labels for `x` from its model file, and with `proba` each class's
/// probability (columns in the order `labels` gives, the model's).
pub fn class_predictions<M>(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
    labels: fn(&M) -> &[Label],
) -> Result<Predictions, Failure>
where
    M: ModelFile + NFeatures + Predict<Output = Vec<Label>> + PredictProba,
{
    let (model, x) = decode::<M>(bytes, x)?;
    let predicted = model.predict(&*x)?;
    if !proba {
        return Ok(Predictions::Labels(predicted));
    }
    Ok(Predictions::Probabilities {
        labels: predicted,
        classes: labels(&model).to_vec(),
        probs: model.predict_proba(&*x)?,
    })
}

/// A regressor's predictions from its model file; `--proba` is refused (`name` is the model's).
pub fn regression_values<M>(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
    name: &str,
) -> Result<Predictions, Failure>
where
    M: ModelFile + NFeatures + Predict<Output = Vec<f64>>,
{
    no_proba(proba, &format!("{name} is a regressor"))?;
    let (model, x) = decode::<M>(bytes, x)?;
    Ok(Predictions::Values(model.predict(&*x)?))
}

/// Refuses `--proba` for a model that estimates no class probabilities (`what` says what it
/// gives instead).
pub fn no_proba(proba: bool, what: &str) -> Result<(), Failure> {
    if proba {
        return Err(Failure::usage(format!(
            "--proba: {what} and estimates no class probabilities"
        )));
    }
    Ok(())
}

/// Refuses a ROC curve for a model of other than two classes.
pub fn binary(n_classes: usize) -> Result<(), Failure> {
    if n_classes != 2 {
        return Err(Failure::usage(format!(
            "a ROC curve needs a binary problem (this model has {n_classes} classes)"
        )));
    }
    Ok(())
}

/// For a ROC curve: a binary classifier's probability of its second class.
pub fn second_class_probability<M>(
    bytes: &[u8],
    x: &Matrix,
    labels: fn(&M) -> &[Label],
) -> Result<Vec<f64>, Failure>
where
    M: ModelFile + NFeatures + PredictProba,
{
    let (model, x) = decode::<M>(bytes, Cow::Borrowed(x))?;
    binary(labels(&model).len())?;
    Ok(model.predict_proba(&*x)?.rows().map(|r| r[1]).collect())
}

/// For a ROC curve: a binary classifier's decision value, larger meaning its second class.
pub fn decision_scores<M>(
    bytes: &[u8],
    x: &Matrix,
    labels: fn(&M) -> &[Label],
) -> Result<Vec<f64>, Failure>
where
    M: ModelFile + NFeatures + DecisionFunction,
{
    let (model, x) = decode::<M>(bytes, Cow::Borrowed(x))?;
    binary(labels(&model).len())?;
    Ok(model.decision_function(&*x)?.into_vec())
}

/// One trainable model as the CLI knows it.
pub struct ModelEntry {
    /// The name after `margin train`.
    pub name: &'static str,
    /// The kind its model files carry.
    pub kind: &'static str,
    /// The hyperparameters a model file of the kind stores (see [`stored`]).
    pub hyperparams: StoredFn,
    /// One line for the model list.
    pub summary: &'static str,
    /// Whether it predicts classes (cross-validation then stratifies its folds).
    pub classifier: bool,
    /// The parameters the model's params struct describes, with the values `margin train`
    /// starts from (help, `margin params` and parameter files are generated from them).
    pub params: fn() -> Vec<ParamInfo>,
    /// `--name value: meaning (default)` lines for command-line options that are not
    /// parameters of the model's params struct (a kernel given by name, pruning), if any.
    pub params_help: &'static str,
    /// Fits on a dataset and returns the model file's bytes (and how an iterative solver
    /// ended).
    pub train: fn(&Dataset, ParamArgs) -> Result<Fitted, Failure>,
    /// Predicts from model-file bytes.
    pub predict: PredictFn,
    /// For binary classifiers: a real score per sample, larger meaning the second class (for
    /// ROC curves).
    pub scores: Option<ScoreFn>,
}

/// The model families `margin train` knows, one slice of entries per family module.
const FAMILIES: &[&[ModelEntry]] = &[
    &crate::svm_models::ENTRIES,
    &crate::linear_svm_models::ENTRIES,
    &crate::logistic_models::ENTRIES,
    &crate::naive_bayes_models::ENTRIES,
    &crate::neighbor_models::ENTRIES,
    &crate::regression_models::ENTRIES,
    &crate::perceptron_models::ENTRIES,
    &crate::tree_models::ENTRIES,
    &crate::boosting_models::ENTRIES,
    &crate::cluster_models::ENTRIES,
];

/// Every registered model, family by family.
pub fn registry() -> impl Iterator<Item = &'static ModelEntry> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

fn model_list() -> String {
    registry()
        .map(|m| format!("  {:<16} {}", m.name, m.summary))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Arguments of `margin train`.
#[derive(Args, Debug)]
#[command(
    disable_help_flag = true,
    override_usage = "margin train <MODEL> [--param value ...] <TRAIN_DATA> -o <MODEL_FILE>",
    after_help = "Run `margin train <MODEL> --help` for a model's parameters."
)]
pub struct TrainArgs {
    /// The model, its `--param value` pairs, the training data and `-o MODEL_FILE`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "MODEL ARGS"
    )]
    rest: Vec<String>,
}

/// Parsed `MODEL [--param value ...] DATA [command flags]` words.
pub struct ModelCommand {
    /// The model's registry name.
    pub model: String,
    /// `--name value` pairs for the model.
    pub params: ParamArgs,
    /// The data file.
    pub data: PathBuf,
    /// How to read it.
    pub read: DataArgs,
    /// The command's own flags (named in `reserved`), by name without dashes.
    pub options: BTreeMap<String, String>,
}

/// Parses the grammar `train` and `evaluate` share. `-o` is short for `--output`. Flags named
/// in `reserved` go to [`ModelCommand::options`], the others to the model's parameters.
pub fn parse_model_command(
    words: &[String],
    usage: &str,
    reserved: &[&str],
) -> Result<Option<ModelCommand>, Failure> {
    let Some((model, rest)) = words.split_first() else {
        return Err(Failure::usage(format!(
            "usage: {usage}\nmodels:\n{}",
            model_list()
        )));
    };
    if model == "--help" || model == "-h" {
        print_help(format_args!("usage: {usage}\n\nmodels:\n{}", model_list()))?;
        return Ok(None);
    }
    let mut params = ParamArgs::default();
    let mut param_files = Vec::new();
    let mut options = BTreeMap::new();
    let (mut data, mut read) = (None, DataArgs::default());
    let mut it = rest.iter();
    while let Some(w) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::usage(format!("{flag} needs a value")))
        };
        match w.as_str() {
            "--help" | "-h" => {
                let entry = find(model)?;
                let described = params_help(&(entry.params)());
                let lines: Vec<&str> = [described.as_str(), entry.params_help]
                    .into_iter()
                    .filter(|text| !text.is_empty())
                    .collect();
                print_help(format_args!(
                    "usage: {usage}\n\n{}\n\nparameters:\n{}\n  --params <FILE.json>               parameters from a JSON object of names and values, as\n                                     `margin params {}` prints it (flags override it)\n\n{DATA_HELP}",
                    entry.summary,
                    lines.join("\n"),
                    entry.name
                ))?;
                return Ok(None);
            }
            "--format" => {
                let text = value(w)?;
                read.format = FormatArg::from_str(&text, true).map_err(|_| {
                    Failure::usage(format!(
                        "--format: expected auto, libsvm, csv, parquet or arrow, found `{text}`"
                    ))
                })?;
            }
            "--label" => read.label = Some(value(w)?),
            "--no-label" => read.no_label = true,
            "--features" => {
                read.features = Some(value(w)?.split(',').map(str::to_owned).collect());
            }
            "--params" => param_files.push(PathBuf::from(value(w)?)),
            flag if (flag.starts_with("--") && flag.len() > 2) || flag == "-o" => {
                let name = if flag == "-o" {
                    "output".to_owned()
                } else {
                    flag[2..].replace('_', "-")
                };
                let v = value(flag)?;
                let target = if reserved.contains(&name.as_str()) {
                    &mut options
                } else {
                    &mut params.values
                };
                if target.insert(name.clone(), v).is_some() {
                    return Err(Failure::usage(format!("--{name} given twice")));
                }
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(Failure::usage(format!(
                    "unknown option `{flag}`: parameters are given as `--name value`, the output as `-o FILE`\nusage: {usage}"
                )));
            }
            positional if data.is_none() => data = Some(PathBuf::from(positional)),
            extra => {
                return Err(Failure::usage(format!(
                    "unexpected argument `{extra}` (the data file is already given)"
                )));
            }
        }
    }
    for file in param_files.iter().rev() {
        params.add_defaults(read_param_file(file)?);
    }
    let data =
        data.ok_or_else(|| Failure::usage(format!("missing the data file\nusage: {usage}")))?;
    Ok(Some(ModelCommand {
        model: model.clone(),
        params,
        data,
        read,
        options,
    }))
}

/// The data options `train` and `evaluate` read besides the model's parameters (the ones
/// [`DataArgs`] gives `predict`).
const DATA_HELP: &str = "data:
  --format <auto|libsvm|csv|parquet|arrow>
                                     how to read the data file (default: auto, from its
                                     first bytes, extension or first line)
  --label <NAME>                     the label column of a Parquet, Arrow or CSV file
                                     (default: the last column)
  --no-label                         the file has no label column
  --features <A,B,C>                 the feature columns of a Parquet, Arrow or CSV file
                                     (default: every numeric column but the label)";

/// Writes a help text to stdout.
fn print_help(text: std::fmt::Arguments<'_>) -> Result<(), Failure> {
    let mut out = Out::stdout();
    outln!(out, "{text}")?;
    out.finish()
}

const TRAIN_USAGE: &str = "margin train <MODEL> [--param value ...] <TRAIN_DATA> -o <MODEL_FILE>";

pub fn find(model: &str) -> Result<&'static ModelEntry, Failure> {
    registry()
        .find(|m| m.name == model)
        .ok_or_else(|| Failure::usage(format!("unknown model `{model}`; {}", model_list())))
}

/// Runs `margin train`.
pub fn train(args: &TrainArgs) -> Result<(), Failure> {
    let Some(cmd) = parse_model_command(&args.rest, TRAIN_USAGE, &["output"])? else {
        return Ok(());
    };
    let output = PathBuf::from(
        cmd.options
            .get("output")
            .ok_or_else(|| Failure::usage("missing -o <MODEL_FILE>"))?,
    );
    let entry = find(&cmd.model)?;
    check_outputs(&[&cmd.data], &[&output])?;
    let data = load(&cmd.data, &cmd.read, nulls_for(entry))?;
    let fitted =
        (entry.train)(&data, cmd.params).map_err(|f| with_missing_hint(f, entry, &data))?;
    crate::convergence::warn_after_train(entry, fitted.convergence);
    let bytes = crate::columns::named_model(fitted.bytes, &data)?;
    let mut out = Out::file(&output)?;
    out.write_all(&bytes)?;
    out.finish()
}

/// A failed fit of a model that takes missing values, on data holding one (a null read as
/// NaN), with the missing value named (its row and column, by name where the file has names)
/// and the flag that takes it: the model's own refusal counts positions only.
fn with_missing_hint(failure: Failure, entry: &ModelEntry, data: &Dataset) -> Failure {
    let flag = (entry.params)()
        .into_iter()
        .find(|p| matches!(p.name, "missing_values" | "allow_missing"))
        .map(|p| flag_of(p.name));
    let (Some(flag), Some((row, col))) = (flag, first_missing(&data.records)) else {
        return failure;
    };
    let column = match data.feature_names.as_deref().and_then(|n| n.get(col)) {
        Some(name) => format!("column `{name}` (feature {col})"),
        None => format!("feature {col}"),
    };
    Failure {
        message: format!(
            "{}\n  row {row}, {column} is missing (NaN, or a null in the file): fit with --{flag} true to use missing values, or impute them first",
            failure.message
        ),
        ..failure
    }
}

/// The row and column of the first NaN in `x`, if any.
fn first_missing(x: &Matrix) -> Option<(usize, usize)> {
    if margin_core::validate::stored_values(x).is_some_and(|v| !v.iter().any(|x| x.is_nan())) {
        return None;
    }
    (0..x.n_samples()).find_map(|i| {
        let mut nan = None;
        x.row(i).for_each_stored(|j, v| {
            if nan.is_none() && v.is_nan() {
                nan = Some(j);
            }
        });
        nan.map(|j| (i, j))
    })
}

/// Arguments of `margin predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {
    /// A model file written by `margin train`.
    model: PathBuf,
    /// The data to predict (its labels, if any, are used to report metrics).
    data: PathBuf,
    /// Write one prediction per line here (default: stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Also write each class's probability (classifiers trained to estimate them).
    #[arg(long)]
    proba: bool,
    /// Also print the hyperparameters the model was trained with to stderr (`parameters:`,
    /// then one `  name = value` line each, as `margin info MODEL_FILE` prints them), before
    /// predicting.
    #[arg(long)]
    show_params: bool,
    /// How to read the data.
    #[command(flatten)]
    read: DataArgs,
}

/// The registry entry of the kind named in the header of the model file at `path` (its
/// bytes).
pub fn entry_of(path: &Path, bytes: &[u8]) -> Result<&'static ModelEntry, Failure> {
    let kind = margin_io::peek_kind(bytes).map_err(|e| Failure::in_file(path, e))?;
    registry().find(|m| m.kind == kind).ok_or_else(|| {
        Failure::usage(format!(
            "{}: model kind `{kind}` is not known to this build",
            path.display()
        ))
    })
}

/// Runs `margin predict`.
pub fn predict(args: &PredictArgs) -> Result<(), Failure> {
    let bytes =
        margin_io::read_model_file(&args.model).map_err(|e| Failure::in_file(&args.model, e))?;
    let entry = entry_of(&args.model, &bytes)?;
    if args.show_params {
        let (_, infos) = crate::info::stored_params(&args.model, &bytes)?;
        warn(format_args!(
            "parameters:\n{}",
            crate::info::param_lines(&infos)
        ));
    }
    if let Some(output) = &args.output {
        check_outputs(&[&args.model, &args.data], &[output])?;
    }
    let data = load(&args.data, &args.read, nulls_for(entry))?;
    let names = crate::columns::of_model(&args.model, &bytes)?;
    let Dataset {
        records, targets, ..
    } = crate::columns::in_model_order(&args.data, data, names.as_deref())?;
    let predictions = (entry.predict)(&bytes, Cow::Owned(records), args.proba)?;
    // Data read without a label has all-zero targets: nothing to score against.
    let scores = if args.read.no_label {
        Vec::new()
    } else {
        scores(&targets, &predictions)?
    };
    let mut out = match (&args.output, table_output(args.output.as_deref())) {
        (Some(path), Some(table)) => {
            write_table(path, table, &predictions_batch(&predictions)?)?;
            Out::stdout()
        }
        _ => {
            let mut out = Out::file_or_stdout(args.output.as_deref())?;
            match delimited_output(args.output.as_deref()) {
                Some(delimiter) => write_delimited(&mut out, &predictions, delimiter)?,
                None => write_predictions(&mut out, &predictions)?,
            }
            out
        }
    };
    if args.output.is_some() {
        // The predictions are in place before the report goes to stdout.
        out.finish()?;
        out = Out::stdout();
    }
    for (name, value) in scores {
        outln!(out, "{name}: {value:.6}")?;
    }
    out.finish()
}

/// The metrics a prediction report prints against the data's targets: accuracy for labels,
/// R², RMSE and MAE for values, the adjusted Rand index for clusters.
pub fn scores(targets: &Targets, p: &Predictions) -> Result<Vec<(&'static str, f64)>, Failure> {
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    Ok(match p {
        Predictions::Labels(labels) | Predictions::Probabilities { labels, .. } => {
            let truth: Vec<Label> = match targets {
                Targets::Values(v) => v.iter().map(|&x| Label::Number(x)).collect(),
                Targets::Classes(c) => c.indices().iter().map(|&k| c.labels()[k].clone()).collect(),
            };
            refuse_other_label_kind(&truth, labels)?;
            vec![("accuracy", margin_metrics::accuracy(&truth, labels)?)]
        }
        Predictions::Values(v) => {
            let truth = targets.values()?;
            vec![
                ("r2", margin_metrics::r2_score(&truth, v)?),
                ("rmse", margin_metrics::root_mean_squared_error(&truth, v)?),
                ("mae", margin_metrics::mean_absolute_error(&truth, v)?),
            ]
        }
        Predictions::Clusters(c) => vec![("adjusted-rand", adjusted_rand(targets, c)?)],
    })
}

/// Refuses to score text labels against a model that predicts numbers, or numbers against
/// one that predicts text: no label could ever match, and an accuracy of 0 would hide that the
/// file's label column is not the one the model learned.
fn refuse_other_label_kind(truth: &[Label], predicted: &[Label]) -> Result<(), Failure> {
    let is_text = |l: &&Label| matches!(l, Label::Text(_));
    let Some(model) = predicted.first() else {
        return Ok(());
    };
    let model_text = predicted.iter().any(|l| is_text(&l));
    let model_numbers = predicted.iter().any(|l| !is_text(&l));
    let odd = if model_text && !model_numbers {
        truth.iter().find(|l| !is_text(l))
    } else if model_numbers && !model_text {
        truth.iter().find(is_text)
    } else {
        None
    };
    match odd {
        Some(label) => Err(Failure::usage(format!(
            "the data's labels are {} (`{label}`) and the model predicts {} (`{model}`): no label can match; give the label column the model was trained on (--label NAME), or predict without scoring (--no-label)",
            if is_text(&label) { "text" } else { "numbers" },
            if model_text { "text" } else { "numbers" },
        ))),
        None => Ok(()),
    }
}

/// The adjusted Rand index of predicted clusters against the data's labels.
pub fn adjusted_rand(targets: &Targets, clusters: &[usize]) -> Result<f64, Failure> {
    let classes = targets.to_classes()?;
    Ok(margin_metrics::adjusted_rand_index(
        classes.indices(),
        clusters,
    )?)
}

/// Predictions as a table: a `prediction` column (numbers, or text where a label is text;
/// cluster indices as `UInt64`), and with probabilities one `Float64` column per class named
/// `probability_<class>`, in the model's class order.
fn predictions_batch(p: &Predictions) -> Result<RecordBatch, Failure> {
    let mut columns: Vec<(String, ArrayRef)> = Vec::new();
    match p {
        Predictions::Labels(labels) => {
            columns.push(("prediction".into(), labels_column(labels.iter())));
        }
        Predictions::Probabilities {
            labels,
            classes,
            probs,
        } => {
            columns.push(("prediction".into(), labels_column(labels.iter())));
            for (k, class) in classes.iter().enumerate() {
                let column: Float64Array =
                    (0..probs.nrows()).map(|i| Some(probs.get(i, k))).collect();
                columns.push((format!("probability_{class}"), Arc::new(column)));
            }
        }
        Predictions::Values(v) => {
            columns.push(("prediction".into(), Arc::new(Float64Array::from(v.clone()))));
        }
        Predictions::Clusters(c) => {
            let column: UInt64Array = c.iter().map(|&k| Some(k as u64)).collect();
            columns.push(("prediction".into(), Arc::new(column)));
        }
    }
    RecordBatch::try_from_iter(columns).map_err(|e| Failure::usage(e.to_string()))
}

/// The delimiter an output file's extension asks for: `,` for `.csv`, a tab for `.tsv`;
/// `None` for plain text (one prediction a line, LIBSVM's layout with probabilities).
fn delimited_output(path: Option<&Path>) -> Option<char> {
    let ext = path?.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" => Some(','),
        "tsv" => Some('\t'),
        _ => None,
    }
}

/// Predictions as CSV (or TSV): a header naming the columns as the table output does
/// (`prediction`, then `probability_<class>` per class), then one row per sample; a cell
/// holding the delimiter, a quote or a line break is quoted.
fn write_delimited(out: &mut Out, p: &Predictions, delimiter: char) -> Result<(), Failure> {
    let cell = |text: String| {
        if text.contains([delimiter, '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text
        }
    };
    let sep = delimiter.to_string();
    match p {
        Predictions::Probabilities {
            labels,
            classes,
            probs,
        } => {
            let head: Vec<String> = std::iter::once("prediction".to_string())
                .chain(classes.iter().map(|c| cell(format!("probability_{c}"))))
                .collect();
            outln!(out, "{}", head.join(&sep))?;
            for (l, row) in labels.iter().zip(probs.rows()) {
                let cells: Vec<String> = std::iter::once(cell(l.to_string()))
                    .chain(row.iter().map(|p| margin_core::format::format_g(*p, 17)))
                    .collect();
                outln!(out, "{}", cells.join(&sep))?;
            }
        }
        Predictions::Labels(labels) => {
            outln!(out, "prediction")?;
            for l in labels {
                outln!(out, "{}", cell(l.to_string()))?;
            }
        }
        Predictions::Values(_) | Predictions::Clusters(_) => {
            outln!(out, "prediction")?;
            write_predictions(out, p)?;
        }
    }
    Ok(())
}

fn write_predictions(out: &mut Out, p: &Predictions) -> Result<(), Failure> {
    match p {
        Predictions::Labels(labels) => {
            for l in labels {
                outln!(out, "{l}")?;
            }
        }
        Predictions::Probabilities {
            labels,
            classes,
            probs,
        } => {
            let head: Vec<String> = classes.iter().map(ToString::to_string).collect();
            outln!(out, "label {}", head.join(" "))?;
            for (l, row) in labels.iter().zip(probs.rows()) {
                let cells: Vec<String> = row
                    .iter()
                    .map(|p| margin_core::format::format_g(*p, 6))
                    .collect();
                outln!(out, "{l} {}", cells.join(" "))?;
            }
        }
        Predictions::Values(v) => {
            for x in v {
                outln!(out, "{}", margin_core::format::format_g(*x, 17))?;
            }
        }
        Predictions::Clusters(c) => {
            for k in c {
                outln!(out, "{k}")?;
            }
        }
    }
    Ok(())
}
