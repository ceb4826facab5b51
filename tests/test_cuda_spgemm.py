"""Sparse @ sparse and the sampled dense-dense product on the CUDA backend (kernels/cuda/spgemm.cu,
sddmm.cu), emulated in CI and on CuPy where a GPU is: against the numba kernels and dense NumPy for
every numeric dtype and int32/int64 indices, with hash and dense row accumulators, in-kernel and
afterwards sorting, several table batches, empty and skewed rows, and bad input (numba's messages)."""

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, random_values, requires_gxx, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import sddmm as cpu_sddmm
from sparray.kernels.cpu import spgemm as cpu_spgemm
from sparray.kernels.cuda import sddmm as cuda_sddmm
from sparray.kernels.cuda import spgemm as cuda_spgemm

pytestmark = requires_gxx

NUMERIC = tuple(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                      "float32", "float64", "complex64", "complex128"))  # fmt: skip
# value dtypes the numba kernels are compared on (those tests/test_kernels_spgemm.py compiles anyway)
NUMBA_DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "complex128", "int64"))


def _csr(rng, M, N, density, dtype, idx, hub=None):
    """A random CSR (unique, sorted columns; some empty rows; ``hub``: one row with that many entries)."""
    mask = rng.random((M, N)) < density
    if M > 3:
        mask[rng.choice(M, M // 4, replace=False)] = False
    if hub:
        mask[M // 3, :hub] = True
    rows, cols = np.nonzero(mask)
    crow = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=M))]).astype(idx)
    return crow, cols.astype(idx), random_values(rng, rows.shape[0], dtype, negative=True)


def _dense(crow, col, val, M, N):
    D = np.zeros((M, N), val.dtype)
    for r in range(M):
        D[r, col[crow[r] : crow[r + 1]]] += val[crow[r] : crow[r + 1]]
    return D


def _pattern(crow, col, M, N):
    P = np.zeros((M, N), np.int64)
    for r in range(M):
        P[r, col[crow[r] : crow[r + 1]]] = 1
    return P


def _close(got, want):
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12, atol=1e-6)


def _check_spgemm(device, A, B, M, K, N):
    got = cuda_spgemm.spgemm(*(to_device(a, device) for a in (*A, *B)), N)
    crow, col, val = (to_host(a) for a in got)
    assert crow.dtype == np.int32 and col.dtype == np.int32 and val.dtype == A[2].dtype
    assert crow.shape == (M + 1,) and crow[0] == 0 and crow[-1] == col.shape[0] == val.shape[0]
    for r in range(M):  # strictly increasing columns in every row
        assert (np.diff(col[crow[r] : crow[r + 1]]) > 0).all()
    reached = (_pattern(*A[:2], M, K) @ _pattern(*B[:2], K, N)) > 0
    np.testing.assert_array_equal(_pattern(crow, col, M, N) > 0, reached)  # structural, zeros included
    _close(_dense(crow, col, val, M, N), _dense(*A, M, K) @ _dense(*B, K, N))
    if A[2].dtype in NUMBA_DTYPES:
        want = cpu_spgemm.spgemm(*A, *B, N)
        np.testing.assert_array_equal(crow, want[0])
        np.testing.assert_array_equal(col, want[1])
        _close(val, want[2])
    return crow, col, val


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_spgemm_matches_dense(device, dtype):
    rng = np.random.default_rng(int(dtype.num) + 100)
    for c, (M, K, N, da, db) in enumerate([(23, 17, 29, 0.15, 0.2), (12, 30, 400, 0.3, 0.05), (8, 6, 5, 0.6, 0.7)]):
        idx = INDEX_DTYPES[c % 2]
        _check_spgemm(device, _csr(rng, M, K, da, dtype, idx), _csr(rng, K, N, db, dtype, idx), M, K, N)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_spgemm_accumulators_sorting_and_batches(device, dtype, monkeypatch):
    """Rows whose tables are dense (many products over few columns) next to hashed ones (few over
    many), a hub row of A that reaches hundreds of columns; in-kernel rank sorting, the sort
    afterwards for long hashed rows (RANK_MAX = 4), and tables cut into several batches."""
    rng = np.random.default_rng(9)
    M, K, N = 40, 50, 600
    A = _csr(rng, M, K, 0.08, dtype, np.int64, hub=40)
    B = _csr(rng, K, N, 0.02, dtype, np.int64)
    B_dense_cols = _csr(rng, K, 12, 0.5, dtype, np.int64)
    want = _check_spgemm(device, A, B, M, K, N)
    _check_spgemm(device, A, B_dense_cols, M, K, 12)
    monkeypatch.setattr(cuda_spgemm, "RANK_MAX", 4)
    assert all(np.array_equal(g, w) for g, w in zip(_check_spgemm(device, A, B, M, K, N), want))
    monkeypatch.setattr(cuda_spgemm, "TABLE_BUDGET", 64)
    assert all(np.array_equal(g, w) for g, w in zip(_check_spgemm(device, A, B, M, K, N), want))


