"""Class labels come back exactly as the caller gave them, in the caller's dtype, for every
classifier the package offers: numbers float64 cannot hold (uint64 labels of 2**63 and above,
int64 labels above 2**53 one apart) included. margin's numeric labels
are float64; labels that would not survive the trip cross as their index in ``classes_``, as
object labels do. scikit-learn is the reference: same data, same predictions."""

import numpy as np
import pytest
import sklearn.ensemble
import sklearn.linear_model
import sklearn.naive_bayes
import sklearn.neighbors
import sklearn.svm
import sklearn.tree

import margin
from margin import _native

CLASSIFIERS = sorted(e["class"] for e in _native.estimators() if e["role"] == "classifier")

# scikit-learn's estimator of the same name and defaults (KernelPerceptron has none).
SKLEARN = {
    "SVC": sklearn.svm.SVC,
    "NuSVC": sklearn.svm.NuSVC,
    "LinearSVC": sklearn.svm.LinearSVC,
    "LogisticRegression": sklearn.linear_model.LogisticRegression,
    "Perceptron": sklearn.linear_model.Perceptron,
    "GaussianNB": sklearn.naive_bayes.GaussianNB,
    "MultinomialNB": sklearn.naive_bayes.MultinomialNB,
    "BernoulliNB": sklearn.naive_bayes.BernoulliNB,
    "KNeighborsClassifier": sklearn.neighbors.KNeighborsClassifier,
    "DecisionTreeClassifier": sklearn.tree.DecisionTreeClassifier,
    "RandomForestClassifier": sklearn.ensemble.RandomForestClassifier,
    "AdaBoostClassifier": sklearn.ensemble.AdaBoostClassifier,
    "HistGradientBoostingClassifier": sklearn.ensemble.HistGradientBoostingClassifier,
}

# Label sets float64 cannot all hold: each is three distinct classes, in increasing order.
LABELS = {
    # uint64 at and above 2**63: cast to int64 they wrapped to negative numbers, so the model's
    # class order was not np.unique's and every prediction named another class.
    "uint64 >= 2**63": np.array([2**63, 2**63 + 1, 2**64 - 1], dtype=np.uint64),
    # int64 one apart above 2**53: as float64 the first two were one class.
    "int64 2**53 + 1, 2": np.array([2**53 + 1, 2**53 + 2, 2**53 + 3], dtype=np.int64),
    "int64 near 2**62": np.array([2**62, 2**62 + 1, 2**62 + 2], dtype=np.int64),
    # Small and huge together, of either sign.
    "int64 mixed": np.array([-(2**60) - 1, -7, 2**60 + 1], dtype=np.int64),
    "uint64 mixed": np.array([3, 2**53 + 1, 2**63 + 5], dtype=np.uint64),
}
# (Object arrays of ints are no classification target for scikit-learn: type_of_target calls
# them "unknown" and every classifier, margin's included, refuses them.)


def data(n_per_class=20, seed=0):
    """Three classes anyone separates: each class lights its own feature (between 1 and 2) and
    leaves the others at 0, so binarized (BernoulliNB), counted (MultinomialNB), linear or by
    trees the training accuracy is 1."""
    rng = np.random.default_rng(seed)
    k = np.repeat(np.arange(3), n_per_class)
    X = np.zeros((k.size, 3))
    X[np.arange(k.size), k] = 1.0 + rng.random(k.size)
    order = rng.permutation(k.size)
    return np.ascontiguousarray(X[order]), k[order]


def seeded(cls, name):
    params = cls().get_params()
    return cls(random_state=0) if "random_state" in params else cls()


@pytest.mark.parametrize("labels", list(LABELS), ids=list(LABELS))
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_labels_round_trip_exactly_for_every_classifier(name, labels):
    X, k = data()
    classes = LABELS[labels]
    y = classes[k]
    model = seeded(getattr(margin, name), name).fit(X, y)
    # classes_ are the caller's values in the caller's dtype, none merged.
    assert model.classes_.dtype == y.dtype
    assert len(model.classes_) == 3
    assert list(model.classes_) == list(classes)
    predicted = model.predict(X)
    assert predicted.dtype == y.dtype
    # Exactly the predictions of the same model fitted on the class indices 0, 1, 2.
    by_index = seeded(getattr(margin, name), name).fit(X, k)
    np.testing.assert_array_equal(predicted, classes[by_index.predict(X)])
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(model.predict_proba(X), by_index.predict_proba(X))
    if hasattr(model, "decision_function"):
        np.testing.assert_array_equal(model.decision_function(X), by_index.decision_function(X))
    # scikit-learn on the same data: the same predictions, so training accuracy 1 where its is.
    if name in SKLEARN:
        reference = seeded(SKLEARN[name], name).fit(X, y)
        expected = reference.predict(X)
        assert list(predicted) == list(expected)
        if np.mean(expected == y) == 1.0:
            assert np.mean(predicted == y) == 1.0


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_two_huge_uint64_classes_predict_as_scikit_learn(name):
    """The issue's case: two uint64 classes above 2**63 (accuracy 0 before, scikit-learn 1)."""
    X, k = data()
    keep = k < 2
    X, k = X[keep], k[keep]
    y = np.array([2**63 + 10, 2**64 - 2], dtype=np.uint64)[k]
    model = seeded(getattr(margin, name), name).fit(X, y)
    assert model.classes_.dtype == np.uint64
    assert np.mean(model.predict(X) == y) == 1.0


def test_exact_labels_still_cross_as_they_are():
    """Labels float64 holds go to the model file as labels (so ``margin.load`` and the
    ``margin`` command see them); only the others cross as indices."""
    X, k = data()
    small = np.array([-(2**53), 5, 2**53], dtype=np.int64)[k]
    model = margin.GaussianNB().fit(X, small)
    assert model._model.classes() == [-(2**53), 5, 2**53]
    huge = np.array([0, 5, 2**53 + 1], dtype=np.int64)[k]
    model = margin.GaussianNB().fit(X, huge)
    assert model._model.classes() == [0, 1, 2]
    np.testing.assert_array_equal(model.predict(X), huge)
