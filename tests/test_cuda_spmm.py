"""Sparse @ dense on the CUDA backend (kernels/cuda/spmm.cu): CSR (row groups; skewed: the merge
path for a vector, tests/test_cuda_spmv_merge.py, the entry-balanced split for a matrix), BSR, CSC and BSC, emulated in CI and on CuPy where a GPU is, against the numba kernels
and dense NumPy: every numeric dtype, int32/int64 indices, vectors and matrices, empty and skewed
rows, one huge row, report_finite, bad pointers and indices (the same messages as numba)."""

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, random_values, requires_gxx, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import spmm as cpu
from sparray.kernels.cuda import spmm

pytestmark = requires_gxx

NUMERIC = tuple(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                      "float32", "float64", "complex64", "complex128"))  # fmt: skip
NCOLS = (None, 1, 3, 40)  # None: a 1-D x


def _pattern(rng, M, K, density, skew=None):
    """Row-major (rows, cols) of an M x K pattern: random rows, some empty, and with ``skew`` one row
    of ``skew`` entries (a power-law graph's hub)."""
    mask = rng.random((M, K)) < density
    if M > 3:
        mask[rng.choice(M, M // 4, replace=False)] = False
    if skew:
        mask[M // 2, :skew] = True
    return np.nonzero(mask)


def _compressed(major, minor, n, idx):
    return np.concatenate([[0], np.cumsum(np.bincount(major, minlength=n))]).astype(idx), minor.astype(idx)


def _x(rng, K, ncols, dtype):
    return random_values(rng, (K,) if ncols is None else (K, ncols), dtype, negative=True)


def _same(got, want):
    got = to_host(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12)


def _dense_product(rows, cols, vals, M, K, x):
    """NumPy's dense product in the values' dtype (integers wrap as the kernels' must)."""
    D = np.zeros((M, K), vals.dtype)
    D[rows, cols] = vals
    return D @ x


# (index, value) dtypes the numba kernels are compared on: those test_kernels_spmm compiles anyway
NUMBA_CASES = {(np.dtype(np.int64), np.dtype(t)) for t in ("float32", "float64", "complex128", "int64", "uint8")} | {
    (np.dtype(np.int32), np.dtype(t)) for t in ("float64", "uint8")
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_csr_and_csc_match_dense(device, dtype):
    rng = np.random.default_rng(int(dtype.num))
    M, K = 37, 23
    for c, ncols in enumerate(NCOLS):
        idx = INDEX_DTYPES[c % 2]
        rows, cols = _pattern(rng, M, K, 0.2)
        vals = random_values(rng, rows.shape[0], dtype, negative=True)
        x = _x(rng, K, ncols, dtype)
        want = _dense_product(rows, cols, vals, M, K, x)
        crow, col = _compressed(rows, cols, M, idx)
        got = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)))
        _same(got, want)
        if (np.dtype(idx), dtype) in NUMBA_CASES:
            _same(got, cpu.csr_matmul_dense(crow, col, vals, x))
        order = np.lexsort((rows, cols))
        ccol, row = _compressed(cols[order], rows[order], K, idx)
        _same(spmm.csc_matmul_dense(*(to_device(a, device) for a in (ccol, row, vals[order], x)), M), want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ncols", NCOLS)
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64", "uint8"])
def test_skewed_rows_take_the_balanced_kernels(device, ncols, dtype, monkeypatch):
    """One row far longer than the rest (and one row longer than a chunk, rows crossing chunk
    edges, empty rows at the edges): the merge-path SpMV (x a vector or one column) or the
    entry-balanced csr_split (several columns), against dense NumPy."""
    monkeypatch.setattr(spmm, "SKEW_MIN", 40)
    rng = np.random.default_rng(5)
    M, K = 60, 300
    rows, cols = _pattern(rng, M, K, 0.03, skew=250)
    vals = random_values(rng, rows.shape[0], dtype, negative=True)
    x = _x(rng, K, ncols, dtype)
    want = _dense_product(rows, cols, vals, M, K, x)
    for idx in INDEX_DTYPES:
        crow, col = _compressed(rows, cols, M, idx)
        assert np.diff(crow).max() > spmm.SKEW_FACTOR * rows.shape[0] / M
        got = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)), report_finite=True)
        _same(got[0], want)
        assert got[1] is True
    # one row holding every entry, and a matrix of one row
    for M1 in (7, 1):
        crow = np.array([0] * (M1 // 2 + 1) + [200] * (M1 - M1 // 2), np.int64)
        col = np.sort(rng.choice(K, 200, replace=False))
        v = random_values(rng, 200, dtype, negative=True)
        want = _dense_product(np.full(200, M1 // 2), col, v, M1, K, x)
        _same(spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, v, x))), want)


def _block_dense(brows, bcols, blocks, MB, KB):
    _, bh, bw = blocks.shape
    D = np.zeros((MB * bh, KB * bw), blocks.dtype)
    for r, c, b in zip(brows, bcols, blocks):
        D[r * bh : (r + 1) * bh, c * bw : (c + 1) * bw] = b
    return D


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bs", [(1, 1), (2, 3), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128", "uint16", "float32"])
def test_bsr_and_bsc_match_dense(device, bs, dtype):
    rng = np.random.default_rng(17)
    bh, bw = bs
    MB, KB = 9, 7
    for c, ncols in enumerate(NCOLS):
        idx = INDEX_DTYPES[c % 2]
        brows, bcols = _pattern(rng, MB, KB, 0.3)
        blocks = random_values(rng, (brows.shape[0], bh, bw), dtype, negative=True)
        x = _x(rng, KB * bw, ncols, dtype)
        want = _block_dense(brows, bcols, blocks, MB, KB) @ x
        crow, col = _compressed(brows, bcols, MB, idx)
        got = spmm.bsr_matmul_dense(*(to_device(a, device) for a in (crow, col, blocks, x)))
        _same(got, want)
        if (np.dtype(idx), np.dtype(dtype)) in NUMBA_CASES:
            _same(got, cpu.bsr_matmul_dense(crow, col, blocks, x))
        order = np.lexsort((brows, bcols))
        ccol, row = _compressed(bcols[order], brows[order], KB, idx)
        _same(spmm.bsc_matmul_dense(*(to_device(a, device) for a in (ccol, row, blocks[order], x)), MB * bh), want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ncols", [None, 2])
@pytest.mark.parametrize("M,K,nse", [(0, 5, 0), (5, 0, 0), (0, 0, 0), (6, 4, 0)])
def test_empty_shapes(device, M, K, nse, ncols):
    x = np.ones((K,) if ncols is None else (K, ncols))
    crow, col, vals = np.zeros(M + 1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    _same(spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x))), cpu.csr_matmul_dense(crow, col, vals, x))
    ccol = np.zeros(K + 1, np.int64)
    _same(spmm.csc_matmul_dense(*(to_device(a, device) for a in (ccol, col, vals, x)), M), cpu.csc_matmul_dense(ccol, col, vals, x, M))
    blocks = np.zeros((0, 2, 1))
    _same(spmm.bsr_matmul_dense(*(to_device(a, device) for a in (crow, col, blocks, x))), cpu.bsr_matmul_dense(crow, col, blocks, x))
    _same(spmm.bsc_matmul_dense(*(to_device(a, device) for a in (ccol, col, blocks, x)), 2 * M), cpu.bsc_matmul_dense(ccol, col, blocks, x, 2 * M))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("skewed", [False, True])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, None])
