//! Logistic regression, the lasso and the elastic net, registered with `margin train` /
//! `margin predict` under scikit-learn's parameter names.

use std::borrow::Cow;

use margin_core::{Dataset, Fit, Matrix, ModelFile};
use margin_linear::{ElasticNet, ElasticNetParams, LogisticRegression, LogisticSolver, Penalty};

use crate::Failure;
use crate::convergence::Fitted;
use crate::models::{
    ModelEntry, ParamArgs, Predictions, class_predictions, decision_scores, regression_values,
};

fn train_logistic(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = LogisticRegression::params();
    if let Some(c) = p.take("c")? {
        params = params.c(c);
    }
    let l1_ratio = p.take::<f64>("l1-ratio")?;
    params = params.penalty(match (p.take::<String>("penalty")?.as_deref(), l1_ratio) {
        (None | Some("l2"), None) => Penalty::L2,
        (Some("none"), None) => Penalty::None,
        (Some("l1"), None) => Penalty::L1,
        (Some("elasticnet") | Some("elastic-net"), Some(l1_ratio)) => {
            Penalty::ElasticNet { l1_ratio }
        }
        (Some("elasticnet") | Some("elastic-net"), None) => {
            return Err(Failure::usage("--penalty elasticnet needs --l1-ratio"));
        }
        (_, Some(_)) => {
            return Err(Failure::usage("--l1-ratio goes with --penalty elasticnet"));
        }
        (Some(other), None) => {
            return Err(Failure::usage(format!(
                "--penalty: expected none, l2, l1 or elasticnet, found `{other}`"
            )));
        }
    });
    let batch_size = p.take::<usize>("batch-size")?;
    let eta0 = p.take::<f64>("eta0")?;
    let solver = match p.take::<String>("solver")?.as_deref() {
        None | Some("lbfgs") => LogisticSolver::Lbfgs,
        Some("newton") | Some("newton-cholesky") => LogisticSolver::Newton,
        Some("gd") | Some("gradient-descent") => LogisticSolver::GradientDescent,
        Some("sgd") => LogisticSolver::Sgd {
            batch_size: batch_size.unwrap_or(1),
            eta0: eta0.unwrap_or(0.1),
        },
        Some(other) => {
            return Err(Failure::usage(format!(
                "--solver: expected lbfgs, newton, gd or sgd, found `{other}`"
            )));
        }
    };
    if !matches!(solver, LogisticSolver::Sgd { .. }) && (batch_size.is_some() || eta0.is_some()) {
        return Err(Failure::usage(
            "--batch-size and --eta0 go with --solver sgd",
        ));
    }
    params = params.solver(solver);
    if let Some(t) = p.take("tol")? {
        params = params.tol(t);
    }
    if let Some(n) = p.take("max-iter")? {
        params = params.max_iter(n);
    }
    if let Some(yes) = p.take("fit-intercept")? {
        params = params.fit_intercept(yes);
    }
    if let Some(w) = p.take_class_weight(data)? {
        params = params.class_weight(w);
    }
    if let Some(seed) = p.take("seed")? {
        params = params.seed(seed);
    }
    p.finish("logistic")?;
    Fitted::iterative(&params.fit(data)?)
}

fn predict_logistic(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    class_predictions(bytes, x, proba, LogisticRegression::classes)
}

fn scores_logistic(bytes: &[u8], x: &Matrix) -> Result<Vec<f64>, Failure> {
    decision_scores(bytes, x, LogisticRegression::classes)
}

fn enet(mut params: ElasticNetParams, p: &mut ParamArgs) -> Result<ElasticNetParams, Failure> {
    if let Some(a) = p.take("alpha")? {
        params = params.alpha(a);
    }
    if let Some(yes) = p.take("fit-intercept")? {
        params = params.fit_intercept(yes);
    }
    if let Some(t) = p.take("tol")? {
        params = params.tol(t);
    }
    if let Some(n) = p.take("max-iter")? {
        params = params.max_iter(n);
    }
    Ok(params)
}

fn train_lasso(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let params = enet(ElasticNet::lasso_params(), &mut p)?;
    p.finish("lasso")?;
    Fitted::iterative(&params.fit(data)?)
}

fn train_elastic_net(data: &Dataset, mut p: ParamArgs) -> Result<Fitted, Failure> {
    let mut params = enet(ElasticNet::params(), &mut p)?;
    if let Some(r) = p.take("l1-ratio")? {
        params = params.l1_ratio(r);
    }
    p.finish("elastic-net")?;
    Fitted::iterative(&params.fit(data)?)
}

fn predict_enet(bytes: &[u8], x: Cow<'_, Matrix>, proba: bool) -> Result<Predictions, Failure> {
    regression_values::<ElasticNet>(bytes, x, proba, "lasso/elastic-net")
}

const ENET_HELP: &str = "  --alpha <number>                   penalty strength (default 1)
  --fit-intercept true|false         fit an unpenalized intercept (default true)
  --tol <number>                     duality-gap tolerance relative to |y - mean y|^2 (default 0.0001)
  --max-iter <int>                   coordinate-descent epochs (default 1000)";

/// The entries of this family.
pub const ENTRIES: [ModelEntry; 3] = [
    ModelEntry {
        name: "logistic",
        classifier: true,
        kind: LogisticRegression::KIND,
        summary: "logistic regression, binary or multinomial (scikit-learn's LogisticRegression)",
        params: None,
        params_help:
            "  --c <number>                       inverse regularization strength (default 1)
  --penalty none|l2|l1|elasticnet    penalty on the weights (default l2)
  --l1-ratio <number>                L1 share of the elastic net, in [0, 1]
  --solver lbfgs|newton|gd|sgd       solver (default lbfgs; l1/elasticnet need gd or sgd)
  --batch-size <int> --eta0 <number> SGD's mini-batch (default 1) and initial step (default 0.1)
  --tol <number>                     gradient tolerance (default 0.0001)
  --max-iter <int>                   iterations, epochs for sgd (default 100)
  --fit-intercept true|false         fit an unpenalized intercept (default true)
  --class-weight balanced|L:W,...    balanced: weight classes by n / (k · n_class); or a weight
                                     per class label, as 1:0.1,-1:2 (classes not named keep 1)
  --seed <int>                       SGD's sample order (default 0)",
        common_help: "",
        train: train_logistic,
        predict: predict_logistic,
        scores: Some(scores_logistic),
    },
    ModelEntry {
        name: "lasso",
        classifier: false,
        kind: ElasticNet::KIND,
        summary: "L1-penalized least squares by coordinate descent (scikit-learn's Lasso)",
        params: None,
        params_help: ENET_HELP,
        common_help: "",
        train: train_lasso,
        predict: predict_enet,
        scores: None,
    },
    ModelEntry {
        name: "elastic-net",
        classifier: false,
        kind: ElasticNet::KIND,
        summary: "L1 + L2 penalized least squares by coordinate descent (scikit-learn's ElasticNet)",
        params: None,
        params_help: "  --l1-ratio <number>                L1 share in [0, 1] (default 0.5)",
        common_help: ENET_HELP,
        train: train_elastic_net,
        predict: predict_enet,
        scores: None,
    },
];
