//! Explicit feature spaces that approximate a kernel, so linear solvers (Pegasos, DCD, ridge)
//! reach kernel-quality models on data too large for a Gram matrix: Nyström and random Fourier
//! features.

use faer::{Accum, Side};
use margin_core::params::Params;
use margin_core::split::rng_from_seed;
use margin_core::{
    DenseMatrix, Error, Fit, Matrix, Records, Result, Transform, memory, model_check, validate,
};
use margin_io::ModelFile;
use rand::Rng;
use rand::seq::index::sample;
use serde::{Deserialize, Serialize};

use crate::choice::{KernelKind, KernelParams};
use crate::gram::{cross_gram, gram, par};
use crate::spec::KernelSpec;
use crate::standard::Gamma;

/// How Nyström picks its landmark samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Landmarks {
    /// A uniform random subset of the training samples (scikit-learn's `Nystroem`).
    Uniform,
    /// k-means++ seeding in the input space: spread-out landmarks, usually a better
    /// approximation for the same count.
    KMeansPlusPlus,
}

/// Parameters of [`Nystroem`] (scikit-learn's names and defaults: the RBF kernel with
/// `gamma=None`, which is `auto`, `γ = 1 / n_features`; degree 3; coef0 1; 100 components).
/// The kernel is given by its parameters or whole, as any [`KernelSpec`] (sums, products, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct NystroemParams {
    #[param(
        flatten,
        default = DEFAULT_KERNEL,
        help_for(kernel = "kernel the features approximate")
    )]
    kernel: KernelParams,
    /// Number of landmarks (output dimension, default 100), at most the number of samples.
    #[param(
        help = "landmarks (output dimension), at most the number of samples",
        default = 100,
        valid = ("at least 1", |m| *m >= 1)
    )]
    n_components: usize,
    /// Landmark choice (default uniform rows).
    #[param(
        help = "landmark choice: uniform rows or k-means++ seeding",
        default = Landmarks::Uniform
    )]
    landmarks: Landmarks,
    /// Seed for the landmark choice (default 0).
    #[param(help = "seed of the landmark choice")]
    seed: u64,
}

margin_core::param_choice!(Landmarks { Uniform => "uniform", KMeansPlusPlus => "k-means++" });

/// scikit-learn's `Nystroem` kernel defaults.
const DEFAULT_KERNEL: KernelParams = KernelParams::named(KernelKind::Rbf, Gamma::Auto, 3, 1.0);

/// The Nyström feature map `φ(x) = W^{-1/2} k(L, x)` for landmarks `L` with `W = K(L, L)`, so
/// that `φ(x)·φ(z) ≈ k(x, z)`, exact when `x` or `z` is a landmark. Eigenvalues of `W` below
/// `1e-12` are clamped, as scikit-learn does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Nystroem {
    kernel: KernelSpec,
    landmarks: DenseMatrix,
    /// `W^{-1/2}` (m × m, row-major).
    normalization: DenseMatrix,
    /// The hyperparameters the model was fitted with.
    params: NystroemParams,
}

impl Nystroem {
    /// The hyperparameters the model was fitted with (see [`NystroemParams`]).
    pub fn hyperparams(&self) -> &NystroemParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.landmarks.ncols()
    }
    /// The default parameters, to adjust with the builder methods.
    pub fn params() -> NystroemParams {
        NystroemParams::default()
    }

    /// The landmark samples.
    pub fn landmarks(&self) -> &DenseMatrix {
        &self.landmarks
    }
}

fn kmeans_pp<R: Records + ?Sized>(x: &R, m: usize, seed: u64) -> Vec<usize> {
    let n = x.n_samples();
    let mut rng = rng_from_seed(seed);
    let mut chosen = vec![rng.random_range(0..n)];
    let mut d2: Vec<f64> = (0..n)
        .map(|i| x.row(i).sq_dist(&x.row(chosen[0])))
        .collect();
    while chosen.len() < m {
        let total: f64 = d2.iter().sum();
        let next = if total > 0.0 {
            let mut target = rng.random_range(0.0..total);
            d2.iter()
                .position(|&d| {
                    target -= d;
                    target < 0.0
                })
                .unwrap_or(n - 1)
        } else {
            // All remaining samples coincide with landmarks: take any unchosen one.
            (0..n).find(|i| !chosen.contains(i)).unwrap_or(0)
        };
        chosen.push(next);
        for (i, d) in d2.iter_mut().enumerate() {
            *d = d.min(x.row(i).sq_dist(&x.row(next)));
        }
    }
    chosen
}

