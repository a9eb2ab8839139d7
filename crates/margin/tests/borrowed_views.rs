//! A user's own row-major memory (`&[f64]`, a faer view) reaches every model family through
//! `DenseView` without a copy, and every model answers exactly as on the owned `DenseMatrix`:
//! the view takes the same dense fast paths (GEMM in the kernels and PCA, k-means' blocks, the
//! boosters' dense records), so the bits agree.

use margin::cluster::{KMeans, Pca};
use margin::kernels::Gamma;
use margin::linalg::faer::MatRef;
use margin::linalg::{DenseCow, DenseView};
use margin::prelude::*;
use margin::svm::{KernelChoice, LinearSvc, Svc};
use margin::{DenseMatrix, linear, neighbors, tree};

const N: usize = 90;
const D: usize = 4;

/// `N × D` values from a fixed linear congruential sequence, two classes that overlap a little,
/// and a noisy linear response: what a caller would hold in a `Vec<f64>`.
fn user_buffer() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut x = Vec::with_capacity(N * D);
    let (mut classes, mut values) = (Vec::new(), Vec::new());
    for i in 0..N {
        let shift = if i % 2 == 0 { 0.8 } else { -0.8 };
        let row: Vec<f64> = (0..D)
            .map(|j| next() + if j < 2 { shift } else { 0.0 })
            .collect();
        classes.push((i % 2) as f64);
        values.push(
            row.iter()
                .enumerate()
                .map(|(j, v)| v * (j as f64 + 1.0))
                .sum::<f64>()
                + 0.1 * next(),
        );
        x.extend(row);
    }
    (x, classes, values)
}

