#!/usr/bin/env python
"""sparray.graph's operations beside SuiteSparse:GraphBLAS (python-graphblas), each library in a
fresh process of its own, through each library's public functions.

    python benchmarks/bench_graph.py                          # rmat16, rmat18, grid512, grid1600
    python benchmarks/bench_graph.py --graphs rmat16 --only "min_plus"
    python benchmarks/bench_graph.py --graphblas-python /path/to/python   # a venv that has graphblas
    python benchmarks/bench_graph.py --repeat-processes 3     # each column from 3 fresh processes

Graphs: R-MAT with Graph500's parameters (a, b, c = 0.57, 0.19, 0.19, edge factor 16, vertex
labels permuted at random as Graph500 does, made symmetric, self-loops and repeated edges
dropped; ``rmat<scale>``), and the 2-D grid (4 neighbours; ``grid<side>``); float64 weights in
[0.5, 1.5), int32 indices. Rows: ``A @ x`` (pull, mxv) and ``x @ A`` (push, vxm) with min_plus and
plus_times for a full x, ``x @ A`` for a sparse x (1% of the vertices) with min_plus, a BFS step
(any_secondi into the complement of a visited mask, the frontier 1% of the vertices), the
masked triangle-count product ``(L @ L.T)<L>`` with plus_pair (L = tril, iso-valued; sparray by
dot products of L's rows, as GraphBLAS is given ``L.T``), reduce by rows and by columns (plus),
``select(tril)``.

Time as a program meets it: the prepared inputs called again and again (``--calls``, up to
``--cap`` seconds a cell), after a warm-up call (which compiles or loads the kernels); the
GraphBLAS call includes ``wait()`` (it works lazily). Both libraries get ``--threads`` threads
(2). A cell is the median call with its spread (max / min); the ratio is GraphBLAS's time /
sparray's (above 1: sparray faster). Results are checked against each other after the timed
calls (the present pattern exactly, the values to 1e-9). Run it alone (``flock
/tmp/sparray-bench.lock``): other processes' load distorts both columns.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GRAPHS = ("rmat16", "rmat18", "grid512", "grid1600")
ROWS = (
    "A @ x min_plus", "A @ x plus_times", "x @ A min_plus", "x @ A plus_times", "x @ A min_plus sparse x",
    "BFS step any_secondi", "(L @ L.T)<L> plus_pair", "reduce rows plus", "reduce cols plus", "select tril",
)  # fmt: skip


def build_graph(name: str):
    """(indptr int32, indices int32, weights float64, n): the graph's symmetric CSR, from fixed seeds."""
    import scipy.sparse as sp

    rng = np.random.default_rng(12345)
    if name.startswith("rmat"):
        scale = int(name[4:])
        n = 1 << scale
        m = 16 * n
        a, b, c = 0.57, 0.19, 0.19
        row = np.zeros(m, np.int64)
        col = np.zeros(m, np.int64)
        for _ in range(scale):
            u = rng.random(m)
            row = (row << 1) | (u >= a + b)
            col = (col << 1) | (((u >= a) & (u < a + b)) | (u >= a + b + c))
        perm = rng.permutation(n)
        row, col = perm[row], perm[col]
    elif name.startswith("grid"):
        side = int(name[4:])
        n = side * side
        ids = np.arange(n).reshape(side, side)
        row = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
        col = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    else:
        raise ValueError(f"unknown graph {name!r}: rmat<scale> or grid<side>")
    keep = row != col
    row, col = row[keep], col[keep]
    S = sp.coo_matrix((np.ones(row.size), (row, col)), shape=(n, n)).tocsr()
    S = (S + S.T).tocsr()
    S.sum_duplicates()
    S.sort_indices()
    w = rng.random(S.nnz) + 0.5
    W = sp.csr_matrix((w, S.indices, S.indptr), shape=(n, n))
    W = ((W + W.T) * 0.5).tocsr()  # symmetric weights
    W.sort_indices()
    return W.indptr.astype(np.int32), W.indices.astype(np.int32), W.data.astype(np.float64), n


def tril(indptr, indices, n):
    import scipy.sparse as sp

    L = sp.tril(sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n)), -1).tocsr()
    L.sort_indices()
    return L.indptr.astype(np.int32), L.indices.astype(np.int32)


