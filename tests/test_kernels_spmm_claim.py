"""The CSR/BSR product kernels' claimed chunks and the eight-column vector row (sparray.kernels.cpu.spmm):
the same bits for every chunking and on one thread, the vector row's bits equal to the scalar
loop's, and bad pointers and indices still caught before use."""

import numba
import numpy as np
from random_testing import random_scipy
import pytest

from sparray.kernels.cpu import spmm as sm
from test_kernels_spmm import rand_values

NW = 3  # workers of the claim loops in _csr/_bsr (more than this machine's threads: some claim nothing)

# float32/64 and the integers take the vector row for 8 columns; complex the eight-scalar loop
DTYPES = [np.float64, np.float32, np.int64, np.uint8, np.complex128]


def _csr(rng, M, K, per_row, idx):
    """A CSR of M rows with Poisson(per_row) entries each (some rows empty, one long), sorted columns."""
    lengths = rng.poisson(per_row, M)
    lengths[rng.random(M) < 0.1] = 0
    lengths[M // 3] = min(K, 30 * per_row)
    crow = np.zeros(M + 1, idx)
    np.cumsum(lengths, out=crow[1:])
    col = np.concatenate([np.sort(rng.choice(K, n, replace=False)) for n in lengths]).astype(idx)
    return crow, col


@numba.njit(fastmath={"contract"})  # the kernels' flags: a product and its sum fuse into one FMA
def _scalar8(crow, col, values, x, y):
    """Every row through the eight-scalar loop (``_csr_mm8_row_scalar``), for any dtype."""
    uK = np.uint64(x.shape[0])
    status = 0
    for i in range(np.uint64(crow.shape[0] - 1)):
        status |= sm._csr_mm8_row_scalar(col, values, x, y, i, np.uint64(0), np.uint64(crow[i]),
                                         np.uint64(crow[i + np.uint64(1)]), uK)
    return status


@pytest.mark.parametrize("ncols", [1, 3, 8, 40])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_chunking_gives_the_serial_bits(dtype, ncols):
    """``_csr`` with 1 to 97 claimed chunks (more chunks than rows too) and ``csr_matmul_serial``
    write the same bits: each row is summed by one loop, in order, whoever claims it."""
    rng = np.random.default_rng(5)
    M, K = 300, 250
    crow, col = _csr(rng, M, K, 6, np.int32)
    vals = rand_values(rng, col.shape[0], dtype)
    x = rand_values(rng, K * ncols, dtype).reshape(K, ncols)
    short = col.shape[0] < sm.SHORT_ROWS * M
    ys = np.empty((M, ncols), dtype)
    assert sm.csr_matmul_serial(crow, col, vals, x, ys, sm.tile_of(dtype), short) == sm._OK
    rows = np.repeat(np.arange(M), np.diff(crow))
    ref = np.zeros((M, ncols), dtype)
    np.add.at(ref, rows, vals[:, None] * x[col])
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(ys, ref)
    else:
        np.testing.assert_allclose(ys, ref, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)
    for nchunks in (1, 2, 3, 7, 16, 97, 400):
        yp = np.full((M, ncols), 7, dtype)
        assert sm._csr(crow, col, vals, x, yp, NW, nchunks, sm.tile_of(dtype), short) == sm._OK
        np.testing.assert_array_equal(yp, ys)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_vector_row_has_the_scalar_bits(dtype, idx):
    """Eight columns: the vector row (one <8 x T> FMA per entry) sums every column as the
    eight-scalar loop does, to the bit, also in a column tile after a full one (N = 40 float64)."""
    rng = np.random.default_rng(9)
    M, K = 200, 150
    crow, col = _csr(rng, M, K, 9, idx)
    vals = rand_values(rng, col.shape[0], dtype)
    x = rand_values(rng, K * 8, dtype).reshape(K, 8)
    want = np.empty((M, 8), dtype)
    assert _scalar8(crow, col, vals, x, want) == sm._OK
    got = np.empty((M, 8), dtype)
    assert sm.csr_matmul_serial(crow, col, vals, x, got, sm.tile_of(dtype), False) == sm._OK
    if np.dtype(dtype).kind == "c":
        # complex keeps the eight-scalar loop itself; compiled inside another function, LLVM may
        # contract its products and sums into FMAs differently, so only the last bits may differ
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
        return
    np.testing.assert_array_equal(got, want)
    wide = np.concatenate([rand_values(rng, K * 32, dtype).reshape(K, 32), x], axis=1)
    if sm.tile_of(dtype) == 32:  # float64: a tile of 32 columns, then the last 8 in the vector row
        y = np.empty((M, 40), dtype)
        assert sm.csr_matmul_serial(crow, col, vals, np.ascontiguousarray(wide), y, 32, False) == sm._OK
        np.testing.assert_array_equal(y[:, 32:], want)


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vector_row_reports_nonfinite_sums(dtype, value):
    """A non-finite element in one lane of one row is reported (status _NONFINITE), in any chunk."""
    rng = np.random.default_rng(2)
    M, K = 120, 90
    crow, col = _csr(rng, M, K, 5, np.int32)
    vals = rand_values(rng, col.shape[0], dtype)
    x = rand_values(rng, K * 8, dtype).reshape(K, 8)
    y = np.empty((M, 8), dtype)
    assert sm._csr(crow, col, vals, x, y, NW, 5, 8, False) == sm._OK
    for lane in (0, 3, 7):
        xb = x.copy()
        xb[col[crow[M - 1] - 1], lane] = value  # a column read by an entry of a late row
        assert sm._csr(crow, col, vals, xb, y, NW, 5, 8, False) == sm._NONFINITE
        assert not np.isfinite(y[:, lane]).all() and np.isfinite(np.delete(y, lane, axis=1)).all()


@pytest.mark.parametrize("ncols", [1, 8, 3])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_claimed_chunks_catch_bad_input(idx, ncols):
    """A bad column index or pointer anywhere (first row, last row, a chunk's edge) is reported
    for every chunking, and the wrapper names it; nothing is read through it."""
    rng = np.random.default_rng(4)
    M, K = 400, 300
    crow, col = _csr(rng, M, K, 6, idx)
    vals = rng.standard_normal(col.shape[0])
    x = rng.standard_normal((K, ncols))
    nse = col.shape[0]
    for k in (0, nse // 2, nse - 1):
        for v in (K, -1, np.iinfo(idx).max):
            bad = col.copy()
            bad[k] = v
            for nchunks in (1, 4, 31):
                status = sm._csr(crow, bad, vals, x, np.empty((M, ncols)), NW, nchunks, 32, ncols == 1)
                assert status & ~sm._NONFINITE == sm._BAD_INDEX, (k, v, nchunks)
            with pytest.raises(ValueError, match=rf"col\[{k}\] = {v} is out of range"):
                sm.csr_matmul_dense(crow, bad, vals, x)
    for r in (0, M // 2, M - 1):
        bad = crow.copy()
        bad[r + 1] = nse + 5 if r < M - 1 else crow[r] - 1  # past the end; before its row's start
        for nchunks in (1, 4, 31):
            status = sm._csr(bad, col, vals, x, np.empty((M, ncols)), NW, nchunks, 32, ncols == 1)
            assert status & sm._BAD_POINTER, (r, nchunks)
        with pytest.raises(ValueError, match="crow"):
            sm.csr_matmul_dense(bad, col, vals, x)


@pytest.mark.parametrize("bs", [(4, 4), (2, 3)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("ncols", [1, 5])
def test_bsr_claimed_chunks(bs, ncols):
    """``_bsr``'s claimed chunks: the same bits for every chunking, bad block columns reported."""
    rng = np.random.default_rng(6)
    MB, KB = 150, 120
    crow, col = _csr(rng, MB, KB, 4, np.int64)
    bh, bw = bs
    blocks = rng.standard_normal((col.shape[0], bh, bw))
    x = rng.standard_normal((KB * bw, ncols))
    want = np.empty((MB * bh, ncols))
    assert sm._bsr(crow, col, blocks, x, want, NW, 1, 32) == sm._OK
    rows = np.repeat(np.arange(MB), np.diff(crow))
    ref = np.zeros((MB, bh, ncols))
    np.add.at(ref, rows, np.matmul(blocks, x.reshape(KB, bw, ncols)[col]))
    np.testing.assert_allclose(want, ref.reshape(MB * bh, ncols), rtol=1e-12, atol=1e-12)
    for nchunks in (2, 3, 16, 200):
        y = np.empty_like(want)
        assert sm._bsr(crow, col, blocks, x, y, NW, nchunks, 32) == sm._OK
        np.testing.assert_array_equal(y, want)
    bad = col.copy()
    bad[col.shape[0] // 2] = KB
    assert sm._bsr(crow, bad, blocks, x, np.empty_like(want), NW, 7, 32) & ~sm._NONFINITE == sm._BAD_INDEX


def test_chunk_counts():
    """Chunks per call: from 2 per thread up to 16 per thread, one per CHUNK_WORK of work."""
    with sm.team(1 << 30, 0) as threads:
        if threads > 1:
            assert sm._nchunks(0) == 2 * threads
            assert sm._nchunks(1 << 40) == 16 * threads
            assert sm._nchunks(5 * threads * sm.CHUNK_WORK) == 5 * threads
    with sm.team(0):
        assert sm._nchunks(1 << 40) == 1


@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("nrows", [60, 12_000])
def test_lean_product_finds_its_unread_columns_once(monkeypatch, nrows):
    """``A @ x`` on the lean path: an array of at least ``UNREAD_FIRST`` entries finds the columns
    no entry reads on its first product, a smaller one on its second; either way a non-finite
    element of x in such a column makes every product the dense one (nan wherever 0 * inf meets it)."""
    import scipy.sparse as sp

    import sparray
    from sparray._products import lean

    monkeypatch.setattr(lean, "EAGER_ANY_SIZE", True)
    monkeypatch.setattr(sparray._engine.jit, "ran_here", lambda key: key[0] == "matmul_dense")
    rng = np.random.default_rng(11)
    ncols = nrows + 7
    S = random_scipy(nrows, ncols, 4 / ncols, seed=3, format="coo")
    S.col[S.col >= ncols - 3] = 0  # the last three columns hold no entry
    S = S.tocsr()
    S.sum_duplicates()
    S.sort_indices()
    A = sparray.CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data, S.shape)
    large = S.nnz >= lean.UNREAD_FIRST
    assert large == (nrows > 1000)
    for x in (rng.standard_normal(ncols), rng.standard_normal((ncols, 8))):
        A = sparray.CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data, S.shape)
        np.testing.assert_allclose(A @ x, S @ x, rtol=1e-12, atol=1e-12)
        assert (A._lean.unread is not None) == (large or x.size > S.nnz)  # a wide x: found on the first too
        np.testing.assert_allclose(A @ x, S @ x, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(A._lean.unread, np.setdiff1d(np.arange(ncols), S.indices))
        assert set(A._lean.unread.tolist()) >= {ncols - 3, ncols - 2, ncols - 1}
        bad = x.copy()
        bad[ncols - 2] = np.inf
        np.testing.assert_array_equal(A @ bad, A.to_dense() @ bad)  # every element nan: 0 * inf
        assert np.isnan(A @ bad).all()
