//! Helpers the suites of `margin-linear` share across files.

use margin_core::{Dataset, Fit};
use margin_linear::{LinearRegression, LstsqSolver};

/// `data` fitted by linear regression (default parameters) with each direct least-squares
/// solver (QR, SVD, normal equations), paired with the solver asked for: how the suites check
/// that the solvers agree.
pub(crate) fn fit_each_solver(data: &Dataset) -> Vec<(LstsqSolver, LinearRegression)> {
    [
        LstsqSolver::Qr,
        LstsqSolver::Svd,
        LstsqSolver::NormalEquations,
    ]
    .into_iter()
    .map(|solver| {
        let model = LinearRegression::params().solver(solver).fit(data).unwrap();
        (solver, model)
    })
    .collect()
}

/// The lines of `tests/fixtures/<file>` but `#` comments, each as its first word (the key) and
/// the numbers after it: the fixtures of the scikit-learn generators that write `key v1 v2 ...`.
///
/// # Panics
/// If the file cannot be read or a value is not a number.
pub(crate) fn keyed_numbers(file: &str) -> Vec<(String, Vec<f64>)> {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let (key, rest) = line.split_once(' ').unwrap();
            let nums = rest
                .split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect();
            (key.to_owned(), nums)
        })
        .collect()
}
