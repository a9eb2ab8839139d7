//! The estimator contract every margin model follows.
//!
//! `Params::fit(&data) -> Model`; the model then predicts, scores, or transforms. Inputs are
//! generic over [`Records`], so dense and sparse samples go through the same calls.

use crate::error::Result;
use crate::records::{Matrix, Records};

/// Hyperparameters that can be fitted to data, producing a model.
///
/// `Input` is a [`Dataset`](crate::Dataset) for supervised estimators, or records for
/// unsupervised ones (scalers, encoders).
pub trait Fit<Input: ?Sized = crate::Dataset> {
    /// The fitted model.
    type Model;
    /// Validates the parameters and the data, then fits.
    fn fit(&self, input: &Input) -> Result<Self::Model>;
}

/// A fitted model that predicts one output per sample.
pub trait Predict {
    /// What `predict` returns (`Vec<Label>` for classifiers, `Vec<f64>` for regressors).
    type Output;
    /// Predicts every row of `records`; refuses a feature count other than the one fitted.
    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Self::Output>;

    /// A classifier's per-class evidence for `records`, for the scores that rank samples or
    /// read probabilities (ROC AUC, average precision, log loss) through one call whatever the
    /// model: its [`DecisionFunction`] or its [`PredictProba`], as `evidence` asks.
    ///
    /// Classifiers override it (with [`class_scores_from!`](crate::class_scores_from), or
    /// [`ClassScores::new`] directly); every other model keeps this default, which refuses with
    /// [`Error::Unsupported`](crate::Error::Unsupported).
    fn class_scores<R: Records + ?Sized>(
        &self,
        records: &R,
        evidence: Evidence,
    ) -> Result<ClassScores> {
        let _ = (records, evidence);
        Err(crate::Error::unsupported(
            "class scores",
            "the model is not a classifier with a decision function or probabilities",
        ))
    }
}

/// Writes a classifier's [`Predict::class_scores`] inside its `impl Predict` block, from the
/// evidence it has, named by the trait methods that give it (the model also needs an inherent
/// `classes()`): `margin_core::class_scores_from!(decision_function, predict_proba);`, or
/// either alone.
#[macro_export]
macro_rules! class_scores_from {
    (decision_function) => {
        $crate::class_scores_from!(@with decision_function;);
    };
    (predict_proba) => {
        $crate::class_scores_from!(@with ; predict_proba);
    };
    (decision_function, predict_proba) => {
        $crate::class_scores_from!(@with decision_function; predict_proba);
    };
    (@with $($decision:ident)?; $($proba:ident)?) => {
        fn class_scores<R: $crate::Records + ?Sized>(
            &self,
            records: &R,
            evidence: $crate::Evidence,
        ) -> $crate::Result<$crate::ClassScores> {
            $crate::ClassScores::new(
                self.classes(),
                evidence,
                $crate::class_scores_from!(@source self, records $(, DecisionFunction::$decision)?),
                $crate::class_scores_from!(@source self, records $(, PredictProba::$proba)?),
            )
        }
    };
    (@source $self:ident, $records:ident) => { None };
    (@source $self:ident, $records:ident, $trait:ident :: $method:ident) => {
        Some(&|| $crate::$trait::$method($self, $records))
    };
}

/// Which evidence [`Predict::class_scores`] returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// What ranking scores read, in scikit-learn's order of preference: the decision function
    /// where the model has one, else class probabilities.
    Ranking,
    /// Class probabilities (one column per class, rows summing to 1).
    Probability,
}

/// A classifier's evidence per class, with the labels its columns stand for.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassScores {
    /// The model's classes, sorted (its `classes()`).
    pub classes: Vec<crate::Label>,
    /// One row per sample: one column for two classes (evidence for `classes[1]`, the
    /// decision function's convention) or one per class.
    pub scores: crate::DenseMatrix,
}

/// A fitted model's way of computing one kind of evidence, for [`ClassScores::new`].
pub type EvidenceSource<'a> = Option<&'a dyn Fn() -> Result<crate::DenseMatrix>>;

