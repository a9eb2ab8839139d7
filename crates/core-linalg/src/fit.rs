//! How an iterative fit went: one termination type ([`Stop`]), one record per solver run
//! ([`Run`]), one report per fitted model ([`FitReport`]), and one [`Observer`] of progress
//! for every solver.
//!
//! These live in the foundation rather than in `margin-optim` because not every model crate
//! depends on the solvers crate: k-means (`margin-cluster`) and gradient boosting
//! (`margin-tree`) run their own loops and report through the same types. `margin-optim`
//! re-exports them, so a solver's user finds them beside the solvers.
//!
//! A solver calls [`Observer::observe`] once per iteration with a [`Progress`] (what it knows:
//! an objective, a violation or gradient norm, a step); returning [`Control::Stop`] ends the
//! run with [`Stop::Observer`]. Models fitted by an iterative solver implement
//! [`FitObserved`], which passes an observer down to every run of the fit.
//!
//! ```
//! use margin_core::fit::{Control, Criterion, FitReport, Progress, Run, Stop};
//!
//! let report = FitReport::new(vec![
//!     Run::new(12, Stop::Converged(Criterion::Optimality)),
//!     Run::new(100, Stop::MaxIterations),
//! ]);
//! assert_eq!(report.n_iter(), 100);
//! let c = report.convergence();
//! assert_eq!((c.runs, c.at_limit, c.limit), (2, 1, 100));
//!
//! // Any closure over the progress is an observer; this one stops after the third iteration.
//! let mut stop_at_3 = |p: &Progress<'_>| if p.iteration == 3 { Control::Stop } else { Control::Continue };
//! # let _ = &mut stop_at_3;
//! ```

use serde::{Deserialize, Serialize};

use rayon::prelude::*;

use crate::{Convergence, Dataset, Fit, Result};

/// Which tolerance test a run met, for solvers with more than one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Criterion {
    /// The solver's one optimality test: SMO's and dual coordinate descent's KKT violation,
    /// coordinate descent's duality gap, k-means' centre shift, the perceptron's epoch without
    /// a mistake, L-BFGS's and Newton's projected gradient.
    Optimality,
    /// The gradient norm fell below its tolerance (the descent solvers).
    GradientNorm,
    /// The objective changed by less than its relative tolerance in one iteration.
    RelativeChange,
}

/// Why a solver run stopped.
///
/// Stored in model files as a flat code (`0` converged on the solver's optimality test, `1`
/// the iteration limit, then the other variants), so files written when the solvers had a
/// two-state `StopReason` read back unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "StoredStop", into = "StoredStop")]
pub enum Stop {
    /// A tolerance was met: the solution is optimal to what was asked.
    Converged(Criterion),
    /// The iteration limit was reached first: the solution is usable but not optimal to `tol`.
    MaxIterations,
    /// A line search could not find a step that decreases the objective (usually because the
    /// point is optimal to rounding).
    StepTooSmall,
    /// The observer asked to stop.
    Observer,
    /// The held-out score did not improve for `rounds` rounds (early stopping).
    NoImprovement {
        /// The rounds without improvement that ended the run (`n_iter_no_change`).
        rounds: usize,
    },
}

impl Stop {
    /// Converged on the solver's one optimality test.
    pub const CONVERGED: Stop = Stop::Converged(Criterion::Optimality);

    /// Whether the run stopped at its iteration limit (the one stop the CLI warns about: a
    /// step too small means optimal to rounding, an observer's or early stopping's stop was
    /// asked for).
    pub fn at_limit(self) -> bool {
        self == Stop::MaxIterations
    }
}

/// [`Stop`] as model files store it: a flat enum whose first two variants are the old
/// `StopReason`'s.
#[derive(Clone, Copy, Serialize, Deserialize)]
enum StoredStop {
    Optimality,
    MaxIterations,
    GradientNorm,
    RelativeChange,
    StepTooSmall,
    Observer,
    NoImprovement(usize),
}

impl From<Stop> for StoredStop {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Converged(Criterion::Optimality) => StoredStop::Optimality,
            Stop::Converged(Criterion::GradientNorm) => StoredStop::GradientNorm,
            Stop::Converged(Criterion::RelativeChange) => StoredStop::RelativeChange,
            Stop::MaxIterations => StoredStop::MaxIterations,
            Stop::StepTooSmall => StoredStop::StepTooSmall,
            Stop::Observer => StoredStop::Observer,
            Stop::NoImprovement { rounds } => StoredStop::NoImprovement(rounds),
        }
    }
}

