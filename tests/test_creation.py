"""Creation functions checked against their NumPy equivalents.

For every function: shape, dtype, nse, fill value (RFC point 3: zeros -> 0, ones -> 1,
full(shape, v) -> v, eye -> 0, empty -> 0), and ``to_dense()`` against NumPy. A ``fill_value``
different from the created value makes every element specified, and the array still equals the
NumPy one. Tests that densify run under the generic and the default backend.
"""

from __future__ import annotations

import math

import array_api_strict
import numpy as np
import pytest
import scipy.sparse as sps
from sparray_testing import assert_matches_dense, to_numpy

import sparray

DTYPES = ["float64", "float32", "int32", "int64", "bool", "complex128"]
SHAPES = [(3, 4), (5,), (), (0, 3), (2, 3, 4), (1, 1)]
VALUE = {"float64": 2.5, "float32": -1.25, "int32": 7, "int64": -3, "bool": True, "complex128": 1 - 2j}
OTHER_FILL = {"float64": 1.5, "float32": 0.5, "int32": 2, "int64": 5, "bool": False, "complex128": 3j}



def fill_of(A):
    """A's fill as a NumPy array broadcast to the dense part."""
    return np.broadcast_to(to_numpy(A.fill_value), A.shape[A.ndim - A.dense_ndim :])


def positions_differing(dense, fill, s):
    """How many sparse positions of ``dense`` hold something other than ``fill`` (nan-aware)."""
    dense = np.asarray(dense)
    fill = np.broadcast_to(np.asarray(fill, dtype=dense.dtype), dense.shape[s:])
    differ = ~((dense == fill) | (_isnan(dense) & _isnan(fill)))
    if dense.ndim > s:
        differ = differ.reshape(dense.shape[:s] + (math.prod(dense.shape[s:]),)).any(axis=-1)
    return int(np.count_nonzero(differ))


def _isnan(x):
    x = np.asarray(x)
    return np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)


def check_array(A, expected, *, fill, nse=None, sparse_ndim=None, xp_name="numpy", built=True):
    """A is a COO equal to ``expected`` with ``fill``; nse defaults to the positions differing from fill.

    ``built``: sparray built the indices itself, so they are int32 (SciPy's rule, API.md section 1).
    """
    assert isinstance(A, sparray.COO)
    expected = np.asarray(expected)
    assert A.shape == expected.shape
    assert np.dtype(str(A.dtype).rsplit(".", 1)[-1]) == expected.dtype, (A.dtype, expected.dtype)
    assert type(A.values).__module__.split(".")[0] == xp_name
    assert type(A.fill_value).__module__.split(".")[0] == xp_name
    s = A.ndim if sparse_ndim is None else sparse_ndim
    assert A.sparse_ndim == s and A.dense_ndim == A.ndim - s
    exp_nse = positions_differing(expected, fill, s) if nse is None else nse
    assert A.nse == exp_nse, (A.nse, exp_nse)
    if built:
        assert str(A.index_dtype).endswith("int32"), A.index_dtype
    assert_matches_dense(A, expected, fill=fill, rtol=0, atol=0)


# --------------------------------------------------------------------------------------------
# zeros, ones, empty, full


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_constants(backend, shape, dtype):
    v = VALUE[dtype]
    cases = [
        (sparray.zeros, {}, np.zeros(shape, dtype), 0),
        (sparray.ones, {}, np.ones(shape, dtype), 1),
        (sparray.empty, {}, np.zeros(shape, dtype), 0),
    ]
    for sn in [None, *range(len(shape) + 1)]:
        for f, _, expected, fill in cases:
            A = f(shape, dtype=dtype, sparse_ndim=sn)
            check_array(A, expected, fill=fill, nse=0, sparse_ndim=sn)
            assert A.is_coalesced
        F = sparray.full(shape, v, dtype=dtype, sparse_ndim=sn)
        check_array(F, np.full(shape, v, dtype=dtype), fill=v, nse=0, sparse_ndim=sn)
        assert to_numpy(F.fill_value).shape == ()  # a scalar fill stays 0-d


