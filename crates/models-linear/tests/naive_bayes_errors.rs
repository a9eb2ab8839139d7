//! Bad input to the naive Bayes models: typed errors that say what and where, never a panic
//! or a NaN, and a refused `partial_fit` batch leaves the model as it was. Also the
//! documented behaviour at the edges: `alpha = 0`, one class, an untrained model.

use margin_core::{
    CsrMatrix, Dataset, DenseMatrix, Error, Fit, Label, Matrix, PartialFit, Predict, PredictProba,
    Records, Targets,
};
use margin_linear::naive_bayes::{BernoulliNB, GaussianNB, MultinomialNB};

fn data(rows: &[&[f64]], labels: &[f64]) -> Dataset {
    Dataset::new(
        DenseMatrix::from_rows(rows).unwrap(),
        Targets::Values(labels.to_vec()),
    )
    .unwrap()
}

fn sparse(d: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Sparse(CsrMatrix::from_dense(&d.records.to_dense().unwrap())),
        ..d.clone()
    }
}

fn numbers(v: &[f64]) -> Vec<Label> {
    v.iter().map(|&x| Label::Number(x)).collect()
}

/// The parameter an `InvalidParameter` names, and its value text.
fn invalid<T: std::fmt::Debug>(r: margin_core::Result<T>) -> (String, String) {
    match r {
        Err(Error::InvalidParameter { name, value, .. }) => (name, value),
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn negative_counts_are_refused_naming_row_and_column() {
    let bad = data(&[&[1.0, 0.0, 2.0], &[0.0, 3.0, -1.0]], &[0.0, 1.0]);
    for d in [bad.clone(), sparse(&bad)] {
        let (name, value) = invalid(MultinomialNB::params().fit(&d));
        assert_eq!(name, "records");
        assert!(value.contains("-1 at row 1, column 2"), "{value}");
    }
    let good = data(&[&[1.0, 0.0, 2.0], &[0.0, 3.0, 1.0]], &[0.0, 1.0]);
    let mut model = MultinomialNB::params().fit(&good).unwrap();
    let before = model.clone();
    let (_, value) = invalid(model.partial_fit(&bad));
    assert!(value.contains("row 1, column 2"), "{value}");
    assert_eq!(model, before, "a refused batch changed the model");
    let (_, value) = invalid(model.predict(&bad.records));
    assert!(value.contains("row 1, column 2"), "{value}");
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let d = margin_io::datasets::heart_scale().unwrap();
    let counts = margin_io::datasets::dna().unwrap();
    for alpha in [-1.0, -1e-12, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid(MultinomialNB::params().alpha(alpha).fit(&counts)).0,
            "alpha"
        );
        assert_eq!(
            invalid(BernoulliNB::params().alpha(alpha).fit(&d)).0,
            "alpha"
        );
    }
    assert_eq!(
        invalid(BernoulliNB::params().binarize(Some(f64::NAN)).fit(&d)).0,
        "binarize"
    );
    for v in [-1e-9, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid(GaussianNB::params().var_smoothing(v).fit(&d)).0,
            "var_smoothing"
        );
    }
    // dna has three classes: two priors, or priors not summing to 1, are refused.
    assert_eq!(
        invalid(
            MultinomialNB::params()
                .class_prior(vec![0.5, 0.5])
                .fit(&counts)
        )
        .0,
        "class_prior"
    );
    assert_eq!(
        invalid(
            BernoulliNB::params()
                .class_prior(vec![0.5, 0.5, 0.5])
                .fit(&counts)
        )
        .0,
        "class_prior"
    );
    assert_eq!(
        invalid(GaussianNB::params().priors(vec![-0.5, 1.5]).fit(&d)).0,
        "priors"
    );
    let unweighted = d.clone().with_sample_weights(vec![0.0; 270]).unwrap();
    assert_eq!(
        invalid(GaussianNB::params().fit(&unweighted)).0,
        "sample_weights"
    );
    assert_eq!(
        invalid(MultinomialNB::empty(
            MultinomialNB::params().class_prior(vec![1.0]),
            &numbers(&[1.0, 2.0]),
            3
        ))
        .0,
        "class_prior"
    );
}

/// scikit-learn fits naive Bayes on one class; margin refuses it (the estimator battery asks
/// every classifier to): such a model predicts that class whatever the input says.
#[test]
fn a_single_class_is_refused() {
    let one = data(&[&[1.0, 2.0], &[3.0, 1.0], &[0.0, 5.0]], &[4.0, 4.0, 4.0]);
    let too_few = |r: margin_core::Result<()>| {
        assert!(
            matches!(
                r,
                Err(Error::TooFewClasses {
                    found: 1,
                    required: 2
                })
            ),
            "{r:?}"
        )
    };
    too_few(MultinomialNB::params().fit(&one).map(drop));
    too_few(BernoulliNB::params().fit(&one).map(drop));
    too_few(GaussianNB::params().fit(&one).map(drop));
    too_few(MultinomialNB::empty(MultinomialNB::params(), &numbers(&[4.0, 4.0]), 2).map(drop));
    // A stream declared with two classes takes a batch holding only one of them.
    let mut m = GaussianNB::empty(GaussianNB::params(), &numbers(&[4.0, 5.0]), 2).unwrap();
    m.partial_fit(&one).unwrap();
    assert_eq!(m.class_count(), &[3.0, 0.0]);
    assert_eq!(m.predict(&one.records).unwrap(), numbers(&[4.0, 4.0, 4.0]));
}

