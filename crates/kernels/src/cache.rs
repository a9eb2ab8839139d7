//! The kernel-column cache SMO reads through, with LIBSVM's semantics.
//!
//! A solver asks for column `i` restricted to its first `len` positions (the active set, which
//! shrinking keeps as a prefix by swapping positions). The cache keeps columns as `f32`, as
//! LIBSVM does (half the memory per entry, so twice the columns in the same budget), in
//! least-recently-used order within a byte budget, and computes only the part of a column it
//! does not hold yet. [`ColumnCache::swap_index`] has the meaning of LIBSVM's `Cache::swap_index`
//! (swap two positions in every cached column, dropping a column that holds one position but not
//! the other) but applies it lazily: swaps are logged, and a column replays the ones it has not
//! seen when it is next read. Shrinking swaps thousands of positions at a time; walking every
//! cached column for each swap costs a cache miss per column per swap, while a column replaying
//! a batch stays in cache, and a column evicted before it is read again never pays.

use std::ops::Range;

use margin_core::{CsrMatrix, Records, Result, RowView, SparseRow, memory, parallel};
use rayon::prelude::*;

use crate::dense_by_feature::DenseByFeature;
use crate::kernel::{DotForm, Kernel};
use crate::libsvm_order::{form_into_f32, sequential_dots, sequential_sq_norm};

/// What fills the cache: entries `Q(i, t)` of a symmetric matrix over positions `0..len()`,
/// whose order the solver permutes with [`ColumnSource::swap`].
pub trait ColumnSource: Sync {
    /// Number of positions.
    fn len(&self) -> usize;
    /// Whether there are no positions.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `out[k] = Q(i, range.start + k)` in the current order. Mutable so that a source can
    /// keep the buffers a column needs from one column to the next.
    fn fill(&mut self, i: usize, range: Range<usize>, out: &mut [f32]);
    /// Swaps positions `i` and `j`.
    fn swap(&mut self, i: usize, j: usize);
}

/// Kernel values `k(x_a, x_b)` over a set of records, in a permutable order.
///
/// Columns are computed in parallel over row chunks; dense rows with a dot-product kernel use
/// contiguous dot products and the vectorized exponential.
///
/// Every value is LIBSVM's training kernel to the last bit (see `libsvm_order`): norms and dot
/// products summed in feature order, LIBSVM's RBF expression, libm's `exp` as rounded to `f32`,
/// and the diagonal from the same norms; each value depends only on its two samples, so
/// columns do not depend on the thread count.
///
/// Memory grows with the samples' stored entries, not with the records' width: sparse samples
/// far narrower than their records (a LIBSVM file whose largest index is 2³¹ − 1 and whose rows
/// store a few features) are first copied with the features they use renumbered `0..F` in
/// increasing order, and every structure below is sized by `F`. The renumbering keeps each dot
/// product's terms in the same order, so the kernel values are the original samples', bit for
/// bit.
pub struct KernelSource<'a, K: ?Sized, R: ?Sized> {
    kernel: &'a K,
    samples: Samples<'a, R>,
    form: Option<DotForm>,
    /// Position → sample (a row of `samples`).
    order: Vec<usize>,
    /// Stored entries per position: what computing one dot product row by row costs.
    stored_per_row: f64,
    /// Squared norm of the sample at each position (swapped with the positions), for
    /// dot-product kernels.
    sq_norms: Vec<f64>,
    /// For dot-product kernels on dense-enough data: the samples stored densely by feature in
    /// position order, swapped along with the positions, so a column streams through memory
    /// instead of chasing rows scattered by shrinking's swaps.
    dense: Option<DenseByFeature>,
    /// For dot-product kernels on sparse data not stored densely: the samples by feature, and each
    /// position's index into them (swapped with the positions).
    by_feature: Option<(ByFeature, Vec<u32>)>,
    /// Buffers reused by every column, so that a cache miss allocates nothing once warm.
    scratch: Scratch,
}

/// What computing a column needs beyond its output, kept by the source from one column to the
/// next (a miss is one SMO iteration's worth of work; allocating per miss costs page faults on
/// the long buffers and allocator traffic on the short ones).
#[derive(Default)]
struct Scratch {
    /// A sparse column sample written densely (as wide as the samples), for dot products that
    /// gather from it.
    x: Vec<f64>,
    /// The column sample's non-zero features, for the samples stored densely by feature.
    nonzero: Vec<(usize, f64)>,
    /// Every sample's dot product with the column sample (the by-feature path).
    dots: Vec<f64>,
    /// One buffer per parallel task of a column (each task's dot products before the kernel's
    /// form is applied).
    tasks: Vec<Vec<f64>>,
}

impl Scratch {
    /// The buffers a source with these parts needs, asked for (guarded) up front: the dense
    /// sample when columns gather from a dense probe, every sample's dot products when columns
    /// go by feature.
    fn new(n_features: usize, positions: usize, derived: &Derived, gathers: bool) -> Result<Self> {
        let x = if gathers {
            memory::filled_vec(
                n_features,
                0.0,
                &format!("a kernel column's dense copy of one sample ({n_features} features)"),
                memory::FEWER_FEATURES,
            )?
        } else {
            Vec::new()
        };
        let dots = if derived.by_feature.is_some() {
            memory::filled_vec(
                positions,
                0.0,
                &format!("a kernel column's {positions} dot products"),
                memory::FEWER_SAMPLES,
            )?
        } else {
            Vec::new()
        };
        Ok(Self {
            x,
            nonzero: Vec::new(),
            dots,
            tasks: Vec::new(),
        })
    }