impl ClassScores {
    /// What a classifier's [`Predict::class_scores`] returns, from what it has: its decision
    /// function and its probabilities (`None` for what it lacks; either may still fail, as an
    /// SVC fitted without `probability` refuses probabilities).
    pub fn new(
        classes: &[crate::Label],
        evidence: Evidence,
        decision: EvidenceSource<'_>,
        proba: EvidenceSource<'_>,
    ) -> Result<Self> {
        // A decision function with a column per pair of classes (one-vs-one) ranks no class
        // against the rest: probabilities stand in where the model has them. (With three
        // classes there are as many pairs as classes: such a model passes no decision here.)
        let per_class = |m: &crate::DenseMatrix| match classes.len() {
            2 => m.ncols() == 1,
            k => m.ncols() == k,
        };
        let decision = match (evidence, decision) {
            (Evidence::Ranking, Some(decision)) => Some(decision()?),
            _ => None,
        };
        let scores = match (evidence, decision, proba) {
            (_, Some(d), _) if per_class(&d) => d,
            (_, Some(_), None) => {
                return Err(crate::Error::unsupported(
                    "class scores",
                    "the decision function has one column per pair of classes; fit with \
                     probability estimates or one-vs-rest to rank each class",
                ));
            }
            (_, _, Some(proba)) => proba()?,
            (Evidence::Ranking, None, None) => {
                return Err(crate::Error::unsupported(
                    "class scores",
                    "the model has neither a decision function nor probabilities",
                ));
            }
            (Evidence::Probability, _, None) => {
                return Err(crate::Error::unsupported(
                    "class probabilities",
                    "the model estimates none; score it with a ranking metric (roc_auc, \
                     average_precision) or choose a classifier with predict_proba",
                ));
            }
        };
        Ok(Self {
            classes: classes.to_vec(),
            scores,
        })
    }

    /// The evidence for the second class of a two-class model (`classes[1]`, the positive
    /// class of binary scores): the one column, or the second of two.
    pub fn positive(&self) -> Result<Vec<f64>> {
        if self.classes.len() != 2 {
            return Err(crate::Error::invalid_parameter(
                "scoring",
                format!(
                    "a binary score on a model of {} classes",
                    self.classes.len()
                ),
                "two classes (use a multiclass variant, such as roc_auc_ovr, for more)",
            ));
        }
        let col = match self.scores.ncols() {
            1 => 0,
            2 => 1,
            n => return Err(crate::Error::shape("score columns for two classes", 2, n)),
        };
        Ok(self.scores.rows().map(|r| r[col]).collect())
    }
}

/// A fitted classifier that estimates class probabilities.
pub trait PredictProba {
    /// Row `i`, column `k`: the probability that sample `i` is of class `k`.
    fn predict_proba<R: Records + ?Sized>(&self, records: &R) -> Result<crate::DenseMatrix>;
}

/// A fitted model with a real-valued decision function (margins, log-odds).
pub trait DecisionFunction {
    /// One row per sample; one column for binary problems, more for multiclass ones.
    fn decision_function<R: Records + ?Sized>(&self, records: &R) -> Result<crate::DenseMatrix>;
}

/// A fitted transformer (scaler, encoder, feature map).
pub trait Transform {
    /// Maps records into the transformer's output space.
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix>;
}

/// Fitting and transforming the same records in one call.
pub trait FitTransform<R: Records + ?Sized>: Fit<R> {
    /// Fits on `records`, then transforms them.
    fn fit_transform(&self, records: &R) -> Result<(Self::Model, Matrix)>;
}

impl<R, P> FitTransform<R> for P
where
    R: Records + ?Sized,
    P: Fit<R>,
    P::Model: Transform,
{
    fn fit_transform(&self, records: &R) -> Result<(Self::Model, Matrix)> {
        let model = self.fit(records)?;
        let out = model.transform(records)?;
        Ok((model, out))
    }
}

/// A fitted model that can take more data without refitting from scratch.
pub trait PartialFit<Input: ?Sized> {
    /// Updates the model with another batch.
    fn partial_fit(&mut self, batch: &Input) -> Result<()>;
}

/// Statistics gathered from two disjoint parts of the data, combined: after `a.merge(&b)`, `a`
/// holds what one pass over both parts gives (exactly where the statistic is a sum of counts,
/// to rounding where it is a mean or a factor). Merging in any order, and in any grouping,
/// gives the same model to rounding; this is what lets a fit run over partitions on many
/// threads or machines. A refused merge (different widths, or settings) leaves `self` as it
/// was.
pub trait Merge {
    /// Adds `other`'s statistics to `self`'s.
    fn merge(&mut self, other: &Self) -> Result<()>;
}

/// Hyperparameters whose fit is a function of statistics summed over the rows, so that the
/// data can be read in batches, on many partitions, and never held in memory at once.
///
/// ```
/// use margin_core::{Dataset, Fit, FitStats, Merge, PartialFit};
/// # fn demo<P: FitStats>(params: P, part1: &Dataset, part2: &Dataset) -> margin_core::Result<P::Model> {
/// let (mut a, mut b) = (params.stats(), params.stats());
/// a.partial_fit(part1)?; // on one partition
/// b.partial_fit(part2)?; // on another
/// a.merge(&b)?;
/// params.fit_stats(&a) // the model `params.fit(part1 ∪ part2)` gives, to rounding
/// # }
/// ```
///
/// `Input` is what a batch is, as for [`Fit`]: a [`Dataset`](crate::Dataset) for supervised
/// models, any [`Records`] for transformers fitted on records alone (scalers, PCA).
pub trait FitStats<Input: ?Sized = crate::Dataset>: Fit<Input> {
    /// The statistics: empty when made, updated batch by batch, merged across parts, and
    /// serializable so that parts can travel between processes.
    type Stats: PartialFit<Input>
        + Merge
        + Clone
        + std::fmt::Debug
        + Send
        + serde::Serialize
        + serde::de::DeserializeOwned;

