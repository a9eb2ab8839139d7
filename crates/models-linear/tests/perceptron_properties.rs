//! The perceptron convergence theorem (Novikoff, 1962) as a property: on data that a unit
//! vector `u` separates through the origin with margin `γ = minᵢ yᵢ u·xᵢ > 0`, with
//! `R = maxᵢ ‖xᵢ‖`, the rule started from `w = 0` makes at most `(R/γ)²` mistakes, in any
//! visiting order, and then classifies the training set perfectly.
//!
//! With an intercept the rule is the same one on `(x, 1)`, still separated by `(u, 0)` with
//! margin `γ`, so the bound becomes `(R² + 1)/γ²`.

use margin_core::{Classes, Dataset, DecisionFunction, DenseMatrix, Fit, Targets, split};
use margin_kernels::Linear;
use margin_linear::{KernelPerceptron, Perceptron};
use proptest::prelude::*;
use rand::Rng;

/// Separable data and its `(R, γ)`: points uniform in `[−1, 1]^d` at distance at least
/// `min_margin` from the hyperplane `u·x = 0`, mirrored (`−x` has the opposite label) so that
/// the labels alternate and both classes occur.
fn separable(seed: u64, d: usize, n: usize, min_margin: f64) -> (Dataset, f64, f64) {
    let mut rng = split::rng_from_seed(seed);
    let mut u: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
    u[0] += 2.0; // keeps ‖u‖ away from 0
    let norm = u.iter().map(|v| v * v).sum::<f64>().sqrt();
    u.iter_mut().for_each(|v| *v /= norm);
    let (mut rows, mut labels) = (Vec::new(), Vec::new());
    while rows.len() < n {
        let x: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let s: f64 = x.iter().zip(&u).map(|(a, b)| a * b).sum();
        if s.abs() < min_margin {
            continue;
        }
        let wanted = if rows.len() % 2 == 0 { 1.0 } else { -1.0 };
        let (x, s) = if s.signum() == wanted {
            (x, s)
        } else {
            (x.iter().map(|v| -v).collect(), -s)
        };
        rows.push(x);
        labels.push(s.signum());
    }
    let radius = rows
        .iter()
        .map(|r| r.iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    let margin = rows
        .iter()
        .zip(&labels)
        .map(|(r, y)| y * r.iter().zip(&u).map(|(a, b)| a * b).sum::<f64>())
        .fold(f64::INFINITY, f64::min);
    let data = Dataset::new(
        DenseMatrix::from_rows(&rows).unwrap(),
        Targets::Classes(Classes::from_numbers(&labels).unwrap()),
    )
    .unwrap();
    (data, radius, margin)
}

/// Every training sample strictly on its side: `yᵢ f(xᵢ) > 0`, `y = +1` for label +1.
fn separates(scores: &DenseMatrix, data: &Dataset) -> bool {
    let y = data.targets.values().unwrap();
    (0..data.n_samples()).all(|i| y[i] * scores.get(i, 0) > 0.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn mistakes_are_bounded_by_r_over_gamma_squared(
        seed in any::<u64>(),
        d in 2usize..6,
        n in 4usize..40,
        min_margin in 0.05f64..0.3,
        shuffle in any::<bool>(),
        fit_intercept in any::<bool>(),
    ) {
        let (data, r, gamma) = separable(seed, d, n, min_margin);
        prop_assert!(gamma >= min_margin);
        let extra = if fit_intercept { 1.0 } else { 0.0 };
        let bound = (r * r + extra) / (gamma * gamma);

        let primal = Perceptron::params()
            .shuffle(shuffle)
            .seed(seed)
            .fit_intercept(fit_intercept)
            .fit(&data)
            .unwrap();
        prop_assert!(primal.convergence().converged());
        prop_assert!(primal.mistakes()[0] as f64 <= bound, "{} > {bound}", primal.mistakes()[0]);
        prop_assert!(separates(&primal.decision_function(&data.records).unwrap(), &data));

        let dual = KernelPerceptron::params()
            .kernel(Linear)
            .shuffle(shuffle)
            .seed(seed)
            .fit_intercept(fit_intercept)
            .fit(&data)
            .unwrap();
        prop_assert!(dual.convergence().converged());
        prop_assert!(dual.mistakes()[0] as f64 <= bound, "{} > {bound}", dual.mistakes()[0]);
        prop_assert!(separates(&dual.decision_function(&data.records).unwrap(), &data));
        // αᵢ counts mistakes: they add up to the total.
        let alpha_sum: f64 = dual.dual_coef()[0].iter().map(|c| c.abs()).sum();
        prop_assert_eq!(alpha_sum, dual.mistakes()[0] as f64);
    }
}
