//! The standard kernels, with scikit-learn's / LIBSVM's parameter names and meanings.

use std::borrow::Cow;

use margin_core::params::{ParamType, Value};
use margin_core::{Error, Records, Result, RowView};
use serde::{Deserialize, Serialize};

use crate::kernel::{DotForm, Kernel, powi};

/// How γ is chosen, as scikit-learn's `gamma` parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Gamma {
    /// `1 / (d · Var(X))`, the variance taken over every entry of the training records
    /// (unstored sparse entries count as zeros); 1 when that variance is 0. scikit-learn's default.
    #[default]
    Scale,
    /// `1 / d`. LIBSVM's default.
    Auto,
    /// A given value (> 0).
    Value(f64),
}

/// A given γ: `Svc::params().gamma(0.5)`.
impl From<f64> for Gamma {
    fn from(value: f64) -> Self {
        Gamma::Value(value)
    }
}

impl Gamma {
    /// The value of γ for these training records.
    pub fn resolve<R: Records + ?Sized>(&self, records: &R) -> Result<f64> {
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        if matches!(self, Gamma::Scale) {
            for i in 0..records.n_samples() {
                records.row(i).for_each_stored(|_, v| {
                    sum += v;
                    sum_sq += v * v;
                });
            }
        }
        self.resolve_sums(records.n_samples(), records.n_features(), sum, sum_sq)
    }

    /// The value of γ for `n_samples` records of `n_features` features whose entries sum to
    /// `sum` and their squares to `sum_sq` (only `"scale"` reads the sums): what
    /// [`resolve`](Self::resolve) gives, from sums gathered elsewhere, as over a table's
    /// partitions.
    pub fn resolve_sums(
        &self,
        n_samples: usize,
        n_features: usize,
        sum: f64,
        sum_sq: f64,
    ) -> Result<f64> {
        let d = n_features;
        match *self {
            Gamma::Value(g) if g.is_finite() && g > 0.0 => Ok(g),
            Gamma::Value(g) => Err(Error::invalid_parameter(
                "gamma",
                g,
                "a finite number > 0, \"scale\" or \"auto\"",
            )),
            _ if d == 0 => Err(Error::EmptyDataset(
                "no features: gamma cannot be derived".into(),
            )),
            Gamma::Auto => Ok(1.0 / d as f64),
            Gamma::Scale => {
                // In floating point: n · d can exceed usize (2³² − 1 features), and both
                // factors are exact, so the one rounding is the same as the integer product's.
                let total = n_samples as f64 * d as f64;
                if total == 0.0 {
                    return Err(Error::EmptyDataset(
                        "no samples: gamma cannot be derived".into(),
                    ));
                }
                let mean = sum / total;
                let var = (sum_sq / total - mean * mean).max(0.0);
                Ok(if var > 0.0 {
                    1.0 / (d as f64 * var)
                } else {
                    1.0
                })
            }
        }
    }
}

/// `scale`, `auto` or a number, as scikit-learn's `gamma` is written. Any number reads (the
/// params that hold a γ check its range, as [`Gamma::resolve`] does).
impl ParamType for Gamma {
    fn kind() -> Cow<'static, str> {
        "scale|auto|<number>".into()
    }
    fn parse(text: &str) -> std::result::Result<Self, String> {
        match text.trim() {
            "scale" => Ok(Gamma::Scale),
            "auto" => Ok(Gamma::Auto),
            number => number
                .parse()
                .map(Gamma::Value)
                .map_err(|_| "scale, auto or a number (as 0.5 or 1e-3)".to_owned()),
        }
    }
    fn to_value(&self) -> Value {
        match *self {
            Gamma::Scale => Value::Text("scale".into()),
            Gamma::Auto => Value::Text("auto".into()),
            Gamma::Value(g) => Value::Float(g),
        }
    }
}

/// The range of a polynomial kernel's `coef0`, as its builder and the kernel params say it.
pub(crate) const POLYNOMIAL_COEF0_RANGE: &str =
    "a finite number ≥ 0 (a negative coef0 breaks positive semi-definiteness)";

fn check_gamma(gamma: f64) -> Result<()> {
    if gamma.is_finite() && gamma > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            "gamma",
            gamma,
            "a finite number > 0",
        ))
    }
}

/// `k(x, z) = x·z`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Linear;

impl Kernel for Linear {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        x.dot(&z)
    }
    fn name(&self) -> String {
        "linear".into()
    }
    fn dot_form(&self) -> Option<DotForm> {
        Some(DotForm::Linear)
    }
}

