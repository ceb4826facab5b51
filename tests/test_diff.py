"""diff against NumPy: every layout, hybrid and batched shapes, every axis, n = 1, 2 and past the
axis length, prepend/append (dense, sparse with another fill, Python scalars), fills 0, 1.5, nan
and -inf (the result's fill is fill - fill), bool (!=), uncoalesced COO, both backends."""

import contextlib
import warnings

import numpy as np
import pytest
from sparray_testing import assert_matches_dense, layout_cases, make_coo, make_sparse

import sparray


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def check(A, D, ns=(1, 2)):
    for axis in range(-A.ndim, A.ndim):
        for n in ns:
            with quiet():
                expected = np.diff(D, axis=axis, n=n)
                R = sparray.diff(A, axis=axis, n=n)
            assert isinstance(R, sparray.SparseArray) and R.layout in (A.layout, "coo")
            fill = np.asarray(A.fill_value)
            with quiet():
                want_fill = (fill != fill) if D.dtype == bool else fill - fill
            along_dense = axis % A.ndim >= A.ndim - A.dense_ndim
            assert_matches_dense(R, expected, fill=None if along_dense else want_fill)


def test_every_layout():
    rng = np.random.default_rng(0)
    for i, (_, A, D) in enumerate(layout_cases(rng)):
        check(A, D, ns=(1,) if i % 2 else (2,))


def test_no_entries_array_api_strict():
    """Regression (found by the differential test's draws on array_api_strict components): the
    diff of an array with no entries merged two empty patterns, and the generic merge sliced the
    empty key array with [1:], which array_api_strict rejects (IndexError); along a dense dim,
    the slices of diff's later steps start past the emptied dim (getitem now clips them)."""
    import array_api_strict as xps

    for layout in ("coo", "csr"):
        A = sparray.COO(xps.asarray(np.zeros((2, 0), dtype=np.int64)), xps.asarray(np.zeros(0)), shape=(3, 3),
                        fill_value=xps.asarray(1.5)).to_layout(layout)  # fmt: skip
        for axis in (0, 1):
            R = sparray.diff(A, axis=axis)
            np.testing.assert_array_equal(np.asarray(R.to_dense()._array), np.zeros((2, 3) if axis == 0 else (3, 2)))
        np.testing.assert_array_equal(np.asarray((A + A).to_dense()._array), np.full((3, 3), 3.0))
    # along a dense dim past its length: the slices [1:] of an emptied dense dim (issue in getitem)
    H = sparray.COO(xps.asarray(np.zeros((1, 0), dtype=np.int64)), xps.asarray(np.zeros((0, 3))), shape=(3, 3),
                    fill_value=xps.asarray(np.array([1.0, 2.0, 4.0])))  # fmt: skip
    for n in (2, 3, 7):
        R = sparray.diff(H, axis=1, n=n)
        np.testing.assert_array_equal(np.asarray(R.to_dense()._array), np.diff(np.tile([1.0, 2.0, 4.0], (3, 1)), n=n))


def test_numba_kernels():
    """The element-wise merge under the numba kernels (a few cases: each merge wakes the kernels)."""
    rng = np.random.default_rng(3)
    with sparray.use_backend("numba"):
        for layout, shape, s in [("coo", (4, 5), 2), ("csr", (2, 4, 6), 3), ("csc", (4, 6, 2), 2)]:
            A, D = make_sparse(rng, layout, shape, s, density=0.4, fill=np.nan, dense_fill=True)
            check(A, D, ns=(1,))


def test_prepend_and_append():
    rng = np.random.default_rng(1)
    for layout, shape, s, block in [("coo", (4, 5), 2, None), ("csr", (2, 4, 6), 3, None), ("bsr", (4, 6, 2), 2, (2, 3))]:
        A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=1.5)
        for axis in range(A.ndim):
            sizes = list(shape)
            sizes[axis] = 2
            P = rng.standard_normal(sizes)
            Q = sparray.asarray(np.where(rng.random(sizes) < 0.5, 0.0, P), fill_value=0.0)  # another fill
            with quiet():
                for kw, nkw in [({"prepend": P}, {"prepend": P}), ({"append": Q}, {"append": Q.to_dense()}),
                                ({"prepend": 2.0, "append": P}, {"prepend": 2.0, "append": P})]:
                    R = sparray.diff(A, axis=axis, **kw)
                    assert R.layout == layout or (layout == "bsr" and R.layout == "coo")  # blocks that no longer divide
                    assert_matches_dense(R, np.diff(D, axis=axis, **nkw))
                assert_matches_dense(sparray.diff(D, axis=axis, prepend=Q), np.diff(D, axis=axis, prepend=Q.to_dense()))


@pytest.mark.parametrize("dtype, fill", [("int64", 3), ("bool", True), ("float64", np.nan)])
def test_dtypes_and_long_n(dtype, fill):
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (4, 5), 2, density=0.5, fill=fill, dtype=dtype, duplicates=dtype != "bool")
    check(A, D, ns=(1, 3, 7))
    assert sparray.diff(A, n=0) is A  # NumPy's rule for n=0


def test_fill_of_the_difference():
    A = sparray.COO([[1, 2]], [3.0, 5.0], shape=(5,), fill_value=1.0)
    D = sparray.diff(A)
    assert D.to_dense().tolist() == [2.0, 2.0, -4.0, 0.0] and float(D.fill_value) == 0.0
    with quiet():
        assert np.isnan(float(sparray.diff(A * np.inf).fill_value))


def test_errors_and_dense():
    A = sparray.COO([[0], [0]], [1.0], shape=(2, 3))
    with pytest.raises(ValueError, match="n must be non-negative"):
        sparray.diff(A, n=-1)
    with pytest.raises(ValueError, match="out of range"):
        sparray.diff(A, axis=2)
    with pytest.raises(ValueError, match="at least one dim"):
        sparray.diff(sparray.COO(np.zeros((0, 1), dtype=np.int64), [1.0], shape=()))
    with pytest.raises(ValueError, match="must have x's shape"):
        sparray.diff(A, axis=1, prepend=np.zeros((3, 1)))
    with pytest.raises(TypeError, match="must be ints"):
        sparray.diff(A, n=1.5)
    D = np.array([[1.0, 4.0, 9.0]])
    np.testing.assert_array_equal(sparray.diff(D, append=np.ones((1, 1))), np.diff(D, append=np.ones((1, 1))))
