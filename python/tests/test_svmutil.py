"""``margin.svmutil`` against LIBSVM's own Python interface (the ``libsvm-official`` package,
LIBSVM's C library behind ``libsvm.svmutil``), on the repository's ``datasets/heart_scale``
and ``datasets/housing_scale``.

* Without randomness (no ``-b 1``, no ``-v``) both run in this process: the model files are
  compared byte for byte (ν-SVC and ν-SVR to 1e-9: their coefficients differ from LIBSVM's in
  the last bits, see ``crates/margin-cli/tests/libsvm_folds_cli.rs``), and the predicted labels
  exactly, the decision values to 1e-9.
* ``-v`` and ``-b 1`` draw from C's ``rand()``, which LIBSVM never seeds and which every LIBSVM
  call in a process advances: LIBSVM runs in a fresh interpreter for each case, as svm-train
  runs in a fresh process, and margin starts each ``svm_train`` from that same state.
"""

import json
import pathlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from margin import svmutil

libsvm = pytest.importorskip("libsvm.svmutil", reason="libsvm-official is not installed")

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEART = ROOT / "datasets" / "heart_scale"
HOUSING = ROOT / "datasets" / "housing_scale"


@pytest.fixture(scope="module")
def heart():
    x, y = load_svmlight_file(str(HEART))
    return y, x


@pytest.fixture(scope="module")
def housing():
    x, y = load_svmlight_file(str(HOUSING))
    return y, x


def dicts(x):
    """Rows of a CSR matrix as LIBSVM's ``{index: value}`` dicts (1-based)."""
    return [
        {int(j) + 1: float(v) for j, v in zip(x.indices[x.indptr[i] : x.indptr[i + 1]], x.data[x.indptr[i] : x.indptr[i + 1]])}
        for i in range(x.shape[0])
    ]


def saved_text(save, model, tmp_path, name):
    path = tmp_path / name
    save(str(path), model)
    return path.read_text()


# (options, whether the model file is LIBSVM's byte for byte)
DETERMINISTIC = [
    ("-q", True),
    ("-q -c 4 -t 0", True),
    ("-q -t 1 -d 2 -r 1 -c 10", True),
    ("-q -t 3 -g 0.05 -r -1", True),
    ("-q -c 2 -w1 3 -w-1 0.5", True),
    ("-q -s 1 -n 0.3", False),
    ("-q -s 2 -n 0.2", True),
]


def trained_both(y, x, options, exact, tmp_path):
    """LIBSVM's and margin's models for ``options`` on ``(y, x)``, their model files compared
    (byte for byte where ``exact``; else the header, ρ to 1e-9), and both predictions."""
    theirs = libsvm.svm_train(list(y), dicts(x), options)
    ours = svmutil.svm_train(y, x, options)
    text_theirs = saved_text(libsvm.svm_save_model, theirs, tmp_path, "theirs")
    text_ours = saved_text(svmutil.svm_save_model, ours, tmp_path, "ours")
    if exact:
        assert text_ours == text_theirs
    else:
        head_ours, head_theirs = (t[: t.index("\nSV\n")].splitlines() for t in (text_ours, text_theirs))
        assert [l for l in head_ours if not l.startswith("rho")] == [l for l in head_theirs if not l.startswith("rho")]
        rho = [[float(v) for v in l.split()[1:]] for h in (head_ours, head_theirs) for l in h if l.startswith("rho")]
        np.testing.assert_allclose(rho[0], rho[1], rtol=1e-9)
    p_theirs = libsvm.svm_predict(list(y), dicts(x), theirs, "-q")
    p_ours = svmutil.svm_predict(y, x, ours, "-q")
    return theirs, ours, p_theirs, p_ours


