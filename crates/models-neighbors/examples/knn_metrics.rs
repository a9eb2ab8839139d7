//! k-nearest-neighbour classification of the bundled DNA splice-junction data (180 binary
//! features, 3 classes) with several distance metrics and both weightings, printing each
//! one's test accuracy (computed with the `metrics` crate).
//!
//! ```sh
//! cargo run --release -p margin-neighbors --example knn_metrics
//! ```

use margin_core::{Dataset, Fit, Label, Matrix, Predict, Records};

use margin_io::datasets;
use margin_neighbors::{KNeighborsClassifier, Metric, Weights};

/// The records as a dense matrix: the pair-by-pair metrics (all but the Euclidean family and
/// cosine) run faster on dense rows than on merged sparse ones.
fn dense(data: Dataset) -> margin_core::Result<Dataset> {
    Dataset::new(
        Matrix::Dense(data.records.to_dense().unwrap()),
        data.targets,
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (train, test) = (dense(datasets::dna()?)?, dense(datasets::dna_test()?)?);
    let classes = test.targets.to_classes()?;
    let truth: Vec<Label> = classes
        .indices()
        .iter()
        .map(|&c| classes.labels()[c].clone())
        .collect();
    println!(
        "dna: {} training rows, {} test rows, {} features; k = 5",
        train.n_samples(),
        test.n_samples(),
        train.n_features()
    );
    println!("{:<14} {:>9} {:>9}", "metric", "uniform", "distance");
    for (name, metric) in [
        ("euclidean", Metric::Euclidean),
        ("manhattan", Metric::Manhattan),
        ("chebyshev", Metric::Chebyshev),
        ("minkowski p=3", Metric::Minkowski(3.0)),
        ("cosine", Metric::Cosine),
        ("hamming", Metric::Hamming),
    ] {
        let mut row = format!("{name:<14}");
        for weights in [Weights::Uniform, Weights::Distance] {
            let model = KNeighborsClassifier::params()
                .metric(metric.clone())
                .weights(weights)
                .fit(&train)?;
            let predicted = model.predict(&test.records)?;
            row += &format!(" {:>9.4}", margin_metrics::accuracy(&truth, &predicted)?);
        }
        println!("{row}");
    }
    Ok(())
}
