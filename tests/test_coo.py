"""COO construction, metadata, coalescing, conversions and namespaces, against dense NumPy."""

import numpy as np
import pytest
from hypothesis import given
from sparray_testing import FILLS, SHAPES, assert_matches_dense, coo_cases, make_coo, to_numpy

import sparray


def test_torch_doc_example_construction():
    # the seed docs' example: i = [[0, 1, 1], [2, 0, 2]], v = [3, 4, 5], size (2, 3)
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3, 4, 5], (2, 3), dtype=sparray.float32)
    np.testing.assert_array_equal(A.to_dense(), [[0, 0, 3], [4, 0, 5]])
    assert A.dtype == np.float32 and A.nse == 3 and A.sparse_ndim == 2 and A.dense_ndim == 0
    assert A.layout == "coo" and A.ndim == 2 and A.size == 6 and A.shape == (2, 3)
    assert A.density == pytest.approx(0.5)
    assert A.nbytes == 2 * 3 * 8 + 3 * 4 + 4  # indices, values, 0-d fill


def test_torch_doc_hybrid_example():
    # sparse dims 1, dense dims 1: i = [[1, 2]], v = [[1, 2, 3], [4, 5, 6]] of shape (3, 3)... per the docs
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [[3, 4], [5, 6], [7, 8]], (2, 3, 2))
    D = np.zeros((2, 3, 2))
    D[0, 2] = [3, 4]
    D[1, 0] = [5, 6]
    D[1, 2] = [7, 8]
    np.testing.assert_array_equal(A.to_dense(), D)
    assert A.sparse_ndim == 2 and A.dense_ndim == 1 and A.dense_shape == (2,)


def test_shape_inference_like_pytorch():
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0])
    assert A.shape == (2, 3)
    H = sparray.COO([[0, 3]], np.ones((2, 4)))
    assert H.shape == (4, 4) and H.dense_ndim == 1
    E = sparray.COO(np.zeros((2, 0), dtype=np.int64), np.zeros((0,)))
    assert E.shape == (0, 0) and E.nse == 0


def test_empty_arrays():
    A = sparray.COO([[]], [], shape=(5,))
    assert A.nse == 0 and A.is_coalesced
    np.testing.assert_array_equal(A.to_dense(), np.zeros(5))
    B = sparray.COO(np.zeros((2, 0), np.int32), np.zeros((0, 3)), shape=(0, 4, 3), fill_value=2.0)
    assert B.to_dense().shape == (0, 4, 3) and B.size == 0 and B.density == 0.0


@pytest.mark.parametrize("shape,s", SHAPES)
@pytest.mark.parametrize("fill", FILLS)
def test_to_dense_and_coalesce(shape, s, fill, backend):
    rng = np.random.default_rng(0)
    for dup in (False, True):
        A, D = make_coo(rng, shape, s, density=0.6, fill=fill, duplicates=dup, dense_fill=dup)
        assert_matches_dense(A, D)
        C = A.coalesce()
        assert C.is_coalesced
        assert_matches_dense(C, D, fill=A.fill_value)
        keys = np.ravel_multi_index(tuple(C.indices), C.shape[: C.sparse_ndim]) if C.sparse_ndim else np.zeros(C.nse)
        assert np.all(np.diff(keys) > 0)
        assert C.coalesce() is C


def test_coalesce_sums_duplicates_and_sorts(backend):
    A = sparray.COO([[1, 0, 1, 1], [2, 1, 2, 0]], [1.0, 2.0, 3.0, 4.0], shape=(2, 3))
    assert not A.is_coalesced
    C = A.coalesce()
    assert C.indices.tolist() == [[0, 1, 1], [1, 0, 2]]
    assert C.values.tolist() == [2.0, 4.0, 4.0]
    assert C.index_dtype == A.index_dtype


def test_coalesce_bool_is_logical_or(backend):
    A = sparray.COO([[0, 0, 1]], [True, False, False], shape=(3,))
    C = A.coalesce()
    assert C.values.tolist() == [True, False] and C.dtype == np.bool_


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_index_dtype_is_kept(index_dtype, backend):
    rng = np.random.default_rng(1)
    A, D = make_coo(rng, (6, 7), density=0.5, index_dtype=index_dtype, duplicates=True)
    assert A.index_dtype == np.dtype(index_dtype)
    assert A.coalesce().index_dtype == np.dtype(index_dtype)
    assert (A + A).index_dtype == np.dtype(index_dtype)
    assert sparray.COO(A.indices, A.values, A.shape, index_dtype="int64").index_dtype == np.int64


def test_built_arrays_use_int32_when_they_fit():
    A = sparray.asarray(np.eye(4))
    assert A.index_dtype == np.int32
    assert (A * 2.0).index_dtype == np.int32
    assert sparray.eye(5).index_dtype == np.int32


