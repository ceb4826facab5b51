"""Copies and shifts along axes: ``repeat``, ``tile`` and ``roll`` (array API), exact with any fill.

All three only move or copy elements, so the fill value is kept as it is and every result is
sparse, with the input's sparse/dense split. They work on the COO form:

- on a sparse dim, an entry at coordinate ``c`` becomes the entries at the new coordinates of its
  copies (``repeat``: ``start[c] .. start[c] + repeats[c] - 1``; ``tile``: ``c + j * n``;
  ``roll``: ``(c + shift) % n``): indices and values gathered, O(result nse);
- on a dense dim, the value axes (and a dense-part fill) are gathered with ``xp.take``.

A compressed input comes back in its layout when the result's shape allows it (a blocked one
also needs its blocksize to divide the result), else as COO. ``axis=None`` flattens first
(``reshape(x, (-1,))``: dense dims with a varying fill are then specified, O(size)).

>>> import sparray
>>> A = sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,), fill_value=-1.0)
>>> sparray.repeat(A, 2).to_dense().tolist()
[1.0, 1.0, -1.0, -1.0, 2.0, 2.0]
>>> sparray.roll(A, 1).to_dense().tolist()
[2.0, 1.0, -1.0]
>>> sparray.tile(A, (2,)).nse
4
"""

from __future__ import annotations

import math
import operator

from .._array.base import SparseArray
from .._core.keys import index_dtype_for
from .manipulation import _as_coo, _back, _coo_class, expand_dims, reshape
from .._core.namespace import is_array, namespace_of, to_numpy
from .._engine.ragged import expand_runs
from .._core.validation import normalize_axes

__all__ = ["repeat", "roll", "tile"]


def _replace_row(xp, indices, d, row):
    """``indices`` with row ``d`` replaced by ``row`` (cast to the indices' dtype)."""
    row = xp.reshape(xp.astype(row, indices.dtype), (1, row.shape[0]))
    return xp.concat([indices[:d, :], row, indices[d + 1 :, :]], axis=0)


def _gather_dense(xp, A, j, positions):
    """Values and fill of COO ``A`` with dense dim ``j`` (counted among the dense dims) gathered at ``positions``."""
    values = xp.take(A._values, positions, axis=1 + j)
    fill = xp.take(A._fill, positions, axis=j) if A._fill.ndim else A._fill
    return values, fill


def _runs(xp, indices, upto):
    """``(starts, lengths)`` (int64) of the runs of consecutive entries with equal ``indices[:upto]``."""
    nse = indices.shape[1]
    if nse == 0:
        empty = xp.zeros((0,), dtype=xp.int64)
        return empty, empty
    if upto == 0:
        return xp.zeros((1,), dtype=xp.int64), xp.asarray([nse], dtype=xp.int64)
    new = xp.any(indices[:upto, 1:] != indices[:upto, :-1], axis=0)
    starts = xp.astype(xp.nonzero(xp.concat([xp.ones((1,), dtype=xp.bool), new]))[0], xp.int64)
    return starts, xp.concat([starts[1:], xp.asarray([nse], dtype=xp.int64)]) - starts


def _copies(xp, starts, lengths, copies):
    """``(entry, copy)`` of every output entry when run ``r`` is written ``copies[r]`` times in a
    row (copy-major within the run): a sorted input gives a sorted output, since the copies of a run
    occupy consecutive coordinates along the copied dim."""
    owner, offset = expand_runs(xp, lengths * copies)
    length = xp.take(lengths, owner)
    return xp.take(starts, owner) + offset % length, offset // length


def _rebuild(xp, A, shape, entry, d, new_c, coalesced=None):
    """COO of ``shape`` with the entries ``entry`` of ``A`` and coordinate row ``d`` set to ``new_c``."""
    s = A.sparse_ndim
    itype = index_dtype_for(xp, shape[:s], entry.shape[0], A._indices)
    indices = _replace_row(xp, xp.astype(xp.take(A._indices, entry, axis=1), itype), d, new_c)
    values = xp.take(A._values, entry, axis=0)
    return _coo_class()._from_parts(xp, indices, values, tuple(shape), A._fill, coalesced=coalesced)


