"""``fftshift`` and ``ifftshift``: rolls of the array along axes, so sparse stays sparse.

``fftshift`` rolls each axis of length ``n`` by ``n // 2`` (the zero frequency to the middle),
``ifftshift`` by ``-(n // 2)``; ``axes=None`` means every axis. On a sparse array a roll moves
elements and never changes a value: a sparse dim's index row becomes ``(i + shift) % n``, a dense
dim's values (and a dense-part fill) are rolled with the namespace's ``roll``. The result has the
input's fill, pattern size and layout (a compressed array goes through COO and back); an
uncoalesced COO keeps its duplicates. O(nse).

>>> import sparray, numpy as np
>>> x = sparray.asarray(np.array([1.0, 0.0, 0.0, 2.0, 0.0]))
>>> sparray.fft.fftshift(x).to_dense().tolist()
[2.0, 0.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

import operator

from .._base import SparseArray
from .._conversion import match_layout
from .._coo import COO
from ..linalg._checks import array_namespace

__all__ = ["fftshift", "ifftshift"]


def _shifts(who, axes, shape, inverse):
    """{dim: shift} for ``axes`` (None, an int or a sequence of ints; repeated dims add up, as rolls do)."""
    ndim = len(shape)
    if axes is None:
        dims = list(range(ndim))
    else:
        try:
            dims = [operator.index(axes)] if not isinstance(axes, (list, tuple)) else [operator.index(a) for a in axes]
        except TypeError:
            raise TypeError(f"{who}: axes must be None, an int or a sequence of ints; got {axes!r}") from None
    out = {}
    for d in dims:
        if not -ndim <= d < ndim:
            raise ValueError(f"{who}: axis {d} is out of range for an array of {ndim} dims")
        d %= ndim
        step = shape[d] // 2
        out[d] = out.get(d, 0) + (-step if inverse else step)
    return out


def _roll(who, x, axes, inverse):
    xp = array_namespace(who, x)
    shifts = _shifts(who, axes, tuple(x.shape), inverse)
    if not isinstance(x, SparseArray):
        if not shifts:
            return x
        return xp.roll(x, tuple(shifts.values()), axis=tuple(shifts))
    A = x if x.layout == "coo" else x.to_layout("coo")
    s = A.sparse_ndim
    indices, values, fill = A._indices, A._values, A._fill
    rows = [indices[d : d + 1, :] for d in range(s)]
    for d, shift in shifts.items():
        n = A.shape[d]
        if n == 0 or shift % n == 0:
            continue
        if d < s:  # a sparse dim: move the index row
            moved = (xp.astype(rows[d], xp.int64) + shift % n) % n
            rows[d] = xp.astype(moved, indices.dtype)
        else:  # a dense dim: roll the values (and a dense-part fill) along it
            values = xp.roll(values, shift, axis=1 + d - s)
            if fill.ndim:
                fill = xp.roll(fill, shift, axis=d - s)
    if s:
        indices = xp.concat(rows, axis=0)
    moved_sparse = any(d < s and A.shape[d] and shift % A.shape[d] for d, shift in shifts.items())
    out = COO._from_parts(xp, indices, values, A.shape, fill, coalesced=None if moved_sparse else A._coalesced)
    out._checked = A._checked
    return match_layout(out, x)


def fftshift(x, /, *, axes=None):
    """``x`` rolled by ``n // 2`` along each of ``axes`` (every axis when None): the zero frequency to the centre."""
    return _roll("sparray.fft.fftshift", x, axes, inverse=False)


def ifftshift(x, /, *, axes=None):
    """The inverse of ``fftshift``: ``x`` rolled by ``-(n // 2)`` along each of ``axes``."""
    return _roll("sparray.fft.ifftshift", x, axes, inverse=True)
