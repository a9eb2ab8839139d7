//! The ν one-class SVM (LIBSVM's `-s 2`, scikit-learn's `OneClassSVM`).

use margin_core::fit::FitReport;
use margin_core::params::Params;
use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Error, Label, Predict, PredictProba, Records, Result,
};
use margin_io::ModelFile;
use margin_kernels::KernelSpec;
use margin_optim::smo::Problem;
use serde::{Deserialize, Serialize};

use crate::expansion::Expansion;
use crate::libsvm_run::{LibsvmRun, RunReport};
use crate::probability::{NR_MARKS, one_class_marks, one_class_probability};
use crate::q::solve_signed;
use crate::settings::{Settings, nu_in_range};

/// Parameters of [`OneClassSvm`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct OneClassSvmParams {
    #[param(flatten)]
    settings: Settings,
    /// ν in (0, 1]: an upper bound on the fraction of training samples outside the boundary
    /// and a lower bound on the fraction of support vectors (default 0.5).
    #[param(
        help = "bound on the fraction of training samples outside the boundary (above) and of support vectors (below)",
        default = 0.5,
        valid = ("a number in (0, 1]", nu_in_range)
    )]
    nu: f64,
    /// Also fit LIBSVM's probability model (`-b 1`, LIBSVM ≥ 3.3): bins of the training
    /// decision values ([`OneClassSvm::density_marks`]) that turn a decision value into the
    /// probability of being normal ([`PredictProba`]). Deterministic; no extra training.
    #[param(help = "fit LIBSVM's density bins of the decision values (-b 1; no extra training)")]
    probability: bool,
}

impl OneClassSvmParams {
    /// What a LIBSVM model file's header implies, as for [`crate::SvcHyperparams`]: the kernel
    /// and whether the file has a probability model (`prob_density_marks`); ν and the solver
    /// settings, which the file does not record, at their defaults.
    pub(crate) fn from_libsvm(kernel: &KernelSpec, probability: bool) -> Self {
        Self {
            settings: Settings::default().with_resolved(kernel),
            probability,
            ..Self::default()
        }
    }
}

/// A fitted one-class SVM: `f(x) = Σ_s α_s K(sv_s, x) − ρ`, inlier (`+1`) where `f(x) > 0`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneClassSvm {
    pub(crate) expansion: Expansion,
    /// LIBSVM's `prob_density_marks`, when fitted with `probability(true)` and the training
    /// decision values allowed it.
    pub(crate) density_marks: Option<[f64; NR_MARKS]>,
    /// The hyperparameters the model was fitted with.
    pub(crate) params: OneClassSvmParams,
}

impl OneClassSvm {
    /// The hyperparameters the model was fitted with (see [`OneClassSvmParams`]).
    pub fn hyperparams(&self) -> &OneClassSvmParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.expansion.n_features
    }
    /// Default parameters.
    pub fn params() -> OneClassSvmParams {
        OneClassSvmParams::default()
    }
    /// The resolved kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.expansion.kernel
    }
    /// Training-set indices of the support vectors.
    pub fn support_indices(&self) -> &[usize] {
        &self.expansion.support_indices
    }
    /// Dual coefficients `α_s`.
    pub fn dual_coef(&self) -> &[f64] {
        &self.expansion.coef
    }
    /// The offset ρ.
    pub fn rho(&self) -> f64 {
        self.expansion.rho
    }
    /// The intercept `b = −ρ`, one entry (scikit-learn's `intercept_`): `w·x + b` is the
    /// decision value for a linear kernel.
    pub fn intercept(&self) -> Vec<f64> {
        vec![-self.expansion.rho]
    }
    /// For a linear kernel, `w = Σ_s α_s sv_s` as one row (scikit-learn's `coef_`).
    /// [`Error::Unsupported`] naming the kernel for any other
    /// kernel.
    pub fn coef(&self) -> Result<DenseMatrix> {
        self.expansion.coef()
    }
    /// Dual objective at the solution.
    pub fn objective(&self) -> f64 {
        self.expansion.objective
    }
    /// How the fit's one SMO run went (the probability model needs no further training).
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![self.expansion.run()])
    }
    /// The probability model (LIBSVM's `prob_density_marks`): ten increasing decision values.
    /// The training decision values are sorted; the negative ones are split into five bins of
    /// equal counts and so are the non-negative ones; each mark is the midpoint between two
    /// consecutive bin edges (Que & Lin's binning). `None` without `probability(true)`, and
    /// also when fewer than 5 training decision values lie on one side of 0 (LIBSVM then warns
    /// "too few to do a probability estimation" and saves no marks).
    pub fn density_marks(&self) -> Option<&[f64; NR_MARKS]> {
        self.density_marks.as_ref()
    }
}

