//! The dual's `Q` matrices, built on the kernels crate's column cache, as the SMO solver sees
//! them.

use margin_core::{Records, Result};
use margin_kernels::{ColumnCache, ColumnSource, Kernel, KernelSource};
use margin_optim::smo::QMatrix;

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
            cache: ColumnCache::new(SignedSource { kernel: source, y }, cache_bytes),
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
            cache: ColumnCache::new(source, cache_bytes),
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
