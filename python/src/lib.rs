//! `margin._native`, the Rust half of margin's Python package (`pip install margin-ml`,
//! `import margin`).
//!
//! The Python package (`python/margin/`) builds scikit-learn estimator classes from
//! `estimators()`: their names, roles, parameters and defaults all come from margin's own
//! parameter descriptors. This module fits them (`fit`), predicts, and moves fitted models as
//! margin model files (pickling stores the file's bytes; `load` and `Model.save` read and write
//! the same files as the Rust crates and the `margin` command). The interpreter lock is released
//! while margin computes, so Python threads and joblib run fits side by side, and a fit on the
//! main thread answers Ctrl-C with `KeyboardInterrupt` (`interrupt`). LIBSVM's own
//! Python functions (`svm_train`, `svm_predict`, …) are in `libsvm`.

use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use margin_core::{DenseMatrix, Error, Records};

mod convert;
mod interrupt;
mod libsvm;
mod registry;

use convert::{XArg, YArg, to_py, to_py_on_input};
use margin_any::{self as any, AnyModel, Predicted};
use registry::{Entry, Target, Training, by_class, python_name, registry};

/// A fitted margin model and the estimator class it belongs to.
#[pyclass(frozen, module = "margin._native")]
struct Model {
    inner: Box<dyn AnyModel>,
    entry: &'static Entry,
    /// The columns of the DataFrame it was fitted on (`feature_names_in_`), written into its
    /// model file's header and read back from it.
    names: Option<Vec<String>>,
}

impl Model {
    /// The model file, with the feature names it was fitted on in its header (so that
    /// `margin predict` matches a table's columns by name).
    fn file(&self) -> margin_core::Result<Vec<u8>> {
        let bytes = self.inner.to_bytes()?;
        match &self.names {
            Some(names) => margin_io::with_feature_names(&bytes, names),
            None => Ok(bytes),
        }
    }

    /// Runs `method` on the features with the interpreter lock released and returns its
    /// matrix as a 2-D array.
    fn matrix<'py>(
        &self,
        py: Python<'py>,
        x: XArg<'py>,
        method: fn(&dyn AnyModel, &dyn Records) -> margin_core::Result<DenseMatrix>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let features = x.features()?;
        let records = features.records();
        let m = py
            .detach(|| method(&*self.inner, records))
            .map_err(to_py_on_input)?;
        convert::matrix(py, m)
    }
}

#[pymethods]
impl Model {
    /// The Python estimator class this model belongs to ("SVC").
    #[getter]
    fn estimator(&self) -> &'static str {
        self.entry.class
    }

    /// The kind its model file carries ("svc").
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    /// The number of features it was fitted on.
    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    /// A classifier's classes as Python values (empty for other models).
    fn classes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let labels = self
            .inner
            .classes()
            .iter()
            .map(|l| convert::label(py, l))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, labels)
    }

    /// Predictions: class indices (int64, into `classes()`), values (float64), or integers
    /// naming no class (cluster indices, a one-class SVM's ±1).
    fn predict<'py>(&self, py: Python<'py>, x: XArg<'py>) -> PyResult<(String, Bound<'py, PyAny>)> {
        let features = x.features()?;
        let records = features.records();
        let predicted = py
            .detach(|| self.inner.predict(records))
            .map_err(to_py_on_input)?;
        Ok(match predicted {
            Predicted::Classes(k) => ("classes".into(), PyArray1::from_vec(py, k).into_any()),
            Predicted::Values(v) => ("values".into(), PyArray1::from_vec(py, v).into_any()),
            Predicted::Integers(v) => ("integers".into(), PyArray1::from_vec(py, v).into_any()),
        })
    }

    /// Decision values, one column per binary problem.
    fn decision_function<'py>(&self, py: Python<'py>, x: XArg<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.matrix(py, x, |model, records| model.decision_function(records))
    }

    /// Class probabilities, one column per class in `classes()` order.
    fn predict_proba<'py>(&self, py: Python<'py>, x: XArg<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.matrix(py, x, |model, records| model.predict_proba(records))
    }

    /// The records in the model's output space.
    fn transform<'py>(&self, py: Python<'py>, x: XArg<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.matrix(py, x, |model, records| model.transform(records))
    }

    /// The fitted attributes, by scikit-learn's names.
    fn attributes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        convert::attributes(py, self.inner.attributes().map_err(to_py)?)
    }

    /// The hyperparameters it was fitted with, by their Python names (the class's fixed ones
    /// left out).
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for p in self.inner.hyperparams() {
            if !self.entry.fixed.contains(&p.name) {
                dict.set_item(python_name(p.name), convert::value(py, &p.value)?)?;
            }
        }
        Ok(dict)
    }

    /// The model file's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| self.file()).map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the model file to `path`, whole or not at all (a temporary file beside it is
    /// renamed into place).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| {
            let bytes = self.file()?;
            margin_io::write_atomically(&path, |w| w.write_all(&bytes))
        })
        .map_err(to_py)
    }

    /// The feature names its model file carries (`feature_names_in_`), or None.
    #[getter]
    fn feature_names(&self) -> Option<Vec<String>> {
        self.names.clone()
    }

    /// Pickles as the model file's bytes: never the training data, never a refit.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let loads = py.import("margin._native")?.getattr("loads")?;
        let bytes = self.to_bytes(py)?;
        PyTuple::new(py, [loads, PyTuple::new(py, [bytes])?.into_any()])
    }
}

