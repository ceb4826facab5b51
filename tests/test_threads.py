"""The door to numba's thread pool (``sparray.kernels.cpu._threads``): threads counted, never timed.

- ``team`` grants one thread below its grain, the caller's limit above it, keeps an outer team's
  count for nested kernels and puts numba's count back afterwards;
- Python threads calling kernels at once share the caller's limit (a pool of 4 threads on 2 cores
  gets one thread each, not 4 x 2);
- a core that other processes keep busy is not handed out (``free_cores``, fed fake clocks here),
  except to long calls of kernels that hand their chunks out by ``claim`` (``shared``);
- every parallel kernel of ``kernels/cpu`` launched by an operation runs inside a team;
- ``claim`` hands every chunk to exactly one worker;
- sparray asks numba for the OpenMP layer first unless the user chose; under the workqueue layer
  concurrent calls from four Python threads do not abort the process.
"""

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pytest

import sparray
from sparray.kernels.cpu import _threads
from sparray.kernels.cpu._threads import team

_CAP = numba.config.NUMBA_NUM_THREADS


def _csr(n, per_row, seed=0):
    rng = np.random.default_rng(seed)
    nnz = n * per_row
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, n, nnz)
    A = sparray.COO(np.stack([rows, cols]), rng.random(nnz), shape=(n, n)).to_layout("csr")
    return A


def test_team_grants_and_restores():
    before = numba.get_num_threads()
    with team(0) as t:
        assert t == 1 and numba.get_num_threads() == 1
        with team(1 << 30) as inner:  # nested: the outer call decided
            assert inner == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before and _threads.last_team() == 1
    with team(1 << 30) as t:
        assert t == min(before, _CAP) and numba.get_num_threads() == t
    assert numba.get_num_threads() == before


def test_team_respects_the_callers_limit():
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with team(1 << 30) as t:
            assert t == 1
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


