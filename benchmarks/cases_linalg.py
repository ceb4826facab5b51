"""Benchmark rows for the products: SpMV, SpMM (32 columns), BSR 4x4 SpMV/SpMM and SpGEMM.

Imported by ``bench.py`` (``build_cases``). Every library gets the same matrix and the same dense
operand: CSR with int32 indices for sparray, scipy and torch (torch's default is int64; int32 is
its fast SpMV path), pydata's GCXS (its CSR), and BSR 4x4 blocks where the library has them.

SpMV rows also report a memory-bandwidth figure: the bytes a perfect kernel must move (values and
column indices once, row pointers once, x once, y written once) over the time, as a fraction of
the machine's STREAM triad bandwidth measured right before the row (``triad_bandwidth``). A
timed SpMV run repeats the call back to back up to about 20 ms (the time is per call), as the
triad's own timed runs last about 15 ms.
"""

from __future__ import annotations

import time

import numpy as np

SPMM_COLUMNS = 32
# SpMV calls per timed run, at most (about 20 ms per run): a 5 ms call timed alone moved by 1.5x
# between runs on a shared virtual machine, which the bandwidth fraction reads as the kernel's
SPMV_CALLS = 16


class _Bench:
    """``lib`` and ``NotAvailable`` of the running bench.py, handed over by ``linalg_cases``."""

    lib = None
    NotAvailable = Exception


def _bench():
    return _Bench


# --------------------------------------------------------------------------
# Setups (untimed)

def _dense_operand(shape, seed=7):
    return np.random.default_rng(seed).standard_normal(shape)


def _csr(libname, m):
    """Each library's CSR of matrix ``m`` (int32 indices for sparray, scipy and torch)."""
    b = _bench()
    row, col, val, shape = m
    sp = b.lib("scipy")
    S = sp.csr_array((val, (row, col)), shape=shape)
    S.sum_duplicates()
    S.sort_indices()
    # csr_array keeps the int64 of the coordinates; every library gets int32 indices
    S = sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=shape)
    if libname == "scipy":
        return S
    if libname == "sparray":
        return b.lib("sparray").CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data, shape)
    if libname == "sparse":
        return b.lib("sparse").GCXS.from_scipy_sparse(S)
    if libname == "torch":
        torch = b.lib("torch")
        return torch.sparse_csr_tensor(torch.from_numpy(S.indptr.astype(np.int32)),
                                       torch.from_numpy(S.indices.astype(np.int32)),
                                       torch.from_numpy(S.data), shape)
    raise b.NotAvailable(libname)


def _bsr(libname, m):
    b = _bench()
    if libname == "sparse":
        raise b.NotAvailable("pydata sparse has no block layout")
    row, col, val, shape = m
    sp = b.lib("scipy")
    S = sp.csr_array((val, (row, col)), shape=shape).tobsr(blocksize=(4, 4))
    S.sort_indices()
    S = sp.bsr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=shape)  # int32 for all
    if libname == "scipy":
        return S
    if libname == "sparray":
        i32 = np.int32
        return b.lib("sparray").BSR(S.indptr.astype(i32), S.indices.astype(i32), S.data, shape)
    if libname == "torch":
        torch = b.lib("torch")
        return torch.sparse_bsr_tensor(torch.from_numpy(S.indptr.astype(np.int32)),
                                       torch.from_numpy(S.indices.astype(np.int32)),
                                       torch.from_numpy(S.data), shape)
    raise b.NotAvailable(libname)


def _with_dense(make, ncols):
    def setup(libname, mats):
        (m,) = mats
        A = make(libname, m)
        k = m[3][1]
        x = _dense_operand((k,) if ncols is None else (k, ncols))
        if libname == "torch":
            x = _bench().lib("torch").from_numpy(x)
        return (A, x)

    return setup


def _spgemm_input(libname, mats):
    (m,) = mats
    return (_csr(libname, m),)


def matvec(A, x):
    return A @ x


def square(A):
    return A @ A


# --------------------------------------------------------------------------
# Bytes a perfect kernel moves (for the bandwidth column)

def spmv_bytes(m, value_bytes=8, index_bytes=4):
    row, _, _, shape = m
    nse = len(row)
    return nse * (value_bytes + index_bytes) + (shape[0] + 1) * index_bytes + 8 * shape[1] + 8 * shape[0]


