#!/usr/bin/env python3
"""The peer side of `cargo xtask bench`: one case, in this process, timed.

The runner (`benches/src/bin/e2e`) starts this script once per case and repetition, so the
peak memory it prints is this process's own. It passes the data the same way it passes it to
margin's child:

    run.py --case NAME --train FILE --test FILE --n-features D       (a file pair)
    run.py --case NAME --train FILE --split N --n-features D         (first N rows train)
    run.py --case NAME --generate regression --n-train N --n-test M --n-features D
    run.py --case NAME --generate scores --n-train N

Loading (and building LIBSVM/LIBLINEAR's own problem structures) is not timed; fit and predict
are timed separately with time.perf_counter (calls under 50 ms repeated, the median taken).
The last stdout line is one JSON object:
{"fit_s", "predict_s", "score", "metric", "peak_rss_mb", "n", "d"} plus "objective" or "n_sv"
where the case reports them. `--list` prints the case names, `--versions` the versions.

Predict: LIBSVM's C predictor called row by row on prebuilt rows (the kernel sums dominate);
LIBLINEAR's weights applied as one sparse product, as scikit-learn's LinearSVC predicts.

Standard library, numpy, scipy, scikit-learn, libsvm-official and liblinear-official only.
"""

import argparse
import bz2
import gzip
import json
import resource
import statistics
import sys
import time

import numpy as np
from scipy import sparse

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SEED_MIX = 0xD1B54A32D192ED03


def uniform(seed, start, count):
    """splitmix64 values start..start+count of stream `seed`, as floats in [0, 1).

    Bit for bit the numbers margin's child generates (benches/src/bin/e2e/data.rs), so both
    sides fit the same generated problem without shipping a data file. uint64 array
    arithmetic wraps, as Rust's wrapping_* does.
    """
    s0 = np.uint64((seed * SEED_MIX) & MASK)
    z = s0 + np.arange(start + 1, start + count + 1, dtype=np.uint64) * np.uint64(GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


# A call shorter than REPEAT_BELOW_S is repeated (one run of a few milliseconds is mostly
# scheduler noise) until REPEAT_BUDGET_S is spent or REPEAT_MAX calls; the median is taken.
# The same rule as margin's side (benches/src/bin/e2e/cases.rs).
REPEAT_BELOW_S = 0.05
REPEAT_BUDGET_S = 0.5
REPEAT_MAX = 100


def timed(f):
    """Runs f and times it (see REPEAT_*); returns the last call's value and the time."""
    times = []
    while True:
        start = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - start)
        spent = sum(times)
        if times[0] >= REPEAT_BELOW_S or spent >= REPEAT_BUDGET_S or len(times) >= REPEAT_MAX:
            return value, statistics.median(times)


# ---------------------------------------------------------------------------------------------
# Data (never timed)


def read_svmlight(path, n_features):
    """A LIBSVM file (plain, gzip or bzip2, told apart by its first bytes as margin does) as a
    CSR matrix and its labels.

    Plain Python rather than sklearn's loader: importing scikit-learn would add its import
    time to every LIBSVM/LIBLINEAR child and about 60 MB to their peak memory. Explicit zeros
    are kept, as LIBSVM's own reader keeps them.
    """
    with open(path, "rb") as f:
        head = f.read(3)
    opener = gzip.open if head[:2] == b"\x1f\x8b" else bz2.open if head == b"BZh" else open
    labels, indptr, indices, values = [], [0], [], []
    with opener(path, "rt") as f:
        for line in f:
            tokens = line.split("#", 1)[0].split()
            if not tokens:
                continue
            labels.append(float(tokens[0]))
            for token in tokens[1:]:
                index, value = token.split(":")
                # LIBSVM files count features from 1.
                indices.append(int(index) - 1)
                values.append(float(value))
            indptr.append(len(indices))
    x = sparse.csr_matrix((values, indices, indptr), shape=(len(labels), n_features))
    return x, np.asarray(labels)


