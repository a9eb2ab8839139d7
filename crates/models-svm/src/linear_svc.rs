//! Linear support vector classification in the primal space (LIBLINEAR's `-s 1/3`,
//! scikit-learn's `LinearSVC`), solved by dual coordinate descent or by Pegasos.

use margin_core::fit::{FitReport, Observer, Run, solve_each};
use margin_core::params::Params;
use margin_core::{
    ClassWeight, Dataset, Error, LinearClassifierCore, PresentClasses, Records, Result, memory,
    model_check, validate,
};
use margin_io::ModelFile;
pub use margin_optim::dcd::SvmLoss;
use margin_optim::dcd::{self, DcdOptions};
pub use margin_optim::pegasos::Iterate;
use margin_optim::pegasos::{self, PegasosOptions};
use serde::{Deserialize, Serialize};

mod parts;

pub use parts::LinearSvcParts;

/// How strongly `w` is regularized: the cost `C` or Pegasos's `λ`, two scalings of the same
/// problem (not to be confused with logistic regression's `Penalty`, which chooses the
/// regularizer itself).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Regularization {
    /// The SVM's cost `C` in `½‖w‖² + C Σ loss` (scikit-learn's and LIBLINEAR's).
    C(f64),
    /// Pegasos's `λ` in `(λ/2)‖w‖² + (1/n) Σ loss`: the same problem with `C = 1/(nλ)`,
    /// `n` the number of training samples.
    Lambda(f64),
}

/// The solver of a [`LinearSvc`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LinearSolver {
    /// Dual coordinate descent (Hsieh et al. 2008; LIBLINEAR's solver): exact to `tol`.
    Dcd,
    /// Pegasos stochastic sub-gradient descent (hinge loss only): a fixed number of epochs,
    /// no tolerance; see [`margin_optim::pegasos`].
    Pegasos {
        /// Passes over the data.
        epochs: usize,
        /// Samples per step.
        batch_size: usize,
        /// Project onto the ball of radius `1/√λ` after each step.
        projection: bool,
        /// Which iterate becomes the model.
        iterate: Iterate,
    },
}

impl LinearSolver {
    /// Pegasos with margin's defaults: 50 epochs of single-sample steps, no projection, the
    /// average of the last half of the iterates.
    pub fn pegasos() -> Self {
        Self::Pegasos {
            epochs: 50,
            batch_size: 1,
            projection: false,
            iterate: Iterate::SuffixAverage,
        }
    }
}

/// The solver of a [`LinearSvc`] by name (the `solver` parameter); Pegasos's settings are
/// parameters of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinearSolverKind {
    /// [`LinearSolver::Dcd`].
    #[default]
    Dcd,
    /// [`LinearSolver::Pegasos`].
    Pegasos,
}

margin_core::param_choice!(LinearSolverKind { Dcd => "dcd", Pegasos => "pegasos" });