def test_full_rfc_example():
    F = sparray.full((3, 4), 2.5)
    assert F.nse == 0 and float(F.fill_value) == 2.5 and F.dtype == sparray.float64
    np.testing.assert_array_equal(to_numpy(F.to_dense()), np.full((3, 4), 2.5))
    # torch.full((10,), 7.0) fill: same as the fill_value argument
    G = sparray.full((10,), 7.0)
    assert G.nse == 0 and float(G.fill_value) == 7.0


@pytest.mark.parametrize(
    "value,dtype", [(2.5, "float64"), (7, "int64"), (True, "bool"), (1 - 2j, "complex128"), (np.float32(2), "float32")]
)
def test_full_default_dtype(value, dtype):
    F = sparray.full((2, 3), value)
    assert F.dtype == np.dtype(dtype) == np.full((2, 3), value).dtype
    check_array(F, np.full((2, 3), value), fill=value, nse=0)


def test_default_dtypes():
    for f in (sparray.zeros, sparray.ones, sparray.empty):
        assert f((2,)).dtype == sparray.float64
    assert sparray.eye(2).dtype == sparray.float64
    assert sparray.random((4,), 0.5).dtype == sparray.float64


def test_full_from_arrays():
    F = sparray.full((2, 3), np.asarray(1.5))
    check_array(F, np.full((2, 3), 1.5), fill=1.5, nse=0)
    S = sparray.full((2, 3), array_api_strict.asarray(1.5))
    check_array(S, np.full((2, 3), 1.5), fill=1.5, nse=0, xp_name="array_api_strict")
    assert type(S.to_dense()).__module__.startswith("array_api_strict")
    R = sparray.full((2, 3), np.asarray([1.5, 2.5, 3.5]))  # a dense-part fill, as np.full broadcasts it
    np.testing.assert_array_equal(R.to_dense(), np.full((2, 3), [1.5, 2.5, 3.5]))


