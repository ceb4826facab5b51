"""Level-scheduled triangular solves in any array namespace: ILU(0) and IC(0) applied on a GPU.

A sparse triangular solve is sequential row by row, but a row only waits for the rows its entries
read. The *level* of a row is one more than the highest level among the rows it reads (0 for a row
that reads none): the rows of one level are independent, so a solve is one step per level, each a
gather and a short row sum over the whole level at once (Anderson & Saad 1989; the scheme of
cuSPARSE's ``csrsv``). The 5-point Laplacian on a ``k x k`` grid in natural order has ``2k - 1``
levels per triangle.

The plan is made once on the host (:func:`plan`, with the factors from the numba kernels of
``sparray.kernels.cpu.ilu``) and moved to the device once; an application (:meth:`Triangular.solve`)
is then array-API calls only (``take``, ``reshape``, ``*``, ``sum``, slice assignment): no read
back to the host, no array sized by the data. To make each level a contiguous slice (basic
indexing, which every namespace has), the unknowns are renumbered level by level: ``perm[q]`` is
the row solved ``q``-th, and a level's entries read positions of earlier levels. A level's rows are
padded to its longest row (value 0, position 0), so its sum is one ``sum(axis=1)`` of a dense
``(rows, width)`` block: the padding costs memory only where one row of a level is much longer than
the others (an ILU(0) factor has the rows of ``A``).

>>> import numpy as np
>>> # L = [[2, 0, 0], [1, 4, 0], [0, 3, 5]]: levels {0}, {1}, {2}
>>> T = plan(np.array([0, 0, 1, 2]), np.array([0, 1]), np.array([1.0, 3.0]), np.array([2.0, 4.0, 5.0]), lower=True)
>>> T.levels, T.perm.tolist()
(3, [0, 1, 2])
>>> dev = T.to(np, np.float64, None)
>>> b = np.array([2.0, 9.0, 21.0])
>>> y = b[T.perm].copy(); dev.solve(np, y); y[np.argsort(T.perm)].tolist()
[1.0, 2.0, 3.0]
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes

__all__ = ["Triangular", "plan"]


def _levels(indptr, indices, lower):
    """The level of every row (int64): rows in increasing order for ``lower``, decreasing else."""
    from ._levels_kernel import levels

    return levels(indptr, indices, lower)


class Triangular:
    """One triangular factor as a level schedule on the host (NumPy arrays).

    ``perm`` (int64, n): the row solved at each position; ``starts`` (levels + 1): each level's
    first position; per level, ``cols`` ``(rows, width)`` the positions its entries read and
    ``vals`` their values (0 where padded); ``diag`` (n, by position) or None for a unit
    diagonal (a row's sum is divided by it, as the sequential kernels do)."""

    def __init__(self, perm, starts, cols, vals, diag):
        self.perm, self.starts, self.cols, self.vals, self.diag = perm, starts, cols, vals, diag
        self.levels = starts.shape[0] - 1
        self.n = perm.shape[0]

    def to(self, xp, dtype, device):
        """The schedule on ``xp``'s ``device`` in ``dtype`` (one copy of each array)."""
        return DeviceTriangular(self, xp, dtype, device)


class DeviceTriangular:
    """A :class:`Triangular` whose arrays live in namespace ``xp`` (see :meth:`solve`)."""

    def __init__(self, host, xp, dtype, device):
        def put(a, dt=None):
            return xp.asarray(np.ascontiguousarray(a, dtype=dt), device=device) if device is not None else xp.asarray(np.ascontiguousarray(a, dtype=dt))

        np_dtype = np.dtype(_dtypes.dtype_name(dtype))
        self.xp = xp
        self.steps = []
        starts = host.starts
        for lvl in range(host.levels):
            s, e = int(starts[lvl]), int(starts[lvl + 1])
            cols, vals = host.cols[lvl], host.vals[lvl]
            width = cols.shape[1]
            flat = put(cols.reshape(-1), np.int64) if width else None
            v = put(vals.astype(np_dtype)) if width else None
            d = put(host.diag[s:e].astype(np_dtype)) if host.diag is not None else None
            self.steps.append((s, e, width, flat, v, d))

    def solve(self, xp, y):
        """Solve in place on ``y`` (positions in the schedule's order; ``(n,)`` or ``(n, k)``)."""
        for s, e, width, flat, v, d in self.steps:
            if width:
                g = xp.take(y, flat, axis=0)
                if y.ndim == 1:
                    acc = xp.sum(v * xp.reshape(g, (e - s, width)), axis=1)
                else:
                    k = y.shape[1]
                    acc = xp.sum(xp.reshape(v, (e - s, width, 1)) * xp.reshape(g, (e - s, width, k)), axis=1)
                r = y[s:e, ...] - acc
            else:
                r = y[s:e, ...]
            if d is not None:
                r = r / (d if y.ndim == 1 else xp.reshape(d, (e - s, 1)))
            y[s:e, ...] = r


def plan(indptr, indices, values, diag, *, lower):
    """The level schedule of the triangular matrix whose off-diagonal part is the canonical CSR
    ``(indptr, indices, values)`` (int64 indices; every entry below the diagonal for ``lower``,
    above it else) and whose diagonal is ``diag`` (None: unit)."""
    n = indptr.shape[0] - 1
    level = _levels(indptr, indices, lower)
    perm = np.argsort(level, kind="stable").astype(np.int64)  # natural order inside a level
    if not lower:  # rows of a level in decreasing order, as the sequential backward solve meets them
        perm = np.lexsort((-np.arange(n), level)).astype(np.int64)
    pos = np.empty(n, np.int64)
    pos[perm] = np.arange(n, dtype=np.int64)
    nlev = int(level.max()) + 1 if n else 0
    starts = np.zeros(nlev + 1, np.int64)
    np.cumsum(np.bincount(level, minlength=nlev), out=starts[1:])
    lengths = np.diff(indptr)
    cols_out, vals_out = [], []
    for lvl in range(nlev):
        rows = perm[starts[lvl] : starts[lvl + 1]]
        lens = lengths[rows]
        width = int(lens.max()) if rows.shape[0] else 0
        cols = np.zeros((rows.shape[0], width), np.int64)
        vals = np.zeros((rows.shape[0], width), values.dtype)
        if width:
            slot = np.arange(width)
            mask = slot[None, :] < lens[:, None]
            src = (indptr[rows][:, None] + slot[None, :])[mask]
            cols[mask] = pos[indices[src]]
            vals[mask] = values[src]
        cols_out.append(cols)
        vals_out.append(vals)
    return Triangular(perm, starts, cols_out, vals_out, None if diag is None else diag[perm])