/// Every estimator the package offers: a list of dicts with `class`, `summary`, `role`,
/// `kind`, `methods`, `sample_weight`, `missing_values` (the parameter that lets NaN through,
/// or None), `positive_only`, `one_to_one` (outputs named as the inputs) and `params`, a list of `(name,
/// default, help, kind, allowed, applies)` tuples with Python's names and values.
#[pyfunction]
fn estimators(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for e in registry() {
        let d = PyDict::new(py);
        d.set_item("class", e.class)?;
        d.set_item("summary", e.summary)?;
        d.set_item("role", e.role.name())?;
        d.set_item("kind", e.kind)?;
        d.set_item("methods", e.methods.to_vec())?;
        d.set_item("sample_weight", e.sample_weight)?;
        d.set_item("missing_values", e.missing_values)?;
        d.set_item("positive_only", e.positive_only)?;
        d.set_item("one_to_one", e.one_to_one)?;
        let params = PyList::empty(py);
        for p in e.params() {
            params.append((
                python_name(p.name),
                convert::value(py, &p.value)?,
                p.help,
                p.kind,
                p.allowed,
                p.applies,
            ))?;
        }
        d.set_item("params", params)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Fits estimator `class` with `settings` (`(Python name, text)` pairs, as
/// `margin_core::params::Params::set` reads them) on `x` and, for supervised estimators, `y`.
#[pyfunction]
#[pyo3(signature = (class, settings, x, y=None, sample_weight=None, feature_names=None))]
fn fit<'py>(
    py: Python<'py>,
    class: &str,
    settings: Vec<(String, String)>,
    x: XArg<'py>,
    y: Option<YArg<'py>>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    feature_names: Option<Vec<String>>,
) -> PyResult<Model> {
    let entry = by_class(class).map_err(to_py)?;
    let y = match (&y, entry.role) {
        (None, _) => None,
        (Some(y), registry::Role::Classifier) => Some(Target::Labels(y.labels()?)),
        (Some(y), registry::Role::Regressor) => Some(Target::Values(y.values()?)),
        // Unsupervised estimators ignore y, as scikit-learn's do.
        (Some(_), _) => None,
    };
    let training = Training {
        x: x.features()?,
        y,
        sample_weight: sample_weight.map(|w| w.to_vec()).transpose()?,
        feature_names: feature_names.clone(),
    };
    // Prepared (the data copied into margin's dataset) without the interpreter lock, then
    // fitted so that Ctrl-C stops it (see `interrupt`).
    let job = py
        .detach(|| entry.prepare(&settings, training))
        .map_err(to_py)?;
    let inner = interrupt::run(py, job)?;
    Ok(Model {
        inner,
        entry,
        names: feature_names,
    })
}

/// A model from model-file bytes, with the estimator class it belongs to.
#[pyfunction]
fn loads(data: &[u8]) -> PyResult<Model> {
    let inner = any::load(data).map_err(to_py)?;
    let names = margin_io::feature_names(data).map_err(to_py)?;
    let kind = inner.kind();
    let candidates: Vec<&'static Entry> = registry().iter().filter(|e| e.kind == kind).collect();
    let Some(first) = candidates.first() else {
        return Err(to_py(Error::ModelFile {
            reason: format!("model kind `{kind}` has no Python estimator in this build"),
        }));
    };
    let stored = inner.hyperparams();
    let entry = candidates
        .iter()
        .find(|e| e.describes(&stored))
        .copied()
        .unwrap_or(first);
    Ok(Model {
        inner,
        entry,
        names,
    })
}

/// A model from a model file written by margin (Python, the Rust crates or the `margin`
/// command). Read as the Rust crates read one (`margin_io::read_model_file`): the header is
/// checked first and the body read only up to the length it claims, so `/dev/zero` or a data
/// file is refused after a few bytes instead of being read until memory runs out.
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
    let bytes = py
        .detach(|| margin_io::read_model_file(&path))
        .map_err(to_py)?;
    loads(&bytes)
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(estimators, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_class::<libsvm::SvmOptions>()?;
    m.add_class::<libsvm::SvmModel>()?;
    m.add_function(wrap_pyfunction!(libsvm::svm_train, m)?)?;
    m.add_function(wrap_pyfunction!(libsvm::svm_predict, m)?)?;
    m.add_function(wrap_pyfunction!(libsvm::evaluations, m)?)?;
    m.add_function(wrap_pyfunction!(libsvm::svm_model_from_text, m)?)?;
    m.add_function(wrap_pyfunction!(libsvm::svm_load_model, m)?)?;
    m.add_function(wrap_pyfunction!(libsvm::svm_save_model, m)?)?;
    Ok(())
}
