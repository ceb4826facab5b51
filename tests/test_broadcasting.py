"""broadcast_arrays and meshgrid against NumPy: sparse and dense operands mixed, any fill, errors;
and expand_dims's 2024.12 signature and axis range."""

import numpy as np
import pytest
from manipulation_cases import all_cases, result_layout_ok, same_fill
from sparray_testing import FILLS, assert_matches_dense, make_coo

import sparray


def test_broadcast_arrays_every_layout_matches_numpy():
    rng = np.random.default_rng(0)
    for layout, A, D in all_cases(rng):
        ones = tuple(1 if i % 2 else n for i, n in enumerate(D.shape))  # size-1 dims to stretch
        B, DB = make_coo(rng, (2, *ones), density=0.5, fill=2.0)
        dense = rng.standard_normal((1,) * (A.ndim + 1))
        out = sparray.broadcast_arrays(A, B, dense)
        expected = np.broadcast_arrays(D, DB, dense)
        assert isinstance(out, list) and len(out) == 3
        assert result_layout_ok(out[0], A) and isinstance(out[1], sparray.COO) and isinstance(out[2], np.ndarray)
        for R, E in zip(out, expected):
            assert_matches_dense(R, E)
        assert same_fill(out[1], B)


def test_broadcast_arrays_keeps_dtypes_and_stretches_size_one_sparse_dims():
    rng = np.random.default_rng(1)
    A, D = make_coo(rng, (3, 1, 2), 2, density=0.7, fill=np.nan, dense_fill=True)
    B = sparray.COO([[0, 2], [0, 0]], np.asarray([1, 5], dtype=np.int32), shape=(4, 1), fill_value=7)
    RA, RB = sparray.broadcast_arrays(A, B)
    assert RA.shape == RB.shape == (3, 4, 2) and (RA.dtype, RB.dtype) == (A.dtype, B.dtype)
    assert RA.dense_ndim == 1 and RA.nse == 4 * A.nse and RB.nse == 3 * 2 * B.nse
    EA, EB = np.broadcast_arrays(D, B.to_dense())
    assert_matches_dense(RA, EA, fill=np.asarray(A.fill_value))
    assert_matches_dense(RB, EB, fill=7)
    with pytest.raises(ValueError, match=r"broadcast_arrays: shapes \(3, 1, 2\), \(4,\) cannot be broadcast together"):
        sparray.broadcast_arrays(A, np.zeros(4))


def test_broadcast_arrays_trivial_cases_and_errors():
    A = sparray.COO([[0]], [1.0], shape=(2,))
    assert sparray.broadcast_arrays() == []
    (R,) = sparray.broadcast_arrays(A)
    assert R is A
    out = sparray.broadcast_arrays(A, sparray.COO([[0], [1]], [True], shape=(3, 2)))
    assert [o.shape for o in out] == [(3, 2), (3, 2)] and [o.dtype for o in out] == [np.float64, np.bool_]
    with pytest.raises(TypeError, match="broadcast_arrays: every argument must be an array; got int at position 1"):
        sparray.broadcast_arrays(A, 3)


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(fill, indexing):
    rng = np.random.default_rng(2)
    for sizes in [(3,), (3, 4), (2, 0, 3), (1, 4, 2)]:
        arrays = [make_coo(rng, (n,), density=0.5, fill=fill, index_dtype=dt, duplicates=n > 2)
                  for n, dt in zip(sizes, ["int32", "int64", "int32"])]  # fmt: skip
        out = sparray.meshgrid(*[a for a, _ in arrays], indexing=indexing)
        expected = np.meshgrid(*[d for _, d in arrays], indexing=indexing)
        assert isinstance(out, list) and len(out) == len(expected)
        for R, E, (A, _) in zip(out, expected, arrays):
            assert isinstance(R, sparray.COO)
            assert_matches_dense(R, E, fill=fill)
            assert R.nse == A.nse * (E.size // max(A.shape[0], 1)) or E.size == 0


def test_meshgrid_mixed_dense_dtypes_and_hybrid_input():
    rng = np.random.default_rng(3)
    x, dx = make_coo(rng, (3,), density=0.6, fill=1.5)
    y = np.arange(4, dtype=np.int64)
    z = sparray.COO(np.zeros((0, 1), np.int64), [[1, 2]], shape=(2,), fill_value=[0, 7])  # 1-d, all dense
    out = sparray.meshgrid(x, y, z)
    expected = np.meshgrid(dx, y, z.to_dense())
    assert [type(o).__name__ for o in out] == ["COO", "ndarray", "COO"]
    for R, E in zip(out, expected):
        assert R.dtype == E.dtype
        assert_matches_dense(R, E)
    assert sparray.meshgrid() == []


def test_meshgrid_errors_and_dense_input():
    x = sparray.COO([[0]], [1.0], shape=(2,))
    with pytest.raises(ValueError, match="meshgrid: indexing must be 'xy' or 'ij'; got 'yx'"):
        sparray.meshgrid(x, indexing="yx")
    with pytest.raises(ValueError, match=r"meshgrid: every array must be 1-d; got shape \(2, 2\) at position 1"):
        sparray.meshgrid(x, sparray.eye(2))
    with pytest.raises(TypeError, match="meshgrid: every argument must be an array"):
        sparray.meshgrid(x, [1, 2])
    a, b = np.arange(3.0), np.arange(2.0)
    for R, E in zip(sparray.meshgrid(a, b), np.meshgrid(a, b)):
        np.testing.assert_array_equal(R, E)


# --- expand_dims: the 2024.12 signature and axis range ----------------------------------------------
def test_expand_dims_axis_is_positional_and_ranges_over_the_result():
    rng = np.random.default_rng(4)
    for layout, A, D in all_cases(rng, fills=[1.5], extra=False):
        n = A.ndim
        for axis in range(-n - 1, n + 1):
            assert_matches_dense(sparray.expand_dims(A, axis), np.expand_dims(D, axis))
        for axis in (n + 1, -n - 2):
            with pytest.raises(IndexError, match=rf"expand_dims: axis {axis} is out of range \[-{n + 1}, {n}\]"):
                sparray.expand_dims(A, axis=axis)
            with pytest.raises(ValueError):  # NumPy's AxisError is both; so is ours
                sparray.expand_dims(A, axis)
    assert sparray.expand_dims(sparray.COO([[0]], [1.0], shape=(2,))).shape == (1, 2)  # default axis=0


def test_docstring_examples():
    import doctest

    import sparray._functions.broadcasting
    import sparray._functions.manipulation

    for mod in (sparray._functions.broadcasting, sparray._functions.manipulation):
        assert doctest.testmod(mod).failed == 0, mod.__name__
