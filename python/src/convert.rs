//! Data across the boundary: numpy and scipy arrays in as margin records and targets (a
//! C-contiguous float64 array is borrowed, not copied), margin's answers out as numpy arrays,
//! parameter values and errors as Python objects.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use margin_core::params::Value;
use margin_core::{CsrMatrix, DenseMatrix, DenseView, Error, Label, Matrix, Records};

use margin_any::{Attr, Attrs};

/// Features as Python hands them over: a 2-D float64 array, or a CSR matrix's three arrays
/// and its width (`(data, indices, indptr, n_columns)`, the indices as scipy keeps them).
#[derive(FromPyObject)]
pub enum XArg<'py> {
    /// A dense array.
    Dense(PyReadonlyArray2<'py, f64>),
    /// A CSR matrix's parts.
    Sparse(
        (
            PyReadonlyArray1<'py, f64>,
            Indices<'py>,
            Indices<'py>,
            usize,
        ),
    ),
}

/// A CSR matrix's column indices or row offsets: int32 (scipy's choice below 2³¹ entries) or
/// int64, read as they are.
#[derive(FromPyObject)]
pub enum Indices<'py> {
    /// 32-bit.
    I32(PyReadonlyArray1<'py, i32>),
    /// 64-bit.
    I64(PyReadonlyArray1<'py, i64>),
}

impl Indices<'_> {
    /// Column indices as margin stores them, refused when one is negative or above
    /// `u32::MAX`. Each conversion checks its range first, with an OR of every value (one
    /// branch-free pass, which shows any bit set outside the range), then casts: collecting
    /// checked conversions cost a fifth of a sparse prediction.
    fn columns(&self) -> PyResult<Vec<u32>> {
        let fits = match self {
            Indices::I32(a) => a.as_slice()?.iter().fold(0, |or, &v| or | v) >= 0,
            Indices::I64(a) => a.as_slice()?.iter().fold(0, |or, &v| or | v as u64) >> 32 == 0,
        };
        if !fits {
            return Err(PyValueError::new_err(
                "a sparse column index is negative or above 4294967295, the largest margin stores",
            ));
        }
        Ok(match self {
            Indices::I32(a) => a.as_slice()?.iter().map(|&v| v as u32).collect(),
            Indices::I64(a) => a.as_slice()?.iter().map(|&v| v as u32).collect(),
        })
    }

    /// Row offsets, refused when one is negative (checked as [`columns`](Self::columns) are).
    fn offsets(&self) -> PyResult<Vec<usize>> {
        let fits = match self {
            Indices::I32(a) => a.as_slice()?.iter().fold(0, |or, &v| or | v) >= 0,
            Indices::I64(a) => a.as_slice()?.iter().fold(0, |or, &v| or | v) >= 0,
        };
        if !fits {
            return Err(PyValueError::new_err("a sparse row offset is negative"));
        }
        Ok(match self {
            Indices::I32(a) => a.as_slice()?.iter().map(|&v| v as usize).collect(),
            Indices::I64(a) => a.as_slice()?.iter().map(|&v| v as usize).collect(),
        })
    }
}

/// Features as margin reads them: the caller's dense memory borrowed, or a CSR matrix.
pub enum Features<'a> {
    /// Borrowed row-major values.
    Dense(DenseView<'a>),
    /// Sparse rows (margin's CSR holds `usize` offsets and `u32` indices, so it is converted).
    Sparse(CsrMatrix),
}

impl XArg<'_> {
    /// The features, borrowing a dense array's memory.
    pub fn features(&self) -> PyResult<Features<'_>> {
        match self {
            XArg::Dense(a) => {
                let shape = a.shape();
                let slice = a.as_slice().map_err(|_| {
                    PyValueError::new_err(
                        "margin reads C-contiguous float64 arrays: pass np.ascontiguousarray(X, dtype=np.float64)",
                    )
                })?;
                Ok(Features::Dense(
                    DenseView::new(slice, shape[0], shape[1]).map_err(to_py)?,
                ))
            }
            XArg::Sparse((data, indices, indptr, n_cols)) => {
                let indices = indices.columns()?;
                let indptr = indptr.offsets()?;
                let csr = CsrMatrix::new(indptr, indices, data.as_slice()?.to_vec(), *n_cols)
                    .map_err(to_py)?;
                Ok(Features::Sparse(csr))
            }
        }
    }
}

