//! Mahalanobis distance as Euclidean distance after whitening: with `Σ = L Lᵀ` (Cholesky),
//! `(x − z)ᵀ Σ⁻¹ (x − z) = ‖L⁻¹x − L⁻¹z‖²`, so records are mapped once through `L⁻¹` and
//! searched with the Euclidean machinery.

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_lower_triangular_in_place;
use faer::{Accum, Mat, Par, Side};
use margin_core::{DenseMatrix, Error, Records, Result, memory, parallel};
use rayon::prelude::*;

use crate::metric::Covariance;

/// A feature whose variance is explained by the previous features to within this fraction
/// (its Cholesky pivot² over its variance) makes `Σ` numerically singular.
const SINGULAR_FRACTION: f64 = 1e-10;

/// Rows whitened per block. Fixed, not cut by the parallel rule's chunk length: faer's
/// triangular solve of a block may take another path for another block width, and a sample's
/// whitened values must not depend on the thread count.
const ROWS_PER_BLOCK: usize = 1024;

/// The lower Cholesky factor `L` of a Mahalanobis covariance.
#[derive(Clone, Debug)]
pub(crate) struct Whitening {
    l: Mat<f64>,
}

/// The sample covariance of `records` (denominator `n − 1`).
fn sample_covariance<R: Records + ?Sized>(records: &R) -> Result<Mat<f64>> {
    let (n, d) = (records.n_samples(), records.n_features());
    if n < 2 {
        return Err(Error::invalid_parameter(
            "metric",
            "mahalanobis",
            format!(
                "a covariance estimated from at least {} samples (not {n}), or a given one",
                d + 1
            ),
        ));
    }
    // The centred copy and the covariance, both dense: asked for first (faer allocates them),
    // with the scratch of faer's products.
    memory::check_products(d, d, n)?;
    memory::check(
        memory::bytes_of_grid::<f64>(n.saturating_add(d), d),
        &format!("the Mahalanobis covariance of {n} × {d} records"),
        memory::DENSE_COPY,
    )?;
    let mut x = records.to_dense()?.to_faer();
    for j in 0..d {
        let mean = (0..n).map(|i| x[(i, j)]).sum::<f64>() / n as f64;
        (0..n).for_each(|i| x[(i, j)] -= mean);
    }
    let mut cov = Mat::<f64>::zeros(d, d);
    matmul(
        cov.as_mut(),
        Accum::Replace,
        x.transpose(),
        x.as_ref(),
        1.0 / (n - 1) as f64,
        Par::Seq,
    );
    Ok(cov)
}

impl Whitening {
    /// Factors the covariance (given, or estimated from `train`), refusing a singular one.
    pub(crate) fn new<R: Records + ?Sized>(cov: &Covariance, train: &R) -> Result<Self> {
        let sigma = match cov {
            Covariance::FromTraining => sample_covariance(train)?,
            Covariance::Given(c) => {
                let m = c.to_faer();
                let scale = m.norm_max();
                for i in 0..m.nrows() {
                    for j in 0..i {
                        if (m[(i, j)] - m[(j, i)]).abs() > 1e-12 * scale {
                            return Err(Error::invalid_parameter(
                                "covariance",
                                format!(
                                    "entries ({i}, {j}) = {} and ({j}, {i}) = {}",
                                    m[(i, j)],
                                    m[(j, i)]
                                ),
                                "a symmetric matrix",
                            ));
                        }
                    }
                }
                m
            }
        };
        let singular = |j: usize| {
            Error::invalid_parameter(
                "metric",
                "mahalanobis",
                format!(
                    "a non-singular covariance (this one is singular: feature {j} is constant \
                     or a linear combination of the features before it; drop it, or give a \
                     positive definite covariance)"
                ),
            )
        };
        let l = sigma
            .llt(Side::Lower)
            .map_err(|e| match e {
                faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
                    singular(index)
                }
            })?
            .L()
            .to_owned();
        for j in 0..l.nrows() {
            if l[(j, j)] * l[(j, j)] <= SINGULAR_FRACTION * sigma[(j, j)] {
                return Err(singular(j));
            }
        }
        Ok(Self { l })
    }

    /// `L⁻¹ x` for every row, as dense records.
    pub(crate) fn apply<R: Records + ?Sized>(&self, records: &R) -> Result<DenseMatrix> {
        let (n, d) = (records.n_samples(), records.n_features());
        let mut out = DenseMatrix::try_zeros(n, d, "the whitened records", memory::DENSE_COPY)?;
        let solve = |(index, chunk): (usize, &mut [f64])| {
            let rows = chunk.len() / d.max(1);
            for r in 0..rows {
                records
                    .row(index * ROWS_PER_BLOCK + r)
                    .to_dense_into(&mut chunk[r * d..(r + 1) * d]);
            }
            // A row-major `rows × d` block is a column-major `d × rows` one: each column is a
            // sample, solved in place.
            let block = faer::MatMut::from_column_major_slice_mut(chunk, d, rows);
            solve_lower_triangular_in_place(self.l.as_ref(), block, Par::Seq);
        };
        // A row costs its copy and the solve's d²/2 multiply-adds.
        let work = n.saturating_mul(d + d * d / 2);
        let blocks = ROWS_PER_BLOCK * d.max(1);
        if parallel::should_split(work, parallel::Overhead::Loop) {
            out.as_mut_slice()
                .par_chunks_mut(blocks)
                .enumerate()
                .for_each(solve);
        } else {
            out.as_mut_slice()
                .chunks_mut(blocks)
                .enumerate()
                .for_each(solve);
        }
        Ok(out)
    }
}
