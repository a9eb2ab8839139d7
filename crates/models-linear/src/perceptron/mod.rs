//! # Perceptrons: the primal rule and its kernel (dual) form
//!
//! - [`Perceptron`]: Rosenblatt's mistake-driven rule. Samples are visited one at a time; on
//!   a mistake, `y (w·x + b) ≤ 0`, the sample is added: `w ← w + η·s·y·x`, `b ← b + η·s·y`
//!   (`y = ±1`, `s` its sample weight, 1 by default). Training stops after an epoch without a
//!   mistake (then the training set is separated and [`Perceptron::fit_report`] says so) or
//!   after `max_iter` epochs. This is exactly the update of scikit-learn's `Perceptron`
//!   (SGD on the hinge loss with threshold 0, constant rate `eta0`, no penalty) on dense
//!   records; the weights agree with it when it runs unshuffled (`shuffle=False`,
//!   `tol=None`), see `tests/perceptron_sklearn.rs`.
//! - [`KernelPerceptron`]: the same rule in the dual. With `w = Σᵢ αᵢ yᵢ φ(xᵢ)`, a mistake on
//!   sample `i` adds its weight to `αᵢ` (so `αᵢ` counts the mistakes made on it), and the
//!   score is `f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x) + b`, the bias updated as the primal one. Only the
//!   samples with `αᵢ > 0` are kept for prediction. With the linear kernel and the same
//!   visiting order it makes the same mistakes as [`Perceptron`] with `eta0 = 1`.
//!
//! Both are binary classifiers, extended to more classes one-vs-rest (one problem per class,
//! class against the rest, solved in parallel; the prediction is the class with the largest
//! score, ties to the earlier class). Labels are sorted as scikit-learn sorts them; for two
//! classes there is one problem, positive for `classes()[1]`. Every problem visits the samples
//! in the same sequence of orders, drawn from `seed` (ChaCha8) and reshuffled each epoch, so
//! a fit depends on the seed only, not on the number of threads.
//!
//! The step `eta0` only rescales `w` and `b` (both start at 0 and the mistake test
//! `y (w·x + b) ≤ 0` does not depend on their scale), so it changes nothing but rounding; it
//! is kept for parity with scikit-learn, and the kernel perceptron, whose `αᵢ` are mistake
//! counts, does not have it.
//!
//! **Convergence.** On data separable with margin `γ` by a unit vector through the origin,
//! with `R = maxᵢ ‖xᵢ‖`, the rule without intercept makes at most `(R/γ)²` mistakes
//! (Novikoff, 1962), whatever the order: both models then report `converged()`. On
//! non-separable data (XOR for the primal rule) they run `max_iter` epochs and return the
//! last weights.
//!
//! **Memory of the kernel perceptron.** The kernel values `k(xᵢ, xⱼ)` that training reads are
//! taken from the `n × n` Gram matrix (`8n²` bytes, computed once with [`margin_kernels::gram`]) when
//! it fits in `gram_budget_mb` (default 200 MB: up to n ≈ 5,100); above that, the column of a
//! mistaken sample is computed when the mistake happens (`n` kernel evaluations, in parallel),
//! so memory stays `O(n)` per problem at the cost of recomputing columns.
//!
//! | model | parameter | default | meaning |
//! |---|---|---|---|
//! | both | `max_iter` | 1000 | epochs at most (scikit-learn's default), ≥ 1 |
//! | both | `shuffle` | true | reshuffle the visiting order before each epoch |
//! | both | `seed` | 0 | seed of the shuffles (scikit-learn's `random_state=0`) |
//! | both | `fit_intercept` | true | learn the bias `b` (else `b = 0`) |
//! | `Perceptron` | `eta0` | 1 | step size, > 0 (rescales `w` and `b` only) |
//! | `KernelPerceptron` | `kernel` | `(x·z + 1)²` | any [`KernelSpec`](margin_kernels::KernelSpec); the default is the polynomial kernel with γ = 1, coef0 = 1, degree 2 |
//! | `KernelPerceptron` | `gram_budget_mb` | 200 | largest training Gram matrix to hold, in MB (≥ 0); above it, kernel columns are computed per mistake |
//!
//! Sample weights, when the dataset has them, scale each sample's step; samples of weight 0
//! are skipped. Class weights are not offered.
//!
//! ```
//! use margin_core::{Dataset, Fit, Predict};
//! use margin_linear::{KernelPerceptron, Perceptron};
//!
//! // XOR: no line separates it, the degree-2 polynomial kernel does.
//! let x = [[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]];
//! let xor = Dataset::classification(&x, [-1, -1, 1, 1])?;
//!
//! let primal = Perceptron::params().max_iter(100).fit(&xor)?;
//! assert!(!primal.convergence().converged());
//!
//! let dual = KernelPerceptron::params().fit(&xor)?;
//! assert!(dual.convergence().converged());
//! assert_eq!(dual.predict(&xor.records)?, [-1, -1, 1, 1]);
//! # Ok::<(), margin_core::Error>(())
//! ```

