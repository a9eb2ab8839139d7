"""margin: classic machine learning in Rust, with scikit-learn's API.

Every estimator is a scikit-learn estimator (``BaseEstimator`` and the mixin of its role): it
works in ``Pipeline``, ``GridSearchCV``, ``cross_val_score`` and ``clone``, pickles (as its
margin model file, never its training data) and ships to Dask or Spark workers. Class names,
parameter names and defaults are scikit-learn's; SVMs give LIBSVM's answers.

>>> from margin import SVC
>>> from sklearn.datasets import load_iris
>>> X, y = load_iris(return_X_y=True)
>>> clf = SVC(C=10.0).fit(X, y)
>>> float((clf.predict(X) == y).mean()) > 0.95
True

Labels come back as given (``classes_`` and ``predict`` in the caller's own values and dtype,
integers beyond float64's 2**53 included), Ctrl-C stops a fit with ``KeyboardInterrupt`` (the
estimator keeps what it had), and a fit replaces an estimator's fitted attributes in one step,
so threads sharing an estimator see one fit whole.

``margin.load(path)`` reads a model file written by ``estimator.save(path)``, by the Rust
crates (``model.save(path)``) or by the ``margin`` command, as the matching estimator.

``margin.svmutil`` is LIBSVM's own Python interface (``svm_train``, ``svm_predict``,
``svm_save_model``, ``svm_load_model``) with LIBSVM's options, models and files.
"""

from . import _native
from ._estimators import MarginEstimator, make_class
from ._io import load

__all__ = ["MarginEstimator", "load"]

for _entry in _native.estimators():
    _cls = make_class(_entry)
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
del _entry, _cls
