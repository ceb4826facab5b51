"""Set functions of the array API for sparse arrays: ``unique_values``, ``unique_counts``,
``unique_inverse`` and ``unique_all``, the unspecified elements counted through the fill.

The elements of ``x`` (flattened in C order) are the specified ones plus, for each dense column
``j`` (one column for a non-hybrid array), ``u`` unspecified elements holding ``fill[j]``, where
``u`` is the number of unspecified sparse positions. So:

- ``values``: the distinct values, sorted (NumPy's order, nan last); the fill is among them once
  when ``u > 0``;
- ``counts``: the fill counts ``u`` (plus its specified equals);
- ``indices``: the flat index of each value's first occurrence; for the fill, the first
  unspecified position (``u0 * m + j``) unless a specified element equal to it comes earlier;
- ``inverse_indices``: x's shape, SPARSE with x's pattern (and layout): each specified element's
  index in ``values``, and as fill the index of the fill value.

NaN follows the standard (and NumPy 2's ``unique_*``): nan never equals nan, so every nan is a
value of its own with count 1. A nan fill with ``u`` unspecified elements therefore gives ``u``
nans in ``values`` (O(u) output; their indices are the unspecified elements' flat indices, in
order), and ``inverse_indices`` is then DENSE (each of those elements points at its own nan, so
they have no common fill). ``-0.0`` equals ``0.0``: one value.

Cost: one stable sort of the ``nse * m`` specified elements and ``m`` fill elements (plus a
second sort for the inverse); values, counts and indices are dense 1-d arrays (the namespace's
functions hand them back as sparray arrays holding them: the namespace rule, ``_results.py``). Complex values sort by real part, then imaginary part.

>>> import sparray
>>> A = sparray.COO([[1, 3]], [2.0, 0.0], shape=(5,), fill_value=0.0)  # [0, 2, 0, 0, 0]
>>> r = sparray.unique_all(A)
>>> r.values.to_dense().tolist(), r.counts.to_dense().tolist(), r.indices.to_dense().tolist()
([0.0, 2.0], [4, 1], [0, 1])
>>> r.inverse_indices.to_dense().tolist()
[0, 1, 0, 0, 0]
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .._engine import dispatch as _dispatch
from .._array.base import SparseArray
from .._core.keys import linear_keys
from .lines import coo_of
from .._core.namespace import namespace_of
from .order import sortable

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values",
           "UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult"]


class UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def unique_values(x, /):
    """The distinct elements of ``x``, sorted (see the module docstring)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).unique_values(x)
    return _Unique(x).values


def unique_counts(x, /):
    """``(values, counts)`` of ``x`` (see the module docstring)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).unique_counts(x)
    u = _Unique(x)
    return UniqueCountsResult(u.values, u.counts())


def unique_inverse(x, /):
    """``(values, inverse_indices)`` of ``x``; the inverse is sparse with x's pattern unless the fill is nan."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).unique_inverse(x)
    u = _Unique(x)
    return UniqueInverseResult(u.values, u.inverse(x))


