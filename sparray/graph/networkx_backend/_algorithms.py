"""networkx's functions served by ``sparray.graph``: the same arguments, results and errors as
networkx's own, computed with semiring products on the arrays of an :class:`NxArrays`.

Each function takes what networkx's dispatcher hands a backend (the graph converted, the other
arguments as the caller gave them) and returns networkx's result type with Python scalars:

- ``bfs_edges``: the edges of networkx's BFS tree *in networkx's order* (a parent's children in
  its neighbour order, parents in queue order): one ``min_plus`` product a level over the matrix
  whose (u, v) value is v's position in u's neighbour list, the frontier holding ``rank(u) *
  D`` (D above every degree): each new vertex's minimum is its first parent in queue order and its
  place among that parent's children, so sorting the level by it gives networkx's sequence;
- ``single_source_shortest_path_length``, ``shortest_path_length``: :func:`sparray.graph.bfs`
  levels (unweighted) or :func:`sparray.graph.sssp` distances (weighted; all pairs run the
  sources in batches);
- ``single_source_dijkstra_path_length``, ``dijkstra_path_length``,
  ``all_pairs_dijkstra_path_length``, ``single_source_bellman_ford_path_length``,
  ``bellman_ford_path_length``: :func:`sparray.graph.sssp` (parallel edges: the lightest, as
  networkx's weight function takes; a negative cycle raises networkx's ValueError for Dijkstra,
  NetworkXUnbounded for Bellman-Ford);
- ``all_pairs_shortest_path_length``: batched :func:`sparray.graph.bfs`;
- ``pagerank``: :func:`sparray.graph.pagerank` (networkx's tol is per vertex: ``n * tol`` here);
- ``connected_components``, ``number_connected_components``, ``is_connected``,
  ``weakly_connected_components`` (and ``number_``, ``is_``), ``strongly_connected_components``
  (and ``number_``, ``is_``): :func:`sparray.graph.connected_components`, the components in the
  order of their first node (networkx's order for the weak ones);
- ``triangles``: :func:`sparray.graph.triangle_count` per vertex.
"""

from __future__ import annotations

import math

import numpy as np

from ..._array.coo import COO
from ..._core.fill import undefined
from .._bfs import bfs
from .._components import connected_components as _components
from .._pagerank import pagerank as _pagerank
from .._products import matmul
from .._sssp import sssp
from .._triangles import triangle_count
from ._graph import NxArrays

__all__ = ["SERVED"]  # the served functions: SERVED's keys

#: sources per batch of an all-pairs search (rows of the frontier matrix)
ALL_PAIRS_BATCH = 64


def _nx():
    import networkx

    return networkx


def _vertex(G: NxArrays, node, error):
    """The vertex number of ``node``, or ``error`` raised (networkx's exception for that function)."""
    if node not in G:
        raise error
    return G.index[node]


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx's ``bfs_edges``: the BFS tree's edges, networkx's order (module docstring)."""
    if sort_neighbors is not None:
        raise NotImplementedError("sparray's networkx backend: bfs_edges with sort_neighbors (a Python function of "
                                  "each neighbour list) runs in networkx")
    return _bfs_edges(G, source, reverse, depth_limit)


def _bfs_edges(G, source, reverse, depth_limit):
    nx = _nx()
    kind = "digraph" if G.directed else "graph"
    s = _vertex(G, source, nx.NetworkXError(f"The node {source} is not in the {kind}."))
    n = len(G)
    limit = n if depth_limit is None else depth_limit
    P = G.positions(reverse)
    indptr = G.pred_indptr if reverse and G.directed else G.succ_indptr
    D = int(np.diff(indptr).max(initial=0)) + 1
    nodes = G.node_array()
    by_rank = np.empty(n, np.int64)  # vertex of each queue position
    by_rank[0] = s
    visited = np.zeros(n, np.bool_)
    visited[s] = True
    frontier, ranks = np.array([s], np.int64), np.array([0], np.int64)
    found, depth = 1, 0
    while frontier.shape[0] and depth < limit and found < n:
        x = COO(frontier[None, :], ranks * D, shape=(n,), fill_value=undefined)
        y = matmul(x, P, "min_plus", mask=visited, complement=True)
        idx, key = np.asarray(y.indices[0], np.int64), np.asarray(y.values, np.int64)
        order = np.argsort(key, kind="stable")
        idx, key = idx[order], key[order]
        parents = by_rank[key // D]
        yield from zip(nodes[parents].tolist(), nodes[idx].tolist())
        ranks = np.arange(found, found + idx.shape[0], dtype=np.int64)
        by_rank[found:found + idx.shape[0]] = idx
        visited[idx] = True
        found += idx.shape[0]
        frontier, depth = idx, depth + 1


def _levels_dict(G, levels, cutoff):
    """{node: level} of the reached vertices (level <= cutoff), by level then vertex."""
    levels = np.asarray(levels)
    keep = levels >= 0
    if cutoff is not None:
        keep &= levels <= cutoff
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(levels[idx], kind="stable")]
    return dict(zip(G.node_array()[idx].tolist(), levels[idx].tolist()))