def test_report_finite(device, value, skewed, monkeypatch):
    if skewed:
        monkeypatch.setattr(spmm, "SKEW_MIN", 8)
    rng = np.random.default_rng(2)
    rows, cols = _pattern(rng, 30, 40, 0.1, skew=30 if skewed else None)
    vals = rng.random(rows.shape[0])
    x = rng.random((40, 3))
    if value is not None:
        vals[rows.shape[0] // 2] = value
    crow, col = _compressed(rows, cols, 30, np.int32)
    y, finite = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)), report_finite=True)
    want, want_finite = cpu.csr_matmul_dense(crow, col, vals, x, report_finite=True)
    _same(y, want)
    assert finite == want_finite == (value is None)
    blocks = np.repeat(vals[:, None, None], 4, axis=1).repeat(2, axis=2)
    xb = rng.random((80, 2))
    y, finite = spmm.bsr_matmul_dense(*(to_device(a, device) for a in (crow, col, blocks, xb)), report_finite=True)
    assert finite == (value is None)


@pytest.mark.parametrize("device", DEVICES)
def test_integer_wraparound(device):
    crow, col = np.array([0, 2]), np.array([0, 1])
    for dtype in ("int8", "uint8", "int16", "int32", "int64", "uint64"):
        info = np.iinfo(dtype)
        vals = np.array([info.max, info.max], dtype)
        x = np.array([3, 5], dtype)
        want = _dense_product(np.zeros(2, np.int64), col, vals, 1, 2, x)
        _same(spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x))), want)
        _same(spmm.csc_matmul_dense(*(to_device(a, device) for a in (np.array([0, 1, 2]), np.array([0, 0]), vals, x)), 1), want)


