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

``argsort`` returns DENSE int64 values (one index per element: an index array has no fill to
leave unspecified; ``sparray.argsort`` hands them back as a sparray array holding them, the
namespace rule of ``_results.py``), computed from the dense form: ``xp.argsort(x.to_dense(), stable=True)``. Per
line its answer is the positions of the values that sort before the fill, the positions holding
the fill in increasing order, then the positions of the values after it, and a sparse
construction that emits that fill block as a range (from a mask of the other positions, O(size)
with no sort of the fills) was measured 2.5-4.5x SLOWER with NumPy than the dense sort, at
densities 0.01 to 0.3 (3000 x 3000 and 1e7 elements): the result has ``x.size`` entries anyway,
array-API code needs a dozen passes over them, and the namespace's row sort is fast on long runs
of equal fills. Cost: the dense values (O(size) memory) and the namespace's sort. A kernel that
writes each row in one pass is where a sparse argsort would win.

>>> import sparray
>>> A = sparray.COO([[0, 2, 3]], [3.0, -1.0, 9.0], shape=(6,), fill_value=1.0)
>>> B = sparray.sort(A)
>>> B.to_dense().tolist(), B.nse, B.fill_value.tolist()
([-1.0, 1.0, 1.0, 1.0, 3.0, 9.0], 3, 1.0)
>>> sparray.argsort(A).to_dense().tolist()
[2, 1, 4, 5, 0, 3]
"""

from __future__ import annotations


from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._core.fill import same_value
from .lines import coo_of, lines_of
from .._core.namespace import namespace_of
from .order import check_real, precedes, sortable, stable_argsort
from .._core.validation import normalize_axis

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
    axis = _check(x, axis, descending, "argsort")
    return _dense_argsort(x._xp, x.to_dense(), axis, descending)


def _check(x, axis, descending, name):
    who = f"sparray.{name}"
    check_real(x._xp, x.dtype, who)
    axis = normalize_axis(axis, x.ndim, who)
    if not isinstance(descending, bool):
        raise TypeError(f"{who}: descending must be a bool; got {descending!r}")
    return axis


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
    before = same_value(xp, values, fill, signed_zeros=False) | precedes(xp, sortable(xp, values), sortable(xp, fill), descending)
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