@pytest.mark.skipif(_CAP < 2, reason="needs at least two numba threads")
def test_pool_threads_share_the_limit(monkeypatch):
    """Four Python threads multiplying at once: no call is granted more than its share of the
    limit, so the pool never runs more than ``_CAP`` numba threads between them (counted as the
    calls enter; overlapping calls are seen: the kernels release the GIL)."""
    A = _csr(60_000, 8)
    x = np.ones(60_000)
    expected = A @ x
    seen, lock = [], threading.Lock()

    def observe(threads, callers):
        with lock:
            seen.append((threads, callers))

    monkeypatch.setattr(_threads, "observer", observe)
    start = threading.Barrier(4)

    def work(_):
        start.wait()
        out = [A @ x for _ in range(30)]
        return all(np.array_equal(y, expected) for y in out)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(4)))
    parallel = [(t, c) for t, c in seen if c > 0]
    assert parallel, "no parallel-sized call was made"
    assert all(t <= max(1, _CAP // c) for t, c in parallel), sorted(set(parallel))
    assert any(c > 1 for _, c in parallel), "the calls never overlapped"
    assert _threads._ACTIVE == {}


def _fake_load(monkeypatch, others_per_second):
    """Clocks for free_cores: wall time steps 0.25 s a reading, the other processes use
    ``others_per_second`` cores' worth of CPU time over it, this process none."""
    state = {"t": 100.0, "busy": 5000.0}

    def now():
        return state["t"]

    def busy(cores):
        return state["busy"]

    def tick():
        state["t"] += 0.25
        state["busy"] += 0.25 * others_per_second

    monkeypatch.setattr(_threads, "_now", now)
    monkeypatch.setattr(_threads, "_own_cpu", lambda: 1.0)
    monkeypatch.setattr(_threads, "_busy_seconds", busy)
    monkeypatch.setattr(_threads, "_cores", lambda: [0, 1])
    monkeypatch.setattr(_threads, "_sample", None)
    monkeypatch.setattr(_threads, "_others", 0.0)
    return tick


@pytest.mark.parametrize("others, free", [(0.0, 2), (0.2, 2), (0.6, 2), (0.8, 1), (1.0, 1), (1.9, 1), (3.0, 1)])
def test_free_cores_leaves_busy_cores_out(monkeypatch, others, free):
    tick = _fake_load(monkeypatch, others)
    assert _threads.free_cores() == 2  # nothing measured yet
    tick()
    assert _threads.free_cores() == free
    tick()
    assert _threads.free_cores() == free


@pytest.mark.skipif(_CAP < 2, reason="needs at least two numba threads")
def test_busy_core_makes_calls_serial_but_shared_kernels_keep_it(monkeypatch):
    tick = _fake_load(monkeypatch, 1.0)
    monkeypatch.setattr(_threads, "WATCH_LOAD", True)
    _threads.free_cores()
    tick()
    with team(1 << 30) as t:
        assert t == 1
    with team(1 << 30, shared=1 << 20) as t:
        assert t == min(2, _CAP)
    with team(1 << 19, shared=1 << 20) as t:
        assert t == 1
    monkeypatch.setattr(_threads, "WATCH_LOAD", False)
    with team(1 << 30) as t:
        assert t == min(2, _CAP)


@pytest.mark.skipif(_CAP < 2, reason="needs at least two numba threads")
def test_spgemm_under_a_busy_core_is_exact(monkeypatch):
    """With other processes on a core, SpGEMM's claimed chunks still give the scipy result, for
    one granted thread and for two."""
    sp = pytest.importorskip("scipy.sparse")
    A = _csr(3000, 12, seed=1)
    ref = sp.csr_array((A.values, A.col_indices, A.crow_indices), shape=A.shape) @ sp.csr_array(
        (A.values, A.col_indices, A.crow_indices), shape=A.shape)
    ref.sort_indices()
    tick = _fake_load(monkeypatch, 1.0)
    monkeypatch.setattr(_threads, "WATCH_LOAD", True)
    _threads.free_cores()
    tick()
    for _ in range(3):
        C = A @ A
        np.testing.assert_array_equal(np.asarray(C.crow_indices), ref.indptr)
        np.testing.assert_array_equal(np.asarray(C.col_indices), ref.indices)
        np.testing.assert_allclose(np.asarray(C.values), ref.data, rtol=1e-12)


def test_claim_hands_each_chunk_to_one_worker():
    from sparray.kernels.cpu._common import claim

    @numba.njit(parallel=True, cache=False)
    def hand_out(nchunks, counter):
        owner = np.full(nchunks, -1, np.int64)
        hits = np.zeros(nchunks, np.int64)
        for w in numba.prange(numba.get_num_threads()):
            c = claim(counter)
            while c < nchunks:
                owner[c] = w
                hits[c] += 1
                c = claim(counter)
        return owner, hits

    for nchunks in (0, 1, 7, 1000):
        counter = np.zeros(1, np.int64)
        owner, hits = hand_out(nchunks, counter)
        assert (hits == 1).all() and (owner >= 0).all()
        assert counter[0] == nchunks + numba.get_num_threads()  # each worker's last claim found none


def _parallel_dispatchers():
    """(module, name) of every parallel kernel defined in kernels/cpu and called from Python."""
    import importlib
    import pkgutil

    import sparray.kernels.cpu as pkg

    out = []
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"sparray.kernels.cpu.{info.name}")
        for name, obj in vars(mod).items():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.targetoptions.get("parallel"):
                if getattr(obj, "py_func", None) is not None and obj.py_func.__module__ == mod.__name__:
                    out.append((mod, name))
    return out


#: parallel kernels that other numba kernels call (never from Python): a wrapper would break them
_CALLED_FROM_NUMBA = {"_tr_prefix"}


@pytest.mark.skipif(_CAP < 2, reason="needs at least two numba threads")
def test_every_parallel_kernel_runs_inside_a_team(monkeypatch):
    """Each parallel kernel that the operations below launch is inside a team: the rule that
    makes the workqueue layer safe and the thread budget hold."""
    outside = set()
    for mod, name in _parallel_dispatchers():
        if name in _CALLED_FROM_NUMBA:
            continue
        kernel = getattr(mod, name)

        def guarded(*args, _kernel=kernel, _name=f"{mod.__name__.rsplit('.', 1)[1]}.{name}"):
            if not getattr(_threads._LOCAL, "depth", 0):
                outside.add(_name)
            return _kernel(*args)

        monkeypatch.setattr(mod, name, guarded)
    rng = np.random.default_rng(5)
    n, nnz = 40_000, 400_000
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals = rng.random(nnz)
    C = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n))
    A = C.to_layout("csr")
    B = sparray.COO(np.stack([cols, rows]), vals, shape=(n, n)).to_layout("csr")
    x, X = np.ones(n), np.ones((n, 4))
    small = _csr(300, 4)
    ops = [
        lambda: C.coalesce(), lambda: A @ x, lambda: A @ X, lambda: A.mT @ x, lambda: small @ small, lambda: A + B,
        lambda: A * B, lambda: A - 1.0, lambda: sparray.sum(A, axis=0), lambda: sparray.sum(A, axis=1),
        lambda: sparray.max(A, axis=0), lambda: sparray.sum(C, axis=1), lambda: A.to_layout("csc"),
        lambda: A.to_layout("coo"), lambda: C.to_layout("csc"), lambda: A[::3], lambda: A[:, 5:900],
        lambda: sparray.sort(C, axis=1), lambda: sparray.unique_values(A), lambda: C + C.mT,
        lambda: sparray.asarray(np.eye(600), layout="csr"), lambda: sparray.asarray(np.eye(600), layout="bsr", blocksize=(2, 2)) @ np.ones(600),
        lambda: A.to_layout("bsr", blocksize=(2, 2)).to_layout("csr"), lambda: sparray.linalg.vector_norm(A),
        lambda: sparray.nonzero(A),
    ]
    for op in ops:
        op()
    assert not outside, f"parallel kernels launched outside a team: {sorted(outside)}"


