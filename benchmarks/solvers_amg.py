#!/usr/bin/env python
"""Algebraic multigrid: sparray.linalg.amg beside pyamg's smoothed aggregation and scipy's cg.

    python benchmarks/solvers.py --amg                                  # 4 problems at 1e5 and 1e6 unknowns
    python benchmarks/solvers.py --amg --sizes 1e5 --problems poisson2d,elasticity
    python benchmarks/solvers.py --amg --libs pyamg,sparray_amg         # the AMG rows only
    python benchmarks/solvers.py --amg --sizes 2e3 --one-process --cap 5  # a smoke test (seconds)
    python benchmarks/solvers.py --amg --json benchmarks/results/amg.json

The problems an elliptic user brings (``--problems``, default all four):

- ``poisson2d``: the 5-point Laplacian on a ``k x k`` grid (the matrix of ``solvers.py``);
- ``poisson3d``: the 7-point Laplacian on a ``k x k x k`` grid (``pyamg.gallery.poisson``);
- ``anisotropic``: rotated anisotropic diffusion, Q1 finite elements on a ``k x k`` grid
  (``pyamg.gallery.diffusion_stencil_2d(epsilon=0.001, theta=pi/8, type="FE")`` and
  ``stencil_grid``): strong coupling along a direction the grid does not follow, the case that
  makes aggregation's strength of connection matter;
- ``elasticity``: 2-D linear elasticity, Q1 elements on a ``k x k`` grid, two unknowns a node
  (``pyamg.gallery.linear_elasticity``), with its three rigid-body modes ``B`` handed to both AMG
  setups (smoothed aggregation fits them exactly on every level).

Each is a scipy CSR array with sorted int32 indices, ``k`` chosen so that the unknowns come nearest
each ``--sizes`` entry (default 1e5 and 1e6); ``b`` a fixed random vector (seed 0), ``x0 = 0``,
relative tolerance 1e-8 for every method (pyamg's cg stops on ``||r|| < tol ||b||``, scipy's and
sparray's on ``||r|| <= rtol ||b||``: the same test).

Rows, each library's work timed in a fresh process of its own (the problem is built once, in the
parent, and handed over through an ``.npz``; the child solves a small instance of the same problem
first, untimed, so that kernels are compiled and loaded):

- ``pyamg SA + cg``: ``ml = pyamg.smoothed_aggregation_solver(A, B=B)`` (setup), then
  ``ml.solve(b, tol=1e-8, accel="cg", residuals=res)`` (solve);
- ``sparray amg + cg``: ``ml = sparray.linalg.amg(A, B=B)`` on ``sparray.asarray(A, layout="csr")``
  and ``ml.solve`` with the same arguments; ``sparray cg, M=amg``: ``sparray.linalg.cg(A, b,
  rtol=1e-8, M=ml)`` with that ``ml`` (one V-cycle per application); both skipped, and said so,
  on a tree without ``sparray.linalg.amg``;
- ``scipy cg``, ``sparray cg``, ``sparray cg + ichol0`` (setup: ``ichol0(A)``): stopped after
  ``--cap`` seconds of solving (``capped`` in the table, the residual reached printed beside).

Setup and solve are timed apart; a cell is the median over ``--repeat`` runs (default 3 below
5e5 unknowns, 1 above; a run over 10 s or capped is not repeated), the spread ``[max/min]`` of the
total beside it. Threads: ``--threads`` (default 2) for numba (``NUMBA_NUM_THREADS``), OpenMP and
OpenBLAS/MKL, set in each child's environment. Ratio = pyamg's total / the row's total (above 1:
the row is faster than pyamg; none on a capped row). ``resid`` = ``||b - A x|| / ||b||`` recomputed in float64 by scipy
from each method's answer, so that a wrong answer shows. ``--json F`` writes every number.
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
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SPARRAY_JIT", "eager")

PROBLEMS = ("poisson2d", "poisson3d", "anisotropic", "elasticity")
SIZES = (100_000, 1_000_000)
RTOL = 1e-8
SEED = 0
WARM_UNKNOWNS = 2_000  # the untimed instance each child solves first
AMG_MAXITER = 500  # pyamg's default is 100; a V-cycle-preconditioned cg needing more has failed anyway
LONG_RUN_S = 10.0  # a run longer than this is not repeated
GROUPS = {  # process -> the rows it times, in the table's order
    "pyamg": ("pyamg SA + cg",),
    "sparray_amg": ("sparray amg + cg", "sparray cg, M=amg"),
    "scipy": ("scipy cg",),
    "sparray_cg": ("sparray cg", "sparray cg + ichol0"),
}
NO_AMG = "sparray.linalg.amg not on this tree"


def build(problem: str, n: int):
    """``(A, B, grid)``: the scipy CSR array (sorted int32 indices) of ``problem`` with about ``n``
    unknowns, its near-null space ``B`` (elasticity's rigid-body modes; None for the others) and
    the grid's shape.

    >>> A, B, grid = build("poisson3d", 1000)
    >>> A.shape, B, grid
    ((1000, 1000), None, (10, 10, 10))
    """
    import scipy.sparse as sp

    B = None
    if problem == "poisson2d":
        from solvers import poisson

        k = max(2, round(n**0.5))
        A, grid = poisson(k * k), (k, k)
    else:
        from pyamg import gallery

        if problem == "poisson3d":
            k = max(2, round(n ** (1 / 3)))
            grid = (k, k, k)
            A = gallery.poisson(grid, format="csr")
        elif problem == "anisotropic":
            k = max(2, round(n**0.5))
            grid = (k, k)
            stencil = gallery.diffusion_stencil_2d(epsilon=0.001, theta=np.pi / 8, type="FE")
            A = gallery.stencil_grid(stencil, grid, format="csr")
        elif problem == "elasticity":
            k = max(2, round((n / 2) ** 0.5))
            grid = (k, k)
            A, B = gallery.linear_elasticity(grid, format="csr")
            B = np.ascontiguousarray(B, dtype=np.float64)
        else:
            raise ValueError(f"unknown problem {problem!r}; choose from {', '.join(PROBLEMS)}")
    A = sp.csr_array(A)
    A.sum_duplicates()
    A.sort_indices()
    A = sp.csr_array((A.data.astype(np.float64), A.indices.astype(np.int32), A.indptr.astype(np.int32)),
                     shape=A.shape)  # fmt: skip
    return A, B, grid


def rhs(n_rows: int) -> np.ndarray:
    return np.random.default_rng(SEED).standard_normal(n_rows)


def relative_residual(S, b, x) -> float:
    x = np.asarray(x, dtype=np.float64)
    return float(np.linalg.norm(b - S @ x) / np.linalg.norm(b))


class _Capped(Exception):
    """Raised by the iteration callback once a solve has run ``cap`` seconds."""


class _Counter:
    """A cg callback counting iterations and keeping the latest iterate; past ``cap`` seconds
    since ``start()`` it raises ``_Capped`` (the solver stops there, its iterate kept)."""

    def __init__(self, cap):
        self.cap = cap
        self.count = 0
        self.x = None
        self.t0 = time.perf_counter()

    def start(self):
        self.t0 = time.perf_counter()

    def __call__(self, xk):
        self.count += 1
        self.x = xk
        if self.cap is not None and time.perf_counter() - self.t0 > self.cap:
            self.x = np.array(xk, copy=True)
            raise _Capped


# --- the rows: each returns one run's {setup, solve, iterations, x, capped, ...} ---------------


def _pyamg_run(S, B, b):
    import pyamg

    t0 = time.perf_counter()
    ml = pyamg.smoothed_aggregation_solver(S, B=B) if B is not None else pyamg.smoothed_aggregation_solver(S)
    t1 = time.perf_counter()
    res = []
    x = ml.solve(b, x0=np.zeros_like(b), tol=RTOL, maxiter=AMG_MAXITER, accel="cg", residuals=res)
    t2 = time.perf_counter()
    its = len(res) - 1
    return {"pyamg SA + cg": {"setup": t1 - t0, "solve": t2 - t1, "iterations": its, "x": x,
                              "capped": its >= AMG_MAXITER and res[-1] >= RTOL * np.linalg.norm(b),
                              "operator_complexity": float(ml.operator_complexity()), "levels": len(ml.levels)}}  # fmt: skip


def _sparray_amg_run(S, B, b, A, cap):
    import sparray

    L = sparray.linalg
    t0 = time.perf_counter()
    ml = L.amg(A, B=B) if B is not None else L.amg(A)
    t1 = time.perf_counter()
    res = []
    x = ml.solve(b, x0=np.zeros_like(b), tol=RTOL, maxiter=AMG_MAXITER, accel="cg", residuals=res)
    t2 = time.perf_counter()
    its = len(res) - 1
    cx = float(ml.operator_complexity())
    out = {"sparray amg + cg": {"setup": t1 - t0, "solve": t2 - t1, "iterations": its, "x": x,
                                "capped": its >= AMG_MAXITER and res[-1] >= RTOL * np.linalg.norm(b),
                                "operator_complexity": cx}}  # fmt: skip
    out["sparray cg, M=amg"] = _cg_row(lambda cb: L.cg(A, b, rtol=RTOL, maxiter=AMG_MAXITER, M=ml, callback=cb),
                                       S, b, cap, setup=t1 - t0)  # fmt: skip
    out["sparray cg, M=amg"]["operator_complexity"] = cx
    return out


def _cg_row(solve, S, b, cap, setup=0.0):
    cb = _Counter(cap)
    t0 = time.perf_counter()
    cb.start()
    try:
        x, info = solve(cb)
        capped = info != 0
    except _Capped:
        x, capped = cb.x, True
    return {"setup": setup, "solve": time.perf_counter() - t0, "iterations": cb.count, "x": x, "capped": capped}


def _scipy_run(S, B, b, cap):
    import scipy.sparse.linalg as sla

    return {"scipy cg": _cg_row(lambda cb: sla.cg(S, b, rtol=RTOL, atol=0.0, callback=cb), S, b, cap)}


def _sparray_cg_run(S, B, b, A, cap):
    import sparray

    L = sparray.linalg
    out = {"sparray cg": _cg_row(lambda cb: L.cg(A, b, rtol=RTOL, callback=cb), S, b, cap)}
    t0 = time.perf_counter()
    try:
        M = L.ichol0(A)
    except ValueError as e:  # a pivot not positive: IC(0) breaks down on this matrix
        out["sparray cg + ichol0"] = {"error": f"ichol0: {e}"}
        return out
    setup = time.perf_counter() - t0
    out["sparray cg + ichol0"] = _cg_row(lambda cb: L.cg(A, b, rtol=RTOL, M=M, callback=cb), S, b, cap, setup)
    return out


def has_amg() -> bool:
    import sparray

    return hasattr(sparray.linalg, "amg")


def run_group(group, problem, S, B, b, *, repeat, cap, warm):
    """Time ``group``'s rows on ``(S, B, b)`` in this process: one untimed run on ``warm`` (a small
    instance of the problem: ``(S, B, b)``, or None), then ``repeat`` timed runs (fewer when a run
    is capped or long). Returns ``{row: record}``, a record holding the lists ``setup_s`` and
    ``solve_s``, ``iterations`` (of the last run), ``capped``, ``residual`` (of the last answer)."""
    import sparray

    def one(S_, B_, b_):
        if group == "pyamg":
            return _pyamg_run(S_, B_, b_)
        if group == "scipy":
            return _scipy_run(S_, B_, b_, cap)
        t0 = time.perf_counter()
        A_ = sparray.asarray(S_, layout="csr")
        convert = time.perf_counter() - t0
        got = (_sparray_amg_run if group == "sparray_amg" else _sparray_cg_run)(S_, B_, b_, A_, cap)
        for rec in got.values():
            rec["convert"] = convert
        return got

    if group == "sparray_amg" and not has_amg():
        return {row: {"error": NO_AMG} for row in GROUPS[group]}
    if warm is not None:
        one(*warm)
    records = {}
    for _ in range(repeat):
        try:
            got = one(S, B, b)
        except Exception as e:  # noqa: BLE001  (a library that fails on a problem: its rows say so, the run goes on)
            got = {row: {"error": f"{type(e).__name__}: {str(e)[:200]}"} for row in GROUPS[group]}
        for row, rec in got.items():
            acc = records.setdefault(row, {"setup_s": [], "solve_s": [], "convert_s": []})
            if "error" in rec:
                acc["error"] = rec["error"]
                continue
            acc["setup_s"].append(rec["setup"])
            acc["solve_s"].append(rec["solve"])
            if "convert" in rec:
                acc["convert_s"].append(rec["convert"])
            acc["iterations"] = rec["iterations"]
            acc["capped"] = bool(rec["capped"])
            acc["residual"] = relative_residual(S, b, rec["x"])
            for key in ("operator_complexity", "levels"):
                if key in rec:
                    acc[key] = rec[key]
        if any(r.get("capped") or (r.get("setup", 0) + r.get("solve", 0)) > LONG_RUN_S for r in got.values()):
            break
    return records


# --- processes -------------------------------------------------------------------------------


def child_env(threads: int) -> dict:
    env = dict(os.environ)
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    env.setdefault("SPARRAY_JIT", "eager")
    return env


def _save(path, S, B, b):
    arrays = {"data": S.data, "indices": S.indices, "indptr": S.indptr, "shape": np.array(S.shape), "b": b}
    if B is not None:
        arrays["B"] = B
    np.savez(path, **arrays)


def _load(path):
    import scipy.sparse as sp

    with np.load(path) as f:
        S = sp.csr_array((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))
        B = f["B"] if "B" in f.files else None
        return S, B, f["b"]


def child_main(args) -> int:
    """A child process: loads the problem from ``--npz``, times ``--child``'s rows, writes JSON."""
    warnings.filterwarnings("ignore")
    S, B, b = _load(args.npz)
    Sw, Bw, _ = build(args.problem, WARM_UNKNOWNS)
    records = run_group(args.child, args.problem, S, B, b, repeat=args.repeat, cap=args.cap,
                        warm=(Sw, Bw, rhs(Sw.shape[0])))  # fmt: skip
    with open(args.out, "w") as f:
        json.dump(records, f)
    return 0


