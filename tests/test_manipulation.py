"""broadcast_to and matrix_transpose against NumPy, with non-zero and dense-part fills."""

import numpy as np
import pytest
from sparray_testing import assert_matches_dense, make_coo

import sparray


@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")])
@pytest.mark.parametrize(
    "shape,s,target",
    [((1, 4), 2, (3, 4)), ((4,), 1, (2, 3, 4)), ((3, 1, 2), 2, (5, 3, 4, 2)), ((1, 3), 1, (4, 2, 3)), ((0, 1), 2, (0, 5))],
)
def test_broadcast_to_matches_numpy(shape, s, target, fill, backend):
    rng = np.random.default_rng(0)
    for dup in (False, True):
        A, D = make_coo(rng, shape, s, density=0.6, fill=fill, duplicates=dup, dense_fill=True)
        B = sparray.broadcast_to(A, target)
        assert isinstance(B, sparray.COO) and B.shape == target
        assert B.dense_ndim == A.dense_ndim
        assert_matches_dense(B, np.broadcast_to(D, target), fill=A.fill_value)


def test_broadcast_to_errors_and_identity():
    A = sparray.COO([[0, 1]], [1.0, 2.0], shape=(3,))
    assert sparray.broadcast_to(A, (3,)) is A
    with pytest.raises(ValueError, match=r"cannot broadcast an array of shape \(3,\) to shape \(4,\)"):
        sparray.broadcast_to(A, (4,))
    with pytest.raises(ValueError):
        sparray.broadcast_to(A, ())


def test_matrix_transpose_hybrid_with_varying_fill_packs_the_sparse_dim():
    """A fill varying along the dense dim cannot follow it into a sparse dim: the last sparse dim
    moves into the dense part instead, so the transpose is exact."""
    A = sparray.COO([[0]], [[1.0, 2.0]], shape=(3, 2), fill_value=[1.0, 2.0])
    T = sparray.matrix_transpose(A)
    np.testing.assert_array_equal(T.to_dense(), A.to_dense().T)
    C = sparray.COO([[0, 1], [1, 2]], [[1.0, 2.0], [3.0, 4.0]], shape=(2, 3, 2), fill_value=[np.nan, 2.0])
    np.testing.assert_array_equal(C.mT.to_dense(), np.swapaxes(C.to_dense(), -1, -2))
    B = sparray.COO([[0]], [[1.0, 2.0]], shape=(3, 2), fill_value=7.0)  # one fill: dims can move
    np.testing.assert_array_equal(sparray.matrix_transpose(B).to_dense(), B.to_dense().T)
