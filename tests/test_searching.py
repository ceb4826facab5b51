"""where and nonzero against NumPy: every layout, fills 0, 1.5, nan and -inf (dense-part fills
for hybrid shapes), broadcasting, scalar and dense operands, uncoalesced COO, errors. nonzero's
index arrays are dense by nature and follow the namespace rule (sparray in, sparray out): one
sparray array per dim holding the dense int64 indices (no sparse dims, fill 0, components in the
input's namespace); a NumPy input still gets NumPy index arrays."""

import numpy as np
import pytest
from hypothesis import given
from sparray_testing import assert_matches_dense, assert_sparray_result, coo_cases, layout_cases, make_coo, make_sparse, to_numpy

import sparray


def _condition(rng, layout, A, D):
    """A random boolean sparse array of A's layout and shape (fill True or False)."""
    shape, s = A.shape, A.ndim - A.dense_ndim
    block = A.blocksize if layout in ("bsr", "bsc") else None
    C, DC = make_sparse(rng, layout, shape, s, block, density=0.4, fill=bool(rng.integers(2)), dtype="bool")
    return C, DC


def test_where_every_layout_three_sparse_operands(backend):
    rng = np.random.default_rng(0)
    for layout, A, D in layout_cases(rng):
        C, DC = _condition(rng, layout, A, D)
        B, DB = make_sparse(rng, layout, A.shape, A.ndim - A.dense_ndim,
                            A.blocksize if layout in ("bsr", "bsc") else None, density=0.3, fill=-2.0)
        R = sparray.where(C, A, B)  # (all three share A's split: no dim has to change sides)
        assert R.layout in (layout, "coo")
        expected = np.where(DC, D, DB)
        fill = np.where(np.asarray(C.fill_value), np.asarray(A.fill_value), np.asarray(B.fill_value))
        assert_matches_dense(R, expected, fill=fill)


@given(coo_cases(dtypes=("float64", "int64")))
def test_where_uncoalesced_coo_with_scalars(case):
    A, D = case
    rng = np.random.default_rng(1)
    C, DC = make_coo(rng, A.shape, A.sparse_ndim, density=0.5, dtype="bool", duplicates=False)
    assert_matches_dense(sparray.where(C, A, 0.5), np.where(DC, D, 0.5), check_dtype=False)
    assert_matches_dense(sparray.where(A > 0, 3, A), np.where(D > 0, 3, D), check_dtype=False)
    assert_matches_dense(sparray.where(True, A, 1), np.where(True, D, 1), check_dtype=False)


def test_where_broadcasts_and_promotes():
    rng = np.random.default_rng(2)
    A, DA = make_coo(rng, (3, 4), density=0.5, fill=np.nan, dtype="float32")
    c, Dc = make_coo(rng, (4,), density=0.5, dtype="bool")
    b, Db = make_coo(rng, (3, 1), density=0.5, fill=1, dtype="int64")
    R = sparray.where(c, A, b)
    expected = np.where(Dc, DA, Db)
    assert R.shape == (3, 4) and R.dtype == np.float64 == expected.dtype
    assert_matches_dense(R, expected)


def test_where_dense_operand_gives_dense_result():
    A = sparray.COO([[0, 2]], [1.0, -1.0], shape=(4,), fill_value=0.0)
    D = np.arange(4.0)
    R = sparray.where(A > 0, A, D)
    assert isinstance(R, np.ndarray)
    np.testing.assert_array_equal(R, np.where(A.to_dense() > 0, A.to_dense(), D))
    np.testing.assert_array_equal(sparray.where(D > 1, D, -D), np.where(D > 1, D, -D))


def test_where_errors():
    a = sparray.COO([[0]], [1.0], shape=(3,))
    b = sparray.COO([[0]], [1.0], shape=(4,))
    with pytest.raises(ValueError, match=r"\(3,\), \(4,\) cannot be broadcast"):
        sparray.where(a > 0, a, b)


def check_nonzero(A, D, ctx=""):
    """sparray.nonzero(A) against np.nonzero(D): a tuple of sparray arrays holding the indices."""
    got = sparray.nonzero(A)
    expected = np.nonzero(D)
    assert isinstance(got, tuple) and len(got) == len(expected), ctx
    for g, e in zip(got, expected, strict=True):
        assert_sparray_result(g, A, ctx)
        assert g.sparse_ndim == 0 and g.nse == 1, (g.sparse_ndim, g.nse, ctx)
        assert g.dtype == np.int64 and g.shape == e.shape, ctx
        np.testing.assert_array_equal(to_numpy(g), e, err_msg=str(ctx))


def test_nonzero_every_layout(backend):
    rng = np.random.default_rng(3)
    for layout, A, D in layout_cases(rng):
        check_nonzero(A, D, f"{layout} {A.shape} fill={A.fill_value}")


@given(coo_cases(dtypes=("float64", "bool", "int32")))
def test_nonzero_uncoalesced_coo(case):
    A, D = case
    if A.ndim == 0:
        return
    check_nonzero(A, D)


def test_nonzero_explicit_zeros_cancelling_duplicates_and_0d():
    A = sparray.COO([[0, 1, 1, 3]], [0.0, 2.0, -2.0, 5.0], shape=(5,))  # (1) cancels, (0) is an explicit 0
    (i,) = sparray.nonzero(A)
    assert_sparray_result(i, A)
    np.testing.assert_array_equal(to_numpy(i), [3])
    check_nonzero(A, A.to_dense())
    with pytest.raises(ValueError, match="0-d"):
        sparray.nonzero(sparray.COO(np.zeros((0, 1), np.int64), [1.0], shape=()))
    (i,) = sparray.nonzero(np.array([0, 3, 0]))  # NumPy input: NumPy index arrays, as before
    assert isinstance(i, np.ndarray)
    np.testing.assert_array_equal(i, [1])
