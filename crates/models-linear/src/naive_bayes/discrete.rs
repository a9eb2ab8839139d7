//! What MultinomialNB and BernoulliNB share: their smoothing and prior parameters, per-class
//! feature counts (their sufficient statistic), how a sample's values are read, the class
//! log-priors, and the sparse joint log-likelihood `base_c + Σ_j x_j · w_jc` over a sample's
//! non-zero values only.

use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Label, Records, Result, RowView, memory, model_check, validate,
};

use serde::{Deserialize, Serialize};

use super::classes::{
    batch_classes, check_for_classes, declared_classes, fit_classes, present_classes, trainable,
    union_labels, valid_alpha, valid_priors, weight,
};
use super::rows_in_parallel;

/// The parameters [`MultinomialNBParams`](super::MultinomialNBParams) and
/// [`BernoulliNBParams`](super::BernoulliNBParams) share (scikit-learn's names and defaults): a
/// settings block both hold as their first field and flatten, so they share its parameters
/// and builder methods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(block)]
pub(crate) struct DiscreteParams {
    /// Additive (Laplace/Lidstone) smoothing `α ≥ 0` (default 1), added to every
    /// feature count. `α = 0` (no smoothing) is allowed, as scikit-learn's
    /// `force_alpha=True` allows it: a feature never seen in a class then rules the
    /// class out for any sample that has it, and a class without any count takes the
    /// limit `α → 0⁺` (uniform features).
    #[param(
        help = "additive (Laplace/Lidstone) smoothing",
        default = 1.0,
        valid = ("a finite number ≥ 0 (0 means no smoothing)", valid_alpha)
    )]
    pub(super) alpha: f64,
    /// Learn the class priors from the (weighted) class frequencies (default true);
    /// `false` makes them uniform. Ignored when priors are given.
    #[param(
        help = "learn the class priors from the class frequencies (false: uniform)",
        default = true,
        applies = ("without class_prior", |p| p.class_prior.is_none())
    )]
    pub(super) fit_prior: bool,
    /// Given class priors, one per class in sorted label order, non-negative and
    /// summing to 1 (default: none, see [`fit_prior`](Self::fit_prior)).
    #[param(
        help = "given class priors, one per class in sorted label order (none: fitted)",
        valid = ("finite priors ≥ 0 summing to 1", valid_priors),
        setter(strip_option)
    )]
    pub(super) class_prior: Option<Vec<f64>>,
}

impl DiscreteParams {
    /// [`Params::check`] of `params` (the struct holding this block), then one prior per class
    /// when priors are given.
    pub(super) fn check_for<P: Params>(&self, params: &P, n_classes: usize) -> Result<()> {
        check_for_classes(
            params,
            "class_prior",
            self.class_prior.as_deref(),
            n_classes,
        )
    }

    /// Class log-priors: `ln` of the given priors; else, when fitting priors, `ln(n_c / n)`;
    /// else (and before any sample was seen) uniform.
    pub(super) fn class_log_prior(&self, class_count: &[f64]) -> Vec<f64> {
        let total: f64 = class_count.iter().sum();
        match &self.class_prior {
            Some(p) => p.iter().map(|v| v.ln()).collect(),
            None if self.fit_prior && total > 0.0 => {
                let log_total = total.ln();
                class_count.iter().map(|c| c.ln() - log_total).collect()
            }
            None => vec![-(class_count.len() as f64).ln(); class_count.len()],
        }
    }
}

/// How a discrete model reads a sample's values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Reading {
    /// As stored (MultinomialNB's counts; BernoulliNB without a threshold).
    Values,
    /// 1 above the threshold, else 0 (BernoulliNB's `binarize`).
    Threshold(f64),
}

impl Reading {
    /// Calls `f(j, v)` for every feature whose read value `v` is non-zero. Sparse rows cost
    /// O(stored entries), except under a negative threshold, which turns every unstored zero
    /// into a 1 (the row is expanded into `scratch` then). Always inlined: the caller's running
    /// sums then stay in registers.
    #[inline(always)]
    pub(crate) fn for_each_nonzero(
        self,
        row: RowView<'_>,
        scratch: &mut Vec<f64>,
        n_features: usize,
        mut f: impl FnMut(usize, f64),
    ) {
        match (self, row) {
            (Reading::Values, _) => row.for_each_stored(|j, v| {
                if v != 0.0 {
                    f(j, v);
                }
            }),
            (Reading::Threshold(t), RowView::Sparse(_)) if t < 0.0 => {
                scratch.resize(n_features, 0.0);
                row.to_dense_into(scratch);
                for (j, &v) in scratch.iter().enumerate() {
                    if v > t {
                        f(j, 1.0);
                    }
                }
            }
            (Reading::Threshold(t), _) => row.for_each_stored(|j, v| {
                if v > t {
                    f(j, 1.0);
                }
            }),
        }
    }
}