def unique_all(x, /):
    """``(values, indices, inverse_indices, counts)`` of ``x`` (see the module docstring)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).unique_all(x)
    u = _Unique(x)
    return UniqueAllResult(u.values, u.first_indices(), u.inverse(x), u.counts())


class _Unique:
    """The elements of a sparse array as weighted candidates (specified elements, the fill of each
    column), sorted and grouped into distinct values."""

    def __init__(self, x):
        xp = x._xp
        A = coo_of(x)
        self.xp, self.A = xp, A
        m = math.prod(A.dense_shape)
        nse = A.nse
        npos = math.prod(A.sparse_shape)
        keys = linear_keys(xp, A._indices, A.sparse_shape)
        if keys is None:
            raise NotImplementedError(f"sparray.unique: sparse shape {A.sparse_shape} has more than 2**63 positions")
        self.m, self.keys, self.unspecified = m, keys, npos - nse
        col = xp.arange(m, dtype=xp.int64)
        values = [xp.reshape(A._values, (nse * m,))]
        index = [xp.reshape(xp.reshape(keys, (nse, 1)) * m + col, (nse * m,))]
        weight = [xp.ones((nse * m,), dtype=xp.int64)]
        self.nan_cols = None
        if self.unspecified and m:
            fill = xp.reshape(xp.broadcast_to(A._fill, A.dense_shape), (m,))
            gap = xp.sum(xp.astype(keys == xp.arange(nse, dtype=xp.int64), xp.int64))  # first unspecified position
            nan = xp.isnan(fill) if xp.isdtype(fill.dtype, ("real floating", "complex floating")) else None
            if nan is not None and bool(xp.any(nan)):
                # every nan is distinct: one candidate per unspecified element of a nan column
                self.nan_cols = xp.astype(xp.nonzero(nan)[0], xp.int64)
                free = _unspecified_positions(xp, keys, npos)
                k = self.nan_cols.shape[0]
                values.append(xp.full((k * self.unspecified,), float("nan"), dtype=fill.dtype))
                index.append(xp.reshape(xp.reshape(self.nan_cols, (k, 1)) + xp.reshape(free, (1, -1)) * m, (-1,)))
                weight.append(xp.ones((k * self.unspecified,), dtype=xp.int64))
                col = col[~nan]
                fill = fill[~nan]
            values.append(fill)
            index.append(gap * m + col)
            weight.append(xp.full(col.shape, self.unspecified, dtype=xp.int64))
            self.fill_cols = col  # the columns whose fill is one candidate (the last ones)
        self.ncand = [v.shape[0] for v in values]
        values, index, weight = xp.concat(values), xp.concat(index), xp.concat(weight)
        order = _value_order(xp, values)
        if xp.isdtype(values.dtype, ("real floating", "complex floating")) and bool(xp.any(xp.isnan(values))):
            # each nan is a value of its own, ordered by its flat index (NumPy's order): sort by index first
            by_index = xp.argsort(index, stable=True)
            order = xp.take(by_index, _value_order(xp, xp.take(values, by_index)))
        self.order = order
        sv = xp.take(values, order)
        n = sv.shape[0]
        starts = xp.concat([xp.ones((min(n, 1),), dtype=xp.bool), sv[1:] != sv[:-1]]) if n else xp.zeros((0,), dtype=xp.bool)
        self.group = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1 if n else xp.zeros((0,), dtype=xp.int64)
        first = xp.astype(xp.nonzero(starts)[0], xp.int64)
        self.offsets = xp.concat([first, xp.asarray([n], dtype=xp.int64)])
        self.values = xp.take(sv, first)
        self.sorted_index, self.sorted_weight = xp.take(index, order), xp.take(weight, order)

    def counts(self):
        xp = self.xp
        total = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(self.sorted_weight)])
        return xp.take(total, self.offsets[1:]) - xp.take(total, self.offsets[:-1])

    def first_indices(self):
        xp = self.xp
        if self.values.shape[0] == 0:
            return xp.zeros((0,), dtype=xp.int64)
        rows = xp.reshape(self.sorted_index, (-1, 1))
        _, first, _ = _dispatch.call("group_reduce", "csr", xp, self.offsets, rows, "min", work=rows.shape[0])
        return xp.reshape(first, (-1,))

    def inverse(self, x):
        """Each element's index in ``values``: sparse with x's pattern, or dense for a nan fill."""
        from .._layout.conversion import match_layout
        from .._array.coo import COO

        xp, A, m = self.xp, self.A, self.m
        of_candidate = xp.take(self.group, xp.argsort(self.order, stable=True))  # un-sort the group numbers
        nse = A.nse
        spec = xp.reshape(of_candidate[: nse * m], (nse, *A.dense_shape))
        fill_inv = xp.zeros((m,), dtype=xp.int64)
        if self.unspecified and m:
            own = of_candidate[of_candidate.shape[0] - self.fill_cols.shape[0]:]
            if self.nan_cols is None:
                fill_inv = own
            else:
                return self._dense_inverse(of_candidate, own)
        fill = fill_inv[0] if A._fill.ndim == 0 and m else xp.reshape(fill_inv, A.dense_shape)
        return match_layout(COO._from_parts(xp, A._indices, spec, A.shape, fill, coalesced=True), x)

    def _dense_inverse(self, of_candidate, own):
        """A nan fill: each unspecified element of a nan column points at its own nan; the other
        columns at their fill's value; specified elements at theirs."""
        from .._array.coo import COO

        xp, A, m = self.xp, self.A, self.m
        nse = A.nse
        npos = math.prod(A.sparse_shape)
        spec = xp.reshape(of_candidate[: nse * m], (nse, *A.dense_shape))
        dense = COO._from_parts(xp, A._indices, spec, A.shape, xp.zeros((), dtype=xp.int64), coalesced=True).to_dense()
        dense = xp.reshape(dense, (npos, m))
        p = xp.arange(npos, dtype=xp.int64)
        at = xp.searchsorted(self.keys, p)
        at_c = xp.where(at < nse, at, xp.zeros_like(at))
        specified = xp.reshape((at < nse) & (xp.take(self.keys, at_c) == p) if nse else p < 0, (npos, 1))
        rank = xp.reshape(p - at, (npos, 1))  # among the unspecified positions
        k, u = self.nan_cols.shape[0], self.unspecified
        is_nan_col, nan_col_number = _spread(xp, self.nan_cols, xp.arange(k, dtype=xp.int64), m)
        _, fill_inv = _spread(xp, self.fill_cols, own, m)
        # the unspecified element of rank t in nan column number c is candidate nse * m + c * u + t
        rank = xp.where(specified, xp.zeros_like(rank), rank)
        candidate = nse * m + xp.reshape(nan_col_number, (1, m)) * u + rank
        nan_inv = xp.reshape(xp.take(of_candidate, xp.reshape(candidate, (-1,))), (npos, m))
        unspec = xp.where(xp.reshape(is_nan_col, (1, m)), nan_inv, xp.reshape(fill_inv, (1, m)))
        return xp.reshape(xp.where(specified, dense, unspec), A.shape)


