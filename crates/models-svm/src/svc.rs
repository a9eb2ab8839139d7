//! C-support vector classification (LIBSVM's `-s 0`, scikit-learn's `SVC`).

use margin_core::fit::{FitReport, Run};
use margin_core::params::Params;
use margin_core::{
    ClassWeight, Classes, Convergence, Dataset, DecisionFunction, DenseMatrix, Error, Label,
    Matrix, Predict, PredictProba, Records, Result, model_check, validate,
};
use margin_io::ModelFile;
use margin_kernels::{Kernel, KernelSpec};
use margin_optim::Stop;
use margin_optim::smo::{self, Problem};
use serde::{Deserialize, Serialize};

use crate::decision::{Width, coef_matrix, kernel_rows, libsvm_kernel, linear_weights};
use crate::expansion::check_linear_weights;
use crate::libsvm_run::{LibsvmRun, RunReport, SummaryLine};
use crate::probability::{clip, couple, sigmoid_fit, sigmoid_predict};
use crate::q::solve_signed;
use crate::settings::{Settings, kept_params, nu_in_range};

/// How more than two classes are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Multiclass {
    /// One binary problem per pair of classes, then a vote (LIBSVM's and scikit-learn's way);
    /// ties go to the class that comes first.
    #[default]
    OneVsOne,
    /// One binary problem per class against the rest; the largest decision value wins.
    OneVsRest,
}

margin_core::param_choice!(Multiclass {
    OneVsOne => "ovo" | "one-vs-one",
    OneVsRest => "ovr" | "one-vs-rest",
});

/// The order of classes inside the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabelOrder {
    /// Sorted labels, as scikit-learn's `classes_` (the default).
    #[default]
    Sorted,
    /// Order of first appearance in the training data, with a binary `-1, +1` problem swapped
    /// so `+1` comes first: LIBSVM's order, which fixes the sign of its decision values and
    /// the layout of its model files (`margin svm-train` uses it).
    FirstSeen,
}

margin_core::param_choice!(LabelOrder {
    Sorted => "sorted",
    FirstSeen => "first-seen" | "libsvm",
});

/// How a classifier's binary problems are set up and what they add: the multiclass strategy,
/// the class order, and Platt's probabilities with their seed. A block both [`SvcParams`] and
/// [`NuSvcParams`] flatten.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(
    block,
    order(probability, multiclass, label_order, seed),
    check = |s| check_probability(s.probability, s.multiclass)
)]
pub(crate) struct ClassSetup {
    /// Multiclass strategy (default one-vs-one).
    #[param(help = "one-vs-one or one-vs-rest problems for more than two classes")]
    pub(crate) multiclass: crate::Multiclass,
    /// Class order inside the model (default sorted).
    #[param(help = "class order inside the model: sorted, or LIBSVM's order of first appearance")]
    pub(crate) label_order: crate::LabelOrder,
    /// Also fit Platt probability estimates (scikit-learn's `probability=True`, LIBSVM's
    /// `-b 1`): five more trainings per binary problem on cross-validation folds. One-vs-one
    /// only.
    #[param(
        help = "fit Platt probabilities (LIBSVM's -b 1: five more trainings per pair of classes)"
    )]
    pub(crate) probability: bool,
    /// Seed of the cross-validation folds behind the probability estimates (default 0).
    /// The folds are drawn as LIBSVM draws them, with glibc's `rand()` after `srand(seed)`
    /// (the seed taken modulo 2³², as for [`crate::Svr`]): one sequence for the fit, each
    /// binary problem's 5-fold shuffle in the order of the pairs. The default 0 (like 1) is
    /// the sequence of a program that never seeds, so the sigmoids are LIBSVM's to the last
    /// digit.
    #[param(
        help = "seed of glibc's rand() for the probability folds (0: LIBSVM's unseeded sequence)",
        applies = ("with probability true", |s| s.probability)
    )]
    pub(crate) seed: u64,
}

/// Parameters of [`Svc`], with scikit-learn's names and defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(c, settings, class_weight, setup), check = |p| p.class_weight.check())]
pub struct SvcParams {
    #[param(flatten)]
    pub(crate) settings: Settings,
    /// Regularization `C > 0` (default 1); `f64::INFINITY` gives the hard-margin SVM, which
    /// exists only for separable data, and a very large C approximates it. For exact margins
    /// and α values lower [`tol`](Self::tol) too (e.g. `.tol(1e-8)`): SMO stops when the
    /// largest KKT violation is below `tol`, 1e-3 by default (LIBSVM's).
    #[param(
        name = "C",
        help = "regularization C (inf: hard margin)",
        default = 1.0,
        valid = ("a number > 0 (or infinity for a hard margin)", |c| *c > 0.0)
    )]
    c: f64,
    /// Class weights (default uniform).
    #[param(
        help = "class weights: balanced weights classes by n / (k · n_class); LABEL:W,... weighs the classes named (the others keep 1)"
    )]
    pub(crate) class_weight: ClassWeight,
    #[param(flatten)]
    pub(crate) setup: ClassSetup,
}

/// Probabilities need one-vs-one problems: pairwise coupling uses every pair of classes.
fn check_probability(probability: bool, multiclass: Multiclass) -> Result<()> {
    if probability && multiclass == Multiclass::OneVsRest {
        return Err(Error::invalid_parameter(
            "probability",
            true,
            "one-vs-one classification (pairwise coupling needs every pair)",
        ));
    }
    Ok(())
}