// Targets are ignored: the model describes the records alone. It draws nothing at random:
// glibc's unseeded sequence (seed 1) is as good as any.
crate::libsvm_run::observed_fits!(OneClassSvmParams => OneClassSvm, |_p| 1);

impl OneClassSvmParams {
    /// Fits as [`Fit::fit`](margin_core::Fit::fit) does, reporting the solver run to `run`'s observer (the one-class
    /// SVM draws nothing at random).
    pub fn fit_in(&self, data: &Dataset, run: &mut LibsvmRun<'_>) -> Result<OneClassSvm> {
        Params::check(self)?;
        crate::settings::check_training(data)?;
        let kernel = self.settings.kernel.resolve(&data.records)?;
        Expansion::check_kernel(&kernel, data)?;
        let l = data.n_samples();
        // LIBSVM's feasible start: the first ⌊νl⌋ variables at 1, the next at the remainder.
        let total = self.nu * l as f64;
        let whole = total as usize;
        let alpha: Vec<f64> = (0..l)
            .map(|i| match i.cmp(&whole) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => total - whole as f64,
                std::cmp::Ordering::Greater => 0.0,
            })
            .collect();
        let problem = Problem {
            p: vec![0.0; l],
            y: vec![1; l],
            c: vec![1.0; l],
            alpha,
        };
        let all: Vec<usize> = (0..l).collect();
        let sol = solve_signed(
            &self.settings,
            &kernel,
            &data.records,
            &all,
            problem,
            false,
            run.marks(),
        )?;
        run.observer().solved(&RunReport {
            iterations: sol.iterations,
            line: None,
            objective: sol.objective,
            rho: sol.rho,
            n_sv: sol.alpha.iter().filter(|&&a| a > 0.0).count(),
            n_bsv: sol.alpha.iter().filter(|&&a| a >= 1.0).count(),
        });
        let mut model = OneClassSvm {
            expansion: Expansion::new(kernel, data, &sol.alpha, &sol)?,
            density_marks: None,
            params: self.clone(),
        };
        if self.probability {
            model.density_marks = one_class_marks(model.expansion.libsvm_decision(&data.records)?);
        }
        Ok(model)
    }
}

impl Predict for OneClassSvm {
    type Output = Vec<Label>;

    /// `+1` for inliers (`f(x) > 0`), `−1` for outliers.
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        Ok(self
            .expansion
            .decision(records)?
            .into_iter()
            .map(|f| Label::Number(if f > 0.0 { 1.0 } else { -1.0 }))
            .collect())
    }
}

impl DecisionFunction for OneClassSvm {
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let f = self.expansion.decision(records)?;
        let n = f.len();
        DenseMatrix::from_row_major(f, n, 1)
    }
}

impl PredictProba for OneClassSvm {
    /// Two columns in the order of LIBSVM's `svm-predict -b 1` header `label normal outlier`:
    /// the probability that the sample is normal (label `+1`), from the bin of its decision
    /// value among [`OneClassSvm::density_marks`] (0.1, 0.2, … 0.9 inside, 0.001 below every
    /// mark, 0.999 above), and one minus it (an outlier, label `−1`). Decision values are
    /// computed as LIBSVM computes them, so samples near a mark fall in LIBSVM's bin. Needs a
    /// model fitted with `probability(true)` whose marks could be fitted; any other is refused
    /// with [`Error::Unsupported`].
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let marks = self.density_marks.as_ref().ok_or_else(|| {
            Error::unsupported(
                "predict_proba",
                "the model has no density marks: it was fitted without probability estimates, or with fewer than 5 training decision values on one side of 0, from which no marks are fitted; refit with probability(true) (LIBSVM: svm-train -s 2 -b 1) on data with more samples on each side",
            )
        })?;
        let dec = self.expansion.libsvm_decision(records)?;
        let n = dec.len();
        let probs = dec
            .iter()
            .flat_map(|&f| {
                let normal = one_class_probability(marks, f);
                [normal, 1.0 - normal]
            })
            .collect();
        DenseMatrix::from_row_major(probs, n, 2)
    }
}

impl ModelFile for OneClassSvm {
    const KIND: &'static str = "one-class-svm";
    // 2: the probability model (`density_marks`).
    // 3: the hyperparameters the model was fitted with; 4: the `solver` setting in them.
    const SCHEMA: u32 = 4;

    fn check_consistent(&self) -> Result<()> {
        margin_core::model_check::within("params", self.params.check())?;
        self.expansion.check_consistent()?;
        // The probability bins are found by comparing with the marks in order.
        if let Some(marks) = &self.density_marks {
            margin_core::model_check::finite("density_marks", marks)?;
            if marks.windows(2).any(|w| w[0] > w[1]) {
                return Err(margin_core::model_check::refuse(
                    "density_marks",
                    "are not in increasing order",
                ));
            }
        }
        Ok(())
    }
}
