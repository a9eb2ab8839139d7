//! # Least squares, ridge and kernel ridge regression
//!
//! - [`LinearRegression`]: ordinary (or, with sample weights, weighted) least squares. QR by
//!   default; the SVD's minimum-norm solution when the design is rank-deficient (collinear or
//!   constant features: [`rank`](LinearRegression::rank) and
//!   [`singular_values`](LinearRegression::singular_values) say so); the normal equations on
//!   request, or gradient descent (the textbook iterative fit, which reaches the same answer).
//!   It also reports the noise variance (maximum-likelihood `RSS/N` and unbiased
//!   `RSS/(N − p)`), the coefficients' standard errors and Gaussian prediction intervals
//!   ([`LinearRegression::predict_interval`]).
//! - [`Ridge`]: least squares plus `α‖w‖²` (intercept not penalized), by Cholesky or SVD;
//!   [`RidgeParams::fit_path`] fits many α from one SVD.
//! - [`LeastSquaresStats`]: what `LinearRegression` and `Ridge` need of their rows, gathered
//!   batch by batch ([`PartialFit`](margin_core::PartialFit)) and merged across partitions
//!   ([`Merge`](margin_core::Merge)), then fitted with
//!   [`FitStats::fit_stats`](margin_core::FitStats::fit_stats) without holding the rows.
//! - [`KernelRidge`]: ridge in a kernel's feature space, solved in the dual
//!   `c = (K + αI)⁻¹y` by Cholesky on the Gram matrix ([`margin_kernels::gram`]).
//!
//! The intercept comes from centring: the solvers see `√wᵢ (xᵢ − x̄)` and `√wᵢ (yᵢ − ȳ)` with
//! weighted means, then `b = ȳ − x̄·w`. Every dense factorization is faer's. The QR is
//! tall-skinny (row blocks of a size fixed by the shape, factored in parallel, then their
//! triangles), and every step is either thread-count independent or sequential, so a fit gives
//! the same bits on one thread or many. Sparse records are accepted and densified for the
//! linear models (`n × d` values); kernel ridge reads them through the kernel. Inputs are checked before fitting: NaN or ±∞ is
//! [`Error::NonFinite`](margin_core::Error::NonFinite), a negative α is
//! [`Error::InvalidParameter`](margin_core::Error::InvalidParameter) naming `alpha`, and
//! constant or collinear features are not an error (the SVD handles them, rank reported).
//!
//! | model | parameter | default | meaning |
//! |---|---|---|---|
//! | `LinearRegression`, `Ridge` | `fit_intercept` | true | centre the data and fit an unpenalized intercept |
//! | `LinearRegression` | `solver` | [`LstsqSolver::Qr`] | QR (SVD fallback when rank-deficient), `Svd`, `NormalEquations` (Cholesky of `XᵀX`), or `GradientDescent` |
//! | `LinearRegression` | `max_iter`, `tol` | 100,000, 1e-10 | gradient descent's step limit and gradient-norm tolerance |
//! | `Ridge` | `alpha` | 1 | penalty on `‖w‖²`, ≥ 0 |
//! | `Ridge` | `solver` | [`RidgeSolver::Cholesky`] | Cholesky of the primal or dual system (SVD fallback), or `Svd` |
//! | `KernelRidge` | `alpha` | 1 | added to the Gram matrix's diagonal, ≥ 0 |
//! | `KernelRidge` | `kernel` | linear | any [`KernelSpec`](margin_kernels::KernelSpec) (RBF, polynomial, sums, …) |
//!
//! ```
//! use margin_core::{split::train_test_split, Fit, Predict};
//! use margin_io::datasets;
//! use margin_linear::{KernelRidge, LinearRegression, Ridge};
//!
//! let data = datasets::housing_scale()?;
//! let (train, test) = train_test_split(&data, 0.25, false, 7)?;
//! let ols = LinearRegression::params().fit(&train)?;
//! assert_eq!(ols.rank(), 13);
//! let band = ols.predict_interval(&test.records, 0.95)?;
//! assert!(band.lower[0] < band.prediction[0] && band.prediction[0] < band.upper[0]);
//!
//! // One SVD, five penalties.
//! let path = Ridge::params().fit_path(&train, &[0.01, 0.1, 1.0, 10.0, 100.0])?;
//! assert!(path[4].coef().row(0).iter().map(|w| w * w).sum::<f64>()
//!     < path[0].coef().row(0).iter().map(|w| w * w).sum::<f64>());
//!
//! let krr = KernelRidge::params().alpha(0.1).kernel(margin_kernels::Rbf::with_gamma(0.1)?).fit(&train)?;
//! let truth = test.targets.values()?;
//! let mse = |p: &[f64]| p.iter().zip(truth.iter()).map(|(p, t)| (p - t) * (p - t)).sum::<f64>()
//!     / p.len() as f64;
//! assert!(mse(&krr.predict(&test.records)?) < mse(&ols.predict(&test.records)?));
//! # Ok::<(), margin_core::Error>(())
//! ```

mod design;
mod kernel_ridge;
mod least_squares;
mod ridge;
mod solve;
mod stats;
mod student_t;

pub use kernel_ridge::{KernelRidge, KernelRidgeParams};
pub use least_squares::{
    LinearRegression, LinearRegressionParams, LstsqSolver, PredictionInterval,
};
pub use ridge::{Ridge, RidgeParams, RidgeSolver};
pub use stats::LeastSquaresStats;
