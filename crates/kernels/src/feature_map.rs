//! The explicit feature map of the polynomial kernel: the kernel trick made visible.

use margin_core::{DenseMatrix, Fit, Records, Result, Transform};
use margin_preprocessing::PolynomialFeatures;

use crate::standard::Polynomial;

/// `ψ(x)` with `ψ(x)·ψ(z) = (γ x·z + coef0)^p`: every monomial of degree ≤ p with the
/// multinomial weight that makes the inner product expand to the kernel. For `coef0 > 0`,
/// `(γ x·z + c)^p = c^p (1 + x'·z')^p` with `x' = √(γ/c)·x`; for `coef0 = 0` only the
/// degree-p monomials remain, weighted by `γ^{p/2}`. The map has `C(d + p, p)` columns: it
/// shows what the kernel computes implicitly, at a cost that grows as `d^p`.
pub fn polynomial_feature_map<R: Records + ?Sized>(
    kernel: &Polynomial,
    x: &R,
) -> Result<DenseMatrix> {
    let (g, c, p) = (kernel.gamma(), kernel.coef0(), kernel.degree());
    let expansion = PolynomialFeatures::params()
        .degree(p as usize)
        .kernel_scaling(true)
        .fit(x)?;
    let mut xs = x.to_dense()?;
    let inner = if c > 0.0 { (g / c).sqrt() } else { 1.0 };
    xs.as_mut_slice().iter_mut().for_each(|v| *v *= inner);
    let full = expansion.transform(&xs)?.to_dense()?;
    if c > 0.0 {
        let outer = c.powf(p as f64 / 2.0);
        let mut out = full;
        out.as_mut_slice().iter_mut().for_each(|v| *v *= outer);
        return Ok(out);
    }
    // coef0 = 0: keep the degree-p columns. Their kernel-scaled weights √(p!/∏α!) are exactly
    // the homogeneous expansion's.
    let keep: Vec<usize> = expansion
        .powers()
        .iter()
        .enumerate()
        .filter(|(_, pw)| pw.iter().sum::<u32>() == p)
        .map(|(k, _)| k)
        .collect();
    let outer = g.powf(p as f64 / 2.0);
    let rows: Vec<Vec<f64>> = full
        .rows()
        .map(|r| keep.iter().map(|&k| outer * r[k]).collect())
        .collect();
    DenseMatrix::from_rows(&rows)
}
