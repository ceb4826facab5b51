"""Algebraic multigrid (smoothed aggregation): :func:`amg` and its :class:`MultilevelSolver`.

- :mod:`.setup` -- the hierarchy, built on the host (strength, aggregation, prolongators, Galerkin
  products), NumPy and the numba kernels of ``sparray.kernels.cpu.amg``;
- :mod:`.smoothers` -- Gauss-Seidel (NumPy), Jacobi and Chebyshev (any namespace);
- :mod:`.solver` -- the options, the levels in the matrix's namespace, the cycles, ``solve``.
"""

from .solver import Level, MultilevelSolver, amg

__all__ = ["Level", "MultilevelSolver", "amg"]
