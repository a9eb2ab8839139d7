//! Kernel ridge regression: ridge in the feature space of a kernel, solved in the dual.

use margin_core::faer::{Mat, MatMut};
use margin_core::{
    Dataset, Error, Fit, Matrix, Predict, Records, Result, RowRange, memory, model_check, validate,
};
use margin_io::ModelFile;
use margin_kernels::{Gamma, KernelKind, KernelParams, KernelSpec};
use serde::{Deserialize, Serialize};

use margin_core::parallel::{self, Overhead};
use margin_core::params::Params;

use super::design::{Supervision, regression_inputs};
use super::solve::{cholesky_solve_in_place, symmetric_pinv_solve};

/// Kernel entries computed per block of rows at prediction (32 MiB of `f64`), so predicting
/// many samples never holds the whole test × train kernel matrix.
const PREDICT_BLOCK_ENTRIES: usize = 1 << 22;

/// Parameters of [`KernelRidge`] (scikit-learn's names and defaults).
///
/// The kernel is scikit-learn's `kernel`, `gamma`, `degree` and `coef0` (default linear;
/// scikit-learn's `gamma=None` is `auto`, `γ = 1 / n_features`; degree 3; coef0 1), resolved
/// on the training records at fit time, or any [`KernelSpec`] given to
/// [`KernelRidgeParams::kernel`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct KernelRidgeParams {
    /// Penalty strength `α ≥ 0` (default 1), added to the Gram matrix's diagonal.
    #[param(
        help = "penalty strength, added to the Gram matrix's diagonal",
        default = 1.0,
        valid = ("a finite number ≥ 0", crate::finite_non_negative)
    )]
    alpha: f64,
    #[param(flatten, default = DEFAULT_KERNEL)]
    kernel: KernelParams,
}

/// scikit-learn's `KernelRidge` kernel defaults.
const DEFAULT_KERNEL: KernelParams = KernelParams::named(KernelKind::Linear, Gamma::Auto, 3, 1.0);

/// A fitted kernel ridge regression `f(x) = Σᵢ cᵢ k(xᵢ, x)` with dual coefficients
/// `c = (K + αI)⁻¹ y`. There is no intercept (as in scikit-learn); with the linear kernel the
/// model is [`Ridge`](super::Ridge) without an intercept.
///
/// The model keeps its training records, which every prediction needs; with sample weights
/// `sw`, `c = √sw ⊙ (√sw K √sw + αI)⁻¹ (√sw ⊙ y)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelRidge {
    kernel: KernelSpec,
    dual_coef: Vec<f64>,
    records: Matrix,
    /// The hyperparameters the model was fitted with.
    params: KernelRidgeParams,
}

impl KernelRidge {
    /// The hyperparameters the model was fitted with (see [`KernelRidgeParams`]).
    pub fn hyperparams(&self) -> &KernelRidgeParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.records.n_features()
    }
    /// Default parameters.
    pub fn params() -> KernelRidgeParams {
        KernelRidgeParams::default()
    }
    /// The kernel.
    pub fn kernel(&self) -> &KernelSpec {
        &self.kernel
    }
    /// The dual coefficients `c`, one per training sample.
    pub fn dual_coef(&self) -> &[f64] {
        &self.dual_coef
    }
    /// The training records the predictions expand over.
    pub fn training_records(&self) -> &Matrix {
        &self.records
    }
}

/// `√sw K √sw + αI` in place over the (symmetric, so equally row- or column-major) Gram
/// buffer.
fn regularize(mut k: MatMut<'_, f64>, sqrt_w: Option<&[f64]>, alpha: f64) {
    let n = k.nrows();
    if let Some(s) = sqrt_w {
        for j in 0..n {
            for i in 0..n {
                k[(i, j)] *= s[i] * s[j];
            }
        }
    }
    for i in 0..n {
        k[(i, i)] += alpha;
    }
}

fn gram_matrix(kernel: &KernelSpec, records: &Matrix) -> Result<Vec<f64>> {
    let k = margin_kernels::gram(kernel, records)?.into_vec();
    if k.iter().any(|v| !v.is_finite()) {
        return Err(Error::OutOfRange {
            what: "the features".into(),
            reason: format!(
                "the {} kernel overflowed on these records: rescale the features",
                margin_kernels::Kernel::name(kernel)
            ),
        });
    }
    Ok(k)
}

