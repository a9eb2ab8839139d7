"""Parity of every margin estimator with scikit-learn's estimator of the same name.

Each test fits margin's and scikit-learn's estimator (the installed scikit-learn, whose version
is printed by the ``sklearn_version`` fixture; nothing is asserted about it) with the same
parameters on scikit-learn's bundled datasets (classification: iris, wine, breast_cancer,
digits (every 4th row, to stay fast); regression: diabetes; counts for MultinomialNB: digits)
and compares:

* exactly or to ~1e-9 where the algorithm is the same: the LIBSVM models (SVC, NuSVC, SVR,
  NuSVR, OneClassSVM), the least-squares models, KernelRidge, kNN, naive Bayes, PCA, scalers,
  PolynomialFeatures, tree stumps and k-means' fixed point;
* to a measured tolerance where both run the same objective to a stopping tolerance
  (LinearSVC, LogisticRegression);
* by held-out accuracy / R^2 within a stated tolerance where the algorithms draw different random
  numbers (forests, boosting, perceptron, mini-batch k-means, kernel approximations, deep trees).

Every tolerance sits a small factor above the difference measured on scikit-learn 1.9.1 (printed
with ``pytest -s``); the comment next to it says why the two can differ. Cases where margin and
scikit-learn should agree but do not are ``xfail(strict=True)`` with the numbers.
"""

import functools

import numpy as np
import pytest
import sklearn
from sklearn import (
    cluster,
    datasets,
    decomposition,
    ensemble,
    kernel_approximation,
    kernel_ridge,
    linear_model,
    naive_bayes,
    neighbors,
    preprocessing,
    svm,
    tree,
)
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split

import margin

CLASSIFICATION = ["iris", "wine", "breast_cancer", "digits"]


@pytest.fixture(scope="module", autouse=True)
def sklearn_version():
    print(f"\nscikit-learn {sklearn.__version__}")
    return sklearn.__version__


@functools.lru_cache(maxsize=None)
def load(name, scaled=False):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    if name == "digits":
        X, y = X[::4], y[::4]
    if scaled:
        X = preprocessing.StandardScaler().fit_transform(X)
    X.setflags(write=False)
    return X, y


def split(name, scaled=False):
    X, y = load(name, scaled)
    stratify = None if name == "diabetes" else y
    return train_test_split(X, y, test_size=0.25, random_state=0, stratify=stratify)