/// Refuses a stored value outside `[lo, hi]`, naming its row and column (an unstored sparse
/// zero is never out of range: every caller's range holds 0).
pub(crate) fn check_records_in<R: Records + ?Sized>(
    records: &R,
    lo: f64,
    hi: f64,
    expected: &str,
) -> Result<()> {
    // Stored values in one slice take one branch-free pass (`&`, not `&&`: it vectorizes);
    // the row walk below names the first bad one.
    let in_range = |values: &[f64]| {
        values
            .iter()
            .fold(true, |ok, &v| ok & (v >= lo) & (v <= hi))
    };
    if validate::stored_values(records).is_some_and(in_range) {
        return Ok(());
    }
    for i in 0..records.n_samples() {
        let mut bad = None;
        records.row(i).for_each_stored(|j, v| {
            if bad.is_none() && !(lo..=hi).contains(&v) {
                bad = Some((j, v));
            }
        });
        if let Some((j, v)) = bad {
            return Err(Error::invalid_parameter(
                "records",
                format!("{v} at row {i}, column {j}"),
                expected,
            ));
        }
    }
    Ok(())
}

/// Weighted counts per class: the whole state a discrete naive Bayes model learns from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Counts {
    /// Class labels, sorted.
    pub(crate) labels: Vec<Label>,
    /// Summed sample weight per class.
    pub(crate) class_count: Vec<f64>,
    /// `k × d`: summed weight × read value per class and feature.
    pub(crate) feature_count: DenseMatrix,
}

impl Counts {
    /// No samples yet; the `k × d` counts are asked for first.
    pub(crate) fn new(labels: Vec<Label>, n_features: usize) -> Result<Self> {
        let k = labels.len();
        Ok(Self {
            labels,
            class_count: vec![0.0; k],
            feature_count: DenseMatrix::try_zeros(
                k,
                n_features,
                "naive Bayes's feature counts per class",
                memory::FEWER_FEATURES,
            )?,
        })
    }

    pub(crate) fn n_features(&self) -> usize {
        self.feature_count.ncols()
    }

    /// Adds the samples of a validated batch, row by row into the running sums: streaming
    /// the same rows in the same order in several batches adds the same numbers in the same
    /// order, so the counts equal one `fit`'s bit for bit.
    pub(crate) fn absorb(&mut self, data: &Dataset, class_of: &[usize], reading: Reading) {
        let d = self.n_features();
        let mut scratch = Vec::new();
        for (i, &c) in class_of.iter().enumerate() {
            let w = weight(data, i);
            self.class_count[c] += w;
            let counts = self.feature_count.row_mut(c);
            reading.for_each_nonzero(data.records.row(i), &mut scratch, d, |j, v| {
                counts[j] += w * v;
            });
        }
    }

    /// Adds the counts of statistics gathered elsewhere, over the union of both's classes; a
    /// refused merge (different widths) leaves `self` as it was.
    pub(crate) fn merge(&mut self, other: &Counts) -> Result<()> {
        let d = self.n_features();
        if other.n_features() != d {
            return Err(Error::shape(
                "features of the merged counts",
                d,
                other.n_features(),
            ));
        }
        let (labels, mine, theirs) = union_labels(&self.labels, &other.labels);
        let mut merged = Counts::new(labels, d)?;
        for (part, at) in [(&*self, mine), (other, theirs)] {
            for (c, &to) in at.iter().enumerate() {
                merged.class_count[to] += part.class_count[c];
                let row = merged.feature_count.row_mut(to);
                row.iter_mut()
                    .zip(part.feature_count.row(c))
                    .for_each(|(m, v)| *m += v);
            }
        }
        *self = merged;
        Ok(())
    }

    /// Checks counts decoded from a model file (the checksum guards against corruption, not
    /// against a file written by something else), so a loaded model cannot index out of range.
    pub(crate) fn check(&self) -> Result<()> {
        self.check_with(2)
    }

