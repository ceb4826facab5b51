"""Results are freed when their last reference goes: no reference cycle through an array.

An array held in a reference cycle lives until Python's cyclic collector runs, which may be many
calls later: a loop ``C = A @ A`` then keeps every result's buffers alive, and each call writes a
result into memory the process never touched before. On a VM that hands freed pages back to its
host, those first touches cost more than the product itself (SpGEMM of the 1e6-row Poisson matrix:
240 ms a call, 400 ms of it system time, instead of 50 ms). The cause was the lean state kept on an
array (``A._lean``) pointing back at the array.

Each case runs an operation with the collector off and counts what ``gc.collect()`` then finds:
objects that only the collector could free. A count, not a time.
"""

import gc

import numpy as np
import pytest

import sparray

_LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
_FILLS = [0.0, 1.5, np.nan]


def _matrix(rng, layout, fill, shape=(12, 16)):
    dense = np.where(rng.random(shape) < 0.3, rng.random(shape), fill)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    return sparray.asarray(dense, layout=layout, fill_value=fill, **kw)


def _operations(A, B, C, x, X):
    """name -> a call on arrays of one layout and fill (``C``: a product's right operand)."""
    return {
        "A @ x": lambda: A @ x,
        "A @ X": lambda: A @ X,
        "A @ C": lambda: A @ C,
        "A + B": lambda: A + B,
        "A * B": lambda: A * B,
        "A * 2": lambda: A * 2,
        "exp(A)": lambda: sparray.exp(A),
        "A > 0.5": lambda: A > 0.5,
        "sum(A, axis=0)": lambda: sparray.sum(A, axis=0),
        "sum(A, axis=1)": lambda: sparray.sum(A, axis=1),
        "max(A, axis=1)": lambda: sparray.max(A, axis=1),
        "sum(A)": lambda: sparray.sum(A),
        "A.mT": lambda: A.mT,
        "to csr": lambda: A.to_layout("csr"),
        "to csc": lambda: A.to_layout("csc"),
        "to coo": lambda: A.to_layout("coo"),
        "to_dense": lambda: A.to_dense(),
        "A[2:7]": lambda: A[2:7],
        "astype": lambda: sparray.astype(A, np.float32),
        "matrix_transpose @": lambda: A.mT @ x[:12],
    }


def _cyclic_garbage(fn, calls=4):
    """Objects left for the cyclic collector by ``calls`` calls of ``fn`` whose results are dropped
    (the first calls, untracked, build what an array keeps: its lean state, its checked flags)."""
    for _ in range(2):
        fn()
    enabled = gc.isenabled()
    gc.disable()
    try:
        # Only the youngest generation is searched: with the collector off, everything the calls
        # make stays in it, so a cycle made of their objects alone is found there, and the test
        # does not walk the whole heap of a long test session for every operation (4-7 s each).
        gc.collect(0)
        for _ in range(calls):
            fn()
        return gc.collect(0)
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("fill", _FILLS, ids=["fill0", "fill1.5", "fillnan"])
@pytest.mark.parametrize("layout", _LAYOUTS)
def test_results_leave_no_cycles(layout, fill):
    rng = np.random.default_rng(7)
    A, B = _matrix(rng, layout, fill), _matrix(rng, layout, fill)
    C = _matrix(rng, layout, fill, shape=(16, 10))
    x, X = rng.random(16), rng.random((16, 3))
    leaks = {}
    for name, fn in _operations(A, B, C, x, X).items():
        n = _cyclic_garbage(fn)
        if n:
            leaks[name] = n
    assert not leaks, f"{layout}, fill {fill}: operations whose results only the cyclic collector frees: {leaks}"


def test_new_arrays_leave_no_cycles():
    rng = np.random.default_rng(3)
    dense = np.where(rng.random((20, 20)) < 0.2, 1.0, 0.0)
    for layout in _LAYOUTS:
        kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
        assert _cyclic_garbage(lambda: sparray.asarray(dense, layout=layout, **kw) @ np.ones(20)) == 0, layout


# ---- bytes and allocations per call -------------------------------------------------------------
#
# A call may touch fresh memory for its result and small workspaces only: workspaces that scale
# with the input (markers, histograms, accumulators) are kept between calls (kernels/cpu/_common
# scratch), results are sized exactly (SpGEMM counts before it allocates; A + B shrinks its bound
# in place, never touching the pages past the result). Counted on the third call of each operation
# (the first ones make the kept workspaces): NumPy's allocations through tracemalloc (its domain
# and Python's), numba's through its runtime's allocation counter.

import tracemalloc  # noqa: E402

_SLACK = 256 << 10  # bytes a call may allocate beyond its result (temporaries of a few rows, Python objects)


def _result_bytes(r):
    if isinstance(r, np.ndarray):
        return r.nbytes
    total = 0
    for name in ("_cidx", "_pidx", "_values", "_indices"):
        comp = r.__dict__.get(name, None) if hasattr(r, "__dict__") else None
        if isinstance(comp, np.ndarray):
            total += comp.nbytes
    return total