/// Parameters of ν-SVC (LIBSVM's `-s 1`, scikit-learn's `NuSVC`), which fits the same
/// [`Svc`] model: ν ∈ (0, 1] bounds the fraction of margin errors from above and the fraction
/// of support vectors from below, in place of C.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(order(nu, settings, setup))]
pub struct NuSvcParams {
    #[param(flatten)]
    settings: Settings,
    /// ν in (0, 1] (default 0.5). Infeasible values (above `2·min(n₊, n₋)/(n₊ + n₋)` for some
    /// pair of classes) are refused at fit time.
    #[param(
        help = "bound on the fraction of margin errors (above) and of support vectors (below)",
        default = 0.5,
        valid = ("a number in (0, 1]", nu_in_range)
    )]
    nu: f64,
    #[param(flatten)]
    setup: ClassSetup,
}

impl NuSvcParams {
    /// Whether ν is feasible for every binary problem of `data`'s classes (the check `fit`
    /// makes first, LIBSVM's `svm_check_parameter`): for use before fits whose run is marked
    /// [`LibsvmRun::set_fold_training`], which skip it as LIBSVM's folds do.
    pub fn check_feasible(&self, data: &Dataset) -> Result<()> {
        let classes = data.targets.to_classes()?;
        let counts: Vec<usize> = classes
            .counts()
            .iter()
            .copied()
            .filter(|&c| c > 0)
            .collect();
        check_nu_pairs(self.nu, &counts, self.setup.multiclass)
    }
}

kept_params! {
    /// The hyperparameters a fitted [`Svc`] keeps: those of the C-SVC or of the ν-SVC it was
    /// fitted as.
    ///
    /// A model read from a LIBSVM text file ([`crate::LibsvmModel`]) keeps what the file's
    /// header implies, as scikit-learn does for the estimators it rebuilds from such files: the
    /// formulation (`svm_type`), the kernel (`kernel_type`, `gamma`, `degree`, `coef0`, with
    /// those the kernel does not use at their defaults) and `probability` (true when the file
    /// has `probA`/`probB`); every other parameter (C, ν, `tol`, `cache_size`, class weights,
    /// …) is at its default, since LIBSVM's files do not record it.
    SvcHyperparams { C(SvcParams), Nu(NuSvcParams) }
}

/// One binary subproblem of a fitted classifier: class `positive` (+1) against `negative`
/// (−1, or every other class for one-vs-rest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BinaryModel {
    /// The +1 class (index into [`Svc::classes`]).
    pub positive: usize,
    /// The −1 class, or `None` for one-vs-rest.
    pub negative: Option<usize>,
    /// `(support vector index, α_i y_i)` for every support vector of this problem.
    pub coef: Vec<(usize, f64)>,
    /// The offset: decision value `Σ α_i y_i K(x_i, x) − ρ`, positive for `positive`.
    pub rho: f64,
    /// Dual objective at the solution.
    pub objective: f64,
    /// SMO iterations.
    pub iterations: usize,
    /// Why SMO stopped.
    pub stop: Stop,
    /// Support vectors at their upper bound (`α_i = C_i`).
    pub n_bounded: usize,
    /// Platt's sigmoid `(A, B)`: `P(positive | f) = 1 / (1 + exp(A f + B))`, when fitted with
    /// probability estimates.
    pub probability: Option<(f64, f64)>,
    /// How the SMO runs of the cross-validation behind [`BinaryModel::probability`] ended
    /// (no runs without probability estimates, or for a model read from a LIBSVM file).
    pub probability_folds: Convergence,
    /// For ν-SVC, the `C` of the C-SVC with the same solution: `1/r`, LIBSVM's printed
    /// `C = …` and the bound of the rescaled coefficients. Negative when the solver ends with
    /// `r < 0` (possible with the sigmoid kernel, which is not positive semi-definite): the
    /// coefficients then carry the opposite signs, as LIBSVM's do. `None` for C-SVC and for
    /// a model read from a LIBSVM file.
    pub equivalent_c: Option<f64>,
}

impl BinaryModel {
    /// The problem's SMO run, as a fit report records it.
    pub fn run(&self) -> Run {
        Run::new(self.iterations, self.stop).with_objective(self.objective)
    }
}

/// A fitted C-SVC.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Svc {
    kernel: KernelSpec,
    labels: Vec<Label>,
    n_features: usize,
    support: Matrix,
    support_indices: Vec<usize>,
    support_class: Vec<usize>,
    problems: Vec<BinaryModel>,
    /// The hyperparameters the model was fitted with (the multiclass strategy among them); ν-SVC's for a model trained as ν-SVC
    /// (LIBSVM model files say `nu_svc`).
    pub(crate) params: SvcHyperparams,
    /// For the linear kernel: one weight vector per problem, so prediction is one dot product.
    weights: Option<Vec<Vec<f64>>>,
}

impl Svc {
    /// Default parameters.
    pub fn params() -> SvcParams {
        SvcParams::default()
    }

    /// Default ν-SVC parameters.
    pub fn nu_params() -> NuSvcParams {
        NuSvcParams::default()
    }

