//! Logistic regression: binary (sigmoid, cross-entropy) and multinomial (softmax), with
//! scikit-learn's parameter names, defaults and objective.
//!
//! The objective is `Σᵢ sᵢ ℓᵢ + (1/C)·penalty(w)` (as scikit-learn's), with `sᵢ` the sample
//! weight times the class weight and the intercept never penalized; margin minimizes it divided
//! by `n` (the same minimizer), so `tol` bounds the gradient of the *mean* loss as in
//! scikit-learn. Two classes use one weight vector (positive for `classes()[1]`); more use one
//! per class with the softmax.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `penalty` | L2 | [`Penalty`]: none, L2, L1 or elastic net |
//! | `l1_ratio` | none | the elastic net's L1 share, in [0, 1] (given with the elastic net only) |
//! | `C` | 1 | inverse regularization strength |
//! | `solver` | L-BFGS | [`LogisticSolver`]: L-BFGS, Newton (two classes), gradient descent, SGD |
//! | `batch_size`, `eta0` | 1, 0.1 | SGD's samples per step and initial step (read with SGD only) |
//! | `tol` | 1e-4 | stop when the largest gradient component (L-BFGS, Newton) or the gradient norm (descent) is below it |
//! | `max_iter` | 100 | iterations (epochs for SGD) |
//! | `fit_intercept` | true | fit an unpenalized intercept |
//! | `class_weight` | uniform | [`ClassWeight`] |
//! | `seed` | 0 | SGD's sample order |
//!
//! The parameters are also data ([`Params`]): `set("C", "0.5")`, `values()`, `check()`.
//!
//! Rows held in parts (a table's partitions, other machines) fit through [`LogisticParts`]:
//! [`LogisticRegressionParams::parts`] from the classes' counts, then
//! [`LogisticRegressionParams::fit_parts`] with every part's [`LogisticParts::loss_sums`]
//! added at each step (margin-datafusion's `fit_logistic_regression` does it by query).
//!
//! Scores are computed without overflow: probabilities use the stable sigmoid and
//! log-sum-exp, so `|w·x| = 10⁴` gives probabilities of exactly 0 and 1, never NaN.
//!
//! ```
//! use margin_core::{Fit, Predict, PredictProba};
//! use margin_io::datasets;
//! use margin_linear::LogisticRegression;
//!
//! let data = datasets::heart_scale()?;
//! let model = LogisticRegression::params().c(1.0).fit(&data)?;
//! let proba = model.predict_proba(&data.records)?;
//! assert_eq!(proba.ncols(), 2);
//! let predicted = model.predict(&data.records)?;
//! let truth = data.targets.values()?; // a LIBSVM file's labels are numbers
//! let correct = predicted.iter().zip(truth.iter()).filter(|(p, t)| p == t).count();
//! assert!(correct as f64 / 270.0 > 0.8);
//! # Ok::<(), margin_core::Error>(())
//! ```

use margin_core::fit::{FitObserved, FitReport, Observer, Run};
use margin_core::params::Params;
use margin_core::{
    ClassWeight, Dataset, DenseMatrix, Error, Fit, Label, LinearClassifierCore, PredictProba,
    PresentClasses, Records, Result, memory, model_check, validate,
};
use margin_io::ModelFile;
use margin_optim::Stop;
use margin_optim::gd::{self, Batch, GdOptions, GdResult, StepRule};
use margin_optim::lbfgs::{LbfgsOptions, lbfgs};
use margin_optim::loss::{Loss, sigmoid};
use margin_optim::newton::{NewtonOptions, newton};
use margin_optim::risk::{LinearRisk, SoftmaxRisk};
use serde::{Deserialize, Serialize};

mod parts;
pub use parts::LogisticParts;

/// The penalty on the weights (never on the intercept).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Penalty {
    /// No penalty (`c` is ignored).
    None,
    /// `½‖w‖²` (the default).
    L2,
    /// `‖w‖₁`: sparse weights. Needs a descent solver.
    L1,
    /// `ρ‖w‖₁ + (1−ρ)/2 ‖w‖²` with `ρ = l1_ratio` in [0, 1]. Needs a descent solver.
    ElasticNet {
        /// The L1 share `ρ`.
        l1_ratio: f64,
    },
}

