"""Conjugate gradients on the 2-D Poisson matrix: the sparse solve every numerics course starts with.

The 5-point Laplacian on an ``n x n`` grid is built as a CSR array from its five diagonals and
solved with ``sparray.linalg.cg`` (scipy's signature: ``x, info = cg(A, b, rtol=...)``), plain
and preconditioned (``M=sparray.linalg.ichol0(A)``, incomplete Cholesky, on NumPy data;
``M=sparray.linalg.jacobi(A)`` on CuPy data). The solver needs only ``A @ p``
and a few dot products, so the same call runs on NumPy data (numba kernels) and, when CuPy sees a
GPU, on CuPy data (the vectors stay on the GPU; one number per iteration, the residual norm,
comes to the host). The answer is checked against the residual and, for a small grid, against a
dense solve.

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


def run(n: int, xp=np, name="numpy"):
    A = poisson2d(n, xp)
    b = xp.ones(n * n)
    # IC(0) (numba kernels) on NumPy data; Jacobi, which runs in every namespace, elsewhere
    pre = ("CG + IC(0)", sparray.linalg.ichol0(A)) if xp is np else ("CG + Jacobi", sparray.linalg.jacobi(A))
    for label, M in (("CG", None), pre):
        iters = [0]

        def count(_x):
            iters[0] += 1

        t = time.perf_counter()
        x, info = sparray.linalg.cg(A, b, rtol=1e-8, M=M, callback=count)
        dt = time.perf_counter() - t
        if info != 0:
            raise RuntimeError(f"{label}: no convergence (info={info})")
        residual = float(xp.linalg.norm(b - A @ x) / xp.linalg.norm(b))
        print(f"{name}: {n}x{n} grid, nse={A.nse}, {label} converged in {iters[0]} iterations, "
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