impl<R: Records + ?Sized> Fit<R> for NystroemParams {
    type Model = Nystroem;

    fn fit(&self, x: &R) -> Result<Nystroem> {
        self.check()?;
        validate::check_non_empty(x)?;
        validate::check_finite(x)?;
        let n = x.n_samples();
        if self.n_components > n {
            return Err(Error::invalid_parameter(
                "n_components",
                self.n_components,
                format!("between 1 and the number of samples, {n}"),
            ));
        }
        if self.kernel.kernel == KernelKind::Precomputed {
            return Err(Error::invalid_parameter(
                "kernel",
                "precomputed",
                "a kernel of the features: Nyström evaluates it between samples and landmarks",
            ));
        }
        let kernel = self.kernel.resolve(x)?;
        // The landmarks' Gram matrix, its eigendecomposition and W^{-1/2}: m × m × m, m × m × d.
        let m = self.n_components;
        memory::check_products(m, m, m.max(x.n_features()))?;
        let mut idx = match self.landmarks {
            Landmarks::Uniform => sample(&mut rng_from_seed(self.seed), n, m).into_vec(),
            Landmarks::KMeansPlusPlus => kmeans_pp(x, m, self.seed),
        };
        idx.sort_unstable();
        // Only the landmarks are made dense (m × d), not the records.
        let mut landmarks = DenseMatrix::try_zeros(
            m,
            x.n_features(),
            "the Nyström landmarks",
            memory::FEWER_FEATURES,
        )?;
        for (r, &i) in idx.iter().enumerate() {
            x.row(i).to_dense_into(landmarks.row_mut(r));
        }
        let w = gram(&kernel, &landmarks)?;
        let eig = w.as_faer().self_adjoint_eigen(Side::Lower).map_err(|e| {
            Error::Numerical(format!(
                "eigendecomposition of the landmark Gram matrix failed: {e:?}"
            ))
        })?;
        let (u, s) = (eig.U(), eig.S());
        // W^{-1/2} = U diag(1/√s) Uᵀ.
        let scaled = faer::Mat::from_fn(m, m, |i, j| u[(i, j)] / s[j].max(1e-12).sqrt());
        let mut norm = faer::Mat::<f64>::zeros(m, m);
        faer::linalg::matmul::matmul(
            norm.as_mut(),
            Accum::Replace,
            scaled.as_ref(),
            u.transpose(),
            1.0,
            par(m as f64 * m as f64 * m as f64),
        );
        Ok(Nystroem {
            kernel,
            landmarks,
            normalization: DenseMatrix::from_faer(norm.as_ref()),
            params: self.clone(),
        })
    }
}

impl Transform for Nystroem {
    fn transform<R: Records + ?Sized>(&self, x: &R) -> Result<Matrix> {
        validate::check_predict(self.landmarks.ncols(), x)?;
        let m = self.landmarks.nrows();
        // The kernel values and the features, n × m each (faer allocates the second), and the
        // scratch of faer's products (n × m × m; the kernel values' n × m × d).
        memory::check_products(x.n_samples(), m, m.max(x.n_features()))?;
        memory::check(
            memory::bytes_of_grid::<f64>(x.n_samples(), m.saturating_mul(3)),
            &format!("the Nyström features of {} samples", x.n_samples()),
            memory::FEWER_SAMPLES,
        )?;
        let c = cross_gram(&self.kernel, x, &self.landmarks)?;
        let mut out = faer::Mat::<f64>::zeros(x.n_samples(), m);
        faer::linalg::matmul::matmul(
            out.as_mut(),
            Accum::Replace,
            c.as_faer(),
            self.normalization.as_faer(),
            1.0,
            par(x.n_samples() as f64 * m as f64 * m as f64),
        );
        Ok(Matrix::Dense(DenseMatrix::from_faer(out.as_ref())))
    }
}