    /// The first `n` of `tasks`, adding empty ones as needed (each grows to its task's length
    /// on first use, then stays). A function of the field, not of `self`, so that the other
    /// buffers can stay borrowed.
    fn at_least(tasks: &mut Vec<Vec<f64>>, n: usize) -> &mut [Vec<f64>] {
        if tasks.len() < n {
            tasks.resize_with(n, Vec::new);
        }
        &mut tasks[..n]
    }
}

/// The samples a [`KernelSource`] reads.
enum Samples<'a, R: ?Sized> {
    /// The caller's records, read in place.
    Borrowed(&'a R),
    /// The subset's samples, in the order they were given, their features renumbered.
    Compact(CsrMatrix),
}

impl<R: Records + ?Sized> Samples<'_, R> {
    #[inline]
    fn row(&self, s: usize) -> RowView<'_> {
        match self {
            Samples::Borrowed(r) => r.row(s),
            Samples::Compact(c) => RowView::Sparse(c.row(s)),
        }
    }

    fn n_features(&self) -> usize {
        match self {
            Samples::Borrowed(r) => r.n_features(),
            Samples::Compact(c) => c.ncols(),
        }
    }
}

/// The samples at `indices` of sparse `records`, the features they store renumbered `0..F` in
/// increasing order, when the records' width exceeds their stored entries (then anything sized
/// by the width would outgrow the data); `None` otherwise.
fn compact_features<R: Records + ?Sized>(
    records: &R,
    indices: &[usize],
) -> Result<Option<CsrMatrix>> {
    let Some(csr) = records.as_sparse() else {
        return Ok(None);
    };
    let stored = stored_in(csr, indices);
    if records.n_features() <= stored.saturating_add(indices.len()) {
        return Ok(None);
    }
    renumbered_subset(csr, indices).map(Some)
}

/// Entries the rows at `indices` store.
pub(crate) fn stored_in(csr: &CsrMatrix, indices: &[usize]) -> usize {
    indices.iter().map(|&i| csr.row(i).indices.len()).sum()
}

/// The rows at `indices`, in that order, with the features they store renumbered `0..F` in
/// increasing order: each row keeps its terms' order, and anything sized by the width is sized
/// by `F`. The copy's memory is asked for first.
pub(crate) fn renumbered_subset(csr: &CsrMatrix, indices: &[usize]) -> Result<CsrMatrix> {
    let stored = stored_in(csr, indices);
    let what = format!(
        "a compact copy of {} samples ({stored} entries)",
        indices.len()
    );
    let mut features: Vec<u32> = Vec::new();
    let mut renumbered: Vec<u32> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    memory::reserve(&mut features, stored, &what, memory::FEWER_SAMPLES)?;
    memory::reserve(&mut renumbered, stored, &what, memory::FEWER_SAMPLES)?;
    memory::reserve(&mut values, stored, &what, memory::FEWER_SAMPLES)?;
    for &i in indices {
        features.extend_from_slice(csr.row(i).indices);
    }
    features.sort_unstable();
    features.dedup();
    let mut indptr = Vec::with_capacity(indices.len() + 1);
    indptr.push(0);
    for &i in indices {
        let row = csr.row(i);
        // A row's features increase, so each lookup starts where the previous one ended.
        let mut at = 0;
        for (&f, &v) in row.indices.iter().zip(row.values) {
            at += features[at..].partition_point(|&g| g < f);
            renumbered.push(at as u32);
            values.push(v);
        }
        indptr.push(renumbered.len());
    }
    CsrMatrix::new(indptr, renumbered, values, features.len())
}

/// What a source's choices (a dense copy or not, columns by feature or by row) are made from:
/// the caller's records rather than the samples the source stores, so that a compact copy
/// chooses as the records renumbered to the features they use would, and so computes the same
/// bits (the paths differ in how they sum).
struct Basis {
    n: usize,
    width: usize,
    stored: usize,
    dense: bool,
}

impl Basis {
    /// `records`, seen as `width` features wide.
    fn of<R: Records + ?Sized>(records: &R, width: usize) -> Self {
        Self {
            n: records.n_samples(),
            width,
            stored: records.nnz(),
            dense: records.as_dense().is_some(),
        }
    }
}

/// The number of distinct features sparse records store.
fn distinct_features(csr: &CsrMatrix) -> usize {
    let mut all = csr.indices().to_vec();
    all.sort_unstable();
    all.dedup();
    all.len()
}

/// What a source derives from its samples: see the fields of [`KernelSource`].
struct Derived {
    stored_per_row: f64,
    sq_norms: Vec<f64>,
    dense: Option<DenseByFeature>,
    by_feature: Option<(ByFeature, Vec<u32>)>,
}