def _same_error(cuda_call, cpu_call):
    with pytest.raises(ValueError) as want:
        cpu_call()
    with pytest.raises(ValueError) as got:
        cuda_call()
    assert str(got.value) == str(want.value)


BAD_CSR = [
    (np.array([0, 2, 1, 3]), np.array([0, 1, 2])),  # decreasing
    (np.array([1, 2, 3, 3]), np.array([0, 1, 2])),  # crow[0] != 0
    (np.array([0, 1, 2, 2]), np.array([0, 1, 2])),  # crow[-1] != nse
    (np.array([0, 5, 2, 3]), np.array([0, 1, 2])),  # beyond nse
    (np.array([0, 1, 2, 3]), np.array([0, 9, 2])),  # column out of range
    (np.array([0, 1, 2, 3]), np.array([0, -1, 2])),  # negative column
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(BAD_CSR)))
@pytest.mark.parametrize("skewed", [False, True])
def test_bad_indices_raise_like_numba(device, case, skewed, monkeypatch):
    if skewed:
        monkeypatch.setattr(spmm, "SKEW_MIN", 0)
        monkeypatch.setattr(spmm, "SKEW_FACTOR", 0)
    ptr, idx = BAD_CSR[case]
    vals, x = np.ones(3), np.ones((3, 2))
    args = [to_device(a, device) for a in (ptr, idx, vals, x)]
    _same_error(lambda: spmm.csr_matmul_dense(*args), lambda: cpu.csr_matmul_dense(ptr, idx, vals, x))
    _same_error(lambda: spmm.csc_matmul_dense(*args, 3), lambda: cpu.csc_matmul_dense(ptr, idx, vals, x, 3))
    blocks = np.ones((3, 1, 1))
    bargs = [to_device(a, device) for a in (ptr, idx, blocks, x)]
    _same_error(lambda: spmm.bsr_matmul_dense(*bargs), lambda: cpu.bsr_matmul_dense(ptr, idx, blocks, x))
    _same_error(lambda: spmm.bsc_matmul_dense(*bargs, 3), lambda: cpu.bsc_matmul_dense(ptr, idx, blocks, x, 3))


@pytest.mark.parametrize("device", DEVICES)
def test_shape_errors_and_declined_dtypes(device):
    d = lambda *a: [to_device(v, device) for v in a]  # noqa: E731
    crow, col = np.array([0, 1]), np.array([0])
    with pytest.raises(ValueError, match="values has shape"):
        spmm.csr_matmul_dense(*d(crow, col, np.ones(2), np.ones(1)))
    with pytest.raises(ValueError, match="x must be 1-D"):
        spmm.csr_matmul_dense(*d(crow, col, np.ones(1), np.ones((1, 1, 1))))
    with pytest.raises(ValueError, match="at least one element"):
        spmm.csr_matmul_dense(*d(np.zeros(0, np.int64), col, np.ones(1), np.ones(1)))
    with pytest.raises(ValueError, match="not a multiple of the block width"):
        spmm.bsr_matmul_dense(*d(crow, col, np.ones((1, 2, 2)), np.ones(3)))
    with pytest.raises(ValueError, match="nrows = 3 must be a non-negative multiple"):
        spmm.bsc_matmul_dense(*d(crow, col, np.ones((1, 2, 2)), np.ones(2)), 3)
    with pytest.raises(ValueError, match="but x has shape"):
        spmm.csc_matmul_dense(*d(crow, col, np.ones(1), np.ones(3)), 1)
    with pytest.raises(KernelDeclined, match="bool"):
        spmm.csr_matmul_dense(*d(crow, col, np.ones(1, bool), np.ones(1, bool)))
    with pytest.raises(KernelDeclined, match="must have the same dtype"):
        spmm.csr_matmul_dense(*d(crow, col, np.ones(1), np.ones(1, np.float32)))


def test_longest_row_is_kept_per_pointer_array():
    crow = np.array([0, 3, 3, 4])
    assert spmm.longest_row(crow, 4) == 3
    assert spmm._LONGEST.get(crow) == 3
    key = id(crow)
    del crow
    assert key not in spmm._LONGEST._facts  # dropped with the array
    assert spmm.longest_row(np.array([0, 3, 2, 4]), 4) == -1  # bad pointers: nothing kept
