"""margin's estimators where scikit-learn's work: pipelines, grid search on two processes,
cross-validation, clone, pickle and joblib, pandas frames, sparse input, threads; and model files
shared with the Rust crates and the ``margin`` command."""

import os
import pickle
import subprocess
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

import margin

@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_pipeline_of_margin_steps_predicts_as_the_steps_by_hand(iris):
    X, y = iris
    pipe = make_pipeline(margin.StandardScaler(), margin.PCA(n_components=3), margin.SVC(C=10.0))
    pipe.fit(X, y)
    scaled = margin.StandardScaler().fit(X).transform(X)
    reduced = margin.PCA(n_components=3).fit(scaled).transform(scaled)
    by_hand = margin.SVC(C=10.0).fit(reduced, y)
    np.testing.assert_array_equal(pipe.predict(X), by_hand.predict(reduced))


def test_grid_search_on_two_processes_equals_one(iris):
    X, y = iris
    grid = {"C": [0.1, 1.0, 10.0], "gamma": ["scale", 0.1]}
    one = GridSearchCV(margin.SVC(), grid, cv=3, n_jobs=1).fit(X, y)
    two = GridSearchCV(margin.SVC(), grid, cv=3, n_jobs=2).fit(X, y)
    assert one.best_params_ == two.best_params_
    np.testing.assert_array_equal(
        one.cv_results_["mean_test_score"], two.cv_results_["mean_test_score"]
    )
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


def test_cross_val_score_matches_folds_by_hand():
    X, y = load_wine(return_X_y=True)
    scores = cross_val_score(margin.GaussianNB(), X, y, cv=5)
    from sklearn.model_selection import StratifiedKFold

    by_hand = []
    for train, test in StratifiedKFold(5).split(X, y):
        model = margin.GaussianNB().fit(X[train], y[train])
        by_hand.append((model.predict(X[test]) == y[test]).mean())
    np.testing.assert_allclose(scores, by_hand)


def test_clone_keeps_parameters_and_drops_the_fit(iris):
    X, y = iris
    model = margin.RandomForestClassifier(n_estimators=7, max_depth=3, random_state=1).fit(X, y)
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        copy.predict(X)


