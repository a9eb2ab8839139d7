//! Gram matrices `K[i, j] = k(x_i, z_j)`, computed in parallel.
//!
//! Kernels with a [`DotForm`] (linear, polynomial, sigmoid, RBF and their sums, products and
//! multiples) get every `x_i·z_j` from one faer GEMM — a triangular one for a symmetric Gram —
//! then the form is applied elementwise (RBF exponentials vectorized). Other kernels, and every
//! kernel where the scratch of faer's products cannot be had (an address-space limit below it:
//! [`memory::products_fit`]), use a rayon-parallel tiled loop over pairs. Every entry is computed independently of how work is
//! split, so results are identical whatever the number of threads.

use faer::linalg::matmul::triangular::BlockStructure;
use faer::{Accum, MatMut, Par};
use margin_core::{
    DenseCow, DenseMatrix, DenseView, Error, Records, Result, memory, parallel, validate,
};
use rayon::prelude::*;

use crate::kernel::{DotForm, Kernel};
use crate::simd::exp_nonpositive_in_place;

/// How a Gram matrix is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GramMethod {
    /// GEMM when the kernel has a dot-product form and the records fit the densify budget;
    /// otherwise pair by pair.
    Auto,
    /// Always pair by pair (the reference the GEMM path is tested against).
    PerPair,
}

/// Limits and choices for Gram computations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GramOptions {
    /// Largest Gram matrix to allocate, in bytes (default 4 GiB).
    pub max_bytes: usize,
    /// Largest dense copy of sparse records to make for the GEMM path, in bytes (default 512 MiB).
    pub max_densify_bytes: usize,
    /// The method.
    pub method: GramMethod,
}

impl Default for GramOptions {
    fn default() -> Self {
        Self {
            max_bytes: 4 << 30,
            max_densify_bytes: 512 << 20,
            method: GramMethod::Auto,
        }
    }
}

/// The `n × n` Gram matrix of `x` with default options.
pub fn gram<K: Kernel + ?Sized, R: Records + ?Sized>(kernel: &K, x: &R) -> Result<DenseMatrix> {
    gram_with(kernel, x, &GramOptions::default())
}

/// The `n × m` matrix `K[i, j] = k(x_i, z_j)` with default options.
pub fn cross_gram<K, R1, R2>(kernel: &K, x: &R1, z: &R2) -> Result<DenseMatrix>
where
    K: Kernel + ?Sized,
    R1: Records + ?Sized,
    R2: Records + ?Sized,
{
    cross_gram_with(kernel, x, z, &GramOptions::default())
}

fn check_budget(n: usize, m: usize, opts: &GramOptions) -> Result<()> {
    let bytes = (n as u128) * (m as u128) * 8;
    if bytes > opts.max_bytes as u128 {
        return Err(Error::invalid_parameter(
            "Gram matrix size",
            format!("{n} × {m} ({})", human_bytes(bytes)),
            format!(
                "at most {} (GramOptions::max_bytes): compute kernel columns on demand with the kernel cache (what SMO uses), approximate with Nyström or random Fourier features, or raise the budget",
                human_bytes(opts.max_bytes as u128)
            ),
        ));
    }
    Ok(())
}

/// The `n × m` kernel values, asked for first (within the budget, the machine may still not
/// have them).
fn gram_buffer(n: usize, m: usize) -> Result<Vec<f64>> {
    memory::filled_grid(
        n,
        m,
        0.0,
        &format!("the {n} × {m} Gram matrix"),
        memory::FEWER_SAMPLES,
    )
}

fn human_bytes(b: u128) -> String {
    let gb = b as f64 / (1u64 << 30) as f64;
    if gb >= 1.0 {
        format!("{gb:.1} GiB")
    } else {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    }
}

/// The faer parallelism for a product of `flops` multiply-adds (`margin_core::parallel`'s rule).
pub(crate) fn par(flops: f64) -> Par {
    parallel::faer_par(flops, parallel::Overhead::Product)
}

