"""Tests of the sparse-product kernels sparray.kernels.cpu.spgemm (CSR @ CSR) and
sparray.kernels.cpu.sddmm (sampled dense-dense product) against NumPy references."""

import numba
import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.sddmm import sddmm
from sparray.kernels.cpu.spgemm import spgemm

VALUE_DTYPES = [np.float32, np.float64, np.complex128, np.int64]


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def rand_values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-3 if dtype.kind == "i" else 0, 4, n).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


def rand_csr(rng, nrows, ncols, nnz, dtype=np.float64, idx=np.int64, row_weights=None):
    """Random CSR with nnz entries; columns in random order within a row, repeats allowed."""
    if nrows == 0 or ncols == 0:
        nnz = 0
    if row_weights is None:
        rows = rng.integers(0, max(nrows, 1), nnz)
    else:
        rows = rng.choice(nrows, nnz, p=row_weights / row_weights.sum())
    rows = np.sort(rows)
    crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nrows))]).astype(idx)
    col = rng.integers(0, max(ncols, 1), nnz).astype(idx)
    return crow, col, rand_values(rng, nnz, dtype)


def to_dense(crow, col, values, ncols):
    nrows = len(crow) - 1
    out = np.zeros((nrows, ncols), values.dtype)
    rows = np.repeat(np.arange(nrows), np.diff(crow))
    np.add.at(out, (rows, np.asarray(col, np.int64)), values)  # repeats add
    return out


def pattern(crow, col, ncols):
    nrows = len(crow) - 1
    out = np.zeros((nrows, ncols), bool)
    out[np.repeat(np.arange(nrows), np.diff(crow)), np.asarray(col, np.int64)] = True
    return out


def esc_reference(a, b, ncols):
    """C = A @ B by expand-sort-compress in plain NumPy: (crow, col, values) with sorted unique
    columns and every structural product kept (for sizes too large to densify)."""
    a_crow, a_col, a_val = (np.asarray(x) for x in a)
    b_crow, b_col, b_val = (np.asarray(x) for x in b)
    M = len(a_crow) - 1
    a_col = a_col.astype(np.int64)
    a_row = np.repeat(np.arange(M), np.diff(a_crow))
    b_len = np.diff(b_crow.astype(np.int64))
    cnt = b_len[a_col]
    rep = np.repeat(np.arange(len(a_col)), cnt)
    # position of each product inside its B row
    first = np.repeat(np.cumsum(cnt) - cnt, cnt)
    q = b_crow[a_col[rep]].astype(np.int64) + (np.arange(rep.size) - first)
    keys = a_row[rep] * np.int64(ncols) + b_col[q].astype(np.int64)
    prod = a_val[rep] * b_val[q]
    order = np.argsort(keys, kind="stable")
    keys, prod = keys[order], prod[order]
    start = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if keys.size else np.zeros(0, np.int64)
    vals = np.add.reduceat(prod, start) if keys.size else prod
    ukeys = keys[start]
    rows, cols = np.divmod(ukeys, np.int64(max(ncols, 1)))
    crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=M))])
    return crow, cols, vals.astype(a_val.dtype)


def check_invariants(crow, col, values, nrows, ncols, dtype):
    assert crow.dtype == (np.int32 if len(col) < 2**31 else np.int64)
    assert col.dtype == (np.int32 if ncols < 2**31 else np.int64)
    assert values.dtype == np.dtype(dtype)
    assert crow.shape == (nrows + 1,)
    assert crow[0] == 0 and crow[-1] == len(col) == len(values)
    assert np.all(np.diff(crow) >= 0)
    if len(col):
        assert col.min() >= 0 and col.max() < ncols
        d = np.diff(col)
        row_start = np.zeros(len(col), bool)
        row_start[crow[:-1][np.diff(crow) > 0]] = True
        assert np.all((d > 0) | row_start[1:]), "columns must be strictly increasing within rows"


def tolerance(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return {"rtol": 0, "atol": 0}
    if dtype in (np.float32, np.complex64):
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-12, "atol": 1e-12}


