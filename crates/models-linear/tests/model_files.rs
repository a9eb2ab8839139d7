//! Model files whose checksum is right but whose contents are not: the battery's forgeries over
//! the methods the battery does not call (`decision_function`, `predict_proba`,
//! `predict_log_proba`, `predict_interval`), and field-by-field inconsistencies that used to
//! panic or answer garbage, refused on load naming the field.

use margin_core::{
    Dataset, DecisionFunction, DenseMatrix, Error, Fit, Label, PredictProba, Records, Result,
};
use margin_io::ModelFile;
use margin_kernels::{KernelSpec, Rbf};
use margin_linear::{
    BernoulliNB, GaussianNB, KernelPerceptron, KernelPerceptronParams, KernelRidge,
    LinearRegression, LinearRegressionParams, LogisticRegression, LstsqSolver, MultinomialNB,
    Perceptron,
};
use margin_optim::Stop;
use margin_testing::battery::{check_forged_files, check_refused, forge_data};
use serde::{Deserialize, Serialize};

/// A change to a mirrored file, and the field its refusal must name.
type Edit<T> = (fn(&mut T), &'static str);

#[test]
fn forged_classifier_files_are_refused_or_harmless_in_every_method() {
    for k in [2, 3] {
        let d = forge_data(45, Some(k));
        check_forged_files(&LogisticRegression::params().fit(&d).unwrap(), 3, |m, x| {
            Ok(vec![
                m.decision_function(x)?.nrows(),
                m.predict_proba(x)?.nrows(),
                m.predict_log_proba(x)?.nrows(),
            ])
        });
        check_forged_files(&Perceptron::params().fit(&d).unwrap(), 3, |m, x| {
            Ok(vec![m.decision_function(x)?.nrows()])
        });
        check_forged_files(&KernelPerceptron::params().fit(&d).unwrap(), 3, |m, x| {
            Ok(vec![m.decision_function(x)?.nrows()])
        });
        check_forged_files(&GaussianNB::params().fit(&d).unwrap(), 3, |m, x| {
            Ok(vec![
                m.predict_proba(x)?.nrows(),
                m.predict_log_proba(x)?.nrows(),
            ])
        });
        check_forged_files(&BernoulliNB::params().fit(&d).unwrap(), 3, |m, x| {
            Ok(vec![m.predict_proba(x)?.nrows()])
        });
        let mut x = d.records.to_dense().unwrap();
        x.as_mut_slice()
            .iter_mut()
            .for_each(|v| *v = (3.0 * *v).abs().round());
        let counts = Dataset {
            records: x.into(),
            ..d.clone()
        };
        check_forged_files(&MultinomialNB::params().fit(&counts).unwrap(), 3, |m, x| {
            Ok(vec![m.predict_proba(x)?.nrows()])
        });
    }
}

#[test]
fn forged_regression_files_are_refused_or_harmless_in_prediction_intervals() {
    let model = LinearRegression::params()
        .fit(&forge_data(30, None))
        .unwrap();
    check_forged_files(&model, 3, |m, x| {
        Ok(vec![m.predict_interval(x, 0.9)?.lower.len()])
    });
}

/// Loading `file` as an `M` must be refused naming `field` (quoted, as the checks name fields).
fn refused<M: ModelFile>(file: &[u8], field: &str) {
    check_refused::<M>(file, &format!("`{field}`"));
}

/// A `linear-regression` file field by field.
#[derive(Clone, Serialize, Deserialize)]
struct RegressionFile {
    coef: Vec<f64>,
    intercept: f64,
    rank: usize,
    singular_values: Option<Vec<f64>>,
    solver: LstsqSolver,
    n_samples: usize,
    rss: f64,
    weight_sum: f64,
    x_offset: Vec<f64>,
    inverse_gram: Option<DenseMatrix>,
    x_scale: f64,
    gd: Option<(usize, Stop)>,
    params: LinearRegressionParams,
}

impl ModelFile for RegressionFile {
    const KIND: &'static str = LinearRegression::KIND;
    const SCHEMA: u32 = LinearRegression::SCHEMA;
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[test]
fn linear_regression_inference_tables_must_fit_the_weights() {
    let model = LinearRegression::params()
        .fit(&forge_data(30, None))
        .unwrap();
    let good = RegressionFile::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(
        LinearRegression::from_bytes(&good.to_bytes().unwrap()).unwrap(),
        model
    );
    let edits: [Edit<RegressionFile>; 7] = [
        // Used to panic in `predict_interval` (indexing a 2 × 2 matrix for 3 features).
        (
            |f| f.inverse_gram = Some(DenseMatrix::zeros(2, 2)),
            "inverse_gram",
        ),
        (
            |f| {
                f.x_offset.pop();
            },
            "x_offset",
        ),
        (|f| f.x_scale = 0.0, "x_scale"),
        (|f| f.weight_sum = f64::NAN, "weight_sum"),
        (|f| f.coef[1] = f64::INFINITY, "coef"),
        (|f| f.rank = 9, "rank"),
        (|f| f.rss = -1.0, "rss"),
    ];
    for (edit, field) in edits {
        let mut f = good.clone();
        edit(&mut f);
        refused::<LinearRegression>(&f.to_bytes().unwrap(), field);
    }
}

/// A `kernel-perceptron` file field by field.
#[derive(Clone, Serialize, Deserialize)]
struct KernelPerceptronFile {
    kernel: KernelSpec,
    labels: Vec<Label>,
    support: Vec<usize>,
    support_vectors: margin_core::Matrix,
    dual_coef: Vec<Vec<f64>>,
    intercept: Vec<f64>,
    n_iter: Vec<usize>,
    mistakes: Vec<usize>,
    stops: Vec<Stop>,
    params: KernelPerceptronParams,
}

impl ModelFile for KernelPerceptronFile {
    const KIND: &'static str = KernelPerceptron::KIND;
    const SCHEMA: u32 = KernelPerceptron::SCHEMA;
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[test]
fn kernel_perceptron_coefficients_must_match_the_support_vectors() {
    let model = KernelPerceptron::params()
        .kernel(Rbf::with_gamma(0.5).unwrap())
        .fit(&forge_data(45, Some(3)))
        .unwrap();
    let good = KernelPerceptronFile::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(
        KernelPerceptron::from_bytes(&good.to_bytes().unwrap()).unwrap(),
        model
    );
    let edits: [Edit<KernelPerceptronFile>; 5] = [
        // Used to panic in `predict` (a problem's coefficients indexed past their end).
        (
            |f| {
                f.dual_coef.pop();
            },
            "dual_coef",
        ),
        (|f| f.dual_coef[1].push(1.0), "dual_coef row"),
        (|f| f.intercept[0] = f64::NAN, "intercept"),
        (
            |f| {
                f.support.pop();
            },
            "support_vectors",
        ),
        (|f| f.labels[1] = f.labels[2].clone(), "labels"),
    ];
    for (edit, field) in edits {
        let mut f = good.clone();
        edit(&mut f);
        refused::<KernelPerceptron>(&f.to_bytes().unwrap(), field);
    }
}

fn hex(parts: &[&str]) -> Vec<u8> {
    let s: String = parts.concat();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A fuzz input's body (the kind byte dropped) sealed as a `M` file must be refused.
fn fuzz_input_refused<M: ModelFile>(body_hex: &[&str]) {
    let file = margin_io::seal(M::KIND, M::SCHEMA, &hex(body_hex)).unwrap();
    assert!(matches!(M::from_bytes(&file), Err(Error::ModelFile { .. })));
}

/// Inputs the `model_file` fuzz target crashed on, refused now.
#[test]
fn fuzz_crash_inputs_are_refused() {
    // A text label claiming 3.4 GB in a 104-byte body: allocated before the bytes were found
    // missing (out of memory).
    fuzz_input_refused::<KernelPerceptron>(&[
        "000301fc2cbf01cfe5bf0203028b03095f766ce13fde96652e6de2d63f0292c3ba8448e8e03f7ec8",
        "7220d233d63f02074e3fb9c06e1240f03c5401e9df0d40030ad7a3703d0aa73fbd1e85eb51b88ebf",
        "9a999999999999bfdabada55fb7101000101f5c28c3f00",
    ]);
    // Training records of zero columns claiming 4·10⁹ rows (no data): every row was walked
    // looking for a non-finite value before the row count was compared (timeout).
    fuzz_input_refused::<KernelRidge>(&["090000000000fcbf2c01f900"]);
}