/// Hyperparameters of [`LinearSvc`] (scikit-learn's `LinearSVC` names and defaults).
///
/// The regularization and the solver are stored as one field per parameter (`C` and `lambda`;
/// `solver` and Pegasos's `epochs`, `batch_size`, `projection`, `iterate`), so that setting
/// them by name does not depend on the order; [`Regularization`] and [`LinearSolver`] are built
/// from them at fit time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(
    order(
        c, lambda, loss, solver, tol, max_iter, epochs, batch_size, projection, iterate,
        fit_intercept, intercept_scaling, class_weight, seed
    ),
    check = check_linear_svc
)]
pub struct LinearSvcParams {
    /// Cost `C > 0` (default 1); replaces a `λ` given before.
    #[param(
        name = "C",
        help = "cost of margin violations",
        default = 1.0,
        valid = ("a finite number > 0", |c| c.is_finite() && *c > 0.0),
        applies = ("with lambda none", |p| p.lambda.is_none()),
        setter(via = |p, c, _| { p.c = c; p.lambda = None; }, arg = f64)
    )]
    c: f64,
    /// Pegasos's regularization `λ > 0` instead of `C` (`C = 1/(nλ)`).
    #[param(
        help = "Pegasos's regularization λ in place of C (C = 1/(n·λ); none: use C)",
        valid = ("a finite number > 0, or none", |l| l.is_none_or(|l| l.is_finite() && l > 0.0)),
        setter(strip_option)
    )]
    lambda: Option<f64>,
    /// Loss (default squared hinge, as scikit-learn; LIBLINEAR `-s 1`; hinge is `-s 3`);
    /// unset, the solver's own (squared hinge for DCD, hinge for Pegasos).
    #[param(
        help = "hinge (LIBLINEAR -s 3) or squared hinge (-s 1); none: the solver's own (squared hinge for dcd, as scikit-learn; hinge for pegasos)",
        setter(strip_option)
    )]
    loss: Option<SvmLoss>,
    /// The solver by name; the `solver` builder sets it with Pegasos's settings.
    #[param(
        help = "dual coordinate descent (LIBLINEAR's) or Pegasos stochastic sub-gradient descent (hinge loss only)",
        setter(skip)
    )]
    solver: LinearSolverKind,
    /// Pegasos's passes over the data (default 50).
    #[param(
        help = "Pegasos's passes over the data",
        default = 50,
        valid = ("at least 1", |e| *e >= 1),
        applies = ("with solver pegasos", |p| p.solver == LinearSolverKind::Pegasos),
        setter(skip)
    )]
    epochs: usize,
    /// Pegasos's samples per step (default 1).
    #[param(
        help = "Pegasos's samples per step",
        default = 1,
        valid = ("at least 1", |b| *b >= 1),
        applies = ("with solver pegasos", |p| p.solver == LinearSolverKind::Pegasos),
        setter(skip)
    )]
    batch_size: usize,
    /// Whether Pegasos projects its iterate onto the ball of radius `1/√λ` (default false).
    #[param(
        help = "project Pegasos's iterate onto the ball of radius 1/√λ",
        applies = ("with solver pegasos", |p| p.solver == LinearSolverKind::Pegasos),
        setter(skip)
    )]
    projection: bool,
    /// The Pegasos iterate that becomes the model (default the average of the last half).
    #[param(
        help = "the Pegasos iterate that becomes the model",
        default = Iterate::SuffixAverage,
        applies = ("with solver pegasos", |p| p.solver == LinearSolverKind::Pegasos),
        setter(skip)
    )]
    iterate: Iterate,
    /// DCD's tolerance on the projected-gradient spread (default 1e-4).
    #[param(
        help = "DCD's tolerance on the projected-gradient spread",
        default = 1e-4,
        valid = ("a finite number > 0", |t| t.is_finite() && *t > 0.0),
        applies = ("with solver dcd", |p| p.solver == LinearSolverKind::Dcd)
    )]
    tol: f64,
    /// DCD's epoch limit per binary problem (default 1000); reaching it is reported.
    #[param(
        help = "DCD's epoch limit per binary problem",
        default = 1000,
        valid = ("at least 1", |m| *m >= 1),
        applies = ("with solver dcd", |p| p.solver == LinearSolverKind::Dcd)
    )]
    max_iter: usize,
    /// Fit an intercept (default true) as LIBLINEAR does: a constant feature of value
    /// `intercept_scaling` is appended, so the intercept is *regularized* with `w`.
    #[param(
        help = "append LIBLINEAR's bias feature (the intercept is regularized)",
        default = true
    )]
    fit_intercept: bool,
    /// The value `B` of the appended feature (default 1); a larger `B` weakens the
    /// intercept's regularization. The intercept is `B · w_B`.
    #[param(
        help = "value of the bias feature",
        default = 1.0,
        valid = ("a finite number > 0", |b| b.is_finite() && *b > 0.0),
        applies = ("with fit_intercept true", |p| p.fit_intercept)
    )]
    intercept_scaling: f64,
    /// Per-class weights multiplying `C` (default uniform).
    #[param(
        help = "class weights multiplying C: balanced weighs classes by n / (k · n_class); LABEL:W,... weighs the classes named (the others keep 1)"
    )]
    class_weight: ClassWeight,
    /// Seed of the coordinate or sample order.
    #[param(help = "seed of the coordinate or sample order")]
    seed: u64,
}

