//! Lasso and elastic-net regression by cyclic coordinate descent ([`margin_optim::cd`]), with
//! scikit-learn's objective, defaults and duality-gap stopping:
//!
//! `min (1/(2n)) Σᵢ sᵢ (yᵢ − w·xᵢ − b)² + α·ρ·‖w‖₁ + (α(1−ρ)/2)·‖w‖²`
//!
//! with sample weights `sᵢ` rescaled to sum to `n` (as scikit-learn does) and the intercept
//! `b` unpenalized (the data are centered first). The lasso is `ρ = l1_ratio = 1`.
//!
//! | parameter | default (`params` / `lasso_params`) | meaning |
//! |---|---|---|
//! | `alpha` | 1 | overall penalty strength `α ≥ 0` |
//! | `l1_ratio` | 0.5 / 1 | the L1 share `ρ` in [0, 1] |
//! | `fit_intercept` | true | center the data and fit an unpenalized intercept |
//! | `tol` | 1e-4 | stop when the duality gap is below `tol · ‖y − ȳ‖²` |
//! | `max_iter` | 1000 | epochs of coordinate descent |
//!
//! The design is copied once into a centered column-major matrix (`8nd` bytes; sparse input is
//! densified), which each epoch sweeps column by column.
//!
//! ```
//! use margin_core::{Fit, Predict};
//! use margin_io::datasets;
//! use margin_linear::ElasticNet;
//!
//! let data = datasets::housing_scale()?;
//! let lasso = ElasticNet::lasso_params().alpha(0.1).fit(&data)?;
//! assert!(lasso.coef().row(0).iter().any(|&w| w == 0.0)); // the lasso selects features
//! let path = ElasticNet::lasso_params().path(&data, &[1.0, 0.1, 0.01])?;
//! assert_eq!(path.len(), 3);
//! # Ok::<(), margin_core::Error>(())
//! ```

use margin_core::fit::{FitObserved, FitReport, Observer, Run};
use margin_core::params::Params;
use margin_core::{
    Dataset, DenseMatrix, Error, Fit, LinearRegressorCore, Predict, Records, Result, RowView,
    memory, model_check, validate,
};
use margin_io::ModelFile;
use margin_optim::Stop;
use margin_optim::cd::{CdOptions, Columns, Products, elastic_net, elastic_net_gram};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Hyperparameters of [`ElasticNet`] (scikit-learn's `ElasticNet` and `Lasso`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct ElasticNetParams {
    /// Penalty strength `α ≥ 0` (default 1).
    #[param(
        help = "penalty strength",
        default = 1.0,
        valid = ("a finite number >= 0", crate::finite_non_negative)
    )]
    alpha: f64,
    /// L1 share `ρ` in [0, 1] (default 0.5; 1 for the lasso).
    #[param(
        help = "L1 share of the penalty (1: the lasso)",
        default = 0.5,
        valid = ("a number in [0, 1]", |r| (0.0..=1.0).contains(r))
    )]
    l1_ratio: f64,
    /// Fit an unpenalized intercept (default true).
    #[param(help = "fit an unpenalized intercept", default = true)]
    fit_intercept: bool,
    /// Duality-gap tolerance, relative to `‖y − ȳ‖²` (default 1e-4).
    #[param(
        help = "duality-gap tolerance relative to |y - mean y|²",
        default = 1e-4,
        valid = ("a finite number >= 0", crate::finite_non_negative)
    )]
    tol: f64,
    /// Epoch limit (default 1000); reaching it is reported by [`ElasticNet::fit_report`].
    #[param(
        help = "coordinate-descent epochs",
        default = 1000,
        valid = ("at least 1", |n| *n >= 1)
    )]
    max_iter: usize,
}

