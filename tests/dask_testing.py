"""Shared helpers of the Dask tests (test_dask.py, test_dask_distributed.py): operations on a Dask
array of sparray chunks checked against the same operations on the dense Dask array.

``OPS`` maps a name to a function of ``(X, aux)``: ``X`` a Dask array (sparray chunks, or the dense
reference), ``aux`` a dict of dense operands (a vector ``v`` of the column count, a matrix ``V``, a
row ``row`` and a column ``col`` to broadcast). ``check(op, X, D, aux, **compute_kwargs)`` computes
both and compares them nan-aware (a sparse result densified).
"""

from __future__ import annotations

import numpy as np

import sparray

OPS = {
    # element-wise and broadcasting
    "x*2+1": lambda X, a: X * 2 + 1,
    "x+x": lambda X, a: X + X,
    "x-x.T": lambda X, a: X - X.T,
    "exp": lambda X, a: np.exp(X),
    "x+row": lambda X, a: X + a["row"],
    "x*col": lambda X, a: X * a["col"],
    "where": lambda X, a: __import__("dask.array").array.where(X > 0, X, -1.0),
    "astype": lambda X, a: X.astype(np.float32),
    # reductions over any axes (Dask's tree reductions)
    "sum0": lambda X, a: X.sum(axis=0),
    "sum1": lambda X, a: X.sum(axis=1),
    "sum": lambda X, a: X.sum(),
    "max": lambda X, a: X.max(),
    "min0": lambda X, a: X.min(axis=0),
    "mean1": lambda X, a: X.mean(axis=1),
    "var0": lambda X, a: X.var(axis=0),
    "std": lambda X, a: X.std(),
    "prod1k": lambda X, a: X.prod(axis=1, keepdims=True),
    "any0": lambda X, a: (X > 0.5).any(axis=0),
    "sum-split": lambda X, a: X.sum(axis=0, split_every=2),
    # products
    "x@v": lambda X, a: X @ a["v"],
    "x@V": lambda X, a: X @ a["V"],
    "x@x.T": lambda X, a: X @ X.T,
    "tensordot": lambda X, a: __import__("dask.array").array.tensordot(X, a["V"], axes=1),
    # searching, running sums, triangles, norms (the 2024.12 functions and linalg behind NumPy's names)
    "argmax0": lambda X, a: X.argmax(axis=0),
    "argmin": lambda X, a: X.argmin(),
    "cumsum0": lambda X, a: X.cumsum(axis=0),
    "diff": lambda X, a: __import__("dask.array").array.diff(X, axis=1),
    "tril": lambda X, a: __import__("dask.array").array.tril(X, k=1),
    "roll": lambda X, a: __import__("dask.array").array.roll(X, 2, axis=0),
    "count_nonzero": lambda X, a: __import__("dask.array").array.count_nonzero(X, axis=1),
    "norm": lambda X, a: __import__("dask.array").array.linalg.norm(X, axis=1),
    "trace": lambda X, a: __import__("dask.array").array.trace(X),
    "repeat": lambda X, a: __import__("dask.array").array.repeat(X, 2, axis=1),
    "tile": lambda X, a: __import__("dask.array").array.tile(X, 2),
    "unique": lambda X, a: __import__("dask.array").array.unique(X.ravel()),
    "fft": lambda X, a: __import__("dask.array").array.fft.fft(X.rechunk((4, -1)), axis=1),
    # structure
    "T": lambda X, a: X.T,
    "slice": lambda X, a: X[1:8:2, ::-1],
    "take": lambda X, a: X[[0, 5, 5, 2]],
    "row": lambda X, a: X[3],
    "rechunk": lambda X, a: X.rechunk((3, 4)),
    "map_blocks": lambda X, a: X.map_blocks(lambda b: b.to_layout("csr") if hasattr(b, "to_layout") else b),
    "persist": lambda X, a: (X * 3).persist(),
}

CHEAP = ["x*2+1", "sum0", "sum1", "max", "T", "x@v", "rechunk"]
# what a Dask array of 2:4 chunks is checked with (test_semi_structured_io.py): the products, element-wise
# functions (their chunks stay 2:4), reductions, and structure (the rest reach 2:4 chunks through their CSR)
SEMI_OPS = ["x@v", "x@V", "x*2+1", "exp", "astype", "x+x", "sum0", "sum1", "sum", "max", "mean1", "T", "slice", "rechunk"]


def aux_for(shape, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "v": rng.standard_normal(shape[1]),
        "V": rng.standard_normal((shape[1], 3)),
        "row": rng.standard_normal(shape[1]),
        "col": rng.standard_normal((shape[0], 1)),
    }


def dense_of(x):
    if isinstance(x, sparray.SparseArray):
        return np.asarray(x.to_dense())
    return np.asarray(x)


def check(name, X, Ddask, aux, **compute_kwargs):
    """``OPS[name]`` on ``X`` (sparray chunks) equals it on ``Ddask`` (dense chunks); returns the result."""
    import dask

    with np.errstate(all="ignore"):
        (got,) = dask.compute(OPS[name](X, aux), **compute_kwargs)
        want = OPS[name](Ddask, aux).compute(scheduler="sync")
    g, w = dense_of(got), np.asarray(want)
    assert g.shape == w.shape, (name, g.shape, w.shape)
    assert g.dtype == w.dtype or (g.dtype.kind == w.dtype.kind == "f"), (name, g.dtype, w.dtype)
    tol = 1e-5 if g.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=name)
    return got