    /// Empty statistics for these parameters (the width is set by the first batch).
    fn stats(&self) -> Self::Stats;

    /// Fits from the statistics what [`Fit::fit`] fits from the rows they summarize, and
    /// refuses statistics that have seen no rows with [`Error::EmptyDataset`](crate::Error).
    fn fit_stats(&self, stats: &Self::Stats) -> Result<Self::Model>;
}

/// A fitted model's input width: the number of features it was fitted on, which `predict`,
/// `decision_function` and `transform` require of their records.
///
/// Every fitted model also has an inherent `n_features()` with the same meaning; this trait
/// lets code that handles many model kinds (the CLI pads a LIBSVM file that stops below the
/// model's width, refuses a CSV with fewer columns) ask for it generically. It is kept to this
/// one method on purpose: a later redesign of the shared accessors may absorb it.
pub trait NFeatures {
    /// The number of features the model was fitted on.
    fn n_features(&self) -> usize;
}

/// Implements [`NFeatures`] for fitted models by calling their inherent `n_features()`:
/// `margin_core::impl_n_features!(Svc, Svr);`.
#[macro_export]
macro_rules! impl_n_features {
    ($($model:ty),+ $(,)?) => {
        $(
            impl $crate::NFeatures for $model {
                fn n_features(&self) -> usize {
                    // Inherent methods take precedence over trait methods in paths.
                    <$model>::n_features(self)
                }
            }
        )+
    };
}

/// How an iterative fit ended: how many times it ran its solver and how many of those runs
/// stopped at the iteration limit before meeting their tolerance.
///
/// One fit may run its solver several times (one binary problem per pair or per class, the
/// cross-validation folds behind probability estimates): `runs` counts them all. A run that
/// stops at the limit leaves a usable model that is not optimal to the tolerance asked for;
/// raising `max_iter`, loosening `tol` or scaling the features usually helps.
///
/// This is the one answer every iterative model gives to "did it converge?", derived from its
/// [`FitReport`](crate::fit::FitReport), which holds each run's details.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Convergence {
    /// Solver runs in the fit (0 for a fit that ran no iterative solver).
    pub runs: usize,
    /// Runs that stopped at the iteration limit before meeting their tolerance.
    pub at_limit: usize,
    /// The iteration limit those runs reached, in the unit the model's `max_iter` counts
    /// (iterations, epochs, passes over the data); the largest when their limits differ
    /// (LIBSVM's default `max(10⁷, 100·l)` depends on each problem's size). 0 when no run
    /// reached one.
    pub limit: usize,
}

impl Convergence {
    /// One solver run that stopped after `iterations`, at the limit or not.
    pub fn run(at_limit: bool, iterations: usize) -> Self {
        Self {
            runs: 1,
            at_limit: usize::from(at_limit),
            limit: if at_limit { iterations } else { 0 },
        }
    }

    /// Whether every run met its tolerance before the iteration limit.
    pub fn converged(&self) -> bool {
        self.at_limit == 0
    }

    /// The runs of `self` and `other` together.
    pub fn and(self, other: Self) -> Self {
        Self {
            runs: self.runs + other.runs,
            at_limit: self.at_limit + other.at_limit,
            limit: self.limit.max(other.limit),
        }
    }
}

/// The runs of every item together (no runs for none).
impl FromIterator<Convergence> for Convergence {
    fn from_iter<I: IntoIterator<Item = Convergence>>(iter: I) -> Self {
        iter.into_iter().fold(Self::default(), Self::and)
    }
}

/// A fitted model whose solver can stop at an iteration limit before meeting its tolerance
/// (SMO, coordinate descent, L-BFGS, k-means, the perceptron rule, …).
///
/// The model's [`FitReport`](crate::fit::FitReport) is the one record of how its solver runs
/// went; [`Iterative::convergence`] (the summary the CLI warns from: code that handles many
/// model kinds asks generically) and [`Iterative::n_iter`] derive from it. Models always
/// fitted in closed form or by a fixed schedule (naive Bayes, trees, forests, AdaBoost, ridge,
/// PCA, kNN) have nothing to report and do not implement it; an iterative model fitted a way
/// that has no limit to reach (a direct least-squares solver, Pegasos's fixed epochs, boosting
/// without early stopping) reports no run at the limit.
pub trait Iterative {
    /// How the fit's solver runs went.
    fn fit_report(&self) -> crate::fit::FitReport;

