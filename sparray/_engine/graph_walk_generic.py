"""Generic (pure array-API) twins of the serial graph walks of ``kernels/cpu/graph_walk.py``: many
BFS levels (``bfs_walk``) or delta-stepping buckets (``delta_walk``) in one call, one pass of
array operations per level, light round or bucket, and nothing of O(n) per level.

They answer a NumPy call while the numba walk compiles in the background, for small graphs before
numba has started, and where a kernel declines; ``tests/test_graph_walk_registry.py`` checks them
against the kernels. The contract is the kernels' (same arguments after ``xp``, same in-place
updates, same results, the vertex lists in the same order):

- ``bfs_walk(crow, col, frontier, level, levels, reached, parents, want_parents, max_edges) ->
  (frontier, level, sizes, walked)``;
- ``delta_walk(crow, col, w, delta, t, frontier, settled, pending, hi, max_edges) ->
  (done, frontier, settled, hi, sizes)``.

The serial loops read in a fixed order: the frontier's vertices in turn, each one's edges in CSR
order. A level's (or round's) result is then a function of that *edge stream*: the vertex an edge
reaches is taken by the first edge of the stream that may take it (BFS: the first that reaches an
unvisited vertex, whose owner becomes the parent; delta-stepping: the first candidate distance
below the vertex's distance at the start of the round), so the new vertices come out in the order
of their first such edge. Here that is a stable sort of the stream by target vertex, the first of
each run, and a sort of those positions: O(e log e) for e edges, where the kernel takes O(e).
Distances are relaxed from the values at the start of the round (both do: the walk is the masked
product ``t(frontier) min.+ A`` fused), so every sum is the kernel's, bit for bit.

>>> import numpy as np, array_api_compat.numpy as xp
>>> crow, col = np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3])         # the path 0 -> 1 -> 2 -> 3
>>> levels = np.array([0, -1, -1, -1]); reached = levels >= 0; parents = np.array([0, -1, -1, -1])
>>> front, level, sizes, walked = bfs_walk_generic(xp, crow, col, np.array([0]), 0, levels, reached, parents, True, 100)
>>> front.tolist(), level, sizes.tolist(), walked, levels.tolist(), parents.tolist()
([], 4, [1, 1, 1, 0], 3, [0, 1, 2, 3], [0, 0, 1, 2])
"""

from __future__ import annotations

import math

import array_api_compat

from .dispatch import register

__all__ = ["bfs_walk_generic", "delta_walk_generic"]


def _indices(xp, a, copy=False):
    return xp.astype(xp.asarray(a), xp.int64, copy=copy)


def _degrees(xp, crow, front):
    """(first edge, out-degree) of each vertex of ``front``, and their total as an int (one read)."""
    starts = xp.take(crow, front)
    lens = xp.take(crow, front + 1) - starts
    return starts, lens, int(xp.sum(lens))


def _stream(xp, starts, lens, total):
    """The edge stream of a frontier: each edge's position in ``col`` and its owner's place in
    the frontier, the frontier's vertices in turn and each one's edges in CSR order."""
    ends = xp.cumulative_sum(lens)
    at = xp.arange(total, dtype=xp.int64, device=array_api_compat.device(lens))
    owner = xp.searchsorted(ends, at, side="right")  # the zero-degree vertices own nothing
    return xp.take(starts, owner) + at - (xp.take(ends, owner) - xp.take(lens, owner)), owner


def _firsts(xp, keys):
    """The places, in increasing order, of the first occurrence of each distinct value of ``keys``."""
    if keys.shape[0] == 0:
        return xp.zeros((0,), dtype=xp.int64, device=array_api_compat.device(keys))
    order = xp.argsort(keys, stable=True)
    sk = xp.take(keys, order)
    head = xp.concat([xp.ones((1,), dtype=xp.bool, device=array_api_compat.device(sk)), sk[1:] != sk[:-1]])
    return xp.sort(order[head])


def _lower(xp, t, keys, values):
    """``t[k] = min(t[k], values with key k)`` for each k in ``keys``, in place (the values are all
    below ``t`` at their keys: the improvements of one round)."""
    if keys.shape[0] == 0:
        return
    order = xp.argsort(values, stable=True)
    order = xp.take(order, xp.argsort(xp.take(keys, order), stable=True))  # by key, then value
    sk = xp.take(keys, order)
    head = xp.concat([xp.ones((1,), dtype=xp.bool, device=array_api_compat.device(sk)), sk[1:] != sk[:-1]])
    t[sk[head]] = xp.take(values, order)[head]