impl ModelFile for Nystroem {
    const KIND: &'static str = "nystroem";
    // 2: the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    /// At least one landmark of at least one feature, finite; the kernel valid on them; a
    /// finite `m × m` normalization.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let (m, d) = (self.landmarks.nrows(), self.landmarks.ncols());
        model_check::at_least("landmarks", m, 1)?;
        model_check::at_least("landmark width", d, 1)?;
        model_check::matrix("landmarks", &self.landmarks, m, d)?;
        model_check::within("kernel", self.kernel.check_decoded(&self.landmarks))?;
        model_check::matrix("normalization", &self.normalization, m, m)
    }
}

/// Parameters of [`RandomFourierFeatures`] (scikit-learn's `RBFSampler` defaults: γ = 1, 100
/// features; seed 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
pub struct RandomFourierFeaturesParams {
    /// γ of the RBF kernel the features approximate (default 1, as scikit-learn's).
    #[param(
        help = "γ of the RBF kernel exp(−γ‖x − z‖²)",
        default = 1.0,
        valid = ("a finite number > 0", |g| g.is_finite() && *g > 0.0)
    )]
    gamma: f64,
    /// Output dimension `D` (default 100).
    #[param(help = "output dimension D", default = 100, valid = ("at least 1", |d| *d >= 1))]
    n_components: usize,
    /// Seed for the random projection.
    #[param(help = "seed of the random projection")]
    seed: u64,
}

/// Random Fourier features for the RBF kernel `exp(−γ‖x − z‖²)` (Rahimi & Recht 2007,
/// scikit-learn's `RBFSampler`): `φ(x) = √(2/D) cos(Wx + b)` with `W ~ N(0, 2γ I)` and
/// `b ~ U(0, 2π)`, so that `E[φ(x)·φ(z)] = k(x, z)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomFourierFeatures {
    /// `D × d`, row-major.
    weights: DenseMatrix,
    offsets: Vec<f64>,
    /// The hyperparameters the model was fitted with.
    params: RandomFourierFeaturesParams,
}

impl RandomFourierFeatures {
    /// The hyperparameters the model was fitted with (see [`RandomFourierFeaturesParams`]).
    pub fn hyperparams(&self) -> &RandomFourierFeaturesParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.weights.ncols()
    }
    /// The default parameters, to adjust with the builder methods.
    pub fn params() -> RandomFourierFeaturesParams {
        RandomFourierFeaturesParams::default()
    }
}

impl<R: Records + ?Sized> Fit<R> for RandomFourierFeaturesParams {
    type Model = RandomFourierFeatures;

    fn fit(&self, x: &R) -> Result<RandomFourierFeatures> {
        self.check()?;
        validate::check_non_empty(x)?;
        let d = x.n_features();
        let mut rng = rng_from_seed(self.seed);
        let sd = (2.0 * self.gamma).sqrt();
        // Box–Muller: two uniforms give a standard normal.
        let mut normal = || {
            let u1: f64 = 1.0 - rng.random::<f64>();
            let u2: f64 = rng.random::<f64>();
            (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        };
        let mut w = memory::filled_grid(
            self.n_components,
            d,
            0.0,
            &format!(
                "the random Fourier projection (n_components = {} by {d} features)",
                self.n_components
            ),
            "lower n_components, or use fewer features",
        )?;
        w.iter_mut().for_each(|v| *v = sd * normal());
        let offsets = (0..self.n_components)
            .map(|_| rng.random_range(0.0..std::f64::consts::TAU))
            .collect();
        Ok(RandomFourierFeatures {
            weights: DenseMatrix::from_row_major(w, self.n_components, d)?,
            offsets,
            params: self.clone(),
        })
    }
}

impl Transform for RandomFourierFeatures {
    fn transform<R: Records + ?Sized>(&self, x: &R) -> Result<Matrix> {
        validate::check_predict(self.weights.ncols(), x)?;
        let dim = self.weights.nrows();
        let scale = (2.0 / dim as f64).sqrt();
        let mut out = DenseMatrix::try_zeros(
            x.n_samples(),
            dim,
            "the random Fourier features",
            memory::FEWER_SAMPLES,
        )?;
        for i in 0..x.n_samples() {
            let xi = x.row(i);
            for (k, o) in out.row_mut(i).iter_mut().enumerate() {
                *o = scale * (xi.dot_dense(self.weights.row(k)) + self.offsets[k]).cos();
            }
        }
        Ok(Matrix::Dense(out))
    }
}

impl ModelFile for RandomFourierFeatures {
    const KIND: &'static str = "random-fourier-features";
    // 2: the hyperparameters the model was fitted with.
    const SCHEMA: u32 = 2;

