//! Reading the scikit-learn fixtures written by tests/fixtures/gen_tree.py.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use core_linalg::{Dataset, Matrix, Records};

/// One fixture file: `key shape values...` lines.
pub struct Fixture {
    fields: HashMap<String, Vec<String>>,
}

impl Fixture {
    pub fn read(name: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let fields = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let mut words = l.split_whitespace().map(str::to_owned);
                let key = words.next().unwrap();
                let _shape = words.next();
                (key, words.collect())
            })
            .collect();
        Self { fields }
    }

    pub fn word(&self, key: &str) -> &str {
        &self.fields[key][0]
    }

    pub fn floats(&self, key: &str) -> Vec<f64> {
        self.fields[key]
            .iter()
            .map(|w| w.parse().unwrap())
            .collect()
    }

    pub fn ints(&self, key: &str) -> Vec<i64> {
        self.fields[key]
            .iter()
            .map(|w| w.parse().unwrap())
            .collect()
    }

    pub fn float(&self, key: &str) -> f64 {
        self.floats(key)[0]
    }
}

/// A bundled dataset by name.
pub fn bundled(name: &str) -> Dataset {
    core_linalg::datasets::by_name(name).unwrap().unwrap()
}

/// The same dataset with dense records.
pub fn dense(data: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Dense(data.records.to_dense()),
        ..data.clone()
    }
}

/// Fraction of equal entries.
pub fn accuracy<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}
