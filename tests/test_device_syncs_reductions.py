"""Reductions along an axis (and over all axes) read nothing back from the device.

On the simulated CUDA device every device-to-host transfer is counted (``simulated.counting``).
A reduction along an axis of a 2-D array has one value per row or column: its size comes from the
shape, so after the array's first use (which validates its indices once) a call must make no host
sync at all: every group is kept (empty ones get the fill's reduction), no ``flatnonzero`` of the
non-empty groups, no ``bool()`` fill shortcut, no pairwise row merges. The results must equal dense
NumPy and stay on the device. Count assertions only, never a timing.
"""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from sparray.kernels.cuda import simulated
from sparray.kernels.cuda.simulated import counting

pytestmark = requires_gxx

FILLS = [0.0, 1.5, float("nan")]
FILL_IDS = ["fill0", "fill1.5", "fillnan"]
#: layout -> (dense shape, extra keywords of asarray)
LAYOUTS = {
    "csr": ((7, 9), {}),
    "csc": ((7, 9), {}),
    "coo": ((7, 9), {}),
    "bsr": ((6, 8), {"blocksize": (2, 2)}),
    "bsc": ((6, 8), {"blocksize": (3, 2)}),
}
OPS = {
    "sum": lambda xp, a, axis: xp.sum(a, axis=axis),
    "max": lambda xp, a, axis: xp.max(a, axis=axis),
    "min": lambda xp, a, axis: xp.min(a, axis=axis),
    "prod": lambda xp, a, axis: xp.prod(a, axis=axis),
    "mean": lambda xp, a, axis: xp.mean(a, axis=axis),
    "var": lambda xp, a, axis: xp.var(a, axis=axis),
}
AXES = [0, 1, -1]


def _dense(shape, fill, seed, empty_row=True):
    """Small integers (exact sums and products in any order), a third of them specified; one row
    and one column left empty (groups of the fill only)."""
    rng = np.random.default_rng(seed)
    dense = rng.integers(-3, 4, size=shape).astype(np.float64)
    keep = rng.random(shape) < 0.35
    if empty_row:
        keep[1, :] = False
        keep[:, 2] = False
    return np.where(keep, dense, fill)


def _on_device(v):
    if isinstance(v, sp.SparseArray):
        parts = [v.values, v.fill_value if hasattr(v, "fill_value") else v.values]
        parts += [getattr(v, name) for name in ("indices", "crow_indices", "ccol_indices", "row_indices", "col_indices") if hasattr(v, name)]
        parts = [p for p in parts if not isinstance(p, (int, float, complex, bool))]
        return all(simulated.is_simulated(p) for p in parts)
    return simulated.is_simulated(v)


def _host(v):
    if isinstance(v, sp.SparseArray):
        return np.asarray(v.to_device("cpu").to_dense())
    return v.get()