def test_full_nan():
    F = sparray.full((3, 2), float("nan"))
    assert F.nse == 0 and math.isnan(float(F.fill_value))
    assert np.isnan(to_numpy(F.to_dense())).all()
    Z = sparray.zeros((3, 2), fill_value=float("nan"))  # zeros are not nan: all specified
    check_array(Z, np.zeros((3, 2)), fill=np.nan, nse=6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_value_differs_from_created(backend, dtype):
    """fill_value != created value: every position specified, the array unchanged."""
    for shape in [(3, 4), (2, 3, 4), (5,), (0, 2)]:
        for sn in range(1, len(shape) + 1):
            npos = math.prod(shape[:sn])
            for f, expected in [(sparray.zeros, np.zeros(shape, dtype)), (sparray.ones, np.ones(shape, dtype)), (sparray.empty, np.zeros(shape, dtype))]:
                created = 1 if f is sparray.ones else 0
                other = OTHER_FILL[dtype] if OTHER_FILL[dtype] != created else 1 - created
                A = f(shape, dtype=dtype, fill_value=other, sparse_ndim=sn)
                check_array(A, expected, fill=other, nse=npos, sparse_ndim=sn)
    # the same value as the created one: nothing specified
    assert sparray.ones((3, 4), dtype=dtype, fill_value=1).nse == 0
    assert sparray.zeros((3, 4), dtype=dtype, fill_value=0).nse == 0


def test_hybrid_dense_part_fill(backend):
    # fill [0, 1] over the dense part: each zero row differs in its second element
    Z = sparray.zeros((3, 2), sparse_ndim=1, fill_value=[0.0, 1.0])
    check_array(Z, np.zeros((3, 2)), fill=[0.0, 1.0], nse=3, sparse_ndim=1)
    assert to_numpy(Z.fill_value).shape == (2,)
    Z0 = sparray.zeros((3, 2), sparse_ndim=1, fill_value=[0.0, 0.0])
    check_array(Z0, np.zeros((3, 2)), fill=0.0, nse=0, sparse_ndim=1)
    O = sparray.ones((4, 2, 3), sparse_ndim=1, fill_value=np.ones((2, 3)))
    check_array(O, np.ones((4, 2, 3)), fill=1.0, nse=0, sparse_ndim=1)
    with pytest.raises(ValueError):
        sparray.zeros((3, 2), sparse_ndim=1, fill_value=[0.0, 1.0, 2.0])
    with pytest.raises(ValueError):
        sparray.zeros((3, 2), fill_value=[0.0, 1.0])  # not hybrid: the fill must be a scalar


# --------------------------------------------------------------------------------------------
# *_like


def _likes():
    return [
        (sparray.zeros_like, {}, lambda x, dt: np.zeros(x.shape, dt), 0),
        (sparray.ones_like, {}, lambda x, dt: np.ones(x.shape, dt), 1),
        (sparray.empty_like, {}, lambda x, dt: np.zeros(x.shape, dt), 0),
        (sparray.full_like, {"fill_value": 3}, lambda x, dt: np.full(x.shape, 3, dt), 3),
    ]


@pytest.mark.parametrize("kind", ["coo", "coo-hybrid", "numpy", "strict"])
def test_like(backend, kind):
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5
    if kind == "coo":
        x, s, xp_name = sparray.asarray(base, fill_value=1.0), 3, "numpy"
    elif kind == "coo-hybrid":
        x, s, xp_name = sparray.asarray(base, sparse_ndim=1), 1, "numpy"
    elif kind == "numpy":
        x, s, xp_name = base, 3, "numpy"
    else:
        x, s, xp_name = array_api_strict.asarray(base), 3, "array_api_strict"
    for f, kw, make, fill in _likes():
        A = f(x, **kw)
        check_array(A, make(x, np.float32), fill=fill, nse=0, sparse_ndim=s, xp_name=xp_name)
        B = f(x, dtype=sparray.int64, **kw)
        check_array(B, make(x, np.int64), fill=fill, nse=0, sparse_ndim=s, xp_name=xp_name)
        C = f(x, dtype="float64", sparse_ndim=2, **kw)
        check_array(C, make(x, np.float64), fill=fill, nse=0, sparse_ndim=2, xp_name=xp_name)
        if f is not sparray.full_like:
            D = f(x, fill_value=9)
            check_array(D, make(x, np.float32), fill=9, nse=math.prod(x.shape[:s]), sparse_ndim=s, xp_name=xp_name)


def test_full_like_unrepresentable():
    x = sparray.zeros((2, 3), dtype=sparray.int64)
    with pytest.raises(ValueError):
        sparray.full_like(x, 2.5)
    with pytest.raises(ValueError):
        sparray.full_like(x, float("nan"))
    F = sparray.full_like(x, 2.5, dtype=sparray.float64)
    check_array(F, np.full((2, 3), 2.5), fill=2.5, nse=0)


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("value", [0.0, 2.5])
def test_like_into_a_compressed_layout_of_a_hybrid_coo(layout, value):
    """A hybrid COO with one sparse dim asked for a compressed layout: the first two dims become
    sparse (the layout cannot hold fewer), the rest stay dense; a 1-d array cannot be compressed
    at all, and the error names the function and its layout argument."""
    bs = (1, 2) if layout in ("bsr", "bsc") else None
    x = sparray.asarray(np.arange(18.0).reshape(3, 6), sparse_ndim=1)
    A = sparray.full_like(x, value, layout=layout, blocksize=bs)
    assert A.layout == layout and A.dense_ndim == 0 and A.nse == 0 and float(A.fill_value) == value
    np.testing.assert_array_equal(np.asarray(A.to_dense()), np.full((3, 6), value))
    y = sparray.asarray(np.ones((3, 6, 2)), sparse_ndim=1)
    for f in (sparray.zeros_like, sparray.ones_like, sparray.empty_like):
        B = f(y, layout=layout, blocksize=bs)
        assert B.layout == layout and B.shape == (3, 6, 2) and B.dense_ndim == 1
    with pytest.raises(ValueError, match=rf"full_like: layout='{layout}' needs at least 2 sparse dims.*layout='coo'"):
        sparray.full_like(sparray.asarray(np.ones(4)), 1.0, layout=layout, blocksize=bs)
    with pytest.raises(ValueError, match=rf"zeros: layout='{layout}' needs at least 2 sparse dims.*sparse_ndim >= 2"):
        sparray.zeros((4, 6), sparse_ndim=1, layout=layout, blocksize=bs)


# --------------------------------------------------------------------------------------------
# eye


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex128"])
@pytest.mark.parametrize("n,m", [(3, None), (3, 5), (5, 3), (1, 1), (0, 0), (0, 3), (4, 0)])
def test_eye(backend, n, m, dtype):
    cols = n if m is None else m
    for k in range(-n - 1, cols + 2):
        expected = np.eye(n, m, k=k, dtype=dtype)
        args = (n,) if m is None else (n, m)
        A = sparray.eye(*args, k=k, dtype=dtype)
        check_array(A, expected, fill=0, nse=int(np.count_nonzero(expected)))
        assert A.is_coalesced
        # a fill other than 0: the zeros become specified, the array is the same
        other = OTHER_FILL[dtype] if dtype != "bool" else True
        B = sparray.eye(*args, k=k, dtype=dtype, fill_value=other)
        check_array(B, expected, fill=other)
        Z = sparray.eye(*args, k=k, dtype=dtype, fill_value=0)
        check_array(Z, expected, fill=0, nse=A.nse)


@pytest.mark.parametrize("k", [2**63, -(2**63) - 1, 2**70, -(2**70), 2**63 - 1, -(2**63)])
def test_eye_offset_beyond_any_index(k):
    """An offset past the matrix, however large (beyond int64 too), is an empty diagonal, as NumPy
    answers; a non-integer offset is a TypeError."""
    for fill in (None, 2.0):
        A = sparray.eye(3, 4, k=k, fill_value=fill)
        check_array(A, np.eye(3, 4, k=k), fill=0.0 if fill is None else fill)
        assert A.to_layout("csr").to_dense().sum() == 0
    with pytest.raises(TypeError, match="k must be an integer"):
        sparray.eye(3, k=1.0)


def test_eye_nan_and_bad_fill():
    A = sparray.eye(3, 4, k=1, fill_value=float("nan"))
    check_array(A, np.eye(3, 4, k=1), fill=np.nan, nse=12)
    with pytest.raises(ValueError):
        sparray.eye(3, dtype=sparray.int32, fill_value=0.5)  # not silently truncated to 0
    with pytest.raises(ValueError):
        sparray.eye(3, dtype=sparray.int32, fill_value=float("nan"))
    with pytest.raises(ValueError):
        sparray.eye(-1)
    with pytest.raises(ValueError):
        sparray.eye(3, -2)


# --------------------------------------------------------------------------------------------
# arange, linspace


@pytest.mark.parametrize(
    "args,kw",
    [
        ((5,), {}),
        ((0,), {}),
        ((2, 9), {}),
        ((0, 2, 0.25), {}),
        ((5, 0, -1), {"dtype": "float32"}),
        ((-3, 4), {"dtype": "int32"}),
        ((1, 7, 2), {"dtype": "float64"}),
    ],
)
@pytest.mark.parametrize("fill", [None, 2, float("nan")])
def test_arange(backend, args, kw, fill):
    expected = np.arange(*args, **kw)
    if fill is not None and expected.dtype.kind in "iu" and not float(fill).is_integer():
        with pytest.raises(ValueError):
            sparray.arange(*args, fill_value=fill, **kw)
        return
    A = sparray.arange(*args, fill_value=fill, **kw)
    check_array(A, expected, fill=0 if fill is None else fill)


@pytest.mark.parametrize(
    "args,kw",
    [((0, 1, 5), {}), ((0, 1, 5), {"endpoint": False}), ((-2, 2, 9), {}), ((3, 3, 1), {}), ((0, 1, 0), {}), ((0, 1, 4), {"dtype": "float32"})],
)
@pytest.mark.parametrize("fill", [None, 0.5, 1.0])
def test_linspace(backend, args, kw, fill):
    expected = np.linspace(*args, **kw)
    A = sparray.linspace(*args, fill_value=fill, **kw)
    check_array(A, expected, fill=0.0 if fill is None else fill)


# --------------------------------------------------------------------------------------------
# asarray


@pytest.mark.parametrize(
    "data",
    [
        [[0, 1], [2, 0]],
        [[0.0, 1.5, 0.0], [0.0, 0.0, -2.0]],
        [[True, False], [False, False]],
        [[0j, 1 + 1j]],
        [1, 0, 0, 3],
        [],
        [[]],
    ],
    ids=["int", "float", "bool", "complex", "1d", "empty", "empty2d"],
)
def test_asarray_lists(backend, data):
    expected = np.asarray(data)
    A = sparray.asarray(data)
    check_array(A, expected, fill=np.zeros((), expected.dtype))
    B = sparray.asarray(data, dtype=sparray.complex64)
    check_array(B, expected.astype(np.complex64), fill=0.0)
    if expected.dtype.kind != "c":
        C = sparray.asarray(data, dtype=sparray.float32)
        check_array(C, expected.astype(np.float32), fill=0.0)


@pytest.mark.parametrize("value", [3.0, 0.0, 7])
def test_asarray_0d(backend, value):
    A = sparray.asarray(value)
    check_array(A, np.asarray(value), fill=0)
    assert A.shape == () and A.nse == (value != 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_numpy(backend, dtype):
    rng = np.random.default_rng(0)
    for shape in [(4, 5), (3, 4, 2), (6,), (0, 4)]:
        x = (rng.integers(0, 3, size=shape) * (rng.random(shape) < 0.5)).astype(dtype)
        check_array(sparray.asarray(x), x, fill=0)
        for s in range(len(shape) + 1):
            check_array(sparray.asarray(x, sparse_ndim=s), x, fill=0, sparse_ndim=s)
        fill = np.ones((), dtype)
        check_array(sparray.asarray(x, fill_value=fill), x, fill=fill)
        if dtype != "bool":
            check_array(sparray.asarray(x, fill_value=2), x, fill=2)
    x_before = x.copy()
    sparray.asarray(x)
    np.testing.assert_array_equal(x, x_before)


def test_asarray_nan_fill(backend):
    x = np.array([[np.nan, 1.0, np.nan], [0.0, np.nan, 2.0]])
    A = sparray.asarray(x, fill_value=np.nan)
    check_array(A, x, fill=np.nan, nse=3)  # the nans are left unspecified
    B = sparray.asarray(x)
    check_array(B, x, fill=0.0, nse=5)  # nan != 0: specified
    C = sparray.asarray(x, fill_value=float("nan"), sparse_ndim=1)
    check_array(C, x, fill=np.nan, nse=2, sparse_ndim=1)


def test_asarray_hybrid_dense_fill(backend):
    x = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [1.0, 3.0], [np.nan, 2.0]])
    A = sparray.asarray(x, sparse_ndim=1, fill_value=[1.0, 2.0])
    check_array(A, x, fill=[1.0, 2.0], nse=3, sparse_ndim=1)
    np.testing.assert_array_equal(to_numpy(A.indices), [[1, 3, 4]])
    B = sparray.asarray(x, sparse_ndim=1, fill_value=[np.nan, 2.0])
    check_array(B, x, fill=[np.nan, 2.0], nse=4, sparse_ndim=1)
    with pytest.raises(ValueError):
        sparray.asarray(x, sparse_ndim=1, fill_value=[1.0, 2.0, 3.0])


