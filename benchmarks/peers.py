#!/usr/bin/env python
"""sparray beside the multithreaded peers a speed-minded user picks (issue 48): scipy, torch's CSR
tensors, Intel MKL's sparse BLAS (``sparse_dot_mkl``) and SuiteSparse:GraphBLAS (``python-graphblas``).

    python benchmarks/bench.py --peers                    # every library in its own process, 1e3 ... 1e7 entries
    python benchmarks/bench.py --peers --sizes 1e5,1e6 --only "A @ x,SpGEMM"
    python benchmarks/bench.py --peers --repeat-processes 5   # the sparray column in 5 fresh processes
    python benchmarks/bench.py --together                 # all libraries in one process, their calls interleaved
    python benchmarks/bench.py --busy --sizes 1e5,1e7     # the same with another process spinning on one core

Time as a user's program meets it: the same arrays called again and again (``--calls``, 15), each
call's result dropped right after it (inside the timed span, as ``del y`` would), no page warmed
before a call (the first touch of a result's fresh memory is part of its cost), ``SPARRAY_JIT=eager``
and a short warm-up (``WARM_S``) before the timed calls. A cell is the median of the calls with their
spread (max / min); ``sys`` is the system time per call (``resource.getrusage`` of the process, every
thread) where it is at least a tenth of the call. Ratios read best peer's time / sparray's time:
above 1, sparray is faster.

Each library runs in a fresh process of its own for each size (:func:`run_child`), on the same
matrices built from fixed seeds there (:class:`Inputs`): random square CSR with about 10 entries a
row (float64 values, int32 indices, distinct positions), the 2-D Poisson matrix of about as many
entries, and two COO forms of the random matrix (scipy's ``tocoo()`` of it, sorted; and an unsorted
one with 10% duplicate entries). After its timed calls, untimed, every library's result of each
row is checked against scipy's. ``--together`` runs every library in one process, the calls of a
row interleaved (one call of each library in turn, so OpenMP threads that spin after a call of one
library meet the next library's call); ``--busy`` starts a process that spins on one core, runs
the table under it, and prints each row beside the quiet median measured just before.

Measured first on the 2-core VM of the project, 2026-11-29 (see benchmarks/README.md, "Peers").
The threading layer numba runs sparray on (``sparray.kernels.cpu._threads.layer()``) is printed at
the top; in ``--together`` it is read after MKL and GraphBLAS were loaded and called.

>>> fmt_time(0.0123), fmt_time(2.5e-5), ratio_text(2.0, 1.0)
('12.3 ms', '25 us', '2.00x')
>>> best_peer({"sparray": 1.0, "scipy": 3.0, "mkl": 2.0}, ("scipy", "mkl"))
('mkl', 2.0)
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata as md
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))  # the checkout's sparray when it is not installed

import matrices

LIBS = ("sparray", "scipy", "mkl", "graphblas", "torch")
PEERS = LIBS[1:]
SIZES = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
PER_ROW = 10
CALLS = 15  # timed calls a cell
MIN_CALLS = 5  # at least this many when a cell's calls would pass --cap
WARM_S = 0.5  # seconds of warm-up calls after the first call (which compiles or loads the kernels), so that a
# loop's small calls are past sparray's generic start-up path (sparray._engine.dispatch.SMALL_GENERIC_BUDGET, 0.25 s,
# then SMALL_TRIALS kernel calls). Counted from the start of the first call, 0.3 s left sparray's A @ x at 1e5
# entries one warm-up call (the first took 0.3 s): its timed calls read 18.8, 0.51, 0.23, 0.19 ... ms, median 0.23 ms
# against 0.061 ms after 0.5 s of calls
LONG_CALL_S = 1.0  # a first call at least this long is the whole warm-up (a 7 s SpGEMM at 1e7 is not called twice)
CAP_S = 12.0  # seconds of timed calls a cell aims at most (fewer calls, down to MIN_CALLS, past it)
SPREAD_MARK = 1.3  # a spread (max / min) above this is marked "!" (the target from 1e5 entries up)
MARK_FROM = 100_000
TRIAD_FROM = 1_000_000  # bandwidth rows print the STREAM triad from this size up (below, the data sit in cache;
# the triad's own arrays, 3 x 160 MB, are far past any cache: with 3 x 32 MB it read 37-103 GB/s from one process to
# the next on this VM)
DUP_FRACTION = 0.1  # the unsorted COO repeats this share of the entries (the duplicates are summed)

# (key, label): the rows, in table order
ROWS = (
    ("spmv", "A @ x"),
    ("spmm8", "A @ X (8 columns)"),
    ("spgemm_poisson", "SpGEMM A @ A (Poisson)"),
    ("spgemm_random", "SpGEMM A @ B (random)"),
    ("add", "A + B"),
    ("csr2csc", "CSR -> CSC"),
    ("sum1", "sum(A, axis=1)"),
    ("sum0", "sum(A, axis=0)"),
    ("coo2csr_sorted", "COO -> CSR (sorted)"),
    ("coo2csr_unsorted", "COO -> CSR (unsorted, duplicates)"),
)
LABEL = dict(ROWS)
BANDWIDTH_ROWS = ("spmv", "spmm8", "sum1", "sum0")
# measured after the other rows of a process: SpGEMM A @ B at 1e7 entries makes a 1e8-entry result (1.2 GB a call in
# scipy's form) and leaves the process's heap that large; in the table's order the rows after it ran in that state,
# and torch's process, whose address space it grew to the --mem-limit, found no memory for A + B and the rest
LAST_ROWS = ("spgemm_random",)
EXPECT_LAYOUT = {"csr2csc": "csc", "coo2csr_sorted": "csr", "coo2csr_unsorted": "csr"}

DIST = {"sparray": "sparray", "scipy": "scipy", "mkl": "sparse-dot-mkl", "graphblas": "python-graphblas", "torch": "torch"}
IMPORT = {"sparray": "sparray", "scipy": "scipy.sparse", "mkl": "sparse_dot_mkl", "graphblas": "graphblas", "torch": "torch"}


# ----------------------------------------------------------------------------------------------
# formatting


def fmt_time(t) -> str:
    """Seconds as text with three significant digits."""
    if t is None:
        return "-"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} us"


def ratio_text(peer, mine) -> str:
    return f"{peer / mine:.2f}x"


def best_peer(medians: dict, peers) -> tuple[str | None, float | None]:
    """The fastest of ``peers`` that has a median in ``medians``: (name, time), or (None, None)."""
    have = [(t, p) for p in peers if isinstance(t := medians.get(p), float)]
    if not have:
        return None, None
    t, p = min(have)
    return p, t


def fmt_size(n: int) -> str:
    return f"1e{round(math.log10(n))}" if n > 0 and 10 ** round(math.log10(n)) == n else f"{n:.2g}"


# ----------------------------------------------------------------------------------------------
# where MKL's runtime library is


def find_mkl_rt() -> str | None:
    """The path of ``libmkl_rt.so.*`` that ``sparse_dot_mkl`` should load (it needs ``MKL_RT`` when the
    ``mkl`` wheel put the library in ``<venv>/lib``, off the loader's path): ``$MKL_RT`` when set,
    else the library of this interpreter's prefix, else one listed in the ``mkl`` distribution."""
    if os.environ.get("MKL_RT"):
        return os.environ["MKL_RT"]
    candidates = []
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        for name in ("libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"):
            candidates.append(os.path.join(prefix, "lib", name))
    try:
        for f in md.files("mkl") or ():
            if os.path.basename(str(f)).startswith("libmkl_rt.so"):
                candidates.append(str(f.locate()))
    except md.PackageNotFoundError:
        pass
    for c in candidates:
        if os.path.exists(c):
            return os.path.abspath(c)
    return None


def child_env() -> dict:
    env = dict(os.environ)
    env.setdefault("SPARRAY_JIT", "eager")
    rt = find_mkl_rt()
    if rt:
        env["MKL_RT"] = rt
    return env


# ----------------------------------------------------------------------------------------------
# the inputs (built in every process from the same seeds)


class Inputs:
    """One size's matrices, built with NumPy and scipy from fixed seeds (untimed).

    ``S``, ``SB``: random ``n x n`` CSR (``n = nse // 10``), float64, int32 indices, canonical;
    ``P``: the 2-D Poisson matrix on a ``k x k`` grid, ``5 k^2 - 4 k`` about ``nse``;
    ``x``, ``X``: a vector and an ``n x 8`` C-ordered block; ``coo_sorted``: ``(row, col, val)`` of
    ``S.tocoo()`` (int32, row-major); ``coo_unsorted``: the same entries plus a tenth of them again
    (other values), in random order (int64, as a program that assembles entries holds them)."""

    def __init__(self, nse: int):
        import scipy.sparse as sp

        self.nse = int(nse)
        n = max(2, self.nse // PER_ROW)
        self.n = n
        self.S = _csr32(sp, matrices.uniform_random(n, n, self.nse, seed=11, unique=True, sort=True))
        self.SB = _csr32(sp, matrices.uniform_random(n, n, self.nse, seed=12, unique=True, sort=True))
        k = max(3, round(math.sqrt(self.nse / 5)))
        self.k = k
        self.P = _csr32(sp, matrices.poisson2d(k))
        rng = np.random.default_rng(13)
        self.x = rng.standard_normal(n)
        self.X = rng.standard_normal((n, 8))
        self.coo = self.S.tocoo()  # canonical (has_canonical_format), int32 coordinates
        self.coo_sorted = (self.coo.row, self.coo.col, self.coo.data)
        nnz = self.S.nnz
        dup = rng.integers(0, nnz, int(DUP_FRACTION * nnz))
        order = rng.permutation(nnz + dup.size)
        r = np.concatenate([self.coo.row, self.coo.row[dup]]).astype(np.int64)[order]
        c = np.concatenate([self.coo.col, self.coo.col[dup]]).astype(np.int64)[order]
        v = np.concatenate([self.coo.data, rng.random(dup.size) + 0.5])[order]
        self.coo_unsorted = (r, c, v)
        self.shape = (n, n)

    def describe(self) -> str:
        return (f"random {self.n} x {self.n} ({self.S.nnz:.3g} entries, two of them: A, B), Poisson {self.k}^2 "
                f"grid ({self.P.nnz:.3g} entries), unsorted COO {self.coo_unsorted[0].size:.3g} entries "
                f"({DUP_FRACTION:.0%} duplicates)")


def _csr32(sp, m):
    row, col, val, shape = m
    S = sp.csr_array((val, (row, col)), shape=shape)
    S.sum_duplicates()
    return sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=shape)


def bytes_moved(op: str, inp: Inputs) -> int | None:
    """The least bytes a bandwidth-bound row reads and writes (values, indices, pointers, vectors)."""
    nnz, n = inp.S.nnz, inp.n
    ptr = 4 * (n + 1)
    return {"spmv": 12 * nnz + ptr + 16 * n,
            "spmm8": 12 * nnz + ptr + 2 * 64 * n,
            "sum1": 8 * nnz + ptr + 8 * n,
            "sum0": 12 * nnz + ptr + 8 * n}.get(op)


# ----------------------------------------------------------------------------------------------
# each library's calls: {row key: fn()}, built from the inputs (untimed)


def calls_sparray(I: Inputs, threads: int) -> dict:
    import numba

    import sparray
    from sparray.interop.scipy import from_scipy

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    A, B, P = from_scipy(I.S), from_scipy(I.SB), from_scipy(I.P)
    r, c, v = I.coo_sorted
    Cs = sparray.COO(np.stack([r, c]), v, I.shape)  # no is_coalesced hint: sparray finds the order itself
    r, c, v = I.coo_unsorted
    Cu = sparray.COO(np.stack([r, c]), v, I.shape)
    x, X = I.x, I.X
    return {"spmv": lambda: A @ x, "spmm8": lambda: A @ X, "spgemm_poisson": lambda: P @ P,
            "spgemm_random": lambda: A @ B, "add": lambda: A + B, "csr2csc": lambda: A.to_layout("csc"),
            "sum1": lambda: sparray.sum(A, axis=1), "sum0": lambda: sparray.sum(A, axis=0),
            "coo2csr_sorted": lambda: Cs.to_layout("csr"), "coo2csr_unsorted": lambda: Cu.to_layout("csr")}


def calls_scipy(I: Inputs, threads: int) -> dict:
    import scipy.sparse as sp

    S, SB, P, x, X = I.S, I.SB, I.P, I.x, I.X
    Cs = I.coo  # canonical, as tocoo() left it
    r, c, v = I.coo_unsorted
    Cu = sp.coo_array((v, (r, c)), shape=I.shape)
    return {"spmv": lambda: S @ x, "spmm8": lambda: S @ X, "spgemm_poisson": lambda: P @ P,
            "spgemm_random": lambda: S @ SB, "add": lambda: S + SB, "csr2csc": lambda: S.tocsc(),
            "sum1": lambda: S.sum(axis=1), "sum0": lambda: S.sum(axis=0),
            "coo2csr_sorted": lambda: Cs.tocsr(), "coo2csr_unsorted": lambda: Cu.tocsr()}


def calls_mkl(I: Inputs, threads: int) -> dict:
    import sparse_dot_mkl as mkl

    mkl.mkl_set_num_threads(threads)
    S, SB, P, x, X = I.S, I.SB, I.P, I.x, I.X
    dot = mkl.dot_product_mkl
    # (sparse_dot_mkl has no addition, conversion or reduction: those rows are n/a)
    return {"spmv": lambda: dot(S, x), "spmm8": lambda: dot(S, X), "spgemm_poisson": lambda: dot(P, P),
            "spgemm_random": lambda: dot(S, SB)}


def calls_graphblas(I: Inputs, threads: int) -> dict:
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    GA, GB, GP = (gb.io.from_scipy_sparse(M) for M in (I.S, I.SB, I.P))
    gx, GX = gb.Vector.from_dense(I.x), gb.Matrix.from_dense(I.X)
    n = I.n
    rs, cs, vs = I.coo_sorted
    ru, cu, vu = I.coo_unsorted
    plus = gb.binary.plus

    def done(m):  # SuiteSparse works lazily (nonblocking mode): finish it inside the call
        m.wait()
        return m

    # CSR -> CSC: GraphBLAS stores by row; the by-row matrix of A.T holds exactly A's CSC arrays
    return {"spmv": lambda: done((GA @ gx).new()), "spmm8": lambda: done((GA @ GX).new()),
            "spgemm_poisson": lambda: done((GP @ GP).new()), "spgemm_random": lambda: done((GA @ GB).new()),
            "add": lambda: done(GA.ewise_add(GB).new()), "csr2csc": lambda: done(GA.T.new()),
            "sum1": lambda: done(GA.reduce_rowwise().new()), "sum0": lambda: done(GA.reduce_columnwise().new()),
            "coo2csr_sorted": lambda: done(gb.Matrix.from_coo(rs, cs, vs, nrows=n, ncols=n)),
            "coo2csr_unsorted": lambda: done(gb.Matrix.from_coo(ru, cu, vu, nrows=n, ncols=n, dup_op=plus))}


def calls_torch(I: Inputs, threads: int) -> dict:
    import torch

    warnings.filterwarnings("ignore", message="Sparse (CSR|CSC) tensor support")
    torch.set_num_threads(threads)

    def t_csr(S):
        return torch.sparse_csr_tensor(torch.from_numpy(S.indptr), torch.from_numpy(S.indices),
                                       torch.from_numpy(S.data), S.shape)

    TA, TB, TP = t_csr(I.S), t_csr(I.SB), t_csr(I.P)
    tx, tX = torch.from_numpy(I.x), torch.from_numpy(I.X)
    r, c, v = I.coo_sorted
    idx = torch.from_numpy(np.stack([r, c]).astype(np.int64))  # torch's COO indices are int64
    Tcs = torch.sparse_coo_tensor(idx, torch.from_numpy(v), I.shape, is_coalesced=True)
    r, c, v = I.coo_unsorted
    Tcu = torch.sparse_coo_tensor(torch.from_numpy(np.stack([r, c])), torch.from_numpy(v), I.shape)
    # (a sum over a dimension of a sparse CSR tensor needs keepdim=True: an n x 1 CSR)
    return {"spmv": lambda: TA @ tx, "spmm8": lambda: TA @ tX, "spgemm_poisson": lambda: TP @ TP,
            "spgemm_random": lambda: TA @ TB, "add": lambda: TA + TB, "csr2csc": lambda: TA.to_sparse_csc(),
            "sum1": lambda: TA.sum(dim=1, keepdim=True), "sum0": lambda: TA.sum(dim=0, keepdim=True),
            "coo2csr_sorted": lambda: Tcs.to_sparse_csr(), "coo2csr_unsorted": lambda: Tcu.to_sparse_csr()}


CALL_MAKERS = {"sparray": calls_sparray, "scipy": calls_scipy, "mkl": calls_mkl, "graphblas": calls_graphblas,
               "torch": calls_torch}


# ----------------------------------------------------------------------------------------------
# checking a result against scipy's


def comparable(lib: str, op: str, r):
    """``(kind, value, layout)``: a dense ravelled ndarray, or a canonical scipy CSR, and the result's
    layout (None where it has none)."""
    import scipy.sparse as sp

    if lib == "sparray":
        from sparray.interop.scipy import to_scipy

        if isinstance(r, np.ndarray):
            return "dense", r.ravel(), None
        if r.ndim != 2:
            return "dense", np.asarray(r.to_dense()).ravel(), None
        return "sparse", _canon(to_scipy(r).tocsr()), r.layout
    if lib in ("scipy", "mkl"):
        if sp.issparse(r):
            return "sparse", _canon(r.tocsr()), r.format
        return "dense", np.asarray(r).ravel(), None
    if lib == "torch":
        import torch

        if r.layout == torch.strided:
            return "dense", r.numpy().ravel(), None
        if 1 in tuple(r.shape):  # the keepdim sums
            return "dense", r.to_dense().numpy().ravel(), None
        if r.layout == torch.sparse_csr:
            return "sparse", _canon(sp.csr_array((r.values().numpy(), r.col_indices().numpy(),
                                                  r.crow_indices().numpy()), shape=tuple(r.shape))), "csr"
        if r.layout == torch.sparse_csc:
            M = sp.csc_array((r.values().numpy(), r.row_indices().numpy(), r.ccol_indices().numpy()), shape=tuple(r.shape))
            return "sparse", _canon(M.tocsr()), "csc"
        return "sparse", _canon(sp.csr_array(r.to_dense().numpy())), str(r.layout)
    if lib == "graphblas":
        import graphblas as gb

        if isinstance(r, gb.Vector):
            return "dense", r.to_dense(fill_value=0.0), None
        if r.ss.format.startswith("full"):
            return "dense", r.to_dense(fill_value=0.0).ravel(), None
        M = gb.io.to_scipy_sparse(r, format="csr")
        if op == "csr2csc":  # the by-row A.T: its transpose is A in CSC
            return "sparse", _canon(M.T.tocsr()), "csc"
        return "sparse", _canon(M), "csr"
    raise KeyError(lib)


def _canon(M):
    M = M.copy()
    M.sum_duplicates()
    M.sort_indices()
    return M


def check(lib: str, op: str, r, ref) -> str:
    """'ok', or what differs from scipy's result ``ref`` (a :func:`comparable` of it)."""
    kind, got, layout = comparable(lib, op, r)
    rkind, want, _ = ref
    want_layout = EXPECT_LAYOUT.get(op)
    if want_layout and layout is not None and layout != want_layout:
        return f"layout {layout}, want {want_layout}"
    if rkind == "dense" or kind == "dense":
        got = got if kind == "dense" else got.toarray().ravel()
        want = want if rkind == "dense" else want.toarray().ravel()
        if got.shape != want.shape:
            return f"shape {got.shape}, want {want.shape}"
        scale = float(np.abs(want).max()) if want.size else 0.0
        err = float(np.abs(got - want).max()) if want.size else 0.0
    else:
        if got.shape != want.shape:
            return f"shape {got.shape}, want {want.shape}"
        scale = float(abs(want).max()) if want.nnz else 0.0
        d = abs(got - want)
        err = float(d.max()) if d.nnz else 0.0
    if err > 1e-9 * (scale + 1.0):
        return f"values differ by {err:.3g} (largest {scale:.3g})"
    return "ok"


# ----------------------------------------------------------------------------------------------
# the timing (inside a child process)


def _call_once(fn):
    """Wall, user and system seconds of one call whose result is dropped inside the timed span."""
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    y = fn()
    del y
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return t1 - t0, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime


def time_row(fns: dict, calls: int = CALLS, cap: float = CAP_S, warm_s: float = WARM_S) -> dict:
    """Each library's calls of one row: warm-up (a first call, then ``warm_s`` seconds of calls, at least
    one unless the first took ``LONG_CALL_S``), then ``calls``
    timed calls, one of each library in turn when ``fns`` has several (``--together``). Returns
    ``{lib: {"times", "utime", "stime", "warm_calls"} or {"error"}}``."""
    out, ok = {}, {}
    for lib, fn in fns.items():
        try:
            t0 = time.perf_counter()
            fn()  # the first call: kernels compiled or loaded (sparray's spmv at 1e5 entries: 0.3-0.5 s)
            first = time.perf_counter() - t0
            start, n, fastest = time.perf_counter(), 1, first
            while (n < 2 and first < LONG_CALL_S) or time.perf_counter() - start < warm_s:
                t0 = time.perf_counter()
                fn()
                fastest = min(fastest, time.perf_counter() - t0)
                n += 1
        except Exception as exc:  # noqa: BLE001 - a library without the operation: the cell says why
            out[lib] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"}
            continue
        ok[lib] = fastest
        out[lib] = {"times": [], "utime": [], "stime": [], "warm_calls": n}
    if not ok:
        return out
    per_round = sum(ok.values())
    n_calls = calls if per_round * calls <= cap else max(min(MIN_CALLS, calls), int(cap / max(per_round, 1e-9)))
    for _ in range(n_calls):
        for lib in ok:
            try:
                wall, user, system = _call_once(fns[lib])
            except Exception as exc:  # noqa: BLE001
                out[lib] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
            if "error" not in out[lib]:
                out[lib]["times"].append(wall)
                out[lib]["utime"].append(user)
                out[lib]["stime"].append(system)
        ok = {lib: t for lib, t in ok.items() if "error" not in out[lib]}
    return out


_triad = None


def triad_bandwidth(threads: int, n: int = 20_000_000, repeat: int = 5) -> float:
    """STREAM triad ``a = b + s * c`` with numba on ``threads`` threads: bytes/s (24 bytes an element),
    the median of ``repeat`` runs (compiled once a process)."""
    global _triad
    import numba

    if _triad is None:
        @numba.njit(parallel=True, cache=False)
        def triad(a, b, c, s):
            for i in numba.prange(a.shape[0]):
                a[i] = b[i] + s * c[i]

        _triad = triad
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
        _triad(a, b, c, 3.0)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            _triad(a, b, c, 3.0)
            times.append(time.perf_counter() - t0)
    finally:
        numba.set_num_threads(old)
    return 24 * n / statistics.median(times)


def _loaded_runtimes() -> list[str]:
    """The thread runtimes mapped into this process (OpenMP, TBB), by file name."""
    names = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                base = os.path.basename(line.split()[-1]) if "/" in line else ""
                if any(k in base for k in ("libgomp", "libiomp", "libomp", "libtbb.", "libtbb-", "libtbb12")):
                    names.add(base)
    except OSError:
        pass
    return sorted(names)


def _sparray_layer():
    from sparray.kernels.cpu import _threads

    return _threads.layer()


def measure_order(rows):
    """The rows in the order a process measures them: the table's, with ``LAST_ROWS`` moved to the end.

    >>> measure_order(["spmv", "spgemm_random", "add"])
    ['spmv', 'add', 'spgemm_random']
    """
    return [r for r in rows if r not in LAST_ROWS] + [r for r in rows if r in LAST_ROWS]


def child_main(spec: dict, path: str | None = None) -> dict:
    """One process's measurements: ``spec`` = {libs, size, threads, rows, calls, cap, warm_s, mem_limit}.
    With ``path``, the result so far is written there after every row (``"current"``: the row under
    way), so a process that dies keeps the rows it finished and names the one it died in."""
    warnings.filterwarnings("ignore", message="Sparse (CSR|CSC|invariant)")
    libs, size, threads = spec["libs"], spec["size"], spec["threads"]
    if spec.get("mem_limit"):  # an allocation past it fails in its call (MemoryError and kin) instead of
        # waking the kernel's OOM killer on a shared machine
        resource.setrlimit(resource.RLIMIT_AS, (int(spec["mem_limit"]), int(spec["mem_limit"])))
    out = {"libs": libs, "size": size, "pid": os.getpid(), "rows": {}, "errors": {}, "load_start": os.getloadavg()[0]}
    t0 = time.perf_counter()
    I = Inputs(size)
    out["inputs_s"] = time.perf_counter() - t0
    out["inputs"] = I.describe()
    fns = {}
    for lib in libs:
        try:
            fns[lib] = CALL_MAKERS[lib](I, threads)
        except ImportError as exc:
            out["errors"][lib] = f"not installed ({exc})"
        except Exception as exc:  # noqa: BLE001
            out["errors"][lib] = f"{type(exc).__name__}: {exc}"
    for op in measure_order(spec["rows"]):
        row_fns = {lib: f[op] for lib, f in fns.items() if op in f}
        if not row_fns:
            continue
        out["current"] = op
        _save(out, path)
        gc.collect()  # the harness's own garbage (inputs, callables) collected now, not by a cyclic collection
        # inside a timed call (a generation-2 collection after building the 1e5 inputs took 76 ms)
        if os.environ.get("SPARRAY_PEERS_DIE_IN") == op:  # the tests' stand-in for a process the OOM killer ends
            os.kill(os.getpid(), 9)
        res = time_row(row_fns, spec["calls"], spec["cap"], spec["warm_s"])
        nbytes = bytes_moved(op, I)
        if nbytes is not None:
            res["bytes"] = nbytes
        out["rows"][op] = res
        if "sparray" in row_fns and "layer" not in out:
            out["layer"] = _sparray_layer()
        gc.collect()
    out.pop("current", None)
    bw_rows = [r for op, r in out["rows"].items() if "bytes" in r and op in fns.get("sparray", {})]
    if size >= TRIAD_FROM and bw_rows:
        try:  # once, after every timed row: its 480 MB warm no page before a timed call
            triad = triad_bandwidth(threads)
            out["triad"] = triad
            for r in bw_rows:
                r["triad"] = triad
        except ImportError:
            pass
    _save(out, path)
    # untimed: each library's result against scipy's (after all timed calls, so no row's memory is warmed)
    ref_fns = fns.get("scipy") or calls_scipy(I, threads)
    for op, res in out["rows"].items():
        ref = None
        for lib, cell in res.items():
            if lib not in fns or not isinstance(cell, dict) or "error" in cell:
                continue
            if lib == "scipy":
                cell["check"] = "ok (the reference)"
                continue
            try:
                if ref is None:
                    ref = comparable("scipy", op, ref_fns[op]())
                cell["check"] = check(lib, op, fns[lib][op](), ref)
            except Exception as exc:  # noqa: BLE001
                why = f"{type(exc).__name__}: {exc}"
                cell["check"] = f"unchecked, no memory ({why})" if _out_of_memory(why) else why
        gc.collect()
    if "sparray" in fns:
        out["layer"] = _sparray_layer()  # in --together: after MKL and GraphBLAS ran in this process
        import numba

        out["numba_threads"] = numba.get_num_threads()
    out["runtimes"] = _loaded_runtimes()
    out["load_end"] = os.getloadavg()[0]
    _save(out, path)
    return out


def _save(out, path):
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(out, f)
        os.replace(path + ".tmp", path)


# ----------------------------------------------------------------------------------------------
# the parent: processes, the spinner, the tables


def run_child(spec: dict, log=print, timeout=1800) -> dict:
    """Run :func:`child_main` in a fresh interpreter; returns its result, or ``{"failed": why}`` when
    it finished no row. A process that dies in a row (killed, crashed) keeps the rows it finished: that
    row's cells say it died, and a fresh process measures the rows after it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec), "--json", path]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=timeout, check=False)
            rc, text = p.returncode, p.stdout
        except subprocess.TimeoutExpired as exc:
            rc, text = f"timeout {timeout} s", exc.stdout or ""
            text = text.decode(errors="replace") if isinstance(text, bytes) else text
        wall = time.perf_counter() - t0
        res = None
        if os.path.exists(path):
            with open(path) as f:
                res = json.load(f)
    if rc == 0 and res is not None:
        res["wall_s"] = wall
        return res
    tail = "\n".join(text.strip().splitlines()[-6:])
    why = f"exit {rc}" + (" (killed: out of memory?)" if rc in (-9, 137) else "")
    if res is None or "current" not in res:
        return {"failed": f"{why}: {tail}", **spec}
    dead = res.pop("current")
    res["rows"][dead] = {lib: {"error": f"the process died in this row, {why}"} for lib in res["libs"]}
    res.setdefault("died", []).append({"row": dead, "why": why, "output": tail})
    order = measure_order(spec["rows"])
    rest = order[order.index(dead) + 1:]
    if rest:
        more = run_child({**spec, "rows": rest}, log, timeout)
        if "failed" not in more:
            res["rows"].update(more["rows"])
            res["died"] += more.get("died", [])
            for key in ("layer", "numba_threads", "runtimes", "load_end"):
                if key in more:
                    res[key] = more[key]
            wall += more.get("wall_s", 0.0)
    res.setdefault("runtimes", [])
    res.setdefault("load_end", os.getloadavg()[0])
    res["wall_s"] = wall
    return res


def mem_limit_default() -> int | None:
    """Bytes of address space a child may take: 80% of the memory available when the run starts
    (None where /proc/meminfo does not tell)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(0.8 * int(line.split()[1]) * 1024)
    except OSError:
        pass
    return None


class Spinner:
    """A process that spins on one core (the last of this process's affinity set) until stopped."""

    def __init__(self, cpu: int | None = None):
        try:
            cpus = sorted(os.sched_getaffinity(0))
        except AttributeError:
            cpus = [0]
        self.cpu = cpus[-1] if cpu is None else cpu
        self.proc = None

    def __enter__(self):
        code = (f"import os\ntry:\n    os.sched_setaffinity(0, {{{self.cpu}}})\nexcept (AttributeError, OSError):\n"
                "    pass\nwhile True:\n    pass\n")
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        time.sleep(0.5)  # the spinner is running and the load readings (sparray reads /proc/stat) see it
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def stats(cell) -> dict | None:
    """Median, spread (max / min), max / median, mean system and user seconds a call, calls."""
    if not isinstance(cell, dict) or not cell.get("times"):
        return None
    t = cell["times"]
    med = statistics.median(t)
    return {"median": med, "spread": max(t) / max(min(t), 1e-12), "max_med": max(t) / max(med, 1e-12),
            "stime": sum(cell["stime"]) / len(t), "utime": sum(cell["utime"]) / len(t), "n": len(t)}


def cell_text(cell, calls, busy=False, size=None) -> str:
    """``median [max/min]`` (``[max/median]`` with ``busy``), ``!`` past the issue's target (from
    ``MARK_FROM`` entries up: below, one call that a timer tick or a page fault lands on decides the
    spread of calls of a few microseconds), ``sys`` where the system time is at least a tenth of
    the call, the number of calls where fewer than asked."""
    if cell is None:
        return "n/a"
    if "error" in cell:
        return "no memory" if _out_of_memory(cell["error"]) else "died" if "process died" in cell["error"] else "err"
    s = stats(cell)
    if s is None:
        return "n/a"
    spread = s["max_med"] if busy else s["spread"]
    mark = "!" if (size is None or size >= MARK_FROM) and spread > (5.0 if busy else SPREAD_MARK) else ""
    text = f"{fmt_time(s['median'])} [{spread:.2f}{mark}]"
    if s["stime"] >= 0.1 * s["median"] and s["stime"] > 20e-6:
        text += f" sys {fmt_time(s['stime'])}"
    if s["n"] < calls:
        text += f" ({s['n']} calls)"
    verdict = cell.get("check", "ok")
    if verdict.startswith("unchecked"):
        text += " (unchecked)"
    elif not verdict.startswith("ok"):
        text += " CHECK"
    return text


def _out_of_memory(error: str) -> bool:
    return error.startswith(("MemoryError", "OutOfMemory")) or "can't allocate memory" in error or "bad_alloc" in error


def medians(row: dict, libs) -> dict:
    return {lib: s["median"] for lib in libs if (s := stats(row.get(lib))) is not None}


def _merge(results, libs):
    """{size: {op: {lib: cell}}} from child results (the first result per library and size), and the
    sizes' input descriptions."""
    table, inputs = {}, {}
    for res in results:
        if "failed" in res:
            continue
        inputs.setdefault(res["size"], res.get("inputs"))
        for op, row in res["rows"].items():
            dest = table.setdefault(res["size"], {}).setdefault(op, {})
            for lib, cell in row.items():
                if lib in ("bytes", "triad"):
                    if lib == "triad" and "sparray" not in res["libs"] and "triad" in dest:
                        continue
                    dest[lib] = cell
                elif lib in libs and lib not in dest:
                    dest[lib] = cell
    return table, inputs


def bandwidth_text(row, lib) -> str:
    s = stats(row.get(lib))
    if s is None or "triad" not in row or not row.get("bytes"):
        return ""
    bw = row["bytes"] / s["median"]
    return f"{bw / 1e9:.1f} GB/s = {bw / row['triad']:.2f}"


def peers_table(table, sizes, libs, calls, proc_spread=None, log=print):
    """The per-size tables of ``--peers`` (and ``--together``) and the ratio summary."""
    peers = [p for p in libs if p != "sparray"]
    for size in sizes:
        rows = table.get(size)
        if not rows:
            continue
        triads = [r["triad"] for r in rows.values() if "triad" in r]
        head = ["op", *libs] + (["best peer / sparray"] if peers else []) + (["scipy / sparray"] if "scipy" in libs else [])
        if triads:
            head.append("GB/s: sparray, best peer (of triad)")
        if proc_spread:
            head.append(f"sparray medians of {proc_spread['n']} processes: max/min")
        log(f"\n### {fmt_size(size)} entries" + (f" (triad {statistics.median(triads) / 1e9:.1f} GB/s)" if triads else ""))
        log("\n| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
        for op, _ in ROWS:
            row = rows.get(op)
            if row is None:
                continue
            meds = medians(row, libs)
            cells = [LABEL[op]] + [cell_text(row.get(lib), calls, size=size) for lib in libs]
            p, t = best_peer(meds, peers)
            mine = meds.get("sparray")
            if peers:
                cells.append(f"{ratio_text(t, mine)} {p}" if p and mine else "-")
            if "scipy" in libs:
                cells.append(ratio_text(meds["scipy"], mine) if "scipy" in meds and mine else "-")
            if triads:
                bw = [bandwidth_text(row, "sparray")] + ([bandwidth_text(row, p)] if p else [])
                cells.append(", ".join(b for b in bw if b) or "")
            if proc_spread:
                ms = proc_spread["by"].get((size, op))
                mark = "!" if ms and size >= MARK_FROM and max(ms) / min(ms) > 1.2 else ""
                cells.append(f"{max(ms) / min(ms):.2f}{mark}" if ms else "-")
            log("| " + " | ".join(cells) + " |")
    if not peers:
        return
    # summary: op x size, best peer / sparray
    log("\n### best peer / sparray (above 1: sparray faster)\n")
    shown = [s for s in sizes if s in table]
    log("| op | " + " | ".join(fmt_size(s) for s in shown) + " |\n" + "|---" * (len(shown) + 1) + "|")
    for op, label in ROWS:
        cells = []
        for size in shown:
            row = table[size].get(op)
            if row is None:
                cells.append("")
                continue
            meds = medians(row, libs)
            p, t = best_peer(meds, peers)
            cells.append(f"{ratio_text(t, meds['sparray'])} {p}" if p and "sparray" in meds else "-")
        if any(cells):
            log(f"| {label} | " + " | ".join(cells) + " |")


def busy_table(quiet, busy, sizes, libs, calls, log=print):
    """Per size: every library's busy median [max/median], sparray's and scipy's quiet median and
    busy / quiet, and the ratios under load."""
    peers = [p for p in libs if p != "sparray"]
    for size in sizes:
        rows = busy.get(size)
        if not rows:
            continue
        head = ["op", "sparray busy [max/median]", "sparray quiet", "busy / quiet"]
        for p in peers:
            head.append(f"{p} busy [max/median]")
            if p == "scipy":
                head.append("scipy busy / quiet")
        head += ["scipy / sparray (busy)", "best peer / sparray (busy)"]
        log(f"\n### {fmt_size(size)} entries, one core busy\n")
        log("| " + " | ".join(head) + " |\n" + "|---" * len(head) + "|")
        for op, label in ROWS:
            row = rows.get(op)
            if row is None:
                continue
            qrow = quiet.get(size, {}).get(op, {})
            meds, qmeds = medians(row, libs), medians(qrow, libs)
            cells = [label, cell_text(row.get("sparray"), calls, busy=True, size=size),
                     fmt_time(qmeds.get("sparray")) if "sparray" in qmeds else "-",
                     _bq(meds, qmeds, "sparray", size)]
            for p in peers:
                cells.append(cell_text(row.get(p), calls, busy=True, size=size))
                if p == "scipy":
                    cells.append(_bq(meds, qmeds, "scipy", size))
            mine = meds.get("sparray")
            cells.append(ratio_text(meds["scipy"], mine) if "scipy" in meds and mine else "-")
            p, t = best_peer(meds, peers)
            cells.append(f"{ratio_text(t, mine)} {p}" if p and mine else "-")
            log("| " + " | ".join(cells) + " |")


def _bq(meds, qmeds, lib, size):
    if lib not in meds or lib not in qmeds:
        return "-"
    r = meds[lib] / qmeds[lib]
    return f"{r:.2f}" + ("!" if size >= MARK_FROM and r > 1.5 else "")


def together_table(table, alone, sizes, libs, calls, log=print):
    """``--together``: the peers table of the one-process run, and sparray together / alone."""
    peers_table(table, sizes, libs, calls, log=log)
    log("\n### sparray together with the peers / sparray alone (each in a fresh process)\n")
    shown = [s for s in sizes if s in table]
    log("| op | " + " | ".join(fmt_size(s) for s in shown) + " |\n" + "|---" * (len(shown) + 1) + "|")
    for op, label in ROWS:
        cells = []
        for size in shown:
            t = medians(table[size].get(op, {}), ["sparray"]).get("sparray")
            a = medians(alone.get(size, {}).get(op, {}), ["sparray"]).get("sparray")
            cells.append(f"{t / a:.2f}" + ("!" if size >= MARK_FROM and t / a > 1.2 else "") if t and a else "")
        if any(cells):
            log(f"| {label} | " + " | ".join(cells) + " |")


def versions() -> dict:
    out = {}
    for name in ("sparray", "numpy", "scipy", "numba", "sparse-dot-mkl", "mkl", "python-graphblas",
                 "suitesparse-graphblas", "torch", "intel-openmp", "tbb"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    return out


def installed(lib: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(IMPORT[lib].split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def _rows_for(only: str | None) -> list[str]:
    if not only:
        return [k for k, _ in ROWS]
    wanted = [w.strip() for w in only.split(",") if w.strip()]

    def hit(w, key, label):  # a word with capitals matches case-sensitively ("A @ x" is not "A @ X")
        return w == key or w in label or (w == w.lower() and w in label.lower())

    return [k for k, label in ROWS if any(hit(w, k, label) for w in wanted)]


def _header(args, mode, libs, missing, log):
    v = versions()
    log(f"# sparray peers (issue 48): --{mode}, sizes {', '.join(fmt_size(s) for s in args.sizes)}, "
        f"{args.threads} threads for every library, {args.calls} calls a cell")
    log(f"# host {platform.node()}: {os.cpu_count()} cpus, {platform.processor() or platform.machine()}; "
        f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    log("# versions: " + ", ".join(f"{k} {x}" for k, x in v.items()))
    log(f"# MKL_RT for the children: {child_env().get('MKL_RT', '(not found)')}")
    log("# libraries: " + ", ".join(libs) + (f"; not installed, left out: {', '.join(missing)}" if missing else ""))


def _log_child(res, log):
    if "failed" in res:
        log(f"#   {'+'.join(res['libs'])} {fmt_size(res['size'])}: FAILED: {res['failed']}")
        return
    errs = "; ".join(f"{k}: {v}" for k, v in res.get("errors", {}).items())
    bad = [f"{op}/{lib}: {c['check']}" for op, row in res["rows"].items() for lib, c in row.items()
           if isinstance(c, dict) and "check" in c and not c["check"].startswith(("ok", "unchecked"))]
    unchecked = [f"{op}/{lib}" for op, row in res["rows"].items() for lib, c in row.items()
                 if isinstance(c, dict) and c.get("check", "").startswith("unchecked")]
    if unchecked:
        log(f"#     not checked (the check's copies found no memory under --mem-limit): {', '.join(unchecked)}")
    fails = [f"{op}/{lib}: {c['error']}" for op, row in res["rows"].items() for lib, c in row.items()
             if isinstance(c, dict) and "error" in c]
    extra = (f", layer {res['layer']}" if "layer" in res else "") + (f", runtimes {' '.join(res['runtimes'])}"
                                                                    if res.get("runtimes") else "")
    log(f"#   {'+'.join(res['libs'])} {fmt_size(res['size'])}: {res['wall_s']:.1f} s (inputs {res['inputs_s']:.1f} s), "
        f"load {res['load_start']:.2f} -> {res['load_end']:.2f}{extra}" + (f"; {errs}" if errs else ""))
    for d in res.get("died", []):
        log(f"#     the process died in {d['row']} ({d['why']}); the rows after it ran in a fresh one")
    for b in bad:
        log(f"#     RESULT CHECK {b}")
    for f in fails:
        log(f"#     error {f}")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--peers", action="store_true", help="each library in a fresh process of its own (the default)")
    g.add_argument("--together", action="store_true", help="all libraries in one process, their calls interleaved")
    g.add_argument("--busy", action="store_true", help="quiet, then with a process spinning on one core")
    ap.add_argument("--sizes", default=None, help="comma-separated entry counts (default 1e3,1e4,1e5,1e6,1e7)")
    ap.add_argument("--only", default=None, help="comma-separated row keys (spmv, spmm8, spgemm_poisson, spgemm_random, add, "
                    "csr2csc, sum1, sum0, coo2csr_sorted, coo2csr_unsorted) or words of their labels (SpGEMM, COO)")
    ap.add_argument("--libs", default=None, help=f"comma-separated libraries (default: the installed ones of {','.join(LIBS)})")
    ap.add_argument("--threads", type=int, default=2, help="numba, MKL, GraphBLAS and torch threads (default 2)")
    ap.add_argument("--calls", type=int, default=CALLS, help=f"timed calls a cell (default {CALLS})")
    ap.add_argument("--cap", type=float, default=CAP_S, help=f"seconds of timed calls a cell aims at most (default {CAP_S})")
    ap.add_argument("--warm", type=float, default=WARM_S, help=f"warm-up seconds of calls after the first (default {WARM_S})")
    ap.add_argument("--repeat-processes", type=int, default=1,
                    help="--peers: run the sparray column in this many fresh processes; report their medians' max/min")
    ap.add_argument("--mem-limit", type=float, default=None,
                    help="GiB of address space each process may take (default: 80%% of the memory available at "
                         "the start); an allocation past it fails in its cell instead of waking the OOM killer; 0: none")
    ap.add_argument("--json", default=None, help="write every raw time (and the children's reports) to this file")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(json.loads(args.child), args.json)
        return 0
    mode = "together" if args.together else "busy" if args.busy else "peers"
    args.sizes = SIZES if args.sizes is None else tuple(int(float(s)) for s in args.sizes.split(","))
    wanted = LIBS if args.libs is None else tuple(x.strip() for x in args.libs.split(",") if x.strip())
    unknown = [x for x in wanted if x not in LIBS]
    if unknown:
        ap.error(f"unknown libraries {unknown}; choose from {LIBS}")
    libs = [x for x in wanted if installed(x)]
    missing = [x for x in wanted if x not in libs]
    rows = _rows_for(args.only)
    if "sparray" not in libs or not rows:
        ap.error("nothing to run: sparray must be importable and --only must match a row")
    def log(s):
        print(s, flush=True)

    _header(args, mode, libs, missing, log)
    mem = mem_limit_default() if args.mem_limit is None else int(args.mem_limit * 2**30)
    spec = {"threads": args.threads, "rows": rows, "calls": args.calls, "cap": args.cap, "warm_s": args.warm,
            "mem_limit": mem or None}
    if mem:
        log(f"# each process may take {mem / 2**30:.1f} GiB of address space (--mem-limit)")
    t_start = time.perf_counter()
    results, layer_shown = [], False

    def run(lib_list, size, tag):
        nonlocal layer_shown
        res = run_child({**spec, "libs": list(lib_list), "size": size})
        res["tag"] = tag
        results.append(res)
        if not layer_shown and "layer" in res:
            log(f"# sparray runs on numba's {res['layer']!r} threading layer ({res.get('numba_threads')} threads)")
            layer_shown = True
        _log_child(res, log)
        return res

    if mode == "peers":
        spread = {"n": args.repeat_processes, "by": {}} if args.repeat_processes > 1 else None
        for size in args.sizes:
            for k in range(args.repeat_processes):
                res = run(["sparray"], size, f"sparray#{k}")
                if spread is not None and "rows" in res:
                    for op, row in res["rows"].items():
                        if (s := stats(row.get("sparray"))) is not None:
                            spread["by"].setdefault((size, op), []).append(s["median"])
            for lib in libs:
                if lib != "sparray":
                    run([lib], size, lib)
        table, inputs = _merge(results, libs)
        if spread is not None:  # the sparray cell: the process whose median is the median of the medians
            for res in results:
                for op, row in res.get("rows", {}).items():
                    s = stats(row.get("sparray")) if res["libs"] == ["sparray"] else None
                    ms = spread["by"].get((res["size"], op))
                    if s and ms and s["median"] == sorted(ms)[(len(ms) - 1) // 2]:
                        table[res["size"]][op]["sparray"] = row["sparray"]
        _inputs(inputs, log)
        peers_table(table, args.sizes, libs, args.calls, spread, log)
    elif mode == "together":
        for size in args.sizes:
            run(libs, size, "together")
            run(["sparray"], size, "alone")
        table, inputs = _merge([r for r in results if r["tag"] == "together"], libs)
        alone, _ = _merge([r for r in results if r["tag"] == "alone"], libs)
        _inputs(inputs, log)
        together_table(table, alone, args.sizes, libs, args.calls, log)
    else:
        for size in args.sizes:
            for lib in libs:
                run([lib], size, "quiet")
        with Spinner() as spin:
            log(f"# spinner pid {spin.proc.pid} on cpu {spin.cpu}")
            for size in args.sizes:
                for lib in libs:
                    run([lib], size, "busy")
        quiet, inputs = _merge([r for r in results if r["tag"] == "quiet"], libs)
        busy, _ = _merge([r for r in results if r["tag"] == "busy"], libs)
        _inputs(inputs, log)
        busy_table(quiet, busy, args.sizes, libs, args.calls, log)
    log(f"\n# cells: median of the calls [max/min of the calls; in --busy max/median], '!' past the issue's target "
        f"(max/min {SPREAD_MARK}, max/median 5, busy/quiet 1.5, medians of fresh processes 1.2); sys: system time a "
        "call where at least a tenth of it; CHECK: the result differs from scipy's (see the lines above)")
    log(f"# run took {time.perf_counter() - t_start:.0f} s; load average at end "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mode": mode, "argv": argv, "libs": libs, "versions": versions(), "threads": args.threads,
                       "results": results}, f, indent=1)
    return 0 if not any("failed" in r for r in results) else 1


def _inputs(inputs, log):
    for size in sorted(inputs):
        log(f"# {fmt_size(size)}: {inputs[size]}")


if __name__ == "__main__":
    sys.exit(main())
