"""Conversions between all five layouts and dense, against dense NumPy, fill values kept."""

import math

import numpy as np
import pytest
from sparray_testing import (
    COMPRESSED,
    FILLS,
    LAYOUT_SHAPES,
    LAYOUTS,
    assert_matches_dense,
    make_coo,
    make_sparse,
)

import sparray

SHAPE_IDS = [f"{'x'.join(map(str, s))}-s{k}" for s, k, _ in LAYOUT_SHAPES]


def _block(layout, block):
    return block if layout in ("bsr", "bsc") else None


def assert_valid(X):
    """X's components satisfy every invariant of its layout (rebuilt with the O(nse) checks on)."""
    if X.layout == "coo":
        sparray.COO(X.indices, X.values, X.shape, fill_value=X.fill_value, check_invariants=True)
        return
    cls = type(X)
    Y = cls(X.compressed_indices, X.plain_indices, X.values, X.shape, fill_value=X.fill_value, check_invariants=True)
    assert Y.shape == X.shape
    assert X.compressed_indices.dtype == X.plain_indices.dtype


@pytest.mark.parametrize("fill", FILLS, ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s,block", LAYOUT_SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("src", LAYOUTS)
def test_every_conversion_keeps_elements_and_fill(backend, src, shape, s, block, fill):
    rng = np.random.default_rng(7)
    A, D = make_sparse(rng, src, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape), duplicates=True)
    assert A.layout == src
    assert_matches_dense(A, D, fill=np.asarray(A.fill_value))
    for dst in LAYOUTS:
        B = A.to_layout(dst, blocksize=_block(dst, block))
        assert B.layout == dst and B.shape == A.shape and B.dense_ndim == A.dense_ndim
        assert_valid(B)
        assert_matches_dense(B, D, fill=np.asarray(A.fill_value))