impl Derived {
    fn new<Q: Records + ?Sized>(
        form: Option<&DotForm>,
        rows: &Q,
        order: &[usize],
        basis: &Basis,
    ) -> Result<Self> {
        let sq_norms = match form {
            Some(_) => order
                .iter()
                .map(|&i| sequential_sq_norm(rows.row(i)))
                .collect(),
            None => Vec::new(),
        };
        let density = basis.stored as f64 / (basis.n as f64 * basis.width as f64).max(1.0);
        let densify = form.is_some()
            && memory::bytes_of_grid::<f64>(order.len(), basis.width) <= MAX_DENSE_BYTES
            && (basis.dense || density >= MIN_DENSE_DENSITY);
        let dense = if densify {
            Some(DenseByFeature::new(
                order.len(),
                rows.n_features(),
                |p, out| rows.row(order[p]).to_dense_into(out),
            )?)
        } else {
            None
        };
        let by_feature = (form.is_some() && !densify && rows.as_sparse().is_some()).then(|| {
            let positions = (0..order.len() as u32).collect();
            (ByFeature::new(rows, order), positions)
        });
        Ok(Self {
            stored_per_row: basis.stored as f64 / order.len().max(1) as f64,
            sq_norms,
            dense,
            by_feature,
        })
    }
}

/// The samples of a source by feature (compressed columns over the source's own sample
/// numbering `0..m`).
///
/// A column's dot products `x_a · x_b` for all `b` then cost, over the features `f` stored in
/// `x_a`, the number of samples storing `f`: on sparse data whose common features are few
/// (w8a, a9a) that is several times less than one gather per stored entry of every row. Each
/// dot product is summed in increasing feature order, as LIBSVM's sparse dot is.
struct ByFeature {
    /// Feature `f`'s entries are `starts[f]..starts[f + 1]`.
    starts: Vec<usize>,
    /// Sample of each entry, increasing within a feature.
    samples: Vec<u32>,
    values: Vec<f64>,
}

impl ByFeature {
    /// The samples at `indices` of `records`, whose width must be of the order of their stored
    /// entries (a source compacts wider ones first).
    fn new<R: Records + ?Sized>(records: &R, indices: &[usize]) -> Self {
        let d = records.n_features();
        let mut starts = vec![0usize; d + 1];
        for &i in indices {
            records.row(i).for_each_stored(|f, _| starts[f + 1] += 1);
        }
        for f in 0..d {
            starts[f + 1] += starts[f];
        }
        let mut next = starts.clone();
        let mut samples = vec![0u32; starts[d]];
        let mut values = vec![0.0; starts[d]];
        for (t, &i) in indices.iter().enumerate() {
            records.row(i).for_each_stored(|f, v| {
                samples[next[f]] = t as u32;
                values[next[f]] = v;
                next[f] += 1;
            });
        }
        Self {
            starts,
            samples,
            values,
        }
    }

    /// Entries of `x_a` against all stored samples: the work of [`Self::dots_into`].
    fn cost(&self, xa: &SparseRow<'_>) -> usize {
        xa.indices
            .iter()
            .map(|&f| self.starts[f as usize + 1] - self.starts[f as usize])
            .sum()
    }

    /// `out[k] = x_a · x_{first + k}` for the samples `first..first + out.len()`.
    fn dots_into(&self, xa: &SparseRow<'_>, first: u32, out: &mut [f64]) {
        out.fill(0.0);
        let last = first + out.len() as u32;
        for (&f, &v) in xa.indices.iter().zip(xa.values) {
            let (a, b) = (self.starts[f as usize], self.starts[f as usize + 1]);
            let samples = &self.samples[a..b];
            let lo = a + samples.partition_point(|&t| t < first);
            let hi = a + samples.partition_point(|&t| t < last);
            for (&t, &x) in self.samples[lo..hi].iter().zip(&self.values[lo..hi]) {
                out[(t - first) as usize] += v * x;
            }
        }
    }
}

/// Largest dense copy of the samples a source makes, in bytes.
const MAX_DENSE_BYTES: u64 = 512 << 20;
/// Sparse samples are stored densely only above this fraction of stored entries: below it a
/// dense dot product costs more than the gather it replaces.
const MIN_DENSE_DENSITY: f64 = 0.25;

/// Element operations one kernel entry counts for when a column is cut into parallel tasks
/// (`margin_core::parallel`'s unit): a dot product over a row's stored entries and LIBSVM's
/// RBF expression with libm's `exp`, measured at up to ~50 ns an entry, so a task takes at
/// least `TASK_WORK / ENTRY_WORK` (256) entries.
const ENTRY_WORK: usize = 256;

impl<'a, K: Kernel + ?Sized, R: Records + ?Sized> KernelSource<'a, K, R> {
    /// A source over all samples of `records`, in their order.
    pub fn new(kernel: &'a K, records: &'a R) -> Result<Self> {
        Self::subset(kernel, records, (0..records.n_samples()).collect())
    }

