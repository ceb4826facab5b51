"""The 2:4 layout (``sparray.SemiStructured``) against dense NumPy: its encoding, its checks, its
conversions to and from every layout, ``prune_2_4``, the products with dense operands (either
side, transposed, batched, every fill), element-wise results that stay 2:4, functions that meet it
through the layout door, and the simulated device with its reads counted."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from places_testing import dense_on_host, on_place, to_place
from sparray.kernels.cuda.simulated import counting

NAN = float("nan")
FILLS = [0.0, 1.5, NAN]


def semi_dense(rng, shape, dtype="float64", fill=0.0):
    """A dense array with at most 2 non-fill elements in each group of 4 along its rows: per group
    0, 1 or 2 of them at random positions, the rest ``fill`` (independent of the encoder)."""
    *lead, cols = shape
    groups = rng.integers(0, 3, size=(*lead, cols // 4))
    out = np.full(shape, fill, dtype=dtype)
    view = out.reshape(*lead, cols // 4, 4)
    for idx in np.ndindex(*groups.shape):
        k = groups[idx]
        pos = rng.choice(4, size=k, replace=False)
        if np.dtype(dtype).kind in "iu":
            vals = rng.integers(-9, 10, size=k)
            vals = np.where(vals == fill, fill + 1, vals)
        else:
            vals = np.round(rng.standard_normal(k) * 4, 2) + 5.0  # never the fill 0, 1.5 or nan
        view[idx][pos] = vals
    return out


def assert_same(got, want, *, rtol=1e-12, atol=1e-12):
    got, want = dense_on_host(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.astype(np.float64) if got.dtype.kind != "c" else got, want, rtol=rtol, atol=atol, equal_nan=True)


# --- the encoding -----------------------------------------------------------------------------------
def test_encoding_follows_the_spec():
    x = np.array([[0, 0, 1, 2, 3, 0, 0, 4, 0, 0, 0, 0, 0, 5, 0, 0, 6, 0, 7, 0]], dtype=np.float64)
    A = sp.asarray(x, layout="2:4")
    assert A.values.tolist() == [[1, 2, 3, 4, 0, 0, 0, 5, 6, 7]]
    # groups: (2,3)=0xE, (0,3)=0xC, (0,1)=0x4 all fill, (1, lowest free 0)=0x4, (0,2)=0x8; unused nibbles 0x4
    assert A.metadata.dtype == np.uint16 and A.metadata.shape == (1, 2)
    assert A.metadata.tolist() == [[0x44CE, 0x4448]]
    assert A.nse == 10 and A.density == 0.5 and A.layout == "2:4"
    np.testing.assert_array_equal(A.to_dense(), x)


@pytest.mark.parametrize("shape", [(4, 8), (3, 20), (1, 4), (2, 3, 16), (0, 8)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "complex64"])
def test_round_trip_exact(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    for fill in (0.0, 1.5, NAN) if np.dtype(dtype).kind in "fc" else (0, 3):
        x = semi_dense(rng, shape, dtype, fill)
        A = sp.asarray(x, layout="2:4", fill_value=fill)
        assert A.shape == shape and A.dtype == np.dtype(dtype) and A.values.shape == (*shape[:-1], shape[-1] // 2)
        got = A.to_dense()
        np.testing.assert_array_equal(got, x)
        assert got.dtype == x.dtype


def test_signed_zero_is_not_the_fill():
    x = np.array([[-0.0, 0.0, 0.0, 1.0]])
    A = sp.asarray(x, layout="2:4")
    assert np.signbit(A.to_dense()[0, 0]) and A.metadata.tolist() == [[0x444C]]


def test_memory_against_dense():
    for dtype, ratio in (("float16", 9 / 16), ("float32", 17 / 32)):
        A = sp.asarray(np.zeros((64, 256), dtype=dtype), layout="2:4")
        assert (A.nbytes - A.fill_value.nbytes) / (64 * 256 * np.dtype(dtype).itemsize) == ratio


def test_too_many_elements_in_a_group_names_it():
    x = np.zeros((2, 3, 8))
    x[1, 2, 4:7] = 1.0
    with pytest.raises(ValueError, match=r"batch \(1,\), row 2, group 1 \(columns 4..7\) has 3"):
        sp.asarray(x, layout="2:4")
    with pytest.raises(ValueError, match="row 0, group 0"):
        sp.asarray(np.ones((1, 4)), layout="2:4", fill_value=0.0)
    sp.asarray(np.ones((1, 4)), layout="2:4", fill_value=1.0)  # all fill: fine


def test_bad_shapes_and_codes_are_refused():
    with pytest.raises(ValueError, match="multiple of 4"):
        sp.asarray(np.zeros((2, 6)), layout="2:4")
    with pytest.raises(ValueError, match="at least 2 dims"):
        sp.asarray(np.zeros(8), layout="2:4")
    with pytest.raises(ValueError, match=r"values.shape=\(2, 3\) must be"):
        sp.SemiStructured(np.zeros((2, 3)), np.zeros((2, 1), np.uint16), shape=(2, 8))
    with pytest.raises(ValueError, match=r"metadata.shape=\(2, 2\) must be"):
        sp.SemiStructured(np.zeros((2, 4)), np.full((2, 2), 0x44, np.uint16))
    with pytest.raises(ValueError, match=r"row 1, group 0 holds the code 0x5"):
        sp.SemiStructured(np.zeros((2, 2)), np.array([[0x4444], [0x4445]], np.uint16), check_invariants=True)
    with pytest.raises(ValueError, match="unused nibble 1"):
        sp.SemiStructured(np.zeros((1, 2)), np.array([[0x4404]], np.uint16), check_invariants=True)
    A = sp.SemiStructured(np.zeros((1, 2)), np.array([[0x0]], np.uint16))  # unchecked until first use
    with pytest.raises(ValueError, match="code 0x0"):
        A.to_dense()
    with pytest.raises(TypeError, match="item assignment"):
        sp.asarray(np.zeros((1, 4)), layout="2:4")[0, 0] = 1.0


# --- conversions from and to every layout ---------------------------------------------------------------
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("fill", FILLS)
def test_every_layout_to_and_from(layout, fill):
    rng = np.random.default_rng(7)
    x = semi_dense(rng, (2, 4, 8), fill=fill)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    B = sp.asarray(x, layout=layout, fill_value=fill, **kw)
    A = B.to_layout("2:4")
    assert A.layout == "2:4" and A.batch_ndim == 1
    np.testing.assert_array_equal(A.to_dense(), x)
    back = A.to_layout(layout, **kw)
    assert back.layout == layout
    np.testing.assert_array_equal(back.to_dense(), x)
    np.testing.assert_array_equal(A.mT.to_layout(layout, **kw).to_dense(), np.swapaxes(x, -1, -2))


def test_hub_is_the_pattern_and_is_kept():
    x = np.array([[0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 3.0, 0.0]])
    A = sp.asarray(x, layout="2:4")
    H = A.as_hub()
    assert H.layout == "csr" and H.crow_indices.tolist() == [0, 4] and H.col_indices.tolist() == [[0, 1, 4, 6]][0]
    assert A.as_hub() is H and A.mT.as_hub().layout == "csc"
    np.testing.assert_array_equal(A.mT.as_hub().to_dense(), x.T)


# --- prune_2_4 ---------------------------------------------------------------------------------------
def _prune_reference(x, fill):
    out = np.full_like(x, fill)
    for idx in np.ndindex(*x.shape[:-1]):
        for g in range(x.shape[-1] // 4):
            grp = x[idx][4 * g: 4 * g + 4]
            mag = np.abs(grp) if np.isnan(fill) else np.abs(grp - fill)
            mag = np.where(np.isnan(mag), np.inf, mag)
            mag = np.where((grp == fill) | (np.isnan(grp) & np.isnan(fill)), -1, mag)
            order = sorted(range(4), key=lambda p: (-mag[p], p))
            for p in order[:2]:
                out[idx][4 * g + p] = grp[p]
    return out


@pytest.mark.parametrize("fill", FILLS)
def test_prune_keeps_the_two_largest(fill):
    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((3, 5, 12)), 1)  # rounding makes ties
    x[0, 0, :4] = [2.0, -2.0, 2.0, 1.0]  # a three-way tie: the lower positions win
    x[1, 1, 4] = NAN
    got = sp.prune_2_4(x, fill_value=fill)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, _prune_reference(x, fill))
    A = sp.asarray(got, layout="2:4", fill_value=fill)  # always encodable
    np.testing.assert_array_equal(A.to_dense(), got)


def test_prune_of_a_sparse_array_is_2_4():
    x = np.arange(16.0).reshape(2, 8)
    A = sp.prune_2_4(sp.asarray(x, layout="csr", fill_value=1.0))
    assert A.layout == "2:4" and float(A.fill_value) == 1.0
    np.testing.assert_array_equal(A.to_dense(), _prune_reference(x, 1.0))
    with pytest.raises(ValueError, match="multiple of 4"):
        sp.prune_2_4(np.zeros((2, 5)))


# --- products -----------------------------------------------------------------------------------------
def _tolerance(dtype):
    return {"float16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}.get(dtype, (1e-12, 1e-12))


def _reference(dtype):
    return np.float32 if dtype == "float16" else (np.int64 if np.dtype(dtype).kind in "iu" else np.float64)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8"])
@pytest.mark.parametrize("fill_i", [0, 1, 2])
@pytest.mark.parametrize("case", ["A@x", "A@X", "x@A", "X@A", "At@X", "X@At", "At@x", "x@At"])
def test_products_against_dense(dtype, fill_i, case):
    fill = (0.0, 1.5, NAN)[fill_i] if dtype != "int8" else (0, 2, -1)[fill_i]
    rng = np.random.default_rng(fill_i)
    x = semi_dense(rng, (12, 20), dtype, fill)
    A = sp.asarray(x, layout="2:4", fill_value=fill)
    op, dense = (A.mT, x.T) if "At" in case else (A, x)
    rows, cols = dense.shape
    left = case.startswith(("A", "At"))
    n = (cols if left else rows)
    other = rng.integers(-3, 4, size=(n, 5) if left else (3, n)).astype(dtype)
    if case.endswith("x") or case.startswith("x"):
        other = other[:, 0] if left else other[0]
    got = op @ other if left else other @ op
    ref_t = _reference(dtype)
    want = dense.astype(ref_t) @ other.astype(ref_t) if left else other.astype(ref_t) @ dense.astype(ref_t)
    assert got.dtype == np.dtype(dtype) and isinstance(got, np.ndarray)
    if dtype == "int8":
        np.testing.assert_array_equal(got, want.astype(np.int8))  # wraps around, as NumPy's int8 @
    else:
        rtol, atol = _tolerance(dtype)
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol * np.abs(want).max(initial=1), equal_nan=True)


@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_batched_products_broadcast(fill):
    rng = np.random.default_rng(5)
    x = semi_dense(rng, (2, 6, 8), fill=fill)
    A = sp.asarray(x, layout="2:4", fill_value=fill)
    X = rng.standard_normal((3, 1, 8, 4))
    assert_same(A @ X, x @ X)
    assert_same(A @ X[0, 0, :, 0], x @ X[0, 0, :, 0])
    Y = rng.standard_normal((3, 1, 5, 6))
    assert_same(Y @ A, Y @ x)
    v = rng.standard_normal(6)
    assert_same(A.mT @ v, np.swapaxes(x, -1, -2) @ v)
    assert_same(np.matmul(A, X), x @ X)
    with pytest.raises(ValueError, match="not aligned"):
        A @ np.ones(6)


def test_products_with_nonfinite_operands_are_exact():
    rng = np.random.default_rng(2)
    x = semi_dense(rng, (6, 8))
    A = sp.asarray(x, layout="2:4")
    X = rng.standard_normal((8, 3))
    X[2, 1], X[5, 2] = np.inf, NAN
    with np.errstate(invalid="ignore"):
        assert_same(A @ X, x @ X)
        assert_same(X.T @ A.mT, X.T @ x.T)
        xi = np.where(x == 0, np.inf, x)
        B = sp.asarray(xi, layout="2:4", fill_value=np.inf)
        assert_same(B @ np.abs(X[:, 0]), xi @ np.abs(X[:, 0]))


def test_addmm_and_linalg():
    rng = np.random.default_rng(4)
    x = semi_dense(rng, (6, 8), fill=1.5)
    A = sp.asarray(x, layout="2:4", fill_value=1.5)
    X, C = rng.standard_normal((8, 3)), rng.standard_normal((6, 3))
    assert_same(sp.addmm(C, A, X, beta=0.5, alpha=2.0), 0.5 * C + 2.0 * (x @ X))
    assert_same(sp.addmm(np.ones(8), C.T, A, beta=0.0), C.T @ x)
    assert_same(sp.linalg.matmul(A, X), x @ X)
    assert_same(sp.linalg.matrix_norm(A), np.linalg.norm(x), rtol=1e-12)
    assert_same(sp.tensordot(A, X, axes=1), x @ X)
    assert_same(sp.vecdot(A, np.ones(8)), x.sum(axis=-1))


# --- element-wise results stay 2:4; every other function meets the CSR ----------------------------------
@pytest.mark.parametrize("fill", FILLS)
def test_elementwise_keeps_the_layout(fill):
    rng = np.random.default_rng(6)
    x = semi_dense(rng, (2, 4, 8), fill=fill)
    A = sp.asarray(x, layout="2:4", fill_value=fill)
    with np.errstate(invalid="ignore"):
        for got, want in [
            (sp.sin(A), np.sin(x)), (-A, -x), (abs(A), np.abs(x)), (A * 2, x * 2), (1 - A, 1 - x), (A ** 2, x ** 2),
            (A > 5, x > 5), (sp.isnan(A), np.isnan(x)), (A.astype(np.float32), x.astype(np.float32)), (np.exp(A), np.exp(x)),
            (A + A, x + x), (A * sp.cos(A), x * np.cos(x)),
        ]:
            assert got.layout == "2:4" and got.metadata is A.metadata, got
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.to_dense(), want)
    B = A.mT * 3
    assert B.layout == "2:4" and B.transposed
    np.testing.assert_array_equal(B.to_dense(), np.swapaxes(x, -1, -2) * 3)


@pytest.mark.parametrize("fill", FILLS)
def test_functions_through_the_layout_door(fill):
    rng = np.random.default_rng(8)
    x = semi_dense(rng, (2, 4, 8), fill=fill)
    A = sp.asarray(x, layout="2:4", fill_value=fill)
    y = semi_dense(rng, (2, 4, 8), fill=fill)
    B = sp.asarray(y, layout="2:4", fill_value=fill)
    with np.errstate(invalid="ignore"):
        cases = [
            (sp.sum(A, axis=1), x.sum(axis=1)), (sp.max(A, axis=-1), x.max(axis=-1)), (sp.mean(A), x.mean()),
            (A + B, x + y), (sp.concat([A, B], axis=1), np.concatenate([x, y], axis=1)), (sp.tril(A), np.tril(x)),
            (sp.reshape(A, (8, 8)), x.reshape(8, 8)), (A[1, 2:, 3:7], x[1, 2:, 3:7]), (A[0, 1, 5], x[0, 1, 5]),
            (sp.permute_dims(A, (1, 0, 2)), x.transpose(1, 0, 2)), (sp.matrix_transpose(A), np.swapaxes(x, -1, -2)),
            (A.sum(axis=0), x.sum(axis=0)), (np.nansum(A), np.nansum(x)), (sp.argmax(A, axis=2), np.argmax(x, axis=2)),
            (A == B, x == y), (sp.where(A > 5, A, 0.0), np.where(x > 5, x, 0.0)),
        ]
    for got, want in cases:
        assert_same(got, want)
    assert sp.matrix_transpose(A).layout == "2:4" and (A + B).layout == "csr"


def test_row_slices_stay_2_4():
    rng = np.random.default_rng(9)
    x = semi_dense(rng, (3, 6, 16), fill=1.5)
    A = sp.asarray(x, layout="2:4", fill_value=1.5)
    for key in [(1, slice(2, 5)), (slice(None), slice(None, None, 2)), (0, slice(1, 3), slice(None)), (slice(0, 2), Ellipsis)]:
        got = A[key]
        assert got.layout == "2:4", key
        np.testing.assert_array_equal(got.to_dense(), x[key])
    for key in [(slice(None), slice(None), slice(4, 12)), (1, slice(None), slice(0, 0)), (0, slice(1, 4), slice(8, None))]:
        got = A[key]
        assert got.layout == "2:4", key
        np.testing.assert_array_equal(got.to_dense(), x[key])
    got = A[:, :, 2:10]  # off the groups: the CSR's indexing
    assert got.layout == "csr"
    np.testing.assert_array_equal(got.to_dense(), x[:, :, 2:10])


def test_inplace_keeps_the_object_or_refuses():
    A = sp.asarray(np.array([[0.0, 1.0, 0.0, 2.0]]), layout="2:4")
    same = A
    A *= 3
    assert A is same and A.layout == "2:4" and A.to_dense().tolist() == [[0.0, 3.0, 0.0, 6.0]]
    with pytest.raises(TypeError, match=r"must keep A's 2:4 pattern"):
        A += sp.asarray(np.array([[1.0, 0.0, 1.0, 0.0]]), layout="2:4")


def test_pickle_and_copy():
    rng = np.random.default_rng(10)
    A = sp.asarray(semi_dense(rng, (2, 4, 8), fill=NAN), layout="2:4", fill_value=NAN).mT
    B = pickle.loads(pickle.dumps(A, protocol=5))
    assert B.layout == "2:4" and B.transposed and B.shape == A.shape
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())
    C = A.copy()
    assert C.transposed and C.values is not A.values
    np.testing.assert_array_equal(C.to_dense(), A.to_dense())


def test_creation_like_functions():
    A = sp.asarray(np.array([[0.0, 1.0, 0.0, 2.0]]), layout="2:4")
    Z = sp.zeros_like(A)
    assert Z.layout == "2:4" and Z.to_dense().tolist() == [[0.0] * 4]
    F = sp.full_like(A, 7.0)
    assert F.layout == "2:4" and float(F.fill_value) == 7.0
    assert sp.asarray(A, layout="csr").layout == "csr" and sp.asarray(A) is A


# --- the simulated device --------------------------------------------------------------------------------
@requires_gxx
@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_simulated_device(fill):
    rng = np.random.default_rng(12)
    x = semi_dense(rng, (2, 8, 16), dtype="float32", fill=fill)
    A = sp.asarray(x, layout="2:4", fill_value=fill).to_device("simulated")
    assert on_place(A, "simulated")
    X = rng.standard_normal((16, 3)).astype(np.float32)
    Xd = to_place(X, "simulated")
    A @ Xd  # the first product learns what the array keeps
    with counting() as c:
        Y = A @ Xd
    assert on_place(Y, "simulated") and c.syncs <= 1, c.sites  # the one read: whether X is finite
    assert_same(Y, x @ X, rtol=1e-5, atol=1e-4)
    assert_same(to_place(X.T, "simulated") @ A.mT, X.T @ np.swapaxes(x, -1, -2), rtol=1e-5, atol=1e-4)
    with counting() as c:
        S = sp.sin(A) * 2
    assert c.syncs == 0 and S.layout == "2:4" and on_place(S, "simulated")
    assert_same(S, np.sin(x) * 2, rtol=1e-6, atol=1e-6)
    D = sp.asarray(x, layout="2:4", fill_value=fill).to_device("simulated")
    assert_same(D.to_dense(), x)
    assert_same(sp.sum(D, axis=2), x.sum(axis=2), rtol=1e-5, atol=1e-4)
    assert_same(sp.asarray(to_place(x, "simulated"), layout="2:4", fill_value=fill), x)
    assert D.to_device("cpu").layout == "2:4"


def test_docstring_examples():
    import doctest
    import importlib

    for name in ("_array.semi_structured", "_layout.semi_structured", "_functions.semi_structured",
                 "_products.semi_structured", "_functions.layout_door"):
        mod = importlib.import_module("sparray." + name)
        assert doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0, name
