//! Model selection: cross-validation with folds fitted in parallel.

use margin_core::split::Fold;
use margin_core::{Dataset, Error, Fit, Predict, Result};
use rayon::prelude::*;

use crate::Scorer;

/// Fits `params` on each fold's training part and scores the model on the held-out part with
/// `score`: a [`Scoring`](crate::Scoring), its name (`"f1_macro"`), or a closure over the
/// held-out data and the predictions (see [`Scorer`]). Folds run in parallel (rayon); scores
/// come back in fold order, so results do not depend on the number of threads.
///
/// ```
/// use margin_core::generate::{Blobs, make_blobs};
/// use margin_core::split::StratifiedKFold;
/// use margin_metrics::cross_validate;
///
/// let data = make_blobs(&Blobs::default().n_samples(60).centers(2).seed(1))?;
/// let folds = StratifiedKFold::new(3).split(&data)?;
/// let params = margin_svm::Svc::params();
/// let by_name = cross_validate(&params, &data, &folds, "balanced_accuracy")?;
/// assert!(by_name.iter().all(|&s| s > 0.9));
/// # Ok::<(), margin_core::Error>(())
/// ```
pub fn cross_validate<P, S>(
    params: &P,
    data: &Dataset,
    folds: &[Fold],
    score: S,
) -> Result<Vec<f64>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Scorer<P::Model> + Sync,
{
    cross_validate_with(params, data, folds, &score)
}

/// [`cross_validate`] with a borrowed scorer, for callers that score many candidates.
pub(crate) fn cross_validate_with<P, S>(
    params: &P,
    data: &Dataset,
    folds: &[Fold],
    score: &S,
) -> Result<Vec<f64>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Scorer<P::Model> + Sync,
{
    if folds.is_empty() {
        return Err(Error::invalid_parameter("folds", 0, "at least one fold"));
    }
    folds
        .par_iter()
        .enumerate()
        .map(|(f, fold)| {
            in_fold(f, folds.len(), || {
                let (train, test) = (data.select(&fold.train)?, data.select(&fold.test)?);
                score.score(&params.fit(&train)?, &test)
            })
        })
        .collect()
}

/// Runs the work of zero-based fold `f` of `n`, naming the fold in its error.
fn in_fold<T>(f: usize, n: usize, work: impl FnOnce() -> Result<T>) -> Result<T> {
    work().map_err(|e| e.in_fold(f, n))
}

/// Each sample's prediction from the model fitted without its fold (folds must partition the
/// samples).
pub fn cross_val_predict<P, T>(params: &P, data: &Dataset, folds: &[Fold]) -> Result<Vec<T>>
where
    P: Fit + Sync,
    P::Model: Predict<Output = Vec<T>>,
    T: Clone + Send,
{
    let n = data.n_samples();
    let mut seen = vec![false; n];
    for &i in folds.iter().flat_map(|f| &f.test) {
        if i >= n || std::mem::replace(&mut seen[i], true) {
            return Err(Error::invalid_parameter(
                "folds",
                format!("sample {i}"),
                "test parts that partition the samples",
            ));
        }
    }
    if seen.iter().any(|s| !s) {
        return Err(Error::invalid_parameter(
            "folds",
            "a sample in no test part",
            "test parts that partition the samples",
        ));
    }
    let parts: Vec<(Vec<usize>, Vec<T>)> = folds
        .par_iter()
        .enumerate()
        .map(|(f, fold)| {
            in_fold(f, folds.len(), || {
                let model = params.fit(&data.select(&fold.train)?)?;
                Ok((
                    fold.test.clone(),
                    model.predict(&data.records.select_rows(&fold.test)?)?,
                ))
            })
        })
        .collect::<Result<_>>()?;
    let mut out: Vec<Option<T>> = vec![None; n];
    for (idx, pred) in parts {
        for (i, p) in idx.into_iter().zip(pred) {
            out[i] = Some(p);
        }
    }
    out.into_iter()
        .map(|p| p.ok_or_else(|| Error::Numerical("a fold returned too few predictions".into())))
        .collect()
}

/// Scores on the training part and on the held-out part of each fold.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// Training samples used (for a learning curve) or the candidate's index (validation curve).
    pub x: usize,
    /// Score on the samples fitted, per fold.
    pub train_scores: Vec<f64>,
    /// Score on the held-out samples, per fold.
    pub test_scores: Vec<f64>,
}

fn train_and_test_scores<P, S>(
    params: &P,
    data: &Dataset,
    train: &[usize],
    test: &[usize],
    score: &S,
) -> Result<(f64, f64)>
where
    P: Fit,
    P::Model: Predict,
    S: Scorer<P::Model>,
{
    let (tr, te) = (data.select(train)?, data.select(test)?);
    let model = params.fit(&tr)?;
    Ok((score.score(&model, &tr)?, score.score(&model, &te)?))
}

/// The learning curve: for each fraction in `train_fractions` (in (0, 1]), each fold's model is
/// fitted on the first fraction of its training part and scored there and on its test part
/// with `score` (see [`Scorer`]).
/// Whether more data would help shows as a gap closing between the two curves.
pub fn learning_curve<P, S>(
    params: &P,
    data: &Dataset,
    folds: &[Fold],
    train_fractions: &[f64],
    score: S,
) -> Result<Vec<CurvePoint>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Scorer<P::Model> + Sync,
{
    if let Some(&f) = train_fractions.iter().find(|&&f| !(f > 0.0 && f <= 1.0)) {
        return Err(Error::invalid_parameter(
            "train_fractions",
            f,
            "fractions in (0, 1]",
        ));
    }
    train_fractions
        .iter()
        .map(|&frac| {
            let per_fold: Vec<(f64, f64)> = folds
                .par_iter()
                .enumerate()
                .map(|(f, fold)| {
                    let n = ((fold.train.len() as f64 * frac).ceil() as usize)
                        .clamp(1, fold.train.len());
                    in_fold(f, folds.len(), || {
                        train_and_test_scores(params, data, &fold.train[..n], &fold.test, &score)
                    })
                })
                .collect::<Result<_>>()?;
            let n = ((folds.first().map_or(0, |f| f.train.len()) as f64 * frac).ceil()) as usize;
            Ok(CurvePoint {
                x: n,
                train_scores: per_fold.iter().map(|p| p.0).collect(),
                test_scores: per_fold.iter().map(|p| p.1).collect(),
            })
        })
        .collect()
}

/// The validation curve: each candidate (typically one grid axis) scored on the training and
/// held-out parts of every fold; `x` is the candidate's index.
pub fn validation_curve<P, S>(
    candidates: &[P],
    data: &Dataset,
    folds: &[Fold],
    score: S,
) -> Result<Vec<CurvePoint>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Scorer<P::Model> + Sync,
{
    candidates
        .iter()
        .enumerate()
        .map(|(x, params)| {
            let per_fold: Vec<(f64, f64)> = folds
                .par_iter()
                .enumerate()
                .map(|(f, fold)| {
                    in_fold(f, folds.len(), || {
                        train_and_test_scores(params, data, &fold.train, &fold.test, &score)
                    })
                })
                .collect::<Result<_>>()?;
            Ok(CurvePoint {
                x,
                train_scores: per_fold.iter().map(|p| p.0).collect(),
                test_scores: per_fold.iter().map(|p| p.1).collect(),
            })
        })
        .collect()
}
