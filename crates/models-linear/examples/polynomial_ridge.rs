//! Polynomial regression, overfitted and cured: 15 noisy samples of sin(2πx), expanded to
//! degree-10 monomials. Least squares passes through the noise (tiny training error, large test
//! error); a ridge penalty trades a little training error for a much smaller test error.
//!
//! `cargo run -p margin-linear --example polynomial_ridge`

use margin_core::generate::fill_standard_normal;
use margin_core::split::rng_from_seed;
use margin_core::{Dataset, DenseMatrix, Fit, Predict, Targets, Transform};
use margin_linear::{LinearRegression, Ridge};
use margin_metrics::root_mean_squared_error as rmse;
use margin_preprocessing::PolynomialFeatures;
use rand::Rng;

const NOISE: f64 = 0.2;

/// `n` inputs uniform in [0, 1] and their targets `sin 2πx + noise`.
fn samples(n: usize, rng: &mut impl Rng) -> margin_core::Result<(DenseMatrix, Vec<f64>)> {
    let x: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
    let mut noise = vec![0.0; n];
    fill_standard_normal(rng, &mut noise);
    let y = x
        .iter()
        .zip(&noise)
        .map(|(&x, e)| (2.0 * std::f64::consts::PI * x).sin() + NOISE * e)
        .collect();
    Ok((DenseMatrix::from_row_major(x, n, 1)?, y))
}

fn main() -> margin_core::Result<()> {
    let mut rng = rng_from_seed(2024);
    let (x_train, y_train) = samples(15, &mut rng)?;
    let (x_test, y_test) = samples(500, &mut rng)?;

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
        rmse(&y_train, &ols.predict(&train.records)?)?,
        rmse(&y_test, &ols.predict(&test)?)?,
        norm(ols.coef().row(0)),
    );

    // The whole regularization path from one SVD of the expanded design.
    let alphas = [1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0];
    for model in Ridge::params().fit_path(&train, &alphas)? {
        println!(
            "| ridge | {:.0e} | {:.4} | {:.4} | {:.3e} |",
            model.alpha(),
            rmse(&y_train, &model.predict(&train.records)?)?,
            rmse(&y_test, &model.predict(&test)?)?,
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
