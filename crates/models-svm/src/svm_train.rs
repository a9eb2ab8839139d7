//! LIBSVM's `svm-train` as a library: its option letters (`-s 0 -t 2 -c 4 -v 5 …`), checked
//! as LIBSVM 3.37 checks them (`svm_check_parameter`, with its messages), one training as
//! `svm_train` does it (classes grouped by `(int)y`, a single class trained as LIBSVM trains
//! it, LIBSVM's warnings), its cross-validation (`svm_cross_validation`), and what it prints
//! ([`TrainLog`]). `margin svm-train` and the Python package's `svm_train` are both this
//! module; they differ only in where data comes from and where text goes.
//!
//! Where LIBSVM's `atoi`/`atof` would read `abc` as 0 or `1.5` as 1, the value is refused.
//!
//! ```
//! use margin_io::datasets;
//! use margin_svm::{LibsvmRun, TrainOptions};
//!
//! let heart = datasets::heart_scale()?;
//! let (options, used) = TrainOptions::parse(&["-c", "4", "-q"])?;
//! assert_eq!(used, 3);
//! // heart_scale's largest feature index is 13: γ = 1/13, as svm-train's default.
//! let trainer = options.trainer(13)?;
//! let model = trainer.fit_in(&heart, &mut LibsvmRun::new(&mut ()))?;
//! assert!(model.n_features() >= 13);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::fmt;

use margin_core::format::format_g;
use margin_core::params::ParamType;
use margin_core::{Dataset, Label, Records, Result, Targets};
use margin_kernels::{Linear, Polynomial, Rbf, Sigmoid};

use crate::libsvm_run::{FitObserver, LibsvmRun, RunReport, SummaryLine, training_part};
use crate::{
    ClassWeight, KernelChoice, LabelOrder, LibsvmModel, Mark, OneClassSvm, SigmoidEnd, SingleClass,
    SolverObserver, Svc, SvcParams, SvmSolver, Svr,
};

/// LIBSVM's warning (`svm.cpp`, `Solver::Solve`) for an SMO run that stopped at its iteration
/// limit (svm-train leaves it at `max(10⁷, 100·l)`), which LIBSVM writes to stderr after a
/// blank line, whatever `-q` says.
pub const MAX_ITER_WARNING: &str = "\nWARNING: reaching max number of iterations";

/// An option that svm-train refuses, with LIBSVM's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    message: String,
    usage: bool,
}

impl OptionError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            usage: false,
        }
    }

    /// An error after which svm-train shows its usage text (an unknown option, a missing
    /// value).
    fn with_usage(message: impl Into<String>) -> Self {
        Self {
            usage: true,
            ..Self::new(message)
        }
    }

    /// Whether the caller should show the usage text after the message (as svm-train does
    /// for an unknown option or a flag without its value).
    pub fn wants_usage(&self) -> bool {
        self.usage
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionError {}

/// svm-train's settings (see the module doc): parsed by [`TrainOptions::parse`], checked by
/// [`TrainOptions::trainer`].
#[derive(Clone, Debug, PartialEq)]
pub struct TrainOptions {
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
    folds: Option<usize>,
    quiet: bool,
    /// margin's `--solver` (not a LIBSVM option): SMO unless asked.
    solver: SvmSolver,
}

impl Default for TrainOptions {
    /// svm-train's defaults: C-SVC, RBF kernel, C = 1, γ = 1/num_features.
    fn default() -> Self {
        Self {
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
            solver: SvmSolver::Smo,
        }
    }
}

/// An integer flag value (LIBSVM reads these with `atoi`).
fn int_value(flag: &str, value: &str, what: &str) -> std::result::Result<i64, OptionError> {
    value
        .parse()
        .map_err(|_| OptionError::new(format!("{flag} {what}: `{value}` is not an integer")))
}

/// A real flag value (LIBSVM reads these with `atof`).
fn real_value(flag: &str, value: &str, what: &str) -> std::result::Result<f64, OptionError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| OptionError::new(format!("{flag} {what}: `{value}` is not a number")))
}

/// `-c`'s value: a real number or `inf` (LIBSVM's `atof` reads `inf` and `infinity`, and a
/// hard margin is what it asks for); NaN is refused.
fn cost_value(flag: &str, value: &str) -> std::result::Result<f64, OptionError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| !v.is_nan())
        .ok_or_else(|| OptionError::new(format!("{flag} cost: `{value}` is not a number")))
}

