//! `margin train` and `margin predict`: the grammar every model family registers into.
//!
//! A model family adds a slice of [`ModelEntry`]s to `FAMILIES`: its command-line name, the model-file
//! kind it writes, its parameters and a function to fit. `train` parses `--name value` pairs
//! into [`ParamArgs`] and hands them to the entry; `predict` (and `evaluate`'s folds, and `info`)
//! read any model file through [`margin_any`], one path for every kind ([`predict_bytes`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, UInt64Array};
use clap::{Args, ValueEnum};
use margin_any::registry::{self, DynParams, Estimator, Role};
use margin_any::{AnyModel, Predicted};
use margin_core::params::{ParamInfo, ParamType, Params, Value, flag_of};
use margin_core::{Dataset, Error, Label, Matrix, Records, Targets};
use margin_io::table::labels_column;

use crate::Failure;
use crate::convergence::Fitted;
use crate::data::{DataArgs, FormatArg, load, nulls_for, table_output, write_table};
use crate::model_params::{params_help, read_param_file};
use crate::output::{Out, check_outputs, outln, warn};
use crate::precomputed::{self, KernelInput};

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

    /// Checks `--class-weight`, if given, against the training data: `balanced`, or weights
    /// per class `LABEL:W,LABEL:W` (scikit-learn's `class_weight` dict, LIBSVM's `-wLABEL W`;
    /// a class not named keeps weight 1). As scikit-learn, a named class the training data
    /// lacks is refused. The value stays, for [`ParamArgs::apply_to`] to set.
    pub fn check_class_weight(&self, data: &Dataset) -> Result<(), Failure> {
        let Some(text) = self.values.get("class-weight") else {
            return Ok(());
        };
        let given = match <margin_core::ClassWeight as ParamType>::parse(text) {
            Ok(margin_core::ClassWeight::Given(given)) => given,
            Ok(_) => return Ok(()),
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
        Ok(())
    }

    /// Sets every given parameter that `params` describes, in declaration order (a parameter
    /// is listed after those that decide whether it is used), and leaves other flags for the
    /// entry's own options. A value the params refuse, or a parameter given on the command
    /// line that the resulting configuration does not use (`--gamma` with `--kernel linear`),
    /// is a usage error; a parameter file may hold unused ones (it lists them all).
    pub fn apply_to(&mut self, params: &mut dyn DynParams) -> Result<(), Failure> {
        let described = params.describe();
        // A refusal names the flag, as the command line spells the parameter.
        let as_flag = |e: Error| match e {
            Error::InvalidParameter {
                name,
                value,
                expected,
            } if described.iter().any(|p| p.name == name) => Failure::usage(format!(
                "--{}: expected {expected}, found `{value}`",
                flag_of(&name)
            )),
            other => Failure::from(other),
        };
        let mut given = Vec::new();
        for param in &described {
            if let Some(text) = self.values.remove(&param.flag) {
                params.set(param.name, &text).map_err(as_flag)?;
                if !self.from_file.contains(&param.flag) {
                    given.push(param.name);
                }
            }
        }
        if let Some(param) = params.first_unused(&given) {
            let flag = param.flag;
            return Err(Failure::usage(format!(
                "--{flag}: {} is used only {}; leave out --{flag} or change the configuration",
                param.name, param.applies
            )));
        }
        params.check().map_err(as_flag)
    }

    /// [`ParamArgs::apply_to`] on a params value of a known type, given back set.
    pub fn apply<P: Params + Send + Sync>(&mut self, mut params: P) -> Result<P, Failure> {
        self.apply_to(&mut params)?;
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

/// Which score a binary classifier gives a ROC curve, larger meaning its second class.
#[derive(Clone, Copy, Debug)]
pub enum Roc {
    /// Its decision value.
    Decision,
    /// Its probability of the second class.
    Probability,
}

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

/// The records the model reads: at its width (see [`at_width`]), or for a model fitted on a
/// precomputed kernel the columns of `K(test, train)` behind an unused column 0 (see
/// [`precomputed::test_rows`]).
fn model_input<'a>(model: &dyn AnyModel, x: Cow<'a, Matrix>) -> Result<Cow<'a, Matrix>, Failure> {
    if model.precomputed() {
        let n_train = model.n_features().saturating_sub(1);
        return Ok(Cow::Owned(precomputed::test_rows(&x, n_train)?));
    }
    at_width(x, model.n_features())
}

