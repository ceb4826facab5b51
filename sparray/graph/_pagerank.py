"""PageRank by power iteration: networkx's model (``networkx.pagerank``), GAP's stopping test.

Each iteration is one ``plus_times`` product by rows of the transpose (``y = A.T @ (x / w)``,
``w`` the out-weights), pulled: every vertex sums what its in-neighbours send, no scatter. The
conventions are networkx's, so results agree with ``networkx.pagerank(G)`` to its tolerance:

- the edge weights are A's values (networkx's default ``weight="weight"``), each vertex sending
  its rank in proportion to its out-edges' weights; ``weighted=False`` counts every edge as 1;
- a *dangling* vertex (no out-edge, or out-weights summing to 0) sends its rank to every vertex
  equally (networkx's default ``dangling=None``: the uniform personalization); GAP's reference
  drops that rank instead, which makes the ranks sum to less than 1;
- the start is uniform and ``x = damping * (x A' + dangling mass * d) + (1 - damping) * p``, with
  the teleport distribution ``p`` uniform and ``d = p`` unless given (networkx's
  ``personalization``, ``dangling`` and ``nstart``, each normalised to sum 1);
- the iteration stops when ``sum |x_new - x| < tol`` (the L1 change, GAP's test with its
  default 1e-4); networkx compares with ``n * tol`` instead (its default tol 1e-6 a vertex), so
  ``networkx.pagerank(G, tol=t)`` stops where ``pagerank(A, tol=n * t)`` does, with the same
  ranks. After ``max_iter`` iterations without convergence: :class:`ConvergenceError`
  (networkx's ``PowerIterationFailedConvergence``).

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0, 1.0, 1.0], [0, 0, 1.0], [1.0, 0, 0]]), layout="csr")
>>> np.round(pagerank(A), 4).tolist()
[0.3878, 0.2148, 0.3974]
"""

from __future__ import annotations

import math

import numpy as np

from ._adjacency import ConvergenceError, graph_of, new_info, read_host
from ._frontier import pull

__all__ = ["pagerank"]


def pagerank(A, *, damping=0.85, tol=1e-4, max_iter=100, weighted=True, personalization=None, nstart=None,
             dangling=None, info=None):
    """PageRank of the vertices of the graph A (``A[i, j]``: the edge i -> j and its weight).

    Parameters
    ----------
    A : the adjacency matrix, any layout and fill (``sparray.graph.as_graph`` says which elements
        are edges); an undirected graph is a symmetric A. Weights must be >= 0.
    damping : the probability of following an edge (networkx's ``alpha``), 0 <= damping <= 1.
    tol, max_iter : stop when the L1 change of an iteration is below ``tol``; raise
        :class:`ConvergenceError` after ``max_iter`` iterations without it.
    weighted : False: every edge has weight 1.
    personalization : the teleport distribution, a 1-d array of n non-negative weights (scaled to
        sum 1; they must not all be 0), default uniform.
    nstart : the starting ranks, n non-negative weights (scaled to sum 1), default uniform.
    dangling : where a dangling vertex's rank goes, n non-negative weights (scaled to sum 1),
        default ``personalization``.
    info : a dict to fill: ``iterations``, ``errors`` (the L1 change of each iteration),
        ``converged``.

    Returns the ranks (float64, summing to 1) on A's device, shape (n,).

    One read from the device per iteration (the L1 change, for the convergence test).
    """
    damping, tol = float(damping), float(tol)
    if not 0.0 <= damping <= 1.0:
        raise ValueError(f"sparray.graph.pagerank: damping must be in [0, 1]; got {damping}")
    if not tol > 0:
        raise ValueError(f"sparray.graph.pagerank: tol must be > 0; got {tol}")
    if int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"sparray.graph.pagerank: max_iter must be a positive integer; got {max_iter!r}")
    G = graph_of(A, "pagerank")
    xp, n, dev = G.xp, G.n, G.device
    info = new_info(info, "pagerank", iterations=0, errors=[], converged=False)
    f64 = xp.float64
    if n == 0:
        info["converged"] = True
        return xp.zeros((0,), dtype=f64, device=dev)
    semiring, parts, is_dangling, inv = G.kept(("pagerank", bool(weighted)), lambda: _walk(G, weighted))
    p = _distribution(xp, dev, personalization, n, "personalization", 1.0 / n)
    d = p if dangling is None else _distribution(xp, dev, dangling, n, "dangling", None)
    x = _distribution(xp, dev, nstart, n, "nstart", None)
    x = xp.full((n,), 1.0 / n, dtype=f64, device=dev) if x is None else x
    for it in range(1, int(max_iter) + 1):
        y, present = pull(parts, n, x * inv, None, semiring, xp=xp)
        lost = xp.sum(xp.where(is_dangling, x, 0.0))
        new = damping * (xp.where(present, y, 0.0) + lost * d) + (1.0 - damping) * p
        (err,) = read_host(xp, xp.sum(xp.abs(new - x)))
        x = new
        info["iterations"] = it
        info["errors"].append(err)
        if err < tol:
            info["converged"] = True
            return x
    raise ConvergenceError(f"sparray.graph.pagerank: no convergence to tol={tol} in {max_iter} iterations (last L1 "
                           f"change {info['errors'][-1]:.3g}, needed < {tol:.3g})")


def _distribution(xp, dev, w, n, name, uniform):
    """The weights ``w`` (n of them, >= 0, not all 0) scaled to sum 1; ``uniform`` (a float) when w is None."""
    if w is None:
        return uniform
    from .._core.namespace import to_numpy

    host = np.asarray(w if isinstance(w, (list, tuple)) else to_numpy(w), dtype=np.float64)  # a setup read
    if host.shape != (n,):
        raise ValueError(f"sparray.graph.pagerank: {name} must be a 1-d array of {n} weights (one per vertex); got "
                         f"shape {host.shape}")
    total = float(host.sum())
    if not (np.all(host >= 0) and total > 0 and math.isfinite(total)):
        raise ValueError(f"sparray.graph.pagerank: {name} must hold finite weights >= 0, not all 0; got sum {total} "
                         f"and least {host.min() if n else 'none'}")
    return xp.asarray(host / total, device=dev)


def _walk(G, weighted):
    """(semiring, transpose parts, dangling bitmap, 1 / out-weight) of the random walk (kept per graph)."""
    xp, n = G.xp, G.n
    f64 = xp.float64
    crow, col, values = G.transposed()
    if weighted:
        w = xp.astype(values, f64)
        if w.shape[0]:
            (low,) = read_host(xp, xp.min(w))
            if not low >= 0:  # nan too
                raise ValueError(f"sparray.graph.pagerank: edge weights must be >= 0 (networkx's random walk); the "
                                 f"least is {low}; use weighted=False to count every edge as 1")
        y, present = pull((G.crow, G.col, xp.astype(G.values, f64)), n, None, None, "plus_first", xp=xp)
        out_w = xp.where(present, y, 0.0)
        semiring, parts = "plus_times", (crow, col, w)
    else:
        out_w = xp.astype(G.out_degree(), f64)
        semiring, parts = "plus_second", (crow, col, None)
    dangling = out_w == 0
    inv = xp.where(dangling, 0.0, 1.0 / xp.where(dangling, 1.0, out_w))
    return semiring, parts, dangling, inv
