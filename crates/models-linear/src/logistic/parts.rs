//! Logistic regression over rows held in parts (the partitions of a table, other machines),
//! as Spark fits it: a first pass gives the classes and their counts, then each step of
//! L-BFGS asks every part for its loss sums at the current weights
//! ([`PartedRisk`]). The sums are the in-memory risk's, so the fit follows the in-memory
//! path to rounding and stops where it stops, to the solver's tolerance.

use margin_core::fit::Observer;
use margin_core::params::{ParamType, Params};
use margin_core::{Dataset, Error, Label, PartClasses, Records, Result};
use margin_optim::lbfgs::{LbfgsOptions, lbfgs};
use margin_optim::loss::Loss;
use margin_optim::risk::{LinearRisk, LossSums, PartedRisk, SoftmaxRisk, check_part};
use serde::{Deserialize, Serialize};

use super::{LogisticRegression, LogisticRegressionParams, Penalty, SolverKind, start};

/// What each part needs to sum its rows' loss, from a first pass over the labels: the
/// classes, their weights, the rows' count and width. Serializable, to travel to the parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogisticParts {
    classes: PartClasses,
    n_features: usize,
    fit_intercept: bool,
}

impl LogisticParts {
    /// The classes, sorted as a fitted model's `classes()`.
    pub fn labels(&self) -> &[Label] {
        self.classes.labels()
    }

    /// The number of weights the solver moves (`k × (d + 1)`, or `d + 1` for two classes,
    /// without the `+ 1` when no intercept is fitted).
    pub fn n_weights(&self) -> usize {
        self.blocks() * (self.n_features + usize::from(self.fit_intercept))
    }

    fn blocks(&self) -> usize {
        let k = self.labels().len();
        if k == 2 { 1 } else { k }
    }

    /// One part's loss sums at weights `w`: `Σᵢ sᵢ ℓᵢ(w)` over its rows, with `Σᵢ sᵢ ∇ℓᵢ(w)`
    /// written into `grad` (`n_weights` values). Summed over every part, they give the whole
    /// risk's.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the part's width or `w` is not the fit's, and
    /// [`Error::InvalidParameter`] for a label the first pass did not see.
    pub fn loss_sums(&self, part: &Dataset, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let x = &part.records;
        check_part(x.n_features(), self.n_features, w, grad, self.n_weights())?;
        if x.n_samples() == 0 {
            grad.fill(0.0);
            return Ok(0.0);
        }
        let (y, weights) = self.classes.of(&part.targets)?;
        Ok(if self.labels().len() == 2 {
            let signs: Vec<f64> = y.iter().map(|&c| if c == 1 { 1.0 } else { -1.0 }).collect();
            let risk = LinearRisk::new(
                x,
                &signs,
                weights.as_deref(),
                Loss::Logistic,
                0.0,
                self.fit_intercept,
            )?;
            risk.loss_sums(w, grad)
        } else {
            let risk = SoftmaxRisk::new(
                x,
                &y,
                self.labels().len(),
                weights.as_deref(),
                0.0,
                self.fit_intercept,
            )?;
            risk.loss_sums(w, grad)
        })
    }
}

impl LogisticRegressionParams {
    /// What the parts need, from the first pass: each label with its number of rows (in any
    /// order), and the features' count.
    ///
    /// # Errors
    /// The parameters' own refusals; fewer than two classes; a solver other than L-BFGS or a
    /// penalty other than none or L2 (the parts give the full gradient, which is what L-BFGS
    /// takes).
    pub fn parts(&self, counts: &[(Label, usize)], n_features: usize) -> Result<LogisticParts> {
        self.check()?;
        if self.solver != SolverKind::Lbfgs {
            return Err(Error::invalid_parameter(
                "solver",
                self.solver.to_value(),
                "lbfgs, for rows held in parts",
            ));
        }
        if !matches!(self.built_penalty(), Penalty::None | Penalty::L2) {
            return Err(Error::invalid_parameter(
                "penalty",
                self.penalty.to_value(),
                "none or l2, for rows held in parts",
            ));
        }
        Ok(LogisticParts {
            classes: PartClasses::new(counts, &self.class_weight)?,
            n_features,
            fit_intercept: self.fit_intercept,
        })
    }

