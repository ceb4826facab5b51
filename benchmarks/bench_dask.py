#!/usr/bin/env python
"""Dask with sparray chunks vs Dask with pydata/sparse chunks vs sparray on the whole matrix.

    python benchmarks/bench_dask.py                  # 1e8-entry R-MAT (2**23 x 2**23), 8 row blocks
    python benchmarks/bench_dask.py --scale 0.1      # 1e7 entries (2**20 x 2**20)
    python benchmarks/bench_dask.py --only "X @ v"   # one row

The matrix is the R-MAT graph of ``matrices.rmat`` (duplicates summed): ``1e8 * scale`` edges on
``2**round(20 + log2(10 * scale))`` rows (2**23 at scale 1, 2**20 at 0.1), as a sparray CSR (int32
indices when they fit) split into ``--blocks`` row blocks holding about equal numbers of entries
(``from_sparray(A, nblocks=...)``; pydata gets the same blocks). The run prints the process's peak
resident memory as it goes (3.5 GiB for a run at scale 0.2, so expect about 17 GiB at scale 1). Rows of the table:

- ``sum(axis=0)``: column sums, a sparse vector (Dask: a tree reduction over the row blocks);
- ``X @ v``: SpMV with a dense vector (Dask: one SpMV per row block);
- ``X + X.T``: the symmetrised matrix (Dask: both operands are cut into blocks x blocks chunks,
  ``rechunk``, then one sparse add per chunk; the result stays distributed: ``persist``).

Columns: ``sparray`` is one process on the whole CSR (``sparray.sum(A, axis=0)``, ``A @ v``,
``A + A.T``); ``dask+sparray`` is the Dask array of sparray CSR chunks (``from_sparray``);
``dask+pydata`` the same row blocks as pydata ``sparse.COO`` chunks. Both Dask columns run
Dask's threaded scheduler with ``--workers`` threads on persisted inputs; numba kernels inside a
Dask task run on ``--task-threads`` threads (default 1: the Dask threads already use the cores).
Each cell is the median of ``--repeat`` runs after one untimed warm-up run, and ``peak`` is
the largest resident-memory increase over the run's start, sampled every 5 ms (the inputs are
allocated before). The result of every column is checked against the single-process one.

Ratios: ``pydata/dask+sparray`` (target: at least 3x) and ``dask+sparray/sparray`` (target:
at most 1.3x, the price of scheduling).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import threading
import time
from multiprocessing.pool import ThreadPool

import numpy as np

os.environ.setdefault("SPARRAY_JIT", "eager")  # kernels compile in the warm-up run, not in the background
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import matrices  # noqa: E402

ROWS = ("sum(axis=0)", "X @ v", "X + X.T")
COLUMNS = ("sparray", "dask+sparray", "dask+pydata")


# --- memory ------------------------------------------------------------------------------------------
class PeakRSS:
    """The largest resident-set size of this process while the block runs, sampled every 5 ms."""

    def __init__(self):
        import psutil

        self._proc = psutil.Process()
        self.start = self.peak = 0

    def __enter__(self):
        self.start = self.peak = self._proc.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, self._proc.memory_info().rss)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)

    @property
    def increase(self) -> int:
        return self.peak - self.start


def _max_rss() -> int:
    """The process's peak resident memory so far, in bytes (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- inputs ------------------------------------------------------------------------------------------
def build_matrix(scale: float):
    """The R-MAT matrix as a sparray CSR (duplicates summed) and its generation time."""
    import sparray

    t = time.perf_counter()
    row, col, val, shape = matrices.get("rmat", scale=10 * scale)
    indices = np.stack([row, col])
    del row, col  # the generator's arrays go before the coalesce allocates its own
    A = sparray.COO(indices, val, shape)
    del indices, val
    A = A.coalesce().to_layout("csr")
    if A.nse < 2**31 and shape[0] < 2**31:
        A = sparray.CSR(A.crow_indices.astype(np.int32), A.col_indices.astype(np.int32), A.values, A.shape)
    return A, time.perf_counter() - t


def dask_sparray(A, blocks):
    """``blocks`` row blocks holding about equal numbers of entries (``from_sparray(nblocks=)``)."""
    from sparray.interop.dask import from_sparray

    return from_sparray(A, nblocks=blocks).persist()


def dask_pydata(A, chunks):
    """The same row blocks (``chunks``) as pydata COO chunks (built from the CSR blocks; not timed)."""
    import dask.array as da
    import sparse

    name = "pydata-rmat"
    graph, start = {}, 0
    for i, rows in enumerate(chunks[0]):
        B = A[start : start + rows].to_layout("coo")
        coords = np.asarray(B.indices, dtype=np.int64)
        graph[(name, i, 0)] = sparse.COO(coords, np.asarray(B.values), shape=B.shape, has_duplicates=False, sorted=True)
        start += rows
    meta = sparse.COO.from_numpy(np.empty((0, 0), dtype=A.dtype))
    return da.Array(graph, name, chunks, dtype=A.dtype, meta=meta)


# --- the rows ------------------------------------------------------------------------------------------
def single_ops(v):
    import sparray

    return {
        "sum(axis=0)": lambda A: sparray.sum(A, axis=0),
        "X @ v": lambda A: A @ v,
        "X + X.T": lambda A: A + A.T,
    }


def dask_ops(v):
    from dask.distributed import wait  # noqa: F401  (not needed for the threaded scheduler)

    return {
        "sum(axis=0)": lambda X: X.sum(axis=0).compute(),
        "X @ v": lambda X: (X @ v).compute(),
        "X + X.T": lambda X: (X + X.T).persist(),
    }


def _dense_vector(x):
    import sparray

    if isinstance(x, sparray.SparseArray):
        return np.asarray(x.to_dense())
    if hasattr(x, "todense"):
        return np.asarray(x.todense())
    return np.asarray(x)