def check_against_dense(a, b, ncols, result, dtype):
    a_crow, a_col, a_val = a
    b_crow, b_col, b_val = b
    M, K = len(a_crow) - 1, len(b_crow) - 1
    crow, col, values = result
    check_invariants(crow, col, values, M, ncols, dtype)
    A = to_dense(a_crow, a_col, a_val, K)
    B = to_dense(b_crow, b_col, b_val, ncols)
    C = to_dense(crow, col, values, ncols)
    np.testing.assert_allclose(C, A @ B, **tolerance(dtype))
    structural = (pattern(a_crow, a_col, K).astype(np.int64) @ pattern(b_crow, b_col, ncols).astype(np.int64)) > 0
    np.testing.assert_array_equal(pattern(crow, col, ncols), structural)


def check_against_esc(a, b, ncols, result, dtype):
    crow, col, values = result
    check_invariants(crow, col, values, len(a[0]) - 1, ncols, dtype)
    r_crow, r_col, r_val = esc_reference(a, b, ncols)
    np.testing.assert_array_equal(crow, r_crow)
    np.testing.assert_array_equal(col, r_col)
    np.testing.assert_allclose(values, r_val, **tolerance(dtype))


# ---------------------------------------------------------------------------------------
# spgemm: correctness
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_spgemm_dtypes_unsorted_duplicates(dtype):
    rng = np.random.default_rng(1)
    a = rand_csr(rng, 40, 30, 200, dtype)  # ~7 entries a row in 30 columns: repeats, any order
    b = rand_csr(rng, 30, 50, 180, dtype)
    assert np.any(np.diff(a[1][a[0][0]:a[0][1]]) < 0)  # really unsorted
    result = spgemm(*a, *b, 50)
    check_against_dense(a, b, 50, result, dtype)


@pytest.mark.parametrize(
    "idx",
    [
        (np.int32, np.int32, np.int32, np.int32),
        (np.int64, np.int64, np.int64, np.int64),
        (np.int32, np.int32, np.int64, np.int64),
        (np.int64, np.int32, np.int32, np.int64),
        (np.uint16, np.int8, np.int32, np.uint32),  # other integer dtypes become int64
    ],
)
def test_spgemm_index_dtypes(idx):
    rng = np.random.default_rng(2)
    a = rand_csr(rng, 60, 40, 300)
    b = rand_csr(rng, 40, 70, 250)
    ai = (a[0].astype(idx[0]), a[1].astype(idx[1]), a[2])
    bi = (b[0].astype(idx[2]), b[1].astype(idx[3]), b[2])
    result = spgemm(*ai, *bi, 70)
    check_against_dense(a, b, 70, result, np.float64)
    ref = spgemm(*a, *b, 70)
    for x, y in zip(result, ref):
        np.testing.assert_array_equal(x, y)


def test_spgemm_unsigned_wraps_like_numpy():
    rng = np.random.default_rng(3)
    a = rand_csr(rng, 20, 20, 150, np.float64)
    b = rand_csr(rng, 20, 20, 150, np.float64)
    a = (a[0], a[1], rng.integers(0, 256, len(a[1])).astype(np.uint8))
    b = (b[0], b[1], rng.integers(0, 256, len(b[1])).astype(np.uint8))
    crow, col, values = spgemm(*a, *b, 20)
    assert values.dtype == np.uint8
    A, B = to_dense(*a, 20), to_dense(*b, 20)
    np.testing.assert_array_equal(to_dense(crow, col, values, 20), A @ B)


def test_spgemm_empty_rows_and_empty_b_rows():
    a_crow = np.array([0, 0, 3, 3, 5, 5])
    a_col = np.array([2, 0, 2, 1, 3])  # row 1 has column 2 twice
    a_val = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    b_crow = np.array([0, 2, 2, 3, 3])  # B rows 1 and 3 are empty
    b_col = np.array([4, 1, 0])
    b_val = np.array([1.0, -1.0, 2.0])
    a, b = (a_crow, a_col, a_val), (b_crow, b_col, b_val)
    crow, col, values = spgemm(*a, *b, 5)
    check_against_dense(a, b, 5, (crow, col, values), np.float64)
    assert crow.tolist() == [0, 0, 3, 3, 3, 3]
    assert col.tolist() == [0, 1, 4]
    assert values.tolist() == [8.0, -2.0, 2.0]


