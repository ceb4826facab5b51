"""Tests of the sparse @ dense kernels (sparray.kernels.cpu.spmm) against NumPy references."""

import numba
import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import spmm as sm

NW = 3  # workers of the claim loops in _csr/_bsr (more than this machine's threads: some claim nothing)

# each (index, value) dtype pair compiles every kernel once: a representative set keeps CI short
DTYPES = [np.float32, np.float64, np.complex128, np.int64, np.uint8]
# (index dtype, value dtype) pairs each kernel is compiled for here: every value dtype with
# int64 indices, a float and an integer one with int32 indices
CASES = [(np.int64, dt) for dt in DTYPES] + [(np.int32, np.float64), (np.int32, np.uint8)]
NCOLS = [None, 1, 3, 8, 32, 40, 70]  # None: 1-D x; 8 (and 40 = 32 + 8 float64): eight sums in registers; 70 crosses a column tile (32 float64 / 64 float32)
BLOCKS = [(1, 1), (2, 3), (4, 4)]


def case_id(c):
    return f"{np.dtype(c[0]).name}-{np.dtype(c[1]).name}"


def rand_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 7, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-5, 6, shape).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def rand_x(rng, K, ncols, dtype):
    return rand_values(rng, (K,) if ncols is None else (K, ncols), dtype)


def check(actual, expected):
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind in "iu":
        np.testing.assert_array_equal(actual, expected)
    elif expected.dtype in (np.float32, np.complex64):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-11)


# ---------------------------------------------------------------------------------------
# components and NumPy references
# ---------------------------------------------------------------------------------------


def rand_pattern(rng, M, K, density):
    """Row-major sorted distinct (rows, cols), with some rows and columns forced empty."""
    mask = rng.random((M, K)) < density
    if M > 2:
        mask[rng.choice(M, M // 3, replace=False)] = False
    if K > 2:
        mask[:, rng.choice(K, K // 3, replace=False)] = False
    return np.nonzero(mask)


def big_pattern(rng, M, K, nse):
    """About nse distinct row-major sorted positions of an (M, K) matrix, without a dense mask."""
    lin = np.unique(rng.integers(0, M * K, nse))
    return np.divmod(lin, K)


def pointers(keys, n, idx):
    return np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=n))]).astype(idx)


def csr_of(rows, cols, M, idx):
    return pointers(rows, M, idx), cols.astype(idx)


def csc_of(rows, cols, K, idx):
    """(ccol, row, order): the CSC components and the permutation of the row-major entries."""
    order = np.lexsort((rows, cols))
    return pointers(cols, K, idx), rows[order].astype(idx), order


def dense_of(rows, cols, vals, M, K):
    A = np.zeros((M, K), vals.dtype)
    np.add.at(A, (rows, cols), vals)
    return A


def ref_product(rows, cols, vals, x, M):
    """A @ x from COO components without a dense A (for the large inputs)."""
    x2 = x.reshape(x.shape[0], -1)
    y = np.zeros((M, x2.shape[1]), x.dtype)
    np.add.at(y, rows, vals[:, None] * x2[cols])
    return y.reshape((M,) + x.shape[1:])


def block_dense(brows, bcols, blocks, MB, KB):
    _, bh, bw = blocks.shape
    A = np.zeros((MB * bh, KB * bw), blocks.dtype)
    for r, c, b in zip(brows, bcols, blocks):
        A[r * bh : (r + 1) * bh, c * bw : (c + 1) * bw] += b
    return A


def block_ref(brows, bcols, blocks, x, MB):
    """A @ x for blocks at (brows, bcols), without a dense A."""
    _, bh, bw = blocks.shape
    x2 = x.reshape(x.shape[0], -1)
    xb = x2.reshape(-1, bw, x2.shape[1])[bcols]  # (nse, bw, N)
    y = np.zeros((MB, bh, x2.shape[1]), x.dtype)
    np.add.at(y, brows, np.matmul(blocks, xb))
    return y.reshape((MB * bh,) + x.shape[1:])


