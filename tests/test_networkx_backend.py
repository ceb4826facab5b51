"""sparray as a networkx backend (sparray/graph/networkx_backend): every served function against
networkx's own on random graphs (directed, undirected, multigraphs, weights, self-loops,
disconnected), networkx's errors, the dispatcher's protocol (entry points, can_run, backend_info),
and networkx's own test modules for these functions run through the backend.

The backend serves networkx graphs, which live on the host: the simulated GPU device runs the same
algorithms in tests/test_graph_algorithms.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

from sparray.graph.networkx_backend import BackendInterface, backend_info, can_run  # noqa: E402
from sparray.graph.networkx_backend._algorithms import SERVED  # noqa: E402
from sparray.graph.networkx_backend._graph import NxArrays, convert_from_nx, convert_to_nx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: networkx's test modules for the functions served (under networkx/algorithms/)
NX_TEST_MODULES = (
    "traversal/tests/test_bfs.py", "shortest_paths/tests/test_generic.py", "shortest_paths/tests/test_unweighted.py",
    "shortest_paths/tests/test_weighted.py", "link_analysis/tests/test_pagerank.py",
    "components/tests/test_connected.py", "components/tests/test_strongly_connected.py",
    "components/tests/test_weakly_connected.py", "tests/test_cluster.py",
)  # fmt: skip


def _graphs():
    """Random graphs of every kind networkx has, with weights, self-loops and isolated nodes (the
    weights are multiples of 1/2: sums of them are exact, so distances compare with ==)."""
    rng = np.random.default_rng(5)
    out = []
    for directed in (False, True):
        for multi in (False, True):
            cls = {(0, 0): nx.Graph, (1, 0): nx.DiGraph, (0, 1): nx.MultiGraph, (1, 1): nx.MultiDiGraph}
            G = cls[(int(directed), int(multi))]()
            n = 40
            G.add_nodes_from((f"v{i}" if i % 3 else i) for i in rng.permutation(n).tolist())  # mixed labels
            nodes = list(G)
            for _ in range(90):
                u, v = rng.integers(0, n, 2).tolist()
                G.add_edge(nodes[u], nodes[v], weight=float(rng.integers(1, 9)) / 2, w2=int(rng.integers(0, 5)))
            G.add_edge(nodes[0], nodes[0], weight=0.5, w2=1)  # a self-loop
            out.append(G)
    return out


GRAPHS = _graphs()
IDS = [type(G).__name__ for G in GRAPHS]


@pytest.fixture(autouse=True)
def _no_conversion_cache():
    """Each call converts afresh (networkx caches conversions on the graph and warns when it reuses one)."""
    before = nx.config.cache_converted_graphs
    nx.config.cache_converted_graphs = False
    yield
    nx.config.cache_converted_graphs = before


def sp(fn, *args, **kwargs):
    return fn(*args, backend="sparray", **kwargs)


@pytest.mark.parametrize("G", GRAPHS, ids=IDS)
def test_bfs_edges_in_networkx_order(G):
    for source in list(G)[:4]:
        assert list(sp(nx.bfs_edges, G, source)) == list(nx.bfs_edges(G, source))
        assert list(sp(nx.bfs_edges, G, source, reverse=True)) == list(nx.bfs_edges(G, source, reverse=True))
        for depth in (0, 1, 2):
            assert list(sp(nx.bfs_edges, G, source, depth_limit=depth)) == list(nx.bfs_edges(G, source,
                                                                                             depth_limit=depth))
    with pytest.raises(nx.NetworkXError, match="not in the"):
        list(sp(nx.bfs_edges, G, "no such node"))


@pytest.mark.parametrize("G", GRAPHS, ids=IDS)
def test_path_lengths_match_networkx(G):
    nodes = list(G)
    s, t = nodes[1], nodes[7]
    assert sp(nx.single_source_shortest_path_length, G, s) == nx.single_source_shortest_path_length(G, s)
    assert sp(nx.single_source_shortest_path_length, G, s, cutoff=2) == nx.single_source_shortest_path_length(
        G, s, cutoff=2)
    for weight in ("weight", "w2"):  # w2 has zeros: edges of weight 0
        ref = nx.single_source_dijkstra_path_length(G, s, weight=weight)
        assert sp(nx.single_source_dijkstra_path_length, G, s, weight=weight) == ref
        assert sp(nx.single_source_dijkstra_path_length, G, s, cutoff=3, weight=weight) == (
            nx.single_source_dijkstra_path_length(G, s, cutoff=3, weight=weight))
        assert sp(nx.single_source_bellman_ford_path_length, G, s, weight=weight) == (
            nx.single_source_bellman_ford_path_length(G, s, weight=weight))
        assert dict(sp(nx.all_pairs_dijkstra_path_length, G, weight=weight)) == (
            dict(nx.all_pairs_dijkstra_path_length(G, weight=weight)))
    assert dict(sp(nx.all_pairs_shortest_path_length, G)) == dict(nx.all_pairs_shortest_path_length(G))
    if not G.is_multigraph():  # networkx's shortest_path_length takes simple graphs' paths apart
        for kwargs in ({}, {"weight": "weight"}, {"weight": "weight", "method": "bellman-ford"}):
            assert sp(nx.shortest_path_length, G, source=s, **kwargs) == (
                nx.shortest_path_length(G, source=s, **kwargs))
            assert sp(nx.shortest_path_length, G, target=t, **kwargs) == (
                nx.shortest_path_length(G, target=t, **kwargs))
            try:
                ref = nx.shortest_path_length(G, s, t, **kwargs)
            except nx.NetworkXNoPath:
                with pytest.raises(nx.NetworkXNoPath):
                    sp(nx.shortest_path_length, G, s, t, **kwargs)
            else:
                assert sp(nx.shortest_path_length, G, s, t, **kwargs) == ref
        assert dict(sp(nx.shortest_path_length, G)) == dict(nx.shortest_path_length(G))


@pytest.mark.parametrize("G", GRAPHS, ids=IDS)
def test_pagerank_matches_networkx(G):
    nodes = list(G)
    for kwargs in ({}, {"weight": None}, {"alpha": 0.6, "weight": "w2"},
                   {"personalization": {nodes[0]: 1.0, nodes[3]: 3.0}, "nstart": {v: 1.0 for v in nodes[:5]}},
                   {"dangling": {nodes[2]: 1.0}}):
        ref = nx.pagerank(G, tol=1e-10, **kwargs)
        got = sp(nx.pagerank, G, tol=1e-10, **kwargs)
        assert list(got) == list(ref)
        assert np.allclose(list(got.values()), list(ref.values()), rtol=0, atol=1e-9)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        sp(nx.pagerank, G, max_iter=2, tol=1e-12)
    with pytest.raises(ZeroDivisionError):
        sp(nx.pagerank, G, personalization={"no such node": 1.0})


@pytest.mark.parametrize("G", GRAPHS, ids=IDS)
def test_components_and_triangles_match_networkx(G):
    def parts(gen):
        return [frozenset(c) for c in gen]

    if G.is_directed():
        assert set(parts(sp(nx.strongly_connected_components, G))) == set(parts(nx.strongly_connected_components(G)))
        assert parts(sp(nx.weakly_connected_components, G)) == parts(nx.weakly_connected_components(G))
        for fn in (nx.number_strongly_connected_components, nx.number_weakly_connected_components,
                   nx.is_strongly_connected, nx.is_weakly_connected):
            assert sp(fn, G) == fn(G)
        with pytest.raises(nx.NetworkXNotImplemented):
            sp(nx.connected_components, G)
    else:
        assert parts(sp(nx.connected_components, G)) == parts(nx.connected_components(G))  # same order too
        assert sp(nx.number_connected_components, G) == nx.number_connected_components(G)
        assert sp(nx.is_connected, G) == nx.is_connected(G)
        if not G.is_multigraph():
            assert sp(nx.triangles, G) == nx.triangles(G)
            some = list(G)[:5]
            assert sp(nx.triangles, G, some) == nx.triangles(G, some)
            assert sp(nx.triangles, G, some[0]) == nx.triangles(G, some[0])


def test_triangles_of_complete_and_empty_graphs():
    K = nx.complete_graph(6)
    K.add_edge(2, 2)  # a self-loop is not a triangle
    assert sp(nx.triangles, K) == {v: 10 for v in range(6)}
    assert sp(nx.triangles, nx.Graph()) == {}
    assert sp(nx.triangles, nx.empty_graph(3)) == {0: 0, 1: 0, 2: 0}


def test_errors_are_networkx_errors():
    G = nx.path_graph(4)
    with pytest.raises(nx.NodeNotFound):
        sp(nx.single_source_shortest_path_length, G, 9)
    with pytest.raises(nx.NodeNotFound):
        sp(nx.single_source_dijkstra_path_length, G, 9)
    with pytest.raises(nx.NodeNotFound):
        sp(nx.shortest_path_length, G, 0, 9)
    with pytest.raises(nx.NetworkXNoPath):
        sp(nx.shortest_path_length, nx.empty_graph(2), 0, 1)
    with pytest.raises(ValueError, match="method not supported"):
        sp(nx.shortest_path_length, G, 0, 1, method="astar")
    N = nx.DiGraph([(0, 1, {"weight": -1.0}), (1, 0, {"weight": -1.0})])  # a negative cycle
    with pytest.raises(ValueError):
        sp(nx.single_source_dijkstra_path_length, N, 0)
    with pytest.raises(nx.NetworkXUnbounded):
        sp(nx.single_source_bellman_ford_path_length, N, 0)
    D = nx.DiGraph([(0, 1, {"weight": -1.0}), (1, 2, {"weight": 3.0})])  # negative, no cycle: Bellman-Ford
    assert sp(nx.single_source_bellman_ford_path_length, D, 0) == {0: 0, 1: -1.0, 2: 2.0}
    with pytest.raises(nx.NetworkXPointlessConcept):
        sp(nx.is_connected, nx.Graph())


def test_can_run_names_what_it_refuses():
    G = nx.path_graph(3)
    assert can_run("pagerank", (G,), {}) is True
    reason = can_run("single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1})
    assert isinstance(reason, str) and "weight function" in reason
    reason = can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted})
    assert isinstance(reason, str) and "sort_neighbors" in reason
    assert isinstance(can_run("betweenness_centrality", (G,), {}), str)
    with pytest.raises(NotImplementedError):  # asked for by name, a refused call is not sent elsewhere
        list(nx.bfs_edges(G, 0, sort_neighbors=sorted, backend="sparray"))
    before = list(nx.config.backend_priority.algos)
    nx.config.backend_priority.algos = ["sparray"]
    try:  # sparray first in the priority list: a refused call runs in networkx, the others in sparray
        assert list(nx.bfs_edges(G, 0, sort_neighbors=lambda it: sorted(it, reverse=True))) == [(0, 1), (1, 2)]
        assert nx.single_source_shortest_path_length(G, 0) == {0: 0, 1: 1, 2: 2}
    finally:
        nx.config.backend_priority.algos = before


def test_entry_points_and_backend_info():
    (ep,) = [e for e in entry_points(group="networkx.backends") if e.name == "sparray"] or [None]
    assert ep is not None, "the networkx.backends entry point is missing: reinstall sparray (pip install -e .)"
    assert ep.load() is BackendInterface
    (info_ep,) = [e for e in entry_points(group="networkx.backend_info") if e.name == "sparray"]
    info = info_ep.load()()
    assert info is not None and info == backend_info()
    assert info["backend_name"] == "sparray" and set(info["functions"]) == set(SERVED)
    for name in SERVED:  # each served name is a networkx function and a backend attribute
        assert name in nx.utils.backends._registered_algorithms, name
        assert callable(getattr(BackendInterface, name))


def test_conversion_round_trip_keeps_neighbour_order_and_weights():
    G = nx.MultiDiGraph()
    G.add_edge("b", "a", weight=2.0)
    G.add_edge("b", "c", weight=1.0)
    G.add_edge("b", "a", weight=5.0)  # a parallel edge
    G.add_node("z")
    H = convert_from_nx(G, edge_attrs={"weight": 1})
    assert isinstance(H, NxArrays) and H.__networkx_backend__ == "sparray"
    assert H.nodes == ["b", "a", "c", "z"] and H.succ_indices.tolist() == [1, 2]
    assert H.weights("weight", "min").to_dense(fill_value=0).tolist()[0] == [0, 2.0, 1.0, 0]
    assert H.weights("weight", "sum").to_dense(fill_value=0).tolist()[0] == [0, 7.0, 1.0, 0]
    back = convert_to_nx(H)
    assert sorted(back.edges(data="weight")) == sorted(G.edges(data="weight")) and list(back) == list(G)
    assert convert_to_nx({"a": 1}) == {"a": 1}
    with pytest.raises(NotImplementedError, match="real numbers"):
        convert_from_nx(nx.Graph([(0, 1, {"weight": "heavy"})]), edge_attrs={"weight": 1})


def test_import_sparray_does_not_import_networkx():
    code = "import sys, sparray, sparray.graph; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env())
    assert out.stdout.strip() == "False"


def _env():
    path = os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path)


def test_networkx_own_tests_pass_through_the_backend(tmp_path):
    """networkx's test modules for the served functions, every dispatchable call sent to sparray
    (NETWORKX_TEST_BACKEND=sparray; what sparray does not serve falls back to networkx). The tests
    that do not apply are marked by the backend's on_start_tests (_test_skips.py, with reasons)."""
    nx_dir = os.path.dirname(nx.__file__)
    report = tmp_path / "report.json"
    env = dict(_env(), NETWORKX_TEST_BACKEND="sparray", NETWORKX_FALLBACK_TO_NX="True", SPARRAY_NX_REPORT=str(report))
    modules = [os.path.join(nx_dir, "algorithms", m) for m in NX_TEST_MODULES]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "nx_backend_report",
           f"--rootdir={nx_dir}", "-W", "ignore::UserWarning", *modules]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    result = json.loads(report.read_text())
    outcomes, reached = result["outcomes"], set(result["reached"])
    assert not result["fell_back"], result["fell_back"]
    counts = {o: sum(1 for v in outcomes.values() if v == o) for o in set(outcomes.values())}
    assert counts.get("failed", 0) == 0, counts
    served = [k for k in outcomes if k in reached]
    # networkx's tests of these functions reach the backend (a drop here means calls stopped dispatching)
    assert len(served) >= 70, (len(served), counts)
    print(f"networkx tests through sparray: {counts}; {len(served)} of them called sparray's functions")


def test_docstring_examples():
    import doctest

    from sparray.graph import _pagerank, _triangles, networkx_backend
    from sparray.graph.networkx_backend import _graph

    for mod in (networkx_backend, _graph, _pagerank, _triangles):
        assert doctest.testmod(mod).failed == 0, mod.__name__