    /// At least one component over at least one feature, finite weights and one finite offset
    /// per component.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let (dim, d) = (self.weights.nrows(), self.weights.ncols());
        model_check::at_least("components", dim, 1)?;
        model_check::at_least("weight width", d, 1)?;
        model_check::matrix("weights", &self.weights, dim, d)?;
        model_check::len("offsets", self.offsets.len(), dim)?;
        model_check::finite("offsets", &self.offsets)
    }
}

#[cfg(test)]
mod params_tests {
    use super::*;
    use crate::{Linear, Rbf};
    use margin_core::params::Value;
    use margin_testing::battery::check_params;

    /// scikit-learn 1.9's `Nystroem` and `RBFSampler` defaults: `kernel="rbf"`, `gamma=None`
    /// (γ = 1 / n_features, `auto`), `degree=None` and `coef0=None` (3 and 1 where the kernel
    /// reads them), `n_components=100`, and RBFSampler's `gamma=1.0`; margin's `seed` 0 for
    /// `random_state=None`, `landmarks` margin's own (scikit-learn's choice is `uniform`).
    #[test]
    fn params_describe_themselves() {
        assert_eq!(
            Nystroem::params().values(),
            vec![
                ("kernel", Value::Text("rbf".into())),
                ("degree", Value::Int(3)),
                ("gamma", Value::Text("auto".into())),
                ("coef0", Value::Float(1.0)),
                ("n_components", Value::Int(100)),
                ("landmarks", Value::Text("uniform".into())),
                ("seed", Value::Int(0)),
            ]
        );
        let rbf = Rbf::with_gamma(0.5).unwrap();
        let nystroem = Nystroem::params().kernel(rbf);
        assert_eq!(nystroem.get("gamma"), Some(Value::Float(0.5)));
        check_params(&nystroem);
        check_params(
            &Nystroem::params()
                .kernel(Linear)
                .landmarks(Landmarks::KMeansPlusPlus),
        );
        let rff = RandomFourierFeatures::params();
        assert_eq!(rff.get("gamma"), Some(Value::Float(1.0)));
        assert_eq!(rff.get("n_components"), Some(Value::Int(100)));
        check_params(&rff.clone().n_components(7).seed(3));
        let mut bad = rff;
        assert!(bad.set("gamma", "0").is_err());
        assert!(bad.set("n_components", "0").is_err());
        assert!(RandomFourierFeatures::params().gamma(-1.0).check().is_err());
        let mut n = Nystroem::params().kernel(Linear);
        n.set("landmarks", "k-means++").unwrap();
        assert_eq!(
            n,
            Nystroem::params()
                .kernel(Linear)
                .landmarks(Landmarks::KMeansPlusPlus)
        );
        assert!(n.set("n_components", "0").is_err());
    }

    /// The default kernel is scikit-learn's: the RBF with γ = 1 / n_features, resolved on the
    /// training records; a Gram matrix as the records means nothing to Nyström and is refused.
    #[test]
    fn the_default_kernel_is_the_rbf_with_gamma_auto() {
        let x = DenseMatrix::from_rows(&[
            [0.0, 1.0, 2.0],
            [1.0, 0.0, 1.0],
            [2.0, 2.0, 0.0],
            [0.5, 1.5, 1.0],
        ])
        .unwrap();
        let by_default = Nystroem::params().n_components(3).fit(&x).unwrap();
        let whole = Nystroem::params()
            .kernel(Rbf::with_gamma(1.0 / 3.0).unwrap())
            .n_components(3)
            .fit(&x)
            .unwrap();
        // The same features; only the kept hyperparameters differ (auto, and the value).
        assert_eq!(
            by_default.transform(&x).unwrap(),
            whole.transform(&x).unwrap()
        );
        let mut pre = Nystroem::params().n_components(3);
        pre.set("kernel", "precomputed").unwrap();
        assert!(matches!(
            pre.fit(&x),
            Err(Error::InvalidParameter { ref name, .. }) if name == "kernel"
        ));
    }
}
