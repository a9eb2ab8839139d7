//! Writes every chart `margin_metrics::plot` draws (SVG and PNG), from cross-validating an SVM on the bundled heart
//! data, into the directory given (default: the system temp directory).
//!
//! `cargo run -p margin-metrics --features png --example plots -- OUT_DIR`

use margin_core::split::StratifiedKFold;
use margin_core::{Dataset, DecisionFunction, Fit, Label, Predict};
use margin_io::datasets;
use margin_metrics::{ConfusionMatrix, accuracy, learning_curve, plot};
use margin_svm::Svc;

fn main() -> margin_core::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(std::env::temp_dir, Into::into);
    let data = datasets::heart_scale()?;
    let classes = data.targets.to_classes()?;
    let folds = StratifiedKFold::new(5).shuffle(1).split(&data)?;
    let (mut scores, mut predicted) = (vec![0.0; data.n_samples()], vec![0usize; data.n_samples()]);
    for fold in &folds {
        let model = Svc::params().fit(&data.select(&fold.train)?)?;
        let test = data.records.select_rows(&fold.test)?;
        let dec = model.decision_function(&test)?;
        for (k, (&i, label)) in fold.test.iter().zip(model.predict(&test)?).enumerate() {
            scores[i] = dec.get(k, 0);
            predicted[i] = classes
                .labels()
                .iter()
                .position(|l| *l == label)
                .unwrap_or(0);
        }
    }
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
            &ConfusionMatrix::new(classes.indices(), &predicted, 2)?,
            &names,
        ),
    )?;
    let labels = |d: &Dataset| -> Vec<Label> {
        let c = d.targets.to_classes().expect("class labels");
        c.indices().iter().map(|&k| c.labels()[k].clone()).collect()
    };
    let fractions = [0.1, 0.2, 0.4, 0.6, 0.8, 1.0];
    let curve = learning_curve(
        &Svc::params(),
        &data,
        &folds,
        &fractions,
        |t: &Dataset, p: &Vec<Label>| accuracy(&labels(t), p),
    )?;
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
