//! Pipelines: fitted and applied as one model, they give exactly what fitting each step by hand
//! gives; they save to one model file and load back; grid search and cross-validation reach
//! each step's parameters as `step__param`.

use margin::DenseMatrix;
use margin::cluster::{NComponents, Pca};
use margin::io::ModelFile;
use margin::kernels::{Nystroem, Rbf};
use margin::linalg::params::{Params, ParamsByName, Value};
use margin::linear::{LogisticRegression, Ridge};
use margin::metrics::{Grid, Scorer, Scoring, cross_validate, search};
use margin::prelude::*;
use margin::preprocessing::{
    MinMaxScaler, Pipeline, PipelineModel, StandardScaler, StandardScalerParams,
};
use margin::svm::{Svc, SvcParams};

fn heart() -> Dataset {
    margin::datasets::heart_scale().unwrap()
}

fn scaled_svc() -> Pipeline<(StandardScalerParams,), SvcParams> {
    Pipeline::new("scale", StandardScaler::params()).step("svc", Svc::params().c(2.0))
}

#[test]
fn a_fitted_pipeline_equals_its_steps_fitted_by_hand() {
    let data = heart();
    let (train, test) = train_test_split(&data, 0.3, true, 5).unwrap();
    let model = scaled_svc().fit(&train).unwrap();

    let scaler = StandardScaler::params().fit(&train.records).unwrap();
    let scaled = Dataset::new(
        scaler.transform(&train.records).unwrap(),
        train.targets.clone(),
    )
    .unwrap();
    let svc = Svc::params().c(2.0).fit(&scaled).unwrap();
    let test_scaled = scaler.transform(&test.records).unwrap();

    assert_eq!(
        model.predict(&test.records).unwrap(),
        svc.predict(&test_scaled).unwrap()
    );
    assert_eq!(
        model.decision_function(&test.records).unwrap(),
        svc.decision_function(&test_scaled).unwrap()
    );
    assert_eq!(model.model().n_support(), svc.n_support());
    assert_eq!(model.step_names(), ["scale", "svc"]);
    assert_eq!(margin::linalg::NFeatures::n_features(&model), 13);
}

#[test]
fn transformers_from_other_crates_chain_before_any_estimator() {
    let data = heart();
    let pipe = Pipeline::new("scale", StandardScaler::params())
        .step("pca", Pca::params().n_components(NComponents::Count(5)))
        .step("logistic", LogisticRegression::params());
    let model = pipe.fit(&data).unwrap();

    let scaler = StandardScaler::params().fit(&data.records).unwrap();
    let z = scaler.transform(&data.records).unwrap();
    let pca = Pca::params()
        .n_components(NComponents::Count(5))
        .fit(&z)
        .unwrap();
    let reduced = pca.transform(&z).unwrap();
    let logistic = LogisticRegression::params()
        .fit(&Dataset::new(reduced.clone(), data.targets.clone()).unwrap())
        .unwrap();
    assert_eq!(
        model.predict_proba(&data.records).unwrap(),
        logistic.predict_proba(&reduced).unwrap()
    );

    // A kernel feature map (Nyström) before a linear model.
    let nystroem = Pipeline::new(
        "map",
        Nystroem::params()
            .kernel(Rbf::with_gamma(0.1).unwrap())
            .n_components(40)
            .seed(1),
    )
    .step("logistic", LogisticRegression::params());
    let fitted = nystroem.fit(&data).unwrap();
    let accuracy = Scoring::Accuracy.score(&fitted, &data).unwrap();
    assert!(accuracy > 0.8, "{accuracy}");
}

#[test]
fn a_pipeline_saves_to_one_file_and_loads_back_as_its_type() {
    let data = heart();
    let model = scaled_svc().fit(&data).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe.model");
    model.save(&path).unwrap();
    let back = PipelineModel::<(StandardScaler,), Svc>::load(&path).unwrap();
    assert_eq!(back.step_names(), model.step_names());
    assert_eq!(
        back.decision_function(&data.records).unwrap(),
        model.decision_function(&data.records).unwrap()
    );
    assert_eq!(back.to_bytes().unwrap(), model.to_bytes().unwrap());

    // Another pipeline type, or a step of another kind, is refused with a model-file error.
    let wrong_shape = PipelineModel::<(StandardScaler, Pca), Svc>::load(&path).unwrap_err();
    assert!(
        matches!(wrong_shape, Error::ModelFile { .. }),
        "{wrong_shape}"
    );
    assert!(wrong_shape.to_string().contains("2 steps"), "{wrong_shape}");
    let wrong_kind = PipelineModel::<(Pca,), Svc>::load(&path).unwrap_err();
    assert!(
        wrong_kind.to_string().contains("standard-scaler"),
        "{wrong_kind}"
    );
    // A step's own file is not a pipeline.
    assert!(Svc::load(&path).is_err());
}