@pytest.mark.parametrize(
    "M, K, N, nnz_a, nnz_b",
    [(0, 5, 4, 0, 6), (3, 0, 4, 0, 0), (3, 5, 0, 7, 0), (3, 5, 4, 0, 0), (3, 5, 4, 7, 0), (0, 0, 0, 0, 0)],
)
def test_spgemm_empty_cases(M, K, N, nnz_a, nnz_b):
    rng = np.random.default_rng(4)
    a = rand_csr(rng, M, K, nnz_a)
    b = rand_csr(rng, K, N, nnz_b)
    crow, col, values = spgemm(*a, *b, N)
    assert crow.tolist() == [0] * (M + 1)
    assert col.shape == (0,) and values.shape == (0,) and values.dtype == np.float64
    check_against_dense(a, b, N, (crow, col, values), np.float64)


def test_spgemm_cancellation_kept_as_explicit_zero():
    # A = [[1, 1]], B = [[2, 3], [-2, 5]]: C[0, 0] = 2 - 2 = 0 is stored
    crow, col, values = spgemm([0, 2], [0, 1], [1.0, 1.0], [0, 2, 4], [1, 0, 0, 1], [3.0, 2.0, -2.0, 5.0], 2)
    assert crow.tolist() == [0, 2]
    assert col.tolist() == [0, 1]
    assert values.tolist() == [0.0, 8.0]
    # integer zero too, and a duplicate that cancels
    crow, col, values = spgemm([0, 2], [0, 0], np.array([4, -4]), [0, 1], [0], np.array([7]), 1)
    assert col.tolist() == [0] and values.tolist() == [0]


def test_spgemm_row_lengths_take_every_sort_path():
    """One row of C each: short (insertion sort), medium (rank sort), long with a sparse span
    (introsort: 65 entries over 5e6 columns, 1221 summary words > 16 per entry) and long with
    denser spans (the two-level bitmap, also across word and summary-word boundaries and up to
    the last column), and a row that mixes them all."""
    rng = np.random.default_rng(5)
    N = 5_000_001
    rows_b = []
    sizes = [(5, N), (10, N), (17, N), (40, N), (64, N), (65, N), (100, N), (700, N), (3000, N), (2000, 2500),
             (3000, 3000), (300, 5000)]
    for n, span in sizes:
        rows_b.append(rng.choice(span, n, replace=False) + rng.integers(0, N - span + 1))
    edges = np.arange(0, 64 * 70, 64)
    summary_edges = np.arange(0, 4096 * 40, 4096)  # 82 entries: a long row
    rows_b.append(rng.permutation(np.concatenate([edges, edges + 63, [N - 1, N - 64, N - 65]])))
    rows_b.append(rng.permutation(np.concatenate([summary_edges, summary_edges + 4095, [N - 1, N - 4096]])))
    K = len(rows_b)
    b_crow = np.concatenate([[0], np.cumsum([len(r) for r in rows_b])])
    b_col = np.concatenate(rows_b)
    b_val = rand_values(rng, len(b_col), np.float64)
    # row i of A picks B row i (twice: the second hit adds), plus a row that mixes them all
    a_col = np.concatenate([np.repeat(np.arange(K), 2), rng.permutation(K)])
    a_crow = np.concatenate([np.arange(0, 2 * K + 1, 2), [3 * K]])
    a_val = rand_values(rng, len(a_col), np.float64)
    a, b = (a_crow, a_col, a_val), (b_crow, b_col, b_val)
    result = spgemm(*a, *b, N)
    check_against_esc(a, b, N, result, np.float64)
    # the scratch is clean between rows: the same rows in another order give the same rows
    perm = rng.permutation(K)
    a2 = (a_crow[: K + 1], np.repeat(perm, 2), a_val[: 2 * K])
    result2 = spgemm(*a2, *b, N)
    check_against_esc(a2, b, N, result2, np.float64)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_spgemm_multithreaded(dtype):
    rng = np.random.default_rng(6)
    a = rand_csr(rng, 50_000, 50_000, 300_000, dtype, np.int32)
    b = rand_csr(rng, 50_000, 50_000, 300_000, dtype, np.int32)
    result = spgemm(*a, *b, 50_000)
    check_against_esc(a, b, 50_000, result, dtype)
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        single = spgemm(*a, *b, 50_000)
    finally:
        numba.set_num_threads(old)
    for x, y in zip(result, single):
        np.testing.assert_array_equal(x, y)  # the same sums in the same order


