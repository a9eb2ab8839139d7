//! Scorers by name: each named score of a fitted model equals the score computed by hand from
//! its predictions, decision values or probabilities (counts, pairs of samples, logarithms);
//! a score of the wrong kind for the model is refused; model selection takes a name, a
//! `Scoring` or a closure alike.

use margin::linear::{GaussianNB, LinearRegression, LogisticRegression, Ridge};
use margin::metrics::{Scorer, Scoring, accuracy, cross_validate};
use margin::prelude::*;
use margin::svm::{LinearSvc, Svc};

fn heart() -> Dataset {
    margin::datasets::heart_scale().unwrap()
}

fn truth(data: &Dataset) -> Vec<Label> {
    data.labels().unwrap().to_vec()
}

/// Counts of (true positive, false positive, false negative, true negative) for `positive`.
fn counts(truth: &[Label], predicted: &[Label], positive: &Label) -> [f64; 4] {
    let mut c = [0.0; 4];
    for (t, p) in truth.iter().zip(predicted) {
        let k = match (t == positive, p == positive) {
            (true, true) => 0,
            (false, true) => 1,
            (true, false) => 2,
            (false, false) => 3,
        };
        c[k] += 1.0;
    }
    c
}

/// The probability that a random positive outranks a random negative, ties counting one half,
/// by looking at every pair.
fn auc_by_pairs(positive: &[bool], scores: &[f64]) -> f64 {
    let (mut wins, mut pairs) = (0.0, 0.0);
    for (i, &pi) in positive.iter().enumerate() {
        for (j, &pj) in positive.iter().enumerate() {
            if pi && !pj {
                pairs += 1.0;
                wins += if scores[i] > scores[j] {
                    1.0
                } else if scores[i] == scores[j] {
                    0.5
                } else {
                    0.0
                };
            }
        }
    }
    wins / pairs
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

#[test]
fn every_name_reads_back_and_unknown_names_list_the_names() {
    for (scoring, name) in Scoring::ALL {
        assert_eq!(name.parse::<Scoring>().unwrap(), scoring);
        assert_eq!(scoring.to_string(), name);
    }
    let err = "accuracy_score".parse::<Scoring>().unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { .. }));
    assert!(err.to_string().contains("balanced_accuracy"), "{err}");
}

#[test]
fn label_scores_equal_their_counts() {
    let data = heart();
    let model = Svc::params().fit(&data).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    let truth = truth(&data);
    // heart's labels are −1 and +1: +1 is the positive class, as scikit-learn's pos_label=1.
    let [tp, fp, fn_, tn] = counts(&truth, &predicted, &Label::from(1));
    let precision = tp / (tp + fp);
    let recall = tp / (tp + fn_);
    let specificity = tn / (tn + fp);
    let mcc = (tp * tn - fp * fn_) / ((tp + fp) * (tp + fn_) * (tn + fp) * (tn + fn_)).sqrt();
    let f1_negative = 2.0 * tn / (2.0 * tn + fn_ + fp);
    let f1 = 2.0 * precision * recall / (precision + recall);
    let support = [(tn + fp), (tp + fn_)];
    let by_hand = [
        (Scoring::Accuracy, (tp + tn) / (tp + fp + fn_ + tn)),
        (Scoring::BalancedAccuracy, (recall + specificity) / 2.0),
        (Scoring::Precision, precision),
        (Scoring::Recall, recall),
        (Scoring::F1, f1),
        (Scoring::F1Macro, (f1 + f1_negative) / 2.0),
        (
            Scoring::F1Weighted,
            (f1_negative * support[0] + f1 * support[1]) / (support[0] + support[1]),
        ),
        (Scoring::MatthewsCorrcoef, mcc),
    ];
    for (scoring, expected) in by_hand {
        let got = scoring.score(&model, &data).unwrap();
        assert!(close(got, expected), "{scoring}: {got} vs {expected}");
        assert_eq!(scoring.name().score(&model, &data).unwrap(), got, "by name");
    }
}