/// The command-line names of the models whose files have kind `kind` (`lasso/elastic-net`),
/// as messages about a model file name it.
fn names_of(kind: &str) -> String {
    let names: Vec<&str> = registry()
        .filter(|m| m.kind() == kind)
        .map(|m| m.name)
        .collect();
    names.join("/")
}

/// Predicts the records `x` (borrowed, or owned so that padding them costs no copy) with the
/// model file `bytes`, whatever its kind (one path through [`margin_any`]): a classifier's
/// labels, with `proba` also each class's probability (columns in the model's class order);
/// a regressor's values; cluster indices; a one-class SVM's +1/-1.
pub fn predict_bytes(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    let model = margin_any::load(bytes)?;
    let gives = |method: &str| model.methods().contains(&method);
    let name = names_of(model.kind());
    if !["classes", "values", "clusters", "outliers"]
        .iter()
        .any(|m| gives(m))
    {
        return Err(Failure::usage(format!(
            "a {name} model transforms rather than predicts: run `margin transform MODEL_FILE DATA -o OUT`"
        )));
    }
    if proba && !gives("proba") {
        let instead = if gives("values") {
            "is a regressor"
        } else if gives("clusters") {
            "gives cluster indices"
        } else if gives("outliers") {
            "gives inlier/outlier labels"
        } else {
            "gives decision values"
        };
        return Err(Failure::usage(format!(
            "--proba: {name} {instead} and estimates no class probabilities"
        )));
    }
    let x = model_input(&*model, x)?;
    Ok(match model.predict(&*x)? {
        Predicted::Classes(indices) => {
            let classes = model.classes();
            let labels: Vec<Label> = indices
                .iter()
                .map(|&k| classes[k as usize].clone())
                .collect();
            if !proba {
                return Ok(Predictions::Labels(labels));
            }
            // Only the refusal of a model without a probability model is the flag's fault; any
            // other failure (memory, say) is reported as itself.
            let probs = model.predict_proba(&*x).map_err(|e| match e {
                Error::Unsupported { .. } => {
                    Failure::usage("--proba: this model was trained without --probability true")
                }
                other => other.into(),
            })?;
            Predictions::Probabilities {
                labels,
                classes: classes.to_vec(),
                probs,
            }
        }
        Predicted::Values(values) => Predictions::Values(values),
        Predicted::Integers(clusters) if gives("clusters") => {
            Predictions::Clusters(clusters.into_iter().map(|k| k as usize).collect())
        }
        Predicted::Integers(signs) => {
            Predictions::Labels(signs.into_iter().map(|s| Label::Number(s as f64)).collect())
        }
    })
}

/// For a ROC curve: a binary classifier's scores for `x`, larger meaning its second class,
/// from its model file.
pub fn roc_scores(how: Roc, bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    let model = margin_any::load(bytes)?;
    let x = model_input(&*model, Cow::Borrowed(x))?;
    let n_classes = model.classes().len();
    if n_classes != 2 {
        return Err(Failure::usage(format!(
            "a ROC curve needs a binary problem (this model has {n_classes} classes)"
        )));
    }
    Ok(match how {
        Roc::Decision => model.decision_function(&*x)?.into_vec(),
        Roc::Probability => model.predict_proba(&*x)?.rows().map(|r| r[1]).collect(),
    })
}

/// The hyperparameters the model file `bytes` stores, described (names, kinds, help, values),
/// in its params' descriptor order.
pub fn stored(bytes: &[u8]) -> Result<Vec<ParamInfo>, Failure> {
    Ok(margin_any::load(bytes)?.hyperparams())
}

