"""sort and argsort against NumPy's stable sort: every layout, hybrid and batched shapes, every
axis, ascending and descending (the exact reverse, ties in their original order), fills 0, 1.5,
nan and -inf (dense-part fills too), ties between specified values and the fill, int and bool
dtypes, uncoalesced COO and int32 indices. sort must stay sparse with the same fill; argsort's
indices are dense by nature and follow the namespace rule (sparray in, sparray out): a sparray
array holding the dense int64 indices (no sparse dims, fill 0, components in the input's
namespace), while a NumPy input still gets NumPy indices."""

import array_api_strict
import numpy as np
import pytest
from sparray_testing import LAYOUTS, assert_matches_dense, assert_holds_dense, assert_sparray_result, layout_cases, make_coo, make_sparse, to_numpy

import sparray


def np_sort(D, axis, descending):
    if not descending:
        return np.sort(D, axis=axis, kind="stable")
    return np.flip(np.sort(np.flip(D, axis), axis=axis, kind="stable"), axis)


def np_argsort(D, axis, descending):
    if not descending:
        return np.argsort(D, axis=axis, kind="stable")
    return D.shape[axis] - 1 - np.flip(np.argsort(np.flip(D, axis), axis=axis, kind="stable"), axis)


def check(A, D, descending=(False, True)):
    sparse_ndim = A.ndim - A.dense_ndim
    for axis in range(-A.ndim, A.ndim):
        for desc in descending:
            S = sparray.sort(A, axis=axis, descending=desc)
            assert isinstance(S, sparray.SparseArray) and S.dtype == A.dtype
            assert S.layout in (A.layout, "coo")
            along_sparse = axis % A.ndim < sparse_ndim  # along a dense dim the fill is sorted too
            assert_matches_dense(S, np_sort(D, axis, desc), fill=np.asarray(A.fill_value) if along_sparse else None)
            ctx = f"{A.layout} {A.shape} {axis} {desc}"
            got = sparray.argsort(A, axis=axis, descending=desc)
            assert_holds_dense(got, A, ctx)
            assert got.dtype == np.int64 and got.shape == A.shape, ctx
            np.testing.assert_array_equal(to_numpy(got), np_argsort(D, axis, desc), err_msg=ctx)


def test_every_layout():
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        check(A, D)


@pytest.mark.parametrize("dtype, fill", [("int64", 3), ("int32", 0), ("bool", True), ("bool", False), ("float64", np.nan)])
def test_ties_with_the_fill(dtype, fill):
    """Values from a few numbers that include the fill: argsort must interleave the specified
    values equal to the fill with the unspecified positions, in position order."""
    rng = np.random.default_rng(1)
    pool = np.array([0, 1, 3, 5], dtype=dtype) if dtype != "bool" else np.array([True, False])
    if dtype == "float64":
        pool = np.array([0.0, 1.0, np.nan, -np.inf])
    for shape, s in [((9,), 1), ((4, 5), 2), ((3, 4, 2), 3), ((3, 4, 2), 2)]:
        for layout in ("coo", "csr"):
            if layout == "csr" and s < 2:
                continue
            D = rng.choice(pool, size=shape)
            check(sparray.asarray(D, fill_value=fill, sparse_ndim=s, layout=layout), D)


def test_uncoalesced_int32_indices():
    rng = np.random.default_rng(2)
    for shape, s in [((7,), 1), ((4, 5), 2), ((3, 4, 2), 2)]:
        A, D = make_coo(rng, shape, s, density=0.6, fill=2, dtype="int64", duplicates=True, index_dtype="int32")
        check(A, D)


def test_sort_keeps_the_pattern_size_and_layout():
    rng = np.random.default_rng(3)
    for layout in ("csr", "csc"):
        A, D = make_sparse(rng, layout, (5, 7), density=0.3, fill=0.5)
        for axis in (0, 1):
            S = sparray.sort(A, axis=axis)
            assert S.layout == layout and S.nse == A.nse  # each line keeps its count of specified values
    # one line: [-1, fill x3, 3, 9]
    S = sparray.sort(sparray.COO([[0, 2, 3]], [3.0, -1.0, 9.0], shape=(6,), fill_value=1.0))
    assert S.indices.tolist() == [[0, 4, 5]] and S.values.tolist() == [-1.0, 3.0, 9.0]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_batched_hybrid(layout):
    rng = np.random.default_rng(4)
    A, D = make_sparse(rng, layout, (2, 4, 6, 2), 3, (2, 3), density=0.3, fill=np.nan, dense_fill=True)
    check(A, D, descending=(True,))


def test_array_api_strict_components():
    rng = np.random.default_rng(5)
    A, D = make_coo(rng, (4, 5, 2), 2, density=0.4, fill=-np.inf, xp=array_api_strict, dense_fill=True)
    for axis in (0, 2):
        assert_matches_dense(sparray.sort(A, axis=axis), np_sort(D, axis, False))
        got = sparray.argsort(A, axis=axis, descending=True)
        assert_holds_dense(got, A)  # array_api_strict components
        np.testing.assert_array_equal(to_numpy(got), np_argsort(D, axis, True))


def test_empty_and_dense():
    E = sparray.COO([[], []], np.zeros(0), shape=(0, 3), fill_value=2.0)
    assert sparray.sort(E).shape == (0, 3)
    got = sparray.argsort(E)
    assert_holds_dense(got, E)
    assert got.shape == (0, 3) and to_numpy(got).shape == (0, 3) and got.dtype == np.int64
    D = np.array([[3.0, 1.0], [0.0, 2.0]])  # NumPy input: NumPy results, as before
    got = sparray.sort(D, axis=0)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.sort(D, axis=0))
    got = sparray.argsort(D)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.argsort(D))


def test_errors():
    A = sparray.COO([[0]], [1.0], shape=(3,))
    with pytest.raises(ValueError, match="axis 1 is out of range"):
        sparray.sort(A, axis=1)
    with pytest.raises(TypeError, match="axis must be an int"):
        sparray.argsort(A, axis=None)
    with pytest.raises(TypeError, match="real-valued"):
        sparray.sort(sparray.COO([[0]], [1j], shape=(2,)))
    with pytest.raises(TypeError, match="descending must be a bool"):
        sparray.sort(A, descending="yes")
