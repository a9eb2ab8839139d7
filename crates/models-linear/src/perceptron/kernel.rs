//! The kernel perceptron: the perceptron rule in the dual, with any kernel.

use margin_core::fit::{FitReport, Observer, solve_each};
use margin_core::params::Params;
use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Error, Label, Matrix, Predict, Records, Result,
    RowRange, classes_from_scores, model_check, parallel, validate,
};
use margin_io::ModelFile;
use margin_kernels::{Gamma, Kernel, KernelKind, KernelParams, KernelSpec};
use margin_optim::Stop;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Encoded, Learner, Run, Schedule, train};

/// Kernel entries computed per block of rows at prediction (32 MiB of `f64`), so predicting
/// many samples never holds the whole test × support kernel matrix.
const PREDICT_BLOCK_ENTRIES: usize = 1 << 22;

/// Element operations one kernel evaluation counts for when deciding to go parallel (an
/// exponential and a short dot product): columns shorter than
/// `margin_core::parallel::TASK_WORK / EVAL_WORK` (2,048) are computed on the calling thread.
const EVAL_WORK: usize = 32;

/// Bytes in one of `gram_budget_mb`'s megabytes (a MiB, as LIBSVM's and scikit-learn's
/// `cache_size`).
const MB: f64 = (1u64 << 20) as f64;

/// Hyperparameters of [`KernelPerceptron`].
///
/// scikit-learn has no kernel perceptron; the shared parameters keep its `Perceptron`'s names
/// and defaults. There is no `eta0`: `αᵢ` counts mistakes, and a step size would rescale every
/// `αᵢ` and `b` together without changing a prediction. The kernel is given as scikit-learn's
/// kernel models give it (`kernel`, `gamma`, `degree`, `coef0`) or whole, as any
/// [`KernelSpec`].
///
/// The default kernel is the polynomial `(γ x·z + coef0)^degree` with γ = 1, coef0 = 1,
/// degree 2, whose feature space holds every quadratic boundary (XOR's included) and which,
/// with γ fixed, does not depend on the data's variance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct KernelPerceptronParams {
    #[param(flatten, default = DEFAULT_KERNEL)]
    kernel: KernelParams,
    /// Epochs at most (default 1000); training stops earlier after an epoch without a mistake.
    #[param(help = "epochs at most", default = 1000, valid = ("at least 1 epoch", |n| *n >= 1))]
    max_iter: usize,
    /// Reshuffle the visiting order before each epoch (default true); false visits the
    /// samples in their order in the dataset.
    #[param(help = "reshuffle the samples before each epoch", default = true)]
    shuffle: bool,
    /// Seed of the shuffles (default 0). The same seed gives the same visiting orders as
    /// [`Perceptron`](super::Perceptron)'s.
    #[param(help = "seed of the shuffles", applies = ("with shuffle true", |p| p.shuffle))]
    seed: u64,
    /// Learn the bias `b` (default true), updated as the primal perceptron's: `b ← b + s·y`
    /// on a mistake (`s` the sample weight). Without it `f(x) = Σᵢ αᵢ yᵢ k(xᵢ, x)`.
    #[param(help = "learn the bias", default = true)]
    fit_intercept: bool,
    /// Largest training Gram matrix to hold, in MB of `f64` (default 200; `8n²` bytes are
    /// needed for `n` samples). Above it, each mistake computes its sample's kernel column
    /// (`n` evaluations) instead of reading it, and nothing of size `n²` is stored; 0 always
    /// computes columns.
    #[param(
        help = "largest training Gram matrix to hold, in MB (above it, columns are computed per mistake)",
        default = 200.0,
        valid = ("a finite number ≥ 0", crate::finite_non_negative)
    )]
    gram_budget_mb: f64,
}

/// The default kernel `(x·z + 1)²`: polynomial with γ = 1, degree 2, coef0 1.
const DEFAULT_KERNEL: KernelParams =
    KernelParams::named(KernelKind::Poly, Gamma::Value(1.0), 2, 1.0);

impl KernelPerceptronParams {
    fn schedule(&self) -> Schedule {
        Schedule {
            max_iter: self.max_iter,
            shuffle: self.shuffle,
            seed: self.seed,
        }
    }
}

/// A fitted kernel perceptron: per binary problem, `f(x) = Σᵢ cᵢ k(xᵢ, x) + b` over the
/// support samples (those with a mistake in some problem), `cᵢ = αᵢ yᵢ`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelPerceptron {
    kernel: KernelSpec,
    labels: Vec<Label>,
    support: Vec<usize>,
    support_vectors: Matrix,
    dual_coef: Vec<Vec<f64>>,
    intercept: Vec<f64>,
    n_iter: Vec<usize>,
    mistakes: Vec<usize>,
    stops: Vec<Stop>,
    /// The hyperparameters the model was fitted with.
    params: KernelPerceptronParams,
}

