"""cumulative_sum and cumulative_prod against NumPy: every layout, hybrid and batched shapes, every
axis, include_initial, dtype, fills 0, 1.5, nan and -inf (dense-part fills too), int and bool
dtypes, uncoalesced COO. Checks the layout rule: sparse along a dense dim and for an absorbing
fill (nan; 0 for an integer product), dense otherwise. A dense result follows the namespace rule
(sparray in, sparray out): a sparray array holding the dense values (no sparse dims, fill 0,
components in the input's namespace); a NumPy input still gets a NumPy result."""

import contextlib
import warnings

import array_api_strict
import numpy as np
import pytest
from sparray_testing import assert_matches_dense, assert_holds_dense, assert_sparray_result, layout_cases, make_coo, make_sparse, to_numpy

import sparray

FUNCS = [(sparray.cumulative_sum, np.cumulative_sum, "sum"), (sparray.cumulative_prod, np.cumulative_prod, "prod")]


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def expect_sparse(A, axis, kind, out_dtype):
    """The documented layout rule."""
    if axis % A.ndim >= A.ndim - A.dense_ndim:
        return True
    fill = np.asarray(to_numpy(A.fill_value)).astype(out_dtype)
    if fill.dtype.kind == "f":
        return bool(np.isnan(fill).all())
    return kind == "prod" and fill.dtype.kind in "iu" and not fill.any()


def check(A, D, dtypes=(None,)):
    axes = ([None] if A.ndim == 1 else []) + list(range(-A.ndim, A.ndim))
    for f, nf, kind in FUNCS:
        for i, axis in enumerate(axes):
            for dtype in dtypes:
                include_initial = bool(i % 2)
                with quiet():
                    expected = nf(D, axis=axis, dtype=dtype, include_initial=include_initial)
                    got = f(A, axis=axis, dtype=dtype, include_initial=include_initial)
                assert_matches_dense(got, expected, rtol=1e-5 if expected.dtype == np.float32 else 1e-7)
                ctx = f"{A.layout} {A.shape} {kind} axis={axis} dtype={dtype}"
                assert isinstance(got, sparray.SparseArray), ctx  # sparse or dense: always a sparray array
                if A.size and expect_sparse(A, axis or 0, kind, expected.dtype):
                    assert got.sparse_ndim > 0, ctx  # truly sparse
                elif A.size:
                    assert_holds_dense(got, A, ctx)


def test_every_layout():
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        check(A, D)


@pytest.mark.parametrize("dtype, fill", [("int64", 0), ("int32", 2), ("bool", False), ("bool", True), ("float64", np.nan)])
def test_dtypes_and_absorbing_fills(dtype, fill, backend):
    rng = np.random.default_rng(1)
    for shape, s in [((7,), 1), ((4, 5), 2), ((3, 4, 2), 2), ((3, 4, 2), 3)]:
        A, D = make_coo(rng, shape, s, density=0.6, fill=fill, dtype=dtype, duplicates=dtype != "bool")
        check(A, D, dtypes=(None, sparray.float64) if dtype != "float64" else (None, sparray.float32))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numpy_scalar_type_as_dtype_follows_the_namespace_rule(dtype):
    A = sparray.COO([[0, 2]], [1.0, 2.0], shape=(4,))
    got = sparray.cumulative_sum(A, dtype=dtype)
    np.testing.assert_array_equal(to_numpy(got), np.cumulative_sum(A.to_dense(), dtype=dtype))
    assert_holds_dense(got, A)


