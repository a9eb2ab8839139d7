//! Least squares and ridge from statistics: any partitioning of the rows, merged in any order
//! (`margin_testing::stats::fit_in_parts`), gives the fit on the rows to rounding, with weights
//! or without, with an intercept or without, for every direct solver; and what statistics
//! refuse.

use margin_core::{Dataset, DenseMatrix, Error, Fit, FitStats, Merge, PartialFit, Targets};
use margin_io::datasets;
use margin_linear::{LinearRegression, LstsqSolver, Ridge, RidgeSolver};
use margin_testing::stats::fit_in_parts;
use proptest::prelude::*;

/// Random regression data `y = X w + 5 + noise` (`n ≥ d + 3`, so full rank almost surely), with
/// positive weights when asked for, and cut points for the parts.
fn problem() -> impl Strategy<Value = (Dataset, Vec<usize>, u64)> {
    (1usize..=4, 0usize..=30, any::<bool>()).prop_flat_map(|(d, extra, weighted)| {
        let n = d + 3 + extra;
        (
            proptest::collection::vec(-3.0f64..3.0, n * d),
            proptest::collection::vec(-3.0f64..3.0, d),
            proptest::collection::vec(-0.5f64..0.5, n),
            proptest::collection::vec(0.25f64..4.0, n),
            proptest::collection::vec(0..=n, 0..5),
            any::<u64>(),
        )
            .prop_map(move |(x, w, noise, weights, mut cuts, seed)| {
                let y = (0..n)
                    .map(|i| 5.0 + noise[i] + (0..d).map(|j| x[i * d + j] * w[j]).sum::<f64>())
                    .collect();
                let x = DenseMatrix::from_row_major(x, n, d).unwrap();
                let mut data = Dataset::new(x, Targets::Values(y)).unwrap();
                if weighted {
                    data = data.with_sample_weights(weights).unwrap();
                }
                cuts.extend([0, n]);
                cuts.sort_unstable();
                cuts.dedup();
                (data, cuts, seed)
            })
    })
}

/// Coefficients and intercept agree to `tol` relative to the coefficients' size.
fn assert_close(a: (&[f64], f64), b: (&[f64], f64), tol: f64, what: &str) {
    let scale = 1.0 + b.0.iter().fold(b.1.abs(), |m, v| m.max(v.abs()));
    for (x, y) in a.0.iter().zip(b.0).chain([(&a.1, &b.1)]) {
        assert!((x - y).abs() <= tol * scale, "{what}: {:?} vs {:?}", a, b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn statistics_in_parts_give_the_fit((data, cuts, seed) in problem(), intercept in any::<bool>(), alpha in 0.0f64..5.0) {
        for solver in [LstsqSolver::Qr, LstsqSolver::Svd, LstsqSolver::NormalEquations] {
            let params = LinearRegression::params().solver(solver).fit_intercept(intercept);
            let (parts, whole) = (fit_in_parts(&params, &data, &cuts, seed).unwrap(), params.fit(&data).unwrap());
            assert_close((parts.coef().row(0), parts.intercept()[0]), (whole.coef().row(0), whole.intercept()[0]), 1e-10, "least squares");
            prop_assert_eq!((parts.rank(), parts.solver()), (whole.rank(), whole.solver()));
            prop_assert!((parts.rss() - whole.rss()).abs() <= 1e-9 * (1.0 + whole.rss()));
            let (se_a, se_b) = (parts.coef_standard_errors().unwrap(), whole.coef_standard_errors().unwrap());
            for (a, b) in se_a.iter().zip(&se_b) {
                prop_assert!((a - b).abs() <= 1e-8 * (1.0 + b), "{} vs {}", a, b);
            }
        }
        for solver in [RidgeSolver::Cholesky, RidgeSolver::Svd] {
            let params = Ridge::params().alpha(alpha).solver(solver).fit_intercept(intercept);
            let (parts, whole) = (fit_in_parts(&params, &data, &cuts, seed).unwrap(), params.fit(&data).unwrap());
            assert_close((parts.coef().row(0), parts.intercept()[0]), (whole.coef().row(0), whole.intercept()[0]), 1e-10, "ridge");
        }
    }
}

/// More features than rows in every part and in all: ridge (α > 0) is still well posed, and
/// the statistics' triangle carries it.
#[test]
fn short_parts_and_a_short_whole_give_ridge() {
    let data = datasets::housing_scale().unwrap();
    let rows: Vec<usize> = (0..10).collect();
    let short = data.select(&rows).unwrap();
    for solver in [RidgeSolver::Cholesky, RidgeSolver::Svd] {
        let params = Ridge::params().alpha(0.3).solver(solver);
        let parts = fit_in_parts(&params, &short, &[0, 3, 4, 10], 7).unwrap();
        let whole = params.fit(&short).unwrap();
        assert_close(
            (parts.coef().row(0), parts.intercept()[0]),
            (whole.coef().row(0), whole.intercept()[0]),
            1e-10,
            "short",
        );
    }
}

/// The real housing data in eight parts, against the one-pass fit.
#[test]
fn housing_in_eight_parts() {
    let data = datasets::housing_scale().unwrap();
    let n = data.n_samples();
    let cuts: Vec<usize> = (0..=8).map(|k| k * n / 8).collect();
    let params = LinearRegression::params();
    let parts = fit_in_parts(&params, &data, &cuts, 3).unwrap();
    let whole = params.fit(&data).unwrap();
    assert_close(
        (parts.coef().row(0), parts.intercept()[0]),
        (whole.coef().row(0), whole.intercept()[0]),
        1e-12,
        "housing",
    );
    assert_eq!(parts.df_resid(), whole.df_resid());
}

#[test]
fn statistics_refuse_what_they_cannot_serve() {
    let data = datasets::housing_scale().unwrap();
    let params = LinearRegression::params();
    // No rows yet.
    assert!(matches!(
        params.fit_stats(&params.stats()),
        Err(Error::EmptyDataset(_))
    ));
    let mut stats = params.stats();
    stats.partial_fit(&data).unwrap();
    // Gradient descent walks the rows.
    let gd = params.clone().solver(LstsqSolver::GradientDescent);
    assert!(matches!(
        gd.fit_stats(&stats),
        Err(Error::Unsupported { .. })
    ));
    // Gathered with an intercept, fitted without.
    let no_intercept = params.clone().fit_intercept(false);
    assert!(matches!(
        no_intercept.fit_stats(&stats),
        Err(Error::InvalidParameter { name, .. }) if name == "fit_intercept"
    ));
    // A batch of another width, and statistics of another centring, leave the stats alone.
    let before = stats.clone();
    let narrow = Dataset::regression(vec![vec![1.0], vec![2.0]], vec![1.0, 2.0]).unwrap();
    assert!(matches!(
        stats.partial_fit(&narrow),
        Err(Error::ShapeMismatch { .. })
    ));
    let mut other = no_intercept.stats();
    other.partial_fit(&data).unwrap();
    assert!(stats.merge(&other).is_err());
    assert_eq!(stats, before);
}
