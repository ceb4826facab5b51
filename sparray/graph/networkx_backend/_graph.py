"""The graph networkx's dispatcher hands sparray's backend: a networkx graph read once into arrays.

:func:`convert_from_nx` reads a ``networkx.Graph``/``DiGraph``/``MultiGraph``/``MultiDiGraph`` into
a :class:`NxArrays`: the node list (the row and column order), each vertex's neighbour list *in
networkx's order* (``G._adj[u]``'s keys; for a directed graph also ``G._pred[u]``'s), and the
edge attributes the called function reads, one value per edge (a multigraph's parallel edges
each). Everything else is derived on demand and kept: the adjacency matrices the algorithms take
(``CSR``, undefined fill, columns sorted), parallel edges reduced as the networkx function being
served reduces them (``"min"`` for shortest paths, ``"sum"`` for PageRank, networkx's
``to_scipy_sparse_array`` rule).

>>> import networkx as nx
>>> H = convert_from_nx(nx.DiGraph([("a", "b"), ("a", "c"), ("c", "a")]), edge_attrs=None)
>>> H.nodes, H.succ_indices.tolist(), H.pred_indices.tolist()
(['a', 'b', 'c'], [1, 2, 0], [2, 0, 0])
"""

from __future__ import annotations

from itertools import chain
from operator import methodcaller

import numpy as np

__all__ = ["NxArrays", "convert_from_nx", "convert_to_nx"]


class NxArrays:
    """A networkx graph as arrays (``__networkx_backend__ = "sparray"``).

    Invariants: ``nodes[i]`` is vertex i (networkx's iteration order); ``succ_indptr``/``succ_indices``
    list each vertex's neighbours (successors) in ``G._adj``'s order, a neighbour once however
    many parallel edges lead there; ``pred_*`` the same for ``G._pred`` (directed graphs; for an
    undirected graph the successors); ``edge_values[attr]`` holds one value per parallel edge,
    ``edge_slot`` the adjacency entry (index into ``succ_indices``) each belongs to, non-decreasing.
    """

    __networkx_backend__ = "sparray"

    def __init__(self, nodes, index, directed, multigraph, succ, pred, edge_slot, edge_values, graph_attrs):
        self.nodes = nodes
        self.index = index
        self.directed = directed
        self.multigraph = multigraph
        self.succ_indptr, self.succ_indices = succ
        self.pred_indptr, self.pred_indices = pred
        self.edge_slot = edge_slot
        self.edge_values = edge_values
        self.graph = graph_attrs
        self._kept = {}

    # the parts of networkx's graph interface its decorators and dispatcher read
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # an unhashable "node" (networkx's answer too)
            return False

    def __repr__(self):
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<sparray networkx backend {kind}: {len(self.nodes)} nodes, {self.succ_indices.shape[0]} neighbour entries>"

    def node_array(self):
        """The nodes as a 1-d object array (for fancy indexing), kept."""
        if "nodes" not in self._kept:
            self._kept["nodes"] = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._kept["nodes"]

    def structure(self, reverse=False):
        """The adjacency matrix (pred's when ``reverse`` on a directed graph), every edge True."""
        return self._matrix(("structure", reverse), reverse, lambda slots: np.ones(slots.shape[0], np.bool_))

    def positions(self, reverse=False):
        """The adjacency matrix whose value at (u, v) is v's position in u's neighbour list (int64)."""
        def values(slots):
            indptr = self.pred_indptr if reverse and self.directed else self.succ_indptr
            rows = np.repeat(np.arange(len(self.nodes), dtype=np.int64), np.diff(indptr))
            return slots - indptr[rows]

        return self._matrix(("positions", reverse), reverse, values)

    def weights(self, attr, reduce, default=1):
        """The adjacency matrix of edge attribute ``attr`` (None: every edge 1), parallel edges
        reduced by ``reduce`` ("min" or "sum"); networkx's default of 1 where an edge lacks it."""
        def make():
            if attr is None:
                per_edge = np.ones(self.edge_slot.shape[0], np.int64)
            elif attr in self.edge_values:
                per_edge = self.edge_values[attr]
            else:
                raise NotImplementedError(f"sparray's networkx backend: edge attribute {attr!r} was not converted")
            return self._reduced(per_edge, reduce)

        key = ("weights", attr, reduce)
        if key not in self._kept:
            values = make()
            self._kept[key] = _csr(len(self.nodes), self.succ_indptr, self.succ_indices, values)
        return self._kept[key]

    def _reduced(self, per_edge, reduce):
        if not self.multigraph or per_edge.shape[0] == 0:
            return per_edge
        # every neighbour entry has one edge or more, and edge_slot is sorted: segments start where it changes
        starts = np.flatnonzero(np.r_[True, self.edge_slot[1:] != self.edge_slot[:-1]])
        op = np.minimum if reduce == "min" else np.add
        return op.reduceat(per_edge, starts)

    def _matrix(self, key, reverse, values_of):
        if key not in self._kept:
            if reverse and self.directed:
                indptr, indices = self.pred_indptr, self.pred_indices
            else:
                indptr, indices = self.succ_indptr, self.succ_indices
            slots = np.arange(indices.shape[0], dtype=np.int64)
            self._kept[key] = _csr(len(self.nodes), indptr, indices, values_of(slots))
        return self._kept[key]