fn owned(x: &[f64]) -> DenseMatrix {
    DenseMatrix::from_row_major(x.to_vec(), N, D).unwrap()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn matrix_bits(m: &impl Records) -> Vec<u64> {
    let dense = m.to_dense().unwrap();
    bits(dense.as_slice())
}

#[test]
fn a_view_takes_the_dense_path_on_the_callers_memory() {
    let (x, _, _) = user_buffer();
    let view = DenseView::new(&x, N, D).unwrap();
    let dense = view.as_dense().expect("a view is dense records");
    assert!(std::ptr::eq(dense.as_slice(), x.as_slice()), "no copy");
    match view.dense_view().unwrap() {
        DenseCow::Borrowed(b) => assert!(std::ptr::eq(b.as_slice(), x.as_slice())),
        DenseCow::Owned(_) => panic!("a view was copied"),
    }
    // A reference to a view (what the models' `&R` takes) is the same records.
    let by_ref: &dyn Records = &view;
    assert!(std::ptr::eq(
        by_ref.as_dense().unwrap().as_slice(),
        x.as_slice()
    ));
}

#[test]
fn every_family_predicts_the_same_bits_on_a_view_as_on_the_owned_matrix() {
    let (x, classes, values) = user_buffer();
    let m = owned(&x);
    let view = DenseView::new(&x, N, D).unwrap();
    let faer = DenseView::from_faer(MatRef::from_row_major_slice(&x, N, D)).unwrap();
    let cls = Dataset::new(m.clone(), Targets::Values(classes)).unwrap();
    let reg = Dataset::new(m.clone(), Targets::Values(values)).unwrap();

    // Each family's answers on the owned matrix, the slice view and the faer view, as bits.
    macro_rules! same {
        ($name:literal, $answer:expr) => {{
            let answer = $answer;
            let (a, b, c) = (answer(&m), answer(&view), answer(&faer));
            for (other, on) in [(b, "a slice view"), (c, "a faer view")] {
                assert!(
                    a == other,
                    "{} on {on}: first difference at {:?}",
                    $name,
                    a.iter().zip(&other).position(|(x, y)| x != y)
                );
            }
        }};
    }

    let svc = Svc::params()
        .kernel(KernelChoice::Rbf {
            gamma: Gamma::Scale,
        })
        .fit(&cls)
        .unwrap();
    same!("Svc (RBF) decision values", |r: &dyn Records| matrix_bits(
        &svc.decision_function(&r).unwrap()
    ));
    same!("Svc (RBF) labels", |r: &dyn Records| svc
        .predict(&r)
        .unwrap());

    let lin = LinearSvc::params().fit(&cls).unwrap();
    same!("LinearSvc", |r: &dyn Records| matrix_bits(
        &lin.decision_function(&r).unwrap()
    ));
    let logit = linear::LogisticRegression::params().fit(&cls).unwrap();
    same!("LogisticRegression", |r: &dyn Records| matrix_bits(
        &logit.predict_proba(&r).unwrap()
    ));

    let ols = linear::LinearRegression::params().fit(&reg).unwrap();
    same!("LinearRegression", |r: &dyn Records| bits(
        &ols.predict(&r).unwrap()
    ));
    let ridge = linear::Ridge::params().fit(&reg).unwrap();
    same!("Ridge", |r: &dyn Records| bits(&ridge.predict(&r).unwrap()));

    let km = KMeans::params().n_clusters(3).fit(&m).unwrap();
    same!("KMeans", |r: &dyn Records| km.predict(&r).unwrap());
    let pca = Pca::params().fit(&m).unwrap();
    same!("Pca", |r: &dyn Records| matrix_bits(
        &pca.transform(&r).unwrap()
    ));

    let knn = neighbors::KNeighborsClassifier::params().fit(&cls).unwrap();
    same!("KNeighborsClassifier", |r: &dyn Records| matrix_bits(
        &knn.predict_proba(&r).unwrap()
    ));
    let knn_r = neighbors::KNeighborsRegressor::params().fit(&reg).unwrap();
    same!("KNeighborsRegressor", |r: &dyn Records| bits(
        &knn_r.predict(&r).unwrap()
    ));

    let tree = tree::DecisionTreeClassifier::params().fit(&cls).unwrap();
    same!("DecisionTreeClassifier", |r: &dyn Records| matrix_bits(
        &tree.predict_proba(&r).unwrap()
    ));
    let boost = tree::GradientBoostingRegressor::params()
        .max_iter(5)
        .fit(&reg)
        .unwrap();
    same!("GradientBoostingRegressor", |r: &dyn Records| bits(
        &boost.predict(&r).unwrap()
    ));
}

#[test]
fn ndarray_views_reach_the_models_without_a_copy() {
    let (x, classes, _) = user_buffer();
    let m = owned(&x);
    let cls = Dataset::new(m.clone(), Targets::Values(classes)).unwrap();
    let svc = Svc::params().fit(&cls).unwrap();
    let array = ndarray::ArrayView2::from_shape((N, D), &x).unwrap();
    let view = DenseView::try_from(array).unwrap();
    assert!(std::ptr::eq(view.as_slice(), x.as_slice()), "no copy");
    assert_eq!(
        matrix_bits(&svc.decision_function(&view).unwrap()),
        matrix_bits(&svc.decision_function(&m).unwrap())
    );
    // A transposed (column-major) array is refused, and the way out the error names works.
    let t = ndarray::ArrayView2::from_shape((D, N), &x).unwrap();
    let e = DenseView::try_from(t.t()).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    assert!(e.to_string().contains("as_standard_layout"), "{e}");
    let copied = t.t().as_standard_layout().into_owned();
    assert!(DenseView::try_from(copied.view()).is_ok());
}

#[test]
fn unsupervised_models_and_scalers_fit_on_a_view() {
    let (x, _, _) = user_buffer();
    let m = owned(&x);
    let view = DenseView::new(&x, N, D).unwrap();

    let km = KMeans::params().n_clusters(3).seed(5);
    let (a, b) = (km.fit(&m).unwrap(), km.fit(&view).unwrap());
    assert_eq!(
        matrix_bits(a.cluster_centers()),
        matrix_bits(b.cluster_centers())
    );
    assert_eq!(a.predict(&m).unwrap(), b.predict(&view).unwrap());

    let (a, b) = (
        Pca::params().fit(&m).unwrap(),
        Pca::params().fit(&view).unwrap(),
    );
    assert_eq!(
        matrix_bits(&a.transform(&m).unwrap()),
        matrix_bits(&b.transform(&view).unwrap())
    );

    let (a, b) = (
        StandardScaler::params().fit(&m).unwrap(),
        StandardScaler::params().fit(&view).unwrap(),
    );
    assert_eq!(
        matrix_bits(&a.transform(&m).unwrap()),
        matrix_bits(&b.transform(&view).unwrap())
    );
    let (a, b) = (
        MinMaxScaler::params().fit(&m).unwrap(),
        MinMaxScaler::params().fit(&view).unwrap(),
    );
    assert_eq!(
        matrix_bits(&a.transform(&m).unwrap()),
        matrix_bits(&b.transform(&view).unwrap())
    );

    let (a, b) = (
        neighbors::NearestNeighbors::params().fit(&m).unwrap(),
        neighbors::NearestNeighbors::params().fit(&view).unwrap(),
    );
    assert_eq!(
        a.kneighbors(&m, 5).unwrap(),
        b.kneighbors(&view, 5).unwrap()
    );
}

#[test]
fn a_view_of_the_wrong_shape_is_refused_with_what_to_do() {
    let (x, _, _) = user_buffer();
    let e = DenseView::new(&x, N, D + 1).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("rows × columns"), "{e}");
    // Column-major faer memory (faer's own layout) must be copied first; the error says how.
    let e = DenseView::from_faer(MatRef::from_column_major_slice(&x, N, D)).unwrap_err();
    assert!(matches!(e, Error::Layout { .. }), "{e}");
    assert!(e.to_string().contains("DenseMatrix::from"), "{e}");
    // A model given a view of the wrong width says so, as it does for owned records.
    let cls = Dataset::new(
        owned(&x),
        Targets::Values((0..N).map(|i| (i % 2) as f64).collect()),
    )
    .unwrap();
    let svc = Svc::params().fit(&cls).unwrap();
    let narrow = DenseView::new(&x[..N * (D - 1)], N, D - 1).unwrap();
    assert!(matches!(
        svc.predict(&narrow).unwrap_err(),
        Error::ShapeMismatch { .. }
    ));
}
