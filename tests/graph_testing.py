"""Random graphs for the graph tests (edge lists as NumPy arrays): R-MAT, Erdos-Renyi and grids."""

from __future__ import annotations

import numpy as np

__all__ = ["rmat_edges", "er_edges", "grid_edges"]


def rmat_edges(rng, scale, factor=8):
    """R-MAT (a, b, c = 0.57, 0.19, 0.19) edges as generated: repeats and self-loops kept."""
    n, m = 1 << scale, factor << scale
    row, col = np.zeros(m, np.int64), np.zeros(m, np.int64)
    for _ in range(scale):
        u = rng.random(m)
        row = (row << 1) | (u >= 0.76)
        col = (col << 1) | (((u >= 0.57) & (u < 0.76)) | (u >= 0.95))
    perm = rng.permutation(n)
    return n, perm[row], perm[col]


def er_edges(rng, n, p):
    keep = rng.random((n, n)) < p
    r, c = np.nonzero(keep)
    return n, r, c


def grid_edges(side_r, side_c):
    ids = np.arange(side_r * side_c).reshape(side_r, side_c)
    r = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    c = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return side_r * side_c, np.concatenate([r, c]), np.concatenate([c, r])