def test_fill_value_forms():
    A = sparray.COO([[0]], [[1.0, 2.0]], shape=(3, 2), fill_value=1.2)
    assert A.fill_value.shape == () and float(A.fill_value) == 1.2
    B = sparray.COO([[0]], [[1.0, 2.0]], shape=(3, 2), fill_value=[0.5, 0.25])
    assert B.fill_value.shape == (2,)
    np.testing.assert_array_equal(B.to_dense(), [[1.0, 2.0], [0.5, 0.25], [0.5, 0.25]])
    C = sparray.COO([[0]], [1], shape=(3,), fill_value=2.0)  # 2.0 is exactly representable as int
    assert C.fill_value.dtype == C.dtype and int(C.fill_value) == 2
    with pytest.raises(ValueError, match="cannot be represented"):
        sparray.COO([[0]], [1], shape=(3,), fill_value=2.5)
    with pytest.raises(ValueError, match="cannot be represented"):
        sparray.COO([[0]], [1], shape=(3,), fill_value=float("nan"))
    with pytest.raises(ValueError, match="broadcastable"):
        sparray.COO([[0]], [[1.0, 2.0]], shape=(3, 2), fill_value=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="broadcastable"):
        sparray.COO([[0]], [1.0], shape=(3,), fill_value=[1.0, 2.0])


def test_rfc_point_5_softmax_fill_shape_example():
    # a (1+1)-d hybrid array whose fill is dense-part shaped, as the RFC's softmax result
    A = sparray.COO([[0, 3]], [[0.2492, 0.2503], [0.3044, 0.3057]], shape=(4, 2), fill_value=[0.2232, 0.2220])
    np.testing.assert_allclose(
        A.to_dense(), [[0.2492, 0.2503], [0.2232, 0.2220], [0.2232, 0.2220], [0.3044, 0.3057]]
    )


def test_copy_astype_to_device():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (4, 5), density=0.5, fill=1.5)
    B = A.copy()
    assert B.values is not A.values and B.indices is not A.indices
    B.values[...] = 0
    assert_matches_dense(A, D)
    C = A.astype(sparray.float32)
    assert C.dtype == np.float32 and C.fill_value.dtype == np.float32
    I = A.astype("int64")
    assert_matches_dense(I, D.astype(np.int64))
    assert A.to_device("cpu").values is A.values
    with pytest.raises(ValueError):
        A.to_device("tpu")


def test_array_namespace_protocol():
    import array_api_compat

    A = sparray.COO([[0]], [1.0], shape=(2,))
    assert A.__array_namespace__() is sparray
    assert array_api_compat.array_namespace(A) is sparray


def test_implicit_densification_follows_the_conversion_rule():
    A = sparray.COO([[0]], [1.0], shape=(2,))
    np.testing.assert_array_equal(np.asarray(A), [1.0, 0.0])  # small: converts (tests/test_conversion_rule.py)
    with sparray.auto_densify(max_elements=1), pytest.raises(TypeError, match="to_dense"):
        np.asarray(A)


def test_scalar_conversion_and_len():
    A = sparray.COO([[0]], [3.5], shape=(1,))
    assert float(A) == 3.5 and bool(A) and len(A) == 1
    with pytest.raises(TypeError):
        float(sparray.COO([[0]], [3.5], shape=(2,)))


def test_repr_names_layout_and_fill():
    A = sparray.COO([[0]], [3.5], shape=(4,), fill_value=1.0)
    text = repr(A)
    assert text.startswith("sparray.COO(indices=") and "nse=1" in text and "fill_value=1.0" in text
    assert "values=" in text and text.endswith(")")


def test_transpose_views(backend):
    rng = np.random.default_rng(3)
    A, D = make_coo(rng, (3, 4), density=0.5, fill=2.0)
    assert_matches_dense(A.T, D.T)
    B, E = make_coo(rng, (2, 3, 4), density=0.5, fill=2.0)
    assert_matches_dense(B.mT, np.swapaxes(E, -1, -2))
    H, F = make_coo(rng, (3, 4, 2, 5), 2, density=0.5, fill=1.0, dense_fill=True)
    assert_matches_dense(H.mT, np.swapaxes(F, -1, -2))
    with pytest.raises(ValueError):
        B.T


@pytest.mark.parametrize("shape,s", SHAPES)
def test_array_api_strict_components(shape, s):
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(4)
    A, D = make_coo(rng, shape, s, density=0.5, fill=1.0, xp=xps, duplicates=True)
    assert type(A.values).__module__.startswith("array_api_strict")
    assert_matches_dense(A, D)
    C = A.coalesce()
    assert type(C.indices).__module__.startswith("array_api_strict")
    assert_matches_dense(C, D)
    assert type(A.fill_value).__module__.startswith("array_api_strict")


@given(coo_cases(dtypes=("float64", "int64", "complex128")))
def test_to_dense_roundtrip_property(case):
    A, D = case
    assert_matches_dense(A, D)
    back = sparray.asarray(D, sparse_ndim=A.sparse_ndim, fill_value=to_numpy(A.fill_value))
    assert_matches_dense(back, D)
    assert back.nse <= A.coalesce().nse  # only elements differing from the fill are specified