    /// A source over the samples at `indices` (positions `0..indices.len()`): what a
    /// one-vs-one subproblem uses. Samples are read in place, except sparse samples much
    /// narrower than their records, which are copied compactly (see [`KernelSource`]).
    ///
    /// Refuses with [`Error::OutOfMemory`](margin_core::Error) when the samples' dense copy
    /// by feature (at most 512 MiB, made for dense data) cannot be had.
    pub fn subset(kernel: &'a K, records: &'a R, indices: Vec<usize>) -> Result<Self> {
        let form = kernel.dot_form();
        let compact = match form {
            Some(_) => compact_features(records, &indices)?,
            None => None,
        };
        let sparse = records.as_sparse().is_some();
        let (samples, order, derived) = match (compact, records.as_sparse()) {
            (Some(c), Some(csr)) => {
                let basis = Basis::of(records, distinct_features(csr));
                let order: Vec<usize> = (0..indices.len()).collect();
                let derived = Derived::new(form.as_ref(), &c, &order, &basis)?;
                (Samples::Compact(c), order, derived)
            }
            _ => {
                let basis = Basis::of(records, records.n_features());
                let derived = Derived::new(form.as_ref(), records, &indices, &basis)?;
                (Samples::Borrowed(records), indices, derived)
            }
        };
        // Columns gather from a dense copy of a sparse sample when a dot-product kernel's samples
        // are not stored densely by feature (see `probe`).
        let gathers = form.is_some() && derived.dense.is_none() && sparse;
        let scratch = Scratch::new(samples.n_features(), order.len(), &derived, gathers)?;
        Ok(Self {
            kernel,
            samples,
            form,
            order,
            scratch,
            stored_per_row: derived.stored_per_row,
            sq_norms: derived.sq_norms,
            dense: derived.dense,
            by_feature: derived.by_feature,
        })
    }

    /// `k(x_a, x_a)` for the sample at position `p`, as LIBSVM's training kernel computes it
    /// (from the squared norm, for a dot-product kernel).
    pub fn diagonal(&self, p: usize) -> f64 {
        match &self.form {
            Some(form) => {
                let sq = self.sq_norms[p];
                form.apply(sq, sq, sq)
            }
            None => {
                let x = self.samples.row(self.order[p]);
                self.kernel.eval(x, x)
            }
        }
    }

    /// Fills `out[k]` for positions `start + k` of column `i`, whose sample is `xi`.
    fn fill_chunk(
        &self,
        xi: RowView<'_>,
        probe: &Probe<'_>,
        sq_i: f64,
        start: usize,
        out: &mut [f32],
        scratch: &mut Vec<f64>,
    ) {
        let positions = start..start + out.len();
        let dots = scratch;
        dots.clear();
        match (&self.form, *probe, &self.dense) {
            (Some(_), Probe::Nonzero(nonzero), Some(rows)) => {
                dots.resize(out.len(), 0.0);
                rows.dots(positions.clone(), nonzero, dots);
            }
            (Some(_), Probe::Dense(x), _) => {
                let order = &self.order[positions.clone()];
                match &self.samples {
                    Samples::Borrowed(r) => sequential_dots(*r, order, x, dots),
                    Samples::Compact(c) => sequential_dots(c, order, x, dots),
                }
            }
            _ => {
                for (o, p) in out.iter_mut().zip(positions) {
                    *o = self.kernel.eval(xi, self.samples.row(self.order[p])) as f32;
                }
                return;
            }
        }
        if let Some(form) = &self.form {
            form_into_f32(form, dots, sq_i, &self.sq_norms[positions], out);
        }
    }

    /// Sample `xi` in the form [`Self::fill_chunk`] reads it, written into the scratch buffers
    /// `x` and `nonzero` where it needs a copy.
    fn probe<'x>(
        &self,
        xi: RowView<'x>,
        x: &'x mut Vec<f64>,
        nonzero: &'x mut Vec<(usize, f64)>,
    ) -> Probe<'x> {
        match (&self.form, &self.dense, xi) {
            (None, ..) => Probe::Pairwise,
            (Some(_), Some(_), _) => {
                DenseByFeature::probe_into(xi, nonzero);
                Probe::Nonzero(nonzero)
            }
            (Some(_), None, RowView::Dense(row)) => Probe::Dense(row),
            (Some(_), None, RowView::Sparse(_)) => {
                // As wide as the samples, which are no wider than their stored entries (sized
                // when the source was made; resizing here is a no-op).
                x.resize(self.samples.n_features(), 0.0);
                xi.to_dense_into(x);
                Probe::Dense(x)
            }
        }
    }
}