def test_spgemm_skewed_power_law_with_dense_row():
    rng = np.random.default_rng(7)
    M = K = N = 20_000
    weights = 1.0 / np.arange(1, M + 1) ** 1.2
    a = rand_csr(rng, M, K, 150_000, np.float64, row_weights=rng.permutation(weights))
    b = rand_csr(rng, K, N, 150_000, np.float64, row_weights=weights)
    # make row 123 of A dense: C's row 123 then reaches nearly every column
    crow, col, val = a
    lens = np.diff(crow)
    lens[123] = K
    new_crow = np.concatenate([[0], np.cumsum(lens)])
    new_col = np.concatenate([col[: crow[123]], rng.permutation(K), col[crow[124]:]])
    new_val = np.concatenate([val[: crow[123]], rand_values(rng, K, np.float64), val[crow[124]:]])
    a = (new_crow, new_col, new_val)
    result = spgemm(*a, *b, N)
    check_against_esc(a, b, N, result, np.float64)
    assert np.diff(result[0])[123] > N // 2


def test_spgemm_pointer_offsets_and_unused_tail():
    """Pointers need not start at 0 nor end at len(col): entries outside are ignored."""
    rng = np.random.default_rng(8)
    a = rand_csr(rng, 10, 8, 30)
    b = rand_csr(rng, 8, 9, 25)
    a_shift = (a[0] + 3, np.concatenate([[99, -1, 7], a[1], [55]]), np.concatenate([[1.0, 2, 3], a[2], [4]]))
    result = spgemm(*a_shift, *b, 9)
    check_against_dense(a, b, 9, result, np.float64)


# ---------------------------------------------------------------------------------------
# spgemm: errors
# ---------------------------------------------------------------------------------------


def _small():
    a = (np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]))
    b = (np.array([0, 1, 2]), np.array([0, 2]), np.array([4.0, 5.0]))
    return a, b


def test_spgemm_bad_b_col():
    rng = np.random.default_rng(9)
    b_crow, b_col, b_val = rand_csr(rng, 4, 30, 20)
    b_col[12] = 40
    b_col[15] = -1
    a = (np.array([0, 2]), np.array([0, 3]), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match=r"spgemm: b_col\[12\] = 40 is out of range for 30 columns"):
        spgemm(*a, b_crow, b_col, b_val, 30)


def test_spgemm_bad_a_col():
    a, b = _small()
    with pytest.raises(ValueError, match=r"a_col\[1\] = 2 is out of range for 2 rows of B"):
        spgemm(a[0], np.array([0, 2, 1]), a[2], *b, 3)
    with pytest.raises(ValueError, match=r"a_col\[2\] = -5 is out of range"):
        spgemm(a[0], np.array([0, 1, -5]), a[2], *b, 3)


def test_spgemm_bad_pointers():
    a, b = _small()
    with pytest.raises(ValueError, match=r"a_crow must be non-decreasing: a_crow\[2\] = 1 < a_crow\[1\] = 2"):
        spgemm(np.array([0, 2, 1, 3]), a[1], a[2], *b, 3)
    with pytest.raises(ValueError, match=r"b_crow must be non-decreasing: b_crow\[2\] = 1 < b_crow\[1\] = 2"):
        spgemm(*a, np.array([0, 2, 1]), b[1], b[2], 3)
    with pytest.raises(ValueError, match=r"b_crow must be non-decreasing: b_crow\[2\] = 1 < b_crow\[1\] = 2"):
        spgemm(*a, np.array([0, 2, 1, 2]), b[1], b[2], 3)
    with pytest.raises(ValueError, match=r"a_crow\[-1\] = 4 exceeds len\(a_col\) = 3"):
        spgemm(np.array([0, 2, 4]), a[1], a[2], *b, 3)
    with pytest.raises(ValueError, match=r"a_crow\[0\] = -1 is negative"):
        spgemm(np.array([-1, 2, 3]), a[1], a[2], *b, 3)
    with pytest.raises(ValueError, match=r"a_crow must have at least one element"):
        spgemm(np.array([], np.int64), a[1], a[2], *b, 3)
    # a decrease hidden in the middle of a big array (multithreaded path)
    crow = np.arange(100_001, dtype=np.int64)
    crow[70_000] = 5
    col = np.zeros(100_000, np.int64)
    with pytest.raises(ValueError, match=r"a_crow\[70000\] = 5 < a_crow\[69999\] = 69999"):
        spgemm(crow, col, np.ones(100_000), [0, 1], [0], [1.0], 1)


