//! The preprocessing params structs as data: shared checks in every configuration, defaults
//! against scikit-learn's, and refusals by name.

use margin_core::params::{Params, Value};
use margin_core::{DenseMatrix, Error, Fit};
use margin_preprocessing::{
    BinEncoding, BinStrategy, KBinsDiscretizerParams, MinMaxScalerParams, OneHotEncoderParams,
    PolynomialFeaturesParams, StandardScalerParams, UnknownCategory,
};
use margin_testing::battery::check_params;

use Value::{Bool, Int, Text};

fn text(s: &str) -> Value {
    Text(s.to_owned())
}

/// scikit-learn 1.9's defaults (sklearn.preprocessing.*), in margin's order. margin-only:
/// PolynomialFeatures' `kernel_scaling` and OneHotEncoder's `columns` (scikit-learn selects
/// columns with a ColumnTransformer). Not offered: `copy`,
/// PolynomialFeatures' `order`, OneHotEncoder's `categories`/`drop`/`sparse_output`/…,
/// KBinsDiscretizer's `quantile_method`/`subsample` and the `kmeans` strategy.
#[test]
fn defaults_are_scikit_learns() {
    assert_eq!(
        StandardScalerParams::defaults(),
        vec![("with_mean", Bool(true)), ("with_std", Bool(true))]
    );
    assert_eq!(
        MinMaxScalerParams::defaults(),
        vec![("feature_range", text("0.0,1.0")), ("clip", Bool(false))]
    );
    assert_eq!(
        PolynomialFeaturesParams::defaults(),
        vec![
            ("degree", Int(2)),
            ("interaction_only", Bool(false)),
            ("include_bias", Bool(true)),
            ("kernel_scaling", Bool(false)),
        ]
    );
    assert_eq!(
        OneHotEncoderParams::defaults(),
        vec![("columns", Value::None), ("handle_unknown", text("error"))]
    );
    assert_eq!(
        KBinsDiscretizerParams::defaults(),
        vec![
            ("n_bins", Int(5)),
            ("encode", text("onehot")),
            ("strategy", text("quantile")),
        ]
    );
}

#[test]
fn every_configuration_passes_the_params_checks() {
    check_params(&StandardScalerParams::default().with_mean(false));
    check_params(&MinMaxScalerParams::default());
    check_params(&MinMaxScalerParams::default().range(-1.0, 1.0));
    check_params(&PolynomialFeaturesParams::default());
    check_params(
        &PolynomialFeaturesParams::default()
            .degree(3)
            .interaction_only(true),
    );
    check_params(&PolynomialFeaturesParams::default().kernel_scaling(true));
    check_params(&OneHotEncoderParams::default());
    check_params(
        &OneHotEncoderParams::default()
            .columns(vec![0, 3])
            .handle_unknown(UnknownCategory::Ignore),
    );
    for strategy in [BinStrategy::Uniform, BinStrategy::Quantile] {
        for encode in [BinEncoding::OneHot, BinEncoding::Ordinal] {
            check_params(
                &KBinsDiscretizerParams::default()
                    .strategy(strategy)
                    .encode(encode)
                    .n_bins(3),
            );
        }
    }
}

#[test]
fn set_by_name_matches_the_builders() {
    let mut m = MinMaxScalerParams::default();
    m.set("feature_range", "-1,1").unwrap();
    assert_eq!(m, MinMaxScalerParams::default().range(-1.0, 1.0));
    let mut o = OneHotEncoderParams::default();
    o.set("columns", "2,0").unwrap();
    o.set("handle_unknown", "ignore").unwrap();
    assert_eq!(
        o,
        OneHotEncoderParams::default()
            .columns(vec![2, 0])
            .handle_unknown(UnknownCategory::Ignore)
    );
}

#[test]
fn out_of_range_values_are_refused_by_name() {
    for value in ["1,0", "0,inf", "0", "0,1,2", "a,b"] {
        let mut m = MinMaxScalerParams::default();
        assert!(
            matches!(m.set("feature_range", value), Err(Error::InvalidParameter { ref name, .. }) if name == "feature_range"),
            "{value}"
        );
        assert_eq!(m, MinMaxScalerParams::default());
    }
    assert!(
        PolynomialFeaturesParams::default()
            .set("degree", "0")
            .is_err()
    );
    assert!(
        KBinsDiscretizerParams::default()
            .set("n_bins", "1")
            .is_err()
    );
    assert!(
        KBinsDiscretizerParams::default()
            .set("strategy", "kmeans")
            .is_err()
    );
    assert!(
        OneHotEncoderParams::default()
            .set("columns", "1,-2")
            .is_err()
    );
    // kernel_scaling needs every monomial: a rule between parameters, checked at fit.
    let mut p = PolynomialFeaturesParams::default();
    p.set("kernel_scaling", "true").unwrap();
    p.set("include_bias", "false").unwrap();
    let x = DenseMatrix::from_rows(&[[1.0, 2.0]]).unwrap();
    assert!(
        matches!(p.fit(&x), Err(Error::InvalidParameter { name, .. }) if name == "kernel_scaling")
    );
}