/// Dense records for the GEMM path: borrowed when dense, a copy when sparse and small enough.
pub(crate) fn dense_for_gemm<'a, R: Records + ?Sized>(
    x: &'a R,
    max_bytes: usize,
) -> Option<DenseCow<'a>> {
    match x.as_dense() {
        Some(d) => Some(DenseCow::Borrowed(d)),
        // A copy that cannot be had falls back to the per-pair path, which needs none.
        None if memory::bytes_of_grid::<f64>(x.n_samples(), x.n_features()) <= max_bytes as u64 => {
            x.to_dense().ok().map(DenseCow::Owned)
        }
        None => None,
    }
}

/// The `n × n` Gram matrix of `x`.
pub fn gram_with<K: Kernel + ?Sized, R: Records + ?Sized>(
    kernel: &K,
    x: &R,
    opts: &GramOptions,
) -> Result<DenseMatrix> {
    validate::check_finite(x)?;
    kernel.check(&x)?;
    let n = x.n_samples();
    check_budget(n, n, opts)?;
    let mut buf = gram_buffer(n, n)?;
    // Where faer's product scratch cannot be had (a tight address-space limit), the per-pair
    // path gives the same matrix up to rounding.
    let form = kernel
        .dot_form()
        .filter(|_| opts.method == GramMethod::Auto)
        .filter(|_| memory::products_fit(n, n, x.n_features()));
    match form
        .as_ref()
        .and_then(|f| dense_for_gemm(x, opts.max_densify_bytes).map(|d| (f, d)))
    {
        Some((form, xd)) => {
            let xf = xd.view().as_faer();
            // Lower triangle of the column-major view = upper triangle of the row-major buffer.
            let dst = MatMut::from_column_major_slice_mut(&mut buf, n, n);
            faer::linalg::matmul::triangular::matmul(
                dst,
                BlockStructure::TriangularLower,
                Accum::Replace,
                xf,
                BlockStructure::Rectangular,
                xf.transpose(),
                BlockStructure::Rectangular,
                1.0,
                par(n as f64 * n as f64 * xf.ncols() as f64 / 2.0),
            );
            // Norms from the same product, so that ‖x_i − x_i‖² is exactly 0.
            let norms: Vec<f64> = (0..n).map(|i| buf[i * n + i]).collect();
            buf.par_chunks_mut(n.max(1))
                .enumerate()
                .for_each(|(i, row)| {
                    apply_form(form, &mut row[i..], norms[i], &norms[i..]);
                });
        }
        None => {
            const BLOCK: usize = 32;
            buf.par_chunks_mut((BLOCK * n).max(1))
                .enumerate()
                .for_each(|(b, rows)| {
                    for (r, row) in rows.chunks_mut(n).enumerate() {
                        let i = b * BLOCK + r;
                        let xi = x.row(i);
                        for (j, out) in row.iter_mut().enumerate().skip(i) {
                            *out = kernel.eval(xi, x.row(j));
                        }
                    }
                });
        }
    }
    mirror_upper_to_lower(&mut buf, n);
    DenseMatrix::from_row_major(buf, n, n)
}

