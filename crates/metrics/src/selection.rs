//! Model selection: cross-validation with folds fitted in parallel.

use core_linalg::split::Fold;
use core_linalg::{Dataset, Error, Fit, Predict, Result};
use rayon::prelude::*;

/// Fits `params` on each fold's training part and scores its predictions on the held-out part
/// with `score(test, predictions)`. Folds run in parallel (rayon); scores come back in fold
/// order, so results do not depend on the number of threads.
pub fn cross_validate<P, S>(
    params: &P,
    data: &Dataset,
    folds: &[Fold],
    score: S,
) -> Result<Vec<f64>>
where
    P: Fit + Sync,
    P::Model: Predict,
    S: Fn(&Dataset, &<P::Model as Predict>::Output) -> Result<f64> + Sync,
{
    if folds.is_empty() {
        return Err(Error::invalid_parameter("folds", 0, "at least one fold"));
    }
    folds
        .par_iter()
        .map(|fold| {
            let (train, test) = (data.select(&fold.train), data.select(&fold.test));
            let model = params.fit(&train)?;
            let predicted = model.predict(&test.records)?;
            score(&test, &predicted)
        })
        .collect()
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
        .map(|fold| {
            let model = params.fit(&data.select(&fold.train))?;
            Ok((
                fold.test.clone(),
                model.predict(&data.records.select_rows(&fold.test))?,
            ))
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
