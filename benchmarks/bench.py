#!/usr/bin/env python
"""Benchmark sparray against scipy.sparse, pydata ``sparse`` and torch (CPU).

    python benchmarks/bench.py                 # full run, ~1e7 nse per matrix
    python benchmarks/bench.py --quick         # ~1e5 nse, smoke test
    python benchmarks/bench.py --only sum      # cases whose "name matrix" contains "sum"
    python benchmarks/bench.py --only "sum,max"  # ... contains "sum" or "max"
    python benchmarks/bench.py --list          # list the cases
    python benchmarks/bench.py --sweep         # every common op at 1e3 ... 1e7 entries (sweep.py)
    python benchmarks/bench.py --solvers       # cg, minres, bicgstab, gmres, eigsh beside scipy (solvers.py)
    python benchmarks/bench.py --peers         # beside scipy, MKL, GraphBLAS, torch at 1e3 ... 1e7, each in its own process (peers.py)
    python benchmarks/bench.py --together      # the same libraries in one process, their calls interleaved
    python benchmarks/bench.py --busy          # the peers table with another process spinning on one core
    python benchmarks/bench.py --semi          # 2:4 products beside dense NumPy and CSR, 4096 and 8192 (semi.py)
    python benchmarks/bench.py --graph         # sparray.graph beside SuiteSparse:GraphBLAS on R-MAT and grid graphs (bench_graph.py)
    python benchmarks/bench.py --graph-algorithms  # BFS, SSSP, PageRank, CC, SCC, TC beside GraphBLAS (LAGraph recipes), csgraph, networkx (bench_graph_algorithms.py)

Each cell is the median of ``--repeat`` timed calls on prepared inputs, after
one untimed warm-up call (which also JIT-compiles). The libraries' timed calls
alternate (one of each per round), so a slow spell of a shared host lands on
every column alike. Ratios are ``peer_time / sparray_time``: above 1 means
sparray is faster. Each case runs in a fresh process of its own (every library
of the row in that one process), so no row inherits the allocator state the
rows before it left (:func:`run_isolated`); ``--one-process`` (the default with
``--quick``) runs them all in this process.

Adding a row is one ``Case(...)`` entry in :func:`build_cases`: a name, the
matrix (or matrices) it runs on, a ``setup(lib, mats)`` that prepares the
inputs for one library (untimed) and a dict ``{lib: fn}``; ``fn(*inputs)`` is
what is timed.  A library that cannot be imported prints ``n/a``; an exception
in setup or in the timed call prints ``err[k]`` with the error class in
footnote ``k``; the run goes on.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# the main table times the kernels: they compile in this process on first use (the warm-up call),
# not in the background while the generic path answers (sparray._engine.jit)
os.environ["SPARRAY_JIT"] = "eager"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# fall back to the checkout's sparray when it is not installed (a site-packages install comes first)
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import host_cores  # noqa: E402
import matrices  # noqa: E402
import warm_memory  # noqa: E402

LIBS = ("sparray", "scipy", "sparse", "torch")
PEERS = LIBS[1:]
LIB_MODULES = {"sparray": "sparray", "scipy": "scipy.sparse", "sparse": "sparse", "torch": "torch"}
# bytes touched before each timed run (warm_memory.py): the warm-up's peak above the resident size
# before it, plus a slack (memory the garbage collection freed inside it, the allocator's own),
# at most _MAX_FOOTPRINT; _DEFAULT_FOOTPRINT where the kernel does not report peaks
_FOOTPRINT_SLACK = 64 << 20
_DEFAULT_FOOTPRINT = 1 << 30
_MAX_FOOTPRINT = 4 << 30

# --------------------------------------------------------------------------
# Library loading (lazy; an ImportError makes the whole column n/a)

_modules: dict[str, Any] = {}
_import_errors: dict[str, BaseException] = {}


def lib(name: str):
    """Import (once) and return the module for a library column."""
    if name in _import_errors:
        raise _import_errors[name]
    if name not in _modules:
        try:
            _modules[name] = importlib.import_module(LIB_MODULES[name])
        except ImportError as exc:
            _import_errors[name] = exc
            raise
    return _modules[name]


class NotAvailable(Exception):
    """Raised by a setup when a library column does not apply."""


# --------------------------------------------------------------------------
# Matrices: generated on demand, kept in memory only while a case needs them

Mat = tuple  # (row, col, values, shape)


@dataclass
class MatrixStore:
    scale: float
    mats: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def get(self, name: str) -> Mat:
        if name not in self.mats:
            t0 = time.perf_counter()
            m = matrices.get(name, self.scale)
            dt = time.perf_counter() - t0
            self.mats[name] = m
            if name not in self.info:
                row, col, _, shape = m
                self.info[name] = dict(
                    shape=shape, nse=len(row), gen_s=dt,
                    dup=matrices.duplicate_fraction(row, col, shape),
                )
        return self.mats[name]

    def drop(self, keep: set):
        for name in list(self.mats):
            if name not in keep:
                del self.mats[name]


def indices2(m: Mat) -> np.ndarray:
    """(2, nse) int64 index array."""
    row, col, _, _ = m
    return np.stack([row, col])


# --------------------------------------------------------------------------
# Setups: (lib, mats) -> tuple of inputs for fn.  Untimed.

def raw_input(libname: str, mats):
    """Raw buffers, ready for each library's constructor (nothing built yet)."""
    (m,) = mats
    row, col, val, shape = m
    if libname == "sparray":
        lib("sparray")
        return (indices2(m), val, shape)
    if libname == "scipy":
        lib("scipy")
        return (row, col, val, shape)
    if libname == "sparse":
        lib("sparse")
        return (indices2(m), val, shape)
    if libname == "torch":
        torch = lib("torch")
        return (torch.from_numpy(indices2(m)), torch.from_numpy(val), shape)
    raise NotAvailable(libname)


def _coalesced_one(libname: str, m: Mat):
    row, col, val, shape = m
    if libname == "sparray":
        sparray = lib("sparray")
        A = sparray.COO(indices2(m), val, shape).coalesce()
        if not A.is_coalesced:
            raise RuntimeError("sparray: coalesce() result has is_coalesced False")
        return A
    if libname == "scipy":
        sp = lib("scipy")
        A = sp.csr_array((val, (row, col)), shape=shape)  # sums duplicates
        A.sum_duplicates()
        A.sort_indices()
        return A
    if libname == "sparse":
        sparse = lib("sparse")
        return sparse.COO(indices2(m), val, shape, has_duplicates=True, sorted=False)
    if libname == "torch":
        torch = lib("torch")
        t = torch.sparse_coo_tensor(torch.from_numpy(indices2(m)), torch.from_numpy(val), shape,
                                    check_invariants=False)
        return t.coalesce()
    raise NotAvailable(libname)


def coalesced(libname: str, mats):
    """Coalesced arrays: sparray COO, scipy csr_array (canonical), pydata COO,
    torch coalesced sparse COO tensor."""
    return tuple(_coalesced_one(libname, m) for m in mats)


