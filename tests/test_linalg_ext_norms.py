"""sparray.linalg.vector_norm and matrix_norm against numpy.linalg on the dense arrays: every layout,
stacks, hybrid matrices, empty and 1x1 matrices, fills 0 / 1.5 / nan / -inf, every ord, axis tuples
and keepdims, float32 / complex / integer input.

The norms follow the namespace rule (sparray._array.results): a norm of a sparray array is a sparray
array, sparse over the kept sparse dims, and a dense result (a norm over every sparse dim, the
singular-value norms) is held by a COO with no sparse dims (fill 0, components in the input's
namespace). A norm of a NumPy array is NumPy's."""

import math
import warnings

import numpy as np
import pytest

import sparray
from linalg_ext_cases import dense, is_sparse, layout_matrix_params, make_matrix
from sparray_testing import assert_follows_namespace_rule, assert_holds_dense, make_coo

L = sparray.linalg
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 ** -p, inf - inf: NumPy warns alike
VECTOR_ORDS = [2, 1, 0, math.inf, -math.inf, -1, 3.5, -0.5]
MATRIX_ORDS = ["fro", 1, -1, math.inf, -math.inf, "nuc", 2, -2]


def _check(got, expected, like, rtol=1e-12):
    assert_follows_namespace_rule(got, like)
    assert tuple(got.shape) == expected.shape
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(dense(got), expected, rtol=rtol, atol=1e-12, equal_nan=True)


def _axes_for(ndim):
    return [None, -1, (0, ndim - 1)] if ndim > 1 else [None, 0]


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params())
def test_vector_norm_matches_numpy(layout, case, fill):
    rng = np.random.default_rng(11)
    A, D = make_matrix(rng, layout, case, fill)
    for ord in VECTOR_ORDS:
        for axis in _axes_for(A.ndim):
            keepdims = ord in (1, -1)
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                if ord == -math.inf and math.prod(D.shape) == 0 or (ord == -math.inf and axis is not None and 0 in D.shape):
                    continue  # min over no element has no identity: NumPy raises (checked below)
                expected = np.linalg.vector_norm(D, axis=axis, keepdims=keepdims, ord=ord)
                got = L.vector_norm(A, axis=axis, keepdims=keepdims, ord=ord)
            _check(got, expected, A)


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params())
def test_matrix_norm_matches_numpy(layout, case, fill):
    rng = np.random.default_rng(12)
    A, D = make_matrix(rng, layout, case, fill)
    for ord in MATRIX_ORDS:
        if ord in ("nuc", 2, -2) and not np.isfinite(D).all():
            continue  # LAPACK's SVD does not take nan or inf (NumPy raises LinAlgError on the dense form too)
        keepdims = ord in (1, "nuc")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                expected = np.linalg.matrix_norm(D, keepdims=keepdims, ord=ord)
            except ValueError:  # a min over no element (-1, -inf, -2 of an empty matrix)
                with pytest.raises(ValueError):
                    L.matrix_norm(A, keepdims=keepdims, ord=ord)
                continue
            got = L.matrix_norm(A, keepdims=keepdims, ord=ord)
        _check(got, expected, A, rtol=1e-10)


def test_norms_keep_sparsity_over_kept_dims():
    """A norm over some sparse dims is a sparse array over the others, whose fill is the norm of a fill-only slice."""
    D = np.zeros((4, 5))
    D[1, 2], D[3, 0], D[3, 4] = 3.0, -4.0, 3.0
    A = sparray.asarray(D, layout="csr")
    R = L.vector_norm(A, axis=-1)
    assert_follows_namespace_rule(R, A)
    assert is_sparse(R) and R.sparse_ndim == 1 and R.nse == 2 and float(R.fill_value) == 0.0
    np.testing.assert_allclose(dense(R), np.linalg.vector_norm(D, axis=-1))
    B = sparray.asarray(np.full((2, 3, 3), 1.5), fill_value=1.5, layout="csr")
    M = L.matrix_norm(B, ord=math.inf)
    assert_follows_namespace_rule(M, B)
    assert M.sparse_ndim == 1 and float(M.fill_value) == 4.5  # the norm of a fill-only matrix
    np.testing.assert_allclose(dense(M), [4.5, 4.5])


@pytest.mark.parametrize("dtype, fill, out", [("float32", 1.5, "float32"), ("complex64", 0.0, "float32"),
                                              ("complex128", 2.0, "float64"), ("int64", 3, "float64"),
                                              ("int8", -2, "float64"), ("uint8", 0, "float64")])  # fmt: skip
