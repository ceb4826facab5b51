"""``A[key] = value`` against NumPy's ``D[key] = value`` on ``A.to_dense()``: every layout, hybrid and
batched shapes, fills 0, 1.5, nan, -inf (dense-part fills for hybrid shapes), every key kind, scalar,
dense and sparse values; the fill, dtype, layout and a valid structure kept; copy-on-write views."""

import math

import array_api_strict as xs
import numpy as np
import pytest
from sparray_testing import FILLS, LAYOUT_SHAPES, make_sparse

import sparray
from sparray._core import keys as _keys

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def keys_for(shape, rng):
    """Keys of every kind for an array of ``shape`` (all valid for NumPy)."""
    nd = len(shape)
    keys = [(), (Ellipsis,)]
    if nd == 0:
        return keys + [True, False, (Ellipsis, None)]
    n0 = shape[0]
    keys += [True, (False, Ellipsis), (Ellipsis, True)]
    if n0:
        keys += [0, -1, slice(None, None, 2), slice(None, None, -1), slice(1, None, -2),
                 np.array([n0 - 1, 0, n0 - 1, 0]),  # repeats: the last assignment wins
                 rng.random(shape[0]) < 0.5, rng.random(shape) < 0.4,  # dense masks
                 sparray.asarray(rng.random(shape) < 0.3)]  # a sparse mask  # fmt: skip
    if nd >= 2 and n0 and shape[1]:
        n1 = shape[1]
        keys += [(0, slice(None, None, -1)), (Ellipsis, 0), (slice(None), np.array([n1 - 1, 0])),
                 (np.array([0, n0 - 1]), np.array([n1 - 1, 0])), (np.array([[0], [n0 - 1]]), 0),
                 (np.array([0, n0 - 1]), Ellipsis, np.array([0, 0])) if nd >= 3 else (np.array([0]), slice(1, None)),
                 (slice(None), True, np.array([0, n1 - 1]))]  # fmt: skip
    if nd >= 3 and all(shape[:3]):
        keys += [(Ellipsis, np.array([0, shape[-1] - 1])), (0, slice(None), np.array([1 % shape[2], 0, 1 % shape[2]]))]
    return keys


def dense_key(key):
    """The key NumPy takes (sparse masks as dense ones)."""
    items = key if isinstance(key, tuple) else (key,)
    out = tuple(k.to_dense() if isinstance(k, sparray.SparseArray) else k for k in items)
    return out if isinstance(key, tuple) else out[0]


def values_for(R, D, A, rng):
    """Values to assign into an indexed shape ``R``: the fill, other scalars, dense and sparse arrays."""
    fill = np.broadcast_to(np.asarray(A.fill_value), A.dense_shape)
    dt = D.dtype
    out = [2.5, float(fill.flat[0]) if fill.size else 0.0]
    if dt == np.float64 and fill.size:
        out.append(np.asarray(fill.flat[0], dt))  # a 0-d array
    dense = rng.standard_normal(R).astype(dt)
    if dense.size and D.size:  # some elements equal to A's fill where it is constant
        dense[rng.random(R) < 0.4] = fill.flat[0] if fill.size else 0.0
    out.append(dense)
    if len(R):
        out.append(rng.standard_normal(R[-1:]).astype(dt))  # broadcast along the leading dims
        f0 = float(fill.flat[0]) if fill.size else 0.0
        out.append(sparray.asarray(dense, fill_value=f0))  # a value whose fill is A's (when A's is one value)
        out.append(sparray.asarray(dense, fill_value=7.0))  # a value whose fill differs from A's
    return out


def check_structure(A):
    """The components obey the layout's invariants (sorted unique indices; COO's coalesced flag true)."""
    if A.layout == "coo":
        if A._coalesced:
            assert _keys.is_sorted_unique(A)
        sparray.COO(A.indices, A.values, A.shape, fill_value=A.fill_value, check_invariants=True)
    else:
        comps = list(A._components().values())
        type(A)(*comps, shape=A.shape, fill_value=A.fill_value, check_invariants=True)


def assert_equal_nan(got, expected, ctx):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, ctx
    np.testing.assert_array_equal(got, expected, err_msg=ctx)  # nan == nan here, exact values