impl TrainOptions {
    /// Reads svm-train's flags from the start of `words` up to the first word that is not
    /// one (a file name, or a long option `--…`, which is the caller's), and says how many
    /// words it used. Values are read, not yet checked against each other
    /// ([`Self::trainer`] does that, as `svm_check_parameter`).
    pub fn parse<S: AsRef<str>>(words: &[S]) -> std::result::Result<(Self, usize), OptionError> {
        let mut o = Self::default();
        let mut i = 0;
        while let Some(flag) = words.get(i).map(AsRef::as_ref) {
            if !flag.starts_with('-')
                || flag.len() < 2
                || (flag.starts_with("--") && flag != "--solver")
            {
                break;
            }
            if flag == "-q" {
                o.quiet = true;
                i += 1;
                continue;
            }
            let value = words
                .get(i + 1)
                .map(AsRef::as_ref)
                .ok_or_else(|| OptionError::with_usage(format!("{flag} needs a value")))?;
            o.set(flag, value)?;
            i += 2;
        }
        Ok((o, i))
    }

    /// Sets the option `flag` (a letter other than `-q`) to `value`.
    fn set(&mut self, flag: &str, value: &str) -> std::result::Result<(), OptionError> {
        match flag {
            "-s" => self.svm_type = int_value(flag, value, "svm_type")?,
            "-t" => self.kernel_type = int_value(flag, value, "kernel_type")?,
            "-d" => self.degree = int_value(flag, value, "degree")?,
            // LIBSVM replaces γ = 0 by its default.
            "-g" => self.gamma = Some(real_value(flag, value, "gamma")?).filter(|&g| g != 0.0),
            "-r" => self.coef0 = real_value(flag, value, "coef0")?,
            // `-c inf` is a hard margin, as LIBSVM's `atof` reads it.
            "-c" => self.c = cost_value(flag, value)?,
            "-n" => self.nu = real_value(flag, value, "nu")?,
            "-p" => self.p = real_value(flag, value, "epsilon")?,
            "-m" => self.cache_mb = real_value(flag, value, "cachesize")?,
            "-e" => self.tol = real_value(flag, value, "epsilon")?,
            "-h" => self.shrinking = int_value(flag, value, "shrinking")?,
            "--solver" => {
                self.solver = SvmSolver::parse(value)
                    .map_err(|e| OptionError::new(format!("--solver: {e} (smo or batched)")))?
            }
            "-b" => self.probability = int_value(flag, value, "probability_estimates")?,
            "-v" => {
                let n = int_value(flag, value, "n")?;
                if n < 2 {
                    return Err(OptionError::new(format!(
                        "n-fold cross validation: n must >= 2 (-v {n})"
                    )));
                }
                self.folds = Some(usize::try_from(n).unwrap_or(usize::MAX));
            }
            w if w.starts_with("-w") => {
                let label = w[2..].parse::<i32>().map_err(|_| {
                    OptionError::new(format!(
                        "{w}: `-wi weight` needs an integer class label i (as in -w1 2 or -w-1 0.5), found `{}`",
                        &w[2..]
                    ))
                })?;
                let weight = real_value(w, value, "weight")?;
                // LIBSVM multiplies C by every weight given for a class.
                match self.weights.iter_mut().find(|(l, _)| *l == label) {
                    Some(given) => given.1 *= weight,
                    None => self.weights.push((label, weight)),
                }
            }
            other => return Err(OptionError::with_usage(format!("Unknown option: {other}"))),
        }
        Ok(())
    }

    /// `-q`: print nothing while training.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// `-v n`: the number of cross-validation folds, if asked for.
    pub fn folds(&self) -> Option<usize> {
        self.folds
    }

    /// Whether the options train a regressor (`-s 3` or `-s 4`), whose cross-validation
    /// reports the mean squared error rather than the accuracy.
    pub fn is_regression(&self) -> bool {
        matches!(self.svm_type, 3 | 4)
    }

    /// Whether the kernel is precomputed (`-t 4`): each row holds `0:serial` and the kernel
    /// values with the training rows.
    pub fn is_precomputed(&self) -> bool {
        self.kernel_type == 4
    }

