"""Serial walks for small frontiers (numba): many BFS levels, or delta-stepping buckets, in one call.

A BFS level is one masked push product (``q<not visited> = q any.secondi A``, then the level
written where q landed). When the frontier's out-edges are few (a high-diameter graph such as a
road network or a grid has thousands of levels of a few hundred vertices), the call overhead of
one product a level (Python, the thread team, the O(n) bitmaps of the result) costs more than the
level's work. :func:`bfs_walk` runs the same product and assignment fused, on one thread, level
after level, while the frontier's out-edges stay under a bound, and hands the frontier back to
the parallel products when it grows: work O(edges walked), nothing O(n) a level.
:func:`delta_walk` does the same for delta-stepping (``sparray.graph.sssp``): the ``min_plus``
relaxations of a bucket's light edges until it is settled, its heavy edges once, then the next
bucket, found from the list of the vertices reached beyond the current one instead of a scan of
all n distances.

Both are registry entries (``"bfs_walk"`` and ``"delta_walk"`` for ``"csr"``, called through
``_engine.dispatch.call`` by ``sparray.graph``); their generic twins in
``_engine/graph_walk_generic.py`` have the same contract, bit for bit, and answer while these
compile in the background. What makes that possible is written into the contract:

- the order: the frontier's vertices are read in turn, each one's edges in CSR order, and a vertex
  found (BFS: not yet reached; delta-stepping: improved) goes to the next list at its first such
  edge, so the lists handed back (frontier, settled) have a fixed order;
- a relaxation reads the distances of the vertices it relaxes from as they were before it wrote
  any (the masked product ``t(frontier) min.+ A``, as the products path computes it; a vertex
  improved by an earlier one of the same round is in the next round's frontier anyway), so its
  results do not depend on which of the round's vertices came first, and the frontier sizes are
  the products path's.

>>> import numpy as np
>>> crow, col = np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3])         # the path 0 -> 1 -> 2 -> 3
>>> levels = np.array([0, -1, -1, -1]); reached = levels >= 0; parents = np.array([0, -1, -1, -1])
>>> front, level, sizes, walked = bfs_walk(crow, col, np.array([0]), 0, levels, reached, parents, True, 100)
>>> front.tolist(), level, sizes.tolist(), walked, levels.tolist(), parents.tolist()
([], 4, [1, 1, 1, 0], 3, [0, 1, 2, 3], [0, 0, 1, 2])
"""

from __future__ import annotations

import numba
import numpy as np

from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)
from ._common import as_index

__all__ = ["bfs_walk", "delta_walk"]


#: numba checks a signed index for wraparound (a negative one counts from the end) at every
#: access; the walks index with unsigned integers instead (their indices are never negative), which
#: took a BFS of a 1000 x 1000 grid from 25 to 15 ms (scipy's breadth_first_order: 19 ms)
_U1 = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _walk(crow, col, front, nfront, spare, levels, reached, parents, want_parents, level, max_edges, sizes):
    walked = 0
    nl = 0
    while nfront > 0:
        edges = 0
        for t in range(nfront):
            u = np.uint64(front[t])
            edges += crow[u + _U1] - crow[u]
        if edges > max_edges and nl > 0:
            break
        level += 1
        nn = np.uint64(0)
        for t in range(nfront):
            u = np.uint64(front[t])
            e = np.uint64(crow[u])
            end = np.uint64(crow[u + _U1])
            while e < end:
                v = np.uint64(col[e])
                if not reached[v]:
                    reached[v] = True
                    levels[v] = level
                    if want_parents:
                        parents[v] = u
                    spare[nn] = v
                    nn += _U1
                e += _U1
        walked += edges
        sizes[nl] = nn
        nl += 1
        front, spare = spare, front
        nfront = np.int64(nn)
    return front[:nfront].copy(), level, nl, walked


def bfs_walk(crow, col, frontier, level, levels, reached, parents, want_parents, max_edges):
    """Expand BFS levels from ``frontier`` (distinct vertices, all at ``level``) while its out-edges
    stay at most ``max_edges`` (the first level always), writing ``levels``, ``reached`` and (with
    ``want_parents``) ``parents`` in place for every vertex found; ``reached`` marks the vertices
    a level may not enter (the visited ones, and any blocked). A vertex found by several frontier
    vertices gets the first in the frontier's order as its parent; the vertices of a level are
    listed in the order they are found (the frontier's vertices in turn, each one's edges in CSR
    order). ``parents`` may be None without ``want_parents``.

    Returns ``(frontier, level, sizes, walked)``: the frontier not yet expanded (empty when the
    search is over; a new int64 array) and its level (an int), the vertices found at each level
    expanded (int64; the last 0 when the search ended), and the out-edges read (an int: the
    frontiers' degrees summed, the frontier handed back not counted)."""
    crow, col = as_index(crow, "crow", "bfs_walk"), as_index(col, "col", "bfs_walk")
    n = crow.shape[0] - 1
    front = np.empty(n + 1, np.int64)
    spare = np.empty(n + 1, np.int64)
    f = np.asarray(frontier, np.int64)
    front[: f.shape[0]] = f
    sizes = np.empty(n + 1, np.int64)
    parents = parents if parents is not None else np.empty(0, np.int64)
    out, level, nl, walked = _walk(crow, col, front, f.shape[0], spare, levels, reached, parents, bool(want_parents),
                                   int(level), int(max_edges), sizes)
    return out, level, sizes[:nl].copy(), int(walked)