@pytest.mark.parametrize("layout", LAYOUTS)
def test_setitem_matches_numpy(layout):
    rng = np.random.default_rng(["coo", "csr", "csc", "bsr", "bsc"].index(layout))
    count = 0
    for shape, s, block in LAYOUT_SHAPES:
        for fill in FILLS:
            A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape))
            fill_before = np.asarray(A.fill_value).copy()
            for key in keys_for(shape, rng)[:: 1 + int(fill != 0.0)]:  # every key with fill 0, half with the others
                R = D[dense_key(key)].shape
                for value in values_for(R, D, A, rng)[count % 3 :: 3]:  # a third of them, in turn
                    count += 1
                    B = A.copy()
                    E = D.copy()
                    E[dense_key(key)] = value.to_dense() if isinstance(value, sparray.SparseArray) else value
                    B[key] = value
                    ctx = f"{layout} {shape} fill={fill} key={key!r} value={type(value).__name__} {getattr(value, 'shape', '')}"
                    assert type(B) is type(A), ctx
                    assert B.dtype == A.dtype and B.shape == A.shape and B.dense_ndim == A.dense_ndim, ctx
                    assert_equal_nan(B.to_dense(), E, ctx)
                    assert_equal_nan(B.fill_value, fill_before, ctx)
                    check_structure(B)
    assert count > 150


def test_assigning_the_fill_removes_entries():
    D = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]])
    for layout in LAYOUTS:
        A = sparray.asarray(D, layout=layout, blocksize=(1, 1) if layout in ("bsr", "bsc") else None)
        assert A.nse == 4
        A[0] = 0.0
        assert A.nse == 2  # both entries of row 0 removed
        A[1, 1] = -0.0  # not the fill +0.0: specified
        assert A.nse == 3
        A[:, 1] = 0.0
        assert A.nse == 2
        np.testing.assert_array_equal(A.to_dense(), [[0.0, 0.0, 0.0], [3.0, 0.0, 4.0]])
        A[A.to_dense() > 0] = 0.0  # a mask selecting every entry
        assert A.nse == 0


@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_blocks_go_when_the_assignment_leaves_them_all_fill(layout):
    D = np.zeros((4, 6))
    D[0, 0], D[2:4, 3:6] = 1.0, 5.0
    A = sparray.asarray(D, layout=layout, blocksize=(2, 3))
    assert A.nse == 2
    A[0, 0] = 0.0  # the block's only other-than-fill element: the block goes
    assert A.nse == 1
    A[2, 3] = 0.0  # the block keeps five 5.0s
    assert A.nse == 1
    A[1, 4] = 2.0  # a new block over the fill
    assert A.nse == 2 and A.blocksize == (2, 3)
    A[2:4, 3:] = 0.0
    assert A.nse == 1
    E = np.zeros((4, 6))
    E[1, 4] = 2.0
    np.testing.assert_array_equal(A.to_dense(), E)
    Z = sparray.BSR([0, 1, 1], [0], np.zeros((1, 2, 3)), shape=(4, 6)) if layout == "bsr" else None
    if Z is not None:  # a stored block of explicit fills that the key does not reach stays
        Z[3, 5] = 1.0
        assert Z.nse == 2


def test_nan_and_inf_fills():
    A = sparray.asarray([[1.0, np.nan], [np.nan, 2.0]], fill_value=np.nan, layout="csr")
    assert A.nse == 2
    A[0, 0] = np.nan  # a NaN is the NaN fill: removed
    A[1, 0] = -np.inf
    assert A.nse == 2
    np.testing.assert_array_equal(A.to_dense(), [[np.nan, np.nan], [-np.inf, 2.0]])


def test_repeated_indices_last_assignment_wins():
    D = np.zeros(5)
    for layout in ("coo",):
        A = sparray.asarray(D)
        idx = np.array([1, 3, 1, 3])
        A[idx] = np.array([5.0, 6.0, 0.0, 7.0])  # position 1: 5 then 0 (the fill): unspecified
        E = D.copy()
        E[idx] = np.array([5.0, 6.0, 0.0, 7.0])
        np.testing.assert_array_equal(A.to_dense(), E)
        assert A.nse == 1
        S = sparray.asarray([0.0, 8.0, 0.0, 0.0])  # a sparse value: its unspecified last element wins too
        A[np.array([2, 2, 2, 2])] = S
        np.testing.assert_array_equal(A.to_dense(), [0.0, 0.0, 0.0, 7.0, 0.0])


def test_value_fill_other_than_the_arrays():
    A = sparray.zeros((3, 4), layout="csr")
    A[1:, ::2] = sparray.full((2, 2), 5.0)  # no specified element, fill 5: every target specified
    np.testing.assert_array_equal(A.to_dense(), [[0, 0, 0, 0], [5, 0, 5, 0], [5, 0, 5, 0]])
    assert A.nse == 4 and float(A.fill_value) == 0.0