def _nrt_allocations(fn):
    from numba.core.runtime import _nrt_python, rtsys

    was = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats().alloc
        r = fn()
        return rtsys.get_allocation_stats().alloc - before, r
    finally:
        if not was:
            _nrt_python.memsys_disable_stats()


def _extra_bytes(fn):
    """Bytes NumPy and Python allocated at the peak of one call, less what its result holds."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        r = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - base - _result_bytes(r), r


def _big_operations(n, seed):
    rng = np.random.default_rng(seed)
    nnz = 10 * n
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals = rng.random(nnz)
    A = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)).to_layout("csr")
    B = sparray.COO(np.stack([cols, rows]), vals, shape=(n, n)).to_layout("csr")
    k = int(np.sqrt(n))
    grid = sparray.asarray(np.diag(np.full(k, 2.0)) - np.diag(np.ones(k - 1), 1) - np.diag(np.ones(k - 1), -1),
                           layout="csr")
    sorted_coo = A.to_layout("coo")
    perm = rng.permutation(nnz)
    unsorted_coo = sparray.COO(np.stack([rows[perm], cols[perm]]), vals[perm], shape=(n, n))
    x, X = rng.random(n), rng.random((n, 8))
    return {
        "A @ x": lambda: A @ x,
        "A @ X": lambda: A @ X,
        "A @ B": lambda: A @ B,
        "grid @ grid": lambda: grid @ grid,
        "A + B": lambda: A + B,
        "A * 2": lambda: A * 2.0,
        "sum(A, axis=0)": lambda: sparray.sum(A, axis=0),
        "sum(A, axis=1)": lambda: sparray.sum(A, axis=1),
        "CSR -> CSC": lambda: A.to_layout("csc"),
        "COO -> CSR, sorted": lambda: sorted_coo.to_layout("csr"),
        "COO -> CSR, unsorted": lambda: unsorted_coo.to_layout("csr"),
    }


@pytest.mark.parametrize("op", list(_big_operations(100, 0)))
def test_a_call_allocates_its_result_and_small_workspaces(op):
    fn = _big_operations(30_000, 11)[op]
    fn(), fn()  # the kept workspaces are made
    extra, r = _extra_bytes(fn)
    result = _result_bytes(r)
    assert result > 0
    assert extra <= _SLACK + result // 20, f"{op}: {extra} bytes beyond a result of {result}"


@pytest.mark.parametrize("op", list(_big_operations(100, 0)))
def test_numba_allocations_do_not_grow_with_the_input(op):
    """numba's own allocations (its runtime's count) in one call: a few per call, for an input
    four times larger too (nothing allocated per row or per chunk of work: the window probes of
    the banded scatter sorted 54 times a call in numba's np.sort before they sorted in place)."""
    counts = []
    for n in (30_000, 120_000):  # both above the parallel kernels' thresholds
        fn = _big_operations(n, 3)[op]
        fn(), fn()
        counts.append(_nrt_allocations(fn)[0])
    assert counts[1] <= counts[0] + 4 and max(counts) <= 48, f"{op}: numba allocations per call {counts}"


# ---- the kept workspaces are bounded ------------------------------------------------------------


@pytest.fixture
def fresh_scratch(monkeypatch):
    from sparray.kernels.cpu import _scratch

    _scratch.release()
    yield _scratch
    _scratch.release()


def test_scratch_is_reused_and_bounded(fresh_scratch, monkeypatch):
    s = fresh_scratch
    a = s.scratch("t.a", (1000,), np.float64)
    assert s.scratch("t.a", (500,), np.float64).base is a.base  # the same buffer, no allocation
    monkeypatch.setattr(s, "SCRATCH_TOTAL", 19_999)
    s.scratch("t.b", (1500,), np.float64)  # 12000 bytes: with t.a over the bound, t.a goes
    assert set(name for _, name in s._KEPT) == {"t.b"} and s.kept_bytes() == 12_000
    s.scratch("t.c", (s.SCRATCH_LIMIT + 8,), np.uint8)  # larger than one buffer may be: not kept
    assert set(name for _, name in s._KEPT) == {"t.b"}


def test_scratch_of_ended_threads_goes(fresh_scratch):
    s = fresh_scratch
    import threading

    t = threading.Thread(target=lambda: s.scratch("t.thread", (100,), np.int64))
    t.start()
    t.join()
    assert any(name == "t.thread" for _, name in s._KEPT)
    s.scratch("t.main", (10,), np.int64)  # a growth: the ended thread's buffer goes
    assert {name for _, name in s._KEPT} == {"t.main"}


def test_scratch_lets_go_when_memory_is_short(fresh_scratch, monkeypatch):
    s = fresh_scratch
    s.scratch("t.a", (100,), np.int64)
    monkeypatch.setattr(s, "_memory_short", lambda nbytes: True)
    out = s.scratch("t.b", (200,), np.int64)
    assert out.shape == (200,) and s.kept_bytes() == 0