/// `k(x, z) = (γ x·z + coef0)^degree`. `(x·z)²` is `γ = 1, coef0 = 0, degree = 2`;
/// `(1 + x·z)^p` is `γ = 1, coef0 = 1, degree = p`. PSD for `coef0 ≥ 0`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Polynomial {
    gamma: f64,
    coef0: f64,
    degree: u32,
}

impl Polynomial {
    /// The homogeneous `(x·z)^degree` (γ = 1, coef0 = 0), `degree ≥ 1`; set γ and coef0 by
    /// name with [`Polynomial::with_gamma`] and [`Polynomial::with_coef0`], so the two numbers
    /// cannot be swapped silently:
    ///
    /// ```
    /// use margin_kernels::Polynomial;
    ///
    /// // (0.5 x·z + 1)³
    /// let k = Polynomial::with_degree(3)?.with_gamma(0.5)?.with_coef0(1.0)?;
    /// assert_eq!((k.gamma(), k.coef0(), k.degree()), (0.5, 1.0, 3));
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    pub fn with_degree(degree: u32) -> Result<Self> {
        if degree == 0 {
            return Err(Error::invalid_parameter("degree", degree, "an integer ≥ 1"));
        }
        Ok(Self {
            gamma: 1.0,
            coef0: 0.0,
            degree,
        })
    }

    /// This kernel with `γ > 0` (finite).
    pub fn with_gamma(self, gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Self { gamma, ..self })
    }

    /// This kernel with the constant term `coef0 ≥ 0` (finite): a negative one breaks positive
    /// semi-definiteness.
    pub fn with_coef0(self, coef0: f64) -> Result<Self> {
        if !(coef0.is_finite() && coef0 >= 0.0) {
            return Err(Error::invalid_parameter(
                "coef0",
                coef0,
                POLYNOMIAL_COEF0_RANGE,
            ));
        }
        Ok(Self { coef0, ..self })
    }

    /// The kernel with every parameter checked, as the builder checks them.
    pub(crate) fn checked(gamma: f64, coef0: f64, degree: u32) -> Result<Self> {
        Self::with_degree(degree)?
            .with_gamma(gamma)?
            .with_coef0(coef0)
    }

    /// `(γ x·z + coef0)^degree` with only LIBSVM's requirement, finite parameters: a degree
    /// of 0 (the constant kernel 1), a negative coef0 and γ = 0, which the builder
    /// ([`Polynomial::with_degree`]) refuses, are accepted, as LIBSVM's `svm-train` and model
    /// files accept them. The result may be indefinite; SMO copes as LIBSVM's does.
    ///
    /// Its positional arguments mirror LIBSVM's `-g -r -d` fields: it is fed by parsed LIBSVM
    /// options and model files, not typed by users; a user's kernel is built by name with
    /// [`Polynomial::with_degree`].
    pub fn libsvm(gamma: f64, coef0: f64, degree: u32) -> Result<Self> {
        for (name, v) in [("gamma", gamma), ("coef0", coef0)] {
            if !v.is_finite() {
                return Err(Error::invalid_parameter(name, v, "a finite number"));
            }
        }
        Ok(Self {
            gamma,
            coef0,
            degree,
        })
    }

    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    /// The constant term.
    pub fn coef0(&self) -> f64 {
        self.coef0
    }
    /// The power.
    pub fn degree(&self) -> u32 {
        self.degree
    }
}

impl Kernel for Polynomial {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        powi(self.gamma * x.dot(&z) + self.coef0, self.degree)
    }
    fn name(&self) -> String {
        format!(
            "polynomial(gamma={}, coef0={}, degree={})",
            self.gamma, self.coef0, self.degree
        )
    }
    fn dot_form(&self) -> Option<DotForm> {
        Some(DotForm::Polynomial {
            gamma: self.gamma,
            coef0: self.coef0,
            degree: self.degree,
        })
    }
}

/// The Gaussian kernel `k(x, z) = exp(−γ ‖x − z‖²)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rbf {
    gamma: f64,
}

