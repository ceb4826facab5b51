"""GPU benchmark: sparray on CuPy data beside cupyx.scipy.sparse (cuSPARSE) and torch's CUDA sparse
tensors, one run, the same matrices (benchmarks/matrices.py) and CSR input for every library.

    python benchmarks/bench_gpu.py [--scale 1.0] [--json FILE]

Each cell is the median of timed calls after two untimed ones (so NVRTC compiles and CuPy's
kernel cache are outside the timing); a call is timed from before the launch to after a device
synchronisation, so every library pays for its launches and its allocations. Results are checked
against cupyx's: vectors element by element, sparse results by their number of entries and sums.
The table prints sparray's time and the peers' times over sparray's (above 1: sparray is faster),
and for SpMV rows the bytes moved per second against the device's triad (a = b + 2.5 c) measured
in the same run. Needs a GPU, CuPy and scipy; torch is optional.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matrices  # noqa: E402


def _sync():
    import cupy

    cupy.cuda.runtime.deviceSynchronize()


def timed(fn, *, budget=2.0, most=30):
    """Median seconds of fn() over timed calls after two untimed ones."""
    fn()
    fn()
    _sync()
    times = []
    start = time.perf_counter()
    while len(times) < most and (len(times) < 5 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        _sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def triad_gbs(n=1 << 27):
    import cupy

    kernel = cupy.ElementwiseKernel("float64 b, float64 c", "float64 a", "a = b + 2.5 * c", "triad")
    b = cupy.ones(n)
    c = cupy.ones(n)
    a = cupy.empty(n)
    t = timed(lambda: kernel(b, c, a))
    return 3 * 8 * n / t / 1e9


class Matrix:
    """One benchmark matrix as CSR components on the GPU, and as each library's object."""

    def __init__(self, name, scale):
        import cupy
        import scipy.sparse as ss

        row, col, val, shape = matrices.get(name, scale)
        S = ss.csr_array((val, (row, col)), shape=shape)
        S.sum_duplicates()
        S.indptr = S.indptr.astype(np.int32)
        S.indices = S.indices.astype(np.int32)
        self.name, self.shape, self.nse = name, shape, S.nnz
        self.ptr = cupy.asarray(S.indptr)
        self.idx = cupy.asarray(S.indices)
        self.val = cupy.asarray(S.data)
        C = S.tocoo()
        self.coo_rows = cupy.asarray(C.row.astype(np.int64))
        self.coo_cols = cupy.asarray(C.col.astype(np.int64))

    def sparray(self):
        import sparray as sp

        return sp.CSR(self.ptr, self.idx, self.val, shape=self.shape)

    def cupyx(self):
        import cupyx.scipy.sparse as cs

        return cs.csr_matrix((self.val, self.idx, self.ptr), shape=self.shape)

    def torch(self):
        import torch

        t = torch.from_dlpack
        return torch.sparse_csr_tensor(t(self.ptr), t(self.idx), t(self.val), size=self.shape)


def _library(name):
    try:
        if name == "torch":
            import torch

            if not torch.cuda.is_available():
                return None
        elif name == "cupyx":
            import cupyx.scipy.sparse  # noqa: F401
        return name
    except Exception:
        return None


def _as_cupy(x):
    import cupy

    if isinstance(x, cupy.ndarray):
        return x
    if type(x).__module__.startswith("torch"):
        if x.layout != __import__("torch").strided:
            x = x.to_dense()
        return cupy.from_dlpack(x.contiguous())
    if hasattr(x, "toarray") and not hasattr(x, "to_dense"):  # cupyx sparse
        return x.toarray()
    if hasattr(x, "to_dense"):  # sparray
        return cupy.asarray(x.to_dense())
    return cupy.asarray(x)


def _summary(x):
    """(entries, sum, sum of |v|) of a sparse result of any library, on the host."""
    import cupy

    if hasattr(x, "nnz") and hasattr(x, "data"):  # cupyx
        x.sum_duplicates()
        v = x.data
    elif type(x).__module__.startswith("torch"):
        v = cupy.from_dlpack(x.values().contiguous())
    else:  # sparray
        v = x.values
    return int(v.size), float(cupy.sum(v)), float(cupy.sum(cupy.abs(v)))


def check(got, want, sparse_result):
    import cupy

    if sparse_result:
        g, w = _summary(got), _summary(want)
        ok = g[0] == w[0] and np.allclose(g[1:], w[1:], rtol=1e-9)
        return "ok" if ok else f"differs: {g} vs {w}"
    g, w = cupy.asarray(_as_cupy(got)).ravel(), cupy.asarray(_as_cupy(want)).ravel()
    if g.shape != w.shape:
        return f"shape {g.shape} vs {w.shape}"
    return "ok" if bool(cupy.allclose(g, w, rtol=1e-9, atol=1e-9)) else "differs"


