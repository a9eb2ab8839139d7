//! Scorers: how model selection scores a fitted model on held-out data, by name
//! (scikit-learn's `scoring="f1_macro"`) or by a closure over the predictions.

use std::fmt;
use std::str::FromStr;

use margin_core::{Dataset, Error, Evidence, Label, Predict, Result};

use crate::{
    Average, ConfusionMatrix, MulticlassRoc, Score, ZeroDivision, average_precision,
    explained_variance, log_loss, mean_absolute_error, mean_squared_error, median_absolute_error,
    r2_score, roc_auc, roc_auc_multiclass, root_mean_squared_error,
};

/// Scores a fitted model `M` on held-out data; higher is better (errors are negated, as
/// scikit-learn's `neg_…` scorers).
///
/// Three kinds of scorer are accepted wherever model selection takes one
/// ([`cross_validate`](crate::cross_validate), [`search`](fn@crate::search),
/// [`learning_curve`](crate::learning_curve), [`validation_curve`](crate::validation_curve)):
/// a [`Scoring`], its name as text (`"balanced_accuracy"`), or a closure over the held-out data
/// and the model's predictions, `|test: &Dataset, predicted: &Vec<Label>| … -> Result<f64>`.
pub trait Scorer<M> {
    /// The score of `model` on `data`.
    fn score(&self, model: &M, data: &Dataset) -> Result<f64>;
}

impl<M, F> Scorer<M> for F
where
    M: Predict,
    F: Fn(&Dataset, &M::Output) -> Result<f64>,
{
    fn score(&self, model: &M, data: &Dataset) -> Result<f64> {
        let predicted = model.predict(&data.records)?;
        self(data, &predicted)
    }
}

/// The scores that have a name, scikit-learn's `scoring` strings.
///
/// Binary scores (`f1`, `precision`, `recall`, `roc_auc`, `average_precision`) take the
/// second of the two classes in sorted order as the positive one (`1` of `0/1`, `+1` of
/// `±1`, as scikit-learn's `pos_label=1`); they refuse data of more classes, which the
/// averaged (`_macro`, `_weighted`, `_micro`) and `_ovr` variants score. Undefined ratios
/// (no positive prediction) count 0, scikit-learn's `zero_division` default.
///
/// ```
/// use margin_metrics::Scoring;
/// let s: Scoring = "neg_mean_squared_error".parse()?;
/// assert_eq!(s, Scoring::NegMeanSquaredError);
/// assert_eq!(s.to_string(), "neg_mean_squared_error");
/// assert!("accuracy_score".parse::<Scoring>().is_err());
/// # Ok::<(), margin_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// The fraction of samples classified right.
    Accuracy,
    /// The mean recall over classes.
    BalancedAccuracy,
    /// F1 of the positive class (binary).
    F1,
    /// F1 averaged over classes with equal weights.
    F1Macro,
    /// F1 from the pooled counts (equal to accuracy for single-label data).
    F1Micro,
    /// F1 averaged over classes weighted by support.
    F1Weighted,
    /// Precision of the positive class (binary).
    Precision,
    /// Precision averaged over classes with equal weights.
    PrecisionMacro,
    /// Recall of the positive class (binary).
    Recall,
    /// Recall averaged over classes with equal weights.
    RecallMacro,
    /// The Matthews correlation coefficient.
    MatthewsCorrcoef,
    /// Area under the ROC curve of the positive class (binary), from the decision function
    /// where the model has one, else its probabilities.
    RocAuc,
    /// One-vs-rest ROC AUC over classes with equal weights, from probabilities.
    RocAucOvr,
    /// Average precision of the positive class (binary).
    AveragePrecision,
    /// The negated log loss of the predicted probabilities.
    NegLogLoss,
    /// The coefficient of determination R².
    R2,
    /// The fraction of variance explained.
    ExplainedVariance,
    /// The negated mean squared error.
    NegMeanSquaredError,
    /// The negated root mean squared error.
    NegRootMeanSquaredError,
    /// The negated mean absolute error.
    NegMeanAbsoluteError,
    /// The negated median absolute error.
    NegMedianAbsoluteError,
}