impl Fit for KernelRidgeParams {
    type Model = KernelRidge;

    fn fit(&self, data: &Dataset) -> Result<KernelRidge> {
        self.check()?;
        let Supervision { y, weights: w } = regression_inputs(data)?;
        let n = data.n_samples();
        let sqrt_w: Option<Vec<f64>> = w.map(|w| w.iter().map(|v| v.sqrt()).collect());
        let weight = |i: usize| sqrt_w.as_ref().map_or(1.0, |s| s[i]);
        // The Gram matrix (n × n) and, should Cholesky fail, a second one with the least-squares
        // solver's workspace (faer's), and the scratch of faer's products: asked for first.
        memory::check_products(n, n, n.max(data.n_features()))?;
        memory::check(
            memory::bytes_of_grid::<f64>(n, n.saturating_mul(3)),
            &format!("kernel ridge's {n} × {n} Gram matrices"),
            memory::FEWER_SAMPLES,
        )?;
        let kernel = self.kernel.resolve(&data.records)?;
        // A precomputed kernel's serial numbers must name training samples.
        margin_kernels::Kernel::check(&kernel, &data.records)?;
        let mut rhs = Mat::<f64>::from_fn(n, 1, |i, _| y[i] * weight(i));
        let mut k = gram_matrix(&kernel, &data.records)?;
        let mut a = MatMut::from_column_major_slice_mut(&mut k, n, n);
        regularize(a.as_mut(), sqrt_w.as_deref(), self.alpha);
        let par = parallel::faer_par((n as f64).powi(3) / 3.0, Overhead::Decomposition);
        let solution = if cholesky_solve_in_place(a, rhs.as_mut(), par) {
            rhs
        } else {
            // Not positive definite (α = 0 on a singular Gram, or an indefinite kernel such as
            // the sigmoid): the minimum-norm least-squares solution, as scikit-learn falls back
            // to. The factorization overwrote the matrix, so it is computed again.
            let mut k = gram_matrix(&kernel, &data.records)?;
            let mut a = MatMut::from_column_major_slice_mut(&mut k, n, n);
            regularize(a.as_mut(), sqrt_w.as_deref(), self.alpha);
            let b = Mat::<f64>::from_fn(n, 1, |i, _| y[i] * weight(i));
            symmetric_pinv_solve(a.as_ref(), b.as_ref())?
        };
        let dual_coef: Vec<f64> = (0..n).map(|i| solution[(i, 0)] * weight(i)).collect();
        if dual_coef.iter().any(|c| !c.is_finite()) {
            return Err(Error::Numerical(
                "kernel ridge produced non-finite coefficients: rescale the features or targets"
                    .into(),
            ));
        }
        Ok(KernelRidge {
            kernel,
            dual_coef,
            records: data.records.clone(),
            params: self.clone(),
        })
    }
}

impl Predict for KernelRidge {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        validate::check_predict(self.records.n_features(), records)?;
        let m = records.n_samples();
        let n_train = self.records.n_samples().max(1);
        let block = (PREDICT_BLOCK_ENTRIES / n_train).max(1);
        let mut out = Vec::with_capacity(m);
        for start in (0..m).step_by(block) {
            let rows = RowRange::new(records, start..start + block.min(m - start))?;
            let k = margin_kernels::cross_gram(&self.kernel, &rows, &self.records)?;
            out.extend(k.rows().map(|r| margin_core::dot(r, &self.dual_coef)));
        }
        Ok(out)
    }
}

impl ModelFile for KernelRidge {
    const KIND: &'static str = "kernel-ridge";
    // 2: the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    /// Finite training rows and a kernel valid on them, one finite dual coefficient per row.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let (n, d) = (self.dual_coef.len(), self.records.n_features());
        model_check::records("records", &self.records, n, d)?;
        model_check::within("kernel", self.kernel.check_decoded(&self.records))?;
        model_check::finite("dual_coef", &self.dual_coef)
    }
}