def test_spgemm_bad_shapes():
    a, b = _small()
    with pytest.raises(ValueError, match="a_values must be 1-D with the length of its column indices"):
        spgemm(a[0], a[1], a[2][:2], *b, 3)
    with pytest.raises(ValueError, match="b_col must be 1-D"):
        spgemm(*a, b[0], b[1].reshape(1, 2), b[2], 3)
    with pytest.raises(ValueError, match="ncols must be >= 0"):
        spgemm(*a, *b, -1)
    with pytest.raises(ValueError, match="must hold integers"):
        spgemm(a[0].astype(float), a[1], a[2], *b, 3)


def test_spgemm_declines_dtypes():
    a, b = _small()
    with pytest.raises(KernelDeclined, match="same dtype"):
        spgemm(*a, b[0], b[1], b[2].astype(np.float32), 3)
    with pytest.raises(KernelDeclined, match=r"bool.*expected one of"):
        spgemm(a[0], a[1], a[2] > 0, b[0], b[1], b[2] > 0, 3)
    with pytest.raises(KernelDeclined, match="float16"):
        spgemm(a[0], a[1], a[2].astype(np.float16), b[0], b[1], b[2].astype(np.float16), 3)


# ---------------------------------------------------------------------------------------
# sddmm
# ---------------------------------------------------------------------------------------


def sddmm_reference(crow, col, a, bt):
    rows = np.repeat(np.arange(len(crow) - 1), np.diff(crow))
    return np.einsum("ek,ek->e", a[rows], bt[np.asarray(col, np.int64)])


def rand_dense(rng, shape, dtype):
    return rand_values(rng, int(np.prod(shape)), dtype).reshape(shape)


@pytest.mark.parametrize("dtype", VALUE_DTYPES + [np.int8])
@pytest.mark.parametrize("K", [0, 1, 7, 64])
def test_sddmm_dtypes(dtype, K):
    rng = np.random.default_rng(10)
    R, C = 30, 25
    crow, col, _ = rand_csr(rng, R, C, 200)  # unsorted, repeated columns: each entry computed
    a = rand_dense(rng, (R, K), dtype)
    bt = rand_dense(rng, (C, K), dtype)
    out = sddmm(crow, col, a, bt)
    assert out.dtype == np.dtype(dtype) and out.shape == (200,)
    if np.dtype(dtype).kind in "iu":
        ref = sddmm_reference(crow, col, a, bt)
    else:  # a reference in double precision
        wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
        ref = sddmm_reference(crow, col, a.astype(wide), bt.astype(wide))
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(out, ref)  # int8 wraps around like NumPy
    else:
        scale = sddmm_reference(crow, col, np.abs(a), np.abs(bt)).real + 1
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_array_less(np.abs(out - ref), tol * scale)


def test_sddmm_index_dtypes_and_layouts():
    rng = np.random.default_rng(11)
    R, C, K = 40, 35, 9
    crow, col, _ = rand_csr(rng, R, C, 300)
    a = rand_dense(rng, (R, K), np.float64)
    bt = rand_dense(rng, (C, K), np.float64)
    ref = sddmm(crow, col, a, bt)
    np.testing.assert_allclose(ref, sddmm_reference(crow, col, a, bt), rtol=1e-12)
    for c32, k32 in [(np.int32, np.int32), (np.int32, np.int64), (np.uint16, np.int16)]:
        np.testing.assert_array_equal(sddmm(crow.astype(c32), col.astype(k32), a, bt), ref)
    # non-contiguous operands are made contiguous
    np.testing.assert_allclose(sddmm(crow, col, np.asfortranarray(a), np.ascontiguousarray(bt.T).T), ref, rtol=1e-12)
    np.testing.assert_allclose(sddmm(crow, col, np.repeat(a, 2, axis=1)[:, ::2], bt), ref, rtol=1e-12)