/// One trainable model as the CLI knows it: an estimator of [`margin_any::registry`] (its
/// kind, role and parameters) with what the command line adds.
pub struct ModelEntry {
    /// The name after `margin train`, the estimator's.
    pub name: &'static str,
    /// One line for the model list.
    pub summary: &'static str,
    /// `--name value: meaning (default)` lines for command-line options that are not
    /// parameters of the model's params struct (pruning), if any.
    pub params_help: &'static str,
    /// The entry's own training, for options the params do not describe (pruning, `--p` as
    /// scikit-learn's Minkowski metric) or reports after the fit (out-of-bag scores, boosting
    /// iterations); `None` for the registry's fit ([`fit_estimator`]).
    pub own_training: Option<TrainFn>,
    /// For binary classifiers: the score a ROC curve ranks samples by (see [`roc_scores`]).
    pub roc: Option<Roc>,
}

/// Fits on a dataset with the given parameters, and returns the model file's bytes (and how an
/// iterative solver ended).
pub type TrainFn = fn(&Dataset, ParamArgs) -> Result<Fitted, Failure>;

impl ModelEntry {
    /// The registry's estimator of this name.
    pub fn estimator(&self) -> &'static Estimator {
        // Every entry's name is registered (checked by the test
        // `entries::tests::every_entry_is_a_registered_estimator`).
        registry::estimator(self.name)
            .unwrap_or_else(|| unreachable!("`{}` is not in margin-any's registry", self.name))
    }

    /// The kind its model files carry.
    pub fn kind(&self) -> &'static str {
        self.estimator().kind()
    }

    /// Whether it is fitted on class labels (cross-validation then stratifies its folds): a
    /// classifier's, or a one-class SVM's inlier/outlier labels.
    pub fn classifier(&self) -> bool {
        matches!(self.estimator().role, Role::Classifier | Role::Outlier)
    }

    /// The parameters the model's params struct describes, with the values `margin train`
    /// starts from (help, `margin params` and parameter files are generated from them).
    pub fn params(&self) -> Vec<ParamInfo> {
        self.estimator().params().describe()
    }

    /// Fits on `data` with the parameters `p`: the entry's own training, or the registry's.
    pub fn train(&self, data: &Dataset, p: ParamArgs) -> Result<Fitted, Failure> {
        match self.own_training {
            Some(train) => train(data, p),
            None => fit_estimator(self.name, data, p),
        }
    }
}

/// Fits the registered estimator `name` on `data`: the class weights checked against the
/// data's classes, every parameter set ([`ParamArgs::apply_to`]), and a precomputed kernel's
/// Gram rows brought to the layout the library reads (see [`KernelInput`]).
pub fn fit_estimator(name: &str, data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let estimator = registry::estimator(name)
        .ok_or_else(|| Failure::internal(format!("`{name}` is not a registered estimator")))?;
    let mut params = estimator.params();
    if params.get("class_weight").is_some() {
        p.check_class_weight(data)?;
    }
    p.apply_to(params.as_mut())?;
    let input = match params.get("kernel") {
        Some(Value::Text(kind)) if kind == "precomputed" => KernelInput::Gram(p.take_selection()),
        _ => KernelInput::Features,
    };
    p.finish(name)?;
    let fitted = params.fit(&*input.training(data)?)?;
    Ok(Fitted {
        bytes: fitted.model.to_bytes()?,
        convergence: fitted.convergence,
    })
}

/// Every model `margin train` knows, in the order its model list shows them.
pub fn registry() -> impl Iterator<Item = &'static ModelEntry> {
    crate::entries::ENTRIES.iter()
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
                let described = params_help(&entry.params());
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
    let fitted = entry
        .train(&data, cmd.params)
        .map_err(|f| with_missing_hint(f, entry, &data))?;
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
    let flag = entry
        .params()
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
    registry().find(|m| m.kind() == kind).ok_or_else(|| {
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
    let predictions = predict_bytes(&bytes, Cow::Owned(records), args.proba)?;
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