@pytest.mark.parametrize("fill", [0.0, 2.0, float("nan")], ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s,block", LAYOUT_SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("layout", COMPRESSED)
def test_asarray_from_dense(backend, layout, shape, s, block, fill):
    rng = np.random.default_rng(3)
    _, D = make_coo(rng, shape, s, density=0.4, fill=fill)
    X = sparray.asarray(D, layout=layout, sparse_ndim=s, fill_value=fill, blocksize=_block(layout, block))
    assert X.layout == layout and X.dense_ndim == len(shape) - s and X.batch_ndim == s - 2
    assert_valid(X)
    assert_matches_dense(X, D, fill=fill)
    if X.batch_ndim == 0:  # nothing is padded: exactly the positions (blocks) that differ from the fill
        bh, bw = block if layout in ("bsr", "bsc") else (1, 1)
        differs = ~((D == fill) | (np.isnan(D) & np.isnan(fill)))
        differs = differs.reshape(*differs.shape[:2], math.prod(differs.shape[2:])).any(axis=2)
        r, c = differs.shape
        blocks = differs.reshape(r // bh, bh, c // bw, bw).any(axis=(1, 3)) if r and c else differs
        assert X.nse == int(blocks.sum())


def test_index_dtype_rules():
    D = np.eye(4)
    assert sparray.asarray(D, layout="csr").index_dtype == np.int32  # built by sparray: fits int32
    A = sparray.COO(np.array([[0, 1], [1, 0]], dtype=np.int64), [1.0, 2.0], shape=(2, 2))
    assert A.to_layout("csr").index_dtype == np.int64  # the caller's dtype is kept
    B = A.to_layout("csr")
    assert B.to_layout("csc").index_dtype == np.int64
    C = sparray.CSR(np.array([0, 1, 2], dtype=np.int32), np.array([1, 0], dtype=np.int32), [1.0, 2.0])
    assert C.to_layout("coo").index_dtype == np.int32
    assert C.to_layout("csr") is C


def test_seed_batched_example_and_padding(backend):
    t = np.array([[[1.0, 0], [2.0, 3.0]], [[4.0, 0], [5.0, 6.0]]])
    A = sparray.asarray(t, layout="csr")
    assert A.crow_indices.tolist() == [[0, 1, 3], [0, 1, 3]]
    assert A.col_indices.tolist() == [[0, 0, 1], [0, 0, 1]]
    assert A.values.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert A.nse == 3 and A.batch_ndim == 1
    # different counts per batch: the short batch gets fill-valued elements, the value is unchanged
    u = np.array([[[1.0, 0, 0], [0, 0, 2.0]], [[3.0, 4.0, 5.0], [0, 6.0, 0]]])
    for fill in (0.0, 9.0):
        v = np.where(u == 0, fill, u)
        for layout in ("csr", "csc"):
            B = sparray.asarray(v, layout=layout, fill_value=fill)
            assert B.nse == 4
            assert_valid(B)
            assert_matches_dense(B, v, fill=fill)
        P = sparray.asarray(v, fill_value=fill).to_layout("csr")
        assert P.nse == 4
        assert_matches_dense(P, v)


def test_batched_blocks_padding(backend):
    rng = np.random.default_rng(5)
    D = np.zeros((3, 4, 6))
    D[0, :2, :3] = rng.random((2, 3))
    D[2] = rng.random((4, 6))
    for layout in ("bsr", "bsc"):
        X = sparray.asarray(D, layout=layout, blocksize=(2, 3))
        assert X.nse == 4 and X.values.shape == (3, 4, 2, 3)
        assert_valid(X)
        assert_matches_dense(X, D)


@pytest.mark.parametrize("layout", COMPRESSED)
def test_dense_ndim_argument(backend, layout):
    rng = np.random.default_rng(11)
    A, D = make_coo(rng, (4, 6, 2, 3), 4, density=0.3, fill=1.5)
    blocks = {0: (1, 3), 1: (2, 2), 2: (2, 3)}  # they divide the sparse dims (2, 3), (6, 2), (4, 6)
    for d in (0, 1, 2):
        X = A.to_layout(layout, blocksize=_block(layout, blocks[d]), dense_ndim=d)
        assert X.dense_ndim == d and X.batch_ndim == 2 - d
        assert_valid(X)
        assert_matches_dense(X, D, fill=1.5)
        back = X.to_layout("coo", dense_ndim=0)
        assert back.sparse_ndim == 4
        assert_matches_dense(back, D)


def test_dense_part_fill_through_dense_ndim():
    A = sparray.COO([[0, 1], [1, 0]], [[1.0, 2.0], [3.0, 4.0]], shape=(2, 2, 2), fill_value=[7.0, 8.0])
    X = A.to_layout("csr")
    assert X.dense_ndim == 1
    np.testing.assert_array_equal(X.fill_value, [7.0, 8.0])
    with pytest.raises(ValueError, match="fill value varies"):
        A.to_layout("csr", dense_ndim=0)


def test_transpose_is_a_view():
    rng = np.random.default_rng(2)
    A, D = make_sparse(rng, "csr", (2, 4, 6), 3, density=0.5, fill=1.0)
    T = A.mT
    assert T.layout == "csc" and T.shape == (2, 6, 4)
    assert T.ccol_indices is A.crow_indices and T.row_indices is A.col_indices and T.values is A.values
    assert_matches_dense(T, np.swapaxes(D, -1, -2), fill=1.0)
    assert T.mT.layout == "csr" and T.mT.crow_indices is A.crow_indices
    B, E = make_sparse(rng, "bsr", (4, 6), 2, (2, 3), density=0.5, fill=np.nan)
    assert B.T.layout == "bsc" and B.T.blocksize == (3, 2)
    assert B.T.ccol_indices is B.crow_indices
    assert np.shares_memory(B.T.values, B.values)
    assert_matches_dense(B.T, E.T)
    assert_matches_dense(B.T.T, E)
    assert_valid(B.T)
    C, F = make_sparse(rng, "bsc", (2, 4, 6), 3, (2, 1), density=0.5)
    assert_matches_dense(C.mT, np.swapaxes(F, -1, -2))


@pytest.mark.parametrize("layout", COMPRESSED)
def test_transpose_hybrid(layout):
    rng = np.random.default_rng(4)
    A, D = make_sparse(rng, layout, (4, 6, 2), 2, (2, 3), density=0.5, fill=2.0)
    T = A.mT
    assert_matches_dense(T, np.swapaxes(D, -1, -2))
    with pytest.raises(ValueError, match="2-d"):
        A.T


def test_coo_transpose_permutes_index_rows():
    A = sparray.COO([[0, 1], [2, 0]], [1.0, 2.0], shape=(2, 3))
    T = A.T
    assert T.layout == "coo" and T.indices.tolist() == [[2, 0], [0, 1]]


def test_to_layout_errors():
    A = sparray.asarray(np.arange(24.0).reshape(4, 6))
    with pytest.raises(ValueError, match="blocksize"):
        A.to_layout("bsr")
    with pytest.raises(ValueError, match=r"blocksize \(4, 4\) must divide"):
        A.to_layout("bsr", blocksize=(4, 4))
    with pytest.raises(ValueError, match="only meaningful"):
        A.to_layout("csr", blocksize=(2, 2))
    with pytest.raises(ValueError, match="layout must be one of"):
        A.to_layout("dia")
    with pytest.raises(ValueError, match="needs 2 sparse dims"):
        sparray.asarray(np.arange(3.0)).to_layout("csr")
    with pytest.raises(ValueError, match="needs 2 sparse dims"):
        sparray.asarray(np.ones((3, 2)), layout="csr", sparse_ndim=1)
    with pytest.raises(ValueError, match="dense_ndim"):
        A.to_layout("csr", dense_ndim=3)


def test_bsr_blocksize_change_and_kept(backend):
    rng = np.random.default_rng(9)
    A, D = make_sparse(rng, "bsr", (4, 6), 2, (2, 3), density=0.3, fill=-np.inf)
    assert A.to_layout("bsc").blocksize == (2, 3)
    B = A.to_layout("bsr", blocksize=(1, 2))
    assert B.blocksize == (1, 2)
    assert_matches_dense(B, D)
    assert A.to_layout("bsr") is A


def test_large_conversions_match_generic():
    """The numba kernels (inputs above the JIT threshold) give the generic path's components exactly."""
    rng = np.random.default_rng(0)
    n, nse = 3000, 60000
    keys = np.sort(rng.choice(n * n, size=nse, replace=False))
    A = sparray.COO(np.stack(np.unravel_index(keys, (n, n))), rng.random(nse), shape=(n, n), is_coalesced=True)
    D = rng.random((300, 400))
    D[D < 0.8] = 0
    out = {}
    for backend in ("numba", "generic"):
        with sparray.use_backend(backend):
            X = A.to_layout("csr")
            Y = X.to_layout("csc")
            Z = sparray.asarray(D, layout="bsr", blocksize=(3, 4))
            W = Y.to_layout("coo")
            out[backend] = [X.crow_indices, X.col_indices, X.values, Y.ccol_indices, Y.row_indices, Y.values,
                            Z.crow_indices, Z.col_indices, Z.values, W.indices, W.values, Y.to_dense()]  # fmt: skip
    for a, b in zip(out["numba"], out["generic"]):
        np.testing.assert_array_equal(a, b)


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    crow = xps.asarray([0, 2, 3])
    col = xps.asarray([0, 2, 1])
    vals = xps.asarray([1.0, 2.0, 3.0])
    A = sparray.CSR(crow, col, vals, shape=(2, 3), fill_value=xps.asarray(-1.0))
    expected = np.array([[1.0, -1.0, 2.0], [-1.0, 3.0, -1.0]])
    for layout in LAYOUTS:
        B = A.to_layout(layout, blocksize=(1, 3) if layout in ("bsr", "bsc") else None)
        assert type(B.values).__module__.startswith("array_api_strict")
        assert_matches_dense(B, expected)
    X = sparray.asarray(xps.asarray(expected), layout="bsc", blocksize=(2, 1), fill_value=-1.0)
    assert_matches_dense(X, expected)
    assert_matches_dense(sparray.exp(A) + A, np.exp(expected) + expected)


def test_dense_dims_of_no_entries_array_api_strict():
    """Regression: turning sparse dims of a COO with no entries into dense dims sliced an empty
    key array with [1:], which array_api_strict rejects (IndexError)."""
    xps = pytest.importorskip("array_api_strict")
    A = sparray.COO(xps.asarray(np.zeros((3, 0), dtype=np.int64)), xps.asarray(np.zeros(0)), shape=(2, 3, 4),
                    fill_value=xps.asarray(1.5))  # fmt: skip
    for dense_ndim in (1, 2):
        B = A.to_layout("coo", dense_ndim=dense_ndim)
        assert B.dense_ndim == dense_ndim and B.nse == 0
        assert_matches_dense(B, np.full((2, 3, 4), 1.5))


def test_nbytes_density_repr():
    A = sparray.CSR([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], shape=(2, 3))
    assert A.nbytes == 3 * 8 + 3 * 8 + 3 * 8 + 8
    assert math.isclose(A.density, 0.5)
    assert "CSR" in repr(A) and "index_dtype=int64" in repr(A)
    B = sparray.asarray(np.ones((4, 4)), layout="bsr", blocksize=(2, 2))
    assert B.density == 1.0 and "blocksize=(2, 2)" in repr(B)


@pytest.mark.parametrize("src", ["csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("dst", ["bsr", "bsc"])
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")])
def test_issue16_blocked_target_with_a_new_blocksize_or_split(src, dst, fill):
    """asarray / to_layout into a blocked layout with a new blocksize or sparse_ndim (was a ValueError)."""
    rng = np.random.default_rng(2)
    D = np.where(rng.random((4, 4, 6)) < 0.4, rng.standard_normal((4, 4, 6)), fill)
    for s_src, s_dst, bs_src, bs_dst in [(2, 3, (1, 2), (4, 1)), (3, 2, (2, 2), (1, 1)), (3, 3, (2, 3), (4, 2))]:
        kw = {"blocksize": bs_src} if src[0] == "b" else {}
        A = sparray.asarray(D, layout=src, sparse_ndim=s_src, fill_value=fill, **kw)
        B = sparray.asarray(A, layout=dst, blocksize=bs_dst, sparse_ndim=s_dst)
        assert (B.layout, B.blocksize, B.ndim - B.dense_ndim) == (dst, bs_dst, s_dst)
        np.testing.assert_array_equal(B.to_dense(), D)
        C = A.to_layout(dst, blocksize=bs_dst, dense_ndim=D.ndim - s_dst)
        assert (C.layout, C.blocksize) == (dst, bs_dst)
        np.testing.assert_array_equal(C.to_dense(), D)
    A = sparray.asarray(np.ones((3, 4, 5)), layout="bsc", sparse_ndim=2, blocksize=(1, 2))  # the issue's reproducer
    B = sparray.asarray(A, layout="bsc", blocksize=(4, 1), sparse_ndim=3)
    assert B.blocksize == (4, 1) and B.batch_ndim == 1
    np.testing.assert_array_equal(B.to_dense(), np.ones((3, 4, 5)))
    with pytest.raises(ValueError, match="must divide"):
        sparray.asarray(A, layout="bsc", blocksize=(3, 3))