impl From<StoredStop> for Stop {
    fn from(stored: StoredStop) -> Self {
        match stored {
            StoredStop::Optimality => Stop::CONVERGED,
            StoredStop::GradientNorm => Stop::Converged(Criterion::GradientNorm),
            StoredStop::RelativeChange => Stop::Converged(Criterion::RelativeChange),
            StoredStop::MaxIterations => Stop::MaxIterations,
            StoredStop::StepTooSmall => Stop::StepTooSmall,
            StoredStop::Observer => Stop::Observer,
            StoredStop::NoImprovement(rounds) => Stop::NoImprovement { rounds },
        }
    }
}

/// One solver run: how many iterations it made, why it stopped, and its final objective and
/// violation where the solver has them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Iterations made, in the unit the model's `max_iter` counts (iterations, epochs,
    /// passes over the data, boosting rounds).
    pub iterations: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// The final objective, where the solver computes one.
    pub objective: Option<f64>,
    /// The final optimality measure (KKT violation, gradient norm, duality gap), where the
    /// solver computes one.
    pub violation: Option<f64>,
}

impl Run {
    /// A run of `iterations` that stopped for `stop`, with no objective or violation.
    pub fn new(iterations: usize, stop: Stop) -> Self {
        Self {
            iterations,
            stop,
            objective: None,
            violation: None,
        }
    }

    /// The same run with its final objective.
    pub fn with_objective(mut self, objective: f64) -> Self {
        self.objective = Some(objective);
        self
    }

    /// The same run with its final violation.
    pub fn with_violation(mut self, violation: f64) -> Self {
        self.violation = Some(violation);
        self
    }

    /// The run as [`Convergence`] counts it.
    pub fn convergence(&self) -> Convergence {
        Convergence::run(self.stop.at_limit(), self.iterations)
    }
}

/// How a fitted model's solver runs went: one [`Run`] per binary problem, class or fold, in
/// the model's order, and the runs of an inner cross-validation (SVMs' probability
/// calibration) counted without their details.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FitReport {
    runs: Vec<Run>,
    folds: Convergence,
}

impl FitReport {
    /// A report of `runs`.
    pub fn new(runs: Vec<Run>) -> Self {
        Self {
            runs,
            folds: Convergence::default(),
        }
    }

    /// Runs that stopped for `stops[i]` after `iterations[i]` (a model that stores its
    /// problems' iterations and stops side by side).
    pub fn of(iterations: &[usize], stops: &[Stop]) -> Self {
        let runs = iterations.iter().zip(stops);
        Self::new(runs.map(|(&n, &stop)| Run::new(n, stop)).collect())
    }

    /// The same report with the runs of an inner cross-validation, counted (the SVMs'
    /// probability estimates: their folds' runs are counted but not kept).
    pub fn with_folds(mut self, folds: Convergence) -> Self {
        self.folds = self.folds.and(folds);
        self
    }

    /// The runs, in the model's order (one per binary problem or class).
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The iterations of the longest run: scikit-learn's `n_iter_` for most estimators (its
    /// `max` over the one-vs-rest problems for the linear models), 0 for no run.
    pub fn n_iter(&self) -> usize {
        self.runs.iter().map(|r| r.iterations).max().unwrap_or(0)
    }

    /// The summary the CLI warns from: every run, the counted folds' included.
    pub fn convergence(&self) -> Convergence {
        self.runs
            .iter()
            .map(Run::convergence)
            .chain(std::iter::once(self.folds))
            .collect()
    }

    /// Whether no run stopped at its iteration limit.
    pub fn converged(&self) -> bool {
        self.convergence().converged()
    }
}

/// What a solver reports to its [`Observer`] after each iteration. Fields a solver does not
/// compute are `None`: SMO knows its violation but not its objective, which would cost a pass
/// over the data per iteration.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// The solver's name (`"smo"`, `"nu-smo"`, `"dcd"`, `"pegasos"`, `"cd"`, `"gd"`,
    /// `"lbfgs"`, `"newton"`, `"lloyd"`, `"elkan"`, `"minibatch-kmeans"`, `"perceptron"`,
    /// `"boosting"`).
    pub solver: &'static str,
    /// Iterations completed in this run, from 1 (in the unit of the model's `max_iter`).
    pub iteration: usize,
    /// The objective after this iteration, where the solver computes it.
    pub objective: Option<f64>,
    /// The optimality measure after this iteration (KKT violation, gradient norm, duality
    /// gap, centre shift), where the solver computes it.
    pub violation: Option<f64>,
    /// The last step size, for the descent solvers.
    pub step: Option<f64>,
    /// The current parameters, for the solvers that hold them as one vector.
    pub w: Option<&'a [f64]>,
}

