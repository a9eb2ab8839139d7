//! The SVM families registered with `margin train` / `margin predict`.

use std::borrow::Cow;

use margin_core::params::{Params, Value};
use margin_core::{
    Dataset, DecisionFunction, Error, Iterative, Matrix, NFeatures, Predict, PredictProba,
};
use margin_io::ModelFile;
use margin_kernels::KernelSpec;
use margin_svm::{OneClassSvm, Svc, Svr};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, at_width, binary, no_proba};
use crate::precomputed::{self, KernelInput};

/// Sets an SVM's described parameters (see [`ParamArgs::apply`]) and says how its kernel reads
/// the training data: a precomputed kernel's rows are the Gram matrix, restricted to the
/// training set's samples when it is a part of the data file.
fn described<P: Params>(params: P, p: &mut ParamArgs) -> Result<(P, KernelInput), Failure> {
    let params = p.apply(params)?;
    let input = match params.get("kernel") {
        Some(Value::Text(kind)) if kind == "precomputed" => KernelInput::Gram(p.take_selection()),
        _ => KernelInput::Features,
    };
    Ok((params, input))
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
    let weights = p.take_class_weight(data)?;
    let (mut params, input) = described(Svc::params(), &mut p)?;
    if let Some(w) = weights {
        params = params.class_weight(w);
    }
    p.finish("svc")?;
    fit(&params, &input, data)
}

fn train_nu_svc(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (params, input) = described(Svc::nu_params(), &mut p)?;
    p.finish("nu-svc")?;
    fit(&params, &input, data)
}

fn train_nu_svr(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (params, input) = described(Svr::nu_params(), &mut p)?;
    p.finish("nu-svr")?;
    fit(&params, &input, data)
}

fn train_svr(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (params, input) = described(Svr::params(), &mut p)?;
    p.finish("svr")?;
    fit(&params, &input, data)
}

fn train_one_class(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let (params, input) = described(OneClassSvm::params(), &mut p)?;
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
        hyperparams: crate::models::stored::<Svc>,
        summary: "C-support vector classifier (LIBSVM's C-SVC; scikit-learn's SVC)",
        params: || Svc::params().describe(),
        params_help: "",
        train: train_svc,
        predict: predict_svc,
        scores: Some(scores_svc),
    },
    ModelEntry {
        name: "svr",
        classifier: false,
        kind: Svr::KIND,
        hyperparams: crate::models::stored::<Svr>,
        summary: "epsilon-support vector regression (LIBSVM's epsilon-SVR; scikit-learn's SVR)",
        params: || Svr::params().describe(),
        params_help: "",
        train: train_svr,
        predict: predict_svr,
        scores: None,
    },
    ModelEntry {
        name: "nu-svc",
        classifier: true,
        kind: Svc::KIND,
        hyperparams: crate::models::stored::<Svc>,
        summary: "nu-support vector classifier (LIBSVM's nu-SVC; scikit-learn's NuSVC)",
        params: || Svc::nu_params().describe(),
        params_help: "",
        train: train_nu_svc,
        predict: predict_svc,
        scores: Some(scores_svc),
    },
    ModelEntry {
        name: "nu-svr",
        classifier: false,
        kind: Svr::KIND,
        hyperparams: crate::models::stored::<Svr>,
        summary: "nu-support vector regression (LIBSVM's nu-SVR; scikit-learn's NuSVR)",
        params: || Svr::nu_params().describe(),
        params_help: "",
        train: train_nu_svr,
        predict: predict_svr,
        scores: None,
    },
    ModelEntry {
        name: "one-class-svm",
        classifier: true,
        kind: OneClassSvm::KIND,
        hyperparams: crate::models::stored::<OneClassSvm>,
        summary: "one-class SVM for novelty detection (+1 inlier, -1 outlier)",
        params: || OneClassSvm::params().describe(),
        params_help: "",
        train: train_one_class,
        predict: predict_one_class,
        scores: None,
    },
];