@pytest.mark.parametrize("device", DEVICES)
def test_spgemm_empty_and_cancelling(device):
    e = np.zeros(0, np.int64)
    for M, K, N in [(0, 3, 4), (3, 0, 4), (3, 4, 0), (2, 2, 2)]:
        A = (np.zeros(M + 1, np.int64), e, np.zeros(0))
        B = (np.zeros(K + 1, np.int64), e, np.zeros(0))
        crow, col, val = (to_host(a) for a in cuda_spgemm.spgemm(*(to_device(a, device) for a in (*A, *B)), N))
        assert crow.tolist() == [0] * (M + 1) and crow.dtype == np.int32 and col.shape == val.shape == (0,)
    # an exact zero from cancellation is stored (structural result, as numba and scipy)
    A = (np.array([0, 2]), np.array([0, 1]), np.array([1.0, -1.0]))
    B = (np.array([0, 1, 2]), np.array([0, 0]), np.array([2.0, 2.0]))
    crow, col, val = (to_host(a) for a in cuda_spgemm.spgemm(*(to_device(a, device) for a in (*A, *B)), 1))
    assert crow.tolist() == [0, 1] and col.tolist() == [0] and val.tolist() == [0.0]
    # pointers need not start at 0: entries outside crow[0]:crow[-1] are ignored
    A = (np.array([1, 2, 3]), np.array([9, 0, 1, 9]), np.array([5.0, 1.0, 2.0, 5.0]))
    B = (np.array([0, 1, 2]), np.array([1, 0]), np.array([3.0, 4.0]))
    got = cuda_spgemm.spgemm(*(to_device(a, device) for a in (*A, *B)), 2)
    want = cpu_spgemm.spgemm(*A, *B, 2)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(to_host(g), w)


SPGEMM_BAD = [
    dict(a_crow=[0, 2, 1]),  # A's pointers decrease
    dict(b_crow=[0, 2, 1, 3]),  # B's pointers decrease
    dict(a_col=[0, 3]),  # A's column beyond K
    dict(b_col=[0, 5, 1]),  # B's column beyond ncols
    dict(a_crow=[-1, 1, 2]),  # negative first pointer
    dict(a_crow=[0, 1, 5]),  # last pointer beyond len(a_col)
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(SPGEMM_BAD)))
def test_spgemm_bad_input_raises_like_numba(device, case):
    args = dict(a_crow=[0, 1, 2], a_col=[0, 2], a_values=[1.0, 2.0], b_crow=[0, 1, 2, 3], b_col=[0, 1, 1],
                b_values=[1.0, 2.0, 3.0])  # fmt: skip
    args.update(SPGEMM_BAD[case])
    arrays = {k: np.asarray(v, np.float64 if "values" in k else np.int64) for k, v in args.items()}
    with pytest.raises(ValueError) as want:
        cpu_spgemm.spgemm(**arrays, ncols=2)
    with pytest.raises(ValueError) as got:
        cuda_spgemm.spgemm(**{k: to_device(v, device) for k, v in arrays.items()}, ncols=2)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("device", DEVICES)
