//! The block walk that predictions take through a tree (dense rows several at a time, lanes
//! refilled as rows reach their leaves) against the one-row record walk of `apply`, on trees
//! with threshold, categorical and missing-value splits and row counts below, at and above
//! the lane count, with and without missing values among the rows (a block without NaN takes
//! the one-comparison step).

use margin_core::{Dataset, DenseMatrix, Fit, Predict, Targets};
use margin_tree::DecisionTreeRegressor;
use proptest::prelude::*;

/// `n` rows of a categorical code (0..7, with codes the fit never saw at predict), two
/// continuous features, and NaN in any of them about one time in six; the target depends
/// on all three.
fn rows(seed: u64, n: usize, codes: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let x: Vec<Vec<f64>> = (0..n)
        .map(|_| {
            let code = (next() % codes) as f64;
            let a = (next() % 1000) as f64 / 100.0 - 5.0;
            let b = (next() % 1000) as f64 / 250.0;
            [code, a, b]
                .map(|v| if next() % 6 == 0 { f64::NAN } else { v })
                .to_vec()
        })
        .collect();
    let y = x
        .iter()
        .map(|r| {
            let c = if r[0].is_nan() { 3.0 } else { r[0] % 3.0 };
            let a = if r[1].is_nan() {
                1.0
            } else {
                r[1].clamp(0.0, 2.0)
            };
            c + a - if r[2] > 2.0 { 1.5 } else { 0.0 }
        })
        .collect();
    (x, y)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_block_walk_reaches_the_leaves_of_the_row_walk(
        seed in any::<u64>(),
        n_test in 1usize..70,
        max_depth in 1usize..12,
        nan_free in any::<bool>(),
    ) {
        let (x, y) = rows(seed, 300, 7);
        let data = Dataset::new(DenseMatrix::from_rows(&x).unwrap(), Targets::Values(y)).unwrap();
        let model = DecisionTreeRegressor::params()
            .categorical_features([0])
            .missing_values(true)
            .max_depth(Some(max_depth))
            .fit(&data)
            .unwrap();
        let (mut test, _) = rows(seed ^ 0x9e37_79b9_7f4a_7c15, n_test, 9);
        if nan_free {
            // Present values in place of the missing ones, through nodes that send missing
            // values right.
            test.iter_mut().flatten().filter(|v| v.is_nan()).for_each(|v| *v = 2.0);
        }
        let test = DenseMatrix::from_rows(&test).unwrap();
        let by_row: Vec<f64> = model
            .apply(&test)
            .unwrap()
            .into_iter()
            .map(|leaf| model.tree().node(leaf).value()[0])
            .collect();
        let by_block = model.predict(&test).unwrap();
        prop_assert_eq!(
            by_block.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            by_row.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}
