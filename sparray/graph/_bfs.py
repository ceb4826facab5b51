"""Breadth-first search: levels (hops from the source) and, on request, a BFS tree's parents.

One semiring product per level, the frontier pushed along its out-edges with the visited
vertices as a complemented mask, over ``any_secondi`` (the product's value is the frontier
vertex it came from: the parent, kept when asked for), as LAGraph's BFS does. One source runs
direction-optimizing (Beamer et al., SC 2012, the GAP benchmark's BFS): a level switches to
*pull* (each unvisited vertex asks its in-neighbours, stopping at the first one in the
frontier: the ``any`` monoid's terminal value) when a growing frontier's out-edges exceed 1/15
of the edges still unexplored, and back to push when a shrinking frontier falls under n/18
vertices. A 1-d array of sources runs them together: a matrix of frontiers, one row per source,
one masked SpGEMM per level. On the CPU a frontier with few out-edges (under ``WALK_EDGES``) is
expanded by a serial kernel that runs the same masked push fused, level after level, until the
frontier grows: high-diameter graphs (grids, road networks) then cost O(edges), not O(n) a
level.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]]), layout="csr")
>>> bfs(A, 0).tolist()                                  # 3 is not reachable from 0
[0, 1, 2, -1]
>>> levels, parents = bfs(A, [3, 1], return_parents=True)
>>> levels.tolist(), parents.tolist()
([[1, 2, 3, 0], [-1, 0, 1, -1]], [[3, 0, 1, 3], [-1, 1, 1, -1]])
"""

from __future__ import annotations

from .._engine import dispatch as _dispatch
from ._adjacency import compact, graph_of, new_info, read_host, sources_of
from ._frontier import pull, push, push_rows

__all__ = ["bfs", "symmetrized"]

#: Beamer's switches: push -> pull when the frontier's edges exceed the unexplored edges / ALPHA,
#: pull -> push when the frontier has fewer than n / BETA vertices
ALPHA, BETA = 15, 18
#: on the CPU, frontiers with at most this many out-edges are walked level after level on one thread
#: (the registry's ``"bfs_walk"``: ``kernels/cpu/graph_walk.py``): below it a parallel product runs
#: on one thread anyway, and the per-level overhead of a product (Python, its O(n) result bitmaps)
#: exceeds the level's work
WALK_EDGES = 1 << 15


def _walker(G):
    """Whether small frontiers go to the serial level walk (the registry's ``"bfs_walk"``): on
    the host, unless the generic backend is forced.

    The registry serves the walk with the numba kernel; with its generic twin (the same levels,
    parents and frontiers) while the kernel compiles in the background, for a small graph before
    numba has started (``work`` is the graph's size, as for the products: once the kernel has run
    in the process it takes small graphs too), or where a backend other than numba is forced.
    A forced generic backend keeps the level-by-level products instead, as before the walk had a
    twin: that path is the array-API one every device runs and the reference the kernels are
    checked against, and the walk would take it over for every small frontier. Its results are
    the walk's (levels, frontier sizes; a parent is a valid one either way)."""
    if not G.on_host():
        return False
    forced = _dispatch.forced_backend()
    return forced is None or forced[0] != "generic"


def _walk(G, idx, k, levels, reached, parents, want_parents):
    """``bfs_walk`` on G's rows from the frontier ``idx`` at level ``k``: ``(frontier, level,
    sizes, walked)`` (see ``kernels/cpu/graph_walk.py``)."""
    return _dispatch.call("bfs_walk", "csr", G.xp, G.crow, G.col, idx, k, levels, reached, parents, want_parents,
                          WALK_EDGES, work=G.nse + G.n)


