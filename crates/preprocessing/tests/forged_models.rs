//! Model files of the preprocessing transformers whose checksum is right but whose contents are
//! not: the deterministic forgeries of the battery (which reaches only estimators with
//! `predict`), and hand-made inconsistencies that used to panic in `transform` or answer
//! garbage, each refused on load naming the field.

use margin_core::{DenseMatrix, Error, Fit, Records, Result, Transform};
use margin_io::ModelFile;
use margin_preprocessing::{
    BinEncoding, KBinsDiscretizer, KBinsDiscretizerParams, MinMaxScaler, OneHotEncoder,
    OneHotEncoderParams, PolynomialFeatures, PolynomialFeaturesParams, StandardScaler,
    UnknownCategory,
};
use margin_testing::battery::check_forged_files;
use serde::{Deserialize, Serialize};

/// A change to a mirrored file, and the field its refusal must name.
type Edit<T> = (fn(&mut T), &'static str);

fn data() -> DenseMatrix {
    DenseMatrix::from_rows(&[
        [0.0, 1.0, 2.5],
        [1.0, -1.0, 0.0],
        [2.0, 3.0, 7.0],
        [1.0, 0.5, -2.0],
        [0.0, 2.0, 1e3],
        [3.0, 1.0, 0.0],
    ])
    .unwrap()
}

fn forge<M: ModelFile + Transform>(model: &M) {
    check_forged_files(model, 3, |m, x| Ok(vec![m.transform(x)?.n_samples()]));
}

#[test]
fn forged_transformer_files_are_refused_or_harmless() {
    let x = data();
    forge(&StandardScaler::params().fit(&x).unwrap());
    forge(&MinMaxScaler::params().range(-1.0, 1.0).fit(&x).unwrap());
    forge(&OneHotEncoder::params().columns(vec![0, 2]).fit(&x).unwrap());
    forge(
        &OneHotEncoder::params()
            .handle_unknown(UnknownCategory::Ignore)
            .fit(&x)
            .unwrap(),
    );
    forge(&KBinsDiscretizer::params().n_bins(3).fit(&x).unwrap());
    forge(
        &KBinsDiscretizer::params()
            .n_bins(2)
            .encode(BinEncoding::Ordinal)
            .fit(&x)
            .unwrap(),
    );
    forge(&PolynomialFeatures::params().degree(3).fit(&x).unwrap());
    forge(
        &PolynomialFeatures::params()
            .interaction_only(true)
            .include_bias(false)
            .fit(&x)
            .unwrap(),
    );
}

/// A model of kind `K` written field by field (the same serde layout as the real one).
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Mirror<T>(T);

macro_rules! mirror_kind {
    ($t:ty, $real:ty) => {
        impl ModelFile for Mirror<$t> {
            const KIND: &'static str = <$real>::KIND;
            const SCHEMA: u32 = <$real>::SCHEMA;
            fn check_consistent(&self) -> Result<()> {
                Ok(())
            }
        }
    };
}

fn refused<M: ModelFile>(file: Vec<u8>, field: &str) {
    match M::from_bytes(&file) {
        Err(Error::ModelFile { reason }) => assert!(
            reason.contains(&format!("`{field}`")) && reason.contains(M::KIND),
            "{reason}"
        ),
        Err(other) => panic!("`{field}`: refused with {other}"),
        Ok(_) => panic!("`{field}`: an inconsistent file was loaded"),
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct ScalerFile {
    with_mean: bool,
    with_std: bool,
    n_seen: usize,
    mean: Vec<f64>,
    m2: Vec<f64>,
}
mirror_kind!(ScalerFile, StandardScaler);

#[test]
fn standard_scaler_statistics_must_fit_together() {
    let good = ScalerFile {
        with_mean: true,
        with_std: true,
        n_seen: 4,
        mean: vec![0.5, 1.0],
        m2: vec![2.0, 0.0],
    };
    let s = StandardScaler::from_bytes(&Mirror(good.clone()).to_bytes().unwrap()).unwrap();
    assert_eq!(s.mean(), &[0.5, 1.0]);
    let mut short = good.clone();
    short.m2.pop();
    refused::<StandardScaler>(Mirror(short).to_bytes().unwrap(), "m2");
    let mut negative = good.clone();
    negative.m2[0] = -1.0;
    refused::<StandardScaler>(Mirror(negative).to_bytes().unwrap(), "m2");
    let mut nan = good;
    nan.mean[1] = f64::NAN;
    refused::<StandardScaler>(Mirror(nan).to_bytes().unwrap(), "mean");
}

#[derive(Clone, Serialize, Deserialize)]
struct MinMaxFile {
    lower: f64,
    upper: f64,
    clip: bool,
    data_min: Vec<f64>,
    data_max: Vec<f64>,
}
mirror_kind!(MinMaxFile, MinMaxScaler);

#[test]
fn min_max_scaler_ranges_must_be_ordered_and_finite() {
    let good = MinMaxFile {
        lower: 0.0,
        upper: 1.0,
        clip: false,
        data_min: vec![0.0, -2.0],
        data_max: vec![1.0, -2.0],
    };
    assert!(MinMaxScaler::from_bytes(&Mirror(good.clone()).to_bytes().unwrap()).is_ok());
    let mut swapped = good.clone();
    (swapped.lower, swapped.upper) = (1.0, 0.0);
    refused::<MinMaxScaler>(Mirror(swapped).to_bytes().unwrap(), "range");
    let mut short = good.clone();
    short.data_max.pop();
    refused::<MinMaxScaler>(Mirror(short).to_bytes().unwrap(), "data_max");
    let mut crossed = good.clone();
    crossed.data_min[0] = 2.0;
    refused::<MinMaxScaler>(Mirror(crossed).to_bytes().unwrap(), "data_min");
    let mut inf = good;
    inf.data_max[1] = f64::INFINITY;
    refused::<MinMaxScaler>(Mirror(inf).to_bytes().unwrap(), "data_max");
}

#[derive(Clone, Serialize, Deserialize)]
struct OneHotFile {
    categories: Vec<Option<Vec<f64>>>,
    params: OneHotEncoderParams,
}
mirror_kind!(OneHotFile, OneHotEncoder);

#[test]
fn one_hot_categories_must_be_sorted_and_finite() {
    let good = OneHotFile {
        categories: vec![Some(vec![0.0, 1.0, 3.0]), None],
        params: OneHotEncoder::params(),
    };
    assert!(OneHotEncoder::from_bytes(&Mirror(good.clone()).to_bytes().unwrap()).is_ok());
    for cats in [vec![1.0, 0.0], vec![1.0, 1.0], vec![0.0, f64::NAN]] {
        let mut bad = good.clone();
        bad.categories[0] = Some(cats);
        refused::<OneHotEncoder>(Mirror(bad).to_bytes().unwrap(), "categories");
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct KBinsFile {
    edges: Vec<Vec<f64>>,
    params: KBinsDiscretizerParams,
}
mirror_kind!(KBinsFile, KBinsDiscretizer);

#[test]
fn bin_edges_must_be_at_least_two_finite_and_ordered() {
    let good = KBinsFile {
        edges: vec![vec![0.0, 1.0, 2.0], vec![5.0, 5.0]],
        params: KBinsDiscretizer::params(),
    };
    assert!(KBinsDiscretizer::from_bytes(&Mirror(good.clone()).to_bytes().unwrap()).is_ok());
    for (edges, field) in [
        (vec![0.0], "edges per feature"),
        (vec![], "edges per feature"),
        (vec![0.0, 2.0, 1.0], "edges"),
        (vec![0.0, f64::INFINITY], "edges"),
    ] {
        let mut bad = good.clone();
        bad.edges[0] = edges;
        refused::<KBinsDiscretizer>(Mirror(bad).to_bytes().unwrap(), field);
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct PolyFile {
    n_features_in: usize,
    parent: Vec<usize>,
    factor: Vec<usize>,
    coef: Vec<f64>,
    params: PolynomialFeaturesParams,
}
mirror_kind!(PolyFile, PolynomialFeatures);

/// Degree 2 over two features: 1, a, b, a², ab, b².
fn poly() -> PolyFile {
    PolyFile {
        n_features_in: 2,
        parent: vec![0, 0, 0, 1, 1, 2],
        factor: vec![usize::MAX, 0, 1, 0, 1, 1],
        coef: vec![1.0; 6],
        params: PolynomialFeatures::params().include_bias(false),
    }
}

#[test]
fn the_monomial_table_must_be_the_one_fit_builds() {
    let p = PolynomialFeatures::from_bytes(&Mirror(poly()).to_bytes().unwrap()).unwrap();
    let x = DenseMatrix::from_rows(&[[2.0, 3.0]]).unwrap();
    assert_eq!(
        p.transform(&x).unwrap().to_dense().unwrap().row(0),
        &[2.0, 3.0, 4.0, 6.0, 9.0]
    );
    let edits: [Edit<PolyFile>; 7] = [
        // Each of these panicked in `transform` (or `powers`) before they were refused.
        (|p| p.factor[4] = 2, "factor"),
        (|p| p.parent[3] = 9, "parent"),
        (|p| p.parent[3] = 4, "parent"),
        (
            |p| {
                p.factor.pop();
            },
            "factor",
        ),
        (|p| p.n_features_in = usize::MAX / 2, "monomials"),
        (|p| p.n_features_in = 0, "n_features_in"),
        (|p| p.coef[2] = f64::NAN, "coef"),
    ];
    for (edit, field) in edits {
        let mut bad = poly();
        edit(&mut bad);
        refused::<PolynomialFeatures>(Mirror(bad).to_bytes().unwrap(), field);
    }
    let mut unlisted = poly();
    unlisted.factor[1] = 1;
    refused::<PolynomialFeatures>(Mirror(unlisted).to_bytes().unwrap(), "parent");
}

#[test]
fn stored_hyperparameters_fit_would_refuse_are_refused() {
    let mut bins = KBinsFile {
        edges: vec![vec![0.0, 1.0, 2.0]],
        params: KBinsDiscretizer::params().n_bins(1),
    };
    refused::<KBinsDiscretizer>(Mirror(bins.clone()).to_bytes().unwrap(), "params");
    bins.params = KBinsDiscretizer::params().n_bins(3);
    let loaded = KBinsDiscretizer::from_bytes(&Mirror(bins).to_bytes().unwrap()).unwrap();
    assert_eq!(loaded.hyperparams(), &KBinsDiscretizer::params().n_bins(3));
    let mut p = poly();
    p.params = PolynomialFeatures::params().degree(0);
    refused::<PolynomialFeatures>(Mirror(p).to_bytes().unwrap(), "params");
}
