//! The L2-loss linear SVM over rows held in parts (the partitions of a table, other
//! machines), as Spark fits its linear models: a first pass gives the classes and their
//! counts, then each binary problem (one for two classes, one per class against the rest
//! otherwise) is solved by L-BFGS on the primal, every step asking the parts for their
//! squared-hinge loss sums at the current weights ([`PartedRisk`]). The primal is strongly
//! convex, so this reaches dual coordinate descent's optimum, to the solvers' tolerances.

use margin_core::fit::{Observer, solve_each};
use margin_core::params::{ParamType, Params};
use margin_core::{
    Dataset, Error, Label, LinearClassifierCore, PartClasses, Records, Result, memory,
};
use margin_optim::lbfgs::{LbfgsOptions, lbfgs};
use margin_optim::loss::Loss;
use margin_optim::risk::{LinearRisk, LossSums, PartedRisk, check_part};
use serde::{Deserialize, Serialize};

use super::{LinearSolverKind, LinearSvc, LinearSvcParams, Regularization, SvmLoss};

/// What each part needs to sum its rows' loss, from a first pass over the labels: the
/// classes, their weights, the cost, the rows' count and width, and LIBLINEAR's bias.
/// Serializable, to travel to the parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearSvcParts {
    classes: PartClasses,
    c: f64,
    n_features: usize,
    bias: Option<f64>,
}

impl LinearSvcParts {
    /// The classes, sorted as a fitted model's `classes()`.
    pub fn labels(&self) -> &[Label] {
        self.classes.labels()
    }

    /// The binary problems: 1 for two classes (the second class positive), else one per
    /// class against the rest.
    pub fn n_problems(&self) -> usize {
        let k = self.labels().len();
        if k == 2 { 1 } else { k }
    }

    /// The weights each problem's solver moves: the features', then the bias feature's when
    /// an intercept is fitted.
    pub fn n_weights(&self) -> usize {
        self.n_features + usize::from(self.bias.is_some())
    }

    /// The positive class of problem `problem`.
    fn positive(&self, problem: usize) -> usize {
        if self.labels().len() == 2 { 1 } else { problem }
    }

    /// One part's loss sums for problem `problem` at weights `w`: `Σᵢ cᵢ max(0, 1 − yᵢ f(xᵢ))²`
    /// over its rows (`cᵢ` the class weight), with the gradient written into `grad`
    /// (`n_weights` values). Summed over every part, they give the whole problem's.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the part's width or `w` is not the fit's;
    /// [`Error::InvalidParameter`] for a problem out of range or a label the first pass did
    /// not see.
    pub fn loss_sums(
        &self,
        problem: usize,
        part: &Dataset,
        w: &[f64],
        grad: &mut [f64],
    ) -> Result<f64> {
        let x = &part.records;
        if problem >= self.n_problems() {
            return Err(Error::invalid_parameter(
                "problem",
                problem,
                format!("a binary problem below {}", self.n_problems()),
            ));
        }
        check_part(x.n_features(), self.n_features, w, grad, self.n_weights())?;
        if x.n_samples() == 0 {
            grad.fill(0.0);
            return Ok(0.0);
        }
        let (y, weights) = self.classes.of(&part.targets)?;
        let positive = self.positive(problem);
        let signs: Vec<f64> = y
            .iter()
            .map(|&k| if k == positive { 1.0 } else { -1.0 })
            .collect();
        // The bias feature `B` adds `B·w_B` to every decision value: the risk's intercept is
        // `B·w_B`, and its gradient is `B` times the intercept's.
        let mut scaled = w.to_vec();
        if let Some(b) = self.bias {
            scaled[self.n_features] *= b;
        }
        let risk = LinearRisk::new(
            x,
            &signs,
            weights.as_deref(),
            Loss::SquaredHinge,
            0.0,
            self.bias.is_some(),
        )?;
        let loss = risk.loss_sums(&scaled, grad);
        if let Some(b) = self.bias {
            grad[self.n_features] *= b;
        }
        Ok(loss)
    }
}

