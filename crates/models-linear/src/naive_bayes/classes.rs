//! Class bookkeeping the three models share: which classes `fit` learns, which a streaming
//! model was declared with, how a batch's samples map onto them, and the checks on priors,
//! weights and the smoothing parameter.

use margin_core::params::Params;
use std::cmp::Ordering;

use margin_core::model_check::label_order;
use margin_core::{Classes, Dataset, Error, Label, Result, validate};

/// The classes `fit` learns, those present in the data (scikit-learn's `unique(y)`, sorted),
/// and each sample's index among them.
///
/// Naive Bayes could describe a single class, and scikit-learn allows it, but a one-class
/// model predicts that class for everything whatever the records say: margin refuses it with
/// [`Error::TooFewClasses`], as the shared estimator battery asks of every classifier. A
/// streaming model is declared with at least two classes too, though a batch may hold one.
pub(crate) fn fit_classes(data: &Dataset) -> Result<(Vec<Label>, Vec<usize>)> {
    validate::check_dataset(data)?;
    let classes = data.targets.to_classes()?;
    validate::check_min_classes(&classes, 2)?;
    present_classes(data, &classes)
}

/// The classes present in a checked dataset (any number, one included: a batch or a partition
/// may hold one), sorted, and each sample's index among them; all-zero weights are refused.
/// `classes` are the dataset's targets as classes.
pub(crate) fn present_classes(
    data: &Dataset,
    classes: &Classes,
) -> Result<(Vec<Label>, Vec<usize>)> {
    let counts = classes.counts();
    let mut model_class = vec![usize::MAX; classes.n_classes()];
    let mut labels = Vec::new();
    for (c, label) in classes.labels().iter().enumerate() {
        if counts[c] > 0 {
            model_class[c] = labels.len();
            labels.push(label.clone());
        }
    }
    if let Some(w) = &data.sample_weights
        && w.iter().sum::<f64>() <= 0.0
    {
        return Err(Error::invalid_parameter(
            "sample_weights",
            "all zero",
            "at least one positive weight (a model of no evidence predicts nothing)",
        ));
    }
    let of_sample = classes.indices().iter().map(|&c| model_class[c]).collect();
    Ok((labels, of_sample))
}

/// The statistics a model can be made from: refused when they have seen no row (`None`), or
/// fewer than two classes (a one-class model, as [`fit_classes`] says).
pub(crate) fn trainable<'a, S>(
    stats: &'a Option<S>,
    labels: fn(&S) -> &[Label],
    model: &str,
) -> Result<&'a S> {
    let stats = stats.as_ref().ok_or_else(|| Error::no_rows_seen(model))?;
    let found = labels(stats).len();
    if found < 2 {
        return Err(Error::TooFewClasses { found, required: 2 });
    }
    Ok(stats)
}

/// The sorted union of two sorted label lists (statistics of two parts that saw different
/// classes), and where each list's labels sit in it.
pub(crate) fn union_labels(a: &[Label], b: &[Label]) -> (Vec<Label>, Vec<usize>, Vec<usize>) {
    let mut all: Vec<Label> = a.iter().chain(b).cloned().collect();
    all.sort_by(label_order);
    all.dedup_by(|x, y| label_order(x, y) == Ordering::Equal);
    let at = |part: &[Label]| {
        part.iter()
            .map(|l| all.partition_point(|m| label_order(m, l) == Ordering::Less))
            .collect()
    };
    let (in_a, in_b) = (at(a), at(b));
    (all, in_a, in_b)
}

/// Sorted, deduplicated labels for a model created empty (scikit-learn's `classes` argument
/// to the first `partial_fit`): numbers by value first, then text. Number labels must be
/// finite integers, as [`margin_core::Classes::from_numbers`] makes the labels of a batch.
pub(crate) fn declared_classes(classes: &[Label]) -> Result<Vec<Label>> {
    let mut numbers = Vec::new();
    let mut texts = Vec::new();
    for label in classes {
        match label {
            Label::Number(x) if x.is_finite() && x.fract() == 0.0 => numbers.push(*x + 0.0),
            Label::Number(x) => {
                return Err(Error::invalid_parameter(
                    "classes",
                    x,
                    "finite, integer-valued number labels (the labels data files give)",
                ));
            }
            Label::Text(s) => texts.push(s.clone()),
        }
    }
    numbers.sort_by(f64::total_cmp);
    numbers.dedup();
    texts.sort_unstable();
    texts.dedup();
    let labels: Vec<Label> = numbers
        .into_iter()
        .map(Label::Number)
        .chain(texts.into_iter().map(Label::Text))
        .collect();
    if labels.len() < 2 {
        return Err(Error::TooFewClasses {
            found: labels.len(),
            required: 2,
        });
    }
    Ok(labels)
}