impl Scoring {
    /// Every named score with its name, in the order help texts list them.
    pub const ALL: [(Scoring, &'static str); 21] = [
        (Scoring::Accuracy, "accuracy"),
        (Scoring::BalancedAccuracy, "balanced_accuracy"),
        (Scoring::F1, "f1"),
        (Scoring::F1Macro, "f1_macro"),
        (Scoring::F1Micro, "f1_micro"),
        (Scoring::F1Weighted, "f1_weighted"),
        (Scoring::Precision, "precision"),
        (Scoring::PrecisionMacro, "precision_macro"),
        (Scoring::Recall, "recall"),
        (Scoring::RecallMacro, "recall_macro"),
        (Scoring::MatthewsCorrcoef, "matthews_corrcoef"),
        (Scoring::RocAuc, "roc_auc"),
        (Scoring::RocAucOvr, "roc_auc_ovr"),
        (Scoring::AveragePrecision, "average_precision"),
        (Scoring::NegLogLoss, "neg_log_loss"),
        (Scoring::R2, "r2"),
        (Scoring::ExplainedVariance, "explained_variance"),
        (Scoring::NegMeanSquaredError, "neg_mean_squared_error"),
        (
            Scoring::NegRootMeanSquaredError,
            "neg_root_mean_squared_error",
        ),
        (Scoring::NegMeanAbsoluteError, "neg_mean_absolute_error"),
        (Scoring::NegMedianAbsoluteError, "neg_median_absolute_error"),
    ];

    /// The name, as scikit-learn spells it.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("", |(_, name)| name)
    }

    /// Whether the score reads values (a regressor's predictions) rather than classes.
    pub fn is_regression(self) -> bool {
        matches!(
            self,
            Scoring::R2
                | Scoring::ExplainedVariance
                | Scoring::NegMeanSquaredError
                | Scoring::NegRootMeanSquaredError
                | Scoring::NegMeanAbsoluteError
                | Scoring::NegMedianAbsoluteError
        )
    }

    fn of_values(self, truth: &[f64], predicted: &[f64]) -> Result<f64> {
        Ok(match self {
            Scoring::R2 => r2_score(truth, predicted)?,
            Scoring::ExplainedVariance => explained_variance(truth, predicted)?,
            Scoring::NegMeanSquaredError => -mean_squared_error(truth, predicted)?,
            Scoring::NegRootMeanSquaredError => -root_mean_squared_error(truth, predicted)?,
            Scoring::NegMeanAbsoluteError => -mean_absolute_error(truth, predicted)?,
            Scoring::NegMedianAbsoluteError => -median_absolute_error(truth, predicted)?,
            classification => return Err(classification.wrong_kind()),
        })
    }

    fn of_labels(self, truth: &[Label], predicted: &[Label], data: &Dataset) -> Result<f64> {
        let m = ConfusionMatrix::from_labels(truth, predicted)?;
        let zero = ZeroDivision::Value(0.0);
        let averaged = |score, average| m.averaged(score, average, zero);
        let binary = |score: Score| -> Result<f64> {
            let positive = self.positive_label(data)?;
            match m.labels().iter().position(|l| *l == positive) {
                Some(c) => match score {
                    Score::Precision => m.precision(c, zero),
                    Score::Recall => m.recall(c, zero),
                    Score::FBeta(beta) => m.f_beta(c, beta, zero),
                },
                // Neither true nor predicted anywhere in this part: nothing to find, nothing
                // found.
                None => Ok(0.0),
            }
        };
        match self {
            Scoring::Accuracy => Ok(m.accuracy()),
            Scoring::BalancedAccuracy => Ok(m.balanced_accuracy()),
            Scoring::F1 => binary(Score::FBeta(1.0)),
            Scoring::F1Macro => averaged(Score::FBeta(1.0), Average::Macro),
            Scoring::F1Micro => averaged(Score::FBeta(1.0), Average::Micro),
            Scoring::F1Weighted => averaged(Score::FBeta(1.0), Average::Weighted),
            Scoring::Precision => binary(Score::Precision),
            Scoring::PrecisionMacro => averaged(Score::Precision, Average::Macro),
            Scoring::Recall => binary(Score::Recall),
            Scoring::RecallMacro => averaged(Score::Recall, Average::Macro),
            Scoring::MatthewsCorrcoef => Ok(m.matthews()),
            other => Err(other.wrong_kind()),
        }
    }

    /// The positive class of a binary score: the second of the data's two classes.
    fn positive_label(self, data: &Dataset) -> Result<Label> {
        let labels = data.targets.classes()?.labels();
        match labels {
            [_, positive] => Ok(positive.clone()),
            _ => Err(Error::invalid_parameter(
                "scoring",
                format!("{} on data of {} classes", self.name(), labels.len()),
                "two classes; score more with an averaged variant (f1_macro, f1_weighted, \
                 precision_macro, recall_macro, roc_auc_ovr)",
            )),
        }
    }