/// A column's sample as its dot products read it.
#[derive(Clone, Copy)]
enum Probe<'x> {
    /// Its non-zero features, for the samples stored densely by feature.
    Nonzero(&'x [(usize, f64)]),
    /// Dense, so that a sparse row's dot product with it is a gather.
    Dense(&'x [f64]),
    /// The kernel has no dot-product form: evaluated pair by pair.
    Pairwise,
}

impl<K: Kernel + ?Sized, R: Records + ?Sized> KernelSource<'_, K, R> {
    /// [`ColumnSource::fill`] through the samples by feature.
    #[allow(clippy::too_many_arguments)]
    fn fill_by_feature(
        &self,
        by_feature: &ByFeature,
        sample_at: &[u32],
        form: &DotForm,
        xi: SparseRow<'_>,
        sq_i: f64,
        range: Range<usize>,
        out: &mut [f32],
        scratch: &mut Scratch,
    ) {
        let chunk = parallel::chunk_len(scratch.dots.len(), ENTRY_WORK);
        scratch
            .dots
            .par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(k, d)| by_feature.dots_into(&xi, (k * chunk) as u32, d));
        let dots = &scratch.dots;
        let chunk = parallel::chunk_len(out.len(), ENTRY_WORK);
        let tasks = Scratch::at_least(&mut scratch.tasks, out.len().div_ceil(chunk));
        out.par_chunks_mut(chunk)
            .zip(tasks.par_iter_mut())
            .enumerate()
            .for_each(|(k, (o, buf))| {
                let start = range.start + k * chunk;
                let positions = start..start + o.len();
                buf.clear();
                buf.extend(
                    sample_at[positions.clone()]
                        .iter()
                        .map(|&t| dots[t as usize]),
                );
                form_into_f32(form, buf, sq_i, &self.sq_norms[positions], o);
            });
    }

    /// [`ColumnSource::fill`] with the source's buffers lent out as `scratch`.
    fn fill_with(&self, i: usize, range: Range<usize>, out: &mut [f32], scratch: &mut Scratch) {
        let xi = self.samples.row(self.order[i]);
        let sq_i = self.sq_norms.get(i).copied().unwrap_or(0.0);
        if let (Some((by_feature, sample_at)), Some(form), RowView::Sparse(row)) =
            (&self.by_feature, &self.form, xi)
        {
            // By feature only when it is cheaper than gathering each row of the range: it
            // computes every sample's dot product, then reads the range's.
            let by_row = range.len() as f64 * self.stored_per_row;
            let m = self.order.len();
            if (by_feature.cost(&row) + m) as f64 <= by_row {
                self.fill_by_feature(by_feature, sample_at, form, row, sq_i, range, out, scratch);
                return;
            }
        }
        let probe = self.probe(xi, &mut scratch.x, &mut scratch.nonzero);
        // Whole blocks of 16 entries per task (the vectorized exponential's width).
        let chunk = parallel::chunk_len(out.len(), ENTRY_WORK).next_multiple_of(16);
        let tasks = Scratch::at_least(&mut scratch.tasks, out.len().div_ceil(chunk));
        out.par_chunks_mut(chunk)
            .zip(tasks.par_iter_mut())
            .enumerate()
            .for_each(|(k, (o, buf))| {
                self.fill_chunk(xi, &probe, sq_i, range.start + k * chunk, o, buf)
            });
    }
}

impl<K: Kernel + ?Sized, R: Records + ?Sized> ColumnSource for KernelSource<'_, K, R> {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn fill(&mut self, i: usize, range: Range<usize>, out: &mut [f32]) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.fill_with(i, range, out, &mut scratch);
        self.scratch = scratch;
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.order.swap(i, j);
        if let Some((_, sample_at)) = &mut self.by_feature {
            sample_at.swap(i, j);
        }
        if !self.sq_norms.is_empty() {
            self.sq_norms.swap(i, j);
        }
        if let Some(rows) = &mut self.dense {
            rows.swap_rows(i, j);
        }
    }
}

const NIL: usize = usize::MAX;

struct Head {
    data: Vec<f32>,
    /// Swaps (counted from the cache's creation) already applied to `data`.
    synced: usize,
    prev: usize,
    next: usize,
}

/// An LRU cache of columns of a [`ColumnSource`] within a byte budget.
pub struct ColumnCache<S> {
    source: S,
    heads: Vec<Head>,
    /// Most recently used column, or NIL.
    newest: usize,
    /// Least recently used column, or NIL.
    oldest: usize,
    /// Floats that may still be allocated.
    free: usize,
    /// Position swaps not yet applied to every cached column, oldest first.
    swaps: Vec<(usize, usize)>,
    /// Swaps made before `swaps[0]`.
    swaps_before: usize,
    hits: u64,
    misses: u64,
}

impl<S: ColumnSource> ColumnCache<S> {
    /// A cache over `source` holding at most `budget_bytes` of column data (at least two full
    /// columns, as LIBSVM guarantees, so a solver's pair of columns always fits).
    ///
    /// Under an address-space limit the budget is cut to half of what is left
    /// ([`memory::cache_budget`]): the columns grow while the solver runs, and a cache that
    /// took all the allocator grants would leave the solver's next small allocation to abort.
    /// The cache's own bookkeeping (a head per position, the log of swaps) is asked for here,
    /// so that only the columns grow later, each within the budget.
    pub fn new(source: S, budget_bytes: usize) -> Result<Self> {
        let l = source.len();
        let budget = memory::cache_budget(budget_bytes as u64);
        let floats = usize::try_from(budget / std::mem::size_of::<f32>() as u64)
            .unwrap_or(usize::MAX)
            .max(2 * l);
        let what = "the kernel cache's table of columns";
        let mut heads = memory::vec_with_capacity(l, what, memory::FEWER_SAMPLES)?;
        heads.extend((0..l).map(|_| Head {
            data: Vec::new(),
            synced: 0,
            prev: NIL,
            next: NIL,
        }));
        // The log is replayed and emptied when it reaches one swap per position.
        let swaps = memory::vec_with_capacity(l, what, memory::FEWER_SAMPLES)?;
        Ok(Self {
            source,
            heads,
            newest: NIL,
            oldest: NIL,
            free: floats,
            swaps,
            swaps_before: 0,
            hits: 0,
            misses: 0,
        })
    }

    /// The source (for solver-side data that follows the same permutation).
    pub fn source(&self) -> &S {
        &self.source
    }

