"""LIBSVM's Python interface, on margin: ``from margin.svmutil import *`` in place of
``from libsvm.svmutil import *``.

The functions take what LIBSVM's take and give what LIBSVM's give:

- ``svm_train(y, x, options="")`` returns a model, or with ``-v n`` the cross-validation
  accuracy (classification) or mean squared error (regression);
- ``svm_predict(y, x, model, options="")`` returns ``(p_labels, (ACC, MSE, SCC), p_vals)``;
- ``svm_save_model(path, model)`` and ``svm_load_model(path)`` write and read LIBSVM's text
  model files, so a model moves between this module, LIBSVM's tools and ``margin svm-train``;
- ``evaluations(ty, pv)`` gives ``(ACC, MSE, SCC)``.

``x`` is a list of rows (each a ``{index: value}`` dict with LIBSVM's 1-based indices, or a
list of values), a 2-D numpy array or a scipy.sparse matrix; numpy and scipy column ``j`` is
feature index ``j + 1``, as in LIBSVM's interface (for ``-t 4``, column 0 is the serial number).
``sklearn.datasets.load_svmlight_file`` reads LIBSVM data files as ``(X, y)``.

Training is the code behind ``margin svm-train`` (LIBSVM 3.37's options, checks, messages,
models and cross-validation folds); it prints what svm-train prints unless ``-q``, and
LIBSVM's warnings become ``RuntimeWarning``. Models pickle as their LIBSVM text. Differences
from LIBSVM's module: options LIBSVM would read as 0 (``-c abc``) are refused with a
``ValueError``; ν-SVC's decision values have one column per pair of classes (LIBSVM's module
returns only the first); ``svm_problem``/``svm_parameter`` objects are not taken.

>>> from margin.svmutil import svm_train, svm_predict
>>> y, x = [1, 1, -1, -1], [{1: 1.0}, {1: 0.9}, {1: -1.0}, {1: -0.8}]
>>> m = svm_train(y, x, "-c 10 -q")
>>> p_labels, (acc, mse, scc), p_vals = svm_predict(y, x, m, "-q")
>>> p_labels, acc
([1.0, 1.0, -1.0, -1.0], 100.0)
"""

import operator
import sys
import warnings

import numpy as np
import scipy.sparse as sp

from . import _native

__all__ = [
    "svm_train",
    "svm_predict",
    "svm_save_model",
    "svm_load_model",
    "evaluations",
    "SvmModel",
]

SvmModel = _native.SvmModel


def _words(options):
    if options is None:
        return []
    if isinstance(options, str):
        return options.split()
    if isinstance(options, (list, tuple)):
        return [str(w) for w in options]
    raise TypeError("options should be a str or a list of str")


def _labels(y):
    if not isinstance(y, (list, tuple, np.ndarray)):
        raise TypeError(f"type of y: {type(y)} is not supported!")
    return np.ascontiguousarray(y, dtype=np.float64).reshape(-1)


def _training_labels(y):
    """Labels to train on, refused when one is NaN or infinite, as ``margin svm-train`` refuses
    such a label in a data file. LIBSVM's module trains on it: a classifier casts it to int, so
    NaN becomes a class -2147483648 of its own, and a regressor's objective turns NaN."""
    labels = _labels(y)
    bad = np.flatnonzero(~np.isfinite(labels))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"label {labels[i]!r} of instance {i} is not finite: NaN and infinities are refused"
        )
    return labels


def _index(j, row):
    """A ``{index: value}`` key as a feature index: an integer (Python's, numpy's or a bool, as
    LIBSVM's module takes), never a number rounded down. LIBSVM's module refuses ``1.7`` with
    a ``TypeError``; so does this one, naming the instance."""
    try:
        return operator.index(j)
    except TypeError:
        raise TypeError(
            f"feature index {j!r} of instance {row} is not an integer"
        ) from None


def _csr(x, precomputed):
    """``x`` as a CSR matrix's parts in LIBSVM's indexing (column ``j`` is index ``j``) and its
    width: the largest index + 1, or for a scipy matrix its column count + 1 (LIBSVM's
    interface then takes γ's default from the column count, not the largest index). Zeros are
    left out of numpy arrays and lists, as LIBSVM's interface leaves them out."""
    shift = 0 if precomputed else 1
    if sp.issparse(x):
        csr = sp.csr_matrix(x, dtype=np.float64)
        if not csr.has_sorted_indices:
            # On a copy: the caller's matrix may share these arrays.
            csr = csr.sorted_indices()
        width = csr.shape[1] + shift
    elif isinstance(x, np.ndarray):
        if x.ndim != 2:
            raise ValueError(f"x should be a 2-D array, found {x.ndim} dimension(s)")
        csr = sp.csr_matrix(np.asarray(x, dtype=np.float64))
        # A precomputed kernel's rows are read by position: the width is the array's.
        width = x.shape[1] if precomputed else None
    elif isinstance(x, (list, tuple)):
        return _rows(x, shift)
    else:
        raise TypeError(f"type of x: {type(x)} is not supported!")
    indices = csr.indices.astype(np.int64) + shift
    if width is None:
        width = int(indices.max()) + 1 if indices.size else shift
    return (
        np.ascontiguousarray(csr.data, dtype=np.float64),
        indices,
        csr.indptr.astype(np.int64),
        width,
    )