impl ElasticNetParams {
    /// Fits one model per `alpha` in the order given, each warm-started from the previous
    /// solution (give them in decreasing order, as [`alpha_grid`] does, for the cheapest path).
    ///
    /// With more samples than features the path runs on `XᵀX` and `Xᵀy`, formed once with
    /// faer's GEMM ([`margin_optim::cd::elastic_net_gram`]): each coordinate step then costs `O(d)`
    /// instead of `O(n)`, and the answers are the same.
    pub fn path(&self, data: &Dataset, alphas: &[f64]) -> Result<Vec<ElasticNet>> {
        self.check()?;
        let design = Design::new(data, self.fit_intercept)?;
        let products = match design.n > design.d {
            true => Some(design.products()?),
            false => None,
        };
        let mut w = memory::filled_vec(design.d, 0.0, "the weights", memory::FEWER_FEATURES)?;
        let mut models = Vec::with_capacity(alphas.len());
        for &alpha in alphas {
            let params = self.clone().alpha(alpha);
            params.check()?;
            let model = match &products {
                Some((gram, xty, y_sq)) => {
                    let p = Products {
                        gram,
                        xty,
                        y_sq: *y_sq,
                        n: design.n,
                    };
                    let s =
                        elastic_net_gram(&p, alpha, self.l1_ratio, w, &params.options(), &mut ())?;
                    params.model(&design, s)
                }
                None => params.solve(&design, w, &mut ())?,
            };
            w = model.core.w().to_vec();
            models.push(model);
        }
        Ok(models)
    }

    fn options(&self) -> CdOptions {
        CdOptions {
            tol: self.tol,
            max_iter: self.max_iter,
        }
    }

    fn solve(
        &self,
        design: &Design,
        w0: Vec<f64>,
        observer: &mut dyn Observer,
    ) -> Result<ElasticNet> {
        let x = Columns::new(&design.columns, design.n)?;
        let (alpha, ratio) = (self.alpha, self.l1_ratio);
        let s = elastic_net(x, &design.y, alpha, ratio, w0, &self.options(), observer)?;
        Ok(self.model(design, s))
    }

    fn model(&self, design: &Design, s: margin_optim::cd::CdSolution) -> ElasticNet {
        let intercept = design.y_mean - margin_core::dot(&design.x_mean, &s.w);
        ElasticNet {
            core: LinearRegressorCore::new(s.w, intercept),
            iterations: s.iterations,
            gap: s.gap,
            stop: s.stop,
            params: self.clone(),
        }
    }
}

/// The `n_alphas` penalties scikit-learn's `lasso_path` uses: log-spaced from the smallest
/// `α` that zeroes every weight, `max |Xcᵀyc| / (n·ρ)`, down to `eps` times it.
pub fn alpha_grid(
    data: &Dataset,
    l1_ratio: f64,
    fit_intercept: bool,
    n_alphas: usize,
    eps: f64,
) -> Result<Vec<f64>> {
    validate::check_in_range("l1_ratio", l1_ratio, 0.0, 1.0, true)?;
    validate::check_in_range("eps", eps, 0.0, 1.0, true)?;
    if n_alphas == 0 {
        return Err(Error::invalid_parameter("n_alphas", 0, "at least 1"));
    }
    // From the same centered columns coordinate descent uses, so that at the first alpha
    // the soft threshold sees exactly this bound and every weight is exactly zero.
    let design = Design::new(data, fit_intercept)?;
    let n = design.n;
    let top = (0..design.d)
        .map(|j| margin_core::dot(&design.columns[j * n..(j + 1) * n], &design.y).abs())
        .fold(0.0, f64::max)
        / (n as f64 * l1_ratio);
    if top == 0.0 {
        return Ok(vec![f64::EPSILON; n_alphas]);
    }
    let (hi, lo) = (top.log10(), (top * eps).log10());
    Ok((0..n_alphas)
        .map(|k| {
            let t = if n_alphas == 1 {
                0.0
            } else {
                k as f64 / (n_alphas - 1) as f64
            };
            10f64.powf(hi + t * (lo - hi))
        })
        .collect())
}

/// The centered, weight-scaled design in column-major order.
struct Design {
    n: usize,
    d: usize,
    columns: Vec<f64>,
    y: Vec<f64>,
    x_mean: Vec<f64>,
    y_mean: f64,
}

