//! PCA from statistics: any partitioning of the rows, merged in any order
//! (`margin_testing::stats::merge_parts`), gives the full-SVD fit on the rows to rounding —
//! mean, variances, components (signs fixed by the same rule) and transforms.

use margin_cluster::{NComponents, Pca, SvdSolver};
use margin_core::{DenseMatrix, Error, Fit, FitStats, Matrix, Records, Transform};
use margin_testing::stats::{cut_points, matrix_parts, merge_parts};
use proptest::prelude::*;

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    let scale = 1.0 + b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * scale)
}

/// Rows with correlated columns and distinct variances (so the components are well separated),
/// and the cuts of its parts (`matrix_parts`).
fn problem() -> impl Strategy<Value = (DenseMatrix, Vec<usize>, u64)> {
    (1usize..=5, 0usize..=30).prop_flat_map(|(d, extra)| {
        let n = d + 2 + extra;
        (
            proptest::collection::vec(-1.0f64..1.0, n * d),
            proptest::collection::vec(0..=n, 0..5),
            any::<u64>(),
        )
            .prop_map(move |(z, cuts, seed)| {
                // Column j mixes the earlier ones and has scale j + 1, plus an offset.
                let values: Vec<f64> = (0..n * d)
                    .map(|k| {
                        let (i, j) = (k / d, k % d);
                        10.0 + (j + 1) as f64 * z[k]
                            + 0.3 * (0..j).map(|t| z[i * d + t]).sum::<f64>()
                    })
                    .collect();
                let x = DenseMatrix::from_row_major(values, n, d).unwrap();
                (x, cut_points(cuts, n), seed)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn statistics_in_parts_give_the_fit((x, cuts, seed) in problem(), count in 1usize..=5, whiten in any::<bool>()) {
        let parts = matrix_parts(&x, &cuts).unwrap();
        let d = x.n_features();
        for n_components in [NComponents::All, NComponents::Count(count.min(d)), NComponents::Fraction(0.9)] {
            let params = Pca::params().n_components(n_components).whiten(whiten).svd_solver(SvdSolver::Full);
            let merged = merge_parts(&params, &parts, seed).unwrap();
            let whole = params.fit(&x).unwrap();
            prop_assert!(close(merged.mean(), whole.mean(), 1e-12));
            prop_assert!(close(merged.explained_variance(), whole.explained_variance(), 1e-10));
            prop_assert!(close(merged.explained_variance_ratio(), whole.explained_variance_ratio(), 1e-10));
            prop_assert!((merged.noise_variance() - whole.noise_variance()).abs() <= 1e-10 * (1.0 + whole.noise_variance()));
            prop_assert_eq!(merged.solver(), SvdSolver::Full);
            // Components are determined up to sign by distinct variances; the sign rule fixes it.
            prop_assert!(close(merged.components().as_slice(), whole.components().as_slice(), 1e-8));
            let (a, b) = (merged.transform(&x).unwrap(), whole.transform(&x).unwrap());
            prop_assert!(close(a.dense_view().unwrap().view().as_slice(), b.dense_view().unwrap().view().as_slice(), 1e-8));
        }
    }
}

#[test]
fn statistics_refuse_too_few_rows_and_other_widths() {
    let params = Pca::params();
    assert!(matches!(
        params.fit_stats(&params.stats()),
        Err(Error::EmptyDataset(_))
    ));
    let x = DenseMatrix::from_rows(&[[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]]).unwrap();
    let one_row = Matrix::from(x.select_rows(&[0]).unwrap());
    let parts = vec![vec![one_row.clone()]];
    assert!(matches!(
        merge_parts(&params, &parts, 0),
        Err(Error::EmptyDataset(_))
    ));
    let narrow = Matrix::from(DenseMatrix::from_rows(&[[1.0], [2.0]]).unwrap());
    let mixed = vec![vec![Matrix::from(x), narrow]];
    assert!(matches!(
        merge_parts(&params, &mixed, 0),
        Err(Error::ShapeMismatch { .. })
    ));
}