def _check(got, want, op):
    assert _on_device(got), f"result left the device: {type(got)} holding {type(getattr(got, 'values', got))}"
    got = _host(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    if op == "var":  # two-pass mean and deviations: rounding-level differences from NumPy's order
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _device_array(layout, fill, seed, **kw):
    shape, extra = LAYOUTS[layout]
    dense = _dense(shape, fill, seed, **kw)
    A = sp.asarray(dense, layout=layout, fill_value=fill, **extra)
    return dense, A.to_device("simulated")


@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_reduction_along_axis_makes_no_sync(layout, op, axis, fill):
    dense, G = _device_array(layout, fill, seed=len(layout) * 7 + len(op) + axis % 2)
    f = OPS[op]
    with np.errstate(all="ignore"):
        want = f(np, dense, axis)
        f(sp, G, axis)  # the first use validates the indices once (may read back)
        with counting() as c:
            got = f(sp, G, axis)
    assert c.syncs == 0, c.sites
    _check(got, want, op)


@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_reduction_over_all_axes_makes_no_sync(layout, op, fill):
    dense, G = _device_array(layout, fill, seed=len(layout) * 5 + len(op))
    f = OPS[op]
    with np.errstate(all="ignore"):
        want = f(np, dense, None)
        f(sp, G, None)
        with counting() as c:
            got = f(sp, G, None)
    assert c.syncs == 0, c.sites
    assert got.shape == ()  # a 0-d result (a 0-d COO, as on the CPU), its value on the device
    _check(got, want, op)


@pytest.mark.parametrize("fill", [0.0, 1.5], ids=["fill0", "fill1.5"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min", "prod", "mean"])
@pytest.mark.parametrize("layout", ["csr", "csc", "coo", "bsr"])
def test_fresh_array_with_known_fill_makes_no_sync(layout, op, axis, fill):
    """Arrays moved with ``to_device`` know their fill and indices already: even the first call
    reads nothing back."""
    dense, G = _device_array(layout, fill, seed=3)
    f = OPS[op]
    with counting() as c:
        got = f(sp, G, axis)
    assert c.syncs == 0, c.sites
    _check(got, f(np, dense, axis), op)


@pytest.mark.parametrize("op", ["sum", "max", "prod", "mean"])
@pytest.mark.parametrize("layout", ["csr", "csc", "coo", "bsr"])
def test_every_group_empty_and_every_group_full(layout, op):
    """No specified element at all, and no unspecified one: the all-groups route covers both ends."""
    shape, extra = LAYOUTS[layout]
    f = OPS[op]
    for dense in (np.full(shape, 1.5), np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) % 5 + 1):
        G = sp.asarray(dense, layout=layout, fill_value=1.5, **extra).to_device("simulated")
        for axis in (0, 1):
            f(sp, G, axis)
            with counting() as c:
                got = f(sp, G, axis)
            assert c.syncs == 0, c.sites
            _check(got, f(np, dense, axis), op)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
def test_integer_and_bool_csr(op, dtype):
    """Other dtypes: sums and products of int32 and bool accumulate in int64 (as NumPy)."""
    dense = _dense((7, 9), 0, seed=11)
    dense = (dense != 0) if dtype == "bool" else dense.astype(dtype)
    G = sp.asarray(dense, layout="csr").to_device("simulated")
    f = OPS[op]
    for axis in (0, 1, None):
        f(sp, G, axis)
        with counting() as c:
            got = f(sp, G, axis)
        assert c.syncs == 0, (axis, c.sites)
        want = f(np, dense, axis)
        assert _on_device(got)
        got = _host(got)
        assert got.dtype == want.dtype, (axis, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def test_keepdims_and_cpu_results_unchanged():
    """keepdims on the device, and the same values on the CPU (where empty groups are dropped)."""
    dense = _dense((7, 9), 1.5, seed=5)
    A = sp.asarray(dense, layout="csr", fill_value=1.5)
    G = A.to_device("simulated")
    for axis in (0, 1):
        sp.sum(G, axis=axis, keepdims=True)
        with counting() as c:
            got = sp.sum(G, axis=axis, keepdims=True)
        assert c.syncs == 0, c.sites
        _check(got, np.sum(dense, axis=axis, keepdims=True), "sum")
        cpu = sp.sum(A, axis=axis)
        np.testing.assert_array_equal(np.asarray(cpu.to_dense()), np.sum(dense, axis=axis))


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_all_groups_launchers_match_present_groups(op):
    """``group_reduce_all`` / ``group_reduce_rows_all`` agree with ``group_reduce`` /
    ``group_reduce_rows`` on the present groups and give empty groups the identity and count 0;
    outside ``proven_inputs()`` they check keys and pointers (and read back), inside they do not."""
    from sparray.kernels.cuda._trust import proven_inputs
    from sparray.kernels.cuda.group_reduce import group_reduce, group_reduce_all, group_reduce_rows, group_reduce_rows_all

    rng = np.random.default_rng(2)
    keys = rng.integers(0, 9, size=40)
    keys[keys == 4] = 5  # key 4 empty
    values = rng.integers(-3, 4, size=(40, 3)).astype(np.float64)
    values[7, 1] = np.nan
    uk, acc, cnt = group_reduce(keys, values, 10, op)
    for sorted_keys, k, v in ((False, keys, values), (True, np.sort(keys, kind="stable"), values[np.argsort(keys, kind="stable")])):
        ak, aacc, acnt = group_reduce_all(k, v, 10, op, sorted_keys)
        np.testing.assert_array_equal(ak, np.arange(10))
        np.testing.assert_array_equal(acnt[uk], cnt)
        np.testing.assert_array_equal(aacc[uk], acc)
        empty = np.setdiff1d(np.arange(10), uk)
        assert set(empty.tolist()) == {4, 9} and not acnt[empty].any()
        np.testing.assert_array_equal(aacc[empty], np.full((2, 3), 1.0 if op == "prod" else 0.0))
    offsets = np.array([0, 0, 5, 5, 40, 40])
    runs, racc, rcnt = group_reduce_rows(offsets, values, op)
    ar, aacc, acnt = group_reduce_rows_all(offsets, values, op)
    np.testing.assert_array_equal(ar, np.arange(5))
    np.testing.assert_array_equal(acnt, np.diff(offsets))
    np.testing.assert_array_equal(aacc[runs], racc)
    with pytest.raises(ValueError, match="keys must lie"):
        group_reduce_all(np.array([0, 10]), values[:2], 10, op)
    with pytest.raises(ValueError, match="offsets must run"):
        group_reduce_rows_all(np.array([0, 3]), values, op)
    with pytest.raises(ValueError, match="non-decreasing"):
        group_reduce_rows_all(np.array([0, 30, 20, 40]), values, op)
    K, V, O = simulated.to_simulated(keys), simulated.to_simulated(values), simulated.to_simulated(offsets)
    with counting() as c:
        group_reduce_all(K, V, 10, op)
    assert c.syncs > 0  # unproven inputs: the key range is read back
    with proven_inputs(), counting() as c:
        r1 = group_reduce_all(K, V, 10, op)
        r2 = group_reduce_rows_all(O, V, op)
    assert c.syncs == 0, c.sites
    assert all(simulated.is_simulated(p) for p in (*r1, *r2))
    np.testing.assert_array_equal(r1[1].get()[uk], acc)
    np.testing.assert_array_equal(r2[1].get()[runs], racc)
