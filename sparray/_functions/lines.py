"""Lines of a sparse array along one sparse axis: the common form of the functions that work
along an axis (argmax/argmin, sort/argsort, cumulative sums and products).

A *line* is the set of positions that differ only in their coordinate along ``axis``: the line
of the sparse position ``(i_0, ..., i_axis, ..., i_s-1)`` is its position in the other sparse
dims (its *line key*, linear in row-major order over ``kept_shape``). Every line holds ``n``
positions; ``cnt`` of them are specified and the other ``n - cnt`` hold the fill. A specified
position holds a whole dense part, so each line is ``m`` columns wide (``m`` = the number of
elements of the dense part), column ``j`` having the fill ``fill_row[j]``.

:func:`lines_of` returns the lines that hold at least one specified element, as CSR-like runs:

- ``keys`` (L,) int64, increasing: the line key of each such line;
- ``offsets`` (L + 1,) int64: line ``i`` owns entries ``offsets[i]:offsets[i + 1]``;
- ``pos`` (nse,) int64: each entry's coordinate along ``axis``, strictly increasing in a line;
- ``rows`` (nse, m): each entry's dense part; ``line`` (nse,) int64: its line number in [0, L);
- ``fill_row`` (m,): the fill of each column; ``fill``: the array's fill as it is (0-d or dense-part).

Lines without any specified element hold the fill only; the functions treat them as a block.

How they are found: a COO is coalesced (unique positions, row-major order); its entries are
then sorted by line key (a stable sort, skipped when ``axis`` is the last sparse dim: the
coalesced order is then line order already). Within a line, row-major order is order along
``axis``. An unbatched, unblocked CSR along its columns (CSC: along its rows) already is this
form: the compressed rows are the lines, no sort and no COO. Further layout fast paths belong in
:func:`lines_of`.

>>> import sparray
>>> A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3))
>>> L = lines_of(A, 0)
>>> L.keys.tolist(), L.offsets.tolist(), L.pos.tolist()
([0, 2], [0, 1, 3], [1, 0, 1])
"""

from __future__ import annotations

import math

from .._core.keys import index_dtype_for, linear_keys, unravel

__all__ = ["Lines", "lines_of", "coo_of"]


def coo_of(x):
    """The coalesced, range-checked COO form of SparseArray ``x``."""
    A = (x if x.layout == "coo" else x.to_layout("coo")).coalesce()
    A._check_contents()
    return A


class Lines:
    """The specified lines of an array along one sparse axis (see the module docstring)."""

    def __init__(self, xp, shape, sparse_ndim, axis, keys, offsets, pos, rows, fill, index_dtype):
        self.xp, self.shape, self.sparse_ndim, self.axis = xp, tuple(shape), sparse_ndim, axis
        self.keys, self.offsets, self.pos, self.rows, self.fill = keys, offsets, pos, rows, fill
        self.index_dtype = index_dtype
        self.n = shape[axis]
        self.m = rows.shape[1]
        self.dense_shape = self.shape[sparse_ndim:]
        self.fill_row = xp.reshape(xp.broadcast_to(fill, self.dense_shape), (self.m,))
        self.kept_shape = tuple(shape[d] for d in range(sparse_ndim) if d != axis)
        self.nlines = math.prod(self.kept_shape)
        counts = offsets[1:] - offsets[:-1]
        self.counts = counts
        self.line = xp.repeat(xp.arange(counts.shape[0], dtype=xp.int64), counts) if counts.shape[0] else offsets[:0]

    @property
    def nse(self) -> int:
        return self.pos.shape[0]

    def rank(self):
        """Each entry's rank in its line (0 for the first specified position of the line)."""
        xp = self.xp
        return xp.arange(self.nse, dtype=xp.int64) - xp.take(self.offsets, self.line)

    def first_gaps(self):
        """(L,) the first unspecified position of each line (``n`` when the line is full). The
        positions of a line are increasing and unique, so the entries with ``pos == rank`` are its
        leading run of specified positions and the gap follows them: one pass, no search."""
        xp = self.xp
        lead = xp.astype(self.pos == self.rank(), xp.int64)
        total = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(lead)])
        return xp.take(total, self.offsets[1:]) - xp.take(total, self.offsets[:-1])

    def indices(self, line, pos):
        """Sparse indices ``(sparse_ndim, k)`` of the positions ``pos`` on the lines numbered ``line``."""
        return self.indices_at(self.xp.take(self.keys, line), pos)

    def indices_at(self, line_keys, pos):
        """Sparse indices ``(sparse_ndim, k)`` of the positions ``pos`` on the lines with keys ``line_keys``."""
        xp = self.xp
        k = pos.shape[0]
        itype = index_dtype_for(xp, self.shape[: self.sparse_ndim], k, xp.zeros((0,), dtype=self.index_dtype))
        kept = unravel(xp, line_keys, self.kept_shape, itype)
        row = xp.reshape(xp.astype(pos, itype), (1, k))
        return xp.concat([kept[: self.axis, :], row, kept[self.axis :, :]], axis=0)

    def coo(self, line, pos, values, fill, *, shape=None, coalesced=None):
        """A COO of ``shape`` (default the lines' array's) with ``values`` at ``pos`` on lines ``line``."""
        from .._array.coo import COO

        shape = self.shape if shape is None else tuple(shape)
        return COO._from_parts(self.xp, self.indices(line, pos), values, shape, fill, coalesced=coalesced)


