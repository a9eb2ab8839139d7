//! Writes every chart `margin_metrics::plot` draws (SVG and PNG), from cross-validating an SVM on the bundled heart
//! data, into the directory given (default: the system temp directory).
//!
//! `cargo run -p margin-metrics --features png --example plots -- OUT_DIR`

use margin_core::split::StratifiedKFold;
use margin_core::{DecisionFunction, Fit, Label};
use margin_io::datasets;
use margin_metrics::{ConfusionMatrix, cross_val_predict, learning_curve, plot};
use margin_svm::Svc;

fn main() -> margin_core::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(std::env::temp_dir, Into::into);
    let data = datasets::heart_scale()?;
    let classes = data.targets.to_classes()?;
    let folds = StratifiedKFold::new(5).shuffle(1).split(&data)?;
    // Each sample's decision value from the model fitted without its fold.
    let mut scores = vec![0.0; data.n_samples()];
    for fold in &folds {
        let model = Svc::params().fit(&data.select(&fold.train)?)?;
        let dec = model.decision_function(&data.records.select_rows(&fold.test)?)?;
        for (k, &i) in fold.test.iter().enumerate() {
            scores[i] = dec.get(k, 0);
        }
    }
    let predicted: Vec<Label> = cross_val_predict(&Svc::params(), &data, &folds)?;
    let positive: Vec<bool> = classes.indices().iter().map(|&k| k == 1).collect();
    // Each chart as SVG and as PNG.
    let write = |name: &str, svg: String| -> margin_core::Result<()> {
        plot::write_chart(&out.join(name), &svg)?;
        plot::write_chart(&out.join(name.replace(".svg", ".png")), &svg)
    };
    write(
        "roc.svg",
        plot::roc_svg(
            &margin_metrics::roc_curve(&positive, &scores, true)?,
            margin_metrics::roc_auc(&positive, &scores)?,
        ),
    )?;
    let pr = margin_metrics::precision_recall_curve(&positive, &scores)?;
    write(
        "pr.svg",
        plot::precision_recall_svg(&pr, margin_metrics::average_precision(&positive, &scores)?),
    )?;
    let names: Vec<String> = classes.labels().iter().map(ToString::to_string).collect();
    write(
        "confusion.svg",
        plot::confusion_svg(
            &ConfusionMatrix::from_labels(&data.labels()?.to_vec(), &predicted)?,
            &names,
        ),
    )?;
    let fractions = [0.1, 0.2, 0.4, 0.6, 0.8, 1.0];
    let curve = learning_curve(&Svc::params(), &data, &folds, &fractions, "accuracy")?;
    let xs: Vec<f64> = curve.iter().map(|p| p.x as f64).collect();
    write(
        "learning.svg",
        plot::curve_svg("Learning curve (RBF SVC)", "training samples", &curve, &xs),
    )?;
    println!(
        "wrote the roc, pr, confusion and learning charts (.svg and .png) to {}",
        out.display()
    );
    Ok(())
}