def coalesced_coo(libname: str, mats):
    """Coalesced COO input of each library: sparray COO, scipy coo_array in canonical format
    (sorted, no duplicates), pydata COO, torch coalesced sparse COO tensor."""
    (m,) = mats
    if libname == "scipy":
        A = _coalesced_one("scipy", m).tocoo()
        if not A.has_canonical_format:
            raise RuntimeError("scipy: csr_array.tocoo() is not in canonical format")
        return (A,)
    return (_coalesced_one(libname, m),)


def csr_input(libname: str, mats):
    """Each library's CSR with int32 indices (``cases_linalg._csr``: scipy's canonical csr_array,
    which would keep the int64 of the coordinates, cast to int32, and every library's CSR of it)."""
    from cases_linalg import _csr

    return tuple(_csr(libname, m) for m in mats)


def dense_input(libname: str, mats):
    """The dense float64 C-contiguous NumPy array (every library gets a NumPy array)."""
    (m,) = mats
    lib(libname)
    return (matrices.to_dense(*m),)


# --------------------------------------------------------------------------
# Timed functions

def sp_coalesce(idx, val, shape):
    return lib("sparray").COO(idx, val, shape).coalesce()


def scipy_coalesce(row, col, val, shape):
    A = lib("scipy").coo_array((val, (row, col)), shape=shape)
    A.sum_duplicates()  # in place; A is built fresh inside the timed call
    return A


def pydata_coalesce(coords, val, shape):
    # pydata sorts and sums duplicates at construction
    return lib("sparse").COO(coords, val, shape, has_duplicates=True, sorted=False)


def torch_coalesce(idx, val, shape):
    return lib("torch").sparse_coo_tensor(idx, val, shape, check_invariants=False).coalesce()


def add(a, b):
    return a + b


def sp_to_layout(layout):
    return lambda A: A.to_layout(layout)


def pydata_compress(axis):
    # GCXS with compressed_axes=(0,) is pydata's CSR (COO.tocsr() would return a scipy csr_array)
    return lambda A: A.asformat("gcxs", compressed_axes=[axis])


def sp_dense_to_csr(D):
    return lib("sparray").asarray(D, layout="csr")


def scipy_dense_to_csr(D):
    return lib("scipy").csr_array(D)


def pydata_dense_to_csr(D):
    return lib("sparse").GCXS.from_numpy(D, compressed_axes=[0])


def torch_dense_to_csr(D):
    return lib("torch").from_numpy(D).to_sparse_csr()


def sparray_sum(axis, dense=False):
    def f(A):
        r = lib("sparray").sum(A, axis=axis)
        return r.to_dense() if dense else r
    return f


def sparray_reduce(kind, axis):
    return lambda A: getattr(lib("sparray"), kind)(A, axis=axis)


def scipy_sum(axis):
    return lambda A: A.sum(axis=axis)  # returns a dense 1-D ndarray


def pydata_sum(axis, dense=False):
    def f(A):
        r = A.sum(axis=axis)
        return r.todense() if dense else r
    return f


def torch_sum(axis, dense=False):
    def f(A):
        r = lib("torch").sparse.sum(A, dim=axis)
        return r.to_dense() if dense else r
    return f


# --------------------------------------------------------------------------
# Result normalisation for the (untimed) cross-check against scipy

def triplets(libname: str, x):
    """(linear index sorted, values) of a 2-D result, duplicates summed."""
    if libname == "sparray":
        idx = np.asarray(x.indices)
        val = np.asarray(x.values)
        shape = x.shape
        row, col = idx[0], idx[1]
    elif libname == "scipy":
        c = x.tocoo()
        c.sum_duplicates()
        row, col, val, shape = c.row, c.col, c.data, c.shape
    elif libname == "sparse":
        row, col, val, shape = x.coords[0], x.coords[1], x.data, x.shape
    elif libname == "torch":
        if not x.is_coalesced():
            x = x.coalesce()
        idx = x.indices().numpy()
        row, col, val, shape = idx[0], idx[1], x.values().numpy(), tuple(x.shape)
    else:
        raise ValueError(libname)
    lin = np.asarray(row, dtype=np.int64) * int(shape[1]) + np.asarray(col, dtype=np.int64)
    order = np.argsort(lin, kind="stable")
    return tuple(shape), lin[order], np.asarray(val)[order]


def compare_triplets(a, b) -> str | None:
    (sa, la, va), (sb, lb, vb) = a, b
    if sa != sb:
        return f"shape {sa} != {sb}"
    if la.shape != lb.shape:
        return f"nse {la.size} != {lb.size}"
    if not np.array_equal(la, lb):
        return "indices differ"
    if not np.allclose(va, vb, rtol=1e-9, atol=1e-9):
        return "values differ"
    return None


def dense1d(libname: str, x):
    if libname == "scipy" and hasattr(x, "toarray"):  # e.g. csr_array.max(axis): a sparse result
        x = x.toarray()
    if libname == "sparray":
        x = x.to_dense() if hasattr(x, "to_dense") else x
    elif libname == "sparse":
        x = x.todense() if hasattr(x, "todense") else x
    elif libname == "torch":
        x = x.to_dense() if x.layout != lib("torch").strided else x
        x = x.numpy()
    return np.asarray(x).ravel()


def compare_dense(a, b) -> str | None:
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    if not np.allclose(a, b, rtol=1e-9, atol=1e-9):
        return f"values differ (max abs diff {np.max(np.abs(a - b)):.3g})"
    return None


def compressed(libname: str, x):
    """(kind, shape, pointers, indices, values) of a 2-D CSR ("csr") or CSC ("csc") result,
    as NumPy arrays (pointers and indices as int64)."""
    if libname == "sparray":
        if hasattr(x, "crow_indices"):
            kind, ptr, idx = "csr", x.crow_indices, x.col_indices
        elif hasattr(x, "ccol_indices"):
            kind, ptr, idx = "csc", x.ccol_indices, x.row_indices
        else:
            raise TypeError(f"not CSR or CSC: {type(x).__name__}")
        val, shape = x.values, tuple(x.shape)
    elif libname == "scipy":
        if x.format not in ("csr", "csc"):
            raise TypeError(f"scipy format {x.format!r}")
        kind, ptr, idx, val, shape = x.format, x.indptr, x.indices, x.data, x.shape
    elif libname == "sparse":
        axes = tuple(x.compressed_axes)
        if x.ndim != 2 or axes not in ((0,), (1,)):
            raise TypeError(f"pydata {type(x).__name__} with compressed_axes={axes}")
        kind = "csr" if axes == (0,) else "csc"
        ptr, idx, val, shape = x.indptr, x.indices, x.data, x.shape
    elif libname == "torch":
        torch = lib("torch")
        if x.layout == torch.sparse_csr:
            kind, ptr, idx = "csr", x.crow_indices(), x.col_indices()
        elif x.layout == torch.sparse_csc:
            kind, ptr, idx = "csc", x.ccol_indices(), x.row_indices()
        else:
            raise TypeError(f"torch layout {x.layout}")
        ptr, idx, val, shape = ptr.numpy(), idx.numpy(), x.values().numpy(), tuple(x.shape)
    else:
        raise ValueError(libname)
    return (kind, tuple(int(n) for n in shape), np.asarray(ptr).astype(np.int64),
            np.asarray(idx).astype(np.int64), np.asarray(val))


