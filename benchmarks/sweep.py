#!/usr/bin/env python
"""The size sweep: every common operation at 1e3 ... 1e7 entries, sparray beside scipy and torch.

    python benchmarks/bench.py --sweep                 # the whole sweep, ~12 min
    python benchmarks/bench.py --sweep --sizes 1e3,1e4 # some sizes only
    python benchmarks/bench.py --sweep --only "A @ x"  # ops whose name contains this

What a user meets: square random CSR matrices with 10 entries per row (float64 values, int32
indices, distinct positions drawn uniformly), built by scipy and handed to sparray with
``from_scipy`` and to torch as ``sparse_csr_tensor``; every operation called in a loop in one
ordinary process (each size in a fresh process of its own; no memory warmed before a call, results
freed as a program frees them), the
kernels compiled before timing (``SPARRAY_JIT=eager``) and every library warmed up for
``WARM_S`` (so a loop's small calls have left sparray's generic start-up path), default threads.
sparray's and scipy's timed batches alternate (one batch of each per round, so a slow spell of a
shared host lands on both alike); torch is timed after them, in rounds of its own (its OpenMP
threads spin after each call and slow a numba kernel that runs next to them). A batch repeats the call until it lasts about 2 ms and the time is per call
(the mean over the batch, so a slow call in a loop counts as a user's loop counts it); a cell is
the median over its rounds. Ratio = scipy time / sparray time (above 1: sparray faster).

The last rows are two rows of the compressed-layouts issue timed the same way, at their own sizes:
``A + B`` of the R-MAT matrix and its transpose (1e7 entries) and SpGEMM ``A @ A`` of the 1e6-row
Poisson matrix. Bandwidth-bound rows (``A @ x`` from 1e6 entries up) print the fraction of the
STREAM triad the sparray call reached, the triad measured in the same round.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant checks)")

os.environ.setdefault("SPARRAY_JIT", "eager")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import matrices  # noqa: E402

SIZES = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
PER_ROW = 10
BATCH_S = 0.002  # a timed batch lasts about this long
WARM_S = 0.5  # each library's calls before its first timed batch: kernels compiled and loaded, and small
# calls past sparray's generic budget (sparray._engine.dispatch.SMALL_GENERIC_BUDGET), as in a loop that runs a while
CELL_S = 0.4  # time a cell aims for (all its rounds)
MIN_ROUNDS, MAX_ROUNDS = 5, 61
DENSE_MAX_NSE = 100_000  # to_dense beyond this would allocate 80 GB (1e6 entries: a 1e5 x 1e5 matrix)


def _csr_triplets(nse, seed):
    n = max(2, nse // PER_ROW)
    return matrices.uniform_random(n, n, nse, seed=seed, unique=True, sort=True)


def _scipy_csr(m):
    import scipy.sparse as sp

    row, col, val, shape = m
    S = sp.csr_array((val, (row, col)), shape=shape)
    S.sum_duplicates()
    return sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=shape)


class Inputs:
    """One size's matrices in each library's form, built once (untimed)."""

    def __init__(self, nse, libs):
        import scipy.sparse as sp

        import sparray
        from sparray.interop.scipy import from_scipy

        self.nse = nse
        self.S = _scipy_csr(_csr_triplets(nse, seed=11))
        self.SB = _scipy_csr(_csr_triplets(nse, seed=12))
        n = self.S.shape[0]
        rng = np.random.default_rng(13)
        self.x = rng.standard_normal(n)
        self.X = rng.standard_normal((n, 8))
        coo = self.S.tocoo()
        order = rng.permutation(coo.nnz)  # a COO in no particular order (as assembled, not known sorted)
        self.coo_rc = (coo.row[order].astype(np.int64), coo.col[order].astype(np.int64), coo.data[order])
        self.A = from_scipy(self.S)
        self.B = from_scipy(self.SB)
        r, c, v = self.coo_rc
        self.A_coo = sparray.COO(np.stack([r, c]), v, self.S.shape)
        self.S_coo = sp.coo_array((v, (r, c)), shape=self.S.shape)
        self.lo, self.hi = n // 4, n // 4 + n // 2
        self.torch = None
        if "torch" in libs:
            import torch

            def t_csr(S):
                return torch.sparse_csr_tensor(torch.from_numpy(S.indptr), torch.from_numpy(S.indices),
                                               torch.from_numpy(S.data), S.shape)

            idx = torch.from_numpy(np.stack([r, c]))
            self.torch = dict(A=t_csr(self.S), B=t_csr(self.SB), x=torch.from_numpy(self.x),
                              X=torch.from_numpy(self.X),
                              coo=torch.sparse_coo_tensor(idx, torch.from_numpy(v), self.S.shape))


def _ops():
    """(name, {lib: fn(inputs) -> callable}, applies(nse)): the calls timed per size."""
    import sparray

    return [
        ("A @ x", {"sparray": lambda i: (lambda A=i.A, x=i.x: A @ x),
                   "scipy": lambda i: (lambda S=i.S, x=i.x: S @ x),
                   "torch": lambda i: (lambda T=i.torch: T["A"] @ T["x"])}),
        ("A @ X (8 columns)", {"sparray": lambda i: (lambda A=i.A, X=i.X: A @ X),
                               "scipy": lambda i: (lambda S=i.S, X=i.X: S @ X),
                               "torch": lambda i: (lambda T=i.torch: T["A"] @ T["X"])}),
        ("sum(A, axis=0)", {"sparray": lambda i: (lambda A=i.A: sparray.sum(A, axis=0)),
                            "scipy": lambda i: (lambda S=i.S: S.sum(axis=0))}),
        ("sum(A, axis=1)", {"sparray": lambda i: (lambda A=i.A: sparray.sum(A, axis=1)),
                            "scipy": lambda i: (lambda S=i.S: S.sum(axis=1))}),
        ("A + B", {"sparray": lambda i: (lambda A=i.A, B=i.B: A + B),
                   "scipy": lambda i: (lambda S=i.S, SB=i.SB: S + SB),
                   "torch": lambda i: (lambda T=i.torch: T["A"] + T["B"])}),
        ("A * 2.5", {"sparray": lambda i: (lambda A=i.A: A * 2.5),
                     "scipy": lambda i: (lambda S=i.S: S * 2.5),
                     "torch": lambda i: (lambda T=i.torch: T["A"] * 2.5)}),
        ("COO -> CSR", {"sparray": lambda i: (lambda C=i.A_coo: C.to_layout("csr")),
                        "scipy": lambda i: (lambda C=i.S_coo: C.tocsr()),
                        "torch": lambda i: (lambda T=i.torch: T["coo"].to_sparse_csr())}),
        ("CSR -> CSC", {"sparray": lambda i: (lambda A=i.A: A.to_layout("csc")),
                        "scipy": lambda i: (lambda S=i.S: S.tocsc()),
                        "torch": lambda i: (lambda T=i.torch: T["A"].to_sparse_csc())}),
        ("A[lo:hi] (rows)", {"sparray": lambda i: (lambda A=i.A, lo=i.lo, hi=i.hi: A[lo:hi]),
                             "scipy": lambda i: (lambda S=i.S, lo=i.lo, hi=i.hi: S[lo:hi])}),
        # (torch: no row slice of a sparse CSR tensor, "Sparse CSR tensors do not have strides")
        ("A.to_dense()", {"sparray": lambda i: (lambda A=i.A: A.to_dense()),
                          "scipy": lambda i: (lambda S=i.S: S.toarray()),
                          "torch": lambda i: (lambda T=i.torch: T["A"].to_dense())}),
    ]


def _applies(op, nse):
    return op != "A.to_dense()" or nse <= DENSE_MAX_NSE


def _batch(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def time_row(calls: dict, triad=None) -> dict:
    """Median seconds per call of each library's callable (see :func:`_time_group`), sparray and
    scipy in one group whose batches alternate, torch in a group of its own after them.

    torch's OpenMP threads keep spinning after each call: interleaved with them, a 2-thread numba
    kernel ran up to 4x slower (``A + B`` at 1e6 entries: 12 ms alone, 47 ms right after torch's
    batches), which measured the two thread pools fighting, not either library."""
    out = {}
    first = {lib: fn for lib, fn in calls.items() if lib != "torch"}
    out.update(_time_group(first, triad))
    if "torch" in calls:
        res = _time_group({"torch": calls["torch"]}, None)
        out.update({k: v for k, v in res.items() if k != "triad"})
    return out


def _time_group(calls: dict, triad=None) -> dict:
    """Median seconds per call of each callable, their batches alternating per round.

    Each callable is called until ``WARM_S`` has passed (warm-up: JIT, kernels loaded), then the
    number of calls per batch is set from the fastest warm-up call. ``triad``: a callable returning
    bytes/s, run at the start of each round (its median is returned under ``"triad"``)."""
    number, out, times = {}, {}, {}
    for lib, fn in calls.items():
        try:
            fn()  # the first call compiles (eager JIT)
            start = time.perf_counter()
            calls_made, fastest = 0, float("inf")
            while calls_made < 2 or time.perf_counter() - start < WARM_S:
                t1 = time.perf_counter()
                fn()
                fastest = min(fastest, time.perf_counter() - t1)
                calls_made += 1
        except Exception as exc:  # a library without the operation: the cell says why
            out[lib] = f"err: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
            continue
        number[lib] = max(1, int(BATCH_S / max(fastest, 1e-7)))
        times[lib] = []
    if not times:
        return out
    per_round = sum(_batch_cost(number[lib], calls[lib]) for lib in times)
    rounds = int(min(MAX_ROUNDS, max(MIN_ROUNDS, CELL_S / max(per_round, 1e-6))))
    triads = []
    for _ in range(rounds):
        if triad is not None:
            triads.append(triad())
        for lib in times:
            times[lib].append(_batch(calls[lib], number[lib]))
    for lib, ts in times.items():
        out[lib] = statistics.median(ts)
    if triads:
        out["triad"] = statistics.median(triads)
    return out


def _batch_cost(number, fn):
    return _batch(fn, number) * number


def _triad_factory(threads):
    from cases_linalg import triad_bandwidth

    return lambda: triad_bandwidth(threads, n=4_000_000, repeat=3)


def _spmv_bytes(S):
    M, K = S.shape
    return S.nnz * 12 + (M + 1) * 4 + 8 * K + 8 * M


def _fmt_t(t):
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} us"


def _cell(res, lib="sparray"):
    if not isinstance(res.get(lib), float) or not isinstance(res.get("scipy"), float):
        return "-" if lib not in res else "err"
    return f"{res['scipy'] / res[lib]:.2f}x"


def sweep(sizes=SIZES, only=None, threads=None, libs=("sparray", "scipy", "torch"), extras=True, log=print,
          isolate=False):
    """Run the sweep; returns {"rows": [{op, nse, times...}], "threads", "machine", "versions"}.

    ``isolate``: each size, and each extra row, in a fresh process of its own (``--isolate``, the
    default of ``main``): deep in one long process a row inherits the allocator's state that the
    1e7-entry rows before it left (SpGEMM Poisson read 226 ms for sparray and 323 ms for scipy
    after the 1e7 rows, 80 and 107 ms in a fresh process), as ``bench.py`` found for its cases."""
    if isolate:
        return _sweep_isolated(sizes, only, threads, libs, extras, log)
    import numba

    import sparray  # noqa: F401

    if threads:
        numba.set_num_threads(threads)
        if "torch" in libs:
            import torch

            torch.set_num_threads(threads)
    threads = numba.get_num_threads()
    ops = [(name, f) for name, f in _ops() if only is None or only.lower() in name.lower()]
    triad = _triad_factory(threads)
    rows = []
    for nse in sizes:
        t0 = time.perf_counter()
        inputs = Inputs(nse, libs)
        log(f"# {nse:.0e} entries: {inputs.S.shape[0]} x {inputs.S.shape[1]}, inputs in {time.perf_counter() - t0:.1f} s")
        for name, makers in ops:
            if not _applies(name, nse):
                continue
            calls = {lib: makers[lib](inputs) for lib in libs if lib in makers}
            bw = name == "A @ x" and nse >= 1_000_000
            res = time_row(calls, triad if bw else None)
            row = {"op": name, "nse": nse, **res}
            if bw and isinstance(res.get("sparray"), float):
                row["triad_fraction"] = _spmv_bytes(inputs.S) / res["sparray"] / res["triad"]
            rows.append(row)
            log(f"  {name:<18} " + "  ".join(
                f"{lib} {_fmt_t(res[lib]) if isinstance(res.get(lib), float) else res.get(lib, '-')}" for lib in libs)
                + (f"  triad {row['triad_fraction']:.2f}" if "triad_fraction" in row else ""))
        del inputs
        gc.collect()
    if extras and only is None:
        for which in EXTRAS:
            rows.append(_extra_row(which, libs, log))
    return {"rows": rows, "threads": threads, "machine": platform.processor() or platform.machine(),
            "versions": _versions(libs)}


def _sweep_isolated(sizes, only, threads, libs, extras, log):
    """:func:`sweep` with every size and every extra row in a child process (``--part``)."""
    import subprocess
    import tempfile

    parts = [("size", str(n)) for n in sizes] + ([("extra", e) for e in EXTRAS] if extras and only is None else [])
    rows, meta = [], {}
    for kind, what in parts:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "part.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--part", f"{kind}:{what}", "--json", out]
            cmd += ["--only", only] if only else []
            cmd += ["--threads", str(threads)] if threads else []
            cmd += ["--no-torch"] if "torch" not in libs else []
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout.splitlines():
                if line.startswith(("  ", "# 1e", "# ")) and not line.startswith("# sweep"):
                    log(line)
            if proc.returncode != 0 or not os.path.exists(out):
                log(f"  {kind} {what}: child failed (exit {proc.returncode}): {proc.stdout.strip().splitlines()[-1:]}")
                continue
            with open(out) as f:
                part = json.load(f)
        rows += part["rows"]
        meta = {k: v for k, v in part.items() if k != "rows"}
    return {"rows": rows, **meta}


EXTRAS = ("rmat_add", "spgemm")


def _extra_row(which, libs, log):
    """One of the compressed-layouts rows that read short in an ordinary process: ``A + B`` of the
    R-MAT matrix and its transpose (1e7 entries), SpGEMM ``A @ A`` of the 1e6-row Poisson matrix."""
    from sparray.interop.scipy import from_scipy

    def t_csr(X):
        import torch

        return torch.sparse_csr_tensor(torch.from_numpy(X.indptr), torch.from_numpy(X.indices),
                                       torch.from_numpy(X.data), X.shape)

    if which == "rmat_add":
        rm = matrices.get("rmat")
        S = _scipy_csr(rm)
        row, col, val, (n, m) = rm
        ST = _scipy_csr((col, row, val, (m, n)))
        A, AT = from_scipy(S), from_scipy(ST)
        calls = {"sparray": lambda: A + AT, "scipy": lambda: S + ST}
        if "torch" in libs:
            TA, TT = t_csr(S), t_csr(ST)
            calls["torch"] = lambda: TA + TT
        name, nse = "A + B (R-MAT + its transpose)", S.nnz
    else:
        P = _scipy_csr(matrices.get("poisson1m"))
        PA = from_scipy(P)
        calls = {"sparray": lambda: PA @ PA, "scipy": lambda: P @ P}
        if "torch" in libs:
            TP = t_csr(P)
            calls["torch"] = lambda: TP @ TP
        name, nse = "SpGEMM A @ A (Poisson, 1e6 rows)", P.nnz
    res = time_row(calls)
    log(f"  {name}: " + "  ".join(f"{lib} {_fmt_t(v)}" for lib, v in res.items() if isinstance(v, float)))
    return {"op": name, "nse": nse, **res}


def _versions(libs):
    import importlib.metadata as md

    names = {"sparray": "sparray", "scipy": "scipy", "torch": "torch", "numpy": "numpy", "numba": "numba"}
    out = {}
    for lib in (*libs, "numpy", "numba"):
        try:
            out[lib] = md.version(names.get(lib, lib))
        except md.PackageNotFoundError:
            out[lib] = "?"
    return out


def table(result) -> str:
    """The sweep as markdown: one row per op, one column per size, ``scipy/sparray (sparray time)``."""
    rows = [r for r in result["rows"] if r["op"] in {n for n, _ in _ops()}]
    sizes = sorted({r["nse"] for r in rows})
    ops = list(dict.fromkeys(r["op"] for r in rows))
    by = {(r["op"], r["nse"]): r for r in rows}
    head = "| op | " + " | ".join(f"{s:.0e}" for s in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]
    for op in ops:
        cells = []
        for s in sizes:
            r = by.get((op, s))
            if r is None:
                cells.append("")
                continue
            c = _cell(r)
            if isinstance(r.get("sparray"), float):
                c += f" ({_fmt_t(r['sparray'])} vs {_fmt_t(r['scipy'])})" if isinstance(r.get("scipy"), float) else ""
            if "triad_fraction" in r:
                c += f", triad {r['triad_fraction']:.2f}"
            cells.append(c)
        lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
    if any("torch" in r for r in rows):
        lines += ["", "torch / sparray (above 1: sparray faster):", "",
                  head, "|---" * (len(sizes) + 1) + "|"]
        for op in ops:
            cells = []
            for s in sizes:
                r = by.get((op, s), {})
                t, sp = r.get("torch"), r.get("sparray")
                cells.append(f"{t / sp:.2f}x" if isinstance(t, float) and isinstance(sp, float) else
                             ("n/a" if r and "torch" not in r else ("err" if r else "")))
            lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
    extra = [r for r in result["rows"] if r not in rows]
    if extra:
        lines += ["", "| row | entries | sparray | scipy | torch | scipy / sparray |", "|---|---|---|---|---|---|"]
        for r in extra:
            f = [(_fmt_t(r[k]) if isinstance(r.get(k), float) else r.get(k, "-")) for k in ("sparray", "scipy", "torch")]
            lines.append(f"| {r['op']} | {r['nse']:.2g} | {f[0]} | {f[1]} | {f[2]} | {_cell(r)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=None, help="comma-separated entry counts, e.g. 1e3,1e4 (default 1e3..1e7)")
    ap.add_argument("--only", default=None, help="ops whose name contains this (case-insensitive)")
    ap.add_argument("--threads", type=int, default=None, help="numba and torch threads (default: numba's default)")
    ap.add_argument("--no-torch", action="store_true", help="leave torch out")
    ap.add_argument("--no-extras", action="store_true", help="leave out the two large compressed-layout rows")
    ap.add_argument("--one-process", action="store_true",
                    help="every size in this process (default: each size, and each extra row, in a fresh one)")
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    ap.add_argument("--part", default=None, help=argparse.SUPPRESS)  # a child: "size:N" or "extra:NAME"
    args = ap.parse_args(argv)
    libs = ("sparray", "scipy") if args.no_torch else ("sparray", "scipy", "torch")
    if args.part:
        kind, _, what = args.part.partition(":")
        if kind == "size":
            result = sweep((int(what),), args.only, args.threads, libs, extras=False, log=lambda s: print(s, flush=True))
        else:
            import numba

            result = {"rows": [_extra_row(what, libs, lambda s: print(s, flush=True))],
                      "threads": numba.get_num_threads(), "machine": platform.processor() or platform.machine(),
                      "versions": _versions(libs)}
        with open(args.json, "w") as f:
            json.dump(result, f)
        return 0
    sizes = SIZES if args.sizes is None else tuple(int(float(s)) for s in args.sizes.split(","))
    print(f"# sweep: {platform.node()}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}", flush=True)
    result = sweep(sizes, args.only, args.threads, libs, extras=not args.no_extras,
                   log=lambda s: print(s, flush=True), isolate=not args.one_process)
    print(f"\n# threads {result.get('threads')}, versions {result.get('versions')}, load {os.getloadavg()[0]:.2f}")
    print("# scipy / sparray (above 1: sparray faster), (sparray time vs scipy time)\n")
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
