"""Model files: margin's own format, shared by Python, the Rust crates and the ``margin``
command."""

import os

from . import _native


def _estimator(model):
    """The estimator a native model belongs to, with the parameters it was fitted with and its
    fitted attributes."""
    import margin

    cls = getattr(margin, model.estimator)
    estimator = cls(**model.params())
    estimator._model = model
    estimator.n_features_in_ = model.n_features
    import numpy as np

    if model.feature_names is not None:
        estimator.feature_names_in_ = np.asarray(model.feature_names, dtype=object)
    classes = model.classes()
    if classes:
        estimator.classes_ = np.asarray(classes)
    estimator._read_attributes()
    return estimator


def load(path):
    """Reads a margin model file as the estimator it holds (``margin.SVC``, …), fitted.

    The file may come from ``estimator.save(path)``, from the Rust crates' ``save`` or from the
    ``margin`` command. A damaged, truncated or foreign file is refused with ``ValueError``.
    """
    return _estimator(_native.load(os.fspath(path)))