    /// How the fit's solver runs ended, counted.
    fn convergence(&self) -> Convergence {
        self.fit_report().convergence()
    }

    /// The iterations of the fit's longest solver run (scikit-learn's `n_iter_`; see
    /// [`FitReport::n_iter`](crate::fit::FitReport::n_iter)).
    fn n_iter(&self) -> usize {
        self.fit_report().n_iter()
    }
}

/// Implements [`Iterative`] for fitted models from their inherent `fit_report()`, and gives
/// them the inherent `convergence()` and `n_iter()` it derives, so callers need no import:
/// `margin_core::impl_iterative!(Svc, Svr);`.
#[macro_export]
macro_rules! impl_iterative {
    ($($model:ty),+ $(,)?) => {
        $(
            impl $crate::Iterative for $model {
                fn fit_report(&self) -> $crate::fit::FitReport {
                    <$model>::fit_report(self)
                }
            }

            impl $model {
                /// How the fit's solver runs ended, counted (see
                /// [`Iterative::convergence`](margin_core::Iterative::convergence)).
                pub fn convergence(&self) -> $crate::Convergence {
                    <Self as $crate::Iterative>::convergence(self)
                }

                /// The iterations of the fit's longest solver run, scikit-learn's `n_iter_`
                /// (see [`FitReport::n_iter`](margin_core::fit::FitReport::n_iter)).
                pub fn n_iter(&self) -> usize {
                    <Self as $crate::Iterative>::n_iter(self)
                }
            }
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::{ClassScores, Convergence, Evidence};
    use crate::{DenseMatrix, Error, Label, Result};

    fn matrix(rows: &[&[f64]]) -> DenseMatrix {
        DenseMatrix::from_rows(rows).unwrap()
    }

    #[test]
    fn class_scores_rank_by_the_decision_function_and_fall_back_to_probabilities() {
        let two = [Label::from(0), Label::from(1)];
        let decision = || Ok(matrix(&[&[-1.5], &[2.0]]));
        let proba = || Ok(matrix(&[&[0.8, 0.2], &[0.1, 0.9]]));
        let both = |e| ClassScores::new(&two, e, Some(&decision), Some(&proba));
        assert_eq!(
            both(Evidence::Ranking).unwrap().positive().unwrap(),
            [-1.5, 2.0]
        );
        assert_eq!(
            both(Evidence::Probability).unwrap().positive().unwrap(),
            [0.2, 0.9]
        );
        let only_proba = ClassScores::new(&two, Evidence::Ranking, None, Some(&proba)).unwrap();
        assert_eq!(only_proba.positive().unwrap(), [0.2, 0.9]);
        let no_proba = ClassScores::new(&two, Evidence::Probability, Some(&decision), None);
        assert!(matches!(no_proba, Err(Error::Unsupported { .. })));
        assert!(matches!(
            ClassScores::new(&two, Evidence::Ranking, None, None),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn a_one_vs_one_decision_function_does_not_rank_classes() {
        let three = [Label::from(0), Label::from(1), Label::from(2)];
        // Four classes make six one-vs-one pairs.
        let four = [three.as_slice(), &[Label::from(3)]].concat();
        let pairs = || Ok(matrix(&[&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]));
        let proba = || Ok(matrix(&[&[0.1, 0.2, 0.3, 0.4]]));
        let ranked = ClassScores::new(&four, Evidence::Ranking, Some(&pairs), Some(&proba));
        assert_eq!(ranked.unwrap().scores.as_slice(), [0.1, 0.2, 0.3, 0.4]);
        let refused = ClassScores::new(&four, Evidence::Ranking, Some(&pairs), None);
        assert!(matches!(refused, Err(Error::Unsupported { .. })));
        // A binary score of three classes says which scores take more.
        let per_class = || -> Result<DenseMatrix> { Ok(matrix(&[&[0.2, 0.3, 0.5]])) };
        let scores = ClassScores::new(&three, Evidence::Ranking, Some(&per_class), None).unwrap();
        let err = scores.positive().unwrap_err();
        assert!(err.to_string().contains("roc_auc_ovr"), "{err}");
    }

    #[test]
    fn runs_combine_counting_those_at_the_limit() {
        let all: Convergence = [
            Convergence::run(false, 7),
            Convergence::run(true, 100),
            Convergence::run(true, 250),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            all,
            Convergence {
                runs: 3,
                at_limit: 2,
                limit: 250
            }
        );
        assert!(!all.converged());
        let fine = Convergence::run(false, 7).and(Convergence::run(false, 9));
        assert!(fine.converged());
        assert_eq!((fine.runs, fine.limit), (2, 0));
        let none: Convergence = std::iter::empty().collect();
        assert!(none.converged());
        assert_eq!(none.runs, 0);
    }
}
