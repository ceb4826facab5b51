"""Single-source shortest paths: delta-stepping for non-negative weights, Bellman-Ford otherwise.

Both relax a frontier's out-edges with one ``min_plus`` product per iteration (``t(j) = min over
frontier i of t(i) + A(i, j)``) and keep the improvements (``y < t``); they differ in which
vertices form the next frontier.

- **Delta-stepping** (Meyer and Sanders, J. Algorithms 2003; in linear algebra after Sridhar et
  al., IPDPSW 2019, as LAGraph's SSSP): the tentative distances are cut into buckets of width
  delta and settled bucket by bucket; inside a bucket the light edges (weight <= delta) are
  relaxed from the vertices that improved until none does, then the heavy edges once from every
  vertex the bucket settled. Dijkstra's order at the coarse scale bounds the re-relaxations;
  Bellman-Ford's parallel rounds inside a bucket keep every product large. The default delta is
  the largest weight over the mean out-degree (Meyer and Sanders' Theta(1/d) for weights scaled to
  [0, 1]); ``delta=`` sets another.
- **Bellman-Ford** (any weights): round r relaxes the out-edges of the vertices improved in round
  r - 1; a vertex still improving in round n lies on a path through a negative cycle:
  :class:`NegativeCycleError`.

A 1-d array of sources runs every search together: the frontiers are the rows of a matrix and each
relaxation one ``min_plus`` SpGEMM (the buckets are shared, each source's search is unchanged).
On the CPU, one source's small frontiers (out-edges under ``bfs``'s ``WALK_EDGES``) go to a serial
kernel (the registry's ``"delta_walk"``, ``kernels/cpu/graph_walk.py``) that runs the same light
and heavy relaxations fused, bucket after bucket, and finds the next bucket from the list of
vertices reached beyond the current one: a high-diameter graph's thousands of buckets then cost
their edges, not O(n) each.

>>> import numpy as np, sparray
>>> W = sparray.asarray(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]), layout="csr")
>>> sssp(W, 0).tolist()
[0.0, 3.0, 1.0]
>>> sssp(W, [2, 1]).tolist()
[[inf, 2.0, 0.0], [inf, 0.0, inf]]
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import dispatch as _dispatch
from ._adjacency import NegativeCycleError, compact, graph_of, new_info, read_host, sources_of
from ._bfs import symmetrized
from ._frontier import push, push_rows

__all__ = ["sssp"]


def sssp(A, source, *, directed=True, delta=None, info=None):
    """Shortest-path distances from ``source`` in the weighted graph A.

    Parameters
    ----------
    A : the adjacency matrix, any layout: ``A[i, j]`` is the weight of the edge i -> j (an
        undefined fill: every stored entry is an edge, a 0 an edge of weight 0; a fill of 0, inf
        or nan: the elements equal to it are the non-edges; see ``sparray.graph.as_graph``).
        Duplicates of an uncoalesced COO are summed (the array's value). NaN weights are refused.
    source : a vertex, or a 1-d array of vertices (one row of distances each, computed together).
    directed : False: an edge can be taken both ways (the lighter of A[i, j] and A[j, i]).
    delta : the bucket width of delta-stepping (non-negative weights), > 0.
    info : a dict to fill: ``method`` ("delta-stepping" or "bellman-ford"), ``delta``,
        ``iterations`` (relaxations plus bucket changes: one read each), ``frontier_sizes``
        (vertices relaxed by each light or Bellman-Ford relaxation, summed over a batch),
        ``buckets`` (delta-stepping: buckets settled).

    Returns float64 distances on A's device, (n,) or (len(source), n): inf where no path leads.
    Raises :class:`NegativeCycleError` (a ValueError) when a negative cycle is reachable.

    One read from the device per iteration (the frontier's size, with the next bucket's bound at
    a bucket change).
    """
    G = graph_of(A, "sssp")
    if not directed:
        G = symmetrized(G, "min")
    sources, batched = sources_of(source, G.n, "sssp")
    xp = G.xp
    W = G.kept("float64 weights", lambda: G.with_parts(G.crow, G.col, xp.astype(G.values, xp.float64)))
    info = new_info(info, "sssp", method=None, delta=None, iterations=0, frontier_sizes=[])
    lo, hi, nans = W.kept("weight range", lambda: _weight_range(W))
    if nans:
        raise ValueError(f"sparray.graph.sssp: {int(nans)} edge weights are NaN; give them a weight, or drop them as "
                         f"non-edges (a fill of nan: sparray.asarray(A, fill_value=float('nan')))")
    t = _start(W, sources, batched)
    if not sources.shape[0]:
        return t
    if lo < 0:
        info["method"] = "bellman-ford"
        return _bellman_ford(W, t, batched, info)
    if delta is None:
        delta = hi / max(W.nse / max(W.n, 1), 1.0) if hi > 0 else 1.0
    delta = float(delta)
    if not delta > 0 or math.isinf(delta):
        raise ValueError(f"sparray.graph.sssp: delta must be a positive finite number; got {delta!r}")
    info.update(method="delta-stepping", delta=delta, buckets=0)
    return _delta_stepping(W, t, batched, delta, info)


def _weight_range(W):
    """(least weight, largest weight, NaN count) of W's edges, in one read (kept per graph)."""
    if not W.nse:
        return 0.0, 0.0, 0.0
    xp, v = W.xp, W.values
    nan = xp.isnan(v)
    clean = xp.where(nan, 0.0, v)
    return read_host(xp, xp.min(clean), xp.max(clean), xp.sum(xp.astype(nan, xp.int64)))


def _start(W, sources, batched):
    xp = W.xp
    src = xp.asarray(sources, dtype=xp.int64, device=W.device)
    if batched:
        b = int(sources.shape[0])
        t = xp.full((b, W.n), math.inf, dtype=xp.float64, device=W.device)
        t[xp.arange(b, dtype=xp.int64, device=W.device), src] = 0.0
    else:
        t = xp.full((W.n,), math.inf, dtype=xp.float64, device=W.device)
        t[src] = 0.0
    return t


def _relax(W, t, frontier, count, batched):
    """``(y, present)``: ``y = t(frontier) min.+ A`` over W's edges, same shape as t."""
    if batched:
        return push_rows(W, t, frontier, count, "min_plus")
    idx = compact(W.xp, frontier, count, W.on_host())
    return push(W, W.xp.take(t, idx), idx, "min_plus")


def _count(xp, *bitmaps):
    return read_host(xp, *(xp.sum(xp.astype(b, xp.int64)) for b in bitmaps))


def _split(W, delta):
    xp = W.xp
    parts = (W.crow, W.col, W.values)
    light = _dispatch.call("graph_select", "csr", xp, *parts, "le", delta, work=W.nse)
    heavy = _dispatch.call("graph_select", "csr", xp, *parts, "gt", delta, work=W.nse)
    return W.with_parts(*light), W.with_parts(*heavy)


def _delta_stepping(W, t, batched, delta, info):
    xp = W.xp
    light, heavy = W.kept(("split", delta), lambda: _split(W, delta))
    hi = delta  # the current bucket is [hi - delta, hi): bucket 0 holds the sources
    frontier = t < hi
    settled = xp.zeros(t.shape, dtype=xp.bool, device=W.device)
    (n_front,) = _count(xp, frontier)
    n_settled = 0
    sizes = info["frontier_sizes"]
    walk = not batched and _walker(W)
    while True:
        if walk and n_front:
            state = _walk(W, t, frontier, settled, hi, delta, info)
            if state is None:
                return t
            frontier, settled, hi, n_front, n_settled = state
        if n_front:
            settled = settled | frontier
            if light.nse:
                y, present = _relax(light, t, frontier, int(n_front), batched)
                better = present & (y < t)
                t = xp.where(better, y, t)
                frontier = better & (t < hi)
            else:
                frontier = xp.zeros(t.shape, dtype=xp.bool, device=W.device)
            sizes.append(int(n_front))
            n_front, n_settled = _count(xp, frontier, settled)
            info["iterations"] += 1
            continue
        # the bucket is settled: its heavy edges once, then the next bucket from the least distance beyond
        if heavy.nse and n_settled:
            y, present = _relax(heavy, t, settled, int(n_settled), batched)
            t = xp.where(present & (y < t), y, t)
        info["buckets"] += 1
        beyond = t >= hi
        least = xp.min(xp.where(beyond, t, math.inf))
        top = xp.floor(least / delta) * delta + delta
        frontier = beyond & ((t < top) | (t == least))  # the argmin always: no empty bucket from rounding
        least, n_front = read_host(xp, least, xp.sum(xp.astype(frontier, xp.int64)))
        info["iterations"] += 1
        if math.isinf(least):
            return t
        hi = math.floor(least / delta) * delta + delta
        hi = max(hi, math.nextafter(least, math.inf))
        settled = xp.zeros(t.shape, dtype=xp.bool, device=W.device)


def _walker(W):
    """Whether one source's small frontiers go to the serial delta-stepping walk (``"delta_walk"``
    in the registry): as for ``bfs`` (``_bfs._walker``: on the host, and not with the generic
    backend forced, which keeps the products)."""
    from ._bfs import _walker as bfs_walker

    return bfs_walker(W)


def _walk(W, t, frontier, settled, hi, delta, info):
    """Hand a small frontier to the serial walk (the CPU): None when it finished the search, else
    the state it stopped at, ``(frontier, settled, hi, n_front, n_settled)``."""
    from ._bfs import WALK_EDGES

    idx = np.flatnonzero(frontier)
    if int(W.out_degree()[idx].sum()) > WALK_EDGES:
        return frontier, settled, hi, int(idx.shape[0]), int(np.count_nonzero(settled))
    pending = np.flatnonzero((t >= hi) & (t < math.inf))
    done, front, kept, hi, steps = _dispatch.call("delta_walk", "csr", W.xp, W.crow, W.col, W.values, delta, t, idx,
                                                  np.flatnonzero(settled), pending, hi, WALK_EDGES,
                                                  work=W.nse + W.n)
    steps = steps.tolist()
    info["frontier_sizes"].extend(v for v in steps if v >= 0)
    info["buckets"] += sum(1 for v in steps if v < 0)
    info["iterations"] += len(steps)
    if done:
        return None
    n = W.n
    frontier = np.zeros(n, bool)
    frontier[front] = True
    settled = np.zeros(n, bool)
    settled[kept] = True
    return frontier, settled, hi, int(front.shape[0]), int(kept.shape[0])


def _bellman_ford(W, t, batched, info):
    xp = W.xp
    n = W.n
    frontier = t == 0.0
    (n_front,) = _count(xp, frontier)
    sizes = info["frontier_sizes"]
    rounds = 0
    while n_front:
        if rounds == n:
            raise NegativeCycleError("sparray.graph.sssp: a negative cycle is reachable from the source (distances "
                                     "still fall after n rounds of Bellman-Ford)")
        sizes.append(int(n_front))
        y, present = _relax(W, t, frontier, int(n_front), batched)
        frontier = present & (y < t)
        t = xp.where(frontier, y, t)
        (n_front,) = _count(xp, frontier)
        rounds += 1
        info["iterations"] = rounds
    return t
