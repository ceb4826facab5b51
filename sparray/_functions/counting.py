"""Counting functions of the array API for sparse arrays: ``count_nonzero`` and ``searchsorted``.

- ``count_nonzero(x, axis, keepdims)`` is ``sum(x != 0, dtype=int64)``: the unspecified elements
  count through the fill (a fill that is not zero, nan included, counts every one of them). The
  result is laid out as ``sum``'s: a sparse array over the kept sparse dims (its fill is the count
  of an all-fill slice), or dense int64 values when every sparse dim is reduced (``axis=None``).
- ``searchsorted(x1, x2, side, sorter)``: for a sorted 1-d ``x1`` the answer for a query ``v`` is
  the number of elements of ``x1`` before ``v`` (``< v`` for side "left", ``<= v`` for "right", in
  NumPy's order with nan last). A sparse ``x1`` answers that as ``searchsorted`` over its sorted
  specified values plus ``n_unspecified`` where the fill is before ``v``: O((nse + k) log nse) for
  k queries, without the dense form of ``x1``. ``sorter`` only says how ``x1`` is sorted, so a sparse
  ``x1`` with a ``sorter`` sorts its specified values instead (the count does not depend on the
  order). A sparse ``x2`` is answered on its specified values and its fill, then laid out densely:
  the result is dense int64 of ``x2``'s shape (one index per query; O(x2.size)).

Dense results come back from the namespace's functions as sparray arrays holding the dense values
(the namespace rule, ``_results.py``), from these module functions as arrays of the components'
namespace.

>>> import sparray
>>> A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
>>> int(sparray.count_nonzero(A)), int(sparray.count_nonzero(A - 1))
(4, 2)
>>> x1 = sparray.COO([[2, 3]], [4.0, 6.0], shape=(4,))  # [0, 0, 4, 6]
>>> sparray.searchsorted(x1, sparray.asarray([0.0, 5.0, 9.0])).to_dense().tolist()
[0, 3, 4]
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._core.namespace import is_array, namespace_of
from .._array.operands import is_scalar
from .order import check_real, is_float, sortable

__all__ = ["count_nonzero", "searchsorted"]


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """The number of elements that are not zero (see the module docstring)."""
    from .reductions import sum as _sum

    if not isinstance(x, SparseArray):
        return namespace_of(x).count_nonzero(x, axis=axis, keepdims=keepdims)
    xp = x._xp
    nonzero = x if x.dtype == xp.bool else x != 0
    return _sum(nonzero.astype(xp.int64), axis=axis, keepdims=keepdims)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Indices where the elements of ``x2`` would be inserted into the sorted 1-d ``x1`` to keep it
    sorted (array API ``searchsorted``; see the module docstring for the sparse cases and costs)."""
    who = "sparray.searchsorted"
    if side not in ("left", "right"):
        raise ValueError(f"{who}: side must be 'left' or 'right'; got {side!r}")
    if not isinstance(x1, SparseArray) and not isinstance(x2, SparseArray):
        xp = namespace_of(x1)
        return xp.searchsorted(x1, _query(xp, x1, x2) if is_scalar(x2) else x2, side=side, sorter=sorter)
    xp = (x1 if isinstance(x1, SparseArray) else x2)._xp
    if x1.ndim != 1:
        raise ValueError(f"{who}: x1 must be 1-d; got shape {tuple(x1.shape)}")
    if sorter is not None:
        if not is_array(sorter) or not xp.isdtype(sorter.dtype, "integral"):
            got = f"dtype {sorter.dtype}" if is_array(sorter) else type(sorter).__name__
            raise TypeError(f"{who}: sorter must be an integer array; got {got}")
        if tuple(sorter.shape) != tuple(x1.shape):
            raise ValueError(f"{who}: sorter must have x1's shape {tuple(x1.shape)}; got {tuple(sorter.shape)}")
    check_real(xp, x1.dtype, who)
    if is_scalar(x2):
        x2 = _query(xp, x1, x2)
    if not is_array(x2) and not isinstance(x2, SparseArray):
        raise TypeError(f"{who}: x2 must be an array or a Python scalar; got {type(x2).__name__}")
    count = _counter(xp, x1, sorter, side)
    if not isinstance(x2, SparseArray):
        return count(x2)
    from .lines import coo_of

    B = coo_of(x2)
    values = count(B._values)
    fill = count(B._fill)
    from .._array.coo import COO

    return COO._from_parts(xp, B._indices, values, B.shape, fill, coalesced=True).to_dense()


def _query(xp, x1, v):
    """A Python scalar query as a 0-d array of the type it meets ``x1``'s values in (NumPy's and the
    array API's scalar rules): ``-2.0`` against integers stays ``-2.0``, not ``x1``'s dtype."""
    from .._core.dtypes import result_type

    return xp.asarray(v, dtype=result_type(x1, v))


def _counter(xp, x1, sorter, side):
    """``count(v)``: the number of elements of ``x1`` before each ``v`` (an int64 array of v's shape)."""
    if not isinstance(x1, SparseArray):
        x1 = sortable(xp, x1)

        def count(v):
            return xp.astype(xp.searchsorted(x1, sortable(xp, v), side=side, sorter=sorter), xp.int64)

        return count
    from .lines import coo_of

    A = coo_of(x1)
    if A.dense_ndim:  # a 1-d array with its one dim dense: its values are the dense form
        dense = A.to_dense()
        return _counter(xp, dense, sorter, side)
    values = sortable(xp, A._values if sorter is None else xp.sort(A._values))
    unspecified = A.shape[0] - A.nse
    fill = sortable(xp, A._fill)

    def count(v):
        v = sortable(xp, v)
        below = xp.astype(xp.searchsorted(values, v, side=side), xp.int64)
        if not unspecified:
            return below
        if side == "left":
            before = fill < v
            if is_float(xp, fill.dtype) or is_float(xp, v.dtype):
                before = before | (xp.isnan(v) & ~xp.isnan(fill))
        else:
            before = fill <= v
            if is_float(xp, fill.dtype) or is_float(xp, v.dtype):
                before = before | xp.isnan(v)
        return below + xp.astype(before, xp.int64) * unspecified

    return count
