"""Background compilation and thread safety of the numba kernels (sparray._engine.jit), each case in a fresh
process with an empty kernel cache of its own: the first call answers through the generic path while
a background process compiles, the answer is right, the kernel is ready afterwards (here and in a
later process), jobs left at exit still get compiled, eager mode compiles in the caller; and under
numba's workqueue threading layer, threads calling kernels at once neither crash nor disagree."""

import os
import subprocess
import sys
import textwrap

import pytest

import sparray._engine.jit as jit

pytestmark = pytest.mark.skipif(__import__("importlib").util.find_spec("numba") is None, reason="needs numba")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SETUP = """
import os
import numpy as np, sparray
from sparray._engine import dispatch as _dispatch
from sparray._engine import jit as _jit
rng = np.random.default_rng(0)
n, nse = 40_000, 200_000
rows, cols, vals = rng.integers(0, n, nse), rng.integers(0, n, nse), rng.random(nse)
D = np.zeros(n); np.add.at(D, cols, vals)  # the column sums of the matrix
"""


def _run(code, cache, env=None, timeout=600):
    full = dict(os.environ, SPARRAY_CACHE_DIR=str(cache), PYTHONPATH=ROOT)
    full.pop("SPARRAY_JIT", None)
    full.pop("SPARRAY_BACKEND", None)
    full.update(env or {})
    done = subprocess.run([sys.executable, "-c", SETUP + textwrap.dedent(code)], env=full, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_first_call_answers_while_the_kernel_compiles_in_the_background(tmp_path):
    out = _run("""
        A = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n))
        assert _jit.mode() == "background"
        s = sparray.sum(A, axis=0)                       # coalesce + reductions: kernels not compiled yet
        assert np.allclose(s.to_dense(), D)              # the generic path answered, correctly
        assert _jit.compiling() >= 1                     # ... while a compile process works
        jobs = list(_jit._QUEUED.values())
        assert _jit.wait(600)
        assert _jit._READY and not _jit._TRIED           # every queued kernel ran in the background
        assert not any(os.path.exists(j) for j in jobs)  # and its job file is gone
        for key in list(_jit._READY):                    # now the kernels serve, not the generic path
            _dispatch._REGISTRY[(key[0], key[1], "generic")] = None
        s2 = sparray.sum(sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)), axis=0)
        assert np.allclose(s2.to_dense(), D)
        print("READY", len(_jit._READY))
    """, tmp_path)
    assert "READY" in out
    # a later process finds the kernels ready: no background job, the kernels run at once
    _run("""
        s = sparray.sum(sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)), axis=0)
        assert _jit.compiling() == 0, _jit._QUEUED
        assert np.allclose(s.to_dense(), D)
    """, tmp_path)


def test_jobs_left_at_exit_are_compiled_by_a_process_that_outlives_the_caller(tmp_path):
    out = _run("""
        A = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n))
        (A + A).to_layout("csr")                          # queue several kernels, exit at once
        assert _jit.compiling() >= 1
        print("KEYS", repr(list(_jit._QUEUED)))
    """, tmp_path)
    keys = out.split("KEYS ", 1)[1].strip()
    # the process running at exit and the hand-over one leave every marker within a while
    _run(f"""
        import time
        keys = {keys}
        end = time.monotonic() + 500
        while time.monotonic() < end and not all(_jit.ready(k) for k in keys):
            time.sleep(1)
        assert all(_jit.ready(k) for k in keys), [k for k in keys if not _jit.ready(k)]
    """, tmp_path)


def test_eager_mode_compiles_in_the_caller(tmp_path):
    _run("""
        s = sparray.sum(sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)), axis=0)
        assert _jit.mode() == "eager" and _jit.compiling() == 0 and _jit._READY
        assert np.allclose(s.to_dense(), D)
    """, tmp_path, env={"SPARRAY_JIT": "eager"})


def test_mode_names():
    with pytest.raises(ValueError, match="background"):
        jit.set_mode("lazy")
    done = subprocess.run([sys.executable, "-c", "import sparray; sparray.sum(sparray.asarray([1.0]))"],
                          env=dict(os.environ, SPARRAY_JIT="later", PYTHONPATH=ROOT), capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0 and "SPARRAY_JIT" in done.stderr


def test_key_is_the_types_numba_specialises_on():
    import numpy as np

    a, b = np.zeros(3), np.zeros((2, 3))[:, ::2]
    assert jit.key_of("op", "csr", (a, 1)) == jit.key_of("op", "csr", (np.ones(5), 2))
    assert jit.key_of("op", "csr", (a,)) != jit.key_of("op", "csr", (a.astype(np.float32),))
    assert jit.key_of("op", "csr", (b,)) != jit.key_of("op", "csr", (np.zeros((2, 2)),))  # contiguity
    assert jit.key_of("op", "csr", (np.int64(1),)) != jit.key_of("op", "csr", (1,))


def test_workqueue_layer_threads_call_kernels_at_once(tmp_path):
    out = _run("""
        import threading
        import numba
        from sparray.interop.scipy import to_scipy
        A = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)).coalesce().to_layout("csr")
        x = rng.random(n)
        want = to_scipy(A) @ x
        results, errors = [], []
        def work():
            try:
                with sparray.use_backend("numba"):
                    for _ in range(5):
                        results.append(np.allclose(A @ x, want))
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert not errors and len(results) == 20 and all(results), errors
        print("LAYER", numba.threading_layer())
    """, tmp_path, env={"NUMBA_THREADING_LAYER": "workqueue", "SPARRAY_JIT": "eager"})
    assert "LAYER workqueue" in out
