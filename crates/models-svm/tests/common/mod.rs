//! Kernels the suites of `margin-svm` build the same way in several files.

use margin_kernels::{Gamma, Polynomial};
use margin_svm::KernelChoice;

/// The RBF kernel with a given γ, as the named form the params store (LIBSVM's `-t 2 -g γ`).
pub(crate) fn rbf(gamma: f64) -> KernelChoice {
    KernelChoice::Rbf {
        gamma: Gamma::Value(gamma),
    }
}

/// The polynomial kernel (γ⟨x, z⟩ + `coef0`)^`degree`, built through the kernels crate's
/// builder (each step checked) rather than [`Polynomial::libsvm`]: LIBSVM's `-t 1 -d degree
/// -g γ -r coef0`.
pub(crate) fn polynomial(degree: u32, gamma: f64, coef0: f64) -> Polynomial {
    Polynomial::with_degree(degree)
        .unwrap()
        .with_gamma(gamma)
        .unwrap()
        .with_coef0(coef0)
        .unwrap()
}