impl LinearSvcParams {
    /// What the parts need, from the first pass: each label with its number of rows (in any
    /// order), and the features' count.
    ///
    /// # Errors
    /// The parameters' own refusals; fewer than two classes or a label listed twice; the
    /// Pegasos solver or the hinge loss (the parts give the gradient of a differentiable
    /// loss, which L-BFGS takes: the squared hinge).
    pub fn parts(&self, counts: &[(Label, usize)], n_features: usize) -> Result<LinearSvcParts> {
        Params::check(self)?;
        if self.solver != LinearSolverKind::Dcd {
            return Err(Error::invalid_parameter(
                "solver",
                self.solver.to_value(),
                "dcd, for rows held in parts (solved there by L-BFGS on the primal)",
            ));
        }
        if self.effective_loss() != SvmLoss::SquaredHinge {
            return Err(Error::invalid_parameter(
                "loss",
                "hinge",
                "squared_hinge, for rows held in parts (the hinge has no gradient at the margin)",
            ));
        }
        let classes = PartClasses::new(counts, &self.class_weight)?;
        let n = classes.n_samples();
        let c = match self.regularization() {
            Regularization::C(c) => c,
            Regularization::Lambda(l) => 1.0 / (n as f64 * l),
        };
        Ok(LinearSvcParts {
            classes,
            c,
            n_features,
            bias: self.fit_intercept.then_some(self.intercept_scaling),
        })
    }

