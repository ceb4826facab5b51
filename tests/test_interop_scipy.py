"""scipy.sparse <-> sparray: every scipy format, every layout, shared memory, n-d COO and the fill rule."""

import numpy as np
import pytest
from sparray_testing import LAYOUT_SHAPES, LAYOUTS, make_sparse

import sparray

sp = pytest.importorskip("scipy.sparse")
from sparray.interop.scipy import from_scipy, to_scipy

PLAIN_SHAPES = [c for c in LAYOUT_SHAPES if c[1] == len(c[0])]  # scipy has no hybrid dims
DTYPES = ["bool", "int8", "int64", "uint32", "float32", "float64", "complex128"]


def _scipy_matrix(fmt, dtype, shape=(6, 8), seed=0):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random(shape) < 0.3, rng.integers(1, 9, shape), 0).astype(dtype)
    if fmt == "bsr":
        return sp.coo_array(dense).tobsr(blocksize=(2, 2)), dense
    return sp.coo_array(dense).asformat(fmt), dense


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "bsr", "lil", "dok", "dia"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_from_scipy_every_format_and_dtype(fmt, dtype):
    m, dense = _scipy_matrix(fmt, dtype)
    A = from_scipy(m)
    assert A.layout == {"coo": "coo", "csc": "csc", "bsr": "bsr"}.get(fmt, "csr")
    assert A.dtype == getattr(sparray, dtype)
    np.testing.assert_array_equal(A.to_dense(), dense)
    np.testing.assert_array_equal(sparray.asarray(m).to_dense(), dense)
    assert sparray.asarray(m).layout == "coo" and sparray.asarray(m, layout="csc").layout == "csc"


@pytest.mark.parametrize("fmt", ["csr", "csc", "bsr"])
def test_canonical_scipy_buffers_are_shared(fmt):
    m, _ = _scipy_matrix(fmt, "float64")
    A = from_scipy(m)
    assert np.shares_memory(A.values, m.data) and np.shares_memory(A.plain_indices, m.indices)
    back = to_scipy(A)
    assert back.format == fmt and np.shares_memory(back.data, m.data)


def test_non_canonical_input_is_canonicalised_on_a_copy():
    m = sp.csr_array((np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 2, 1]), np.array([0, 3, 4])), shape=(2, 3))
    before = m.indices.copy()
    A = from_scipy(m)
    np.testing.assert_array_equal(A.to_dense(), [[2.0, 0.0, 4.0], [0.0, 4.0, 0.0]])
    np.testing.assert_array_equal(A.col_indices, [0, 2, 1])
    np.testing.assert_array_equal(m.indices, before)  # the user's matrix is untouched


def test_coo_duplicates_and_explicit_zeros_are_kept():
    m = sp.coo_array(([1.0, 2.0, 0.0], ([0, 0, 1], [1, 1, 2])), shape=(2, 3))
    A = from_scipy(m)
    assert A.nse == 3 and not A.is_coalesced
    np.testing.assert_array_equal(A.to_dense(), [[0, 3, 0], [0, 0, 0]])
    m.sum_duplicates()
    B = from_scipy(m)
    assert B.is_coalesced and B.nse == 2  # the explicit zero stays specified


def test_nd_coo_both_ways():
    A, dense = make_sparse(np.random.default_rng(0), "coo", (3, 4, 5), fill=0.0)
    m = to_scipy(A)
    assert m.format == "coo" and m.shape == (3, 4, 5)
    np.testing.assert_array_equal(m.toarray(), dense)
    B = from_scipy(m)
    assert B.shape == (3, 4, 5)
    np.testing.assert_array_equal(B.to_dense(), dense)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(PLAIN_SHAPES)))
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_to_scipy_every_layout_round_trip(layout, case, index_dtype):
    shape, s, block = PLAIN_SHAPES[case]
    A, dense = make_sparse(np.random.default_rng(case), layout, shape, s, block, index_dtype=index_dtype)
    m = to_scipy(A)
    expected_format = {"coo": "coo", "csr": "csr", "csc": "csc", "bsr": "bsr", "bsc": "csc"}[layout] if A.ndim == 2 else "coo"
    assert m.format == expected_format and m.shape == A.shape
    np.testing.assert_array_equal(m.toarray(), dense)
    np.testing.assert_array_equal(from_scipy(m).to_dense(), dense)


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "bsr"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_scipy_any_format_from_any_layout(fmt, layout):
    A, dense = make_sparse(np.random.default_rng(1), layout, (4, 6), blocksize=(2, 3))
    m = to_scipy(A, fmt)
    assert m.format == fmt
    np.testing.assert_array_equal(m.toarray(), dense)


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    A, dense = make_sparse(np.random.default_rng(2), "coo", (4, 5), xp=xps)
    np.testing.assert_array_equal(to_scipy(A, "csr").toarray(), dense)


def test_errors_name_the_rule():
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3))
    for bad_fill in (1.0, float("nan")):
        with pytest.raises(ValueError, match="fill"):
            to_scipy(A + bad_fill)
    with pytest.raises(ValueError, match="dense \\(hybrid\\) dims"):
        to_scipy(sparray.COO([[0]], [[1.0, 2.0]], shape=(2, 2)))
    with pytest.raises(ValueError, match="format must be"):
        to_scipy(A, "dia")
    with pytest.raises(ValueError, match="2-d only"):
        to_scipy(sparray.random((2, 3, 4), 0.3), "csr")
    with pytest.raises(TypeError, match="SparseArray"):
        to_scipy(np.eye(2))
    with pytest.raises(TypeError, match="scipy.sparse"):
        from_scipy(np.eye(2))


def test_asarray_of_scipy_with_a_fill_value():
    m = sp.csr_array(np.array([[0.0, 1.0], [2.0, 0.0]]))
    A = sparray.asarray(m, fill_value=1.0)  # elements equal to the new fill become unspecified
    np.testing.assert_array_equal(A.to_dense(), [[0.0, 1.0], [2.0, 0.0]])
    assert A.nse == 3 and float(A.fill_value) == 1.0
    B = sparray.asarray(m, layout="csr", copy=True)
    assert not np.shares_memory(B.values, m.data)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_and_dtype_round_trip(layout, dtype):
    A, dense = make_sparse(np.random.default_rng(4), layout, (2, 4, 6), 3, (2, 3), dtype=dtype)
    for B in (A, A.to_layout(layout, blocksize=(2, 3)) if layout[0] == "b" else A):
        back = from_scipy(to_scipy(B))
        assert back.dtype == A.dtype
        np.testing.assert_array_equal(back.to_dense(), dense)
    plain = make_sparse(np.random.default_rng(5), layout, (4, 6), blocksize=(2, 3), dtype=dtype)[0]
    back = from_scipy(to_scipy(plain))
    assert back.layout == {"bsc": "csc"}.get(layout, layout) and back.dtype == plain.dtype
    np.testing.assert_array_equal(back.to_dense(), plain.to_dense())
