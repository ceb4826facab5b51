"""count_nonzero and searchsorted against NumPy: every layout, fills 0, 1.5, nan and -inf (nan is
not zero), dense-part fills, int/bool/complex dtypes; searchsorted with sparse or dense x1 and
x2, Python scalars, both sides, a sorter, nans and infinities in x1 and in the queries."""

import numpy as np
import pytest
from sparray_testing import layout_cases, make_coo, to_numpy

import sparray


def test_count_nonzero_every_layout():
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        axes = [None, *range(A.ndim), (0, -1)] if A.ndim > 1 else [None, 0]
        for i, axis in enumerate(axes):
            keepdims = bool(i % 2)
            R = sparray.count_nonzero(A, axis=axis, keepdims=keepdims)
            expected = np.count_nonzero(D, axis=axis, keepdims=keepdims)
            got = to_numpy(R)
            assert got.dtype == np.int64 and got.shape == np.shape(expected)
            np.testing.assert_array_equal(got, expected)
            if isinstance(R, sparray.SparseArray):  # the count of an all-fill slice
                assert R.ndim - R.dense_ndim > 0


@pytest.mark.parametrize("dtype, fill", [("int64", 0), ("int64", 2), ("bool", True), ("bool", False), ("complex128", 0)])
def test_count_nonzero_dtypes(dtype, fill):
    rng = np.random.default_rng(1)
    A, D = make_coo(rng, (4, 5, 2), 2, density=0.5, fill=fill, dtype=dtype, duplicates=dtype != "bool")
    if dtype == "complex128":  # a value with only an imaginary part is non-zero
        A = A * 1j
        D = D * 1j
    for axis in [None, 0, 2, (1, 2)]:
        np.testing.assert_array_equal(to_numpy(sparray.count_nonzero(A, axis=axis)), np.count_nonzero(D, axis=axis))
    D = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(sparray.count_nonzero(D, axis=1), np.count_nonzero(D, axis=1))


def _sorted_sparse(rng, n, fill, pool):
    """A sorted 1-d dense array drawn from ``pool`` (nan last) and its sparse form with ``fill``."""
    D = np.sort(rng.choice(pool, size=n))
    return sparray.asarray(D, fill_value=fill), D


POOL = np.array([-np.inf, -1.0, 0.0, 0.0, 1.0, 2.5, np.inf, np.nan])
QUERIES = np.array([[-np.inf, -2.0, -1.0, 0.0], [0.5, 1.0, np.inf, np.nan]])


@pytest.mark.parametrize("fill", [0.0, 1.0, np.nan, -np.inf, np.inf])
def test_searchsorted_sparse_x1(fill):
    rng = np.random.default_rng(2)
    for n in [1, 3, 8]:
        for _ in range(4):
            A, D = _sorted_sparse(rng, n, fill, POOL)
            Q = sparray.asarray(QUERIES, fill_value=0.0)
            for side in ("left", "right"):
                expected = np.searchsorted(D, QUERIES, side=side)
                for x1 in (A, D):
                    for x2 in (QUERIES, Q):
                        got = sparray.searchsorted(x1, x2, side=side)
                        assert isinstance(got, np.ndarray) and got.dtype == np.int64
                        np.testing.assert_array_equal(got, expected)
                for v in (0.0, 1):
                    got = sparray.searchsorted(A, v, side=side)
                    assert got.shape == () and int(got) == np.searchsorted(D, v, side=side)


def test_searchsorted_sorter_and_ints():
    rng = np.random.default_rng(3)
    for fill in [0, 3]:
        D = rng.integers(0, 6, size=9)
        A = sparray.asarray(D, fill_value=fill)
        sorter = np.argsort(D, kind="stable")
        assert np.array_equal(sparray.argsort(A), sorter)
        q = np.arange(-1, 8)
        for side in ("left", "right"):
            expected = np.searchsorted(D, q, side=side, sorter=sorter)
            np.testing.assert_array_equal(sparray.searchsorted(A, q, side=side, sorter=sorter), expected)
            Q = sparray.asarray(q.reshape(3, 3), fill_value=2)
            np.testing.assert_array_equal(sparray.searchsorted(D, Q, side=side, sorter=sorter), expected.reshape(3, 3))


@pytest.mark.parametrize("v", [-2.0, 1.5, np.inf, np.nan, 2, True])
def test_searchsorted_scalar_of_another_kind(v):
    """Regression (found by the differential test): a Python scalar query was cast to x1's dtype
    first, so -2.0 against a bool x1 became True (and 1.5 against integers became 1); NumPy
    compares it as it is."""
    cases = [(sparray.COO([[0]], [False], shape=(2,), fill_value=True), np.array([False, True])),
             (sparray.COO([[1, 2]], [1, 2], shape=(3,)), np.array([0, 1, 2]))]  # fmt: skip
    for A, D in cases:
        for side in ("left", "right"):
            expected = np.searchsorted(D, v, side=side)
            for x1 in (A, D):
                got = sparray.searchsorted(x1, v, side=side)
                assert got.shape == () and int(got) == expected, (x1, v, side)


def test_searchsorted_uncoalesced_x1():
    A = sparray.COO([[3, 2, 3]], [2.0, 1.0, 2.0], shape=(4,), fill_value=-1.0)  # [-1, -1, 1, 4]
    D = A.to_dense()
    q = np.array([-2.0, -1.0, 1.0, 3.0, 4.0, 5.0])
    for side in ("left", "right"):
        np.testing.assert_array_equal(sparray.searchsorted(A, q, side=side), np.searchsorted(D, q, side=side))


def test_searchsorted_errors():
    A = sparray.COO([[0]], [1.0], shape=(3,))
    with pytest.raises(ValueError, match="side must be"):
        sparray.searchsorted(A, 1.0, side="middle")
    with pytest.raises(ValueError, match="x1 must be 1-d"):
        sparray.searchsorted(sparray.COO([[0], [0]], [1.0], shape=(2, 2)), 1.0)
    with pytest.raises(ValueError, match="sorter must have x1's shape"):
        sparray.searchsorted(A, 1.0, sorter=np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="sorter must be an integer array"):
        sparray.searchsorted(A, 1.0, sorter=np.zeros(3))
    with pytest.raises(TypeError, match="x2 must be an array"):
        sparray.searchsorted(A, "a")