def test_norm_dtypes(dtype, fill, out):
    rng = np.random.default_rng(13)
    A, D = make_coo(rng, (3, 4, 5), density=0.5, fill=fill, dtype=dtype, duplicates=True)
    rtol = 1e-5 if out == "float32" else 1e-12
    for ord in (2, 1, math.inf, 0, 3):
        got = L.vector_norm(A, axis=(0, 2), ord=ord)
        _check(got, np.linalg.vector_norm(D, axis=(0, 2), ord=ord).astype(out), A, rtol=rtol)
    for ord in ("fro", 1, -math.inf, 2):
        got = L.matrix_norm(A, ord=ord)
        _check(got, np.linalg.matrix_norm(D, ord=ord).astype(out), A, rtol=rtol)


def test_vector_norm_of_0d_and_one_dense_dim_arrays():
    A = sparray.COO(np.zeros((0, 1), np.int64), np.array([-2.0]), shape=(), fill_value=-3.0)
    v = sparray.COO(np.zeros((0, 1), np.int64), np.array([[1.0, 0, 2, 0, 3]]), shape=(5,), fill_value=np.arange(5.0))
    for ord in VECTOR_ORDS:
        got = L.vector_norm(A, ord=ord)
        assert_holds_dense(got, A, ord)  # 0-d, dense by nature: held by a COO
        assert got.shape == () and got.sparse_ndim == 0
        expected = np.linalg.vector_norm(dense(A), ord=ord)
        np.testing.assert_allclose(dense(got), expected)
        assert float(got) == pytest.approx(float(expected))  # a 0-d result takes float()
        _check(L.vector_norm(v, ord=ord), np.linalg.vector_norm(dense(v), ord=ord), v)


def test_int8_extremes_do_not_overflow():
    A = sparray.asarray(np.array([[-128, 0], [0, 127]], dtype=np.int8))
    for got, expected in ((L.vector_norm(A, ord=1), 255.0), (L.matrix_norm(A, ord=1), 128.0)):
        assert_holds_dense(got, A)
        assert float(got) == expected


def test_dense_input_goes_to_the_namespace():
    D = np.arange(6.0).reshape(2, 3)
    for got, expected in ((L.vector_norm(D, ord=1), np.linalg.vector_norm(D, ord=1)),
                          (L.matrix_norm(D, ord="nuc"), np.linalg.matrix_norm(D, ord="nuc"))):  # fmt: skip
        assert not is_sparse(got) and isinstance(got, (np.ndarray, np.generic))  # NumPy in: NumPy out
        assert got == expected


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(0)
    A, D = make_coo(rng, (2, 3, 4), density=0.5, fill=1.5, xp=xp)
    for got, expected in [(L.vector_norm(A, axis=(0, 1), ord=3), np.linalg.vector_norm(D, axis=(0, 1), ord=3)),
                          (L.vector_norm(A, ord=1), np.linalg.vector_norm(D, ord=1)),
                          (L.matrix_norm(A, ord=-1), np.linalg.matrix_norm(D, ord=-1)),
                          (L.matrix_norm(A, ord=2), np.linalg.matrix_norm(D, ord=2))]:  # fmt: skip
        assert_follows_namespace_rule(got, A)  # components of array_api_strict
        assert type(got.values).__module__.startswith("array_api_strict")
        np.testing.assert_allclose(dense(got), expected)


def test_bad_input():
    A = sparray.zeros((3, 3))
    with pytest.raises(ValueError, match="sparray.linalg.vector_norm: ord must be an int or a float .* got 'fro'"):
        L.vector_norm(A, ord="fro")
    with pytest.raises(ValueError, match="sparray.linalg.matrix_norm: ord must be one of .* got 3"):
        L.matrix_norm(A, ord=3)
    with pytest.raises(ValueError, match=r"sparray.linalg.matrix_norm: x must be a matrix .* got shape \(3,\)"):
        L.matrix_norm(sparray.zeros((3,)))
    with pytest.raises(ValueError, match="sparray.linalg.vector_norm: axis 2 is out of range"):
        L.vector_norm(A, axis=2)
    with pytest.raises(ValueError, match="sparray.linalg.vector_norm: repeated axis"):
        L.vector_norm(A, axis=(0, -2))
    with pytest.raises(ValueError):  # NumPy raises as well: min over no element
        L.vector_norm(sparray.zeros((0, 3)), ord=-math.inf)
