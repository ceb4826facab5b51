"""sparray.linalg.outer and cross against NumPy on the dense arrays: sparse and dense operands, fills
0 / 1.5 / nan / +-inf, empty vectors, integer wraparound, stacks and broadcasting for cross."""

import numpy as np
import pytest

import sparray
from linalg_ext_cases import dense, is_sparse
from sparray_testing import FILLS, LAYOUTS, assert_matches_dense, make_coo, make_sparse

L = sparray.linalg


def _exact(got, expected):
    assert tuple(got.shape) == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(dense(got), expected)


@pytest.mark.parametrize("fill1", FILLS)
@pytest.mark.parametrize("fill2", [0.0, 2.0, float("inf")])
@pytest.mark.parametrize("sizes", [(6, 5), (0, 3), (3, 0), (1, 1)], ids=str)
def test_outer_matches_numpy(fill1, fill2, sizes):
    rng = np.random.default_rng(21)
    A, DA = make_coo(rng, (sizes[0],), density=0.4, fill=fill1, duplicates=True)
    B, DB = make_coo(rng, (sizes[1],), density=0.5, fill=fill2)
    with np.errstate(all="ignore"):
        expected = np.outer(DA, DB)
        both, left, right = L.outer(A, B), L.outer(A, DB), L.outer(DA, B)
    assert is_sparse(both)
    assert_matches_dense(both, expected, fill=np.multiply(fill1, fill2) if math_ok(fill1, fill2) else np.nan)
    for got in (left, right):
        _exact(got, expected)


def math_ok(a, b):
    return not ((a == 0 and np.isinf(b)) or (b == 0 and np.isinf(a)))


def test_outer_pattern_is_minimal_for_zero_fills():
    """Zero fills and finite non-negative values: only the |S1| * |S2| products are stored; a
    negative value adds its column (0 * -1 is -0.0, not the fill +0.0: NumPy's bits); a non-zero
    fill on one side adds the rows (columns) whose products with it differ from the fill."""
    u = sparray.COO([[1, 4]], [2.0, 3.0], shape=(6,))
    assert L.outer(u, sparray.COO([[0, 2, 3]], [1.0, 4.0, 5.0], shape=(4,))).nse == 6
    v = sparray.COO([[0, 2, 3]], [1.0, -1.0, 5.0], shape=(4,))
    R = L.outer(u, v)
    assert R.nse == 6 + 6 - 2  # column 2 in full
    assert np.array_equal(np.signbit(dense(R)), np.signbit(np.outer(dense(u), dense(v))))
    v1 = sparray.COO([[0, 2, 3]], [1.0, -1.0, 5.0], shape=(4,), fill_value=1.0)  # rows 1, 4 become full
    R = L.outer(u, v1)
    assert R.nse == 2 * 4 + 6 - 2 and float(R.fill_value) == 0.0  # and v1's -1.0 column (u's fill 0 times -1)
    assert_matches_dense(R, np.outer(dense(u), dense(v1)))
    assert L.outer(u, np.arange(4.0)).nse == 2 * 4  # sparse x finite dense: sparse, rows of u only
    assert not is_sparse(L.outer(v1, np.arange(3.0)))  # a non-zero fill times a varying vector: dense


@pytest.mark.parametrize("d1, d2", [("uint8", "uint8"), ("int8", "uint8"), ("int16", "int64"), ("float32", "complex64")])
def test_outer_dtypes_promote_and_wrap(d1, d2):
    rng = np.random.default_rng(22)
    A, DA = make_coo(rng, (5,), density=0.6, fill=3, dtype=d1)
    B, DB = make_coo(rng, (4,), density=0.6, fill=0, dtype=d2)
    A = A * 40 if np.dtype(d1).kind in "iu" else A  # products past 255 wrap as NumPy's do
    DA = dense(A)
    expected = np.outer(DA, DB)
    for got in (L.outer(A, B), L.outer(A, DB), L.outer(DA, B)):
        _exact(got, expected)


CROSS_SHAPES = [((4, 3), (4, 3), -1), ((3, 5), (3, 5), -2), ((2, 4, 3), (4, 3), -1), ((3,), (3,), -1),
                ((2, 3, 4), (1, 3, 4), -2), ((0, 3), (1, 3), -1)]  # fmt: skip


CROSS_PARAMS = [
    pytest.param(layout, fill, shapes, id=f"{layout}-{fill}-{shapes}")
    for shapes in CROSS_SHAPES for layout in LAYOUTS for fill in FILLS
    if layout == "coo" or len(shapes[0]) >= 2  # compressed layouts are at least 2-d
]  # fmt: skip


@pytest.mark.parametrize("layout, fill, shapes", CROSS_PARAMS)
def test_cross_matches_numpy(layout, fill, shapes):
    s1, s2, axis = shapes
    rng = np.random.default_rng(23)
    block = (1, 1) if layout in ("bsr", "bsc") else None
    A, DA = make_sparse(rng, layout, s1, None, block, density=0.5, fill=fill)
    B, DB = make_sparse(rng, "coo", s2, None, None, density=0.5, fill=0.0, duplicates=True)
    with np.errstate(all="ignore"):
        expected = np.linalg.cross(DA, DB, axis=axis)
        results = [L.cross(A, B, axis=axis), L.cross(A, DB, axis=axis), L.cross(DA, B, axis=axis)]
    assert is_sparse(results[0])
    for got in results:
        assert tuple(got.shape) == expected.shape
        np.testing.assert_allclose(dense(got), expected, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "complex128"])
def test_cross_dtypes(dtype):
    rng = np.random.default_rng(24)
    A, DA = make_coo(rng, (4, 3), density=0.7, fill=0, dtype=dtype)
    B, DB = make_coo(rng, (4, 3), density=0.7, fill=0, dtype=dtype)
    A = A * 30 if np.dtype(dtype).kind in "iu" else A
    expected = np.linalg.cross(dense(A), DB)
    _exact(L.cross(A, B), expected)


def test_bad_input():
    u = sparray.zeros((3,))
    with pytest.raises(ValueError, match=r"sparray.linalg.outer: x2 must be 1-d; got shape \(3, 3\)"):
        L.outer(u, sparray.zeros((3, 3)))
    with pytest.raises(TypeError, match="sparray.linalg.outer: x1 must have a numeric dtype; got bool"):
        L.outer(sparray.zeros((3,), dtype=sparray.bool), u)
    with pytest.raises(TypeError, match="sparray.linalg.outer: x2 must be an array"):
        L.outer(u, 2.0)
    with pytest.raises(ValueError, match="sparray.linalg.cross: both operands must have size 3 along axis -1"):
        L.cross(sparray.zeros((2, 4)), sparray.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"sparray.linalg.cross: axis must be a negative int in \[-2, -1\]"):
        L.cross(sparray.zeros((3, 3)), sparray.zeros((3, 3)), axis=0)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        L.cross(sparray.zeros((2, 3)), sparray.zeros((4, 3)))


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(25)
    A, DA = make_coo(rng, (6,), density=0.5, fill=1.5, xp=xp)
    B, DB = make_coo(rng, (4,), density=0.5, fill=0.0, xp=xp)
    assert_matches_dense(L.outer(A, B), np.outer(DA, DB))
    assert_matches_dense(L.outer(A, xp.asarray(DB)), np.outer(DA, DB))
    C, DC = make_coo(rng, (4, 3), density=0.5, fill=0.5, xp=xp)
    E, DE = make_coo(rng, (4, 3), density=0.5, fill=0.0, xp=xp)
    assert_matches_dense(L.cross(C, E), np.linalg.cross(DC, DE))