def _run(code, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)


_LAYER_CODE = """
import numba, numpy as np, sparray
from sparray.kernels.cpu import _threads
A = sparray.asarray(np.eye(4), layout="csr")
_threads.layer()
import os
assert "GOMP_SPINCOUNT" not in os.environ  # set only while the pool started
print(numba.threading_layer(), numba.config.THREADING_LAYER_PRIORITY[0])
"""


def test_sparray_asks_for_openmp_first_unless_told():
    out = _run(_LAYER_CODE, {"SPARRAY_JIT": "eager"})
    assert out.returncode == 0, out.stderr
    layer, first = out.stdout.split()
    assert first == "omp"
    told = _run(_LAYER_CODE, {"NUMBA_THREADING_LAYER": "workqueue"})
    assert told.returncode == 0, told.stderr
    assert told.stdout.split()[0] == "workqueue"


_WORKQUEUE_CODE = """
import threading, numpy as np, sparray
from concurrent.futures import ThreadPoolExecutor
from sparray.kernels.cpu import _threads
assert _threads.layer() == "workqueue", _threads.layer()
rng = np.random.default_rng(0)
n, nnz = 100_000, 600_000
A = sparray.COO(np.stack([rng.integers(0, n, nnz), rng.integers(0, n, nnz)]), rng.random(nnz), shape=(n, n)).to_layout("csr")
B = A.mT.to_layout("csr")
x = np.ones(n)
ref = (A @ x, (A + B).to_dense() if False else sparray.sum(A + B, axis=0).to_dense(), sparray.sum(A, axis=1).to_dense())
go = threading.Barrier(4)
def work(i):
    go.wait()
    ok = True
    for _ in range(10):
        ok &= np.array_equal(A @ x, ref[0])
        ok &= np.allclose(sparray.sum(A + B, axis=0).to_dense(), ref[1])
        ok &= np.array_equal(sparray.sum(A, axis=1).to_dense(), ref[2])
        A.to_layout("csc")
    return ok
with ThreadPoolExecutor(4) as pool:
    print(all(pool.map(work, range(4))))
"""


def test_workqueue_layer_survives_four_threads():
    """NUMBA_THREADING_LAYER=workqueue, four Python threads multiplying, adding, summing and
    converting one 6e5-entry CSR at once: numba aborts the process on a concurrent launch there
    ("Concurrent access has been detected"); every kernel holds the team's lock instead."""
    out = _run(_WORKQUEUE_CODE, {"NUMBA_THREADING_LAYER": "workqueue", "SPARRAY_JIT": "eager"})
    assert out.returncode == 0, (out.returncode, out.stderr[-3000:])
    assert out.stdout.strip() == "True"