def test_leading_runs_stay_sparse():
    # nan fill: only each line's leading run of specified positions is kept
    A = sparray.COO([[0, 0, 0, 1], [0, 1, 3, 1]], [2.0, 3.0, 5.0, 7.0], shape=(2, 4), fill_value=np.nan)
    S = sparray.cumulative_sum(A, axis=1)
    assert isinstance(S, sparray.COO) and S.nse == 2 and np.isnan(float(S.fill_value))
    assert_matches_dense(S, np.cumulative_sum(A.to_dense(), axis=1))
    P = sparray.cumulative_prod(A, axis=1, include_initial=True)
    assert P.nse == 4 and P.shape == (2, 5)  # the initial 1 of both lines, then the run [2, 3] of line 0
    assert_matches_dense(P, np.cumulative_prod(A.to_dense(), axis=1, include_initial=True))


@pytest.mark.parametrize("layout", ["csr", "bsc"])
def test_batched_hybrid(layout):
    rng = np.random.default_rng(2)
    A, D = make_sparse(rng, layout, (2, 4, 6, 2), 3, (2, 3), density=0.3, fill=np.nan, dense_fill=True)
    check(A, D)


def test_array_api_strict_components():
    rng = np.random.default_rng(3)
    A, D = make_coo(rng, (4, 5, 2), 2, density=0.4, fill=np.nan, xp=array_api_strict)
    check(A, D)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("value, fill", [(3.0, 1.5), (True, False)])
def test_zero_d_include_initial(name, value, fill):
    """Regression (found by the differential test): a 0-d array with include_initial=True raised
    an IndexError from the array-api-compat wrapper; NumPy runs it as one element, [initial, x]."""
    Z = sparray.COO(np.zeros((0, 1), dtype=np.int64), [value], shape=(), fill_value=fill)
    for include_initial in (False, True):
        got = getattr(sparray, name)(Z, include_initial=include_initial)
        expected = getattr(np, name)(np.asarray(value), include_initial=include_initial)
        assert_holds_dense(got, Z)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(to_numpy(got), expected)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", ["float64", "bool"])
def test_bool_result_along_a_dense_dim(name, dtype):
    """Regression (found by the differential test): along a dense dim with dtype=bool the result
    was int64 (the running sum of the cast values was taken without the dtype, and a sum of
    booleans is the default integer); NumPy gives bool (a logical or / and)."""
    A = sparray.COO([[0, 2]], np.array([[1, 0, 2], [0, 3, 0]], dtype=dtype), shape=(3, 3),
                    fill_value=np.array([0, 1, 1], dtype=dtype))  # fmt: skip
    D = A.to_dense()
    for include_initial in (False, True):
        got = getattr(sparray, name)(A, axis=1, dtype="bool", include_initial=include_initial)
        expected = getattr(np, name)(D, axis=1, dtype=bool, include_initial=include_initial)
        assert isinstance(got, sparray.SparseArray) and got.dtype == np.bool_
        np.testing.assert_array_equal(got.to_dense(), expected)


def test_zero_d_empty_dense_and_errors():
    Z = sparray.COO(np.zeros((0, 1), dtype=np.int64), [3.0], shape=())
    got = sparray.cumulative_sum(Z)
    assert_holds_dense(got, Z)
    np.testing.assert_array_equal(to_numpy(got), np.cumulative_sum(np.asarray(3.0)))
    E = sparray.COO([[], []], np.zeros(0), shape=(3, 0), fill_value=1.0)
    got = sparray.cumulative_prod(E, axis=1, include_initial=True)
    assert_holds_dense(got, E)
    assert to_numpy(got).tolist() == [[1.0], [1.0], [1.0]]
    D = np.arange(1.0, 5.0)
    got = sparray.cumulative_sum(D)  # a NumPy input: a NumPy result, as before
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.cumulative_sum(D))
    A = sparray.COO([[0], [0]], [1.0], shape=(2, 2))
    with pytest.raises(ValueError, match="axis is required"):
        sparray.cumulative_sum(A)
    with pytest.raises(ValueError, match="out of range"):
        sparray.cumulative_prod(A, axis=2)
    with pytest.raises(TypeError, match="include_initial must be a bool"):
        sparray.cumulative_sum(A, axis=0, include_initial=1)