/// The `n × m` matrix `K[i, j] = k(x_i, z_j)`. `z` is the kernel's basis side (for a
/// precomputed kernel, the training samples with their serial numbers).
pub fn cross_gram_with<K, R1, R2>(
    kernel: &K,
    x: &R1,
    z: &R2,
    opts: &GramOptions,
) -> Result<DenseMatrix>
where
    K: Kernel + ?Sized,
    R1: Records + ?Sized,
    R2: Records + ?Sized,
{
    if x.n_features() != z.n_features() {
        return Err(Error::shape(
            "feature count of the two record sets",
            z.n_features(),
            x.n_features(),
        ));
    }
    validate::check_finite(x)?;
    validate::check_finite(z)?;
    kernel.check(&z)?;
    let (n, m) = (x.n_samples(), z.n_samples());
    check_budget(n, m, opts)?;
    let mut buf = gram_buffer(n, m)?;
    let form = kernel
        .dot_form()
        .filter(|_| opts.method == GramMethod::Auto)
        .filter(|_| memory::products_fit(n, m, x.n_features()));
    let dense = form.as_ref().and_then(|f| {
        let xd = dense_for_gemm(x, opts.max_densify_bytes)?;
        let zd = dense_for_gemm(z, opts.max_densify_bytes)?;
        Some((f, xd, zd))
    });
    match dense {
        Some((form, xd, zd)) => {
            // Row-major n × m = column-major view of shape m × n holding Z Xᵀ.
            let dst = MatMut::from_column_major_slice_mut(&mut buf, m, n);
            faer::linalg::matmul::matmul(
                dst,
                Accum::Replace,
                zd.view().as_faer(),
                xd.view().as_faer().transpose(),
                1.0,
                par(n as f64 * m as f64 * x.n_features() as f64),
            );
            let (nx, nz) = if form.needs_norms() {
                (row_norms(xd.view()), row_norms(zd.view()))
            } else {
                (vec![0.0; n], vec![0.0; m])
            };
            buf.par_chunks_mut(m.max(1))
                .enumerate()
                .for_each(|(i, row)| apply_form(form, row, nx[i], &nz));
        }
        None => {
            buf.par_chunks_mut(m.max(1))
                .enumerate()
                .for_each(|(i, row)| {
                    let xi = x.row(i);
                    for (j, out) in row.iter_mut().enumerate() {
                        *out = kernel.eval(xi, z.row(j));
                    }
                });
        }
    }
    DenseMatrix::from_row_major(buf, n, m)
}

pub(crate) fn row_norms(x: DenseView<'_>) -> Vec<f64> {
    x.rows().map(|r| margin_core::dot(r, r)).collect()
}

/// Turns dot products into kernel values in place: `out[t] = f(out[t], sq_x, sq_z[t])`.
pub(crate) fn apply_form(form: &DotForm, out: &mut [f64], sq_x: f64, sq_z: &[f64]) {
    match form {
        DotForm::Linear => {}
        DotForm::Rbf { gamma } => {
            for (v, &sz) in out.iter_mut().zip(sq_z) {
                *v = -gamma * (sq_x + sz - 2.0 * *v).max(0.0);
            }
            exp_nonpositive_in_place(out);
        }
        _ => {
            for (v, &sz) in out.iter_mut().zip(sq_z) {
                *v = form.apply(*v, sq_x, sz);
            }
        }
    }
}

/// A raw pointer shared by the mirror tasks, each of which writes rows no other task touches.
#[derive(Clone, Copy)]
struct SharedBuf(*mut f64);
// SAFETY: see `mirror_upper_to_lower`: concurrent tasks write disjoint entries and read entries
// nobody writes.
#[allow(unsafe_code)]
unsafe impl Send for SharedBuf {}
#[allow(unsafe_code)]
unsafe impl Sync for SharedBuf {}

/// Copies the upper triangle of a row-major `n × n` buffer onto its lower triangle, in
/// cache-sized tiles, in parallel over block rows.
#[allow(unsafe_code)] // writes through `SharedBuf` (see its SAFETY note)
fn mirror_upper_to_lower(buf: &mut [f64], n: usize) {
    const B: usize = 64;
    assert_eq!(buf.len(), n * n);
    let shared = SharedBuf(buf.as_mut_ptr());
    (0..n.div_ceil(B)).into_par_iter().for_each(|bi| {
        let p = shared;
        for bj in 0..=bi {
            for i in bi * B..((bi + 1) * B).min(n) {
                for j in bj * B..((bj + 1) * B).min(i) {
                    // SAFETY: i, j < n, so both offsets are in bounds. Entry (i, j) with j < i is
                    // in block row bi, written only by this task; entry (j, i) is in the upper
                    // triangle, which no task writes.
                    unsafe { *p.0.add(i * n + j) = *p.0.add(j * n + i) };
                }
            }
        }
    });
}