def _distances_dict(G, dist, cutoff):
    """{node: distance} of the reached vertices (distance <= cutoff), nearest first."""
    dist = np.asarray(dist)
    keep = np.isfinite(dist)
    if cutoff is not None:
        keep &= dist <= cutoff
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(dist[idx], kind="stable")]
    return dict(zip(G.node_array()[idx].tolist(), dist[idx].tolist()))


def single_source_shortest_path_length(G, source, cutoff=None):
    """networkx's ``single_source_shortest_path_length``: {node: hops} within ``cutoff``."""
    nx = _nx()
    s = _vertex(G, source, nx.NodeNotFound(f"Source {source} is not in G"))
    return _levels_dict(G, bfs(G.structure(), s), cutoff)


def _weighted(G, weight):
    return G.weights(weight, "min")


def _sssp(G, W, s, bellman_ford=False):
    """sparray.graph.sssp, a negative cycle raised as networkx's Dijkstra (ValueError) or
    Bellman-Ford (NetworkXUnbounded) raise it."""
    from .._adjacency import NegativeCycleError

    try:
        return sssp(W, s)
    except NegativeCycleError as e:
        if bellman_ford:
            raise _nx().NetworkXUnbounded("Negative cycle detected.") from e
        raise ValueError("Contradictory paths found: negative weights?") from e


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """networkx's ``single_source_dijkstra_path_length``: {node: distance} within ``cutoff``."""
    nx = _nx()
    s = _vertex(G, source, nx.NodeNotFound(f"Node {source} not found in graph"))
    return _distances_dict(G, _sssp(G, _weighted(G, weight), s), cutoff)


def dijkstra_path_length(G, source, target, weight="weight"):
    """networkx's ``dijkstra_path_length``: the distance from source to target."""
    return _path_length(G, source, target, weight, bellman_ford=False)


def bellman_ford_path_length(G, source, target, weight="weight"):
    """networkx's ``bellman_ford_path_length``: the distance from source to target (negative
    weights allowed; NetworkXUnbounded on a negative cycle)."""
    return _path_length(G, source, target, weight, bellman_ford=True)


def _path_length(G, source, target, weight, bellman_ford):
    nx = _nx()
    s = _vertex(G, source, nx.NodeNotFound(f"Node {source} not found in graph"))
    if source == target:
        return 0
    d = math.inf if target not in G else float(np.asarray(_sssp(G, _weighted(G, weight), s, bellman_ford))[G.index[target]])
    if not math.isfinite(d):
        raise nx.NetworkXNoPath(f"{'node' if bellman_ford else 'Node'} {target} not reachable from {source}")
    return d


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """networkx's ``single_source_bellman_ford_path_length``: {node: distance}."""
    nx = _nx()
    s = _vertex(G, source, nx.NodeNotFound(f"Source {source} not in G"))
    return _distances_dict(G, _sssp(G, _weighted(G, weight), s, bellman_ford=True), None)


def all_pairs_shortest_path_length(G, cutoff=None):
    """networkx's ``all_pairs_shortest_path_length``: (node, {node: hops}) for every node."""
    return _all_pairs(G, None, cutoff)


def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """networkx's ``all_pairs_dijkstra_path_length``: (node, {node: distance}) for every node."""
    return _all_pairs(G, weight, cutoff)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """networkx's ``shortest_path_length``: hops (``weight=None``) or weighted distances, from a
    source, to a target, between the two, or for all pairs (an iterator of (source, dict))."""
    nx = _nx()
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None and target is None:
        return _all_pairs(G, weight, None, bellman_ford=method == "bellman-ford")
    if source is None:  # to the target: the reversed graph
        t = _vertex(G, target, nx.NodeNotFound(f"Target {target} is not in G"))
        if weight is None:
            return _levels_dict(G, bfs(G.structure(reverse=True), t), None)
        W = _weighted(G, weight) if not G.directed else _reversed_weights(G, weight)
        return _distances_dict(G, _sssp(G, W, t, method == "bellman-ford"), None)
    if target is None:
        if weight is None:
            return single_source_shortest_path_length(G, source)
        if method == "bellman-ford":
            return single_source_bellman_ford_path_length(G, source, weight=weight)
        return single_source_dijkstra_path_length(G, source, weight=weight)
    if weight is not None:
        return _path_length(G, source, target, weight, bellman_ford=method == "bellman-ford")
    if source not in G or target not in G:
        raise nx.NodeNotFound(f"Either source {source} or target {target} is not in G")
    level = int(np.asarray(bfs(G.structure(), G.index[source]))[G.index[target]])
    if level < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return level


def _reversed_weights(G, weight):
    key = ("reversed weights", weight)
    if key not in G._kept:
        G._kept[key] = _weighted(G, weight).mT.to_layout("csr")  # the pred lists' weights: the transpose
    return G._kept[key]