mod kernel;
mod primal;

pub use kernel::{KernelPerceptron, KernelPerceptronParams};
pub use primal::{Perceptron, PerceptronParams};

use margin_core::fit::{Control, Observer, Progress, Stop};
use margin_core::{Dataset, Error, Label, PresentClasses, Result, split};
use rand::seq::SliceRandom;

/// A classification dataset as the perceptrons train on it.
struct Encoded {
    /// The classes present in the data, sorted.
    labels: Vec<Label>,
    /// Each sample's class, an index into `labels`.
    y: Vec<usize>,
    /// The class each binary problem takes as positive: `[1]` for two classes, every class
    /// (one against the rest) otherwise.
    positives: Vec<usize>,
}

impl Encoded {
    /// Validates `data` (finite records, at least two classes, not every weight 0) and
    /// encodes its classes.
    fn new(data: &Dataset) -> Result<Self> {
        margin_core::validate::check_dataset(data)?;
        let classes = data.targets.to_classes()?;
        margin_core::validate::check_min_classes(&classes, 2)?;
        let PresentClasses { labels, y, .. } = classes.present();
        let positives = if labels.len() == 2 {
            vec![1]
        } else {
            (0..labels.len()).collect()
        };
        Ok(Self {
            labels,
            y,
            positives,
        })
    }

    /// `±1` per sample for the problem whose positive class is `positive`.
    fn signs(&self, positive: usize) -> Vec<f64> {
        self.y
            .iter()
            .map(|&k| if k == positive { 1.0 } else { -1.0 })
            .collect()
    }
}

/// The epochs of training, shared by both perceptrons so that they visit samples in exactly
/// the same orders.
#[derive(Clone, Copy, Debug)]
struct Schedule {
    max_iter: usize,
    shuffle: bool,
    seed: u64,
}

/// What one binary problem's training did.
struct Run {
    n_iter: usize,
    mistakes: usize,
    stop: Stop,
}

/// A perceptron's state as the training loop sees it.
trait Learner {
    /// The current score of training sample `i`.
    fn score(&self, i: usize) -> f64;
    /// Adds sample `i` after a mistake: `sign = yᵢ = ±1`, `weight` its sample weight (> 0).
    fn update(&mut self, i: usize, sign: f64, weight: f64) -> Result<()>;
    /// Whether every learned value is finite.
    fn is_finite(&self) -> bool;
}

/// Runs the mistake-driven loop on one binary problem.
fn train<L: Learner>(
    learner: &mut L,
    signs: &[f64],
    weights: Option<&[f64]>,
    schedule: Schedule,
    observer: &mut dyn Observer,
) -> Result<Run> {
    let weight = |i: usize| weights.map_or(1.0, |w| w[i]);
    // A weight-0 sample would be a mistake forever without ever changing the model.
    let mut order: Vec<usize> = (0..signs.len()).filter(|&i| weight(i) > 0.0).collect();
    let mut rng = split::rng_from_seed(schedule.seed);
    let mut mistakes = 0;
    let mut stop = (schedule.max_iter, Stop::MaxIterations);
    for epoch in 1..=schedule.max_iter {
        if schedule.shuffle {
            order.shuffle(&mut rng);
        }
        let mut epoch_mistakes = 0;
        for &i in &order {
            let score = learner.score(i);
            if !score.is_finite() {
                return Err(Error::OutOfRange {
                    what: "the features".into(),
                    reason: format!(
                        "the perceptron's score of sample {i} overflowed after {} updates: rescale the features",
                        mistakes + epoch_mistakes
                    ),
                });
            }
            if signs[i] * score <= 0.0 {
                learner.update(i, signs[i], weight(i))?;
                epoch_mistakes += 1;
            }
        }
        mistakes += epoch_mistakes;
        // The epoch's mistakes are the perceptron's violation: none means converged.
        let progress = Progress {
            violation: Some(epoch_mistakes as f64),
            ..Progress::new("perceptron", epoch)
        };
        if observer.observe(&progress) == Control::Stop {
            stop = (epoch, Stop::Observer);
            break;
        }
        if epoch_mistakes == 0 {
            stop = (epoch, Stop::CONVERGED);
            break;
        }
    }
    // Scores are checked before each update; the last update may still overflow.
    if !learner.is_finite() {
        return Err(Error::OutOfRange {
            what: "the features".into(),
            reason: "the perceptron's weights overflowed: rescale the features".into(),
        });
    }
    Ok(Run {
        n_iter: stop.0,
        mistakes,
        stop: stop.1,
    })
}