impl LinearSvcParams {
    /// Solver (default dual coordinate descent). It sets the parameters `solver`, `epochs`,
    /// `batch_size`, `projection` and `iterate` (for DCD, Pegasos's to their defaults).
    pub fn solver(mut self, solver: LinearSolver) -> Self {
        let (kind, pegasos) = match solver {
            LinearSolver::Dcd => (LinearSolverKind::Dcd, LinearSolver::pegasos()),
            pegasos => (LinearSolverKind::Pegasos, pegasos),
        };
        self.solver = kind;
        if let LinearSolver::Pegasos {
            epochs,
            batch_size,
            projection,
            iterate,
        } = pegasos
        {
            (self.epochs, self.batch_size, self.projection, self.iterate) =
                (epochs, batch_size, projection, iterate);
        }
        self
    }
    /// The loss the problems are solved with: the given one, or the solver's own.
    fn effective_loss(&self) -> SvmLoss {
        self.loss.unwrap_or(match self.solver {
            LinearSolverKind::Dcd => SvmLoss::SquaredHinge,
            LinearSolverKind::Pegasos => SvmLoss::Hinge,
        })
    }

    /// The regularization the parameters describe.
    fn regularization(&self) -> Regularization {
        self.lambda
            .map_or(Regularization::C(self.c), Regularization::Lambda)
    }

    /// The solver the parameters describe.
    fn linear_solver(&self) -> LinearSolver {
        match self.solver {
            LinearSolverKind::Dcd => LinearSolver::Dcd,
            LinearSolverKind::Pegasos => LinearSolver::Pegasos {
                epochs: self.epochs,
                batch_size: self.batch_size,
                projection: self.projection,
                iterate: self.iterate,
            },
        }
    }
}

/// The rules between [`LinearSvcParams`]' parameters: Pegasos minimizes the hinge loss, and
/// every class weight is a finite number > 0.
fn check_linear_svc(p: &LinearSvcParams) -> Result<()> {
    if p.solver == LinearSolverKind::Pegasos && p.loss == Some(SvmLoss::SquaredHinge) {
        return Err(Error::invalid_parameter(
            "loss",
            "squared_hinge",
            "hinge with the Pegasos solver (Pegasos minimizes the hinge loss)",
        ));
    }
    if let ClassWeight::Given(given) = &p.class_weight
        && let Some((label, w)) = given.iter().find(|(_, w)| !(*w > 0.0 && w.is_finite()))
    {
        return Err(Error::invalid_parameter(
            format!("class_weight[{label}]"),
            w,
            "a finite number > 0",
        ));
    }
    Ok(())
}

/// A fitted linear SVM: one weight vector per binary problem (one for two classes, one per
/// class against the rest otherwise).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearSvc {
    core: LinearClassifierCore,
    c: f64,
    /// Each binary problem's run, with its primal objective.
    runs: Vec<Run>,
    /// The hyperparameters the model was fitted with.
    params: LinearSvcParams,
}

impl LinearSvc {
    /// The hyperparameters the model was fitted with (see [`LinearSvcParams`]).
    pub fn hyperparams(&self) -> &LinearSvcParams {
        &self.params
    }
    /// Default hyperparameters.
    pub fn params() -> LinearSvcParams {
        LinearSvcParams::default()
    }

    /// The cost `C` the problems were solved with (from `λ` when given as `λ`).
    pub fn c(&self) -> f64 {
        self.c
    }

    /// The geometric margin `1/‖w‖` of each problem (infinite for `w = 0`).
    pub fn margin(&self) -> Vec<f64> {
        crate::decision::margins(self.coef())
    }

    /// How the fit's runs went, one per binary problem: dual coordinate descent stops at
    /// `max_iter` epochs when its tolerance is not met; Pegasos runs its fixed number of epochs
    /// with no tolerance, so it never counts as stopped at a limit (as scikit-learn's
    /// `SGDClassifier` with `tol=None` does not warn). Each run's objective is the primal
    /// `½‖w‖² + C Σ cᵢ loss(yᵢ f(xᵢ))` at the weights found (the quantity LIBLINEAR's and
    /// Pegasos's users compare).
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(self.runs.clone())
    }
}