impl Design {
    /// `(XᵀX row-major, Xᵀy, ‖y‖²)` of the centered design.
    fn products(&self) -> Result<(Vec<f64>, Vec<f64>, f64)> {
        let (n, d) = (self.n, self.d);
        let x = faer::MatRef::from_column_major_slice(&self.columns, n, d);
        memory::check_products(d, d, n)?;
        let mut gram = memory::filled_grid(
            d,
            d,
            0.0,
            &format!("the {d} × {d} Gram matrix XᵀX"),
            memory::FEWER_FEATURES,
        )?;
        // Half the product: the lower triangle, then mirrored, so the matrix is exactly
        // symmetric and either layout serves as row-major.
        faer::linalg::matmul::triangular::matmul(
            faer::MatMut::from_column_major_slice_mut(&mut gram, d, d),
            faer::linalg::matmul::triangular::BlockStructure::TriangularLower,
            faer::Accum::Replace,
            x.transpose(),
            faer::linalg::matmul::triangular::BlockStructure::Rectangular,
            x,
            faer::linalg::matmul::triangular::BlockStructure::Rectangular,
            1.0,
            // The lower triangle: n·d²/2 multiply-adds.
            margin_core::parallel::faer_par(
                n as f64 * d as f64 * d as f64 / 2.0,
                margin_core::parallel::Overhead::Product,
            ),
        );
        for j in 0..d {
            for k in j + 1..d {
                gram[k * d + j] = gram[j * d + k];
            }
        }
        let xty = (0..d)
            .map(|j| margin_core::dot(&self.columns[j * n..(j + 1) * n], &self.y))
            .collect();
        Ok((gram, xty, margin_core::dot(&self.y, &self.y)))
    }

    fn new(data: &Dataset, fit_intercept: bool) -> Result<Self> {
        let centered = Centering::new(data, fit_intercept)?;
        let x = &data.records;
        let (n, d) = (x.n_samples(), x.n_features());
        let root: Vec<f64> = centered.s.iter().map(|v| v.sqrt()).collect();
        // Column j holds √sᵢ (xᵢⱼ − x̄ⱼ). Each task fills a block of columns from every row,
        // so the transposition writes a few streams at a time, in parallel.
        const BLOCK: usize = 16;
        let mut columns = memory::filled_grid(
            n,
            d,
            0.0,
            &format!("the elastic net's dense design ({n} × {d})"),
            memory::DENSE_COPY,
        )?;
        columns
            .par_chunks_mut(n * BLOCK)
            .enumerate()
            .for_each(|(b, block)| {
                let j0 = b * BLOCK;
                let width = block.len() / n;
                for (i, r) in root.iter().enumerate() {
                    match x.row(i) {
                        RowView::Dense(row) => {
                            for (k, v) in row[j0..j0 + width].iter().enumerate() {
                                block[k * n + i] = r * v;
                            }
                        }
                        RowView::Sparse(row) => {
                            let start = row.indices.partition_point(|&j| (j as usize) < j0);
                            for (&j, v) in row.indices[start..].iter().zip(&row.values[start..]) {
                                let k = j as usize - j0;
                                if k >= width {
                                    break;
                                }
                                block[k * n + i] = r * v;
                            }
                        }
                    }
                }
                for k in 0..width {
                    let mean = centered.x_mean[j0 + k];
                    for (c, r) in block[k * n..(k + 1) * n].iter_mut().zip(&root) {
                        *c -= r * mean;
                    }
                }
            });
        let y = (0..n)
            .map(|i| root[i] * (centered.targets[i] - centered.y_mean))
            .collect();
        Ok(Self {
            n,
            d,
            columns,
            y,
            x_mean: centered.x_mean,
            y_mean: centered.y_mean,
        })
    }
}

/// Sample weights rescaled to sum to `n` (as scikit-learn does) and the weighted means.
struct Centering<'a> {
    targets: std::borrow::Cow<'a, [f64]>,
    s: Vec<f64>,
    x_mean: Vec<f64>,
    y_mean: f64,
}