#[test]
fn partial_fit_refuses_another_width_or_an_unknown_class_and_changes_nothing() {
    let d = data(&[&[1.0, 2.0], &[3.0, 1.0]], &[1.0, 2.0]);
    let mut m = BernoulliNB::params().fit(&d).unwrap();
    let mut g = GaussianNB::empty(GaussianNB::params(), &numbers(&[1.0, 2.0]), 2).unwrap();
    let (m0, g0) = (m.clone(), g.clone());

    let wide = data(&[&[1.0, 2.0, 3.0]], &[1.0]);
    for r in [m.partial_fit(&wide), g.partial_fit(&wide)] {
        assert!(
            matches!(
                r,
                Err(Error::ShapeMismatch {
                    expected: 2,
                    found: 3,
                    ..
                })
            ),
            "{r:?}"
        );
    }
    let stranger = data(&[&[1.0, 2.0], &[0.0, 1.0]], &[1.0, 7.0]);
    for r in [m.partial_fit(&stranger), g.partial_fit(&stranger)] {
        let (name, value) = invalid(r);
        assert_eq!(name, "class label");
        assert!(value.contains("7 (sample 1)"), "{value}");
    }
    let text = Dataset::new(
        DenseMatrix::from_rows(&[[1.0, 2.0]]).unwrap(),
        Targets::Classes(margin_core::Classes::from_text(&["spam"])),
    )
    .unwrap();
    assert_eq!(invalid(m.partial_fit(&text)).0, "class label");
    let mut nan = d.clone();
    nan.records = DenseMatrix::from_rows(&[[1.0, f64::NAN], [0.0, 1.0]])
        .unwrap()
        .into();
    assert!(matches!(
        g.partial_fit(&nan),
        Err(Error::NonFinite { row: 0, col: 1 })
    ));
    let huge = data(&[&[1e300, 0.0], &[-1e300, 1.0]], &[1.0, 2.0]);
    assert!(matches!(
        g.partial_fit(&huge),
        Err(Error::OutOfRange { .. })
    ));
    assert_eq!((m, g), (m0, g0));
}

#[test]
fn an_untrained_model_refuses_to_predict() {
    let x = DenseMatrix::from_rows(&[[1.0, 2.0]]).unwrap();
    let labels = numbers(&[0.0, 1.0]);
    let empty_dataset = |r: margin_core::Result<Vec<Label>>| {
        assert!(matches!(r, Err(Error::EmptyDataset(_))), "{r:?}")
    };
    empty_dataset(
        MultinomialNB::empty(MultinomialNB::params(), &labels, 2)
            .unwrap()
            .predict(&x),
    );
    empty_dataset(
        BernoulliNB::empty(BernoulliNB::params(), &labels, 2)
            .unwrap()
            .predict(&x),
    );
    empty_dataset(
        GaussianNB::empty(GaussianNB::params(), &labels, 2)
            .unwrap()
            .predict(&x),
    );
}