def bfs(A, source, *, return_parents=False, directed=True, info=None):
    """Levels of a breadth-first search of the graph A from ``source``.

    Parameters
    ----------
    A : the adjacency matrix, any layout: ``A[i, j]`` is the edge i -> j (an undefined fill: its
        stored entries are the edges; a fill of 0, inf or nan: the elements equal to it are the
        non-edges; see ``sparray.graph.as_graph``). Weights are not read.
    source : a vertex, or a 1-d array of vertices (one search each, run together).
    return_parents : also return the parent of each vertex in a BFS tree (the source's parent is
        itself; which parent a vertex with several at the level before gets is unspecified).
    directed : False: follow edges both ways (A's edges and their reverses).
    info : a dict to fill: ``iterations`` (levels expanded), ``frontier_sizes`` (vertices found
        at each level, the source's level 0 first; summed over the sources of a batch),
        ``directions`` ("push" or "pull", per level).

    Returns ``levels``, int64 on A's device, shape (n,) for one source, (len(source), n) for an
    array: the number of edges on a shortest path from the source, -1 where none leads; with
    ``return_parents`` a tuple ``(levels, parents)``, -1 where unreached.

    One read from the device per level (the frontier's size, which ends the loop).
    """
    G = graph_of(A, "bfs")
    if not directed:
        G = symmetrized(G, "any")
    sources, batched = sources_of(source, G.n, "bfs")
    info = new_info(info, "bfs", iterations=0, frontier_sizes=[], directions=[])
    run = _many if batched else _one
    levels, parents = run(G, sources, return_parents, info)
    return (levels, parents) if return_parents else levels


def symmetrized(G, op):
    """The Graph of A's edges taken both ways (``op``, "any" or "min", combines the weights of
    i -> j and j -> i). A structurally symmetric A (the usual undirected graph: its transpose,
    kept for the pull products, has A's pattern) is its own pattern: only the weights are
    combined, entry by entry, instead of a union of A and its transpose."""
    from ._adjacency import Graph
    from ._ewise import ewise_add

    def make():
        crow_t, col_t, values_t = G.transposed()
        if _same_pattern(G, crow_t, col_t):
            return G.A if op == "any" else _combined(G, values_t, op)
        S = ewise_add(G.A, G.A.mT, op)
        return S if S.layout == "csr" else S.to_layout("csr")

    return Graph(G.kept(f"symmetrized {op}", make))


def _same_pattern(G, crow_t, col_t):
    """Whether the transpose's CSR pattern is G's (one read on a device)."""
    xp = G.xp
    if G.nse == 0 or crow_t.shape != G.crow.shape or col_t.shape != G.col.shape:
        return G.nse == 0
    (same,) = read_host(xp, xp.all(crow_t == G.crow) & xp.all(col_t == G.col))
    return bool(same)


def _combined(G, values_t, op):
    """G's pattern with the weights of i -> j and j -> i combined by ``op`` ("min": NaN-ignoring,
    as the min monoid is)."""
    from ._parts import csr_result

    if op != "min":
        raise ValueError(f"symmetrized: op must be 'any' or 'min'; got {op!r}")
    xp = G.xp
    v, vt = G.values, values_t
    if xp.isdtype(v.dtype, "real floating"):
        low = xp.where(xp.isnan(v), vt, xp.where(xp.isnan(vt), v, xp.minimum(v, vt)))
    else:
        low = xp.minimum(v, vt)
    return csr_result(xp, G.crow, G.col, low, (G.n, G.n))


