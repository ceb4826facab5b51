"""count_nonzero and searchsorted against NumPy: every layout, fills 0, 1.5, nan and -inf (nan is
not zero), dense-part fills, int/bool/complex dtypes; searchsorted with sparse or dense x1 and
x2, Python scalars, both sides, a sorter, nans and infinities in x1 and in the queries.

Dense results (count_nonzero over every sparse dim, searchsorted's indices) follow the namespace
rule (sparray in, sparray out): called with sparray arrays only (and Python scalars), a function
hands them back as a sparray array holding the dense int64 values (no sparse dims, fill 0,
components in the input's namespace); given a NumPy array among the arguments it answers NumPy."""

import numpy as np
import pytest
from sparray_testing import assert_holds_dense, assert_sparray_result, layout_cases, make_coo, to_numpy

import sparray


def test_count_nonzero_every_layout():
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        axes = [None, *range(A.ndim), (0, -1)] if A.ndim > 1 else [None, 0]
        for i, axis in enumerate(axes):
            keepdims = bool(i % 2)
            R = sparray.count_nonzero(A, axis=axis, keepdims=keepdims)
            expected = np.count_nonzero(D, axis=axis, keepdims=keepdims)
            ctx = f"{A.layout} {A.shape} axis={axis} keepdims={keepdims}"
            got = to_numpy(R)
            assert got.dtype == np.int64 and got.shape == np.shape(expected), ctx
            np.testing.assert_array_equal(got, expected, err_msg=ctx)
            n_sparse = A.ndim - A.dense_ndim
            reduced = range(A.ndim) if axis is None else {a % A.ndim for a in np.atleast_1d(axis)}
            if set(range(n_sparse)) <= set(reduced) and not (keepdims and n_sparse):
                assert_holds_dense(R, A, ctx)  # every sparse dim reduced: dense values
            else:  # sparse over the kept sparse dims (size 1 with keepdims), an all-fill slice's count as fill
                assert isinstance(R, sparray.SparseArray) and R.ndim - R.dense_ndim > 0, ctx


@pytest.mark.parametrize("dtype, fill", [("int64", 0), ("int64", 2), ("bool", True), ("bool", False), ("complex128", 0)])
def test_count_nonzero_dtypes(dtype, fill):
    rng = np.random.default_rng(1)
    A, D = make_coo(rng, (4, 5, 2), 2, density=0.5, fill=fill, dtype=dtype, duplicates=dtype != "bool")
    if dtype == "complex128":  # a value with only an imaginary part is non-zero
        A = A * 1j
        D = D * 1j
    for axis in [None, 0, 2, (1, 2)]:
        R = sparray.count_nonzero(A, axis=axis)
        assert isinstance(R, sparray.SparseArray)
        if axis is None:
            assert_holds_dense(R, A)
        np.testing.assert_array_equal(to_numpy(R), np.count_nonzero(D, axis=axis))
    D = np.arange(6).reshape(2, 3)  # NumPy input: a NumPy result, as before
    got = sparray.count_nonzero(D, axis=1)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.count_nonzero(D, axis=1))


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
                        if x1 is A and x2 is Q:  # sparray arrays only: a sparray result
                            assert_holds_dense(got, A)
                        else:  # a NumPy operand: a NumPy result, as before
                            assert isinstance(got, np.ndarray)
                        assert got.dtype == np.int64 and got.shape == expected.shape
                        np.testing.assert_array_equal(to_numpy(got), expected)
                for v in (0.0, 1):  # a sparse x1 and a Python scalar: sparray arrays only
                    got = sparray.searchsorted(A, v, side=side)
                    assert_holds_dense(got, A)
                    assert got.shape == () and int(got) == np.searchsorted(D, v, side=side)


def test_searchsorted_sorter_and_ints():
    rng = np.random.default_rng(3)
    for fill in [0, 3]:
        D = rng.integers(0, 6, size=9)
        A = sparray.asarray(D, fill_value=fill)
        sorter = np.argsort(D, kind="stable")
        got = sparray.argsort(A)
        assert_holds_dense(got, A)
        assert np.array_equal(to_numpy(got), sorter)
        q = np.arange(-1, 8)
        for side in ("left", "right"):
            expected = np.searchsorted(D, q, side=side, sorter=sorter)
            # NumPy queries and sorter: NumPy results, as before
            got = sparray.searchsorted(A, q, side=side, sorter=sorter)
            assert isinstance(got, np.ndarray)
            np.testing.assert_array_equal(got, expected)
            Q = sparray.asarray(q.reshape(3, 3), fill_value=2)
            got = sparray.searchsorted(D, Q, side=side, sorter=sorter)
            assert isinstance(got, np.ndarray)
            np.testing.assert_array_equal(got, expected.reshape(3, 3))
            # sparray x1, x2 and sorter: a sparray result
            got = sparray.searchsorted(A, Q, side=side, sorter=sparray.asarray(sorter))
            assert_holds_dense(got, A)
            np.testing.assert_array_equal(to_numpy(got), expected.reshape(3, 3))


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
                if x1 is A:  # a sparse x1 and a Python scalar: a sparray result
                    assert_holds_dense(got, A, (v, side))
                else:
                    assert not isinstance(got, sparray.SparseArray)
                assert got.shape == () and int(got) == expected, (x1, v, side)


def test_searchsorted_uncoalesced_x1():
    A = sparray.COO([[3, 2, 3]], [2.0, 1.0, 2.0], shape=(4,), fill_value=-1.0)  # [-1, -1, 1, 4]
    D = A.to_dense()
    q = np.array([-2.0, -1.0, 1.0, 3.0, 4.0, 5.0])
    Q = sparray.asarray(q)
    for side in ("left", "right"):
        expected = np.searchsorted(D, q, side=side)
        got = sparray.searchsorted(A, q, side=side)  # NumPy queries: a NumPy result
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, expected)
        got = sparray.searchsorted(A, Q, side=side)  # sparray queries: a sparray result
        assert_holds_dense(got, A)
        np.testing.assert_array_equal(to_numpy(got), expected)


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
