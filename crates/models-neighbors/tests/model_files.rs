//! Model files whose checksum is right but whose contents are not: the battery's forgeries over
//! `kneighbors` and `predict_proba` (the battery calls `predict` only) and for
//! `NearestNeighbors`, which it does not reach; a training-row offset past the stored entries
//! (which used to panic while the index was rebuilt) and a repeated label, refused on load.

use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Fit, Label, Matrix, PredictProba, Records, Result, Targets,
};
use margin_io::ModelFile;
use margin_neighbors::{
    Algorithm, KNeighborsClassifier, KNeighborsClassifierParams, Metric, NearestNeighbors,
};
use margin_testing::battery::{RawMatrix, check_forged_files, check_refused};
use serde::{Deserialize, Serialize};

fn data() -> Dataset {
    let x: Vec<f64> = (0..30 * 3)
        .map(|i| ((i * 37 + 11) % 97) as f64 / 48.0 - 1.0)
        .collect();
    let y = (0..30).map(|i| f64::from(i % 3)).collect();
    Dataset::new(
        DenseMatrix::from_row_major(x, 30, 3).unwrap(),
        Targets::Values(y),
    )
    .unwrap()
}

#[test]
fn forged_neighbour_files_are_refused_or_harmless_in_every_method() {
    let d = data();
    for algorithm in [Algorithm::Brute, Algorithm::KdTree] {
        let knn = KNeighborsClassifier::params()
            .n_neighbors(4)
            .algorithm(algorithm)
            .fit(&d)
            .unwrap();
        check_forged_files(&knn, 3, |m, x| {
            Ok(vec![
                m.predict_proba(x)?.nrows(),
                m.kneighbors(x, 2)?.n_queries(),
            ])
        });
    }
    for metric in [Metric::Euclidean, Metric::Cosine, Metric::Minkowski(3.0)] {
        let nn = NearestNeighbors::params()
            .metric(metric)
            .fit(&d.records)
            .unwrap();
        check_forged_files(&nn, 3, |m, x| {
            Ok(vec![m.kneighbors(x, m.n_neighbors())?.n_queries()])
        });
    }
}

/// A `knn-classifier` file field by field.
#[derive(Clone, Serialize, Deserialize)]
struct ClassifierFile {
    params: KNeighborsClassifierParams,
    records: RawMatrix,
    labels: Vec<Label>,
    y: Vec<usize>,
}

impl ModelFile for ClassifierFile {
    const KIND: &'static str = "knn-classifier";
    const SCHEMA: u32 = 1;
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[test]
fn stored_rows_and_labels_must_be_sound() {
    let mut d = data();
    d.records = Matrix::Sparse(CsrMatrix::from_dense(&d.records.to_dense().unwrap()));
    let model = KNeighborsClassifier::params().fit(&d).unwrap();
    let good = ClassifierFile::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert!(KNeighborsClassifier::from_bytes(&good.to_bytes().unwrap()).is_ok());
    // Used to panic in `predict` (through the index rebuilt on load): a row offset past the
    // stored entries, the last offset still equal to their count.
    let mut f = good.clone();
    let RawMatrix::Sparse { indptr, .. } = &mut f.records else {
        panic!("sparse training rows")
    };
    indptr[2] = indptr[indptr.len() - 1] + 1;
    check_refused::<KNeighborsClassifier>(&f.to_bytes().unwrap(), "indptr");
    let mut twice = good;
    twice.labels[1] = twice.labels[0].clone();
    check_refused::<KNeighborsClassifier>(&twice.to_bytes().unwrap(), "`labels`");
}
