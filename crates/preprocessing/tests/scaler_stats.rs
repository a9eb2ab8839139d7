//! The scalers from statistics: any partitioning of the rows, merged in any order
//! (`margin_testing::stats::merge_parts`), gives the scaler fitted on the rows — the ranges
//! exactly, the means and variances to rounding.

use margin_core::{DenseMatrix, Error, Fit, FitStats, Matrix};
use margin_preprocessing::{MinMaxScaler, StandardScaler};
use margin_testing::stats::{cut_points, matrix_parts, merge_parts};
use proptest::prelude::*;

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// Random rows and the cuts of their parts (`matrix_parts`).
fn problem() -> impl Strategy<Value = (DenseMatrix, Vec<usize>, u64)> {
    (1usize..=4, 1usize..=30).prop_flat_map(|(d, n)| {
        (
            proptest::collection::vec(-1e3f64..1e3, n * d),
            proptest::collection::vec(0..=n, 0..5),
            any::<u64>(),
        )
            .prop_map(move |(values, cuts, seed)| {
                let x = DenseMatrix::from_row_major(values, n, d).unwrap();
                (x, cut_points(cuts, n), seed)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn statistics_in_parts_give_the_fit((x, cuts, seed) in problem()) {
        let parts = matrix_parts(&x, &cuts).unwrap();
        let standard = StandardScaler::params().with_mean(false);
        let (merged, whole) = (merge_parts(&standard, &parts, seed).unwrap(), standard.fit(&x).unwrap());
        prop_assert_eq!(merged.n_samples_seen(), whole.n_samples_seen());
        prop_assert!(close(merged.mean(), whole.mean(), 1e-12));
        prop_assert!(close(&merged.variance(), &whole.variance(), 1e-10));
        prop_assert_eq!(merged.hyperparams(), whole.hyperparams());

        let minmax = MinMaxScaler::params().range(-1.0, 1.0);
        prop_assert_eq!(merge_parts(&minmax, &parts, seed).unwrap(), minmax.fit(&x).unwrap());
    }
}

#[test]
fn empty_statistics_and_other_widths_are_refused() {
    let x = Matrix::from(DenseMatrix::from_rows(&[[1.0, 2.0], [3.0, 5.0]]).unwrap());
    let narrow = Matrix::from(DenseMatrix::from_rows(&[[1.0]]).unwrap());
    let standard = StandardScaler::params();
    assert!(matches!(
        standard.fit_stats(&standard.stats()),
        Err(Error::EmptyDataset(_))
    ));
    let mixed = vec![vec![x.clone()], vec![narrow.clone()]];
    assert!(merge_parts(&standard, &mixed, 1).is_err());
    let minmax = MinMaxScaler::params();
    assert!(matches!(
        merge_parts(&minmax, &[] as &[Vec<Matrix>], 1),
        Err(Error::EmptyDataset(_))
    ));
    assert!(merge_parts(&minmax, &mixed, 1).is_err());
}