def test_asarray_strict(backend):
    xs = array_api_strict
    x = xs.asarray([[0.0, 1.5, 0.0], [2.0, 0.0, 1.5]])
    xn = np.asarray([[0.0, 1.5, 0.0], [2.0, 0.0, 1.5]])
    A = sparray.asarray(x)
    check_array(A, xn, fill=0.0, xp_name="array_api_strict")
    assert type(A.indices).__module__.startswith("array_api_strict")
    assert type(A.to_dense()).__module__.startswith("array_api_strict")
    check_array(sparray.asarray(x, fill_value=1.5), xn, fill=1.5, xp_name="array_api_strict")
    check_array(sparray.asarray(x, dtype=sparray.float32), xn.astype(np.float32), fill=0.0, xp_name="array_api_strict")
    check_array(sparray.asarray(x, sparse_ndim=1), xn, fill=0.0, sparse_ndim=1, xp_name="array_api_strict")
    check_array(
        sparray.asarray(x, sparse_ndim=1, fill_value=xs.asarray([0.0, 1.5, 0.0])), xn, fill=[0.0, 1.5, 0.0],
        sparse_ndim=1, xp_name="array_api_strict",
    )  # fmt: skip
    xi = xs.asarray([[0, 3], [1, 0]], dtype=xs.int32)
    check_array(sparray.asarray(xi), np.asarray([[0, 3], [1, 0]], np.int32), fill=0, xp_name="array_api_strict")


