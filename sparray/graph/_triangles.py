"""Triangle counting of an undirected graph: the Sandia "LL" method, one masked SpGEMM.

With L the strictly lower triangle of the (symmetric) adjacency matrix, each triangle
``i > k > j`` is one product ``L(i, k) * L(k, j)`` that lands on an edge ``L(i, j)``: the count
is ``sum((L plus.pair L)<L>)`` (Wolf, Deveci, Berry, Hammond and Rajamanickam, HPEC 2017: "Fast
linear algebra-based triangle counting with KokkosKernels"; LAGraph's ``LAGr_TriangleCount``
offers it beside its Sandia_LUT default). The mask restricts every row of the product to the
edges of that row, which the kernel uses to skip everything else (masked Gustavson), and no
transpose is needed. The vertices are first renumbered by increasing degree (LAGraph's presort):
row k of L is then read once for each of k's neighbours numbered above it, so a hub, numbered
last, is read a few times instead of once per neighbour (on an R-MAT graph the difference between
seconds and milliseconds). L is built from the symmetrized graph (A itself when A is
structurally symmetric), so a non-symmetric A counts as the undirected graph of its edges.

>>> import numpy as np, sparray
>>> K4 = sparray.asarray(np.ones((4, 4)) - np.eye(4), layout="csr")   # 4 triangles
>>> triangle_count(K4), triangle_count(K4, per_vertex=True).tolist()
(4, [3, 3, 3, 3])

Per vertex (``per_vertex=True``, networkx's ``triangles``) a second masked product attributes
each triangle's middle vertex: with ``i > k > j``, ``C = (L plus.pair L)<L>`` holds it at
``C(i, j)`` (its largest and least vertices: C's row and column sums), and ``M = (L plus.pair
L.T)<L>`` at ``M(i, k)`` (its middle: M's column sums).
"""

from __future__ import annotations

from .._engine import dispatch as _dispatch
from ._adjacency import graph_of, new_info, read_host
from ._bfs import symmetrized
from ._parts import csr_result
from ._products import matmul
from ._reduce import reduce
from ._select import select

__all__ = ["triangle_count"]


def triangle_count(A, *, per_vertex=False, info=None):
    """The number of triangles of the undirected graph of A (per vertex on request).

    Parameters
    ----------
    A : the adjacency matrix, any layout and fill (``sparray.graph.as_graph`` says which elements
        are edges); the graph is undirected: {i, j} is an edge when A[i, j] or A[j, i] is one
        (a symmetric A is the usual form). Self-loops and weights are ignored.
    per_vertex : False (default): the total; True: the number of triangles each vertex is in,
        int64 on A's device, shape (n,) (networkx's ``triangles``; they sum to 3 times the total).
    info : a dict to fill: ``iterations`` (1), ``edges`` (undirected edges, self-loops apart),
        ``wedges_closed`` (the entries of the masked product: edges in at least one triangle).

    Returns the count as a Python int (one read from the device), or the per-vertex counts.
    """
    G = graph_of(A, "triangle_count")
    info = new_info(info, "triangle_count", iterations=0)
    L, rank = G.kept("triangle L", lambda: _lower(G))
    C = matmul(L, L, "plus_pair", mask=L)
    info.update(iterations=1, edges=int(L.nse), wedges_closed=int(C.nse))
    if per_vertex:
        return _per_vertex(G, L, C, rank, info)
    if C.nse == 0:
        return 0
    xp = G.xp
    # the plus monoid over C's entries: their sum, read once (a 0-d reduce would read its presence too)
    (count,) = read_host(xp, xp.sum(xp.astype(C.values, xp.int64)))
    return int(count)


def _per_vertex(G, L, C, rank, info):
    """Triangles at each vertex: C's row and column sums plus the middle vertices' (module docstring)."""
    xp, n = G.xp, G.n
    i64 = xp.int64
    M = matmul(L, L.mT, "plus_pair", mask=L)
    info["iterations"] = 2
    counts = xp.zeros((n,), dtype=i64, device=G.device)
    for T, axis in ((C, 1), (C, 0), (M, 0)):
        s = reduce(T, "plus", axis=axis)
        idx, vals = s.indices[0], xp.astype(s.values, i64)
        counts[idx] = counts[idx] + vals  # a reduce's indices are unique
    return xp.take(counts, rank)  # back from the degree order to A's


def _lower(G):
    """(the strictly lower CSR of the undirected graph of G, vertices renumbered by degree; the
    new number of each vertex).

    Three linear passes over the symmetric graph S, no sort of the entries: S's rows taken in
    the new order with their columns renumbered (rows of ``P S P.T``, columns unsorted), a
    transpose (a stable counting sort: each row's columns come out increasing; the transpose of
    the symmetric ``P S P.T`` is itself), and ``select(tril, -1)``."""
    S = symmetrized(G, "any")
    xp, n, dev = G.xp, G.n, G.device
    i64 = xp.int64
    order = xp.argsort(S.out_degree(), stable=True)
    rank = xp.zeros((n,), dtype=i64, device=dev)
    rank[order] = xp.arange(n, dtype=i64, device=dev)
    idt = S.crow.dtype
    new_col = xp.astype(xp.take(rank, xp.astype(S.col, i64)), idt)
    flags = xp.ones((S.nse,), dtype=xp.bool, device=dev)
    work = S.nse + n
    crow_b, col_b, flags_b = _dispatch.call("take_major", "csr", xp, S.crow, new_col, flags, order, work=work)
    crow_t, col_t, flags_t = _dispatch.call("transpose_compressed", "csr", xp, xp.astype(crow_b, idt), col_b,
                                            xp.reshape(flags_b, (-1, 1)), 1, n, n, idt, work=work)
    L = csr_result(xp, crow_t, col_t, xp.reshape(flags_t, (-1,)), (n, n))
    return select(L, "tril", -1), rank  # self-loops go
