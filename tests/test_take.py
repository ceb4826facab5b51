"""take, take_along_axis and unstack against NumPy: every layout, batched and hybrid shapes, any
fill, int32 and int64 indices, and the errors."""

import numpy as np
import pytest
from manipulation_cases import all_cases, result_layout_ok, same_fill
from sparray_testing import assert_matches_dense, make_coo

import sparray


def test_take_every_layout_matches_numpy(backend):
    rng = np.random.default_rng(0)
    for layout, A, D in all_cases(rng, extra=backend == "generic"):
        for axis in range(-A.ndim, A.ndim):
            m = D.shape[axis]
            for dtype in (np.int32, np.int64):
                idx = rng.integers(-m, m, size=5).astype(dtype) if m else np.zeros(0, dtype)
                R = sparray.take(A, idx, axis=axis)
                assert result_layout_ok(R, A)
                assert_matches_dense(R, np.take(D, idx, axis=axis))
                if A.fill_value.ndim == 0:
                    assert same_fill(R, A)
        if A.ndim == 1 and D.size:
            assert_matches_dense(sparray.take(A, [0, -1]), np.take(D, [0, -1]))


def test_take_along_axis_every_layout_matches_numpy():
    rng = np.random.default_rng(1)
    for layout, A, D in all_cases(rng):
        for axis in range(-A.ndim, A.ndim):
            m = D.shape[axis]
            for length, dtype in ((3 if m else 0, np.int64), *([(0, np.int32)] if axis == 0 else [])):
                shape = list(D.shape)
                shape[axis] = length
                idx = rng.integers(-m, m, size=shape).astype(dtype) if m else np.zeros(shape, dtype)
                R = sparray.take_along_axis(A, idx, axis=axis)
                assert result_layout_ok(R, A)
                assert_matches_dense(R, np.take_along_axis(D, idx, axis=axis))


def test_take_along_axis_broadcasts_and_flattens():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (3, 4, 5), 2, density=0.4, fill=np.nan, dense_fill=True)  # the fill varies
    idx = rng.integers(0, 4, size=(1, 6, 5))  # broadcast along dim 0
    assert_matches_dense(sparray.take_along_axis(A, idx, axis=1), np.take_along_axis(D, idx, axis=1))
    idx = rng.integers(0, 4, size=(3, 2, 1))  # x broadcast along ... no: indices broadcast along dim 2
    assert_matches_dense(sparray.take_along_axis(A, idx, axis=1), np.take_along_axis(D, idx, axis=1))
    B, DB = make_coo(rng, (1, 4), 2, density=0.5, fill=1.5)  # x of size 1 along dim 0
    idx = rng.integers(-4, 4, size=(3, 2))
    assert_matches_dense(sparray.take_along_axis(B, idx, axis=1), np.take_along_axis(DB, idx, axis=1))
    flat = rng.integers(0, 60, size=7)
    assert_matches_dense(sparray.take_along_axis(A, flat, axis=None), np.take_along_axis(D, flat, axis=None))


def test_take_keeps_repeats_and_the_compressed_layout():
    C = sparray.asarray(np.array([[1.0, 0, 2], [0, 3, 0], [4, 0, 5]]), layout="csr", fill_value=0.0)
    R = sparray.take(C, np.asarray([2, 2, -3]), axis=0)  # rows cut straight from the pointers
    assert R.layout == "csr" and R.nse == 6
    np.testing.assert_array_equal(R.to_dense(), C.to_dense()[[2, 2, 0]])
    R = sparray.take(C, [1], axis=1)
    np.testing.assert_array_equal(R.to_dense(), C.to_dense()[:, [1]])


def test_unstack_every_layout_matches_numpy():
    rng = np.random.default_rng(3)
    for layout, A, D in all_cases(rng):
        for axis in range(-A.ndim, A.ndim):
            pieces = sparray.unstack(A, axis=axis)
            expected = [np.take(D, i, axis=axis) for i in range(D.shape[axis])]
            assert isinstance(pieces, tuple) and len(pieces) == len(expected)
            for P, E in zip(pieces, expected):
                if A.ndim > 1:
                    assert result_layout_ok(P, A)
                assert_matches_dense(P, E)


def test_unstack_keeps_order_and_dense_dims():
    rng = np.random.default_rng(4)
    A, D = make_coo(rng, (3, 4, 2), 2, density=0.6, fill=1.5, dense_fill=True)
    A = A.coalesce()
    for P, E in zip(sparray.unstack(A, axis=1), np.moveaxis(D, 1, 0)):
        assert P.is_coalesced and P.sparse_ndim == 1
        assert_matches_dense(P, E)
    for j, (P, E) in enumerate(zip(sparray.unstack(A, axis=2), np.moveaxis(D, 2, 0))):
        assert P.nse == A.nse  # a dense dim: every piece keeps every entry
        assert_matches_dense(P, E, fill=np.asarray(A.fill_value)[j])
    B = sparray.asarray(np.arange(12.0).reshape(3, 2, 2), layout="csr")
    assert [P.layout for P in sparray.unstack(B)] == ["csr"] * 3