@register("bfs_walk", "csr", "generic")
def bfs_walk_generic(xp, crow, col, frontier, level, levels, reached, parents, want_parents, max_edges):
    """``kernels/cpu/graph_walk.py:bfs_walk`` in array operations (its docstring is the contract)."""
    crow, col = _indices(xp, crow), _indices(xp, col)
    front = _indices(xp, frontier, copy=True)
    level, max_edges = int(level), int(max_edges)
    sizes, walked = [], 0
    while front.shape[0]:
        starts, lens, edges = _degrees(xp, crow, front)
        if edges > max_edges and sizes:
            break
        level += 1
        pos, owner = _stream(xp, starts, lens, edges)
        v = xp.take(col, pos)
        fresh = ~xp.take(reached, v)
        v, owner = v[fresh], owner[fresh]
        first = _firsts(xp, v)  # a vertex's first edge from the frontier in the stream takes it
        new = xp.take(v, first)
        reached[new] = True
        levels[new] = level
        if want_parents:
            parents[new] = xp.take(front, xp.take(owner, first))
        walked += edges
        sizes.append(int(new.shape[0]))
        front = new
    return front, level, xp.asarray(sizes, dtype=xp.int64, device=array_api_compat.device(front)), walked


def _relax(xp, crow, col, w, t, vertices, light, delta):
    """The improvements of one relaxation from ``vertices`` over their light (``w <= delta``) or
    heavy edges: ``(v, c)``, the candidates ``c = t[u] + w`` below ``t[v]`` (t as it is before any
    is written), in stream order."""
    starts, lens, total = _degrees(xp, crow, vertices)
    pos, owner = _stream(xp, starts, lens, total)
    we = xp.take(w, pos)
    keep = we <= delta if light else we > delta
    pos, owner, we = pos[keep], owner[keep], we[keep]
    v = xp.take(col, pos)
    c = xp.take(xp.take(t, vertices), owner) + we
    better = c < xp.take(t, v)
    return v[better], c[better]


@register("delta_walk", "csr", "generic")
def delta_walk_generic(xp, crow, col, w, delta, t, frontier, settled, pending, hi, max_edges):
    """``kernels/cpu/graph_walk.py:delta_walk`` in array operations (its docstring is the contract);
    the vertex lists (frontier, settled, pending) keep the kernel's orders, so a stop mid-way hands
    back the same arrays."""
    crow, col = _indices(xp, crow), _indices(xp, col)
    w = xp.astype(xp.asarray(w), xp.float64, copy=False)
    n = int(crow.shape[0]) - 1
    dev = array_api_compat.device(t)
    delta, hi, max_edges = float(delta), float(hi), int(max_edges)
    front = _indices(xp, frontier, copy=True)
    done_set = _indices(xp, settled, copy=True)
    pend = _indices(xp, pending, copy=True)
    in_pending = xp.zeros((n,), dtype=xp.bool, device=dev)
    in_pending[pend] = True
    in_bucket = xp.full((n,), -1, dtype=xp.int64, device=dev)  # the last bucket that settled a vertex
    in_bucket[done_set] = 0
    steps, rounds, buckets = [], 0, 0
    log = 2 * n + 3  # the kernel's log of steps holds this many: then it hands the state back

    def state(done):
        return done, front, done_set, hi, xp.asarray(steps, dtype=xp.int64, device=dev)

    while True:
        if rounds + buckets >= log:
            return state(False)
        if front.shape[0]:
            if _degrees(xp, crow, front)[2] > max_edges and rounds > 0:
                return state(False)
            steps.append(int(front.shape[0]))
            rounds += 1
            add = front[xp.take(in_bucket, front) != buckets]
            in_bucket[add] = buckets
            done_set = xp.concat([done_set, add])
            v, c = _relax(xp, crow, col, w, t, front, True, delta)
            # a vertex's first improvement: to pending when it lands at or beyond hi (and is not there)
            first = _firsts(xp, v)
            fv, fc = xp.take(v, first), xp.take(c, first)
            add = fv[(fc >= hi) & ~xp.take(in_pending, fv)]
            in_pending[add] = True
            pend = xp.concat([pend, add])
            # the next frontier: the vertices improved below hi, in the order of their first such candidate
            below = v[c < hi]
            nxt = xp.take(below, _firsts(xp, below))
            _lower(xp, t, v, c)
            front = nxt
            continue
        # the bucket is settled: its heavy edges once
        v, c = _relax(xp, crow, col, w, t, done_set, False, delta)
        fv = xp.take(v, _firsts(xp, v))
        add = fv[~xp.take(in_pending, fv)]
        in_pending[add] = True
        pend = xp.concat([pend, add])
        _lower(xp, t, v, c)
        steps.append(-1)
        buckets += 1
        done_set = done_set[:0]
        # the next bucket: the least distance beyond this one (vertices improved into it are settled)
        beyond = xp.take(t, pend) >= hi
        in_pending[pend[~beyond]] = False
        pend = pend[beyond]
        least = float(xp.min(xp.take(t, pend))) if pend.shape[0] else math.inf
        if least == math.inf:
            front = front[:0]
            return state(True)
        q = least / delta
        top = (float(math.floor(q)) if math.isfinite(q) else q) * delta + delta
        hi = top if top > least else math.nextafter(least, math.inf)
        into = xp.take(t, pend) < hi
        front = pend[into]
        in_pending[front] = False
        pend = pend[~into]
