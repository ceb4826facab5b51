"""Shared test helpers: random sparse inputs with their dense reference, and dense comparisons.

Everything is checked against dense NumPy: ``make_coo`` returns a COO together with the NumPy
array it stands for, built independently of sparray (fill broadcast, then the values written at
their positions, duplicates summed). ``assert_matches_dense`` compares a result with the
expected dense array (nan-aware) and, optionally, its fill value.

Hypothesis strategies (``coo_cases``) draw shapes with empty and size-1 dims, sparse/dense
splits, densities 0..1, fill values 0, non-zero, nan and -inf, int32/int64 indices and
duplicates. The profiles live in conftest.py: "ci" (the default) is small and derandomized.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import sparray

# the hypothesis profiles ("ci", the default, "dev" and "long") are registered in conftest.py

FILLS = [0.0, 1.5, float("nan"), float("-inf")]
DENSITIES = [0.0, 0.1, 0.5, 1.0]
# (shape, sparse_ndim): 1-d .. 3-d, hybrid splits, empty and size-1 dims
SHAPES = [
    ((7,), 1),
    ((4, 5), 2),
    ((3, 1, 4), 3),
    ((4, 3), 1),
    ((3, 4, 2), 2),
    ((0, 3), 2),
    ((1, 1), 2),
    ((2, 0, 3), 1),
]


def make_coo(
    rng,
    shape,
    sparse_ndim=None,
    *,
    density=0.3,
    fill=0.0,
    dtype="float64",
    index_dtype="int64",
    duplicates=False,
    xp=None,
    dense_fill=False,
):
    """A random COO and the dense NumPy array it represents.

    ``duplicates=True`` repeats some positions in random order (an uncoalesced array);
    ``dense_fill=True`` gives a fill shaped like the dense part. ``xp`` is a namespace module to
    hold the components (default NumPy).
    """
    shape = tuple(shape)
    s = len(shape) if sparse_ndim is None else sparse_ndim
    sparse_shape, dense_shape = shape[:s], shape[s:]
    npos = math.prod(sparse_shape)
    nse = int(round(density * npos))
    keys = rng.permutation(npos)[:nse] if npos else np.zeros(0, np.int64)
    if duplicates and nse:
        extra = rng.choice(keys, size=max(1, nse // 3))
        keys = rng.permutation(np.concatenate([keys, extra]))
    indices = np.array(np.unravel_index(keys, sparse_shape), dtype=index_dtype).reshape(s, len(keys))
    vals = _random_values(rng, (len(keys), *dense_shape), dtype)
    np_dtype = np.dtype(dtype)
    if dense_fill and dense_shape:
        fill_arr = _random_values(rng, dense_shape, dtype)
        if np_dtype.kind == "f" and fill is not None and math.isnan(fill):
            fill_arr[..., 0] = np.nan
    else:
        fill_arr = np.asarray(fill, dtype=np_dtype) if not (np_dtype.kind in "iub" and not _representable(fill, np_dtype)) else np.asarray(0, np_dtype)
    dense = np.empty(shape, dtype=np_dtype)
    dense[...] = fill_arr
    seen = set()
    for j, key in enumerate(keys):
        pos = tuple(int(i) for i in np.unravel_index(key, sparse_shape)) if s else ()
        if key in seen:
            dense[pos] = (dense[pos] + vals[j]) if np_dtype != bool else (dense[pos] | vals[j])
        else:
            dense[pos] = vals[j]
            seen.add(key)
    comps = (indices, vals, fill_arr)
    if xp is not None and xp is not np:
        comps = tuple(xp.asarray(c) for c in comps)
    A = sparray.COO(comps[0], comps[1], shape, fill_value=comps[2])
    return A, dense


def _representable(fill, dtype):
    try:
        return math.isfinite(fill) and float(fill) == int(fill)
    except (TypeError, ValueError, OverflowError):
        return False


def _random_values(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if dt.kind in "iu":
        return rng.integers(1, 9, size=shape).astype(dt)
    return rng.random(shape) < 0.5


def to_numpy(x):
    """A NumPy array from a dense result of any namespace (or a SparseArray, via to_dense)."""
    if isinstance(x, sparray.SparseArray):
        x = x.to_dense()
    if type(x).__module__.startswith("array_api_strict"):
        return np.asarray(x._array)
    if type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def assert_sparray_result(result, like, ctx=""):
    """``result``, dense by nature (a reduction to the dense part, indices, a factor), follows the
    namespace rule (``sparray._array.results``): a sparray array whose components live in the namespace
    of ``like``'s components (NumPy, array-api-strict...), fill 0."""
    assert isinstance(result, sparray.SparseArray), (type(result), ctx)
    want = type(like.values).__module__.split(".")[0] if isinstance(like, sparray.SparseArray) else "numpy"
    assert type(result.values).__module__.split(".")[0] == want, (type(result.values), ctx)
    assert not np.any(to_numpy(result.fill_value)), (result.fill_value, ctx)


def assert_holds_dense(result, like, ctx=""):
    """``result`` is a sparray array holding dense values as the namespace rule makes them
    (``sparray._array.results.holding_dense``): ``assert_sparray_result``, a COO with no sparse dims and
    one specified element, the dense array."""
    assert_sparray_result(result, like, ctx)
    assert result.layout == "coo" and result.sparse_ndim == 0 and result.nse == 1, (result.sparse_ndim, result.nse, ctx)


