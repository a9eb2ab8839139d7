"""scikit-learn estimator classes over margin's Rust models.

Every class here is made from one entry of ``margin._native.estimators()``: its name,
its parameters and their defaults come from margin's own parameter descriptors (the ones the
Rust builders, the ``margin`` command and model files use), so nothing is retyped. The classes
subclass scikit-learn's ``BaseEstimator`` and the mixin of their role and validate input with
scikit-learn's own ``validate_data`` (so messages and conversions are scikit-learn's). A
C-contiguous float64 array reaches Rust without a copy; in ``predict`` and the other methods it
skips scikit-learn's validation too, since margin checks the values itself.
"""

import copy
import inspect
import numbers
import types

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    OneToOneFeatureMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    check_non_negative,
    validate_data,
)

from . import _native

_MIXINS = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "outlier": OutlierMixin,
    "clusterer": ClusterMixin,
    "transformer": TransformerMixin,
}


# Classifiers scikit-learn tags as scoring poorly on its checks' blobs; margin's give the same
# predictions as scikit-learn's (the parity tests show it), so they carry the same tag.
_POOR_SCORE = {"MultinomialNB", "BernoulliNB"}


def _text(value):
    """A parameter value as the text margin's parameter parser reads."""
    if value is None:
        return "none"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ",".join(f"{_text(k)}:{_text(w)}" for k, w in value.items())
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_text(v) for v in value)
    return str(value)


def _seed(random_state):
    """scikit-learn's random_state as margin's seed: an int is the seed; None draws one from
    numpy's global generator and a RandomState draws one from itself, as scikit-learn does."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _index_array(a):
    """A CSR index array as _native reads it: int32 or int64 as it is, other types as int64."""
    dtype = a.dtype if a.dtype in (np.int32, np.int64) else np.int64
    return np.ascontiguousarray(a, dtype=dtype)


def _features(X):
    """Validated features as _native reads them: a C-contiguous float64 array (passed on as
    is), or a CSR matrix's arrays (its int32 or int64 indices as they are)."""
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            # Sorted, duplicates summed: margin's CSR form. On a copy, never the caller's matrix.
            X = X.copy()
            X.sum_duplicates()
        return (
            np.ascontiguousarray(X.data, dtype=np.float64),
            _index_array(X.indices),
            _index_array(X.indptr),
            X.shape[1],
        )
    return X


# Every integer of at most this magnitude is exactly a float64 (margin's numeric labels are
# float64); above it, neighbours such as 2**53 and 2**53 + 1 become one number.
_EXACT_IN_F64 = 2**53


def _exact_in_f64(y):
    """Whether every numeric label survives the trip through float64 unchanged: integers of
    magnitude at most 2**53 (so uint64 labels of 2**63 and above, and int64 labels apart by less
    than their spacing in float64, do not), floats of at most double precision (a long double
    label is checked value by value)."""
    if y.size == 0:
        return True
    if y.dtype.kind in "biu":
        # min and max in the labels' own dtype: no wrap-around, no rounding on the way.
        return -_EXACT_IN_F64 <= int(y.min()) and int(y.max()) <= _EXACT_IN_F64
    if y.dtype.itemsize <= 8:
        return True
    with np.errstate(invalid="ignore"):
        return bool(np.all(y.astype(np.float64).astype(y.dtype) == y))


def _labels(y):
    """Class labels as _native reads them: numbers and text go to the model (and its file) as
    they are; for other objects, and for numbers that float64 cannot hold exactly, the caller
    passes their index in ``classes_`` instead (None). Labels thus always come back as the
    caller's own values (``classes_[index]``), never merged or wrapped around."""
    if y.dtype.kind in "biuf":
        if not _exact_in_f64(y):
            return None
        if y.dtype.kind == "f":
            return np.ascontiguousarray(y, dtype=np.float64)
        return np.ascontiguousarray(y, dtype=np.int64)
    if y.dtype.kind in "US" or all(isinstance(v, str) for v in y):
        return [str(v) for v in y]
    return None