# --- repeat ------------------------------------------------------------------------------------------
def _repeat_counts(repeats, n):
    """``repeats`` (an int, or a 0-d or 1-d integer array / list of shape (1,) or (n,)) as a NumPy
    int64 array of length ``n``; TypeError for a non-integer, ValueError for a bad shape or a
    negative count."""
    import numpy as np

    if isinstance(repeats, SparseArray):
        repeats = repeats.to_dense()
    try:
        counts = np.asarray(operator.index(repeats), dtype=np.int64)
    except TypeError:
        arr = np.asarray(to_numpy(repeats) if is_array(repeats) else repeats)
        if arr.dtype.kind not in "iu" and not (arr.size == 0 and arr.dtype.kind == "f"):
            raise TypeError(f"repeat: repeats must be an int or an array of integers; got {repeats!r}") from None
        if arr.ndim > 1:
            raise ValueError(f"repeat: repeats must be an int or a 1-d array; got shape {arr.shape}")
        if arr.ndim == 1 and arr.shape[0] not in (1, n):
            raise ValueError(f"repeat: repeats of shape {arr.shape} must have shape (1,) or ({n},) to match the "
                             f"{n} elements along the axis")
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > 2**63 - 1:
            raise ValueError(f"repeat: repeats {int(arr.max())} is too large")
        counts = arr.astype(np.int64)
    if counts.size and int(counts.min()) < 0:
        first = int(np.flatnonzero(counts.reshape(-1) < 0)[0])
        where = f"repeats[{first}] = " if counts.ndim else "repeats = "
        raise ValueError(f"repeat: repeats must be non-negative; got {where}{int(counts.reshape(-1)[first])}")
    return np.broadcast_to(counts.reshape(-1), (n,))


