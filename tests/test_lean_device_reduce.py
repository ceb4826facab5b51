"""The lean device path of sum/max/min along one axis (sparray/_products/lean_device_reduce.py) on the
simulated CUDA device: the general path's result (checked inside ``check_invariants()``, which
turns the lean path off) and dense NumPy's, one launch and no host sync per call."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from sparray._products.lean_device_reduce import reduce_axis
from sparray.kernels.cuda.simulated import counting, is_simulated

pytestmark = requires_gxx

KINDS = ["sum", "max", "min"]


def _dense(shape, dtype, seed=0, special=False):
    rng = np.random.default_rng(seed)
    d = np.where(rng.random(shape) < 0.3, rng.standard_normal(shape), 0.0).astype(dtype)
    if shape[0] > 3:
        d[2] = 0  # an empty row
    if shape[1] > 4:
        d[:, 4] = 0  # an empty column
    if shape[0] > 1 and shape[1] > 1:
        d[1, :] = rng.standard_normal(shape[1])  # a full row: no unspecified element
        d[1, 0] = -0.0 if not special else d[1, 0]
    if special:
        d[0, 0], d[-1, -1] = np.nan, np.inf
        d[shape[0] // 2, 0] = -np.inf
    return d


def _general(kind, A, axis):
    with sp.check_invariants():  # the lean paths step aside inside it
        return getattr(sp, kind)(A, axis=axis)


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("shape", [(13, 9), (1, 6), (7, 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("special", [False, True], ids=["finite", "nan-inf"])
def test_lean_device_reduction_is_the_general_one(layout, kind, axis, shape, dtype, special):
    dense = _dense(shape, dtype, special=special)
    A = sp.asarray(dense, layout=layout).to_device("simulated")
    func = getattr(sp, kind)
    func(A, axis=axis)  # the first call keeps what the pattern decides
    warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's nan and inf comparisons
    with counting() as c:
        r = func(A, axis=axis)
    assert c.syncs == 0, c.sites
    across = (axis % 2 == 0) == (layout == "csr")  # across the pointers' runs: a CSR's columns
    kernel = "scatter_add<" if kind == "sum" and across else "segment_reduce<" if across else "run_reduce<"
    assert [name.split("<")[0] + "<" for _, name in c.launches] == [kernel.split("<")[0] + "<"], c.launches
    assert A.__dict__["_lean_device_reduce"][(kind, axis)], "the lean path did not serve the call"
    assert r.layout == "coo" and r.shape == (shape[1 - axis % 2],) and is_simulated(r.values)
    g = _general(kind, A, axis).to_device("cpu")
    h = r.to_device("cpu")
    assert h.indices.dtype == g.indices.dtype and h.values.dtype == g.values.dtype == dtype
    np.testing.assert_array_equal(h.indices, g.indices)
    assert np.asarray(h.fill_value).dtype == np.asarray(g.fill_value).dtype and float(h.fill_value) == float(g.fill_value) == 0
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(h.values, g.values, rtol=rtol, atol=rtol)  # sums: atomics land in any order
    with np.errstate(invalid="ignore"):
        want = getattr(np, kind)(dense, axis=axis)
    np.testing.assert_allclose(h.to_dense(), want, rtol=rtol, atol=rtol)
    if kind != "sum":  # max and min are exact, signed zeros included
        np.testing.assert_array_equal(np.signbit(h.values), np.signbit(g.values))


@pytest.mark.parametrize(
    "make",
    [
        lambda d: sp.asarray(d, layout="csr", fill_value=1.5),  # a non-zero fill
        lambda d: sp.asarray(d.astype(np.int64), layout="csr"),  # integer values
        lambda d: sp.asarray(d, layout="coo"),
        lambda d: sp.asarray(d, layout="bsr", blocksize=(1, 1)),
        lambda d: sp.asarray(np.stack([d, d]), layout="csr"),  # batched
        lambda d: sp.asarray(np.zeros_like(d), layout="csr"),  # no entry
    ],
    ids=["fill", "int", "coo", "bsr", "batched", "empty"],
)
def test_other_arrays_take_the_general_path(make):
    dense = _dense((6, 5), np.float64)
    A = make(dense).to_device("simulated")
    axis = A.ndim - 1
    assert reduce_axis(A, "sum", axis) is None and reduce_axis(A, "max", axis) is None
    r = sp.sum(A, axis=axis).to_device("cpu")
    np.testing.assert_allclose(r.to_dense(), np.sum(A.to_device("cpu").to_dense(), axis=axis))


def test_keepdims_prod_and_numpy_data_are_not_served():
    dense = _dense((6, 5), np.float64)
    A = sp.asarray(dense, layout="csr")
    assert reduce_axis(A.to_device("simulated"), "prod", 0) is None
    assert reduce_axis(A.to_device("simulated"), "sum", 2) is None
    Ad = A.to_device("simulated")
    r = sp.max(Ad, axis=1, keepdims=True).to_device("cpu")
    assert r.shape == (6, 1) and "_lean_device_reduce" not in Ad.__dict__
    np.testing.assert_array_equal(r.to_dense(), dense.max(axis=1, keepdims=True))
    sp.max(A, axis=1)
    assert "_lean_device_reduce" not in A.__dict__  # NumPy data: never looked at


def test_ops_along_one_axis_share_the_kept_groups():
    A = sp.asarray(_dense((8, 6), np.float64), layout="csr").to_device("simulated")
    sp.max(A, axis=0)
    kept = A.__dict__["_lean_device_reduce"]
    perm = kept["by_plain_index"][0]
    sp.min(A, axis=0)
    assert kept["by_plain_index"][0] is perm  # one sort of the column indices for every op across the rows


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("full", [False, True], ids=["some-unspecified", "every-element-stored"])
def test_lean_device_reduction_over_every_axis(layout, kind, dtype, full):
    """axis=None: the array library's reduction of the stored values, with the zero fill when an
    element is unspecified; a 0-d result (wrapped by the namespace rule), no sync."""
    rng = np.random.default_rng(1)
    dense = rng.standard_normal((9, 7)).astype(dtype) + (0 if full else 5)
    if not full:
        dense[rng.random(dense.shape) < 0.6] = 0
    A = sp.asarray(dense, layout=layout).to_device("simulated")
    func = getattr(sp, kind)
    func(A)
    with counting() as c:
        r = func(A)
    assert c.syncs == 0, c.sites
    assert A.__dict__["_lean_device_reduce"][(kind, None)]
    g = _general(kind, A, None)
    assert type(r) is type(g) and r.shape == g.shape == ()
    got, want = r.to_device("cpu").to_dense(), g.to_device("cpu").to_dense()
    assert got.dtype == want.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol)
    np.testing.assert_allclose(got, getattr(np, kind)(dense), rtol=tol)
