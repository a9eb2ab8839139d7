//! What several test files share: reading the scikit-learn fixtures written by
//! tests/fixtures/gen_tree.py, bundled datasets, and small checks.

use std::path::Path;

use margin_core::{Dataset, DenseMatrix, Label, Matrix, Records, Targets};

pub use margin_testing::fixture::Fixture;

/// The fixture `name` of tests/fixtures.
pub fn fixture(name: &str) -> Fixture {
    Fixture::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

/// A bundled dataset by name.
pub fn bundled(name: &str) -> Dataset {
    margin_io::datasets::by_name(name).unwrap().unwrap()
}

/// The same dataset with dense records.
pub fn dense(data: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Dense(data.records.to_dense().unwrap()),
        ..data.clone()
    }
}

/// Fraction of equal entries.
pub fn accuracy<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// The targets of a classification dataset read as labels (numbers).
pub fn labels(data: &Dataset) -> Vec<Label> {
    data.targets
        .values()
        .unwrap()
        .iter()
        .map(|&v| Label::Number(v))
        .collect()
}

/// Asserts that `fit` gives the same on one thread as on two: what it returns (model bytes,
/// predictions) must not depend on how the work is spread.
pub fn assert_same_on_one_and_two_threads<T: PartialEq + std::fmt::Debug + Send>(
    fit: impl Fn() -> T + Send + Sync,
) {
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(&fit)
    };
    assert_eq!(on(1), on(2));
}

/// The hand-checked toy set: x1 = 1..12, x2 a permutation; six samples of each class.
pub fn toy() -> Dataset {
    let x2 = [
        5.0, 3.0, 8.0, 1.0, 9.0, 2.0, 7.0, 4.0, 6.0, 10.0, 12.0, 11.0,
    ];
    let rows: Vec<Vec<f64>> = (0..12).map(|i| vec![i as f64 + 1.0, x2[i]]).collect();
    let y = vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
    Dataset::new(DenseMatrix::from_rows(&rows).unwrap(), Targets::Values(y)).unwrap()
}