def _all_pairs(G, weight, cutoff, bellman_ford=False):
    """(node, {node: length}) for every node in G's order, the sources searched in batches."""
    n = len(G)
    A = G.structure() if weight is None else _weighted(G, weight)
    for start in range(0, n, ALL_PAIRS_BATCH):
        sources = np.arange(start, min(n, start + ALL_PAIRS_BATCH), dtype=np.int64)
        rows = np.asarray(bfs(A, sources) if weight is None else _sssp(G, A, sources, bellman_ford))
        for k, s in enumerate(sources.tolist()):
            one = _levels_dict(G, rows[k], cutoff) if weight is None else _distances_dict(G, rows[k], cutoff)
            yield G.nodes[s], one


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    """networkx's ``pagerank`` (its dangling, personalization and nstart rules; weight None: 1 an edge)."""
    nx = _nx()
    n = len(G)
    if n == 0:
        return {}
    if max_iter < 1:  # no iteration: not converged (networkx's answer)
        raise nx.PowerIterationFailedConvergence(max_iter)
    W = G.weights(weight, "sum")  # parallel edges add up, as in networkx's to_scipy_sparse_array

    def per_vertex(d, name):
        if d is None:
            return None
        w = np.array([d.get(v, 0) for v in G.nodes], dtype=np.float64)
        if name == "personalization" and w.sum() == 0:
            raise ZeroDivisionError
        return w

    from .._adjacency import ConvergenceError

    try:
        ranks = _pagerank(W, damping=alpha, tol=n * tol, max_iter=max_iter,
                          personalization=per_vertex(personalization, "personalization"),
                          nstart=per_vertex(nstart, "nstart"), dangling=per_vertex(dangling, "dangling"))
    except ConvergenceError as e:
        raise nx.PowerIterationFailedConvergence(max_iter) from e
    return dict(zip(G.nodes, np.asarray(ranks).tolist()))


def _components_of(G, connection):
    """The components as sets of nodes, in the order of their least vertex (their first node)."""
    count, labels = _components(G.structure(), connection=connection)
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    nodes = G.node_array()
    for part in np.split(order, cuts) if labels.shape[0] else ():
        yield set(nodes[part].tolist())


def connected_components(G):
    """networkx's ``connected_components``: a generator of sets of nodes."""
    return _components_of(G, "weak")


def number_connected_components(G):
    """networkx's ``number_connected_components``."""
    return _components(G.structure(), connection="weak")[0]


def is_connected(G):
    """networkx's ``is_connected`` (undirected graphs)."""
    return _one_component(G, "weak")


def weakly_connected_components(G):
    """networkx's ``weakly_connected_components`` (directed graphs): a generator of sets."""
    return _components_of(G, "weak")


def number_weakly_connected_components(G):
    """networkx's ``number_weakly_connected_components``."""
    return _components(G.structure(), connection="weak")[0]


def is_weakly_connected(G):
    """networkx's ``is_weakly_connected`` (directed graphs)."""
    return _one_component(G, "weak")


def is_strongly_connected(G):
    """networkx's ``is_strongly_connected`` (directed graphs)."""
    return _one_component(G, "strong")


def _one_component(G, connection):
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _components(G.structure(), connection=connection)[0] == 1


def strongly_connected_components(G):
    """networkx's ``strongly_connected_components``: a generator of sets of nodes."""
    return _components_of(G, "strong")


def number_strongly_connected_components(G):
    """networkx's ``number_strongly_connected_components``."""
    return _components(G.structure(), connection="strong")[0]


def triangles(G, nodes=None):
    """networkx's ``triangles``: {node: triangles at it}, or one node's count."""
    counts = np.asarray(triangle_count(G.structure(), per_vertex=True)).tolist() if len(G) else []
    if nodes is not None and nodes in G:
        return counts[G.index[nodes]]
    if nodes is None:
        return dict(zip(G.nodes, counts))
    return {v: counts[G.index[v]] for v in nodes if v in G}


#: the functions served, with the arguments that send a call back to networkx (``can_run``)
SERVED = {
    "bfs_edges": {"sort_neighbors": "a Python function of each neighbour list"},
    "single_source_shortest_path_length": {},
    "shortest_path_length": {},
    "single_source_dijkstra_path_length": {},
    "dijkstra_path_length": {},
    "all_pairs_shortest_path_length": {},
    "all_pairs_dijkstra_path_length": {},
    "single_source_bellman_ford_path_length": {},
    "bellman_ford_path_length": {},
    "pagerank": {},
    "connected_components": {},
    "number_connected_components": {},
    "is_connected": {},
    "weakly_connected_components": {},
    "number_weakly_connected_components": {},
    "is_weakly_connected": {},
    "strongly_connected_components": {},
    "number_strongly_connected_components": {},
    "is_strongly_connected": {},
    "triangles": {},
}