/// Spelled as the CLI and scikit-learn spell it (`l2`, `elasticnet (l1_ratio 0.5)`), for
/// messages.
impl std::fmt::Display for Penalty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Penalty::None => f.write_str("none"),
            Penalty::L2 => f.write_str("l2"),
            Penalty::L1 => f.write_str("l1"),
            Penalty::ElasticNet { l1_ratio } => write!(f, "elasticnet (l1_ratio {l1_ratio})"),
        }
    }
}

/// How the weights are found.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LogisticSolver {
    /// Limited-memory BFGS (the default; scikit-learn's `lbfgs`). Penalties none and L2.
    Lbfgs,
    /// Newton steps with a Cholesky-factored Hessian (scikit-learn's `newton-cholesky`): few,
    /// exact iterations for a small number of features. Two classes; penalties none and L2.
    Newton,
    /// Full-batch gradient descent with Armijo backtracking; with an L1 share, proximal
    /// gradient descent (soft-thresholding after each step).
    GradientDescent,
    /// Stochastic gradient descent over mini-batches with steps `eta0/√t`; with an L1 share,
    /// truncated (soft-thresholded) steps. Approximate: it stops after `max_iter` epochs.
    Sgd {
        /// Samples per step.
        batch_size: usize,
        /// Initial step size.
        eta0: f64,
    },
}

/// [`Penalty`] without its payload: the `penalty` parameter (`l1_ratio` is its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum PenaltyKind {
    None,
    L2,
    L1,
    ElasticNet,
}
margin_core::param_choice!(PenaltyKind {
    None => "none",
    L2 => "l2",
    L1 => "l1",
    ElasticNet => "elasticnet" | "elastic-net",
});

/// [`LogisticSolver`] without its payload: the `solver` parameter (SGD's `batch_size` and
/// `eta0` are their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum SolverKind {
    Lbfgs,
    Newton,
    GradientDescent,
    Sgd,
}
margin_core::param_choice!(SolverKind {
    Lbfgs => "lbfgs",
    Newton => "newton" | "newton-cholesky",
    GradientDescent => "gd" | "gradient-descent",
    Sgd => "sgd",
});

/// Hyperparameters of [`LogisticRegression`] (scikit-learn's names and defaults).
///
/// The penalty and the solver are stored flat, one field per parameter (`penalty` and
/// `l1_ratio`, `solver` and SGD's `batch_size` and `eta0`), so that setting them by name
/// does not depend on the order; [`Penalty`] and [`LogisticSolver`] are built at fit time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(check = |p| {
    let has_l1 = match p.penalty {
        PenaltyKind::L1 => true,
        PenaltyKind::ElasticNet => p.l1_ratio.is_some_and(|r| r > 0.0),
        PenaltyKind::None | PenaltyKind::L2 => false,
    };
    match (p.penalty, p.l1_ratio) {
        (PenaltyKind::ElasticNet, None) => {
            return Err(Error::invalid_parameter(
                "l1_ratio",
                "none",
                "a number in [0, 1] with penalty elasticnet",
            ));
        }
        (PenaltyKind::None | PenaltyKind::L2 | PenaltyKind::L1, Some(r)) => {
            return Err(Error::invalid_parameter(
                "l1_ratio",
                r,
                "none unless penalty is elasticnet",
            ));
        }
        _ => {}
    }
    if has_l1 && matches!(p.solver, SolverKind::Lbfgs | SolverKind::Newton) {
        return Err(Error::invalid_parameter(
            "penalty",
            p.built_penalty(),
            "none or l2 with the lbfgs and newton solvers (an L1 term is not smooth); \
             use the gradient-descent or sgd solver",
        ));
    }
    Ok(())
})]
pub struct LogisticRegressionParams {
    #[param(
        help = "penalty on the weights (l1 and elasticnet need solver gd or sgd)",
        default = PenaltyKind::L2,
        setter(skip)
    )]
    penalty: PenaltyKind,
    /// Given with the elastic net only.
    #[param(
        help = "L1 share of the elastic net",
        valid = ("a number in [0, 1]", |r| r.is_none_or(|r| (0.0..=1.0).contains(&r))),
        applies = ("with penalty elasticnet", |p| p.penalty == PenaltyKind::ElasticNet),
        setter(skip)
    )]
    l1_ratio: Option<f64>,
    /// Inverse regularization strength `C > 0` (default 1).
    #[param(
        name = "C",
        help = "inverse regularization strength",
        default = 1.0,
        valid = ("a finite number > 0", crate::finite_positive),
        applies = ("with a penalty", |p| p.penalty != PenaltyKind::None)
    )]
    c: f64,
    #[param(help = "solver", default = SolverKind::Lbfgs, setter(skip))]
    solver: SolverKind,
    /// SGD's samples per step (read with the SGD solver only).
    #[param(
        help = "SGD's samples per step",
        default = 1,
        valid = ("at least 1", |b| *b >= 1),
        applies = ("with solver sgd", |p| p.solver == SolverKind::Sgd),
        setter(skip)
    )]
    batch_size: usize,
    /// SGD's initial step (read with the SGD solver only).
    #[param(
        help = "SGD's initial step size (steps eta0/sqrt(t))",
        default = 0.1,
        valid = ("a finite number > 0", crate::finite_positive),
        applies = ("with solver sgd", |p| p.solver == SolverKind::Sgd),
        setter(skip)
    )]
    eta0: f64,
    /// Stopping tolerance (default 1e-4).
    #[param(
        help = "gradient tolerance",
        default = 1e-4,
        valid = ("a finite number > 0", crate::finite_positive)
    )]
    tol: f64,
    /// Iteration limit (default 100; epochs for SGD). Reaching it is reported by
    /// [`LogisticRegression::fit_report`].
    #[param(
        help = "iterations (epochs for sgd)",
        default = 100,
        valid = ("at least 1", |n| *n >= 1)
    )]
    max_iter: usize,
    /// Fit an unpenalized intercept (default true).
    #[param(help = "fit an unpenalized intercept", default = true)]
    fit_intercept: bool,
    /// Per-class weights multiplying the sample weights (default uniform).
    #[param(
        help = "per-class weights multiplying the sample weights",
        default = ClassWeight::Uniform,
        valid = ("finite weights ≥ 0", finite_class_weights)
    )]
    class_weight: ClassWeight,
    /// Seed of SGD's sample order.
    #[param(
        help = "seed of SGD's sample order",
        applies = ("with solver sgd", |p| p.solver == SolverKind::Sgd)
    )]
    seed: u64,
}

