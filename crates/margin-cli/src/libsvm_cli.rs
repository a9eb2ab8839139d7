//! `margin svm-train` and `margin svm-predict`: LIBSVM's tools, flag for flag, output line for
//! output line, model file for model file.
//!
//! Options are checked as LIBSVM 3.37 checks them (`svm-train.c`'s command line,
//! `svm_check_parameter`, `svm-predict.c`), with LIBSVM's messages, before any data is read or
//! any output touched. Where LIBSVM's `atoi`/`atof` would read `abc` as 0 or `1.5` as 1, margin
//! refuses the value instead. Outputs (the model file, the predictions) are written whole or
//! not at all, and an output that is also an input is refused.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use clap::Args;
use margin_core::format::format_g;
use margin_core::{Dataset, Label, Records, Targets};
use margin_io::{IndexBase, LibsvmOptions, read_libsvm};
use margin_kernels::{Linear, Polynomial, Rbf, Sigmoid};
use margin_svm::{
    ClassWeight, FitObserver, KernelChoice, LabelOrder, LibsvmModel, LibsvmRun, Mark, OneClassSvm,
    RunReport, SigmoidEnd, SingleClass, SolverObserver, SummaryLine, Svc, SvcParams, Svr,
    training_part,
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
-q : quiet mode (no outputs)";

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

/// svm-train's settings, as given (checked by [`check_parameters`]).
struct TrainOptions {
    svm_type: i64,
    kernel_type: i64,
    degree: i64,
    /// `None`: LIBSVM's default 1/num_features (also what `-g 0` means to LIBSVM).
    gamma: Option<f64>,
    coef0: f64,
    c: f64,
    nu: f64,
    p: f64,
    cache_mb: f64,
    tol: f64,
    shrinking: i64,
    probability: i64,
    weights: Vec<(i32, f64)>,
    folds: Option<i64>,
    quiet: bool,
    train: PathBuf,
    model: PathBuf,
}

impl TrainOptions {
    fn probability(&self) -> bool {
        self.probability == 1
    }
    fn is_classifier(&self) -> bool {
        matches!(self.svm_type, 0 | 1)
    }
    fn is_regression(&self) -> bool {
        matches!(self.svm_type, 3 | 4)
    }
}

/// An integer flag value (LIBSVM reads these with `atoi`).
fn int_value(flag: &str, value: &str, what: &str) -> Result<i64, Failure> {
    value
        .parse()
        .map_err(|_| Failure::usage(format!("{flag} {what}: `{value}` is not an integer")))
}

/// A real flag value (LIBSVM reads these with `atof`).
fn real_value(flag: &str, value: &str, what: &str) -> Result<f64, Failure> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Failure::usage(format!("{flag} {what}: `{value}` is not a number")))
}

/// Prints a usage text (what `--help` asks for).
fn print_usage(usage: &str) -> Result<(), Failure> {
    let mut out = Out::stdout();
    outln!(out, "{usage}")?;
    out.finish()
}

