//! The estimator battery checked against a small, real model (nearest centroid) that must pass
//! it, and against deliberately broken variants that must fail it: a battery that cannot fail
//! would prove nothing.

use margin_core::params::Params;
use margin_core::{
    Dataset, Fit, Hyperparams, Label, Predict, Records, Result, memory, model_check, validate,
};
use margin_io::ModelFile;
use margin_testing::battery::{Task, check_estimator};
use serde::{Deserialize, Serialize};

/// How the toy estimator misbehaves, if at all.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flaw {
    None,
    SkipsValidation,
    PanicsOnOneSample,
}

#[derive(Clone, Debug)]
struct NearestCentroidParams {
    flaw: Flaw,
}

/// The toy's one hyperparameter, which its model keeps (prediction does not use it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Params)]
struct Settings {
    #[param(help = "unused", valid = ("a number ≥ 0", |s| *s >= 0.0), setter(skip))]
    shrink: f64,
}

/// What every fit keeps: not the default, so a model that forgets it is seen.
const KEPT: Settings = Settings { shrink: 0.5 };

#[derive(Debug, Serialize, Deserialize)]
struct NearestCentroid {
    labels: Vec<Label>,
    centroids: Vec<Vec<f64>>,
    /// The class of each centroid (an index into `labels`, as real models store class and
    /// support-vector indices).
    class: Vec<usize>,
    params: Settings,
}

impl NearestCentroid {
    fn hyperparams(&self) -> &Settings {
        &self.params
    }
}

margin_core::impl_hyperparams!(NearestCentroid, TrustingCentroid);

impl ModelFile for NearestCentroid {
    const KIND: &'static str = "test-nearest-centroid";
    const SCHEMA: u32 = 1;

    fn check_consistent(&self) -> Result<()> {
        model_check::within("params", self.params.check())?;
        model_check::class_labels("labels", &self.labels)?;
        model_check::len("centroids", self.centroids.len(), self.labels.len())?;
        model_check::len("class", self.class.len(), self.centroids.len())?;
        model_check::all_below("class", self.class.iter().copied(), self.labels.len())?;
        let d = self.centroids[0].len();
        model_check::at_least("centroid width", d, 1)?;
        for c in &self.centroids {
            model_check::len("centroid", c.len(), d)?;
            model_check::finite("centroid", c)?;
        }
        Ok(())
    }
}

/// The same estimator with a model that trusts whatever its file holds.
#[derive(Clone, Debug)]
struct TrustingParams;

#[derive(Debug, Serialize, Deserialize)]
struct TrustingCentroid(NearestCentroid);

impl TrustingCentroid {
    fn hyperparams(&self) -> &Settings {
        &self.0.params
    }
}

/// The same estimator with a model that does not save its hyperparameters.
#[derive(Clone, Debug)]
struct ForgetfulParams;

#[derive(Debug, Serialize, Deserialize)]
struct ForgetfulCentroid {
    labels: Vec<Label>,
    centroids: Vec<Vec<f64>>,
    class: Vec<usize>,
    #[serde(skip)]
    params: Settings,
}

impl Hyperparams for ForgetfulCentroid {
    fn describe_hyperparams(&self) -> Vec<margin_core::params::ParamInfo> {
        self.params.describe()
    }
}

impl ModelFile for ForgetfulCentroid {
    const KIND: &'static str = "test-forgetful-centroid";
    const SCHEMA: u32 = 1;

    fn check_consistent(&self) -> Result<()> {
        NearestCentroid {
            labels: self.labels.clone(),
            centroids: self.centroids.clone(),
            class: self.class.clone(),
            params: KEPT,
        }
        .check_consistent()
    }
}

impl Fit for ForgetfulParams {
    type Model = ForgetfulCentroid;

    fn fit(&self, data: &Dataset) -> Result<ForgetfulCentroid> {
        let m = NearestCentroidParams { flaw: Flaw::None }.fit(data)?;
        Ok(ForgetfulCentroid {
            labels: m.labels,
            centroids: m.centroids,
            class: m.class,
            params: m.params,
        })
    }
}

impl Predict for ForgetfulCentroid {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        NearestCentroid {
            labels: self.labels.clone(),
            centroids: self.centroids.clone(),
            class: self.class.clone(),
            params: KEPT,
        }
        .predict(records)
    }
}

impl ModelFile for TrustingCentroid {
    const KIND: &'static str = "test-trusting-centroid";
    const SCHEMA: u32 = 1;

    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

impl Fit for TrustingParams {
    type Model = TrustingCentroid;

    fn fit(&self, data: &Dataset) -> Result<TrustingCentroid> {
        NearestCentroidParams { flaw: Flaw::None }
            .fit(data)
            .map(TrustingCentroid)
    }
}

impl Predict for TrustingCentroid {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        self.0.predict(records)
    }
}