def test_errors():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3))
    with pytest.raises(IndexError, match="take: index 3 is out of bounds for axis 1 with size 3"):
        sparray.take(A, [0, 3], axis=1)
    with pytest.raises(IndexError, match="take: index -3 is out of bounds for axis 0 with size 2"):
        sparray.take(A, np.asarray([-3], dtype=np.int32), axis=0)
    with pytest.raises(IndexError, match="take: index 5 is out of bounds for axis 2 with size 2"):
        sparray.take(make_coo(np.random.default_rng(0), (2, 3, 2), 1)[0], [5], axis=2)
    with pytest.raises(TypeError, match="take: indices must be an array of integers; got dtype float64"):
        sparray.take(A, np.asarray([0.0]), axis=0)
    with pytest.raises(TypeError, match="take_along_axis: indices must be an array of integers; got dtype bool"):
        sparray.take_along_axis(A, np.ones((2, 1), bool), axis=1)
    with pytest.raises(IndexError, match="take: axis 2 is out of range"):
        sparray.take(A, [0], axis=2)
    with pytest.raises(IndexError, match="take_along_axis: index 3 is out of bounds for axis 1 with size 3"):
        sparray.take_along_axis(A, np.asarray([[0], [3]]), axis=1)
    with pytest.raises(ValueError, match="take_along_axis: indices must have as many dims as x"):
        sparray.take_along_axis(A, np.asarray([0, 1]), axis=1)
    with pytest.raises(ValueError, match="do not broadcast along dim 0"):
        sparray.take_along_axis(A, np.zeros((3, 1), np.int64), axis=1)
    with pytest.raises(ValueError, match="with axis=None, indices must be 1-d"):
        sparray.take_along_axis(A, np.zeros((1, 1), np.int64), axis=None)
    with pytest.raises(IndexError, match="unstack: axis 2 is out of range"):
        sparray.unstack(A, axis=2)


def test_dense_input_goes_to_its_namespace():
    D = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sparray.take(D, np.asarray([2, 0]), axis=1), D[:, [2, 0]])
    np.testing.assert_array_equal(sparray.take(D, sparray.asarray(np.asarray([1])), axis=0), D[[1]])
    idx = np.asarray([[0], [2]])
    np.testing.assert_array_equal(sparray.take_along_axis(D, idx, axis=1), np.take_along_axis(D, idx, axis=1))
    assert [p.tolist() for p in sparray.unstack(D, axis=1)] == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(5)
    for s in (3, 2, 1):
        A, D = make_coo(rng, (2, 3, 4), s, fill=1.5, xp=xps, duplicates=True)
        for axis in range(3):
            idx = rng.integers(-D.shape[axis], D.shape[axis], size=4)
            assert_matches_dense(sparray.take(A, xps.asarray(idx), axis=axis), np.take(D, idx, axis=axis))
            shape = list(D.shape)
            shape[axis] = 2
            idx = rng.integers(0, D.shape[axis], size=shape)
            assert_matches_dense(sparray.take_along_axis(A, xps.asarray(idx), axis=axis),
                                 np.take_along_axis(D, idx, axis=axis))  # fmt: skip
            for P, E in zip(sparray.unstack(A, axis=axis), np.moveaxis(D, axis, 0)):
                assert_matches_dense(P, E)


@pytest.mark.parametrize("namespace", ["numpy", "array_api_strict"])
def test_take_nd_indices_on_a_dense_dim(namespace):
    """Regression (differential test): ``take`` with n-d indices on a dense dim went through
    ``A[:, idx]``, whose index array beside a slice array_api_strict refuses; the dense dim is now
    gathered by one ``xp.take`` whatever the indices' shape (their dims replace the dim, as in
    NumPy), the dense-part fill with it. int32/int64, negative, 0-d, 2-d and empty indices."""
    xp = pytest.importorskip(namespace)
    rng = np.random.default_rng(29)
    for shape, s, layout in [((3, 4, 5), 1, "coo"), ((2, 3, 4), 2, "csr")]:
        A, D = make_coo(rng, shape, s, density=0.5, fill=1.5, dense_fill=True, xp=xp)
        A = A if layout == "coo" else A.to_layout(layout)
        for axis in range(s, len(shape)):
            n = shape[axis]
            for dtype in (np.int32, np.int64):
                for idx in (np.asarray([[-1, 0], [n - 1, -n]]), np.asarray(-1), np.zeros((2, 0)), np.asarray([[[1]]])):
                    idx = idx.astype(dtype)
                    R = sparray.take(A, xp.asarray(idx), axis=axis)
                    assert R.layout in (layout, "coo")
                    assert_matches_dense(R, np.take(D, idx, axis=axis))
            with pytest.raises(IndexError, match=f"take: index {n} is out of bounds for axis {axis}"):
                sparray.take(A, xp.asarray([[0], [n]]), axis=axis)


def test_docstring_examples():
    import doctest

    import sparray._functions.take

    for mod in (sparray._functions.take,):
        assert doctest.testmod(mod).failed == 0, mod.__name__