def assert_follows_namespace_rule(result, like, ctx=""):
    """``result`` of a function called with the sparray array ``like`` is a sparray array with
    components in ``like``'s namespace: sparse where it can be, and when it has no sparse dims, the
    dense values held as ``assert_holds_dense`` says."""
    assert isinstance(result, sparray.SparseArray), (type(result), ctx)
    assert type(result.values).__module__.split(".")[0] == type(like.values).__module__.split(".")[0], ctx
    if result.sparse_ndim == 0:
        assert_holds_dense(result, like, ctx)


def assert_matches_dense(result, expected, *, fill=None, rtol=1e-7, atol=1e-12, check_dtype=True):
    """``result`` (sparse or dense) equals ``expected`` element-wise, nan-aware; checks the fill too."""
    got = to_numpy(result)
    exp = np.asarray(expected)
    assert got.shape == exp.shape, f"shape {got.shape} != expected {exp.shape}"
    if check_dtype:
        assert got.dtype == exp.dtype, f"dtype {got.dtype} != expected {exp.dtype}"
    if exp.dtype.kind in "fc":
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, exp)
    if fill is not None:
        assert isinstance(result, sparray.SparseArray)
        got_fill = np.broadcast_to(to_numpy(result.fill_value), result.shape[result.ndim - result.dense_ndim :])
        exp_fill = np.broadcast_to(np.asarray(fill), got_fill.shape)
        if exp_fill.dtype.kind in "fc":
            np.testing.assert_allclose(got_fill, exp_fill, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(got_fill, exp_fill)


@st.composite
def coo_cases(draw, dtypes=("float64",), fills=FILLS, allow_duplicates=True):
    """(A, dense) pairs drawn over shapes, splits, densities, fills, index dtypes and duplicates."""
    shape, s = draw(st.sampled_from(SHAPES))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return make_coo(
        rng,
        shape,
        s,
        density=draw(st.sampled_from(DENSITIES)),
        fill=draw(st.sampled_from(fills)),
        dtype=draw(st.sampled_from(dtypes)),
        index_dtype=draw(st.sampled_from(["int32", "int64"])),
        duplicates=allow_duplicates and draw(st.booleans()),
        dense_fill=draw(st.booleans()),
    )


LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
COMPRESSED = LAYOUTS[1:]
# (shape, non-dense ndim, blocksize) for every layout: plain, batched, hybrid, batched + hybrid,
# empty and size-1 dims. The last two non-dense dims are the sparse ones; dims before are batch dims.
LAYOUT_SHAPES = [
    ((4, 6), 2, (2, 3)),
    ((2, 4, 6), 3, (2, 2)),
    ((4, 6, 2), 2, (2, 3)),
    ((2, 2, 4, 2, 3), 4, (2, 1)),
    ((0, 4), 2, (1, 2)),
    ((1, 1), 2, (1, 1)),
    ((3, 0, 2), 3, (1, 1)),
]


def make_sparse(rng, layout, shape, sparse_ndim=None, blocksize=None, **kw):
    """A random array of ``layout`` and its dense NumPy reference (``make_coo``, then ``to_layout``)."""
    A, dense = make_coo(rng, shape, sparse_ndim, **kw)
    if layout == "coo":
        return A, dense
    return A.to_layout(layout, blocksize=blocksize if layout in ("bsr", "bsc") else None), dense


def layout_cases(rng, layouts=LAYOUTS, fills=FILLS, **kw):
    """(layout, A, dense) over every layout x LAYOUT_SHAPES x fills (dense-part fills for hybrid shapes)."""
    for layout in layouts:
        for shape, s, block in LAYOUT_SHAPES:
            for fill in fills:
                A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape), **kw)
                yield layout, A, D


def _complex_product(a, b):
    """a * b for complex arrays with each part rounded after every product and sum, as the kernels
    compute it (NumPy's own complex multiply may fuse a product and a sum into one FMA on AVX-512)."""
    out = np.empty_like(a)
    out.real = a.real * b.real - a.imag * b.imag
    out.imag = a.real * b.imag + a.imag * b.real
    return out


def group_reduce_ref(keys, values, op):
    """What ``group_reduce`` returns, in plain NumPy: (sorted unique keys, each key's rows reduced
    left to right in input order (NumPy's NaN and complex-ordering rules; integers wrap), rows per
    key int64). Each group starts with its first row and folds the rest in with ``ufunc.at``;
    complex products go round by round (the r-th row of every group at once) through
    ``_complex_product`` instead, so they match the kernels bit for bit.

    >>> group_reduce_ref(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), "sum")[1].ravel().tolist()
    [2.0, 5.0]
    """
    uk, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    acc = values[first].copy()
    with np.errstate(all="ignore"):
        if op == "prod" and values.dtype.kind == "c":
            order = np.argsort(inv, kind="stable")
            starts = np.searchsorted(inv[order], np.arange(len(uk)))
            rank = np.empty(len(inv), np.int64)
            rank[order] = np.arange(len(inv)) - starts[inv[order]]
            for r in range(1, int(rank.max(initial=0)) + 1):
                rows = np.flatnonzero(rank == r)
                acc[inv[rows]] = _complex_product(acc[inv[rows]], values[rows])
        else:
            ufunc = {"sum": np.logical_or if values.dtype == np.bool_ else np.add, "prod": np.multiply,
                     "max": np.maximum, "min": np.minimum}[op]  # fmt: skip
            rest = np.ones(len(inv), bool)
            rest[first] = False
            ufunc.at(acc, inv[rest], values[rest])
    return uk, acc, np.bincount(inv, minlength=len(uk)).astype(np.int64)
