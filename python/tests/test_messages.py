"""Refusals name what is wrong: a bad sample weight as a weight (not as a value of X), a bad
value in the rows given to a fitted model as input to predict (not as something to fix "before
fitting"), and a parameter that sizes a buffer too large as that parameter (not as the data's
width)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

import margin
from margin import _native

WEIGHTED = sorted(
    e["class"] for e in _native.estimators() if e["sample_weight"] and e["role"] == "classifier"
)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("name", WEIGHTED)
@pytest.mark.parametrize(
    "bad,message",
    [(np.nan, "Input sample_weight contains NaN"), (np.inf, "Input sample_weight contains infinity")],
)
def test_a_non_finite_sample_weight_is_named_as_a_weight(iris, name, bad, message):
    X, y = iris
    w = np.ones(len(y))
    w[3] = bad
    with pytest.raises(ValueError, match=message) as refused:
        getattr(margin, name)().fit(X, y, sample_weight=w)
    assert "row" not in str(refused.value) and "column" not in str(refused.value)


def test_a_sample_weight_of_the_wrong_length_is_named(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\), expected \(150,\)"):
        margin.SVC().fit(X, y, sample_weight=np.ones(3))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_a_non_finite_input_to_a_fitted_model_is_named_as_input(iris, bad, layout):
    """Float64 rows skip scikit-learn's validation (margin checks them): the refusal must say
    where the bad value is in X, not speak of fitting an estimator that is fitted."""
    X, y = iris
    model = margin.SVC(probability=True, random_state=0).fit(X, y)
    scaler = margin.StandardScaler().fit(X)
    rows = X.copy()
    rows[2, 1] = bad
    rows = sp.csr_matrix(rows) if layout == "csr" else rows
    calls = [model.predict, model.decision_function, model.predict_proba, scaler.transform]
    for call in calls:
        with pytest.raises(ValueError, match=r"Input X contains NaN or infinity \(row 2, column 1\)") as e:
            call(rows)
        assert "before fitting" not in str(e.value)


def test_rbf_sampler_with_too_many_components_names_n_components(iris):
    X, _ = iris
    with pytest.raises(MemoryError, match=r"n_components = 10000000000 by 4 features") as refused:
        margin.RBFSampler(n_components=10**10).fit(X)
    assert "feature index" not in str(refused.value)
    # A float is no component count: refused by name, as scikit-learn refuses it.
    with pytest.raises(ValueError, match="`n_components` = 10000000000.0"):
        margin.RBFSampler(n_components=1e10).fit(X)