def test_sddmm_uint_wraps():
    rng = np.random.default_rng(12)
    crow, col, _ = rand_csr(rng, 10, 12, 60)
    a = rng.integers(0, 2**16, (10, 5)).astype(np.uint16)
    bt = rng.integers(0, 2**16, (12, 5)).astype(np.uint16)
    out = sddmm(crow, col, a, bt)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, sddmm_reference(crow, col, a, bt))


def test_sddmm_empty():
    a = np.ones((3, 4))
    bt = np.ones((5, 4))
    assert sddmm([0, 0, 0, 0], np.zeros(0, np.int64), a, bt).shape == (0,)
    out = sddmm([0], np.zeros(0, np.int32), np.ones((0, 4), np.float32), bt.astype(np.float32))
    assert out.shape == (0,) and out.dtype == np.float32
    out = sddmm([0, 1, 1, 2], [4, 0], np.ones((3, 0)), np.ones((5, 0)))
    assert out.tolist() == [0.0, 0.0]


def test_sddmm_multithreaded():
    rng = np.random.default_rng(13)
    R, C, K = 20_000, 15_000, 16
    crow, col, _ = rand_csr(rng, R, C, 400_000, idx=np.int32)
    a = rand_dense(rng, (R, K), np.float64)
    bt = rand_dense(rng, (C, K), np.float64)
    out = sddmm(crow, col, a, bt)
    np.testing.assert_allclose(out, sddmm_reference(crow, col, a, bt), rtol=1e-10, atol=1e-12)


def test_sddmm_errors():
    crow = np.array([0, 2, 3])
    col = np.array([0, 2, 1])
    a = np.ones((2, 3))
    bt = np.ones((3, 3))
    with pytest.raises(ValueError, match=r"sddmm: col\[1\] = 5 is out of range for 3 columns"):
        sddmm(crow, np.array([0, 5, 1]), a, bt)
    with pytest.raises(ValueError, match=r"col\[2\] = -1 is out of range"):
        sddmm(crow, np.array([0, 1, -1]), a, bt)
    with pytest.raises(ValueError, match=r"crow must be non-decreasing: crow\[2\] = 3 < crow\[1\] = 4"):
        sddmm(np.array([0, 4, 3, 4]), np.array([0, 1, 2, 0]), np.ones((3, 3)), bt)
    with pytest.raises(ValueError, match=r"crow\[-1\] = 2 but len\(col\) = 3"):
        sddmm(np.array([0, 1, 2]), col, a, bt)
    with pytest.raises(ValueError, match=r"crow\[0\] must be 0"):
        sddmm(np.array([1, 2, 3]), col, a, bt)
    with pytest.raises(ValueError, match="a has 3 rows but crow describes 2 rows"):
        sddmm(crow, col, np.ones((3, 3)), bt)
    with pytest.raises(ValueError, match="same number of columns K"):
        sddmm(crow, col, a, np.ones((3, 4)))
    with pytest.raises(ValueError, match="bt must be 2-D"):
        sddmm(crow, col, a, np.ones(3))
    with pytest.raises(KernelDeclined, match="same dtype"):
        sddmm(crow, col, a, bt.astype(np.float32))
    with pytest.raises(KernelDeclined, match=r"bool.*expected one of"):
        sddmm(crow, col, a > 0, bt > 0)
    # a decrease in the middle of a big pattern (multithreaded path)
    big = np.arange(100_001, dtype=np.int64)
    big[50_000] = 7
    with pytest.raises(ValueError, match=r"crow\[50000\] = 7 < crow\[49999\] = 49999"):
        sddmm(big, np.zeros(100_000, np.int64), np.ones((100_000, 2)), np.ones((1, 2)))