/// Checks a `partial_fit` batch against the model's width and classes, and maps each sample
/// to its class index. Nothing is changed when this fails, so a refused batch leaves the
/// model as it was.
pub(crate) fn batch_classes(
    labels: &[Label],
    n_features: usize,
    batch: &Dataset,
) -> Result<Vec<usize>> {
    batch.check_consistent()?;
    if batch.n_features() != n_features {
        return Err(Error::shape(
            "feature count of a partial_fit batch (must equal the model's)",
            n_features,
            batch.n_features(),
        ));
    }
    validate::check_dataset(batch)?;
    let classes = batch.targets.to_classes()?;
    let to_model: Vec<Option<usize>> = classes
        .labels()
        .iter()
        .map(|l| labels.iter().position(|m| m == l))
        .collect();
    classes
        .indices()
        .iter()
        .enumerate()
        .map(|(row, &c)| {
            to_model[c].ok_or_else(|| {
                let known: Vec<String> = labels.iter().map(ToString::to_string).collect();
                Error::invalid_parameter(
                    "class label",
                    format!("{} (sample {row})", classes.labels()[c]),
                    format!(
                        "one of the model's classes [{}]: a model cannot learn a class it was not created with",
                        known.join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// Weight of sample `i` (1 without weights).
pub(crate) fn weight(data: &Dataset, i: usize) -> f64 {
    data.sample_weights.as_ref().map_or(1.0, |w| w[i])
}

/// Whether given priors are finite, non-negative and sum to 1 (none given passes).
pub(crate) fn valid_priors(prior: &Option<Vec<f64>>) -> bool {
    prior.as_ref().is_none_or(|p| {
        // Loose enough for priors typed as decimals (three times 0.3333333 passes).
        p.iter().all(|v| v.is_finite() && *v >= 0.0) && (p.iter().sum::<f64>() - 1.0).abs() <= 1e-6
    })
}

/// Whether a smoothing `α` is allowed: finite and ≥ 0 (0 means no smoothing).
pub(crate) fn valid_alpha(alpha: &f64) -> bool {
    crate::finite_non_negative(alpha)
}

/// Checks a naive Bayes params struct for a model of `n_classes` classes: its own ranges
/// ([`Params::check`]), then, when priors are given (parameter `name`), one per class, the one
/// rule that needs the data.
pub(crate) fn check_for_classes<P: Params>(
    params: &P,
    name: &str,
    prior: Option<&[f64]>,
    n_classes: usize,
) -> Result<()> {
    params.check()?;
    match prior {
        Some(prior) if prior.len() != n_classes => Err(Error::invalid_parameter(
            name,
            format!("{} values", prior.len()),
            format!("one prior per class ({n_classes}, in sorted label order)"),
        )),
        _ => Ok(()),
    }
}

/// Refuses to predict before any sample of positive weight was seen: the class priors and
/// feature distributions are then undefined (0/0).
pub(crate) fn check_trained(class_count: &[f64]) -> Result<()> {
    if class_count.iter().sum::<f64>() > 0.0 {
        Ok(())
    } else {
        Err(Error::EmptyDataset(
            "the model has not seen a sample with positive weight yet: partial_fit a batch before predicting"
                .into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_classes_are_sorted_deduplicated_and_checked() {
        let l = declared_classes(&[
            Label::Text("b".into()),
            Label::Number(2.0),
            Label::Number(-0.0),
            Label::Text("a".into()),
            Label::Number(2.0),
        ])
        .unwrap();
        assert_eq!(
            l,
            vec![
                Label::Number(0.0),
                Label::Number(2.0),
                Label::Text("a".into()),
                Label::Text("b".into())
            ]
        );
        assert!(matches!(
            declared_classes(&[Label::Number(1.0), Label::Number(1.0)]),
            Err(Error::TooFewClasses { found: 1, .. })
        ));
        assert!(declared_classes(&[Label::Number(1.5), Label::Number(2.0)]).is_err());
        assert!(declared_classes(&[Label::Number(f64::NAN), Label::Number(2.0)]).is_err());
    }

    #[test]
    fn priors_must_be_a_distribution_over_the_classes() {
        assert!(valid_priors(&Some(vec![0.25, 0.75])));
        assert!(valid_priors(&Some(vec![0.3333333; 3])));
        assert!(valid_priors(&None));
        for bad in [
            &[0.5, 0.6][..],
            &[-0.5, 1.5],
            &[f64::NAN, 1.0],
            &[f64::INFINITY, 1.0],
        ] {
            assert!(!valid_priors(&Some(bad.to_vec())), "{bad:?}");
        }
    }
}