margin_core::impl_linear_classifier!(LinearSvc);

impl ModelFile for LinearSvc {
    const KIND: &'static str = "linear-svc";
    // 2: the hyperparameters the model was fitted with; 3: an optional loss (the solver's own
    // when none), and one run per problem with its primal objective.
    const SCHEMA: u32 = 3;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        self.core.check_consistent()
    }
}

margin_core::impl_fit_watched!(LinearSvcParams => LinearSvc);

impl LinearSvcParams {
    fn fit_watched(
        &self,
        data: &Dataset,
        observer: Option<&mut dyn Observer>,
    ) -> Result<LinearSvc> {
        Params::check(self)?;
        validate::check_dataset(data)?;
        let classes = data.targets.to_classes()?;
        validate::check_min_classes(&classes, 2)?;
        let PresentClasses {
            labels,
            y,
            counts: class_counts,
        } = classes.present();
        let cw = self.class_weight.per_class(&labels, &class_counts)?;
        let n = data.n_samples();
        let c = match self.regularization() {
            Regularization::C(c) => c,
            Regularization::Lambda(l) => 1.0 / (n as f64 * l),
        };
        let sample = |i: usize| data.sample_weights.as_ref().map_or(1.0, |w| w[i]);
        let bias = self.fit_intercept.then_some(self.intercept_scaling);
        // Two classes: one problem, positive for labels[1]; more: one per class.
        let positives: Vec<usize> = if labels.len() == 2 {
            vec![1]
        } else {
            (0..labels.len()).collect()
        };
        let x = &data.records;
        // One weight vector per problem, dense in the width as LIBLINEAR's (the solvers ask for
        // each): all of them are asked for first, so that the refusal names the whole size.
        memory::check(
            memory::bytes_of_grid::<f64>(positives.len(), x.n_features() + 1),
            "LinearSvc's weight vectors",
            memory::FEWER_FEATURES,
        )?;
        let solve = |&p: &usize, observer: &mut dyn Observer| -> Result<(Vec<f64>, Run)> {
            let signs: Vec<f64> = y.iter().map(|&k| if k == p { 1.0 } else { -1.0 }).collect();
            let weight: Vec<f64> = (0..n).map(|i| cw[y[i]] * sample(i)).collect();
            let costs: Vec<f64> = weight.iter().map(|w| c * w).collect();
            let loss = self.effective_loss();
            let with_objective = |(w, run): (Vec<f64>, Run)| {
                let objective = dcd::primal_objective(x, &signs, &costs, loss, &w, bias);
                (w, run.with_objective(objective))
            };
            match self.linear_solver() {
                LinearSolver::Dcd => {
                    let options = DcdOptions {
                        loss,
                        tol: self.tol,
                        max_iter: self.max_iter,
                        shrinking: true,
                        bias,
                        seed: self.seed,
                    };
                    dcd::dcd(x, &signs, &costs, &options, observer).map(|s| {
                        let run = s.run();
                        with_objective((s.w, run))
                    })
                }
                LinearSolver::Pegasos {
                    epochs,
                    batch_size,
                    projection,
                    iterate,
                } => {
                    let options = PegasosOptions {
                        lambda: 1.0 / (n as f64 * c),
                        epochs,
                        batch_size,
                        projection,
                        iterate,
                        bias,
                        seed: self.seed,
                    };
                    pegasos::pegasos(x, &signs, Some(&weight), &options, observer).map(|s| {
                        let run = s.run();
                        with_objective((s.w, run))
                    })
                }
            }
        };
        let solved = solve_each(&positives, observer, solve)?;
        let d = x.n_features();
        let mut coef = Vec::with_capacity(solved.len());
        let mut intercept = Vec::with_capacity(solved.len());
        let mut runs = Vec::with_capacity(solved.len());
        for (mut w, run) in solved {
            intercept.push(bias.map_or(0.0, |b| b * w[d]));
            w.truncate(d);
            coef.push(w);
            runs.push(run);
        }
        Ok(LinearSvc {
            core: LinearClassifierCore::from_rows(labels, d, &coef, intercept)?,
            c,
            runs,
            params: self.clone(),
        })
    }
}
