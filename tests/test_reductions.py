"""Reductions (sum, prod, max, min, mean, var, std, any, all) checked against dense NumPy.

Every check reduces the dense NumPy reference built by ``make_coo`` (independently of sparray)
with the same axis / keepdims and compares values, dtype, the result type (dense when every
sparse dim is reduced, else COO) and, for a COO result, its fill: the reduction of an all-fill
slice (e.g. ``sum`` over an axis of length n gives ``fill * n``).

Each test runs under the generic backend and with the numba kernels forced (the `backend` fixture of conftest.py).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings
import zlib

import array_api_strict
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sparray_testing import FILLS, SHAPES, assert_matches_dense, assert_sparray_result, coo_cases, make_coo, to_numpy

import sparray

KINDS = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"]
SHAPE_IDS = [f"{'x'.join(map(str, s))}-s{k}" for s, k in SHAPES]



@contextlib.contextmanager
def quiet():
    """NumPy's and sparray's warnings for nan / inf / empty means are expected here."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def seed_of(*parts):
    """A stable seed per test case (``hash`` of a str changes between processes)."""
    return zlib.crc32(repr(parts).encode())


def axis_choices(ndim):
    """None, (), every single axis (positive and negative), every pair and the full tuple."""
    out = [None, ()]
    for a in range(ndim):
        out += [a, a - ndim]
    for r in range(2, ndim + 1):
        out += list(itertools.combinations(range(ndim), r))
    if ndim >= 2:
        out.append((-1, 0))  # unsorted, with a negative axis
    return out


def _norm_axes(axis, ndim):
    if axis is None:
        return set(range(ndim))
    axis = axis if isinstance(axis, tuple) else (axis,)
    return {a % ndim for a in axis}


def np_reduce(kind, x, axis, keepdims, **kw):
    return np.asarray(getattr(np, kind)(x, axis=axis, keepdims=keepdims, **kw))


def _kw_np(kind, correction=None, dtype=None):
    kw = {}
    if correction is not None:
        kw["ddof"] = correction
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def _kw_sp(kind, correction=None, dtype=None):
    kw = {}
    if correction is not None:
        kw["correction"] = correction
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def expected_fill(kind, A, axis, keepdims, result_sparse_ndim, **npkw):
    """The reduction of an all-fill array of A's shape, kept sparse dims shrunk to 1, at position 0."""
    fill = np.broadcast_to(to_numpy(A.fill_value), A.shape[A.ndim - A.dense_ndim :])
    axes = _norm_axes(axis, A.ndim)
    shape = tuple(1 if (d < A.sparse_ndim and d not in axes) else n for d, n in enumerate(A.shape))
    full = np.empty(shape, dtype=fill.dtype)
    full[...] = fill
    with quiet():
        red = np_reduce(kind, full, axis, keepdims, **npkw)
    return red[(0,) * result_sparse_ndim]


def check(kind, A, dense, axis, keepdims, *, rtol=1e-7, atol=1e-12, correction=None, dtype=None, check_dtype=True):
    """One reduction of sparse ``A`` against NumPy on ``dense`` (values, dtype, type, fill, errors)."""
    npkw, spkw = _kw_np(kind, correction, dtype), _kw_sp(kind, correction, dtype)
    with quiet():
        try:
            exp = np_reduce(kind, dense, axis, keepdims, **npkw)
        except ValueError:  # zero-size max/min
            with pytest.raises(ValueError):
                getattr(sparray, kind)(A, axis=axis, keepdims=keepdims, **spkw)
            return None
        got = getattr(sparray, kind)(A, axis=axis, keepdims=keepdims, **spkw)
    axes = _norm_axes(axis, A.ndim)
    all_sparse = all(d in axes for d in range(A.sparse_ndim))
    ctx = f"{kind} axis={axis} keepdims={keepdims} shape={A.shape} s={A.sparse_ndim} nse={A.nse}"
    if all_sparse and keepdims and A.sparse_ndim:
        # every sparse dim reduced to size 1: sparse, no specified element, the result as its
        # (dense-part) fill (RFC point 5)
        assert isinstance(got, sparray.SparseArray) and got.nse == 0, (type(got), ctx)
        assert got.shape == exp.shape and got.fill_value.shape == exp.shape[A.sparse_ndim :], ctx
        assert_matches_dense(got, exp, rtol=rtol, atol=atol, check_dtype=check_dtype)
    elif all_sparse:
        assert_sparray_result(got, A, ctx)
        assert_matches_dense(got, exp, rtol=rtol, atol=atol, check_dtype=check_dtype)
    else:
        assert isinstance(got, sparray.COO), (type(got), ctx)
        fill = expected_fill(kind, A, axis, keepdims, got.sparse_ndim, **npkw)
        assert_matches_dense(got, exp, fill=fill, rtol=rtol, atol=atol, check_dtype=check_dtype)
        assert got.dtype == got.fill_value.dtype, ctx
    return got