def cases(scale):
    """(row name, matrix names, {library: function of the operands' objects}, sparse result, bytes)"""
    import sparray as sp

    def spmv_bytes(m):
        return m.nse * 12 + (m.shape[0] + 1) * 4 + (m.shape[0] + m.shape[1]) * 8

    out = []

    def vec(m, k=None):
        import cupy

        rng = cupy.random.default_rng(0)
        return rng.standard_normal(m.shape[1] if k is None else (m.shape[1], k))

    def with_torch(x):
        import torch

        return torch.from_dlpack(x)

    for name in ("poisson", "block4", "rmat"):
        out.append((f"SpMV {name}", (name,), {
            "sparray": lambda A, x: A @ x,
            "cupyx": lambda A, x: A @ x,
            "torch": lambda A, x: A @ x,
        }, False, spmv_bytes, lambda m: vec(m)))
    out.append(("SpMM x32 rmat", ("rmat",), {
        "sparray": lambda A, X: A @ X,
        "cupyx": lambda A, X: A @ X,
        "torch": lambda A, X: A @ X,
    }, False, None, lambda m: vec(m, 32)))
    out.append(("SpGEMM A @ A poisson1m", ("poisson1m",), {
        "sparray": lambda A: A @ A,
        "cupyx": lambda A: A @ A,
        "torch": lambda A: A @ A,
    }, True, None, None))
    for axis in (0, 1):
        out.append((f"sum axis={axis} uniform", ("uniform",), {
            "sparray": lambda A, axis=axis: sp.sum(A, axis=axis),
            "cupyx": lambda A, axis=axis: A.sum(axis=axis),
            "torch": lambda A, axis=axis: A.sum(dim=axis),
        }, False, None, None))
    for axis in (0, 1):
        out.append((f"max axis={axis} uniform", ("uniform",), {
            "sparray": lambda A, axis=axis: sp.max(A, axis=axis),
            "cupyx": lambda A, axis=axis: A.max(axis=axis),
            "torch": lambda A, axis=axis: A.amax(dim=axis),
        }, False, None, None))
    for pair in (("uniform", "uniform_b"), ("rmat", "rmat_t")):
        out.append((f"A + B {pair[0]} + {pair[1]}", pair, {
            "sparray": lambda A, B: A + B,
            "cupyx": lambda A, B: A + B,
            "torch": lambda A, B: A + B,
        }, True, None, None))
    out.append(("COO -> CSR uniform", ("uniform",), "coo", True, None, None))
    return out, with_torch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=Path, help="also write, per row, sparray's host and device time "
                        "(cupyx.profiler.benchmark) and a cProfile of 20 calls to this file")
    parser.add_argument("--events", type=Path, help="also time, per row, sparray's call with CUDA events: the host "
                        "path (the call's CPU time), the device time of the call, and for SpMV rows the kernel alone "
                        "(the launcher on proven inputs); printed and written to this file as JSON")
    args = parser.parse_args(argv)
    import cupy

    import sparray as sp

    props = cupy.cuda.runtime.getDeviceProperties(0)
    libs = [lib for lib in ("sparray", "cupyx", "torch") if lib == "sparray" or _library(lib)]
    print(f"device: {props['name'].decode()}, CuPy {cupy.__version__}, libraries: {', '.join(libs)}")
    triad = triad_gbs()
    print(f"triad (a = b + 2.5 c, 3 GiB): {triad:.0f} GB/s")
    loaded = {}
    rows = []
    events = {}
    table, with_torch = cases(args.scale)
    for title, names, fns, sparse_result, nbytes, extra in table:
        for n in names:
            if n not in loaded:
                loaded[n] = Matrix(n, args.scale)
        mats = [loaded[n] for n in names]
        times, checks = {}, {}
        results = {}
        for lib in libs:
            try:
                if fns == "coo":
                    m = mats[0]
                    if lib == "sparray":
                        idx = cupy.stack([m.coo_rows, m.coo_cols])
                        fn = lambda: sp.COO(idx, m.val, shape=m.shape).to_layout("csr")  # noqa: E731
                    elif lib == "cupyx":
                        import cupyx.scipy.sparse as cs

                        fn = lambda: cs.coo_matrix((m.val, (m.coo_rows, m.coo_cols)), shape=m.shape).tocsr()  # noqa: E731
                    else:
                        import torch

                        ti = torch.from_dlpack(cupy.stack([m.coo_rows, m.coo_cols]))
                        tv = torch.from_dlpack(m.val)
                        fn = lambda: torch.sparse_coo_tensor(ti, tv, m.shape, is_coalesced=True).to_sparse_csr()  # noqa: E731
                else:
                    ops = [getattr(m, lib)() for m in mats]
                    if extra is not None:
                        x = extra(mats[0])
                        ops.append(with_torch(x) if lib == "torch" else x)
                    f = fns[lib]
                    fn = lambda f=f, ops=ops: f(*ops)  # noqa: E731
                results[lib] = fn()
                times[lib] = timed(fn)
                if args.profile and lib == "sparray":
                    _profile(title, fn, args.profile)
                if args.events and lib == "sparray":
                    events[title] = _events(title, fn, mats[0], ops[-1] if title.startswith("SpMV") else None)
            except Exception as e:  # a peer without the operation: the cell says so
                times[lib] = None
                checks[lib] = f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
        for lib in libs:
            if lib in results and lib != "cupyx" and "cupyx" in results:
                try:
                    checks[lib] = check(results[lib], results["cupyx"], sparse_result)
                except Exception as e:
                    checks[lib] = f"check failed: {type(e).__name__}: {e}"[:100]
        row = {"row": title, "nse": mats[0].nse, "times": times, "checks": checks}
        if nbytes is not None and times.get("sparray"):
            row["GB/s"] = nbytes(mats[0]) / times["sparray"] / 1e9
            row["triad fraction"] = row["GB/s"] / triad
            for lib in libs:
                if times.get(lib):
                    row[f"{lib} triad fraction"] = nbytes(mats[0]) / times[lib] / 1e9 / triad
        rows.append(row)
        del results
        cupy.get_default_memory_pool().free_all_blocks()
        _print_row(row, libs)
    if args.events:
        args.events.write_text(json.dumps(events, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"device": props["name"].decode(), "triad_GBs": triad, "rows": rows}, indent=1))