def _in_child(group, problem, npz, repeat, cap, threads):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    try:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", group, "--problem", problem, "--npz", npz,
               "--repeat", str(repeat), "--cap", str(cap), "--out", out]  # fmt: skip
        p = subprocess.run(cmd, capture_output=True, text=True, env=child_env(threads))
        if p.returncode != 0:
            tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"]
            return {row: {"error": f"process failed ({p.returncode}): {tail[0][:200]}"} for row in GROUPS[group]}
        with open(out) as f:
            return json.load(f)
    finally:
        os.unlink(out)


# --- the table -------------------------------------------------------------------------------


def _summary(rec):
    """Medians of a record (None when it has no runs)."""
    if rec.get("error") or not rec.get("solve_s"):
        return None
    setup, solve = statistics.median(rec["setup_s"]), statistics.median(rec["solve_s"])
    totals = [a + b for a, b in zip(rec["setup_s"], rec["solve_s"])]
    return {"setup": setup, "solve": solve, "total": statistics.median(totals),
            "spread": max(totals) / min(totals) if len(totals) > 1 and min(totals) > 0 else None}  # fmt: skip


def _fmt_s(t):
    return f"{t:.3f}" if t < 100 else f"{t:.1f}"


HEAD = (f"{'unknowns':>9} {'method':<20} {'setup s':>8} {'solve s':>9} {'total s':>9} {'[spread]':>8} "
        f"{'iters':>7} {'op.cx':>6} {'resid':>8} {'pyamg/total':>11}")  # fmt: skip