def rel(a, b):
    """Largest absolute difference relative to the largest magnitude of the reference."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def absdiff(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b)))


def show(label, **diffs):
    print(f"{label}: " + ", ".join(f"{k}={v:.3g}" for k, v in diffs.items()))


def pair(name, module, **params):
    return getattr(margin, name)(**params), getattr(module, name)(**params)


# --------------------------------------------------------------------------- LIBSVM models
# margin runs LIBSVM's SMO step for step: on standardized features the iteration counts
# (n_iter_) agree and the solutions differ only by floating-point summation order, measured at
# most 1.1e-13 relative; 1e-9 leaves room for other summation orders.
SVM_RTOL = 1e-9
SVC_CASES = [
    ("SVC", dict()),
    ("SVC", dict(kernel="linear")),
    ("SVC", dict(kernel="poly", C=10.0)),
    ("NuSVC", dict()),
    ("NuSVC", dict(nu=0.1)),
]


@pytest.mark.parametrize("dataset", CLASSIFICATION)
@pytest.mark.parametrize(
    "name,params", SVC_CASES, ids=["SVC-rbf", "SVC-linear", "SVC-poly-C10", "NuSVC-nu0.5", "NuSVC-nu0.1"]
)
def test_libsvm_classifier(name, params, dataset, request):
    if name == "NuSVC" and params.get("nu") == 0.1 and dataset == "iris":
        request.applymarker(pytest.mark.xfail(strict=True, reason=NU_START + (
            ": NuSVC(nu=0.1) on standardized iris, decision 2.8e-3 rel, intercept_ 6.9e-2 rel")))
    X, y = load(dataset, scaled=True)
    m, s = pair(name, svm, **params)
    m.fit(X, y), s.fit(X, y)
    np.testing.assert_array_equal(m.predict(X), s.predict(X))
    np.testing.assert_array_equal(m.support_, s.support_)
    np.testing.assert_array_equal(m.n_support_, s.n_support_)
    d = dict(
        decision=rel(m.decision_function(X), s.decision_function(X)),
        dual_coef=rel(m.dual_coef_, s.dual_coef_),
        intercept=rel(m.intercept_, s.intercept_),
    )
    show(f"{name}{params} {dataset}", **d)
    assert max(d.values()) < SVM_RTOL


# scikit-learn's LIBSVM fork starts nu-SVC and one-class SVM from a feasible point built by
# summing nu * C[i] over the samples one at a time (its sample-weight change), while margin
# (as upstream LIBSVM) uses nu * l: 0.1 added 150 times is 14.999999999999963, not 15, so the
# first alphas differ by ~4e-14 and the runs take different paths (n_iter_ 23 vs 25 on iris).
# Reaching the loose default tol=1e-3 from different paths changes some predictions.
NU_START = "sklearn's LIBSVM fork accumulates nu*C[i] for the starting alphas; margin uses nu*l"


@pytest.mark.xfail(strict=True, reason=NU_START + ": OneClassSVM(nu=0.1) on raw iris, decision 6.3e-4 rel, 1+ prediction differs")
def test_one_class_nu_start_iris():
    X, _ = load("iris")
    m, s = pair("OneClassSVM", svm, nu=0.1)
    m.fit(X), s.fit(X)
    show("OneClassSVM nu=0.1 raw iris", decision=rel(m.decision_function(X), s.decision_function(X)))
    np.testing.assert_array_equal(m.predict(X), s.predict(X))


@pytest.mark.xfail(strict=True, reason=NU_START + ": NuSVC(nu=0.1) on raw breast_cancer, decision 0.19 rel, predictions differ")
def test_nusvc_nu_start_breast_cancer():
    X, y = load("breast_cancer")
    m, s = pair("NuSVC", svm, nu=0.1)
    m.fit(X, y), s.fit(X, y)
    show("NuSVC nu=0.1 raw breast_cancer", decision=rel(m.decision_function(X), s.decision_function(X)))
    np.testing.assert_array_equal(m.predict(X), s.predict(X))


@pytest.mark.parametrize("dataset", CLASSIFICATION)
@pytest.mark.parametrize("nu", [0.5, 0.1])
def test_one_class_svm(dataset, nu):
    X, _ = load(dataset, scaled=True)
    m, s = pair("OneClassSVM", svm, nu=nu)
    m.fit(X), s.fit(X)
    np.testing.assert_array_equal(m.predict(X), s.predict(X))
    np.testing.assert_array_equal(m.support_, s.support_)
    d = dict(
        decision=rel(m.decision_function(X), s.decision_function(X)),
        score_samples=rel(m.score_samples(X), s.score_samples(X)),
        dual_coef=rel(m.dual_coef_, s.dual_coef_),
        intercept=rel(m.intercept_, s.intercept_),
        offset=rel(m.offset_, s.offset_),
    )
    show(f"OneClassSVM nu={nu} {dataset}", **d)
    assert max(d.values()) < SVM_RTOL


SVR_CASES = [
    ("SVR", dict(C=100.0, epsilon=10.0)),
    ("SVR", dict(kernel="linear", C=100.0)),
    ("NuSVR", dict(C=100.0)),
]


@pytest.mark.parametrize("name,params", SVR_CASES, ids=[f"{n}-{p.get('kernel', 'rbf')}" for n, p in SVR_CASES])
def test_libsvm_regressor(name, params):
    X, y = load("diabetes")
    m, s = pair(name, svm, **params)
    m.fit(X, y), s.fit(X, y)
    np.testing.assert_array_equal(m.support_, s.support_)
    d = dict(
        predict=rel(m.predict(X), s.predict(X)),
        dual_coef=rel(m.dual_coef_, s.dual_coef_),
        intercept=rel(m.intercept_, s.intercept_),
    )
    show(f"{name}{params}", **d)
    assert max(d.values()) < SVM_RTOL


# ------------------------------------------------------------------------ linear classifiers
@pytest.mark.parametrize("dataset", CLASSIFICATION)
def test_linear_svc(dataset):
    # The same objective (L2 penalty, squared hinge) by different solvers: margin's dual
    # coordinate descent, scikit-learn's dual="auto" picks LIBLINEAR's primal Newton solver here
    # (more samples than features). They stop at different points within tol; at tol=1e-8 coef_
    # differs by at most 1.1e-6 relative (breast_cancer), hence 5e-6.
    X, y = load(dataset, scaled=True)
    m, s = pair("LinearSVC", svm, tol=1e-8, max_iter=100_000)
    m.fit(X, y), s.fit(X, y)
    np.testing.assert_array_equal(m.predict(X), s.predict(X))
    d = dict(coef=rel(m.coef_, s.coef_), intercept=rel(m.intercept_, s.intercept_))
    show(f"LinearSVC {dataset}", **d)
    assert max(d.values()) < 5e-6


@pytest.mark.parametrize("dataset", CLASSIFICATION)
@pytest.mark.parametrize("C", [1.0, 0.1])
def test_logistic_regression(dataset, C):
    # Same L2-penalized (multinomial) objective, both by L-BFGS but different line searches and
    # stopping rules: at tol=1e-10 coef_ differs by at most 9.4e-7 relative and predict_proba by
    # 1.0e-6 absolute (digits), hence 5e-6. With default settings predictions are equal.
    X, y = load(dataset, scaled=True)
    m, s = pair("LogisticRegression", linear_model, C=C)
    np.testing.assert_array_equal(m.fit(X, y).predict(X), s.fit(X, y).predict(X))
    m, s = pair("LogisticRegression", linear_model, C=C, tol=1e-10, max_iter=10_000)
    m.fit(X, y), s.fit(X, y)
    d = dict(
        coef=rel(m.coef_, s.coef_),
        intercept=absdiff(m.intercept_, s.intercept_),
        proba=absdiff(m.predict_proba(X), s.predict_proba(X)),
    )
    show(f"LogisticRegression C={C} {dataset}", **d)
    assert max(d.values()) < 5e-6


@pytest.mark.parametrize("dataset", CLASSIFICATION)
def test_perceptron(dataset):
    # The perceptron's final weights depend on the shuffled visiting order, drawn from different
    # generators; on data that is not separable (iris) held-out accuracy moves by up to 0.079
    # between orders, so the tolerance is 0.1.
    Xtr, Xte, ytr, yte = split(dataset, scaled=True)
    m, s = pair("Perceptron", linear_model, random_state=0)
    am, as_ = m.fit(Xtr, ytr).score(Xte, yte), s.fit(Xtr, ytr).score(Xte, yte)
    show(f"Perceptron {dataset}", margin=am, sklearn=as_)
    assert abs(am - as_) < 0.1


def test_kernel_perceptron_hand_check():
    # No scikit-learn peer: a degree-2 polynomial kernel separates XOR-like data (the product
    # x0*x1 decides the class), so the dual perceptron must fit it without a mistake.
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    X = X[np.abs(X[:, 0] * X[:, 1]) > 0.05]
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    m = margin.KernelPerceptron(kernel="poly", degree=2, random_state=0).fit(X, y)
    assert m.score(X, y) == 1.0


# --------------------------------------------------------------------- least squares & kernels
LINEAR_CASES = [
    ("LinearRegression", linear_model, dict()),
    ("Ridge", linear_model, dict()),
    ("Ridge", linear_model, dict(alpha=0.01)),
    ("Lasso", linear_model, dict(alpha=0.1, tol=1e-12, max_iter=100_000)),
    ("ElasticNet", linear_model, dict(alpha=0.01, tol=1e-12, max_iter=100_000)),
]


@pytest.mark.parametrize(
    "name,module,params", LINEAR_CASES, ids=[f"{n}-alpha={p.get('alpha', '-')}" for n, _, p in LINEAR_CASES]
)
def test_least_squares(name, module, params):
    # Same minimizer (closed form, or coordinate descent run to tol=1e-12): measured 2.4e-14
    # relative on coef_ and 1.1e-13 absolute on intercept_ (~152); 1e-8 is the bound.
    X, y = load("diabetes")
    m, s = pair(name, module, **params)
    m.fit(X, y), s.fit(X, y)
    d = dict(coef=rel(m.coef_, s.coef_), intercept=rel(m.intercept_, s.intercept_))
    show(f"{name}{params}", **d)
    assert max(d.values()) < 1e-8


@pytest.mark.parametrize("params", [dict(), dict(kernel="rbf", gamma=0.1)], ids=["linear", "rbf"])
def test_kernel_ridge(params):
    # Same linear system; measured 1.2e-14 relative on predictions.
    X, y = load("diabetes")
    m, s = pair("KernelRidge", kernel_ridge, **params)
    d = rel(m.fit(X, y).predict(X), s.fit(X, y).predict(X))
    show(f"KernelRidge{params}", predict=d)
    assert d < 1e-10


# --------------------------------------------------------------------- neighbours, naive Bayes
@pytest.mark.parametrize("dataset", CLASSIFICATION)
def test_naive_bayes_and_knn(dataset):
    # Same closed-form estimates: predict_proba measured at most 2.4e-14 apart (breast_cancer).
    X, y = load(dataset, scaled=True)
    for name, module in [("GaussianNB", naive_bayes), ("BernoulliNB", naive_bayes), ("KNeighborsClassifier", neighbors)]:
        m, s = pair(name, module)
        m.fit(X, y), s.fit(X, y)
        np.testing.assert_array_equal(m.predict(X), s.predict(X))
        d = absdiff(m.predict_proba(X), s.predict_proba(X))
        show(f"{name} {dataset}", proba=d)
        assert d < 1e-12


def test_multinomial_nb_digits():
    X, y = load("digits")  # pixel intensities 0..16 as counts
    m, s = pair("MultinomialNB", naive_bayes)
    m.fit(X, y), s.fit(X, y)
    np.testing.assert_array_equal(m.predict(X), s.predict(X))
    d = absdiff(m.predict_proba(X), s.predict_proba(X))
    show("MultinomialNB digits", proba=d)  # measured 1.6e-13
    assert d < 1e-12


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_knn_regressor(weights):
    Xtr, Xte, ytr, yte = split("diabetes")
    m, s = pair("KNeighborsRegressor", neighbors, weights=weights)
    d = rel(m.fit(Xtr, ytr).predict(Xte), s.fit(Xtr, ytr).predict(Xte))
    show(f"KNeighborsRegressor {weights}", predict=d)  # measured 0
    assert d < 1e-12


# ------------------------------------------------------------------------------------- trees
def gini(proba):
    """Mean over samples of their leaf's Gini impurity: the tree's weighted leaf impurity."""
    return float(np.mean(1.0 - (proba**2).sum(axis=1)))


@pytest.mark.parametrize("dataset", CLASSIFICATION)
def test_decision_tree_classifier(dataset):
    Xtr, Xte, ytr, yte = split(dataset)
    # A stump's best split is unique in impurity: the weighted leaf impurity must be equal.
    m, s = pair("DecisionTreeClassifier", tree, max_depth=1, random_state=0)
    m.fit(Xtr, ytr), s.fit(Xtr, ytr)
    assert abs(gini(m.predict_proba(Xtr)) - gini(s.predict_proba(Xtr))) < 1e-12
    # Deeper, features tied in impurity (e.g. iris petal length vs width) are broken in a
    # different order (scikit-learn shuffles features with random_state), so the trees differ:
    # both fit the training set perfectly, and held-out accuracy is within 0.15: measured 0.027
    # (iris) and 0.124 (digits: 113 held-out rows of 10 classes, where differently tie-broken
    # trees vary that much; margin's was the better one).
    m, s = pair("DecisionTreeClassifier", tree, random_state=0)
    m.fit(Xtr, ytr), s.fit(Xtr, ytr)
    assert m.score(Xtr, ytr) == s.score(Xtr, ytr) == 1.0
    am, as_ = m.score(Xte, yte), s.score(Xte, yte)
    show(f"DecisionTreeClassifier {dataset}", margin=am, sklearn=as_)
    assert abs(am - as_) < 0.15


@pytest.mark.parametrize("dataset", ["wine", "breast_cancer"])
def test_decision_tree_classifier_tie_free(dataset):
    # A stump on these has no tied best split: the same tree, so held-out predictions are equal.
    Xtr, Xte, ytr, yte = split(dataset)
    m, s = pair("DecisionTreeClassifier", tree, max_depth=1, random_state=0)
    np.testing.assert_array_equal(m.fit(Xtr, ytr).predict(Xte), s.fit(Xtr, ytr).predict(Xte))
    assert absdiff(m.feature_importances_, s.feature_importances_) < 1e-12


def test_decision_tree_regressor():
    Xtr, Xte, ytr, yte = split("diabetes")
    # Stump: the same split, so equal predictions on held-out rows.
    m, s = pair("DecisionTreeRegressor", tree, max_depth=1, random_state=0)
    np.testing.assert_allclose(m.fit(Xtr, ytr).predict(Xte), s.fit(Xtr, ytr).predict(Xte), rtol=1e-12)
    # Depth 3: tied splits are broken differently (different held-out predictions), but the
    # training squared error, which both minimize greedily, is equal (measured identical).
    m, s = pair("DecisionTreeRegressor", tree, max_depth=3, random_state=0)
    m.fit(Xtr, ytr), s.fit(Xtr, ytr)
    mse = [np.mean((e.predict(Xtr) - ytr) ** 2) for e in (m, s)]
    show("DecisionTreeRegressor depth 3", train_mse_margin=mse[0], train_mse_sklearn=mse[1])
    assert abs(mse[0] - mse[1]) < 1e-9 * mse[1]
    # Full depth: R^2 on held-out rows within 0.05 (measured 0.028).
    m, s = pair("DecisionTreeRegressor", tree, random_state=0)
    rm, rs = m.fit(Xtr, ytr).score(Xte, yte), s.fit(Xtr, ytr).score(Xte, yte)
    show("DecisionTreeRegressor full", margin=rm, sklearn=rs)
    assert abs(rm - rs) < 0.05


# ------------------------------------------------------------------- ensembles (stochastic)
# Forests draw bootstrap samples and feature subsets from different generators; boosting breaks
# tied splits differently and bins with its own quantiles. Held-out scores are compared.
ENSEMBLE_CASES = [
    ("RandomForestClassifier", dict(n_estimators=50, random_state=0), 0.04),  # measured <= 0.026
    ("HistGradientBoostingClassifier", dict(max_iter=30, random_state=0), 0.03),  # measured <= 0.007
    ("AdaBoostClassifier", dict(random_state=0), 0.03),  # measured 0
]


@pytest.mark.parametrize("dataset", CLASSIFICATION)
@pytest.mark.parametrize("name,params,tol", ENSEMBLE_CASES, ids=[c[0] for c in ENSEMBLE_CASES])
def test_ensemble_classifier(name, params, tol, dataset):
    Xtr, Xte, ytr, yte = split(dataset)
    m, s = pair(name, ensemble, **params)
    am, as_ = m.fit(Xtr, ytr).score(Xte, yte), s.fit(Xtr, ytr).score(Xte, yte)
    show(f"{name} {dataset}", margin=am, sklearn=as_)
    assert abs(am - as_) < tol


@pytest.mark.parametrize(
    "name,params,tol",
    [
        ("RandomForestRegressor", dict(n_estimators=50, random_state=0), 0.05),  # measured 0.024
        ("HistGradientBoostingRegressor", dict(max_iter=50, random_state=0), 0.03),  # measured 0
    ],
    ids=["RandomForestRegressor", "HistGradientBoostingRegressor"],
)
def test_ensemble_regressor(name, params, tol):
    Xtr, Xte, ytr, yte = split("diabetes")
    m, s = pair(name, ensemble, **params)
    rm, rs = m.fit(Xtr, ytr).score(Xte, yte), s.fit(Xtr, ytr).score(Xte, yte)
    show(f"{name} diabetes", margin=rm, sklearn=rs)
    assert abs(rm - rs) < tol


def test_adaboost_integer_weights_equal_repeated_rows():
    X, y = datasets.make_classification(
        n_samples=45, n_features=10, n_informative=4, n_classes=3, random_state=0
    )
    w = np.random.RandomState(42).randint(0, 3, 45)
    weighted = margin.AdaBoostClassifier(random_state=0).fit(X, y, sample_weight=w)
    repeated = margin.AdaBoostClassifier(random_state=0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    d = absdiff(weighted.predict_proba(X), repeated.predict_proba(X))
    show("AdaBoost weights vs repeats", proba=d)
    assert d < 1e-12


# ---------------------------------------------------------------------------------- clusters
@pytest.mark.parametrize("dataset", ["iris", "wine", "digits"])
def test_kmeans(dataset):
    X, y = load(dataset)
    k = len(np.unique(y))
    m = margin.KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
    # margin's init= takes only "k-means++"/"random", not an array, so the fixed point is checked:
    # Lloyd started from margin's centers must stay there (same centers, labels and inertia).
    s = cluster.KMeans(n_clusters=k, init=m.cluster_centers_, n_init=1).fit(X)
    np.testing.assert_array_equal(m.labels_, s.labels_)
    d = dict(centers=rel(m.cluster_centers_, s.cluster_centers_), inertia=rel(m.inertia_, s.inertia_))
    # Best of 10 k-means++ starts drawn from different generators: inertia within 2% of
    # scikit-learn's best (local optima differ).
    best = cluster.KMeans(n_clusters=k, n_init=10, random_state=0).fit(X).inertia_
    d["inertia_vs_sklearn_best"] = (m.inertia_ - best) / best
    show(f"KMeans {dataset}", **d)
    assert d["centers"] < 1e-10 and d["inertia"] < 1e-10
    assert d["inertia_vs_sklearn_best"] < 0.02


@pytest.mark.parametrize("dataset", ["iris", "wine", "digits"])
def test_minibatch_kmeans(dataset):
    # Different mini-batches: inertia within 10% of scikit-learn's (measured at most +6%, iris).
    X, y = load(dataset)
    m, s = pair("MiniBatchKMeans", cluster, n_clusters=len(np.unique(y)), n_init=1, random_state=0)
    m.fit(X), s.fit(X)
    d = (m.inertia_ - s.inertia_) / s.inertia_
    show(f"MiniBatchKMeans {dataset}", inertia_rel=d)
    assert d < 0.1


# ------------------------------------------------------------------------------ transformers
@pytest.mark.parametrize("dataset", ["iris", "wine", "digits", "diabetes"])
@pytest.mark.parametrize("params", [dict(), dict(n_components=3, whiten=True)], ids=["all", "3-whiten"])
def test_pca(dataset, params):
    X, _ = load(dataset)
    m, s = pair("PCA", decomposition, **params)
    m.fit(X), s.fit(X)
    # digits has constant pixels: components of (near-)zero variance are arbitrary, so only
    # components carrying variance are compared (up to sign).
    keep = s.explained_variance_ > 1e-8 * s.explained_variance_[0]
    sign = np.sign((m.components_ * s.components_).sum(axis=1))
    d = dict(
        evr=absdiff(m.explained_variance_ratio_, s.explained_variance_ratio_),
        components=absdiff((m.components_ * sign[:, None])[keep], s.components_[keep]),
        transform=rel((m.transform(X) * sign)[:, keep], s.transform(X)[:, keep]),
    )
    show(f"PCA{params} {dataset}", **d)
    # SVDs by different LAPACK paths: evr measured 7e-15; components 2e-11 (wine, whose last
    # eigenvalues are close, so those eigenvectors are less well determined).
    assert d["evr"] < 1e-10
    assert d["components"] < 1e-9 and d["transform"] < 1e-9


@pytest.mark.parametrize("dataset", CLASSIFICATION + ["diabetes"])
def test_scalers_and_polynomial(dataset):
    X, _ = load(dataset)
    for name in ["StandardScaler", "MinMaxScaler"]:
        m, s = pair(name, preprocessing)
        d = absdiff(m.fit(X).transform(X), s.fit(X).transform(X))
        show(f"{name} {dataset}", transform=d)  # measured 3.5e-16
        assert d < 1e-12
    # clip=True holds held-out values beyond the training extremes to feature_range.
    half, rest = X[: len(X) // 2], X[len(X) // 2 :]
    m, s = pair("MinMaxScaler", preprocessing, feature_range=(-1, 1), clip=True)
    np.testing.assert_allclose(m.fit(half).transform(rest), s.fit(half).transform(rest), rtol=0, atol=1e-12)
    Xp = X[:, :6]
    m, s = pair("PolynomialFeatures", preprocessing)
    np.testing.assert_array_equal(m.fit(Xp).transform(Xp), s.fit(Xp).transform(Xp))
    # Degree 3: a*b*c may be multiplied in another order, so 1-2 ulp apart.
    m, s = pair("PolynomialFeatures", preprocessing, degree=3, interaction_only=True, include_bias=False)
    np.testing.assert_allclose(m.fit(Xp).transform(Xp), s.fit(Xp).transform(Xp), rtol=1e-15, atol=0)


@pytest.mark.parametrize("dataset", ["iris", "wine", "digits"])
@pytest.mark.parametrize(
    "name,params",
    [("Nystroem", dict(gamma=0.1, n_components=50)), ("RBFSampler", dict(gamma=0.1, n_components=200))],
    ids=["Nystroem", "RBFSampler"],
)
def test_kernel_approximation(name, params, dataset):
    # Different landmarks / random Fourier features: the mean error of the approximated RBF
    # kernel is within 0.03 of scikit-learn's (measured 0.023, iris RBFSampler) and a LinearSVC
    # on the features scores within 0.12 of scikit-learn's (measured 0.089, digits: 113 held-out
    # rows, 50/200 features for 64 dimensions, so the score moves with the draw; margin's
    # Nystroem scored higher, its RBFSampler lower).
    Xtr, Xte, ytr, yte = split(dataset, scaled=True)
    m, s = pair(name, kernel_approximation, random_state=0, **params)
    m.fit(Xtr), s.fit(Xtr)
    K = rbf_kernel(Xte, Xte, gamma=params["gamma"])
    err = [np.abs(Z @ Z.T - K).mean() for Z in (m.transform(Xte), s.transform(Xte))]
    acc = [svm.LinearSVC().fit(e.transform(Xtr), ytr).score(e.transform(Xte), yte) for e in (m, s)]
    show(f"{name} {dataset}", kernel_err_margin=err[0], kernel_err_sklearn=err[1], acc_margin=acc[0], acc_sklearn=acc[1])
    assert abs(err[0] - err[1]) < 0.03
    assert abs(acc[0] - acc[1]) < 0.12