    /// [`Counts::check`] for counts of at least `min_classes` classes (statistics of one part
    /// may have seen one).
    fn check_with(&self, min_classes: usize) -> Result<()> {
        model_check::labels_at_least("labels", &self.labels, min_classes)?;
        let k = self.labels.len();
        let fc = &self.feature_count;
        let consistent = k >= min_classes
            && self.class_count.len() == k
            && fc.nrows() == k
            && fc.as_slice().len() == k * fc.ncols();
        let valid = |v: &f64| v.is_finite() && *v >= 0.0;
        if !consistent || !self.class_count.iter().all(valid) || !fc.as_slice().iter().all(valid) {
            return Err(Error::model_file(
                "the naive Bayes counts are inconsistent (shapes or negative values)",
            ));
        }
        Ok(())
    }
}

/// A model made of [`Counts`] and tables derived from them: MultinomialNB and BernoulliNB,
/// which fit, stream, load and refit from statistics the same way and differ only in how they
/// read and check the records and what they derive from the counts.
pub(crate) trait CountModel: Sized {
    /// The model's parameters, holding a [`DiscreteParams`] block.
    type Params: Params;

    /// The shared smoothing and prior parameters of `params`.
    fn discrete(params: &Self::Params) -> &DiscreteParams;

    /// How the model reads a sample's values under `params`.
    fn reading(params: &Self::Params) -> Reading;

    /// Refuses records outside what the model reads under `params` (its domain).
    fn check_records<R: Records + ?Sized>(params: &Self::Params, records: &R) -> Result<()>;

    /// The model of `counts`, its tables derived from them.
    fn from_counts(params: Self::Params, counts: Counts) -> Result<Self>;

    /// The parameters and the counts, for a batch to add to.
    fn params_and_counts(&mut self) -> (&Self::Params, &mut Counts);

    /// Derives the tables again after the counts changed (asking no memory once made).
    fn refresh(&mut self) -> Result<()>;
}

/// Fits a count model on `data` (what `Fit::fit` does for both).
pub(crate) fn fit<M: CountModel>(params: &M::Params, data: &Dataset) -> Result<M> {
    params.check()?;
    let (labels, class_of) = fit_classes(data)?;
    M::discrete(params).check_for(params, labels.len())?;
    M::check_records(params, &data.records)?;
    let mut counts = Counts::new(labels, data.n_features())?;
    counts.absorb(data, &class_of, M::reading(params));
    M::from_counts(params.clone(), counts)
}

/// A count model that has seen no sample yet, for `classes` (at least two; sorted here, as
/// `fit` sorts them) and `n_features` columns.
pub(crate) fn empty<M: CountModel>(
    params: M::Params,
    classes: &[Label],
    n_features: usize,
) -> Result<M> {
    let labels = declared_classes(classes)?;
    M::discrete(&params).check_for(&params, labels.len())?;
    M::from_counts(params, Counts::new(labels, n_features)?)
}

/// Adds `batch` to `model`'s counts (what `PartialFit::partial_fit` does for both): the batch
/// must have the model's width and only its classes; a refused batch changes nothing.
pub(crate) fn partial_fit<M: CountModel>(model: &mut M, batch: &Dataset) -> Result<()> {
    let (params, counts) = model.params_and_counts();
    let class_of = batch_classes(&counts.labels, counts.n_features(), batch)?;
    M::check_records(params, &batch.records)?;
    counts.absorb(batch, &class_of, M::reading(params));
    // The tables exist already: refreshing them asks for no memory, so cannot fail here.
    model.refresh()
}

/// The model of decoded parameters and counts, both checked first: what loading a model file
/// does, so that a forged file is refused before the tables are computed from it.
pub(crate) fn load<M: CountModel>(params: M::Params, counts: Counts) -> Result<M> {
    counts.check()?;
    M::discrete(&params)
        .check_for(&params, counts.labels.len())
        .map_err(|e| Error::model_file(format!("stored parameters are invalid: {e}")))?;
    M::from_counts(params, counts)
}

/// The model `params` makes from gathered statistics (what `FitStats::fit_stats` does for both).
pub(crate) fn fit_stats<M: CountModel>(params: &M::Params, stats: &CountsSoFar) -> Result<M> {
    params.check()?;
    let counts = stats.counts()?;
    M::discrete(params).check_for(params, counts.labels.len())?;
    M::from_counts(params.clone(), counts)
}