impl Features<'_> {
    /// The records, as every model reads them.
    pub fn records(&self) -> &dyn Records {
        match self {
            Features::Dense(v) => v,
            Features::Sparse(s) => s,
        }
    }

    /// The records owned (a dataset owns its records: the one copy of a fit).
    pub fn into_matrix(self) -> margin_core::Result<Matrix> {
        Ok(match self {
            Features::Dense(v) => Matrix::Dense(v.to_owned()?),
            Features::Sparse(s) => Matrix::Sparse(s),
        })
    }
}

/// Targets as Python hands them over: class labels (integers, numbers or text) or, for a
/// regressor, numbers.
#[derive(FromPyObject)]
pub enum YArg<'py> {
    /// Integer labels.
    Integers(PyReadonlyArray1<'py, i64>),
    /// Numbers: regression targets, or numeric class labels.
    Floats(PyReadonlyArray1<'py, f64>),
    /// Text labels.
    Texts(Vec<String>),
}

impl YArg<'_> {
    /// The values as class labels.
    pub fn labels(&self) -> PyResult<Vec<Label>> {
        Ok(match self {
            YArg::Integers(a) => a.as_slice()?.iter().map(|&i| Label::from(i)).collect(),
            YArg::Floats(a) => a.as_slice()?.iter().map(|&x| Label::Number(x)).collect(),
            YArg::Texts(t) => t.iter().map(|s| Label::Text(s.clone())).collect(),
        })
    }

    /// The values as regression targets.
    pub fn values(&self) -> PyResult<Vec<f64>> {
        match self {
            YArg::Integers(a) => Ok(a.as_slice()?.iter().map(|&i| i as f64).collect()),
            YArg::Floats(a) => Ok(a.as_slice()?.to_vec()),
            YArg::Texts(_) => Err(PyValueError::new_err(
                "a regressor's targets are numbers, not text",
            )),
        }
    }
}

/// A margin error as the Python exception scikit-learn's users expect: `MemoryError` for an
/// allocation refused, `OSError` for a file, `ValueError` for everything about the data or the
/// parameters; the message is margin's own.
pub fn to_py(e: Error) -> PyErr {
    match e.root() {
        Error::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
        Error::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A margin error from a fitted model reading new rows (predict, transform…), as [`to_py`]
/// gives it, except that a non-finite value is named as scikit-learn names it, in the input
/// `X`: margin's own message for it speaks of fitting, which this is not.
pub fn to_py_on_input(e: Error) -> PyErr {
    match e.root() {
        Error::NonFinite { row, col } => PyValueError::new_err(format!(
            "Input X contains NaN or infinity (row {row}, column {col}): remove or impute it before predicting or transforming"
        )),
        _ => to_py(e),
    }
}

/// A matrix as a 2-D float64 array (its buffer moved, not copied).
pub fn matrix<'py>(py: Python<'py>, m: DenseMatrix) -> PyResult<Bound<'py, PyAny>> {
    let (rows, cols) = (m.nrows(), m.ncols());
    Ok(PyArray1::from_vec(py, m.into_vec())
        .reshape([rows, cols])?
        .into_any())
}

/// A label as the Python value it came from: an integral number as `int`, other numbers as
/// `float`, text as `str`.
pub fn label<'py>(py: Python<'py>, l: &Label) -> PyResult<Bound<'py, PyAny>> {
    Ok(match l {
        Label::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => {
            (*x as i64).into_pyobject(py)?.into_any()
        }
        Label::Number(x) => x.into_pyobject(py)?.into_any(),
        Label::Text(s) => s.into_pyobject(py)?.into_any(),
    })
}

/// A parameter value as Python's: `None`, `bool`, `int`, `float` or `str`.
pub fn value<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::None => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
        Value::Text(s) => s.into_pyobject(py)?.into_any(),
    })
}

/// Fitted attributes as a dict of numpy arrays and numbers.
pub fn attributes<'py>(py: Python<'py>, attrs: Attrs) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, attr) in attrs {
        let v = match attr {
            Attr::Matrix(m) => matrix(py, m)?,
            Attr::Floats(v) => PyArray1::from_vec(py, v).into_any(),
            Attr::Integers(v) => PyArray1::from_vec(py, v).into_any(),
            Attr::Float(x) => x.into_pyobject(py)?.into_any(),
            Attr::Integer(i) => i.into_pyobject(py)?.into_any(),
        };
        dict.set_item(name, v)?;
    }
    Ok(dict)
}