# ---------------------------------------------------------------------------------------
# CSR / CSC
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("ncols", NCOLS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_csr_csc_match_dense(case, ncols):
    idx, dt = case
    rng = np.random.default_rng(7)
    M, K = 23, 17
    rows, cols = rand_pattern(rng, M, K, 0.3)
    vals = rand_values(rng, len(rows), dt)
    x = rand_x(rng, K, ncols, dt)
    expected = dense_of(rows, cols, vals, M, K) @ x
    crow, col = csr_of(rows, cols, M, idx)
    check(sm.csr_matmul_dense(crow, col, vals, x), expected)
    ccol, row, order = csc_of(rows, cols, K, idx)
    check(sm.csc_matmul_dense(ccol, row, vals[order], x, M), expected)


@pytest.mark.parametrize("ncols", [None, 2, 33])
@pytest.mark.parametrize("M,K,nse", [(0, 5, 0), (5, 0, 0), (0, 0, 0), (6, 4, 0)])
def test_csr_csc_empty(M, K, nse, ncols):
    x = np.ones((K,) if ncols is None else (K, ncols))
    expected = np.zeros((M,) if ncols is None else (M, ncols))
    crow = np.zeros(M + 1, np.int32)
    check(sm.csr_matmul_dense(crow, np.zeros(0, np.int32), np.zeros(0), x), expected)
    ccol = np.zeros(K + 1, np.int64)
    check(sm.csc_matmul_dense(ccol, np.zeros(0, np.int64), np.zeros(0), x, M), expected)


def test_zero_columns_of_x():
    rng = np.random.default_rng(3)
    rows, cols = rand_pattern(rng, 9, 8, 0.5)
    vals = rng.standard_normal(len(rows))
    x = np.zeros((8, 0))
    crow, col = csr_of(rows, cols, 9, np.int64)
    check(sm.csr_matmul_dense(crow, col, vals, x), np.zeros((9, 0)))
    ccol, row, order = csc_of(rows, cols, 8, np.int64)
    check(sm.csc_matmul_dense(ccol, row, vals[order], x, 9), np.zeros((9, 0)))
    # the indices are still checked
    with pytest.raises(ValueError, match="out of range"):
        sm.csr_matmul_dense(crow, col + 8, vals, x)


@pytest.mark.parametrize("ncols", [None, 1, 32, 70])
@pytest.mark.parametrize("idx,dt", [(np.int32, np.float64), (np.int64, np.float32), (np.int64, np.int64)])
def test_csr_csc_large(idx, dt, ncols):
    """Large enough for the multithreaded paths; the result does not depend on the thread count."""
    rng = np.random.default_rng(11)
    M, K = 100_000, 60_000
    rows, cols = big_pattern(rng, M, K, 500_000 if ncols in (None, 1) else 100_000)
    vals = rand_values(rng, len(rows), dt)
    x = rand_x(rng, K, ncols, dt)
    expected = ref_product(rows, cols, vals, x, M)
    crow, col = csr_of(rows, cols, M, idx)
    y = sm.csr_matmul_dense(crow, col, vals, x)
    check(y, expected)
    ccol, row, order = csc_of(rows, cols, K, idx)
    y2 = sm.csc_matmul_dense(ccol, row, vals[order], x, M)
    check(y2, expected)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        np.testing.assert_array_equal(sm.csr_matmul_dense(crow, col, vals, x), y)
        check(sm.csc_matmul_dense(ccol, row, vals[order], x, M), expected)
    finally:
        numba.set_num_threads(old)


@pytest.mark.parametrize("ncols", [None, 8])
def test_csr_csc_skewed(ncols):
    """R-MAT-like: one row holds half the entries (CSR chunks are balanced by entries), one
    column is dense (CSC binary searches), the rest is scattered."""
    rng = np.random.default_rng(5)
    M, K = 50_000, 40_000
    r1, c1 = big_pattern(rng, M, K, 200_000)
    heavy_row = np.full(K // 2, 1234)
    heavy_cols = np.sort(rng.choice(K, K // 2, replace=False))
    dense_col = np.arange(0, M, 3)
    rows = np.concatenate([r1, heavy_row, dense_col])
    cols = np.concatenate([c1, heavy_cols, np.full(len(dense_col), 777)])
    lin = np.unique(rows * K + cols)
    rows, cols = np.divmod(lin, K)
    assert (rows == 1234).sum() > K // 2 - 1
    vals = rng.standard_normal(len(rows))
    x = rand_x(rng, K, ncols, np.float64)
    expected = ref_product(rows, cols, vals, x, M)
    crow, col = csr_of(rows, cols, M, np.int64)
    check(sm.csr_matmul_dense(crow, col, vals, x), expected)
    ccol, row, order = csc_of(rows, cols, K, np.int32)
    check(sm.csc_matmul_dense(ccol, row, vals[order], x, M), expected)


@pytest.mark.parametrize("ncols", [None, 4])
def test_csc_unsorted_rows(ncols):
    """Rows out of order within columns: not what the parallel split expects, still correct."""
    rng = np.random.default_rng(9)
    M, K = 80_000, 50_000
    rows, cols = big_pattern(rng, M, K, 300_000)
    vals = rng.standard_normal(len(rows))
    x = rand_x(rng, K, ncols, np.float64)
    ccol, row, order = csc_of(rows, cols, K, np.int64)
    perm = np.arange(len(row))
    for j in range(0, K, 7):  # reverse every 7th column
        perm[ccol[j] : ccol[j + 1]] = perm[ccol[j] : ccol[j + 1]][::-1]
    check(sm.csc_matmul_dense(ccol, row[perm], vals[order][perm], x, M), ref_product(rows, cols, vals, x, M))


def test_noncontiguous_x_and_index_dtypes():
    rng = np.random.default_rng(2)
    M, K = 30, 20
    rows, cols = rand_pattern(rng, M, K, 0.3)
    vals = rng.standard_normal(len(rows))
    A = dense_of(rows, cols, vals, M, K)
    base = rng.standard_normal((2 * K, 10))
    crow, col = csr_of(rows, cols, M, np.int64)
    ccol, row, order = csc_of(rows, cols, K, np.int64)
    for x in (base[::2], base[::2, ::3], np.asfortranarray(base[:K]), base[::2, 1]):
        assert not x.flags.c_contiguous
        check(sm.csr_matmul_dense(crow, col, vals, x), A @ x)
        check(sm.csc_matmul_dense(ccol, row, vals[order], x, M), A @ x)
    x = base[:K, 0].copy()
    # mixed / narrow / Python-list indices are converted
    check(sm.csr_matmul_dense(crow.astype(np.int32), col, vals, x), A @ x)
    check(sm.csr_matmul_dense(crow.astype(np.uint16), col.astype(np.int16), vals, x), A @ x)
    check(sm.csc_matmul_dense(ccol.tolist(), row.astype(np.uint8), vals[order], x, M), A @ x)
    # the result is fresh
    y = sm.csr_matmul_dense(crow, col, vals, x)
    assert not np.shares_memory(y, x) and not np.shares_memory(y, vals)


# ---------------------------------------------------------------------------------------
# BSR / BSC
# ---------------------------------------------------------------------------------------


def rand_blocks(rng, MB, KB, bh, bw, density, dt):
    brows, bcols = rand_pattern(rng, MB, KB, density)
    return brows, bcols, rand_values(rng, (len(brows), bh, bw), dt)


def bsc_of(brows, bcols, blocks, KB, idx):
    ccol, row, order = csc_of(brows, bcols, KB, idx)
    return ccol, row, np.ascontiguousarray(blocks[order])


@pytest.mark.parametrize("ncols", NCOLS)
@pytest.mark.parametrize("bs", BLOCKS, ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bsr_bsc_match_dense(case, bs, ncols):
    idx, dt = case
    bh, bw = bs
    rng = np.random.default_rng(13)
    MB, KB = 9, 7
    brows, bcols, blocks = rand_blocks(rng, MB, KB, bh, bw, 0.4, dt)
    x = rand_x(rng, KB * bw, ncols, dt)
    expected = block_dense(brows, bcols, blocks, MB, KB) @ x
    crow, col = csr_of(brows, bcols, MB, idx)
    check(sm.bsr_matmul_dense(crow, col, blocks, x), expected)
    ccol, row, bblocks = bsc_of(brows, bcols, blocks, KB, idx)
    check(sm.bsc_matmul_dense(ccol, row, bblocks, x, MB * bh), expected)


@pytest.mark.parametrize("ncols", [None, 2])
@pytest.mark.parametrize("MB,KB", [(0, 3), (4, 0), (0, 0), (5, 3)])
def test_bsr_bsc_empty(MB, KB, ncols):
    bh, bw = 2, 3
    x = np.ones((KB * bw,) if ncols is None else (KB * bw, ncols), np.complex128)
    expected = np.zeros((MB * bh,) if ncols is None else (MB * bh, ncols), np.complex128)
    blocks = np.zeros((0, bh, bw), np.complex128)
    check(sm.bsr_matmul_dense(np.zeros(MB + 1, np.int64), np.zeros(0, np.int64), blocks, x), expected)
    check(sm.bsc_matmul_dense(np.zeros(KB + 1, np.int32), np.zeros(0, np.int32), blocks, x, MB * bh), expected)


@pytest.mark.parametrize("ncols", [None, 1, 16, 70])
@pytest.mark.parametrize("bs", [(4, 4), (2, 3)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_bsr_bsc_large(bs, ncols):
    bh, bw = bs
    rng = np.random.default_rng(17)
    MB, KB = 30_000, 20_000
    brows, bcols = big_pattern(rng, MB, KB, 150_000 if ncols in (None, 1) else 40_000)
    # plus one heavy block row (a tenth of the blocks)
    heavy = np.sort(rng.choice(KB, len(brows) // 10, replace=False))
    lin = np.unique(np.concatenate([brows * KB + bcols, 4321 * KB + heavy]))
    brows, bcols = np.divmod(lin, KB)
    blocks = rand_values(rng, (len(brows), bh, bw), np.float64)
    x = rand_x(rng, KB * bw, ncols, np.float64)
    expected = block_ref(brows, bcols, blocks, x, MB)
    crow, col = csr_of(brows, bcols, MB, np.int32)
    y = sm.bsr_matmul_dense(crow, col, blocks, x)
    check(y, expected)
    ccol, row, bblocks = bsc_of(brows, bcols, blocks, KB, np.int32)
    check(sm.bsc_matmul_dense(ccol, row, bblocks, x, MB * bh), expected)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        np.testing.assert_array_equal(sm.bsr_matmul_dense(crow, col, blocks, x), y)
    finally:
        numba.set_num_threads(old)


@pytest.mark.parametrize("ncols", [None, 1, 5, 8, 70])
@pytest.mark.parametrize("layout", ["csr", "bsr4", "bsr23"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, None])
def test_report_finite(layout, ncols, value):
    """``report_finite`` says whether every written element of y is finite: a non-finite x
    element read by one stored entry, in the first, a middle or the last row chunk, turns it
    False; y itself is the same as without the flag."""
    rng = np.random.default_rng(21)
    bh, bw = {"csr": (1, 1), "bsr4": (4, 4), "bsr23": (2, 3)}[layout]
    MB, KB = 20_000, 15_000
    brows, bcols = big_pattern(rng, MB, KB, 60_000)
    crow, col = csr_of(brows, bcols, MB, np.int32)
    for entry in (0, len(bcols) // 2, len(bcols) - 1):
        x = rand_x(rng, KB * bw, ncols, np.float64)
        if value is not None:
            x[bcols[entry] * bw] = value  # row of x read by that stored entry (every column)
        if layout == "csr":
            vals = rand_values(rng, len(bcols), np.float64)
            y, finite = sm.csr_matmul_dense(crow, col, vals, x, report_finite=True)
            plain = sm.csr_matmul_dense(crow, col, vals, x)
        else:
            vals = rand_values(rng, (len(bcols), bh, bw), np.float64)
            y, finite = sm.bsr_matmul_dense(crow, col, vals, x, report_finite=True)
            plain = sm.bsr_matmul_dense(crow, col, vals, x)
        np.testing.assert_array_equal(y, plain)
        assert finite == bool(np.isfinite(y).all())
        assert finite == (value is None)


def test_report_finite_integers_and_empty():
    y, finite = sm.csr_matmul_dense(np.array([0, 1]), np.array([0]), np.array([3]), np.array([2]), report_finite=True)
    assert y.tolist() == [6] and finite is True
    y, finite = sm.csr_matmul_dense(np.array([0, 0]), np.zeros(0, int), np.zeros(0), np.array([np.inf]), report_finite=True)
    assert y.tolist() == [0.0] and finite is True  # nothing read, nothing written but zeros


@pytest.mark.parametrize("n,nminor", [(0, 4), (5, 1), (1000, 300), (300_000, 200_000)])
def test_unused_minor(n, nminor):
    from sparray.kernels.cpu.occupancy import unused_minor

    minor = np.random.default_rng(n).integers(0, nminor, n)
    expected = np.setdiff1d(np.arange(nminor), minor)
    from sparray._engine.compressed_generic import unused_minor as unused_minor_generic

    for m in (minor, minor.astype(np.int32)):
        got = unused_minor(m, nminor)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(unused_minor_generic(np, m, nminor), expected)
    bad = minor.copy()
    if n:
        bad[n // 2] = nminor
        with pytest.raises(ValueError, match="1 indices outside"):
            unused_minor(bad, nminor)


def test_bsr_noncontiguous():
    rng = np.random.default_rng(4)
    brows, bcols, blocks = rand_blocks(rng, 6, 5, 4, 4, 0.5, np.float64)
    A = block_dense(brows, bcols, blocks, 6, 5)
    x = rng.standard_normal((40, 6))[::2, ::2]
    crow, col = csr_of(brows, bcols, 6, np.int64)
    fblocks = np.asfortranarray(blocks)
    check(sm.bsr_matmul_dense(crow, col, fblocks, x), A @ x)
    ccol, row, bblocks = bsc_of(brows, bcols, blocks, 5, np.int64)
    wide = np.concatenate([bblocks, bblocks], axis=2)[:, :, :4]
    assert not wide.flags.c_contiguous
    check(sm.bsc_matmul_dense(ccol, row, wide, x, 24), A @ x)


# ---------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------


def small_csr(idx=np.int64):
    crow = np.array([0, 2, 2, 5], idx)
    col = np.array([0, 3, 1, 2, 3], idx)
    return crow, col, np.arange(1.0, 6.0), np.ones(4)


@pytest.mark.parametrize("big", [False, True])
def test_bad_minor_indices(big):
    if big:
        rng = np.random.default_rng(0)
        rows, cols = big_pattern(rng, 60_000, 50_000, 300_000)
        crow, col = csr_of(rows, cols, 60_000, np.int32)
        vals, x, K, M = rng.standard_normal(len(rows)), np.ones(50_000), 50_000, 60_000
        k = 234_567
    else:
        crow, col, vals, x = small_csr()
        K, M, k = 4, 3, 3
    bad = col.copy()
    bad[k] = K
    with pytest.raises(ValueError, match=rf"csr_matmul_dense: col\[{k}\] = {K} is out of range for {K} columns"):
        sm.csr_matmul_dense(crow, bad, vals, x)
    bad[k] = -1
    with pytest.raises(ValueError, match=rf"col\[{k}\] = -1 is out of range"):
        sm.csr_matmul_dense(crow, bad, vals, np.ones((K, 3)))
    # the same indices as the CSC of the transpose: rows out of range
    with pytest.raises(ValueError, match=rf"csc_matmul_dense: row\[{k}\] = -1 is out of range for {K} rows"):
        sm.csc_matmul_dense(crow, bad, vals, np.ones(M), K)
    bad[k] = K + 5
    with pytest.raises(ValueError, match=rf"row\[{k}\] = {K + 5} is out of range for {K} rows"):
        sm.csc_matmul_dense(crow, bad, vals, np.ones((M, 2)), K)


def test_bad_block_indices():
    crow, col, _, _ = small_csr()
    blocks = np.ones((5, 2, 2))
    with pytest.raises(ValueError, match=r"bsr_matmul_dense: col\[1\] = 3 is out of range for 3 block columns"):
        sm.bsr_matmul_dense(crow, col, blocks, np.ones(6))
    with pytest.raises(ValueError, match=r"bsc_matmul_dense: row\[1\] = 3 is out of range for 3 block rows"):
        sm.bsc_matmul_dense(crow, col, blocks, np.ones((6, 2)), 6)
    with pytest.raises(ValueError, match=r"bsr_matmul_dense: col\[1\] = 3 is out of range"):
        sm.bsr_matmul_dense(crow, col, np.ones((5, 4, 4)), np.ones((12, 1)))


@pytest.mark.parametrize("big", [False, True])
def test_bad_pointers(big):
    if big:
        rng = np.random.default_rng(1)
        rows, cols = big_pattern(rng, 60_000, 50_000, 300_000)
        crow, col = csr_of(rows, cols, 60_000, np.int64)
        vals, K, M = rng.standard_normal(len(rows)), 50_000, 60_000
        g = 31_000
    else:
        crow, col, vals, _ = small_csr()
        K, M, g = 4, 3, 2
    nse = len(col)
    bad = crow.copy()
    bad[g] = crow[g - 1] - 1
    for fn, args in [
        (sm.csr_matmul_dense, (bad, col, vals, np.ones(K))),
        (sm.csr_matmul_dense, (bad, col, vals, np.ones((K, 5)))),
        (sm.csc_matmul_dense, (bad, col, vals, np.ones(M), K)),
        (sm.bsr_matmul_dense, (bad, col, np.ones((nse, 1, 2)), np.ones(2 * K))),
        (sm.bsc_matmul_dense, (bad, col, np.ones((nse, 2, 1)), np.ones((M, 3)), 2 * K)),
    ]:
        with pytest.raises(ValueError, match=rf"must be non-decreasing: c(row|col)\[{g}\]"):
            fn(*args)
    beyond = crow.copy()
    beyond[g] = nse + 3
    with pytest.raises(ValueError, match=rf"crow\[{g}\] = {nse + 3} is beyond nse = {nse}"):
        sm.csr_matmul_dense(beyond, col, vals, np.ones(K))
    with pytest.raises(ValueError, match=rf"ccol\[{g}\] = {nse + 3} is beyond nse = {nse}"):
        sm.csc_matmul_dense(beyond, col, vals, np.ones((M, 2)), K)
    first = crow.copy()
    first[0] = 1
    with pytest.raises(ValueError, match=r"crow\[0\] = 1 must be 0"):
        sm.csr_matmul_dense(first, col, vals, np.ones(K))
    with pytest.raises(ValueError, match=rf"ccol\[-1\] = {nse - 1} but there are {nse} entries"):
        sm.csc_matmul_dense(np.minimum(crow, nse - 1), col, vals, np.ones(M), K)
    with pytest.raises(ValueError, match="at least one element"):
        sm.csr_matmul_dense(np.zeros(0, np.int64), col[:0], vals[:0], np.ones(K))


def test_shape_errors():
    crow, col, vals, x = small_csr()
    with pytest.raises(ValueError, match=r"values has shape \(4,\) but col has shape \(5,\)"):
        sm.csr_matmul_dense(crow, col, vals[:4], x)
    with pytest.raises(ValueError, match=r"values has shape \(5, 1\)"):
        sm.csc_matmul_dense(crow, col, vals[:, None], np.ones(3), 4)
    with pytest.raises(ValueError, match=r"A has shape \(4, 3\) .* but x has shape \(4,\)"):
        sm.csc_matmul_dense(crow, col, vals, x, 4)
    with pytest.raises(ValueError, match=r"x must be 1-D \(K,\) or 2-D"):
        sm.csr_matmul_dense(crow, col, vals, np.ones((4, 1, 1)))
    with pytest.raises(ValueError, match="must be 1-D"):
        sm.csr_matmul_dense(crow[None], col, vals, x)
    with pytest.raises(ValueError, match="nrows must be >= 0"):
        sm.csc_matmul_dense(crow, col, vals, np.ones(3), -1)
    with pytest.raises(ValueError, match=r"blocks must have shape \(nse, bh, bw\) = \(5, bh, bw\).*got \(5, 4\)"):
        sm.bsr_matmul_dense(crow, col, np.ones((5, 4)), np.ones(16))
    with pytest.raises(ValueError, match=r"got \(4, 2, 2\)"):
        sm.bsc_matmul_dense(crow, col, np.ones((4, 2, 2)), np.ones(6), 8)
    with pytest.raises(ValueError, match=r"x has shape \(7,\).*not a multiple of the block width.*\(5, 2, 2\)"):
        sm.bsr_matmul_dense(crow, col, np.ones((5, 2, 2)), np.ones(7))
    with pytest.raises(ValueError, match=r"nrows = 7 must be a non-negative multiple of bh = 2"):
        sm.bsc_matmul_dense(crow, col, np.ones((5, 2, 2)), np.ones(6), 7)
    with pytest.raises(ValueError, match=r"A has shape \(8, 6\).*but x has shape \(8,\)"):
        sm.bsc_matmul_dense(crow, col, np.ones((5, 2, 2)), np.ones(8), 8)
    with pytest.raises(ValueError, match="block shape must be positive"):
        sm.bsr_matmul_dense(crow, col, np.ones((5, 0, 2)), np.ones(8))
    with pytest.raises(ValueError, match="must hold integers"):
        sm.csr_matmul_dense(crow.astype(np.float64), col, vals, x)


def test_declined_dtypes():
    crow, col, vals, x = small_csr()
    with pytest.raises(KernelDeclined, match=r"values \(float64\) and x \(float32\) must have the same dtype"):
        sm.csr_matmul_dense(crow, col, vals, x.astype(np.float32))
    with pytest.raises(KernelDeclined, match=r"must have the same dtype, one of int8.*complex128"):
        sm.csc_matmul_dense(crow, col, vals.astype(np.int64), np.ones(3), 4)
    with pytest.raises(KernelDeclined, match="have dtype bool; expected one of"):
        sm.csr_matmul_dense(crow, col, vals > 2, x > 0)
    with pytest.raises(KernelDeclined, match="have dtype float16"):
        sm.bsr_matmul_dense(crow, col, np.ones((5, 1, 1), np.float16), np.ones(4, np.float16))
    with pytest.raises(KernelDeclined, match=r"blocks \(bool\) and x \(float64\)"):
        sm.bsc_matmul_dense(crow, col, np.ones((5, 1, 1), bool), np.ones(3), 4)


def test_integer_wraparound():
    """Accumulated in the value dtype, wrapping like NumPy's integer matmul."""
    crow, col = np.array([0, 3]), np.array([0, 1, 2])
    for vals, x in [
        (np.array([200, 100, 77], np.uint8), np.array([3, 5, 7], np.uint8)),
        (np.array([2**30, 2**30, 3], np.int32), np.array([2, 2, 1], np.int32)),
    ]:
        expected = vals[None, :] @ x
        check(sm.csr_matmul_dense(crow, col, vals, x), expected)
        check(sm.bsr_matmul_dense(crow, col, vals.reshape(3, 1, 1), x[:, None]), expected[:, None])


@pytest.mark.parametrize("parts", [3, 7])
def test_many_row_ranges(parts):
    """The kernels split into more row chunks / ranges than this machine may have threads: the
    middle CSC/BSC ranges binary-search their runs."""
    rng = np.random.default_rng(21)
    M, K = 5_000, 3_000
    rows, cols = big_pattern(rng, M, K, 40_000)
    vals = rng.standard_normal(len(rows))
    x = rng.standard_normal((K, 3))
    expected = ref_product(rows, cols, vals, x, M)
    crow, col = csr_of(rows, cols, M, np.int64)
    y = np.empty((M, 3))
    assert sm._csr(crow, col, vals, x, y, NW, parts, 32, False) == sm._OK
    check(y, expected)
    ccol, row, order = csc_of(rows, cols, K, np.int64)
    for xx in (x, x[:, :1].copy()):
        y = np.zeros((M, xx.shape[1]))
        status, done = sm._csc(ccol, row, vals[order], xx, y, parts)
        assert not status.any() and done.sum() == len(row)
        check(y, ref_product(rows, cols, vals, xx, M))
    blocks = vals.reshape(-1, 1, 1)
    y = np.zeros((M, 3))
    status, done = sm._bsc(ccol, row, blocks[order], x, y, parts)
    assert not status.any() and done.sum() == len(row)
    check(y, expected)


@pytest.mark.parametrize("n,pos", [(7, p) for p in range(7)] + [(15, p) for p in range(15)])
def test_bad_column_in_every_slot_of_the_spmv(n, pos):
    # one row of n entries: 7 is short (checked block by block, summed in two accumulators, 6 in
    # pairs and one alone); 15 is long (slots 0-11 in the 4-way unrolled step, 12-14 in the tail)
    assert (n < sm._SHORT_ROWS) == (n == 7)
    col = np.arange(n)
    col[pos] = n + 2
    with pytest.raises(ValueError, match=rf"col\[{pos}\] = {n + 2} is out of range for {n + 1} columns"):
        sm.csr_matmul_dense(np.array([0, n]), col, np.ones(n), np.ones(n + 1))
    col[pos] = -1
    with pytest.raises(ValueError, match=rf"col\[{pos}\] = -1 is out of range"):
        sm.csr_matmul_dense(np.array([0, n]), col.astype(np.int32), np.ones(n), np.ones(n + 1))
    col[pos] = pos
    expected = [float(n * (n - 1) // 2)]
    np.testing.assert_array_equal(sm.csr_matmul_dense(np.array([0, n]), col, np.ones(n), np.arange(n + 1.0)), expected)


@pytest.mark.parametrize("ncols", [3, 8, 40])
@pytest.mark.parametrize("pos", range(7))
@pytest.mark.parametrize("idx", [np.int64, np.int32])
def test_bad_column_in_every_slot_of_the_spmm(pos, idx, ncols):
    # one row of 7 entries times 3 columns of x: slots 0-3 in the four-at-a-time step, 4-6 in the
    # tail; 8 columns take the eight-sums-in-registers loop, 40 a full tile of 32 then that loop
    n = 7
    col = np.arange(n, dtype=idx)
    x = np.arange((n + 1) * ncols, dtype=np.float64).reshape(n + 1, ncols)
    for v in (n + 1, -1, np.iinfo(idx).max):
        col[pos] = v
        with pytest.raises(ValueError, match=rf"col\[{pos}\] = {v} is out of range for {n + 1} columns"):
            sm.csr_matmul_dense(np.array([0, n], idx), col, np.ones(n), x)
    col[pos] = pos
    vals = np.arange(1.0, n + 1)
    np.testing.assert_array_equal(sm.csr_matmul_dense(np.array([0, n], idx), col, vals, x), [vals @ x[:n]])


def spmv_rows(rng, M, K, per_row, idx):
    """A CSR of M rows with about ``per_row`` entries each (some rows empty, one long)."""
    lengths = rng.poisson(per_row, M)
    lengths[rng.random(M) < 0.1] = 0
    lengths[M // 2] = min(K, 40 * per_row + 3)
    crow = np.zeros(M + 1, idx)
    np.cumsum(lengths, out=crow[1:])
    col = np.concatenate([np.sort(rng.choice(K, n, replace=False)) for n in lengths]).astype(idx)
    return crow, col


@pytest.mark.parametrize("short", [True, False])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_spmv_short_and_long_row_kernels(short, idx):
    """Both SpMV row loops (the wrapper picks one by the mean row length) on the same matrices:
    rows of 0 to a few hundred entries, blocks of rows cut anywhere by the chunks, bad pointers
    and columns at a block's first row, last row and in between: each gives the reference
    product or its status, and no y element outside the chunks' rows is written."""
    rng = np.random.default_rng(3)
    M, K = 1000, 700
    crow, col = spmv_rows(rng, M, K, 5, idx)
    vals = rng.standard_normal(col.shape[0])
    x = rng.standard_normal((K, 1))
    rows = np.repeat(np.arange(M), np.diff(crow))
    expected = ref_product(rows, col.astype(np.int64), vals, x, M)
    for nchunks in (1, 3, 8, 61):
        guard = np.full((M + 2, 1), 7.0)
        status = sm._csr(crow, col, vals, x, guard[1:-1], NW, nchunks, 32, short)
        assert not status & ~sm._NONFINITE
        check(guard[1:-1], expected)
        assert guard[0, 0] == guard[-1, 0] == 7.0
    block = int(sm._SHORT_BLOCK)
    for r in (0, block - 1, block, block + 1, M // 2, M - 1):
        lo, hi = int(crow[r]), int(crow[r + 1])
        if hi > lo:
            for k in (lo, hi - 1):
                for v in (K, -1, np.iinfo(idx).max):
                    bad = col.copy()
                    bad[k] = v
                    status = sm._csr(crow, bad, vals, x, np.empty((M, 1)), NW, 8, 32, short)
                    assert status & ~sm._NONFINITE == sm._BAD_INDEX, (r, k, v)
        bad = crow.copy()
        bad[r + 1] = crow[r] - 1
        status = sm._csr(bad, col, vals, x, np.empty((M, 1)), NW, 1, 32, short)
        assert status & sm._BAD_POINTER, r
        bad[r + 1] = col.shape[0] + 1
        status = sm._csr(bad, col, vals, x, np.empty((M, 1)), NW, 1, 32, short)
        assert status & sm._BAD_POINTER, r
    # a non-finite product is reported, whichever block holds it
    x[col[crow[M - 1]] if crow[M] > crow[M - 1] else col[0]] = np.inf
    status = sm._csr(crow, col, vals, x, np.empty((M, 1)), NW, 3, 32, short)
    assert status == sm._NONFINITE