def _one(G, sources, want_parents, info, blocked=None):
    """One search from sources[0]; ``blocked`` (a bool bitmap or None): vertices it may not enter."""
    xp, n, dev = G.xp, G.n, G.device
    s = int(sources[0])
    i64 = xp.int64
    levels = xp.full((n,), -1, dtype=i64, device=dev)
    parents = xp.full((n,), -1, dtype=i64, device=dev) if want_parents else None
    reached = xp.zeros((n,), dtype=xp.bool, device=dev) if blocked is None else xp.asarray(blocked, copy=True)
    idx = xp.asarray([s], dtype=i64, device=dev)
    levels[idx] = 0
    reached[idx] = True
    if want_parents:
        parents[idx] = idx
    semiring = "any_secondi"  # levels alone could use any_pair: one kernel for both costs the same
    deg = G.out_degree()
    unexplored = G.nse  # edges out of unvisited vertices (Beamer's m_u), kept on the host
    f_edges = None  # edges out of the frontier (m_f), read with its size
    present = None  # the frontier as a bitmap, when the last step made one
    nq, before, k, direction = 1, 1, 0, "push"
    info["frontier_sizes"].append(1)
    on_host = G.on_host()
    walk = _walker(G)
    while True:
        if f_edges is not None:  # GAP's rule: pull while the frontier is large or growing
            if direction == "push" and f_edges > unexplored / ALPHA and nq >= before:
                direction = "pull"
            elif direction == "pull" and nq < before and nq < n / BETA:
                direction = "push"
        if walk and direction == "push" and (f_edges is None or f_edges <= WALK_EDGES):
            # a small frontier: levels walked on one thread until it grows (the same product, fused)
            idx, k, sizes, walked = _walk(G, idx, k, levels, reached, parents, want_parents)
            sizes = sizes.tolist()
            info["directions"].extend(["push"] * len(sizes))
            info["frontier_sizes"].extend(v for v in sizes if v)
            info["iterations"] = k
            unexplored -= walked
            nq, present = int(idx.shape[0]), None
            if nq == 0:
                break
            before = sizes[-2] if len(sizes) > 1 else before
            f_edges = int(deg[idx].sum())
            continue
        before = nq
        k += 1
        if direction == "push":
            y, present = push(G, None, idx, semiring, mask=reached, complement=True)
        else:
            if present is None:
                present = xp.zeros((n,), dtype=xp.bool, device=dev)
                present[idx] = True
            y, present = pull(G.transposed(), n, None, present, semiring, mask=reached, complement=True, xp=xp)
        info["directions"].append(direction)
        if on_host:
            idx = compact(xp, present, 0, True)
            nq = int(idx.shape[0])
            f_edges = int(deg[idx].sum()) if nq else 0
        else:
            count, f_sum = read_host(xp, xp.sum(xp.astype(present, i64)), xp.sum(xp.where(present, deg, 0)))
            nq, f_edges = int(count), int(f_sum)
            idx = compact(xp, present, nq, False)
        info["iterations"] = k
        if nq == 0:
            break
        info["frontier_sizes"].append(nq)
        unexplored -= f_edges
        levels[idx] = k
        reached[idx] = True
        if want_parents:
            parents[idx] = xp.take(y, idx)
    return levels, parents


def _many(G, sources, want_parents, info):
    xp, n, dev = G.xp, G.n, G.device
    b = int(sources.shape[0])
    i64 = xp.int64
    src = xp.asarray(sources, dtype=i64, device=dev)
    rows = xp.arange(b, dtype=i64, device=dev)
    levels = xp.full((b, n), -1, dtype=i64, device=dev)
    levels[rows, src] = 0
    frontier = levels == 0
    reached = frontier
    parents = None
    if want_parents:
        parents = xp.full((b, n), -1, dtype=i64, device=dev)
        parents[rows, src] = src
    semiring = "any_secondi"  # levels alone could use any_pair: one kernel for both costs the same
    count, total, k = b, b, 0
    info["frontier_sizes"].append(b)
    while b:
        k += 1
        Y, P = push_rows(G, None, frontier, count, semiring, mask=reached, mask_count=total, complement=True)
        info["directions"].append("push")
        (c,) = read_host(xp, xp.sum(xp.astype(P, i64)))
        count = int(c)
        info["iterations"] = k
        if count == 0:
            break
        info["frontier_sizes"].append(count)
        total += count
        levels = xp.where(P, k, levels)
        if want_parents:
            parents = xp.where(P, Y, parents)
        reached = reached | P
        frontier = P
    return levels, parents