def _fitted_name(name, params):
    """Whether attribute ``name`` belongs to a fit (scikit-learn's trailing underscore, or one
    of margin's private fitted attributes) rather than to the parameters or to scikit-learn's
    own bookkeeping (``_sklearn_output_config``…)."""
    if name in params:
        return False
    return name in ("_model", "_n_features_out") or (
        name.endswith("_") and not name.startswith("__")
    )


def _fitted_attributes(model, entry):
    """A native model's fitted attributes by scikit-learn's names, with ``_model`` itself and,
    for a transformer, its output width (``_n_features_out``, for get_feature_names_out)."""
    fitted = dict(model.attributes())
    fitted["_model"] = model
    if "transform" in entry["methods"]:
        probe = np.zeros((1, model.n_features))
        fitted["_n_features_out"] = model.transform(probe).shape[1]
    return fitted


class MarginEstimator(BaseEstimator):
    """What every margin estimator shares: parameters passed to Rust, fitted attributes read
    back, pickling through the model file (the native model pickles as its file's bytes)."""

    _entry = None

    def __init__(self, **params):
        names = [name for name, *_ in self._entry["params"]]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{unknown[0]}' (its parameters: {', '.join(names)})"
            )
        for name, default, *_ in self._entry["params"]:
            setattr(self, name, params.get(name, default))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_model")

    def _allow_nan(self):
        # Trees take NaN as a missing value when their missing_values parameter says so,
        # boosting when allow_missing does; other models refuse it as bad input.
        switch = self._entry["missing_values"]
        return switch is not None and bool(getattr(self, switch))

    def _settings(self):
        settings = []
        for name, value in self.get_params(deep=False).items():
            if name == "random_state":
                value = _seed(value)
            settings.append((name, _text(value)))
        return settings

    def _validate(self, X, y=None, reset=True):
        finite = "allow-nan" if self._allow_nan() else True
        options = dict(
            accept_sparse=["csr", "csc"],
            dtype=np.float64,
            order="C",
            ensure_all_finite=finite,
            reset=reset,
        )
        role = self._entry["role"]
        if y is None or role not in ("classifier", "regressor"):
            X, y = validate_data(self, X, **options), None
        else:
            X, y = validate_data(self, X, y, y_numeric=role == "regressor", **options)
        if self._entry["positive_only"]:
            check_non_negative(X, f"{type(self).__name__} (input X)")
        return X, y

    def _fit(self, X, y, sample_weight):
        role = self._entry["role"]
        # Validated on a shallow copy: validate_data records n_features_in_ and
        # feature_names_in_ on the estimator it is given, and this one changes only in the one
        # assignment at the end, so that two threads fitting it leave one fit's attributes
        # whole, never one fit's classes_ beside the other's model.
        probe = copy.copy(self)
        X, y = probe._validate(X, y)
        if role in ("classifier", "regressor") and y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        fitted = {"n_features_in_": probe.n_features_in_}
        names = getattr(probe, "feature_names_in_", None)
        if names is not None:
            fitted["feature_names_in_"] = names
        targets = None
        if role == "classifier":
            check_classification_targets(y)
            targets = _labels(y)
            if targets is None:
                classes, encoded = np.unique(y, return_inverse=True)
                targets = np.ascontiguousarray(encoded, dtype=np.int64)
            else:
                # Numbers and text go to Rust as they are: only the classes are needed here
                # (the inverse is an argsort, 6.5 ms of 11 on ijcnn1's 49,990 labels).
                classes = np.unique(y)
            fitted["classes_"] = classes
        elif role == "regressor":
            targets = np.ascontiguousarray(y, dtype=np.float64)
        if sample_weight is not None:
            # scikit-learn's own check, so that a bad weight is named as one ("Input
            # sample_weight contains NaN."), not as a value of X.
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            sample_weight = np.ascontiguousarray(sample_weight)
        model = _native.fit(
            type(self).__name__,
            self._settings(),
            _features(X),
            targets,
            sample_weight,
            None if names is None else [str(n) for n in names],
        )
        fitted.update(_fitted_attributes(model, self._entry))
        self._install(fitted)
        return self

    def _install(self, fitted):
        """Replaces the attributes of any earlier fit with ``fitted``, in one assignment (a
        thread reading the estimator meanwhile sees the old fit or the new one, whole)."""
        params = {name for name, *_ in self._entry["params"]}
        state = {k: v for k, v in vars(self).items() if not _fitted_name(k, params)}
        state.update(fitted)
        self.__dict__ = state

    def _read_attributes(self):
        for name, value in _fitted_attributes(self._model, self._entry).items():
            setattr(self, name, value)

    def _input(self, X):
        check_is_fitted(self)
        dense = (
            isinstance(X, np.ndarray)
            and X.ndim == 2
            and X.dtype == np.float64
            and X.flags.c_contiguous
        )
        csr = sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
        if (dense or csr) and X.shape[0] > 0 and not hasattr(self, "feature_names_in_"):
            # Already what margin reads: passed on as it is, without scikit-learn's validation
            # (tens of microseconds, as much as a small predict; 140 µs on a9a's sparse test
            # rows). margin checks the values itself; the width is checked here, in
            # scikit-learn's words.
            if X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input."
                )
            return _features(X) if csr else X
        X, _ = self._validate(X, reset=False)
        return _features(X)

    def save(self, path):
        """Writes the fitted model to a margin model file (read by ``margin.load``, the Rust
        crates' ``load`` and the ``margin`` command); the file is replaced whole or not at all."""
        check_is_fitted(self)
        self._model.save(str(path))


