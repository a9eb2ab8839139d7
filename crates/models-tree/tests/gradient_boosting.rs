//! The histogram boosters: hand-computed cases, the estimator battery, bad input, missing
//! values, early stopping, save→load and thread-count independence.

use margin_core::{
    ClassWeight, Dataset, DecisionFunction, DenseMatrix, Error, Fit, Label, Predict, PredictProba,
    Records, Targets,
};
use margin_io::{ModelFile, datasets};
use margin_testing::battery::{Task, check_estimator};
use margin_testing::with_threads;
use margin_tree::{
    EarlyStopping, GradientBoostingClassifier, GradientBoostingRegressor, RegressionLoss,
};

fn column(values: &[f64]) -> DenseMatrix {
    DenseMatrix::from_row_major(values.to_vec(), values.len(), 1).unwrap()
}

fn regression(x: &[f64], y: &[f64]) -> Dataset {
    Dataset::new(column(x), Targets::Values(y.to_vec())).unwrap()
}

/// y is a step at x = 4.5: the one split lands between the bins of 4 and 5 (edge 4.5), and
/// with learning rate 1 one squared-error iteration predicts each side's mean exactly.
#[test]
fn one_iteration_on_a_step_gives_the_leaf_means() {
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    let y = [1.0, 2.0, 1.0, 2.0, 1.5, 10.0, 11.0, 10.0, 11.0, 13.0];
    let model = GradientBoostingRegressor::params()
        .learning_rate(1.0)
        .max_iter(1)
        .min_samples_leaf(2)
        .max_leaf_nodes(Some(2))
        .early_stopping(EarlyStopping::Off)
        .fit(&regression(&x, &y))
        .unwrap();
    assert_eq!(
        model.bin_edges(0),
        &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]
    );
    assert_eq!(model.baseline(), 6.25);
    let p = model.predict(&column(&[0.0, 4.5, 4.6, 100.0])).unwrap();
    let (left, right) = (7.5 / 5.0, 55.0 / 5.0);
    for (got, want) in p.iter().zip([left, left, right, right]) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
}

/// With learning rate 0.5 the first tree moves halfway; the second moves half the remaining
/// residual of each side: the prediction is `mean + (1 − 0.5²)(leaf mean − mean)`.
#[test]
fn shrinkage_scales_every_leaf() {
    let x: Vec<f64> = (0..8).map(f64::from).collect();
    let y = [0.0, 0.0, 0.0, 0.0, 8.0, 8.0, 8.0, 8.0];
    let model = GradientBoostingRegressor::params()
        .learning_rate(0.5)
        .max_iter(2)
        .min_samples_leaf(1)
        .early_stopping(EarlyStopping::Off)
        .fit(&regression(&x, &y))
        .unwrap();
    let p = model.predict(&column(&[1.0, 6.0])).unwrap();
    assert!((p[0] - (4.0 - 0.75 * 4.0)).abs() < 1e-12, "{}", p[0]);
    assert!((p[1] - (4.0 + 0.75 * 4.0)).abs() < 1e-12, "{}", p[1]);
}

/// Absolute error: the baseline is the median and each leaf the median residual, so one
/// iteration with learning rate 1 predicts each side's median (an outlier does not move it).
#[test]
fn absolute_error_leaves_are_medians() {
    let x: Vec<f64> = (0..6).map(f64::from).collect();
    let y = [1.0, 2.0, 100.0, 20.0, 21.0, 22.0];
    let model = GradientBoostingRegressor::params()
        .loss(RegressionLoss::AbsoluteError)
        .learning_rate(1.0)
        .max_iter(1)
        .min_samples_leaf(3)
        .early_stopping(EarlyStopping::Off)
        .fit(&regression(&x, &y))
        .unwrap();
    assert_eq!(model.baseline(), 20.5);
    let p = model.predict(&column(&[0.0, 5.0])).unwrap();
    assert_eq!(p, vec![2.0, 21.0]);
}

fn heart() -> Dataset {
    datasets::heart_scale().unwrap()
}

// The battery expects NaN to be refused; by default NaN is a missing value here (tested in
// `nan_is_a_missing_value_and_infinity_is_refused`), so it runs with missing values off.
#[test]
fn battery_classifier() {
    check_estimator(
        &GradientBoostingClassifier::params()
            .max_iter(10)
            .min_samples_leaf(5)
            .allow_missing(false),
        Task::Classification,
    );
}

