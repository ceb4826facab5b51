"""Conjugate gradients on the 2-D Poisson matrix: the sparse solve every numerics course starts with.

The 5-point Laplacian on an ``n x n`` grid is built as a CSR array from its five diagonals; CG
needs only ``A @ p`` and a few dot products, so the same loop runs on NumPy data (numba kernels)
and, when CuPy sees a GPU, on CuPy data. The answer is checked against the residual and, for a
small grid, against a dense solve.

Run: python examples/conjugate_gradient.py [n]
"""

from __future__ import annotations

import sys
import time

import numpy as np

import sparray


def poisson2d(n: int, xp=np):
    """The (n*n, n*n) 5-point Laplacian (Dirichlet boundary) as CSR with components in ``xp``."""
    N = n * n
    i = np.arange(N)
    right = i[(i % n) != n - 1]  # has a right neighbour on its grid row
    below = i[: N - n]
    rows = np.concatenate([i, right, right + 1, below, below + n])
    cols = np.concatenate([i, right + 1, right, below + n, below])
    vals = np.concatenate([np.full(N, 4.0), -np.ones(2 * right.size), -np.ones(2 * below.size)])
    A = sparray.COO(np.stack([rows, cols]), vals, shape=(N, N)).coalesce().to_layout("csr")
    if xp is not np:
        A = sparray.CSR(xp.asarray(A.crow_indices), xp.asarray(A.col_indices), xp.asarray(A.values), shape=A.shape)
    return A


def cg(A, b, *, tol=1e-8, maxiter=10_000):
    """Solve ``A x = b`` for a symmetric positive definite sparse ``A``; returns (x, iterations)."""
    x = b * 0
    r = b - A @ x
    p = r.copy()
    rr = float(r @ r)
    stop = tol * float((b @ b) ** 0.5)
    for k in range(1, maxiter + 1):
        Ap = A @ p
        alpha = rr / float(p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rr_new = float(r @ r)
        if rr_new**0.5 < stop:
            return x, k
        p = r + (rr_new / rr) * p
        rr = rr_new
    raise RuntimeError(f"cg: no convergence in {maxiter} iterations (residual {rr**0.5:.3e})")


def run(n: int, xp=np, name="numpy"):
    A = poisson2d(n, xp)
    b = xp.ones(n * n)
    t = time.perf_counter()
    x, iters = cg(A, b)
    dt = time.perf_counter() - t
    residual = float(xp.linalg.norm(b - A @ x) / xp.linalg.norm(b))
    print(f"{name}: {n}x{n} grid, nse={A.nse}, CG converged in {iters} iterations, "
          f"{dt * 1e3:.1f} ms, relative residual {residual:.2e}")
    assert residual < 1e-7
    return A, x


def main(n: int = 64):
    run(n)
    small, x = run(12)
    exact = np.linalg.solve(small.to_dense(), np.ones(144))
    assert np.allclose(x, exact, rtol=1e-6, atol=1e-9)
    print("matches numpy.linalg.solve on the 12x12 grid")
    try:
        import cupy

        if cupy.is_available():
            run(n, cupy, "cupy")
    except ImportError:
        pass


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