    /// Fits each binary problem by L-BFGS on the primal `½‖w‖² + C Σᵢ cᵢ max(0, 1 − yᵢ f(xᵢ))²`
    /// (scaled by `1/(nC)`, stopping when its largest gradient component is at most `tol`,
    /// or after `max_iter` iterations), from loss sums gathered over the parts:
    /// `sums(problem, w, grad)` returns [`LinearSvcParts::loss_sums`] added over every part.
    /// Without an observer the problems are solved in parallel, as in memory. The model is the in-memory fit's to the solvers' tolerances; each run's objective is
    /// the primal's.
    ///
    /// # Errors
    /// The first error `sums` returned; the solver's.
    pub fn fit_parts(
        &self,
        parts: &LinearSvcParts,
        sums: impl Fn(usize, &[f64], &mut [f64]) -> Result<f64> + Sync,
        observer: Option<&mut dyn Observer>,
    ) -> Result<LinearSvc> {
        let (n, d, c) = (parts.classes.n_samples(), parts.n_features, parts.c);
        let options = LbfgsOptions {
            max_iter: self.max_iter,
            grad_tol: self.tol,
            ..LbfgsOptions::default()
        };
        let problems: Vec<usize> = (0..parts.n_problems()).collect();
        let solve = |&problem: &usize, observer: &mut dyn Observer| {
            let risk = PartedRisk::new(
                |w: &[f64], grad: &mut [f64]| sums(problem, w, grad),
                n,
                parts.n_weights(),
                1,
                1.0 / (n as f64 * c),
                false,
            )?;
            let start = memory::filled_vec(
                parts.n_weights(),
                0.0,
                "the linear SVM's weights",
                memory::FEWER_FEATURES,
            )?;
            let result = lbfgs(&risk, start, &options, observer);
            if let Some(failure) = risk.failure() {
                return Err(failure);
            }
            let result = result?;
            // The solver's objective is the primal's divided by `nC`.
            let run = result.run().with_objective(result.objective * n as f64 * c);
            Ok((result.w, run))
        };
        let solved = solve_each(&problems, observer, solve)?;
        let mut coef = Vec::with_capacity(solved.len());
        let mut intercept = Vec::with_capacity(solved.len());
        let mut runs = Vec::with_capacity(solved.len());
        for (mut w, run) in solved {
            intercept.push(parts.bias.map_or(0.0, |b| b * w[d]));
            w.truncate(d);
            coef.push(w);
            runs.push(run);
        }
        Ok(LinearSvc {
            core: LinearClassifierCore::from_rows(parts.labels().to_vec(), d, &coef, intercept)?,
            c,
            runs,
            params: self.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{ClassWeight, Fit};
    use margin_io::datasets;

    /// Each label of `data` with its count, as a first pass gives them.
    fn counts(data: &Dataset) -> Vec<(Label, usize)> {
        let classes = data.targets.to_classes().unwrap();
        let mut counts = vec![0; classes.labels().len()];
        classes.indices().iter().for_each(|&k| counts[k] += 1);
        classes.labels().iter().cloned().zip(counts).rev().collect()
    }

    /// The fit over `data` cut in three parts.
    fn fit_in_parts(params: &LinearSvcParams, data: &Dataset) -> LinearSvc {
        let parts = params.parts(&counts(data), data.n_features()).unwrap();
        let n = data.n_samples();
        let pieces: Vec<Dataset> = [0, n / 5, n / 2, n]
            .windows(2)
            .map(|c| data.select(&(c[0]..c[1]).collect::<Vec<_>>()).unwrap())
            .collect();
        let sums = |problem: usize, w: &[f64], grad: &mut [f64]| {
            grad.fill(0.0);
            let mut g = vec![0.0; grad.len()];
            let mut loss = 0.0;
            for piece in &pieces {
                loss += parts.loss_sums(problem, piece, w, &mut g)?;
                grad.iter_mut().zip(&g).for_each(|(a, b)| *a += b);
            }
            Ok(loss)
        };
        params.fit_parts(&parts, sums, None).unwrap()
    }

    /// Both fits at a tight tolerance reach the same optimum.
    fn assert_same(parted: &LinearSvc, whole: &LinearSvc) {
        let scale = 1.0
            + whole
                .coef()
                .as_slice()
                .iter()
                .map(|v| v.abs())
                .fold(0.0, f64::max);
        let pairs = parted
            .coef()
            .as_slice()
            .iter()
            .zip(whole.coef().as_slice())
            .chain(parted.intercept().iter().zip(whole.intercept()));
        for (a, b) in pairs {
            assert!((a - b).abs() <= 1e-5 * scale, "{a} vs {b}");
        }
        for (p, w) in parted
            .fit_report()
            .runs()
            .iter()
            .zip(whole.fit_report().runs())
        {
            let (p, w) = (p.objective.unwrap(), w.objective.unwrap());
            assert!((p - w).abs() <= 1e-8 * w, "objective {p} vs {w}");
        }
        assert_eq!(parted.classes(), whole.classes());
        assert_eq!(parted.c(), whole.c());
    }

    #[test]
    fn a_fit_over_parts_reaches_the_in_memory_optimum() {
        let heart = datasets::heart_scale().unwrap();
        let dna = datasets::dna().unwrap();
        let dna = dna.select(&(0..300).collect::<Vec<_>>()).unwrap();
        for (params, data) in [
            (LinearSvc::params().tol(1e-10), &heart),
            (
                LinearSvc::params()
                    .c(0.1)
                    .intercept_scaling(3.0)
                    .class_weight(ClassWeight::Balanced)
                    .tol(1e-10),
                &heart,
            ),
            (LinearSvc::params().fit_intercept(false).tol(1e-10), &heart),
            // Three classes: one problem per class against the rest.
            (LinearSvc::params().c(0.5).tol(1e-10), &dna),
        ] {
            let whole = params.clone().max_iter(100_000).fit(data).unwrap();
            assert_same(&fit_in_parts(&params, data), &whole);
        }
    }

    #[test]
    fn what_the_parts_cannot_fit_is_refused() {
        let heart = datasets::heart_scale().unwrap();
        let counts = counts(&heart);
        let refused = |p: LinearSvcParams, needle: &str| {
            let e = p.parts(&counts, 13).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        };
        refused(LinearSvc::params().loss(SvmLoss::Hinge), "squared_hinge");
        refused(
            LinearSvc::params().solver(super::super::LinearSolver::pegasos()),
            "dcd",
        );
        let one = [(Label::Number(1.0), 4)];
        assert!(LinearSvc::params().parts(&one, 13).is_err());
        let parts = LinearSvc::params().parts(&counts, 13).unwrap();
        let (w, mut g) = (vec![0.0; 14], vec![0.0; 14]);
        assert!(parts.loss_sums(1, &heart, &w, &mut g).is_err());
        assert!(parts.loss_sums(0, &heart, &w[..13], &mut g).is_err());
        let failed = LinearSvc::params().fit_parts(
            &parts,
            |_, _, _| Err(Error::Numerical("lost".into())),
            None,
        );
        assert!(failed.unwrap_err().to_string().contains("lost"));
    }

    #[test]
    fn the_bias_feature_is_a_penalized_column_of_value_b() {
        // The sums with a bias B equal those of the records with a column of B appended,
        // with no intercept.
        let heart = datasets::heart_scale().unwrap();
        let x = heart.records.to_dense().unwrap();
        let b = 2.5;
        let rows: Vec<Vec<f64>> = x
            .rows()
            .map(|r| r.iter().copied().chain([b]).collect())
            .collect();
        let wide = Dataset::new(
            margin_core::DenseMatrix::from_rows(&rows).unwrap(),
            heart.targets.clone(),
        )
        .unwrap();
        let counts = counts(&heart);
        let with_bias = LinearSvc::params()
            .intercept_scaling(b)
            .parts(&counts, 13)
            .unwrap();
        let appended = LinearSvc::params()
            .fit_intercept(false)
            .parts(&counts, 14)
            .unwrap();
        let w: Vec<f64> = (0..14).map(|j| 0.1 * j as f64 - 0.6).collect();
        let (mut g1, mut g2) = (vec![0.0; 14], vec![0.0; 14]);
        let l1 = with_bias.loss_sums(0, &heart, &w, &mut g1).unwrap();
        let l2 = appended.loss_sums(0, &wide, &w, &mut g2).unwrap();
        assert!((l1 - l2).abs() <= 1e-12 * l2);
        for (a, b) in g1.iter().zip(&g2) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}