    fn is_classifier(&self) -> bool {
        matches!(self.svm_type, 0 | 1)
    }

    /// LIBSVM's `svm_check_parameter`, in its order and with its messages (the ν-SVC
    /// feasibility check, which needs the data, is the fit's).
    fn check(&self) -> std::result::Result<(), OptionError> {
        let refuse = |message: &str, flag: &str, value: &dyn fmt::Display| {
            Err(OptionError::new(format!("{message}: {flag} {value}")))
        };
        if !(0..=4).contains(&self.svm_type) {
            return refuse(
                "unknown svm type",
                "-s",
                &format_args!(
                    "{} (0 C-SVC, 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR)",
                    self.svm_type
                ),
            );
        }
        if !(0..=4).contains(&self.kernel_type) {
            return refuse(
                "unknown kernel type",
                "-t",
                &format_args!(
                    "{} (0 linear, 1 polynomial, 2 radial basis function, 3 sigmoid, 4 precomputed)",
                    self.kernel_type
                ),
            );
        }
        let has_gamma = matches!(self.kernel_type, 1..=3);
        match self.gamma {
            Some(g) if has_gamma && g < 0.0 => return refuse("gamma < 0", "-g", &g),
            _ => {}
        }
        if self.kernel_type == 1 && self.degree < 0 {
            return refuse("degree of polynomial kernel < 0", "-d", &self.degree);
        }
        if self.cache_mb <= 0.0 {
            return refuse("cache_size <= 0", "-m", &self.cache_mb);
        }
        if self.tol <= 0.0 {
            return refuse("eps <= 0", "-e", &self.tol);
        }
        if matches!(self.svm_type, 0 | 3 | 4) && self.c <= 0.0 {
            return refuse("C <= 0", "-c", &self.c);
        }
        if matches!(self.svm_type, 1 | 2 | 4) && (self.nu <= 0.0 || self.nu > 1.0) {
            return refuse("nu <= 0 or nu > 1", "-n", &self.nu);
        }
        if self.svm_type == 3 && self.p < 0.0 {
            return refuse("p < 0", "-p", &self.p);
        }
        if !matches!(self.shrinking, 0 | 1) {
            return refuse("shrinking != 0 and shrinking != 1", "-h", &self.shrinking);
        }
        if !matches!(self.probability, 0 | 1) {
            return refuse(
                "probability != 0 and probability != 1",
                "-b",
                &self.probability,
            );
        }
        Ok(())
    }

    /// The options checked (LIBSVM's `svm_check_parameter`) and their kernel made for training data whose
    /// largest feature index is `max_index`: γ is `-g`, or else LIBSVM's `1/max_index` (the
    /// largest index, not the column count, so data using index 0 still gets `1/max_index`).
    /// A polynomial takes what LIBSVM takes (a degree of 0, a negative coef0). Callers that
    /// read files check first with a stand-in index, so that nothing is read before a
    /// refusal.
    pub fn trainer(&self, max_index: usize) -> std::result::Result<LibsvmTrainer<'_>, OptionError> {
        self.check()?;
        let gamma = match self.gamma {
            Some(g) => g,
            None if max_index > 0 => 1.0 / max_index as f64,
            // LIBSVM keeps γ = 0 then (no feature above index 0): a constant RBF kernel.
            None => 0.0,
        };
        let refused = |e: margin_core::Error| OptionError::new(e.to_string());
        let unusable = |e: margin_core::Error| {
            OptionError::new(format!(
                "{e} (the training data's largest feature index is {max_index}, so LIBSVM's default γ = 1/max_index is not usable: give -g)"
            ))
        };
        let kernel = match self.kernel_type {
            0 => KernelChoice::Spec(Linear.into()),
            1 => {
                let degree = u32::try_from(self.degree).map_err(|_| {
                    OptionError::new(format!("-d {}: degree too large", self.degree))
                })?;
                KernelChoice::Spec(
                    Polynomial::libsvm(gamma, self.coef0, degree)
                        .map_err(refused)?
                        .into(),
                )
            }
            2 => KernelChoice::Spec(Rbf::with_gamma(gamma).map_err(unusable)?.into()),
            3 => KernelChoice::Spec(
                Sigmoid::with_gamma(gamma)
                    .map_err(unusable)?
                    .with_coef0(self.coef0)
                    .map_err(refused)?
                    .into(),
            ),
            // 4; `check` refused anything else.
            _ => KernelChoice::Precomputed,
        };
        Ok(LibsvmTrainer {
            options: self,
            kernel,
        })
    }
}