def repeat(x, repeats, /, *, axis=None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (None: along the flattened array).

    ``repeats`` is an int or a 1-d integer array (any namespace, a list, or a SparseArray) of
    length 1 or ``x.shape[axis]``. The result is sparse with ``x``'s fill: every specified element
    of a sparse dim becomes ``repeats[c]`` entries (O(result nse)); a dense dim repeats the value
    axes and a dense-part fill. Layout: ``x``'s when the result's shape allows it, else COO.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 2), fill_value=9.0)
    >>> sparray.repeat(A, [1, 2], axis=0).to_dense().tolist()
    [[9.0, 1.0], [2.0, 9.0], [2.0, 9.0]]
    """
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        if isinstance(repeats, int):
            return xp.repeat(x, repeats, axis=axis)
        n = math.prod(x.shape) if axis is None else x.shape[normalize_axes(axis, x.ndim, "repeat", allow_none=False)[0]]
        return xp.repeat(x, xp.asarray(_repeat_counts(repeats, n).copy()), axis=axis)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    (axis,) = normalize_axes(axis, x.ndim, "repeat", allow_none=False)
    n = x.shape[axis]
    counts_np = _repeat_counts(repeats, n)
    A = _as_coo(x)
    xp = A._xp
    counts = xp.asarray(counts_np.copy())
    shape = list(A.shape)
    shape[axis] = int(counts_np.sum())
    s = A.sparse_ndim
    if axis >= s:
        owner, _ = expand_runs(xp, counts)
        values, fill = _gather_dense(xp, A, axis - s, owner)
        out = _coo_class()._from_parts(xp, A._indices, values, tuple(shape), fill, coalesced=A._coalesced)
        return _back(out, x)
    # the runs of entries sharing the coordinates up to `axis` are written repeats[c] times each
    c = xp.astype(A._indices[axis, :], xp.int64)
    starts, lengths = _runs(xp, A._indices, axis + 1)
    entry, copy = _copies(xp, starts, lengths, xp.take(counts, xp.take(c, starts)))
    first = xp.cumulative_sum(counts) - counts if n else counts  # first output coordinate of each c
    new_c = xp.take(first, xp.take(c, entry)) + copy
    out = _rebuild(xp, A, shape, entry, axis, new_c, coalesced=True if A._coalesced else None)
    return _back(out, x)


# --- tile --------------------------------------------------------------------------------------------
def _repetitions(value):
    """``repetitions`` as a tuple of ints (an int counts as a 1-tuple, as in NumPy), or None."""
    try:
        return (operator.index(value),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(v) for v in value) if isinstance(value, (tuple, list)) else None
    except TypeError:
        return None


def tile(x, repetitions, /):
    """``x`` tiled ``repetitions[d]`` times along each dim ``d`` (``numpy.tile``).

    ``repetitions`` is a tuple of non-negative ints; a shorter one is padded with leading 1s, a
    longer one gives ``x`` leading size-1 dims first. Every copy of a sparse dim shifts the
    entries by ``n`` (O(result nse)); a dense dim tiles the value axes and a dense-part fill.
    The fill is kept. Layout: ``x``'s when the result's shape allows it, else COO.

    >>> import sparray
    >>> A = sparray.COO([[1]], [5.0], shape=(2,), fill_value=0.5)
    >>> sparray.tile(A, (2, 2)).to_dense().tolist()
    [[0.5, 5.0, 0.5, 5.0], [0.5, 5.0, 0.5, 5.0]]
    """
    reps = _repetitions(repetitions)
    if reps is None:
        raise TypeError(f"tile: repetitions must be a tuple of ints; got {repetitions!r}")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: repetitions must be non-negative; got {reps}")
    if not isinstance(x, SparseArray):
        return namespace_of(x).tile(x, reps)
    if len(reps) > x.ndim:
        x = expand_dims(x, axis=tuple(range(len(reps) - x.ndim))) if x.ndim else reshape(x, (1,) * len(reps))
    reps = (1,) * (x.ndim - len(reps)) + reps
    A = _as_coo(x)
    xp = A._xp
    s = A.sparse_ndim
    shape = list(A.shape)
    for d, r in enumerate(reps):
        if r == 1:
            continue
        n = shape[d]
        shape[d] = n * r
        if d >= s:
            values, fill = _gather_dense(xp, A, d - s, xp.arange(n * r, dtype=xp.int64) % max(n, 1))
            A = _coo_class()._from_parts(xp, A._indices, values, tuple(shape), fill, coalesced=A._coalesced)
            continue
        # the runs of entries sharing the coordinates before d are written r times each, shifted by n
        starts, lengths = _runs(xp, A._indices, d)
        entry, copy = _copies(xp, starts, lengths, xp.full(starts.shape, r, dtype=xp.int64))
        new_c = xp.take(xp.astype(A._indices[d, :], xp.int64), entry) + copy * n
        A = _rebuild(xp, A, shape, entry, d, new_c, coalesced=True if A._coalesced else None)
    return _back(A, x)


# --- roll --------------------------------------------------------------------------------------------
def _shifts_by_dim(shift, axis, ndim):
    """``{dim: total shift}`` from ``shift`` and ``axis`` broadcast against each other (NumPy's rule:
    shifts on one dim add up)."""
    shifts = (shift,) if not isinstance(shift, (tuple, list)) else tuple(shift)
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    try:
        shifts = tuple(operator.index(s) for s in shifts)
    except TypeError:
        raise TypeError(f"roll: shift must be an int or a tuple of ints; got {shift!r}") from None
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same length (or one of them one)")
    k = max(len(shifts), len(axes))
    shifts, axes = shifts * (k // len(shifts)), axes * (k // len(axes))
    out = {}
    for a, t in zip(axes, shifts):
        (d,) = normalize_axes(a, ndim, "roll", allow_none=False)
        out[d] = out.get(d, 0) + t
    return out


def roll(x, /, shift, *, axis=None):
    """``x`` with its elements shifted by ``shift`` places along ``axis`` (wrapping around), as
    ``numpy.roll``: ``axis=None`` rolls the flattened array; ``shift`` and ``axis`` may be tuples.

    An index shift: sparse coordinates become ``(c + shift) % n`` and dense value axes are rolled,
    so the result is sparse with ``x``'s entries and fill, O(nse). Layout: ``x``'s when the
    result allows it (a blocked layout needs block-aligned shifts of its blocked dims), else COO.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [0, 2]], [1.0, 2.0], shape=(2, 3), fill_value=-1.0)
    >>> sparray.roll(A, 1, axis=1).to_dense().tolist()
    [[-1.0, 1.0, -1.0], [2.0, -1.0, -1.0]]
    """
    if not isinstance(x, SparseArray):
        return namespace_of(x).roll(x, shift, axis=axis)
    if axis is None:
        by_dim = _shifts_by_dim(shift, 0, 1)
        flat = reshape(x, (-1,))
        return _back(reshape(_roll_coo(_as_coo(flat), by_dim), x.shape), x)
    by_dim = _shifts_by_dim(shift, axis, x.ndim)
    return _back(_roll_coo(_as_coo(x), by_dim), x)


def _roll_coo(A, by_dim):
    """COO ``A`` rolled by ``by_dim`` ({dim: shift}). A coalesced ``A`` stays coalesced: within each
    run of entries sharing the coordinates before the rolled dim, the entries that wrap around
    (a suffix of the run, sorted by that coordinate) move to the front of the run."""
    xp = A._xp
    s = A.sparse_ndim
    ordered = A.is_coalesced if any(d < s and A.shape[d] and t % A.shape[d] for d, t in by_dim.items()) else None
    for d, t in sorted(by_dim.items()):
        n = A.shape[d]
        if n == 0 or t % n == 0:
            continue
        t %= n
        if d >= s:
            values, fill = _gather_dense(xp, A, d - s, (xp.arange(n, dtype=xp.int64) - t) % n)
            A = _coo_class()._from_parts(xp, A._indices, values, A.shape, fill, coalesced=A._coalesced)
            continue
        c = xp.astype(A._indices[d, :], xp.int64)
        if not ordered:
            A = _coo_class()._from_parts(xp, _replace_row(xp, A._indices, d, (c + t) % n), A._values, A.shape,
                                         A._fill, coalesced=None)  # fmt: skip
            continue
        starts, lengths = _runs(xp, A._indices, d)
        owner, local = expand_runs(xp, lengths)
        before = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(xp.astype(c < n - t, xp.int64))])
        stay = xp.take(before, starts + lengths) - xp.take(before, starts)  # per run: entries that do not wrap
        wrap = xp.take(lengths - stay, owner)
        entry = xp.take(starts, owner) + xp.where(local < wrap, xp.take(stay, owner) + local, local - wrap)
        A = _rebuild(xp, A, A.shape, entry, d, (xp.take(c, entry) + t) % n, coalesced=True)
    return A