    /// The classes, in the model's order.
    pub fn classes(&self) -> &[Label] {
        &self.labels
    }
    /// The resolved kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// Training-set indices of the support vectors (grouped by class, in the model's order).
    pub fn support_indices(&self) -> &[usize] {
        &self.support_indices
    }
    /// The support vectors, one row each.
    pub fn support_vectors(&self) -> &Matrix {
        &self.support
    }
    /// The class of each support vector.
    pub fn support_class(&self) -> &[usize] {
        &self.support_class
    }
    /// Support vectors per class.
    pub fn n_support(&self) -> Vec<usize> {
        let mut n = vec![0; self.labels.len()];
        for &c in &self.support_class {
            n[c] += 1;
        }
        n
    }
    /// The binary problems (one for two classes; `k(k−1)/2` one-vs-one or `k` one-vs-rest).
    pub fn problems(&self) -> &[BinaryModel] {
        &self.problems
    }
    /// Intercepts, one per problem, in [`DecisionFunction`]'s convention (scikit-learn's):
    /// `b = −ρ` of each problem, negated for two classes so that the decision value
    /// `w·x + b` is positive for `classes()[1]`.
    pub fn intercept(&self) -> Vec<f64> {
        let sign = self.binary_sign();
        self.problems.iter().map(|p| -sign * p.rho).collect()
    }
    /// The dual coefficients `α_s y_s` as scikit-learn's `dual_coef_`, one column per support
    /// vector (in [`Svc::support_vectors`] order) and the same sign convention as
    /// [`DecisionFunction`] and [`Svc::intercept`]:
    /// - two classes: one row, positive for `classes()[1]` (LIBSVM's own coefficients,
    ///   [`BinaryModel::coef`], are positive for the first class);
    /// - one-vs-one: `k − 1` rows in LIBSVM's layout, the coefficient of a support vector of
    ///   class `c` in the problem against class `o` sitting in row `o` when `o < c`, else
    ///   `o − 1` (so column `s` lists its `k − 1` problems in class order), positive for each
    ///   pair's first class;
    /// - one-vs-rest: one row per class's problem, positive for that class.
    ///
    /// Every problem's decision value is then `Σ_s dual_coef[row, s] K(sv_s, x) + intercept`
    /// over the support vectors of the problem's classes.
    pub fn dual_coef(&self) -> Result<DenseMatrix> {
        let k = self.labels.len();
        let n_sv = self.support_class.len();
        let rows = match (k, self.multiclass()) {
            (2, _) => 1,
            (_, Multiclass::OneVsOne) => k - 1,
            (_, Multiclass::OneVsRest) => k,
        };
        let mut out = DenseMatrix::try_zeros(
            rows,
            n_sv,
            "the dual coefficients",
            margin_core::memory::FEWER_SAMPLES,
        )?;
        let sign = self.binary_sign();
        let values = out.as_mut_slice();
        for (p, problem) in self.problems.iter().enumerate() {
            for &(s, c) in &problem.coef {
                let row = match problem.negative {
                    None => p,
                    Some(negative) => {
                        let class = self.support_class[s];
                        let other = if class == problem.positive {
                            negative
                        } else {
                            problem.positive
                        };
                        if other < class { other } else { other - 1 }
                    }
                };
                values[row * n_sv + s] = sign * c;
            }
        }
        Ok(out)
    }
    /// −1 for two classes, whose one problem's decision values (positive for the first class,
    /// LIBSVM's convention) are negated to scikit-learn's; 1 otherwise.
    fn binary_sign(&self) -> f64 {
        if self.labels.len() == 2 { -1.0 } else { 1.0 }
    }
    /// How the fit's SMO runs went: one per binary problem, and with probability estimates
    /// the cross-validation runs behind each problem's sigmoid, counted (LIBSVM warns
    /// "reaching max number of iterations" for each run that stopped at the limit).
    pub fn fit_report(&self) -> FitReport {
        let runs = self.problems.iter().map(BinaryModel::run).collect();
        let folds = self.problems.iter().map(|p| p.probability_folds).collect();
        FitReport::new(runs).with_folds(folds)
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// The multiclass strategy.
    pub fn multiclass(&self) -> Multiclass {
        match &self.params {
            SvcHyperparams::C(p) => p.setup.multiclass,
            SvcHyperparams::Nu(p) => p.setup.multiclass,
        }
    }
    /// Whether the model was trained as ν-SVC.
    pub fn is_nu(&self) -> bool {
        matches!(self.params, SvcHyperparams::Nu(_))
    }
    /// The hyperparameters the model was fitted with (see [`SvcHyperparams`] for a model read
    /// from a LIBSVM file).
    pub fn hyperparams(&self) -> &SvcHyperparams {
        &self.params
    }
    /// For a linear kernel, each problem's weight vector `w = Σ α_i y_i x_i`, one row per
    /// problem (one for two classes, one per pair one-vs-one, one per class one-vs-rest), in
    /// [`DecisionFunction`]'s convention as [`Svc::intercept`] (negated for two classes, as
    /// scikit-learn's `coef_`): `w·x + b` is the decision value. Computed on each call from
    /// the weights kept for predictions, or from the support vectors where the model keeps
    /// none (a sparse file with a huge feature index).
    ///
    /// [`Error::Unsupported`] naming the kernel for any other
    /// kernel (scikit-learn raises `AttributeError`).
    pub fn coef(&self) -> Result<DenseMatrix> {
        coef_matrix(
            &self.kernel,
            &self.support,
            self.n_features,
            self.weights.as_deref(),
            self.problems.iter().map(|p| p.coef.iter().copied()),
            self.binary_sign(),
        )
    }
    /// For a linear kernel, the geometric margin `1/‖w‖` of each problem (refused as
    /// [`Svc::coef`] is for other kernels).
    pub fn margin(&self) -> Result<Vec<f64>> {
        Ok(crate::decision::margins(&self.coef()?))
    }

    /// Assembles a model from its parts (LIBSVM model files use this). Support vectors are
    /// rows of `support`; `support_class[s]` is the class of row `s`.
    pub(crate) fn from_parts(
        kernel: KernelSpec,
        labels: Vec<Label>,
        support: Matrix,
        support_class: Vec<usize>,
        problems: Vec<BinaryModel>,
        params: SvcHyperparams,
    ) -> Result<Self> {
        let n_features = support.n_features();
        let support_indices = (0..support.n_samples()).collect();
        let mut m = Self {
            kernel,
            labels,
            n_features,
            support,
            support_indices,
            support_class,
            problems,
            params,
            weights: None,
        };
        m.weights = m.linear_weights(Width::Bounded)?;
        Ok(m)
    }

    /// The same model accepting records of `n_features` columns (wider only: extra features
    /// meet zeros in every support vector).
    pub(crate) fn with_n_features(mut self, n_features: usize) -> Result<Self> {
        self.support = self.support.with_n_features(n_features)?;
        self.n_features = n_features;
        self.weights = self.linear_weights(Width::Bounded)?;
        Ok(self)
    }

    /// Each problem's weight vector, for a linear kernel (see [`linear_weights`]).
    fn linear_weights(&self, width: Width) -> Result<Option<Vec<Vec<f64>>>> {
        linear_weights(
            &self.kernel,
            &self.support,
            self.n_features,
            self.problems.iter().map(|p| p.coef.iter().copied()),
            width,
        )
    }

    /// Decision values of every problem (LIBSVM's convention: positive means the problem's
    /// `positive` class), one row per sample, one column per problem.
    pub fn problem_decisions<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        validate::check_predict(self.n_features, records)?;
        let n = records.n_samples();
        let np = self.problems.len();
        let mut out = DenseMatrix::zeros(n, np);
        if let Some(ws) = &self.weights {
            for i in 0..n {
                let x = records.row(i);
                for (k, (w, p)) in ws.iter().zip(&self.problems).enumerate() {
                    out.row_mut(i)[k] = x.dot_dense(w) - p.rho;
                }
            }
            return Ok(out);
        }
        kernel_rows(&self.kernel, records, &self.support, |i, kx| {
            for (k, p) in self.problems.iter().enumerate() {
                let s: f64 = p.coef.iter().map(|&(sv, a)| a * kx[sv]).sum();
                out.row_mut(i)[k] = s - p.rho;
            }
        })?;
        Ok(out)
    }

