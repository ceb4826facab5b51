"""The serial graph walks behind the registry ("bfs_walk", "delta_walk" for "csr"): the numba kernels
(kernels/cpu/graph_walk.py) against their generic twins (_engine/graph_walk_generic.py) on R-MAT
graphs (repeated edges and self-loops kept), grids and disconnected graphs, int32 and int64
indices, with and without parents, blocked vertices, and bounds small enough that every call
stops mid-way and the next goes on from the state it handed back: the same results, the same
lists in the same order, the same in-place state, and the right levels and distances (scipy).
Through sparray.graph: the numba walk, its twin and the products path (the generic backend
forced) give the same answers and the same iteration records; a small graph runs without
starting numba; and with background compilation and a cold kernel cache the first search
answers through the twin, right, while the kernel compiles.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import array_api_compat.numpy as xp
import numpy as np
import pytest
import scipy.sparse as ss
from scipy.sparse import csgraph

import sparray as sp
from sparray._engine import dispatch as _dispatch
from sparray._engine.graph_walk_generic import bfs_walk_generic, delta_walk_generic
from graph_testing import grid_edges, rmat_edges
from sparray.kernels.cpu.graph_walk import bfs_walk, delta_walk

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["rmat", "grid", "disconnected"]


def _rmat(rng, scale):
    return rmat_edges(rng, scale, factor=6)


def _grid(k, m):
    return grid_edges(k, m)


def _disconnected(rng):
    """Two R-MAT parts, a grid and isolated vertices, renumbered at random."""
    parts, rows, cols, n = [_rmat(rng, 5), _rmat(rng, 4), _grid(6, 9)], [], [], 0
    for size, r, c in parts:
        rows.append(r + n)
        cols.append(c + n)
        n += size
    n += 17
    perm = rng.permutation(n)
    return n, perm[np.concatenate(rows)], perm[np.concatenate(cols)]


def graph(kind, seed, index=np.int64):
    """CSR parts of a graph as its edges come (a row's edges in their order, repeats kept) and
    random weights in quarters (0 included: zero-weight edges)."""
    rng = np.random.default_rng(seed)
    n, r, c = {"rmat": lambda: _rmat(rng, 7), "grid": lambda: _grid(11, 13), "disconnected": lambda: _disconnected(rng)}[kind]()
    order = np.argsort(r, kind="stable")
    crow = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n))]).astype(index)
    w = rng.integers(0, 12, r.shape[0]) / 4.0
    return n, crow, c[order].astype(index), w[order]


def _scipy(n, crow, col, w=None):
    M = ss.csr_matrix((np.ones(col.shape[0]) if w is None else w, col, crow), shape=(n, n))
    M.sum_duplicates()  # repeated edges: the lightest one is the edge (below: a minimum, not a sum)
    return M


def _lightest(n, crow, col, w):
    rows = np.repeat(np.arange(n), np.diff(crow))
    keys = rows * n + col
    order = np.lexsort((w, keys))
    first = np.concatenate([[True], np.diff(keys[order]) != 0])
    pick = order[first]
    return ss.csr_matrix((w[pick], (rows[pick], col[pick])), shape=(n, n))


def _same(a, b):
    """One result of the kernel and of its twin: equal arrays (int64), or equal Python scalars."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype == np.int64, (a.dtype, b.dtype)
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b, (a, b)


# --- the kernels against their twins ---------------------------------------------------------------------
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("max_edges", [0, 7, 60, 1 << 40])
@pytest.mark.parametrize("want_parents", [True, False])
@pytest.mark.parametrize("kind", KINDS)
def test_bfs_walk_twin_matches_the_kernel(kind, want_parents, max_edges, index):
    n, crow, col, _ = graph(kind, 3, index)
    rng = np.random.default_rng(11)
    blocked = rng.random(n) < 0.05
    for source in (0, n // 2, n - 1):
        for block in (False, True):
            reached0 = blocked.copy() if block else np.zeros(n, bool)
            reached0[source] = True
            state = {}
            for name in ("numba", "generic"):
                levels = np.full(n, -1, np.int64)
                levels[source] = 0
                parents = np.full(n, -1, np.int64) if want_parents else None
                if want_parents:
                    parents[source] = source
                state[name] = (levels, reached0.copy(), parents)
            front, level, calls = np.array([source]), 0, 0
            while front.shape[0]:
                got = {}
                for name, walk in (("numba", bfs_walk), ("generic", lambda *a: bfs_walk_generic(xp, *a))):
                    levels, reached, parents = state[name]
                    got[name] = walk(crow, col, front, level, levels, reached, parents, want_parents, max_edges)
                for a, b in zip(got["numba"], got["generic"], strict=True):
                    _same(a, b)
                for a, b in zip(state["numba"], state["generic"], strict=True):
                    np.testing.assert_array_equal(a, b)
                front, level, sizes, walked = got["numba"]
                assert sizes.shape[0] >= 1  # the first level always
                calls += 1
            levels, reached, parents = state["numba"]
            if max_edges <= 7 and (levels >= 0).sum() > 20:
                assert calls > 1  # the bound stopped the walk, and the next call went on
            # the levels are the graph's (blocked vertices entered by no edge)
            M = _scipy(n, crow, col)
            if block:
                keep = ~blocked
                keep[source] = True
                M = M @ ss.diags(keep.astype(float))
            want = csgraph.shortest_path(M, unweighted=True, indices=source)
            want = np.where(np.isinf(want), -1, want).astype(np.int64)
            np.testing.assert_array_equal(levels, want)
            np.testing.assert_array_equal(reached, reached0 | (levels >= 0))
            if want_parents:
                child = np.flatnonzero(levels > 0)
                assert (levels[parents[child]] == levels[child] - 1).all()
                assert (M.toarray()[parents[child], child] != 0).all()
                assert (parents[levels < 0] == -1).all()


def _delta_search(walk, n, crow, col, w, delta, source, max_edges):
    """sssp's delta-stepping driven by the walk alone (every call goes on from the state the last
    one handed back): the distances and each call's results."""
    t = np.full(n, math.inf)
    t[source] = 0.0
    frontier, settled, hi, calls = np.array([source]), np.zeros(0, np.int64), delta, []
    while True:
        pending = np.flatnonzero((t >= hi) & (t < math.inf))
        out = walk(crow, col, w, delta, t, frontier, settled, pending, hi, max_edges)
        calls.append(out + (t.copy(),))
        done, frontier, settled, hi, _ = out
        if done:
            return t, calls


@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("max_edges", [0, 9, 80, 1 << 40])
@pytest.mark.parametrize("kind", KINDS)
def test_delta_walk_twin_matches_the_kernel(kind, max_edges, index):
    n, crow, col, w = graph(kind, 5, index)
    want_graph = _lightest(n, crow, col, w)
    for delta in (0.3, 1.0, 2.5, 50.0):
        for source in (0, n - 1):
            t, calls = _delta_search(delta_walk, n, crow, col, w, delta, source, max_edges)
            t2, calls2 = _delta_search(lambda *a: delta_walk_generic(xp, *a), n, crow, col, w, delta, source, max_edges)
            assert len(calls) == len(calls2)
            for a, b in zip(calls, calls2, strict=True):
                assert a[0] is b[0] and a[3] == b[3] and isinstance(b[3], float)  # done, hi
                for x, y in zip(a[1:3] + a[4:5], b[1:3] + b[4:5], strict=True):  # frontier, settled, sizes
                    _same(x, y)
                np.testing.assert_array_equal(a[5], b[5])  # the distances, bit for bit, after each call
            np.testing.assert_array_equal(t, t2)
            np.testing.assert_array_equal(t, csgraph.dijkstra(want_graph, indices=source))
            if max_edges <= 9 and np.isfinite(t).sum() > 20:
                assert len(calls) > 1  # the bound stopped the walk, and the next call went on
            assert all(steps.shape[0] for *_, steps, _ in calls)  # a step a call at least


def test_a_walk_called_on_nothing_hands_back_nothing():
    crow, col, w = np.array([0, 1, 1]), np.array([1]), np.array([1.0])
    for walk in (bfs_walk, lambda *a: bfs_walk_generic(xp, *a)):
        levels, reached = np.array([0, -1]), np.array([True, False])
        front, level, sizes, walked = walk(crow, col, np.zeros(0, np.int64), 3, levels, reached, None, False, 5)
        assert front.shape == sizes.shape == (0,) and level == 3 and walked == 0 and levels.tolist() == [0, -1]
    for walk in (delta_walk, lambda *a: delta_walk_generic(xp, *a)):
        t = np.array([0.0, math.inf])
        empty = np.zeros(0, np.int64)
        done, front, settled, hi, sizes = walk(crow, col, w, 1.0, t, empty, empty, empty, 1.0, 5)
        assert done and front.shape == settled.shape == (0,) and hi == 1.0 and sizes.tolist() == [-1]


# --- through sparray.graph -------------------------------------------------------------------------------
def test_the_registry_rows_and_their_twins():
    for op in ("bfs_walk", "delta_walk"):
        assert (op, "csr", "numba") in _dispatch._JIT  # a numba kernel: background compilation, small work
        assert _dispatch._generic(op, "csr") in (bfs_walk_generic, delta_walk_generic)
        assert f"{op} [csr]" in sp.kernel_table()


@pytest.fixture
def counted(monkeypatch):
    """Calls of each walk's generic twin, counted."""
    counts = {"bfs_walk": 0, "delta_walk": 0}
    for op in counts:
        impl = _dispatch._generic(op, "csr")

        def spy(xp_, *args, _impl=impl, _op=op):
            counts[_op] += 1
            return _impl(xp_, *args)

        monkeypatch.setitem(_dispatch._REGISTRY, (op, "csr", "generic"), spy)
    return counts


@pytest.mark.parametrize("kind", KINDS)
def test_kernel_twin_and_products_answer_alike(kind, counted, monkeypatch):
    """bfs and sssp with the numba walk (forced: the graphs are small), with its twin (the numba rows
    taken out), and with the products alone (the generic backend forced): the same levels and
    distances, bit for bit, and the same frontier sizes and iteration counts (the walk relaxes as
    the products do); parents the same from both walks, valid from the products."""
    n, crow, col, w = graph(kind, 8)
    A = sp.asarray(_lightest(n, crow, col, w + 0.25))
    runs = {}

    def run():
        out = {}
        for s in (0, n // 3):
            info = {}
            levels, parents = sp.graph.bfs(A, s, return_parents=True, info=info)
            out[("bfs", s)] = (np.asarray(levels), np.asarray(parents), info["frontier_sizes"], info["iterations"])
            for delta in (None, 0.5):
                info = {}
                dist = sp.graph.sssp(A, s, delta=delta, info=info)
                out[("sssp", s, delta)] = (np.asarray(dist), info["frontier_sizes"], info["iterations"], info["buckets"])
        return out

    with sp.use_backend("numba"):
        runs["numba"] = run()
    assert counted == {"bfs_walk": 0, "delta_walk": 0}
    with sp.use_backend("generic"):
        runs["products"] = run()
    assert counted == {"bfs_walk": 0, "delta_walk": 0}  # a forced generic backend keeps the products
    for op in ("bfs_walk", "delta_walk"):
        monkeypatch.delitem(_dispatch._REGISTRY, (op, "csr", "numba"))
    with sp.use_backend("numba"):
        runs["twin"] = run()
    assert counted["bfs_walk"] >= 2 and counted["delta_walk"] >= 4
    for key, got in runs["numba"].items():
        records = slice(2, None) if key[0] == "bfs" else slice(1, None)  # sizes, iterations (, buckets)
        for other in ("twin", "products"):
            ref = runs[other][key]
            np.testing.assert_array_equal(got[0], ref[0], err_msg=f"{key} {other}")
            assert got[records] == ref[records], (key, other)
        if key[0] == "bfs":
            np.testing.assert_array_equal(got[1], runs["twin"][key][1])  # the walks pick the same parents
            levels, parents = runs["products"][key][:2]
            child = np.flatnonzero(levels > 0)
            assert (levels[parents[child]] == levels[child] - 1).all()


def _run(body, cache, **env):
    """``body`` (after GRID's set-up) in a fresh process with a kernel cache of its own."""
    full = dict(os.environ, SPARRAY_CACHE_DIR=str(cache), PYTHONPATH=ROOT)
    for name in ("SPARRAY_JIT", "SPARRAY_BACKEND", "NUMBA_CACHE_DIR"):
        full.pop(name, None)
    full.update(env)
    done = subprocess.run([sys.executable, "-c", GRID + textwrap.dedent(body)], env=full, capture_output=True, text=True,
                          timeout=900, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


GRID = """
import sys
import numpy as np, scipy.sparse as ss, sparray as sp
from scipy.sparse import csgraph
from sparray._engine import dispatch as _dispatch, jit as _jit
def grid(k):
    idx = np.arange(k * k).reshape(k, k)
    a, b = np.concatenate([idx[:, :-1].ravel(), idx[:-1].ravel()]), np.concatenate([idx[:, 1:].ravel(), idx[1:].ravel()])
    r, c = np.concatenate([a, b]), np.concatenate([b, a])
    w = np.random.default_rng(0).integers(1, 9, r.shape[0]) / 4.0
    return ss.csr_matrix((w, (r, c)), shape=(k * k, k * k)), (np.add.outer(np.arange(k), np.arange(k))).ravel()
calls, compiled = {"bfs_walk": 0, "delta_walk": 0}, []
background = _jit.compile_in_background
def queue(key, target, args):
    compiled.append(key)
    return background(key, target, args)
_jit.compile_in_background = queue
for op in calls:
    impl = _dispatch._generic(op, "csr")
    def spy(xp, *args, _impl=impl, _op=op):
        calls[_op] += 1
        return _impl(xp, *args)
    _dispatch._REGISTRY[(op, "csr", "generic")] = spy
"""


def test_a_small_graph_is_walked_without_starting_numba(tmp_path):
    out = _run("""
        M, hops = grid(20)                                  # 400 vertices: under SMALL_WORK with its edges
        A = sp.asarray(M)
        assert (np.asarray(sp.graph.bfs(A, 0)) == hops).all()
        assert np.array_equal(np.asarray(sp.graph.sssp(A, 0)), csgraph.dijkstra(M, indices=0))
        assert calls["bfs_walk"] == 1 and calls["delta_walk"] >= 1, calls
        print("numba" in sys.modules, "sparray.kernels.cpu.graph_walk" in sys.modules)
    """, tmp_path)
    assert out.split() == ["False", "False"], out


def test_a_cold_kernel_answers_through_the_twin_while_it_compiles(tmp_path):
    """SPARRAY_JIT=background with an empty kernel cache: the first bfs and sssp of a graph large
    enough for the kernels answer through the generic twins, right; the walks compile in the
    background, and then serve."""
    out = _run("""
        M, hops = grid(130)                                 # 16,900 vertices, 67,080 edges
        A = sp.asarray(M)
        assert _jit.mode() == "background" and not _jit._READY
        assert (np.asarray(sp.graph.bfs(A, 0)) == hops).all()
        dist = csgraph.dijkstra(M, indices=0)
        assert np.array_equal(np.asarray(sp.graph.sssp(A, 0)), dist)
        assert calls["bfs_walk"] == 1 and calls["delta_walk"] >= 1, calls
        queued = [k for k in compiled if k[0] in calls]
        assert sorted(k[0] for k in queued) == sorted(calls), compiled  # each walk queued once
        assert _jit.wait(800)
        assert all(_jit.ready(k) for k in queued)
        before = dict(calls)
        assert (np.asarray(sp.graph.bfs(A, 0)) == hops).all()
        assert np.array_equal(np.asarray(sp.graph.sssp(A, 0)), dist)
        assert calls == before, calls                   # the kernels served
        print("OK")
    """, tmp_path, SPARRAY_JIT="background")
    assert "OK" in out