fn parse_train(words: &[String]) -> Result<Option<TrainOptions>, Failure> {
    let mut o = TrainOptions {
        svm_type: 0,
        kernel_type: 2,
        degree: 3,
        gamma: None,
        coef0: 0.0,
        c: 1.0,
        nu: 0.5,
        p: 0.1,
        cache_mb: 100.0,
        tol: 1e-3,
        shrinking: 1,
        probability: 0,
        weights: Vec::new(),
        folds: None,
        quiet: false,
        train: PathBuf::new(),
        model: PathBuf::new(),
    };
    let mut i = 0;
    while i < words.len() && words[i].starts_with('-') && words[i].len() > 1 {
        let flag = words[i].as_str();
        if flag == "--help" {
            print_usage(TRAIN_USAGE)?;
            return Ok(None);
        }
        if flag == "-q" {
            o.quiet = true;
            i += 1;
            continue;
        }
        let value = words
            .get(i + 1)
            .ok_or_else(|| Failure::usage(format!("{flag} needs a value\n{TRAIN_USAGE}")))?;
        match flag {
            "-s" => o.svm_type = int_value(flag, value, "svm_type")?,
            "-t" => o.kernel_type = int_value(flag, value, "kernel_type")?,
            "-d" => o.degree = int_value(flag, value, "degree")?,
            // LIBSVM replaces γ = 0 by its default.
            "-g" => o.gamma = Some(real_value(flag, value, "gamma")?).filter(|&g| g != 0.0),
            "-r" => o.coef0 = real_value(flag, value, "coef0")?,
            "-c" => o.c = real_value(flag, value, "cost")?,
            "-n" => o.nu = real_value(flag, value, "nu")?,
            "-p" => o.p = real_value(flag, value, "epsilon")?,
            "-m" => o.cache_mb = real_value(flag, value, "cachesize")?,
            "-e" => o.tol = real_value(flag, value, "epsilon")?,
            "-h" => o.shrinking = int_value(flag, value, "shrinking")?,
            "-b" => o.probability = int_value(flag, value, "probability_estimates")?,
            "-v" => {
                let n = int_value(flag, value, "n")?;
                if n < 2 {
                    return Err(Failure::usage(format!(
                        "n-fold cross validation: n must >= 2 (-v {n})"
                    )));
                }
                o.folds = Some(n);
            }
            w if w.starts_with("-w") => {
                let label = w[2..].parse::<i32>().map_err(|_| {
                    Failure::usage(format!(
                        "{w}: `-wi weight` needs an integer class label i (as in -w1 2 or -w-1 0.5), found `{}`",
                        &w[2..]
                    ))
                })?;
                let weight = real_value(w, value, "weight")?;
                // LIBSVM multiplies C by every weight given for a class.
                match o.weights.iter_mut().find(|(l, _)| *l == label) {
                    Some(given) => given.1 *= weight,
                    None => o.weights.push((label, weight)),
                }
            }
            other => {
                return Err(Failure::usage(format!(
                    "Unknown option: {other}\n{TRAIN_USAGE}"
                )));
            }
        }
        i += 2;
    }
    let rest = &words[i..];
    match rest {
        [train] | [train, _] => {
            o.train = PathBuf::from(train);
            o.model = match rest.get(1) {
                Some(m) => PathBuf::from(m),
                None => PathBuf::from(format!(
                    "{}.model",
                    Path::new(train)
                        .file_name()
                        .map_or_else(|| train.clone(), |n| n.to_string_lossy().into_owned())
                )),
            };
            Ok(Some(o))
        }
        _ => Err(Failure::usage(TRAIN_USAGE)),
    }
}

/// LIBSVM's `svm_check_parameter`, in its order and with its messages (the ν-SVC feasibility
/// check, which needs the data, is the library's).
fn check_parameters(o: &TrainOptions) -> Result<(), Failure> {
    let refuse = |message: &str, flag: &str, value: &dyn std::fmt::Display| {
        Err(Failure::usage(format!("{message}: {flag} {value}")))
    };
    if !(0..=4).contains(&o.svm_type) {
        return refuse(
            "unknown svm type",
            "-s",
            &format_args!(
                "{} (0 C-SVC, 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR)",
                o.svm_type
            ),
        );
    }
    if !(0..=4).contains(&o.kernel_type) {
        return refuse(
            "unknown kernel type",
            "-t",
            &format_args!(
                "{} (0 linear, 1 polynomial, 2 radial basis function, 3 sigmoid, 4 precomputed)",
                o.kernel_type
            ),
        );
    }
    let has_gamma = matches!(o.kernel_type, 1..=3);
    match o.gamma {
        Some(g) if has_gamma && g < 0.0 => return refuse("gamma < 0", "-g", &g),
        _ => {}
    }
    if o.kernel_type == 1 && o.degree < 0 {
        return refuse("degree of polynomial kernel < 0", "-d", &o.degree);
    }
    if o.cache_mb <= 0.0 {
        return refuse("cache_size <= 0", "-m", &o.cache_mb);
    }
    if o.tol <= 0.0 {
        return refuse("eps <= 0", "-e", &o.tol);
    }
    if matches!(o.svm_type, 0 | 3 | 4) && o.c <= 0.0 {
        return refuse("C <= 0", "-c", &o.c);
    }
    if matches!(o.svm_type, 1 | 2 | 4) && (o.nu <= 0.0 || o.nu > 1.0) {
        return refuse("nu <= 0 or nu > 1", "-n", &o.nu);
    }
    if o.svm_type == 3 && o.p < 0.0 {
        return refuse("p < 0", "-p", &o.p);
    }
    if !matches!(o.shrinking, 0 | 1) {
        return refuse("shrinking != 0 and shrinking != 1", "-h", &o.shrinking);
    }
    if !matches!(o.probability, 0 | 1) {
        return refuse(
            "probability != 0 and probability != 1",
            "-b",
            &o.probability,
        );
    }
    Ok(())
}