def _sort_segments(ptr, idx, val):
    major = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    order = np.lexsort((idx, major))
    return idx[order], val[order]


def compare_compressed(a, b) -> str | None:
    (ka, sa, pa, ia, va), (kb, sb, pb, ib, vb) = a, b
    if ka != kb:
        return f"layout {ka} != {kb}"
    if sa != sb:
        return f"shape {sa} != {sb}"
    if ia.size != ib.size or va.size != vb.size:
        return f"nse {ia.size} != {ib.size}"
    if not np.array_equal(pa, pb):
        return "compressed (pointer) indices differ"
    if not np.array_equal(ia, ib):
        sa_, sva = _sort_segments(pa, ia, va)
        sb_, svb = _sort_segments(pb, ib, vb)
        if np.array_equal(sa_, sb_) and np.allclose(sva, svb, rtol=1e-9, atol=1e-9):
            return "same entries, but the plain indices are not sorted within each row/column"
        return "plain indices differ"
    if not np.allclose(va, vb, rtol=1e-9, atol=1e-9):
        return "values differ"
    return None


def compare_compressed_any_order(a, b) -> str | None:
    """Like compare_compressed, but the order within a row does not matter (scipy's SpGEMM
    leaves rows unsorted)."""
    msg = compare_compressed(a, b)
    return None if msg and msg.startswith("same entries") else msg


CHECKS = {
    "compressed_any_order": (compressed, compare_compressed_any_order),
    "coo2d": (triplets, compare_triplets),
    "dense1d": (dense1d, compare_dense),
    "compressed": (compressed, compare_compressed),
}


# --------------------------------------------------------------------------
# Cases

@dataclass
class Case:
    name: str
    matrix: str | tuple  # matrix name, or tuple of names (one per operand)
    setup: Callable  # setup(lib, mats) -> tuple of inputs (untimed)
    fns: dict  # {lib: fn}; fn(*inputs) is timed
    fresh: bool = False  # re-run setup before every call (fn consumes its input)
    check: str | None = None  # key into CHECKS: cross-check results against scipy
    slow: tuple = ()  # libs skipped with --skip-slow
    note: str = ""
    number: int = 1  # at most this many calls per timed run (time per call): for O(1) ops
    bytes: Callable | None = None  # bytes(mat) a perfect kernel moves: adds a bandwidth row

    @property
    def matrices(self) -> tuple:
        return (self.matrix,) if isinstance(self.matrix, str) else tuple(self.matrix)

    @property
    def label(self) -> str:
        return f"{self.name} {'+'.join(self.matrices)}"


def build_cases() -> list:
    cases = [
        Case("coalesce", "rmat", raw_input,
             {"sparray": sp_coalesce, "scipy": scipy_coalesce,
              "sparse": pydata_coalesce, "torch": torch_coalesce},
             check="coo2d",
             note="construction from (2, nse) index + value buffers plus coalesce, for every "
                  "library (pydata coalesces at construction; scipy coo_array + sum_duplicates)"),
    ]
    pairs = (("uniform", "uniform_b"), ("rmat", "rmat_t"), ("poisson", "poisson_t"))
    for pair in pairs:
        cases.append(Case(
            "A + B", pair, coalesced,
            {"sparray": add, "scipy": add, "sparse": add, "torch": add},
            check="coo2d", slow=("sparse",),
            note="coalesced inputs, int64 indices; scipy uses csr_array + csr_array (its fast path); "
                 "X_t is X's transpose (poisson is symmetric: one pattern)"))
    for pair in pairs:
        cases.append(Case(
            "A + B (CSR)", pair, csr_input,
            {"sparray": add, "scipy": add, "sparse": add, "torch": add},
            check="compressed", slow=("sparse",),
            note="CSR + CSR with int32 indices for every library (pydata GCXS); a transpose is "
                 "converted to CSR in setup, as a user would"))
    for mat in ("uniform", "rmat", "poisson"):
        for axis in (0, 1):
            cases.append(Case(
                f"sum(axis={axis})", mat, coalesced,
                {"sparray": sparray_sum(axis), "scipy": scipy_sum(axis),
                 "sparse": pydata_sum(axis), "torch": torch_sum(axis)},
                check="dense1d", slow=("sparse",) if axis == 0 else (),
                note="native result type: 1-D sparse for sparray/pydata/torch, dense "
                     "ndarray for scipy csr_array"))
            cases.append(Case(
                f"max(axis={axis})", mat, coalesced,
                {"sparray": sparray_reduce("max", axis), "scipy": lambda A, axis=axis: A.max(axis=axis),
                 "sparse": lambda A, axis=axis: A.max(axis=axis)},
                check="dense1d", slow=("sparse",) if axis == 0 else (),
                note="max from each library's coalesced COO (scipy: its canonical csr_array); torch has "
                     "no max of a sparse tensor (amax is not implemented for the sparse layouts)"))
    for mat in ("uniform", "rmat", "poisson"):
        for axis in (0, 1):
            cases.append(Case(
                f"sum(axis={axis}) (CSR)", mat, csr_input,
                {"sparray": sparray_sum(axis), "scipy": scipy_sum(axis), "sparse": pydata_sum(axis)},
                check="dense1d", slow=("sparse",) if axis == 0 else (),
                note="from each library's CSR with int32 indices (pydata GCXS), the layout a CSR user "
                     "holds; torch has no sum or max of a sparse CSR tensor"))
            cases.append(Case(
                f"max(axis={axis}) (CSR)", mat, csr_input,
                {"sparray": sparray_reduce("max", axis), "scipy": lambda A, axis=axis: A.max(axis=axis),
                 "sparse": lambda A, axis=axis: A.max(axis=axis)},
                check="dense1d", slow=("sparse",) if axis == 0 else (),
                note="max from each library's CSR with int32 indices; results sparse (scipy: a coo_array)"))
    for axis in (0, 1):
        cases.append(Case(
            f"sum(axis={axis})->dense", "uniform", coalesced,
            {"sparray": sparray_sum(axis, True), "scipy": scipy_sum(axis),
             "sparse": pydata_sum(axis, True), "torch": torch_sum(axis, True)},
            check="dense1d", slow=("sparse",) if axis == 0 else (),
            note="sum followed by conversion to a dense 1-D array (scipy: no conversion needed)"))
    for mat in ("uniform", "rmat", "poisson"):
        cases.append(Case(
            "COO->CSR", mat, coalesced_coo,
            {"sparray": sp_to_layout("csr"), "scipy": lambda A: A.tocsr(),
             "sparse": pydata_compress(0), "torch": lambda t: t.to_sparse_csr()},
            check="compressed",
            note="coalesced COO to CSR: sparray to_layout('csr'), scipy coo_array.tocsr(), pydata "
                 "asformat('gcxs', compressed_axes=[0]), torch to_sparse_csr()"))
    for mat in ("uniform", "rmat", "poisson"):
        cases.append(Case(
            "CSR->CSC", mat, csr_input,
            {"sparray": sp_to_layout("csc"), "scipy": lambda A: A.tocsc(),
             "sparse": pydata_compress(1), "torch": lambda t: t.to_sparse_csc()},
            check="compressed",
            note="CSR to CSC (a real conversion): sparray to_layout('csc'), scipy tocsc(), pydata "
                 "GCXS asformat('gcxs', compressed_axes=[1]), torch to_sparse_csc()"))
    # same matrix and setup as the row before it, so the prepared CSR inputs are reused
    cases.append(Case(
        "transpose CSR", "poisson", csr_input,
        {"sparray": lambda A: A.mT, "scipy": lambda A: A.T, "sparse": lambda A: A.T,
         "torch": lambda t: t.mT},
        check="compressed", number=1000,
        note="O(1) transpose of a CSR (a CSC view of the same buffers): sparray A.mT, scipy / "
             "pydata A.T, torch t.mT; a timed run repeats the call up to 1000 times (~20 ms) "
             "and reports the time per call"))
    cases.append(Case(
        "dense->CSR", "dense10", dense_input,
        {"sparray": sp_dense_to_csr, "scipy": scipy_dense_to_csr,
         "sparse": pydata_dense_to_csr, "torch": torch_dense_to_csr},
        check="compressed",
        note="5000 x 5000 float64 NumPy array, 10% non-zero, to CSR: sparray asarray(D, "
             "layout='csr'), scipy csr_array(D), pydata GCXS.from_numpy(D, compressed_axes=[0]), "
             "torch from_numpy(D).to_sparse_csr()"))
    from cases_linalg import linalg_cases

    cases += linalg_cases(Case, lib, NotAvailable)
    from cases_indexing import indexing_cases

    cases += indexing_cases(Case, lib, NotAvailable)
    from cases_io import io_cases

    cases += io_cases(Case, lib, NotAvailable)
    return cases