#[test]
fn step_parameters_are_named_step_double_underscore_parameter() {
    let mut pipe = scaled_svc();
    pipe.set_by_name("svc__C", "10").unwrap();
    pipe.set_by_name("scale__with-mean", "false").unwrap();
    assert_eq!(pipe.last().get("C"), Some(Value::Float(10.0)));
    assert_eq!(
        pipe.param_name("scale__with-mean").unwrap(),
        "scale__with_mean"
    );
    let values = pipe.values_by_name();
    assert!(values.contains(&("scale__with_mean".into(), Value::Bool(false))));
    assert!(values.contains(&("svc__C".into(), Value::Float(10.0))));

    let unknown_step = pipe.set_by_name("svm__C", "1").unwrap_err();
    assert!(
        unknown_step.to_string().contains("scale, svc"),
        "{unknown_step}"
    );
    assert!(pipe.set_by_name("C", "1").is_err());
    let refused = pipe.set_by_name("svc__C", "-1").unwrap_err();
    assert!(refused.to_string().contains("C"), "{refused}");
    assert_eq!(
        pipe.last().get("C"),
        Some(Value::Float(10.0)),
        "a refused value changes nothing"
    );
}

#[test]
fn step_names_must_be_distinct_and_without_the_separator() {
    let data = heart();
    let twice = Pipeline::new("s", StandardScaler::params()).step("s", Svc::params());
    assert!(matches!(
        twice.fit(&data).unwrap_err(),
        Error::InvalidParameter { .. }
    ));
    let separator = Pipeline::new("a__b", StandardScaler::params()).step("svc", Svc::params());
    assert!(separator.fit(&data).is_err());
}

#[test]
fn grid_search_over_a_pipeline_sets_each_step_by_name() {
    let data = heart();
    let folds = StratifiedKFold::new(3).shuffle(2).split(&data).unwrap();
    let grid = Grid::new(scaled_svc())
        .param("svc__C", [0.5, 4.0])
        .unwrap()
        .param("scale__with_std", [true, false])
        .unwrap();
    let candidates = grid.candidates().unwrap();
    assert_eq!(candidates.len(), 4);
    assert_eq!(
        candidates[3].params.last().get("C"),
        Some(Value::Float(4.0))
    );
    assert_eq!(
        candidates[3].settings,
        [
            ("svc__C".to_string(), "4".to_string()),
            ("scale__with_std".to_string(), "false".to_string())
        ]
    );
    let result = search(candidates.clone(), &data, &folds, "accuracy").unwrap();
    // Each candidate's scores are its own cross-validation, fitted by hand.
    for (c, scores) in candidates.iter().zip(&result.fold_scores) {
        assert_eq!(
            *scores,
            cross_validate(&c.params, &data, &folds, Scoring::Accuracy).unwrap()
        );
    }
    assert!(
        Grid::new(scaled_svc())
            .param("svc__gamma_typo", [1.0])
            .is_err()
    );
}

#[test]
fn a_pipeline_without_transformers_is_its_estimator() {
    let data = heart();
    let alone = Pipeline::new("svc", Svc::params()).fit(&data).unwrap();
    let svc = Svc::params().fit(&data).unwrap();
    assert_eq!(
        alone.decision_function(&data.records).unwrap(),
        svc.decision_function(&data.records).unwrap()
    );
}

#[test]
fn a_forged_file_with_steps_named_alike_is_refused() {
    let data = heart();
    let model = Pipeline::new("aaa", StandardScaler::params())
        .step("bbb", Svc::params())
        .fit(&data)
        .unwrap();
    let bytes = model.to_bytes().unwrap();
    let body = margin::io::body_of(&bytes).unwrap();
    let at = body.windows(3).position(|w| w == b"bbb").unwrap();
    let mut forged = body.to_vec();
    forged[at..at + 3].copy_from_slice(b"aaa");
    let sealed = margin::io::seal("pipeline", 1, &forged).unwrap();
    let err = PipelineModel::<(StandardScaler,), Svc>::from_bytes(&sealed).unwrap_err();
    assert!(matches!(err, Error::ModelFile { .. }), "{err}");
    assert!(err.to_string().contains("`aaa`"), "{err}");
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the data, a pipeline predicts what its steps fitted one after the other do, and
    /// its file reads back to the same bytes.
    #[test]
    fn a_pipeline_is_its_steps_in_order_on_any_data(
        (n, d, values, targets) in (4usize..30, 1usize..5).prop_flat_map(|(n, d)| (
            Just(n),
            Just(d),
            proptest::collection::vec(-1e3f64..1e3, n * d),
            proptest::collection::vec(-10f64..10.0, n),
        ))
    ) {
        let x = DenseMatrix::from_row_major(values, n, d).unwrap();
        let data = Dataset::regression(x.clone(), targets.clone()).unwrap();
        let pipe = Pipeline::new("scale", StandardScaler::params())
            .step("minmax", MinMaxScaler::params())
            .step("ridge", Ridge::params().alpha(0.5));
        let model = pipe.fit(&data).unwrap();

        let scaler = StandardScaler::params().fit(&x).unwrap();
        let z = scaler.transform(&x).unwrap();
        let minmax = MinMaxScaler::params().fit(&z).unwrap();
        let m = minmax.transform(&z).unwrap();
        let ridge = Ridge::params()
            .alpha(0.5)
            .fit(&Dataset::regression(m.clone(), targets).unwrap())
            .unwrap();
        prop_assert_eq!(model.predict(&x).unwrap(), ridge.predict(&m).unwrap());
        let bytes = model.to_bytes().unwrap();
        let back = PipelineModel::<(StandardScaler, MinMaxScaler), Ridge>::from_bytes(&bytes).unwrap();
        prop_assert_eq!(back.to_bytes().unwrap(), bytes);
    }
}