def lines_of(x, axis):
    """The :class:`Lines` of SparseArray ``x`` along its sparse axis ``axis`` (a sparse dim of the
    COO form: ``axis < x.ndim - x.dense_ndim``)."""
    xp = x._xp
    plain_axis = 1 - getattr(x, "_major", 0)
    if x.layout in ("csr", "csc") and x.batch_ndim == 0 and axis == plain_axis:
        return _compressed_lines(x)
    A = coo_of(x)
    s = A.sparse_ndim
    kept = [d for d in range(s) if d != axis]
    kept_shape = tuple(A.shape[d] for d in kept)
    idx = A._indices
    keys = linear_keys(xp, xp.take(idx, xp.asarray(kept, dtype=xp.int64), axis=0), kept_shape) if kept else None
    if kept and keys is None:
        raise NotImplementedError(f"sparray: lines of a sparse shape {A.sparse_shape} with more than 2**63 positions")
    pos = xp.astype(idx[axis, :], xp.int64)
    rows = xp.reshape(A._values, (A.nse, math.prod(A.dense_shape)))
    if keys is None:
        keys = xp.zeros((A.nse,), dtype=xp.int64)
    elif axis != s - 1 and A.nse > 1:
        order = xp.argsort(keys, stable=True)
        keys, pos, rows = xp.take(keys, order), xp.take(pos, order), xp.take(rows, order, axis=0)
    return _from_sorted(xp, A, axis, keys, pos, rows, A._indices.dtype)


def _from_sorted(xp, A, axis, keys, pos, rows, index_dtype):
    """Lines from entries already in line order (``keys`` non-decreasing)."""
    n = keys.shape[0]
    if n:
        starts = xp.concat([xp.ones((1,), dtype=xp.bool), keys[1:] != keys[:-1]])
        first = xp.astype(xp.nonzero(starts)[0], xp.int64)
    else:
        first = xp.zeros((0,), dtype=xp.int64)
    offsets = xp.concat([first, xp.asarray([n], dtype=xp.int64)])
    return Lines(xp, A.shape, A.ndim - A.dense_ndim, axis, xp.take(keys, first), offsets, pos, rows, A._fill,
                 index_dtype)


def _compressed_lines(X):
    """An unbatched, unblocked CSR (CSC) along its columns (rows): the non-empty compressed rows."""
    xp = X._xp
    X._check_contents()
    cidx = xp.astype(X._cidx, xp.int64)
    counts = cidx[1:] - cidx[:-1]
    keys = xp.astype(xp.nonzero(counts > 0)[0], xp.int64)
    offsets = xp.concat([xp.take(cidx, keys), cidx[-1:]])
    nse = X._pidx.shape[0]
    rows = xp.reshape(X._values, (nse, math.prod(X.dense_shape)))
    axis = 1 - X._major
    return Lines(xp, X.shape, 2, axis, keys, offsets, xp.astype(X._pidx, xp.int64), rows, X._fill, X._cidx.dtype)