@pytest.mark.parametrize(
    "make",
    [
        lambda: margin.SVC(probability=True, random_state=0),
        lambda: margin.LogisticRegression(),
        lambda: margin.HistGradientBoostingClassifier(random_state=0),
        lambda: margin.KNeighborsClassifier(),
    ],
    ids=["SVC", "LogisticRegression", "HistGradientBoosting", "KNeighbors"],
)
def test_pickle_and_joblib_store_the_model_file(make, tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    model = make().fit(X, y)
    model_file = model._model.to_bytes()
    for restored in (
        pickle.loads(pickle.dumps(model)),
        joblib.load(joblib.dump(model, tmp_path / "m.joblib")[0]),
    ):
        np.testing.assert_array_equal(restored.predict(X), model.predict(X))
        np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
        # The same model file, not a refit.
        assert restored._model.to_bytes() == model_file
    # What is pickled is the model file and the estimator's small attributes, not the data.
    assert len(pickle.dumps(model)) < len(model_file) + 64 * 1024


def test_save_and_load_give_the_same_estimator(iris, tmp_path):
    X, y = iris
    model = margin.SVC(C=3.0, kernel="poly", degree=2).fit(X, y)
    model.save(tmp_path / "svc.margin")
    loaded = margin.load(tmp_path / "svc.margin")
    assert type(loaded) is margin.SVC
    # random_state=None drew a seed at fit; the file keeps the seed drawn, so the loaded
    # estimator refits to the same model.
    seed = loaded.random_state
    assert isinstance(seed, int)
    assert loaded.get_params() == {**model.get_params(), "random_state": seed}
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_array_equal(loaded.dual_coef_, model.dual_coef_)


def test_a_damaged_model_file_is_refused_and_an_existing_file_is_kept(iris, tmp_path):
    X, y = iris
    path = tmp_path / "m.margin"
    margin.GaussianNB().fit(X, y).save(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.margin"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="model file"):
        margin.load(damaged)
    (tmp_path / "text.margin").write_text("not a model")
    with pytest.raises(ValueError, match="model file"):
        margin.load(tmp_path / "text.margin")
    before = path.read_bytes()
    with pytest.raises(OSError):
        margin.GaussianNB().fit(X, y).save(tmp_path / "no-such-dir" / "m.margin")
    assert path.read_bytes() == before


def test_models_cross_between_python_and_the_margin_command(tmp_path):
    binary = os.environ.get("MARGIN_BIN")
    if binary is None:
        pytest.skip("MARGIN_BIN is not set: `cargo xtask python` sets it to the margin command built")
    X, y = load_iris(return_X_y=True)
    data = tmp_path / "iris.libsvm"
    with open(data, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row)) + "\n")

    # Trained by the command, used from Python.
    subprocess.run(
        [binary, "train", "svc", "--c", "4", str(data), "-o", str(tmp_path / "cli.margin")],
        check=True,
        timeout=120,
    )
    from_cli = margin.load(tmp_path / "cli.margin")
    assert type(from_cli) is margin.SVC and from_cli.C == 4.0
    python_svc = margin.SVC(C=4.0).fit(X, y)
    np.testing.assert_array_equal(from_cli.predict(X), python_svc.predict(X))

    # Trained in Python, used by the command.
    python_svc.save(tmp_path / "py.margin")
    out = subprocess.run(
        [binary, "predict", str(tmp_path / "py.margin"), str(data)],
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    predicted = np.array([float(line) for line in out[: len(y)]])
    np.testing.assert_array_equal(predicted, python_svc.predict(X))


def test_feature_names_travel_in_the_model_file(tmp_path):
    """A model fitted on a DataFrame saves its columns' names in the file: margin.load gives
    them back as feature_names_in_, and the margin command takes a CSV's columns by name."""
    pytest.importorskip("pandas")
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = margin.Ridge(alpha=0.1).fit(X, y)
    model.save(tmp_path / "ridge.margin")
    loaded = margin.load(tmp_path / "ridge.margin")
    np.testing.assert_array_equal(loaded.feature_names_in_, X.columns.to_numpy())
    loaded_plain = margin.load(_saved(margin.Ridge(alpha=0.1).fit(X.to_numpy(), y), tmp_path))
    assert not hasattr(loaded_plain, "feature_names_in_")
    binary = os.environ.get("MARGIN_BIN")
    if binary is None:
        return
    # The columns in reverse order, the target last: matched by name, the same predictions.
    shuffled = X[X.columns[::-1]].assign(target=y)
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    out = subprocess.run(
        [binary, "predict", str(tmp_path / "ridge.margin"), str(tmp_path / "shuffled.csv")],
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    predicted = np.array([float(line) for line in out[: len(y)]])
    np.testing.assert_allclose(predicted, model.predict(X), rtol=1e-12)


def _saved(model, tmp_path):
    path = tmp_path / "plain.margin"
    model.save(path)
    return path


def test_pandas_frames_give_feature_names_and_are_checked():
    pd = pytest.importorskip("pandas")
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = margin.Ridge(alpha=0.1).fit(X, y)
    np.testing.assert_array_equal(model.feature_names_in_, X.columns.to_numpy())
    np.testing.assert_allclose(model.predict(X), margin.Ridge(alpha=0.1).fit(X.to_numpy(), y).predict(X.to_numpy()))
    renamed = X.rename(columns={"age": "years"})
    with pytest.raises(ValueError, match="feature names"):
        model.predict(renamed)
    tree = margin.DecisionTreeRegressor(max_depth=2).fit(X, y)
    assert tree.feature_importances_.shape == (X.shape[1],)
    assert pd.Series(tree.feature_importances_, index=X.columns).idxmax() in X.columns


@pytest.mark.parametrize("labels", ["strings", "integers", "floats", "objects"])
def test_labels_come_back_in_the_callers_type(iris, labels):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])
    given = {
        "strings": names[y],
        "integers": (y * 10 - 5).astype(np.int32),
        "floats": y.astype(float) * 2 - 1,
        "objects": np.array([None, 2, "x"], dtype=object)[y],
    }[labels]
    if labels == "objects":
        # Labels of mixed types have no order, as scikit-learn refuses them.
        with pytest.raises((TypeError, ValueError)):
            margin.LogisticRegression().fit(X, given)
        return
    model = margin.LogisticRegression(max_iter=500).fit(X, given)
    predicted = model.predict(X)
    assert predicted.dtype.kind == np.asarray(given).dtype.kind
    assert set(predicted) <= set(given)
    assert (predicted == given).mean() > 0.9


def test_sparse_input_predicts_as_dense(iris):
    X, y = iris
    for make in (margin.SVC, margin.LinearSVC, margin.KNeighborsClassifier, margin.MultinomialNB):
        dense = make().fit(X, y)
        for fmt in (sp.csr_matrix, sp.csc_matrix):
            sparse = make().fit(fmt(X), y)
            np.testing.assert_array_equal(sparse.predict(fmt(X)), dense.predict(X))


