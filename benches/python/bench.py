#!/usr/bin/env python3
"""margin's Python estimators against scikit-learn's, timed through the Python call.

    python benches/python/bench.py --quick          # 1 repetition, small cases only
    python benches/python/bench.py                  # every case, 3 repetitions
    python benches/python/bench.py --only svc-dna,overhead-logistic-a9a --repeats 5

Both sides are called as a user calls them (`est.fit(X, y)`, `est.predict(X)`), so
margin's input validation and the crossing into Rust are inside the timed region. The rules
are `cargo xtask bench`'s (benches/README.md): each (case, side, repetition) is its own
process, the sides alternate and which goes first alternates between repetitions, medians
are reported, a call under 50 ms is repeated (up to 0.5 s or 100 calls) and its median taken,
threads are pinned (RAYON/OMP/OPENBLAS/MKL_NUM_THREADS, OMP_WAIT_POLICY=PASSIVE), and a case
stops repeating where one more repetition would take it past 240 s.

The data loaders, generated problems and timing rule are imported from benches/peers/run.py.

`overhead-*` cases measure the binding overhead on a 1,000-row predict: (a) margin's
`est.predict(X)`, (b) the native call alone on the validated input
(`est._model.predict(_features(x))`), (c) scikit-learn's `predict(X)`; overhead = (a) − (b),
reported as a percentage of (c).

`svmutil-*` cases time LIBSVM's Python interface: `margin.svmutil`'s `svm_train` and
`svm_predict` against LIBSVM's own `libsvm.svmutil` (package libsvm-official), which takes the
reference ("sklearn") columns of those rows.

The table is printed and written to target/bench-report/python.md (CARGO_TARGET_DIR when set).
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUNDLED = ROOT / "crates" / "io" / "datasets"
SHARED = ROOT.parent / "shared" / "data"
CASE_BUDGET_S = 240.0


def load_run_py():
    spec = importlib.util.spec_from_file_location("margin_bench_peers", HERE.parent / "peers" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = load_run_py()
timed = peers.timed


def data_file(name):
    """A dataset file: the bundled copy, else the shared one; None when neither exists."""
    for directory in (BUNDLED, SHARED):
        if (directory / name).exists():
            return directory / name
    return None


# ---------------------------------------------------------------------------------------------
# Data (never timed), described as run.py's argument namespace.


def files(train, test, d):
    return {"train": train, "test": test, "n_features": d}


def generated(n_train, n_test, d):
    return {"generate": "regression", "n_train": n_train, "n_test": n_test, "n_features": d}


DNA = files("dna.scale", "dna.scale.t", 180)
A9A = files("a9a.gz", "a9a.t.gz", 123)
IJCNN1 = files("ijcnn1.trn.bz2", "ijcnn1.tst.bz2", 22)
GB_QUICK = generated(100_000, 20_000, 20)
KMEANS = generated(100_000, 10_000, 50)
PCA_DATA = generated(20_000, 2_000, 500)


def namespace(data):
    args = types.SimpleNamespace(
        train=None, test=None, split=None, n_features=None, generate=None, n_train=None, n_test=None
    )
    for key, value in data.items():
        setattr(args, key, value)
    if args.train is not None:
        args.train, args.test = str(data_file(args.train)), str(data_file(args.test))
    return args


def missing(data):
    """The data files a case lacks."""
    return [data[k] for k in ("train", "test") if k in data and data_file(data[k]) is None]


def split(data, dense):
    args = namespace(data)
    if args.generate:
        return peers.regression(args)
    x, y, x_test, y_test = peers.load_split(args)
    if dense:
        x, x_test = x.toarray(), x_test.toarray()
    return x, y, x_test, y_test


def binary(data):
    """The generated regression problem as a binary one (class 1 where y > 0), as run.py's
    gb-synthetic."""
    x, y, x_test, y_test = split(data, dense=True)
    return x, (y > 0).astype(float), x_test, (y_test > 0).astype(float)


# ---------------------------------------------------------------------------------------------
# Cases: the same class name and parameters on both sides.


def module(side):
    if side == "margin":
        import margin

        return margin
    import sklearn.cluster
    import sklearn.decomposition
    import sklearn.ensemble
    import sklearn.linear_model
    import sklearn.neighbors
    import sklearn.svm

    mods = [sklearn.svm, sklearn.linear_model, sklearn.ensemble, sklearn.cluster,
            sklearn.decomposition, sklearn.neighbors]
    return types.SimpleNamespace(**{k: getattr(m, k) for m in mods for k in dir(m) if k[0].isupper()})


# name: (data, dense, class, params, sklearn-only params, quick, loader)
CASES = {
    "svc-dna": dict(data=DNA, dense=True, cls="SVC", gamma_1_over_d=True,
                    params=dict(C=1.0, kernel="rbf", cache_size=200.0), quick=True),
    "svc-a9a": dict(data=A9A, dense=True, cls="SVC", gamma_1_over_d=True,
                    params=dict(C=1.0, kernel="rbf", cache_size=200.0), quick=False),
    "logistic-a9a": dict(data=A9A, dense=False, cls="LogisticRegression", params={}, quick=True),
    "forest-ijcnn1": dict(data=IJCNN1, dense=True, cls="RandomForestClassifier",
                          params=dict(n_estimators=100, random_state=0),
                          sklearn=dict(n_jobs=2), quick=False),
    "hgb-synthetic-100k": dict(data=GB_QUICK, loader=binary, cls="HistGradientBoostingClassifier",
                               params=dict(max_iter=100, early_stopping=False), quick=True),
    # margin's KMeans takes no array of initial centres (run.py's init=X[:10]): k-means++ on
    # both sides, so the inertias differ by the starts.
    "kmeans-100k": dict(data=KMEANS, dense=True, cls="KMeans", metric="inertia",
                        params=dict(n_clusters=10, n_init=1, random_state=0), quick=True),
    "pca-full-20k": dict(data=PCA_DATA, dense=True, cls="PCA", metric="evr10",
                         params=dict(svd_solver="full"), quick=True),
    "knn-brute-ijcnn1": dict(data=IJCNN1, dense=True, cls="KNeighborsClassifier", test_rows=10_000,
                             params=dict(n_neighbors=5, algorithm="brute"),
                             sklearn=dict(n_jobs=2), quick=True),
    # Binding overhead: 1,000 test rows of a fitted model's predict.
    "overhead-logistic-a9a": dict(data=A9A, dense=True, cls="LogisticRegression", params={},
                                  overhead=True, quick=True),
    "overhead-hgb-synthetic": dict(data=GB_QUICK, loader=binary, cls="HistGradientBoostingClassifier",
                                   params=dict(max_iter=100, early_stopping=False),
                                   overhead=True, quick=True),
    # LIBSVM's Python interface: margin.svmutil against LIBSVM's own libsvm.svmutil (the
    # reference side of these rows), on the scipy CSR matrices LIBSVM's users pass.
    "svmutil-dna": dict(data=DNA, svmutil="-q -c 1", quick=True),
    "svmutil-a9a": dict(data=A9A, svmutil="-q -c 1", quick=False),
}
OVERHEAD_ROWS = 1000


def make(case, side, d):
    params = dict(case["params"])
    if case.get("gamma_1_over_d"):
        params["gamma"] = 1.0 / d
    if side == "sklearn":
        params.update(case.get("sklearn", {}))
    return getattr(module(side), case["cls"])(**params)


def run_child(name, side):
    """One (case, side) in this process; returns the JSON-able result."""
    import numpy as np

    case = CASES[name]
    if "svmutil" in case:
        return run_svmutil(case, side)
    loader = case.get("loader") or (lambda data: split(data, case.get("dense", True)))
    x, y, x_test, y_test = loader(case["data"])
    if "test_rows" in case:
        x_test, y_test = x_test[: case["test_rows"]], y_test[: case["test_rows"]]
    est = make(case, side, x.shape[1])
    metric = case.get("metric", "accuracy")
    unsupervised = metric != "accuracy"
    _, fit_s = timed(lambda: est.fit(x) if unsupervised else est.fit(x, y))
    result = {"n": x.shape[0], "d": x.shape[1], "fit_s": fit_s, "metric": metric}
    if case.get("overhead"):
        x_small = np.ascontiguousarray(x_test[:OVERHEAD_ROWS])
        predicted, result["predict_s"] = timed(lambda: est.predict(x_small))
        result["score"] = float(np.mean(predicted == y_test[:OVERHEAD_ROWS]))
        result["rows"] = x_small.shape[0]
        if side == "margin":
            from margin._estimators import _features

            native = _features(est._validate(x_small, reset=False)[0])
            _, result["native_s"] = timed(lambda: est._model.predict(native))
        return result
    method = est.transform if metric == "evr10" else est.predict
    predicted, result["predict_s"] = timed(lambda: method(x_test))
    if metric == "accuracy":
        result["score"] = float(np.mean(np.asarray(predicted) == y_test))
    elif metric == "inertia":
        result["score"] = float(est.inertia_)
        result["n_iter"] = int(getattr(est, "n_iter_", -1))
    else:
        result["score"] = float(np.sum(est.explained_variance_ratio_[:10]))
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return result


def run_svmutil(case, side):
    """One svmutil case: `svm_train` then `svm_predict` of margin's module, or of LIBSVM's
    (`libsvm-official`) for the reference side."""
    if side == "margin":
        from margin import svmutil
    else:
        from libsvm import svmutil
    x, y, x_test, y_test = split(case["data"], dense=False)
    model, fit_s = timed(lambda: svmutil.svm_train(y, x, case["svmutil"]))
    (_, (acc, _, _), _), predict_s = timed(lambda: svmutil.svm_predict(y_test, x_test, model, "-q"))
    return {"n": x.shape[0], "d": x.shape[1], "fit_s": fit_s, "predict_s": predict_s,
            "metric": "accuracy", "score": acc / 100,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}


# ---------------------------------------------------------------------------------------------
# Parent: children, medians, the table.


def child_env(threads):
    env = dict(os.environ)
    for var in ("RAYON_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def spawn(name, side, threads):
    command = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--side", side]
    start = time.perf_counter()
    proc = subprocess.run(command, env=child_env(threads), capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None, wall, (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return json.loads(lines[-1]), wall, None


def close(metric, a, b):
    if metric == "accuracy":
        return abs(a - b) <= 0.01
    if metric == "inertia":
        return abs(a - b) <= 0.02 * max(abs(a), abs(b))
    return abs(a - b) <= 1e-4


def fmt_s(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def run_case(name, repeats, threads):
    results = {"margin": [], "sklearn": []}
    spent = 0.0
    for rep in range(repeats):
        order = ("margin", "sklearn") if rep % 2 == 0 else ("sklearn", "margin")
        walls = 0.0
        for side in order:
            result, wall, error = spawn(name, side, threads)
            walls += wall
            if error:
                return None, f"{side} failed: {error}"
            results[side].append(result)
        spent += walls
        # Stop where one more repetition would take the case past the budget.
        if spent + walls > CASE_BUDGET_S:
            break
    return results, None


def median(results, key):
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "—"


def machine():
    cpu = platform.processor() or "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return f"{os.cpu_count()} cores, {cpu}, load average {' '.join(f'{v:.2f}' for v in load)}"


def versions():
    from importlib.metadata import version

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "unknown"
    parts = [f"python {sys.version.split()[0]} ({sys.executable})"]
    for name in ("numpy", "scipy", "scikit-learn", "libsvm-official"):
        try:
            parts.append(f"{name} {version(name)}")
        except Exception:
            parts.append(f"{name} ?")
    parts.append(f"margin commit {commit or 'unknown'}")
    return ", ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 repetition, small cases only")
    parser.add_argument("--repeats", type=int, default=None, help="repetitions per side (default 3)")
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--threads", type=int, default=2, help="threads per side (default 2)")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--side", choices=["margin", "sklearn"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(run_child(args.child, args.side)))
        return
    if args.list:
        for name, case in CASES.items():
            print(name, "" if case["quick"] else "(full only)")
        return
    repeats = args.repeats or (1 if args.quick else 3)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in CASES]
        if unknown:
            parser.error(f"unknown case(s) {', '.join(unknown)}; --list shows them")
    else:
        names = [n for n, c in CASES.items() if c["quick"] or not args.quick]

    started = time.perf_counter()
    rows, overhead_rows, notes = [], [], []
    for name in names:
        case = CASES[name]
        lacking = missing(case["data"])
        if lacking:
            notes.append(f"{name}: skipped, missing {', '.join(lacking)}")
            print(notes[-1], file=sys.stderr)
            continue
        print(f"{name} ...", file=sys.stderr, flush=True)
        results, error = run_case(name, repeats, args.threads)
        if error:
            notes.append(f"{name}: {error}")
            print(notes[-1], file=sys.stderr)
            continue
        m, s = results["margin"], results["sklearn"]
        if case.get("overhead"):
            a, b, c = median(m, "predict_s"), median(m, "native_s"), median(s, "predict_s")
            over = a - b
            overhead_rows.append(
                f"| {name} | {m[0]['rows']} × {m[0]['d']} | {fmt_s(a)} | {fmt_s(b)} | {fmt_s(c)} "
                f"| {over * 1e6:.1f} µs | {100 * over / c:.1f}% | {len(m)} |"
            )
            if over > 0.1 * c:
                notes.append(f"{name}: WARNING binding overhead {100 * over / c:.1f}% of "
                             f"scikit-learn's predict (target < 10%)")
            continue
        if "svmutil" in case:
            notes.append(f"{name}: the sklearn columns are LIBSVM's own Python module "
                         f"(libsvm.svmutil), options `{case['svmutil']}`")
        metric = m[0]["metric"]
        sm, ss = median(m, "score"), median(s, "score")
        fm, fs = median(m, "fit_s"), median(s, "fit_s")
        pm, ps = median(m, "predict_s"), median(s, "predict_s")
        if "n_iter" in m[0]:
            notes.append(f"{name}: iterations margin {m[0]['n_iter']}, scikit-learn {s[0]['n_iter']} "
                         "(k-means++ starts differ)")
        flag = "" if close(metric, sm, ss) else " ⚠"
        if flag:
            notes.append(f"{name}: WARNING scores differ: margin {sm:.6g}, scikit-learn {ss:.6g} ({metric})")
        rows.append(
            f"| {name} | {m[0]['n']} × {m[0]['d']} | {fmt_s(fm)} | {fmt_s(fs)} | {ratio(fm, fs)} "
            f"| {fmt_s(pm)} | {fmt_s(ps)} | {ratio(pm, ps)} | {sm:.4g} | {ss:.4g}{flag} | {metric} | {len(m)} |"
        )
        print(rows[-1], file=sys.stderr)

    command = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv])
    out = [
        "# margin (Python) against scikit-learn",
        "",
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- machine: {machine()}",
        f"- versions: {versions()}",
        f"- command: `{command}`",
        f"- threads per side: {args.threads}; repetitions: {repeats} (medians); "
        f"total {time.perf_counter() - started:.0f} s",
        "",
        "| case | n × d | fit margin | fit sklearn | fit ratio | predict margin | predict sklearn "
        "| predict ratio | score margin | score sklearn | metric | reps |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    if overhead_rows:
        out += [
            "",
            "Binding overhead on a 1,000-row predict: (a) margin `est.predict(X)`, (b) the native "
            "call on the validated input `est._model.predict(x)`, (c) scikit-learn `predict(X)`.",
            "",
            "| case | rows × d | (a) margin | (b) native | (c) sklearn | (a) − (b) | % of (c) | reps |",
            "|---|---|---|---|---|---|---|---|",
            *overhead_rows,
        ]
    if notes:
        out += ["", *[f"- {n}" for n in notes]]
    text = "\n".join(out) + "\n"
    print(text)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    report = target / "bench-report" / "python.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(text)
    print(f"written to {report}", file=sys.stderr)


if __name__ == "__main__":
    main()
