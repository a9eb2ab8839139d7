//! The dual's `Q` matrices as the solvers see them: built on the kernels crate's column cache
//! for SMO, on its blocks of Gram rows for the working-set solver.

use margin_core::fit::Observer;
use margin_core::{Records, Result};
use margin_kernels::{ColumnCache, ColumnSource, GramRows, Kernel, KernelSource};
use margin_optim::batched::{QRows, solve_batched, solve_batched_nu};
use margin_optim::smo::{self, Problem, QMatrix, Solution};

use crate::settings::{Settings, SvmSolver};

/// `Q_ij = y_i y_j K(x_i, x_j)` (C-SVC; with every `y = +1`, the one-class SVM's `Q = K`).
pub(crate) struct SignedSource<'a, K: ?Sized, R: ?Sized> {
    kernel: KernelSource<'a, K, R>,
    y: Vec<i8>,
}

impl<K: Kernel + ?Sized, R: Records + ?Sized> ColumnSource for SignedSource<'_, K, R> {
    fn len(&self) -> usize {
        self.y.len()
    }
    fn fill(&mut self, i: usize, range: std::ops::Range<usize>, out: &mut [f32]) {
        let yi = self.y[i];
        let start = range.start;
        self.kernel.fill(i, range, out);
        for (t, o) in out.iter_mut().enumerate() {
            if self.y[start + t] != yi {
                *o = -*o;
            }
        }
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.kernel.swap(i, j);
        self.y.swap(i, j);
    }
}

/// A cached signed-kernel `Q` over a subset of the records.
pub(crate) struct SignedQ<'a, K: ?Sized, R: ?Sized> {
    cache: ColumnCache<SignedSource<'a, K, R>>,
    diag: Vec<f64>,
}

impl<'a, K: Kernel + ?Sized, R: Records + ?Sized> SignedQ<'a, K, R> {
    /// `Q` for the samples at `indices` with labels `y`, caching up to `cache_bytes`.
    pub(crate) fn new(
        kernel: &'a K,
        records: &'a R,
        indices: Vec<usize>,
        y: Vec<i8>,
        cache_bytes: usize,
    ) -> Result<Self> {
        let source = KernelSource::subset(kernel, records, indices)?;
        let diag = (0..y.len()).map(|p| source.diagonal(p)).collect();
        Ok(Self {
            cache: ColumnCache::new(SignedSource { kernel: source, y }, cache_bytes)?,
            diag,
        })
    }
}

impl<K: Kernel + ?Sized, R: Records + ?Sized> QMatrix for SignedQ<'_, K, R> {
    fn len(&self) -> usize {
        self.diag.len()
    }
    fn diagonal(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.cache.column(i, len)
    }
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.cache.column_pair(i, j, len)
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.diag.swap(i, j);
    }
}

/// ε-SVR's `Q` over `2l` variables: position `p` is sample `index[p]` with sign `sign[p]`
/// (`+1` for `α`, `−1` for `α*`), `Q_pq = sign_p sign_q K(x_index[p], x_index[q])`. Kernel
/// columns are cached per sample (unpermuted); signed columns are assembled in two buffers.
pub(crate) struct SvrQ<'a, K: ?Sized, R: ?Sized> {
    cache: ColumnCache<KernelSource<'a, K, R>>,
    sign: Vec<i8>,
    index: Vec<usize>,
    diag: Vec<f64>,
    buffers: [Vec<f32>; 2],
}

impl<'a, K: Kernel + ?Sized, R: Records + ?Sized> SvrQ<'a, K, R> {
    pub(crate) fn new(kernel: &'a K, records: &'a R, cache_bytes: usize) -> Result<Self> {
        let l = records.n_samples();
        let source = KernelSource::new(kernel, records)?;
        let kd: Vec<f64> = (0..l).map(|p| source.diagonal(p)).collect();
        let sign = (0..2 * l).map(|p| if p < l { 1 } else { -1 }).collect();
        let index = (0..2 * l).map(|p| p % l).collect();
        let diag = (0..2 * l).map(|p| kd[p % l]).collect();
        Ok(Self {
            cache: ColumnCache::new(source, cache_bytes)?,
            sign,
            index,
            diag,
            buffers: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
        })
    }

    fn assemble(&mut self, slot: usize, i: usize, len: usize) {
        let l = self.cache.source().len();
        let real = self.index[i];
        let si = self.sign[i];
        let col = self.cache.column(real, l);
        let buf = &mut self.buffers[slot];
        for t in 0..len {
            let v = col[self.index[t]];
            buf[t] = if self.sign[t] == si { v } else { -v };
        }
    }
}

impl<K: Kernel + ?Sized, R: Records + ?Sized> QMatrix for SvrQ<'_, K, R> {
    fn len(&self) -> usize {
        self.diag.len()
    }
    fn diagonal(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn column(&mut self, i: usize, len: usize) -> &[f32] {
        self.assemble(0, i, len);
        &self.buffers[0][..len]
    }
    fn column_pair(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.assemble(0, i, len);
        self.assemble(1, j, len);
        (&self.buffers[0][..len], &self.buffers[1][..len])
    }
    fn swap_index(&mut self, i: usize, j: usize) {
        self.sign.swap(i, j);
        self.index.swap(i, j);
        self.diag.swap(i, j);
    }
}