def test_csr_input_of_either_index_width_predicts_as_dense(iris):
    # CSR float64 input skips scikit-learn's validation and reaches Rust with its own index
    # arrays (int32 or int64); the answers and the refusal of bad values are those of the dense
    # path.
    X, y = iris
    model = margin.LogisticRegression().fit(X, y)
    want = model.predict(X)
    for fmt in (sp.csr_matrix, sp.csr_array):
        for dtype in (np.int32, np.int64):
            m = fmt(X)
            m.indices, m.indptr = m.indices.astype(dtype), m.indptr.astype(dtype)
            np.testing.assert_array_equal(model.predict(m), want)
            np.testing.assert_array_equal(model.predict_proba(m), model.predict_proba(X))
    bad = sp.csr_matrix(X)
    bad.data[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.predict(bad)
    with pytest.raises(ValueError, match="features"):
        model.predict(sp.csr_matrix(X[:, :3]))


def test_a_csr_matrix_out_of_order_is_read_as_it_means_and_left_as_it_is(iris):
    X, y = iris
    # Row 0 with its entries in reverse column order and its first entry split in two.
    dense = X.copy()
    data = np.concatenate([[X[0, 3], X[0, 2], X[0, 1], X[0, 0] / 2, X[0, 0] / 2], X[1:].ravel()])
    indices = np.concatenate([[3, 2, 1, 0, 0], np.tile(np.arange(4), len(X) - 1)])
    indptr = np.concatenate([[0], 5 + 4 * np.arange(len(X))])
    messy = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    before = (messy.data.copy(), messy.indices.copy(), messy.indptr.copy())
    model = margin.SVC().fit(dense, y)
    np.testing.assert_array_equal(model.predict(messy), model.predict(dense))
    for now, then in zip((messy.data, messy.indices, messy.indptr), before):
        np.testing.assert_array_equal(now, then)


def test_threads_fit_side_by_side_with_the_same_answers():
    X, y = load_breast_cancer(return_X_y=True)
    params = [dict(C=c) for c in (0.5, 1.0, 2.0, 4.0)]
    alone = [margin.SVC(**p).fit(X, y).dual_coef_ for p in params]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(lambda p: margin.SVC(**p).fit(X, y).dual_coef_, params))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)


def test_margins_errors_reach_python_with_margins_messages(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"invalid parameter `C` = -1.0"):
        margin.SVC(C=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        margin.SVC(kernel="no-such-kernel").fit(X, y)
    with pytest.raises(TypeError, match="unexpected keyword argument 'verbose'"):
        margin.SVC(verbose=True)
    with pytest.raises(NotFittedError):
        margin.SVC().predict(X)
    with pytest.raises(AttributeError):
        margin.SVC().fit(X, y).predict_proba  # fitted without probability=True
    with pytest.raises(TypeError):
        margin.KNeighborsClassifier().fit(X, y, sample_weight=np.ones(len(y)))


def test_transformers_name_their_outputs_as_scikit_learns():
    pytest.importorskip("pandas")
    X, _ = load_iris(return_X_y=True, as_frame=True)
    pipe = make_pipeline(margin.StandardScaler(), margin.PCA(n_components=2))
    out = pipe.set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == ["pca0", "pca1"]
    assert list(margin.StandardScaler().fit(X).get_feature_names_out()) == list(X.columns)
    assert list(margin.KMeans(n_clusters=3).fit(X).get_feature_names_out()) == [
        "kmeans0",
        "kmeans1",
        "kmeans2",
    ]


CLASSES = [
    getattr(margin, name)
    for name in margin.__all__
    if isinstance(getattr(margin, name), type) and name != "MarginEstimator"
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_estimator_saves_and_loads_as_itself(cls, tmp_path):
    X, y = load_iris(return_X_y=True)
    if cls.__name__.startswith("HistGradientBoosting"):
        est = cls(min_samples_leaf=5, random_state=3)
    elif "random_state" in cls().get_params():
        est = cls(random_state=3)
    else:
        est = cls()
    roles = {"classifier": y, "regressor": y.astype(float)}
    est.fit(X, roles.get(est._entry["role"]))
    est.save(tmp_path / "m.margin")
    loaded = margin.load(tmp_path / "m.margin")
    assert type(loaded) is cls
    assert loaded.get_params() == est.get_params()
    for method in ("predict", "transform", "decision_function"):
        if hasattr(est, method):
            np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(est, method)(X))


def test_a_seeded_fit_is_the_same_on_one_thread_and_on_two(tmp_path):
    """Each process gets its own rayon pool size (RAYON_NUM_THREADS): the model files written
    with one thread and with two are byte for byte the same."""
    import sys

    script = (
        "import sys, margin\n"
        "from sklearn.datasets import load_breast_cancer\n"
        "X, y = load_breast_cancer(return_X_y=True)\n"
        "for i, est in enumerate([margin.RandomForestClassifier(n_estimators=20, random_state=7),\n"
        "                         margin.SVC(probability=True, random_state=7),\n"
        "                         margin.KMeans(n_clusters=4, random_state=7)]):\n"
        "    est.fit(X, y).save(f'{sys.argv[1]}-{i}.margin')\n"
    )
    for threads in ("1", "2"):
        env = {**os.environ, "RAYON_NUM_THREADS": threads}
        subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / threads)], env=env, check=True, timeout=300
        )
    for i in range(3):
        assert (tmp_path / f"1-{i}.margin").read_bytes() == (tmp_path / f"2-{i}.margin").read_bytes()
