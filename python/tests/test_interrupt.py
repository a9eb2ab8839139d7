"""Fits answer Ctrl-C, and a fit changes its estimator in one step.

* A long SVC, random-forest, histogram-boosting or ``svmutil.svm_train`` fit in a child
  interpreter receives SIGINT about a second in; it must end in ``KeyboardInterrupt`` soon after
  (bounded generously: the fits are sized to run for minutes), leaving the estimator unfitted.
* Two threads fitting one estimator object on different data and label sets leave the
  attributes of one fit, whole: ``classes_``, the model and the shapes agree.
"""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import margin

# The child: makes the data, says READY, fits, and reports how the fit ended, and whether the
# estimator came out fitted.
CHILD = textwrap.dedent(
    """
    import time
    import numpy as np
    import margin
    from margin import svmutil

    rng = np.random.default_rng(0)
    n, d = {n}, {d}
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.8 * rng.standard_normal(n) > 0).astype(np.int64)
    model = {make}
    print("READY", flush=True)
    start = time.monotonic()
    try:
        {fit}
        print("COMPLETED", time.monotonic() - start, flush=True)
    except KeyboardInterrupt:
        print("INTERRUPTED", time.monotonic() - start, hasattr(model, "_model"), flush=True)
    """
)

# Each fit would run for minutes: noisy labels (so SMO has thousands of bounded support
# vectors to settle, and trees grow deep), a hundred thousand trees, boosting rounds without
# end (each measured here at 1/1000 of its size or less: 5 s for 100 trees, 3.7 s for 100
# rounds; the SVC did not end in 60 s).
LONG_FITS = {
    "SVC": (20_000, 20, "margin.SVC(C=100.0, tol=1e-6, cache_size=50)", "model.fit(X, y)"),
    "RandomForestClassifier": (
        20_000,
        20,
        "margin.RandomForestClassifier(n_estimators=100_000)",
        "model.fit(X, y)",
    ),
    "HistGradientBoostingClassifier": (
        50_000,
        20,
        "margin.HistGradientBoostingClassifier(max_iter=1_000_000, early_stopping=False, "
        "max_leaf_nodes=255, min_samples_leaf=1)",
        "model.fit(X, y)",
    ),
    # LIBSVM's own interface trains through the same observer.
    "svmutil.svm_train": (20_000, 20, "None", "svmutil.svm_train(y, X, '-c 100 -e 1e-6 -q')"),
}

# How long after SIGINT the fit may take to end. Generous (a busy 2-core machine): the point
# is that it does not run on to completion, minutes away.
BOUND = 10.0


@pytest.mark.parametrize("name", list(LONG_FITS))
def test_ctrl_c_stops_a_long_fit_with_keyboard_interrupt(name):
    n, d, make, fit = LONG_FITS[name]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(n=n, d=d, make=make, fit=fit)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "READY"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        out, err = child.communicate(timeout=BOUND + 60)
        ended = time.monotonic()
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    words = out.split()
    assert words and words[0] == "INTERRUPTED", f"the fit was not interrupted: {out!r} {err!r}"
    assert ended - signalled < BOUND, f"KeyboardInterrupt came {ended - signalled:.1f} s after SIGINT"
    # The estimator keeps its state from before the fit: not fitted.
    assert words[2] == "False"


def _blobs(n, d, classes, seed):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, len(classes), n)
    X = rng.standard_normal((n, d)) + 3.0 * np.eye(len(classes), d)[k]
    return np.ascontiguousarray(X), np.asarray(classes)[k]


def _consistent(model, X_by_width):
    """Whether the estimator's attributes all come from one fit: the model's width is
    n_features_in_, its classes are classes_, and its predictions are labels of classes_."""
    width = model.n_features_in_
    assert model._model.n_features == width
    assert model.support_vectors_.shape[1] == width
    assert [str(c) for c in model._model.classes()] == [str(c) for c in model.classes_]
    predicted = model.predict(X_by_width[width])
    assert set(predicted) <= set(model.classes_)
    assert model.dual_coef_.shape[0] == len(model.classes_) - 1


def test_two_threads_fitting_one_estimator_leave_one_fit_whole():
    # A slow fit (many rows, two integer classes, 6 features) and a quick one (few rows, three
    # text classes, 4 features), the quick one started a little later so that it ends first:
    # assigning classes_ before the fit and the model after left the quick fit's classes_
    # beside the slow fit's model.
    slow = _blobs(3000, 6, [0, 1], seed=1)
    quick = _blobs(60, 4, ["a", "b", "c"], seed=2)
    X_by_width = {6: slow[0], 4: quick[0]}
    model = margin.SVC(C=10.0)
    for delay in (0.0, 0.005, 0.02, 0.05):
        for first, second in ((slow, quick), (quick, slow)):
            start = threading.Barrier(2)
            errors = []

            def fit(data, wait):
                try:
                    start.wait()
                    time.sleep(wait)
                    model.fit(*data)
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [
                threading.Thread(target=fit, args=(first, 0.0)),
                threading.Thread(target=fit, args=(second, delay)),
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            _consistent(model, X_by_width)


def test_a_failed_fit_leaves_the_previous_fit():
    """A fit that margin refuses (here a parameter, found after the labels were read) leaves
    every fitted attribute as it was: classes_ included, which used to be assigned before the
    fit and stayed beside the previous model."""
    X, y = _blobs(100, 3, [0, 1], seed=3)
    model = margin.SVC().fit(X, y)
    fitted = {k: v for k, v in vars(model).items() if k.endswith("_") or k == "_model"}
    model.set_params(C=-1.0)
    with pytest.raises(ValueError, match="`C`"):
        model.fit(X[:, :2], np.where(y == 0, "a", "b"))
    for name, value in fitted.items():
        assert vars(model)[name] is value, name
    assert model.predict(X).dtype == y.dtype


@pytest.mark.parametrize(
    "make",
    [
        lambda: margin.SVC(C=10.0),
        lambda: margin.RandomForestClassifier(n_estimators=60, random_state=0),
        lambda: margin.HistGradientBoostingClassifier(max_iter=200, early_stopping=False),
    ],
    ids=["SVC", "RandomForestClassifier", "HistGradientBoostingClassifier"],
)
def test_a_fit_releases_the_interpreter_lock_while_it_runs(make):
    """While a fit of about a second runs on another thread, this thread's Python loop keeps
    running: a fit holding the lock would stop it for the whole fit (the watch that looks for
    signals takes the lock for a moment each 100 ms, the waiting caller likewise)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4000, 20))
    y = (X[:, 0] + 0.8 * rng.standard_normal(4000) > 0).astype(np.int64)
    model = make()
    fitting = threading.Thread(target=model.fit, args=(X, y))
    ticks = []
    fitting.start()
    while fitting.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    fitting.join()
    assert hasattr(model, "_model")
    gaps = np.diff(ticks)
    assert len(ticks) > 10 and gaps.max() < 0.25, f"the loop stalled {gaps.max():.2f} s"