/// Checked options and their kernel ([`TrainOptions::trainer`]): LIBSVM's `svm_train` and
/// `svm_cross_validation`.
#[derive(Clone, Debug)]
pub struct LibsvmTrainer<'a> {
    options: &'a TrainOptions,
    kernel: KernelChoice,
}

impl LibsvmTrainer<'_> {
    /// One `svm_train` of LIBSVM: the fit, drawing from the run's `rand()`, reporting to its
    /// observer, which also hears LIBSVM's warnings ([`FitObserver::warning`]).
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<LibsvmModel> {
        let (o, k) = (self.options, self.kernel.clone());
        let weights = present_weights(o, data, run);
        let (shrinking, probability) = (o.shrinking == 1, o.probability == 1);
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
                    .solver(o.solver)
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
                    .solver(o.solver)
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
                    .solver(o.solver)
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
                    .solver(o.solver)
                    .fit_in(data, run)?,
            ),
            // 4; `check` refused anything above.
            _ => LibsvmModel::Svr(
                Svr::nu_params()
                    .nu(o.nu)
                    .c(o.c)
                    .probability(probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(shrinking)
                    .cache_size_mb(o.cache_mb)
                    .solver(o.solver)
                    .fit_in(data, run)?,
            ),
        };
        let observer = run.observer();
        // As LIBSVM's solver, for each run (cross-validation folds included) that stopped at
        // its limit.
        for _ in 0..model.convergence().at_limit {
            observer.warning(MAX_ITER_WARNING);
        }
        warn_negative_c(&model, observer);
        if probability && !model.has_probability() {
            // Only a one-class model can come without one: LIBSVM's warning.
            observer.warning(
                "WARNING: number of positive or negative decision values <5; too few to do a probability estimation.",
            );
        }
        Ok(model)
    }

    /// LIBSVM's `svm_cross_validation` with the options' `-v` folds (at least 2 when not
    /// given): folds drawn from the run's `rand()` (stratified by class for classification
    /// with fewer folds than samples, the classes grouped by `(int)y` as for training), each
    /// fold trained in LIBSVM's order and its held-out samples predicted. Returns each
    /// sample's prediction (a label as a number, or a value).
    pub fn cross_validate(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<Vec<f64>> {
        let (o, n) = (self.options, data.n_samples());
        let k = o.folds.unwrap_or(2);
        let mut nr_fold = k;
        if nr_fold > n {
            run.observer().warning(&format!(
                "WARNING: # folds ({k}) > # data ({n}). Will use # folds = # data instead (i.e., leave-one-out cross validation)"
            ));
            nr_fold = n;
        }
        let grouped = as_libsvm_sees(o, data)?;
        let data = &*grouped;
        let folds = match data.targets.to_classes() {
            Ok(classes) if o.is_classifier() && nr_fold < n => {
                run.stratified_folds(&classes, nr_fold)
            }
            _ => run.folds(n, nr_fold),
        };
        if o.svm_type == 1 {
            // LIBSVM checks ν once, on the whole problem, and trains every fold whatever it
            // holds.
            Svc::nu_params().nu(o.nu).check_feasible(data)?;
        }
        run.set_fold_training(true);
        let mut predicted = vec![0.0; n];
        for (f, test) in folds.iter().enumerate() {
            let model = self.fit_in(&data.select(&training_part(&folds, f))?, run)?;
            let values = cv_predict(&model, &data.records.select_rows(test)?)?;
            for (&i, v) in test.iter().zip(values) {
                predicted[i] = v;
            }
        }
        run.set_fold_training(false);
        Ok(predicted)
    }
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
fn as_libsvm_sees<'a>(o: &TrainOptions, data: &'a Dataset) -> Result<Cow<'a, Dataset>> {
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
fn single_label(data: &Dataset) -> Result<Option<i32>> {
    let values = data.targets.values()?;
    Ok(match values.first() {
        Some(&first) if values.iter().all(|&y| y == first) => Some(libsvm_int(first)),
        _ => None,
    })
}