def test_hybrid_with_a_dense_part_fill():
    fill = np.array([1.0, 2.0])
    A = sparray.COO([[0, 2]], [[3.0, 4.0], [5.0, 6.0]], shape=(3, 2), fill_value=fill)
    D = A.to_dense()
    for key, v in [((1, 0), 7.0), ((0,), [1.0, 2.0]), ((slice(None), 1), 2.0), ((np.array([1, 1]), np.array([0, 1])), 9.0)]:
        A[key] = v
        D[key] = v
        np.testing.assert_array_equal(A.to_dense(), D)
    assert A.nse == 2  # row 0 became the fill row: removed; row 1 added
    np.testing.assert_array_equal(A.fill_value, fill)


def test_zero_d_arrays_and_zero_d_boolean_keys():
    A = sparray.asarray(3.0)
    A[()] = 0.0
    assert A.nse == 0
    A[...] = 4.0
    A[True] = 5.0
    assert float(A) == 5.0
    A[False] = 6.0
    assert float(A) == 5.0
    B = sparray.asarray(np.arange(6.0).reshape(2, 3), layout="csr")
    D = B.to_dense()
    for key in (True, False, (xs.asarray(True) if False else np.asarray(True)), (0, True), (Ellipsis, False)):
        assert B[key].shape == D[key].shape
        np.testing.assert_array_equal(np.asarray(B[key].to_dense()), D[key])
    B[np.asarray(True), 1] = 9.0
    D[np.asarray(True), 1] = 9.0
    np.testing.assert_array_equal(B.to_dense(), D)


def test_casting_rules():
    A = sparray.asarray(np.array([1, 0, 2], np.int8))
    A[1] = True  # a Python bool is an int
    with pytest.raises(TypeError, match="Python float"):
        A[0] = 1.5
    with pytest.raises(ValueError, match="out of bounds"):
        A[0] = 300
    with pytest.raises(TypeError, match="same_kind"):
        A[:] = np.array([1.0, 2.0, 3.0])
    A[:] = np.array([1, 2, 300], np.int64)  # same kind: cast as astype casts (300 wraps to 44)
    np.testing.assert_array_equal(A.to_dense(), np.array([1, 2, 300]).astype(np.int8))
    F = sparray.asarray(np.zeros(2, np.float32))
    F[0] = 2**40  # an int into a float array
    F[1:] = np.array([0.1])  # float64 -> float32
    assert F.dtype == sparray.float32 and F.to_dense()[1] == np.float32(0.1)
    with pytest.raises(TypeError):
        F[0] = 1j
    with pytest.raises(TypeError):
        F[0:1] = np.array([1j])
    Bo = sparray.asarray([True, False])
    with pytest.raises(TypeError):
        Bo[0] = 2
    C = sparray.asarray(np.zeros(2, complex))
    C[0] = 1
    C[1] = 2.5j
    np.testing.assert_array_equal(C.to_dense(), [1, 2.5j])


def test_errors():
    A = sparray.asarray(np.eye(3), layout="csr")
    with pytest.raises(IndexError, match="out of bounds"):
        A[3, 0] = 1.0
    with pytest.raises(IndexError):
        A[np.array([True, False])] = 1.0
    with pytest.raises(ValueError, match="broadcast"):
        A[0] = np.ones(4)
    with pytest.raises(ValueError, match="sequence"):
        A[0, 0] = np.ones(1)
    with pytest.raises(TypeError, match="namespace"):
        A[0] = xs.asarray([1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        A[0] = "abc"
    np.testing.assert_array_equal(A.to_dense(), np.eye(3))  # unchanged after the errors


def test_views_keep_the_old_contents_names_see_the_new():
    D = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    A = sparray.asarray(D, layout="csr")
    same = A
    transposed = A.mT  # shares A's index buffers
    rows = A[0:1]  # a view of A's components
    exp = sparray.exp(A)  # shares A's indices
    A[0, 1] = 5.0
    A[1] = 0.0
    expected = np.array([[1.0, 5.0, 2.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(same.to_dense(), expected)
    np.testing.assert_array_equal(transposed.to_dense(), D.T)
    np.testing.assert_array_equal(rows.to_dense(), D[0:1])
    np.testing.assert_allclose(exp.to_dense(), np.exp(D))


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_array_api_strict_components(layout):
    """The pure array API path: components of array_api_strict."""
    D = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -0.0]])
    A = sparray.asarray(xs.asarray(D), layout=layout)
    A[0, ::2] = 4.0
    A[xs.asarray([1, 1]), xs.asarray([0, 2])] = xs.asarray([0.0, 6.0])
    A[A > 5.0] = 0.0  # a sparse mask
    E = D.copy()
    E[0, ::2] = 4.0
    E[[1, 1], [0, 2]] = [0.0, 6.0]
    E[E > 5.0] = 0.0
    np.testing.assert_array_equal(np.asarray(A.to_dense()._array), E)
    assert math.copysign(1.0, float(np.asarray(A.to_dense()._array)[1, 2])) == 1.0
