//! Model files whose checksum is right but whose contents are not: the battery's forgeries
//! over every prediction-side method (the battery itself calls `predict` only), and the
//! inconsistencies that used to panic in `predict` (an out-of-range support-vector index, a
//! CSR row offset past the stored entries), each refused on load naming the field.

use margin_core::params::Params;
use margin_core::{
    Convergence, CsrMatrix, Dataset, DecisionFunction, Error, Fit, Hyperparams, Label, Matrix,
    Predict, PredictProba, Records, Result, Targets,
};
use margin_io::ModelFile;
use margin_kernels::{KernelSpec, Rbf};
use margin_optim::Stop;
use margin_svm::{
    BinaryModel, KernelChoice, LibsvmModel, LinearSvc, Multiclass, OneClassSvm, Svc,
    SvcHyperparams, Svr, SvrHyperparams,
};
use margin_testing::battery::{RawMatrix, check_forged_files, check_refused, forge_data};
use serde::{Deserialize, Serialize};

/// A change to a mirrored file, and the field its refusal must name.
type Edit<T> = (fn(&mut T), &'static str);

fn data(n: usize, k: usize) -> Dataset {
    forge_data(n, Some(k))
}

fn sparse(d: &Dataset) -> Dataset {
    Dataset {
        records: Matrix::Sparse(CsrMatrix::from_dense(&d.records.to_dense().unwrap())),
        ..d.clone()
    }
}

fn every_method<M: Predict + DecisionFunction + PredictProba>(
    m: &M,
    x: &Matrix,
) -> Result<Vec<usize>>
where
    M::Output: margin_testing::battery::Prediction,
{
    use margin_testing::battery::Prediction;
    Ok(vec![
        m.predict(x)?.n_predictions(),
        m.decision_function(x)?.nrows(),
        m.predict_proba(x)?.nrows(),
    ])
}

#[test]
fn forged_classifier_files_are_refused_or_harmless_in_every_method() {
    let three = data(45, 3);
    let rbf = Rbf::with_gamma(0.5).unwrap();
    check_forged_files(
        &Svc::params().probability(true).fit(&three).unwrap(),
        3,
        every_method,
    );
    check_forged_files(
        &Svc::params()
            .kernel(KernelChoice::Linear)
            .multiclass(Multiclass::OneVsRest)
            .fit(&sparse(&three))
            .unwrap(),
        3,
        |m, x| Ok(vec![m.decision_function(x)?.nrows()]),
    );
    check_forged_files(
        &OneClassSvm::params().kernel(rbf).fit(&three).unwrap(),
        3,
        |m, x| Ok(vec![m.decision_function(x)?.nrows()]),
    );
    check_forged_files(&LinearSvc::params().fit(&three).unwrap(), 3, |m, x| {
        Ok(vec![m.decision_function(x)?.nrows()])
    });
}

/// An `svc` file field by field (the layout of `Svc`).
#[derive(Clone, Serialize, Deserialize)]
struct SvcFile {
    kernel: KernelSpec,
    labels: Vec<Label>,
    n_features: usize,
    support: Matrix,
    support_indices: Vec<usize>,
    support_class: Vec<usize>,
    problems: Vec<BinaryModel>,
    params: SvcHyperparams,
    weights: Option<Vec<Vec<f64>>>,
}

impl ModelFile for SvcFile {
    const KIND: &'static str = "svc";
    const SCHEMA: u32 = Svc::SCHEMA;
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[test]
fn svc_files_must_index_and_pair_within_the_model() {
    let model = Svc::params()
        .kernel(Rbf::with_gamma(0.123_456_789).unwrap())
        .fit(&data(45, 3))
        .unwrap();
    let bytes = model.to_bytes().unwrap();
    let good = SvcFile::from_bytes(&bytes).unwrap();
    assert_eq!(
        Svc::from_bytes(&good.to_bytes().unwrap()).unwrap(),
        model,
        "the mirror has Svc's layout"
    );
    let edits: [Edit<SvcFile>; 15] = [
        // Parameters `fit` refuses: C = −1, and probabilities with one-vs-rest problems.
        (
            |f| f.params = SvcHyperparams::C(Svc::params().c(-1.0)),
            "params",
        ),
        (
            |f| {
                f.params = SvcHyperparams::C(
                    Svc::params()
                        .multiclass(Multiclass::OneVsRest)
                        .probability(true),
                )
            },
            "params",
        ),
        // Used to panic in `predict`: a support-vector index past the support vectors.
        (
            |f| f.problems[1].coef[0].0 = f.support_class.len(),
            "problem coef",
        ),
        (|f| f.problems[0].coef[0].1 = f64::NAN, "problem coef"),
        (|f| f.problems[2].rho = f64::INFINITY, "rho"),
        (|f| f.problems[0].negative = None, "problems"),
        (|f| f.problems[1].positive = 7, "problems"),
        (
            |f| {
                f.problems.pop();
            },
            "problems",
        ),
        (
            |f| f.params = SvcHyperparams::C(Svc::params().multiclass(Multiclass::OneVsRest)),
            "problems",
        ),
        (|f| f.support_class[0] = 3, "support_class"),
        (
            |f| {
                f.support_indices.pop();
            },
            "support",
        ),
        (|f| f.labels[2] = f.labels[0].clone(), "labels"),
        (|f| f.labels.truncate(1), "labels"),
        (|f| f.n_features = 4, "support"),
        (|f| f.weights = Some(vec![vec![0.0; 3]; 3]), "weights"),
    ];
    for (edit, field) in edits {
        let mut f = good.clone();
        edit(&mut f);
        check_refused::<Svc>(&f.to_bytes().unwrap(), field);
    }
    // The refusal of stored parameters says which and what `fit` allows.
    let mut negative_c = good.clone();
    negative_c.params = SvcHyperparams::C(Svc::params().c(-1.0));
    match Svc::from_bytes(&negative_c.to_bytes().unwrap()) {
        Err(Error::ModelFile { reason }) => assert!(
            reason.contains("inconsistent `svc` model: `params` is invalid")
                && reason.contains("C")
                && reason.contains("-1")
                && reason.contains("> 0"),
            "{reason}"
        ),
        other => panic!("C = -1 was not refused: {other:?}"),
    }
    // A kernel parameter no constructor accepts.
    let body = margin_io::body_of(&bytes).unwrap();
    let gamma = 0.123_456_789f64.to_le_bytes();
    let at = body.windows(8).position(|w| w == gamma).unwrap();
    for bad in [-1.0f64, 0.0, f64::NAN] {
        let mut forged = body.to_vec();
        forged[at..at + 8].copy_from_slice(&bad.to_le_bytes());
        check_refused::<Svc>(
            &margin_io::seal("svc", Svc::SCHEMA, &forged).unwrap(),
            "kernel",
        );
    }
}

#[test]
fn linear_svc_weights_must_match_the_problems() {
    let model = Svc::params()
        .kernel(KernelChoice::Linear)
        .fit(&data(40, 2))
        .unwrap();
    let good = SvcFile::from_bytes(&model.to_bytes().unwrap()).unwrap();
    for edit in [
        (|f: &mut SvcFile| f.weights = None) as fn(&mut SvcFile),
        |f| f.weights.as_mut().unwrap()[0].push(1.0),
        |f| f.weights.as_mut().unwrap()[0][1] = f64::NEG_INFINITY,
        |f| f.weights.as_mut().unwrap().push(vec![0.0; 3]),
    ] {
        let mut f = good.clone();
        edit(&mut f);
        check_refused::<Svc>(&f.to_bytes().unwrap(), "weights");
    }
}

/// An `svr` file field by field (the layout of `Svr`: its expansion, `nu`, the Laplace scale
/// of a probability model and the solver runs behind it).
#[derive(Clone, Serialize, Deserialize)]
struct SvrFile {
    kernel: KernelSpec,
    n_features: usize,
    support: RawMatrix,
    support_indices: Vec<usize>,
    coef: Vec<f64>,
    rho: f64,
    objective: f64,
    iterations: usize,
    stop: Stop,
    weights: Option<Vec<f64>>,
    params: SvrHyperparams,
    laplace_scale: Option<f64>,
    probability_folds: Convergence,
}

impl ModelFile for SvrFile {
    const KIND: &'static str = "svr";
    const SCHEMA: u32 = Svr::SCHEMA;
    fn check_consistent(&self) -> Result<()> {
        Ok(())
    }
}

#[test]
fn svr_files_must_hold_well_formed_support_vectors_and_one_coefficient_each() {
    let mut reg = sparse(&data(40, 2));
    reg.targets = Targets::Values((0..40).map(|i| f64::from(i % 7) / 3.0).collect());
    let model = Svr::params().fit(&reg).unwrap();
    let good = SvrFile::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert!(Svr::from_bytes(&good.to_bytes().unwrap()).is_ok());
    // Used to panic in `predict`: a row offset past the stored entries (the last offset still
    // equal to their count), sliced while the CSR matrix was rebuilt.
    let mut f = good.clone();
    let RawMatrix::Sparse { indptr, .. } = &mut f.support else {
        panic!("sparse support vectors")
    };
    indptr[1] = indptr[indptr.len() - 1] + 5;
    check_refused::<Svr>(&f.to_bytes().unwrap(), "indptr");
    for (edit, field) in [
        (
            (|f: &mut SvrFile| {
                f.coef.pop();
            }) as fn(&mut SvrFile),
            "coef",
        ),
        (|f| f.coef[0] = f64::NAN, "coef"),
        (|f| f.rho = f64::NAN, "rho"),
        (|f| f.n_features += 1, "support"),
        (|f| f.weights = Some(vec![0.0; 3]), "weights"),
        (|f| f.laplace_scale = Some(-1.0), "laplace_scale"),
        (|f| f.laplace_scale = Some(f64::INFINITY), "laplace_scale"),
        (
            |f| f.params = SvrHyperparams::Epsilon(Svr::params().epsilon(-1.0)),
            "params",
        ),
    ] {
        let mut f = good.clone();
        edit(&mut f);
        check_refused::<Svr>(&f.to_bytes().unwrap(), field);
    }
}

/// A later change of the `svc` layout raises its schema: a file of another schema is refused
/// with a message naming the kind, both versions and what to do.
#[test]
fn another_svc_schema_is_refused_with_a_clear_message() {
    let bytes = Svc::params().fit(&data(40, 2)).unwrap().to_bytes().unwrap();
    let body = margin_io::body_of(&bytes).unwrap();
    for (schema, advice) in [
        (Svc::SCHEMA + 1, "upgrade margin"),
        (0, "train the model again"),
    ] {
        let file = margin_io::seal(Svc::KIND, schema, body).unwrap();
        match Svc::from_bytes(&file) {
            Err(Error::ModelFile { reason }) => assert!(
                reason.contains("`svc`")
                    && reason.contains(&format!("layout version {schema}"))
                    && reason.contains(advice),
                "{reason}"
            ),
            other => panic!("schema {schema}: {other:?}"),
        }
    }
}

/// A model read from a LIBSVM text file keeps the parameters its header implies (formulation,
/// kernel, probability) with the rest at their defaults, and saves them to margin's file.
#[test]
fn a_libsvm_file_implies_the_parameters_of_its_header() {
    let header = "kernel_type polynomial\ndegree 2\ngamma 0.5\ncoef0 1\nnr_class 2\ntotal_sv 2\nrho 0.5\nlabel 1 -1";
    let text = format!(
        "svm_type nu_svc\n{header}\nprobA -1.5\nprobB 0.25\nnr_sv 1 1\nSV\n0.5 1:1 2:0 \n-0.5 1:0 2:1 \n"
    );
    let LibsvmModel::Svc(svc) = LibsvmModel::from_text(&text).unwrap() else {
        panic!("a classifier")
    };
    let expected = Svc::nu_params()
        .kernel(KernelChoice::Polynomial {
            degree: 2,
            gamma: margin_kernels::Gamma::Value(0.5),
            coef0: 1.0,
        })
        .probability(true);
    assert_eq!(svc.hyperparams(), &SvcHyperparams::Nu(expected));
    let back = Svc::from_bytes(&svc.to_bytes().unwrap()).unwrap();
    assert_eq!(back.hyperparams(), svc.hyperparams());
    // Written back byte for byte as LIBSVM writes it, whatever the model keeps.
    assert_eq!(LibsvmModel::Svc(back).to_text().unwrap(), text);

    let text = "svm_type epsilon_svr\nkernel_type rbf\ngamma 0.25\nnr_class 2\ntotal_sv 1\nrho 0.1\nSV\n0.5 1:1\n";
    let LibsvmModel::Svr(svr) = LibsvmModel::from_text(text).unwrap() else {
        panic!("a regressor")
    };
    let expected = Svr::params().kernel(Rbf::with_gamma(0.25).unwrap());
    assert_eq!(svr.hyperparams(), &SvrHyperparams::Epsilon(expected));

    let text =
        "svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0.1\nSV\n0.5 1:1\n";
    let LibsvmModel::OneClass(one) = LibsvmModel::from_text(text).unwrap() else {
        panic!("a one-class model")
    };
    assert_eq!(
        one.hyperparams(),
        &OneClassSvm::params().kernel(KernelChoice::Linear)
    );

    // A classifier LIBSVM trained on one class describes what its header implies too.
    let text =
        "svm_type c_svc\nkernel_type linear\nnr_class 1\ntotal_sv 0\nrho\nlabel 3\nnr_sv 0\nSV\n";
    let single = LibsvmModel::from_text(text).unwrap();
    assert!(matches!(single, LibsvmModel::SingleClass(_)));
    assert_eq!(
        single.describe_hyperparams(),
        Svc::params().kernel(KernelChoice::Linear).describe()
    );
}