/// `alpha = 0` (scikit-learn's `force_alpha=True` with `alpha=0`): maximum-likelihood
/// probabilities. A feature never seen in a class rules the class out; a sample every class
/// rules out is an error, never NaN; a class without counts takes the α → 0⁺ limit.
#[test]
fn alpha_zero_is_maximum_likelihood_without_nan() {
    // Class 0 never shows feature 1; class 1 never shows feature 0.
    let d = data(&[&[2.0, 0.0, 1.0], &[0.0, 3.0, 1.0]], &[0.0, 1.0]);
    let m = MultinomialNB::params().alpha(0.0).fit(&d).unwrap();
    let x = DenseMatrix::from_rows(&[[0.0, 1.0, 4.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]).unwrap();
    let p = m.predict_proba(&x.select_rows(&[0, 1]).unwrap()).unwrap();
    assert_eq!(p.row(0), &[0.0, 1.0]);
    // Feature 2 has probability 1/3 in class 0 and 1/4 in class 1: P(0 | x) = 4/7.
    assert!((p.get(1, 0) - 4.0 / 7.0).abs() < 1e-15);
    for r in [m.predict(&x).map(drop), m.predict_proba(&x).map(drop)] {
        assert!(
            matches!(&r, Err(Error::Numerical(msg)) if msg.contains("sample 2")),
            "{r:?}"
        );
    }
    // Class 2 declared but never seen: its features are uniform, the limit of (0 + α)/(α·d).
    let mut s = MultinomialNB::empty(
        MultinomialNB::params().alpha(0.0).fit_prior(false),
        &numbers(&[0.0, 1.0, 2.0]),
        3,
    )
    .unwrap();
    s.partial_fit(&d).unwrap();
    let uniform = -(3.0f64).ln();
    assert!(s.feature_log_prob().row(2).iter().all(|&v| v == uniform));

    // Bernoulli: class 0 always shows features 0 and 2 and never 1; class 1 always shows 1
    // and 2 and never 0. Any mismatch rules a class out, absences included.
    let b = BernoulliNB::params().alpha(0.0).fit(&d).unwrap();
    let x = DenseMatrix::from_rows(&[[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]).unwrap();
    let p = b.predict_proba(&x.select_rows(&[0, 1]).unwrap()).unwrap();
    assert_eq!(p.as_slice(), &[0.0, 1.0, 1.0, 0.0]);
    assert!(matches!(b.predict_proba(&x), Err(Error::Numerical(msg)) if msg.contains("sample 2")));
    assert!(p.as_slice().iter().all(|v| v.is_finite()));
}

#[test]
fn bernoulli_reads_thresholds_and_raw_values_as_documented() {
    let d = data(
        &[&[0.0, 0.2, 0.9], &[1.0, 0.0, 0.4], &[0.0, 0.7, 0.0]],
        &[0.0, 1.0, 0.0],
    );
    // A negative threshold makes unstored sparse zeros present: sparse must equal dense.
    let params = BernoulliNB::params().binarize(Some(-0.1));
    let (dense_model, sparse_model) = (params.fit(&d).unwrap(), params.fit(&sparse(&d)).unwrap());
    assert_eq!(dense_model, sparse_model);
    assert_eq!(dense_model.feature_count().row(0), &[2.0, 2.0, 2.0]);
    assert_eq!(
        dense_model.predict_proba(&d.records).unwrap(),
        dense_model.predict_proba(&sparse(&d).records).unwrap()
    );
    // Without a threshold the values are used as they are, and must lie in [0, 1].
    let raw = BernoulliNB::params().binarize(None).fit(&d).unwrap();
    assert_eq!(raw.feature_count().row(0), &[0.0, 0.8999999999999999, 0.9]);
    let out = data(&[&[0.0, 2.0, 0.0]], &[0.0]);
    let (name, value) = invalid(raw.predict(&out.records));
    assert_eq!(name, "records");
    assert!(value.contains("2 at row 0, column 1"), "{value}");
}

#[test]
fn gaussian_refuses_degenerate_variances_instead_of_dividing_by_zero() {
    let constant = data(&[&[1.0, 2.0], &[1.0, 2.0], &[1.0, 2.0]], &[0.0, 1.0, 0.0]);
    assert!(matches!(
        GaussianNB::params().fit(&constant),
        Err(Error::Numerical(m)) if m.contains("variance 0")
    ));
    let huge = data(
        &[&[1e300, 1.0], &[-1e300, 2.0], &[0.0, 3.0]],
        &[0.0, 1.0, 0.0],
    );
    assert!(matches!(
        GaussianNB::params().fit(&huge),
        Err(Error::OutOfRange { reason, .. }) if reason.contains("overflows")
    ));
    // A feature constant within a class is fine: var_smoothing keeps its variance positive.
    let within = data(
        &[&[1.0, 2.0], &[1.0, 5.0], &[3.0, 2.0], &[3.0, 4.0]],
        &[0.0, 0.0, 1.0, 1.0],
    );
    let g = GaussianNB::params().fit(&within).unwrap();
    assert!(g.var().as_slice().iter().all(|&v| v > 0.0));
    assert_eq!(
        g.predict(&within.records).unwrap(),
        numbers(&[0.0, 0.0, 1.0, 1.0])
    );
    // …unless the smoothing is switched off.
    assert!(
        GaussianNB::params()
            .var_smoothing(0.0)
            .fit(&within)
            .is_err()
    );
}

#[test]
fn predicting_checks_width_and_finiteness() {
    let d = margin_io::datasets::dna().unwrap();
    let m = MultinomialNB::params().fit(&d).unwrap();
    let narrow = DenseMatrix::zeros(2, 179);
    assert!(matches!(
        m.predict(&narrow),
        Err(Error::ShapeMismatch {
            expected: 180,
            found: 179,
            ..
        })
    ));
    let mut x = DenseMatrix::zeros(3, 180);
    x.row_mut(2)[7] = f64::INFINITY;
    assert!(matches!(
        m.predict_log_proba(&x),
        Err(Error::NonFinite { row: 2, col: 7 })
    ));
    assert_eq!(
        m.predict(&DenseMatrix::zeros(0, 180)).unwrap(),
        Vec::<Label>::new()
    );
    assert_eq!(
        m.predict_proba(&CsrMatrix::empty(0, 180)).unwrap().nrows(),
        0
    );
    assert_eq!(m.n_features(), d.records.n_features());
}