    /// The class (an index into [`Svc::classes`]) that a row of problem decisions votes for.
    pub(crate) fn vote(&self, dec: &[f64]) -> usize {
        // Two classes make one pair problem whatever the strategy (see `problem_pairs`): its
        // sign decides, as a one-vs-one vote does.
        match (self.multiclass(), self.labels.len()) {
            (Multiclass::OneVsRest, k) if k > 2 => {
                (0..dec.len()).fold(0, |best, k| if dec[k] > dec[best] { k } else { best })
            }
            _ => {
                let mut votes = vec![0usize; self.labels.len()];
                for (p, &d) in self.problems.iter().zip(dec) {
                    let winner = if d > 0.0 {
                        p.positive
                    } else {
                        p.negative.unwrap_or(p.positive)
                    };
                    votes[winner] += 1;
                }
                (0..votes.len()).fold(0, |best, k| if votes[k] > votes[best] { k } else { best })
            }
        }
    }

    /// Decision values of every problem as LIBSVM's `svm_predict_values` computes them, to the
    /// last bit: each sample's kernel values with every support vector as LIBSVM's `k_function`
    /// computes them (RBF from squared differences, not from norms), each problem's sum over
    /// its support vectors in order, `− ρ`. What `svm-predict` derives its labels and
    /// probabilities from; [`Svc::problem_decisions`] is faster and agrees to rounding (with
    /// extreme feature scales, rounding can move many values across 0 or a printed digit).
    /// Rows are independent, so the result does not depend on the number of threads.
    pub(crate) fn libsvm_problem_decisions<R: Records + ?Sized>(
        &self,
        records: &R,
    ) -> Result<DenseMatrix> {
        use rayon::prelude::*;
        validate::check_predict(self.n_features, records)?;
        self.kernel.check(&self.support)?;
        let mut out = DenseMatrix::zeros(records.n_samples(), self.problems.len());
        let n_sv = self.support.n_samples();
        out.as_mut_slice()
            .par_chunks_mut(self.problems.len().max(1))
            .enumerate()
            // One buffer of kernel values per worker, refilled for each row.
            .for_each_init(
                || Vec::with_capacity(n_sv),
                |kx: &mut Vec<f64>, (i, row)| {
                    let x = records.row(i);
                    kx.clear();
                    kx.extend(
                        (0..n_sv).map(|s| libsvm_kernel(&self.kernel, x, self.support.row(s))),
                    );
                    for (d, p) in row.iter_mut().zip(&self.problems) {
                        let mut sum = 0.0;
                        for &(sv, a) in &p.coef {
                            sum += a * kx[sv];
                        }
                        *d = sum - p.rho;
                    }
                },
            );
        Ok(out)
    }

    /// Predicted class indices as LIBSVM's `svm_predict` computes them (the vote over
    /// LIBSVM's decision values, see `libsvm_problem_decisions`): what `svm-predict` prints.
    /// [`Svc::predict_classes`] is faster and differs only where a decision value is within
    /// rounding of 0.
    pub fn libsvm_predict_classes<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        let dec = self.libsvm_problem_decisions(records)?;
        Ok(dec.rows().map(|row| self.vote(row)).collect())
    }

    /// Class probabilities as LIBSVM's `svm_predict_probability` computes them, from LIBSVM's
    /// decision values (see [`Svc::libsvm_predict_classes`]); what `svm-predict -b 1` prints.
    pub fn libsvm_predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let sigmoids = self.sigmoids("libsvm_predict_proba")?;
        Ok(self.coupled(&self.libsvm_problem_decisions(records)?, &sigmoids))
    }

    /// Each problem's Platt sigmoid `(A, B)`, or, for a model fitted without them, the refusal
    /// of `operation`.
    fn sigmoids(&self, operation: &str) -> Result<Vec<(f64, f64)>> {
        self.problems
            .iter()
            .map(|p| p.probability)
            .collect::<Option<_>>()
            .ok_or_else(|| crate::probability::no_probability_model(operation))
    }

    /// Class probabilities from decision values (one row per sample, one column per problem):
    /// each problem's sigmoid, coupled across pairs for more than two classes.
    fn coupled(&self, dec: &DenseMatrix, sigmoids: &[(f64, f64)]) -> DenseMatrix {
        let k = self.labels.len();
        let mut out = DenseMatrix::zeros(dec.nrows(), k);
        let mut r = DenseMatrix::zeros(k, k);
        for (i, row) in dec.rows().enumerate() {
            for ((p, &(a, b)), &f) in self.problems.iter().zip(sigmoids).zip(row) {
                let (x, y) = (p.positive, p.negative.unwrap_or(p.positive));
                let pr = clip(sigmoid_predict(f, a, b));
                r.row_mut(x)[y] = pr;
                r.row_mut(y)[x] = 1.0 - pr;
            }
            out.row_mut(i).copy_from_slice(&couple(&r));
        }
        out
    }

    /// Predicted class indices (into [`Svc::classes`]).
    pub fn predict_classes<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<usize>> {
        let dec = self.problem_decisions(records)?;
        Ok(dec.rows().map(|row| self.vote(row)).collect())
    }
}

