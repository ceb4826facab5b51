#!/usr/bin/env python
"""2:4 semi-structured products on the CPU beside NumPy's dense ``@`` and the CSR of the same pattern (issue 50).

    python benchmarks/bench.py --semi                  # 4096 and 8192, float32, each size in a process of its own
    python benchmarks/bench.py --semi --sizes 4096     # one size
    python benchmarks/semi.py --repeat 9 --threads 2   # the same, called directly
    python benchmarks/bench.py --semi --crossover      # serial against parallel: the kernels' *_SERIAL_WORK

The matrix: float32 ``n x n``, a random 2:4 pattern (one of the six pairs of positions in every
group of 4, uniformly), values N(0, 1), fill 0. Every library gets the same matrix: sparray's 2:4
array, NumPy's dense array (``D @ x``, OpenBLAS), scipy's ``csr_array`` (int32 indices) and
sparray's CSR (``sparray.asarray(D, layout="csr")``), each multiplying the same float32 operand.

Rows per size: ``A @ x`` (x a vector: bandwidth-bound, the 2:4 array reads 17/32 of the dense
bytes), ``A @ X`` with 8 and with 512 columns (X row-major), ``x @ A`` (a vector on the left: what
``A.mT @ x`` runs on). Each cell is the median time per call of ``--repeat`` timed runs, after one
untimed warm-up call (which compiles the kernels) whose result is checked against the dense one;
a run repeats the call back to back up to about 20 ms (the time is per call), and the libraries'
runs alternate, one of each per round, as in ``bench.py`` (a slow spell of this shared host lands
on every column alike); before each run, untimed, the memory the call needs is touched
(``warm_memory.py``). The spread is the fastest and slowest run. Ratios are ``other / 2:4``
(above 1: the 2:4 array is faster). The SpMV rows print the bytes the 2:4 product must move
(values, metadata, x, y) per second and as a fraction of the STREAM triad measured at the start
of every round (``cases_linalg.triad_bandwidth``); ``cores`` is what the threads got
(``host_cores.py``; below 80% of the threads the row says more about the machine than the code).
Each size runs in a fresh process, so that no row inherits the allocator state of another.

Targets (issue 50, 2 threads): ``A @ x`` at least 1.5x dense; ``A @ X`` with 8 columns at least 1.3x
dense and at least 2x sparray's CSR; 512 columns as measured.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("SPARRAY_JIT", "eager")  # the warm-up call compiles the kernels it times
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIZES = (4096, 8192)
COLUMNS = ("2:4", "dense", "scipy CSR", "sparray CSR")
OPS = ("A @ x", "A @ X (8)", "A @ X (512)", "x @ A")
RUN_SECONDS = 0.02  # each timed run repeats the call up to about this long


# --------------------------------------------------------------------------
# inputs (untimed)

def random_2_4(n, seed=0):
    """Dense float32 ``n x n`` with a uniformly random 2:4 pattern and N(0, 1) values on it."""
    rng = np.random.default_rng(seed)
    pairs = np.array([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    keep = pairs[rng.integers(0, 6, (n, n // 4))]
    dense = np.zeros((n, n // 4, 4), np.float32)
    np.put_along_axis(dense, keep, rng.standard_normal((n, n // 4, 2)).astype(np.float32), axis=2)
    return dense.reshape(n, n)


def semi_array(D):
    """(how the 2:4 product is called, the operand it takes). Once ``sparray.SemiStructured`` is
    there, the public ``A @ x``; before, the kernel on the components (the same code the class's
    product reaches through the registry, less its argument checks)."""
    import sparray

    if hasattr(sparray, "SemiStructured"):
        return "A @ x (sparray.SemiStructured)", sparray.asarray(D, layout="2:4")
    from sparray.kernels.cpu.semi_structured import semi_encode

    values, metadata, bad = semi_encode(D, 0.0)
    assert bad == -1
    return "kernels/cpu/semi_structured.py on the components (no sparray.SemiStructured here)", (values, metadata)


def semi_right(A, x):
    """``A @ x`` of the 2:4 array (the components until the class lands: then ``A @ x``)."""
    if isinstance(A, tuple):
        from sparray.kernels.cpu.semi_structured import semi_matmul_dense

        values, metadata = A
        return semi_matmul_dense(values, metadata, x, 0.0, 2 * values.shape[-1])
    return A @ x


def semi_left(x, A):
    """``x @ A`` of the 2:4 array (as :func:`semi_right`)."""
    if isinstance(A, tuple):
        from sparray.kernels.cpu.semi_structured import dense_matmul_semi

        values, metadata = A
        return dense_matmul_semi(x, values, metadata, 0.0, 2 * values.shape[-1])
    return x @ A


def operands(n, rng):
    return {
        "A @ x": rng.standard_normal(n).astype(np.float32),
        "A @ X (8)": rng.standard_normal((n, 8)).astype(np.float32),
        "A @ X (512)": rng.standard_normal((n, 512)).astype(np.float32),
        "x @ A": rng.standard_normal(n).astype(np.float32),
    }


def calls(op, mats, x):
    """{column: zero-argument function} of one row."""
    left = op == "x @ A"
    out = {}
    for col, A in mats.items():
        if col == "2:4":
            out[col] = (lambda A=A: semi_left(x, A)) if left else (lambda A=A: semi_right(A, x))
        else:
            out[col] = (lambda A=A: x @ A) if left else (lambda A=A: A @ x)
    return out


def as_numpy(y):
    return np.asarray(y.to_dense() if hasattr(y, "to_dense") else y)


def spmv_bytes(n, op, N):
    """Bytes a perfect 2:4 product moves: values and metadata once, x once, y written once."""
    return n * (n // 2) * 4 + n * (n // 16) * 2 + (n * 4 + n * 4) * N


# --------------------------------------------------------------------------
# one size, in its own process

def measure(n, repeat, threads):
    import warm_memory
    import host_cores
    from cases_linalg import triad_bandwidth

    import numba
    import scipy.sparse as sp

    import sparray

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    t0 = time.perf_counter()
    D = random_2_4(n)
    how, semi = semi_array(D)
    S = sp.csr_array(D)
    S = sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=S.shape)
    mats = {"2:4": semi, "dense": D, "scipy CSR": S, "sparray CSR": sparray.asarray(D, layout="csr")}
    xs = operands(n, np.random.default_rng(1))
    setup = time.perf_counter() - t0
    rows = []
    for op in OPS:
        x = xs[op]
        fns = calls(op, mats, x)
        ref = (x.astype(np.float64) @ D.astype(np.float64)) if op == "x @ A" else D.astype(np.float64) @ x.astype(np.float64)
        scale = np.abs(ref).max()
        checks, numbers, foot = {}, {}, {}
        for col, fn in fns.items():  # warm-up (compiles), result check, calls per run
            base = warm_memory.reset_peak()
            t = time.perf_counter()
            y = fn()
            first = time.perf_counter() - t
            peak = warm_memory.peak_above(base)
            foot[col] = min((peak or 0) + (64 << 20), 2 << 30)
            err = float(np.abs(as_numpy(y).astype(np.float64) - ref).max() / scale)
            checks[col] = err
            t = time.perf_counter()
            fn()
            probe = time.perf_counter() - t
            numbers[col] = max(1, min(64, int(RUN_SECONDS / max(probe, 1e-7)))) if first < 5 else 1
            del y
        times = {col: [] for col in fns}
        triads, cores = [], []
        for _ in range(repeat):  # rounds: one run of each column in turn
            if threads > 1:
                cores.append(host_cores.effective_cores(threads))
            if op == "A @ x":
                triads.append(triad_bandwidth(threads, repeat=3))
            for col, fn in fns.items():
                warm_memory.warm(foot[col])
                k = numbers[col]
                t = time.perf_counter()
                for _ in range(k):
                    fn()
                times[col].append((time.perf_counter() - t) / k)
        row = {"n": n, "op": op, "times": times, "calls_per_run": numbers, "error": checks,
               "cores": statistics.median(cores) if cores else None}
        if triads:
            row["triad"] = statistics.median(triads)
            row["bytes"] = spmv_bytes(n, op, 1)
        rows.append(row)
        print(f"  n={n} {op}: done", file=sys.stderr, flush=True)
    return {"n": n, "how": how, "setup_s": setup, "rows": rows}


# --------------------------------------------------------------------------
# printing

def fmt(t):
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.2f} s"


def cell(ts):
    med = statistics.median(ts)
    return f"{fmt(med)} [{min(ts) * 1e3:.3g}-{max(ts) * 1e3:.3g}]"


def print_table(results, threads):
    header = ["n", "op", *COLUMNS, "dense / 2:4", "sparray CSR / 2:4", "scipy CSR / 2:4", "2:4 GB/s (triad)", "cores"]
    lines = []
    for res in results:
        for r in res["rows"]:
            med = {c: statistics.median(r["times"][c]) for c in COLUMNS}
            bw = ""
            if "triad" in r:
                gbs = r["bytes"] / med["2:4"] / 1e9
                bw = f"{gbs:.1f} ({gbs * 1e9 / r['triad']:.2f} of {r['triad'] / 1e9:.1f})"
            cores = "-" if r["cores"] is None else f"{r['cores']:.2f}" + ("!" if r["cores"] < 0.8 * threads else "")
            lines.append([str(r["n"]), r["op"], *(cell(r["times"][c]) for c in COLUMNS),
                          f"{med['dense'] / med['2:4']:.2f}x", f"{med['sparray CSR'] / med['2:4']:.2f}x",
                          f"{med['scipy CSR'] / med['2:4']:.2f}x", bw, cores])
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for l in lines:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(l, widths)) + " |")
    print("\ncells: median time per call [fastest-slowest run, ms]; ratios of medians, above 1: the 2:4 array is faster")
    bad = [(res["n"], r["op"], c, e) for res in results for r in res["rows"] for c, e in r["error"].items() if e > 1e-4]
    for n, op, c, e in bad:
        print(f"RESULT CHECK: n={n} {op} {c}: max error {e:.2g} of the largest |y| (against float64 dense)")
    verdict = []
    for res in results:
        by = {r["op"]: {c: statistics.median(r["times"][c]) for c in COLUMNS} for r in res["rows"]}
        for op, col, want in (("A @ x", "dense", 1.5), ("A @ X (8)", "dense", 1.3), ("A @ X (8)", "sparray CSR", 2.0)):
            got = by[op][col] / by[op]["2:4"]
            verdict.append(f"n={res['n']} {op} vs {col}: {got:.2f}x (target {want}x) {'met' if got >= want else 'MISSED'}")
    print("\ntargets:\n" + "\n".join("- " + v for v in verdict))


def machine_line(threads):
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import numba
    import scipy

    import sparray

    return (f"{cpu}, {os.cpu_count()} cores; numpy {np.__version__}, scipy {scipy.__version__}, numba {numba.__version__}, "
            f"sparray {getattr(sparray, '__version__', '?')}; {threads} threads")


def crossover(max_log2=21) -> int:
    """Serial against parallel for each product (the module's ``*_SERIAL_WORK`` forced either way),
    float32, 256 columns, rows for 2**10 ... 2**max_log2 kept values (times the columns of X), in
    this process, the two alternating per round (median of 15 rounds of ~2 ms batches): where
    the parallel run starts to stay faster, the crossover the constants should sit at."""
    import numba

    from sparray.kernels.cpu import _threads
    from sparray.kernels.cpu import semi_structured as ss

    _threads.WATCH_LOAD = False  # the threads this measures are the ones asked for
    cols = 256
    print(f"# {numba.get_num_threads()} threads; time serial / time parallel (above 1: parallel faster); "
          f"float32, {cols} columns")
    for name, const, ncols in (("A @ x", "SV_SERIAL_WORK", None), ("A @ X (8)", "MM_SERIAL_WORK", 8),
                               ("x @ A", "XS_SERIAL_WORK", None)):
        sizes = [1 << k for k in range(10, max_log2 + 1)]
        ratios = []
        for work in sizes:
            rows = max(1, work // (cols // 2) // (ncols or 1))
            values, metadata, bad = ss.semi_encode(random_2_4(max(rows, cols))[:rows, :cols], 0.0)
            rng = np.random.default_rng(2)
            if name == "x @ A":
                x = rng.standard_normal(rows).astype(np.float32)
                call = lambda: ss.dense_matmul_semi(x, values, metadata, 0.0, cols)  # noqa: E731
            else:
                x = rng.standard_normal(cols if ncols is None else (cols, ncols)).astype(np.float32)
                call = lambda: ss.semi_matmul_dense(values, metadata, x, 0.0, cols)  # noqa: E731
            saved = getattr(ss, const)

            def serial(call=call):
                setattr(ss, const, 1 << 62)
                call()

            def parallel(call=call):
                setattr(ss, const, 0)
                call()

            try:
                serial(), parallel()
                per = {}
                for key, f in (("s", serial), ("p", parallel)):
                    t0 = time.perf_counter()
                    f()
                    per[key] = max(1, int(0.002 / max(time.perf_counter() - t0, 1e-7)))
                ts = {"s": [], "p": []}
                for _ in range(15):
                    for key, f in (("s", serial), ("p", parallel)):
                        t0 = time.perf_counter()
                        for _ in range(per[key]):
                            f()
                        ts[key].append((time.perf_counter() - t0) / per[key])
            finally:
                setattr(ss, const, saved)
            t_s, t_p = statistics.median(ts["s"]), statistics.median(ts["p"])
            ratios.append(t_s / t_p)
            print(f"  {name:<10} 2**{work.bit_length() - 1:<2} ({rows} x {cols}) {t_s * 1e6:9.1f} us serial "
                  f"{t_p * 1e6:9.1f} us parallel  {t_s / t_p:5.2f}", flush=True)
        cross = next((sizes[i] for i in range(len(sizes)) if all(r > 1.0 for r in ratios[i:])), None)
        print(f"{name}: parallel faster from 2**{cross.bit_length() - 1} on ({const}, now 2**{getattr(ss, const).bit_length() - 1})\n"
              if cross else f"{name}: serial never lost\n", flush=True)
    return 0


def main(argv=None) -> int:
    try:
        ncores = len(os.sched_getaffinity(0))
    except AttributeError:
        ncores = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=None, help="comma-separated sides n (default 4096,8192)")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per cell (median), after 1 warm-up")
    ap.add_argument("--threads", type=int, default=ncores, help="numba and OpenBLAS threads (default: all cores)")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    ap.add_argument("--crossover", action="store_true", help="serial against parallel per product (the *_SERIAL_WORK constants)")
    ap.add_argument("--one-size", type=int, default=None, help=argparse.SUPPRESS)  # a size's own process
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.crossover:
        import numba

        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
        return crossover()
    if args.one_size is not None:
        res = measure(args.one_size, args.repeat, args.threads)
        with open(args.out, "w") as f:
            json.dump(res, f, default=str)
        return 0
    sizes = [int(float(s)) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    load0 = os.getloadavg()
    print("# 2:4 semi-structured products, float32, beside dense and CSR (benchmarks/semi.py)")
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    print(machine_line(args.threads), flush=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads), OMP_NUM_THREADS=str(args.threads),
               MKL_NUM_THREADS=str(args.threads))
    results = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="sparray-semi-") as tmp:
            out = os.path.join(tmp, "size.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--one-size", str(n), "--out", out,
                   "--repeat", str(args.repeat), "--threads", str(args.threads)]
            p = subprocess.run(cmd, env=env)
            if p.returncode != 0 or not os.path.exists(out):
                print(f"n={n}: its process exited with {p.returncode}", flush=True)
                continue
            with open(out) as f:
                results.append(json.load(f))
    if not results:
        return 1
    print(f"\n2:4 product: {results[0]['how']}\n")
    print_table(results, args.threads)
    load1 = os.getloadavg()
    print(f"\nload average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    if load1[0] > ncores + 0.5:
        print("WARNING: the load average at the end suggests other work ran during the benchmark")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "load": [load0, load1], "results": results}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
