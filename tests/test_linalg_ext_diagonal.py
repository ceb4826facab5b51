"""sparray.linalg.diagonal and trace against numpy.linalg on the dense arrays: every layout, stacks,
hybrid matrices, empty and 1x1 matrices, fills 0 / 1.5 / nan / -inf, integer and complex dtypes."""

import numpy as np
import pytest

import sparray
from linalg_ext_cases import is_sparse, layout_matrix_params, make_matrix
from sparray_testing import assert_matches_dense, make_coo

L = sparray.linalg
# nan and inf fills make NumPy and sparray's own arithmetic warn (0 * inf, inf - inf): the values are checked
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
OFFSETS = [0, 1, -2, 7, -7]


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params())
def test_diagonal_and_trace_match_numpy(layout, case, fill):
    rng = np.random.default_rng(3)
    A, D = make_matrix(rng, layout, case, fill)
    for offset in OFFSETS:
        R = L.diagonal(A, offset=offset)
        assert is_sparse(R), "the diagonal of a sparse array stays sparse"
        assert_matches_dense(R, np.linalg.diagonal(D, offset=offset))
        T = L.trace(A, offset=offset)
        with np.errstate(invalid="ignore"):
            expected = np.linalg.trace(D, offset=offset)
        assert_matches_dense(T, expected)


def test_diagonal_keeps_the_fill_and_reads_no_dense_form():
    """Unspecified diagonal positions are unspecified in the result (fill kept); only diagonal entries are stored."""
    D = np.full((5, 5), 1.5)
    D[1, 1], D[2, 3], D[4, 0] = 7.0, 8.0, 9.0
    A = sparray.asarray(D, fill_value=1.5, layout="csr")
    R = L.diagonal(A)
    assert R.nse == 1 and float(R.fill_value) == 1.5
    assert_matches_dense(R, np.diagonal(D), fill=1.5)
    assert L.diagonal(A, offset=1).nse == 1 and L.diagonal(A, offset=-4).nse == 1
    assert float(L.trace(A)) == 7.0 + 4 * 1.5


@pytest.mark.parametrize("dtype, fill", [("int64", 3), ("int8", 0), ("uint8", 2), ("complex128", 0.0), ("bool", True)])
def test_diagonal_and_trace_dtypes(dtype, fill):
    rng = np.random.default_rng(5)
    A, D = make_coo(rng, (2, 4, 5), density=0.5, fill=fill, dtype=dtype, duplicates=dtype != "bool")
    R = L.diagonal(A, offset=1)
    assert R.dtype == D.dtype
    assert_matches_dense(R, np.linalg.diagonal(D, offset=1))
    if dtype != "bool":  # the standard's trace takes numeric dtypes; bool sums as sparray.sum does
        assert_matches_dense(L.trace(A), np.linalg.trace(D))
        wide = sparray.complex128 if dtype == "complex128" else sparray.float64
        assert_matches_dense(L.trace(A, dtype=wide), np.linalg.trace(D, dtype=wide))


def test_diagonal_of_uncoalesced_coo_sums_duplicates():
    A = sparray.COO([[1, 0, 1, 1], [1, 0, 1, 2]], [2.0, 5.0, 3.0, 4.0], shape=(3, 3), fill_value=-1.0)
    R = L.diagonal(A)
    assert_matches_dense(R, [5.0, 5.0, -1.0])
    assert float(L.trace(A)) == 9.0


def test_dense_input_goes_to_the_namespace():
    D = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(L.diagonal(D, offset=1), np.linalg.diagonal(D, offset=1))
    assert L.trace(D, offset=-1) == np.linalg.trace(D, offset=-1)


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(0)
    A, D = make_coo(rng, (2, 4, 4), density=0.5, fill=1.5, xp=xp)
    assert_matches_dense(L.diagonal(A, offset=-1), np.linalg.diagonal(D, offset=-1))
    assert_matches_dense(L.trace(A), np.linalg.trace(D))


def test_bad_input():
    A = sparray.zeros((4,))
    with pytest.raises(ValueError, match=r"sparray.linalg.diagonal: x must be a matrix .* got shape \(4,\)"):
        L.diagonal(A)
    with pytest.raises(TypeError, match="sparray.linalg.trace: offset must be an int; got float"):
        L.trace(sparray.zeros((3, 3)), offset=1.0)
    with pytest.raises(TypeError, match="sparray.linalg.diagonal: x must be an array"):
        L.diagonal([[1.0, 2.0]])