impl Rbf {
    /// `exp(−γ ‖x − z‖²)`, `γ > 0`.
    pub fn with_gamma(gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Self { gamma })
    }

    /// `exp(−‖x − z‖² / (2σ²))`, that is `γ = 1 / (2σ²)`.
    pub fn with_sigma(sigma: f64) -> Result<Self> {
        if !(sigma.is_finite() && sigma > 0.0) {
            return Err(Error::invalid_parameter(
                "sigma",
                sigma,
                "a finite number > 0",
            ));
        }
        Self::with_gamma(1.0 / (2.0 * sigma * sigma))
    }

    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for Rbf {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (-self.gamma * x.sq_dist(&z)).exp()
    }
    fn name(&self) -> String {
        format!("rbf(gamma={})", self.gamma)
    }
    fn dot_form(&self) -> Option<DotForm> {
        Some(DotForm::Rbf { gamma: self.gamma })
    }
}

/// `k(x, z) = tanh(γ x·z + coef0)`. Not positive semi-definite in general: it is offered because
/// LIBSVM and scikit-learn offer it, and SMO copes with an indefinite `Q` (LIBSVM's τ rule).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sigmoid {
    gamma: f64,
    coef0: f64,
}

impl Sigmoid {
    /// `tanh(γ x·z)` (coef0 = 0, scikit-learn's default) with `γ > 0` (finite); set coef0 by
    /// name with [`Sigmoid::with_coef0`]:
    ///
    /// ```
    /// use margin_kernels::Sigmoid;
    ///
    /// // tanh(0.5 x·z − 1)
    /// let k = Sigmoid::with_gamma(0.5)?.with_coef0(-1.0)?;
    /// assert_eq!((k.gamma(), k.coef0()), (0.5, -1.0));
    /// # Ok::<(), margin_core::Error>(())
    /// ```
    pub fn with_gamma(gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Self { gamma, coef0: 0.0 })
    }

    /// This kernel with the constant term `coef0` (finite, any sign).
    pub fn with_coef0(self, coef0: f64) -> Result<Self> {
        if !coef0.is_finite() {
            return Err(Error::invalid_parameter("coef0", coef0, "a finite number"));
        }
        Ok(Self { coef0, ..self })
    }
}

impl Sigmoid {
    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    /// The constant term.
    pub fn coef0(&self) -> f64 {
        self.coef0
    }
}

impl Kernel for Sigmoid {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (self.gamma * x.dot(&z) + self.coef0).tanh()
    }
    fn name(&self) -> String {
        format!("sigmoid(gamma={}, coef0={})", self.gamma, self.coef0)
    }
    fn dot_form(&self) -> Option<DotForm> {
        Some(DotForm::Sigmoid {
            gamma: self.gamma,
            coef0: self.coef0,
        })
    }
    fn is_psd(&self) -> bool {
        false
    }
}

/// `k(x, z) = exp(−γ ‖x − z‖₁)` (scikit-learn's `laplacian_kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Laplacian {
    gamma: f64,
}

impl Laplacian {
    /// `exp(−γ ‖x − z‖₁)`, `γ > 0`.
    pub fn with_gamma(gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Self { gamma })
    }
}

impl Laplacian {
    /// γ.
    pub(crate) fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for Laplacian {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        (-self.gamma * x.l1_dist(&z)).exp()
    }
    fn name(&self) -> String {
        format!("laplacian(gamma={})", self.gamma)
    }
}

/// The exponential χ² kernel `k(x, z) = exp(−γ Σ_j (x_j − z_j)² / (x_j + z_j))` for
/// non-negative features (histograms), as scikit-learn's `chi2_kernel`; terms with
/// `x_j + z_j = 0` contribute 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChiSquared {
    gamma: f64,
}

impl ChiSquared {
    /// `γ > 0`.
    pub fn with_gamma(gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Self { gamma })
    }
}

impl ChiSquared {
    /// γ.
    pub(crate) fn gamma(&self) -> f64 {
        self.gamma
    }
}

impl Kernel for ChiSquared {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        let mut s = 0.0;
        x.zip_union(&z, |a, b| {
            if a + b > 0.0 {
                s += (a - b) * (a - b) / (a + b);
            }
        });
        (-self.gamma * s).exp()
    }
    fn name(&self) -> String {
        format!("chi2(gamma={})", self.gamma)
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        for i in 0..records.n_samples() {
            let mut bad = None;
            records.row(i).for_each_stored(|j, v| {
                if v < 0.0 && bad.is_none() {
                    bad = Some((j, v));
                }
            });
            if let Some((j, v)) = bad {
                return Err(Error::invalid_parameter(
                    "records",
                    format!("{v} at row {i}, column {j}"),
                    "non-negative features for the χ² kernel",
                ));
            }
        }
        Ok(())
    }
}