# --------------------------------------------------------------------------
# Timing

@dataclass
class Cell:
    time: float | None = None  # median seconds
    status: str = "ok"  # ok | n/a | err | skip | cap
    n: int = 0  # timed runs
    warm: float | None = None
    error: str | None = None
    mismatch: str | None = None
    backends: list = field(default_factory=list)  # sparray: op[layout]:backend seen in warm-up
    warnings: list = field(default_factory=list)  # warnings raised by the warm-up call
    number: int = 1  # calls per timed run (the time is per call)


def _timed(fn, args, number=1):
    """Seconds per call of ``fn(*args)`` (mean over ``number`` back-to-back calls) and the
    last result."""
    gc.collect()
    gc.disable()
    try:
        if number == 1:
            t0 = time.perf_counter()
            res = fn(*args)
            dt = time.perf_counter() - t0
        else:
            t0 = time.perf_counter()
            for _ in range(number):
                res = fn(*args)
            dt = (time.perf_counter() - t0) / number
    finally:
        gc.enable()
    return dt, res


@contextlib.contextmanager
def trace_sparray():
    """Record which implementation sparray's registry picks for each op (warm-up call only).

    Read-only instrumentation of ``sparray._engine.dispatch._lookup``; yields None when the
    internals are not there.
    """
    try:
        d = importlib.import_module("sparray._engine.dispatch")
        orig = d._lookup
    except Exception:  # noqa: BLE001
        yield None
        return
    seen: list = []

    def traced(op, layout, xp, *rest):
        out = orig(op, layout, xp, *rest)  # (backend, implementation, ...): passed on whole
        tag = f"{op}[{layout}]:{out[0]}"
        if tag not in seen:
            seen.append(tag)
        return out

    d._lookup = traced
    try:
        yield seen
    finally:
        d._lookup = orig


@dataclass
class Runs:
    """One library's timed runs of a case, taken one at a time so that the libraries' runs can
    alternate (:func:`run_rounds`): up to ``repeat`` runs, at least one, and no new run once the
    cell's total time (warm-up included) would go over ``cap``. The estimate for the next run is
    the last timed run, not the warm-up (which may include JIT compilation). Before each run,
    untimed, ``footprint`` bytes (the warm-up's peak) are allocated, touched and freed, so that
    the run allocates recently used memory whichever library ran before it (see warm_memory.py)."""

    fn: Callable
    get_args: Callable  # the cached input, or a new one per call for a case that consumes it
    number: int
    repeat: int
    cap: float
    spent: float
    estimate: float
    footprint: int = 0
    times: list = field(default_factory=list)

    def wants_more(self) -> bool:
        return len(self.times) < self.repeat and (not self.times or self.spent + self.estimate <= self.cap)

    def run_once(self) -> None:
        args = self.get_args()
        warm_memory.warm(self.footprint)
        dt, res = _timed(self.fn, args, self.number)
        del res, args
        self.times.append(dt)
        self.spent += dt * self.number
        self.estimate = dt * self.number


def prepare_cell(case: Case, libname: str, mats, repeat: int, cap: float, cache: dict,
                 reference: dict) -> tuple[Cell, Runs | None]:
    """The untimed part of a cell: inputs, the warm-up call (which JIT-compiles), the result
    check and, for a fast op, how many calls one timed run makes. Returns the cell and its
    :class:`Runs` (None when the cell is n/a, failed or went over the cap in the warm-up)."""
    fn = case.fns.get(libname)
    if fn is None:
        return Cell(status="n/a", error="no implementation for this case"), None
    try:
        lib(libname)
    except ImportError as exc:
        return Cell(status="n/a", error=f"{type(exc).__name__}: {exc}"), None

    def get_args():
        if case.fresh:
            return case.setup(libname, mats)
        key = (case.setup, case.matrices, libname)
        if key not in cache:
            cache[key] = case.setup(libname, mats)
        return cache[key]

    stage = "setup"
    try:
        args = get_args()
        stage = "call"
        with warnings.catch_warnings(record=True) as caught, \
                (trace_sparray() if libname == "sparray" else contextlib.nullcontext()) as seen:
            warnings.simplefilter("always")
            gc.collect()  # garbage freed during the call would hide part of its peak
            base = warm_memory.reset_peak()
            warm, res = _timed(fn, args)
            peak = warm_memory.peak_above(base)
            footprint = _DEFAULT_FOOTPRINT if peak is None else min(peak + _FOOTPRINT_SLACK, _MAX_FOOTPRINT)
        cell = Cell(warm=warm, backends=list(seen or []),
                    warnings=sorted({f"{w.category.__name__}: {w.message}"[:240] for w in caught}))
        if case.check:
            stage = "check"
            normalise, compare = CHECKS[case.check]
            try:
                got = normalise(libname, res)
            except Exception as exc:  # noqa: BLE001
                cell.mismatch = f"result not checkable ({type(exc).__name__}: {exc})"
            else:
                if libname == "scipy":  # scipy runs first and is the reference
                    reference["ref"] = got
                elif "ref" in reference:
                    msg = compare(got, reference["ref"])
                    if msg:
                        cell.mismatch = f"differs from scipy: {msg}"
        del res
        stage = "call"
        if warm > cap:
            cell.status = "cap"
            return cell, None
        spent, estimate = warm, warm
        number = 1
        if case.number > 1 and not case.fresh:
            # calls per timed run for a fast op: up to case.number, about 20 ms per run, sized
            # from the faster of two untimed probe calls (the warm-up may include one-off start-up
            # costs, and so may the first call after it: a 5 ms SpMV probed at over 10 ms)
            probes = []
            for _ in range(2):
                t, res = _timed(fn, args)
                del res
                probes.append(t)
            probe = min(probes)
            spent += sum(probes)
            number = max(1, min(case.number, int(0.02 / max(probe, 1e-9))))
            estimate = probe * number
        cell.number = number
        if case.fresh:
            del args  # each timed run makes its own input
        return cell, Runs(fn, get_args, number, repeat, cap, spent, estimate, footprint)
    except Exception as exc:  # noqa: BLE001
        return Cell(status="err", error=f"{stage}: {type(exc).__name__}: {str(exc)[:200]}"), None