impl KernelPerceptron {
    /// The hyperparameters the model was fitted with (see [`KernelPerceptronParams`]).
    pub fn hyperparams(&self) -> &KernelPerceptronParams {
        &self.params
    }
    /// Default hyperparameters.
    pub fn params() -> KernelPerceptronParams {
        KernelPerceptronParams::default()
    }

    /// The kernel the model was trained with.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }

    /// Class labels, sorted; columns of [`DecisionFunction`] for more than two classes.
    pub fn classes(&self) -> &[Label] {
        &self.labels
    }

    /// Indices, in the training set and ascending, of the samples kept for prediction: those
    /// with `αᵢ > 0` in at least one binary problem.
    pub fn support(&self) -> &[usize] {
        &self.support
    }

    /// The support samples' records, in [`KernelPerceptron::support`]'s order.
    pub fn support_vectors(&self) -> &Matrix {
        &self.support_vectors
    }

    /// Per binary problem (one for two classes, positive for `classes()[1]`; else one per
    /// class against the rest), `αᵢ yᵢ` for each support sample: `αᵢ` is the sample's
    /// (weighted) number of mistakes in that problem, possibly 0 there.
    pub fn dual_coef(&self) -> &[Vec<f64>] {
        &self.dual_coef
    }

    /// Intercepts, one per binary problem (0 without `fit_intercept`).
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
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

    /// The number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.support_vectors.n_features()
    }

    fn scores<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_features(), records)?;
        let k = self.dual_coef.len();
        let mut out = DenseMatrix::zeros(records.n_samples(), k);
        let block = (PREDICT_BLOCK_ENTRIES / self.support.len().max(1)).max(1);
        for (b, chunk) in out.as_mut_slice().chunks_mut(block * k).enumerate() {
            let rows = RowRange::new(records, b * block..b * block + chunk.len() / k)?;
            let gram = margin_kernels::cross_gram(&self.kernel, &rows, &self.support_vectors)?;
            for (scores, kernel_row) in chunk.chunks_mut(k).zip(gram.rows()) {
                for (p, v) in scores.iter_mut().enumerate() {
                    *v = margin_core::dot(kernel_row, &self.dual_coef[p]) + self.intercept[p];
                }
            }
        }
        Ok(out)
    }

    /// Predicted class indices into [`KernelPerceptron::classes`].
    pub fn predict_classes<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        Ok(classes_from_scores(
            &self.scores(records)?,
            self.labels.len(),
        ))
    }
}

impl Predict for KernelPerceptron {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        Ok(self
            .predict_classes(records)?
            .into_iter()
            .map(|k| self.labels[k].clone())
            .collect())
    }

    margin_core::class_scores_from!(decision_function);
}

impl DecisionFunction for KernelPerceptron {
    /// `Σᵢ αᵢ yᵢ k(xᵢ, x) + b` per problem: one column for two classes (positive for
    /// `classes()[1]`), one per class otherwise.
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        self.scores(records)
    }
}

impl ModelFile for KernelPerceptron {
    const KIND: &'static str = "kernel-perceptron";
    // 2: the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    /// Distinct labels; finite support vectors and a kernel valid on them; one row of dual
    /// coefficients per problem (one for two classes, one per class otherwise), each with one
    /// finite value per support vector, and one finite intercept per problem.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let k = self.labels.len();
        model_check::class_labels("labels", &self.labels)?;
        let n_sv = self.support.len();
        let sv = &self.support_vectors;
        model_check::records("support_vectors", sv, n_sv, self.n_features())?;
        model_check::within("kernel", self.kernel.check_decoded(sv))?;
        let rows = if k == 2 { 1 } else { k };
        model_check::len("dual_coef", self.dual_coef.len(), rows)?;
        for a in &self.dual_coef {
            model_check::len("dual_coef row", a.len(), n_sv)?;
            model_check::finite("dual_coef", a)?;
        }
        model_check::len("intercept", self.intercept.len(), rows)?;
        model_check::finite("intercept", &self.intercept)
    }
}

fn overflow(kernel: &KernelSpec) -> Error {
    Error::OutOfRange {
        what: "the features".into(),
        reason: format!(
            "the {} kernel overflowed on these records: rescale the features",
            kernel.name()
        ),
    }
}

/// Where training reads the kernel column `k(·, xᵢ)` of a mistaken sample.
enum Columns<'a> {
    /// Row `i` of the (symmetric) training Gram matrix.
    Gram(&'a DenseMatrix),
    /// Computed at each mistake into `buf`.
    OnTheFly {
        kernel: &'a KernelSpec,
        x: &'a Matrix,
        buf: Vec<f64>,
    },
}