@numba.njit(cache=True, nogil=True)
def _delta(crow, col, w, delta, t, front, nfront, spare, settled, nsettled, pending, npending, hi, max_edges,
           sizes, counts):
    n = crow.shape[0] - 1
    start = np.empty(n + 1, np.float64)  # the distances a relaxation reads, taken before it writes any
    in_round = np.full(n, -1, np.int64)  # the last light round that put the vertex in the next frontier
    in_bucket = np.full(n, -1, np.int64)  # the last bucket that settled it
    in_pending = np.zeros(n, np.bool_)
    for q in range(npending):
        in_pending[pending[q]] = True
    for q in range(nsettled):
        in_bucket[settled[q]] = 0
    rounds = 0
    buckets = 0
    while True:
        if rounds + buckets >= sizes.shape[0] - 1:  # the log is full: hand the state back
            counts[0], counts[1], counts[2] = rounds, buckets, 0
            return front[:nfront].copy(), settled[:nsettled].copy(), hi
        if nfront > 0:
            edges = 0
            for q in range(nfront):
                u = front[q]
                edges += crow[u + 1] - crow[u]
            if edges > max_edges and rounds > 0:
                counts[0], counts[1], counts[2] = rounds, buckets, 0
                return front[:nfront].copy(), settled[:nsettled].copy(), hi
            sizes[rounds + buckets] = nfront
            rounds += 1
            for q in range(nfront):
                u = front[q]
                start[q] = t[u]
                if in_bucket[u] != buckets:
                    in_bucket[u] = buckets
                    settled[nsettled] = u
                    nsettled += 1
            nn = 0
            for q in range(nfront):
                u = np.uint64(front[q])
                tu = start[q]
                e = np.uint64(crow[u])
                end = np.uint64(crow[u + _U1])
                while e < end:
                    we = w[e]
                    if we <= delta:
                        v = np.uint64(col[e])
                        nt = tu + we
                        if nt < t[v]:
                            t[v] = nt
                            if nt < hi:
                                if in_round[v] != rounds:
                                    in_round[v] = rounds
                                    spare[np.uint64(nn)] = v
                                    nn += 1
                            elif not in_pending[v]:
                                in_pending[v] = True
                                pending[np.uint64(npending)] = v
                                npending += 1
                    e += _U1
            front, spare = spare, front
            nfront = nn
            continue
        # the bucket is settled: its heavy edges once
        for q in range(nsettled):
            start[q] = t[settled[q]]
        for q in range(nsettled):
            u = np.uint64(settled[q])
            tu = start[q]
            e = np.uint64(crow[u])
            end = np.uint64(crow[u + _U1])
            while e < end:
                we = w[e]
                if we > delta:
                    v = np.uint64(col[e])
                    nt = tu + we
                    if nt < t[v]:
                        t[v] = nt
                        if not in_pending[v]:
                            in_pending[v] = True
                            pending[np.uint64(npending)] = v
                            npending += 1
                e += _U1
        sizes[rounds + buckets] = -1
        buckets += 1
        nsettled = 0
        # the next bucket: the least distance beyond this one (vertices improved into it are settled)
        least = np.inf
        kept = 0
        for q in range(npending):
            v = pending[q]
            if t[v] >= hi:
                pending[kept] = v
                kept += 1
                if t[v] < least:
                    least = t[v]
            else:
                in_pending[v] = False
        npending = kept
        if least == np.inf:
            counts[0], counts[1], counts[2] = rounds, buckets, 1
            return front[:0].copy(), settled[:0].copy(), hi
        top = np.floor(least / delta) * delta + delta
        hi = top if top > least else np.nextafter(least, np.inf)
        kept = 0
        for q in range(npending):
            v = pending[q]
            if t[v] < hi:
                front[nfront] = v
                nfront += 1
                in_pending[v] = False
            else:
                pending[kept] = v
                kept += 1
        npending = kept


def delta_walk(crow, col, w, delta, t, frontier, settled, pending, hi, max_edges):
    """Delta-stepping from the state of ``sparray.graph.sssp``: distances ``t`` (float64, updated
    in place), the current bucket ``[hi - delta, hi)``'s frontier (distinct vertices) and the
    vertices it settled so far, and ``pending``, every vertex with a finite distance >= hi (each
    once). Light rounds (``w <= delta``) run while the frontier's out-edges (light and heavy) stay
    at most ``max_edges`` (the first round always); a bucket settled, its heavy edges are relaxed
    once from every vertex it settled, and the next bucket starts at the least distance beyond
    (``hi`` the next multiple of delta above it, or the next float when rounding gives none). At
    most 2n + 3 steps a call: then the state is handed back as for a large frontier.

    Returns ``(done, frontier, settled, hi, sizes)``: whether the search is over, else the state
    to go on from (the frontier of a light round, too large to walk, in the order its vertices
    were improved, the vertices its bucket settled, in the order they were, and the bucket's
    ``hi``); ``sizes`` one entry a step: a light round's frontier size, or -1 for a bucket change.
    Done: both lists empty and ``hi`` the last bucket's."""
    crow, col = as_index(crow, "crow", "delta_walk"), as_index(col, "col", "delta_walk")
    n = crow.shape[0] - 1
    front, spare, done_set, pend = (np.empty(n + 1, np.int64) for _ in range(4))
    f, st, pe = (np.asarray(a, np.int64) for a in (frontier, settled, pending))
    front[: f.shape[0]], done_set[: st.shape[0]], pend[: pe.shape[0]] = f, st, pe
    sizes = np.empty(2 * n + 4, np.int64)
    counts = np.zeros(3, np.int64)
    out_front, out_settled, hi = _delta(crow, col, np.ascontiguousarray(w, np.float64), float(delta), t, front,
                                        f.shape[0], spare, done_set, st.shape[0], pend, pe.shape[0], float(hi),
                                        int(max_edges), sizes, counts)
    rounds, buckets, done = (int(c) for c in counts)
    return bool(done), out_front, out_settled, float(hi), sizes[: rounds + buckets].copy()
