//! Cross-validation of a real model: per-fold scores equal fitting each fold by hand, and the
//! result does not depend on the number of threads.

use margin_core::split::StratifiedKFold;
use margin_core::{Dataset, Fit, Label, Predict};
use margin_io::datasets;
use margin_metrics::{accuracy, cross_val_predict, cross_validate};
use margin_svm::Svc;
use margin_testing::with_threads;

fn labels(d: &Dataset) -> Vec<Label> {
    let c = d.targets.to_classes().unwrap();
    c.indices().iter().map(|&k| c.labels()[k].clone()).collect()
}

#[test]
fn folds_score_like_hand_fitted_models_on_any_thread_count() {
    let data = datasets::heart_scale().unwrap();
    let folds = StratifiedKFold::new(5).shuffle(3).split(&data).unwrap();
    let params = Svc::params();
    let score = |test: &Dataset, pred: &Vec<Label>| accuracy(&labels(test), pred);
    let run = |threads: usize| {
        with_threads(threads, || {
            cross_validate(&params, &data, &folds, score).unwrap()
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two);
    for (fold, s) in folds.iter().zip(&one) {
        let model = params.fit(&data.select(&fold.train).unwrap()).unwrap();
        let test = data.select(&fold.test).unwrap();
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

#[test]
fn grid_search_picks_the_best_cross_validated_candidate_and_refits_it() {
    use margin_kernels::Rbf;
    use margin_metrics::{Grid, search};
    let data = datasets::heart_scale().unwrap();
    let folds = StratifiedKFold::new(3).shuffle(1).split(&data).unwrap();
    let grid = Grid::new(Svc::params())
        .axis("C", [0.01, 1.0, 100.0], |p, c| Ok(p.c(c)))
        .axis("gamma", [0.01, 0.1], |p, g| {
            Ok(p.kernel(Rbf::with_gamma(g)?))
        });
    let candidates = grid.candidates().unwrap();
    assert_eq!(candidates.len(), 6);
    assert_eq!(
        candidates[1].settings,
        vec![
            ("C".to_string(), "0.01".to_string()),
            ("gamma".to_string(), "0.1".to_string())
        ]
    );
    let score = |test: &Dataset, pred: &Vec<Label>| accuracy(&labels(test), pred);
    let result = search(candidates.clone(), &data, &folds, score).unwrap();
    let means = result.mean_scores();
    for (c, m) in candidates.iter().zip(&means) {
        let by_hand = cross_validate(&c.params, &data, &folds, score).unwrap();
        assert_eq!(*m, by_hand.iter().sum::<f64>() / by_hand.len() as f64);
    }
    assert!(means.iter().all(|&m| m <= means[result.best]));
    let refit = candidates[result.best].params.fit(&data).unwrap();
    assert_eq!(
        result.model.predict(&data.records).unwrap(),
        refit.predict(&data.records).unwrap()
    );
    assert!(result.table().contains(" *"));
    let sampled = grid.sample(4, 9).unwrap();
    assert_eq!(sampled.len(), 4);
    assert_eq!(grid.sample(4, 9).unwrap()[3].settings, sampled[3].settings);
    let bad =
        Grid::new(Svc::params()).axis("gamma", [-1.0], |p, g| Ok(p.kernel(Rbf::with_gamma(g)?)));
    assert!(bad.candidates().is_err());
}

#[test]
fn learning_and_validation_curves_score_train_and_test_parts() {
    use margin_kernels::Rbf;
    use margin_metrics::{learning_curve, validation_curve};
    let data = datasets::heart_scale().unwrap();
    let folds = StratifiedKFold::new(3).shuffle(4).split(&data).unwrap();
    let score = |test: &Dataset, pred: &Vec<Label>| accuracy(&labels(test), pred);
    let curve = learning_curve(&Svc::params(), &data, &folds, &[0.2, 0.6, 1.0], score).unwrap();
    assert_eq!(
        curve.iter().map(|p| p.x).collect::<Vec<_>>(),
        vec![36, 108, 180]
    );
    let full = cross_validate(&Svc::params(), &data, &folds, score).unwrap();
    assert_eq!(curve[2].test_scores, full);
    assert!(
        curve
            .iter()
            .all(|p| p.train_scores.len() == 3 && p.test_scores.len() == 3)
    );
    let cands: Vec<_> = [0.001, 0.1, 10.0]
        .iter()
        .map(|&g| Svc::params().kernel(Rbf::with_gamma(g).unwrap()))
        .collect();
    let v = validation_curve(&cands, &data, &folds, score).unwrap();
    // A huge γ memorizes the training part: near-perfect there, worse held out.
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    assert!(mean(&v[2].train_scores) > 0.99 && mean(&v[2].test_scores) < mean(&v[2].train_scores));
    assert!(learning_curve(&Svc::params(), &data, &folds, &[1.5], score).is_err());
}

#[test]
fn a_fold_whose_training_part_has_one_class_is_named_in_the_error() {
    use margin_core::{DenseMatrix, Error, Targets};
    // Six samples of class 1 and one of class 2: the fold holding the lone class-2 sample
    // trains on class 1 alone.
    let x = DenseMatrix::from_row_major((0..7).map(f64::from).collect(), 7, 1).unwrap();
    let y = vec![1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0];
    let data = Dataset::new(x, Targets::Values(y)).unwrap();
    let folds = StratifiedKFold::new(3).split(&data).unwrap();
    let lonely = folds.iter().position(|f| f.test.contains(&3)).unwrap();
    let score = |test: &Dataset, pred: &Vec<Label>| accuracy(&labels(test), pred);
    for err in [
        cross_validate(&Svc::params(), &data, &folds, score).unwrap_err(),
        cross_val_predict::<_, Label>(&Svc::params(), &data, &folds).unwrap_err(),
    ] {
        match &err {
            Error::InFold { fold, n_folds, .. } => assert_eq!((*fold, *n_folds), (lonely + 1, 3)),
            other => panic!("not a fold error: {other}"),
        }
        assert!(
            matches!(err.root(), Error::TooFewClasses { found: 1, .. }),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "cross-validation fold {} of 3: too few classes",
                lonely + 1
            )),
            "{text}"
        );
    }
}
