"""Memory limits and endless inputs from Python: each case runs in a child interpreter under
an address-space limit (``resource.setrlimit(RLIMIT_AS)``, what ``ulimit -v`` sets), and must
end in a clean Python exception (or a completed fit), never in an abort or a kill that takes
the interpreter with it, and within a bounded time."""

import pathlib
import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource", reason="RLIMIT_AS is POSIX")

ROOT = pathlib.Path(__file__).resolve().parents[2]
A9A = ROOT / "datasets" / "a9a.gz"

MB = 1 << 20

# The child: imports and prepares (unlimited), then limits its address space to `limit` bytes
# in all (as `ulimit -v` would; the interpreter with numpy, scipy and margin loaded maps about
# 600 MB of it), runs the case and prints how it ended. Where the interpreter alone maps nearly
# all of the limit, it says SKIP.
CHILD = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    import margin

    {prepare}

    def address_space():
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        return 0

    if address_space() + {headroom} > {limit}:
        print("SKIP the interpreter maps", address_space(), "bytes already", flush=True)
        sys.exit(0)
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    try:
        {action}
        print("COMPLETED", flush=True)
    except MemoryError as e:
        print("MemoryError", e, flush=True)
    except (ValueError, OSError) as e:
        print(type(e).__name__, e, flush=True)
    """
)


# Room the case needs beyond what the interpreter maps before it, at least: below it the test
# is skipped rather than failed.
HEADROOM = 100 * MB


def run_limited(prepare, action, limit, timeout):
    """Runs `action` in a child under the limit; returns its last output line, after checking
    that the interpreter ended normally (an abort or a kill has a non-zero status)."""
    script = CHILD.format(
        prepare=textwrap.dedent(prepare).strip(),
        action=action.strip(),
        limit=limit,
        headroom=HEADROOM,
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (
        f"the interpreter did not survive (status {done.returncode}):\n{done.stdout}\n{done.stderr}"
    )
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    if lines[-1].startswith("SKIP"):
        pytest.skip(lines[-1])
    return lines[-1]


@pytest.mark.skipif(not A9A.exists(), reason="datasets/a9a.gz is not in this checkout")
def test_svc_on_a9a_under_800_mb_completes_or_raises_memory_error():
    outcome = run_limited(
        f"""
from sklearn.datasets import load_svmlight_file
X, y = load_svmlight_file({str(A9A)!r})
""",
        "margin.SVC().fit(X, y)",
        limit=800 * MB,
        timeout=900,
    )
    assert outcome == "COMPLETED" or outcome.startswith("MemoryError"), outcome


def test_a_forest_of_10_to_the_12_trees_is_refused_cleanly():
    outcome = run_limited(
        """
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
""",
        "margin.RandomForestClassifier(n_estimators=10**12).fit(X, y)",
        limit=800 * MB,
        timeout=120,
    )
    assert outcome.startswith(("MemoryError", "ValueError")), outcome
    assert "n_estimators" in outcome or "tree" in outcome, outcome


def test_loading_dev_zero_fails_fast_with_a_clear_error():
    outcome = run_limited("", "margin.load('/dev/zero')", limit=800 * MB, timeout=60)
    assert outcome.startswith("ValueError"), outcome
    assert "model file" in outcome, outcome
