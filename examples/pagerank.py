"""PageRank on a power-law graph: a sparse matrix-vector product per iteration.

A random directed graph whose out-degrees follow a Zipf law (a few hubs, many small pages) is
stored as a CSR adjacency matrix ``A[i, j] = 1`` for a link ``i -> j``. The transition matrix
``P = D^-1 A`` is a row scaling of the values; one PageRank step is ``r <- d * P.T @ r +
(d * dangling mass + 1 - d) / n``, with ``P.T`` a CSC view of the same buffers (no copy).
Checked against a dense power iteration on a small graph.

Run: python examples/pagerank.py [n]
"""

from __future__ import annotations

import sys
import time

import numpy as np

import sparray


def power_law_graph(n: int, avg_degree: float = 8.0, seed: int = 0):
    """A CSR adjacency matrix with Zipf-distributed out-degrees and preferential targets."""
    rng = np.random.default_rng(seed)
    degree = np.minimum(rng.zipf(2.0, size=n), n - 1)
    degree = np.maximum(0, (degree * avg_degree / degree.mean()).astype(np.int64))
    src = np.repeat(np.arange(n), degree)
    popularity = 1.0 / np.arange(1, n + 1) ** 0.8  # targets: a few pages get most links
    dst = rng.choice(n, size=src.size, p=popularity / popularity.sum())
    keep = src != dst
    A = sparray.COO(np.stack([src[keep], dst[keep]]), np.ones(int(keep.sum())), shape=(n, n)).coalesce()
    A = sparray.COO(A.indices, np.ones(A.nse), shape=(n, n))  # repeated links count once
    return A.to_layout("csr")


def pagerank(A, d: float = 0.85, tol: float = 1e-10, maxiter: int = 200):
    """PageRank of the graph ``A`` (CSR adjacency); returns (ranks summing to 1, iterations)."""
    n = A.shape[0]
    out_degree = np.diff(np.asarray(A.crow_indices))
    scale = np.zeros(n)
    scale[out_degree > 0] = 1.0 / out_degree[out_degree > 0]
    P = sparray.CSR(A.crow_indices, A.col_indices, np.repeat(scale, out_degree), shape=A.shape)
    PT = P.mT  # CSC view: P.T @ r without a transpose copy
    dangling = out_degree == 0
    r = np.full(n, 1.0 / n)
    for k in range(1, maxiter + 1):
        new = d * (PT @ r) + (d * r[dangling].sum() + 1.0 - d) / n
        if np.abs(new - r).sum() < tol:
            return new, k
        r = new
    raise RuntimeError(f"pagerank: no convergence in {maxiter} iterations")


def dense_pagerank(M, d=0.85, iters=200):
    n = M.shape[0]
    deg = M.sum(axis=1)
    P = np.divide(M, deg[:, None], out=np.zeros_like(M), where=deg[:, None] > 0)
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        r = d * P.T @ r + (d * r[deg == 0].sum() + 1 - d) / n
    return r


def main(n: int = 200_000):
    A = power_law_graph(n)
    t = time.perf_counter()
    r, iters = pagerank(A)
    dt = time.perf_counter() - t
    top = np.argsort(r)[::-1][:5]
    print(f"graph: {n} pages, {A.nse} links; PageRank in {iters} iterations, {dt * 1e3:.0f} ms")
    print(f"top pages: {top.tolist()} with ranks {np.round(r[top], 5).tolist()}")
    assert abs(r.sum() - 1.0) < 1e-8
    small = power_law_graph(300, seed=1)
    r_small, _ = pagerank(small)
    assert np.allclose(r_small, dense_pagerank(small.to_dense()), atol=1e-9)
    print("matches a dense power iteration on a 300-page graph")
    return r


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
