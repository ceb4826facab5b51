"""``sort`` and ``argsort`` of sparse arrays along one axis, the unspecified elements included.

Order: NumPy's (nan last); ``descending=True`` is its exact reverse, equal elements keeping their
original order (``_order.py``). Both are always stable (``stable=False`` is accepted and gives
the stable result, which the standard allows).

``sort`` returns a SPARSE array with the same fill. Each line along ``axis`` (``_lines.py``) holds
``cnt`` specified values and ``n - cnt`` fills; sorted, it is: the specified values that sort
before the fill (or equal it), then the run of fills (unspecified), then the specified values
that sort after it. So a line keeps ``cnt`` specified positions: ``[0, k)`` and
``[k + n - cnt, n)``. With a dense part (a hybrid array) each column of a line sorts on its own;
a position is specified when any column needs it and holds the fill in the others. Along a dense
dim, every dense part and the fill are sorted on their own (same pattern). Cost O(nse log nse)
(two stable argsorts of the specified values); the result comes in the input's layout when its
shape allows (``match_layout``), else COO. Lines that hold only the fill are left as they are.

``argsort`` returns a DENSE int64 array (one index per element: an index array has no fill to
leave unspecified). Per line, in order: the positions of the specified values that sort before
the fill (by value, stably), the block of positions that hold the fill (unspecified, or
specified and equal to it) in increasing order, then the positions of the values that sort after
it. The block is emitted as ranges (the ``t``-th fill position of a line is ``t`` plus the
number of other positions at or before it, one ``searchsorted``), so the cost is O(size) to write
the result plus O(nse log nse), not a dense sort. Along a dense dim: ``argsort`` of every dense
part and of the fill.

>>> import sparray
>>> A = sparray.COO([[0, 2, 3]], [3.0, -1.0, 9.0], shape=(6,), fill_value=1.0)
>>> B = sparray.sort(A)
>>> B.to_dense().tolist(), B.nse, B.fill_value.tolist()
([-1.0, 1.0, 1.0, 1.0, 3.0, 9.0], 3, 1.0)
>>> sparray.argsort(A).tolist()
[2, 1, 4, 5, 0, 3]
"""

from __future__ import annotations

import math
import operator

from ._base import SparseArray
from ._conversion import match_layout
from ._fill import same_value
from ._lines import coo_of, lines_of
from ._namespace import namespace_of
from ._order import check_real, precedes, sortable, stable_argsort

__all__ = ["argsort", "sort"]


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x`` along ``axis``, sparse with the same fill (see the module docstring)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).sort(x, axis=axis, descending=descending, stable=stable)
    xp = x._xp
    axis = _check(x, axis, descending, "sort")
    if x.size == 0:
        return x.copy()
    if axis >= x.ndim - x.dense_ndim:
        A = coo_of(x)
        d = axis - A.sparse_ndim
        values = _dense_sort(xp, A._values, 1 + d, descending)
        fill = A._fill if A._fill.ndim == 0 else _dense_sort(xp, A._fill, d, descending)
        return match_layout(A._replace_values(values, fill), x)
    return match_layout(_sort_lines(xp, lines_of(x, axis), descending), x)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices that sort ``x`` along ``axis``: a dense int64 array (see the module docstring)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).argsort(x, axis=axis, descending=descending, stable=stable)
    xp = x._xp
    axis = _check(x, axis, descending, "argsort")
    if x.size == 0:
        return xp.zeros(x.shape, dtype=xp.int64)
    if axis >= x.ndim - x.dense_ndim:
        from ._coo import COO

        A = coo_of(x)
        d = axis - A.sparse_ndim
        values = _dense_argsort(xp, A._values, 1 + d, descending)
        fill = _dense_argsort(xp, xp.broadcast_to(A._fill, A.dense_shape), d, descending)
        return COO._from_parts(xp, A._indices, values, A.shape, fill, coalesced=True).to_dense()
    return _argsort_lines(xp, lines_of(x, axis), descending)


def _check(x, axis, descending, name):
    who = f"sparray.{name}"
    check_real(x._xp, x.dtype, who)
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{who}: axis must be an int; got {axis!r}") from None
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{who}: axis {axis} is out of range for an array of {x.ndim} dims")
    if not isinstance(descending, bool):
        raise TypeError(f"{who}: descending must be a bool; got {descending!r}")
    return axis % x.ndim


def _dense_sort(xp, a, axis, descending):
    out = xp.sort(sortable(xp, a), axis=axis, descending=descending, stable=True)
    return xp.astype(out, a.dtype) if out.dtype != a.dtype else out


def _dense_argsort(xp, a, axis, descending):
    return xp.astype(xp.argsort(sortable(xp, a), axis=axis, descending=descending, stable=True), xp.int64)


def _items(xp, L):
    """Every (entry, column) of the lines as flat items: value, column, line number, position."""
    m, nse = L.m, L.nse
    values = xp.reshape(L.rows, (nse * m,))
    col = xp.reshape(xp.broadcast_to(xp.arange(m, dtype=xp.int64), (nse, m)), (nse * m,))
    line = xp.reshape(xp.broadcast_to(xp.reshape(L.line, (nse, 1)), (nse, m)), (nse * m,))
    pos = xp.reshape(xp.broadcast_to(xp.reshape(L.pos, (nse, 1)), (nse, m)), (nse * m,))
    return values, col, line, pos


def _slice_order(xp, values, slice_id, descending):
    """The permutation that orders items by (slice, value), ties in their given order (two stable sorts)."""
    by_value = stable_argsort(xp, values, descending)
    return xp.take(by_value, stable_argsort(xp, xp.take(slice_id, by_value)))


