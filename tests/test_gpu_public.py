"""The public operations on every layout, on the CPU and (where a GPU is) on CuPy data, checked
against dense NumPy: reductions, element-wise ops, products, indexing, conversions and softmax, with
fills 0, 1.5 and nan, on 2-d, batched and hybrid shapes.

On the simulated CUDA device (``A.to_device("simulated")``, every CI run: NumPy buffers, the registry's
``cupy`` column, the CUDA kernels in the host emulator) and on a GPU the same cases run on the device: the registry's ``cupy`` column and the
generic path on CuPy arrays must give the dense answer, and every result must stay on the GPU
(its components CuPy arrays), never silently computed on the host. On the CPU the file checks the
numba path and the cases themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from places_testing import PLACES
from places_testing import dense_on_host as _host
from places_testing import on_place as _on_place
from places_testing import to_place as _to_place

import sparray as sp

FILLS = [0.0, 1.5, float("nan")]

#: name -> (dense shape, layout, extra keywords of asarray)
SHAPES = {
    "coo": ((7, 9), "coo", {}),
    "csr": ((7, 9), "csr", {}),
    "csc": ((7, 9), "csc", {}),
    "bsr": ((6, 8), "bsr", {"blocksize": (2, 2)}),
    "bsc": ((6, 8), "bsc", {"blocksize": (3, 2)}),
    "csr-batched": ((2, 5, 6), "csr", {"sparse_ndim": 2}),
    "coo-hybrid": ((6, 7, 3), "coo", {"sparse_ndim": 2}),
}
MATRICES = ["coo", "csr", "csc", "bsr", "bsc"]


def _dense_softmax(a, axis):
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


#: name -> (the op on sparse operands with the sparray namespace, the op on NumPy, the shapes it runs on)
OPS = {
    "identity": (lambda xp, a, b, x, X: a, None, list(SHAPES)),
    "sum": (lambda xp, a, b, x, X: xp.sum(a), None, list(SHAPES)),
    "sum axis=0": (lambda xp, a, b, x, X: xp.sum(a, axis=0), None, list(SHAPES)),
    "sum axis=1": (lambda xp, a, b, x, X: xp.sum(a, axis=1), None, list(SHAPES)),
    "sum axis=-1": (lambda xp, a, b, x, X: xp.sum(a, axis=-1), None, list(SHAPES)),
    "max axis=0": (lambda xp, a, b, x, X: xp.max(a, axis=0), None, list(SHAPES)),
    "max axis=1": (lambda xp, a, b, x, X: xp.max(a, axis=1), None, list(SHAPES)),
    "min axis=1": (lambda xp, a, b, x, X: xp.min(a, axis=1), None, MATRICES),
    "prod axis=0": (lambda xp, a, b, x, X: xp.prod(a, axis=0), None, MATRICES),
    "mean axis=1": (lambda xp, a, b, x, X: xp.mean(a, axis=1), None, list(SHAPES)),
    "var axis=0": (lambda xp, a, b, x, X: xp.var(a, axis=0), None, MATRICES),
    "a + b": (lambda xp, a, b, x, X: a + b, None, list(SHAPES)),
    "a * b": (lambda xp, a, b, x, X: a * b, None, list(SHAPES)),
    "maximum(a, b)": (lambda xp, a, b, x, X: xp.maximum(a, b), None, MATRICES),
    "a - 2": (lambda xp, a, b, x, X: a - 2.0, None, list(SHAPES)),
    "abs(-a)": (lambda xp, a, b, x, X: xp.abs(-a), None, list(SHAPES)),
    "exp(a)": (lambda xp, a, b, x, X: xp.exp(a), None, MATRICES),
    "a > 0.5": (lambda xp, a, b, x, X: a > 0.5, None, MATRICES),
    "a @ x": (lambda xp, a, b, x, X: a @ x, None, MATRICES + ["csr-batched"]),
    "a @ X": (lambda xp, a, b, x, X: a @ X, None, MATRICES),
    "a @ b.mT": (lambda xp, a, b, x, X: a @ b.mT, None, MATRICES),
    "a.mT": (lambda xp, a, b, x, X: a.mT, lambda a, b, x, X: np.swapaxes(a, -1, -2), MATRICES + ["csr-batched"]),
    "a[1:5:2]": (lambda xp, a, b, x, X: a[1:5:2], None, list(SHAPES)),
    "a[[3, 0, 3]]": (lambda xp, a, b, x, X: a[[3, 0, 3]], lambda a, b, x, X: a[np.array([3, 0, 3])], MATRICES),
    "a[:, 2]": (lambda xp, a, b, x, X: a[:, 2], None, MATRICES),
    "to csr": (lambda xp, a, b, x, X: a.to_layout("csr"), lambda a, b, x, X: a, MATRICES),
    "to coo": (lambda xp, a, b, x, X: a.to_layout("coo"), lambda a, b, x, X: a, list(SHAPES)),
    "to csc": (lambda xp, a, b, x, X: a.to_layout("csc"), lambda a, b, x, X: a, MATRICES),
    "softmax axis=1": (lambda xp, a, b, x, X: xp.softmax(a, axis=1), lambda a, b, x, X: _dense_softmax(a, 1), MATRICES),
    "where(a > 1, a, b)": (lambda xp, a, b, x, X: xp.where(a > 1.0, a, b), None, MATRICES),
}  # fmt: skip

CASES = [(op, shape) for op, (_, _, shapes) in OPS.items() for shape in shapes]


def _operands(shape_name, fill, seed):
    shape, layout, kw = SHAPES[shape_name]
    rng = np.random.default_rng(seed)

    def one():
        dense = np.round(rng.standard_normal(shape) * 4) / 4
        keep = rng.random(shape[: len(shape) - (1 if shape_name == "coo-hybrid" else 0)]) < 0.35
        if shape_name == "coo-hybrid":
            keep = keep[..., None]
        dense = np.where(keep, dense, fill)
        return sp.asarray(dense, layout=layout, fill_value=fill, **kw)

    a, b = one(), one()
    ncols = shape[-1] if shape_name != "coo-hybrid" else shape[1]
    x = np.round(rng.standard_normal(ncols) * 4) / 4
    X = np.round(rng.standard_normal((ncols, 3)) * 4) / 4
    return a, b, x, X


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", FILLS, ids=["fill0", "fill1.5", "fillnan"])
@pytest.mark.parametrize(("op", "shape_name"), CASES, ids=[f"{op}-{s}" for op, s in CASES])
def test_public_op_matches_dense_numpy(op, shape_name, fill, place):
    sparse_op, dense_op, _ = OPS[op]
    a, b, x, X = _operands(shape_name, fill, seed=len(op) * 31 + len(shape_name))
    da, db = a.to_dense(), b.to_dense()
    with np.errstate(all="ignore"):
        want = (dense_op or (lambda a, b, x, X: sparse_op(np, a, b, x, X)))(da, db, x, X)
        got = sparse_op(sp, *(_to_place(v, place) for v in (a, b, x, X)))
    assert _on_place(got, place), f"{op} on {place} data gave {type(got)} holding {type(getattr(got, 'values', got))}"
    got = _host(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
