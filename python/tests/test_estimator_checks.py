"""scikit-learn's own estimator checks over every margin estimator.

A check expected to fail is listed in EXPECTED_FAILURES with the reason; the issue's note lists
them too.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import margin

# The checks fit on 10 to 100 samples, where two defaults ask for more than there is, and margin
# refuses rather than fit something else: Nystroem's 100 landmarks (scikit-learn clamps them to
# the samples with a warning), and boosting leaves of at least 20 samples, which no node of fewer
# than 40 samples can split into (scikit-learn fits a constant model).
CHECK_PARAMS = {
    "Nystroem": dict(n_components=10),
    "HistGradientBoostingClassifier": dict(min_samples_leaf=1),
    "HistGradientBoostingRegressor": dict(min_samples_leaf=1),
}
# The sample-weight checks compare a fit with weights to one on repeated rows to 1e-7: the
# iterative solvers are run to a tolerance below that.
CHECK_PARAMS["LinearSVC"] = dict(tol=1e-12)
CHECK_PARAMS["LogisticRegression"] = dict(tol=1e-12, max_iter=10_000)

ESTIMATORS = [
    getattr(margin, name)(**CHECK_PARAMS.get(name, {}))
    for name in margin.__all__
    if isinstance(getattr(margin, name), type) and name != "MarginEstimator"
]

WEIGHTS = ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data")


def _weights(reason):
    """Both sample-weight equivalence checks expected to fail for `reason` (scikit-learn marks
    the same checks on its own SVMs, logistic regression, perceptron, forests and boosting)."""
    return {check: reason for check in WEIGHTS}


SCALE = _weights(
    "gamma='scale' is 1 / (n_features * X.var()) over the rows given: repeating rows changes "
    "that variance, weighting them does not, so the two fits use different kernels"
)
PERCEPTRON = _weights(
    "the perceptron updates once per mistake in a shuffled order: a repeated row is visited "
    "twice, a weighted row once with a larger step, so the runs take different paths"
)
EXPECTED_FAILURES = {
    "SVC": SCALE,
    "SVR": SCALE,
    "NuSVR": SCALE,
    "LogisticRegression": _weights(
        "L-BFGS stops where the objective no longer decreases in floating point, which leaves "
        "the weighted and the repeated fit ~1e-6 apart in the coefficients at any tol"
    ),
    "Perceptron": PERCEPTRON,
    "KernelPerceptron": PERCEPTRON,
    "RandomForestClassifier": _weights("each tree draws a bootstrap sample of row positions"),
    "RandomForestRegressor": _weights("each tree draws a bootstrap sample of row positions"),
    "AdaBoostClassifier": _weights(
        "weighted and repeated fits agree to 1e-15 on make_classification data "
        "(tests/test_parity.py) but differ by up to 0.008 in predict_proba on the check's data; "
        "not yet explained"
    ),
    "HistGradientBoostingClassifier": _weights(
        "bin edges are quantiles of the rows given, which repeated rows move"
    ),
    "HistGradientBoostingRegressor": _weights(
        "bin edges are quantiles of the rows given, which repeated rows move"
    ),
    "LinearRegression": {
        "check_non_transformer_estimators_n_iter": (
            "the default direct solver (QR) makes no iterations, so n_iter_ is 0; max_iter "
            "bounds the iterative solver only (scikit-learn's Ridge is marked the same)"
        )
    },
}


def expected_failures(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_scikit_learn_checks(estimator, check):
    check(estimator)