impl Predict for Svc {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        Ok(self
            .predict_classes(records)?
            .into_iter()
            .map(|k| self.labels[k].clone())
            .collect())
    }

    /// Ranks by the decision function where it has a column per class (two classes, or
    /// one-vs-rest), else by probabilities (one-vs-one columns are pairs of classes).
    fn class_scores<R: Records + ?Sized>(
        &self,
        records: &R,
        evidence: margin_core::Evidence,
    ) -> Result<margin_core::ClassScores> {
        let decision = || self.decision_function(records);
        let per_class = self.labels.len() == 2 || self.multiclass() == Multiclass::OneVsRest;
        margin_core::ClassScores::new(
            self.classes(),
            evidence,
            per_class.then_some(&decision as &dyn Fn() -> Result<DenseMatrix>),
            Some(&|| self.predict_proba(records)),
        )
    }
}

impl DecisionFunction for Svc {
    /// scikit-learn's convention: for two classes one column, positive for `classes()[1]`; for
    /// more, one column per problem (one-vs-one pairs in order, or one per class for
    /// one-vs-rest), positive for the pair's first class.
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let mut dec = self.problem_decisions(records)?;
        let sign = self.binary_sign();
        dec.as_mut_slice().iter_mut().for_each(|v| *v *= sign);
        Ok(dec)
    }
}

impl PredictProba for Svc {
    /// Class probabilities (columns in [`Svc::classes`] order) from each problem's Platt sigmoid,
    /// coupled across pairs for more than two classes. Needs a model fitted with
    /// `probability(true)`; any other is refused with [`Error::Unsupported`].
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let sigmoids = self.sigmoids("predict_proba")?;
        Ok(self.coupled(&self.problem_decisions(records)?, &sigmoids))
    }
}

impl ModelFile for Svc {
    const KIND: &'static str = "svc";
    // 2: each problem's `probability_folds`; 3: each problem's `equivalent_c`; 4: the
    // hyperparameters (in place of the ν-SVC flag); 5: the multiclass strategy only inside them; 6: the `solver`
    // setting in them.
    const SCHEMA: u32 = 6;

    /// Distinct labels; finite support vectors of the model's width with a class each; a valid
    /// kernel; the binary problems `fit` sets up for the strategy and class count, each with
    /// support-vector indices in range and finite coefficients, offset, sigmoid and equivalent
    /// C; the linear kernel's weights.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let k = self.labels.len();
        model_check::class_labels("labels", &self.labels)?;
        let n_sv = self.support_indices.len();
        model_check::records("support", &self.support, n_sv, self.n_features)?;
        model_check::within("kernel", self.kernel.check_decoded(&self.support))?;
        model_check::len("support_class", self.support_class.len(), n_sv)?;
        model_check::all_below("support_class", self.support_class.iter().copied(), k)?;
        let (n_problems, pairs) = problem_pairs(self.multiclass(), k);
        model_check::len("problems", self.problems.len(), n_problems)?;
        for (i, (p, pair)) in self.problems.iter().zip(pairs).enumerate() {
            if (p.positive, p.negative) != pair {
                return Err(model_check::refuse(
                    "problems",
                    format!(
                        "pair {i} is {:?} where {:?} of {k} classes needs {pair:?}",
                        (p.positive, p.negative),
                        self.multiclass()
                    ),
                ));
            }
            model_check::all_below("problem coef", p.coef.iter().map(|&(s, _)| s), n_sv)?;
            if let Some((s, c)) = p.coef.iter().find(|(_, c)| !c.is_finite()) {
                return Err(model_check::refuse(
                    "problem coef",
                    format!("holds {c} for support vector {s} in problem {i}"),
                ));
            }
            let (a, b) = p.probability.unwrap_or_default();
            let c = p.equivalent_c.unwrap_or(1.0);
            model_check::finite("rho, probability and equivalent_c", &[p.rho, a, b, c])?;
        }
        check_linear_weights(
            &self.kernel,
            self.weights.as_deref(),
            self.problems.len(),
            self.n_features,
        )
    }
}

/// The binary problems of a classifier over `k` classes, `(positive, negative)` in the order
/// `fit` solves them (one pair for two classes, `a < b` pairs one-vs-one, one per class
/// one-vs-rest), after their count. Lazy: a decoded `k` is only trusted once the count matches.
fn problem_pairs(
    multiclass: Multiclass,
    k: usize,
) -> (usize, impl Iterator<Item = (usize, Option<usize>)>) {
    let (count, one_vs_rest) = match (multiclass, k) {
        (_, 2) => (1, false),
        (Multiclass::OneVsOne, _) => (k.saturating_mul(k.saturating_sub(1)) / 2, false),
        (Multiclass::OneVsRest, _) => (k, true),
    };
    let pairs = (0..k).flat_map(move |a| {
        let last_partner = if one_vs_rest { a } else { k - 1 };
        (a + 1..=last_partner)
            .map(move |b| (a, Some(b)))
            .chain(one_vs_rest.then_some((a, None)))
    });
    (count, pairs)
}

