"""networkx interop: ``to_networkx(A)`` / ``from_networkx(G)`` (also ``sparray.graph.to_networkx`` /
``from_networkx``), weights kept.

networkx is imported only when these functions run, and is an optional extra
(``pip install 'sparray[graph]'``), never a dependency of sparray.

The reading is ``sparray.graph``'s (docs/graphs.md): **the stored elements are the edges**. An
explicit zero is an edge of weight 0; the fill, defined or not, is never an edge (a graph with a
non-zero fill would be complete). ``from_networkx`` gives the unspecified elements the fill
``sparray.undefined`` by default (no edge is not an edge of weight 0), or the ``fill_value`` asked
for (0.0 gives networkx's own ``to_scipy_sparse_array``).

Parameters follow ``networkx.to_scipy_sparse_array``: ``nodelist`` (the order of the rows and
columns; default ``list(G)``), ``dtype``, ``weight`` (the edge attribute holding the value, an
edge without it weighing 1; None: every edge 1, and the result is an iso array, one value kept).

>>> import networkx as nx, sparray
>>> from sparray.interop.networkx import from_networkx, to_networkx
>>> G = nx.DiGraph([("a", "b", {"weight": 2.0}), ("b", "c", {"weight": 0.0})])
>>> A = from_networkx(G)
>>> A.nse, A.fill_is_defined, A.to_dense(fill_value=-1).tolist()
(2, False, [[-1.0, 2.0, -1.0], [-1.0, -1.0, 0.0], [-1.0, -1.0, -1.0]])
>>> sorted(to_networkx(A, nodelist=list(G)).edges(data="weight"))
[('a', 'b', 2.0), ('b', 'c', 0.0)]
"""

from __future__ import annotations

import numpy as np

from .._core.fill import same_value, undefined
from .._core.iso import iso_element, iso_values
from .._core.namespace import backend_kind, to_numpy

__all__ = ["from_networkx", "to_networkx"]


def _nx(who):
    try:
        import networkx
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"{who} needs networkx (pip install 'sparray[graph]')") from e
    return networkx