def load_split(args):
    """(X_train, y_train, X_test, y_test) as scipy CSR matrices and float arrays; with
    --generate regression, the generated problem as a binary one (class 1 where y > 0), as
    margin's side reads it (the scaling runs size a classifier's data so)."""
    if args.generate == "regression":
        x, y, x_test, y_test = regression(args)
        labels = lambda t: (t > 0).astype(np.float64)
        return sparse.csr_matrix(x), labels(y), sparse.csr_matrix(x_test), labels(y_test)
    x, y = read_svmlight(args.train, args.n_features)
    if args.test is not None:
        x_test, y_test = read_svmlight(args.test, args.n_features)
        return x, y, x_test, y_test
    n = args.split
    return x[:n], y[:n], x[n:], y[n:]


def regression(args):
    """The generated least-squares problem: X uniform in [-1, 1), y = X·beta + noise."""
    n, m, d = args.n_train, args.n_test, args.n_features
    beta = 2.0 * uniform(2, 0, d) - 1.0
    x = np.empty((n + m, d))
    # In blocks of rows, so the generator's temporaries do not inflate the peak memory.
    block = 8192
    for r in range(0, n + m, block):
        rows = min(block, n + m - r)
        x[r : r + rows] = 2.0 * uniform(1, r * d, rows * d).reshape(rows, d) - 1.0
    y = x @ beta + 0.5 * (2.0 * uniform(3, 0, n + m) - 1.0)
    return x[:n], y[:n], x[n:], y[n:]


def scores(args):
    """Scores uniform in [0, 1); sample i is positive when another uniform falls below its
    score, so higher scores are more often positive (AUROC about 0.83)."""
    n = args.n_train
    s = uniform(4, 0, n)
    return s, uniform(5, 0, n) < s


def accuracy(truth, predicted):
    return float(np.mean(np.asarray(predicted) == truth))


# ---------------------------------------------------------------------------------------------
# Cases: one function per case name, the same names as the runner's table.


def svc_rbf(args):
    from libsvm import svmutil
    from libsvm.svm import libsvm as c_libsvm

    x, y, x_test, y_test = load_split(args)
    problem = svmutil.svm_problem(y, x)
    # LIBSVM's svm-train default gamma 1/d, as the margin side; repr() round-trips exactly.
    param = svmutil.svm_parameter(f"-c 1 -g {1.0 / x.shape[1]!r} -m 200 -q")
    model, fit_s = timed(lambda: svmutil.svm_train(problem, param))
    test = svmutil.svm_problem(y_test, x_test)
    # The C predictor on prebuilt nodes: svmutil.svm_predict would convert every row in
    # Python inside the timed region.
    predicted, predict_s = timed(
        lambda: [c_libsvm.svm_predict(model, test.x[i]) for i in range(test.l)]
    )
    return {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "score": accuracy(y_test, predicted),
        "metric": "accuracy",
        "n": x.shape[0],
        "d": x.shape[1],
        "n_sv": model.get_nr_sv(),
    }


def liblinear_svc(solver):
    """LIBLINEAR -s 1 (dual, squared hinge) or -s 3 (dual, hinge), C = 1, bias feature 1,
    default eps 0.1."""

    def run(args):
        from liblinear import liblinearutil

        x, y, x_test, y_test = load_split(args)
        problem = liblinearutil.problem(y, x)
        param = liblinearutil.parameter(f"-s {solver} -c 1 -B 1 -q")
        model, fit_s = timed(lambda: liblinearutil.train(problem, param))
        w, b = model.get_decfun()
        w = np.asarray(w)
        positive, negative = model.get_labels()
        # Predict as scikit-learn's LinearSVC does with LIBLINEAR's weights: one sparse
        # product. liblinearutil.predict spends its time converting rows in Python, which
        # would time the wrapper rather than the model.
        predicted, predict_s = timed(lambda: np.where(x_test @ w + b > 0, positive, negative))
        # Primal objective ½‖w‖² + C Σ loss (C = 1); the bias weight is regularized (-B 1).
        signs = np.where(y == positive, 1.0, -1.0)
        slack = np.maximum(0.0, 1.0 - signs * (x @ w + b))
        loss = slack**2 if solver == 1 else slack
        objective = 0.5 * (w @ w + b * b) + loss.sum()
        return {
            "fit_s": fit_s,
            "predict_s": predict_s,
            "score": accuracy(y_test, predicted),
            "metric": "accuracy",
            "n": x.shape[0],
            "d": x.shape[1],
            "objective": float(objective),
        }

    return run