def test_spgemm_declines_and_shape_errors(device):
    d = lambda *a: [to_device(np.asarray(v), device) for v in a]  # noqa: E731
    p, c = np.array([0, 1]), np.array([0])
    with pytest.raises(KernelDeclined, match="same dtype"):
        cuda_spgemm.spgemm(*d(p, c, np.ones(1), p, c, np.ones(1, np.float32)), 1)
    with pytest.raises(KernelDeclined, match="bool"):
        cuda_spgemm.spgemm(*d(p, c, np.ones(1, bool), p, c, np.ones(1, bool)), 1)
    with pytest.raises(ValueError, match="must be 1-D with the length"):
        cuda_spgemm.spgemm(*d(p, c, np.ones(2), p, c, np.ones(1)), 1)
    with pytest.raises(ValueError, match="ncols must be >= 0"):
        cuda_spgemm.spgemm(*d(p, c, np.ones(1), p, c, np.ones(1)), -1)


# ---- SDDMM -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_sddmm_matches_dense(device, dtype):
    rng = np.random.default_rng(int(dtype.num) + 7)
    for c, K in enumerate([0, 1, 5, 40]):
        R, C = 19, 13
        crow, col, _ = _csr(rng, R, C, 0.3, dtype, INDEX_DTYPES[c % 2])
        col = col.copy()
        if col.shape[0] > 3:
            col[1], col[2] = col[2], col[1]  # columns need not be sorted
        a, bt = random_values(rng, R * K, dtype, negative=True).reshape(R, K), random_values(rng, C * K, dtype, negative=True).reshape(C, K)
        got = to_host(cuda_sddmm.sddmm(*(to_device(v, device) for v in (crow, col, a, bt))))
        assert got.dtype == dtype and got.shape == col.shape
        rows = np.repeat(np.arange(R), np.diff(crow))
        _close(got, (a @ bt.T)[rows, col] if K else np.zeros(col.shape[0], dtype))
        if dtype in NUMBA_DTYPES:
            _close(got, cpu_sddmm.sddmm(crow, col, a, bt))


SDDMM_BAD = [([1, 1, 2], [0, 1]), ([0, 1, 1], [0, 1]), ([0, 2, 1, 2], [0, 1]), ([0, 1, 2], [0, 9]), ([0, 1, 2], [-1, 0])]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(SDDMM_BAD)))
def test_sddmm_bad_input_raises_like_numba(device, case):
    crow, col = (np.asarray(v, np.int64) for v in SDDMM_BAD[case])
    R = crow.shape[0] - 1
    a, bt = np.ones((R, 3)), np.ones((4, 3))
    with pytest.raises(ValueError) as want:
        cpu_sddmm.sddmm(crow, col, a, bt)
    with pytest.raises(ValueError) as got:
        cuda_sddmm.sddmm(*(to_device(v, device) for v in (crow, col, a, bt)))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("device", DEVICES)
def test_sddmm_shape_errors_and_declines(device):
    d = lambda *a: [to_device(np.asarray(v), device) for v in a]  # noqa: E731
    crow, col = np.array([0, 1]), np.array([0])
    with pytest.raises(ValueError, match="a has 2 rows but crow describes 1"):
        cuda_sddmm.sddmm(*d(crow, col, np.ones((2, 3)), np.ones((1, 3))))
    with pytest.raises(ValueError, match="same number of columns"):
        cuda_sddmm.sddmm(*d(crow, col, np.ones((1, 3)), np.ones((1, 2))))
    with pytest.raises(ValueError, match="must be 2-D"):
        cuda_sddmm.sddmm(*d(crow, col, np.ones(3), np.ones((1, 3))))
    with pytest.raises(KernelDeclined, match="same dtype"):
        cuda_sddmm.sddmm(*d(crow, col, np.ones((1, 3)), np.ones((1, 3), np.float32)))
    with pytest.raises(KernelDeclined, match="bool"):
        cuda_sddmm.sddmm(*d(crow, col, np.ones((1, 3), bool), np.ones((1, 3), bool)))