#[test]
fn battery_regressor() {
    check_estimator(
        &GradientBoostingRegressor::params()
            .max_iter(10)
            .min_samples_leaf(5)
            .allow_missing(false),
        Task::Regression,
    );
    check_estimator(
        &GradientBoostingRegressor::params()
            .loss(RegressionLoss::AbsoluteError)
            .max_iter(5)
            .subsample(0.7)
            // 28 of the battery's 40 samples per iteration: leaves of 20 could never split.
            .min_samples_leaf(5)
            .allow_missing(false),
        Task::Regression,
    );
}

#[test]
fn nan_is_a_missing_value_and_infinity_is_refused() {
    let data = heart();
    let mut x = data.records.to_dense().unwrap();
    for i in (0..x.nrows()).step_by(4) {
        x.row_mut(i)[2] = f64::NAN;
    }
    let with_nan = Dataset::new(x.clone(), data.targets.clone()).unwrap();
    let model = GradientBoostingClassifier::params()
        .max_iter(20)
        .fit(&with_nan)
        .unwrap();
    let mut probe = x.select_rows(&[0, 1, 2]).unwrap();
    probe.row_mut(1).fill(f64::NAN);
    let p = model.predict_proba(&probe).unwrap();
    assert!(p.as_slice().iter().all(|v| v.is_finite()));
    // Refused when missing values are off, at fit and at predict.
    let strict = GradientBoostingClassifier::params().allow_missing(false);
    assert!(matches!(
        strict.fit(&with_nan),
        Err(Error::NonFinite { row: 0, col: 2 })
    ));
    let strict_model = strict.max_iter(5).fit(&data).unwrap();
    // (Probe row 0 is training row 0, whose feature 2 is NaN.)
    assert!(matches!(
        strict_model.predict(&probe),
        Err(Error::NonFinite { row: 0, col: 2 })
    ));
    let mut inf = x.clone();
    inf.row_mut(7)[3] = f64::INFINITY;
    inf.row_mut(0)[2] = 0.0;
    let with_inf = Dataset::new(inf.clone(), data.targets.clone()).unwrap();
    assert!(matches!(
        GradientBoostingClassifier::params().fit(&with_inf),
        Err(Error::NonFinite { row: 7, col: 3 })
    ));
    assert!(matches!(
        model.predict(&inf.select_rows(&[7]).unwrap()),
        Err(Error::NonFinite { row: 0, col: 3 })
    ));
}