/// The accessors MultinomialNB and BernoulliNB share, read from their `counts` and
/// `class_log_prior` fields.
macro_rules! count_accessors {
    ($model:ty) => {
        impl $model {
            /// Class labels, sorted (scikit-learn's `classes_`).
            pub fn classes(&self) -> &[Label] {
                &self.counts.labels
            }
            /// Number of features.
            pub fn n_features(&self) -> usize {
                self.counts.n_features()
            }
            /// Summed sample weight per class (the sample count without weights).
            pub fn class_count(&self) -> &[f64] {
                &self.counts.class_count
            }
            /// `ln P(c)` per class.
            pub fn class_log_prior(&self) -> &[f64] {
                &self.class_log_prior
            }
        }
    };
}
pub(crate) use count_accessors;

/// The counts of the batches seen so far (none before the first): what MultinomialNB's and
/// BernoulliNB's statistics hold. Batches and partitions may each see any of the classes; their
/// counts merge over the union.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CountsSoFar(Option<Counts>);

impl CountsSoFar {
    /// Adds a batch whose records the model has checked, read as `reading` reads them.
    pub(crate) fn absorb(&mut self, batch: &Dataset, reading: Reading) -> Result<()> {
        validate::check_dataset(batch)?;
        if let Some(counts) = &self.0
            && counts.n_features() != batch.n_features()
        {
            return Err(Error::shape(
                "features of the batch (the statistics' width)",
                counts.n_features(),
                batch.n_features(),
            ));
        }
        let (labels, class_of) = present_classes(batch, &*batch.targets.to_classes()?)?;
        let mut part = Counts::new(labels, batch.n_features())?;
        part.absorb(batch, &class_of, reading);
        self.merge(&CountsSoFar(Some(part)))
    }

    /// Adds another part's counts.
    pub(crate) fn merge(&mut self, other: &CountsSoFar) -> Result<()> {
        let Some(theirs) = &other.0 else {
            return Ok(());
        };
        theirs.check_with(1)?;
        match &mut self.0 {
            Some(mine) => {
                mine.check_with(1)?;
                mine.merge(theirs)
            }
            None => {
                self.0 = Some(theirs.clone());
                Ok(())
            }
        }
    }

    /// The counts a model is made from: refused when no row was seen, or fewer than two
    /// classes.
    pub(crate) fn counts(&self) -> Result<Counts> {
        let counts = trainable(&self.0, |c| &c.labels, "naive Bayes")?;
        counts.check_with(1)?;
        Ok(counts.clone())
    }
}

/// Classes whose sums [`linear_jll`] holds in registers at once.
const LANES: usize = 4;

/// `base_c + Σ_j x_j · weights[j·k + c]` over each sample's non-zero read values, one row of
/// `n × k` per sample. `weights` is [`feature_major`] (`d × k`), so that one stored entry reads
/// a block of classes' contiguous weights.
///
/// Each class's sum starts from `base_c` and adds the entries in their stored order, whatever
/// the number of classes; up to [`LANES`] classes go through a row at once, their sums in
/// registers (summed in the output row, each addition waited for the store of the one before:
/// 2.9 ns an entry on dna's 3 classes, 1.2 ns in registers). The table is not padded to whole
/// blocks: with 10⁷ features that would double two classes' weights.
pub(crate) fn linear_jll<R: Records + ?Sized>(
    records: &R,
    reading: Reading,
    base: &[f64],
    weights: &[f64],
) -> DenseMatrix {
    let k = base.len();
    let d = records.n_features();
    debug_assert_eq!(weights.len(), d * k);
    // A read entry costs a chain of additions per block of classes (a threshold below 0 reads
    // every feature of a sparse row): about an operation each.
    let read = match reading {
        Reading::Threshold(t) if t < 0.0 => d,
        _ => records.nnz().div_ceil(records.n_samples().max(1)),
    };
    rows_in_parallel(
        records,
        k,
        k.div_ceil(LANES) * (1 + read),
        |row, out, scratch| {
            for (b, out) in out.chunks_mut(LANES).enumerate() {
                let first = b * LANES;
                let (base, weights) = (&base[first..first + out.len()], &weights[first..]);
                let args = (reading, row, d, k, base, weights);
                // The block's width is a constant in each arm, so its sums stay in registers.
                match out.len() {
                    LANES => block_sums::<LANES>(args, scratch, out),
                    3 => block_sums::<3>(args, scratch, out),
                    2 => block_sums::<2>(args, scratch, out),
                    _ => block_sums::<1>(args, scratch, out),
                }
            }
        },
    )
}

