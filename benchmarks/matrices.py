"""Seeded synthetic sparse matrices for the sparray benchmarks.

Every generator returns ``(row, col, values, shape)`` where ``row`` and
``col`` are int64 NumPy arrays, ``values`` is a float64 NumPy array (all of
the same length, the number of specified elements "nse") and ``shape`` is a
tuple of two Python ints.  Everything is generated with vectorised NumPy from
an explicit seed; nothing is cached on disk.

Default sizes give about 1e7 specified elements; :func:`get` takes a
``scale`` factor (``scale=0.01`` gives about 1e5) for quick runs and tests.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "poisson2d",
    "uniform_random",
    "rmat",
    "dense_random",
    "block_stencil",
    "duplicate_fraction",
    "get",
    "to_dense",
    "MATRIX_NAMES",
]


def _linear(row, col, ncols):
    return row * np.int64(ncols) + col


def _sorted_unique(x):
    # np.unique is much slower than sort + mask for large int64 arrays in
    # recent NumPy, so do it by hand.
    x = np.sort(x)
    if x.size:
        keep = np.empty(x.size, dtype=bool)
        keep[0] = True
        np.not_equal(x[1:], x[:-1], out=keep[1:])
        x = x[keep]
    return x


def poisson2d(n: int, dtype=np.float64):
    """5-point 2-D Poisson (Laplacian) stencil on an ``n x n`` grid.

    Returns an ``(n*n, n*n)`` matrix with 4 on the diagonal and -1 for each of
    the (up to four) grid neighbours (Dirichlet boundary), i.e.
    ``5*n*n - 4*n`` entries.  Entries are in row-major sorted order with no
    duplicates (the matrix is coalesced).  ``n=1415`` gives ~1e7 entries.
    """
    n = int(n)
    if n < 1:
        raise ValueError("n must be >= 1")
    N = n * n
    k = np.arange(N, dtype=np.int64)
    i, j = np.divmod(k, n)  # grid coordinates of each row
    # Offsets in column order: up (-n), left (-1), centre, right (+1), down (+n).
    offsets = np.array([-n, -1, 0, 1, n], dtype=np.int64)
    valid = np.stack(
        [i > 0, j > 0, np.ones(N, dtype=bool), j < n - 1, i < n - 1], axis=1
    )  # (N, 5)
    cols = k[:, None] + offsets[None, :]
    vals = np.where(offsets == 0, 4.0, -1.0).astype(dtype)
    row = np.broadcast_to(k[:, None], (N, 5))[valid]
    col = cols[valid]
    values = np.broadcast_to(vals[None, :], (N, 5))[valid]
    return (
        np.ascontiguousarray(row, dtype=np.int64),
        np.ascontiguousarray(col, dtype=np.int64),
        np.ascontiguousarray(values, dtype=np.float64),
        (N, N),
    )


def uniform_random(
    nrows: int = 1_000_000,
    ncols: int = 1_000_000,
    nse: int = 10_000_000,
    seed: int = 0,
    unique: bool = True,
    sort: bool = True,
):
    """Uniformly random positions in an ``nrows x ncols`` matrix.

    ``unique=True`` removes duplicate positions and keeps drawing until there
    are exactly ``nse`` distinct positions (requires ``nse <= nrows*ncols``);
    ``unique=False`` keeps the raw draws, duplicates included.  With
    ``sort=True`` entries come in row-major order (for ``unique=True`` that
    makes the result coalesced); otherwise in random order.  Values are
    uniform in [0.5, 1.5) so sums never cancel.
    """
    nrows, ncols, nse = int(nrows), int(ncols), int(nse)
    total = nrows * ncols
    if unique and nse > total:
        raise ValueError("nse larger than the number of positions")
    rng = np.random.default_rng(seed)
    lin = rng.integers(0, total, size=nse, dtype=np.int64)
    if unique:
        lin = _sorted_unique(lin)
        while lin.size < nse:  # only a handful of redraws in practice
            extra = rng.integers(0, total, size=max(2 * (nse - lin.size), 16), dtype=np.int64)
            lin = _sorted_unique(np.concatenate([lin, extra]))
        if lin.size > nse:
            # Drop a random subset of the (small) surplus, keeping sorted order.
            drop = rng.choice(lin.size, size=lin.size - nse, replace=False)
            lin = np.delete(lin, drop)
        if not sort:
            lin = lin[rng.permutation(nse)]
    elif sort:
        lin = np.sort(lin)
    row, col = np.divmod(lin, np.int64(ncols))
    values = rng.random(nse) + 0.5
    return row.astype(np.int64), col.astype(np.int64), values, (nrows, ncols)


def rmat(
    scale: int = 20,
    nse: int = 10_000_000,
    seed: int = 0,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
):
    """R-MAT power-law graph edge list on ``2**scale x 2**scale``.

    Each edge independently picks, for each of the ``scale`` bit levels, one of
    the four quadrants with probabilities ``a, b, c, d = 1-a-b-c``
    (Chakrabarti et al. 2004, Graph500 parameters by default).  Edges are in
    random order (they are i.i.d.) and duplicate edges are kept; use
    :func:`duplicate_fraction` to get the real fraction.  Values are uniform
    in [0.5, 1.5).
    """
    scale, nse = int(scale), int(nse)
    d = 1.0 - a - b - c
    if min(a, b, c, d) < 0:
        raise ValueError("a, b, c must be >= 0 with a + b + c <= 1")
    rng = np.random.default_rng(seed)
    row = np.zeros(nse, dtype=np.int64)
    col = np.zeros(nse, dtype=np.int64)
    ab, abc = a + b, a + b + c
    for _level in range(scale):  # loop over bit levels only, vectorised over edges
        u = rng.random(nse)
        row_bit = u >= ab  # quadrant c or d
        col_bit = ((u >= a) & (u < ab)) | (u >= abc)  # quadrant b or d
        row <<= 1  # most significant bit first
        row += row_bit
        col <<= 1
        col += col_bit
    values = rng.random(nse) + 0.5
    n = 1 << scale
    return row, col, values, (n, n)


def block_stencil(n: int, b: int = 4, seed: int = 6):
    """The 5-point stencil on an ``n x n`` grid with each entry a dense ``b x b`` block of random
    values (a system with ``b`` unknowns per grid point), sorted row-major, no duplicates."""
    brow, bcol, _, (N, _) = poisson2d(n)
    p, q = np.divmod(np.arange(b * b, dtype=np.int64), b)
    row = (brow[:, None] * b + p[None, :]).ravel()
    col = (bcol[:, None] * b + q[None, :]).ravel()
    order = np.argsort(row * np.int64(N * b) + col, kind="stable")
    values = np.random.default_rng(seed).random(row.size) + 0.5
    return row[order], col[order], values, (N * b, N * b)


def dense_random(n: int = 5000, density: float = 0.1, seed: int = 4):
    """Non-zeros of an ``n x n`` matrix with ``round(density * n * n)`` distinct random positions.

    Returned as ``(row, col, values, shape)`` like the other generators (row-major sorted, no
    duplicates, values in [0.5, 1.5) so none is zero); :func:`to_dense` scatters them into the
    dense float64 NumPy array that the ``dense->CSR`` benchmark converts.
    """
    n = int(n)
    nse = round(float(density) * n * n)
    return uniform_random(n, n, nse, seed=seed, unique=True, sort=True)


def to_dense(row, col, values, shape):
    """Dense C-contiguous NumPy array with ``values`` at ``(row, col)`` (no duplicates assumed)."""
    out = np.zeros(shape, dtype=values.dtype)
    out[row, col] = values
    return out


def duplicate_fraction(row, col, shape) -> float:
    """Fraction of entries that repeat an earlier (row, col) position."""
    if len(row) == 0:
        return 0.0
    lin = _linear(np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64), shape[1])
    n_unique = _sorted_unique(lin).size
    return 1.0 - n_unique / len(lin)


# --------------------------------------------------------------------------
# Named matrices at a given scale (scale=1 -> ~1e7 nse)

MATRIX_NAMES = ("rmat", "rmat_t", "uniform", "uniform_b", "poisson", "poisson_t", "poisson1m", "random5e5", "block4",
                "dense10")


def get(name: str, scale: float = 1.0):
    """Return ``(row, col, values, shape)`` for a named benchmark matrix.

    * ``rmat``: R-MAT, 2**20 x 2**20, 1e7 edges (duplicates kept, random order)
    * ``uniform`` / ``uniform_b``: 1e6 x 1e6, 1e7 distinct uniformly random
      positions, row-major sorted (coalesced); different seeds, so different
      patterns (the two operands of ``A + B``)
    * ``poisson``: 5-point stencil on a 1415 x 1415 grid (~1e7 nse)
    * ``poisson1m``: 5-point stencil on a 1000 x 1000 grid (1e6 rows, 5e6 nse)
    * ``random5e5``: 1e5 x 1e5 with 5e5 uniformly random positions
    * ``block4``: the 5-point stencil on a 354 x 354 grid with every entry a dense
      4x4 block (5e5 rows, ~1e7 nse): a BSR-friendly matrix
    * ``dense10``: the non-zeros of a 5000 x 5000 matrix with 10% of its
      entries non-zero (2.5e6 nse, sorted); benchmarks build the dense NumPy
      array from them with :func:`to_dense`
    * ``<name>_t`` (``rmat_t``, ``poisson_t``): the transpose of ``<name>``
      (rows and columns swapped, so no longer sorted): the second operand of
      ``A + B`` rows that add a matrix and its transpose. ``poisson`` is
      symmetric, so ``poisson_t`` holds the same entries (one pattern)

    ``scale`` multiplies the number of specified elements (and the matrix
    dimensions so that density stays comparable).  ``dense10`` is the
    exception at the low end: its side is at least 100 (1000 nse).
    """
    scale = float(scale)
    if scale <= 0:
        raise ValueError("scale must be > 0")
    if name.endswith("_t") and name in MATRIX_NAMES:
        row, col, values, (n, m) = get(name[:-2], scale)
        return col, row, values, (m, n)
    nse = max(16, int(round(10_000_000 * scale)))
    if name == "rmat":
        s = max(4, int(round(20 + math.log2(scale))))
        return rmat(scale=s, nse=nse, seed=1)
    if name in ("uniform", "uniform_b"):
        n = max(64, int(round(1_000_000 * scale)))
        seed = 2 if name == "uniform" else 3
        return uniform_random(n, n, nse, seed=seed, unique=True, sort=True)
    if name == "poisson":
        n = max(3, int(round(1415 * math.sqrt(scale))))
        return poisson2d(n)
    if name == "poisson1m":  # the 1e6-row stencil of the SpGEMM row (5e6 nse)
        n = max(3, int(round(1000 * math.sqrt(scale))))
        return poisson2d(n)
    if name == "random5e5":  # 1e5 x 1e5 with 5e5 uniformly random entries (SpGEMM row)
        n = max(64, int(round(100_000 * scale)))
        return uniform_random(n, n, max(16, int(round(500_000 * scale))), seed=5, unique=True, sort=True)
    if name == "block4":
        n = max(2, int(round(354 * math.sqrt(scale))))
        return block_stencil(n, 4)
    if name == "dense10":
        n = max(100, round(5000 * math.sqrt(scale)))
        return dense_random(n, 0.1, seed=4)
    raise KeyError(f"unknown matrix {name!r}; choose from {MATRIX_NAMES}")