    /// Fits by L-BFGS from loss sums gathered over the parts: `sums(w, grad)` returns
    /// [`LogisticParts::loss_sums`] added over every part, as a query over a table's
    /// partitions does. The model is the in-memory fit's, to the solver's tolerance.
    ///
    /// # Errors
    /// The first error `sums` returned; the solver's.
    pub fn fit_parts(
        &self,
        parts: &LogisticParts,
        sums: impl Fn(&[f64], &mut [f64]) -> Result<f64>,
        observer: &mut dyn Observer,
    ) -> Result<LogisticRegression> {
        let n = parts.classes.n_samples();
        let (l2, _) = self.strengths(n);
        let risk = PartedRisk::new(
            sums,
            n,
            parts.n_features,
            parts.blocks(),
            l2,
            parts.fit_intercept,
        )?;
        let options = LbfgsOptions {
            max_iter: self.max_iter,
            grad_tol: self.tol,
            ..LbfgsOptions::default()
        };
        let result = lbfgs(&risk, start(parts.n_weights())?, &options, observer);
        if let Some(failure) = risk.failure() {
            return Err(failure);
        }
        self.model_from(parts.labels().to_vec(), parts.n_features, result?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use margin_core::{ClassWeight, Fit};

    /// `data`'s rows cut into three parts of unequal sizes.
    fn thirds(data: &Dataset) -> Vec<Dataset> {
        let n = data.n_samples();
        [0, n / 5, n / 2, n]
            .windows(2)
            .map(|c| data.select(&(c[0]..c[1]).collect::<Vec<_>>()).unwrap())
            .collect()
    }

    /// Each label of `data` with its count, as a first pass gives them.
    fn counts(data: &Dataset) -> Vec<(Label, usize)> {
        let classes = data.targets.to_classes().unwrap();
        classes
            .labels()
            .iter()
            .enumerate()
            .map(|(k, l)| {
                (
                    l.clone(),
                    classes.indices().iter().filter(|&&c| c == k).count(),
                )
            })
            .rev()
            .collect()
    }

    fn fit_in_parts(params: &LogisticRegressionParams, data: &Dataset) -> LogisticRegression {
        let parts = params.parts(&counts(data), data.n_features()).unwrap();
        let pieces = thirds(data);
        params
            .fit_parts(
                &parts,
                |w, grad| {
                    grad.fill(0.0);
                    let mut loss = 0.0;
                    let mut g = vec![0.0; grad.len()];
                    for piece in &pieces {
                        loss += parts.loss_sums(piece, w, &mut g)?;
                        grad.iter_mut().zip(&g).for_each(|(a, b)| *a += b);
                    }
                    Ok(loss)
                },
                &mut (),
            )
            .unwrap()
    }

    fn assert_same(parted: &LogisticRegression, whole: &LogisticRegression) {
        let scale = 1.0
            + whole
                .coef()
                .as_slice()
                .iter()
                .fold(0.0f64, |m, v| m.max(v.abs()));
        for (a, b) in parted.coef().as_slice().iter().zip(whole.coef().as_slice()) {
            assert!((a - b).abs() <= 1e-6 * scale, "{a} vs {b}");
        }
        for (a, b) in parted.intercept().iter().zip(whole.intercept()) {
            assert!((a - b).abs() <= 1e-6 * scale, "{a} vs {b}");
        }
        assert_eq!(parted.classes(), whole.classes());
        assert_eq!(parted.hyperparams(), whole.hyperparams());
    }

    #[test]
    fn binary_fits_in_parts_are_the_in_memory_fit() {
        let data = margin_io::datasets::heart_scale().unwrap();
        for params in [
            LogisticRegression::params(),
            LogisticRegression::params().c(0.1).fit_intercept(false),
            LogisticRegression::params().class_weight(ClassWeight::Balanced),
        ] {
            let whole = params.fit(&data).unwrap();
            assert_same(&fit_in_parts(&params, &data), &whole);
        }
    }

    #[test]
    fn multinomial_fits_in_parts_are_the_in_memory_fit() {
        let data = margin_io::datasets::dna().unwrap();
        let data = data.select(&(0..600).collect::<Vec<_>>()).unwrap();
        let params = LogisticRegression::params().c(0.5);
        let whole = params.fit(&data).unwrap();
        assert_same(&fit_in_parts(&params, &data), &whole);
    }

    #[test]
    fn what_parts_cannot_do_is_refused() {
        let heart = margin_io::datasets::heart_scale().unwrap();
        let c = counts(&heart);
        let newton = LogisticRegression::params().solver(crate::LogisticSolver::Newton);
        assert!(newton.parts(&c, 13).is_err());
        let one = [(Label::Number(1.0), 10)];
        assert!(LogisticRegression::params().parts(&one, 13).is_err());
        let twice = [(Label::Number(1.0), 10), (Label::Number(1.0), 3)];
        assert!(LogisticRegression::params().parts(&twice, 13).is_err());

        let parts = LogisticRegression::params().parts(&c, 13).unwrap();
        let mut grad = vec![0.0; parts.n_weights()];
        let w = vec![0.0; parts.n_weights()];
        let narrow =
            Dataset::classification(margin_core::DenseMatrix::zeros(2, 2), [1, -1]).unwrap();
        assert!(matches!(
            parts.loss_sums(&narrow, &w, &mut grad),
            Err(Error::ShapeMismatch { .. })
        ));
        let stranger =
            Dataset::classification(margin_core::DenseMatrix::zeros(1, 13), [7]).unwrap();
        assert!(matches!(
            parts.loss_sums(&stranger, &w, &mut grad),
            Err(Error::InvalidParameter { .. })
        ));
        // A part that fails fails the fit with its own error.
        let failed = LogisticRegression::params().fit_parts(
            &parts,
            |_, _| Err(Error::Numerical("partition 3 was lost".into())),
            &mut (),
        );
        assert!(matches!(failed, Err(Error::Numerical(m)) if m.contains("partition 3")));
    }
}
