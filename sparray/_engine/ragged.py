"""Runs of given lengths laid end to end: the pure array-API stand-in for ``numpy.repeat``.

``expand_runs(xp, lengths)`` numbers the ``sum(lengths)`` slots of runs placed one after the
other: slot ``q`` belongs to run ``owner[q]`` and is its ``offset[q]``-th slot. ``repeat``,
``tile``, ``tril``/``triu`` and ``meshgrid`` build their new entries from it. Cost O(n + total)
with a ``searchsorted``; no scatter, so it runs on every namespace.

>>> import numpy as np, array_api_compat
>>> xp = array_api_compat.array_namespace(np.empty(0))
>>> owner, offset = expand_runs(xp, xp.asarray([2, 0, 3]))
>>> owner.tolist(), offset.tolist()
([0, 0, 2, 2, 2], [0, 1, 0, 1, 2])
"""

from __future__ import annotations

__all__ = ["expand_runs"]


def expand_runs(xp, lengths):
    """``(owner, offset)``, both int64 of length ``sum(lengths)`` (``lengths``: 1-d, non-negative)."""
    lengths = xp.astype(lengths, xp.int64)
    if lengths.shape[0] == 0:
        empty = xp.zeros((0,), dtype=xp.int64)
        return empty, empty
    ends = xp.cumulative_sum(lengths)
    total = int(ends[-1])
    q = xp.arange(total, dtype=xp.int64)
    owner = xp.astype(xp.searchsorted(ends, q, side="right"), xp.int64)
    starts = ends - lengths
    return owner, q - xp.take(starts, owner)
