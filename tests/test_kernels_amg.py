"""The numba kernels of smoothed aggregation (sparray.kernels.cpu.amg), against their definitions,
dense NumPy and pyamg's own kernels (when pyamg is installed), and on bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as ss

from sparray.kernels.cpu import amg as k


def random_symmetric(n, density, seed):
    rng = np.random.default_rng(seed)
    S = ss.random(n, n, density, random_state=rng, format="csr")
    S = (S + S.T).tocsr()
    S.setdiag(rng.random(n) + 1.0)
    S.sum_duplicates()
    S.sort_indices()
    return S


@pytest.mark.parametrize("theta", [0.0, 0.25, 0.5])
def test_strength_is_the_symmetric_measure(theta):
    S = random_symmetric(60, 0.08, 1)
    sp, sj = k.symmetric_strength(S.indptr, S.indices, S.data, theta)
    D = S.toarray()
    d = np.abs(np.diag(D))
    want = (np.abs(D) >= theta * np.sqrt(np.outer(d, d))) & (D != 0) & ~np.eye(60, dtype=bool)
    got = np.zeros_like(want)
    rows = np.repeat(np.arange(60), np.diff(sp))
    got[rows, sj] = True
    np.testing.assert_array_equal(got, want)


def check_aggregates(sp, sj, agg, count):
    n = sp.shape[0] - 1
    has = np.diff(sp) > 0
    assert ((agg >= 0) == has).all()  # a node with neighbours is in an aggregate, a lone node in none
    assert set(np.unique(agg[agg >= 0]).tolist()) == set(range(count))
    G = ss.csr_matrix((np.ones(sj.shape[0]), sj, sp), shape=(n, n))
    for a in range(count):  # every aggregate is connected in the strength graph
        members = np.flatnonzero(agg == a)
        ncomp, _ = ss.csgraph.connected_components(G[members][:, members], directed=False)
        assert ncomp == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_standard_aggregation(seed):
    S = random_symmetric(200, 0.02, seed)
    sp, sj = k.symmetric_strength(S.indptr, S.indices, S.data, 0.0)
    agg, count = k.standard_aggregation(sp, sj)
    check_aggregates(sp, sj, agg, count)
    pyamg = pytest.importorskip("pyamg")
    C = ss.csr_array((np.ones(sj.shape[0]), sj, sp), shape=S.shape)
    AggOp, _ = pyamg.aggregation.standard_aggregation(C)
    theirs = np.full(200, -1)
    r, c = AggOp.nonzero()
    theirs[r] = c
    np.testing.assert_array_equal(agg, theirs)


def test_aggregation_of_a_path_and_lone_nodes():
    # 0-1-2-3-4 path, node 5 alone
    sp = np.array([0, 1, 3, 5, 7, 8, 8])
    sj = np.array([1, 0, 2, 1, 3, 2, 4, 3])
    agg, count = k.standard_aggregation(sp, sj)
    assert agg.tolist() == [0, 0, 1, 1, 1, -1] and count == 2


@pytest.mark.parametrize("K,bs", [(1, 1), (3, 2), (2, 2)])
def test_fit_candidates(K, bs):
    rng = np.random.default_rng(K + bs)
    nodes, count = 40, 7
    agg = rng.integers(-1, count, nodes)
    agg[:count] = np.arange(count)  # every aggregate used
    B = rng.standard_normal((nodes * bs, K))
    (ptr, idx, val), Bc = k.fit_candidates(agg, count, B, bs)
    T = ss.csr_matrix((val, idx, ptr), shape=(nodes * bs, count * K)).toarray()
    inside = np.repeat(agg, bs) >= 0
    np.testing.assert_allclose(T @ Bc, np.where(inside[:, None], B, 0), atol=1e-12)
    G = T.T @ T
    used = np.abs(np.diag(G)) > 0.5
    np.testing.assert_allclose(G[np.ix_(used, used)], np.eye(used.sum()), atol=1e-12)
    assert (T[~inside] == 0).all()


def test_fit_candidates_drops_a_dependent_column():
    agg = np.array([0, 0, 0])
    B = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])  # the second column is twice the first
    (ptr, idx, val), Bc = k.fit_candidates(agg, 1, B)
    T = ss.csr_matrix((val, idx, ptr), shape=(3, 2)).toarray()
    np.testing.assert_allclose(T[:, 1], 0)
    np.testing.assert_allclose(T @ Bc, B, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("sweep", ["forward", "backward", "symmetric"])
def test_gauss_seidel_against_the_dense_sweep(dtype, sweep):
    S = random_symmetric(30, 0.2, 4).astype(dtype)
    if np.dtype(dtype).kind == "c":
        S = (S + 0.1j * ss.random(30, 30, 0.1, random_state=5, format="csr")).tocsr()
    D = S.toarray()
    rng = np.random.default_rng(3)
    b = rng.standard_normal(30).astype(dtype)
    x0 = rng.standard_normal(30).astype(dtype)
    want = x0.astype(np.complex128).copy()
    order = {"forward": [range(30)], "backward": [range(29, -1, -1)], "symmetric": [range(30), range(29, -1, -1)]}[sweep]
    for _ in range(2):
        for rows in order:
            for i in rows:
                want[i] = (b[i] - D[i] @ want + D[i, i] * want[i]) / D[i, i]
    dinv = (1 / np.diag(D)).astype(dtype)
    x = x0.copy()
    k.gauss_seidel(S.indptr, S.indices.astype(np.int64), S.data, dinv, x, b, sweep, 2)
    tol = 1e-4 if dtype == "float32" else 1e-12
    want = want if np.dtype(dtype).kind == "c" else want.real
    np.testing.assert_allclose(x, want.astype(dtype), rtol=tol, atol=tol)


def test_gauss_seidel_skips_a_row_with_zero_diagonal():
    indptr, indices, values = np.array([0, 1, 2]), np.array([0, 1]), np.array([2.0, 0.0])
    x = np.array([5.0, 7.0])
    k.gauss_seidel(indptr, indices, values, np.array([0.5, 0.0]), x, np.array([2.0, 3.0]), "forward", 1)
    assert x.tolist() == [1.0, 7.0]


def test_bad_structure_is_a_value_error_not_a_crash():
    with pytest.raises(ValueError, match="column index"):
        k.symmetric_strength(np.array([0, 1, 2]), np.array([0, 5]), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="pointers"):
        k.symmetric_strength(np.array([0, 3, 2]), np.array([0, 1]), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="column index"):
        k.standard_aggregation(np.array([0, 1, 2]), np.array([1, -1]))
    with pytest.raises(ValueError, match="column index"):
        k.gauss_seidel(np.array([0, 1, 2]), np.array([0, 9]), np.ones(2), np.ones(2), np.zeros(2), np.ones(2))
    with pytest.raises(ValueError, match="pointers"):
        k.gauss_seidel(np.array([0, 1]), np.array([0, 1]), np.ones(2), np.ones(2), np.zeros(2), np.ones(2))
    with pytest.raises(ValueError, match="aggregate id"):
        k.fit_candidates(np.array([0, 3]), 2, np.ones((2, 1)))


def hybrid_reference(D, b, x0, blocks, order):
    """Hybrid Gauss-Seidel in NumPy: each block sweeps its rows, reading its own unknowns as they
    change and the others' from the sweep's start."""
    x = x0.astype(np.float64).copy()
    n = x.shape[0]
    bounds = (np.arange(blocks + 1) * n) // blocks
    for direction in order:
        old = x.copy()
        for blk in range(blocks):
            lo, hi = bounds[blk], bounds[blk + 1]
            rows = range(lo, hi) if direction == "forward" else range(hi - 1, lo - 1, -1)
            for i in rows:
                v = old.copy()
                v[lo:hi] = x[lo:hi]
                x[i] += (b[i] - D[i] @ v) / D[i, i]
    return x


@pytest.mark.parametrize("sweep", ["forward", "backward", "symmetric"])
def test_hybrid_gauss_seidel(sweep, monkeypatch):
    import numba

    monkeypatch.setattr(k, "BLOCK_ROWS_MIN", 64)
    S = random_symmetric(150, 0.05, 7)
    D = S.toarray()
    rng = np.random.default_rng(8)
    b, x0 = rng.standard_normal(150), rng.standard_normal(150)
    dinv = 1 / np.diag(D)
    order = {"forward": ["forward"], "backward": ["backward"], "symmetric": ["forward", "backward"]}[sweep]
    want = hybrid_reference(D, b, x0, k.BLOCKS, order * 2)
    results = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            x = x0.copy()
            k.gauss_seidel(S.indptr, S.indices, S.data, dinv, x, b, sweep, 2)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        results.append(x)
        np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(results[0], results[1])  # the same bits on any number of threads


def test_hybrid_symmetric_sweep_is_a_symmetric_operator(monkeypatch):
    """x = M b from x = 0: M of the symmetric hybrid sweep is symmetric (a smoother for cg)."""
    monkeypatch.setattr(k, "BLOCK_ROWS_MIN", 16)
    S = random_symmetric(40, 0.15, 9)
    dinv = 1 / S.diagonal()
    M = np.empty((40, 40))
    for j in range(40):
        x = np.zeros(40)
        k.gauss_seidel(S.indptr, S.indices, S.data, dinv, x, np.eye(40)[j], "symmetric", 1)
        M[:, j] = x
    np.testing.assert_allclose(M, M.T, atol=1e-13)


def test_hybrid_bad_structure_is_a_value_error(monkeypatch):
    monkeypatch.setattr(k, "BLOCK_ROWS_MIN", 1)
    i32 = np.int32  # the parallel kernel's int32 compilation, which the tests above use too
    with pytest.raises(ValueError, match="column index"):
        k.gauss_seidel(np.array([0, 1, 2], i32), np.array([0, 9], i32), np.ones(2), np.ones(2), np.zeros(2), np.ones(2))
