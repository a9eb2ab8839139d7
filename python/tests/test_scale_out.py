"""Past one process: a margin model fitted here predicts on Dask workers (two worker processes
of a local cluster) and on Spark (``local[2]``, through ``mapInPandas``), giving the answers it
gives here; and a grid search runs on the Dask cluster through joblib.

The clusters listen on 127.0.0.1 only, every wait is bounded, and every process a test starts is
stopped by its own id when the test ends.
"""

import os
import shutil
import signal
import sys
import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import margin

TIMEOUT = 120  # seconds, for any one wait on a cluster


@pytest.fixture(scope="module")
def data():
    return load_breast_cancer(return_X_y=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(pids):
    """Stops the processes by id: asks, waits a little, then kills."""
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        death_timeout=TIMEOUT,
    )
    client = distributed.Client(cluster, timeout=TIMEOUT)
    workers = list(client.run(os.getpid).values())
    try:
        yield client
    finally:
        client.close(timeout=TIMEOUT)
        cluster.close(timeout=TIMEOUT)
        _stop(workers)
    assert not any(_alive(p) for p in workers)


def test_dask_workers_predict_as_this_process(data, dask_client):
    da = pytest.importorskip("dask.array")
    X, y = data
    model = margin.SVC(C=10.0, probability=True, random_state=0).fit(X, y)
    chunks = da.from_array(X, chunks=(100, X.shape[1]))

    # Each block is predicted by whichever worker process holds it; the model travels pickled
    # (its model file).
    labels = chunks.map_blocks(model.predict, drop_axis=1, dtype=y.dtype).compute()
    proba = chunks.map_blocks(
        model.predict_proba, chunks=(100, 2), dtype=float
    ).compute()
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_array_equal(proba, model.predict_proba(X))
    # Both worker processes took part.
    where = dask_client.run(lambda: os.getpid())
    assert len(set(where.values())) == 2


def test_dask_ml_parallel_post_fit(data, dask_client):
    wrappers = pytest.importorskip("dask_ml.wrappers")
    da = pytest.importorskip("dask.array")
    X, y = data
    wrapped = wrappers.ParallelPostFit(margin.LogisticRegression(max_iter=1000)).fit(X, y)
    predicted = wrapped.predict(da.from_array(X, chunks=(100, X.shape[1]))).compute()
    np.testing.assert_array_equal(predicted, wrapped.estimator.predict(X))


def test_grid_search_on_the_dask_cluster(data, dask_client):
    import joblib
    from sklearn.model_selection import GridSearchCV

    X, y = data
    grid = {"C": [0.5, 1.0, 2.0], "gamma": ["scale", 1e-4]}
    here = GridSearchCV(margin.SVC(), grid, cv=3).fit(X, y)
    with joblib.parallel_backend("dask"):
        there = GridSearchCV(margin.SVC(), grid, cv=3).fit(X, y)
    assert there.best_params_ == here.best_params_
    np.testing.assert_array_equal(
        there.cv_results_["mean_test_score"], here.cv_results_["mean_test_score"]
    )


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java, which this machine lacks")
    pyspark_sql = pytest.importorskip("pyspark.sql")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Spark's Python workers run this interpreter, the one margin is installed in.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        .appName("margin-scale-out-test")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.network.timeout", f"{TIMEOUT}s")
        .getOrCreate()
    )
    gateway = session.sparkContext._gateway.proc
    try:
        yield session
    finally:
        session.stop()
        if gateway is not None:
            _stop([gateway.pid])
            gateway.wait(timeout=TIMEOUT)  # reaped: no zombie left behind


def test_spark_map_in_pandas_predicts_as_this_process(data, spark):
    import pandas as pd

    X, y = data
    model = margin.HistGradientBoostingClassifier(random_state=0).fit(X, y)
    columns = [f"f{j}" for j in range(X.shape[1])]
    table = pd.DataFrame(X, columns=columns).assign(row=np.arange(len(X)))
    frame = spark.createDataFrame(table).repartition(2)

    def predict(batches):
        for batch in batches:
            labels = model.predict(batch[columns].to_numpy())
            yield pd.DataFrame({"row": batch["row"], "label": labels})

    predicted = (
        frame.mapInPandas(predict, schema="row long, label long").toPandas().sort_values("row")
    )
    # Every row came back once, with the label this process gives it.
    np.testing.assert_array_equal(predicted["row"].to_numpy(), np.arange(len(X)))
    np.testing.assert_array_equal(predicted["label"].to_numpy(), model.predict(X))
    assert frame.rdd.getNumPartitions() == 2
