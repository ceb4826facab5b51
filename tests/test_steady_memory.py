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
        gc.collect()
        for _ in range(calls):
            fn()
        return gc.collect()
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
