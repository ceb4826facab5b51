"""``fftshift`` and ``ifftshift``: rolls of the array along axes, so sparse stays sparse.

``fftshift`` rolls each axis of length ``n`` by ``n // 2`` (the zero frequency to the middle),
``ifftshift`` by ``-(n // 2)``; ``axes=None`` means every axis. On a sparse array a roll moves
elements and never changes a value: a sparse dim's index row becomes ``(i + shift) % n``, a dense
dim's values (and a dense-part fill) are rolled: both are ``sparray.roll`` (``_tiling.py``), which keeps
the input's fill, pattern size and layout. O(nse).

>>> import sparray, numpy as np
>>> x = sparray.asarray(np.array([1.0, 0.0, 0.0, 2.0, 0.0]))
>>> sparray.fft.fftshift(x).to_dense().tolist()
[2.0, 0.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

import operator

from .._functions.tiling import roll

__all__ = ["fftshift", "ifftshift"]


def _axes_and_shifts(who, axes, shape, inverse):
    """The dims of ``axes`` (None, an int or a sequence of ints) and the shift of each (n // 2)."""
    ndim = len(shape)
    if axes is None:
        dims = list(range(ndim))
    else:
        try:
            dims = [operator.index(axes)] if not isinstance(axes, (list, tuple)) else [operator.index(a) for a in axes]
        except TypeError:
            raise TypeError(f"{who}: axes must be None, an int or a sequence of ints; got {axes!r}") from None
    for d in dims:
        if not -ndim <= d < ndim:
            raise ValueError(f"{who}: axis {d} is out of range for an array of {ndim} dims")
    shifts = [-(shape[d] // 2) if inverse else shape[d] // 2 for d in dims]
    return tuple(dims), tuple(shifts)


def _shift(who, x, axes, inverse):
    dims, shifts = _axes_and_shifts(who, axes, tuple(x.shape), inverse)
    if not dims:
        return x
    return roll(x, shifts, axis=dims)


def fftshift(x, /, *, axes=None):
    """``x`` rolled by ``n // 2`` along each of ``axes`` (every axis when None): the zero frequency to the centre."""
    return _shift("sparray.fft.fftshift", x, axes, inverse=False)


def ifftshift(x, /, *, axes=None):
    """The inverse of ``fftshift``: ``x`` rolled by ``-(n // 2)`` along each of ``axes``."""
    return _shift("sparray.fft.ifftshift", x, axes, inverse=True)