/// The kernel the options describe for training data whose largest feature index is
/// `max_index`, after [`check_parameters`]: γ is `-g`, or else LIBSVM's `1/max_index`
/// (`svm-train.c`'s read_problem: the largest index, not the column count, so a file using
/// index 0 still gets `1/max_index`). A polynomial takes what LIBSVM takes (a degree of 0, a
/// negative coef0). Called once before any data is read, with a stand-in index, so that
/// nothing is read before a refusal.
fn kernel_for(o: &TrainOptions, max_index: usize) -> Result<KernelChoice, Failure> {
    check_parameters(o)?;
    let gamma = match o.gamma {
        Some(g) => g,
        None if max_index > 0 => 1.0 / max_index as f64,
        // LIBSVM keeps γ = 0 then (no feature above index 0): a constant RBF kernel.
        None => 0.0,
    };
    let unusable = |e: margin_core::Error| {
        Failure::usage(format!(
            "{e} (the training file's largest feature index is {max_index}, so LIBSVM's default γ = 1/max_index is not usable: give -g)"
        ))
    };
    Ok(match o.kernel_type {
        0 => KernelChoice::Spec(Linear.into()),
        1 => {
            let degree = u32::try_from(o.degree)
                .map_err(|_| Failure::usage(format!("-d {}: degree too large", o.degree)))?;
            KernelChoice::Spec(Polynomial::libsvm(gamma, o.coef0, degree)?.into())
        }
        2 => KernelChoice::Spec(Rbf::with_gamma(gamma).map_err(unusable)?.into()),
        3 => KernelChoice::Spec(
            Sigmoid::with_gamma(gamma)
                .map_err(unusable)?
                .with_coef0(o.coef0)?
                .into(),
        ),
        // 4; `check_parameters` refused anything else.
        _ => KernelChoice::Precomputed,
    })
}

/// LIBSVM's `(int)y` on x86-64: truncation toward zero; a value outside `int` gives `INT_MIN`
/// (`cvttsd2si`'s "integer indefinite").
fn libsvm_int(y: f64) -> i32 {
    if y > -2_147_483_649.0 && y < 2_147_483_648.0 {
        y as i32
    } else {
        i32::MIN
    }
}

/// The training data as LIBSVM's classifiers see it: `svm_group_classes` groups samples by
/// `(int)y`, so `1.5` is class `1` and `-0.7` class `0` (the model's labels are those ints;
/// accuracy is still counted against the labels as written). Regression and one-class data
/// are left as they are.
fn as_libsvm_sees<'a>(
    o: &TrainOptions,
    data: &'a Dataset,
) -> margin_core::Result<Cow<'a, Dataset>> {
    if !o.is_classifier() {
        return Ok(Cow::Borrowed(data));
    }
    let values = data.targets.values()?;
    if values.iter().all(|&y| f64::from(libsvm_int(y)) == y) {
        return Ok(Cow::Borrowed(data));
    }
    let grouped = values.iter().map(|&y| f64::from(libsvm_int(y))).collect();
    let mut data = data.clone();
    data.targets = Targets::Values(grouped);
    Ok(Cow::Owned(data))
}

/// The one class of classification data that has a single one (LIBSVM then trains no
/// decision function and warns).
fn single_label(data: &Dataset) -> margin_core::Result<Option<i32>> {
    let values = data.targets.values()?;
    Ok(match values.first() {
        Some(&first) if values.iter().all(|&y| y == first) => Some(libsvm_int(first)),
        _ => None,
    })
}

/// svm-train's options as margin params: one fit per call (what cross-validation repeats).
struct LibsvmParams<'a> {
    options: &'a TrainOptions,
    kernel: KernelChoice,
}

