"""Conjugate gradients with the matrix distributed by row blocks over a Dask cluster.

The 2-D Poisson matrix (the 5-point Laplacian of ``conjugate_gradient.py``) is cut into row blocks
of sparray CSR arrays (``sparray.interop.dask.from_sparray``) that live on the workers of a
``dask.distributed.LocalCluster`` (two worker processes on this machine, loopback only). Each CG
iteration sends the search direction ``p`` to the workers and gets ``A @ p`` back, one SpMV per
block; the vector updates and dot products (n numbers against the matrix's 5n) stay on the client.
The residual history is printed and the answer checked against scipy's direct solve (a dense
solve when scipy is not installed).

Run: python examples/distributed_cg.py [n]     (an n x n grid; default 32, a few seconds)
"""

from __future__ import annotations

import os
import runpy
import sys
import time

import numpy as np

from sparray.interop.dask import from_sparray

poisson2d = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "conjugate_gradient.py"))["poisson2d"]


def distributed_cg(X, b, *, tol=1e-8, maxiter=10_000, history=None):
    """Solve ``X x = b`` for a symmetric positive definite Dask array ``X`` of sparse row blocks.

    Every product ``X @ p`` runs on the cluster; ``history`` (a list) receives the relative
    residual of every iteration. Returns ``x`` (NumPy).
    """
    x = np.zeros_like(b)
    r = b.copy()  # b - X @ 0
    p = r.copy()
    rr = float(r @ r)
    norm_b = float(b @ b) ** 0.5
    for k in range(1, maxiter + 1):
        Ap = (X @ p).compute()  # one SpMV per row block, on the workers that hold the blocks
        alpha = rr / float(p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rr_new = float(r @ r)
        if history is not None:
            history.append(rr_new**0.5 / norm_b)
        if rr_new**0.5 < tol * norm_b:
            return x
        p = r + (rr_new / rr) * p
        rr = rr_new
    raise RuntimeError(f"distributed_cg: no convergence in {maxiter} iterations")


def reference_solve(A, b):
    try:
        import scipy.sparse
        import scipy.sparse.linalg
    except ImportError:
        return np.linalg.solve(A.to_dense(), b), "a dense solve"
    S = scipy.sparse.csr_array((A.values, A.col_indices, A.crow_indices), shape=A.shape)
    return scipy.sparse.linalg.spsolve(S.tocsc(), b), "scipy.sparse.linalg.spsolve"


def main(n: int = 32, blocks: int = 4, client=None):
    """CG on the n x n grid's Poisson matrix in ``blocks`` row blocks; uses ``client`` or starts a
    two-worker LocalCluster on 127.0.0.1. Returns the solution."""
    from distributed import Client, LocalCluster, wait

    own = client is None
    if own:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        A = poisson2d(n)
        N = A.shape[0]
        step = -(-N // blocks)
        X = from_sparray(A, chunks=(step, N)).persist()  # the row blocks move to the workers once
        wait(X)
        where = client.who_has(X)
        print(f"Poisson {n}x{n}: {N} unknowns, {A.nse} entries in {len(X.chunks[0])} CSR row blocks "
              f"on {len({w for ws in where.values() for w in ws})} workers")
        b = np.ones(N)
        history = []
        t = time.perf_counter()
        x = distributed_cg(X, b, history=history)
        dt = time.perf_counter() - t
        print(f"CG converged in {len(history)} iterations, {dt:.2f} s ({dt / len(history) * 1e3:.1f} ms per iteration)")
        print("relative residual every 10 iterations: " + ", ".join(f"{h:.1e}" for h in history[::10]) + f", {history[-1]:.1e}")
        residual = np.linalg.norm(b - (X @ x).compute()) / np.linalg.norm(b)
        exact, how = reference_solve(A, b)
        error = np.abs(x - exact).max() / np.abs(exact).max()
        print(f"final residual {residual:.1e}; largest relative difference from {how}: {error:.1e}")
        assert residual < 1e-7 and error < 1e-6
        print("matches the single-process solution")
        return x
    finally:
        if own:
            client.close()
            cluster.close()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