def run_rounds(cells: dict, runs: dict, between: Callable | None = None) -> None:
    """Time the prepared cells in rounds, one run of each library per round in turn, until each
    has its runs; ``between()`` runs at the start of each round (the triad of a bandwidth row).
    On a shared host the speed on offer drifts by 1.5-2.5x over minutes: with each library's runs
    back to back, a slow spell lands on one column and moves its ratio; alternating, every column
    sees the same spells, and the medians compare like with like. Each cell's time is the median
    of its runs."""
    while any(r.wants_more() for r in runs.values()):
        if between is not None:
            between()
        for libname, r in runs.items():
            if not r.wants_more():
                continue
            try:
                r.run_once()
            except Exception as exc:  # noqa: BLE001
                cells[libname] = Cell(status="err", error=f"call: {type(exc).__name__}: {str(exc)[:200]}")
                r.repeat = len(r.times)  # no more runs
    for libname, r in runs.items():
        if cells[libname].status == "ok" and r.times:
            cells[libname].time = statistics.median(r.times)
            cells[libname].n = len(r.times)


def run_cell(case: Case, libname: str, mats, repeat: int, cap: float, cache: dict, reference: dict) -> Cell:
    """One library's cell on its own: :func:`prepare_cell`, then its runs back to back."""
    cell, runs = prepare_cell(case, libname, mats, repeat, cap, cache, reference)
    if runs is None:
        return cell
    cells = {libname: cell}
    run_rounds(cells, {libname: runs})
    return cells[libname]

# --------------------------------------------------------------------------
# First-call subprocess

_FIRST_CALL_CHILD = r"""
import json, sys, time
libname, ops = sys.argv[1], sys.argv[2].split(",")
out = {"lib": libname, "ops": {}}
try:
    t0 = time.perf_counter()
    if libname == "sparray":
        import sparray as L
    elif libname == "scipy":
        import scipy.sparse as L
    elif libname == "sparse":
        import sparse as L
    elif libname == "torch":
        import torch as L
    out["import"] = time.perf_counter() - t0
except Exception as exc:
    out["error"] = f"import: {type(exc).__name__}: {str(exc)[:200]}"
    print("FIRSTCALL " + json.dumps(out))
    sys.exit(0)
import numpy as np
nse = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
n = 1000 if nse <= 5000 else 100_000

def raw(seed):
    r = np.random.default_rng(seed)
    return r.integers(0, n, nse), r.integers(0, n, nse), r.random(nse), (n, n)

def build(row, col, val, shape):  # coalesced input
    if libname == "sparray":
        return L.COO(np.stack([row, col]), val, shape).coalesce()
    if libname == "scipy":
        return L.csr_array((val, (row, col)), shape=shape)
    if libname == "sparse":
        return L.COO(np.stack([row, col]), val, shape, has_duplicates=True, sorted=False)
    return L.sparse_coo_tensor(L.from_numpy(np.stack([row, col])), L.from_numpy(val), shape,
                               check_invariants=False).coalesce()

def prepare(op):  # untimed; returns the function whose first call is timed
    if op == "coalesce":  # construction + coalesce, as in the main table
        row, col, val, shape = raw(1)
        idx = np.stack([row, col])
        if libname == "sparray":
            return lambda: L.COO(idx, val, shape).coalesce()
        if libname == "scipy":
            def f():
                A = L.coo_array((val, (row, col)), shape=shape)
                A.sum_duplicates()
                return A
            return f
        if libname == "sparse":
            return lambda: L.COO(idx, val, shape, has_duplicates=True, sorted=False)
        ti, tv = L.from_numpy(idx), L.from_numpy(val)
        return lambda: L.sparse_coo_tensor(ti, tv, shape, check_invariants=False).coalesce()
    if op == "add":
        A, B = build(*raw(1)), build(*raw(2))
        return lambda: A + B
    if op in ("spmv", "spgemm"):
        A = build(*raw(1))
        if libname == "sparray":
            A = A.to_layout("csr")
        elif libname == "torch":
            A = A.to_sparse_csr()
        if op == "spgemm":
            return lambda: A @ A
        x = np.ones(n) if libname != "torch" else L.ones(n, dtype=L.float64)
        return lambda: A @ x
    axis = int(op[-1])  # sum0 / sum1
    A = build(*raw(1))
    if libname == "sparray":
        return lambda: L.sum(A, axis=axis)
    if libname == "torch":
        return lambda: L.sparse.sum(A, dim=axis)
    return lambda: A.sum(axis=axis)

for op in ops:
    try:
        f = prepare(op)
        t0 = time.perf_counter()
        f()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        f()
        out["ops"][op] = {"first": first, "second": time.perf_counter() - t0}
    except Exception as exc:
        out["ops"][op] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
if libname == "sparray":  # let background compiles finish (untimed), so none outlives this process
    from sparray._engine import jit as _jit
    _jit.wait(300)
print("FIRSTCALL " + json.dumps(out))
"""

FIRST_CALL_OPS = ("coalesce", "add", "sum0", "sum1", "spmv", "spgemm")
# small: below sparray's JIT threshold (its generic NumPy path runs, numba is never imported);
# large: the numba kernels run, so their start-up (numba import, cached code load) is included
FIRST_CALL_SIZES = (5_000, 1_000_000)


