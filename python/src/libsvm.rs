//! LIBSVM's Python interface (`svm_train`, `svm_predict`, `svm_save_model`, `svm_load_model`)
//! over margin: the Rust half. Training is `margin_svm::TrainOptions`, the code behind `margin
//! svm-train`, so the options, their checks and messages, the models, the cross-validation folds
//! and what is printed are svm-train's; models are LIBSVM's text files, byte for byte.
//!
//! Data arrives as a CSR matrix already in LIBSVM's indexing (column `j` is feature index `j`;
//! `python/margin/svmutil.py` shifts numpy and scipy columns by one, as LIBSVM's interface does).

use std::path::PathBuf;

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use margin_core::fit::{Control, Mark, Observer, Progress};
use margin_core::{Dataset, Error, Targets};
use margin_io::IndexBase;
use margin_kernels::KernelSpec;
use margin_svm::{
    FitObserver, LibsvmModel, LibsvmRun, OptionError, RunReport, SigmoidEnd, TrainLog,
    TrainOptions, TrainText,
};

use crate::convert::{self, XArg, to_py};
use crate::interrupt::SignalWatch;

/// How LIBSVM's files number features: index `j` is column `j` (as `margin svm-train`).
const INDEXING: IndexBase = IndexBase::Zero;

fn option_error(e: OptionError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// svm-train's options, parsed and checked (`SvmOptions("-s 0 -c 4".split())`).
#[pyclass(frozen, module = "margin._native")]
pub struct SvmOptions {
    inner: TrainOptions,
}

#[pymethods]
impl SvmOptions {
    /// Parses and checks `words`, every one an option (no file names).
    #[new]
    fn new(words: Vec<String>) -> PyResult<Self> {
        let (inner, used) = TrainOptions::parse(&words).map_err(option_error)?;
        if let Some(other) = words.get(used) {
            return Err(PyValueError::new_err(format!("Unknown option: {other}")));
        }
        inner.trainer(1).map_err(option_error)?;
        Ok(Self { inner })
    }

    /// `-q`.
    #[getter]
    fn quiet(&self) -> bool {
        self.inner.quiet()
    }

    /// `-v n`, or None.
    #[getter]
    fn folds(&self) -> Option<usize> {
        self.inner.folds()
    }

    /// `-s 3` or `-s 4`.
    #[getter]
    fn regression(&self) -> bool {
        self.inner.is_regression()
    }

    /// `-t 4`.
    #[getter]
    fn precomputed(&self) -> bool {
        self.inner.is_precomputed()
    }
}

/// A LIBSVM model: what `svm_train` returns and `svm_predict` uses.
#[pyclass(frozen, module = "margin._native")]
pub struct SvmModel {
    inner: LibsvmModel,
}

#[pymethods]
impl SvmModel {
    /// LIBSVM's svm type: 0 C-SVC, 1 ν-SVC, 2 one-class, 3 ε-SVR, 4 ν-SVR.
    fn get_svm_type(&self) -> i32 {
        match &self.inner {
            LibsvmModel::Svc(m) if m.is_nu() => 1,
            LibsvmModel::SingleClass(m) if m.is_nu() => 1,
            LibsvmModel::Svc(_) | LibsvmModel::SingleClass(_) => 0,
            LibsvmModel::OneClass(_) => 2,
            LibsvmModel::Svr(m) if m.is_nu() => 4,
            LibsvmModel::Svr(_) => 3,
        }
    }

    /// The number of classes (2 for a regressor or a one-class SVM, as LIBSVM's).
    fn get_nr_class(&self) -> usize {
        match &self.inner {
            LibsvmModel::Svc(m) => m.classes().len(),
            LibsvmModel::SingleClass(_) => 1,
            LibsvmModel::OneClass(_) | LibsvmModel::Svr(_) => 2,
        }
    }

    /// A classifier's labels in LIBSVM's order (the order of probability columns and of the
    /// pairs of decision values); empty for other models.
    fn get_labels<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        match &self.inner {
            LibsvmModel::Svc(m) => m.classes().iter().map(|l| convert::label(py, l)).collect(),
            LibsvmModel::SingleClass(m) => Ok(vec![m.label().into_pyobject(py)?.into_any()]),
            _ => Ok(Vec::new()),
        }
    }

    /// The number of support vectors.
    fn get_nr_sv(&self) -> usize {
        self.inner.support_indices().len()
    }

    /// The support vectors' rows in the training data, numbered from 1 (LIBSVM's
    /// `sv_indices`).
    fn get_sv_indices(&self) -> Vec<usize> {
        self.inner.support_indices().iter().map(|i| i + 1).collect()
    }

    /// Whether the model can estimate probabilities (trained with `-b 1`).
    fn is_probability_model(&self) -> bool {
        self.inner.has_probability()
    }

    /// A regressor's Laplace scale σ (trained with `-b 1`).
    fn get_svr_probability(&self) -> PyResult<f64> {
        match &self.inner {
            LibsvmModel::Svr(m) => m.laplace_scale().ok_or_else(|| {
                PyValueError::new_err(
                    "the model has no probability information: train it with -b 1",
                )
            }),
            _ => Err(PyValueError::new_err(
                "the model is not a regressor (-s 3 or -s 4): it has no Laplace scale",
            )),
        }
    }

    /// Whether the kernel is precomputed (rows are `[serial, K(x, x_1), …]`).
    #[getter]
    fn precomputed(&self) -> bool {
        matches!(self.inner.kernel(), KernelSpec::Precomputed(_))
    }

    /// The number of feature columns it reads (the largest feature index + 1).
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    /// The model as LIBSVM's text model file.
    fn to_text(&self) -> PyResult<String> {
        self.inner.to_text_indexed(INDEXING).map_err(to_py)
    }

    /// Pickles as the LIBSVM model file's text.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let from_text = py
            .import("margin._native")?
            .getattr("svm_model_from_text")?;
        let text = self.to_text()?;
        PyTuple::new(py, [from_text, PyTuple::new(py, [text])?.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "<LIBSVM model: svm_type {}, {} support vectors>",
            self.get_svm_type(),
            self.get_nr_sv()
        )
    }
}