def bsr_spmv_bytes(m, block=(4, 4)):
    row, col, _, shape = m
    nblocks = len(np.unique((row // block[0]) * (shape[1] // block[1]) + col // block[1]))
    return nblocks * (8 * block[0] * block[1] + 4) + (shape[0] // block[0] + 1) * 4 + 8 * shape[1] + 8 * shape[0]


def triad_bandwidth(threads: int, n: int = 20_000_000, repeat: int = 7) -> float:
    """STREAM triad ``a = b + s * c`` with numba on ``threads`` threads: bytes/s (24 bytes per element)."""
    import numba

    @numba.njit(parallel=True, cache=False)
    def triad(a, b, c, s):
        for i in numba.prange(a.shape[0]):
            a[i] = b[i] + s * c[i]

    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
        triad(a, b, c, 3.0)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            triad(a, b, c, 3.0)
            times.append(time.perf_counter() - t0)
    finally:
        numba.set_num_threads(old)
    return 24 * n / sorted(times)[len(times) // 2]


# --------------------------------------------------------------------------
# Cases

def linalg_cases(Case, lib, not_available):
    _Bench.lib, _Bench.NotAvailable = staticmethod(lib), not_available
    note_x = "x: float64 vector; CSR int32 indices (torch too); pydata GCXS"
    cases = []
    for mat in ("poisson", "block4", "uniform", "rmat"):
        cases.append(Case(
            "SpMV CSR", mat, _with_dense(_csr, None),
            {"sparray": matvec, "scipy": matvec, "sparse": matvec, "torch": matvec},
            check="dense1d", bytes=spmv_bytes, number=SPMV_CALLS,
            note=f"A @ x, {note_x}; a timed run repeats the call to about 20 ms"))
    for mat in ("poisson", "block4", "uniform", "rmat"):
        cases.append(Case(
            "SpMM CSR x32", mat, _with_dense(_csr, SPMM_COLUMNS),
            {"sparray": matvec, "scipy": matvec, "sparse": matvec, "torch": matvec},
            check="dense1d", note=f"A @ X with X float64 (K, {SPMM_COLUMNS}) row-major; {note_x}"))
    cases.append(Case(
        "SpMV BSR4", "block4", _with_dense(_bsr, None),
        {"sparray": matvec, "scipy": matvec, "torch": matvec},
        check="dense1d", bytes=bsr_spmv_bytes, number=SPMV_CALLS,
        note="A @ x with 4x4 blocks: sparray BSR, scipy bsr_array, torch sparse_bsr (int32 indices); a timed "
             "run repeats the call to about 20 ms"))
    cases.append(Case(
        "SpMM BSR4 x32", "block4", _with_dense(_bsr, SPMM_COLUMNS),
        {"sparray": matvec, "scipy": matvec, "torch": matvec},
        check="dense1d", note=f"A @ X, X (K, {SPMM_COLUMNS}), 4x4 blocks"))
    for mat in ("poisson1m", "random5e5"):
        cases.append(Case(
            "SpGEMM A@A", mat, _spgemm_input,
            {"sparray": square, "scipy": square, "sparse": square, "torch": square},
            check="compressed_any_order", slow=("sparse",),
            note="CSR @ CSR (int32 indices); sparray and torch return sorted rows, scipy does not"))
    return cases


def bandwidth_rows(results, moved: dict) -> list:
    """Rows (case, matrix, bytes, the triad measured beside the row, GB/s and fraction of that
    triad per library) for the cases in ``moved``: ``{(case, matrices): (bytes, triad bytes/s)}``."""
    rows = []
    for r in results:
        key = (r["case"], tuple(r["matrix"]))
        if key not in moved:
            continue
        nbytes, triad = moved[key]
        row = [r["case"], "+".join(r["matrix"]), f"{nbytes / 1e6:.0f} MB", f"{triad / 1e9:.1f} GB/s"]
        for libname in ("sparray", "scipy", "sparse", "torch"):
            t = r["cells"].get(libname, {}).get("time")
            row.append("-" if not t else f"{nbytes / t / 1e9:.1f} GB/s ({nbytes / t / triad:.2f})")
        rows.append(row)
    return rows