/// The `-wi` weights whose class is in the training data (`data`: one fold's training part
/// under `-v`), as LIBSVM applies them; LIBSVM's warning for each of the others, which it
/// ignores (the library would refuse them, as scikit-learn does, when some class has no
/// weight). Classification only, as `svm_train`.
fn present_weights(o: &TrainOptions, data: &Dataset, run: &mut LibsvmRun<'_>) -> Vec<(i32, f64)> {
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
            run.observer().warning(&format!(
                "WARNING: class label {label} specified in weight is not found"
            ));
        }
    }
    present
}

/// LIBSVM's cross-validation predictions (labels as numbers, or regression values); a
/// classifier trained with probability estimates predicts its most probable class, as
/// LIBSVM's `svm_cross_validation` does then.
fn cv_predict<R: Records + ?Sized>(model: &LibsvmModel, records: &R) -> Result<Vec<f64>> {
    match model {
        LibsvmModel::Svc(_) if model.has_probability() => Ok(model.predict_probability(records)?.0),
        model => model.predict_values(records),
    }
}

/// A ν-SVC problem whose solver ended with `r < 0` (a kernel that is not positive
/// semi-definite, such as the sigmoid): LIBSVM trains it silently with a negative C; margin
/// does the same and says so.
fn warn_negative_c(model: &LibsvmModel, observer: &mut dyn FitObserver) {
    let LibsvmModel::Svc(m) = model else {
        return;
    };
    for p in m.problems() {
        if let Some(c) = p.equivalent_c.filter(|&c| c < 0.0) {
            observer.warning(&format!(
                "WARNING: nu-SVC ended with a negative C = {c:.6} (r < 0: the kernel is not positive semi-definite); the model is LIBSVM's, with coefficients of the opposite signs"
            ));
        }
    }
}

/// LIBSVM's closing numbers for predictions against the truth (`svm-predict`'s and the
/// Python interface's `evaluations`): accuracy, mean squared error, squared correlation
/// coefficient, with LIBSVM's sums in its order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// Predictions equal to the truth.
    pub correct: usize,
    /// Predictions.
    pub total: usize,
    /// `correct / total · 100`, rounded as svm-predict rounds it (0 without predictions;
    /// svm-train's cross-validation line rounds `100 · correct / total`).
    pub accuracy: f64,
    /// Mean squared error.
    pub mse: f64,
    /// Squared correlation coefficient (NaN where a variance is 0).
    pub scc: f64,
}

impl Evaluation {
    /// Compares `predicted` with `truth`, pair by pair.
    pub fn of(truth: &[f64], predicted: &[f64]) -> Self {
        let (mut error, mut sv, mut sy, mut svv, mut syy, mut svy) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        let mut correct = 0;
        for (&y, &v) in truth.iter().zip(predicted) {
            correct += usize::from(y == v);
            error += (v - y) * (v - y);
            sv += v;
            sy += y;
            svv += v * v;
            syy += y * y;
            svy += v * y;
        }
        let total = truth.len().min(predicted.len());
        let l = total as f64;
        let scc = ((l * svy - sv * sy) * (l * svy - sv * sy))
            / ((l * svv - sv * sv) * (l * syy - sy * sy));
        Self {
            correct,
            total,
            accuracy: if total == 0 {
                0.0
            } else {
                correct as f64 / l * 100.0
            },
            mse: error / l,
            scc,
        }
    }
}

/// Where svm-train's text goes: what it prints on stdout as it trains, and its warnings
/// (which LIBSVM writes to stderr, `-q` or not).
pub trait TrainOutput {
    /// A piece of svm-train's stdout, as LIBSVM prints it (pieces are not whole lines).
    fn print(&mut self, text: &str);
    /// One warning line.
    fn warn(&mut self, line: &str);
}

/// svm-train's text kept in memory (for callers that show it later, as the Python package).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainText {
    /// What it printed on stdout.
    pub printed: String,
    /// Its warnings, one line each.
    pub warnings: Vec<String>,
}

impl TrainOutput for TrainText {
    fn print(&mut self, text: &str) {
        self.printed.push_str(text);
    }
    fn warn(&mut self, line: &str) {
        self.warnings.push(line.to_owned());
    }
}

