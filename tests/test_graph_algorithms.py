"""sparray.graph's algorithms (bfs, sssp, pagerank, connected_components, triangle_count) against
scipy.sparse.csgraph, networkx (when installed) and small NumPy references, on random graphs:
R-MAT (Graph500's parameters: duplicate edges and self-loops as generated, in an uncoalesced COO),
Erdos-Renyi, grids with and without weights, disconnected graphs; every layout with an undefined
fill and with fills 0, inf and nan standing for "no edge"; the numba kernels and the generic path;
the simulated device with its reads counted (the algorithm's own: at most one per iteration).

Graphs are small (tens to a few hundred vertices): the file runs in seconds.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
import scipy.sparse as ss
from cuda_testing import requires_gxx
from scipy.sparse import csgraph

import sparray as sp
from graph_testing import er_edges, grid_edges, rmat_edges
from sparray.kernels.cuda import simulated

g = sp.graph
U = sp.undefined
INF, NAN = math.inf, math.nan


# --- graphs -----------------------------------------------------------------------------------------------
def disconnected_edges(rng):
    """Two Erdos-Renyi blocks, a directed chain, isolated vertices and self-loops."""
    n1, r1, c1 = er_edges(rng, 15, 0.2)
    n2, r2, c2 = er_edges(rng, 12, 0.25)
    chain = np.arange(n1 + n2, n1 + n2 + 6)
    r = np.concatenate([r1, r2 + n1, chain[:-1], [3, 20]])
    c = np.concatenate([c1, c2 + n1, chain[1:], [3, 20]])
    return n1 + n2 + 10, r, c


def graph(kind, seed, weighted=True):
    """(n, rows, cols, weights): edges with repeats allowed; weights >= 0.25 (sums never 0)."""
    rng = np.random.default_rng(seed)
    n, r, c = {
        "rmat": lambda: rmat_edges(rng, 6),
        "er": lambda: er_edges(rng, 40, 0.08),
        "grid": lambda: grid_edges(5, 7),
        "disconnected": lambda: disconnected_edges(rng),
    }[kind]()
    w = (rng.integers(1, 9, r.shape[0]) / 4.0) if weighted else np.ones(r.shape[0])
    return n, r, c, w


def reference(n, r, c, w):
    """The scipy CSR csgraph reads: repeated edges summed, every stored entry an edge."""
    return ss.coo_matrix((w, (r, c)), shape=(n, n)).tocsr()


def as_sparray(n, r, c, w, layout, fill):
    """The graph as a sparray array of ``layout`` with ``fill`` at the non-edges (COO: uncoalesced)."""
    if layout == "coo":
        return sp.COO(np.stack([r, c]), w, shape=(n, n), fill_value=fill)
    if layout in ("bsr", "bsc"):  # from a dense matrix: the blocks' padding elements hold the fill
        assert fill is not U and n % 2 == 0
        dense = np.full((n, n), fill)
        W = reference(n, r, c, w)
        dense[W.nonzero()] = W.data
        return sp.asarray(dense, layout=layout, blocksize=(2, 2), fill_value=fill)
    return sp.COO(np.stack([r, c]), w, shape=(n, n), fill_value=fill).to_layout(layout)


KINDS = ["rmat", "er", "grid", "disconnected"]
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
FILLS = [U, 0.0, INF, NAN]
CASES = [(layout, fill) for layout in LAYOUTS for fill in FILLS if not (layout in ("bsr", "bsc") and fill is U)]


def _fill_id(f):
    return "undefined" if f is U else "fillnan" if isinstance(f, float) and math.isnan(f) else f"fill{f}"


def levels_of(W, s, directed=True):
    d = csgraph.shortest_path(W, unweighted=True, indices=s, directed=directed)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def canonical(labels):
    """Component labels renumbered by their least vertex (sparray's numbering)."""
    labels = np.asarray(labels)
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first)
    rank = np.empty(order.shape[0], np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank[np.searchsorted(np.unique(labels), labels)]


def pagerank_ref(W, damping=0.85, tol=1e-12, max_iter=1000, p=None, start=None, dangling=None):
    """networkx's power iteration (``_pagerank_scipy``) in NumPy, to a tight tolerance."""
    M = W.toarray()
    n = M.shape[0]
    s = M.sum(axis=1)
    P = np.where(s[:, None] > 0, M / np.where(s > 0, s, 1)[:, None], 0.0)
    p = np.full(n, 1.0 / n) if p is None else p / p.sum()
    d = p if dangling is None else dangling / dangling.sum()
    x = np.full(n, 1.0 / n) if start is None else start / start.sum()
    for _ in range(max_iter):
        new = damping * (x @ P + x[s == 0].sum() * d) + (1 - damping) * p
        if np.abs(new - x).sum() < tol:
            return new
        x = new
    return x


def triangles_ref(W, per_vertex=False):
    S = ((W + W.T) != 0).astype(np.int64).tolil()
    S.setdiag(0)
    S = S.tocsr()
    S.eliminate_zeros()
    if per_vertex:
        return np.asarray((S @ S).multiply(S).sum(axis=1)).ravel() // 2
    return int((S @ S).multiply(S).sum()) // 6


def has_edges(W, src, dst):
    """Whether every i -> j of the pairs (src, dst) is an edge of the scipy CSR W."""
    return bool((W.toarray()[np.asarray(src), np.asarray(dst)] != 0).all())


def _even(n, r, c, w):
    """The graph with one isolated vertex more when n is odd (blocked layouts need even n)."""
    return (n + (n % 2), r, c, w)


# --- every layout and fill, against scipy.csgraph ----------------------------------------------------------
@pytest.mark.parametrize(("layout", "fill"), CASES, ids=[f"{lay}-{_fill_id(f)}" for lay, f in CASES])
def test_algorithms_every_layout_and_fill(layout, fill):
    for seed, kind in enumerate(KINDS):
        n, r, c, w = _even(*graph(kind, seed + 10 * LAYOUTS.index(layout)))
        W = reference(n, r, c, w)
        A = as_sparray(n, r, c, w, layout, fill)
        s = int(np.argmax(np.diff(W.indptr)))
        np.testing.assert_array_equal(g.bfs(A, s), levels_of(W, s), err_msg=f"bfs {kind}")
        np.testing.assert_allclose(g.sssp(A, s), csgraph.dijkstra(W, indices=s), err_msg=f"sssp {kind}")
        for connection in ("weak", "strong"):
            k, labels = g.connected_components(A, connection=connection)
            kw, lw = csgraph.connected_components(W, connection=connection)
            assert k == kw, (kind, connection)
            np.testing.assert_array_equal(labels, canonical(lw), err_msg=f"{connection} {kind}")
        np.testing.assert_allclose(g.pagerank(A, tol=1e-12, max_iter=1000), pagerank_ref(W), atol=1e-9)
        assert g.triangle_count(A) == triangles_ref(W), kind


# --- each algorithm in depth (CSR / COO inputs, numba kernels and the generic path) --------------------------
@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_bfs_levels_parents_batches(backend):
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS):
            n, r, c, w = graph(kind, 100 + seed, weighted=False)
            W = reference(n, r, c, w)
            A = as_sparray(n, r, c, w, "csr", U)
            sources = np.array([0, n - 1, n // 2, 0])
            for s in sources[:3]:
                info = {}
                levels, parents = g.bfs(A, int(s), return_parents=True, info=info)
                want = levels_of(W, s)
                np.testing.assert_array_equal(levels, want)
                reached = want >= 0
                assert parents[s] == s and (parents[~reached] == -1).all()
                child = np.flatnonzero(reached & (want > 0))
                assert (want[parents[child]] == want[child] - 1).all()  # a parent one level up ...
                assert has_edges(W, parents[child], child)  # ... joined by an edge
                assert info["iterations"] == len(info["frontier_sizes"])  # the last level found nothing
                assert sum(info["frontier_sizes"]) == reached.sum()
                assert len(info["directions"]) == info["iterations"]
                np.testing.assert_array_equal(g.bfs(A, int(s), directed=False), levels_of(W, s, directed=False))
            info = {}
            levels, parents = g.bfs(A, sources, return_parents=True, info=info)
            assert levels.shape == parents.shape == (4, n)
            for row, s in enumerate(sources):
                np.testing.assert_array_equal(levels[row], levels_of(W, s))
                child = np.flatnonzero(levels[row] > 0)
                assert (levels[row][parents[row][child]] == levels[row][child] - 1).all()
                assert has_edges(W, parents[row][child], child)
            assert sum(info["frontier_sizes"]) == (levels >= 0).sum()
            np.testing.assert_array_equal(g.bfs(A, sources[:0]), np.zeros((0, n), np.int64))
            assert g.sssp(A, []).shape == (0, n)


@pytest.mark.parametrize("kernels", ["chosen", "numba"])
@pytest.mark.parametrize("walk_edges", [0, 40, 1 << 15], ids=["no-walk", "walk-then-products", "walk"])
def test_push_pull_and_the_serial_walks(monkeypatch, walk_edges, kernels):
    """Push, pull and the CPU's serial walks of small frontiers (BFS levels, delta-stepping
    buckets), alone and handing over to each other; as the registry chooses (these graphs are
    small: the generic twins of the walks, unless their kernels ran here) and with the numba
    kernels forced, as SPARRAY_BACKEND=numba does."""
    from sparray._engine import dispatch as _dispatch
    from sparray.graph import _bfs

    monkeypatch.setattr(_bfs, "WALK_EDGES", walk_edges)
    if kernels == "numba":
        monkeypatch.setattr(_dispatch, "_ENV_FORCED", ("numba", 0))
    rng = np.random.default_rng(5)
    for n, p in ((300, 0.03), (200, 0.01)):
        n, r, c = er_edges(rng, n, p)
        W = reference(n, r, c, np.ones(r.shape[0]))
        A = sp.asarray(W)
        for s in (0, 7):
            info = {}
            np.testing.assert_array_equal(g.bfs(A, s, info=info), levels_of(W, s))
            assert info["iterations"] == len(info["directions"]) == len(info["frontier_sizes"])
            assert sum(info["frontier_sizes"]) == (levels_of(W, s) >= 0).sum()
            if walk_edges == 0 and p > 0.02:
                assert "pull" in info["directions"] and info["directions"][0] == "push", info["directions"]
            levels, parents = g.bfs(A, s, return_parents=True)
            child = np.flatnonzero(levels > 0)
            assert (levels[parents[child]] == levels[child] - 1).all() and has_edges(W, parents[child], child)
            k, labels = g.connected_components(A, connection="strong")
            assert k == csgraph.connected_components(W, connection="strong")[0]
            np.testing.assert_array_equal(g.connected_components(A)[1], canonical(csgraph.connected_components(W)[1]))
        Wr = W.copy()
        Wr.data = np.random.default_rng(n).integers(1, 9, Wr.nnz) / 4.0
        for delta in (None, 0.3, 1.0):
            info = {}
            np.testing.assert_allclose(g.sssp(sp.asarray(Wr), 3, delta=delta, info=info), csgraph.dijkstra(Wr, indices=3))
            assert info["iterations"] == len(info["frontier_sizes"]) + info["buckets"]


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_sssp_delta_stepping_bellman_ford_batches(backend):
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS):
            n, r, c, w = graph(kind, 200 + seed)
            W = reference(n, r, c, w)
            A = as_sparray(n, r, c, w, "coo", 0.0)
            for delta in (None, 0.1, 0.6, 100.0):
                info = {}
                got = g.sssp(A, 0, delta=delta, info=info)
                np.testing.assert_allclose(got, csgraph.dijkstra(W, indices=0))
                assert info["method"] == "delta-stepping" and info["buckets"] >= 1
                assert info["iterations"] == len(info["frontier_sizes"]) + info["buckets"]
            sources = [0, n - 1, 3]
            np.testing.assert_allclose(g.sssp(A, sources), csgraph.dijkstra(W, indices=sources))
            np.testing.assert_allclose(g.sssp(A, 1, directed=False), csgraph.dijkstra(W, indices=1, directed=False))
            # negative weights on a DAG (no cycle): Bellman-Ford
            keep = r < c
            Wn = reference(n, r[keep], c[keep], w[keep] - 1.1)
            An = as_sparray(n, r[keep], c[keep], w[keep] - 1.1, "csr", U)
            info = {}
            np.testing.assert_allclose(g.sssp(An, 0, info=info), csgraph.bellman_ford(Wn, indices=0))
            assert info["method"] == "bellman-ford" and info["iterations"] == len(info["frontier_sizes"])
            np.testing.assert_allclose(g.sssp(An, sources), csgraph.bellman_ford(Wn, indices=sources))


def test_sssp_zero_weight_edges_and_negative_cycles():
    # zero-weight edges: stored zeros of an undefined fill, or zeros beside an inf fill, are edges
    D = np.array([[INF, 0.0, 5.0, INF], [INF, INF, 0.0, INF], [INF, INF, INF, 1.0], [INF, INF, INF, INF]])
    want = [0.0, 0.0, 0.0, 1.0]
    np.testing.assert_allclose(g.sssp(sp.asarray(D, fill_value=INF, layout="csr"), 0), want)
    Z = ss.csr_matrix((np.array([0.0, 5.0, 0.0, 1.0]), np.array([1, 2, 2, 3]), np.array([0, 2, 3, 4, 4])), shape=(4, 4))
    np.testing.assert_allclose(csgraph.dijkstra(Z, indices=0), want)  # scipy reads explicit zeros the same way
    np.testing.assert_allclose(g.sssp(sp.asarray(sp.asarray(Z), fill_value=U), 0), want)
    # with a fill of 0 the zeros are non-edges (the array's values are the graph)
    np.testing.assert_allclose(g.sssp(sp.asarray(Z), 0), [0.0, INF, 5.0, 6.0])
    # a negative cycle reachable from the source
    C = sp.asarray(np.array([[0, 1.0, 0], [0, 0, -2.0], [0.5, 0, 0]]), layout="csr")
    with pytest.raises(g.NegativeCycleError, match="negative cycle"):
        g.sssp(C, 0)
    with pytest.raises(g.NegativeCycleError):
        g.sssp(C, [1, 2])
    with pytest.raises(ValueError, match="negative cycle"):  # a ValueError, as scipy's is
        g.sssp(C, 2)
    # ... and one that is not reachable: distances from 3 are defined
    C4 = np.zeros((4, 4))
    C4[:3, :3] = C.to_dense()
    np.testing.assert_allclose(g.sssp(sp.asarray(C4, layout="csr"), 3), [INF, INF, INF, 0.0])


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_components_weak_and_strong(backend):
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS + ["rmat", "er"]):
            n, r, c, w = graph(kind, 300 + seed, weighted=False)
            if kind == "er" and seed > 3:  # a sparser, more fragmented directed graph
                n, r, c = er_edges(np.random.default_rng(seed), 60, 0.03)
                w = np.ones(r.shape[0])
            W = reference(n, r, c, w)
            A = as_sparray(n, r, c, w, "csc", U)
            for connection in ("weak", "strong"):
                info = {}
                k, labels = g.connected_components(A, connection=connection, info=info)
                kw, lw = csgraph.connected_components(W, connection=connection)
                assert k == kw
                np.testing.assert_array_equal(labels, canonical(lw))
                assert info["iterations"] >= 1 and len(info["frontier_sizes"]) >= 1
                if connection == "strong":  # colouring rounds after the hub's component and the trimmed
                    assert isinstance(info["rounds"], int)  # vertices: none when they are all
    # a long directed chain of 2-cycles: one colouring round per component at worst, still exact
    m = 12
    r = np.concatenate([np.arange(0, 2 * m, 2), np.arange(1, 2 * m, 2), np.arange(1, 2 * m - 2, 2)])
    c = np.concatenate([np.arange(1, 2 * m, 2), np.arange(0, 2 * m, 2), np.arange(2, 2 * m - 1, 2)])
    W = reference(2 * m, r, c, np.ones(r.shape[0]))
    info = {}
    k, labels = g.connected_components(sp.asarray(W), connection="strong", info=info)
    assert k == m and info["rounds"] >= 1
    np.testing.assert_array_equal(labels, np.repeat(np.arange(m), 2))


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_pagerank_networkx_conventions(backend):
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS):
            for weighted in (True, False):
                n, r, c, w = graph(kind, 400 + seed)
                W = reference(n, r, c, w)
                A = as_sparray(n, r, c, w, "csr", U)
                info = {}
                got = g.pagerank(A, tol=1e-12, max_iter=1000, weighted=weighted, info=info)
                Wref = W if weighted else (W != 0).astype(np.float64)
                np.testing.assert_allclose(got, pagerank_ref(Wref), atol=1e-9)
                assert np.isclose(got.sum(), 1.0) and info["converged"]
                assert info["iterations"] == len(info["errors"]) and info["errors"][-1] < 1e-12
                for damping in (0.0, 0.5):
                    np.testing.assert_allclose(g.pagerank(A, damping=damping, tol=1e-12, max_iter=1000, weighted=weighted),
                                               pagerank_ref(Wref, damping=damping), atol=1e-9)
    with pytest.raises(g.ConvergenceError, match="no convergence"):
        g.pagerank(A, tol=1e-15, max_iter=2)


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_pagerank_personalization_nstart_dangling(backend):
    rng = np.random.default_rng(3)
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS):
            n, r, c, w = graph(kind, 420 + seed)
            W = reference(n, r, c, w)
            A = as_sparray(n, r, c, w, "csc", U) if seed % 2 else as_sparray(n, r, c, w, "coo", np.nan)  # nan: no edge
            p, x0, d = rng.random(n), rng.random(n), rng.random(n)
            p[: n // 2] = 0.0  # zeros allowed, not all of them
            for kwargs, ref in (({"personalization": p}, {"p": p}), ({"nstart": x0}, {"start": x0}),
                                ({"dangling": d}, {"dangling": d}),
                                ({"personalization": p, "dangling": d, "nstart": x0}, {"p": p, "dangling": d,
                                                                                     "start": x0})):
                got = g.pagerank(A, tol=1e-12, max_iter=1000, **kwargs)
                np.testing.assert_allclose(got, pagerank_ref(W, **ref), atol=1e-9, err_msg=f"{kind} {list(kwargs)}")
    with pytest.raises(ValueError, match="personalization must be a 1-d array of"):
        g.pagerank(A, personalization=np.ones(n + 1))
    with pytest.raises(ValueError, match="not all 0"):
        g.pagerank(A, personalization=np.zeros(n))
    with pytest.raises(ValueError, match="dangling must hold finite weights >= 0"):
        g.pagerank(A, dangling=-np.ones(n))


def test_against_networkx():
    nx = pytest.importorskip("networkx")
    for seed, kind in enumerate(KINDS):
        n, r, c, w = graph(kind, 500 + seed)
        W = reference(n, r, c, w)
        A = as_sparray(n, r, c, w, "coo", U)
        D = nx.from_scipy_sparse_array(W, create_using=nx.DiGraph)
        pr = nx.pagerank(D)  # networkx's tol (1e-6 a vertex) is this tol / n
        np.testing.assert_allclose(g.pagerank(A, tol=n * 1e-6), [pr[v] for v in range(n)], atol=1e-12)
        S = W + W.T
        Und = nx.from_scipy_sparse_array(S)
        Und.remove_edges_from(nx.selfloop_edges(Und))
        assert g.triangle_count(A) == sum(nx.triangles(Und).values()) // 3
        lengths = nx.single_source_dijkstra_path_length(D, 0)
        want = np.full(n, INF)
        want[list(lengths)] = list(lengths.values())
        np.testing.assert_allclose(g.sssp(A, 0), want)
        hops = nx.single_source_shortest_path_length(D, 0)
        want = np.full(n, -1)
        want[list(hops)] = list(hops.values())
        np.testing.assert_array_equal(g.bfs(A, 0), want)
        for connection, comps in (("weak", nx.weakly_connected_components(D)), ("strong", nx.strongly_connected_components(D))):
            comps = list(comps)
            k, labels = g.connected_components(A, connection=connection)
            assert k == len(comps)
            for comp in comps:
                assert len(set(labels[list(comp)].tolist())) == 1


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_triangle_count(backend):
    with sp.use_backend(backend):
        for seed, kind in enumerate(KINDS):
            n, r, c, w = graph(kind, 600 + seed)
            W = reference(n, r, c, w)
            want = triangles_ref(W)
            info = {}
            for A in (as_sparray(n, r, c, w, "coo", U), sp.asarray(W + W.T), sp.asarray(ss.triu(W + W.T).tocsr())):
                assert g.triangle_count(A, info=info) == want, kind
            assert info["iterations"] == 1 and info["edges"] == ss.triu((W + W.T) != 0, 1).nnz
            for layout, fill in (("csr", U), ("csc", 0.0), ("coo", np.nan)):  # per vertex, as networkx's triangles
                A = as_sparray(n, r, c, w, layout, fill)
                info = {}
                got = g.triangle_count(A, per_vertex=True, info=info)
                np.testing.assert_array_equal(got, triangles_ref(W, per_vertex=True), err_msg=f"{kind} {layout}")
                assert got.dtype == np.int64 and info["iterations"] == 2
        K = sp.asarray(np.ones((6, 6)), layout="csr")  # K6 with self-loops: C(6, 3) triangles
        assert g.triangle_count(K) == 20
        assert g.triangle_count(K, per_vertex=True).tolist() == [10] * 6
        assert g.triangle_count(sp.asarray(np.zeros((5, 5)), layout="csr")) == 0


def test_edge_cases():
    E = sp.asarray(np.zeros((4, 4)), layout="csr")  # no edges
    np.testing.assert_array_equal(g.bfs(E, 2), [-1, -1, 0, -1])
    np.testing.assert_array_equal(g.bfs(E, 2, return_parents=True)[1], [-1, -1, 2, -1])
    np.testing.assert_allclose(g.sssp(E, 1), [INF, 0.0, INF, INF])
    k, labels = g.connected_components(E, connection="strong")
    assert k == 4 and labels.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(g.pagerank(E), np.full(4, 0.25))
    Z = sp.asarray(np.zeros((0, 0)), layout="csr")
    assert g.connected_components(Z)[0] == 0 and g.pagerank(Z).shape == (0,) and g.triangle_count(Z) == 0
    # a dense NumPy adjacency matrix (its zeros the non-edges) and a bool one
    D = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(g.bfs(D, 0), [0, 1, 2])
    np.testing.assert_array_equal(g.bfs(sp.asarray(D.astype(bool), layout="csr"), 1), [-1, 0, 1])
    np.testing.assert_allclose(g.sssp(sp.asarray(D.astype(np.int32), layout="csr"), 0), [0.0, 1.0, 2.0])
    # as_graph: already a graph -> itself; otherwise the CSR of the edges, kept for the next call
    G = g.as_graph(sp.asarray(D, layout="coo"))
    assert G.layout == "csr" and not G.fill_is_defined and g.as_graph(G) is G
    A = sp.asarray(D.astype(float), layout="csr")
    assert g.as_graph(A) is g.as_graph(A)


def test_bad_input():
    A = sp.asarray(np.eye(3), layout="csr")
    with pytest.raises(ValueError, match="square"):
        g.bfs(sp.asarray(np.ones((2, 3)), layout="csr"), 0)
    with pytest.raises(ValueError, match="2-d"):
        g.sssp(sp.asarray(np.ones((2, 2, 2))), 0)
    with pytest.raises(TypeError, match="adjacency matrix"):
        g.pagerank([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="bool, integer or real"):
        g.bfs(sp.asarray(np.eye(2, dtype=complex), layout="csr"), 0)
    with pytest.raises(ValueError, match="does not say 'no edge'"):
        g.bfs(sp.asarray(np.eye(3), layout="csr", fill_value=1.5), 0)
    with pytest.raises(ValueError, match="not a vertex"):
        g.bfs(A, 3)
    with pytest.raises(ValueError, match="not a vertex"):
        g.sssp(A, [0, -1])
    with pytest.raises(TypeError, match="vertex number"):
        g.bfs(A, 1.0)
    with pytest.raises(TypeError, match="vertex number"):
        g.bfs(A, True)
    with pytest.raises(TypeError, match="vertex number"):
        g.sssp(A, [[0]])
    with pytest.raises(ValueError, match="connection"):
        g.connected_components(A, connection="medium")
    with pytest.raises(ValueError, match="NaN"):
        g.sssp(sp.asarray(sp.asarray(np.array([[0.0, NAN], [0, 0]]), fill_value=0.0), fill_value=U), 0)
    with pytest.raises(ValueError, match=">= 0"):
        g.pagerank(sp.asarray(np.array([[0.0, -1.0], [1.0, 0]]), layout="csr"))
    with pytest.raises(ValueError, match="damping"):
        g.pagerank(A, damping=1.5)
    with pytest.raises(ValueError, match="tol"):
        g.pagerank(A, tol=0)
    with pytest.raises(ValueError, match="max_iter"):
        g.pagerank(A, max_iter=0)
    with pytest.raises(ValueError, match="delta"):
        g.sssp(A, 0, delta=0)
    with pytest.raises(TypeError, match="info"):
        g.bfs(A, 0, info=[])


# --- the simulated device: results stay there, one read per iteration ----------------------------------------
#: where the generic kernel references read back to size their results (the CUDA kernels replace them)
KERNEL_SITES = ("_engine/graph_generic.py", "_engine/segments.py", "_engine/compressed_generic.py", "kernels/cuda/")


def _reads(counts):
    """(the algorithm's reads, the kernels' reads, anything else) of a counting window."""
    mine, kernels, other = 0, 0, []
    for site in counts.sites:
        where = site.split(" @ ")[-1]
        if where.startswith("_core/namespace.py") and "to_numpy" in where:
            mine += 1  # read_host: the algorithms' one read a step
        elif where.startswith(KERNEL_SITES):
            kernels += 1
        else:
            other.append(site)
    return mine, kernels, other


@requires_gxx
@pytest.mark.parametrize("layout", ["csr", "coo"])
def test_on_the_simulated_device(layout):
    n, r, c, w = graph("er", 700)
    W = reference(n, r, c, w)
    host = as_sparray(n, r, c, w, layout, U if layout == "csr" else 0.0)
    A = host.to_device("simulated")
    A = g.as_graph(A)  # the conversion once (its reads are setup, not iterations)
    runs = {
        "bfs": (lambda info: g.bfs(A, 0, info=info), levels_of(W, 0), 0),
        "bfs parents": (lambda info: g.bfs(A, 0, return_parents=True, info=info)[0], levels_of(W, 0), 0),
        "bfs batch": (lambda info: g.bfs(A, [0, 5], info=info), np.stack([levels_of(W, 0), levels_of(W, 5)]), 0),
        "sssp": (lambda info: g.sssp(A, 0, info=info), csgraph.dijkstra(W, indices=0), 2),
        "sssp batch": (lambda info: g.sssp(A, [0, 7], info=info), csgraph.dijkstra(W, indices=[0, 7]), 2),
        "pagerank": (lambda info: g.pagerank(A, tol=1e-10, max_iter=500, info=info), pagerank_ref(W, tol=1e-13), 1),
        "weak": (lambda info: g.connected_components(A, info=info)[1],  # setup: the hub, the symmetry check
                 canonical(csgraph.connected_components(W)[1]), 2),
        "strong": (lambda info: g.connected_components(A, connection="strong", info=info)[1],
                   canonical(csgraph.connected_components(W, connection="strong")[1]), 1),
    }
    for name, (run, want, setup) in runs.items():
        info = {}
        with simulated.counting() as counts:
            got = run(info)
        assert simulated.is_simulated(got), f"{name} left the device: {type(got).__name__}"
        mine, _, other = _reads(counts)
        assert not other, f"{name}: reads outside the algorithm's one a step and the kernels': {other}"
        assert mine <= info["iterations"] + setup, (name, mine, info["iterations"])
        np.testing.assert_allclose(got.get(), want, atol=1e-9, err_msg=name)
    info = {}
    with simulated.counting() as counts:
        assert g.triangle_count(A, info=info) == triangles_ref(W)
    mine, _, other = _reads(counts)
    assert mine == 1 and not other
    with simulated.counting() as counts:
        per = g.triangle_count(A, per_vertex=True)
    assert simulated.is_simulated(per)
    np.testing.assert_array_equal(per.get(), triangles_ref(W, per_vertex=True))
    with simulated.counting() as counts:
        got = g.pagerank(A, personalization=np.arange(W.shape[0], dtype=np.float64), tol=1e-10, max_iter=500)
    assert simulated.is_simulated(got)
    np.testing.assert_allclose(got.get(), pagerank_ref(W, p=np.arange(W.shape[0], dtype=np.float64), tol=1e-13),
                               atol=1e-9)


@requires_gxx
def test_simulated_device_negative_weights():
    n, r, c, w = graph("grid", 800)
    keep = r < c
    W = reference(n, r[keep], c[keep], w[keep] - 1.0)
    A = as_sparray(n, r[keep], c[keep], w[keep] - 1.0, "csr", U).to_device("simulated")
    info = {}
    with simulated.counting() as counts:
        got = g.sssp(A, 0, info=info)
    mine, _, other = _reads(counts)
    assert info["method"] == "bellman-ford" and not other and mine <= info["iterations"] + 2
    np.testing.assert_allclose(got.get(), csgraph.bellman_ford(W, indices=0))


def test_read_counts_are_per_iteration():
    """What the device test counts, on the host too: the info dicts agree with the work done."""
    n, r, c, w = grid_edges(6, 6) + (np.ones(120),)
    W = reference(n, r, c, w)
    info = {}
    g.bfs(sp.asarray(W), 0, info=info)
    assert info["iterations"] == 11 and info["frontier_sizes"] == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    sizes = collections.Counter(levels_of(W, 0).tolist())
    assert [sizes[k] for k in range(11)] == info["frontier_sizes"]


def test_graph_analytics_example_smoke(capsys):
    """examples/graph_analytics.py imports and runs on a tiny R-MAT (its real sizes are for a terminal)."""
    import pathlib
    import runpy

    ns = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "graph_analytics.py"))
    W = ns["rmat"](5)
    assert W.shape == (32, 32) and (W != W.T).nnz == 0 and W.diagonal().sum() == 0
    rows = ns["main"](scale=5, repeat=1, use_networkx=False)
    assert set(rows) >= {"bfs levels", "sssp", "pagerank", "components (weak)", "components (strong)", "triangles"}
    assert "every result agrees" in capsys.readouterr().out