def from_networkx(G, nodelist=None, dtype=None, weight="weight", layout="csr", *, fill_value=undefined):
    """The adjacency matrix of the networkx graph ``G`` as a sparray array.

    Invariants of the result ``A`` (``n = len(nodelist)``): shape ``(n, n)``; A stores an element
    (i, j) exactly where G has an edge from ``nodelist[i]`` to ``nodelist[j]`` (edges to nodes
    outside ``nodelist`` are left out), its value the edge's ``weight`` attribute (1 when the edge
    has none); an undirected G stores both (i, j) and (j, i), a self-loop once; a multigraph's
    parallel edges are summed (networkx's ``to_scipy_sparse_array`` rules). ``weight=None``: every
    value 1, kept once (an iso array, ``sparray.graph.is_iso``) unless parallel edges add up.
    ``dtype``: the values' dtype (default: NumPy's for the weights, int64 for ``weight=None``;
    float64 when G has no edge). ``layout``: "csr" (default), "csc" or "coo" (coalesced; for BSR/BSC
    convert the result, with a defined fill). ``fill_value``: the value of the
    unspecified elements, default ``sparray.undefined`` (no edge).

    Raises TypeError for a non-graph and ValueError for a ``nodelist`` with a node not in G or
    twice.

    >>> import networkx as nx
    >>> A = from_networkx(nx.path_graph(3), weight=None)
    >>> A.to_dense(fill_value=0).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    who = "from_networkx"
    nx = _nx(who)
    if not isinstance(G, nx.Graph):
        raise TypeError(f"{who}: expected a networkx graph; got {type(G).__module__}.{type(G).__name__}")
    if layout not in ("coo", "csr", "csc"):
        raise ValueError(f"{who}: layout must be 'csr', 'csc' or 'coo'; got {layout!r} (convert the result for blocks)")
    nodes = list(G) if nodelist is None else list(nodelist)
    index = {}
    for i, node in enumerate(nodes):
        if node not in G:
            raise ValueError(f"{who}: node {node!r} of nodelist is not in G")
        if node in index:
            raise ValueError(f"{who}: nodelist holds node {node!r} twice")
        index[node] = i
    n = len(nodes)
    H = G if nodelist is None or n == len(G) else G.subgraph(nodes)
    if weight is None:
        pairs = [(index[u], index[v]) for u, v in H.edges()]
        data = None
    else:
        triples = [(index[u], index[v], w) for u, v, w in H.edges(data=weight, default=1)]
        pairs = [(i, j) for i, j, _ in triples]
        data = [w for _, _, w in triples]
    rows = np.fromiter((p[0] for p in pairs), np.int64, len(pairs))
    cols = np.fromiter((p[1] for p in pairs), np.int64, len(pairs))
    if data is None:
        vdtype = np.dtype(np.int64 if dtype is None else dtype)
        values = None
    else:
        values = np.asarray(data, dtype=dtype) if data else np.zeros(0, np.float64 if dtype is None else dtype)
        vdtype = values.dtype
    if not H.is_directed():  # both directions; a self-loop once
        off = rows != cols
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        if values is not None:
            values = np.concatenate([values, values[off]])
    from .._array.coo import COO

    nse = int(rows.shape[0])
    iso = values is None and not H.is_multigraph()
    if values is None:
        values = np.ones(nse, vdtype) if not iso else iso_values(np, np.ones(1, vdtype), (nse,))
    A = COO(np.stack([rows, cols]), values, shape=(n, n), fill_value=0)
    if iso:  # the positions are unique: a simple graph; only the pattern is sorted
        order = np.lexsort((cols, rows))
        A = COO(np.stack([rows[order], cols[order]]), values, shape=(n, n), fill_value=0, is_coalesced=True)
    else:
        A = A.coalesce()  # parallel edges of a multigraph summed
    A = A if layout == "coo" else A.to_layout(layout)
    return A._replace_values(A._values, _fill(A, fill_value, who))


def _fill(A, fill_value, who):
    from .._core.fill import normalize_fill

    xp = A._xp
    if fill_value is undefined:
        return xp.empty((0,), dtype=A.dtype)
    return normalize_fill(xp, fill_value, A.dtype, A.dense_shape, who)


def to_networkx(A, *, directed=True, weight="weight", nodelist=None):
    """The graph whose edges are the stored elements of the square matrix ``A``.

    Invariants of the result ``G``: ``G.nodes`` are ``nodelist`` (default ``range(n)``), every one of
    them, isolated ones too, in that order; G has an edge from ``nodelist[i]`` to ``nodelist[j]``
    exactly where A stores (i, j), its ``weight`` attribute the stored value as a Python scalar
    (``weight=None``: no attribute). The fill, defined or not, is not read (module docstring). An
    uncoalesced COO's duplicates are summed first.

    ``directed``: True (default) gives a ``networkx.DiGraph``; False a ``networkx.Graph``, which needs
    A's two triangles to agree: where both (i, j) and (j, i) are stored their values must be equal
    (nan equal to nan), else ValueError naming the first pair (symmetrise first:
    ``sparray.graph.ewise_add(A, A.mT, "max")``); an entry stored on one side alone is the edge.

    Raises TypeError for a non-SparseArray, ValueError for a matrix that is not square or has dense
    dims, a ``nodelist`` of the wrong length or with repeats, and data on a GPU.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [1, 2]], [2.0, 5.0], shape=(3, 3))
    >>> G = to_networkx(A)
    >>> list(G.nodes), list(G.edges(data="weight"))
    ([0, 1, 2], [(0, 1, 2.0), (1, 2, 5.0)])
    """
    from .._array.base import SparseArray

    who = "to_networkx"
    nx = _nx(who)
    if not isinstance(A, SparseArray):
        raise TypeError(f"{who}: expected a sparray SparseArray; got {type(A).__module__}.{type(A).__name__}")
    if A.layout == "2:4":
        A = A.as_hub()
    if A.ndim != 2 or A.dense_ndim or A.shape[0] != A.shape[1]:
        raise ValueError(f"{who}: an adjacency matrix is square and 2-d without dense dims; got shape {A.shape} "
                         f"(dense_ndim {A.dense_ndim})")
    if backend_kind(A._xp) == "cupy":
        raise ValueError(f"{who}: networkx runs on the host and this array is on {A.device}; move it first with "
                         "A.to_device('cpu')")
    n = A.shape[0]
    nodes = list(range(n)) if nodelist is None else list(nodelist)
    if len(nodes) != n:
        raise ValueError(f"{who}: nodelist has {len(nodes)} nodes; A has {n} rows")
    if len(set(nodes)) != n:
        raise ValueError(f"{who}: nodelist holds a node twice")
    xp = A._xp
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))  # a stand-in fill: never read
    B = (B if B.layout == "coo" else B.to_layout("coo")).coalesce()
    rows, cols = (to_numpy(B._indices[d]).tolist() for d in (0, 1))
    one = iso_element(B._values)
    if one is not None:
        values = [to_numpy(one).reshape(()).item()] * len(rows)
    else:
        values = to_numpy(B._values).tolist()
    if not directed:
        _check_symmetric(who, B, rows, cols)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(nodes)
    if weight is None:
        G.add_edges_from((nodes[i], nodes[j]) for i, j in zip(rows, cols))
    else:
        G.add_edges_from((nodes[i], nodes[j], {weight: w}) for i, j, w in zip(rows, cols, values))
    return G


def _check_symmetric(who, B, rows, cols):
    """ValueError where both (i, j) and (j, i) are stored with different values."""
    idx = to_numpy(B._indices)
    n = B.shape[0]
    keys = idx[0] * n + idx[1]
    tkeys = idx[1] * n + idx[0]
    if keys.shape[0] == 0:
        return
    pos = np.clip(np.searchsorted(keys, tkeys), 0, keys.shape[0] - 1)
    both = keys[pos] == tkeys
    if not both.any():
        return
    values = to_numpy(B._values)
    mine, theirs = values[both], values[pos[both]]
    same = np.asarray(same_value(np, mine, theirs, signed_zeros=False))
    if not np.all(same):
        k = int(np.flatnonzero(both)[np.flatnonzero(~same)[0]])
        i, j = rows[k], cols[k]
        raise ValueError(f"{who}: directed=False needs a symmetric matrix, but A[{i}, {j}] = {values[k].item()!r} and "
                         f"A[{j}, {i}] = {values[pos[k]].item()!r}; symmetrise first (sparray.graph.ewise_add(A, A.mT, "
                         "'max')) or pass directed=True")