impl LibsvmParams<'_> {
    /// One `svm_train` of LIBSVM: its warnings, the fit (drawing from the run's `rand()` and
    /// reporting to its printer).
    fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> margin_core::Result<LibsvmModel> {
        let (o, k) = (self.options, self.kernel.clone());
        let weights = present_weights(o, data);
        let (shrinking, probability) = (o.shrinking == 1, o.probability());
        let grouped = as_libsvm_sees(o, data)?;
        let data = &*grouped;
        if o.is_classifier()
            && let Some(label) = single_label(data)?
        {
            let kernel = k.resolve(&data.records)?;
            let model = SingleClass::new_in(kernel, label, o.svm_type == 1, probability, run);
            return LibsvmModel::SingleClass(model).with_n_features(data.n_features());
        }
        let model = match o.svm_type {
            0 => {
                let weights = ClassWeight::Given(
                    weights
                        .iter()
                        .map(|&(l, w)| (Label::Number(f64::from(l)), w))
                        .collect(),
                );
                let params: SvcParams = Svc::params()
                    .c(o.c)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .class_weight(weights)
                    .label_order(LabelOrder::FirstSeen)
                    .probability(probability);
                LibsvmModel::Svc(params.fit_in(data, run)?)
            }
            1 => LibsvmModel::Svc(
                Svc::nu_params()
                    .nu(o.nu)
                    .probability(probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .label_order(LabelOrder::FirstSeen)
                    .fit_in(data, run)?,
            ),
            2 => LibsvmModel::OneClass(
                OneClassSvm::params()
                    .nu(o.nu)
                    .probability(probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit_in(data, run)?,
            ),
            3 => LibsvmModel::Svr(
                Svr::params()
                    .c(o.c)
                    .epsilon(o.p)
                    .probability(probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit_in(data, run)?,
            ),
            // 4; `check_parameters` refused anything above.
            _ => LibsvmModel::Svr(
                Svr::nu_params()
                    .nu(o.nu)
                    .c(o.c)
                    .probability(probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit_in(data, run)?,
            ),
        };
        // As LIBSVM's solver, for each run (cross-validation folds included) that stopped at
        // its limit, which svm-train leaves at max(10⁷, 100·l).
        crate::convergence::warn_as_libsvm(&model.convergence());
        warn_negative_c(&model);
        if o.probability() && !model.has_probability() {
            // Only a one-class model can come without one: LIBSVM's warning.
            warn(
                "WARNING: number of positive or negative decision values <5; too few to do a probability estimation.",
            );
        }
        Ok(model)
    }
}

/// LIBSVM's cross-validation predictions (labels as numbers, or regression values); a
/// classifier trained with probability estimates predicts its most probable class, as
/// LIBSVM's `svm_cross_validation` does then.
fn cv_predict<R: Records + ?Sized>(
    model: &LibsvmModel,
    records: &R,
) -> margin_core::Result<Vec<f64>> {
    match model {
        LibsvmModel::Svc(_) if model.has_probability() => Ok(model.predict_probability(records)?.0),
        model => model.predict_values(records),
    }
}

/// A ν-SVC problem whose solver ended with `r < 0` (a kernel that is not positive
/// semi-definite, such as the sigmoid): LIBSVM trains it silently with a negative C; margin does
/// the same and says so.
fn warn_negative_c(model: &LibsvmModel) {
    let LibsvmModel::Svc(m) = model else {
        return;
    };
    for p in m.problems() {
        if let Some(c) = p.equivalent_c.filter(|&c| c < 0.0) {
            warn(format_args!(
                "WARNING: nu-SVC ended with a negative C = {c:.6} (r < 0: the kernel is not positive semi-definite); the model is LIBSVM's, with coefficients of the opposite signs"
            ));
        }
    }
}

/// C's `%f` (Rust's `{:.6}`, but for NaN, which C spells `nan` or `-nan`).
fn c_fixed(v: f64) -> String {
    match (v.is_nan(), v.is_sign_negative()) {
        (true, true) => "-nan".to_owned(),
        (true, false) => "nan".to_owned(),
        _ => format!("{v:.6}"),
    }
}

/// What svm-train prints on stdout as it trains (LIBSVM's `info`): the solver's marks, each
/// SMO run's block, `Total nSV` after each classifier training, the Laplace scale of `-b 1`
/// regression. Silent with `-q`; the first write failure is kept for the end of the run.
struct Printer<'a> {
    out: Option<&'a mut Out>,
    failed: Option<Failure>,
}

impl<'a> Printer<'a> {
    fn new(out: &'a mut Out, quiet: bool) -> Self {
        Printer {
            out: (!quiet).then_some(out),
            failed: None,
        }
    }

    fn print(&mut self, text: &str) {
        if let (Some(out), None) = (self.out.as_deref_mut(), &self.failed)
            && let Err(e) = out.write_all(text.as_bytes())
        {
            self.failed = Some(e);
        }
    }

    /// The first write failure, if any.
    fn finish(self) -> Result<(), Failure> {
        self.failed.map_or(Ok(()), Err)
    }
}

impl SolverObserver for Printer<'_> {
    fn mark(&mut self, mark: Mark) {
        self.print(match mark {
            Mark::Progress => ".",
            Mark::Unshrunk => "*",
            Mark::ShrinkingHint => "\nWARNING: using -h 0 may be faster\n",
        });
    }
}

impl FitObserver for Printer<'_> {
    fn solved(&mut self, run: &RunReport) {
        let mut text = format!("\noptimization finished, #iter = {}\n", run.iterations);
        match run.line {
            Some(SummaryLine::Nu(v)) => text.push_str(&format!("nu = {}\n", c_fixed(v))),
            Some(SummaryLine::C(v)) => text.push_str(&format!("C = {}\n", c_fixed(v))),
            Some(SummaryLine::Epsilon(v)) => {
                text.push_str(&format!("epsilon = {}\n", c_fixed(v)));
            }
            None => {}
        }
        text.push_str(&format!(
            "obj = {}, rho = {}\nnSV = {}, nBSV = {}\n",
            c_fixed(run.objective),
            c_fixed(run.rho),
            run.n_sv,
            run.n_bsv
        ));
        self.print(&text);
    }

    fn classifier_trained(&mut self, total_sv: usize) {
        self.print(&format!("Total nSV = {total_sv}\n"));
    }

    fn single_class(&mut self) {
        self.print("WARNING: training data in only one class. See README for details.\n");
    }

    fn laplace_scale(&mut self, sigma: f64) {
        self.print(&format!(
            "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= {}\n",
            format_g(sigma, 6)
        ));
    }

    fn sigmoid_fitted(&mut self, end: SigmoidEnd) {
        match end {
            SigmoidEnd::Converged => {}
            SigmoidEnd::LineSearchFailed => {
                self.print("Line search fails in two-class probability estimates\n");
            }
            SigmoidEnd::MaxIterations => {
                self.print("Reaching maximal iterations in two-class probability estimates\n");
            }
        }
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

/// The `-wi` weights whose class is in the training data (`data`: one fold's training part
/// under `-v`), as LIBSVM applies them; LIBSVM's warning for each of the others, which it
/// ignores (the library would refuse them, as scikit-learn does, when some class has no
/// weight). Classification only, as `svm_train`.
fn present_weights(o: &TrainOptions, data: &Dataset) -> Vec<(i32, f64)> {
    let Ok(values) = data.targets.values() else {
        return Vec::new();
    };
    let (present, absent): (Vec<_>, Vec<_>) = o
        .weights
        .iter()
        // LIBSVM compares weight labels with each target as its `(int)y`.
        .partition(|&&(label, _)| values.iter().any(|&y| libsvm_int(y) == label));
    if o.is_classifier() {
        for (label, _) in absent {
            warn(format_args!(
                "WARNING: class label {label} specified in weight is not found"
            ));
        }
    }
    present
}

/// Runs `margin svm-train`.
pub fn train(args: &SvmTrainArgs) -> Result<(), Failure> {
    let Some(o) = parse_train(&args.rest)? else {
        return Ok(());
    };
    kernel_for(&o, 1)?;
    if o.folds.is_none() {
        check_outputs(&[&o.train], &[&o.model])?;
    }
    let data =
        read_libsvm(&o.train, &libsvm_reading()).map_err(|e| Failure::in_file(&o.train, e))?;
    let kernel = kernel_for(&o, data.n_features().saturating_sub(1))?;
    let params = LibsvmParams {
        kernel,
        options: &o,
    };
    let mut stdout = Out::stdout();
    // One unseeded rand() for the whole run, as svm-train's.
    let mut printer = Printer::new(&mut stdout, o.quiet);
    let mut run = LibsvmRun::new(&mut printer);
    if let Some(k) = o.folds {
        let predicted = cross_validate(&params, &data, k, &mut run)?;
        printer.finish()?;
        print_cross_validation(&o, &data, &predicted, &mut stdout)?;
        return stdout.finish();
    }
    let model = params.fit_in(&data, &mut run)?;
    printer.finish()?;
    let text = model.to_text_indexed(LIBSVM_INDEXING)?;
    let mut file = Out::file(&o.model)?;
    file.write_all(text.as_bytes())?;
    file.finish()?;
    stdout.finish()
}

/// LIBSVM's closing numbers for regression: the mean squared error and the squared
/// correlation coefficient, with `svm-train`'s and `svm-predict`'s sums in their order.
fn regression_summary(truth: &[f64], predicted: &[f64]) -> (f64, f64) {
    let (mut error, mut sv, mut sy, mut svv, mut syy, mut svy) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (&y, &v) in truth.iter().zip(predicted) {
        error += (v - y) * (v - y);
        sv += v;
        sy += y;
        svv += v * v;
        syy += y * y;
        svy += v * y;
    }
    let l = truth.len() as f64;
    let scc =
        ((l * svy - sv * sy) * (l * svy - sv * sy)) / ((l * svv - sv * sv) * (l * syy - sy * sy));
    (error / l, scc)
}

/// LIBSVM's `svm_cross_validation`: folds drawn from the run's `rand()` (stratified by class
/// for classification with fewer folds than samples, the classes grouped by `(int)y` as for
/// training: [`as_libsvm_sees`]), each fold trained in LIBSVM's order (printing what svm-train
/// prints) and its held-out samples predicted.
fn cross_validate(
    params: &LibsvmParams<'_>,
    data: &Dataset,
    k: i64,
    run: &mut LibsvmRun<'_>,
) -> Result<Vec<f64>, Failure> {
    let (o, n) = (params.options, data.n_samples());
    let mut nr_fold = usize::try_from(k).unwrap_or(usize::MAX);
    if nr_fold > n {
        warn(format_args!(
            "WARNING: # folds ({k}) > # data ({n}). Will use # folds = # data instead (i.e., leave-one-out cross validation)"
        ));
        nr_fold = n;
    }
    let grouped = as_libsvm_sees(o, data)?;
    let data = &*grouped;
    let folds = match data.targets.to_classes() {
        Ok(classes) if o.is_classifier() && nr_fold < n => run.stratified_folds(&classes, nr_fold),
        _ => run.folds(n, nr_fold),
    };
    if o.svm_type == 1 {
        // LIBSVM checks ν once, on the whole problem, and trains every fold whatever it holds.
        Svc::nu_params().nu(o.nu).check_feasible(data)?;
    }
    run.set_fold_training(true);
    let mut predicted = vec![0.0; n];
    for (f, test) in folds.iter().enumerate() {
        let model = params.fit_in(&data.select(&training_part(&folds, f))?, run)?;
        let values = cv_predict(&model, &data.records.select_rows(test)?)?;
        for (&i, v) in test.iter().zip(values) {
            predicted[i] = v;
        }
    }
    run.set_fold_training(false);
    Ok(predicted)
}

/// svm-train's closing lines of `-v`: the accuracy, or for regression the mean squared error
/// and the squared correlation coefficient.
fn print_cross_validation(
    o: &TrainOptions,
    data: &Dataset,
    predicted: &[f64],
    out: &mut Out,
) -> Result<(), Failure> {
    let truth = data.targets.values()?;
    if o.is_regression() {
        let (mse, scc) = regression_summary(&truth, predicted);
        outln!(
            out,
            "Cross Validation Mean squared error = {}",
            format_g(mse, 6)
        )?;
        outln!(
            out,
            "Cross Validation Squared correlation coefficient = {}",
            format_g(scc, 6)
        )?;
    } else {
        let correct = truth.iter().zip(predicted).filter(|(a, b)| a == b).count();
        outln!(
            out,
            "Cross Validation Accuracy = {}%",
            format_g(100.0 * correct as f64 / truth.len() as f64, 6)
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
        if regression {
            let (mse, scc) = regression_summary(&truth, &predicted);
            outln!(
                stdout,
                "Mean squared error = {} (regression)",
                format_g(mse, 6)
            )?;
            outln!(
                stdout,
                "Squared correlation coefficient = {} (regression)",
                format_g(scc, 6)
            )?;
        } else {
            let correct = truth.iter().zip(&predicted).filter(|(a, b)| a == b).count();
            let total = truth.len();
            outln!(
                stdout,
                "Accuracy = {}% ({correct}/{total}) (classification)",
                format_g(correct as f64 / total.max(1) as f64 * 100.0, 6)
            )?;
        }
    }
    stdout.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_truncate_as_c_s_int_conversion_on_x86_64() {
        let cases = [
            (1.5, 1),
            (-1.5, -1),
            (-0.7, 0),
            (0.7, 0),
            (2_147_483_647.9, i32::MAX),
            (-2_147_483_648.9, i32::MIN),
            // Outside int: cvttsd2si's "integer indefinite".
            (2_147_483_648.0, i32::MIN),
            (-2_147_483_649.0, i32::MIN),
            (1e300, i32::MIN),
        ];
        for (y, want) in cases {
            assert_eq!(libsvm_int(y), want, "{y}");
        }
    }
}