/// `k(x, z) = xᵀ A z` for a symmetric positive-definite `A` (a learned or known metric).
///
/// `A` is factored once as `L Lᵀ` (Cholesky), so `k(x, z) = (Lᵀx)·(Lᵀz)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatrixDot {
    a: margin_core::DenseMatrix,
}

impl MatrixDot {
    /// Refuses an `A` that is not square, not symmetric (to 1e-12 relative) or not positive
    /// definite.
    pub fn new(a: margin_core::DenseMatrix) -> Result<Self> {
        let d = a.nrows();
        if a.ncols() != d || d == 0 {
            return Err(Error::shape(
                "matrix-dot kernel: A must be square (columns = rows)",
                d,
                a.ncols(),
            ));
        }
        margin_core::validate::check_finite(&a)?;
        let scale = a.as_slice().iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for i in 0..d {
            for j in 0..i {
                if (a.get(i, j) - a.get(j, i)).abs() > 1e-12 * scale {
                    return Err(Error::invalid_parameter(
                        "A",
                        format!(
                            "A[{i},{j}] = {} but A[{j},{i}] = {}",
                            a.get(i, j),
                            a.get(j, i)
                        ),
                        "a symmetric matrix",
                    ));
                }
            }
        }
        if a.as_faer().llt(faer::Side::Lower).is_err() {
            return Err(Error::invalid_parameter(
                "A",
                "a matrix with a non-positive pivot",
                "a positive-definite matrix (Cholesky failed)",
            ));
        }
        Ok(Self { a })
    }
}

impl MatrixDot {
    /// `A`.
    pub(crate) fn matrix(&self) -> &margin_core::DenseMatrix {
        &self.a
    }
}

impl Kernel for MatrixDot {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        let mut s = 0.0;
        x.for_each_stored(|i, xi| {
            if xi != 0.0 {
                s += xi * z.dot_dense(self.a.row(i));
            }
        });
        s
    }
    fn name(&self) -> String {
        format!("matrix-dot(d={})", self.a.nrows())
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        if records.n_features() != self.a.nrows() {
            return Err(Error::shape(
                "feature count for the matrix-dot kernel (the size of A)",
                self.a.nrows(),
                records.n_features(),
            ));
        }
        Ok(())
    }
}

/// A user-supplied Gram matrix, in LIBSVM's precomputed format (`-t 4`): in each sample,
/// column 0 holds its 1-based serial number `i` among the training samples and columns `1..=n`
/// hold `K(x, x_1) … K(x, x_n)`. Then `k(x, z) = x[z's serial number]`.
///
/// Training records are the `n × (n + 1)` matrix `[i | K(x_i, ·)]`; test records the `m × (n + 1)`
/// matrix `[anything | K(t, ·)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Precomputed;