def table_rows(n_rows, rows) -> list[str]:
    """The table's lines for one size: ``rows`` is ``[(method, record)]``, pyamg's first."""
    lines = []
    ref = dict(rows).get("pyamg SA + cg")
    ref_total = (_summary(ref) or {}).get("total") if ref else None
    for name, rec in rows:
        s = _summary(rec)
        if s is None:
            lines.append(f"{n_rows:>9} {name:<20} {rec.get('error', 'no runs')}")
            continue
        spread = f"[{s['spread']:.2f}]" if s["spread"] is not None else ""
        its = f"{rec['iterations']}" + (" capped" if rec.get("capped") else "")
        cx = f"{rec['operator_complexity']:.2f}" if "operator_complexity" in rec else ""
        # a capped row's total is no time to solution: no ratio
        ratio = f"{ref_total / s['total']:.2f}x" if ref_total and s["total"] > 0 and not rec.get("capped") else ""
        setup = _fmt_s(s["setup"]) if s["setup"] > 0 else "-"
        lines.append(f"{n_rows:>9} {name:<20} {setup:>8} {_fmt_s(s['solve']):>9} {_fmt_s(s['total']):>9} "
                     f"{spread:>8} {its:>7} {cx:>6} {rec['residual']:>8.1e} {ratio:>11}")  # fmt: skip
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="solvers.py --amg", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=None, help="comma-separated unknowns (default 1e5,1e6)")
    ap.add_argument("--problems", default=None, help=f"comma-separated, of {','.join(PROBLEMS)} (default all)")
    ap.add_argument("--libs", default=None,
                    help=f"comma-separated processes to run, of {','.join(GROUPS)} (default all)")
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per row (default 3 below 5e5 unknowns, else 1)")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds a cg solve without AMG may run (default 60)")
    ap.add_argument("--threads", type=int, default=2, help="numba/OpenMP/BLAS threads of each process (default 2)")
    ap.add_argument("--one-process", action="store_true", help="every row in this process (smoke tests)")
    ap.add_argument("--json", default=None, help="also write every number to this JSON file")
    ap.add_argument("--child", default=None, choices=sorted(GROUPS), help=argparse.SUPPRESS)
    ap.add_argument("--problem", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--npz", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child_main(args)
    try:
        import pyamg
    except ImportError:
        print("pyamg is not installed (a bench-only dependency: pip install -e '.[bench]')", file=sys.stderr)
        return 2
    import scipy

    import sparray

    sizes = [int(float(s)) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    problems = args.problems.split(",") if args.problems else list(PROBLEMS)
    for p in problems:
        if p not in PROBLEMS:
            ap.error(f"unknown problem {p!r}; choose from {', '.join(PROBLEMS)}")
    groups = args.libs.split(",") if args.libs else list(GROUPS)
    for g in groups:
        if g not in GROUPS:
            ap.error(f"unknown --libs entry {g!r}; choose from {', '.join(GROUPS)}")
    warnings.filterwarnings("ignore")
    if args.one_process:
        try:
            import numba

            numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
        except ImportError:
            pass
    amg_here = has_amg()
    print(f"sparray {sparray.__version__}, pyamg {pyamg.__version__}, scipy {scipy.__version__}, "
          f"numpy {np.__version__}; {args.threads} threads; rtol {RTOL:g}, b random (seed {SEED}), x0 = 0; "
          f"cg cap {args.cap:g} s; "
          + ("every row in this one process" if args.one_process else "each library in a fresh process")
          + f"; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    if not amg_here:
        print(f"({NO_AMG}: its rows are skipped)")
    results = {"meta": {"argv": sys.argv, "sparray": sparray.__version__, "pyamg": pyamg.__version__,
                        "scipy": scipy.__version__, "numpy": np.__version__, "threads": args.threads,
                        "rtol": RTOL, "seed": SEED, "cap_s": args.cap, "one_process": args.one_process, "libs": groups,
                        "load_start": os.getloadavg()[0], "sparray_amg": amg_here},
               "rows": []}  # fmt: skip
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for problem in problems:
            print(f"\n## {problem}")
            print(HEAD)
            print("-" * len(HEAD))
            warm = build(problem, WARM_UNKNOWNS)
            warm = (warm[0], warm[1], rhs(warm[0].shape[0]))
            for n in sizes:
                t0 = time.perf_counter()
                S, B, grid = build(problem, n)
                b = rhs(S.shape[0])
                t_build = time.perf_counter() - t0
                repeat = args.repeat or (3 if S.shape[0] < 500_000 else 1)
                npz = os.path.join(tmp, f"{problem}_{n}.npz")
                if not args.one_process:
                    _save(npz, S, B, b)
                rows = []
                for group in groups:  # pyamg first when it runs: the ratios' reference
                    if args.one_process:
                        got = run_group(group, problem, S, B, b, repeat=repeat, cap=args.cap, warm=warm)
                    else:
                        got = _in_child(group, problem, npz, repeat, args.cap, args.threads)
                    rows.extend((name, got[name]) for name in GROUPS[group] if name in got)
                for line in table_rows(S.shape[0], rows):
                    print(line)
                conv = [statistics.median(r["convert_s"]) for _, r in rows if r.get("convert_s")]
                print(f"{'':>9} ({'x'.join(map(str, grid))} grid, {S.nnz} stored entries, built in {t_build:.1f} s"
                      + (f"; sparray.asarray of the scipy CSR {min(conv) * 1e3:.2f} ms, not in the times" if conv else "")
                      + ")")  # fmt: skip
                sys.stdout.flush()
                for name, rec in rows:
                    s = _summary(rec) or {}
                    results["rows"].append({"problem": problem, "size": n, "unknowns": S.shape[0], "nse": int(S.nnz),
                                            "grid": list(grid), "method": name, **rec, **s})  # fmt: skip
                if os.path.exists(npz):
                    os.unlink(npz)
    results["meta"]["load_end"] = os.getloadavg()[0]
    results["meta"]["run_s"] = time.perf_counter() - t_start
    print(f"\nrun took {results['meta']['run_s']:.0f} s; load average at end "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
