//! The README's example: an RBF SVM on the bundled heart data, saved and reloaded.
//!
//! `cargo run --release -p margin-ml --example svm_heart`

use margin::kernels::Gamma;
use margin::prelude::*;
use margin::svm::{KernelChoice, Svc};

fn main() -> margin::Result<()> {
    let data = margin::datasets::heart_scale()?; // 270 × 13, labels ±1
    let (train, test) = train_test_split(&data, 0.25, true, 42)?; // stratified, seeded
    let model = Svc::params()
        .c(1.0)
        .kernel(KernelChoice::Rbf {
            gamma: Gamma::Scale,
        })
        .fit(&train)?;
    let labels = model.predict(&test.records)?; // original labels (±1)
    let scores = model.decision_function(&test.records)?; // > 0 means labels()[1]
    let path = std::env::temp_dir().join("heart.margin");
    model.save(&path)?; // versioned, checksummed
    let same = Svc::load(&path)?;
    assert_eq!(same.predict(&test.records)?, labels);
    let accuracy = Scoring::Accuracy.score(&model, &test)?; // or by name: "accuracy"
    println!(
        "{} support vectors; test accuracy {accuracy:.4}; first decision value {:.4}",
        model.support_indices().len(),
        scores.get(0, 0)
    );
    Ok(())
}
