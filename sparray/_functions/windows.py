"""``sliding_window_view``: NumPy's sliding windows for sparse arrays, as ``sparray.lib.stride_tricks``.

An extension beyond the array API standard: xarray's ``.rolling(...)`` pads the data (``xp.pad``)
and then reads ``xp.lib.stride_tricks.sliding_window_view``, so ``sparray.lib.stride_tricks`` holds
it, as ``numpy.lib.stride_tricks`` does (``np.lib.stride_tricks.sliding_window_view(A, ...)`` on a
sparse ``A`` answers the same through ``__array_function__``).

NumPy's windows are strided views; a sparse array has no strides, so the windows are a new sparse
array with the same elements: for each windowed dim of length ``n`` and window ``w``, one ``take``
with the index ``j + k`` (``j < n - w + 1`` the window, ``k < w`` the place in it), the window dim
moved to the end. Every entry is repeated once per window that holds it (at most ``w`` times per
windowed dim), the fill is unchanged, so it is exact for any fill. The result has the input's layout
when its shape allows it, else COO. ``writeable=True`` is refused (the result is no view to write
through).

>>> import sparray
>>> A = sparray.COO([[1, 3]], [5.0, 7.0], shape=(4,), fill_value=0.0)
>>> sparray.lib.stride_tricks.sliding_window_view(A, 2).to_dense().tolist()
[[0.0, 5.0], [5.0, 0.0], [0.0, 7.0]]
"""

from __future__ import annotations

import operator
import types

from .._array.base import SparseArray
from .._core.namespace import namespace_of
from .._core.validation import normalize_axes

__all__ = ["lib", "sliding_window_view"]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """The windows of ``window_shape`` along ``axis`` (all dims for None) of ``x``, NumPy's
    ``sliding_window_view``: shape ``x.shape`` with each windowed dim ``n`` cut to ``n - w + 1``,
    then the window dims, in the order given.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]), layout="csr")
    >>> sparray.lib.stride_tricks.sliding_window_view(A, 2, axis=1).shape
    (2, 2, 2)
    """
    if not isinstance(x, SparseArray):
        import numpy as np

        if isinstance(x, np.ndarray):
            return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis, subok=subok, writeable=writeable)
        xp = namespace_of(x)
        tricks = getattr(getattr(xp, "lib", None), "stride_tricks", None)
        if tricks is None:
            raise TypeError(f"sliding_window_view: the namespace {xp.__name__} of a dense {type(x).__name__} has none")
        return tricks.sliding_window_view(x, window_shape, axis=axis)
    if writeable:
        raise ValueError("sliding_window_view: writeable=True is not supported for sparray arrays (the windows are a new array)")
    try:
        window = (operator.index(window_shape),) if not isinstance(window_shape, (tuple, list)) else tuple(
            operator.index(w) for w in window_shape)  # fmt: skip
    except TypeError:
        raise TypeError(f"sliding_window_view: window_shape must be an int or a tuple of ints; got {window_shape!r}") from None
    if any(w < 0 for w in window):
        raise ValueError(f"sliding_window_view: window_shape {window} cannot hold negative values")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(
                f"sliding_window_view: with axis=None, window_shape needs one size per dim of x; got {len(window)} "
                f"sizes for an array of {x.ndim} dims"
            )
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(normalize_axes(a, x.ndim, "sliding_window_view", allow_none=False)[0] for a in axes)
        if len(axes) != len(window):
            raise ValueError(f"sliding_window_view: window_shape {window} and axis {axis!r} must have the same length")
    from .manipulation import moveaxis
    from .take import take

    xp = x._xp
    out = x
    for ax, w in zip(axes, window):
        n = out.shape[ax]
        if w > n:
            raise ValueError(f"sliding_window_view: a window of {w} is longer than dim {ax} ({n} elements left)")
        idx = xp.reshape(xp.arange(n - w + 1, dtype=xp.int64), (n - w + 1, 1)) + xp.reshape(
            xp.arange(w, dtype=xp.int64), (1, w))  # fmt: skip
        out = moveaxis(take(out, idx, axis=ax), ax + 1, -1)
    from .._layout.conversion import match_layout

    return match_layout(out, x)


#: ``sparray.lib.stride_tricks``, where xarray looks for ``sliding_window_view`` (as in NumPy)
stride_tricks = types.ModuleType("sparray.lib.stride_tricks", "NumPy's lib.stride_tricks for sparse arrays: sliding_window_view.")
stride_tricks.sliding_window_view = sliding_window_view
lib = types.ModuleType("sparray.lib", "NumPy's lib for sparse arrays: stride_tricks.sliding_window_view.")
lib.stride_tricks = stride_tricks