#[test]
fn bad_input_is_refused_with_typed_errors() {
    let data = heart();
    let one_class = Dataset::new(data.records.clone(), Targets::Values(vec![1.0; 270])).unwrap();
    assert!(matches!(
        GradientBoostingClassifier::params().fit(&one_class),
        Err(Error::TooFewClasses {
            found: 1,
            required: 2
        })
    ));
    let zero_weights = data.clone().with_sample_weights(vec![0.0; 270]).unwrap();
    assert!(matches!(
        GradientBoostingClassifier::params().fit(&zero_weights),
        Err(Error::InvalidParameter { .. })
    ));
    let invalid: Vec<(&str, margin_tree::GradientBoostingClassifierParams)> = vec![
        (
            "learning_rate",
            GradientBoostingClassifier::params().learning_rate(0.0),
        ),
        (
            "learning_rate",
            GradientBoostingClassifier::params().learning_rate(f64::NAN),
        ),
        ("max_iter", GradientBoostingClassifier::params().max_iter(0)),
        (
            "max_leaf_nodes",
            GradientBoostingClassifier::params().max_leaf_nodes(Some(1)),
        ),
        (
            "max_depth",
            GradientBoostingClassifier::params().max_depth(Some(0)),
        ),
        (
            "min_samples_leaf",
            GradientBoostingClassifier::params().min_samples_leaf(0),
        ),
        (
            "l2_regularization",
            GradientBoostingClassifier::params().l2_regularization(-1.0),
        ),
        ("max_bins", GradientBoostingClassifier::params().max_bins(1)),
        (
            "max_bins",
            GradientBoostingClassifier::params().max_bins(256),
        ),
        (
            "validation_fraction",
            GradientBoostingClassifier::params().validation_fraction(1.0),
        ),
        (
            "n_iter_no_change",
            GradientBoostingClassifier::params().n_iter_no_change(0),
        ),
        ("tol", GradientBoostingClassifier::params().tol(-1.0)),
        (
            "subsample",
            GradientBoostingClassifier::params().subsample(0.0),
        ),
        (
            "subsample",
            GradientBoostingClassifier::params().subsample(1.5),
        ),
    ];
    for (name, params) in invalid {
        match params.fit(&data) {
            Err(Error::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name}: expected InvalidParameter, got {other:?}"),
        }
    }
    let model = GradientBoostingClassifier::params()
        .max_iter(3)
        .fit(&data)
        .unwrap();
    assert!(matches!(
        model.predict(&DenseMatrix::zeros(2, 12)),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn early_stopping_stops_and_records_scores() {
    // On dna the validation loss stops improving long before 1 000 iterations.
    let data = datasets::dna().unwrap();
    let model = GradientBoostingClassifier::params()
        .max_iter(1000)
        .learning_rate(0.5)
        .early_stopping(EarlyStopping::On)
        .n_iter_no_change(3)
        .fit(&data)
        .unwrap();
    let n = model.n_iter();
    assert!(n < 1000, "{n} iterations");
    assert_eq!(
        model.fit_report().runs()[0].stop,
        margin_core::fit::Stop::NoImprovement { rounds: 3 }
    );
    assert!(model.convergence().converged());
    let val = model.validation_score();
    assert_eq!(val.len(), n + 1);
    assert_eq!(model.train_score().len(), n + 1);
    // Stopped because the last 3 scores did not beat the one before them.
    let reference = val[n - 3] + 1e-7;
    assert!(val[n - 2..].iter().all(|&s| s <= reference));
    assert!(
        val[n - 3] > val[0],
        "the model improved on the baseline first"
    );
    // Off: no scores, all iterations.
    let off = GradientBoostingClassifier::params()
        .max_iter(7)
        .early_stopping(EarlyStopping::Off)
        .fit(&data)
        .unwrap();
    assert_eq!(off.n_iter(), 7);
    assert!(off.validation_score().is_empty());
}

#[test]
fn multiclass_probabilities_sum_to_one_and_agree_with_predict() {
    let (train, test) = (datasets::dna().unwrap(), datasets::dna_test().unwrap());
    let model = GradientBoostingClassifier::params()
        .max_iter(10)
        .fit(&train)
        .unwrap();
    assert_eq!(model.n_trees_per_iteration(), 3);
    let proba = model.predict_proba(&test.records).unwrap();
    let labels = model.predict(&test.records).unwrap();
    for (row, label) in proba.rows().zip(&labels) {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let best = (0..3).fold(0, |b, k| if row[k] > row[b] { k } else { b });
        assert_eq!(&model.classes()[best], label);
    }
    let imp = model.feature_importances();
    assert!((imp.iter().sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn class_weights_shift_the_decision() {
    let data = heart();
    let fit = |w: ClassWeight| {
        GradientBoostingClassifier::params()
            .max_iter(20)
            .class_weight(w)
            .fit(&data)
            .unwrap()
    };
    let plain = fit(ClassWeight::Uniform);
    let heavy = fit(ClassWeight::Given(vec![(Label::Number(1.0), 10.0)]));
    let count = |m: &GradientBoostingClassifier| {
        m.predict(&data.records)
            .unwrap()
            .iter()
            .filter(|l| **l == Label::Number(1.0))
            .count()
    };
    assert!(count(&heavy) > count(&plain));
    // Weighting a class by 10 is weighting its samples by 10.
    let classes = data.targets.to_classes().unwrap();
    let w = classes
        .indices()
        .iter()
        .map(|&c| if c == 1 { 10.0 } else { 1.0 })
        .collect();
    let by_samples = GradientBoostingClassifier::params()
        .max_iter(20)
        .fit(&data.clone().with_sample_weights(w).unwrap())
        .unwrap();
    assert_eq!(
        by_samples.decision_function(&data.records).unwrap(),
        heavy.decision_function(&data.records).unwrap()
    );
}

#[test]
fn save_load_gives_identical_predictions() {
    let dir = tempfile::tempdir().unwrap();
    let data = heart();
    let clf = GradientBoostingClassifier::params()
        .max_iter(15)
        .fit(&data)
        .unwrap();
    let path = dir.path().join("gb.margin");
    clf.save(&path).unwrap();
    let back = GradientBoostingClassifier::load(&path).unwrap();
    assert_eq!(back, clf);
    assert_eq!(
        back.decision_function(&data.records).unwrap(),
        clf.decision_function(&data.records).unwrap()
    );
    let housing = datasets::housing_scale().unwrap();
    let reg = GradientBoostingRegressor::params()
        .max_iter(15)
        .fit(&housing)
        .unwrap();
    let bytes = reg.to_bytes().unwrap();
    let back = GradientBoostingRegressor::from_bytes(&bytes).unwrap();
    assert_eq!(
        back.predict(&housing.records).unwrap(),
        reg.predict(&housing.records).unwrap()
    );
    // A classifier file is not a regressor.
    assert!(matches!(
        GradientBoostingRegressor::from_bytes(&clf.to_bytes().unwrap()),
        Err(Error::ModelFile { .. })
    ));
}

/// Fits inside a pool of `threads` threads.
fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    with_threads(threads, f)
}

#[test]
fn one_and_two_threads_give_identical_models() {
    // dna is wide enough (2 000 × 180) that histograms are built in parallel.
    let data = datasets::dna().unwrap();
    let params = GradientBoostingClassifier::params()
        .max_iter(8)
        .subsample(0.8)
        .early_stopping(EarlyStopping::On)
        .seed(3);
    let one = in_pool(1, || params.fit(&data).unwrap());
    let two = in_pool(2, || params.fit(&data).unwrap());
    assert_eq!(one.to_bytes().unwrap(), two.to_bytes().unwrap());
    let housing = datasets::housing_scale().unwrap();
    let reg = GradientBoostingRegressor::params()
        .max_iter(8)
        .subsample(0.5);
    let one = in_pool(1, || reg.fit(&housing).unwrap());
    let two = in_pool(2, || reg.fit(&housing).unwrap());
    assert_eq!(one.to_bytes().unwrap(), two.to_bytes().unwrap());
}

/// Large enough (70 000 rows) that nodes are partitioned block by block and their histograms
/// built from row-major chunks in parallel.
#[test]
fn large_fits_are_thread_independent() {
    let n = 70_000;
    let x: Vec<f64> = (0..n * 3)
        .map(|k| ((k as u64 * 2_654_435_761) % 1000) as f64 / 1000.0)
        .collect();
    let y = x
        .chunks(3)
        .map(|r| f64::from(u8::from(r[0] + 0.5 * r[1] > 0.7 + 0.1 * r[2])))
        .collect();
    let data = Dataset::new(
        DenseMatrix::from_row_major(x, n, 3).unwrap(),
        Targets::Values(y),
    )
    .unwrap();
    // Early stopping off: all 70 000 rows train (its validation split would leave 63 000).
    let params = GradientBoostingClassifier::params()
        .max_iter(3)
        .early_stopping(EarlyStopping::Off);
    let one = in_pool(1, || params.fit(&data).unwrap());
    let two = in_pool(2, || params.fit(&data).unwrap());
    assert_eq!(one.n_iter(), 3);
    assert_eq!(one.to_bytes().unwrap(), two.to_bytes().unwrap());
}

#[test]
fn the_seed_drives_subsampling() {
    let data = heart();
    let fit = |seed| {
        GradientBoostingClassifier::params()
            .max_iter(5)
            .subsample(0.5)
            .min_samples_leaf(5)
            .seed(seed)
            .fit(&data)
            .unwrap()
            .decision_function(&data.records)
            .unwrap()
    };
    assert_eq!(fit(1), fit(1));
    assert_ne!(fit(1), fit(2));
}

#[test]
fn models_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<GradientBoostingClassifier>();
    check::<GradientBoostingRegressor>();
    check::<margin_tree::GradientBoostingClassifierParams>();
    check::<margin_tree::GradientBoostingRegressorParams>();
}
