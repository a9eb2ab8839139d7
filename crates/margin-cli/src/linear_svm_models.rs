//! The linear SVMs registered with `margin train` / `margin predict`: `linear-svc` (dual
//! coordinate descent, LIBLINEAR's solver) and `pegasos` (the same model fitted by Pegasos).

use std::borrow::Cow;

use margin_core::{Dataset, Matrix, ModelFile, Predict};
use margin_svm::{Iterate, LinearSolver, LinearSvc, LinearSvcParams, SvmLoss};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{ModelEntry, ParamArgs, Predictions, decision_scores, decode, no_proba};

const COMMON_HELP: &str =
    "  --fit-intercept true|false         append LIBLINEAR's bias feature (default true)
  --intercept-scaling <number>       value of the bias feature (default 1)
  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)
  --seed <int>                       seed of the visiting order (default 0)";

/// Applies the options both solvers share.
fn common(
    mut params: LinearSvcParams,
    p: &mut ParamArgs,
    data: &Dataset,
) -> Result<LinearSvcParams, Failure> {
    if let Some(yes) = p.take("fit-intercept")? {
        params = params.fit_intercept(yes);
    }
    if let Some(b) = p.take("intercept-scaling")? {
        params = params.intercept_scaling(b);
    }
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    if let Some(seed) = p.take("seed")? {
        params = params.seed(seed);
    }
    Ok(params)
}

fn train_linear_svc(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = common(LinearSvc::params(), &mut p, data)?;
    if let Some(c) = p.take("c")? {
        params = params.c(c);
    }
    match p.take::<String>("loss")?.as_deref() {
        None | Some("squared-hinge") | Some("squared_hinge") => {}
        Some("hinge") => params = params.loss(SvmLoss::Hinge),
        Some(other) => {
            return Err(Failure::usage(format!(
                "--loss: expected hinge or squared-hinge, found `{other}`"
            )));
        }
    }
    if let Some(t) = p.take("tol")? {
        params = params.tol(t);
    }
    if let Some(n) = p.take("max-iter")? {
        params = params.max_iter(n);
    }
    p.finish("linear-svc")?;
    Fitted::iterative(&margin_core::Fit::fit(&params, data)?)
}

fn train_pegasos(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = common(LinearSvc::params().loss(SvmLoss::Hinge), &mut p, data)?;
    match (p.take::<f64>("c")?, p.take::<f64>("lambda")?) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(
                "--c and --lambda set the same thing (lambda = 1/(n·C)): give one",
            ));
        }
        (Some(c), None) => params = params.c(c),
        (None, Some(l)) => params = params.lambda(l),
        (None, None) => {}
    }
    let mut solver = LinearSolver::pegasos();
    if let LinearSolver::Pegasos {
        epochs,
        batch_size,
        projection,
        iterate,
    } = &mut solver
    {
        if let Some(e) = p.take("epochs")? {
            *epochs = e;
        }
        if let Some(k) = p.take("batch-size")? {
            *batch_size = k;
        }
        if let Some(yes) = p.take("projection")? {
            *projection = yes;
        }
        match p.take::<String>("iterate")?.as_deref() {
            None => {}
            Some("last") => *iterate = Iterate::Last,
            Some("average") => *iterate = Iterate::Average,
            Some("suffix-average") => *iterate = Iterate::SuffixAverage,
            Some(other) => {
                return Err(Failure::usage(format!(
                    "--iterate: expected last, average or suffix-average, found `{other}`"
                )));
            }
        }
    }
    params = params.solver(solver);
    p.finish("pegasos")?;
    Fitted::iterative(&margin_core::Fit::fit(&params, data)?)
}

fn predict_linear_svc(
    bytes: &[u8],
    x: Cow<'_, Matrix>,
    proba: bool,
) -> Result<Predictions, Failure> {
    no_proba(proba, "a linear SVM gives decision values")?;
    let (model, x) = decode::<LinearSvc>(bytes, x)?;
    Ok(Predictions::Labels(model.predict(&*x)?))
}

fn scores_linear_svc(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, LinearSvc::classes)
}

/// The linear SVM entries of the registry.
pub const ENTRIES: [ModelEntry; 2] = [
    ModelEntry {
        name: "linear-svc",
        classifier: true,
        kind: LinearSvc::KIND,
        summary: "linear SVM by dual coordinate descent (LIBLINEAR -s 1/-s 3; scikit-learn's LinearSVC)",
        params: None,
        params_help: "  --c <number>                       cost C (default 1)
  --loss hinge|squared-hinge         hinge = LIBLINEAR -s 3, squared-hinge = -s 1 (default)
  --tol <number>                     projected-gradient tolerance (default 0.0001)
  --max-iter <int>                   epoch limit per binary problem (default 1000)",
        common_help: COMMON_HELP,
        train: train_linear_svc,
        predict: predict_linear_svc,
        scores: Some(scores_linear_svc),
    },
    ModelEntry {
        name: "pegasos",
        classifier: true,
        kind: LinearSvc::KIND,
        summary: "linear SVM (hinge loss) by Pegasos stochastic sub-gradient descent",
        params: None,
        params_help: "  --c <number> | --lambda <number>   cost C (default 1) or lambda = 1/(n·C)
  --epochs <int>                     passes over the data (default 50)
  --batch-size <int>                 samples per step (default 1)
  --projection true|false            project onto the 1/sqrt(lambda) ball (default false)
  --iterate last|average|suffix-average   returned iterate (default suffix-average)",
        common_help: COMMON_HELP,
        train: train_pegasos,
        predict: predict_linear_svc,
        scores: Some(scores_linear_svc),
    },
];