def _tags(cls):
    """The class's ``__sklearn_tags__``: the mixins' tags (so it is defined on the class itself,
    first in the method order), then what margin's models accept."""

    def __sklearn_tags__(self):
        tags = super(cls, self).__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = self._allow_nan()
        tags.input_tags.positive_only = self._entry["positive_only"]
        if cls.__name__ in _POOR_SCORE:
            tags.classifier_tags.poor_score = True
        return tags

    return __sklearn_tags__


def _fit_weighted(self, X, y=None, sample_weight=None):
    """Fits the model on ``X`` (and ``y``), each sample weighted by ``sample_weight``."""
    return self._fit(X, y, sample_weight)


def _fit_unweighted(self, X, y=None):
    """Fits the model on ``X`` (and ``y``)."""
    return self._fit(X, y, None)


def _predict(self, X):
    """Predicts each row of ``X``."""
    x = self._input(X)
    what, out = self._model.predict(x)
    if what == "classes":
        return self.classes_[out]
    return out


def _ovr_from_ovo(decision, n_classes):
    """scikit-learn's one-vs-rest shape of one-vs-one SVM decision values (its default
    ``decision_function_shape="ovr"``): each class's votes, plus its summed confidences squashed
    into (-1/3, 1/3) so that they only break ties between equal votes."""
    votes = np.zeros((decision.shape[0], n_classes))
    confidence = np.zeros_like(votes)
    k = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            # Column k is positive where the pair (i, j) votes for class i.
            confidence[:, i] += decision[:, k]
            confidence[:, j] -= decision[:, k]
            votes[:, i] += decision[:, k] > 0
            votes[:, j] += decision[:, k] <= 0
            k += 1
    return votes + confidence / (3 * (np.abs(confidence) + 1))


def _decision_function(self, X):
    """Decision values: a vector for two classes, else one column per class (a one-vs-one SVM's
    pairwise values in scikit-learn's default one-vs-rest shape)."""
    x = self._input(X)
    values = self._model.decision_function(x)
    if values.shape[1] == 1:
        return values.ravel()
    if getattr(self, "multiclass", None) == "ovo":
        return _ovr_from_ovo(values, len(self.classes_))
    return values


def _predict_proba(self, X):
    """Each class's probability, columns in ``classes_`` order."""
    x = self._input(X)
    return self._model.predict_proba(x)


def _predict_log_proba(self, X):
    """The log of ``predict_proba``."""
    with np.errstate(divide="ignore"):
        return np.log(self.predict_proba(X))