/// Whether every given class weight is a finite number ≥ 0.
fn finite_class_weights(w: &ClassWeight) -> bool {
    match w {
        ClassWeight::Given(given) => given.iter().all(|(_, w)| w.is_finite() && *w >= 0.0),
        ClassWeight::Uniform | ClassWeight::Balanced => true,
    }
}

impl LogisticRegressionParams {
    /// The penalty (default L2).
    pub fn penalty(mut self, penalty: Penalty) -> Self {
        (self.penalty, self.l1_ratio) = match penalty {
            Penalty::None => (PenaltyKind::None, None),
            Penalty::L2 => (PenaltyKind::L2, None),
            Penalty::L1 => (PenaltyKind::L1, None),
            Penalty::ElasticNet { l1_ratio } => (PenaltyKind::ElasticNet, Some(l1_ratio)),
        };
        self
    }
    /// The solver (default L-BFGS).
    pub fn solver(mut self, solver: LogisticSolver) -> Self {
        self.solver = match solver {
            LogisticSolver::Lbfgs => SolverKind::Lbfgs,
            LogisticSolver::Newton => SolverKind::Newton,
            LogisticSolver::GradientDescent => SolverKind::GradientDescent,
            LogisticSolver::Sgd { batch_size, eta0 } => {
                (self.batch_size, self.eta0) = (batch_size, eta0);
                SolverKind::Sgd
            }
        };
        self
    }

    /// The penalty the flat fields describe (an elastic net without `l1_ratio` is refused by
    /// [`Params::check`] before this is read).
    fn built_penalty(&self) -> Penalty {
        match self.penalty {
            PenaltyKind::None => Penalty::None,
            PenaltyKind::L2 => Penalty::L2,
            PenaltyKind::L1 => Penalty::L1,
            PenaltyKind::ElasticNet => Penalty::ElasticNet {
                l1_ratio: self.l1_ratio.unwrap_or(0.0),
            },
        }
    }

    /// The solver the flat fields describe.
    fn built_solver(&self) -> LogisticSolver {
        match self.solver {
            SolverKind::Lbfgs => LogisticSolver::Lbfgs,
            SolverKind::Newton => LogisticSolver::Newton,
            SolverKind::GradientDescent => LogisticSolver::GradientDescent,
            SolverKind::Sgd => LogisticSolver::Sgd {
                batch_size: self.batch_size,
                eta0: self.eta0,
            },
        }
    }

