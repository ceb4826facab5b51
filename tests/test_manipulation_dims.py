"""permute_dims, moveaxis, reshape, expand_dims, squeeze and flip against NumPy.

Every layout (plain, batched, hybrid, empty and size-1 dims), fills 0, 1.5, nan and -inf (a
dense-part fill for hybrid shapes), n-d COO with duplicates, and the errors.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from sparray_testing import FILLS, assert_matches_dense, coo_cases, layout_cases, make_coo

import sparray


def _fill_varies(A):
    f = np.asarray(A.fill_value)
    return f.ndim > 0 and f.size > 1 and not np.all((f == f.flat[0]) | (np.isnan(f) & np.isnan(f.flat[0])))


_TRANSPOSED = {"coo": "coo", "csr": "csc", "csc": "csr", "bsr": "bsc", "bsc": "bsr"}


def _check_layout(R, A):
    """A compressed input comes back compressed when the result can be (COO otherwise); the
    transpose of a compressed matrix is the other orientation (a view)."""
    assert isinstance(R, sparray.SparseArray)
    assert R.layout in (A.layout, _TRANSPOSED[A.layout], "coo")


def _perms(rng, n, k=6):
    perms = list(itertools.permutations(range(n)))
    return [perms[i] for i in rng.choice(len(perms), size=min(k, len(perms)), replace=False)]


# --- permute_dims / moveaxis -----------------------------------------------------------------------
def test_permute_dims_every_layout_matches_numpy(backend):
    rng = np.random.default_rng(0)
    for layout, A, D in layout_cases(rng):
        for perm in _perms(rng, A.ndim):
            R = sparray.permute_dims(A, perm)
            _check_layout(R, A)
            assert_matches_dense(R, np.transpose(D, perm))


@given(coo_cases(dtypes=("float64", "int64", "complex128")))
def test_permute_dims_nd_coo_with_duplicates(case):
    A, D = case
    for perm in itertools.permutations(range(A.ndim)):
        R = sparray.permute_dims(A, perm)
        assert isinstance(R, sparray.COO)
        assert_matches_dense(R, np.transpose(D, perm))
        assert R.is_coalesced == (R.coalesce().nse == R.nse and _sorted(R))


def _sorted(R):
    idx = np.asarray(R.indices)
    keys = np.ravel_multi_index(idx, R.shape[: R.sparse_ndim]) if idx.shape[0] else np.zeros(idx.shape[1], np.int64)
    return bool(np.all(np.diff(keys) > 0))


def test_permute_dims_keeps_the_split_when_it_can():
    rng = np.random.default_rng(1)
    A, D = make_coo(rng, (3, 4, 2, 5), 2, fill=1.5, dense_fill=True)
    R = sparray.permute_dims(A, (1, 0, 3, 2))  # sparse among sparse, dense among dense
    assert (R.sparse_ndim, R.dense_ndim) == (2, 2) and R.nse == A.nse
    assert_matches_dense(R, np.transpose(D, (1, 0, 3, 2)), fill=np.transpose(np.asarray(A.fill_value)))


def test_permute_dims_dense_dim_first_uniform_and_varying_fill():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (3, 4, 2), 2, fill=7.0)  # scalar fill: the dense dim becomes sparse
    R = sparray.permute_dims(A, (2, 0, 1))
    assert R.sparse_ndim == 3
    assert_matches_dense(R, np.transpose(D, (2, 0, 1)), fill=7.0)
    V, DV = make_coo(rng, (3, 4, 2), 2, fill=1.0, dense_fill=True)  # the fill varies: sparse dims go dense
    assert _fill_varies(V)
    R = sparray.permute_dims(V, (2, 0, 1))
    assert_matches_dense(R, np.transpose(DV, (2, 0, 1)))


def test_permute_dims_compressed_matrix_transpose_is_a_view():
    A = sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2), fill_value=1.0)
    R = sparray.permute_dims(A, (1, 0))
    assert R.layout == "csc" and R.values is A.values
    np.testing.assert_array_equal(R.to_dense(), A.to_dense().T)
    assert sparray.permute_dims(A, (0, 1)) is A


def test_moveaxis_matches_numpy():
    rng = np.random.default_rng(3)
    for layout, A, D in layout_cases(rng, fills=[0.0, float("nan")]):
        n = A.ndim
        for src, dst in [(0, -1), (-1, 0), ((0, 1), (1, 0)), ((0, n - 1), (n - 1, 0))]:
            R = sparray.moveaxis(A, src, dst)
            _check_layout(R, A)
            assert_matches_dense(R, np.moveaxis(D, src, dst))


def test_permute_dims_and_moveaxis_errors():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 2))
    with pytest.raises(ValueError, match=r"axes must order all 2 dims of an array of shape \(2, 2\)"):
        sparray.permute_dims(A, (0,))
    with pytest.raises(ValueError, match="repeated axis"):
        sparray.permute_dims(A, (0, 0))
    with pytest.raises(ValueError, match="out of range"):
        sparray.permute_dims(A, (0, 2))
    with pytest.raises(ValueError, match="same number of dims"):
        sparray.moveaxis(A, (0, 1), 0)


# --- reshape --------------------------------------------------------------------------------------
def _targets(shape):
    size = math.prod(shape)
    out = [(size,), (-1,), tuple(reversed(shape)), (*shape[:-1], 1, shape[-1])]
    if len(shape) >= 2:
        out += [(shape[0], -1), (-1, shape[-1]), (1, *shape)]
    if shape and shape[0] % 2 == 0 and shape[0]:
        out.append((2, shape[0] // 2, *shape[1:]))
    return out


def test_reshape_every_layout_matches_numpy(backend):
    rng = np.random.default_rng(4)
    for layout, A, D in layout_cases(rng):
        for target in _targets(A.shape):
            try:
                expected = np.reshape(D, target)
            except ValueError:  # -1 with size 0: NumPy refuses, so does sparray
                with pytest.raises(ValueError, match="cannot reshape"):
                    sparray.reshape(A, target)
                continue
            try:
                R = sparray.reshape(A, target)
            except ValueError as exc:
                # merging dense dims whose fill varies into sparse ones cannot be exact
                assert "fill value varies" in str(exc) and _fill_varies(A), (layout, A, target)
                continue
            _check_layout(R, A)
            assert_matches_dense(R, expected)


@given(coo_cases(dtypes=("float64", "bool")))
def test_reshape_nd_coo_keeps_coalesced_and_duplicates(case):
    A, D = case
    for target in _targets(A.shape):
        try:
            R = sparray.reshape(A, target)
        except ValueError as exc:
            assert _fill_varies(A) or ("cannot reshape" in str(exc) and D.size == 0)
            continue
        assert_matches_dense(R, np.reshape(D, target))
        if A.is_coalesced:
            assert R.is_coalesced


def test_reshape_keeps_trailing_dense_dims_and_copy():
    rng = np.random.default_rng(5)
    A, D = make_coo(rng, (4, 6, 3), 2, fill=2.0, dense_fill=True)
    R = sparray.reshape(A, (2, 12, 3))
    assert R.dense_ndim == 1 and R.values is A.values
    assert_matches_dense(R, D.reshape(2, 12, 3), fill=np.asarray(A.fill_value))
    C = sparray.reshape(A, (2, 12, 3), copy=True)
    assert C.values is not A.values
    assert_matches_dense(C, D.reshape(2, 12, 3))
    assert sparray.reshape(A, A.shape) is A


def test_reshape_errors_name_both_shapes():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3))
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(2, 3\) \(size 6\) to \(4, 2\)"):
        sparray.reshape(A, (4, 2))
    with pytest.raises(ValueError, match="one -1"):
        sparray.reshape(A, (-1, -1))
    with pytest.raises(ValueError, match=r"to \(-1, 4\)"):
        sparray.reshape(A, (-1, 4))
    with pytest.raises(TypeError, match="tuple of ints"):
        sparray.reshape(A, (2.5, 2))
    V = sparray.COO([[0]], [[1.0, 5.0]], shape=(3, 2), fill_value=[1.0, 2.0])
    R = sparray.reshape(V, (6,))  # the varying fill merges into a sparse dim: one fill, the rest specified
    np.testing.assert_array_equal(R.to_dense(), V.to_dense().reshape(6))
    assert R.fill_value.shape == () and R.nse == 3  # 5, 2, 2 differ from the new fill 1


def test_reshape_to_and_from_empty():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3), fill_value=4.0)
    E = sparray.reshape(sparray.COO(np.zeros((2, 0), np.int64), np.zeros(0), shape=(0, 3)), (3, 0))
    assert E.shape == (3, 0) and E.nse == 0
    np.testing.assert_array_equal(sparray.reshape(A, (3, 2)).to_dense(), A.to_dense().reshape(3, 2))


# --- expand_dims / squeeze ------------------------------------------------------------------------
def test_expand_dims_and_squeeze_every_layout(backend):
    rng = np.random.default_rng(6)
    for layout, A, D in layout_cases(rng):
        n = A.ndim
        for axis in [*range(-(n + 1), n + 1), (0, -1), (0, 1)]:
            R = sparray.expand_dims(A, axis=axis)
            _check_layout(R, A)
            expected = np.expand_dims(D, axis)
            assert_matches_dense(R, expected)
            dims = (axis,) if isinstance(axis, int) else axis
            S = sparray.squeeze(R, axis=dims)
            assert_matches_dense(S, D)
        ones = tuple(d for d in range(n) if A.shape[d] == 1)
        if ones:
            assert_matches_dense(sparray.squeeze(A, axis=ones), np.squeeze(D, axis=ones))


def test_expand_dims_sparse_or_dense_position():
    rng = np.random.default_rng(7)
    A, D = make_coo(rng, (3, 4, 2), 2, fill=np.nan, dense_fill=True)
    assert sparray.expand_dims(A, axis=1).sparse_ndim == 3
    R = sparray.expand_dims(A, axis=3)  # among the dense dims
    assert (R.sparse_ndim, R.dense_ndim) == (2, 2)
    assert_matches_dense(R, np.expand_dims(D, 3), fill=np.expand_dims(np.asarray(A.fill_value), 1))
    C = sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2))
    T = sparray.expand_dims(C, axis=-1)  # after the last dim of a compressed array: dense
    assert T.layout == "csr" and T.dense_ndim == 1 and T.shape == (2, 2, 1)


def test_squeeze_to_zero_dims_and_errors():
    A = sparray.COO([[0], [0]], [3.0], shape=(1, 1), fill_value=2.0)
    Z = sparray.squeeze(A, axis=(0, 1))
    assert Z.shape == () and float(Z.to_dense()) == 3.0
    with pytest.raises(ValueError, match=r"dim 1 of an array of shape \(1, 3\) has size 3, not 1"):
        sparray.squeeze(sparray.COO([[0], [2]], [1.0], shape=(1, 3)), axis=1)
    with pytest.raises(ValueError, match="out of range"):
        sparray.expand_dims(A, axis=3)


# --- flip -----------------------------------------------------------------------------------------
def test_flip_every_layout_matches_numpy(backend):
    rng = np.random.default_rng(8)
    for layout, A, D in layout_cases(rng):
        for axis in [None, 0, -1, *([(0, A.ndim - 1)] if A.ndim > 1 else [])]:
            R = sparray.flip(A, axis=axis)
            _check_layout(R, A)
            assert_matches_dense(R, np.flip(D, axis=axis))


@given(coo_cases(fills=FILLS))
def test_flip_nd_coo_with_duplicates(case):
    A, D = case
    for axis in range(A.ndim):
        assert_matches_dense(sparray.flip(A, axis=axis), np.flip(D, axis=axis))


# --- dense input, other namespaces ----------------------------------------------------------------
def test_dense_input_goes_to_its_namespace():
    D = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sparray.permute_dims(D, (1, 0)), D.T)
    np.testing.assert_array_equal(sparray.reshape(D, (3, 2)), D.reshape(3, 2))
    np.testing.assert_array_equal(sparray.flip(D, axis=0), D[::-1])
    np.testing.assert_array_equal(sparray.expand_dims(D, axis=0), D[None])
    np.testing.assert_array_equal(sparray.squeeze(D[None], axis=0), D)
    np.testing.assert_array_equal(sparray.moveaxis(D, 0, 1), D.T)


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(9)
    A, D = make_coo(rng, (3, 4, 2), 2, fill=1.5, xp=xps)
    assert_matches_dense(sparray.permute_dims(A, (1, 0, 2)), np.transpose(D, (1, 0, 2)))
    assert_matches_dense(sparray.reshape(A, (12, 2)), D.reshape(12, 2))
    assert_matches_dense(sparray.flip(A, axis=(0, 2)), np.flip(D, (0, 2)))
    assert_matches_dense(sparray.squeeze(sparray.expand_dims(A, axis=0), axis=0), D)


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")])
def test_issue16_broadcast_size_one_to_zero_with_stored_elements(layout, fill):
    D = np.array([[1.0, 0, 2]])
    A = sparray.asarray(D, layout=layout, fill_value=fill, blocksize=(1, 1) if layout[0] == "b" else None)
    B = sparray.broadcast_to(A, (0, 3))
    assert B.shape == (0, 3) and B.nse == 0
    np.testing.assert_array_equal(B.to_dense(), np.broadcast_to(D, (0, 3)))
    E = sparray.asarray(np.zeros((0, 3)), layout=layout, blocksize=(1, 1) if layout[0] == "b" else None)
    for R, expected in ((A + E, D + np.zeros((0, 3))), (E * A, np.zeros((0, 3)) * D), (A > E, D > np.zeros((0, 3)))):
        assert R.shape == expected.shape == (0, 3)
        np.testing.assert_array_equal(R.to_dense(), expected)
    H = sparray.COO([[0]], np.array([[1.0, 2.0]]), shape=(1, 2), fill_value=np.array([0.5, 1.0]))  # hybrid
    np.testing.assert_array_equal(sparray.broadcast_to(H, (4, 0, 2)).to_dense(), np.zeros((4, 0, 2)))
