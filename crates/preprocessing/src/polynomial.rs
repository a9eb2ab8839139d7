use serde::{Deserialize, Serialize};

use super::check_fit_input;
use margin_core::params::Params;
use margin_core::{
    DenseMatrix, Error, Fit, Matrix, Records, Result, Transform, model_check, validate,
};
use margin_io::ModelFile;

/// Output columns beyond which [`PolynomialFeatures`] refuses to expand (use a polynomial
/// kernel instead: it computes the same inner products without the columns).
const MAX_OUTPUT_FEATURES: usize = 10_000_000;

/// Parameters of [`PolynomialFeatures`] (scikit-learn's names and defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
#[params(check = |p| {
    if p.kernel_scaling && (p.interaction_only || !p.include_bias) {
        return Err(Error::invalid_parameter(
            "kernel_scaling",
            true,
            "include_bias = true and interaction_only = false (the kernel's expansion needs every monomial)",
        ));
    }
    Ok(())
})]
pub struct PolynomialFeaturesParams {
    /// Highest total degree (default 2, at least 1).
    #[param(help = "highest total degree", default = 2, valid = ("at least 1", |d| *d >= 1))]
    degree: usize,
    /// Only products of distinct features (no `x_j²`); default false.
    #[param(help = "only products of distinct features (no x_j²)")]
    interaction_only: bool,
    /// Include the constant column 1 (default true).
    #[param(help = "include the constant column 1", default = true)]
    include_bias: bool,
    /// Multiply each monomial `x^α` by `√(p! / ((p − |α|)! α_1! ⋯ α_d!))`, so that
    /// `ψ(x)·ψ(z) = (1 + x·z)^p` exactly: the explicit feature map of the polynomial kernel
    /// (the `√2` of the degree-2 case). Needs the bias column and all monomials.
    #[param(
        help = "scale the monomials so that ψ(x)·ψ(z) = (1 + x·z)^degree (the polynomial kernel's map)"
    )]
    kernel_scaling: bool,
}

/// Expands features into all monomials up to a degree, in scikit-learn's column order (by
/// degree, then lexicographic in the feature indices).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolynomialFeatures {
    n_features_in: usize,
    /// Monomial `m` = monomial `parent[m]` times feature `factor[m]`; entry 0 is the constant.
    parent: Vec<usize>,
    factor: Vec<usize>,
    coef: Vec<f64>,
    /// The hyperparameters the model was fitted with.
    params: PolynomialFeaturesParams,
}

impl PolynomialFeatures {
    /// The hyperparameters the model was fitted with (see [`PolynomialFeaturesParams`]).
    pub fn hyperparams(&self) -> &PolynomialFeaturesParams {
        &self.params
    }
    /// Number of features the model was fitted on.
    pub fn n_features(&self) -> usize {
        self.n_features_in
    }
    /// Default parameters (degree 2, with bias).
    pub fn params() -> PolynomialFeaturesParams {
        PolynomialFeaturesParams::default()
    }

    /// Number of output columns.
    pub fn n_output_features(&self) -> usize {
        self.coef.len() - usize::from(!self.params.include_bias)
    }

    /// Each output column's exponents, one per input feature.
    pub fn powers(&self) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = Vec::with_capacity(self.coef.len());
        out.push(vec![0; self.n_features_in]);
        for m in 1..self.coef.len() {
            let mut p = out[self.parent[m]].clone();
            p[self.factor[m]] += 1;
            out.push(p);
        }
        if !self.params.include_bias {
            out.remove(0);
        }
        out
    }
}

impl<R: Records + ?Sized> Fit<R> for PolynomialFeaturesParams {
    type Model = PolynomialFeatures;

    fn fit(&self, records: &R) -> Result<PolynomialFeatures> {
        self.check()?;
        check_fit_input(records)?;
        let d = records.n_features();
        let mut parent = vec![0usize];
        let mut factor = vec![usize::MAX];
        // Product of the factorials of each monomial's exponents, and its degree.
        let mut exp_fact = vec![1.0f64];
        let mut deg = vec![0usize];
        let mut run = vec![0usize];
        let mut level_start = 0;
        for k in 1..=self.degree {
            let level_end = parent.len();
            for m in level_start..level_end {
                let first = match factor[m] {
                    usize::MAX => 0,
                    last if self.interaction_only => last + 1,
                    last => last,
                };
                for j in first..d {
                    let r = if factor[m] == j { run[m] + 1 } else { 1 };
                    parent.push(m);
                    factor.push(j);
                    exp_fact.push(exp_fact[m] * r as f64);
                    deg.push(k);
                    run.push(r);
                    if parent.len() > MAX_OUTPUT_FEATURES {
                        return Err(Error::invalid_parameter(
                            "degree",
                            self.degree,
                            format!(
                                "an expansion of at most {MAX_OUTPUT_FEATURES} columns for {d} features (use a polynomial kernel instead)"
                            ),
                        ));
                    }
                }
            }
            level_start = level_end;
        }
        let p = self.degree;
        let fact = |n: usize| (1..=n).map(|x| x as f64).product::<f64>();
        let coef = if self.kernel_scaling {
            deg.iter()
                .zip(&exp_fact)
                .map(|(&k, &e)| (fact(p) / (fact(p - k) * e)).sqrt())
                .collect()
        } else {
            vec![1.0; parent.len()]
        };
        Ok(PolynomialFeatures {
            n_features_in: d,
            parent,
            factor,
            coef,
            params: self.clone(),
        })
    }
}