/// The class order for `classes` as `order` asks: `order[k]` = dataset class index of model
/// class `k`.
pub(crate) fn class_order(classes: &Classes, order: LabelOrder) -> Vec<usize> {
    match order {
        LabelOrder::Sorted => (0..classes.n_classes()).collect(),
        LabelOrder::FirstSeen => {
            let mut seen: Vec<usize> = Vec::new();
            for &c in classes.indices() {
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
            let is = |k: usize, v: f64| matches!(classes.labels()[k], Label::Number(x) if x == v);
            if seen.len() == 2 && is(seen[0], -1.0) && is(seen[1], 1.0) {
                seen.swap(0, 1);
            }
            seen
        }
    }
}

crate::libsvm_run::observed_fits!(SvcParams => Svc, |p| p.setup.seed);

impl SvcParams {
    /// Fits as [`Fit::fit`](margin_core::Fit::fit) does, drawing the probability folds from `run`'s `rand()` sequence
    /// (continuing it, as LIBSVM's tools do across the trainings of one run; the params'
    /// `seed` is not used) and reporting the solver runs to its observer.
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<Svc> {
        Params::check(self)?;
        let spec = ClassifierSpec {
            settings: &self.settings,
            multiclass: self.setup.multiclass,
            label_order: self.setup.label_order,
            formulation: Formulation::C {
                c: self.c,
                class_weight: &self.class_weight,
            },
            probability: self.setup.probability,
            params: SvcHyperparams::C(self.clone()),
        };
        fit_classifier(&spec, data, run)
    }
}

crate::libsvm_run::observed_fits!(NuSvcParams => Svc, |p| p.setup.seed);

impl NuSvcParams {
    /// Fits as [`Fit::fit`](margin_core::Fit::fit) does, drawing the probability folds from `run` and reporting to its
    /// observer (see [`SvcParams::fit_in`]).
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<Svc> {
        Params::check(self)?;
        if data.sample_weights.is_some() {
            return Err(Error::invalid_parameter(
                "sample_weights",
                "given",
                "none: ν-SVC does not take sample weights (use Svc)",
            ));
        }
        let spec = ClassifierSpec {
            settings: &self.settings,
            multiclass: self.setup.multiclass,
            label_order: self.setup.label_order,
            formulation: Formulation::Nu { nu: self.nu },
            probability: self.setup.probability,
            params: SvcHyperparams::Nu(self.clone()),
        };
        fit_classifier(&spec, data, run)
    }
}

/// Which dual a classifier's binary problems solve.
enum Formulation<'a> {
    /// C-SVC: `0 ≤ α_i ≤ C·w_class·w_sample`, `p = −1`.
    C {
        c: f64,
        class_weight: &'a ClassWeight,
    },
    /// ν-SVC: LIBSVM's scaled form, solved with bounds 1 and rescaled by `1/r`.
    Nu { nu: f64 },
}

struct ClassifierSpec<'a> {
    settings: &'a Settings,
    multiclass: Multiclass,
    label_order: LabelOrder,
    formulation: Formulation<'a>,
    probability: bool,
    /// What the model keeps.
    params: SvcHyperparams,
}

/// Platt's sigmoid for one binary problem, fitted on 5-fold cross-validated decision values
/// as LIBSVM's `svm_binary_svc_probability` fits it: the problem shuffled with `run`'s `rand()`,
/// each fold trained as `svm_train` would (its `+1` samples first) and its held-out decision
/// values computed as `svm_predict_values` does.
fn platt(
    spec: &ClassifierSpec<'_>,
    kernel: &KernelSpec,
    records: &Matrix,
    idx: &[usize],
    ys: &[i8],
    bounds: &[f64],
    run: &mut LibsvmRun<'_>,
) -> Result<((f64, f64), Convergence)> {
    const FOLDS: usize = 5;
    let l = idx.len();
    let perm = run.permutation(l);
    let mut dec = vec![0.0; l];
    let mut folds = Convergence::default();
    for f in 0..FOLDS {
        let (begin, end) = (f * l / FOLDS, (f + 1) * l / FOLDS);
        let test = &perm[begin..end];
        let (pos, neg): (Vec<usize>, Vec<usize>) = perm[..begin]
            .iter()
            .chain(&perm[end..])
            .partition(|&&t| ys[t] == 1);
        // A fold whose training part lacks a class predicts that class's sign, as LIBSVM does.
        let constant = match (pos.len(), neg.len()) {
            (0, 0) => Some(0.0),
            (_, 0) => Some(1.0),
            (0, _) => Some(-1.0),
            _ => None,
        };
        if let Some(v) = constant {
            test.iter().for_each(|&t| dec[t] = v);
            continue;
        }
        let train: Vec<usize> = pos.into_iter().chain(neg).collect();
        let tr_idx: Vec<usize> = train.iter().map(|&t| idx[t]).collect();
        let tr_y: Vec<i8> = train.iter().map(|&t| ys[t]).collect();
        let tr_b: Vec<f64> = train.iter().map(|&t| bounds[t]).collect();
        let (sol, upper) = solve_binary(spec, kernel, records, &tr_idx, &tr_y, tr_b.clone(), run)?;
        let report = binary_report(&spec.formulation, &sol, &tr_b, &upper);
        run.observer().solved(&report);
        run.observer().classifier_trained(report.n_sv);
        folds = folds.and(sol.run().convergence());
        let sv: Vec<(usize, f64)> = (0..train.len())
            .filter(|&t| sol.alpha[t] != 0.0)
            .map(|t| (tr_idx[t], sol.alpha[t] * f64::from(tr_y[t])))
            .collect();
        for &t in test {
            let x = records.row(idx[t]);
            let mut sum = 0.0;
            for &(i, coef) in &sv {
                sum += coef * libsvm_kernel(kernel, x, records.row(i));
            }
            dec[t] = sum - sol.rho;
        }
    }
    let positive: Vec<bool> = ys.iter().map(|&y| y == 1).collect();
    let (sigmoid, end) = sigmoid_fit(&dec, &positive);
    run.observer().sigmoid_fitted(end);
    Ok((sigmoid, folds))
}

