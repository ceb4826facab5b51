"""The 2:4 layout's own functions: ``prune_2_4``, and its native paths for ``matrix_transpose``,
``permute_dims``, ``asarray`` and the ``*_like`` creators, and row slices (``A[i:j]``).

Everything else reaches a 2:4 array through the layout door (``layout_door.py``): the function
takes the CSR of the same pattern, and element-wise results come back as 2:4 arrays.

>>> import sparray, numpy as np
>>> w = np.array([[0.5, -3.0, 1.0, 2.0], [4.0, 4.0, 4.0, 0.0]])
>>> sparray.prune_2_4(w).tolist()          # ties: the lower position wins
[[0.0, -3.0, 0.0, 2.0], [4.0, 4.0, 0.0, 0.0]]
"""

from __future__ import annotations

import operator

from .._array.base import SparseArray
from .._array.semi_structured import GROUP, SemiStructured
from .._core.fill import normalize_fill, same_value
from .._core.namespace import is_array, namespace_of

__all__ = ["prune_2_4", "getitem", "NATIVE"]


def prune_2_4(x, /, *, fill_value=None):
    """``x`` with, in every group of 4 consecutive elements along its last dim, the 2 that differ
    most from the fill kept and the other 2 set to the fill: a dense array in, a dense array of
    the same namespace out, ready for ``sparray.asarray(..., layout="2:4")``.

    The rank is the magnitude ``|x - fill|`` (``|x|`` for the default fill 0, as PyTorch's and
    apex's 2:4 pruners rank weights; for a nan fill ``|x|``); a nan element ranks above every
    number, an element equal to the fill below everything else; ties go to the lower position. A
    sparse ``x`` is pruned by its dense form, with its own fill unless one is given, and comes
    back as a 2:4 array. The last dim must be a multiple of 4.

    >>> import numpy as np
    >>> prune_2_4(np.array([[1.0, 5.0, 5.0, 2.0]]), fill_value=5.0).tolist()   # |x - 5| ranks
    [[1.0, 5.0, 5.0, 2.0]]
    """
    if isinstance(x, SparseArray):
        fill = x.fill_value if fill_value is None else fill_value
        pruned = prune_2_4(x.to_dense(), fill_value=fill)
        from .._layout.semi_structured import from_dense

        return from_dense(pruned, fill, who="prune_2_4")
    if not is_array(x):
        raise TypeError(f"prune_2_4: x must be an array (dense of any namespace, or sparse); got {type(x).__name__}")
    xp = namespace_of(x)
    if x.ndim < 1 or x.shape[-1] % GROUP:
        raise ValueError(f"prune_2_4: the last dim must be a multiple of {GROUP}; got shape {tuple(x.shape)}")
    fill = normalize_fill(xp, 0 if fill_value is None else fill_value, x.dtype, (), "prune_2_4")
    shape = tuple(x.shape)
    groups = xp.reshape(x, (*shape[:-1], shape[-1] // GROUP, GROUP))
    rank = _rank(xp, groups, fill)
    order = xp.argsort(rank, axis=-1, descending=True, stable=True)
    kept = order[..., :2]
    pos = xp.arange(GROUP, dtype=kept.dtype)
    keep = (pos == kept[..., 0:1]) | (pos == kept[..., 1:2])
    return xp.reshape(xp.where(keep, groups, xp.astype(fill, x.dtype)), shape)


def _rank(xp, groups, fill):
    """float64 ranks: ``|x - fill|`` (``|x|`` for a nan fill), nan elements +inf, fill elements -1."""
    if xp.isdtype(groups.dtype, "bool"):
        return xp.where(same_value(xp, groups, fill), -1.0, 1.0)
    real = xp.isdtype(groups.dtype, ("real floating", "complex floating"))
    if real and bool(xp.isnan(fill)):
        mag = xp.abs(groups)
    elif xp.isdtype(groups.dtype, "integral"):
        mag = xp.abs(xp.astype(groups, xp.float64) - float(fill))
    else:
        mag = xp.abs(groups - fill)
    mag = xp.astype(mag, xp.float64)
    mag = xp.where(xp.isnan(mag), xp.inf, mag)
    return xp.where(same_value(xp, groups, fill), -1.0, mag)


def getitem(A, key):
    """``A[key]``: batch indices, a row slice and a column slice on group boundaries of an
    untransposed array keep the 2:4 layout (the components sliced, the codes repacked for a column
    slice); anything else indexes the CSR of the same pattern."""
    out = _row_slice(A, key)
    return out if out is not None else A.as_hub()[key]


def _row_slice(A, key):
    """``A[key]`` as a 2:4 array when ``key`` takes batch indices, a row slice and (optionally) a
    column slice of step 1 whose ends fall on group boundaries (Dask's ``meta[0:0, 0:0]``
    included), else None."""
    if A._transposed:
        return None
    items = key if isinstance(key, tuple) else (key,)
    b = A.batch_ndim
    if items and items[-1] is Ellipsis:
        items = items[:-1]
    cols = slice(None)
    if len(items) == A.ndim:
        items, cols = items[:-1], items[-1]
        if not isinstance(cols, slice):
            return None
    if len(items) > b + 1 or Ellipsis in items or None in items:
        return None
    items = (*items, *(slice(None),) * (b + 1 - len(items)))
    if not isinstance(items[b], slice):
        return None
    for it in items[:b]:
        if not isinstance(it, slice):
            try:
                operator.index(it)
            except TypeError:
                return None
    values, metadata = A._values[items], A._metadata[items]
    ncols = A.shape[-1]
    if cols != slice(None):
        start, stop, step = cols.indices(ncols)
        stop = max(stop, start)
        if step != 1 or start % GROUP or stop % GROUP:
            return None
        if (start, stop) != (0, ncols):
            from .._layout.semi_structured import pack_codes, unpack_codes

            xp = A._xp
            codes = unpack_codes(xp, metadata, ncols // GROUP)[..., start // GROUP: stop // GROUP]
            values, metadata, ncols = values[..., start // 2: stop // 2], pack_codes(xp, codes), stop - start
    shape = (*values.shape[:-1], ncols)
    return SemiStructured._from_parts(A._xp, values, metadata, shape, A._fill, checked=A._checked)


def matrix_transpose(x, /):
    if x.ndim < 2:
        return NotImplemented
    return x.mT


def permute_dims(x, /, axes):
    n = x.ndim
    try:
        perm = tuple(operator.index(a) % n for a in axes) if n else ()
    except TypeError:
        return NotImplemented
    if perm == tuple(range(n)):
        return x
    if n >= 2 and perm == (*range(n - 2), n - 1, n - 2):
        return x.mT
    return NotImplemented


def _passthrough(name):
    """The function ``name`` of ``creation.py`` called with the 2:4 array itself (it reads only its
    layout, shape, dtype and device, or converts it with ``to_layout``)."""

    def native(*args, **kwargs):
        from . import creation

        return getattr(creation, name)(*args, **kwargs)

    native.__name__ = name
    return native


NATIVE = {
    "matrix_transpose": matrix_transpose,
    "permute_dims": permute_dims,
    "prune_2_4": prune_2_4,
    **{name: _passthrough(name) for name in ("asarray", "zeros_like", "ones_like", "full_like", "empty_like")},
}
