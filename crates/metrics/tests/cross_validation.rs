//! Cross-validation of a real model: per-fold scores equal fitting each fold by hand, and the
//! result does not depend on the number of threads.

use core_linalg::split::StratifiedKFold;
use core_linalg::{Dataset, Fit, Label, Predict, datasets};
use metrics::{accuracy, cross_val_predict, cross_validate};
use models_svm::Svc;

fn labels(d: &Dataset) -> Vec<Label> {
    let c = d.targets.classes().unwrap();
    c.indices()
        .iter()
        .map(|&k| c.labels()[k as usize].clone())
        .collect()
}

#[test]
fn folds_score_like_hand_fitted_models_on_any_thread_count() {
    let data = datasets::heart_scale().unwrap();
    let folds = StratifiedKFold::new(5)
        .shuffle(3)
        .split(&data.targets.classes().unwrap())
        .unwrap();
    let params = Svc::params();
    let score = |test: &Dataset, pred: &Vec<Label>| accuracy(&labels(test), pred);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| cross_validate(&params, &data, &folds, score).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two);
    for (fold, s) in folds.iter().zip(&one) {
        let model = params.fit(&data.select(&fold.train)).unwrap();
        let test = data.select(&fold.test);
        assert_eq!(
            *s,
            accuracy(&labels(&test), &model.predict(&test.records).unwrap()).unwrap()
        );
    }
    let pred: Vec<Label> = cross_val_predict(&params, &data, &folds).unwrap();
    let pooled = accuracy(&labels(&data), &pred).unwrap();
    let weighted: f64 = folds
        .iter()
        .zip(&one)
        .map(|(f, s)| s * f.test.len() as f64)
        .sum::<f64>()
        / data.n_samples() as f64;
    assert!((pooled - weighted).abs() < 1e-12);
    assert!(cross_validate(&params, &data, &[], score).is_err());
}