    /// `(l2, l1)` strengths of the risk divided by `n`.
    fn strengths(&self, n: usize) -> (f64, f64) {
        let scale = 1.0 / (self.c * n as f64);
        match self.built_penalty() {
            Penalty::None => (0.0, 0.0),
            Penalty::L2 => (scale, 0.0),
            Penalty::L1 => (0.0, scale),
            Penalty::ElasticNet { l1_ratio } => ((1.0 - l1_ratio) * scale, l1_ratio * scale),
        }
    }

    /// Runs the chosen solver; Newton is run by the caller, which has its Hessian.
    fn minimize<F: gd::FiniteSum + ?Sized>(
        &self,
        f: &F,
        l1: f64,
        observer: &mut dyn Observer,
    ) -> Result<GdResult> {
        let w0 = start(f.dim())?;
        match self.built_solver() {
            LogisticSolver::Lbfgs => lbfgs(
                f,
                w0,
                &LbfgsOptions {
                    max_iter: self.max_iter,
                    grad_tol: self.tol,
                    ..LbfgsOptions::default()
                },
                observer,
            ),
            LogisticSolver::Newton | LogisticSolver::GradientDescent => gd::minimize(
                f,
                w0,
                &GdOptions {
                    max_iter: self.max_iter,
                    grad_tol: self.tol,
                    l1,
                    ..GdOptions::default()
                },
                observer,
            ),
            LogisticSolver::Sgd { batch_size, eta0 } => gd::minimize(
                f,
                w0,
                &GdOptions {
                    batch: Batch::MiniBatch(batch_size),
                    step: StepRule::InverseSqrtT(eta0),
                    max_iter: self.max_iter,
                    grad_tol: self.tol,
                    l1,
                    seed: self.seed,
                    ..GdOptions::default()
                },
                observer,
            ),
        }
    }

    /// The model whose weights the solver found: `labels.len()` weight vectors of `d`
    /// features (one for two classes), each followed by its intercept when `fit_intercept`.
    fn model_from(&self, labels: Vec<Label>, d: usize, r: GdResult) -> Result<LogisticRegression> {
        let p = d + usize::from(self.fit_intercept);
        let blocks = if labels.len() == 2 { 1 } else { labels.len() };
        let mut coef = DenseMatrix::try_zeros(
            blocks,
            d,
            "logistic regression's weights",
            memory::FEWER_FEATURES,
        )?;
        let mut intercept = Vec::with_capacity(blocks);
        for c in 0..blocks {
            coef.row_mut(c).copy_from_slice(&r.w[c * p..c * p + d]);
            intercept.push(if self.fit_intercept {
                r.w[c * p + d]
            } else {
                0.0
            });
        }
        Ok(LogisticRegression {
            core: LinearClassifierCore::new(labels, coef, intercept),
            iterations: r.iterations,
            stop: r.stop,
            objective: r.objective,
            params: self.clone(),
        })
    }
}

/// The solvers' starting point `w = 0`: `k × (d + 1)` values, dense in the width as
/// scikit-learn's and LIBLINEAR's weights are, asked for first.
fn start(dim: usize) -> Result<Vec<f64>> {
    memory::filled_vec(
        dim,
        0.0,
        "logistic regression's weights",
        memory::FEWER_FEATURES,
    )
}

/// A fitted logistic regression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogisticRegression {
    core: LinearClassifierCore,
    iterations: usize,
    stop: Stop,
    objective: f64,
    /// The hyperparameters the model was fitted with.
    params: LogisticRegressionParams,
}

impl LogisticRegression {
    /// The hyperparameters the model was fitted with (see [`LogisticRegressionParams`]).
    pub fn hyperparams(&self) -> &LogisticRegressionParams {
        &self.params
    }
    /// Default hyperparameters.
    pub fn params() -> LogisticRegressionParams {
        LogisticRegressionParams::default()
    }

    /// How the fit went: one solver run (every solver, binary or multinomial), at the limit
    /// when `max_iter` iterations left the gradient above `tol` (scikit-learn's
    /// `ConvergenceWarning`). SGD checks the full gradient after each epoch, so it usually
    /// runs to `max_iter`.
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![
            Run::new(self.iterations, self.stop).with_objective(self.objective),
        ])
    }

    /// The minimized objective divided by `n`: mean weighted log-loss plus penalty.
    pub fn objective(&self) -> f64 {
        self.objective
    }

    /// Natural logarithms of the class probabilities, computed without forming tiny
    /// probabilities first.
    pub fn predict_log_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let scores = self.core.decision_function(records)?;
        let k = self.core.classes().len();
        let mut out = DenseMatrix::zeros(records.n_samples(), k);
        for (i, s) in scores.rows().enumerate() {
            let row = out.row_mut(i);
            if k == 2 {
                // log σ(z) = −log(1 + e^{−z}).
                row[1] = -margin_optim::loss::log1p_exp(-s[0]);
                row[0] = -margin_optim::loss::log1p_exp(s[0]);
            } else {
                let max = s.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
                let lse = max + s.iter().map(|v| (v - max).exp()).sum::<f64>().ln();
                for (o, v) in row.iter_mut().zip(s) {
                    *o = v - lse;
                }
            }
        }
        Ok(out)
    }
}

