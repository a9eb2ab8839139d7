//! Reading the scikit-learn fixtures written by tests/fixtures/gen_tree.py.

#![allow(dead_code)]

use std::path::Path;

use margin_core::{Dataset, Matrix, Records};

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
