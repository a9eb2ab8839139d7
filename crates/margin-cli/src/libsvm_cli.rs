//! `margin svm-train` and `margin svm-predict`: LIBSVM's tools, flag for flag, output line for
//! output line, model file for model file.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use core_linalg::io::{LibsvmOptions, format_g, read_libsvm};
use core_linalg::split::StratifiedKFold;
use core_linalg::{Dataset, Error, Fit, Label, Predict, PredictProba, Targets};
use kernels::{Gamma, Polynomial, Sigmoid};
use models_svm::{
    ClassWeight, LabelOrder, LibsvmModel, OneClassSvm, Svc, SvcParams, SvmKernel, Svr,
};

use crate::Failure;

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
-b probability_estimates : whether to train a C-SVC or nu-SVC model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n : n-fold cross validation mode
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

/// svm-train's settings.
struct TrainOptions {
    svm_type: u32,
    kernel_type: u32,
    degree: u32,
    gamma: Option<f64>,
    coef0: f64,
    c: f64,
    nu: f64,
    p: f64,
    cache_mb: f64,
    tol: f64,
    shrinking: bool,
    probability: bool,
    weights: Vec<(f64, f64)>,
    folds: Option<usize>,
    quiet: bool,
    train: PathBuf,
    model: PathBuf,
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
        shrinking: true,
        probability: false,
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
            println!("{TRAIN_USAGE}");
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
        let num = |what: &str| -> Result<f64, Failure> {
            value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    Failure::usage(format!("{flag} ({what}): `{value}` is not a number"))
                })
        };
        match flag {
            "-s" => o.svm_type = num("svm_type")? as u32,
            "-t" => o.kernel_type = num("kernel_type")? as u32,
            "-d" => o.degree = num("degree")? as u32,
            "-g" => o.gamma = Some(num("gamma")?),
            "-r" => o.coef0 = num("coef0")?,
            "-c" => o.c = num("cost")?,
            "-n" => o.nu = num("nu")?,
            "-p" => o.p = num("epsilon")?,
            "-m" => o.cache_mb = num("cachesize")?,
            "-e" => o.tol = num("tolerance")?,
            "-h" => o.shrinking = num("shrinking")? != 0.0,
            "-b" => o.probability = num("probability_estimates")? != 0.0,
            "-v" => {
                let n = num("n-fold")?;
                if n < 2.0 || n.fract() != 0.0 {
                    return Err(Failure::usage(
                        "n-fold cross validation: n must be an integer ≥ 2",
                    ));
                }
                o.folds = Some(n as usize);
            }
            w if w.starts_with("-w") && w.len() > 2 => {
                let label: f64 = w[2..].parse().map_err(|_| {
                    Failure::usage(format!("{w}: `{}` is not a class label", &w[2..]))
                })?;
                o.weights.push((label, num("weight")?));
            }
            other => {
                return Err(Failure::usage(format!(
                    "unknown option: {other}\n{TRAIN_USAGE}"
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

fn kernel(o: &TrainOptions) -> Result<SvmKernel, Failure> {
    let gamma = o.gamma.map_or(Gamma::Auto, Gamma::Value);
    Ok(match o.kernel_type {
        0 => SvmKernel::Linear,
        1 => SvmKernel::Polynomial {
            degree: o.degree,
            gamma,
            coef0: o.coef0,
        },
        2 => SvmKernel::Rbf { gamma },
        3 => SvmKernel::Sigmoid {
            gamma,
            coef0: o.coef0,
        },
        4 => SvmKernel::Precomputed,
        t => return Err(Failure::usage(format!("unknown kernel type {t} (0-4)"))),
    })
}

/// The model a set of options trains.
enum Trained {
    Svc(Svc),
    Svr(Svr),
    OneClass(OneClassSvm),
}

/// Checks the options that do not depend on the data, naming the flag at fault, and returns the
/// kernel they describe.
fn checked_kernel(o: &TrainOptions) -> Result<SvmKernel, Failure> {
    if o.svm_type > 4 {
        return Err(Failure::usage(format!(
            "unknown svm type {} (0-4)",
            o.svm_type
        )));
    }
    if o.probability && !matches!(o.svm_type, 0 | 1) {
        return Err(Failure::usage(
            "-b 1: probability estimates are supported for C-SVC and nu-SVC (-s 0, -s 1) only",
        ));
    }
    let k = kernel(o)?;
    match &k {
        SvmKernel::Polynomial {
            gamma: Gamma::Value(g),
            coef0,
            degree,
        } => {
            Polynomial::new(*g, *coef0, *degree)?;
        }
        SvmKernel::Sigmoid {
            gamma: Gamma::Value(g),
            coef0,
        } => {
            Sigmoid::new(*g, *coef0)?;
        }
        _ => {}
    }
    Ok(k)
}

/// svm-train's options as margin params: one fit per call (what cross-validation repeats).
struct LibsvmParams<'a> {
    options: &'a TrainOptions,
    kernel: SvmKernel,
}

impl Fit for LibsvmParams<'_> {
    type Model = Trained;

    fn fit(&self, data: &Dataset) -> core_linalg::Result<Trained> {
        let (o, k) = (self.options, self.kernel.clone());
        Ok(match o.svm_type {
            0 => {
                let weights = ClassWeight::Given(
                    o.weights
                        .iter()
                        .map(|&(l, w)| (Label::Number(l), w))
                        .collect(),
                );
                let params: SvcParams = Svc::params()
                    .c(o.c)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(o.shrinking)
                    .cache_size_mb(o.cache_mb)
                    .class_weight(weights)
                    .label_order(LabelOrder::FirstSeen)
                    .probability(o.probability);
                Trained::Svc(params.fit(data)?)
            }
            1 => Trained::Svc(
                Svc::nu_params()
                    .nu(o.nu)
                    .probability(o.probability)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(o.shrinking)
                    .cache_size_mb(o.cache_mb)
                    .label_order(LabelOrder::FirstSeen)
                    .fit(data)?,
            ),
            2 => Trained::OneClass(
                OneClassSvm::params()
                    .nu(o.nu)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(o.shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit(data)?,
            ),
            3 => Trained::Svr(
                Svr::params()
                    .c(o.c)
                    .epsilon(o.p)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(o.shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit(data)?,
            ),
            // 4; `checked_kernel` refused anything above.
            _ => Trained::Svr(
                Svr::nu_params()
                    .nu(o.nu)
                    .c(o.c)
                    .kernel(k)
                    .tol(o.tol)
                    .shrinking(o.shrinking)
                    .cache_size_mb(o.cache_mb)
                    .fit(data)?,
            ),
        })
    }
}

impl Predict for Trained {
    /// Labels as numbers (LIBSVM's labels are numeric) or regression values.
    type Output = Vec<f64>;

    fn predict<R: core_linalg::Records + ?Sized>(
        &self,
        records: &R,
    ) -> core_linalg::Result<Vec<f64>> {
        Ok(match self {
            Trained::Svc(m) => m.predict(records)?.iter().map(label_value).collect(),
            Trained::OneClass(m) => m.predict(records)?.iter().map(label_value).collect(),
            Trained::Svr(m) => m.predict(records)?,
        })
    }
}

/// LIBSVM's per-problem summary lines.
fn report(t: &Trained, data: &Dataset, o: &TrainOptions) -> String {
    let mut out = String::new();
    let mut block =
        |iters: usize, nu: Option<f64>, obj: f64, rho: f64, n_sv: usize, n_bsv: usize| {
            out.push_str(&format!("optimization finished, #iter = {iters}\n"));
            if let Some(nu) = nu {
                out.push_str(&format!("nu = {nu:.6}\n"));
            }
            out.push_str(&format!(
                "obj = {obj:.6}, rho = {rho:.6}\nnSV = {n_sv}, nBSV = {n_bsv}\n"
            ));
        };
    match t {
        Trained::Svc(m) => {
            let counts = {
                let classes = m.labels();
                let mut c = vec![0usize; classes.len()];
                if let Ok(cl) = data.targets.classes() {
                    for &k in cl.indices() {
                        if let Some(pos) =
                            classes.iter().position(|l| *l == cl.labels()[k as usize])
                        {
                            c[pos] += 1;
                        }
                    }
                }
                c
            };
            let weight_of = |class: usize| {
                let label = &m.labels()[class];
                o.weights
                    .iter()
                    .find(|(l, _)| Label::Number(*l) == *label)
                    .map_or(1.0, |w| w.1)
            };
            for p in m.problems() {
                let neg = p.negative.unwrap_or(0);
                let (cp, cn) = (o.c * weight_of(p.positive), o.c * weight_of(neg));
                let l = counts[p.positive] + counts[neg];
                let sum_alpha: f64 = p.coef.iter().map(|(_, a)| a.abs()).sum();
                let nu = (cp == cn && !m.is_nu()).then(|| sum_alpha / (cp * l as f64));
                block(
                    p.iterations,
                    nu,
                    p.objective,
                    p.rho,
                    p.coef.len(),
                    p.n_bounded,
                );
            }
            out.push_str(&format!("Total nSV = {}\n", m.support_indices().len()));
        }
        Trained::Svr(m) => {
            let sum_alpha: f64 = m.dual_coef().iter().map(|a| a.abs()).sum();
            let n_bsv = m.dual_coef().iter().filter(|a| a.abs() >= o.c).count();
            let nu = (!m.is_nu()).then(|| sum_alpha / (o.c * data.n_samples() as f64));
            block(
                m.iterations(),
                nu,
                m.objective(),
                -m.intercept(),
                m.dual_coef().len(),
                n_bsv,
            );
        }
        Trained::OneClass(m) => {
            let n_bsv = m.dual_coef().iter().filter(|&&a| a >= 1.0).count();
            block(
                m.iterations(),
                None,
                m.objective(),
                m.rho(),
                m.dual_coef().len(),
                n_bsv,
            );
        }
    }
    out
}

/// LIBSVM files are one-based, except precomputed-kernel files whose column 0 is the serial
/// number.
fn index_base(precomputed: bool) -> LibsvmOptions {
    let index_base = if precomputed {
        core_linalg::io::IndexBase::Zero
    } else {
        core_linalg::io::IndexBase::One
    };
    LibsvmOptions {
        index_base,
        ..Default::default()
    }
}

/// Runs `margin svm-train`.
pub fn train(args: &SvmTrainArgs) -> Result<(), Failure> {
    let Some(o) = parse_train(&args.rest)? else {
        return Ok(());
    };
    let data = read_libsvm(&o.train, &index_base(o.kernel_type == 4))
        .map_err(|e| Failure::in_file(&o.train, e))?;
    let params = LibsvmParams {
        kernel: checked_kernel(&o)?,
        options: &o,
    };
    if let Some(k) = o.folds {
        return cross_validate(&params, &data, k);
    }
    let trained = params.fit(&data)?;
    if !o.quiet {
        print!("{}", report(&trained, &data, &o));
    }
    let model = match trained {
        Trained::Svc(m) => LibsvmModel::Svc(m),
        Trained::Svr(m) => LibsvmModel::Svr(m),
        Trained::OneClass(m) => LibsvmModel::OneClass(m),
    };
    model
        .save(&o.model)
        .map_err(|e| Failure::in_file(&o.model, e))
}

fn cross_validate(params: &LibsvmParams<'_>, data: &Dataset, k: usize) -> Result<(), Failure> {
    let (o, n) = (params.options, data.n_samples());
    let folds = match (o.svm_type, data.targets.classes()) {
        (0 | 1, Ok(classes)) => StratifiedKFold::new(k.min(n)).shuffle(0).split(&classes)?,
        _ => core_linalg::split::KFold::new(k.min(n))
            .shuffle(0)
            .split(n)?,
    };
    let predicted: Vec<f64> = metrics::cross_val_predict(params, data, &folds)?;
    let truth = data.targets.values()?;
    if o.svm_type == 3 || o.svm_type == 4 {
        println!(
            "Cross Validation Mean squared error = {}",
            format_g(metrics::mean_squared_error(&truth, &predicted)?, 6)
        );
        println!(
            "Cross Validation Squared correlation coefficient = {}",
            format_g(metrics::squared_correlation(&truth, &predicted)?, 6)
        );
    } else {
        println!(
            "Cross Validation Accuracy = {}%",
            format_g(100.0 * metrics::accuracy(&truth, &predicted)?, 6)
        );
    }
    Ok(())
}

fn label_value(l: &Label) -> f64 {
    match l {
        Label::Number(x) => *x,
        Label::Text(_) => f64::NAN,
    }
}

const PREDICT_USAGE: &str = "Usage: margin svm-predict [options] test_file model_file output_file
options:
-b probability_estimates: whether to predict probability estimates, 0 or 1 (default 0); for classification models only
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

/// Runs `margin svm-predict`.
pub fn predict(args: &SvmPredictArgs) -> Result<(), Failure> {
    let words = &args.rest;
    let mut quiet = false;
    let mut probability = false;
    let mut i = 0;
    while i < words.len() && words[i].starts_with('-') {
        match words[i].as_str() {
            "-q" => {
                quiet = true;
                i += 1;
            }
            "-b" => {
                probability = match words.get(i + 1).map(String::as_str) {
                    Some("0") => false,
                    Some("1") => true,
                    other => {
                        return Err(Failure::usage(format!(
                            "-b: expected 0 or 1, found {other:?}"
                        )));
                    }
                };
                i += 2;
            }
            "--help" | "-h" => {
                println!("{PREDICT_USAGE}");
                return Ok(());
            }
            other => {
                return Err(Failure::usage(format!(
                    "unknown option: {other}\n{PREDICT_USAGE}"
                )));
            }
        }
    }
    let [test_path, model_path, output_path] = &words[i..] else {
        return Err(Failure::usage(PREDICT_USAGE));
    };
    let (test_path, model_path, output_path) = (
        Path::new(test_path),
        Path::new(model_path),
        Path::new(output_path),
    );
    let model = LibsvmModel::load(model_path).map_err(|e| Failure::in_file(model_path, e))?;
    let precomputed = matches!(&model, LibsvmModel::Svc(m) if matches!(m.kernel(), kernels::KernelSpec::Precomputed(_)));
    let test = read_libsvm(test_path, &index_base(precomputed))
        .map_err(|e| Failure::in_file(test_path, e))?;
    let width = test.n_features().max(model.n_features());
    let model = model.with_n_features(width)?;
    let records = test.records.clone().with_n_features(width)?;
    let file =
        std::fs::File::create(output_path).map_err(|e| Failure::from(Error::io(output_path, e)))?;
    let mut out = BufWriter::new(file);
    let io = |e| Failure::from(Error::io(output_path, e));
    let (predicted, regression): (Vec<f64>, bool) = match (&model, probability) {
        (LibsvmModel::Svc(m), true) => {
            // LIBSVM's -b 1: a header of labels, then the most probable label and every
            // class's probability per line.
            let probs = m.predict_proba(&records).map_err(|_| {
                Failure::usage("model does not support probability estimates (train it with -b 1)")
            })?;
            let labels: Vec<f64> = m.labels().iter().map(label_value).collect();
            let head: Vec<String> = labels.iter().map(|l| format_g(*l, 17)).collect();
            writeln!(out, "labels {}", head.join(" ")).map_err(io)?;
            let mut predicted = Vec::with_capacity(probs.nrows());
            for row in probs.rows() {
                let best = (0..row.len()).fold(0, |b, c| if row[c] > row[b] { c } else { b });
                let cells: Vec<String> = row.iter().map(|p| format_g(*p, 6)).collect();
                writeln!(out, "{} {}", format_g(labels[best], 6), cells.join(" ")).map_err(io)?;
                predicted.push(labels[best]);
            }
            (predicted, false)
        }
        (_, true) => {
            return Err(Failure::usage(
                "-b 1: probability estimates are available for C-SVC and nu-SVC models only",
            ));
        }
        (LibsvmModel::Svc(m), false) => (
            m.predict(&records)?.iter().map(label_value).collect(),
            false,
        ),
        (LibsvmModel::OneClass(m), false) => (
            m.predict(&records)?.iter().map(label_value).collect(),
            false,
        ),
        (LibsvmModel::Svr(m), false) => (m.predict(&records)?, true),
    };
    if !probability {
        for v in &predicted {
            writeln!(out, "{}", format_g(*v, 17)).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    if quiet {
        return Ok(());
    }
    let truth = match &test.targets {
        Targets::Values(v) => v.clone(),
        Targets::Classes(_) => return Ok(()),
    };
    if regression {
        println!(
            "Mean squared error = {} (regression)",
            format_g(metrics::mean_squared_error(&truth, &predicted)?, 6)
        );
        println!(
            "Squared correlation coefficient = {} (regression)",
            format_g(metrics::squared_correlation(&truth, &predicted)?, 6)
        );
    } else {
        let correct = truth.iter().zip(&predicted).filter(|(a, b)| a == b).count();
        let acc = 100.0 * correct as f64 / truth.len().max(1) as f64;
        println!(
            "Accuracy = {}% ({correct}/{}) (classification)",
            format_g(acc, 6),
            truth.len()
        );
    }
    Ok(())
}