margin_core::impl_linear_classifier!(LogisticRegression: predict_proba);

impl PredictProba for LogisticRegression {
    /// Class probabilities, columns in [`LogisticRegression::classes`] order.
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        if self.core.classes().len() == 2 {
            let scores = self.core.decision_function(records)?;
            let mut out = DenseMatrix::zeros(records.n_samples(), 2);
            for (i, s) in scores.rows().enumerate() {
                let p = sigmoid(s[0]);
                out.row_mut(i).copy_from_slice(&[1.0 - p, p]);
            }
            return Ok(out);
        }
        let mut out = self.predict_log_proba(records)?;
        out.as_mut_slice().iter_mut().for_each(|v| *v = v.exp());
        Ok(out)
    }
}

impl ModelFile for LogisticRegression {
    const KIND: &'static str = "logistic-regression";
    // 2: the stop is stored as a `Stop` (was the descent solvers' own `GdStop`), and the
    // hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        self.core.check_consistent()
    }
}

impl Fit for LogisticRegressionParams {
    type Model = LogisticRegression;

    fn fit(&self, data: &Dataset) -> Result<LogisticRegression> {
        self.fit_observed(data, &mut ())
    }
}

impl FitObserved for LogisticRegressionParams {
    fn fit_observed(
        &self,
        data: &Dataset,
        observer: &mut dyn Observer,
    ) -> Result<LogisticRegression> {
        self.check()?;
        validate::check_dataset(data)?;
        let classes = data.targets.to_classes()?;
        validate::check_min_classes(&classes, 2)?;
        let PresentClasses {
            labels,
            y,
            counts: class_counts,
        } = classes.present();
        if self.solver == SolverKind::Newton && labels.len() > 2 {
            return Err(Error::invalid_parameter(
                "solver",
                "newton",
                "lbfgs, gradient-descent or sgd for more than two classes",
            ));
        }
        let cw = self.class_weight.per_class(&labels, &class_counts)?;
        let n = data.n_samples();
        let weights: Option<Vec<f64>> = (self.class_weight != ClassWeight::Uniform
            || data.sample_weights.is_some())
        .then(|| {
            (0..n)
                .map(|i| cw[y[i]] * data.sample_weights.as_ref().map_or(1.0, |s| s[i]))
                .collect()
        });
        let (l2, l1) = self.strengths(n);
        let x = &data.records;
        let d = x.n_features();
        let p = d + usize::from(self.fit_intercept);
        // The weights (k × p, or p for two classes), dense as scikit-learn's, and the solvers'
        // vectors of the same size (L-BFGS keeps 2·10 + 7 of them, plus per-block gradients):
        // asked for first, so that a width no machine holds is refused naming the whole size.
        let width = p.saturating_mul(if labels.len() == 2 { 1 } else { labels.len() });
        memory::check(
            memory::bytes_of_grid::<f64>(width, 30),
            &format!(
                "logistic regression's weights and its solver's vectors ({width} values each)"
            ),
            memory::FEWER_FEATURES,
        )?;
        let result = if labels.len() == 2 {
            let signs: Vec<f64> = y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect();
            let risk = LinearRisk::new(
                x,
                &signs,
                weights.as_deref(),
                Loss::Logistic,
                l2,
                self.fit_intercept,
            )?;
            if self.solver == SolverKind::Newton {
                newton(
                    &risk,
                    start(p)?,
                    &NewtonOptions {
                        max_iter: self.max_iter,
                        grad_tol: self.tol,
                    },
                    observer,
                )?
            } else {
                self.minimize(&risk, l1, observer)?
            }
        } else {
            let k = labels.len();
            let risk = SoftmaxRisk::new(x, &y, k, weights.as_deref(), l2, self.fit_intercept)?;
            self.minimize(&risk, l1, observer)?
        };
        self.model_from(labels, d, result)
    }
}