    fn of_evidence<M: Predict>(self, model: &M, data: &Dataset) -> Result<f64> {
        // The model's evidence first: a model that has none says so before the data's labels
        // are read.
        let evidence = match self {
            Scoring::RocAuc | Scoring::AveragePrecision => Evidence::Ranking,
            _ => Evidence::Probability,
        };
        let scores = model.class_scores(&data.records, evidence)?;
        let truth = data.labels()?.to_vec();
        match self {
            Scoring::RocAuc | Scoring::AveragePrecision => {
                let positive = self.positive_label(data)?;
                if scores.classes.get(1) != Some(&positive) {
                    return Err(Error::invalid_parameter(
                        "scoring",
                        format!("{} of a model fitted on other classes", self.name()),
                        "a model fitted on both classes (stratify the folds)",
                    ));
                }
                let is_positive: Vec<bool> = truth.iter().map(|l| *l == positive).collect();
                let ranked = scores.positive()?;
                match self {
                    Scoring::RocAuc => roc_auc(&is_positive, &ranked),
                    _ => average_precision(&is_positive, &ranked),
                }
            }
            Scoring::RocAucOvr | Scoring::NegLogLoss => {
                let column = |l: &Label| {
                    scores.classes.iter().position(|c| c == l).ok_or_else(|| {
                        Error::invalid_parameter(
                            "scoring",
                            format!(
                                "{} with a class ({l}) the model was not fitted on",
                                self.name()
                            ),
                            "folds whose training parts hold every class (stratify them)",
                        )
                    })
                };
                let truth: Vec<usize> = truth.iter().map(column).collect::<Result<_>>()?;
                match self {
                    Scoring::RocAucOvr => {
                        roc_auc_multiclass(&truth, &scores.scores, MulticlassRoc::OneVsRestMacro)
                    }
                    _ => Ok(-log_loss(&truth, &scores.scores)?),
                }
            }
            other => Err(other.wrong_kind()),
        }
    }

    /// The refusal of a score the model's predictions cannot give, naming scores they can.
    fn wrong_kind(self) -> Error {
        let (needs, instead) = if self.is_regression() {
            ("values", "accuracy, f1_macro, roc_auc")
        } else {
            ("classes", "r2, neg_mean_squared_error")
        };
        Error::invalid_parameter(
            "scoring",
            self.name(),
            format!(
                "a score of what the model predicts: {self} needs predicted {needs}; \
                 try {instead}, …"
            ),
        )
    }
}

impl fmt::Display for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scoring {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(s, _)| *s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|(_, n)| *n).collect();
                Error::invalid_parameter("scoring", name, format!("one of {}", names.join(", ")))
            })
    }
}

/// What a model's predictions are, for the named scores: class labels or values.
pub trait Predictions {
    /// The predicted labels, for a classifier.
    fn labels(&self) -> Option<&[Label]>;
    /// The predicted values, for a regressor.
    fn values(&self) -> Option<&[f64]>;
}

impl Predictions for Vec<Label> {
    fn labels(&self) -> Option<&[Label]> {
        Some(self)
    }
    fn values(&self) -> Option<&[f64]> {
        None
    }
}

impl Predictions for Vec<f64> {
    fn labels(&self) -> Option<&[Label]> {
        None
    }
    fn values(&self) -> Option<&[f64]> {
        Some(self)
    }
}

impl<M> Scorer<M> for Scoring
where
    M: Predict,
    M::Output: Predictions,
{
    fn score(&self, model: &M, data: &Dataset) -> Result<f64> {
        match self {
            Scoring::RocAuc
            | Scoring::RocAucOvr
            | Scoring::AveragePrecision
            | Scoring::NegLogLoss => self.of_evidence(model, data),
            _ => {
                let predicted = model.predict(&data.records)?;
                if let Some(values) = predicted.values() {
                    self.of_values(&data.targets.values()?, values)
                } else if let Some(labels) = predicted.labels() {
                    self.of_labels(&data.labels()?.to_vec(), labels, data)
                } else {
                    Err(self.wrong_kind())
                }
            }
        }
    }
}

/// A score's name as text: parsed, then scored as that [`Scoring`] (an unknown name is an
/// error listing the names).
impl<M> Scorer<M> for &str
where
    M: Predict,
    M::Output: Predictions,
{
    fn score(&self, model: &M, data: &Dataset) -> Result<f64> {
        self.parse::<Scoring>()?.score(model, data)
    }
}
