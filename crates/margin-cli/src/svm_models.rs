//! The SVM families registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::{
    Dataset, DecisionFunction, Error, Iterative, Matrix, ModelFile, NFeatures, Predict,
    PredictProba,
};
use margin_kernels::{Gamma, KernelSpec};
use margin_svm::{Multiclass, OneClassSvm, Svc, SvmKernel, Svr};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, at_width, binary, no_proba};
use crate::precomputed::{self, KernelInput};

const COMMON_HELP: &str = "  --kernel linear|poly|rbf|sigmoid|precomputed
                                     kernel (default rbf); precomputed: the training data is the
                                     Gram matrix K(train, train), n rows and n columns (column j
                                     = training sample j), and the data to predict K(test,
                                     train), n columns in the same order (no --gamma, --degree,
                                     --coef0)
  --gamma scale|auto|<number>        kernel γ (default scale = 1/(d·Var X))
  --degree <int>                     polynomial degree (default 3)
  --coef0 <number>                   polynomial/sigmoid constant (default 0)
  --tol <number>                     stopping tolerance (default 0.001)
  --shrinking true|false             shrinking heuristic (default true)
  --cache-size <MB>                  kernel cache (default 200)
  --max-iter <int>                   iteration limit per binary problem (default max(10^7, 100·n))";

/// `--kernel` and its parameters, and how the kernel reads the training data.
fn kernel(p: &mut ParamArgs) -> Result<(SvmKernel, KernelInput), Failure> {
    let given_gamma = p.take::<String>("gamma")?;
    let given_degree = p.take::<u32>("degree")?;
    let given_coef0 = p.take::<f64>("coef0")?;
    let kernel = p.take::<String>("kernel")?;
    if kernel.as_deref() == Some("precomputed") {
        let unused = [
            ("gamma", given_gamma.is_some()),
            ("degree", given_degree.is_some()),
            ("coef0", given_coef0.is_some()),
        ];
        if let Some((name, _)) = unused.iter().find(|(_, given)| *given) {
            return Err(Failure::usage(format!(
                "--{name}: a precomputed kernel has no parameters (its values are the data); leave out --{name} or choose another --kernel"
            )));
        }
        return Ok((
            SvmKernel::Precomputed,
            KernelInput::Gram(p.take_selection()),
        ));
    }
    let gamma = match given_gamma.as_deref() {
        None | Some("scale") => Gamma::Scale,
        Some("auto") => Gamma::Auto,
        Some(v) => Gamma::Value(v.parse().map_err(|_| {
            Failure::usage(format!(
                "--gamma: expected scale, auto or a number, found `{v}`"
            ))
        })?),
    };
    let degree = given_degree.unwrap_or(3);
    let coef0 = given_coef0.unwrap_or(0.0);
    let kernel = match kernel.as_deref() {
        None | Some("rbf") => SvmKernel::Rbf { gamma },
        Some("linear") => SvmKernel::Linear,
        Some("poly") | Some("polynomial") => SvmKernel::Polynomial {
            degree,
            gamma,
            coef0,
        },
        Some("sigmoid") => SvmKernel::Sigmoid { gamma, coef0 },
        Some(other) => {
            return Err(Failure::usage(format!(
                "--kernel: expected linear, poly, rbf, sigmoid or precomputed, found `{other}`"
            )));
        }
    };
    Ok((kernel, KernelInput::Features))
}

/// Applies the settings every SVM shares; gives the params and how the kernel reads the data.
macro_rules! common {
    ($params:expr, $p:expr) => {{
        let (kernel, input) = kernel(&mut $p)?;
        let mut params = $params.kernel(kernel);
        if let Some(t) = $p.take("tol")? {
            params = params.tol(t);
        }
        if let Some(s) = $p.take("shrinking")? {
            params = params.shrinking(s);
        }
        if let Some(m) = $p.take("cache-size")? {
            params = params.cache_size_mb(m);
        }
        if let Some(n) = $p.take("max-iter")? {
            params = params.max_iter(n);
        }
        (params, input)
    }};
}

/// Applies the options every classifier shares: `--multiclass` and `--probability`.
macro_rules! classifier_options {
    ($params:expr, $p:expr) => {{
        let mut params = $params;
        match $p.take::<String>("multiclass")?.as_deref() {
            None | Some("ovo") => {}
            Some("ovr") => params = params.multiclass(Multiclass::OneVsRest),
            Some(other) => {
                return Err(Failure::usage(format!(
                    "--multiclass: expected ovo or ovr, found `{other}`"
                )));
            }
        }
        if let Some(yes) = $p.take("probability")? {
            params = params.probability(yes);
        }
        params
    }};
}

/// Fits `params` on the training data as its kernel reads it (see [`KernelInput::training`]).
fn fit<P>(params: &P, input: &KernelInput, data: &Dataset) -> Result<Fitted, Failure>
where
    P: margin_core::Fit<Model: ModelFile + Iterative>,
{
    Fitted::iterative(&params.fit(&*input.training(data)?)?)
}

/// Decodes an SVM's model file and brings the records to what it reads: its width, or for a
/// precomputed kernel the columns of `K(test, train)` behind an unused column 0 (see
/// [`precomputed::test_rows`]).
fn decode_svm<'a, M: ModelFile + NFeatures>(
    bytes: &[u8],
    x: Cow<'a, Matrix>,
    kernel: fn(&M) -> &KernelSpec,
) -> Result<(M, Cow<'a, Matrix>), Failure> {
    let model = M::from_bytes(bytes)?;
    let x = match kernel(&model) {
        KernelSpec::Precomputed(_) => {
            let n_train = model.n_features().saturating_sub(1);
            Cow::Owned(precomputed::test_rows(&x, n_train)?)
        }
        _ => at_width(x, model.n_features())?,
    };
    Ok((model, x))
}