/// `Q_ij = y_i y_j K(x_i, x_j)` over a subset of the records, a working set at a time: what
/// [`solve_batched`] reads for C-SVC (and, with every
/// `y = +1`, the one-class SVM).
pub(crate) struct SignedRows<'a, K: ?Sized> {
    gram: GramRows<'a, K>,
    y: Vec<i8>,
}

impl<'a, K: Kernel + ?Sized> SignedRows<'a, K> {
    /// `Q` for the samples at `indices` with labels `y`.
    pub(crate) fn new<R: Records + ?Sized>(
        kernel: &'a K,
        records: &R,
        indices: &[usize],
        y: Vec<i8>,
    ) -> Result<Self> {
        Ok(Self {
            gram: GramRows::new(kernel, records, indices)?,
            y,
        })
    }
}

impl<K: Kernel + ?Sized> QRows for SignedRows<'_, K> {
    fn len(&self) -> usize {
        self.y.len()
    }
    fn block(&mut self, set: &[usize], out: &mut [f32]) {
        self.gram.block(set, set, Some(&self.y), out);
    }
    fn add_rows(&mut self, rows: &[usize], weights: &[f64], g: &mut [f64]) {
        self.gram.add_weighted_rows(rows, weights, Some(&self.y), g);
    }
}

/// ε-SVR's `Q` over `2l` variables (as [`SvrQ`]: variable `p` is sample `p mod l`, with sign
/// `+1` below `l` and `−1` from `l`), a working set at a time.
pub(crate) struct SvrRows<'a, K: ?Sized> {
    gram: GramRows<'a, K>,
}

impl<'a, K: Kernel + ?Sized> SvrRows<'a, K> {
    pub(crate) fn new<R: Records + ?Sized>(kernel: &'a K, records: &R) -> Result<Self> {
        let all: Vec<usize> = (0..records.n_samples()).collect();
        Ok(Self {
            gram: GramRows::new(kernel, records, &all)?,
        })
    }

    fn sample(&self, p: usize) -> usize {
        p % self.gram.len()
    }

    fn sign(&self, p: usize) -> f64 {
        if p < self.gram.len() { 1.0 } else { -1.0 }
    }
}

impl<K: Kernel + ?Sized> QRows for SvrRows<'_, K> {
    fn len(&self) -> usize {
        2 * self.gram.len()
    }
    fn block(&mut self, set: &[usize], out: &mut [f32]) {
        let samples: Vec<usize> = set.iter().map(|&p| self.sample(p)).collect();
        self.gram.block(&samples, &samples, None, out);
        let m = set.len();
        for (a, row) in out.chunks_mut(m.max(1)).take(m).enumerate() {
            for (b, v) in row.iter_mut().enumerate() {
                *v *= (self.sign(set[a]) * self.sign(set[b])) as f32;
            }
        }
    }
    fn add_rows(&mut self, rows: &[usize], weights: &[f64], g: &mut [f64]) {
        // The kernel rows' weighted sum over the samples, then each variable's sign.
        let samples: Vec<usize> = rows.iter().map(|&p| self.sample(p)).collect();
        let signed: Vec<f64> = rows
            .iter()
            .zip(weights)
            .map(|(&p, &w)| self.sign(p) * w)
            .collect();
        let mut sums = vec![0.0; self.gram.len()];
        self.gram
            .add_weighted_rows(&samples, &signed, None, &mut sums);
        for (p, gp) in g.iter_mut().enumerate() {
            *gp += self.sign(p) * sums[self.sample(p)];
        }
    }
}

/// Solves a dual over `Q_ij = y_i y_j K(x_i, x_j)` for the samples at `indices` (with `y` the
/// problem's) by the solver `settings` name: with one equality constraint, or with `nu` the ν
/// dual's one per label.
pub(crate) fn solve_signed<K: Kernel + ?Sized, R: Records + ?Sized>(
    settings: &Settings,
    kernel: &K,
    records: &R,
    indices: &[usize],
    problem: Problem,
    nu: bool,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    let y = problem.y.clone();
    match settings.solver {
        SvmSolver::Smo => {
            let cache = settings.cache_bytes();
            let mut q = SignedQ::new(kernel, records, indices.to_vec(), y, cache)?;
            let solve = if nu { smo::solve_nu } else { smo::solve };
            solve(&mut q, problem, &settings.solver(), observer)
        }
        SvmSolver::Batched => {
            let mut q = SignedRows::new(kernel, records, indices, y)?;
            let solve = if nu { solve_batched_nu } else { solve_batched };
            solve(&mut q, problem, &settings.batched(), observer)
        }
    }
}

/// Solves ε-SVR's dual (with `nu`, ν-SVR's) over the `2l` variables of [`SvrQ`] by the solver
/// `settings` name.
pub(crate) fn solve_svr<K: Kernel + ?Sized, R: Records + ?Sized>(
    settings: &Settings,
    kernel: &K,
    records: &R,
    problem: Problem,
    nu: bool,
    observer: &mut dyn Observer,
) -> Result<Solution> {
    match settings.solver {
        SvmSolver::Smo => {
            let mut q = SvrQ::new(kernel, records, settings.cache_bytes())?;
            let solve = if nu { smo::solve_nu } else { smo::solve };
            solve(&mut q, problem, &settings.solver(), observer)
        }
        SvmSolver::Batched => {
            let mut q = SvrRows::new(kernel, records)?;
            let solve = if nu { solve_batched_nu } else { solve_batched };
            solve(&mut q, problem, &settings.batched(), observer)
        }
    }
}