/// What svm-train prints of a binary problem's solution: `nu = Σα/(C·l)` for C-SVC when every
/// bound is one C (LIBSVM: `Cp == Cn`), `C = 1/r` (the bound `upper`) for ν-SVC; bounded support
/// vectors are those at `upper`.
fn binary_report(
    formulation: &Formulation<'_>,
    sol: &smo::Solution,
    bounds: &[f64],
    upper: &[f64],
) -> RunReport {
    let line = match formulation {
        Formulation::C { .. } => {
            let c = bounds.first().copied().unwrap_or(0.0);
            bounds.iter().all(|&b| b == c).then(|| {
                let sum: f64 = sol.alpha.iter().sum();
                SummaryLine::Nu(sum / (c * bounds.len() as f64))
            })
        }
        // The bound of the rescaled coefficients, 1/r (`solve_binary`).
        Formulation::Nu { .. } => upper.first().copied().map(SummaryLine::C),
    };
    RunReport {
        iterations: sol.iterations,
        line,
        objective: sol.objective,
        rho: sol.rho,
        n_sv: sol.alpha.iter().filter(|&&a| a != 0.0).count(),
        // LIBSVM's count, |α| ≥ the bound: after a ν-SVC rescaling by a negative r the bound
        // 1/r is negative and every support vector counts.
        n_bsv: sol
            .alpha
            .iter()
            .zip(upper)
            .filter(|&(&a, &u)| a != 0.0 && a.abs() >= u)
            .count(),
    }
}

/// Solves one binary problem; returns the solution (α already in C-SVC scale) and the upper
/// bound each α is compared with to count bounded support vectors.
fn solve_binary<K: Kernel + ?Sized, R: Records + ?Sized>(
    spec: &ClassifierSpec<'_>,
    kernel: &K,
    records: &R,
    idx: &[usize],
    ys: &[i8],
    bounds: Vec<f64>,
    run: &mut LibsvmRun<'_>,
) -> Result<(smo::Solution, Vec<f64>)> {
    let l = ys.len();
    match spec.formulation {
        Formulation::C { .. } => {
            let problem = Problem {
                p: vec![-1.0; l],
                y: ys.to_vec(),
                c: bounds.clone(),
                alpha: vec![0.0; l],
            };
            let sol = solve_signed(
                spec.settings,
                kernel,
                records,
                idx,
                problem,
                false,
                run.marks(),
            )?;
            Ok((sol, bounds))
        }
        Formulation::Nu { nu } => {
            // LIBSVM's feasible start: ν·l/2 of weight on each side, at most 1 per sample.
            let (mut left_pos, mut left_neg) = (nu * l as f64 / 2.0, nu * l as f64 / 2.0);
            let alpha = ys
                .iter()
                .map(|&y| {
                    let left = if y == 1 { &mut left_pos } else { &mut left_neg };
                    let a = left.min(1.0);
                    *left -= a;
                    a
                })
                .collect();
            let problem = Problem {
                p: vec![0.0; l],
                y: ys.to_vec(),
                c: vec![1.0; l],
                alpha,
            };
            let mut sol = solve_signed(
                spec.settings,
                kernel,
                records,
                idx,
                problem,
                true,
                run.marks(),
            )?;
            let r = sol.r;
            // LIBSVM divides by r whatever its sign (a negative r, possible with a kernel that
            // is not positive semi-definite, gives a negative C and coefficients of the
            // opposite signs), and whatever its size: see `refuse_degenerate`.
            // LIBSVM's order of operations, `α_i · (y_i / r)`: multiplied by the rounded
            // `1/r` (`y_i / r` is `±(1/r)` exactly), not divided by r.
            let c = 1.0 / r;
            sol.alpha.iter_mut().for_each(|a| *a *= c);
            sol.rho /= r;
            sol.objective /= r * r;
            Ok((sol, vec![c; l]))
        }
    }
}

/// LIBSVM's `svm_check_parameter` for ν-SVC over classes of `counts` samples: each binary
/// problem (see `problem_pairs`) with `n₊` and `n₋` samples can carry `ν·l/2` of weight on
/// each side only if that is at most the smaller count.
fn check_nu_pairs(nu: f64, counts: &[usize], multiclass: Multiclass) -> Result<()> {
    let total: usize = counts.iter().sum();
    for (a, b) in problem_pairs(multiclass, counts.len()).1 {
        let n_neg = b.map_or(total - counts[a], |b| counts[b]);
        check_nu_feasible(nu, counts[a], n_neg)?;
    }
    Ok(())
}

/// [`check_nu_pairs`] for one binary problem.
fn check_nu_feasible(nu: f64, n_pos: usize, n_neg: usize) -> Result<()> {
    let l = (n_pos + n_neg) as f64;
    if nu * l / 2.0 > n_pos.min(n_neg) as f64 {
        return Err(Error::invalid_parameter(
            "nu",
            nu,
            format!(
                "at most 2·min(n₊, n₋)/(n₊ + n₋) = {} for a pair of classes with {n_pos} and {n_neg} samples (ν is infeasible)",
                2.0 * n_pos.min(n_neg) as f64 / l
            ),
        ));
    }
    Ok(())
}

/// A ν-SVC problem whose solver ended with r = 0 or an infinite r has no C-SVC equivalent:
/// LIBSVM writes it anyway (`C = inf`, `rho = nan`); margin refuses such a model. A training
/// inside `-b 1`'s or `-v`'s folds goes on as LIBSVM's does, since only its decision values
/// (then NaN) are used.
fn refuse_degenerate(sol: &smo::Solution) -> Result<()> {
    let r = sol.r;
    if r.is_finite() && r != 0.0 {
        return Ok(());
    }
    Err(Error::Numerical(format!(
        "ν-SVC margin scale r = {r}: the problem is degenerate (LIBSVM would go on and write a model with C = inf and rho = nan); try a larger ν or another kernel"
    )))
}