/// A [`FitObserver`] that renders what svm-train prints as it trains (LIBSVM's `info`): the
/// solver's marks, each SMO run's block, `Total nSV` after each classifier training, the
/// Laplace scale of `-b 1` regression, and LIBSVM's warnings. Silent but for warnings when
/// `quiet` (`-q`).
pub struct TrainLog<'a> {
    out: &'a mut dyn TrainOutput,
    quiet: bool,
}

impl<'a> TrainLog<'a> {
    /// A log writing to `out`.
    pub fn new(out: &'a mut dyn TrainOutput, quiet: bool) -> Self {
        Self { out, quiet }
    }

    fn print(&mut self, text: &str) {
        if !self.quiet {
            self.out.print(text);
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

impl SolverObserver for TrainLog<'_> {
    fn mark(&mut self, mark: Mark) {
        self.print(match mark {
            Mark::Progress => ".",
            Mark::Unshrunk => "*",
            Mark::ShrinkingHint => "\nWARNING: using -h 0 may be faster\n",
        });
    }
}

impl FitObserver for TrainLog<'_> {
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

    fn warning(&mut self, line: &str) {
        self.out.warn(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_io::datasets;

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

    #[test]
    fn parsing_stops_at_the_first_word_that_is_not_a_flag() {
        let (o, used) =
            TrainOptions::parse(&["-s", "3", "-q", "-w1", "2", "-w1", "3", "train"]).unwrap();
        assert_eq!(used, 7);
        assert!(o.quiet() && o.is_regression());
        // Weights given twice for a class multiply, as LIBSVM's.
        assert_eq!(o.weights, vec![(1, 6.0)]);
        // margin's `--solver` is read with the letters; any other long option is the caller's.
        let (o, used) = TrainOptions::parse(&["-c", "2", "--solver", "batched", "--help"]).unwrap();
        assert_eq!((used, o.solver), (4, SvmSolver::Batched));
        let e = TrainOptions::parse(&["--solver", "x"]).unwrap_err();
        assert!(e.to_string().contains("smo or batched"), "{e}");
    }

    #[test]
    fn bad_options_are_refused_with_libsvm_s_messages() {
        let refused = |words: &[&str]| {
            let (o, _) = TrainOptions::parse(words)?;
            o.trainer(10).map(|_| ())
        };
        let e = refused(&["-c", "0"]).unwrap_err();
        assert_eq!(e.to_string(), "C <= 0: -c 0");
        assert!(!e.wants_usage());
        let e = refused(&["-x", "1"]).unwrap_err();
        assert_eq!(
            (e.to_string().as_str(), e.wants_usage()),
            ("Unknown option: -x", true)
        );
        assert!(refused(&["-c"]).unwrap_err().wants_usage());
        assert_eq!(
            refused(&["-c", "abc"]).unwrap_err().to_string(),
            "-c cost: `abc` is not a number"
        );
        assert!(refused(&["-c", "nan"]).is_err());
        for hard in ["inf", "infinity", "INF"] {
            let (o, _) = TrainOptions::parse(&["-c", hard]).unwrap();
            assert_eq!(o.c, f64::INFINITY);
            assert!(o.trainer(10).is_ok(), "-c {hard}");
        }
        assert_eq!(
            refused(&["-c", "-inf"]).unwrap_err().to_string(),
            "C <= 0: -c -inf"
        );
        assert_eq!(
            refused(&["-v", "1"]).unwrap_err().to_string(),
            "n-fold cross validation: n must >= 2 (-v 1)"
        );
        assert!(
            refused(&["-s", "5"])
                .unwrap_err()
                .to_string()
                .starts_with("unknown svm type: -s 5")
        );
        assert_eq!(
            refused(&["-s", "1", "-n", "1.5"]).unwrap_err().to_string(),
            "nu <= 0 or nu > 1: -n 1.5"
        );
    }

    #[test]
    fn a_training_prints_libsvm_s_summary_and_warns_of_absent_weights() {
        let heart = datasets::heart_scale().unwrap();
        let (o, _) = TrainOptions::parse(&["-c", "2", "-w7", "3"]).unwrap();
        let trainer = o.trainer(13).unwrap();
        let mut out = TrainText::default();
        let model = {
            let mut log = TrainLog::new(&mut out, o.quiet());
            trainer
                .fit_in(&heart, &mut LibsvmRun::new(&mut log))
                .unwrap()
        };
        assert!(out.printed.contains("\noptimization finished, #iter = "));
        assert!(out.printed.ends_with(&format!(
            "Total nSV = {}\n",
            match &model {
                LibsvmModel::Svc(m) => m.support_indices().len(),
                _ => unreachable!("C-SVC"),
            }
        )));
        assert_eq!(
            out.warnings,
            ["WARNING: class label 7 specified in weight is not found"]
        );
        // Quiet: warnings still reach the output, the rest does not.
        let (o, _) = TrainOptions::parse(&["-q", "-w7", "3"]).unwrap();
        let mut quiet = TrainText::default();
        let mut log = TrainLog::new(&mut quiet, o.quiet());
        o.trainer(13)
            .unwrap()
            .fit_in(&heart, &mut LibsvmRun::new(&mut log))
            .unwrap();
        assert!(quiet.printed.is_empty());
        assert_eq!(quiet.warnings.len(), 1);
    }

    #[test]
    fn cross_validation_prints_and_predicts_what_libsvm_does() {
        // svm-train -v 5 heart_scale, LIBSVM 3.37 (tests/fixtures/gen_libsvm_folds.py).
        let want = include_str!("../tests/fixtures/heart_cv.stdout");
        let heart = datasets::heart_scale().unwrap();
        let (o, _) = TrainOptions::parse(&["-v", "5"]).unwrap();
        let mut out = TrainText::default();
        let predicted = {
            let mut log = TrainLog::new(&mut out, o.quiet());
            o.trainer(13)
                .unwrap()
                .cross_validate(&heart, &mut LibsvmRun::new(&mut log))
                .unwrap()
        };
        let e = Evaluation::of(&heart.targets.values().unwrap(), &predicted);
        let printed = format!(
            "{}Cross Validation Accuracy = {}%\n",
            out.printed,
            format_g(100.0 * e.correct as f64 / e.total as f64, 6)
        );
        assert_eq!(printed, want);
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn predictions_with_decisions_are_the_predictions() {
        let heart = datasets::heart_scale().unwrap();
        for (words, columns) in [
            (&["-q"][..], 1),
            (&["-q", "-s", "1"], 1),
            (&["-q", "-s", "2"], 1),
            (&["-q", "-s", "3"], 1),
        ] {
            let (o, _) = TrainOptions::parse(words).unwrap();
            let model = o
                .trainer(13)
                .unwrap()
                .fit_in(&heart, &mut LibsvmRun::new(&mut ()))
                .unwrap();
            let (labels, dec) = model.predict_with_decisions(&heart.records).unwrap();
            assert_eq!(
                labels,
                model.predict_values(&heart.records).unwrap(),
                "{words:?}"
            );
            assert_eq!(dec.ncols(), columns, "{words:?}");
            if o.is_regression() {
                assert_eq!(dec.as_slice(), &labels[..]);
            } else {
                // A label is +1 exactly where its decision value is positive.
                for (l, d) in labels.iter().zip(dec.as_slice()) {
                    assert_eq!(*l == 1.0, *d > 0.0, "{words:?}");
                }
            }
        }
    }

    #[test]
    fn evaluations_are_libsvm_s() {
        let e = Evaluation::of(&[1.0, 2.0, 3.0], &[1.0, 2.0, 5.0]);
        assert_eq!((e.correct, e.total), (2, 3));
        assert_eq!(e.accuracy, 2.0 / 3.0 * 100.0);
        assert!((e.mse - 4.0 / 3.0).abs() < 1e-12);
        // Pearson's r² of (1, 2, 3) and (1, 2, 5) from centred sums.
        let r = {
            let (mx, my) = (2.0, 8.0 / 3.0);
            let cov: f64 = [(1.0, 1.0), (2.0, 2.0), (3.0, 5.0)]
                .iter()
                .map(|(x, y)| (x - mx) * (y - my))
                .sum();
            let vx: f64 = [1.0f64, 2.0, 3.0].iter().map(|x| (x - mx).powi(2)).sum();
            let vy: f64 = [1.0f64, 2.0, 5.0].iter().map(|y| (y - my).powi(2)).sum();
            cov * cov / (vx * vy)
        };
        assert!((e.scc - r).abs() < 1e-12);
        assert!(Evaluation::of(&[1.0, 1.0], &[1.0, 1.0]).scc.is_nan());
    }
}
