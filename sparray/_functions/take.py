"""Selecting along one axis: ``take``, ``take_along_axis`` and ``unstack`` (array API).

``take`` and ``take_along_axis`` are keys for ``A[key]`` (``sparray._functions.indexing``): ``take(x, i,
axis=a)`` is ``x[:, ..., i]`` with ``i`` at dim ``a``; ``take_along_axis(x, i, axis=a)`` indexes
every dim with an integer array (``arange`` broadcast along the other dims, ``i`` along ``a``),
so the picked elements are joined with the entries on their linear keys, O(nse log nse + size of
the result's index), never O(size of x). The result is sparse with ``x``'s fill; negative
indices count from the end; an index out of range raises IndexError naming it, the axis and its
size. A compressed input comes back in its layout when the result's shape allows it, else COO.

``unstack(x, axis=a)`` groups the entries by their coordinate along ``a`` once (a stable sort,
O(nse log nse)) and hands each group out as one array, instead of ``x.shape[a]`` passes of
``x[..., i, ...]``.

>>> import sparray
>>> A = sparray.COO([[0, 1], [2, 0]], [1.0, 2.0], shape=(2, 3), fill_value=-1.0)
>>> sparray.take(A, [2, 0], axis=1).to_dense().tolist()
[[1.0, -1.0], [-1.0, 2.0]]
>>> [a.to_dense().tolist() for a in sparray.unstack(A)]
[[-1.0, -1.0, 1.0], [2.0, -1.0, -1.0]]
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._core.dtypes import dtype_name
from .manipulation import _as_coo, _as_scalar_fill, _back, _coo_class, _fill_uniform_over, reshape
from .._core.namespace import is_array, namespace_of, to_numpy
from .._core.validation import normalize_axes

__all__ = ["take", "take_along_axis", "unstack"]


def _index_array(indices, xp, who):
    """``indices`` (an array of any namespace, a SparseArray, a list or an int) as an integer array of ``xp``."""
    if isinstance(indices, SparseArray):
        indices = indices.to_dense()
    if is_array(indices):
        if namespace_of(indices) is not xp:
            indices = xp.asarray(to_numpy(indices))
    else:
        try:
            indices = xp.asarray(indices)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{who}: indices must be an array of integers; got {indices!r} ({exc})") from None
        if indices.ndim and indices.shape[0] == 0 and not xp.isdtype(indices.dtype, "integral"):
            indices = xp.astype(indices, xp.int64)  # [] arrives as float, as in NumPy
    if not xp.isdtype(indices.dtype, "integral"):
        raise TypeError(f"{who}: indices must be an array of integers; got dtype {dtype_name(indices.dtype)}")
    return indices


def _indexed(x, key, who):
    """``x[key]`` with index errors named after ``who``."""
    from .indexing import getitem

    try:
        return getitem(x, key)
    except IndexError as exc:
        raise IndexError(f"{who}: {exc}") from None


def take(x, indices, /, *, axis=None):
    """The elements of ``x`` at ``indices`` along ``axis``: ``x[:, ..., indices, ...]``.

    ``indices`` is an integer array (any namespace, a list, or a SparseArray); a 1-d one, as the
    standard asks, gives a result of ``x``'s rank whose dim ``axis`` has ``len(indices)``
    elements (an n-d one puts its dims there, as in NumPy). ``axis=None`` takes from the
    flattened array (the standard's only case is a 1-d ``x``; NumPy flattens any). Repeated
    indices repeat entries; out-of-range ones raise IndexError.

    >>> import sparray
    >>> sparray.take(sparray.COO([[1]], [4.0], shape=(3,), fill_value=0.5), [1, 1, -1]).to_dense().tolist()
    [4.0, 4.0, 0.5]
    """
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return xp.take(x, _index_array(indices, xp, "take"), axis=axis)
    idx = _index_array(indices, x._xp, "take")
    if axis is None:
        x = x if x.ndim == 1 else reshape(x, (-1,))
        axis = 0
    (axis,) = normalize_axes(axis, x.ndim, "take", allow_none=False)
    if axis >= x.ndim - x.dense_ndim:  # a dense dim: gather the value axis
        return _back(_take_dense_dim(_as_coo(x), idx, axis), x)
    return _indexed(x, (slice(None),) * axis + (idx,), "take")


def _take_dense_dim(A, idx, axis):
    """``take`` along a dense dim of COO ``A`` with indices of any shape: ``take_block`` of the
    value axis (and of a dense-part fill); the dim gives way to ``idx``'s dims."""
    from .indexing import take_block

    xp = A._xp
    n = A.shape[axis]
    if math.prod(idx.shape):
        lo, hi = int(xp.min(idx)), int(xp.max(idx))
        if lo < -n or hi >= n:
            raise IndexError(f"take: index {lo if lo < -n else hi} is out of bounds for axis {axis} with size {n}")
    j = axis - A.sparse_ndim
    values = take_block(xp, A._values, [idx], 1 + j)
    fill = take_block(xp, A._fill, [idx], j) if A._fill.ndim else A._fill
    shape = A.shape[:axis] + tuple(idx.shape) + A.shape[axis + 1 :]
    return _coo_class()._from_parts(xp, A._indices, values, shape, fill, coalesced=A._coalesced)


def take_along_axis(x, indices, /, *, axis=-1):
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis`` (``numpy.take_along_axis``).

    ``indices`` is an integer array of ``x``'s rank; along the other dims it broadcasts with
    ``x`` (either side may have size 1), along ``axis`` it may have any length. ``axis=None``
    works on the flattened ``x`` with 1-d ``indices``. The result is sparse with ``x``'s fill.
    A hybrid array has its dense dims turned into sparse ones first; when its fill varies along
    them, the elements that differ from the fill's first element are specified first (through
    the dense form, O(size)).

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [2, 0]], [1.0, 2.0], shape=(2, 3), fill_value=-1.0)
    >>> sparray.take_along_axis(A, [[2, 2], [0, 1]], axis=1).to_dense().tolist()
    [[1.0, 1.0], [2.0, -1.0]]
    """
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return xp.take_along_axis(x, _index_array(indices, xp, "take_along_axis"), axis=axis)
    xp = x._xp
    idx = _index_array(indices, xp, "take_along_axis")
    if axis is None:
        if idx.ndim != 1:
            raise ValueError(f"take_along_axis: with axis=None, indices must be 1-d; got shape {tuple(idx.shape)}")
        x = reshape(x, (-1,))
        axis = 0
    (axis,) = normalize_axes(axis, x.ndim, "take_along_axis", allow_none=False)
    n = x.ndim
    if idx.ndim != n:
        raise ValueError(f"take_along_axis: indices must have as many dims as x ({n}); got shape {tuple(idx.shape)} "
                         f"for x of shape {x.shape}")
    for d in range(n):
        if d != axis and 1 not in (x.shape[d], idx.shape[d]) and x.shape[d] != idx.shape[d]:
            raise ValueError(f"take_along_axis: x of shape {x.shape} and indices of shape {tuple(idx.shape)} "
                             f"do not broadcast along dim {d} (only axis {axis} may differ)")
    A = _as_coo(x)
    if A.dense_ndim and not _fill_uniform_over(A, A.dense_ndim):
        A = _as_scalar_fill(A)  # every dim becomes sparse below: one fill for all of them
    def along(d):  # the coordinates of dim d, laid along dim d
        return xp.reshape(xp.arange(x.shape[d], dtype=xp.int64), (1,) * d + (-1,) + (1,) * (n - d - 1))

    key = tuple(idx if d == axis else along(d) for d in range(n))
    return _back(_indexed(A, key, "take_along_axis"), x)


def unstack(x, /, *, axis=0):
    """The arrays ``x[..., i, ...]`` for every ``i`` along ``axis``, as a tuple.

    Each piece is sparse with ``x``'s fill (in ``x``'s layout when its shape allows it, else
    COO); a 1-d ``x`` gives 0-d dense arrays, as ``x[i]`` does. The entries are grouped by their
    coordinate along ``axis`` in one stable sort, so a coalesced input gives coalesced pieces.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [1, 1]], [1.0, 2.0], shape=(2, 2))
    >>> [p.nse for p in sparray.unstack(A, axis=1)]
    [0, 2]
    """
    if not isinstance(x, SparseArray):
        return tuple(namespace_of(x).unstack(x, axis=axis))
    (axis,) = normalize_axes(axis, x.ndim, "unstack", allow_none=False)
    n = x.shape[axis]
    if x.ndim == 1:
        dense = x.to_dense()
        return tuple(dense[i, ...] for i in range(n))
    A = _as_coo(x)
    xp = A._xp
    s = A.sparse_ndim
    shape = A.shape[:axis] + A.shape[axis + 1 :]
    COO = _coo_class()
    if axis >= s:
        j = axis - s
        pieces = []
        for i in range(n):
            values = A._values[(slice(None),) * (1 + j) + (i, ...)]
            fill = A._fill[(slice(None),) * j + (i, ...)] if A._fill.ndim else A._fill
            pieces.append(COO._from_parts(xp, A._indices, values, shape, fill, coalesced=A._coalesced))
        return tuple(_back(p, x) for p in pieces)
    c = xp.astype(A._indices[axis, :], xp.int64)
    rest = xp.concat([A._indices[:axis, :], A._indices[axis + 1 :, :]], axis=0)
    values = A._values
    if A.nse:
        order = xp.argsort(c, stable=True)
        c, rest, values = xp.take(c, order), xp.take(rest, order, axis=1), xp.take(values, order, axis=0)
    bounds = to_numpy(xp.searchsorted(c, xp.arange(n + 1, dtype=xp.int64), side="left")).tolist()
    return tuple(
        _back(COO._from_parts(xp, rest[:, lo:hi], values[lo:hi, ...], shape, A._fill, coalesced=A._coalesced), x)
        for lo, hi in zip(bounds[:-1], bounds[1:])
    )