impl<'a> Progress<'a> {
    /// Progress of `solver` after `iteration`, nothing else known yet.
    pub fn new(solver: &'static str, iteration: usize) -> Self {
        Self {
            solver,
            iteration,
            objective: None,
            violation: None,
            step: None,
            w: None,
        }
    }
}

/// Whether a run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Continue iterating.
    Continue,
    /// Stop now and keep the current solution ([`Stop::Observer`]).
    Stop,
}

/// LIBSVM's progress marks, which `svm-train` prints: what SMO reports beside its iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Every `min(l, 1000)` iterations, after the shrinking step (LIBSVM's `.`).
    Progress,
    /// The gradient was reconstructed and the shrunk variables restored (LIBSVM's `*`).
    Unshrunk,
    /// Shrinking looked wasteful (LIBSVM's "WARNING: using -h 0 may be faster").
    ShrinkingHint,
}

/// Receives a solver's progress once per iteration (and SMO's [`Mark`]s). Every method does
/// nothing by default; `()` observes nothing, and any closure over [`Progress`] is an observer.
///
/// A solver calls it once per iteration, never in its inner loops; an observer that only
/// records leaves the fitted model bit-identical.
pub trait Observer {
    /// Called after each iteration; returning [`Control::Stop`] ends the run.
    fn observe(&mut self, _progress: &Progress<'_>) -> Control {
        Control::Continue
    }

    /// A LIBSVM progress mark of an SMO run.
    fn mark(&mut self, _mark: Mark) {}

    /// Whether this observer wants [`Progress::objective`] from solvers that compute it only
    /// on request, because it costs a pass over the data per iteration (k-means' inertia).
    fn wants_objective(&self) -> bool {
        false
    }
}

impl Observer for () {}

impl<F: FnMut(&Progress<'_>) -> Control> Observer for F {
    fn observe(&mut self, progress: &Progress<'_>) -> Control {
        self(progress)
    }
}

/// An observer that records the objective after each iteration (a loss curve; iterations
/// without an objective are skipped).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LossHistory {
    /// The objective after iterations 1, 2, ….
    pub values: Vec<f64>,
}

impl Observer for LossHistory {
    fn observe(&mut self, progress: &Progress<'_>) -> Control {
        if let Some(v) = progress.objective {
            self.values.push(v);
        }
        Control::Continue
    }

    fn wants_objective(&self) -> bool {
        true
    }
}

/// An observer that ends every run after `iterations` iterations (a per-run budget below
/// `max_iter`, which does not count as stopping at the limit), counting the iterations it saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StopAfter {
    /// The iterations each run may make.
    pub iterations: usize,
    /// The iterations observed so far, over all runs.
    pub seen: usize,
}

impl StopAfter {
    /// Ends every run after `iterations`.
    pub fn new(iterations: usize) -> Self {
        Self {
            iterations,
            seen: 0,
        }
    }
}