#[test]
fn ranking_scores_read_decision_values_or_probabilities() {
    let data = heart();
    let positive: Vec<bool> = truth(&data).iter().map(|l| *l == 1).collect();

    // An SVC ranks by its decision function (positive for the class +1).
    let svc = Svc::params().fit(&data).unwrap();
    let decision = svc.decision_function(&data.records).unwrap();
    let expected = auc_by_pairs(&positive, decision.as_slice());
    assert!(close(Scoring::RocAuc.score(&svc, &data).unwrap(), expected));

    // Gaussian naive Bayes has probabilities only: the second column ranks.
    let nb = GaussianNB::params().fit(&data).unwrap();
    let proba = nb.predict_proba(&data.records).unwrap();
    let p1: Vec<f64> = proba.rows().map(|r| r[1]).collect();
    assert!(close(
        Scoring::RocAuc.score(&nb, &data).unwrap(),
        auc_by_pairs(&positive, &p1)
    ));

    // The log loss of logistic regression: the mean of −ln p(true class), negated.
    let logistic = LogisticRegression::params().fit(&data).unwrap();
    let proba = logistic.predict_proba(&data.records).unwrap();
    let mean_nll = proba
        .rows()
        .zip(&positive)
        .map(|(r, &p)| -r[usize::from(p)].ln())
        .sum::<f64>()
        / positive.len() as f64;
    assert!(close(
        Scoring::NegLogLoss.score(&logistic, &data).unwrap(),
        -mean_nll
    ));
}

#[test]
fn regression_scores_equal_their_formulas() {
    let data = margin::datasets::housing_scale().unwrap();
    let model = Ridge::params().fit(&data).unwrap();
    let predicted = model.predict(&data.records).unwrap();
    let y = data.targets.values().unwrap();
    let n = y.len() as f64;
    let residuals: Vec<f64> = y.iter().zip(&predicted).map(|(t, p)| t - p).collect();
    let mse = residuals.iter().map(|r| r * r).sum::<f64>() / n;
    let mean = y.iter().sum::<f64>() / n;
    let total = y.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / n;
    let mae = residuals.iter().map(|r| r.abs()).sum::<f64>() / n;
    for (scoring, expected) in [
        (Scoring::R2, 1.0 - mse / total),
        (Scoring::NegMeanSquaredError, -mse),
        (Scoring::NegRootMeanSquaredError, -mse.sqrt()),
        (Scoring::NegMeanAbsoluteError, -mae),
    ] {
        let got = scoring.score(&model, &data).unwrap();
        assert!(
            (got - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
            "{scoring}: {got} vs {expected}"
        );
    }
}

#[test]
fn a_score_of_the_wrong_kind_is_refused_with_what_to_use() {
    let heart = heart();
    let housing = margin::datasets::housing_scale().unwrap();
    let svc = Svc::params().fit(&heart).unwrap();
    let regression = LinearRegression::params().fit(&housing).unwrap();

    let r2_of_classes = Scoring::R2.score(&svc, &heart).unwrap_err();
    assert!(
        r2_of_classes.to_string().contains("accuracy"),
        "{r2_of_classes}"
    );
    let accuracy_of_values = Scoring::Accuracy.score(&regression, &housing).unwrap_err();
    assert!(
        accuracy_of_values.to_string().contains("r2"),
        "{accuracy_of_values}"
    );
    assert!(matches!(
        Scoring::RocAuc.score(&regression, &housing).unwrap_err(),
        Error::Unsupported { .. } | Error::LabelType { .. } | Error::InvalidParameter { .. }
    ));
    // LinearSVC has no probabilities.
    let linear = LinearSvc::params().fit(&heart).unwrap();
    assert!(matches!(
        Scoring::NegLogLoss.score(&linear, &heart).unwrap_err(),
        Error::Unsupported { .. }
    ));
    // A binary score on three classes names the averaged variants.
    let three = make_blobs(&Blobs::default().n_samples(60).seed(4)).unwrap();
    let nb = GaussianNB::params().fit(&three).unwrap();
    let f1 = Scoring::F1.score(&nb, &three).unwrap_err();
    assert!(f1.to_string().contains("f1_macro"), "{f1}");
    assert!(Scoring::F1Macro.score(&nb, &three).is_ok());
    let ovr = Scoring::RocAucOvr.score(&nb, &three).unwrap();
    assert!(ovr > 0.9 && ovr <= 1.0, "{ovr}");
}

#[test]
fn model_selection_takes_a_name_a_scoring_or_a_closure() {
    let data = heart();
    let folds = StratifiedKFold::new(4).shuffle(1).split(&data).unwrap();
    let params = Svc::params();
    let by_name = cross_validate(&params, &data, &folds, "accuracy").unwrap();
    let by_enum = cross_validate(&params, &data, &folds, Scoring::Accuracy).unwrap();
    let by_closure = cross_validate(&params, &data, &folds, |test: &Dataset, p: &Vec<Label>| {
        accuracy(&test.labels()?.to_vec(), p)
    })
    .unwrap();
    assert_eq!(by_name, by_enum);
    assert_eq!(by_name, by_closure);
    let typo = cross_validate(&params, &data, &folds, "acuracy").unwrap_err();
    assert!(typo.to_string().contains("accuracy"), "{typo}");
}
