"""Graph analytics with sparray.graph on an R-MAT graph, beside scipy.sparse.csgraph and networkx.

    python examples/graph_analytics.py                 # R-MAT scale 14 (16k vertices, ~0.4M edges)
    python examples/graph_analytics.py --scale 16      # larger
    python examples/graph_analytics.py --no-networkx   # skip networkx (slow at scale >= 16)

The graph is Graph500's R-MAT (a, b, c = 0.57, 0.19, 0.19, edge factor 16, vertex numbers
permuted), taken as undirected (A and its transpose), with weights drawn from [1, 255] as GAP's
benchmark draws them. Each library gets the graph once in its own form; that conversion is timed
apart ("convert"), as a user of the library pays it once per graph. The "nx+sparray" column runs
the networkx calls with ``backend="sparray"`` (sparray's networkx backend), each call converting
networkx's graph (the cache turned off). Each algorithm is then timed
(the best of ``--repeat`` calls, after a first call that compiles sparray's kernels) and its
result checked against the others: levels, distances, component labels and the triangle count
exactly, PageRank to 1e-9.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as ss
from scipy.sparse import csgraph

import sparray


def rmat(scale, edge_factor=16, seed=0):
    """The undirected R-MAT graph of ``scale`` as a symmetric scipy CSR with weights in [1, 255]
    (self-loops dropped, repeated edges once)."""
    rng = np.random.default_rng(seed)
    n, m = 1 << scale, edge_factor << scale
    row, col = np.zeros(m, np.int64), np.zeros(m, np.int64)
    for _ in range(scale):
        u = rng.random(m)
        row = (row << 1) | (u >= 0.76)
        col = (col << 1) | (((u >= 0.57) & (u < 0.76)) | (u >= 0.95))
    perm = rng.permutation(n)
    row, col = perm[row], perm[col]
    keep = row != col
    lo, hi = np.minimum(row[keep], col[keep]), np.maximum(row[keep], col[keep])
    U = ss.coo_matrix((np.ones(lo.shape[0]), (lo, hi)), shape=(n, n)).tocsr()
    U.data = rng.integers(1, 256, U.nnz).astype(np.float64)  # one weight an undirected edge
    return (U + U.T).tocsr()


def best(f, repeat):
    """(the best time of ``repeat`` calls after a first one, the result)."""
    out = f()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def timed_once(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def main(scale=14, repeat=3, use_networkx=True, seed=0):
    """Run the five algorithms on R-MAT(scale); print the table; return {algorithm: {library: seconds}}."""
    W = rmat(scale, seed=seed)
    n = W.shape[0]
    source = int(np.argmax(np.diff(W.indptr)))  # a hub: inside the giant component
    print(f"R-MAT scale {scale}: {n} vertices, {W.nnz // 2} undirected edges, source {source}")
    g = sparray.graph
    rows = {}
    convert, A = timed_once(lambda: g.as_graph(sparray.asarray(sparray.asarray(W), fill_value=sparray.undefined)))
    rows["convert"] = {"sparray": convert, "scipy": 0.0}
    nx = None
    if use_networkx:
        try:
            import networkx as nx
        except ImportError:
            print("(networkx is not installed: its column is left out)")
    backend = nx is not None and "sparray" in nx.utils.backends.backends  # sparray's networkx backend installed
    if nx is not None:
        rows["convert"]["networkx"], X = timed_once(lambda: nx.from_scipy_sparse_array(W))
        nx.config.cache_converted_graphs = False  # the backend column pays networkx's conversion every call
        if backend:
            rows["convert"]["nx+sparray"] = 0.0  # converted inside each call (timed there)

    def row(name, ours, check, scipy_f=None, nx_f=None):
        t, got = best(ours, repeat)
        rows[name] = {"sparray": t}
        if scipy_f is not None:
            rows[name]["scipy"], want = best(scipy_f, repeat)
            check(got, want)
        if nx_f is not None:
            rows[name]["networkx"], want = timed_once(nx_f)
            check(got, want)
            if backend:  # the same networkx call served by sparray (networkx's backend dispatch)
                rows[name]["nx+sparray"], want = timed_once(lambda: nx_f(backend="sparray"))
                check(got, want)
        return got

    def same(got, want):
        np.testing.assert_array_equal(got, want)

    def close(got, want):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)

    def dense_of(d, fill):
        out = np.full(n, fill, dtype=np.float64)
        out[list(d)] = list(d.values())
        return out

    def hops():
        d = csgraph.shortest_path(W, unweighted=True, indices=source)
        return np.where(np.isinf(d), -1, d)

    row("bfs levels", lambda: g.bfs(A, source), same, hops,
        nx and (lambda **kw: dense_of(nx.single_source_shortest_path_length(X, source, **kw), -1)))
    row("sssp", lambda: g.sssp(A, source), close, lambda: csgraph.dijkstra(W, indices=source),
        nx and (lambda **kw: dense_of(nx.single_source_dijkstra_path_length(X, source, **kw), np.inf)))
    row("pagerank", lambda: g.pagerank(A, tol=n * 1e-6), lambda got, want: np.testing.assert_allclose(got, want, atol=1e-9),
        None, nx and (lambda **kw: dense_of(nx.pagerank(X, **kw), 0.0)))

    def labels_agree(got, want):
        assert got[0] == want[0]
        np.testing.assert_array_equal(got[1], want[1])

    row("components (weak)", lambda: g.connected_components(A), labels_agree, lambda: csgraph.connected_components(W),
        nx and (lambda **kw: _labels_of(nx.connected_components(X, **kw), n)))

    def partitions_agree(got, want):
        assert got[0] == want[0] and len(set(zip(got[1].tolist(), want[1].tolist()))) == got[0]

    row("components (strong)", lambda: g.connected_components(A, connection="strong"), partitions_agree,
        lambda: csgraph.connected_components(W, connection="strong"))
    row("triangles", lambda: g.triangle_count(A), lambda got, want: _equal(got, want), None,
        nx and (lambda **kw: sum(nx.triangles(X, **kw).values()) // 3))
    libraries = ["sparray", "scipy"] + (["networkx"] if nx is not None else []) + (["nx+sparray"] if backend else [])
    print(f"{'':22s}" + "".join(f"{lib:>12s}" for lib in libraries) + "   (seconds; blank: not in the library)")
    for name, cells in rows.items():
        print(f"{name:22s}" + "".join(f"{cells[lib]:12.4f}" if lib in cells else f"{'':12s}" for lib in libraries))
    print("every result agrees with the other libraries'")
    return rows


def _labels_of(components, n):
    """networkx's components as labels numbered by their least vertex (sparray's and scipy's order)."""
    labels = np.empty(n, np.int64)
    for k, comp in enumerate(sorted(components, key=min)):
        labels[list(comp)] = k
    return k + 1, labels


def _equal(got, want):
    assert got == want, (got, want)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-networkx", action="store_true")
    args = p.parse_args()
    main(args.scale, args.repeat, not args.no_networkx)
