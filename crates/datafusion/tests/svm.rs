//! The kernel SVM as a cascade over DataFusion's partitions, against the in-memory fit.

use margin_core::{Fit, Predict, Records};
use margin_datafusion::{fit_distributed, fit_svc};
use margin_io::ModelFile;
use margin_svm::Svc;

use crate::{Table, block_on, dense, near_and_far, session};

/// Each binary problem's dual objective is the in-memory fit's within `rel`, the classes are
/// the same, and at most one prediction in a hundred differs.
fn assert_same_optimum(parted: &Svc, whole: &Svc, x: &margin_core::Matrix, rel: f64) {
    assert_eq!(parted.classes(), whole.classes());
    assert_eq!(parted.hyperparams(), whole.hyperparams());
    for (a, b) in parted.problems().iter().zip(whole.problems()) {
        let gap = (a.objective - b.objective).abs() / b.objective.abs();
        assert!(gap < rel, "objectives {} and {}", a.objective, b.objective);
    }
    let ours = parted.predict(x).unwrap();
    let theirs = whole.predict(x).unwrap();
    let differ = ours.iter().zip(&theirs).filter(|(a, b)| a != b).count();
    assert!(differ <= x.n_samples() / 100, "{differ} predictions differ");
}

#[test]
fn the_cascade_reaches_the_in_memory_optimum() {
    let heart = dense(&margin_io::datasets::heart_scale().unwrap());
    let dna = margin_io::datasets::dna().unwrap();
    let dna = dense(&dna.select(&(0..400).collect::<Vec<_>>()).unwrap());
    block_on(async {
        let table = Table::new("heart", &heart, 3).await;
        let features: Vec<&str> = table.features.split(", ").collect();
        // Each with its tolerance: the default 1e-3 for the linear kernel.
        let linear = Svc::params()
            .c(10.0)
            .kernel(margin_svm::KernelChoice::Linear);
        for (params, tol) in [(Svc::params().tol(1e-6), 1e-6), (linear, 1e-3)] {
            let fit = fit_svc(&table.ctx, table.name, "label", &features, &params)
                .await
                .unwrap();
            let whole = params.fit(&heart).unwrap();
            assert_same_optimum(&fit.model, &whole, &heart.records, 10.0 * tol);
            let last = fit.passes.last().unwrap();
            assert!(last.violating == 0 || last.fed == last.root, "{last:?}");
        }
        // Three classes, one-vs-one, through fit_distributed.
        let table = Table::new("dna", &dna, 4).await;
        let query = format!("SELECT label, {} FROM dna", table.features);
        let params = Svc::params().tol(1e-5);
        let bytes = fit_distributed(&table.ctx, &query, "svc", "tol=1e-5", Some("label"))
            .await
            .unwrap();
        let parted = Svc::from_bytes(&bytes).unwrap();
        assert_same_optimum(&parted, &params.fit(&dna).unwrap(), &dna.records, 1e-4);
    });
}

#[test]
fn the_cascade_takes_text_labels_and_refuses_what_it_cannot_fit() {
    let ctx = session();
    block_on(async {
        // The first point twice: one point of count 2 in the cascade.
        let (rows, data) = near_and_far(1);
        let rows = rows.as_str();
        let params = Svc::params();
        let fit = fit_svc(&ctx, rows, "y", &["a", "b"], &params)
            .await
            .unwrap();
        let whole = params.fit(&data).unwrap();
        assert_eq!(
            fit.model.predict(&data.records).unwrap(),
            whole.predict(&data.records).unwrap()
        );
        assert_same_optimum(&fit.model, &whole, &data.records, 1e-2);

        for (params, what) in [
            (Svc::params().probability(true), "probability"),
            (
                Svc::params().label_order(margin_svm::LabelOrder::FirstSeen),
                "label_order",
            ),
        ] {
            let e = fit_svc(&ctx, rows, "y", &["a", "b"], &params)
                .await
                .unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
        let e = fit_svc(&ctx, rows, "y", &[], &params).await.unwrap_err();
        assert!(e.to_string().contains("feature"), "{e}");
        let one_class = "(VALUES (0.0, 'a'), (1.0, 'a')) AS t(x, y)";
        assert!(
            fit_svc(&ctx, one_class, "y", &["x"], &params)
                .await
                .is_err()
        );
    });
}