/// The dual state: `αᵢ`, `b`, and `g = Σⱼ αⱼ yⱼ k(xⱼ, ·)` at every training sample, updated
/// on each mistake so that a visit costs one lookup and a mistake one kernel column.
struct Dual<'a> {
    columns: Columns<'a>,
    g: Vec<f64>,
    alpha: Vec<f64>,
    b: f64,
    fit_intercept: bool,
}

impl Learner for Dual<'_> {
    fn score(&self, i: usize) -> f64 {
        self.g[i] + self.b
    }

    fn update(&mut self, i: usize, sign: f64, weight: f64) -> Result<()> {
        let column: &[f64] = match &mut self.columns {
            Columns::Gram(gram) => gram.row(i),
            Columns::OnTheFly { kernel, x, buf } => {
                let xi = x.row(i);
                // `x` is the basis side, as in `margin_kernels::cross_gram` (it matters only for a
                // precomputed kernel).
                let eval = |(j, v): (usize, &mut f64)| *v = kernel.eval(x.row(j), xi);
                // Handing a short column to the thread pool costs more than computing it.
                if parallel::should_split(buf.len() * EVAL_WORK, parallel::Overhead::Loop) {
                    buf.par_iter_mut().enumerate().for_each(eval);
                } else {
                    buf.iter_mut().enumerate().for_each(eval);
                }
                if buf.iter().any(|v| !v.is_finite()) {
                    return Err(overflow(kernel));
                }
                buf
            }
        };
        let step = weight * sign;
        self.g
            .iter_mut()
            .zip(column)
            .for_each(|(g, k)| *g += step * k);
        self.alpha[i] += weight;
        if self.fit_intercept {
            self.b += step;
        }
        Ok(())
    }

    fn is_finite(&self) -> bool {
        self.b.is_finite()
            && self.g.iter().all(|v| v.is_finite())
            && self.alpha.iter().all(|v| v.is_finite())
    }
}

margin_core::impl_fit_watched!(KernelPerceptronParams => KernelPerceptron);

impl KernelPerceptronParams {
    /// The fit, its binary problems watched one after the other by `observer` if any (see
    /// [`solve_each`]).
    fn fit_watched(
        &self,
        data: &Dataset,
        observer: Option<&mut dyn Observer>,
    ) -> Result<KernelPerceptron> {
        self.check()?;
        let schedule = self.schedule();
        let budget = self.gram_budget_mb;
        let encoded = Encoded::new(data)?;
        let x = &data.records;
        let kernel = self.kernel.resolve(x)?;
        kernel.check(x)?;
        let n = x.n_samples();
        let gram = if 8.0 * (n as f64) * (n as f64) <= budget * MB {
            let gram = margin_kernels::gram(&kernel, x)?;
            if gram.as_slice().iter().any(|v| !v.is_finite()) {
                return Err(overflow(&kernel));
            }
            Some(gram)
        } else {
            None
        };
        let weights = data.sample_weights.as_deref();
        let solved: Vec<(Vec<f64>, Vec<f64>, f64, Run)> =
            solve_each(&encoded.positives, observer, |&p, observer| {
                let signs = encoded.signs(p);
                let columns = match &gram {
                    Some(g) => Columns::Gram(g),
                    None => Columns::OnTheFly {
                        kernel: &kernel,
                        x,
                        buf: vec![0.0; n],
                    },
                };
                let mut learner = Dual {
                    columns,
                    g: vec![0.0; n],
                    alpha: vec![0.0; n],
                    b: 0.0,
                    fit_intercept: self.fit_intercept,
                };
                let run = train(&mut learner, &signs, weights, schedule, observer)?;
                Ok((learner.alpha, signs, learner.b, run))
            })?;
        let support: Vec<usize> = (0..n)
            .filter(|&i| solved.iter().any(|(alpha, ..)| alpha[i] > 0.0))
            .collect();
        let mut model = KernelPerceptron {
            kernel,
            labels: encoded.labels,
            support_vectors: x.select_rows(&support)?,
            dual_coef: Vec::with_capacity(solved.len()),
            intercept: Vec::with_capacity(solved.len()),
            n_iter: Vec::with_capacity(solved.len()),
            mistakes: Vec::with_capacity(solved.len()),
            stops: Vec::with_capacity(solved.len()),
            support,
            params: self.clone(),
        };
        for (alpha, signs, b, run) in solved {
            model
                .dual_coef
                .push(model.support.iter().map(|&i| alpha[i] * signs[i]).collect());
            model.intercept.push(b);
            model.n_iter.push(run.n_iter);
            model.mistakes.push(run.mistakes);
            model.stops.push(run.stop);
        }
        Ok(model)
    }
}
