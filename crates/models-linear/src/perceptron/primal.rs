//! The primal perceptron: one weight vector per binary problem.

use margin_core::fit::{FitReport, Observer, solve_each};
use margin_core::params::Params;
use margin_core::{Dataset, LinearClassifierCore, Records, Result, memory, model_check};
use margin_io::ModelFile;
use margin_optim::Stop;
use serde::{Deserialize, Serialize};

use super::{Encoded, Learner, Schedule, train};

/// Hyperparameters of [`Perceptron`] (scikit-learn's `Perceptron` names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct PerceptronParams {
    /// Epochs at most (default 1000); training stops earlier after an epoch without a mistake.
    #[param(help = "epochs at most", default = 1000, valid = ("at least 1 epoch", |n| *n >= 1))]
    max_iter: usize,
    /// Reshuffle the visiting order before each epoch (default true); false visits the
    /// samples in their order in the dataset.
    #[param(help = "reshuffle the samples before each epoch", default = true)]
    shuffle: bool,
    /// Seed of the shuffles (default 0).
    #[param(help = "seed of the shuffles", applies = ("with shuffle true", |p| p.shuffle))]
    seed: u64,
    /// Step size `η > 0` (default 1). From `w = 0` it only rescales `w` and `b`, so the
    /// predictions do not depend on it (up to rounding).
    #[param(
        help = "step size (rescales the weights only)",
        default = 1.0,
        valid = ("a finite number > 0", crate::finite_positive)
    )]
    eta0: f64,
    /// Learn the bias `b` (default true); without it the decision boundary passes through the
    /// origin.
    #[param(help = "learn the bias", default = true)]
    fit_intercept: bool,
}

impl PerceptronParams {
    fn schedule(&self) -> Schedule {
        Schedule {
            max_iter: self.max_iter,
            shuffle: self.shuffle,
            seed: self.seed,
        }
    }
}

/// A fitted perceptron: `w·x + b` per binary problem (one for two classes, one per class
/// against the rest otherwise).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Perceptron {
    core: LinearClassifierCore,
    n_iter: Vec<usize>,
    mistakes: Vec<usize>,
    stops: Vec<Stop>,
    /// The hyperparameters the model was fitted with.
    params: PerceptronParams,
}

impl Perceptron {
    /// The hyperparameters the model was fitted with (see [`PerceptronParams`]).
    pub fn hyperparams(&self) -> &PerceptronParams {
        &self.params
    }
    /// Default hyperparameters.
    pub fn params() -> PerceptronParams {
        PerceptronParams::default()
    }

    /// Mistakes (updates) each binary problem made over all its epochs.
    pub fn mistakes(&self) -> &[usize] {
        &self.mistakes
    }

    /// How the fit went: one run per binary problem, of the epochs it ran (the last one
    /// without a mistake when it converged: every training sample of positive weight is then
    /// classified correctly), at the limit after `max_iter` epochs that all had a mistake
    /// (always so on data no hyperplane separates).
    pub fn fit_report(&self) -> FitReport {
        FitReport::of(&self.n_iter, &self.stops)
    }
}

margin_core::impl_linear_classifier!(Perceptron);

impl ModelFile for Perceptron {
    const KIND: &'static str = "perceptron";
    /// 2: the weights are stored with their width first, as every linear classifier's are
    /// ([`LinearClassifierCore`]), and the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        self.core.check_consistent()
    }
}

/// `(w, b)` and the records it is trained on.
struct Primal<'a, R: ?Sized> {
    x: &'a R,
    w: Vec<f64>,
    b: f64,
    eta0: f64,
    fit_intercept: bool,
}

impl<R: Records + ?Sized> Learner for Primal<'_, R> {
    fn score(&self, i: usize) -> f64 {
        self.x.row(i).dot_dense(&self.w) + self.b
    }

    fn update(&mut self, i: usize, sign: f64, weight: f64) -> Result<()> {
        let step = self.eta0 * weight * sign;
        self.x.row(i).axpy(step, &mut self.w);
        if self.fit_intercept {
            self.b += step;
        }
        Ok(())
    }

    fn is_finite(&self) -> bool {
        self.b.is_finite() && self.w.iter().all(|v| v.is_finite())
    }
}

margin_core::impl_fit_watched!(PerceptronParams => Perceptron);

impl PerceptronParams {
    /// The fit, its binary problems watched one after the other by `observer` if any (see
    /// [`solve_each`]).
    fn fit_watched(
        &self,
        data: &Dataset,
        observer: Option<&mut dyn Observer>,
    ) -> Result<Perceptron> {
        self.check()?;
        let encoded = Encoded::new(data)?;
        let weights = data.sample_weights.as_deref();
        let x = &data.records;
        // One weight vector per problem, dense in the width (as scikit-learn's): asked for
        // first, so a width no machine holds is refused, naming the size.
        const WHAT: &str = "the perceptron's weight vectors";
        let d = x.n_features();
        memory::check(
            memory::bytes_of_grid::<f64>(encoded.positives.len(), d),
            WHAT,
            memory::FEWER_FEATURES,
        )?;
        let solved = solve_each(&encoded.positives, observer, |&p, observer| {
            let mut learner = Primal {
                x,
                w: memory::filled_vec(d, 0.0, WHAT, memory::FEWER_FEATURES)?,
                b: 0.0,
                eta0: self.eta0,
                fit_intercept: self.fit_intercept,
            };
            let signs = encoded.signs(p);
            let run = train(&mut learner, &signs, weights, self.schedule(), observer)?;
            Ok((learner, run))
        })?;
        let mut coef = Vec::with_capacity(solved.len());
        let mut intercept = Vec::with_capacity(solved.len());
        let mut n_iter = Vec::with_capacity(solved.len());
        let mut mistakes = Vec::with_capacity(solved.len());
        let mut stops = Vec::with_capacity(solved.len());
        for (learner, run) in solved {
            coef.push(learner.w);
            intercept.push(learner.b);
            n_iter.push(run.n_iter);
            mistakes.push(run.mistakes);
            stops.push(run.stop);
        }
        Ok(Perceptron {
            core: LinearClassifierCore::from_rows(encoded.labels, d, &coef, intercept)?,
            n_iter,
            mistakes,
            stops,
            params: self.clone(),
        })
    }
}
