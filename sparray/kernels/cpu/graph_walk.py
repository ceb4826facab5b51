"""Serial level walks for small frontiers (numba): many BFS levels in one call.

A BFS level is one masked push product (``q<not visited> = q any.secondi A``, then the level
written where q landed). When the frontier's out-edges are few (a high-diameter graph such as a
road network or a grid has thousands of levels of a few hundred vertices), the call overhead of
one product a level (Python, the thread team, the O(n) bitmaps of the result) costs more than the
level's work. :func:`bfs_walk` runs the same product and assignment fused, on one thread, level
after level, while the frontier's out-edges stay under a bound, and hands the frontier back to
the parallel products when it grows: work O(edges walked), nothing O(n) a level.

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

__all__ = ["bfs_walk"]


@numba.njit(cache=True, nogil=True)
def _walk(crow, col, front, nfront, spare, levels, reached, parents, want_parents, level, max_edges, sizes):
    walked = 0
    nl = 0
    while nfront > 0:
        edges = 0
        for t in range(nfront):
            u = front[t]
            edges += crow[u + 1] - crow[u]
        if edges > max_edges and nl > 0:
            break
        level += 1
        nn = 0
        for t in range(nfront):
            u = front[t]
            for e in range(crow[u], crow[u + 1]):
                v = col[e]
                if not reached[v]:
                    reached[v] = True
                    levels[v] = level
                    if want_parents:
                        parents[v] = u
                    spare[nn] = v
                    nn += 1
        walked += edges
        sizes[nl] = nn
        nl += 1
        front, spare = spare, front
        nfront = nn
    return front[:nfront].copy(), level, nl, walked


def bfs_walk(crow, col, frontier, level, levels, reached, parents, want_parents, max_edges):
    """Expand BFS levels from ``frontier`` (the vertices at ``level``) while its out-edges stay
    at most ``max_edges`` (the first level always), writing ``levels``, ``reached`` and (with
    ``want_parents``) ``parents`` in place for every vertex found; ``reached`` marks the vertices
    a level may not enter (the visited ones, and any blocked).

    Returns ``(frontier, level, sizes, walked)``: the frontier not yet expanded (empty when the
    search is over) and its level, the vertices found at each level expanded (the last 0 when
    the search ended), and the out-edges read."""
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