def test_asarray_sparse_input(backend):
    dense = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 1.5]])
    A = sparray.asarray(dense)
    assert sparray.asarray(A) is A
    C = sparray.asarray(A, copy=True)
    assert C is not A
    check_array(C, dense, fill=0.0)
    # new fill: the old fill's elements become specified, the new fill's ones unspecified
    B = sparray.asarray(A, fill_value=1.5)
    check_array(B, dense, fill=1.5, nse=4)
    check_array(sparray.asarray(A, dtype=sparray.float32), dense.astype(np.float32), fill=0.0)
    check_array(sparray.asarray(A, dtype="complex128", fill_value=2.0), dense.astype(complex), fill=2.0, nse=5)
    check_array(sparray.asarray(A, sparse_ndim=1), dense, fill=0.0, sparse_ndim=1)
    # a fill that the dtype cannot hold
    I = sparray.asarray(np.array([1, 0, 2]))
    with pytest.raises(ValueError):
        sparray.asarray(I, fill_value=float("nan"))
    with pytest.raises(ValueError):
        sparray.asarray(I, fill_value=2.5)


def test_asarray_uncoalesced_sparse_input(backend):
    # values 1 and 3 at index 0 stand for 4; the fill is 1
    A = sparray.COO([[0, 1, 0]], [1.0, 2.0, 3.0], shape=(3,), fill_value=1.0)
    assert A.index_dtype == sparray.int64  # what the caller passed (a list) is kept
    check_array(sparray.asarray(A, fill_value=2.0), np.array([4.0, 2.0, 1.0]), fill=2.0)
    check_array(sparray.asarray(A, dtype=sparray.int64), np.array([4, 2, 1]), fill=1, nse=2, built=False)  # cast after summing duplicates


