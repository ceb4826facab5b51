"""softmax / log_softmax of slices with no finite maximum, against NumPy's formula as it is.

NumPy's ``exp(x - max(x)) / sum(exp(x - max(x)))`` is nan throughout a slice whose maximum is not
finite: every element -inf (``-inf - -inf`` is nan), a nan anywhere, or a +inf. With a -inf fill
such a slice may hold no specified element at all. Random slices mix -inf, nan, +inf and finite
values under fills 0, -inf, nan and 1.5 (and fills that vary along a dense dim), on every layout
(COO, CSR, CSC, BSR, BSC, batched CSR, hybrid COO and CSR), every axis, on the CPU and on the
simulated CUDA device (and a GPU where one is).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from places_testing import PLACES
from places_testing import dense_on_host as _host
from places_testing import to_place as _place

import sparray as sp

FILLS = [0.0, -math.inf, math.nan, 1.5]
FILL_IDS = ["fill0", "fill-inf", "fillnan", "fill1.5"]

#: name -> (shape, sparse_ndim (None: every dim), layout, blocksize)
CASES = {
    "coo": ((6, 7), None, "coo", None),
    "csr": ((6, 7), None, "csr", None),
    "csc": ((6, 7), None, "csc", None),
    "bsr": ((6, 8), None, "bsr", (2, 2)),
    "bsc": ((6, 8), None, "bsc", (3, 2)),
    "csr-batched": ((2, 5, 6), None, "csr", None),
    "coo-3d": ((3, 4, 5), None, "coo", None),
    "coo-hybrid": ((5, 6, 3), 2, "coo", None),
    "csr-hybrid": ((4, 6, 2), 2, "csr", None),
}


def numpy_softmax(x, axis, log):
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        s = x - m
        z = np.sum(np.exp(s), axis=axis, keepdims=True)
        return s - np.log(z) if log else np.exp(s) / z


def edge_dense(rng, shape, fill, axis):
    """A dense array whose slices along ``axis`` are, at random: all the fill (with a -inf fill:
    all -inf, nothing specified), all -inf, finite with a nan, finite with a +inf, finite with
    some -inf, or finite; about half of every slice holds the fill."""
    x = np.moveaxis(rng.standard_normal(shape), axis, -1).copy()
    lines = x.reshape(-1, x.shape[-1])
    n = lines.shape[1]
    for line in lines:
        kind = rng.integers(0, 6)
        if kind == 0:
            line[:] = fill
        elif kind == 1:
            line[:] = -math.inf
        elif kind == 2:
            line[rng.integers(0, n)] = math.nan
        elif kind == 3:
            line[rng.integers(0, n)] = math.inf
        elif kind == 4:
            line[rng.random(n) < 0.5] = -math.inf
        line[rng.random(n) < 0.5] = fill
    return np.moveaxis(x, -1, axis)


def _sparse(D, case, fill):
    _, s, layout, block = CASES[case]
    kw = {"blocksize": block} if block else {}
    if s is not None:
        kw["sparse_ndim"] = s
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sp.SparrayPerformanceWarning)
        return sp.asarray(D, layout=layout, fill_value=fill, **kw)


def _check(R, want, ctx):
    got = _host(R)
    assert got.shape == want.shape, ctx
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{ctx}: nan at {np.argwhere(np.isnan(got) != np.isnan(want)).tolist()}"
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=ctx)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("case", list(CASES))
def test_edge_slices_match_numpy(case, fill, log, place):
    shape = CASES[case][0]
    fn = sp.log_softmax if log else sp.softmax
    for axis in range(len(shape)):
        rng = np.random.default_rng(100 * len(case) + 10 * axis + int(log))
        D = edge_dense(rng, shape, fill, axis)
        A = _place(_sparse(D, case, fill), place)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sp.SparrayPerformanceWarning)
            R = fn(A, axis=axis)
        _check(R, numpy_softmax(D, axis, log), f"{case} axis={axis} {place}")
        if isinstance(R, sp.SparseArray) and place != "cpu":
            assert R.device == A.device


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("layout", ["coo", "csr", "bsr"])
def test_fill_varying_along_the_dense_part(layout, log, place):
    """Hybrid arrays whose fill is -inf, nan, 1.5 and 0 at the four dense positions: each position
    follows its own fill's rule, and slices without a finite maximum are nan at their positions."""
    rng = np.random.default_rng(7)
    fill = np.array([-math.inf, math.nan, 1.5, 0.0])
    shape = (5, 6, 4)
    D = rng.standard_normal(shape)
    mask = rng.random(shape[:-1]) < 0.5  # unspecified positions: the fill vector
    D[mask] = fill
    D[..., 0][rng.random(shape[:-1]) < 0.2] = -math.inf
    D[0, :, 0] = -math.inf  # a slice (along axis 1) with no finite value at the -inf position
    D[1, 2, 3] = math.nan  # a nan in another slice
    kw = {"sparse_ndim": 2}
    A = sp.asarray(D, fill_value=fill, **kw)
    if layout != "coo":
        A = A.to_layout(layout, blocksize=(1, 2) if layout == "bsr" else None)
    A = _place(A, place)
    fn = sp.log_softmax if log else sp.softmax
    for axis in (0, 1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sp.SparrayPerformanceWarning)
            R = fn(A, axis=axis)
        _check(R, numpy_softmax(D, axis, log), f"{layout} axis={axis} {place}")


def test_written_out_cases():
    """The cases of the issue, written out: a -inf fill, rows all -inf, empty, with a nan, finite."""
    ninf, nan = -math.inf, math.nan
    D = np.array([[1.0, ninf, 2.0], [ninf, ninf, ninf], [nan, ninf, 0.5], [ninf, ninf, 3.0]])
    for layout in ("coo", "csr", "csc", "bsr", "bsc"):
        A = sp.asarray(D, fill_value=ninf, layout=layout, blocksize=(2, 1) if layout in ("bsr", "bsc") else None)
        R = sp.softmax(A, axis=1)
        got = R.to_dense()
        assert np.isnan(got[1]).all() and np.isnan(got[2]).all()  # NumPy's nan (PyTorch: 0)
        np.testing.assert_allclose(got[3], [0.0, 0.0, 1.0])
        assert float(R.fill_value) == 0.0
        L = sp.log_softmax(A, axis=1)
        assert np.isnan(L.to_dense()[1]).all() and float(L.fill_value) == ninf
    E = sp.full((3, 4), ninf, layout="csr")  # every slice empty: the fill becomes nan, nothing stored
    R = sp.softmax(E, axis=1)
    assert R.nse == 0 and math.isnan(float(R.fill_value))


def test_nan_slices_warn_when_they_dominate():
    from sparray._products.softmax import NAN_SLICES_WARNING

    n = 2 * NAN_SLICES_WARNING
    A = sp.COO([[0, 0, 1], [0, 5, 3]], [1.0, 2.0, 3.0], shape=(3, n), fill_value=-math.inf)  # row 2 is empty
    with pytest.warns(sp.SparrayPerformanceWarning, match="no finite maximum"):
        R = sp.softmax(A, axis=1)
    assert R.nse == 3 + n and np.isnan(R.to_dense()[2]).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        B = sp.COO([[0, 0, 1, 2], [0, 5, 3, 1]], [1.0, 2.0, 3.0, 4.0], shape=(3, n), fill_value=-math.inf)
        assert sp.softmax(B, axis=1).nse == 4  # every row holds a finite value: the pattern, no word