def run_first_call(libname: str, ops, threads: int, timeout: float = 300.0, nse: int = 5000, env_extra=None) -> dict:
    """Run the first-call child for ``ops`` (a list) in a fresh process; returns its report.
    ``env_extra``: environment overrides (sparray's JIT mode, an empty kernel cache folder)."""
    env = dict(os.environ, SPARRAY_JIT="background")
    env.update(env_extra or {})
    env["NUMBA_NUM_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    env["PYTHONWARNINGS"] = "ignore"
    try:
        p = subprocess.run([sys.executable, "-c", _FIRST_CALL_CHILD, libname, ",".join(ops), str(nse)],
                           capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    except subprocess.TimeoutExpired:
        return {"error": f"TimeoutExpired: >{timeout:.0f}s"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("FIRSTCALL "):
            return json.loads(line[len("FIRSTCALL "):])
    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": f"child exit {p.returncode}: {tail[:200]}"}


# --------------------------------------------------------------------------
# Formatting

def fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.1f} ms" if t < 0.1 else f"{t * 1e3:.0f} ms"
    if t >= 1e-5:
        return f"{t * 1e6:.0f} us"
    if t >= 1e-6:
        return f"{t * 1e6:.1f} us"
    return f"{t * 1e9:.0f} ns"


def fmt_nse(n: int) -> str:
    return f"{n:.2e}".replace("e+0", "e").replace("e+", "e")


class Notes:
    def __init__(self):
        self.items: list[str] = []

    def add(self, text: str) -> int:
        if text in self.items:
            return self.items.index(text) + 1
        self.items.append(text)
        return len(self.items)


def cell_text(cell: Cell, libname: str, case: Case, notes: Notes) -> str:
    if cell.status == "n/a":
        if cell.error:
            return f"n/a[{notes.add(f'{libname}: {cell.error}')}]"
        return "n/a"
    if cell.status == "err":
        return f"err[{notes.add(f'{libname} / {case.label}: {cell.error}')}]"
    if cell.status == "skip":
        return "skip(slow)"
    if cell.status == "cap":
        k = notes.add(f"{libname} / {case.label}: warm-up call took {fmt_time(cell.warm)}, over "
                      f"the per-cell cap; not timed")
        return f">cap[{k}]"
    text = fmt_time(cell.time)
    marks = []
    if cell.n and cell.n < REPEAT_REQUESTED[0]:
        marks.append(notes.add(f"{libname} / {case.label}: median of only {cell.n} run(s) "
                               f"(per-cell time cap)"))
    for w in cell.warnings:
        marks.append(notes.add(f"{libname} / {case.label}: warm-up call warned: {w}"))
    if cell.mismatch:
        marks.append(notes.add(f"{libname} / {case.label}: RESULT CHECK: {cell.mismatch}"))
    if marks:
        text += "[" + ",".join(map(str, marks)) + "]"
    return text


REPEAT_REQUESTED = [5]


def ratio_text(peer: Cell, base: Cell) -> str:
    if peer.time is None or base.time is None or base.time == 0:
        return "-"
    r = peer.time / base.time
    return f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def cores_text(cores: float | None, threads: int) -> str:
    """The cores column: the median of the row's :func:`host_cores.effective_cores` readings,
    marked '!' below ``host_cores.SHORT_OF`` of the threads; '-' when not measured (one thread).

    >>> cores_text(1.97, 2), cores_text(0.96, 2), cores_text(None, 1)
    ('1.97', '0.96!', '-')
    """
    if cores is None:
        return "-"
    return f"{cores:.2f}" + ("!" if host_cores.short(cores, threads) else "")


def print_table(header, rows, out=sys.stdout):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |"
    print(line, file=out)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=out)
    for r in rows:
        print("| " + " | ".join(str(x).ljust(w) for x, w in zip(r, widths)) + " |", file=out)


# --------------------------------------------------------------------------
# Machine info

def _version(name):
    try:
        mod = importlib.import_module(name)
        return getattr(mod, "__version__", "?")
    except Exception as exc:  # noqa: BLE001
        return f"not importable ({type(exc).__name__})"


def machine_info(threads: int) -> list:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = f"{kb / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        avail = len(os.sched_getaffinity(0))
    except AttributeError:
        avail = os.cpu_count()
    lines = [
        f"cpu: {cpu}; cores: {os.cpu_count()} (available: {avail}); memory: {mem}",
        f"python {platform.python_version()} on {platform.platform()}",
        "versions: " + ", ".join(
            f"{n} {_version(n)}" for n in ("numpy", "scipy", "numba", "torch", "sparse", "sparray")),
        f"threads: {threads} (numba, torch)",
    ]
    return lines


def set_threads(n: int) -> None:
    try:
        import numba
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    except ImportError:
        pass
    try:
        import torch
        torch.set_num_threads(n)
    except ImportError:
        pass


# --------------------------------------------------------------------------
# Main

def measure_case(case: Case, mats, args, cache: dict) -> dict:
    """One row: every library's cell of ``case`` on ``mats`` (prepared, then timed in alternating
    rounds), as the JSON-ready result: cells, the cores the threads got, and for a bandwidth row
    the bytes a perfect kernel moves and the STREAM triad measured beside it."""
    from cases_linalg import triad_bandwidth

    reference: dict = {}
    cells = {}
    runs = {}
    # scipy first so that it is the reference for the result check
    for libname in ("scipy", "sparray", "sparse", "torch"):
        if args.skip_slow and libname in case.slow:
            cells[libname] = Cell(status="skip")
            continue
        cells[libname], r = prepare_cell(case, libname, mats, args.repeat, args.cap, cache, reference)
        if r is not None:
            runs[libname] = r
    # the triad of a bandwidth row is measured in every round, beside the runs it divides: on
    # a shared host the bandwidth on offer moves by 1.5x within minutes, and a triad from the
    # start or end of the run mixes two machine states into one fraction
    # and the cores the threads get are read in every round too (host_cores.py): two threads on
    # one core (other work, or the hypervisor) halve a kernel on both and barely touch a
    # single-threaded peer
    triads: list = []
    cores_read: list = []

    def between(triads=triads, cores_read=cores_read, bandwidth=case.bytes is not None):
        if args.threads > 1:
            cores_read.append(host_cores.effective_cores(args.threads))
        if bandwidth:
            triads.append(triad_bandwidth(args.threads, repeat=3))

    run_rounds(cells, runs, between)
    result = {"case": case.name, "matrix": case.matrices, "nse": [len(m[0]) for m in mats],
              "cells": {k: vars(v) for k, v in cells.items()},
              "cores": statistics.median(cores_read) if cores_read else None}
    if triads:
        result["triad_bytes_per_s"] = statistics.median(triads)
    if case.bytes is not None:
        result["moved_bytes"] = case.bytes(*mats)
    return result


def run_in_process(cases: list, args, scale: float, t_start: float) -> tuple[list, dict]:
    """Every case in this process, one after another (``--one-process``, and ``--quick``): the
    results and the matrices' info. Prepared inputs are kept while consecutive cases share
    their matrices; each matrix is dropped after the last case that uses it."""
    store = MatrixStore(scale)
    results = []
    cache: dict = {}
    last_use = {}
    for i, c in enumerate(cases):
        for m in c.matrices:
            last_use[m] = i
    for i, case in enumerate(cases):
        try:
            mats = [store.get(m) for m in case.matrices]
        except Exception as exc:  # noqa: BLE001
            results.append({"case": case.name, "matrix": case.matrices,
                            "error": f"matrix {case.matrix}: {type(exc).__name__}: {exc}"})
            continue
        # keep prepared inputs only while consecutive cases share the matrices
        for key in [k for k in cache if k[1] != case.matrices]:
            del cache[key]
        gc.collect()
        results.append(measure_case(case, mats, args, cache))
        print(f"  done: {case.label} ({time.perf_counter() - t_start:.0f} s elapsed)", flush=True)
        store.drop({m for m, j in last_use.items() if j > i})
    cache.clear()
    store.drop(set())
    return results, store.info


def run_isolated(case: Case, index: int, args, scale: float, t_start: float) -> tuple[dict, dict]:
    """``case``, number ``index`` of :func:`build_cases`, in a fresh process of its own (the default): no row
    inherits what the rows before it left behind. In one long process, the allocator's state
    (glibc's mmap and trim thresholds move with what was freed before) decides whether a call's
    result lands on fresh pages, and a 16 MB result on fresh pages costs 2-7 ms on this VM: one
    row could read 1.4x in one full run and 2.0x in the next. Returns the result and the info of
    the matrices it generated; a process that fails gives a result with an ``error``."""
    with tempfile.TemporaryDirectory(prefix="sparray-bench-case-") as tmp:
        out = os.path.join(tmp, "case.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--case-index", str(index), "--case-json", out]
        options = {"scale": scale, "repeat": args.repeat, "threads": args.threads, "cap": args.cap}
        cmd += [x for name, value in options.items() for x in (f"--{name}", str(value))]
        cmd += ["--skip-slow"] if args.skip_slow else []
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            tail = (p.stderr.strip().splitlines() or ["no output"])[-1][:200]
            result = {"case": case.name, "matrix": case.matrices,
                      "error": f"{case.label}: its process exited with {p.returncode}: {tail}"}
            print(f"  failed: {case.label} ({time.perf_counter() - t_start:.0f} s elapsed)", flush=True)
            return result, {}
        with open(out) as f:
            got = json.load(f)
    print(f"  done: {case.label} ({time.perf_counter() - t_start:.0f} s elapsed)", flush=True)
    got["result"]["matrix"] = tuple(got["result"]["matrix"])
    return got["result"], got["matrices"]


def run_case_process(args, scale: float) -> int:
    """The body of a case's own process (:func:`run_isolated`): measure one case, write the
    result and its matrices' info as JSON to ``--case-json``."""
    set_threads(args.threads)
    REPEAT_REQUESTED[0] = args.repeat
    case = build_cases()[args.case_index]
    store = MatrixStore(scale)
    mats = [store.get(m) for m in case.matrices]
    result = measure_case(case, mats, args, {})
    with open(args.case_json, "w") as f:
        json.dump({"result": result, "matrices": store.info}, f, default=str)
    return 0


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if "--sweep" in argv:  # the size sweep (sweep.py): every common op at 1e3 ... 1e7 entries
        import sweep

        return sweep.main([a for a in argv if a != "--sweep"])
    if "--solvers" in argv:  # time to solution of sparray.linalg's solvers beside scipy (solvers.py)
        import solvers

        return solvers.main([a for a in argv if a != "--solvers"])
    if "--semi" in argv:  # 2:4 semi-structured products beside dense NumPy and CSR (semi.py)
        import semi

        return semi.main([a for a in argv if a != "--semi"])
    if "--graph-algorithms" in argv:  # sparray.graph's algorithms beside GraphBLAS, csgraph, networkx (bench_graph_algorithms.py)
        import bench_graph_algorithms

        bench_graph_algorithms.main([a for a in argv if a != "--graph-algorithms"])
        return 0
    if "--graph" in argv:  # sparray.graph's semiring products, reduce, select beside GraphBLAS (bench_graph.py)
        import bench_graph

        bench_graph.main([a for a in argv if a != "--graph"])
        return 0
    if any(a in ("--peers", "--together", "--busy") for a in argv):  # beside MKL, GraphBLAS, torch (peers.py)
        import peers

        return peers.main(argv)
    try:
        ncores = len(os.sched_getaffinity(0))
    except AttributeError:
        ncores = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small matrices (~1e5 nse) for a smoke test")
    ap.add_argument("--scale", type=float, default=None,
                    help="matrix size factor (1 = ~1e7 nse; --quick means 0.01)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per cell (median), after 1 warm-up")
    ap.add_argument("--only", default=None,
                    help="run only cases whose 'name matrix' contains this substring, or one of "
                         "several separated by commas (case-insensitive; 'first call' selects the "
                         "first-call table)")
    ap.add_argument("--threads", type=int, default=ncores, help="numba/torch threads (default: all cores)")
    ap.add_argument("--skip-slow", action="store_true",
                    help="skip cells known to be very slow (pydata add and sum(axis=0))")
    ap.add_argument("--cap", type=float, default=30.0,
                    help="per-cell time cap in seconds: fewer timed runs when warm-up + runs would "
                         "exceed it; not timed at all if the warm-up alone does (default 30)")
    ap.add_argument("--no-first-call", action="store_true", help="skip the first-call table")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--one-process", action="store_true",
                    help="run every case in this one process (the default with --quick); otherwise each "
                         "case runs in a fresh process of its own, so that no row inherits the allocator "
                         "state and freed memory of the rows before it")
    ap.add_argument("--isolate", action="store_true", help="each case in a process of its own, with --quick too")
    ap.add_argument("--case-index", type=int, default=None, help=argparse.SUPPRESS)  # a case's own process
    ap.add_argument("--case-json", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    scale = args.scale if args.scale is not None else (0.01 if args.quick else 1.0)
    if args.case_index is not None:
        return run_case_process(args, scale)
    REPEAT_REQUESTED[0] = args.repeat
    cases = build_cases()
    if args.list:
        for c in cases:
            print(f"{c.label:40s} {c.note}")
        print("first call: " + ", ".join(FIRST_CALL_OPS) + " (+ import time)")
        return 0
    sel = [part.strip() for part in args.only.lower().split(",") if part.strip()] if args.only else None
    chosen = [i for i, c in enumerate(cases) if sel is None or any(part in c.label.lower() for part in sel)]
    cases = [cases[i] for i in chosen]
    do_first = not args.no_first_call and (sel is None or any(part in "first call import" for part in sel))
    if not cases and not do_first:
        print(f"no case matches --only {args.only!r}; see --list", file=sys.stderr)
        return 2
    if args.one_process and args.isolate:
        print("--one-process and --isolate contradict each other", file=sys.stderr)
        return 2
    args.isolate = args.isolate or not (args.one_process or args.quick)

    load0 = os.getloadavg()
    t_start = time.perf_counter()
    set_threads(args.threads)
    print("# sparray benchmark")
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    if load0[0] > 0.5 * ncores:
        print(f"WARNING: the 1-minute load average is over half the {ncores} cores: other work is "
              "running and the timings (torch's OpenMP ones above all) will be unreliable")
    for line in machine_info(args.threads):
        print(line)
    print(f"scale: {scale:g} (1 = ~1e7 nse); repeat: {args.repeat} (median, after 1 warm-up); "
          f"per-cell cap: {args.cap:g} s{'; --skip-slow' if args.skip_slow else ''}")
    print("each case in a fresh process of its own" if args.isolate else "every case in this one process")
    print(flush=True)

    notes = Notes()
    if args.isolate:
        results, matrix_info = [], {}
        for index, case in zip(chosen, cases):
            result, info = run_isolated(case, index, args, scale, t_start)
            results.append(result)
            matrix_info.update(info)
    else:
        results, matrix_info = run_in_process(cases, args, scale, t_start)
    rows, moved = [], {}  # moved: (case, matrices) -> (bytes a perfect kernel moves, triad beside the row)
    for case, r in zip(cases, results):
        if r.get("error"):
            k = notes.add(r["error"])
            rows.append([case.name, "+".join(case.matrices), "-"] + [f"err[{k}]"] +
                        [x for _ in PEERS for x in (f"err[{k}]", "-")] + ["-"])
            continue
        cells = {k: Cell(**v) for k, v in r["cells"].items()}
        if r.get("moved_bytes") is not None:
            moved[(case.name, case.matrices)] = (r["moved_bytes"], r.get("triad_bytes_per_s"))
        row = [case.name, "+".join(case.matrices), "+".join(fmt_nse(n) for n in r["nse"]),
               cell_text(cells["sparray"], "sparray", case, notes)]
        for p in PEERS:
            row += [cell_text(cells[p], p, case, notes), ratio_text(cells[p], cells["sparray"])]
        row.append(cores_text(r["cores"], args.threads))
        rows.append(row)
    results = [r for r in results if not r.get("error")]

    if matrix_info:
        print("\n## Matrices")
        for name, inf in matrix_info.items():
            print(f"- {name}: shape {inf['shape'][0]} x {inf['shape'][1]}, nse {inf['nse']}, "
                  f"duplicate fraction {inf['dup']:.2%}, generated in {inf['gen_s']:.1f} s")
    if rows:
        print("\n## Median times (ratio = peer time / sparray time; >1 means sparray is faster)\n")
        header = ["case", "matrix", "nse", "sparray"]
        for p in PEERS:
            header += [p, "ratio"]
        print_table(header + ["cores"], rows)
        short = [r for r in results if host_cores.short(r.get("cores"), args.threads)]
        if args.threads > 1:
            print(f"\ncores: how many cores the {args.threads} threads got while the row ran (a "
                  "compute-bound loop on 1 thread, then on all, at the start of each round; median; "
                  f"host_cores.py); '!' below {host_cores.SHORT_OF:.0%} of the threads. A kernel split over "
                  "all threads slows down by as much, a single-threaded peer does not, so a marked row's "
                  "ratios say more about the machine than about the code"
                  + (f". Marked: {len(short)} of {len(results)} rows" if short else ""))

    if moved:
        from cases_linalg import bandwidth_rows

        triads = [t for _, t in moved.values()]
        triad = statistics.median(triads)
        print(f"\n## Memory bandwidth (bytes a perfect kernel moves / time; in parentheses the fraction "
              f"of the STREAM triad, numba on {args.threads} threads, measured right before the row: "
              f"{min(triads) / 1e9:.1f}-{max(triads) / 1e9:.1f} GB/s over the rows)\n")
        print_table(["case", "matrix", "bytes", "triad"] + list(LIBS), bandwidth_rows(results, moved))

    traced = [(r["case"] + " " + "+".join(r["matrix"]), r["cells"]["sparray"]["backends"])
              for r in results if r["cells"]["sparray"].get("backends")]
    if traced:
        print("\nsparray implementations used (op[layout]:backend, from the warm-up call):")
        for label, used in traced:
            print(f"- {label}: {', '.join(used)}")

    first_rows = []
    if do_first:
        print("\n## First call in a fresh process; import excluded; 2nd call in parentheses. sparray: with an "
              "empty kernel cache (kernels not compiled yet answer through the generic path while a background "
              "process compiles them), and with the kernels cached (a warm-up process ran every op first). "
              "Inputs: 5e3 entries on 1000 x 1000 and 1e6 entries on 1e5 x 1e5\n", flush=True)
        fc = {}
        for libname in LIBS:
            for size in FIRST_CALL_SIZES:
                if libname == "sparray":  # every op in a fresh process with an empty cache of its own
                    for op in FIRST_CALL_OPS:
                        with tempfile.TemporaryDirectory(prefix="sparray-bench-cache-") as empty:
                            fc[("sparray-empty", op, size)] = run_first_call(
                                libname, [op], args.threads, nse=size, env_extra={"SPARRAY_CACHE_DIR": empty})
                # one process runs every op once (eagerly, for sparray) to warm the on-disk caches;
                # then one fresh process per op is the measurement ("second run")
                run_first_call(libname, FIRST_CALL_OPS, args.threads, nse=size, env_extra={"SPARRAY_JIT": "eager"})
                for op in FIRST_CALL_OPS:
                    fc[(libname, op, size)] = run_first_call(libname, [op], args.threads, nse=size)
        columns = (["sparray-empty"] if "sparray" in LIBS else []) + list(LIBS)
        header = ["first call: 1st (2nd) call"] + [
            {"sparray-empty": "sparray, empty cache", "sparray": "sparray, cached"}.get(c, c) for c in columns]
        for op, size in [(op, size) for size in FIRST_CALL_SIZES for op in FIRST_CALL_OPS]:
            label = {"sum0": "sum(axis=0)", "sum1": "sum(axis=1)"}.get(op, op) + f" {size:.0e}".replace("+0", "")
            row = [label]
            for libname in columns:
                r = fc[(libname, op, size)]
                err = r.get("error") or r.get("ops", {}).get(op, {}).get("error")
                if err:
                    k = notes.add(f"{libname} / first call {op}: {err}")
                    row.append(f"err[{k}]")
                else:
                    t = r["ops"][op]
                    row.append(f"{fmt_time(t['first'])} ({fmt_time(t['second'])})")
            first_rows.append(row)
        row = ["import (fresh process, median of 4)"]
        for libname in columns:
            times = [fc[(libname, op, FIRST_CALL_SIZES[0])].get("import") for op in FIRST_CALL_OPS]
            times = [t for t in times if t is not None]
            row.append(fmt_time(statistics.median(times)) if times else "err")
        first_rows.append(row)
        print_table(header, first_rows)
        results.append({"first_call": {f"{k[0]}/{k[1]}/{k[2]}": v for k, v in fc.items()}})

    if notes.items:
        print("\nNotes:")
        for k, text in enumerate(notes.items, 1):
            print(f"[{k}] {text}")
    load1 = os.getloadavg()
    total = time.perf_counter() - t_start
    print(f"\nload average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; "
          f"total time {total:.0f} s")
    if load1[0] > ncores + 0.5:  # the benchmark itself keeps up to ncores busy
        print("WARNING: the load average at the end suggests other work ran during the benchmark")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_start": load0, "load_end": load1, "scale": scale,
                       "repeat": args.repeat, "threads": args.threads, "triad_bytes_per_s": triad,
                       "machine": machine_info(args.threads), "results": results,
                       "notes": notes.items}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