def roc_auc(args):
    from sklearn.metrics import roc_auc_score

    s, positive = scores(args)
    auc, fit_s = timed(lambda: roc_auc_score(positive, s))
    return {
        "fit_s": fit_s,
        "predict_s": None,
        "score": float(auc),
        "metric": "auc",
        "n": len(s),
        "d": 1,
    }


def sklearn_regressor(make):
    def run(args):
        from sklearn.metrics import r2_score

        x, y, x_test, y_test = regression(args)
        model = make()
        _, fit_s = timed(lambda: model.fit(x, y))
        predicted, predict_s = timed(lambda: model.predict(x_test))
        return {
            "fit_s": fit_s,
            "predict_s": predict_s,
            "score": float(r2_score(y_test, predicted)),
            "metric": "r2",
            "n": x.shape[0],
            "d": x.shape[1],
        }

    return run


def fit_predict_accuracy(model, x, y, x_test, y_test):
    """A scikit-learn classifier's timed fit and predict, and its test accuracy."""
    _, fit_s = timed(lambda: model.fit(x, y))
    predicted, predict_s = timed(lambda: model.predict(x_test))
    return {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "score": accuracy(y_test, predicted),
        "metric": "accuracy",
        "n": x.shape[0],
        "d": x.shape[1],
    }


def sklearn_classifier(make, dense):
    def run(args):
        x, y, x_test, y_test = load_split(args)
        if dense:
            x, x_test = x.toarray(), x_test.toarray()
        return fit_predict_accuracy(make(), x, y, x_test, y_test)

    return run


def linear_regression():
    from sklearn.linear_model import LinearRegression

    return LinearRegression()


def ridge():
    from sklearn.linear_model import Ridge

    return Ridge(alpha=1.0)


def lasso():
    from sklearn.linear_model import Lasso

    return Lasso(alpha=0.01)


def logistic():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression()


def bernoulli_nb():
    from sklearn.naive_bayes import BernoulliNB

    return BernoulliNB()


def adaboost():
    from sklearn.ensemble import AdaBoostClassifier

    return AdaBoostClassifier(random_state=0)


def multinomial_nb():
    from sklearn.naive_bayes import MultinomialNB

    return MultinomialNB()


def gaussian_nb():
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


def decision_tree():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=0)


def random_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=0)


# The brute-force kNN case queries the first rows of ijcnn1's test file (as cases.rs does).
KNN_QUERIES = 10_000


def knn_brute(args):
    from sklearn.neighbors import KNeighborsClassifier

    x, y, x_test, y_test = load_split(args)
    x, x_test, y_test = x.toarray(), x_test[:KNN_QUERIES].toarray(), y_test[:KNN_QUERIES]
    model = KNeighborsClassifier(n_neighbors=5, algorithm="brute", n_jobs=2)
    return fit_predict_accuracy(model, x, y, x_test, y_test)


def knn_kd_tree():
    from sklearn.neighbors import KNeighborsRegressor

    return KNeighborsRegressor(n_neighbors=5, algorithm="kd_tree", n_jobs=2)