/// What [`block_sums`] reads: how, the row, `d`, `k`, the block's `base` and the by-feature
/// table from the block's first class.
type BlockArgs<'a> = (Reading, RowView<'a>, usize, usize, &'a [f64], &'a [f64]);

/// [`linear_jll`]'s sums of one row for a block of `W` classes into `out`: `base` theirs,
/// `weights` the by-feature table from the first of them (a feature's weights `k` apart).
///
/// Never inlined: inlined into one caller for each width, the sums went to memory (twice the
/// time on dna).
#[inline(never)]
fn block_sums<const W: usize>(
    (reading, row, d, k, base, weights): BlockArgs<'_>,
    scratch: &mut Vec<f64>,
    out: &mut [f64],
) {
    // A whole block of sums even for fewer classes: LLVM keeps four in two registers but three
    // in memory (dna's 3 classes: 170 against 98 us).
    let mut sums = [0.0; LANES];
    sums[..W].copy_from_slice(base);
    reading.for_each_nonzero(row, scratch, d, |j, v| {
        let w = &weights[j * k..][..W];
        for c in 0..W {
            sums[c] += v * w[c];
        }
    });
    out.copy_from_slice(&sums[..W]);
}

/// A `k × d` table of a model's own: `old` again when it has that shape (every caller
/// overwrites each entry, so refreshing a model after `partial_fit` asks for no memory), else a
/// new one asked for first.
pub(crate) fn table(old: &mut DenseMatrix, k: usize, d: usize, what: &str) -> Result<DenseMatrix> {
    if old.nrows() == k && old.ncols() == d {
        return Ok(std::mem::replace(old, DenseMatrix::zeros(0, 0)));
    }
    DenseMatrix::try_zeros(k, d, what, memory::FEWER_FEATURES)
}

/// `value(c, j)` for every class `c < k` and feature `j < d`, written feature-major (`d × k`,
/// [`linear_jll`]'s table) into `out`, which is reused when it has the size.
pub(crate) fn feature_major(
    k: usize,
    d: usize,
    out: &mut Vec<f64>,
    value: impl Fn(usize, usize) -> f64,
) -> Result<()> {
    let len = k.saturating_mul(d);
    if out.len() != len {
        *out = memory::filled_vec(
            len,
            0.0,
            &format!("naive Bayes's weights by feature ({d} × {k})"),
            memory::FEWER_FEATURES,
        )?;
    }
    for j in 0..d {
        for c in 0..k {
            out[j * k + c] = value(c, j);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use margin_core::{CsrMatrix, Matrix};

    use super::*;

    /// `base_c + Σ x_j · w_jc` class by class in stored order: the sums `linear_jll` must
    /// give bit for bit, for every width of the last block of classes.
    #[test]
    fn class_blocks_sum_as_one_class_at_a_time() {
        let (n, d) = (37, 11);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 1000) as f64 / 997.0 - 0.3
        };
        // About a third of the values zero, so sparse rows skip entries.
        let values: Vec<f64> = (0..n * d).map(|_| next().max(0.0)).collect();
        let dense = DenseMatrix::from_row_major(values.clone(), n, d).unwrap();
        let sparse = CsrMatrix::from_dense(&dense);
        for k in 1..=9 {
            let base: Vec<f64> = (0..k).map(|_| next()).collect();
            let weights: Vec<f64> = (0..d * k).map(|_| next()).collect();
            for reading in [
                Reading::Values,
                Reading::Threshold(0.2),
                Reading::Threshold(-0.1),
            ] {
                let read = |v: f64| match reading {
                    Reading::Values => v,
                    Reading::Threshold(t) => f64::from(u8::from(v > t)),
                };
                let mut expected = Vec::with_capacity(n * k);
                for row in values.chunks(d) {
                    for c in 0..k {
                        let mut sum = base[c];
                        for (j, &v) in row.iter().enumerate() {
                            if read(v) != 0.0 {
                                sum += read(v) * weights[j * k + c];
                            }
                        }
                        expected.push(sum);
                    }
                }
                for records in [Matrix::Dense(dense.clone()), Matrix::Sparse(sparse.clone())] {
                    let jll = linear_jll(&records, reading, &base, &weights);
                    let got: Vec<f64> = jll.rows().flatten().copied().collect();
                    assert_eq!(got, expected, "k = {k}, {reading:?}");
                }
            }
        }
    }
}
