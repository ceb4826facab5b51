"""0-d boolean indices (``A[True]``, ``A[..., False]``, ``A[xp.asarray(True), 0]``) as unit axes.

NumPy reads a 0-d boolean as an advanced index over a new axis of length 1: ``True`` selects its
one position, ``False`` none, and it broadcasts with the other advanced indices of the key
(``a[True, [0, 1]]`` has shape ``(2, ...)``). That is exactly an integer index array ``[0]``
(or ``[]``) on a unit axis inserted where the boolean stands. So ``x[key]`` is
``x[insert][key_on_units]``: ``insert`` adds the unit axes (``None`` at the booleans' places,
full slices over every dim the other items consume, the key's Ellipsis kept, so the added axes
land where the booleans stand on either side of it), and ``key_on_units`` is the key with each
0-d boolean replaced by its integer array; everything else (adjacency of the advanced items, an
Ellipsis between them) stays as NumPy sees it. ``remove`` (0 on each added axis) takes a result
of the inserted shape back to ``x``'s shape (``__setitem__`` uses it).

>>> import numpy as np
>>> ins, key, rem = split_zero_d_bools((True, [0, 1]), 2)
>>> a = np.arange(12).reshape(3, 4)
>>> a[ins][key].shape == a[True, [0, 1]].shape == (2, 4)
True
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._core.namespace import is_array

__all__ = ["is_zero_d_bool", "split_zero_d_bools"]


def is_zero_d_bool(k) -> bool:
    """A Python bool, a NumPy bool scalar or a 0-d boolean array (dense or sparse)."""
    if isinstance(k, bool):
        return True
    if isinstance(k, SparseArray) or is_array(k):
        return getattr(k, "ndim", None) == 0 and str(k.dtype).rsplit(".", 1)[-1] == "bool"
    return type(k).__name__ == "bool_"


def _truth(k) -> bool:
    if isinstance(k, SparseArray):
        k = k.to_dense()
    return bool(k)


def _consumed(k) -> int:
    """How many dims of the indexed array a (non-Ellipsis, non-None) key item consumes."""
    if isinstance(k, SparseArray) and str(k.dtype).endswith("bool"):
        return k.ndim
    if is_array(k) and str(k.dtype).rsplit(".", 1)[-1] == "bool":
        return k.ndim
    if isinstance(k, (list, tuple)):
        import numpy as np

        a = np.asarray(k)
        return a.ndim if a.dtype == bool else 1
    return 1


def split_zero_d_bools(key, ndim):
    """``(insert, key_on_units, remove)`` for a key holding 0-d booleans (see the module docstring),
    or None when it holds none. ``ndim`` is the indexed array's."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(is_zero_d_bool(k) for k in items):
        return None
    insert, on_units, remove = [], [], []
    for k in items:
        if is_zero_d_bool(k):
            insert.append(None)
            remove.append(0)
            on_units.append([0] if _truth(k) else [])
            continue
        on_units.append(k)
        if k is Ellipsis:
            insert.append(Ellipsis)
            remove.append(Ellipsis)
        elif k is not None:
            n = _consumed(k)
            insert += [slice(None)] * n
            remove += [slice(None)] * n
    return tuple(insert), tuple(on_units), tuple(remove)