impl Transform for PolynomialFeatures {
    fn transform<R: Records + ?Sized>(&self, records: &R) -> Result<Matrix> {
        validate::check_predict(self.n_features_in, records)?;
        let skip = usize::from(!self.params.include_bias);
        let mut out = DenseMatrix::try_zeros(
            records.n_samples(),
            self.n_output_features(),
            "the polynomial features",
            margin_core::memory::DENSE_COPY,
        )?;
        let mut x = margin_core::memory::filled_vec(
            self.n_features_in,
            0.0,
            "a dense sample",
            margin_core::memory::FEWER_FEATURES,
        )?;
        let mut mono = vec![0.0; self.coef.len()];
        for i in 0..records.n_samples() {
            records.row(i).to_dense_into(&mut x);
            mono[0] = 1.0;
            for m in 1..mono.len() {
                mono[m] = mono[self.parent[m]] * x[self.factor[m]];
            }
            for ((o, &v), &c) in out
                .row_mut(i)
                .iter_mut()
                .zip(&mono[skip..])
                .zip(&self.coef[skip..])
            {
                *o = v * c;
            }
        }
        Ok(Matrix::Dense(out))
    }
}

impl ModelFile for PolynomialFeatures {
    const KIND: &'static str = "polynomial-features";
    // 2: the hyperparameters the model was fitted with; 3: `include_bias` only inside them.
    const SCHEMA: u32 = 3;

    /// The monomial table as `fit` builds it: the constant, then every feature once (degree
    /// 1, which also bounds `n_features_in` by the stored table), then each monomial as an
    /// earlier one times a feature; finite coefficients.
    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        let m = self.coef.len();
        let d = self.n_features_in;
        model_check::len("parent", self.parent.len(), m)?;
        model_check::len("factor", self.factor.len(), m)?;
        model_check::at_least("monomials", m, d.saturating_add(1))?;
        model_check::at_least("n_features_in", d, 1)?;
        for j in 0..d {
            if (self.parent[j + 1], self.factor[j + 1]) != (0, j) {
                return Err(model_check::refuse(
                    "parent",
                    format!("does not list feature {j} as monomial {}", j + 1),
                ));
            }
        }
        for k in d + 1..m {
            model_check::below("parent", self.parent[k], k)?;
            model_check::below("factor", self.factor[k], d)?;
        }
        model_check::finite("coef", &self.coef)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn scikit_learn_column_order() {
        let x = DenseMatrix::from_rows(&[[2.0, 3.0]]).unwrap();
        let p = PolynomialFeatures::params().fit(&x).unwrap();
        // sklearn: [1, a, b, a², ab, b²]
        assert_eq!(
            p.transform(&x).unwrap().to_dense().unwrap().row(0),
            &[1.0, 2.0, 3.0, 4.0, 6.0, 9.0]
        );
        assert_eq!(p.powers()[4], vec![1, 1]);
        let q = PolynomialFeatures::params()
            .degree(3)
            .interaction_only(true)
            .include_bias(false)
            .fit(&DenseMatrix::from_rows(&[[2.0, 3.0, 5.0]]).unwrap())
            .unwrap();
        // [a, b, c, ab, ac, bc, abc]
        assert_eq!(
            q.transform(&DenseMatrix::from_rows(&[[2.0, 3.0, 5.0]]).unwrap())
                .unwrap()
                .to_dense()
                .unwrap()
                .row(0),
            &[2.0, 3.0, 5.0, 6.0, 10.0, 15.0, 30.0]
        );
    }

    proptest! {
        #[test]
        fn kernel_scaling_reproduces_the_polynomial_kernel(
            a in proptest::collection::vec(-2.0f64..2.0, 3),
            b in proptest::collection::vec(-2.0f64..2.0, 3),
            p in 1usize..5,
        ) {
            let x = DenseMatrix::from_rows(&[a.clone(), b.clone()]).unwrap();
            let map = PolynomialFeatures::params().degree(p).kernel_scaling(true).fit(&x).unwrap();
            let z = map.transform(&x).unwrap().to_dense().unwrap();
            let lhs = margin_core::dot(z.row(0), z.row(1));
            let rhs = (1.0 + margin_core::dot(&a, &b)).powi(p as i32);
            prop_assert!((lhs - rhs).abs() <= 1e-12 * rhs.abs().max(1.0), "{lhs} vs {rhs}");
        }
    }

    #[test]
    fn refuses_degree_zero_and_inconsistent_scaling() {
        let x = DenseMatrix::from_rows(&[[1.0]]).unwrap();
        assert!(PolynomialFeatures::params().degree(0).fit(&x).is_err());
        assert!(
            PolynomialFeatures::params()
                .kernel_scaling(true)
                .include_bias(false)
                .fit(&x)
                .is_err()
        );
    }
}