@pytest.mark.parametrize("options,exact", DETERMINISTIC)
def test_classification_and_one_class_follow_libsvm(heart, tmp_path, options, exact):
    y, x = heart
    theirs, ours, p_theirs, p_ours = trained_both(y, x, options, exact, tmp_path)
    if "-s 2" not in options:
        # (LIBSVM's module gives zeros for a one-class model, which has no labels.)
        assert ours.get_labels() == theirs.get_labels()
    assert ours.get_nr_sv() == theirs.get_nr_sv()
    assert ours.get_sv_indices() == theirs.get_sv_indices()
    assert p_ours[0] == p_theirs[0]
    assert p_ours[1][0] == p_theirs[1][0]
    if options.startswith("-q -s 1"):
        # LIBSVM's module returns only the first pair's value for ν-SVC; margin all of them.
        theirs_vals = [v[:1] for v in p_theirs[2]]
        ours_vals = [v[:1] for v in p_ours[2]]
    else:
        theirs_vals, ours_vals = p_theirs[2], p_ours[2]
    np.testing.assert_allclose(ours_vals, theirs_vals, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("options,exact", [("-q -s 3 -p 0.05 -c 4", True), ("-q -s 4 -n 0.4", False)])
def test_regression_follows_libsvm(housing, tmp_path, options, exact):
    y, x = housing
    theirs, ours, p_theirs, p_ours = trained_both(y, x, options, exact, tmp_path)
    assert ours.get_svm_type() == theirs.get_svm_type()
    np.testing.assert_allclose(p_ours[0], p_theirs[0], rtol=1e-9)
    np.testing.assert_allclose(p_ours[1][1:], p_theirs[1][1:], rtol=1e-9)


def test_every_input_form_trains_the_same_model(heart):
    y, x = heart
    text = svmutil.svm_train(y, x, "-q").to_text()
    assert svmutil.svm_train(list(y), dicts(x), "-q").to_text() == text
    assert svmutil.svm_train(tuple(y), x.toarray(), "-q").to_text() == text
    assert svmutil.svm_train(y, x.toarray().tolist(), "-q").to_text() == text
    assert svmutil.svm_train(y, x.tocsc(), ["-q"]).to_text() == text


def test_unsorted_csr_input_is_read_without_touching_it(heart):
    y, x = heart
    x = x.tocsr(copy=True)
    # Reverse each row's entries: the same matrix, its indices out of order.
    for i in range(x.shape[0]):
        lo, hi = x.indptr[i], x.indptr[i + 1]
        x.indices[lo:hi] = x.indices[lo:hi][::-1].copy()
        x.data[lo:hi] = x.data[lo:hi][::-1].copy()
    x.has_sorted_indices = False
    before = x.indices.copy()
    assert svmutil.svm_train(y, x, "-q").to_text() == svmutil.svm_train(y, x.sorted_indices(), "-q").to_text()
    np.testing.assert_array_equal(x.indices, before)


def test_a_precomputed_kernel_follows_libsvm(heart, tmp_path):
    y, x = heart
    dense = x.toarray()
    gram = dense @ dense.T
    # Column 0 holds each row's serial number, from 1.
    k = np.hstack([np.arange(1, len(y) + 1)[:, None], gram])
    theirs = libsvm.svm_train(list(y), k.tolist(), "-q -t 4 -c 2")
    ours = svmutil.svm_train(y, k, "-q -t 4 -c 2")
    assert saved_text(svmutil.svm_save_model, ours, tmp_path, "ours") == saved_text(
        libsvm.svm_save_model, theirs, tmp_path, "theirs"
    )
    p_theirs = libsvm.svm_predict(list(y), k.tolist(), theirs, "-q")
    p_ours = svmutil.svm_predict(y, k, ours, "-q")
    assert p_ours[0] == p_theirs[0]
    np.testing.assert_allclose(p_ours[2], p_theirs[2], rtol=1e-9, atol=1e-12)


FRESH_LIBSVM = """
import json, sys
from libsvm.svmutil import svm_read_problem, svm_train, svm_predict, svm_save_model
y, x = svm_read_problem(sys.argv[1])
options = sys.argv[2]
if "-v" in options.split():
    print(json.dumps({"cv": svm_train(y, x, options)}))
else:
    m = svm_train(y, x, options)
    svm_save_model(sys.argv[3], m)
    labels, acc, vals = svm_predict(y, x, m, "-b 1 -q")
    print(json.dumps({"labels": labels, "vals": vals}))
"""


def fresh_libsvm(data, options, model_path=""):
    """LIBSVM's interface in a new interpreter (C's rand() from its first draw)."""
    out = subprocess.run(
        [sys.executable, "-c", FRESH_LIBSVM, str(data), options, str(model_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("data,options", [(HEART, "-q -v 5"), (HEART, "-q -v 3 -t 1 -d 2"), (HOUSING, "-q -s 3 -v 5")])
def test_cross_validation_draws_libsvm_s_folds(data, options, capsys):
    theirs = fresh_libsvm(data, options)["cv"]
    x, y = load_svmlight_file(str(data))
    ours = svmutil.svm_train(y, x, options)
    assert ours == pytest.approx(theirs, rel=1e-12)
    printed = capsys.readouterr().out
    assert printed.startswith("Cross Validation ")


def test_probability_models_draw_libsvm_s_folds(heart, tmp_path):
    y, x = heart
    theirs = fresh_libsvm(HEART, "-q -b 1", tmp_path / "theirs")
    ours = svmutil.svm_train(y, x, "-q -b 1")
    svmutil.svm_save_model(str(tmp_path / "ours"), ours)
    assert (tmp_path / "ours").read_text() == (tmp_path / "theirs").read_text()
    labels, _, vals = svmutil.svm_predict(y, x, ours, "-b 1 -q")
    assert labels == theirs["labels"]
    np.testing.assert_allclose(vals, theirs["vals"], rtol=1e-9)


def test_models_move_between_margin_and_libsvm(heart, tmp_path):
    y, x = heart
    ours = svmutil.svm_train(y, x, "-q -c 3")
    svmutil.svm_save_model(str(tmp_path / "m"), ours)
    # LIBSVM reads margin's file, and margin reads LIBSVM's.
    theirs = libsvm.svm_load_model(str(tmp_path / "m"))
    assert libsvm.svm_predict(list(y), dicts(x), theirs, "-q")[0] == svmutil.svm_predict(y, x, ours, "-q")[0]
    libsvm.svm_save_model(str(tmp_path / "back"), theirs)
    back = svmutil.svm_load_model(str(tmp_path / "back"))
    assert back.to_text() == ours.to_text()
    # Pickling keeps the model file's text.
    assert pickle.loads(pickle.dumps(ours)).to_text() == ours.to_text()


def test_training_prints_as_svm_train_unless_quiet(heart, capsys):
    y, x = heart
    svmutil.svm_train(y, x, "-c 2")
    printed = capsys.readouterr().out
    assert "optimization finished, #iter = " in printed and "Total nSV = " in printed
    svmutil.svm_train(y, x, "-c 2 -q")
    assert capsys.readouterr().out == ""
    labels, (acc, _, _), _ = svmutil.svm_predict(y, x, svmutil.svm_train(y, x, "-q"), "")
    assert capsys.readouterr().out.startswith("Accuracy = %g%% (" % acc)


def test_libsvm_s_warnings_become_runtime_warnings(heart):
    y, x = heart
    with pytest.warns(RuntimeWarning, match="class label 7 specified in weight is not found"):
        svmutil.svm_train(y, x, "-q -w7 2")


@pytest.mark.parametrize(
    "options,message",
    [
        ("-c 0", "C <= 0: -c 0"),
        ("-c abc", "-c cost: `abc` is not a number"),
        ("-x 1", "Unknown option: -x"),
        ("-s 1 -n 2", "nu <= 0 or nu > 1: -n 2"),
        ("-v 1", "n-fold cross validation: n must >= 2"),
        ("-c", "-c needs a value"),
        ("train.txt", "Unknown option: train.txt"),
    ],
)
def test_bad_options_are_refused_with_libsvm_s_messages(heart, options, message):
    y, x = heart
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        svmutil.svm_train(y, x, options)


def test_bad_calls_are_refused(heart):
    y, x = heart
    model = svmutil.svm_train(y, x, "-q")
    with pytest.raises(ValueError, match="len\\(y\\) != len\\(x\\)"):
        svmutil.svm_train(y[:-1], x, "-q")
    with pytest.raises(ValueError, match="Model does not support probability estimates"):
        svmutil.svm_predict(y, x, model, "-b 1")
    with pytest.raises(ValueError, match="Wrong options"):
        svmutil.svm_predict(y, x, model, "-z")
    with pytest.raises(TypeError):
        svmutil.svm_train(y, "not data", "-q")
    with pytest.raises(ValueError, match="heart"):
        svmutil.svm_load_model(str(HEART))


def test_predict_without_labels_and_on_wider_rows(heart):
    y, x = heart
    ours = svmutil.svm_train(y, x, "-q")
    theirs = libsvm.svm_train(list(y), dicts(x), "-q")
    labels, _, _ = svmutil.svm_predict([], x, ours, "-q")
    assert labels == libsvm.svm_predict([], dicts(x), theirs, "-q")[0]
    # Indices the model never saw are read as LIBSVM reads them (they count in an RBF distance).
    wider = np.hstack([x.toarray(), np.full((x.shape[0], 3), 0.3)])
    wide_ours = svmutil.svm_predict([], wider, ours, "-q")
    wide_theirs = libsvm.svm_predict([], wider, theirs, "-q")
    assert wide_ours[0] == wide_theirs[0]
    np.testing.assert_allclose(wide_ours[2], wide_theirs[2], rtol=1e-9)


def test_evaluations_are_libsvm_s():
    theirs = libsvm.evaluations([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 5.0, 3.0])
    ours = svmutil.evaluations([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 5.0, 3.0])
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("options", ["-q", "-q -s 3"])
def test_a_non_finite_label_is_refused(bad, options):
    """A NaN label used to train a class -2147483648 of its own (C's (int) cast, as LIBSVM's
    module still does); ``margin svm-train`` refuses such a label in a file, and so does this."""
    y = [1.0, bad, -1.0, -1.0]
    x = [{1: 1.0}, {1: 0.5}, {1: -1.0}, {1: -0.5}]
    with pytest.raises(ValueError, match=r"label .* of instance 1 is not finite"):
        svmutil.svm_train(y, x, options)
    with pytest.raises(ValueError, match="instance 1 is not finite"):
        svmutil.svm_train(np.array(y), np.array([[1.0], [0.5], [-1.0], [-0.5]]), options)


def test_a_fractional_feature_index_is_refused_as_libsvm_refuses_it():
    """``{1.7: v}`` was read as index 1; LIBSVM's module raises TypeError on it, as this does
    (naming the instance), in training and in prediction. Integers of any type are indices."""
    y = [1, -1]
    with pytest.raises(TypeError):
        libsvm.svm_train(y, [{1: 1.0}, {1.7: -1.0}], "-q")
    with pytest.raises(TypeError, match=r"feature index 1\.7 of instance 1 is not an integer"):
        svmutil.svm_train(y, [{1: 1.0}, {1.7: -1.0}], "-q")
    with pytest.raises(TypeError, match="not an integer"):
        svmutil.svm_train(y, [{1: 1.0}, {np.float64(2.0): -1.0}], "-q")
    with pytest.raises(TypeError, match="not an integer"):
        svmutil.svm_train(y, [{1: 1.0}, {"2": -1.0}], "-q")
    model = svmutil.svm_train(y, [{1: 1.0}, {np.int64(1): -1.0, np.int32(2): 0.5}], "-q")
    with pytest.raises(TypeError, match="instance 0 is not an integer"):
        svmutil.svm_predict([], [{1.5: 1.0}], model, "-q")