    /// Column `i` over positions `0..len`, computing the part not cached yet.
    pub fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.sync(i);
        let have = self.heads[i].data.len();
        if have >= len {
            self.hits += 1;
            self.touch(i);
        } else {
            self.misses += 1;
            self.unlink(i);
            let need = len - have;
            while self.free < need && self.oldest != NIL {
                let victim = self.oldest;
                self.evict(victim);
            }
            self.free -= need.min(self.free);
            let mut data = std::mem::take(&mut self.heads[i].data);
            self.reserve_column(&mut data, len);
            data.resize(len, 0.0);
            self.source.fill(i, have..len, &mut data[have..]);
            self.heads[i].data = data;
            self.push_newest(i);
        }
        &self.heads[i].data[..len]
    }

    /// Makes room for `len` floats in a column's buffer. Growth is exact: the budget counts
    /// floats, so capacity must not double behind it. Where the allocator refuses (an
    /// address-space limit below the budget), the least recently used columns make room and
    /// the budget shrinks by what they held: a smaller cache computes the same columns.
    fn reserve_column(&mut self, data: &mut Vec<f32>, len: usize) {
        let additional = len - data.len();
        while data.try_reserve_exact(additional).is_err() && self.oldest != NIL {
            let victim = self.oldest;
            let held = self.heads[victim].data.len();
            self.evict(victim);
            self.free -= held.min(self.free);
        }
        // With nothing left to evict, one column (`len` floats, fewer than the solver's own
        // per-variable arrays) is what the problem needs at the least.
        data.reserve_exact(additional);
    }

    /// Columns `i` and `j` (distinct) over positions `0..len`, both held at once (fetching the
    /// second never evicts the first: the cache holds at least two full columns).
    pub fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.column(i, len);
        if i == j {
            let c = &self.heads[i].data[..len];
            return (c, c);
        }
        self.unlink(i);
        self.column(j, len);
        self.push_newest(i);
        (&self.heads[i].data[..len], &self.heads[j].data[..len])
    }

    /// Swaps positions `i` and `j` in the source and in every cached column.
    pub fn swap_index(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        self.unlink(i);
        self.unlink(j);
        let [a, b] = self
            .heads
            .get_disjoint_mut([i, j])
            .expect("distinct positions");
        std::mem::swap(&mut a.data, &mut b.data);
        std::mem::swap(&mut a.synced, &mut b.synced);
        for k in [i, j] {
            if !self.heads[k].data.is_empty() {
                self.push_newest(k);
            }
        }
        self.swaps.push((i.min(j), i.max(j)));
        self.source.swap(i, j);
        // Bound the log: past one swap per position, bring every cached column up to date.
        if self.swaps.len() >= self.heads.len() {
            let mut h = self.newest;
            while h != NIL {
                let next = self.heads[h].next;
                self.sync(h);
                h = next;
            }
            self.swaps_before += self.swaps.len();
            self.swaps.clear();
        }
    }

    /// Applies to column `h` the swaps it has not seen, dropping it if one swaps a position it
    /// holds with one it does not (its prefix would be wrong).
    fn sync(&mut self, h: usize) {
        let all = self.swaps_before + self.swaps.len();
        let head = &mut self.heads[h];
        // An empty column has nothing to replay (and may predate the log).
        if !head.data.is_empty() {
            for &(lo, hi) in &self.swaps[head.synced - self.swaps_before..] {
                let len = head.data.len();
                if len > hi {
                    head.data.swap(lo, hi);
                } else if len > lo {
                    self.evict(h);
                    break;
                }
            }
        }
        self.heads[h].synced = all;
    }

    /// `(hits, misses)` since creation.
    pub fn stats(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    fn evict(&mut self, h: usize) {
        self.unlink(h);
        self.free += self.heads[h].data.len();
        self.heads[h].data = Vec::new();
    }

    fn touch(&mut self, h: usize) {
        if self.newest != h {
            self.unlink(h);
            self.push_newest(h);
        }
    }

    fn unlink(&mut self, h: usize) {
        let (prev, next) = (self.heads[h].prev, self.heads[h].next);
        if prev == NIL && next == NIL && self.newest != h {
            return;
        }
        if prev == NIL {
            self.newest = next
        } else {
            self.heads[prev].next = next
        }
        if next == NIL {
            self.oldest = prev
        } else {
            self.heads[next].prev = prev
        }
        self.heads[h].prev = NIL;
        self.heads[h].next = NIL;
    }

    fn push_newest(&mut self, h: usize) {
        self.heads[h].prev = NIL;
        self.heads[h].next = self.newest;
        if self.newest != NIL {
            self.heads[self.newest].prev = h;
        }
        self.newest = h;
        if self.oldest == NIL {
            self.oldest = h;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standard::{Laplacian, Rbf};
    use margin_core::{CsrMatrix, DenseMatrix};

    fn data(n: usize) -> DenseMatrix {
        DenseMatrix::from_row_major(
            (0..n * 3)
                .map(|v| ((v * 37 % 101) as f64 / 50.0) - 1.0)
                .collect(),
            n,
            3,
        )
        .unwrap()
    }

    /// 50 sparse samples over 40 features, three stored entries each: sparse enough that
    /// long columns go through the samples by feature, short ones row by row.
    fn sparse_data() -> CsrMatrix {
        sparse_rows(50).to_sparse()
    }

    /// `n` samples over 40 features with three non-zero entries each, stored densely.
    fn sparse_rows(n: usize) -> DenseMatrix {
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row = vec![0.0; 40];
                for k in 0..3 {
                    row[(i * 7 + k * 13 + k * k) % 40] =
                        ((i * 31 + k * 17) % 19) as f64 / 9.0 - 1.0;
                }
                row
            })
            .collect();
        DenseMatrix::from_rows(&rows).unwrap()
    }

    fn check_against_kernel<K: Kernel, R: Records>(k: &K, x: &R, budget: usize) {
        let mut cache = ColumnCache::new(KernelSource::new(k, x).unwrap(), budget).unwrap();
        let mut perm: Vec<usize> = (0..50).collect();
        let swaps = [(3, 40), (0, 49), (10, 11), (20, 5), (7, 7)];
        for step in 0..60 {
            let i = (step * 13) % 50;
            let len = 10 + (step * 7) % 41;
            let col = cache.column(i, len).to_vec();
            for (t, &v) in col.iter().enumerate() {
                let want = k.eval(x.row(perm[i]), x.row(perm[t]));
                assert!(
                    (f64::from(v) - want).abs() <= 1e-6 * want.abs().max(1e-30),
                    "step {step}: column {i} entry {t}: {v} vs {want}"
                );
            }
            let (a, b) = swaps[step % swaps.len()];
            cache.swap_index(a, b);
            perm.swap(a, b);
        }
        let (hits, misses) = cache.stats();
        assert!(hits + misses == 60);
    }

    #[test]
    fn columns_follow_swaps_with_large_and_tiny_budgets() {
        let rbf = Rbf::with_gamma(0.7).unwrap();
        let lap = Laplacian::with_gamma(0.3).unwrap();
        let sparse = sparse_data();
        for budget in [1 << 20, 0, 50 * 4 * 3] {
            check_against_kernel(&rbf, &data(50), budget);
            check_against_kernel(&lap, &data(50), budget);
            check_against_kernel(&rbf, &sparse, budget);
            check_against_kernel(&crate::standard::Linear, &sparse, budget);
        }
    }

    /// LIBSVM's training kernel value for two stored rows, as its cache holds it: norms and dot
    /// products summed term by term in feature order, `−γ (‖x‖² + ‖z‖² − 2 x·z)` unclamped,
    /// libm's `exp`, rounded to `f32`.
    fn libsvm_cached(form: &DotForm, x: RowView<'_>, z: RowView<'_>, d: usize) -> f32 {
        let dense = |r: RowView<'_>| {
            let mut v = vec![0.0; d];
            r.to_dense_into(&mut v);
            v
        };
        let seq = |a: RowView<'_>, b: RowView<'_>| {
            let mut s = 0.0;
            let (a, b) = (dense(a), dense(b));
            for (u, v) in a.iter().zip(&b) {
                if *u != 0.0 && *v != 0.0 {
                    s += u * v;
                }
            }
            s
        };
        let (xx, zz, xz) = (seq(x, x), seq(z, z), seq(x, z));
        match form {
            DotForm::Rbf { gamma } => (-gamma * (xx + zz - 2.0 * xz)).exp() as f32,
            f => f.apply(xz, xx, zz) as f32,
        }
    }

    /// Features near 6·10⁵ and 250 varying by a millionth, beside tiny ones: norms near 3.6e11
    /// and distances of order 1, where the summation order and the RBF expression show in the
    /// `f32` values.
    fn extreme_rows(n: usize) -> Vec<Vec<f64>> {
        (0..n)
            .map(|i| {
                let z = |k: usize| (((i * 37 + k * 11) % 23) as f64 - 11.0) / 7.0;
                vec![
                    1e-7 * z(0),
                    3e-4 * z(1),
                    z(2),
                    250.0 * (1.0 + 1e-6 * z(3)),
                    6e5 * (1.0 + 1e-6 * z(4)),
                ]
            })
            .collect()
    }

    #[test]
    fn columns_are_libsvm_s_training_kernel_bit_for_bit_on_extreme_scales() {
        let dense = DenseMatrix::from_rows(&extreme_rows(50)).unwrap();
        // Spread over 40 features, two stored entries each: sparse enough for the paths by
        // feature and row by row.
        let wide: Vec<Vec<f64>> = extreme_rows(50)
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut row = vec![0.0; 40];
                row[i % 3] = r[4];
                row[3 + i % 37] = r[3];
                row
            })
            .collect();
        let sparse = DenseMatrix::from_rows(&wide).unwrap().to_sparse();
        let kernels: [&dyn Kernel; 3] = [
            &Rbf::with_gamma(0.2).unwrap(),
            &Rbf::with_gamma(5.0).unwrap(),
            &crate::standard::Polynomial::with_degree(3)
                .unwrap()
                .with_gamma(1e-11)
                .unwrap()
                .with_coef0(1.0)
                .unwrap(),
        ];
        let mut positive_exponent = false;
        for k in kernels {
            let form = k.dot_form().unwrap();
            for x in [&dense as &dyn Records, &dense.to_sparse(), &sparse] {
                let source = KernelSource::new(k, x).unwrap();
                for p in 0..50 {
                    let want = libsvm_cached(&form, x.row(p), x.row(p), x.n_features());
                    assert_eq!(source.diagonal(p) as f32, want, "diagonal {p}");
                }
                let mut cache = ColumnCache::new(source, 1 << 20).unwrap();
                for i in [0, 17, 49] {
                    for (len, col) in [
                        (50, cache.column(i, 50).to_vec()),
                        (9, cache.column(i, 9).to_vec()),
                    ] {
                        assert_eq!(col.len(), len);
                        for (t, &v) in col.iter().enumerate() {
                            let want = libsvm_cached(&form, x.row(i), x.row(t), x.n_features());
                            positive_exponent |= want > 1.0;
                            assert_eq!(v.to_bits(), want.to_bits(), "{}: K({i}, {t})", k.name());
                        }
                    }
                }
            }
        }
        assert!(
            positive_exponent,
            "the data must make an RBF exponent cancel above 0"
        );
    }

    /// `x` with feature `j` moved to `j · 10⁸` (monotone) in records `u32::MAX` wide: no
    /// structure sized by the width could be allocated.
    fn spread(x: &CsrMatrix) -> CsrMatrix {
        let indices = x.indices().iter().map(|&j| j * 100_000_000).collect();
        CsrMatrix::new(
            x.indptr().to_vec(),
            indices,
            x.values().to_vec(),
            u32::MAX as usize,
        )
        .unwrap()
    }

    #[test]
    fn samples_far_narrower_than_their_records_give_the_same_columns_bit_for_bit() {
        let x = sparse_data();
        let wide = spread(&x);
        let rbf = Rbf::with_gamma(0.7).unwrap();
        let poly = crate::standard::Polynomial::with_degree(3)
            .unwrap()
            .with_gamma(0.5)
            .unwrap()
            .with_coef0(1.0)
            .unwrap();
        let kernels: [&dyn Kernel; 3] = [&rbf, &crate::standard::Linear, &poly];
        let subsets: [Vec<usize>; 3] = [
            (0..50).collect(),
            (0..50).step_by(3).collect(),
            vec![49, 3, 17, 8, 30, 31],
        ];
        for k in kernels {
            for idx in &subsets {
                let narrow = KernelSource::subset(k, &x, idx.clone()).unwrap();
                let compact = KernelSource::subset(k, &wide, idx.clone()).unwrap();
                if idx.len() > 10 {
                    // 3 stored features per sample: 40 features are no wider than that.
                    assert!(matches!(narrow.samples, Samples::Borrowed(_)));
                }
                // Only the features the subset stores: at most the 40 of the narrow records.
                assert!(matches!(&compact.samples, Samples::Compact(c) if c.ncols() <= 40));
                let m = idx.len();
                let (mut a, mut b) = (
                    ColumnCache::new(narrow, 0).unwrap(),
                    ColumnCache::new(compact, 0).unwrap(),
                );
                for step in 0..3 * m {
                    let (i, len) = ((step * 7) % m, 1 + (step * 5) % m);
                    let (ca, cb) = (a.column(i, len).to_vec(), b.column(i, len).to_vec());
                    let bits = |c: &[f32]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&ca), bits(&cb), "{} column {i}", k.name());
                    let (p, q) = ((step * 3) % m, (step * 11 + 1) % m);
                    a.swap_index(p, q);
                    b.swap_index(p, q);
                }
                for p in 0..m {
                    assert_eq!(
                        a.source().diagonal(p).to_bits(),
                        b.source().diagonal(p).to_bits()
                    );
                }
            }
        }
    }

    /// Columns of a cache that misses on every read (each computed over the buffers the
    /// previous columns left behind) against the same columns from a fresh source.
    fn check_scratch_reuse<R: Records>(x: &R) {
        let rbf = Rbf::with_gamma(0.7).unwrap();
        let n = x.n_samples();
        let mut reused = ColumnCache::new(KernelSource::new(&rbf, x).unwrap(), 0).unwrap();
        for step in 0..24 {
            let i = (step * 151) % n;
            let len = 1 + (step * 1237) % n;
            let got = reused.column(i, len).to_vec();
            let mut fresh = ColumnCache::new(KernelSource::new(&rbf, x).unwrap(), 0).unwrap();
            let want = fresh.column(i, len);
            let bits = |c: &[f32]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(want), "step {step}: column {i} over {len}");
        }
        assert_eq!(reused.stats().0, 0, "every read must miss");
    }

    #[test]
    fn reused_scratch_gives_a_fresh_source_s_columns_bit_for_bit() {
        // 3,000 samples: long columns are cut into several tasks. Sparse rows go by feature
        // (long columns) or gather from a dense copy of the sample (short ones); dense rows
        // read the sample's non-zero features.
        let dense = sparse_rows(3000);
        check_scratch_reuse(&dense.to_sparse());
        check_scratch_reuse(&dense);
    }

    #[test]
    fn dot_products_by_feature_are_the_sequential_sparse_dots() {
        let x = sparse_data();
        let all: Vec<usize> = (0..50).collect();
        let by_feature = ByFeature::new(&x, &all);
        for a in [0, 7, 49] {
            let xa = x.row(a);
            for (first, len) in [(0, 50), (13, 20), (49, 1)] {
                let mut out = vec![f64::NAN; len];
                by_feature.dots_into(&xa, first as u32, &mut out);
                for (k, &v) in out.iter().enumerate() {
                    // Summed in increasing feature order, as LIBSVM's dot: bit for bit.
                    let mut want = 0.0f64;
                    RowView::Sparse(xa)
                        .zip_union(&RowView::Sparse(x.row(first + k)), |p, q| want += p * q);
                    assert_eq!(v.to_bits(), want.to_bits(), "x_{a} · x_{}", first + k);
                }
            }
        }
    }
}