def hist_gradient_boosting(args):
    """The generated regression problem as a binary one: class 1 where y > 0."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    x, y, x_test, y_test = regression(args)
    y, y_test = (y > 0).astype(np.float64), (y_test > 0).astype(np.float64)
    model = HistGradientBoostingClassifier(max_iter=100, early_stopping=False)
    return fit_predict_accuracy(model, x, y, x_test, y_test)


def kmeans(args, algorithm="lloyd"):
    """KMeans from the first 10 training rows (margin starts from the same rows)."""
    from sklearn.cluster import KMeans

    x, _, x_test, _ = regression(args)
    model = KMeans(n_clusters=10, init=x[:10], n_init=1, algorithm=algorithm)
    _, fit_s = timed(lambda: model.fit(x))
    _, predict_s = timed(lambda: model.predict(x_test))
    return {
        "fit_s": fit_s,
        "predict_s": predict_s,
        "score": float(model.inertia_),
        "metric": "inertia",
        "n": x.shape[0],
        "d": x.shape[1],
    }


def pca(**params):
    def run(args):
        from sklearn.decomposition import PCA

        x, _, x_test, _ = regression(args)
        model = PCA(random_state=0, **params)
        _, fit_s = timed(lambda: model.fit(x))
        _, predict_s = timed(lambda: model.transform(x_test))
        return {
            "fit_s": fit_s,
            "predict_s": predict_s,
            "score": float(model.explained_variance_ratio_[:10].sum()),
            "metric": "evr10",
            "n": x.shape[0],
            "d": x.shape[1],
        }

    return run


CASES = {
    "svc-heart": svc_rbf,
    "svc-dna": svc_rbf,
    "svc-a9a": svc_rbf,
    "svc-w8a": svc_rbf,
    "svc-ijcnn1": svc_rbf,
    "svc-batched-a9a": svc_rbf,
    "svc-batched-w8a": svc_rbf,
    "svc-batched-ijcnn1": svc_rbf,
    "linsvc-l2-a9a": liblinear_svc(1),
    "linsvc-l1-a9a": liblinear_svc(3),
    "linsvc-l2-w8a": liblinear_svc(1),
    "linsvc-l1-w8a": liblinear_svc(3),
    # Pegasos has no exact peer: LIBLINEAR's exact hinge-loss solver, compared on accuracy.
    "pegasos-a9a": liblinear_svc(3),
    "logistic-a9a": sklearn_classifier(logistic, dense=False),
    "auroc-1e6": roc_auc,
    "linreg-200k": sklearn_regressor(linear_regression),
    "ridge-200k": sklearn_regressor(ridge),
    "lasso-200k": sklearn_regressor(lasso),
    "mnb-dna": sklearn_classifier(multinomial_nb, dense=False),
    "bnb-a9a": sklearn_classifier(bernoulli_nb, dense=False),
    "gnb-letter": sklearn_classifier(gaussian_nb, dense=True),
    "knn-brute-ijcnn1": knn_brute,
    "knn-kdtree-d3": sklearn_regressor(knn_kd_tree),
    "knn-kdtree-d8": sklearn_regressor(knn_kd_tree),
    "gb-synthetic": hist_gradient_boosting,
    "gb-synthetic-quick": hist_gradient_boosting,
    "kmeans-100k": kmeans,
    "kmeans-elkan-100k": lambda args: kmeans(args, algorithm="elkan"),
    "pca-full-20k": pca(svd_solver="full"),
    "pca-randomized-20k": pca(n_components=10, svd_solver="randomized"),
    "tree-ijcnn1": sklearn_classifier(decision_tree, dense=True),
    "forest-ijcnn1": sklearn_classifier(random_forest, dense=True),
    "adaboost-ijcnn1": sklearn_classifier(adaboost, dense=True),
}


def versions():
    from importlib.metadata import version

    names = ["numpy", "scipy", "scikit-learn", "libsvm-official", "liblinear-official"]
    parts = [f"python {sys.version.split()[0]} ({sys.executable})"]
    parts += [f"{name} {version(name)}" for name in names]
    return ", ".join(parts)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--train")
    parser.add_argument("--test")
    parser.add_argument("--split", type=int)
    parser.add_argument("--n-features", type=int)
    parser.add_argument("--generate", choices=["regression", "scores"])
    parser.add_argument("--n-train", type=int)
    parser.add_argument("--n-test", type=int)
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--versions", action="store_true", help="print the versions and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(sorted(CASES)))
        return
    if args.versions:
        print(versions())
        return
    if args.case is None:
        parser.error("--case is required")
    result = CASES[args.case](args)
    # ru_maxrss is in KiB on Linux.
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(result))


if __name__ == "__main__":
    main()