/// svm-train's log, watched for Ctrl-C: every report goes to the log as svm-train prints it,
/// and each solver iteration also to a [`SignalWatch`], which stops the solver runs once a
/// signal handler raised (see [`crate::interrupt`]).
struct Interruptible<'a, 'o> {
    log: &'a mut TrainLog<'o>,
    watch: SignalWatch,
}

impl Observer for Interruptible<'_, '_> {
    fn observe(&mut self, progress: &Progress<'_>) -> Control {
        let log = self.log.observe(progress);
        match self.watch.observe(progress) {
            Control::Stop => Control::Stop,
            Control::Continue => log,
        }
    }

    fn mark(&mut self, mark: Mark) {
        self.log.mark(mark);
    }

    fn wants_objective(&self) -> bool {
        self.log.wants_objective()
    }
}

impl FitObserver for Interruptible<'_, '_> {
    fn solved(&mut self, run: &RunReport) {
        self.log.solved(run);
    }

    fn classifier_trained(&mut self, total_sv: usize) {
        self.log.classifier_trained(total_sv);
    }

    fn single_class(&mut self) {
        self.log.single_class();
    }

    fn laplace_scale(&mut self, sigma: f64) {
        self.log.laplace_scale(sigma);
    }

    fn sigmoid_fitted(&mut self, end: SigmoidEnd) {
        self.log.sigmoid_fitted(end);
    }

    fn warning(&mut self, line: &str) {
        self.log.warning(line);
    }
}

/// What one svm-train run gives Python: the model (None under `-v`), the cross-validation
/// predictions (only under `-v`), the text svm-train printed, and its warnings.
type Trained<'py> = (
    Option<SvmModel>,
    Option<Bound<'py, PyAny>>,
    String,
    Vec<String>,
);