def _rows(rows, shift):
    """A list of rows (dicts of LIBSVM indices, or sequences of values) as CSR parts."""
    data, indices, indptr = [], [], [0]
    width = shift
    for i, row in enumerate(rows):
        if isinstance(row, dict):
            items = sorted((_index(j, i), float(v)) for j, v in row.items())
        else:
            items = [(j + shift, float(v)) for j, v in enumerate(row)]
            if shift == 0:
                # A precomputed kernel's row is read by position.
                width = max(width, len(items))
        for j, v in items:
            if j < 0:
                raise ValueError(f"feature index {j} is negative")
            if v != 0.0:
                indices.append(j)
                data.append(v)
        indptr.append(len(indices))
    width = max(width, max(indices) + 1 if indices else 0)
    return (
        np.asarray(data, dtype=np.float64),
        np.asarray(indices, dtype=np.int64),
        np.asarray(indptr, dtype=np.int64),
        width,
    )


def _warn(lines):
    for line in lines:
        warnings.warn(line.strip(), RuntimeWarning, stacklevel=3)


def svm_train(y, x, options=""):
    """svm_train(y, x [, options]) -> model | ACC | MSE

    Trains an SVM on labels ``y`` and instances ``x`` with svm-train's ``options``
    (``"-s 0 -t 2 -c 1 -g 0.5 -b 1 -v 5 -q"``…; see ``margin svm-train --help``). With ``-v n``
    returns the n-fold cross-validation accuracy in percent (classification) or mean squared
    error (regression), as LIBSVM's does.
    """
    opts = _native.SvmOptions(_words(options))
    labels = _training_labels(y)
    parts = _csr(x, opts.precomputed)
    if len(labels) != len(parts[2]) - 1:
        raise ValueError("len(y) != len(x)")
    model, predicted, printed, warned = _native.svm_train(opts, labels, parts)
    sys.stdout.write(printed)
    _warn(warned)
    if predicted is None:
        return model
    acc, mse, scc = _native.evaluations(labels, predicted)
    if opts.regression:
        print("Cross Validation Mean squared error = %g" % mse)
        print("Cross Validation Squared correlation coefficient = %g" % scc)
        return mse
    print("Cross Validation Accuracy = %g%%" % acc)
    return acc


def svm_predict(y, x, m, options=""):
    """svm_predict(y, x, m [, options]) -> (p_labels, p_acc, p_vals)

    Predicts instances ``x`` with model ``m``. ``y`` holds the true labels for the accuracy
    (``[]`` if unknown). Options: ``-b 1`` for probability estimates, ``-q`` for quiet.

    Returns the predicted labels (a list of floats), ``(ACC, MSE, SCC)`` and, for each instance,
    its decision values (one per pair of classes, in ``m.get_labels()`` order; one for a
    regressor or one-class SVM) or with ``-b 1`` its probability estimates (one per class).
    """
    probability, quiet = False, False
    words = _words(options)
    i = 0
    while i < len(words):
        if words[i] == "-b" and i + 1 < len(words) and words[i + 1] in ("0", "1"):
            probability = words[i + 1] == "1"
            i += 2
        elif words[i] == "-q":
            quiet = True
            i += 1
        else:
            raise ValueError(f"Wrong options: {' '.join(words[i:])} (svm_predict takes -b 0|1 and -q)")
    info = (lambda *_: None) if quiet else print
    truth = _labels(y)
    parts = _csr(x, m.precomputed)
    n = len(parts[2]) - 1
    if truth.size == 0:
        truth = np.zeros(n)
    elif truth.size != n:
        raise ValueError("len(y) != len(x)")
    if probability and not m.is_probability_model():
        raise ValueError("Model does not support probability estimates: train it with -b 1")
    regression = m.get_svm_type() in (3, 4)
    if probability and regression:
        info(
            "Prob. model for test data: target value = predicted value + z,\n"
            "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g" % m.get_svr_probability()
        )
    elif not probability and m.is_probability_model():
        info("Model supports probability estimates, but disabled in prediction.")
    labels, values = _native.svm_predict(m, parts, probability)
    if not probability and m.get_nr_class() == 1:
        # No decision function: LIBSVM's interface gives [1] for each instance.
        values = np.ones((n, 1))
    acc, mse, scc = _native.evaluations(truth, labels)
    if regression:
        info("Mean squared error = %g (regression)" % mse)
        info("Squared correlation coefficient = %g (regression)" % scc)
    else:
        correct = int(round(n * acc / 100))
        info("Accuracy = %g%% (%d/%d) (classification)" % (acc, correct, n))
    return labels.tolist(), (acc, mse, scc), values.tolist()


def svm_save_model(model_file_name, model):
    """svm_save_model(model_file_name, model) -> None

    Writes ``model`` as LIBSVM's text model file (whole or not at all)."""
    _native.svm_save_model(model_file_name, model)


def svm_load_model(model_file_name):
    """svm_load_model(model_file_name) -> model

    Reads a LIBSVM model file (from LIBSVM, ``margin svm-train`` or ``svm_save_model``); a file
    that is not one raises ``ValueError`` naming the line at fault."""
    return _native.svm_load_model(model_file_name)


def evaluations(ty, pv):
    """evaluations(ty, pv) -> (ACC, MSE, SCC)

    LIBSVM's accuracy (percent), mean squared error and squared correlation coefficient of the
    predictions ``pv`` against the true values ``ty``."""
    return _native.evaluations(_labels(ty), _labels(pv))