def _spread(xp, cols, values, m):
    """``(has, out)`` over the columns 0..m-1: whether a column is in the sorted ``cols``, and its
    entry of ``values`` there (0 elsewhere)."""
    col = xp.arange(m, dtype=xp.int64)
    if cols.shape[0] == 0:
        return col < 0, xp.zeros((m,), dtype=xp.int64)
    at = xp.searchsorted(cols, col)
    at_c = xp.where(at < cols.shape[0], at, xp.zeros_like(at))
    has = (at < cols.shape[0]) & (xp.take(cols, at_c) == col)
    return has, xp.where(has, xp.take(values, at_c), xp.zeros_like(col))


def _unspecified_positions(xp, keys, npos):
    """The positions in [0, npos) that are not among the sorted unique ``keys``, in order."""
    p = xp.arange(npos, dtype=xp.int64)
    n = keys.shape[0]
    if n == 0:
        return p
    at = xp.searchsorted(keys, p)
    at_c = xp.where(at < n, at, xp.zeros_like(at))
    return p[~((at < n) & (xp.take(keys, at_c) == p))]


def _value_order(xp, values):
    """Stable ascending order of ``values`` (nan last; complex: by real part, then imaginary part)."""
    if xp.isdtype(values.dtype, "complex floating"):
        by_imag = xp.argsort(xp.imag(values), stable=True)
        return xp.take(by_imag, xp.argsort(xp.take(xp.real(values), by_imag), stable=True))
    return xp.argsort(sortable(xp, values), stable=True)