def inputs(name):
    indptr, indices, w, n = build_graph(name)
    rng = np.random.default_rng(7)
    x = rng.random(n) + 0.5
    frontier = np.sort(rng.choice(n, max(1, n // 100), replace=False)).astype(np.int64)
    xs = rng.random(frontier.size) + 0.5
    visited = rng.random(n) < 0.3
    visited[frontier] = True
    Lp, Li = tril(indptr, indices, n)
    return dict(indptr=indptr, indices=indices, w=w, n=n, x=x, frontier=frontier, xs=xs, visited=visited, Lp=Lp, Li=Li)


def calls_sparray(I, threads):
    """The public functions (``sparray.graph``) on sparray arrays built once from the parts, as a
    program holds them: a CSR with an undefined fill, a dense x, a sparse frontier."""
    import numba

    import sparray
    from sparray import graph

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    U = sparray.undefined
    p, j, w, n, x = I["indptr"], I["indices"], I["w"], I["n"], I["x"]
    A = sparray.CSR(p, j, w, shape=(n, n), fill_value=U)
    L = sparray.CSR(I["Lp"], I["Li"], np.ones(I["Li"].size, np.bool_), shape=(n, n), fill_value=U)
    xs = sparray.COO(I["frontier"][None, :], I["xs"], shape=(n,), fill_value=U)
    front = sparray.COO(I["frontier"][None, :], np.ones(I["frontier"].size, np.bool_), shape=(n,), fill_value=U)
    vis = I["visited"]

    def vec(v):
        return np.asarray(v.indices[0], np.int64), np.asarray(v.values)

    def idx(v):
        return np.asarray(v.indices[0], np.int64)

    def mat(m):
        return np.asarray(m.crow_indices), np.asarray(m.col_indices), np.asarray(m.values)

    return {
        "A @ x min_plus": (lambda: graph.matmul(A, x, "min_plus"), vec),
        "A @ x plus_times": (lambda: graph.matmul(A, x, "plus_times"), vec),
        "x @ A min_plus": (lambda: graph.matmul(x, A, "min_plus"), vec),
        "x @ A plus_times": (lambda: graph.matmul(x, A, "plus_times"), vec),
        "x @ A min_plus sparse x": (lambda: graph.matmul(xs, A, "min_plus"), vec),
        "BFS step any_secondi": (lambda: graph.matmul(front, A, "any_secondi", mask=vis, complement=True), idx),
        "(L @ L.T)<L> plus_pair": (lambda: graph.matmul(L, L.mT, "plus_pair", mask=L), mat),
        "reduce rows plus": (lambda: graph.reduce(A, "plus", axis=1), vec),
        "reduce cols plus": (lambda: graph.reduce(A, "plus", axis=0), vec),
        "select tril": (lambda: graph.select(A, "tril"), mat),
    }


def calls_graphblas(I, threads):
    import graphblas as gb
    from graphblas import monoid, semiring

    gb.ss.config["nthreads"] = threads
    p, j, w, n, x = I["indptr"], I["indices"], I["w"], I["n"], I["x"]
    A = gb.Matrix.from_csr(p, j, w, nrows=n, ncols=n)
    L = gb.Matrix.from_csr(I["Lp"], I["Li"], True, nrows=n, ncols=n)  # iso
    gx = gb.Vector.from_dense(x)
    gs = gb.Vector.from_coo(I["frontier"], I["xs"], size=n)
    gf = gb.Vector.from_coo(I["frontier"], True, size=n)
    vis = gb.Vector.from_coo(np.flatnonzero(I["visited"]), True, size=n)
    plus_pair = semiring.plus_pair["INT64"]
    any_secondi = semiring.ss.any_secondi["INT64"]

    def done(m):
        m.wait()
        return m

    def vec(v):
        idx, vals = v.to_coo()
        return idx.astype(np.int64), vals

    def mat(m):
        return m.to_csr()

    return {
        "A @ x min_plus": (lambda: done(A.mxv(gx, semiring.min_plus).new()), vec),
        "A @ x plus_times": (lambda: done(A.mxv(gx, semiring.plus_times).new()), vec),
        "x @ A min_plus": (lambda: done(gx.vxm(A, semiring.min_plus).new()), vec),
        "x @ A plus_times": (lambda: done(gx.vxm(A, semiring.plus_times).new()), vec),
        "x @ A min_plus sparse x": (lambda: done(gs.vxm(A, semiring.min_plus).new()), vec),
        "BFS step any_secondi": (lambda: done(gf.vxm(A, any_secondi).new(mask=~vis.S)), lambda v: vec(v)[0]),
        "(L @ L.T)<L> plus_pair": (lambda: done(L.mxm(L.T, plus_pair).new(mask=L.S)), mat),
        "reduce rows plus": (lambda: done(A.reduce_rowwise(monoid.plus).new()), vec),
        "reduce cols plus": (lambda: done(A.reduce_columnwise(monoid.plus).new()), vec),
        "select tril": (lambda: done(gb.select.tril(A).new()), mat),
    }


def child(spec):
    """Run one library's rows on one graph; returns {row: {"times": [...], "result": path}}."""
    I = inputs(spec["graph"])
    make = calls_sparray if spec["lib"] == "sparray" else calls_graphblas
    calls = make(I, spec["threads"])
    out = {}
    for row, (fn, result) in calls.items():
        if spec["only"] and not any(s in row for s in spec["only"]):
            continue
        t0 = time.perf_counter()
        r = fn()  # warm-up: compiles or loads the kernels
        first = time.perf_counter() - t0
        times = []
        t_start = time.perf_counter()
        while len(times) < spec["calls"] and (time.perf_counter() - t_start < spec["cap"] or len(times) < 3):
            t0 = time.perf_counter()
            r = fn()
            times.append(time.perf_counter() - t0)
            del r
        r = result(fn())
        path = os.path.join(spec["dir"], f"{spec['lib']}-{abs(hash(row))}.npz")
        arrays = r if isinstance(r, tuple) else (r,)
        np.savez(path, *arrays)
        out[row] = {"times": times, "first": first, "result": path}
    return out


def run_child(lib, graph, args, tmp):
    spec = dict(lib=lib, graph=graph, threads=args.threads, calls=args.calls, cap=args.cap, only=args.only, dir=tmp)
    python = args.graphblas_python if lib == "graphblas" else sys.executable
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS=str(args.threads))
    code = f"import sys, json; sys.path.insert(0, {HERE!r}); import bench_graph as b; print('@@' + json.dumps(b.child({spec!r})))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"{lib} on {graph} failed:\n{proc.stderr[-3000:]}")
    line = [s for s in proc.stdout.splitlines() if s.startswith("@@")][-1]
    return json.loads(line[2:])


def same(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    try:
        for k in a.files:
            x, y = a[k], b[k]
            if x.shape != y.shape:
                return False
            if x.dtype.kind == "f" or y.dtype.kind == "f":
                if not np.allclose(x, y, rtol=1e-9, atol=0):
                    return False
            elif not np.array_equal(x, y):
                return False
        return True
    finally:
        a.close()
        b.close()


def fmt(t):
    return f"{t * 1e3:8.2f} ms" if t >= 1e-3 else f"{t * 1e6:8.1f} us"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--only", default="", help="comma-separated substrings of the rows to run")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--cap", type=float, default=8.0, help="seconds of timed calls a cell aims at")
    ap.add_argument("--repeat-processes", type=int, default=1)
    ap.add_argument("--graphblas-python", default=sys.executable)
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for graph in args.graphs.split(","):
            runs = {"sparray": [], "graphblas": []}
            for _ in range(args.repeat_processes):
                for lib in ("sparray", "graphblas"):
                    runs[lib].append(run_child(lib, graph, args, tmp))
            print(f"\n{graph}: {args.threads} threads, median call (spread max/min), {args.repeat_processes} process(es) each")
            print(f"{'row':28s} {'sparray':>12s} {'spread':>7s} {'GraphBLAS':>12s} {'spread':>7s} {'ratio':>7s}  check")
            for row in ROWS:
                if row not in runs["sparray"][0]:
                    continue
                cell = {}
                for lib in runs:
                    meds = [statistics.median(r[row]["times"]) for r in runs[lib]]
                    times = [t for r in runs[lib] for t in r[row]["times"]]
                    cell[lib] = (statistics.median(meds), max(times) / min(times), runs[lib][0][row]["first"])
                ok = same(runs["sparray"][-1][row]["result"], runs["graphblas"][-1][row]["result"])
                s, g = cell["sparray"], cell["graphblas"]
                print(f"{row:28s} {fmt(s[0])} {s[1]:6.2f}x {fmt(g[0])} {g[1]:6.2f}x {g[0] / s[0]:6.2f}x  {'ok' if ok else 'DIFFERS'}")
                table.append(dict(graph=graph, row=row, sparray_s=s[0], sparray_spread=s[1], sparray_first_s=s[2],
                                  graphblas_s=g[0], graphblas_spread=g[1], ratio=g[0] / s[0], same=ok))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    return table


if __name__ == "__main__":
    main()
