//! Turning a [`Dataset`] into what tree growth needs, with every check a `fit` makes.

use margin_core::{ClassWeight, Dataset, DenseMatrix, Error, Label, Records, Result, validate};
use rayon::prelude::*;

use crate::grow::Target;
use crate::steps::Steps;
use crate::tree::Tree;

/// A validated classification problem.
pub(crate) struct ClassProblem {
    /// The classes that occur, sorted.
    pub(crate) labels: Vec<Label>,
    /// Each sample's index into `labels`.
    pub(crate) y: Vec<u32>,
    /// Sample weight × class weight.
    pub(crate) weights: Vec<f64>,
}

impl ClassProblem {
    /// The classes as a growth target.
    pub(crate) fn target(&self) -> Target<'_> {
        Target::Classes {
            y: &self.y,
            n_classes: self.labels.len(),
        }
    }
}

/// Refuses infinite values, and NaN unless `missing` allows it, naming the first position.
pub(crate) fn check_records<R: Records + ?Sized>(records: &R, missing: bool) -> Result<()> {
    if !missing {
        return validate::check_finite(records);
    }
    for i in 0..records.n_samples() {
        let mut bad = None;
        records.row(i).for_each_stored(|j, v| {
            if bad.is_none() && v.is_infinite() {
                bad = Some(j);
            }
        });
        if let Some(col) = bad {
            return Err(Error::NonFinite { row: i, col });
        }
    }
    Ok(())
}

/// Everything a tree model's `predict` checks: the fitted width, and values the tree can
/// route (NaN only when it was fitted with missing values allowed).
pub(crate) fn check_input<R: Records + ?Sized>(tree: &Tree, records: &R) -> Result<()> {
    validate::check_n_features(tree.n_features(), records)?;
    check_records(records, tree.missing)?;
    if tree.categorical.is_empty() {
        return Ok(());
    }
    let mut mask = vec![false; tree.n_features()];
    tree.categorical
        .iter()
        .for_each(|&j| mask[j as usize] = true);
    check_codes(records, &mask, false)
}

/// Refuses a value of a categorical column (`categorical[j]`) that is not a category code, naming
/// its row and column: an integer in `0..64` at fit, any non-negative integer at predict
/// (codes never seen in training are routed as missing values). NaN passes: whether it is
/// allowed was checked before.
pub(crate) fn check_codes<R: Records + ?Sized>(
    records: &R,
    categorical: &[bool],
    fit: bool,
) -> Result<()> {
    let limit = if fit { 64.0 } else { f64::INFINITY };
    for i in 0..records.n_samples() {
        let row = records.row(i);
        for (j, _) in categorical.iter().enumerate().filter(|(_, c)| **c) {
            let x = row.get(j);
            let code = x >= 0.0 && x < limit && x.fract() == 0.0;
            if !(code || x.is_nan()) {
                let expected = if fit {
                    "category codes: integers 0 to 63 (one-hot encode a column with more categories)"
                } else {
                    "category codes: non-negative integers"
                };
                return Err(Error::invalid_parameter(
                    "categorical_features",
                    format!("{x} at row {i}, column {j}"),
                    expected,
                ));
            }
        }
    }
    Ok(())
}

/// `check_dataset` with missing values (NaN) in the records allowed or not.
fn check_data(data: &Dataset, missing: bool) -> Result<()> {
    data.check_consistent()?;
    validate::check_non_empty(&data.records)?;
    check_records(&data.records, missing)
}

/// Checks the dataset (finite records, or NaN allowed with `missing`; consistent lengths, at
/// least two classes, weights non-negative and not all zero) and folds the class weights into
/// the sample weights.
pub(crate) fn class_problem(
    data: &Dataset,
    class_weight: &ClassWeight,
    missing: bool,
) -> Result<ClassProblem> {
    check_data(data, missing)?;
    let classes = data.targets.to_classes()?;
    validate::check_min_classes(&classes, 2)?;
    let present = classes.present();
    let per_class = class_weight.per_class(&present.labels, &present.counts)?;
    if let Some((k, w)) = per_class
        .iter()
        .enumerate()
        .find(|(_, w)| !(w.is_finite() && **w >= 0.0))
    {
        return Err(Error::invalid_parameter(
            "class_weight",
            format!("{w} (class {})", present.labels[k]),
            "finite weights ≥ 0",
        ));
    }
    let weights: Vec<f64> = present
        .y
        .iter()
        .enumerate()
        .map(|(i, &c)| sample_weight(data, i) * per_class[c])
        .collect();
    check_some_weight(&weights)?;
    Ok(ClassProblem {
        labels: present.labels,
        y: present.y.iter().map(|&c| c as u32).collect(),
        weights,
    })
}