impl Observer for StopAfter {
    fn observe(&mut self, progress: &Progress<'_>) -> Control {
        self.seen += 1;
        if progress.iteration >= self.iterations {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

/// Solves one problem per item (a binary problem per class, say): in parallel when nothing
/// observes, one after the other in the items' order when an observer does, so that it sees
/// whole runs in turn. Each problem's result is the same either way.
pub fn solve_each<T, R, F>(
    items: &[T],
    observer: Option<&mut dyn Observer>,
    solve: F,
) -> Result<Vec<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T, &mut dyn Observer) -> Result<R> + Sync,
{
    match observer {
        None => items.par_iter().map(|t| solve(t, &mut ())).collect(),
        Some(observer) => items.iter().map(|t| solve(t, &mut *observer)).collect(),
    }
}

/// A params struct whose fit can be watched: [`Fit::fit`] is `fit_observed` with `()`.
///
/// The observer sees every solver run of the fit in turn (one per binary problem, class or
/// fold); [`Control::Stop`] ends the current run, and the fit goes on with the next one.
pub trait FitObserved<Input: ?Sized = Dataset>: Fit<Input> {
    /// Fits `input`, reporting each solver iteration to `observer`.
    fn fit_observed(&self, input: &Input, observer: &mut dyn Observer) -> Result<Self::Model>;
}

/// Implements [`Fit`] and [`FitObserved`] on a [`Dataset`] for params types whose
/// inherent `fit_watched(&self, data, Option<&mut dyn Observer>)` does the fit: without an
/// observer (a plain `fit`) it may solve its binary problems in parallel, with one it solves
/// them in turn (see [`solve_each`]). `margin_core::impl_fit_watched!(PerceptronParams =>
/// Perceptron);`
#[macro_export]
macro_rules! impl_fit_watched {
    ($($params:ty => $model:ty),+ $(,)?) => {
        $(
            impl $crate::Fit for $params {
                type Model = $model;

                fn fit(&self, data: &$crate::Dataset) -> $crate::Result<$model> {
                    self.fit_watched(data, None)
                }
            }

            impl $crate::fit::FitObserved for $params {
                fn fit_observed(
                    &self,
                    data: &$crate::Dataset,
                    observer: &mut dyn $crate::fit::Observer,
                ) -> $crate::Result<$model> {
                    self.fit_watched(data, Some(observer))
                }
            }
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_iter_is_the_longest_run_and_folds_count_in_the_summary() {
        let report = FitReport::new(vec![
            Run::new(7, Stop::CONVERGED),
            Run::new(30, Stop::Observer),
            Run::new(20, Stop::MaxIterations),
        ])
        .with_folds(Convergence::run(true, 50));
        assert_eq!(report.n_iter(), 30);
        assert_eq!(
            report.convergence(),
            Convergence {
                runs: 4,
                at_limit: 2,
                limit: 50
            }
        );
        assert!(!report.converged());
        assert_eq!(FitReport::default().n_iter(), 0);
        assert!(FitReport::default().converged());
    }

    #[test]
    fn only_the_iteration_limit_counts_as_not_converged() {
        for stop in [
            Stop::CONVERGED,
            Stop::Converged(Criterion::GradientNorm),
            Stop::StepTooSmall,
            Stop::Observer,
            Stop::NoImprovement { rounds: 5 },
        ] {
            assert!(!stop.at_limit(), "{stop:?}");
        }
        assert!(Stop::MaxIterations.at_limit());
    }

    #[test]
    fn stops_are_stored_as_the_old_two_state_codes_first() {
        let code = |s: Stop| bincode::serde::encode_to_vec(s, bincode::config::standard()).unwrap();
        assert_eq!(code(Stop::CONVERGED), [0]);
        assert_eq!(code(Stop::MaxIterations), [1]);
        for stop in [
            Stop::CONVERGED,
            Stop::Converged(Criterion::GradientNorm),
            Stop::Converged(Criterion::RelativeChange),
            Stop::MaxIterations,
            Stop::StepTooSmall,
            Stop::Observer,
            Stop::NoImprovement { rounds: 7 },
        ] {
            let (back, _): (Stop, usize) =
                bincode::serde::decode_from_slice(&code(stop), bincode::config::standard())
                    .unwrap();
            assert_eq!(back, stop);
        }
    }

    #[test]
    fn the_report_types_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Stop>();
        send_sync::<Run>();
        send_sync::<FitReport>();
        send_sync::<LossHistory>();
        send_sync::<StopAfter>();
    }

    #[test]
    fn stop_after_ends_every_run_at_its_budget() {
        let mut stop = StopAfter::new(2);
        let runs = [1, 2, 1, 2];
        let controls: Vec<Control> = runs
            .iter()
            .map(|&i| stop.observe(&Progress::new("cd", i)))
            .collect();
        assert_eq!(
            controls,
            [
                Control::Continue,
                Control::Stop,
                Control::Continue,
                Control::Stop
            ]
        );
        assert_eq!(stop.seen, 4);
        assert!(!stop.wants_objective() && LossHistory::default().wants_objective());
    }

    #[test]
    fn loss_history_skips_iterations_without_an_objective() {
        let mut h = LossHistory::default();
        let mut p = Progress::new("gd", 1);
        p.objective = Some(2.0);
        assert_eq!(h.observe(&p), Control::Continue);
        assert_eq!(h.observe(&Progress::new("smo", 2)), Control::Continue);
        assert_eq!(h.values, [2.0]);
        let mut stop = |p: &Progress<'_>| {
            if p.iteration >= 2 {
                Control::Stop
            } else {
                Control::Continue
            }
        };
        assert_eq!(stop.observe(&Progress::new("gd", 1)), Control::Continue);
        assert_eq!(stop.observe(&Progress::new("gd", 2)), Control::Stop);
        assert_eq!(().observe(&Progress::new("gd", 2)), Control::Continue);
    }
}
