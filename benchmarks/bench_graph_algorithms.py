#!/usr/bin/env python
"""Graph algorithms (issue 52's speed table): sparray.graph beside python-graphblas running the
LAGraph recipes (written out below), scipy.sparse.csgraph and networkx, each library in a fresh
process of its own.

    python benchmarks/bench_graph_algorithms.py                       # rmat18, rmat20, grid1000
    python benchmarks/bench_graph_algorithms.py --graphs rmat12,grid100 --only BFS,SSSP
    python benchmarks/bench_graph_algorithms.py --libs sparray,graphblas --peer-python /work/venv_bench/bin/python
    python benchmarks/bench.py --graph-algorithms --graphs rmat12     # the same through bench.py

**Graphs** (``bench_graph.build_graph``, imported, not copied): ``rmat<scale>``, R-MAT with
Graph500's parameters (a, b, c = 0.57, 0.19, 0.19, edge factor 16, vertex labels permuted),
symmetrized, self-loops and repeated edges dropped; ``grid<side>``, the 2-D 4-neighbour grid
(high diameter, like a road network); float64 weights in [0.5, 1.5), symmetric. Graphs of 2**16
vertices or more are built once and cached as .npz (``--cache-dir``; the file name carries a hash
of build_graph's source, so a changed generator builds anew). Every algorithm but SCC runs on
this symmetric graph (the undirected graph). SCC runs on a **directed graph derived from it**:
each undirected edge {u, v}, u < v, is kept u -> v, v -> u or both ways by a fixed hash of (u, v)
(``r = hash % 3``: 0 both, 1 only v -> u, 2 only u -> v), so about 2/3 of the symmetric entries
remain and the graph has a giant strong component, many singletons and some small components
(rmat16: 26,094 components, the largest 39,416 vertices; grid1000: 34,039, the largest 961,088).

**Rows** (the source: a vertex drawn with a fixed seed among those of degree >= the 99th
percentile, the same for every library):

- ``BFS``: levels (hops) from the source;
- ``SSSP``: distances from the source over the float64 weights;
- ``PageRank``: **unweighted** (every edge weight 1, as GAP's and LAGraph's PageRank), damping
  0.85, networkx's dangling convention (a vertex without out-edges sends its rank to every vertex
  equally), uniform start, stop when the L1 change of an iteration is below 1e-4 (sparray's
  ``tol``; networkx is given ``tol = 1e-4 / n``, as it compares with ``n * tol``); so every
  library runs the same iterations (the table prints sparray's and the recipe's count);
- ``CC``: weak connected components of the symmetric graph;
- ``SCC``: strong connected components of the directed graph;
- ``TC``: the number of triangles of the undirected graph.

**Columns**, each its own process:

- ``sparray``: ``sparray.graph.bfs / sssp / pagerank / connected_components / triangle_count`` on a
  ``sparray.CSR`` with ``fill_value=sparray.undefined`` built from the CSR parts;
- ``graphblas``: python-graphblas (SuiteSparse:GraphBLAS) running the LAGraph recipes written here
  from the published algorithms (see each ``gb_*`` function): BFS direction-optimizing as
  ``LAGr_BreadthFirstSearch`` (push ``q any.pair A`` / pull ``AT any.pair q`` into the complement
  of the visited set, Beamer's switches), SSSP by delta-stepping as
  ``LAGr_SingleSourceShortestPath`` (Sridhar et al.; same delta as sparray's default: the largest
  weight over the mean degree), PageRank as ``LAGr_PageRank``, CC by FastSV (Zhang, Azad, Hu; the
  plain algorithm, without the sampling phase of LAGraph's FastSV6), SCC by a forward-backward
  search from a hub then rounds of trimming and colouring (Multistep, Slota et al.), TC by
  Sandia_LUT with the degree presort (``LAGr_TriangleCount``'s default: ``sum((L plus.pair U')<L>)``);
- ``scipy``: ``scipy.sparse.csgraph``'s ``breadth_first_order`` (the call with its predecessors;
  levels derived from them after the timing), ``dijkstra(indices=source)``,
  ``connected_components`` weak (``directed=False``) and strong; no PageRank or TC (``-``);
- ``networkx``: ``single_source_shortest_path_length``, ``single_source_dijkstra_path_length``,
  ``pagerank(weight=None)``, ``connected_components``, ``strongly_connected_components`` (a
  DiGraph), ``triangles`` (sum / 3), each consumed into a list or dict. One call per cell. Left out
  (and the reason printed) on a graph whose networkx Graph or DiGraph would need more than
  ``--networkx-max-gb`` (bytes per edge and per vertex measured with tracemalloc on networkx 3.6),
  and its TC where the projected time (a cost model calibrated on two small graphs in the same
  process) exceeds ``--networkx-max-tc`` seconds.

**Timing.** For each algorithm the library's graph object is built from the CSR parts; a
warm-up call on it (which compiles sparray's kernels); then the graph object is built again (the
*conversion*, timed and reported apart) and the *first call* on that fresh object is timed: it
includes what the library derives from a graph once and keeps (sparray's kept transpose,
symmetrized graph, lower triangle; the recipes cache AT, the degrees, L and U, delta-stepping's
light and heavy parts with the graph as LAGraph caches AT and the degrees); then further calls on
the same object up to ``--calls`` and ``--cap`` seconds. A cell is the median of the calls after
the first (the first alone when it took longer than ``--cap``) with its spread (max /
min). GraphBLAS results are ``wait()``-ed; extracting results into NumPy is not timed. Ratios are
the other library's time / sparray's (above 1: sparray faster). networkx: no warm-up, one call on
one Graph (and one DiGraph for SCC, built after the Graph is freed). Every library gets
``--threads`` threads (2; scipy and networkx use one).

**Checks** after the timing, against sparray's result: BFS levels exactly, distances to 1e-9
(relative), PageRank to 1e-6 in L1 (the ranks sum to 1), component partitions equal up to the
labelling, triangle counts exactly.

Run it alone (``flock /tmp/sparray-bench.lock``): other processes' load distorts the columns.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
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
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_graph  # the graph generator of bench.py --graph (after the sys.path line above)

GRAPHS = ("rmat18", "rmat20", "grid1000")
ALGORITHMS = ("BFS", "SSSP", "PageRank", "CC", "SCC", "TC")
LIBS = ("sparray", "graphblas", "scipy", "networkx")
HAS = {"sparray": set(ALGORITHMS), "graphblas": set(ALGORITHMS), "networkx": set(ALGORITHMS),
       "scipy": {"BFS", "SSSP", "CC", "SCC"}}
DAMPING, PR_TOL, PR_MAX_ITER = 0.85, 1e-4, 100
#: Beamer's direction switches (SC 2012), used by the GraphBLAS BFS recipe
ALPHA, BETA = 15, 18
#: networkx's memory, measured with tracemalloc (networkx 3.6, CPython 3.11): a weighted
#: nx.Graph ~342 B an undirected edge + 237 B a vertex, a DiGraph ~330 B a directed edge + 514 B a
#: vertex; RSS runs about 30% over tracemalloc's count
NX_GRAPH_B = (342, 237)
NX_DIGRAPH_B = (330, 514)
NX_RSS_FACTOR = 1.3
CACHE_MIN_N = 1 << 16


# --------------------------------------------------------------------------------------------
# Graphs


def _generator_tag() -> str:
    return hashlib.sha1(inspect.getsource(bench_graph.build_graph).encode()).hexdigest()[:10]


def load_graph(name: str, cache_dir: str | None):
    """(indptr int32, indices int32, weights float64, n) of ``bench_graph.build_graph(name)``,
    from the .npz cache when the graph has 2**16 vertices or more (built and saved on first use)."""
    path = os.path.join(cache_dir, f"{name}-{_generator_tag()}.npz") if cache_dir else None
    if path and os.path.exists(path):
        with np.load(path) as z:
            return z["indptr"], z["indices"], z["w"], int(z["n"])
    p, j, w, n = bench_graph.build_graph(name)
    if path and n >= CACHE_MIN_N:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp.npz"
        np.savez(tmp, indptr=p, indices=j, w=w, n=n)
        os.replace(tmp, path)
    return p, j, w, n


def directed_of(p, j, w, n):
    """The directed graph of SCC, CSR parts (indptr, indices, weights): each undirected edge
    {u, v} (u < v) of the symmetric graph kept u -> v, v -> u or both by ``r = hash(u, v) % 3``
    (0: both, 1: only v -> u, 2: only u -> v); rows stay sorted."""
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(p))
    lo = np.minimum(rows, j).astype(np.uint64)
    hi = np.maximum(rows, j).astype(np.uint64)
    with np.errstate(over="ignore"):
        h = (lo * np.uint64(0x9E3779B97F4A7C15)) ^ (hi * np.uint64(0xC2B2AE3D27D4EB4F))
    r = (h >> np.uint64(33)) % np.uint64(3)
    keep = np.where(rows < j, r != 1, r != 2)
    dp = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=dp[1:])
    return dp.astype(p.dtype), j[keep], w[keep]


def pick_source(p, n) -> int:
    """A vertex of high degree (>= the 99th percentile), drawn with a fixed seed."""
    deg = np.diff(p)
    cand = np.flatnonzero(deg >= max(np.quantile(deg, 0.99), 1))
    return int(np.random.default_rng(2718).choice(cand))


def inputs(name, cache_dir):
    p, j, w, n = load_graph(name, cache_dir)
    dp, dj, dw = directed_of(p, j, w, n)
    delta = float(w.max()) / max(j.size / max(n, 1), 1.0) if j.size else 1.0  # sparray.graph.sssp's default
    return {"name": name, "indptr": p, "indices": j, "w": w, "n": n, "dindptr": dp, "dindices": dj, "dw": dw,
            "source": pick_source(p, n), "delta": delta}


def nx_memory_estimate(n, nnz, dnnz):
    """Bytes of RSS networkx needs for the Graph and (built after it is freed) the DiGraph."""
    g = (NX_GRAPH_B[0] * nnz / 2 + NX_GRAPH_B[1] * n) * NX_RSS_FACTOR
    d = (NX_DIGRAPH_B[0] * dnnz + NX_DIGRAPH_B[1] * n) * NX_RSS_FACTOR
    return g, d


# --------------------------------------------------------------------------------------------
# sparray


def recipes_sparray(I, threads):
    """``(convert, info, calls)``: ``convert(kind)`` builds the graph ("symmetric" or "directed") from
    the CSR parts, ``info`` gets PageRank's iterations, ``calls[algorithm] = (call(G), to_numpy)``:
    the public functions of sparray.graph on a CSR with an undefined fill (no edge where nothing
    is stored)."""
    import numba

    import sparray
    from sparray import graph

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    U = sparray.undefined
    n, s = I["n"], I["source"]

    def convert(kind):
        if kind == "directed":
            return sparray.CSR(I["dindptr"], I["dindices"], I["dw"], shape=(n, n), fill_value=U)
        return sparray.CSR(I["indptr"], I["indices"], I["w"], shape=(n, n), fill_value=U)

    info = {}

    def pagerank(A):
        info.clear()
        return graph.pagerank(A, damping=DAMPING, tol=PR_TOL, max_iter=PR_MAX_ITER, weighted=False, info=info)

    def labels(r):
        return np.asarray(r[1])

    return convert, info, {
        "BFS": (lambda A: graph.bfs(A, s), np.asarray),
        "SSSP": (lambda A: graph.sssp(A, s, delta=I["delta"]), np.asarray),
        "PageRank": (pagerank, np.asarray),
        "CC": (lambda A: graph.connected_components(A, connection="weak"), labels),
        "SCC": (lambda A: graph.connected_components(A, connection="strong"), labels),
        "TC": (graph.triangle_count, lambda r: np.asarray(r, np.int64)),
    }


# --------------------------------------------------------------------------------------------
# python-graphblas: the LAGraph recipes


class GbGraph:
    """A python-graphblas adjacency matrix with the properties the recipes derive from it, each
    worked out on first use and kept (as LAGraph's ``LAGraph_Graph`` caches AT and the degrees).

    ``A`` by rows (``A[i, j]``: the edge i -> j); ``symmetric``: A equals its transpose (then AT is
    A itself, as LAGraph uses A for an undirected graph)."""

    def __init__(self, A, symmetric):
        self.A, self.symmetric, self.n, self._kept = A, symmetric, A.nrows, {}

    def kept(self, key, make):
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    @property
    def AT(self):
        return self.A if self.symmetric else self.kept("AT", lambda: self.A.T.new())

    @property
    def out_degree(self):
        return self.kept("out_degree", lambda: _row_degree(self.A))

    @property
    def in_degree(self):
        return self.out_degree if self.symmetric else self.kept("in_degree", lambda: _row_degree(self.AT))


def _row_degree(M):
    """Each row's entry count (INT64, rows without entries absent): ``M plus.pair 1``."""
    import graphblas as gb
    from graphblas import semiring

    ones = gb.Vector(bool, M.ncols)
    ones[:] << True
    return M.mxv(ones, semiring.plus_pair["INT64"]).new()


def _gb_bfs_levels(A, AT, out_degree, nedges, source):
    """Levels of a direction-optimizing BFS (LAGr_BreadthFirstSearch's level form): the frontier
    ``q`` is pushed (``q any.pair A``, a saxpy over q's out-edges) or pulled (``AT any.pair q``,
    q as a bitmap, a dot product per unvisited vertex stopping at its first hit), always into the
    complement of the visited set (``level``'s structure). Push -> pull when the frontier grows and
    its out-edges exceed the unexplored edges / ALPHA, pull -> push when it shrinks below
    n / BETA vertices. Returns ``(level, iterations)``: level an INT64 Vector, unreached absent."""
    import graphblas as gb
    from graphblas import monoid, semiring

    n = A.nrows
    any_pair = semiring.any_pair["BOOL"]
    level = gb.Vector("INT64", n)
    level[source] << 0
    q = gb.Vector("BOOL", n)
    q[source] << True
    unexplored = nedges
    push, last = True, 0
    k = 0
    while True:
        nq = q.nvals
        if nq == 0:
            break
        frontier_edges = q.ewise_mult(out_degree, "second").reduce(monoid.plus["INT64"]).new().value or 0
        unexplored -= frontier_edges
        if push and nq > last and frontier_edges > unexplored / ALPHA:
            push = False
        elif not push and nq < last and nq < n / BETA:
            push = True
        k += 1
        if push:
            q.ss.config["sparsity_control"] = "sparse"
            q(~level.S, replace=True) << q.vxm(A, any_pair)
        else:
            q.ss.config["sparsity_control"] = "bitmap"
            q(~level.S, replace=True) << AT.mxv(q, any_pair)
        level(q.S) << k
        last = nq
    level.wait()
    return level, k


def gb_bfs(G, source):
    """BFS levels from ``source`` (LAGr_BreadthFirstSearch, levels only)."""
    level, _ = _gb_bfs_levels(G.A, G.AT, G.out_degree, G.A.nvals, source)
    return level


def gb_sssp(G, source, delta):
    """Distances from ``source`` by delta-stepping (LAGr_SingleSourceShortestPath; Meyer and
    Sanders, in linear algebra after Sridhar et al. 2019). The edges are split once into light
    (w <= delta) and heavy (w > delta) parts (kept with the graph). ``t`` (full, inf where
    unreached) holds the distances, ``tU`` (sparse) the reached vertices not yet settled. Bucket
    i = [i delta, (i + 1) delta) of tU is relaxed through the light edges from the vertices that
    improved, until none lands in the bucket again, then through the heavy edges once from every
    vertex it settled; the next bucket is that of tU's least value. Keeping tU apart makes a
    bucket cost its own vertices, not n (a grid has thousands of buckets)."""
    import graphblas as gb
    from graphblas import binary, monoid, select, semiring

    AL, AH = G.kept(("light/heavy", delta),
                    lambda: (select.valuele(G.A, delta).new(), select.valuegt(G.A, delta).new()))
    n = G.n
    min_plus = semiring.min_plus["FP64"]
    t = gb.Vector("FP64", n)
    t[:] << math.inf
    t[source] << 0.0
    tU = gb.Vector("FP64", n)
    tU[source] << 0.0

    def relax(frontier, M):
        """t, tU min= frontier min.+ M; returns the improved entries (their new distances)."""
        tReq = frontier.vxm(M, min_plus).new()
        better = tReq.ewise_mult(t, binary.lt).new()
        better = select.valueeq(better, True).new()
        improved = tReq.dup(mask=better.S)
        t(binary.min) << improved
        tU(binary.min) << improved
        return improved

    i = 0
    while tU.nvals:
        ub = (i + 1) * delta
        reach = select.valuelt(tU, ub).new() if AL.nvals else None  # no light edges: no light phase
        while reach is not None and reach.nvals:
            improved = relax(reach, AL)
            reach = select.valuelt(improved, ub).new()
        settled = select.valuelt(tU, ub).new()
        tU = select.valuege(tU, ub).new()
        if AH.nvals and settled.nvals:
            relax(settled, AH)
        if not tU.nvals:
            break
        least = tU.reduce(monoid.min["FP64"]).new().value
        i = int(least // delta)
        while least >= (i + 1) * delta:  # floating-point rounding of the division
            i += 1
    t.wait()
    return t


def gb_pagerank(G, damping, tol, max_iter, counter):
    """PageRank (LAGr_PageRank, unweighted, networkx's dangling convention): ``r`` uniform, then
    ``r' = damping (AT plus.second (r / d_out) + dangling mass / n) + (1 - damping) / n`` until the
    L1 change is below ``tol``. ``counter``: a dict that gets ``iterations``."""
    import graphblas as gb
    from graphblas import binary, monoid, semiring, unary

    n = G.n
    d = G.out_degree
    scale = G.kept("pagerank 1/d", lambda: d.apply(binary.truediv, left=1.0).new(dtype="FP64"))
    dangling = G.kept("dangling", lambda: _dangling(d, n))
    r = gb.Vector("FP64", n)
    r[:] << 1.0 / n
    for it in range(1, max_iter + 1):
        w = r.ewise_mult(scale, binary.times).new()  # r / d on the vertices with out-edges
        w = w.apply(binary.times, right=damping).new()
        lost = r.dup(mask=dangling.S).reduce(monoid.plus["FP64"]).new().value or 0.0
        new = gb.Vector("FP64", n)
        new[:] << (1.0 - damping) / n + damping * lost / n
        new(binary.plus) << G.AT.mxv(w, semiring.plus_second["FP64"])
        err = new.ewise_mult(r, binary.minus).apply(unary.abs).new().reduce(monoid.plus["FP64"]).new().value
        r = new
        counter["iterations"] = it
        if err < tol:
            r.wait()
            return r
    raise RuntimeError(f"GraphBLAS PageRank: no convergence in {max_iter} iterations")


def _dangling(d, n):
    import graphblas as gb

    v = gb.Vector("BOOL", n)
    v[:] << True
    return v.dup(mask=~d.S)


def gb_fastsv(G):
    """Weak components by FastSV (Zhang, Azad and Hu, SIAM PP 2020), the symmetric graph: parent
    ``f`` and grandparent ``gp = f[f]``; each iteration ``mngp = A min.second gp`` (the least
    grandparent among the neighbours), stochastic hooking ``f[f[u]] min= mngp[u]``, aggressive
    hooking ``f min= mngp``, shortcutting ``f min= gp``, then ``gp = f[f]``, until gp is unchanged:
    each vertex's f is then the least vertex of its component.

    python-graphblas has no extract or assign whose indices are a GraphBLAS vector (SuiteSparse
    9's GxB_*_Vector forms are not wrapped), so f's values go through NumPy for ``f[f]`` (extract
    with an index array) and the hooking scatter-min is a ``min.second`` product through the
    matrix P with one entry P(f[u], u) per vertex (built from CSC parts: O(n), no sort)."""
    import graphblas as gb
    from graphblas import binary, monoid, semiring

    A, n = G.A, G.n
    min_second = semiring.min_second["INT64"]
    ptr = G.kept("fastsv ptr", lambda: np.arange(n + 1, dtype=np.int64))
    f = gb.Vector.from_dense(np.arange(n, dtype=np.int64))
    gp = f.dup()
    while True:
        mngp = A.mxv(gp, min_second).new()
        P = gb.Matrix.from_csc(ptr, f.to_dense(), True, nrows=n, ncols=n)
        f(binary.min) << P.mxv(mngp, min_second)
        f(binary.min) << mngp
        f(binary.min) << gp
        new = f[f.to_dense()].new()
        changed = new.ewise_mult(gp, binary.ne).reduce(monoid.lor).new().value
        gp = new
        if not changed:
            break
    f.wait()
    return f


def gb_scc(G):
    """Strong components (after Multistep, Slota, Rajamanickam and Madduri 2014): the component of
    the hub (largest in-degree x out-degree) as the intersection of a forward and a backward BFS
    from it; then rounds over the remaining vertices R: trim the vertices with no in-edge or no
    out-edge inside R (each its own component), spread the least vertex number forward along the
    edges inside R (``min.first`` pushes from the vertices that changed, to a fixpoint: colour[v]
    = the least vertex of R reaching v), then from each root (colour[r] == r) search backwards
    inside its colour: a vertex v joins when an out-neighbour w already joined has colour[w] ==
    colour[v] (a ``max.first`` push through AT: colours only fall along an edge, so the largest
    colour among v's joined out-neighbours equals colour[v] exactly when one of them has it);
    what a root reaches back is its component. Returns each vertex's label (a component's hub or
    root), an INT64 Vector."""
    import graphblas as gb
    from graphblas import binary, indexunary, monoid, select, semiring

    A, AT, n = G.A, G.AT, G.n
    any_pair = semiring.any_pair["BOOL"]
    label = gb.Vector("INT64", n)
    # the hub's component: forward and backward BFS (on the whole graph)
    hubness = G.out_degree.ewise_mult(G.in_degree, binary.times).new()
    R = gb.Vector("BOOL", n)
    R[:] << True
    if hubness.nvals:
        top = hubness.reduce(monoid.max["INT64"]).new().value
        hub = int(select.valueeq(hubness, top).new().to_coo()[0][0])
        fw, _ = _gb_bfs_levels(A, AT, G.out_degree, A.nvals, hub)
        bw, _ = _gb_bfs_levels(AT, A, G.in_degree, A.nvals, hub)
        both = fw.ewise_mult(bw, binary.pair["BOOL"]).new()
        label(both.S) << hub
        R(~both.S, replace=True) << R
    while R.nvals:
        # trim: no out-edge or no in-edge inside R
        has_out = A.mxv(R, any_pair).new(mask=R.S)
        has_in = R.vxm(A, any_pair).new(mask=R.S)
        keep = has_out.ewise_mult(has_in, binary.pair["BOOL"]).new()
        trimmed = R.dup(mask=~keep.S)
        if trimmed.nvals:
            label(trimmed.S) << trimmed.apply(indexunary.index["INT64"])
        R = keep
        if not R.nvals:
            break
        # colouring: the least vertex reaching each vertex inside R
        colour = R.apply(indexunary.index["INT64"]).new()
        changed = colour
        while changed.nvals:
            y = changed.vxm(A, semiring.min_first["INT64"]).new(mask=R.S)
            lower = select.valueeq(y.ewise_mult(colour, binary.lt).new(), True).new()
            changed = y.dup(mask=lower.S)
            colour(binary.min) << changed
        # backward inside each colour from its root
        roots = select.valueeq(colour.ewise_mult(R.apply(indexunary.index["INT64"]).new(), binary.eq).new(), True).new()
        reached = colour.dup(mask=roots.S)
        front = reached
        while front.nvals:
            y = front.vxm(AT, semiring.max_first["INT64"]).new(mask=~reached.S)
            same = select.valueeq(y.ewise_mult(colour, binary.eq).new(), True).new()
            front = colour.dup(mask=same.S)
            reached(binary.first) << front
        label(reached.S) << reached
        R(~reached.S, replace=True) << R
    label.wait()
    return label


def gb_triangles(G):
    """Triangles by Sandia_LUT (LAGr_TriangleCount's default): the vertices renumbered by
    increasing degree (the presort), L and U the strict lower and upper triangles of the permuted
    A, kept with the graph; ``sum((L plus.pair U')<L>)``, which SuiteSparse computes as masked dot
    products of L's rows with U's rows (no transpose formed)."""
    from graphblas import monoid, select, semiring

    def make():
        deg = G.out_degree.to_dense(fill_value=0)
        perm = np.argsort(deg, kind="stable")
        Ap = G.A[perm, perm].new()
        return select.tril(Ap, -1).new(dtype="BOOL"), select.triu(Ap, 1).new(dtype="BOOL")

    L, U = G.kept("L U", make)
    C = L.mxm(U.T, semiring.plus_pair["INT64"]).new(mask=L.S)
    return C.reduce_scalar(monoid.plus["INT64"]).new().value or 0


def recipes_graphblas(I, threads):
    """``(convert, info, calls)`` as :func:`recipes_sparray`'s, for the python-graphblas recipes."""
    import graphblas as gb

    gb.ss.config["nthreads"] = threads
    n, s = I["n"], I["source"]

    def convert(kind):
        if kind == "directed":
            A = gb.Matrix.from_csr(I["dindptr"], I["dindices"], I["dw"], nrows=n, ncols=n)
            return GbGraph(A, symmetric=False)
        return GbGraph(gb.Matrix.from_csr(I["indptr"], I["indices"], I["w"], nrows=n, ncols=n), symmetric=True)

    info = {}

    def pagerank(G):
        info.clear()
        return gb_pagerank(G, DAMPING, PR_TOL, PR_MAX_ITER, info)

    def levels(v):
        return v.to_dense(fill_value=-1).astype(np.int64)

    def labels(v):
        return v.to_dense().astype(np.int64)

    return convert, info, {
        "BFS": (lambda G: gb_bfs(G, s), levels),
        "SSSP": (lambda G: gb_sssp(G, s, I["delta"]), lambda v: v.to_dense()),
        "PageRank": (pagerank, lambda v: v.to_dense()),
        "CC": (gb_fastsv, labels),
        "SCC": (gb_scc, labels),
        "TC": (gb_triangles, lambda r: np.asarray(r, np.int64)),
    }


# --------------------------------------------------------------------------------------------
# scipy.sparse.csgraph


def levels_from_predecessors(order, pred, n):
    """BFS levels from scipy's ``breadth_first_order`` (order, predecessors), by pointer jumping:
    ``d`` counts the hops to ``anc``, and ``d += d[anc]; anc = anc[anc]`` doubles the jump until
    every ancestor is the root (O(n log depth) NumPy, no loop per vertex); -1 where unreached."""
    level = np.full(n, -1, np.int64)
    if order.size == 0:
        return level
    root = int(order[0])
    idx = np.asarray(order, np.int64)
    anc = np.asarray(pred, np.int64).copy()
    anc[root] = root
    d = np.ones(n, np.int64)
    d[root] = 0
    while True:
        a = anc[idx]
        if np.all(a == root):
            break
        d[idx] += d[a]
        anc[idx] = anc[a]
    level[idx] = d[idx]
    return level


def recipes_scipy(I, threads):
    """``(convert, info, calls)`` as :func:`recipes_sparray`'s, for scipy.sparse.csgraph (one thread)."""
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    n, s = I["n"], I["source"]

    def convert(kind):
        if kind == "directed":
            return sp.csr_matrix((I["dw"], I["dindices"], I["dindptr"]), shape=(n, n))
        return sp.csr_matrix((I["w"], I["indices"], I["indptr"]), shape=(n, n))

    return convert, {}, {
        "BFS": (lambda A: csgraph.breadth_first_order(A, s, directed=True, return_predecessors=True),
                lambda r: levels_from_predecessors(r[0], r[1], n)),
        "SSSP": (lambda A: csgraph.dijkstra(A, directed=True, indices=s), np.asarray),
        "CC": (lambda A: csgraph.connected_components(A, directed=False), lambda r: np.asarray(r[1], np.int64)),
        "SCC": (lambda A: csgraph.connected_components(A, directed=True, connection="strong"),
                lambda r: np.asarray(r[1], np.int64)),
    }


# --------------------------------------------------------------------------------------------
# networkx


def _nx_edges(p, j, w, n, upper):
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(p))
    if upper:
        keep = rows < j
        rows, j, w = rows[keep], j[keep], w[keep]
    return zip(rows.tolist(), j.tolist(), w.tolist())


def nx_triangle_projection(n, p, j):
    """Seconds networkx.triangles would take on the graph: its work is about ``a (E + n) + b W``,
    W the sum over edges {u < v} of min(later(u), later(v)) (the set intersections of its
    node-ordered loop), a and b fitted here on a small R-MAT and a small grid."""
    import networkx as nx

    def model(p, j, n):
        rows = np.repeat(np.arange(n), np.diff(p))
        up = j > rows
        later = np.bincount(rows[up], minlength=n)
        return int(up.sum()) + n, float(np.minimum(later[rows[up]], later[j[up]]).sum())

    eqs = []
    for name in ("rmat12", "grid150"):
        gp, gj, _, gn = bench_graph.build_graph(name)
        G = nx.Graph()
        G.add_nodes_from(range(gn))
        G.add_edges_from((u, v) for u, v, _ in _nx_edges(gp, gj, np.zeros(gj.size), gn, True))
        t0 = time.perf_counter()
        nx.triangles(G)
        eqs.append((*model(gp, gj, gn), time.perf_counter() - t0))
    (e1, w1, t1), (e2, w2, t2) = eqs
    det = e1 * w2 - e2 * w1
    a = max((t1 * w2 - t2 * w1) / det, 0.0) if det else t2 / e2
    b = max((e1 * t2 - e2 * t1) / det, 0.0) if det else 0.0
    if a == 0.0 or b == 0.0:  # an ill-conditioned fit (a noisy machine): the simpler one-term models
        a, b = t2 / (e2 + w2), t1 / (e1 + w1)
    e, w = model(p, j, n)
    return a * e + b * w


def recipes_networkx(I, threads, max_tc_s):
    """``(convert, notes, calls)`` as :func:`recipes_sparray`'s, for networkx (pure Python, one
    thread); ``notes`` holds TC's projected time, and TC is left out of ``calls`` when that exceeds
    ``max_tc_s`` seconds."""
    import networkx as nx

    if hasattr(nx, "config"):  # networkx itself, never a backend (sparray's included) by priority
        nx.config.backend_priority.algos = []
    n, s = I["n"], I["source"]
    notes = {}

    def convert(kind):
        if kind == "directed":
            D = nx.DiGraph()
            D.add_nodes_from(range(n))
            D.add_weighted_edges_from(_nx_edges(I["dindptr"], I["dindices"], I["dw"], n, False))
            return D
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_weighted_edges_from(_nx_edges(I["indptr"], I["indices"], I["w"], n, True))
        return G

    def dense(d, fill, dtype):
        out = np.full(n, fill, dtype)
        if d:
            k = np.fromiter(d.keys(), np.int64, len(d))
            out[k] = np.fromiter(d.values(), dtype, len(d))
        return out

    def labels(comps):
        out = np.full(n, -1, np.int64)
        for k, c in enumerate(comps):
            out[np.fromiter(c, np.int64, len(c))] = k
        return out

    def tc(G):
        return sum(nx.triangles(G).values()) // 3

    projected = nx_triangle_projection(n, I["indptr"], I["indices"])
    notes["TC projected"] = f"{projected:.1f} s (nx.triangles, from its cost model)"
    calls = {
        "BFS": (lambda G: nx.single_source_shortest_path_length(G, s), lambda d: dense(d, -1, np.int64)),
        "SSSP": (lambda G: nx.single_source_dijkstra_path_length(G, s, weight="weight"),
                 lambda d: dense(d, np.inf, np.float64)),
        "PageRank": (lambda G: nx.pagerank(G, alpha=DAMPING, weight=None, tol=PR_TOL / n, max_iter=PR_MAX_ITER),
                     lambda d: dense(d, 0.0, np.float64)),
        "CC": (lambda G: list(nx.connected_components(G)), labels),
        "SCC": (lambda G: list(nx.strongly_connected_components(G)), labels),
        "TC": (tc, lambda r: np.asarray(r, np.int64)),
    }
    if projected > max_tc_s:
        notes["TC skipped"] = f"projected {projected:.3g} s > --networkx-max-tc {max_tc_s:g} s"
        del calls["TC"]
    return convert, notes, calls


# --------------------------------------------------------------------------------------------
# One library's process


def _kind(alg):
    return "directed" if alg == "SCC" else "symmetric"


def child(spec):
    """Run one library's rows on one graph; returns {"rows": {alg: {...}}, "notes": {...}}."""
    import gc

    lib = spec["lib"]
    I = inputs(spec["graph"], spec["cache_dir"])
    if lib == "sparray":
        convert, info, calls = recipes_sparray(I, spec["threads"])
    elif lib == "graphblas":
        convert, info, calls = recipes_graphblas(I, spec["threads"])
    elif lib == "scipy":
        convert, info, calls = recipes_scipy(I, spec["threads"])
    else:
        convert, info, calls = recipes_networkx(I, spec["threads"], spec["nx_max_tc"])
    single = lib == "networkx"
    out, notes = {}, {}
    if single:
        notes.update(info)
    order = [a for a in ALGORITHMS if a in spec["algorithms"]]
    held = {}  # networkx: one graph object per kind, built once
    for alg in order:
        if alg not in calls:
            if alg in HAS[lib]:
                out[alg] = {"skipped": notes.get(f"{alg} skipped", "left out")}
            continue
        fn, to_numpy = calls[alg]
        kind = _kind(alg)
        if single:
            if kind not in held:
                G = None  # the previous kind's graph goes before the next is built
                held.clear()
                gc.collect()
                t0 = time.perf_counter()
                held[kind] = convert(kind)
                out.setdefault("_conversion", {})[kind] = time.perf_counter() - t0
            G = held[kind]
            t0 = time.perf_counter()
            r = fn(G)
            cold = time.perf_counter() - t0
            times, first = [cold], cold
        else:
            G0 = convert(kind)
            t0 = time.perf_counter()
            fn(G0)  # warm-up: compiles or loads the kernels
            first = time.perf_counter() - t0
            del G0
            gc.collect()
            t0 = time.perf_counter()
            G = convert(kind)
            out.setdefault("_conversion", {}).setdefault(kind, []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = fn(G)
            cold = time.perf_counter() - t0
            times = []
            t_start = time.perf_counter()
            if cold < spec["cap"]:
                while len(times) < spec["calls"] and (time.perf_counter() - t_start < spec["cap"] or len(times) < 2):
                    del r
                    t0 = time.perf_counter()
                    r = fn(G)
                    times.append(time.perf_counter() - t0)
            if not times:
                times = [cold]
        res = to_numpy(r)
        path = os.path.join(spec["dir"], f"{lib}-{spec['graph']}-{alg}.npy")
        np.save(path, res)
        cell = {"times": times, "first": first, "cold": cold, "result": path}
        if alg == "PageRank" and "iterations" in info:
            cell["iterations"] = info["iterations"]
        out[alg] = cell
        del r, res
        if not single:
            del G
        gc.collect()
    conv = out.pop("_conversion", {})
    import resource

    conversion = {k: (statistics.median(v) if isinstance(v, list) else v) for k, v in conv.items()}
    return {"max_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "rows": out, "conversion": conversion,
            "notes": {k: v for k, v in notes.items()}, "n": I["n"], "nnz": int(I["indices"].size),
            "dnnz": int(I["dindices"].size), "source": I["source"], "delta": I["delta"]}


def run_child(lib, graph, algorithms, args, tmp):
    spec = {"lib": lib, "graph": graph, "algorithms": list(algorithms), "threads": args.threads, "calls": args.calls,
            "cap": args.cap, "dir": tmp, "cache_dir": args.cache_dir, "nx_max_tc": args.networkx_max_tc}
    python = sys.executable if lib == "sparray" else args.peer_python
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETWORKX_")}  # no backend dispatch
    env.update(PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS=str(args.threads),
               NUMBA_NUM_THREADS=str(max(args.threads, 1)))
    code = (f"import sys, json; sys.path.insert(0, {HERE!r}); import bench_graph_algorithms as b; "
            f"print('@@' + json.dumps(b.child({spec!r})))")
    t0 = time.perf_counter()
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=args.timeout,
                          check=False)
    wall = time.perf_counter() - t0
    if proc.returncode:
        return {"error": f"exit {proc.returncode}: " + (proc.stderr.strip().splitlines() or ["no output"])[-1][:300],
                "stderr": proc.stderr[-3000:], "wall": wall}
    line = [s for s in proc.stdout.splitlines() if s.startswith("@@")][-1]
    got = json.loads(line[2:])
    got["wall"] = wall
    return got


# --------------------------------------------------------------------------------------------
# Checks and the table


def canonical_partition(labels):
    """Each vertex's label replaced by the least vertex carrying the same label."""
    labels = np.asarray(labels)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return first[inverse.ravel()]


def agree(alg, a, b):
    """Whether two libraries' results of ``alg`` agree (see the module docstring)."""
    if a.shape != b.shape:
        return False
    if alg == "BFS" or alg == "TC":
        return bool(np.array_equal(a, b))
    if alg == "SSSP":
        fa, fb = np.isfinite(a), np.isfinite(b)
        return bool(np.array_equal(fa, fb) and np.allclose(a[fa], b[fb], rtol=1e-9, atol=0))
    if alg == "PageRank":
        return bool(np.abs(a - b).sum() <= 1e-6)
    return bool(np.array_equal(canonical_partition(a), canonical_partition(b)))


def fmt(t):
    if t is None:
        return "-"
    if t >= 1.0:
        return f"{t:.2f} s"
    return f"{t * 1e3:.2f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"


def _print_table(header, rows):
    widths = [max(len(str(r[k])) for r in [header] + rows) for k in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(c).rjust(wd) if k else str(c).ljust(wd) for k, (c, wd) in enumerate(zip(r, widths))))