def test_asarray_dtype_of_uncoalesced_sums_first(backend):
    # a cast that is not linear must see the summed elements: 0.5 + 0.5 is 1 (int 1, True)
    U = sparray.COO([[0, 0, 2]], [0.5, 0.5, -1.0], shape=(3,), fill_value=0.0)
    check_array(sparray.asarray(U, dtype=sparray.int64), np.array([1, 0, -1]), fill=0, nse=None, built=False)
    V = sparray.COO([[1, 1]], [1.0, -1.0], shape=(2,))
    assert not to_numpy(sparray.asarray(V, dtype=sparray.bool).to_dense()).any()  # 1 + -1 is 0: False


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_asarray_scipy(backend, fmt, dtype):
    m = sps.random(5, 7, density=0.3, format=fmt, random_state=1, dtype=np.float64)
    m = (m * 10).astype(dtype).asformat(fmt)
    m.eliminate_zeros()
    dense = m.toarray()
    A = sparray.asarray(m)
    check_array(A, dense, fill=0, nse=m.nnz)
    check_array(sparray.asarray(m, dtype=sparray.float32), dense.astype(np.float32), fill=0, nse=m.nnz)
    B = sparray.asarray(m, fill_value=1)
    check_array(B, dense, fill=1)
    assert B.dtype == np.dtype(dtype)
    for cls in (sps.coo_matrix, sps.csr_matrix):
        check_array(sparray.asarray(cls(m)), dense, fill=0, nse=m.nnz)