# --------------------------------------------------------------------------------------------
# float64: every kind, shape, density, fill (scalar and dense-part shaped), axis, keepdims


@pytest.mark.parametrize("fill", FILLS, ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("kind", KINDS)
def test_float64(backend, kind, shape, s, fill):
    rng = np.random.default_rng(seed_of(kind, shape, s, fill))
    for i, density in enumerate([0.0, 0.1, 0.5, 1.0]):
        for dense_fill in [False, True] if s < len(shape) else [False]:
            A, dense = make_coo(
                rng, shape, s, density=density, fill=fill, dense_fill=dense_fill,
                index_dtype=["int32", "int64"][i % 2], duplicates=bool(i % 2) or density == 1.0,
            )  # fmt: skip
            for j, axis in enumerate(axis_choices(len(shape))):
                check(kind, A, dense, axis, bool((i + j + dense_fill) % 2))  # keepdims both ways per axis


# --------------------------------------------------------------------------------------------
# other dtypes

DTYPE_CASES = [
    ("float32", ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"], [0.0, 1.5, float("nan")]),
    ("int64", ["sum", "prod", "max", "min", "any", "all"], [0, 2, -3]),
    ("int32", ["sum", "prod", "max", "min"], [0, 1, 5]),
    ("bool", ["any", "all", "sum"], [False, True]),
    ("complex128", ["sum", "prod", "mean", "var"], [0.0, 1.5 - 0.5j, complex("nan")]),
]
SMALL_SHAPES = [((7,), 1), ((4, 5), 2), ((3, 4, 2), 2), ((4, 3), 1), ((0, 3), 2), ((2, 0, 3), 1)]


def _dtype_params():
    for dtype, kinds, fills in DTYPE_CASES:
        for kind in kinds:
            for fill in fills:
                yield pytest.param(dtype, kind, fill, id=f"{dtype}-{kind}-fill{fill}")


@pytest.mark.parametrize("dtype,kind,fill", list(_dtype_params()))
def test_dtypes(backend, dtype, kind, fill):
    rng = np.random.default_rng(seed_of(dtype, kind, fill))
    tol = {"rtol": 2e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-7, "atol": 1e-10}
    for shape, s in SMALL_SHAPES:
        for i, density in enumerate([0.0, 0.3, 1.0]):
            A, dense = make_coo(
                rng, shape, s, density=density, fill=fill, dtype=dtype,
                index_dtype=["int32", "int64"][i % 2], duplicates=i == 1, dense_fill=(i == 2 and s < len(shape)),
            )  # fmt: skip
            if dtype == "int32" and kind == "prod":
                dense[...] = np.minimum(dense, 3)  # keep products in range: rebuild from the clipped dense
                A = sparray.asarray(dense, sparse_ndim=s, fill_value=A.fill_value)
            assert A.dtype == np.dtype(dtype)
            for j, axis in enumerate(axis_choices(len(shape))):
                check(kind, A, dense, axis, bool((i + j) % 2), **tol)  # keepdims both ways per axis


def test_var_complex_not_truncated():
    """var of complex values is E|x - mean|^2, real-valued; the imaginary parts count."""
    A = sparray.COO([[0, 1]], [1j, -1j], shape=(3,))
    dense = np.array([1j, -1j, 0])
    got = sparray.var(A)
    assert np.isclose(float(got), np.var(dense)) and np.var(dense) > 0.6
    assert got.dtype == np.var(dense).dtype


# --------------------------------------------------------------------------------------------
# var/std correction, sum/prod dtype=


@pytest.mark.parametrize("kind", ["var", "std"])
@pytest.mark.parametrize("correction", [1, 0.5])
def test_correction(backend, kind, correction):
    rng = np.random.default_rng(7)
    for (shape, s), fill in itertools.product(SHAPES, [0.0, 1.5, float("nan")]):
        A, dense = make_coo(rng, shape, s, density=0.4, fill=fill, duplicates=True, dense_fill=s < len(shape))
        for axis in axis_choices(len(shape)):
            check(kind, A, dense, axis, False, correction=correction)


@pytest.mark.parametrize("kind", ["var", "std"])
def test_correction_at_least_n_is_nan(backend, kind):
    """Array API: the variance is nan when N - correction <= 0 (NumPy gives inf when N == ddof)."""
    f = getattr(sparray, kind)
    A = sparray.COO([[0, 1]], [1.0, 2.0], shape=(2,))
    for correction in (2, 2.5, 3):
        assert math.isnan(float(f(A, correction=correction)))
    B = sparray.COO([[0, 1], [0, 0]], [1.0, 2.0], shape=(2, 3), fill_value=5.0)
    R = f(B, axis=0, correction=2)
    assert isinstance(R, sparray.COO)
    assert np.isnan(to_numpy(R.to_dense())).all() and math.isnan(float(R.fill_value))
    np.testing.assert_allclose(to_numpy(f(B, axis=0, correction=1).to_dense()), np.var(to_numpy(B.to_dense()), axis=0, ddof=1) ** (0.5 if kind == "std" else 1))


@pytest.mark.parametrize(
    "src,kind,dtype",
    [
        ("float64", "sum", "float32"),
        ("float32", "sum", "float64"),
        ("int32", "sum", "int32"),
        ("int32", "sum", "float64"),
        ("int64", "prod", "float64"),
        ("bool", "sum", "int32"),
        ("bool", "sum", "int64"),
        ("float64", "sum", "complex128"),
        ("complex128", "prod", "complex128"),
    ],
)
def test_sum_prod_dtype(backend, src, kind, dtype):
    rng = np.random.default_rng(3)
    fill = {"bool": True, "int32": 1, "int64": 2}.get(src, 1.5)
    for (shape, s), density in itertools.product(SMALL_SHAPES, [0.0, 0.5]):
        A, dense = make_coo(rng, shape, s, density=density, fill=fill, dtype=src, duplicates=True)
        for axis in axis_choices(len(shape)):
            for dt in (dtype, getattr(sparray, dtype)):
                got = check(kind, A, dense, axis, False, dtype=np.dtype(dt), rtol=1e-5, atol=1e-5)
                if got is not None:
                    assert np.dtype(str(got.dtype)) == np.dtype(dtype)


# --------------------------------------------------------------------------------------------
# worked examples from the seed docs


def test_torch_sparse_sum_example(backend):
    """torch.sparse.sum from the docs (torch-sparse-docs-zh.txt), with sparray's API."""
    indices = [[2, 0, 3], [2, 4, 1]]
    values = np.array(
        [
            [[-0.6438, -1.6467, 1.4004], [0.3411, 0.0918, -0.2312]],
            [[0.5348, 0.0634, -2.0494], [-0.7125, -1.0646, 2.1844]],
            [[0.1276, 0.1874, -0.6334], [-1.9682, -0.5340, 0.7483]],
        ]
    )
    S = sparray.COO(indices, values, shape=(5, 5, 2, 3))
    assert S.sparse_ndim == 2 and S.dense_ndim == 2 and S.nse == 3
    # sum over part of the sparse dims: a sparse array
    R = sparray.sum(S, axis=(1, 3))
    assert isinstance(R, sparray.COO)
    assert R.shape == (5, 2) and R.nse == 3
    R = R.coalesce()
    np.testing.assert_array_equal(to_numpy(R.indices), [[0, 2, 3]])
    np.testing.assert_allclose(
        to_numpy(R.values), [[-1.4512, 0.4073], [-0.8901, 0.2017], [-0.3183, -1.7539]], atol=2e-4
    )
    assert float(to_numpy(R.fill_value).max()) == 0.0
    # sum over every sparse dim: the dense values with the summed dims squeezed, as a sparray
    # array (the namespace rule: sparray in, sparray out)
    D = sparray.sum(S, axis=(0, 1, 3))
    assert_sparray_result(D, S)
    np.testing.assert_allclose(to_numpy(D), [-2.6596, -1.1450], atol=2e-4)
    # dtype= as in torch.sparse.sum(input, dim, dtype)
    D32 = sparray.sum(S, axis=(0, 1, 3), dtype=sparray.float32)
    assert to_numpy(D32).dtype == np.float32


def test_uncoalesced_doc_example(backend):
    """torch-sparse-docs-2.8: values 3 and 4 at index 1 stand for 7."""
    s = sparray.COO([[1, 1]], [3, 4], shape=(3,))
    assert int(sparray.sum(s)) == 7
    assert int(sparray.max(s)) == 7  # the element is 7, not max(3, 4)
    assert int(sparray.min(s)) == 0
    np.testing.assert_array_equal(to_numpy(sparray.sum(s, axis=0, keepdims=True)), [7])
    assert int(sparray.prod(sparray.COO([[1, 1, 0, 2]], [3, 4, 1, 1], shape=(3,)))) == 7


def test_fill_example_from_docstring(backend):
    A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
    assert float(sparray.sum(A)) == 14.0
    assert float(sparray.prod(A)) == 35.0
    assert float(sparray.mean(A)) == 3.5
    assert float(sparray.min(A)) == 1.0 and float(sparray.max(A)) == 7.0


def test_fill_times_count():
    """A COO result's fill is the fill reduced over the reduced length (sum: fill * n)."""
    A = sparray.COO([[0, 2], [1, 1]], [5.0, 7.0], shape=(4, 3), fill_value=1.5)
    R = sparray.sum(A, axis=0)
    assert isinstance(R, sparray.COO) and float(R.fill_value) == 1.5 * 4
    assert float(sparray.prod(A, axis=0).fill_value) == 1.5**4
    assert float(sparray.mean(A, axis=0).fill_value) == 1.5
    assert float(sparray.var(A, axis=0).fill_value) == 0.0
    assert float(sparray.max(A, axis=1).fill_value) == 1.5
    np.testing.assert_allclose(to_numpy(R.to_dense()), [1.5 * 4, 5 + 7 + 1.5 * 2, 1.5 * 4])


@pytest.mark.parametrize("kind", KINDS)
def test_no_sparse_dims(backend, kind):
    """sparse_ndim == 0: one dense block (or nothing) at the single position; the fill elsewhere is never used."""
    for dense, fill in [(np.array([[1.0, 2.0], [0.0, 3.0]]), 0.0), (np.array([[1.5, 1.5], [1.5, 1.5]]), 1.5), (np.array(5.0), 0.0)]:
        A = sparray.asarray(dense, sparse_ndim=0, fill_value=fill)
        assert A.sparse_ndim == 0 and A.nse == int(bool(np.any(dense != fill)))
        for axis in axis_choices(dense.ndim):
            for keepdims in (False, True):
                exp = np_reduce(kind, dense, axis, keepdims)
                got = getattr(sparray, kind)(A, axis=axis, keepdims=keepdims)
                assert_matches_dense(got, exp)


# --------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("kind", KINDS)
def test_axis_errors(kind):
    A, _ = make_coo(np.random.default_rng(0), (3, 4), 2, density=0.5)
    f = getattr(sparray, kind)
    for bad in (2, -3, (0, 2), (5,)):
        with pytest.raises(ValueError, match="out of range"):
            f(A, axis=bad)
    for bad in ((0, 0), (1, -1), (0, 1, 0)):
        with pytest.raises(ValueError, match="repeated"):
            f(A, axis=bad)
    for bad in (1.0, "0", (0, 1.5), [0, 1]):
        with pytest.raises(TypeError):
            f(A, axis=bad)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_zero_size_max_min(kind):
    f = getattr(sparray, kind)
    A, dense = make_coo(np.random.default_rng(0), (0, 3), 2, fill=1.5)
    with pytest.raises(ValueError, match="zero-size"):
        f(A)
    with pytest.raises(ValueError):
        f(A, axis=0)
    assert to_numpy(f(A, axis=1)).shape == (0,)  # reduces length-3 rows: none of them
    B, _ = make_coo(np.random.default_rng(0), (3, 0), 1, fill=1.5)  # zero-size dense part
    with pytest.raises(ValueError):
        f(B, axis=1)
    with pytest.raises(ValueError):
        f(B)


# --------------------------------------------------------------------------------------------
# array_api_strict components


@pytest.mark.parametrize(
    "kind,dtype,fill",
    [
        ("sum", "float64", 1.5),
        ("prod", "float64", 1.5),
        ("max", "float64", float("-inf")),
        ("min", "float64", float("nan")),
        ("mean", "float64", 0.0),
        ("var", "float64", 1.5),
        ("std", "float32", 1.5),
        ("any", "bool", False),
        ("all", "float64", 1.5),
        ("sum", "int32", 2),
    ],
)
def test_array_api_strict(kind, dtype, fill):
    rng = np.random.default_rng(11)
    tol = {"rtol": 2e-4, "atol": 1e-4} if dtype == "float32" else {}
    for shape, s in [((4, 5), 2), ((3, 4, 2), 2), ((4, 3), 1)]:
        A, dense = make_coo(
            rng, shape, s, density=0.4, fill=fill, dtype=dtype, xp=array_api_strict, duplicates=True,
            dense_fill=s < len(shape),
        )  # fmt: skip
        assert type(A.values).__module__.startswith("array_api_strict")
        for axis in axis_choices(len(shape)):
            for keepdims in (False, True):
                got = check(kind, A, dense, axis, keepdims, **tol)
                if isinstance(got, sparray.COO):
                    assert type(got.values).__module__.startswith("array_api_strict")
                    assert type(got.fill_value).__module__.startswith("array_api_strict")
                elif got is not None:
                    assert type(got).__module__.startswith("array_api_strict")


@pytest.mark.parametrize("kind", ["sum", "max", "mean", "any"])
@pytest.mark.parametrize("shape,s", [((4, 5), 2), ((0, 3), 2), ((3, 0, 2), 2)], ids=["4x5", "0x3", "3x0x2"])
def test_array_api_strict_no_specified(kind, shape, s):
    """nse == 0 (and zero-size shapes) with array_api_strict components: no out-of-range slicing."""
    A, dense = make_coo(np.random.default_rng(1), shape, s, density=0.0, fill=1.5, xp=array_api_strict)
    for axis in axis_choices(len(shape)):
        check(kind, A, dense, axis, False)


# --------------------------------------------------------------------------------------------
# generic backend == default backend


def _as_comparable(r):
    if isinstance(r, sparray.SparseArray):
        return to_numpy(r.to_dense()), np.broadcast_to(to_numpy(r.fill_value), r.shape[r.ndim - r.dense_ndim :])
    return to_numpy(r), None


@pytest.mark.parametrize("kind", KINDS)
def test_generic_equals_default(kind):
    rng = np.random.default_rng(5)
    for (shape, s), fill in itertools.product(SHAPES, FILLS):
        A, _ = make_coo(rng, shape, s, density=0.5, fill=fill, duplicates=True, dense_fill=s < len(shape))
        for axis in axis_choices(len(shape)):
            with quiet():
                try:
                    default = getattr(sparray, kind)(A, axis=axis)
                except ValueError:
                    with pytest.raises(ValueError), sparray.use_backend("generic"):
                        getattr(sparray, kind)(A, axis=axis)
                    continue
                with sparray.use_backend("generic"):
                    generic = getattr(sparray, kind)(A, axis=axis)
            assert type(default) is type(generic)
            (dv, df), (gv, gf) = _as_comparable(default), _as_comparable(generic)
            assert dv.dtype == gv.dtype
            np.testing.assert_allclose(dv, gv, rtol=1e-12, atol=1e-12, equal_nan=True)
            if df is not None:
                np.testing.assert_allclose(df, gf, rtol=1e-12, atol=1e-12, equal_nan=True)


# --------------------------------------------------------------------------------------------
# dense input goes to its namespace; the input is left untouched


def test_dense_input_passthrough():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(sparray.sum(x, axis=0), x.sum(axis=0))
    np.testing.assert_allclose(sparray.var(x, axis=1, correction=1), x.var(axis=1, ddof=1))


def test_input_unchanged_by_reduction():
    A, dense = make_coo(np.random.default_rng(2), (4, 5), 2, density=0.5, fill=1.5, duplicates=True)
    idx, vals = to_numpy(A.indices).copy(), to_numpy(A.values).copy()
    for kind in KINDS:
        getattr(sparray, kind)(A, axis=0)
    np.testing.assert_array_equal(to_numpy(A.indices), idx)
    np.testing.assert_array_equal(to_numpy(A.values), vals)
    assert_matches_dense(A, dense, fill=1.5)


# --------------------------------------------------------------------------------------------
# hypothesis: one broad property


@given(
    case=coo_cases(dtypes=("float64", "int64", "bool")),
    kind=st.sampled_from(KINDS),
    keepdims=st.booleans(),
    data=st.data(),
)
def test_property_matches_numpy(case, kind, keepdims, data):
    A, dense = case
    axis = data.draw(st.sampled_from(axis_choices(A.ndim)))
    with sparray.use_backend("generic"):
        check(kind, A, dense, axis, keepdims)
    check(kind, A, dense, axis, keepdims)
    assert math.prod(A.shape) == dense.size