/// Checks a regression dataset; returns the targets and sample weights.
pub(crate) fn regression_problem(data: &Dataset, missing: bool) -> Result<(Vec<f64>, Vec<f64>)> {
    check_data(data, missing)?;
    let y = data.targets.values()?.into_owned();
    validate::check_finite_slice(&y)?;
    let weights: Vec<f64> = (0..y.len()).map(|i| sample_weight(data, i)).collect();
    check_some_weight(&weights)?;
    // The nodes' variances sum weighted squares of the targets.
    validate::check_sum_of_squares("the regression targets", y.iter().copied(), Some(&weights))?;
    Ok((y, weights))
}

fn sample_weight(data: &Dataset, i: usize) -> f64 {
    data.sample_weights.as_ref().map_or(1.0, |w| w[i])
}

fn check_some_weight(weights: &[f64]) -> Result<()> {
    if weights.iter().any(|&w| w > 0.0) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "sample_weights",
            "all zero",
            "at least one positive weight (after class weights)",
        ))
    }
}

/// `f(t, leaf, out)` for every tree `t` and the leaf each row reaches in it, into an
/// `n × width` matrix (row `i`'s `out`).
///
/// Rows go in parallel blocks and, within a block, tree by tree, so a tree's nodes stay in
/// cache across the block's rows (row by row, a forest's trees would all be fetched again for
/// every row: 3× slower on ijcnn1). Dense rows walk a tree several at a time
/// ([`Steps::leaves_of_dense`]: 0.21 → 0.17 s for a 100-tree forest on ijcnn1's 91,701 test
/// rows); sparse ones one by one. Each row still visits its trees in order, so sums do not
/// depend on threads.
pub(crate) fn over_leaves<R: Records + ?Sized>(
    records: &R,
    width: usize,
    trees: &[Tree],
    f: impl Fn(usize, usize, &mut [f64]) + Sync,
) -> DenseMatrix {
    const BLOCK: usize = 2048;
    let width = width.max(1);
    let mut out = DenseMatrix::zeros(records.n_samples(), width);
    let steps: Vec<_> = trees.iter().map(Steps::new).collect();
    let dense = records.as_dense();
    out.as_mut_slice()
        .par_chunks_mut(BLOCK * width)
        .enumerate()
        .for_each(|(b, chunk)| {
            let rows = b * BLOCK..b * BLOCK + chunk.len() / width;
            let mut leaves = vec![0u32; rows.len()];
            // The block's dense rows, and whether any value is missing (a step through rows
            // without NaN is one comparison).
            let block = dense.map(|x| {
                let d = x.ncols();
                let x = &x.as_slice()[rows.start * d..rows.end * d];
                (x, d, x.iter().fold(false, |nan, v| nan | v.is_nan()))
            });
            for (t, tree) in steps.iter().enumerate() {
                match block {
                    Some((x, d, true)) => tree.leaves_of_dense::<true>(x, d, &mut leaves),
                    Some((x, d, false)) => tree.leaves_of_dense::<false>(x, d, &mut leaves),
                    None => rows.clone().zip(leaves.iter_mut()).for_each(|(i, leaf)| {
                        *leaf = tree.leaf_of(&records.row(i)) as u32;
                    }),
                }
                for (&leaf, o) in leaves.iter().zip(chunk.chunks_mut(width)) {
                    f(t, leaf as usize, o);
                }
            }
        });
    out
}

/// `f(row)` for every row, rows in parallel.
pub(crate) fn map_rows<R: Records + ?Sized, T: Send>(
    records: &R,
    f: impl Fn(margin_core::RowView<'_>) -> T + Sync,
) -> Vec<T> {
    (0..records.n_samples())
        .into_par_iter()
        .map(|i| f(records.row(i)))
        .collect()
}

/// Index of the largest value, ties to the first (numpy's `argmax`).
pub(crate) fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}