def _events(title, fn, m, x):
    """sparray's call timed with CUDA events (cupyx.profiler.benchmark: 50 calls after 3): the host
    path (CPU time per call: Python, launches and any wait for the device) and the device time
    (start to end event on the stream); for an SpMV row (``x`` given) also the kernel alone, the
    CUDA launcher on ``m``'s components with its inputs proven (no checks, no read-back)."""
    from cupyx.profiler import benchmark

    r = benchmark(fn, n_repeat=50, n_warmup=3)
    out = {"host_us": float(np.median(r.cpu_times)) * 1e6, "device_us": float(np.median(r.gpu_times)) * 1e6}
    if x is not None:
        from sparray.kernels.cuda._trust import proven_inputs
        from sparray.kernels.cuda.spmm import csr_matmul_dense

        def kernel():
            with proven_inputs():
                return csr_matmul_dense(m.ptr, m.idx, m.val, x)

        k = benchmark(kernel, n_repeat=50, n_warmup=3)
        out["kernel_us"] = float(np.median(k.gpu_times)) * 1e6
    cells = " ".join(f"{k} {v:9.1f}" for k, v in out.items())
    print(f"    events {title}: {cells}", flush=True)
    return out


def _profile(title, fn, path):
    """Appends to ``path``: the mean host and device time of fn (CuPy's profiler: host time is
    Python and launches, device time the kernels on the stream) and the functions of a cProfile of
    20 calls that took longest, themselves and with their callees."""
    import cProfile
    import io
    import pstats

    from cupyx.profiler import benchmark

    r = benchmark(fn, n_repeat=20, n_warmup=2)
    cpu, gpu = float(np.mean(r.cpu_times)), float(np.mean(r.gpu_times))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(20):
        fn()
    _sync()
    prof.disable()
    text = io.StringIO()
    stats = pstats.Stats(prof, stream=text)
    stats.sort_stats("tottime").print_stats(18)
    stats.sort_stats("cumulative").print_stats(25)
    with open(path, "a") as f:
        f.write(f"=== {title}: host {cpu * 1e3:.3f} ms, device {gpu * 1e3:.3f} ms per call\n")
        f.write(text.getvalue())
    print(f"    profile: host {cpu * 1e3:.3f} ms, device {gpu * 1e3:.3f} ms per call", flush=True)


def _print_row(row, libs):
    t = row["times"]
    base = t.get("sparray")
    cells = [f"{row['row']:<28}", f"{row['nse']:>10,}", f"{base * 1e3:9.3f} ms" if base else f"{'-':>12}"]
    for lib in libs[1:]:
        if t.get(lib) and base:
            cells.append(f"{lib} {t[lib] * 1e3:8.3f} ms ({t[lib] / base:5.2f}x)")
        else:
            cells.append(f"{lib} {'n/a':>22}")
    if "triad fraction" in row:
        frac = " ".join(f"{lib[:2]} {row[f'{lib} triad fraction']:.2f}" for lib in libs if f"{lib} triad fraction" in row)
        cells.append(f"triad: {frac}")
    bad = {k: v for k, v in row["checks"].items() if v != "ok"}
    if bad:
        cells.append(f"notes: {bad}")
    print(" | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