def test_asarray_scipy_duplicates(backend):
    m = sps.coo_array((np.array([1.0, 2.0, 5.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 3))
    A = sparray.asarray(m)
    assert_matches_dense(A, m.toarray(), fill=0.0)
    assert A.coalesce().nse == 2


# --------------------------------------------------------------------------------------------
# random


@pytest.mark.parametrize("shape,sn", [((10, 10), None), ((50,), None), ((4, 5, 6), 2), ((4, 5, 6), 1), ((0, 5), None), ((7, 3), 0)])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.3, 0.5, 1.0])
def test_random(shape, sn, density):
    A = sparray.random(shape, density, seed=123, sparse_ndim=sn)
    s = len(shape) if sn is None else sn
    npos = math.prod(shape[:s])
    assert A.shape == shape and A.sparse_ndim == s and A.dtype == sparray.float64
    assert A.nse == int(round(density * npos))
    assert float(to_numpy(A.fill_value)) == 0.0
    assert A.is_coalesced and A.index_dtype == np.int32
    idx = to_numpy(A.indices)
    keys = np.ravel_multi_index(tuple(idx), shape[:s]) if s and A.nse else np.zeros(A.nse, int)
    assert np.all(np.diff(keys) > 0)  # unique and sorted
    vals = to_numpy(A.values)
    assert vals.shape == (A.nse, *shape[s:])
    assert np.all((vals >= 0) & (vals < 1))
    dense = to_numpy(A.to_dense())
    assert dense.shape == shape
    # reproducible with the same seed, and with an equal Generator
    B = sparray.random(shape, density, seed=123, sparse_ndim=sn)
    np.testing.assert_array_equal(to_numpy(B.indices), idx)
    np.testing.assert_array_equal(to_numpy(B.values), vals)
    G = sparray.random(shape, density, seed=np.random.default_rng(123), sparse_ndim=sn)
    assert G.nse == A.nse


def test_random_seeds_differ():
    A = sparray.random((20, 20), 0.2, seed=1)
    B = sparray.random((20, 20), 0.2, seed=2)
    assert A.nse == B.nse == 80
    assert not np.array_equal(to_numpy(A.to_dense()), to_numpy(B.to_dense()))
    g = np.random.default_rng(5)
    C, D = sparray.random((20, 20), 0.2, seed=g), sparray.random((20, 20), 0.2, seed=g)  # the generator advances
    assert not np.array_equal(to_numpy(C.to_dense()), to_numpy(D.to_dense()))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "complex64", "complex128", "uint8"])
def test_random_dtypes(dtype):
    A = sparray.random((30, 30), 0.2, dtype=dtype, seed=0)
    assert A.dtype == np.dtype(dtype) and A.nse == 180
    vals = to_numpy(A.values)
    assert vals.dtype == np.dtype(dtype)
    kind = np.dtype(dtype).kind
    if kind == "f":
        assert vals.min() >= 0 and vals.max() < 1
    elif kind == "c":
        for part in (vals.real, vals.imag):
            assert part.min() >= 0 and part.max() < 1
        assert np.any(vals.imag != 0)
    elif kind in "iu":
        assert vals.min() >= 0 and vals.max() < 100 and len(np.unique(vals)) > 10
    else:
        assert vals.all()
    assert_matches_dense(A, to_numpy(A.to_dense()), fill=np.zeros((), dtype))


def test_random_fill_and_hybrid(backend):
    A = sparray.random((6, 5), 0.5, fill_value=np.nan, seed=3)
    dense = to_numpy(A.to_dense())
    assert int(np.isnan(dense).sum()) == 30 - A.nse == 15
    H = sparray.random((6, 5, 3), 0.5, sparse_ndim=2, fill_value=[1.0, 2.0, 3.0], seed=3)
    d = to_numpy(H.to_dense())
    mask = np.zeros((6, 5), bool)
    mask[tuple(to_numpy(H.indices))] = True
    np.testing.assert_array_equal(d[~mask], np.broadcast_to([1.0, 2.0, 3.0], (15, 3)))
    np.testing.assert_array_equal(d[mask], to_numpy(H.values))


# --------------------------------------------------------------------------------------------
# bad input


CONSTRUCTORS = [
    ("zeros", lambda shape, **kw: sparray.zeros(shape, **kw)),
    ("ones", lambda shape, **kw: sparray.ones(shape, **kw)),
    ("empty", lambda shape, **kw: sparray.empty(shape, **kw)),
    ("full", lambda shape, **kw: sparray.full(shape, 1.0, **kw)),
    ("random", lambda shape, **kw: sparray.random(shape, 0.5, **kw)),
]


