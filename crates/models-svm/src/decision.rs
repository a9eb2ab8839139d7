//! Decision values of a kernel expansion: kernel values between samples to predict and a
//! model's support vectors in bounded blocks, or a linear kernel's weight vectors.

use margin_core::{DenseMatrix, Error, Matrix, Records, Result, RowRange, RowView, memory};
use margin_kernels::{Kernel, KernelSpec, cross_gram};

/// Largest block of kernel values held at once while predicting, in bytes.
const BLOCK_BYTES: usize = 64 << 20;

/// Calls `f(i, k)` for every row `i` of `records`, where `k[s] = K(x_i, sv_s)`. Rows are
/// processed in blocks whose kernel matrix (GEMM-backed for dot-product kernels) stays below
/// 64 MiB.
pub(crate) fn kernel_rows<K, R>(
    kernel: &K,
    records: &R,
    support: &Matrix,
    mut f: impl FnMut(usize, &[f64]),
) -> Result<()>
where
    K: Kernel + ?Sized,
    R: Records + ?Sized,
{
    let n = records.n_samples();
    let m = support.n_samples().max(1);
    let block = (BLOCK_BYTES / (8 * m)).clamp(1, n.max(1));
    let mut start = 0;
    while start < n {
        let end = (start + block).min(n);
        let kx = match records.as_sparse() {
            // CSR rows are copied into a CSR block, which the sparse Gram path reads.
            Some(s) => {
                let rows: Vec<usize> = (start..end).collect();
                cross_gram(kernel, &s.select_rows(&rows)?, support)?
            }
            // Dense rows are borrowed (so the dense Gram path reads them in place).
            None => cross_gram(kernel, &RowRange::new(records, start..end)?, support)?,
        };
        for (r, i) in (start..end).enumerate() {
            f(i, kx.row(r));
        }
        start = end;
    }
    Ok(())
}

/// `k(x, z)` as LIBSVM's `Kernel::k_function` computes it, bit for bit: dot products summed
/// term by term in feature order, RBF from the squared differences in feature order (not from
/// norms), then the kernel's form. What LIBSVM's own predictions (and the probability models
/// fitted on them) are made of; [`kernel_rows`] is faster and agrees to rounding.
pub(crate) fn libsvm_kernel<K: Kernel + ?Sized>(kernel: &K, x: RowView<'_>, z: RowView<'_>) -> f64 {
    match kernel.dot_form() {
        Some(form) if !form.needs_norms() => {
            // Features stored in only one row add a signed zero, which leaves the sum as
            // LIBSVM's (it skips them).
            let mut dot = 0.0;
            x.zip_union(&z, |a, b| dot += a * b);
            form.apply(dot, 0.0, 0.0)
        }
        // RBF (`exp(−γ Σ (x_j − z_j)²)` in feature order) and precomputed kernels evaluate as
        // LIBSVM does already.
        _ => kernel.eval(x, z),
    }
}

/// Dense weight vectors with at most this many values in all are kept whatever the support
/// vectors' size (8 MiB).
const SMALL_WEIGHTS: usize = 1 << 20;

/// Whether [`linear_weights`] keeps weights wider than the support vectors.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    /// Only when the dense weights take no more room than the support vectors' stored entries
    /// (or 8 MiB): what a model keeps for fast predictions.
    Bounded,
    /// Whatever the width, as long as the memory can be had: what `coef()` returns.
    Any,
}

/// For a linear kernel, each expansion's weight vector `w = Σ_s c_s sv_s`, so that a decision
/// value is one dot product; `None` for other kernels, or (with [`Width::Bounded`]) where the
/// dense `expansions × n_features` values would outgrow the support vectors (a sparse file
/// with a huge feature index): decisions then go through the kernel, whose memory follows the
/// support vectors' stored entries. Each `(s, c)` of an expansion adds `c` times support
/// vector `s`.
pub(crate) fn linear_weights<I, E>(
    kernel: &KernelSpec,
    support: &Matrix,
    n_features: usize,
    expansions: I,
    width: Width,
) -> Result<Option<Vec<Vec<f64>>>>
where
    I: ExactSizeIterator<Item = E>,
    E: IntoIterator<Item = (usize, f64)>,
{
    if *kernel != KernelSpec::Linear(margin_kernels::Linear) {
        return Ok(None);
    }
    let values = expansions.len().saturating_mul(n_features);
    if width == Width::Bounded && values > SMALL_WEIGHTS.max(support.nnz()) {
        return Ok(None);
    }
    memory::check(
        memory::bytes_of::<f64>(values),
        "the weight vectors of a linear-kernel SVM",
        memory::FEWER_FEATURES,
    )?;
    expansions
        .map(|coef| {
            let mut w = memory::filled_vec(
                n_features,
                0.0,
                "the weight vector of a linear-kernel SVM",
                memory::FEWER_FEATURES,
            )?;
            for (s, c) in coef {
                support.row(s).axpy(c, &mut w);
            }
            Ok(w)
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// The geometric margin `1/‖w‖` of each row of weights (infinite for `w = 0`).
pub(crate) fn margins(coef: &DenseMatrix) -> Vec<f64> {
    coef.rows()
        .map(|w| 1.0 / margin_core::dot(w, w).sqrt())
        .collect()
}

/// scikit-learn's `coef_` of a kernel SVM: each expansion's weight vector `w = Σ_s c_s sv_s`
/// times `sign`, one row per expansion, from the weights the model keeps (`stored`) or else
/// computed whatever their width. Only the linear kernel has weights in the input space: any
/// other kernel is [`Error::Unsupported`] naming it (scikit-learn raises `AttributeError`).
pub(crate) fn coef_matrix<I, E>(
    kernel: &KernelSpec,
    support: &Matrix,
    n_features: usize,
    stored: Option<&[Vec<f64>]>,
    expansions: I,
    sign: f64,
) -> Result<DenseMatrix>
where
    I: ExactSizeIterator<Item = E>,
    E: IntoIterator<Item = (usize, f64)>,
{
    let computed;
    let rows = match stored {
        Some(ws) => ws,
        None => {
            computed = linear_weights(kernel, support, n_features, expansions, Width::Any)?
                .ok_or_else(|| {
                    Error::unsupported(
                        "coef",
                        format!(
                            "the model's kernel is {}, and only a linear-kernel SVM has weights \
                             in the input space; its dual coefficients and support vectors \
                             describe it instead",
                            kernel.name()
                        ),
                    )
                })?;
            &computed[..]
        }
    };
    let mut coef = DenseMatrix::try_zeros(
        rows.len(),
        n_features,
        "the weights of a linear-kernel SVM",
        memory::FEWER_FEATURES,
    )?;
    for (i, w) in rows.iter().enumerate() {
        for (out, v) in coef.row_mut(i).iter_mut().zip(w) {
            *out = sign * v;
        }
    }
    Ok(coef)
}
