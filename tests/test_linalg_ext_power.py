"""sparray.linalg.matrix_power against repeated dense products (element by element, so nan and inf
follow IEEE rules) and numpy.linalg.matrix_power: every layout, stacks, hybrid, empty and 1x1
matrices, fills 0 / 1.5 / nan / -inf, negative powers through inv, integer wraparound.

The powers follow the namespace rule (sparray._array.results): always sparray arrays; a power computed
on the dense form (negative powers, through inv) is held dense by a COO with no sparse dims (fill 0,
components in the input's namespace)."""

import numpy as np
import pytest

import sparray
from linalg_ext_cases import SQUARE_SHAPES, dense, is_sparse, layout_matrix_params, make_matrix, ref_matmul
from sparray_testing import assert_follows_namespace_rule, assert_holds_dense, make_coo

L = sparray.linalg
# nan and inf fills make NumPy and sparray's own arithmetic warn (0 * inf, inf - inf): the values are checked
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def ref_power(D, n):
    """NumPy's binary powering (matrix_power's order of products) with the element-by-element product."""
    if n == 0:
        return np.broadcast_to(np.eye(D.shape[-1], dtype=D.dtype), D.shape)
    z = result = None
    while n > 0:
        z = D if z is None else ref_matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else ref_matmul(result, z)
    return result


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params(SQUARE_SHAPES))
def test_matrix_power_matches_repeated_products(layout, case, fill):
    rng = np.random.default_rng(31)
    A, D = make_matrix(rng, layout, case, fill)
    for n in (0, 1, 2, 3, 5):
        R = L.matrix_power(A, n)
        assert_follows_namespace_rule(R, A, f"n={n}")
        assert tuple(R.shape) == D.shape and R.dtype == D.dtype
        np.testing.assert_allclose(dense(R), ref_power(D, n), rtol=1e-10, atol=1e-10, equal_nan=True)
        if n == 0 or (fill == 0.0 and A.dense_ndim == 0 and np.isfinite(D).all()):
            assert is_sparse(R) and R.layout == A.layout, "zero fills and finite values keep the powers sparse"


@pytest.mark.parametrize("layout", ["coo", "csr", "bsc"])
@pytest.mark.parametrize("fill", [0.0, 0.25])
def test_negative_powers_go_through_inv(layout, fill):
    rng = np.random.default_rng(32)
    A, _ = make_matrix(rng, layout, SQUARE_SHAPES[0], fill)  # a stack of two 4x4 matrices
    block = (2, 2) if layout == "bsc" else None
    shift = sparray.asarray(np.broadcast_to(6.0 * np.eye(4), A.shape), layout=layout, blocksize=block)
    A = A + shift  # diagonally dominant: invertible
    D = dense(A)
    for n in (-1, -3):
        R = L.matrix_power(A, n)
        assert_holds_dense(R, A)  # computed dense (inv): held dense, the namespace rule
        assert R.layout == "coo" and R.sparse_ndim == 0 and R.nse == 1
        assert tuple(R.shape) == D.shape and R.dtype == D.dtype
        np.testing.assert_allclose(dense(R), np.linalg.matrix_power(D, n), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "complex128", "float32"])
def test_matrix_power_dtypes(dtype):
    rng = np.random.default_rng(33)
    A, D = make_coo(rng, (3, 3), density=0.7, fill=0, dtype=dtype)
    A = A * 7 if np.dtype(dtype).kind in "iu" else A  # the powers pass 255 and wrap as NumPy's do
    D = dense(A)
    R = L.matrix_power(A, 4)
    assert_follows_namespace_rule(R, A)
    assert R.dtype == D.dtype and dense(R).dtype == D.dtype
    np.testing.assert_allclose(dense(R), np.linalg.matrix_power(D, 4), rtol=1e-5)


def test_bad_input():
    with pytest.raises(ValueError, match=r"sparray.linalg.matrix_power: x must be a square matrix .* got shape \(2, 3\)"):
        L.matrix_power(sparray.zeros((2, 3)), 2)
    with pytest.raises(TypeError, match="sparray.linalg.matrix_power: n must be an int; got float"):
        L.matrix_power(sparray.zeros((2, 2)), 2.0)
    with pytest.raises(TypeError, match="sparray.linalg.matrix_power: x must have a numeric dtype; got bool"):
        L.matrix_power(sparray.zeros((2, 2), dtype=sparray.bool), 2)
    with pytest.raises(np.linalg.LinAlgError):  # NumPy's error for a singular matrix
        L.matrix_power(sparray.zeros((2, 2)), -1)


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(34)
    A, D = make_coo(rng, (2, 4, 4), density=0.5, fill=0.0, xp=xp)
    for n in (0, 3):
        R = L.matrix_power(A.to_layout("csr"), n)
        assert is_sparse(R) and R.layout == "csr"
        assert_follows_namespace_rule(R, A)  # components of array_api_strict
        np.testing.assert_allclose(dense(R), np.linalg.matrix_power(D, n), rtol=1e-12)
    R = L.matrix_power(A + sparray.asarray(xp.asarray(np.broadcast_to(5.0 * np.eye(4), (2, 4, 4)))), -1)
    assert_holds_dense(R, A)  # a negative power, held dense with array_api_strict components
    np.testing.assert_allclose(dense(R), np.linalg.inv(D + 5.0 * np.eye(4)), rtol=1e-12)