impl Kernel for Precomputed {
    fn eval(&self, x: RowView<'_>, z: RowView<'_>) -> f64 {
        x.get(z.get(0) as usize)
    }
    fn name(&self) -> String {
        "precomputed".into()
    }
    fn check(&self, records: &dyn Records) -> Result<()> {
        let width = records.n_features();
        for i in 0..records.n_samples() {
            let id = records.row(i).get(0);
            if !(id >= 1.0 && id.fract() == 0.0 && (id as usize) < width) {
                return Err(Error::invalid_parameter(
                    "precomputed kernel serial number (column 0)",
                    format!("{id} at row {i}"),
                    format!(
                        "an integer in 1..={} naming the training sample",
                        width.saturating_sub(1)
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod libsvm_polynomial_tests {
    use super::*;
    use margin_core::DenseMatrix;

    #[test]
    fn libsvm_polynomial_takes_degree_zero_and_negative_coef0() {
        assert!(Polynomial::checked(0.5, -1.0, 2).is_err());
        assert!(Polynomial::checked(0.5, 1.0, 0).is_err());
        let x = DenseMatrix::from_rows(&[vec![1.0, 2.0], vec![-3.0, 0.5]]).unwrap();
        // Degree 0: LIBSVM's powi gives 1 whatever the base, 0 included.
        let constant = Polynomial::libsvm(0.5, -1.0, 0).unwrap();
        assert_eq!(constant.eval(Records::row(&x, 0), Records::row(&x, 1)), 1.0);
        let k = Polynomial::libsvm(0.5, -1.0, 2).unwrap();
        // (0.5·(−3 + 1) − 1)² = 4.
        assert_eq!(k.eval(Records::row(&x, 0), Records::row(&x, 1)), 4.0);
        assert!(Polynomial::libsvm(f64::NAN, 0.0, 1).is_err());
        assert!(Polynomial::libsvm(1.0, f64::INFINITY, 1).is_err());
    }
}

#[cfg(test)]
mod named_constructor_tests {
    use super::*;
    use margin_core::DenseMatrix;

    fn refused_parameter<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Err(Error::InvalidParameter { name, .. }) => name,
            other => panic!("expected InvalidParameter, got {other:?}"),
        }
    }

    #[test]
    fn polynomial_builder_names_each_value_and_evaluates_the_formula() {
        let x = DenseMatrix::from_rows(&[vec![1.0, 2.0, -0.5], vec![-3.0, 0.5, 4.0]]).unwrap();
        let (a, b) = (Records::row(&x, 0), Records::row(&x, 1));
        let dot = a.dot(&b);
        for (gamma, coef0, degree) in [(0.5, 1.0, 3), (2.0, 0.0, 2), (0.1, 3.5, 1), (1.0, 0.25, 4)]
        {
            let k = Polynomial::with_degree(degree)
                .unwrap()
                .with_gamma(gamma)
                .unwrap()
                .with_coef0(coef0)
                .unwrap();
            assert_eq!((k.gamma(), k.coef0(), k.degree()), (gamma, coef0, degree));
            // The kernel the positional constructor built from the same three values.
            assert_eq!(k, Polynomial::libsvm(gamma, coef0, degree).unwrap());
            let want = (gamma * dot + coef0).powi(degree as i32);
            assert!((k.eval(a, b) - want).abs() <= 1e-12 * want.abs().max(1.0));
        }
        // The order of the named setters does not matter.
        assert_eq!(
            Polynomial::with_degree(3)
                .unwrap()
                .with_coef0(1.0)
                .unwrap()
                .with_gamma(0.5)
                .unwrap(),
            Polynomial::libsvm(0.5, 1.0, 3).unwrap()
        );
        // Alone, with_degree is the homogeneous (x·z)^d.
        let homogeneous = Polynomial::with_degree(2).unwrap();
        assert_eq!(homogeneous.eval(a, b), dot * dot);
    }

    #[test]
    fn polynomial_builder_refusals_name_their_parameter() {
        assert_eq!(refused_parameter(Polynomial::with_degree(0)), "degree");
        let k = Polynomial::with_degree(2).unwrap();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(refused_parameter(k.with_gamma(bad)), "gamma");
        }
        for bad in [-1e-9, f64::NAN, f64::INFINITY] {
            assert_eq!(refused_parameter(k.with_coef0(bad)), "coef0");
        }
    }

    #[test]
    fn sigmoid_builder_names_each_value_and_evaluates_the_formula() {
        let x = DenseMatrix::from_rows(&[vec![0.5, 2.0], vec![-1.0, 0.25]]).unwrap();
        let (a, b) = (Records::row(&x, 0), Records::row(&x, 1));
        let dot = a.dot(&b);
        for (gamma, coef0) in [(0.5, -1.0), (0.05, 0.0), (2.0, 0.3)] {
            let k = Sigmoid::with_gamma(gamma)
                .unwrap()
                .with_coef0(coef0)
                .unwrap();
            assert_eq!((k.gamma(), k.coef0()), (gamma, coef0));
            assert_eq!(k.eval(a, b), (gamma * dot + coef0).tanh());
        }
        assert_eq!(Sigmoid::with_gamma(0.5).unwrap().coef0(), 0.0);
        for bad in [0.0, -0.5, f64::NAN] {
            assert_eq!(refused_parameter(Sigmoid::with_gamma(bad)), "gamma");
        }
        let k = Sigmoid::with_gamma(0.5).unwrap();
        for bad in [f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(refused_parameter(k.with_coef0(bad)), "coef0");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_reads_and_writes_scikit_learn_text() {
        assert_eq!(Gamma::kind(), "scale|auto|<number>");
        assert_eq!(Gamma::parse("scale"), Ok(Gamma::Scale));
        assert_eq!(Gamma::parse(" auto "), Ok(Gamma::Auto));
        assert_eq!(Gamma::parse("1e-3"), Ok(Gamma::Value(1e-3)));
        assert!(
            Gamma::parse("Scale")
                .unwrap_err()
                .contains("scale, auto or a number")
        );
        for g in [
            Gamma::Scale,
            Gamma::Auto,
            Gamma::Value(0.1),
            Gamma::Value(-2.5),
        ] {
            assert_eq!(Gamma::parse(&g.to_value().to_string()), Ok(g));
        }
    }
}