impl<'a> Centering<'a> {
    fn new(data: &'a Dataset, fit_intercept: bool) -> Result<Self> {
        validate::check_dataset(data)?;
        let targets = data.targets.values()?;
        let x = &data.records;
        let (n, d) = (x.n_samples(), x.n_features());
        let s: Vec<f64> = match &data.sample_weights {
            Some(w) => {
                let total: f64 = w.iter().sum();
                if total <= 0.0 {
                    return Err(Error::invalid_parameter(
                        "sample_weights",
                        "all zero",
                        "weights with a positive sum",
                    ));
                }
                w.iter().map(|v| v * n as f64 / total).collect()
            }
            None => vec![1.0; n],
        };
        // The design is dense by column (n × d, below): asked for first, with the means.
        memory::check(
            memory::bytes_of_grid::<f64>(n.saturating_add(1), d),
            &format!("the elastic net's dense design ({n} × {d})"),
            memory::DENSE_COPY,
        )?;
        let mut x_mean = memory::filled_vec(d, 0.0, "the feature means", memory::FEWER_FEATURES)?;
        let mut y_mean = 0.0;
        if fit_intercept {
            for i in 0..n {
                x.row(i).axpy(s[i] / n as f64, &mut x_mean);
                y_mean += s[i] * targets[i] / n as f64;
            }
        }
        Ok(Self {
            targets,
            s,
            x_mean,
            y_mean,
        })
    }
}

/// A fitted lasso / elastic-net model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElasticNet {
    core: LinearRegressorCore,
    iterations: usize,
    gap: f64,
    stop: Stop,
    /// The hyperparameters the model was fitted with.
    params: ElasticNetParams,
}

impl ElasticNet {
    /// The hyperparameters the model was fitted with (see [`ElasticNetParams`]).
    pub fn hyperparams(&self) -> &ElasticNetParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.core.n_features()
    }
    /// Elastic-net hyperparameters (scikit-learn's `ElasticNet()` defaults).
    pub fn params() -> ElasticNetParams {
        ElasticNetParams::default()
    }

    /// Lasso hyperparameters (`l1_ratio = 1`; scikit-learn's `Lasso()` defaults).
    pub fn lasso_params() -> ElasticNetParams {
        ElasticNetParams::default().l1_ratio(1.0)
    }

    /// The weights (exact zeros for features the L1 term removed) as scikit-learn's `coef_`
    /// for every linear model: one row (one output), one column per feature.
    pub fn coef(&self) -> &DenseMatrix {
        self.core.coef()
    }

    /// The intercept `b`, one per row of `coef()` (one entry; 0 when fitted without one).
    pub fn intercept(&self) -> &[f64] {
        self.core.intercept()
    }

    /// The `α` the model was fitted with.
    pub fn alpha(&self) -> f64 {
        self.params.alpha
    }

    /// The `l1_ratio` the model was fitted with.
    pub fn l1_ratio(&self) -> f64 {
        self.params.l1_ratio
    }

    /// The final duality gap (objective units times `n`).
    pub fn dual_gap(&self) -> f64 {
        self.gap
    }

    /// How the fit went: one coordinate-descent run (its violation the final duality gap),
    /// at the limit when `max_iter` epochs left the gap above `tol` (scikit-learn's
    /// "Objective did not converge").
    pub fn fit_report(&self) -> FitReport {
        FitReport::new(vec![Run {
            violation: self.gap.is_finite().then_some(self.gap),
            ..Run::new(self.iterations, self.stop)
        }])
    }
}

impl Fit for ElasticNetParams {
    type Model = ElasticNet;

    fn fit(&self, data: &Dataset) -> Result<ElasticNet> {
        self.fit_observed(data, &mut ())
    }
}

impl FitObserved for ElasticNetParams {
    fn fit_observed(&self, data: &Dataset, observer: &mut dyn Observer) -> Result<ElasticNet> {
        self.check()?;
        let design = Design::new(data, self.fit_intercept)?;
        let d = design.d;
        self.solve(&design, vec![0.0; d], observer)
    }
}

impl Predict for ElasticNet {
    type Output = Vec<f64>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<f64>> {
        validate::check_predict(self.n_features(), records)?;
        let (w, b) = (self.core.w(), self.core.b());
        Ok((0..records.n_samples())
            .into_par_iter()
            .map(|i| records.row(i).dot_dense(w) + b)
            .collect())
    }
}

impl ModelFile for ElasticNet {
    const KIND: &'static str = "elastic-net";
    // 2: the hyperparameters the model was fitted with; 3: α and l1_ratio only inside them.
    const SCHEMA: u32 = 3;

    /// Finite weights and intercept.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        self.core.check_consistent()
    }
}