def _transform(self, X):
    """The rows of ``X`` in the fitted model's output space."""
    x = self._input(X)
    return self._model.transform(x)


def _score_samples(self, X):
    """Scores whose ordering ranks inliers above outliers (``decision_function + offset_``)."""
    return self.decision_function(X) + self.offset_


def _has_proba(self):
    # SVMs estimate probabilities only when fitted with probability=True, as scikit-learn's.
    return getattr(self, "probability", True)


def _named(function, name, owner):
    """A copy of ``function`` that carries its method's name: a bound method pickles as
    ``getattr(estimator, name)``, which Dask and Spark do when they ship ``model.predict``."""
    copy = types.FunctionType(
        function.__code__, function.__globals__, name, function.__defaults__, function.__closure__
    )
    copy.__doc__ = function.__doc__
    copy.__qualname__ = f"{owner}.{name}"
    copy.__module__ = "margin"
    return copy


def _init_signature(entry):
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for name, default, *_ in entry["params"]:
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        )
    return inspect.Signature(parameters)


def _docstring(entry):
    lines = [entry["summary"], "", "Parameters", "----------"]
    for name, default, help_text, kind, allowed, applies in entry["params"]:
        lines.append(f"{name} : {kind}, default={default!r}")
        detail = help_text + (f"; {allowed}" if allowed else "") + (f"; used {applies}" if applies else "")
        lines.append(f"    {detail[0].upper() + detail[1:]}.")
    lines += ["", f"Fitted models are margin model files of kind ``{entry['kind']}``."]
    return "\n".join(lines)


def _python_params(entry):
    """The entry's parameters with scikit-learn's ``random_state``: margin's seed defaults to 0,
    scikit-learn's ``random_state`` to None (a fresh seed each fit)."""
    params = []
    for name, default, help_text, kind, allowed, applies in entry["params"]:
        if name == "random_state":
            default, kind = None, "int, RandomState instance or None"
            help_text = (
                "seed of the random choices (None: drawn from numpy's global generator at each "
                "fit; a RandomState: drawn from it)"
            )
        params.append((name, default, help_text, kind, allowed, applies))
    return dict(entry, params=params)


def make_class(entry):
    """The scikit-learn class for one registry entry."""
    entry = _python_params(entry)
    methods = entry["methods"]
    methods_by_name = {"fit": _fit_weighted if entry["sample_weight"] else _fit_unweighted}
    if {"classes", "values", "clusters", "outliers"} & set(methods):
        methods_by_name["predict"] = _predict
    if "decision" in methods:
        methods_by_name["decision_function"] = _decision_function
    if "proba" in methods:
        methods_by_name["predict_proba"] = _predict_proba
        methods_by_name["predict_log_proba"] = _predict_log_proba
    if "transform" in methods:
        methods_by_name["transform"] = _transform
    if entry["role"] == "outlier":
        methods_by_name["score_samples"] = _score_samples
    namespace = {"__module__": "margin", "__doc__": _docstring(entry), "_entry": entry}
    for name, function in methods_by_name.items():
        method = _named(function, name, entry["class"])
        if name in ("predict_proba", "predict_log_proba"):
            method = available_if(_has_proba)(method)
        namespace[name] = method

    init = lambda self, **params: MarginEstimator.__init__(self, **params)  # noqa: E731
    init.__signature__ = _init_signature(entry)
    init.__doc__ = "Sets the parameters (keyword-only; see the class docstring)."
    namespace["__init__"] = init
    bases = [_MIXINS[entry["role"]]]
    if "transform" in methods and entry["role"] != "transformer":
        bases.insert(0, TransformerMixin)  # k-means transforms to distances, as scikit-learn's
    if "transform" in methods:
        # Output feature names: the inputs' for the scalers, `pca0, pca1, …` for the others.
        names = OneToOneFeatureMixin if entry["one_to_one"] else ClassNamePrefixFeaturesOutMixin
        bases.insert(0, names)
    cls = type(entry["class"], (*bases, MarginEstimator), namespace)
    cls.__qualname__ = entry["class"]
    cls.__sklearn_tags__ = _tags(cls)
    return cls