/// One svm-train run (see [`Trained`]). `x` is in LIBSVM's indexing; its width is the training
/// data's largest feature index + 1 (γ's default is `1/(width − 1)`).
#[pyfunction]
pub fn svm_train<'py>(
    py: Python<'py>,
    options: &SvmOptions,
    y: PyReadonlyArray1<'py, f64>,
    x: XArg<'py>,
) -> PyResult<Trained<'py>> {
    let records = x.features()?.into_matrix().map_err(to_py)?;
    let data = Dataset::new(records, Targets::Values(y.as_slice()?.to_vec())).map_err(to_py)?;
    let o = &options.inner;
    let trainer = o
        .trainer(data.n_features().saturating_sub(1))
        .map_err(option_error)?;
    let mut out = TrainText::default();
    let (trained, raised) = py.detach(|| {
        let mut log = TrainLog::new(&mut out, o.quiet());
        let mut watched = Interruptible {
            log: &mut log,
            watch: SignalWatch::new(),
        };
        // One unseeded rand() per call, as a fresh svm-train.
        let mut run = LibsvmRun::new(&mut watched);
        let trained = if o.folds().is_some() {
            trainer
                .cross_validate(&data, &mut run)
                .map(|p| (None, Some(p)))
        } else {
            trainer.fit_in(&data, &mut run).map(|m| (Some(m), None))
        };
        (trained, watched.watch.raised())
    });
    if let Some(e) = raised {
        // Interrupted: the solver runs stopped early, so the model is not the one asked for.
        return Err(e);
    }
    let (model, predicted) = trained.map_err(to_py)?;
    Ok((
        model.map(|inner| SvmModel { inner }),
        predicted.map(|p| PyArray1::from_vec(py, p).into_any()),
        out.printed,
        out.warnings,
    ))
}

/// LIBSVM's predictions for `x` (in LIBSVM's indexing): the labels or values, and the
/// decision values (`probability` false) or probability estimates (true), as a 2-D array.
#[pyfunction]
pub fn svm_predict<'py>(
    py: Python<'py>,
    model: &SvmModel,
    x: XArg<'py>,
    probability: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let features = x.features()?;
    let records = features.records();
    // LIBSVM ignores feature indices a model never saw, and reads absent ones as 0.
    let width = records.n_features().max(model.inner.n_features());
    let (labels, values) = py
        .detach(|| {
            let m = model.inner.clone().with_n_features(width)?;
            let records = features.into_matrix()?.with_n_features(width)?;
            if probability {
                m.predict_probability(&records)
            } else {
                m.predict_with_decisions(&records)
            }
        })
        .map_err(to_py)?;
    Ok((
        PyArray1::from_vec(py, labels).into_any(),
        convert::matrix(py, values)?,
    ))
}

/// LIBSVM's accuracy, mean squared error and squared correlation coefficient of `predicted`
/// against `truth` (`evaluations` in LIBSVM's Python interface).
#[pyfunction]
pub fn evaluations(
    truth: PyReadonlyArray1<'_, f64>,
    predicted: PyReadonlyArray1<'_, f64>,
) -> PyResult<(f64, f64, f64)> {
    let (t, p) = (truth.as_slice()?, predicted.as_slice()?);
    if t.len() != p.len() {
        return Err(PyValueError::new_err(format!(
            "len(ty) must equal len(pv): {} true values, {} predictions",
            t.len(),
            p.len()
        )));
    }
    let e = margin_svm::Evaluation::of(t, p);
    Ok((e.accuracy, e.mse, e.scc))
}

/// A model from LIBSVM's model file text.
#[pyfunction]
pub fn svm_model_from_text(text: &str) -> PyResult<SvmModel> {
    let inner = LibsvmModel::from_text_indexed(text, INDEXING).map_err(to_py)?;
    Ok(SvmModel { inner })
}

/// Reads a LIBSVM model file (written by LIBSVM, `margin svm-train` or `svm_save_model`).
#[pyfunction]
pub fn svm_load_model(py: Python<'_>, path: PathBuf) -> PyResult<SvmModel> {
    let inner = py
        .detach(|| LibsvmModel::load_indexed(&path, INDEXING))
        .map_err(|e| match e {
            // An I/O error names the file already.
            Error::Io { .. } => to_py(e),
            e => PyValueError::new_err(format!("{}: {e}", path.display())),
        })?;
    Ok(SvmModel { inner })
}

/// Writes `model` to `path` as LIBSVM's text model file, whole or not at all.
#[pyfunction]
pub fn svm_save_model(py: Python<'_>, path: PathBuf, model: &SvmModel) -> PyResult<()> {
    py.detach(|| {
        let text = model.inner.to_text_indexed(INDEXING)?;
        margin_io::write_atomically(&path, |w| w.write_all(text.as_bytes()))
    })
    .map_err(to_py)
}
