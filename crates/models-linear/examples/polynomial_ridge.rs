//! Polynomial regression, overfitted and cured: 15 noisy samples of sin(2πx), expanded to
//! degree-10 monomials. Least squares passes through the noise (tiny training error, large test
//! error); a ridge penalty trades a little training error for a much smaller test error.
//!
//! `cargo run -p margin-linear --example polynomial_ridge`

use margin_core::{Dataset, DenseMatrix, Fit, Predict, Targets, Transform};
use margin_linear::{LinearRegression, Ridge};
use margin_preprocessing::PolynomialFeatures;

/// A small seeded generator (splitmix64), so the example needs no random-number crate and
/// prints the same table everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

const NOISE: f64 = 0.2;

/// `(x, sin 2πx + noise)` at the given `x`.
fn samples(x: Vec<f64>, rng: &mut SplitMix) -> (DenseMatrix, Vec<f64>) {
    let n = x.len();
    let y = x
        .iter()
        .map(|&x| (2.0 * std::f64::consts::PI * x).sin() + NOISE * rng.normal())
        .collect();
    (
        DenseMatrix::from_row_major(x, n, 1).unwrap_or_else(|_| DenseMatrix::zeros(n, 1)),
        y,
    )
}

fn rmse(predicted: &[f64], truth: &[f64]) -> f64 {
    let sum: f64 = predicted
        .iter()
        .zip(truth)
        .map(|(p, t)| (p - t) * (p - t))
        .sum();
    (sum / truth.len() as f64).sqrt()
}

fn main() -> margin_core::Result<()> {
    let mut rng = SplitMix(2024);
    // Inputs drawn uniformly from [0, 1], for training and for testing.
    let train_x = (0..15).map(|_| rng.uniform()).collect();
    let (x_train, y_train) = samples(train_x, &mut rng);
    let test_x = (0..500).map(|_| rng.uniform()).collect();
    let (x_test, y_test) = samples(test_x, &mut rng);

    // Degree 10 without the bias column: the models fit their own intercept.
    let poly = PolynomialFeatures::params()
        .degree(10)
        .include_bias(false)
        .fit(&x_train)?;
    let train = Dataset::new(poly.transform(&x_train)?, Targets::Values(y_train.clone()))?;
    let test = poly.transform(&x_test)?;

    println!("15 training samples of sin(2πx) + N(0, {NOISE}²), degree-10 polynomial features");
    println!("test: 500 fresh samples; the noise alone gives a test RMSE of about {NOISE}\n");
    println!("| model | alpha | train RMSE | test RMSE | ‖w‖ |");
    println!("|---|---|---|---|---|");
    let norm = |w: &[f64]| w.iter().map(|v| v * v).sum::<f64>().sqrt();

    let ols = LinearRegression::params().fit(&train)?;
    println!(
        "| least squares | – | {:.4} | {:.4} | {:.3e} |",
        rmse(&ols.predict(&train.records)?, &y_train),
        rmse(&ols.predict(&test)?, &y_test),
        norm(ols.coef().row(0)),
    );

    // The whole regularization path from one SVD of the expanded design.
    let alphas = [1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0];
    for model in Ridge::params().fit_path(&train, &alphas)? {
        println!(
            "| ridge | {:.0e} | {:.4} | {:.4} | {:.3e} |",
            model.alpha(),
            rmse(&model.predict(&train.records)?, &y_train),
            rmse(&model.predict(&test)?, &y_test),
            norm(model.coef().row(0)),
        );
    }
    println!(
        "\nleast squares: solver {:?}, rank {} of {} features",
        ols.solver(),
        ols.rank(),
        ols.coef().row(0).len()
    );
    Ok(())
}