fn train_svc(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (mut params, input) = common!(Svc::params(), p);
    if let Some(c) = p.take("c")? {
        params = params.c(c);
    }
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    params = classifier_options!(params, p);
    p.finish("svc")?;
    fit(&params, &input, data)
}

fn train_nu_svc(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (mut params, input) = common!(Svc::nu_params(), p);
    if let Some(nu) = p.take("nu")? {
        params = params.nu(nu);
    }
    params = classifier_options!(params, p);
    p.finish("nu-svc")?;
    fit(&params, &input, data)
}

fn train_nu_svr(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (mut params, input) = common!(Svr::nu_params(), p);
    if let Some(c) = p.take("c")? {
        params = params.c(c);
    }
    if let Some(nu) = p.take("nu")? {
        params = params.nu(nu);
    }
    p.finish("nu-svr")?;
    fit(&params, &input, data)
}

fn train_svr(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (mut params, input) = common!(Svr::params(), p);
    if let Some(c) = p.take("c")? {
        params = params.c(c);
    }
    if let Some(e) = p.take("epsilon")? {
        params = params.epsilon(e);
    }
    p.finish("svr")?;
    fit(&params, &input, data)
}

fn train_one_class(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (mut params, input) = common!(OneClassSvm::params(), p);
    if let Some(nu) = p.take("nu")? {
        params = params.nu(nu);
    }
    p.finish("one-class-svm")?;
    fit(&params, &input, data)
}

fn predict_svc(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    let (model, x) = decode_svm(bytes, x, Svc::kernel)?;
    let labels = model.predict(&*x)?;
    if !proba {
        return Ok(Predictions::Labels(labels));
    }
    // Only the refusal of a model without a probability model is the flag's fault; any other
    // failure (memory, say) is reported as itself.
    let probs = model.predict_proba(&*x).map_err(|e| match e {
        Error::Unsupported { .. } => {
            Failure::usage("--proba: this model was trained without --probability true")
        }
        other => other.into(),
    })?;
    Ok(Predictions::Probabilities {
        labels,
        classes: model.classes().to_vec(),
        probs,
    })
}

fn scores_svc(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    let (model, x) = decode_svm(bytes, Cow::Borrowed(x), Svc::kernel)?;
    binary(model.classes().len())?;
    Ok(model.decision_function(&*x)?.into_vec())
}

fn predict_svr(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    no_proba(proba, "svr is a regressor")?;
    let (model, x) = decode_svm(bytes, x, Svr::kernel)?;
    Ok(Predictions::Values(model.predict(&*x)?))
}

fn predict_one_class(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "one-class-svm gives inlier/outlier labels")?;
    let (model, x) = decode_svm(bytes, x, OneClassSvm::kernel)?;
    Ok(Predictions::Labels(model.predict(&*x)?))
}

/// The SVM entries of the registry.
pub const ENTRIES: [ModelEntry; 5] = [
    ModelEntry {
        name: "svc",
        classifier: true,
        kind: Svc::KIND,
        summary: "C-support vector classifier (LIBSVM's C-SVC; scikit-learn's SVC)",
        params: None,
        params_help: "  --c <number>                       regularization C (default 1)
  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)
  --multiclass ovo|ovr               one-vs-one (default) or one-vs-rest
  --probability true|false           fit Platt probabilities for predict --proba (default false)",
        common_help: COMMON_HELP,
        train: train_svc,
        predict: predict_svc,
        scores: Some(scores_svc),
    },
    ModelEntry {
        name: "svr",
        classifier: false,
        kind: Svr::KIND,
        summary: "epsilon-support vector regression (LIBSVM's epsilon-SVR; scikit-learn's SVR)",
        params: None,
        params_help: "  --c <number>                       regularization C (default 1)
  --epsilon <number>                 insensitive tube half-width (default 0.1)",
        common_help: COMMON_HELP,
        train: train_svr,
        predict: predict_svr,
        scores: None,
    },
    ModelEntry {
        name: "nu-svc",
        classifier: true,
        kind: Svc::KIND,
        summary: "nu-support vector classifier (LIBSVM's nu-SVC; scikit-learn's NuSVC)",
        params: None,
        params_help: "  --nu <number>                      margin-error fraction bound in (0, 1] (default 0.5)
  --multiclass ovo|ovr               one-vs-one (default) or one-vs-rest
  --probability true|false           fit Platt probabilities for predict --proba (default false)",
        common_help: COMMON_HELP,
        train: train_nu_svc,
        predict: predict_svc,
        scores: Some(scores_svc),
    },
    ModelEntry {
        name: "nu-svr",
        classifier: false,
        kind: Svr::KIND,
        summary: "nu-support vector regression (LIBSVM's nu-SVR; scikit-learn's NuSVR)",
        params: None,
        params_help: "  --c <number>                       regularization C (default 1)
  --nu <number>                      support-vector fraction bound in (0, 1] (default 0.5)",
        common_help: COMMON_HELP,
        train: train_nu_svr,
        predict: predict_svr,
        scores: None,
    },
    ModelEntry {
        name: "one-class-svm",
        classifier: true,
        kind: OneClassSvm::KIND,
        summary: "one-class SVM for novelty detection (+1 inlier, -1 outlier)",
        params: None,
        params_help: "  --nu <number>                      outlier fraction bound in (0, 1] (default 0.5)",
        common_help: COMMON_HELP,
        train: train_one_class,
        predict: predict_one_class,
        scores: None,
    },
];