fn fit_classifier(
    spec: &ClassifierSpec<'_>,
    data: &Dataset,
    run: &mut LibsvmRun<'_>,
) -> Result<Svc> {
    crate::settings::check_training(data)?;
    let classes = data.targets.to_classes()?;
    validate::check_min_classes(&classes, 2)?;
    let kernel = spec.settings.kernel.resolve(&data.records)?;
    kernel.check(&&data.records)?;

    // Model class k is dataset class order[k]; only classes present in the data count.
    let order: Vec<usize> = class_order(&classes, spec.label_order)
        .into_iter()
        .filter(|&c| classes.counts()[c] > 0)
        .collect();
    let mut model_class = vec![usize::MAX; classes.n_classes()];
    for (k, &c) in order.iter().enumerate() {
        model_class[c] = k;
    }
    let y: Vec<usize> = classes.indices().iter().map(|&c| model_class[c]).collect();
    let labels: Vec<Label> = order.iter().map(|&c| classes.labels()[c].clone()).collect();
    let k = labels.len();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &c) in y.iter().enumerate() {
        members[c].push(i);
    }
    let counts: Vec<usize> = members.iter().map(Vec::len).collect();
    let bound: Vec<f64> = match spec.formulation {
        Formulation::C { c, class_weight } => {
            let cw = class_weight.per_class(&labels, &counts)?;
            (0..y.len())
                .map(|i| c * cw[y[i]] * data.sample_weights.as_ref().map_or(1.0, |w| w[i]))
                .collect()
        }
        Formulation::Nu { .. } => vec![1.0; y.len()],
    };

    let (n_problems, pairs) = problem_pairs(spec.multiclass, k);
    if let Formulation::Nu { nu } = spec.formulation
        && !run.fold_training()
    {
        // Every pair before any training, as LIBSVM checks; the trainings inside `-b 1`'s
        // folds are not checked (LIBSVM trains them whatever ν).
        check_nu_pairs(nu, &counts, spec.multiclass)?;
    }
    let mut problems: Vec<BinaryModel> = Vec::with_capacity(n_problems);
    for (a, b) in pairs {
        // LIBSVM's layout: the positive class's samples first, then the negative's; samples
        // with a zero bound (zero weight) take no part.
        let idx: Vec<usize> = match b {
            Some(b) => members[a]
                .iter()
                .chain(&members[b])
                .copied()
                .filter(|&i| bound[i] > 0.0)
                .collect(),
            None => (0..y.len()).filter(|&i| bound[i] > 0.0).collect(),
        };
        let ys: Vec<i8> = idx
            .iter()
            .map(|&i| if y[i] == a { 1 } else { -1 })
            .collect();
        if !ys.contains(&1) || !ys.contains(&-1) {
            return Err(Error::TooFewClasses {
                found: 1,
                required: 2,
            });
        }
        let pair_bounds: Vec<f64> = idx.iter().map(|&i| bound[i]).collect();
        // LIBSVM fits the probability model of a pair before the pair itself (what svm-train
        // prints follows that order).
        let (probability, probability_folds) = if spec.probability {
            let (sigmoid, folds) =
                platt(spec, &kernel, &data.records, &idx, &ys, &pair_bounds, run)?;
            (Some(sigmoid), folds)
        } else {
            (None, Convergence::default())
        };
        let (sol, upper) = solve_binary(
            spec,
            &kernel,
            &data.records,
            &idx,
            &ys,
            pair_bounds.clone(),
            run,
        )?;
        if matches!(spec.formulation, Formulation::Nu { .. }) && !run.fold_training() {
            refuse_degenerate(&sol)?;
        }
        let report = binary_report(&spec.formulation, &sol, &pair_bounds, &upper);
        run.observer().solved(&report);
        // Coefficients keyed by training index until the support set is known. As LIBSVM,
        // a support vector is any non-zero α.
        let coef = idx
            .iter()
            .zip(&sol.alpha)
            .zip(&ys)
            .filter(|((_, al), _)| **al != 0.0)
            .map(|((&i, &al), &yy)| (i, al * f64::from(yy)))
            .collect();
        let equivalent_c = match spec.formulation {
            Formulation::Nu { .. } => upper.first().copied(),
            Formulation::C { .. } => None,
        };
        problems.push(BinaryModel {
            positive: a,
            negative: b,
            coef,
            rho: sol.rho,
            objective: sol.objective,
            iterations: sol.iterations,
            stop: sol.stop,
            n_bounded: report.n_bsv,
            probability,
            probability_folds,
            equivalent_c,
        });
    }

    // Support vectors: samples with α > 0 in any problem, grouped by class in model order.
    let mut is_sv = vec![false; y.len()];
    for p in &problems {
        for &(i, _) in &p.coef {
            is_sv[i] = true;
        }
    }
    let support_indices: Vec<usize> = members
        .iter()
        .flatten()
        .copied()
        .filter(|&i| is_sv[i])
        .collect();
    let mut sv_id = vec![usize::MAX; y.len()];
    for (s, &i) in support_indices.iter().enumerate() {
        sv_id[i] = s;
    }
    for p in &mut problems {
        for entry in &mut p.coef {
            entry.0 = sv_id[entry.0];
        }
        p.coef.sort_by_key(|&(sv, _)| sv);
    }
    run.observer().classifier_trained(support_indices.len());
    let support = data.records.select_rows(&support_indices)?;
    let support_class = support_indices.iter().map(|&i| y[i]).collect();
    let mut model = Svc {
        kernel,
        labels,
        n_features: data.n_features(),
        support,
        support_indices,
        support_class,
        problems,
        params: spec.params.clone(),
        weights: None,
    };
    model.weights = model.linear_weights(Width::Bounded)?;
    Ok(model)
}
