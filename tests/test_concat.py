"""concat and stack against NumPy: every layout, fills 0, 1.5, nan and -inf, hybrid and batched
shapes, n-d COO with duplicates, dtype promotion, mixed layouts and dense operands, errors."""

import numpy as np
import pytest
from hypothesis import given
from sparray_testing import FILLS, LAYOUT_SHAPES, assert_matches_dense, coo_cases, make_coo, make_sparse

import sparray


def _partner(rng, layout, shape, s, block, fill, A, axis=None, extra=0):
    """Another random array like ``A`` (same fill, shape grown by ``extra`` along ``axis``)."""
    shape = list(shape)
    if axis is not None:
        shape[axis] += extra
    B, DB = make_sparse(rng, layout, tuple(shape), s, block, density=0.5, fill=fill, dense_fill=s < len(shape))
    if np.asarray(A.fill_value).ndim:  # dense-part fill: give B A's fill
        B = _with_fill(B, A.fill_value)
        DB = _dense_with_fill(B)
    return B, DB


def _with_fill(B, fill):
    coo = B.to_layout("coo")
    C = sparray.COO(coo.indices, coo.values, coo.shape, fill_value=fill)
    return C if B.layout == "coo" else C.to_layout(B.layout, blocksize=getattr(B, "blocksize", None))


def _dense_with_fill(B):
    return np.asarray(B.to_dense())


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_concat_every_layout_and_axis(layout, backend):
    rng = np.random.default_rng(0)
    for shape, s, block in LAYOUT_SHAPES:
        for fill in FILLS:
            A, DA = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape))
            for axis in range(len(shape)):
                B, DB = _partner(rng, layout, shape, s, block, fill, A)
                try:
                    R = sparray.concat([A, B], axis=axis)
                except ValueError as exc:  # joining along a dense dim whose fill varies
                    assert "varies" in str(exc) and axis >= s
                    continue
                assert R.layout in (layout, "coo")
                assert_matches_dense(R, np.concatenate([DA, DB], axis=axis))


@given(coo_cases(dtypes=("float64", "int32")))
def test_concat_nd_coo_three_arrays_different_sizes(case):
    A, DA = case
    if A.ndim == 0:
        return
    rng = np.random.default_rng(1)
    for axis in range(A.ndim):
        shape2 = list(A.shape)
        shape2[axis] += 2
        if axis >= A.sparse_ndim and np.asarray(A.fill_value).ndim:
            continue  # a dense-part fill has no value for the grown dense dim
        B, DB = make_coo(rng, tuple(shape2), A.sparse_ndim, fill=0.0, duplicates=True, dtype=A.dtype)
        B = _with_fill(B, A.fill_value)
        DB = np.asarray(B.to_dense())
        try:
            R = sparray.concat([A, B, A], axis=axis)
        except ValueError as exc:
            assert "varies" in str(exc)
            continue
        assert_matches_dense(R, np.concatenate([DA, DB, DA], axis=axis))
        if axis < A.sparse_ndim:  # (joining along a dense dim makes it sparse: more entries)
            assert R.nse == 2 * A.nse + B.nse  # duplicates are kept


def test_concat_axis0_of_coalesced_is_coalesced():
    rng = np.random.default_rng(2)
    A, DA = make_coo(rng, (3, 4), fill=1.0)
    B, DB = make_coo(rng, (2, 4), fill=1.0)
    A, B = A.coalesce(), B.coalesce()
    R = sparray.concat([A, B])
    assert R.is_coalesced
    assert_matches_dense(R, np.concatenate([DA, DB]), fill=1.0)
    R1 = sparray.concat([A, A], axis=1)
    assert R1.is_coalesced is False  # rows interleave: computed, not assumed
    assert_matches_dense(R1.coalesce(), np.concatenate([DA, DA], axis=1))


def test_concat_axis_none_mixed_layouts_and_dense_operands():
    rng = np.random.default_rng(3)
    A, DA = make_coo(rng, (3, 4), fill=2.0)
    C = A.to_layout("csr")
    R = sparray.concat([A, C], axis=None)
    assert R.shape == (24,) and R.layout == "coo"
    assert_matches_dense(R, np.concatenate([DA.ravel(), DA.ravel()]), fill=2.0)
    M = sparray.concat([C, A], axis=0)  # mixed layouts: COO
    assert M.layout == "coo"
    D = np.full((1, 4), 2.0)
    D[0, 1] = 5.0
    R = sparray.concat([C, D, C])  # a dense operand joins with the common fill
    assert R.layout == "csr" and R.nse == 2 * C.nse + 1
    assert_matches_dense(R, np.concatenate([DA, D, DA]), fill=2.0)