def _csr(n, indptr, indices, values):
    """sparray CSR (undefined fill) of rows given in neighbour-list order: columns sorted per row."""
    from ..._array.compressed import CSR
    from ..._core.fill import undefined

    values = np.asarray(values)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    key = rows * max(n, 1) + indices
    if key.shape[0] > 1 and not bool(np.all(key[1:] > key[:-1])):  # networkx's lists are often sorted already
        order = np.argsort(key, kind="stable")
        indices, values = indices[order], values[order]
    return CSR(indptr, indices, values, shape=(n, n), fill_value=undefined)


def _adjacency_lists(lists, index, n, nodes_are_range):
    """(indptr, indices) of the neighbour lists ``lists`` (networkx's ``G._adj`` or ``G._pred``
    dicts, one per node in node order), iterated in C (``chain``/``map``): no Python bytecode per edge."""
    counts = np.fromiter(map(len, lists), np.int64, n)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    neighbours = chain.from_iterable(lists)
    if not nodes_are_range:
        neighbours = map(index.__getitem__, neighbours)
    return indptr, np.fromiter(neighbours, np.int64, int(indptr[-1]))


def _edge_values(G, lists, attrs):
    """(edge_slot, {attr: values}) over every edge in neighbour-list order (parallel edges each);
    ``lists``: ``G._adj``'s dicts in node order. edge_slot None for a simple graph (the identity)."""
    if G.is_multigraph():
        per_slot = np.fromiter(map(len, chain.from_iterable(nbrs.values() for nbrs in lists)), np.int64)
        slot = np.repeat(np.arange(per_slot.shape[0], dtype=np.int64), per_slot)

        def datas():
            return chain.from_iterable(keyed.values() for nbrs in lists for keyed in nbrs.values())
    else:
        slot = None

        def datas():
            return chain.from_iterable(nbrs.values() for nbrs in lists)
    values = {}
    for attr, default in attrs.items():
        column = list(map(methodcaller("get", attr, default), datas()))
        arr = np.asarray(column) if column else np.zeros(0, np.float64)
        if arr.dtype.kind not in "biuf" or arr.ndim != 1:
            raise NotImplementedError(f"sparray's networkx backend: edge attribute {attr!r} must hold real numbers; "
                                      f"got {arr.dtype} values")
        values[attr] = arr
    return slot, values


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """``NxArrays`` of the networkx graph G (networkx's ``convert_from_nx`` protocol).

    ``edge_attrs``: {attribute: default} to convert (the weights a function reads), or None.
    ``preserve_edge_attrs`` (every attribute, for functions given a weight *function*) is not
    supported: NotImplementedError, which networkx answers by falling back or trying the next
    backend. Node attributes are not read by the functions served.
    """
    if isinstance(G, NxArrays):
        return G
    if preserve_edge_attrs:
        raise NotImplementedError("sparray's networkx backend converts named numeric edge attributes only (a weight "
                                  "function is not supported)")
    nodes = list(G)
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    # nodes 0, 1, ..., n-1 in order (generated and scipy-made graphs): a neighbour is its own number
    nodes_are_range = all(type(v) is int for v in nodes) and nodes == list(range(n))
    succ_lists = list(map(G._adj.__getitem__, nodes))
    succ = _adjacency_lists(succ_lists, index, n, nodes_are_range)
    pred = _adjacency_lists(list(map(G._pred.__getitem__, nodes)), index, n, nodes_are_range) if G.is_directed() else succ
    if isinstance(edge_attrs, str):
        edge_attrs = {edge_attrs: 1}
    attrs = {k: (1 if v is None else v) for k, v in (edge_attrs or {}).items()}
    slot, values = _edge_values(G, succ_lists, attrs)
    if slot is None:  # a simple graph: one edge per neighbour entry
        slot = np.arange(succ[1].shape[0], dtype=np.int64)
    graph_attrs = dict(G.graph) if preserve_graph_attrs else {}
    return NxArrays(nodes, index, G.is_directed(), G.is_multigraph(), succ, pred, slot, values, graph_attrs)


def convert_to_nx(obj, *, name=None):
    """networkx's objects of a backend result: an ``NxArrays`` becomes a networkx graph (its
    neighbour lists' order, the converted attributes); anything else is returned as it is."""
    if not isinstance(obj, NxArrays):
        return obj
    import networkx as nx

    H = obj
    G = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
         (True, True): nx.MultiDiGraph}[(H.directed, H.multigraph)]()
    G.graph.update(H.graph)
    G.add_nodes_from(H.nodes)
    rows = np.repeat(np.arange(len(H.nodes), dtype=np.int64), np.diff(H.succ_indptr))
    src, dst = rows[H.edge_slot].tolist(), H.succ_indices[H.edge_slot].tolist()
    columns = {a: v.tolist() for a, v in H.edge_values.items()}
    for e, (i, j) in enumerate(zip(src, dst)):
        if H.directed or i <= j:  # an undirected edge is listed at both ends
            G.add_edge(H.nodes[i], H.nodes[j], **{a: columns[a][e] for a in columns})
    return G