def _run_bounds(xp, sorted_ids, queries):
    """Start and end of the run of each ``queries`` id in the non-decreasing ``sorted_ids``."""
    return xp.searchsorted(sorted_ids, queries, side="left"), xp.searchsorted(sorted_ids, queries, side="right")


def _sort_lines(xp, L, descending):
    """Sorted lines as a COO (same shape and fill): see the module docstring."""
    m, n = L.m, L.n
    if L.nse == 0 or m == 0:
        return L.coo(L.line, L.pos, xp.reshape(L.rows, (L.nse, *L.dense_shape)), L.fill)
    values, col, line, _ = _items(xp, L)
    slice_id = line * m + col
    order = _slice_order(xp, values, slice_id, descending)
    values, col, line, slice_id = (xp.take(a, order) for a in (values, col, line, slice_id))
    start, end = _run_bounds(xp, slice_id, slice_id)
    rank = xp.arange(slice_id.shape[0], dtype=xp.int64) - start
    fill = xp.take(L.fill_row, col)
    before = same_value(xp, values, fill) | precedes(xp, sortable(xp, values), sortable(xp, fill), descending)
    before = xp.astype(before, xp.int64)
    total = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(before)])
    k = xp.take(total, end) - xp.take(total, start)
    unspecified = n - xp.take(xp.astype(L.counts, xp.int64), line)
    pos = xp.where(rank < k, rank, rank + unspecified)
    if m == 1:
        values = xp.reshape(values, (values.shape[0], *L.dense_shape))
        return L.coo(line, pos, values, L.fill)
    # a hybrid line: the positions any column needs, the fill in the columns that do not
    key = line * n + pos
    ukeys = xp.sort(xp.unique_values(key))  # (the standard leaves unique's order open)
    entry = xp.searchsorted(ukeys, key)
    cell = entry * m + col
    by_cell = xp.argsort(cell, stable=True)
    cells = xp.take(cell, by_cell)
    grid = xp.arange(ukeys.shape[0] * m, dtype=xp.int64)
    at = xp.searchsorted(cells, grid)
    at_c = xp.where(at < cells.shape[0], at, xp.zeros_like(at))
    found = xp.take(cells, at_c) == grid
    grid_values = xp.where(found, xp.take(xp.take(values, by_cell), at_c), xp.take(L.fill_row, grid % m))
    grid_values = xp.reshape(grid_values, (ukeys.shape[0], *L.dense_shape))
    return L.coo(ukeys // n, ukeys % n, grid_values, L.fill)


def _argsort_lines(xp, L, descending):
    """The dense argsort along the lines' axis (module docstring): one row of ``n`` indices per
    (line, column) slice, built by gathers from the sorted non-fill items and the fill block."""
    m, n = L.m, L.n
    nslices = L.nlines * m
    values, col, line, pos = _items(xp, L)
    differs = ~same_value(xp, values, xp.take(L.fill_row, col))  # the items outside the fill block
    values, col, pos = values[differs], col[differs], pos[differs]
    slice_id = xp.take(L.keys, line[differs]) * m + col  # over every line, not only the specified ones
    r = xp.reshape(xp.arange(n, dtype=xp.int64), (1, n))
    if slice_id.shape[0] == 0:
        out = r + xp.zeros((nslices, 1), dtype=xp.int64)
    else:
        order = _slice_order(xp, values, slice_id, descending)
        s_pos, s_id = xp.take(pos, order), xp.take(slice_id, order)
        s_values, s_col = xp.take(values, order), xp.take(col, order)
        early = precedes(xp, sortable(xp, s_values), sortable(xp, xp.take(L.fill_row, s_col)), descending)
        every = xp.arange(nslices, dtype=xp.int64)
        start, end = _run_bounds(xp, s_id, every)
        total = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(xp.astype(early, xp.int64))])
        k_early = xp.reshape(xp.take(total, end) - xp.take(total, start), (nslices, 1))
        k_other = xp.reshape(end - start, (nslices, 1))
        start = xp.reshape(start, (nslices, 1))
        block = n - k_other  # the fill block of each slice: positions k_early .. k_early + block
        # the t-th position of the block: t + (number of non-block positions at or before it)
        by_pos = stable_argsort(xp, slice_id)  # items ordered by (slice, position): slice_id then position
        q_id, q_pos = xp.take(slice_id, by_pos), xp.take(pos, by_pos)
        q_start, _ = _run_bounds(xp, q_id, q_id)
        gaps = q_id * (n + 1) + q_pos - (xp.arange(q_id.shape[0], dtype=xp.int64) - q_start)
        t = r - k_early
        in_block = (t >= 0) & (t < block)
        t_c = xp.where(in_block, t, xp.zeros_like(t))
        target = xp.reshape(every, (nslices, 1)) * (n + 1) + t_c
        at_or_before = xp.reshape(xp.searchsorted(gaps, xp.reshape(target, (-1,)), side="right"), target.shape)
        block_pos = t_c + at_or_before - start
        item = start + xp.where(t < 0, r, r - block)  # which sorted item fills a non-block cell
        item = xp.where(in_block, xp.zeros_like(item), item)
        picked = xp.reshape(xp.take(s_pos, xp.reshape(item, (-1,))), item.shape)
        out = xp.where(in_block, block_pos, picked)
    return xp.moveaxis(xp.reshape(out, (*L.kept_shape, *L.dense_shape, n)), -1, L.axis)