def _nx_plan(meta, args):
    """(networkx's memory estimate as text, the reason it is left out or None)."""
    g, d = nx_memory_estimate(meta["n"], meta["nnz"], meta["dnnz"])
    text = f"networkx would need ~{g / 2**30:.1f} GB (Graph), ~{d / 2**30:.1f} GB (DiGraph)"
    if max(g, d) > args.networkx_max_gb * 2**30:
        return text, f"networkx left out: {text} > --networkx-max-gb {args.networkx_max_gb:g}"
    return text, None


def graph_meta(name, cache_dir):
    """n, entries of the symmetric and of the directed graph (built or loaded once here, so the
    processes after it load the cached file)."""
    p, j, w, n = load_graph(name, cache_dir)
    dp = directed_of(p, j, w, n)[0]
    meta = {"n": n, "nnz": int(j.size), "dnnz": int(dp[-1])}
    del p, j, w, dp
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default=",".join(GRAPHS), help="comma-separated: rmat<scale>, grid<side>")
    ap.add_argument("--only", default="", help="comma-separated substrings of the algorithms: " + ", ".join(ALGORITHMS))
    ap.add_argument("--libs", default=",".join(LIBS), help="comma-separated columns, of " + ",".join(LIBS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calls", type=int, default=7, help="timed calls a cell, after the first on a fresh graph")
    ap.add_argument("--cap", type=float, default=8.0, help="seconds of timed calls a cell aims at")
    ap.add_argument("--peer-python", default=sys.executable,
                    help="the Python of the graphblas, scipy and networkx processes (a venv that has them)")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "sparray-bench-graphs"),
                    help="where graphs of 2**16 vertices or more are cached as .npz ('' for none)")
    ap.add_argument("--networkx-max-gb", type=float, default=6.0)
    ap.add_argument("--networkx-max-tc", type=float, default=120.0, help="seconds networkx's TC may be projected to")
    ap.add_argument("--timeout", type=float, default=7200.0, help="seconds a library's process may run")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    args.cache_dir = args.cache_dir or None
    only = [s.strip().lower() for s in args.only.split(",") if s.strip()]
    algorithms = [a for a in ALGORITHMS if not only or any(s in a.lower() for s in only)]
    libs = [lib for lib in args.libs.split(",") if lib]
    unknown = [lib for lib in libs if lib not in LIBS]
    if unknown or not algorithms:
        ap.error(f"unknown --libs {unknown}" if unknown else f"no algorithm matches --only {args.only!r}")
    table = []
    t_all = time.perf_counter()
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; libraries: "
          f"{', '.join(libs)}; algorithms: {', '.join(algorithms)}")
    with tempfile.TemporaryDirectory(prefix="sparray-bench-galg-") as tmp:
        for graph in [g for g in args.graphs.split(",") if g]:
            t0 = time.perf_counter()
            meta = graph_meta(graph, args.cache_dir)
            print(f"\n{graph}: {meta['n']:,} vertices, {meta['nnz']:,} symmetric entries, {meta['dnnz']:,} directed "
                  f"(SCC); graph ready in {time.perf_counter() - t0:.1f} s", flush=True)
            runs, skipped = {}, {}
            for lib in libs:
                algs = [a for a in algorithms if a in HAS[lib]]
                if not algs:
                    continue
                why = None
                if lib == "networkx":
                    estimate, why = _nx_plan(meta, args)
                    print(f"  {estimate}", flush=True)
                if why:
                    skipped[lib] = why
                    print(f"  {why}", flush=True)
                    continue
                runs[lib] = run_child(lib, graph, algs, args, tmp)
                state = runs[lib].get("error", "done")
                rss = runs[lib].get("max_rss")
                peak = f", peak RSS {rss / 2**30:.2f} GB" if rss else ""
                print(f"  {lib}: {state} ({runs[lib]['wall']:.0f} s{peak})", flush=True)
            table += report(graph, meta, libs, algorithms, runs, skipped, args)
    load = os.getloadavg()
    print(f"\nload average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"total {time.perf_counter() - t_all:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    return table


def report(graph, meta, libs, algorithms, runs, skipped, args):
    """Print one graph's table; return its rows (dicts) for --json."""
    ok_runs = {lib: r for lib, r in runs.items() if "error" not in r}
    src = next(iter(ok_runs.values()), {})
    print(f"\n{graph}: source {src.get('source')}, delta {src.get('delta', 0):.4g}; {args.threads} threads; median "
          "call on a fresh graph object's 2nd+ calls [spread max/min];\nratio = other / sparray (above 1: sparray "
          "faster)")
    cols = [lib for lib in libs if lib in runs or lib in skipped]
    header = ["algorithm"]
    for lib in cols:
        header += [lib] + (["ratio"] if lib != "sparray" else [])
    header += ["check"]
    rows, records = [], []
    for alg in algorithms:
        row, rec = [alg], {"graph": graph, "algorithm": alg}
        base = None
        ref_lib = next((lib for lib in cols if lib in ok_runs and "times" in ok_runs[lib]["rows"].get(alg, {})), None)
        if "sparray" in ok_runs and "times" in ok_runs["sparray"]["rows"].get(alg, {}):
            base = statistics.median(ok_runs["sparray"]["rows"][alg]["times"])
        checks = []
        for lib in cols:
            cell = ok_runs.get(lib, {}).get("rows", {}).get(alg)
            if lib in runs and "error" in runs[lib]:
                text, ratio = "error", "-"
            elif lib in skipped or alg not in HAS[lib]:
                text, ratio = "-", "-"
            elif cell is None or "times" not in cell:
                text, ratio = ("skipped" if cell else "-"), "-"
                if cell:
                    rec[f"{lib}_skipped"] = cell["skipped"]
            else:
                med = statistics.median(cell["times"])
                spread = max(cell["times"]) / min(cell["times"])
                text = f"{fmt(med)} [{spread:.2f}]"
                ratio = f"{med / base:.2f}x" if base else "-"
                rec.update({f"{lib}_s": med, f"{lib}_spread": spread, f"{lib}_first_s": cell["first"],
                            f"{lib}_cold_s": cell["cold"], f"{lib}_times": cell["times"]})
                if base:
                    rec[f"{lib}_ratio"] = med / base
                if "iterations" in cell:
                    rec[f"{lib}_iterations"] = cell["iterations"]
                if lib != ref_lib:
                    same = agree(alg, np.load(ok_runs[ref_lib]["rows"][alg]["result"]), np.load(cell["result"]))
                    rec[f"{lib}_agrees"] = same
                    checks.append("ok" if same else f"DIFFERS({lib})")
            row += [text] + ([ratio] if lib != "sparray" else [])
        row.append(", ".join(dict.fromkeys(checks)) if checks else "-")
        rec["check"] = row[-1]
        rows.append(row)
        records.append(rec)
    _print_table(header, rows)
    extra = []
    for lib in cols:
        if lib not in ok_runs:
            continue
        r = ok_runs[lib]
        conv = r.get("conversion", {})
        extra.append(f"  {lib}: conversion from CSR parts {fmt(conv.get('symmetric'))} (symmetric), "
                     f"{fmt(conv.get('directed'))} (directed)")
        colds = [f"{alg} {fmt(c['cold'])}" for alg, c in r["rows"].items() if "cold" in c]
        if colds and lib != "networkx":
            extra.append(f"    first call on a fresh graph object (derived data built): {', '.join(colds)}")
        its = {alg: c["iterations"] for alg, c in r["rows"].items() if "iterations" in c}
        if its:
            extra.append(f"    PageRank iterations: {its['PageRank']}")
        for k, v in r.get("notes", {}).items():
            extra.append(f"    {k}: {v:.1f}" if isinstance(v, float) else f"    {k}: {v}")
        for rec in records:
            rec.setdefault("conversion", {})[lib] = conv
    for lib, r in runs.items():
        if "error" in r:
            extra.append(f"  {lib} failed: {r['error']}")
            for rec in records:
                rec[f"{lib}_error"] = r["error"]
    for lib, why in skipped.items():
        extra.append(f"  {why}")
        for rec in records:
            rec[f"{lib}_skipped"] = why
    print("\n".join(extra))
    return records


if __name__ == "__main__":
    main()