def test_concat_promotes_dtypes():
    a = sparray.COO([[0, 0]], np.array([1.5, 2.0], np.float32), shape=(2,), fill_value=0.5)
    b = sparray.COO([[1]], np.array([3], np.int64), shape=(3,), fill_value=0)
    c = sparray.COO([[0]], [4.0], shape=(1,), fill_value=0.5)
    R = sparray.concat([a, c])
    assert R.dtype == np.float64
    assert_matches_dense(R, [3.5, 0.5, 4.0], fill=0.5)
    R = sparray.concat([a, b])  # different fills: b's elements that differ from 0.5 become specified
    assert R.dtype == np.float64
    assert_matches_dense(R, [3.5, 0.5, 0.0, 3.0, 0.0], fill=0.5)


def test_concat_nan_fills_are_one_fill_and_different_fills_join_exactly():
    a = sparray.COO([[0]], [1.0], shape=(2,), fill_value=np.nan)
    b = sparray.COO([[1]], [2.0], shape=(3,), fill_value=np.nan)
    assert_matches_dense(sparray.concat([a, b]), [1.0, np.nan, np.nan, 2.0, np.nan], fill=np.nan)
    c = sparray.COO([[1]], [2.0], shape=(3,), fill_value=0.0)
    R = sparray.concat([a, c])
    assert_matches_dense(R, [1.0, np.nan, 0.0, 2.0, 0.0], fill=np.nan)
    assert R.nse == 4  # a's entry, and c's three elements that differ from nan
    S = sparray.stack([sparray.asarray(np.eye(2), layout="csr"), sparray.asarray(np.eye(2), fill_value=1.0, layout="csr")])
    assert_matches_dense(S, np.stack([np.eye(2), np.eye(2)]))


def test_concat_errors_name_the_shapes():
    a = sparray.COO([[0], [0]], [1.0], shape=(2, 3))
    b = sparray.COO([[0], [0]], [1.0], shape=(2, 4))
    with pytest.raises(ValueError, match=r"shapes must agree except along axis 0; got shapes \[\(2, 3\), \(2, 4\)\]"):
        sparray.concat([a, b])
    with pytest.raises(ValueError, match="same number of dims"):
        sparray.concat([a, sparray.COO([[0]], [1.0], shape=(3,))])
    with pytest.raises(ValueError, match="out of range"):
        sparray.concat([a, a], axis=2)
    with pytest.raises(TypeError, match="tuple or list"):
        sparray.concat(a)
    v = sparray.COO([[0]], [[1.0, 3.0]], shape=(2, 2), fill_value=[1.0, 2.0])
    R = sparray.concat([v, v], axis=1)  # the varying fill's dim becomes sparse: one fill, the rest specified
    assert_matches_dense(R, np.concat([v.to_dense(), v.to_dense()], axis=1))


@pytest.mark.parametrize("layout", ["coo", "csr", "bsc"])
def test_stack_every_axis(layout):
    rng = np.random.default_rng(4)
    for shape, s, block in LAYOUT_SHAPES[:4]:
        for fill in (0.0, -np.inf):
            A, DA = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill)
            B, DB = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill)
            for axis in range(-len(shape) - 1, len(shape) + 1):
                R = sparray.stack([A, B, A], axis=axis)
                assert_matches_dense(R, np.stack([DA, DB, DA], axis=axis))


def test_stack_errors_and_dense_inputs():
    a = sparray.COO([[0]], [1.0], shape=(2,))
    with pytest.raises(ValueError, match=r"one shape; got shapes \[\(2,\), \(3,\)\]"):
        sparray.stack([a, sparray.COO([[0]], [1.0], shape=(3,))])
    with pytest.raises(ValueError, match="out of range"):
        sparray.stack([a, a], axis=2)
    np.testing.assert_array_equal(sparray.stack([np.ones(2), np.zeros(2)]), [[1, 1], [0, 0]])
    np.testing.assert_array_equal(sparray.concat([np.ones(2), np.zeros(1)]), [1, 1, 0])


def test_concat_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(5)
    A, DA = make_coo(rng, (3, 4), fill=1.5, xp=xps)
    assert_matches_dense(sparray.concat([A, A], axis=1), np.concatenate([DA, DA], axis=1))
    assert_matches_dense(sparray.stack([A, A], axis=1), np.stack([DA, DA], axis=1))


@pytest.mark.parametrize("layout,blocksize", [("coo", None), ("csr", None), ("csc", None), ("bsr", (2, 2)), ("bsc", (2, 1))])
def test_concat_of_one_array_shares_its_components_and_stays_apart(layout, blocksize):
    """One array joined along any axis: a new array of its layout on the same components (Dask's
    rechunk joins every single piece so), equal to NumPy's; assigning into it leaves the input."""
    D = np.arange(24.0).reshape(4, 6) % 5
    A = sparray.asarray(D, layout=layout, fill_value=1.0, blocksize=blocksize)
    for axis in (0, 1, -1, None):
        R = sparray.concat([A], axis=axis)
        assert R is not A and (axis is None or R.layout == layout)
        np.testing.assert_array_equal(R.to_dense(), np.concat([D], axis=axis))
    R = sparray.concat((A,), axis=1)
    assert np.shares_memory(R.values, A.values)
    R[0, 1] = 42.0
    assert A.to_dense()[0, 1] == D[0, 1] and R.to_dense()[0, 1] == 42.0