impl Fit for NearestCentroidParams {
    type Model = NearestCentroid;

    fn fit(&self, data: &Dataset) -> Result<NearestCentroid> {
        if self.flaw != Flaw::SkipsValidation {
            validate::check_dataset(data)?;
        }
        let classes = data.targets.to_classes()?;
        if self.flaw == Flaw::PanicsOnOneSample && data.n_samples() == 1 {
            panic!("one sample");
        }
        validate::check_min_classes(&classes, 2)?;
        let d = data.n_features();
        // Dense centroids, as wide as the records: asked for first (the battery's huge-width
        // case would make them terabytes).
        let k = classes.n_classes();
        memory::check(
            memory::bytes_of_grid::<f64>(k, d),
            "the centroids",
            memory::FEWER_FEATURES,
        )?;
        let mut sums = (0..k)
            .map(|_| memory::filled_vec(d, 0.0, "a centroid", memory::FEWER_FEATURES))
            .collect::<Result<Vec<_>>>()?;
        let counts = classes.counts();
        for (i, &k) in classes.indices().iter().enumerate() {
            data.records.row(i).axpy(1.0, &mut sums[k]);
        }
        for (s, &c) in sums.iter_mut().zip(&counts) {
            s.iter_mut().for_each(|v| *v /= c.max(1) as f64);
        }
        Ok(NearestCentroid {
            labels: classes.labels().to_vec(),
            class: (0..sums.len()).collect(),
            centroids: sums,
            params: KEPT,
        })
    }
}

impl Predict for NearestCentroid {
    type Output = Vec<Label>;

    fn predict<R: Records + ?Sized>(&self, records: &R) -> Result<Vec<Label>> {
        validate::check_predict(self.centroids[0].len(), records)?;
        let mut x = vec![0.0; records.n_features()];
        Ok((0..records.n_samples())
            .map(|i| {
                records.row(i).to_dense_into(&mut x);
                // Distances scaled by the largest magnitude, so 1e300 inputs do not overflow.
                let scale = x
                    .iter()
                    .chain(self.centroids.iter().flatten())
                    .fold(0.0f64, |m, v| m.max(v.abs()))
                    .max(f64::MIN_POSITIVE);
                let dist = |c: &[f64]| {
                    c.iter()
                        .zip(&x)
                        .map(|(a, b)| ((a - b) / scale).powi(2))
                        .sum::<f64>()
                };
                let best = (0..self.centroids.len())
                    .min_by(|&a, &b| dist(&self.centroids[a]).total_cmp(&dist(&self.centroids[b])))
                    .unwrap_or(0);
                self.labels[self.class[best]].clone()
            })
            .collect())
    }
}

#[test]
fn a_careful_model_passes() {
    check_estimator(
        &NearestCentroidParams { flaw: Flaw::None },
        Task::Classification,
    );
}

fn battery_failure<P>(params: P) -> String
where
    P: Fit + Sync + std::panic::RefUnwindSafe,
    P::Model: Predict<Output = Vec<Label>> + ModelFile + Hyperparams,
{
    let result = std::panic::catch_unwind(|| check_estimator(&params, Task::Classification));
    let payload = result.expect_err("the battery should have failed");
    payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn skipping_validation_is_caught() {
    let report = battery_failure(NearestCentroidParams {
        flaw: Flaw::SkipsValidation,
    });
    assert!(report.contains("NaN in the records"), "{report}");
    assert!(report.contains("no samples"), "{report}");
}

#[test]
fn a_panic_is_caught_and_named() {
    let report = battery_failure(NearestCentroidParams {
        flaw: Flaw::PanicsOnOneSample,
    });
    assert!(report.contains("one sample: panicked"), "{report}");
}

#[test]
fn trusting_a_forged_file_is_caught() {
    let report = battery_failure(TrustingParams);
    assert!(
        report.contains("forgery") && report.contains("panicked"),
        "{report}"
    );
}

#[test]
fn forgetting_the_hyperparameters_is_caught() {
    let report = battery_failure(ForgetfulParams);
    assert!(
        report.contains("save→load: hyperparameters changed") && report.contains("0.5"),
        "{report}"
    );
}

#[test]
fn a_file_with_hyperparameters_fit_refuses_is_refused() {
    let data = Dataset::new(
        margin_core::DenseMatrix::from_rows(&[vec![0.0], vec![1.0]]).unwrap(),
        margin_core::Targets::Values(vec![0.0, 1.0]),
    )
    .unwrap();
    let mut model = NearestCentroidParams { flaw: Flaw::None }
        .fit(&data)
        .unwrap();
    model.params.shrink = -1.0;
    let e = NearestCentroid::from_bytes(&model.to_bytes().unwrap()).unwrap_err();
    assert!(e.to_string().contains("`params`"), "{e}");
    assert!(e.to_string().contains("shrink"), "{e}");
}