def check(row, ref, got, column):
    """The result of ``column`` against the single-process one; returns a note ('' when it agrees)."""
    import sparray

    if row in ("sum(axis=0)", "X @ v"):
        ok = np.allclose(_dense_vector(got), _dense_vector(ref), rtol=1e-10, atol=1e-9)
    else:
        total = float(got.sum().compute()) if hasattr(got, "compute") else float(sparray.sum(got))
        ok = math.isclose(total, float(sparray.sum(ref)), rel_tol=1e-9)
    return "" if ok else f"RESULT MISMATCH ({column})"


def run_cell(fn, arg, repeat):
    """(median seconds, peak RSS increase in bytes, result of the warm-up run)."""
    import gc

    result = fn(arg)  # warm-up: compiles numba kernels, fills caches
    times, peak = [], 0
    for _ in range(repeat):
        gc.collect()
        with PeakRSS() as mem:
            t = time.perf_counter()
            out = fn(arg)
            times.append(time.perf_counter() - t)
        del out
        peak = max(peak, mem.increase)
    return statistics.median(times), peak, result


# --- output --------------------------------------------------------------------------------------------
def fmt_time(t):
    if t is None:
        return "n/a"
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def fmt_mem(b):
    return "n/a" if b is None else f"{b / 2**20:.0f} MiB"


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def machine_lines(args):
    import dask

    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    versions = []
    for name in ("numpy", "numba", "dask", "sparse", "sparray"):
        try:
            versions.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            versions.append(f"{name} not installed")
    return [
        f"cpu: {cpu}; cores: {os.cpu_count()}; python {platform.python_version()}",
        "versions: " + ", ".join(versions) + f" (dask config array.query-planning={dask.config.get('array.query-planning', None)})",
        f"dask: threaded scheduler, {args.workers} threads; numba threads: {args.threads} alone, {args.task_threads} per Dask task",
    ]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="1 = 1e8 entries on 2**23 rows (default)")
    p.add_argument("--blocks", type=int, default=8, help="row blocks (default 8)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per cell (median; default 3)")
    p.add_argument("--workers", type=int, default=os.cpu_count(), help="Dask threads (default: cores)")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="numba threads, single process (default: cores)")
    p.add_argument("--task-threads", type=int, default=1, help="numba threads inside a Dask task (default 1)")
    p.add_argument("--only", default=None, help="only the rows whose name contains this")
    p.add_argument("--no-pydata", action="store_true", help="leave out the dask+pydata column")
    args = p.parse_args(argv)

    import dask
    import numba

    import sparray  # noqa: F401

    load0 = os.getloadavg()
    for line in machine_lines(args):
        print(line)
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    A, t_build = build_matrix(args.scale)
    print(f"matrix: R-MAT {A.shape[0]} x {A.shape[1]}, {A.nse:,} entries after summing duplicates, "
          f"CSR {A.index_dtype} indices, {A.nbytes / 2**30:.2f} GiB; built in {t_build:.1f} s; {args.blocks} row blocks; "
          f"process peak so far {_max_rss() / 2**30:.2f} GiB")
    v = np.random.default_rng(0).random(A.shape[1])

    task_threads = args.task_threads

    def _init_task_thread():
        numba.set_num_threads(min(task_threads, numba.config.NUMBA_NUM_THREADS))

    pool = ThreadPool(args.workers, initializer=_init_task_thread)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    rows = [r for r in ROWS if args.only is None or args.only.lower() in r.lower()]
    inputs = {"sparray": A}
    results: dict = {}
    notes: list = []
    with dask.config.set(scheduler="threads", pool=pool):
        inputs["dask+sparray"] = dask_sparray(A, args.blocks)
        if not args.no_pydata:
            try:
                inputs["dask+pydata"] = dask_pydata(A, inputs["dask+sparray"].chunks).persist()
            except ImportError as e:
                notes.append(f"dask+pydata: n/a ({e})")
        for row in rows:
            ref = None
            for column in COLUMNS:
                if column not in inputs:
                    continue
                fn = (single_ops(v) if column == "sparray" else dask_ops(v))[row]
                try:
                    t, peak, out = run_cell(fn, inputs[column], args.repeat)
                except Exception as e:  # noqa: BLE001  (a failing cell is reported, the run goes on)
                    notes.append(f"{row} / {column}: {type(e).__name__}: {str(e)[:200]}")
                    continue
                if column == "sparray":
                    ref = out
                elif ref is not None:
                    note = check(row, ref, out, column)
                    if note:
                        notes.append(f"{row}: {note}")
                results[row, column] = (t, peak)
                print(f"  {row:12s} {column:13s} {fmt_time(t):>10s}  peak +{fmt_mem(peak)}  "
                      f"(process peak so far {_max_rss() / 2**30:.2f} GiB)", flush=True)
                del out

    print()
    print("| op | sparray (1 process) | dask+sparray | dask+pydata | pydata / dask+sparray | dask+sparray / sparray |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        cells = [results.get((row, c)) for c in COLUMNS]
        text = [f"{fmt_time(c[0])}, peak +{fmt_mem(c[1])}" if c else "n/a" for c in cells]
        t = [c[0] if c else None for c in cells]
        print(f"| {row} | {text[0]} | {text[1]} | {text[2]} | {fmt_ratio(t[2], t[1])} | {fmt_ratio(t[1], t[0])} |")
    print("\ntargets: pydata / dask+sparray >= 3x; dask+sparray / sparray <= 1.3x")
    for note in notes:
        print("note:", note)
    print(f"peak resident memory of the whole run: {_max_rss() / 2**30:.2f} GiB")
    load1 = os.getloadavg()
    print(f"load average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