@pytest.mark.parametrize("name,f", CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
def test_bad_shape_and_sparse_ndim(name, f):
    with pytest.raises(ValueError, match="non-negative"):
        f((3, -1))
    with pytest.raises(ValueError):
        f(-2)
    with pytest.raises(TypeError):
        f((3.0, 2))
    with pytest.raises(TypeError):
        f("3")
    for sn in (-1, 3):
        with pytest.raises(ValueError, match="sparse_ndim"):
            f((3, 2), sparse_ndim=sn)
    assert f(4).shape == (4,)  # an int is a 1-d shape


def test_bad_sparse_ndim_asarray():
    for sn in (-1, 3):
        with pytest.raises(ValueError, match="sparse_ndim"):
            sparray.asarray(np.zeros((3, 2)), sparse_ndim=sn)


@pytest.mark.parametrize("density", [-0.1, 1.5, float("nan")])
def test_bad_density(density):
    with pytest.raises(ValueError, match="density"):
        sparray.random((4, 4), density)


@pytest.mark.parametrize(
    "make",
    [
        lambda: sparray.zeros((3,), dtype=sparray.int64, fill_value=float("nan")),
        lambda: sparray.ones((3,), dtype=sparray.int32, fill_value=2.5),
        lambda: sparray.empty((3,), dtype=sparray.int32, fill_value=float("inf")),
        lambda: sparray.full((3,), float("nan"), dtype=sparray.int64),
        lambda: sparray.full((3,), 2.5, dtype=sparray.int32),
        lambda: sparray.asarray([1, 2, 0], fill_value=float("nan")),
        lambda: sparray.asarray([1, 2, 0], fill_value=0.5),
        lambda: sparray.asarray([1.0, 2.0], fill_value=1j),
        lambda: sparray.random((3,), 0.5, dtype=sparray.int64, fill_value=float("nan")),
        lambda: sparray.arange(4, fill_value=0.5),
        lambda: sparray.zeros_like(np.zeros(3, np.int32), fill_value=float("nan")),
        lambda: sparray.eye(2, dtype=sparray.int64, fill_value=float("nan")),
        lambda: sparray.zeros((2,), dtype=sparray.bool, fill_value=2),
    ],
)
def test_unrepresentable_fill(make):
    with pytest.raises(ValueError, match="fill_value"):
        make()


def test_bad_dtype_and_layout():
    with pytest.raises(TypeError, match="dtype"):
        sparray.zeros((2,), dtype="bfloat16")
    assert sparray.zeros((2,), dtype="float16").dtype == sparray.float16  # beyond the standard, as NumPy has it
    with pytest.raises(ValueError, match="blocksize"):
        sparray.zeros((2, 2), blocksize=(2, 2))


def test_full_takes_a_dense_part_fill():
    """full / full_like accept an array fill shaped like (or broadcastable to) the dense part."""
    A = sparray.full((3, 2), np.array([1.0, 2.0]))
    assert (A.sparse_ndim, A.dense_ndim, A.nse, A.fill_value.shape) == (1, 1, 0, (2,))
    np.testing.assert_array_equal(A.to_dense(), np.full((3, 2), [1.0, 2.0]))
    B = sparray.full((2, 3, 2), [[1.0, 2.0]] * 3, sparse_ndim=1)
    np.testing.assert_array_equal(B.to_dense(), np.full((2, 3, 2), [[1.0, 2.0]] * 3))
    C = sparray.full((2, 3, 2), np.array([1.0, np.nan]), layout="csr")
    assert C.layout == "csr" and C.batch_ndim == 0 and C.dense_ndim == 1
    np.testing.assert_array_equal(C.to_dense(), np.full((2, 3, 2), [1.0, np.nan]))
    L = sparray.full_like(sparray.zeros((3, 2)), np.array([5, 6]), dtype="int64")
    np.testing.assert_array_equal(L.to_dense(), np.full((3, 2), [5, 6]))
    with pytest.raises(ValueError, match="needs at least 1 dense dims"):
        sparray.full((3, 2), np.array([1.0, 2.0]), sparse_ndim=2)
    with pytest.raises(ValueError, match="has more dims than shape"):
        sparray.full((3,), np.ones((2, 2)))


def test_namespace_holds_only_public_names():
    """Every public name is in __all__; the rest are documented subpackages (kernels once loaded)."""
    import types

    public = {n for n in dir(sparray) if not n.startswith("_")}
    modules = {n for n in public if isinstance(getattr(sparray, n), types.ModuleType)}
    assert public - modules == set(sparray.__all__), sorted((public - modules) ^ set(sparray.__all__))
    assert modules <= {"interop", "io", "sparse", "linalg", "fft", "kernels", "lib", "graph"}, modules  # lib: NumPy's stride_tricks
