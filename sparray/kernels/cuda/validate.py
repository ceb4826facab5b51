"""Validity of a compressed encoding on a GPU: :func:`compressed_valid`, the CUDA twin of
``kernels/cpu/validate.py`` (the fast path of ``Compressed._check_contents``).

``compressed_valid(cidx, pidx, nminor) -> bool``: ``cidx`` ``(*batch, nmajor + 1)`` and ``pidx``
``(*batch, nse)`` (int32 or int64). True when, for every batch, ``cidx[..., 0] == 0``,
``cidx[..., -1] == nse``, the pointers are non-decreasing, and each row's plain indices are in
``[0, nminor)`` and strictly increasing. False otherwise: the caller then runs the generic check,
which names the first offender.

Two kernels and one count read back, parallel over pointers and then over entries (so a long row
costs no more than many short ones): ``check_pointers`` checks each pointer against its
neighbour and the ends, and flags the entry where each non-empty row starts; ``check_minor`` checks
each plain index against ``nminor`` and, unless it starts a row, against the entry before it.
A pointer outside ``[0, nse)`` is never used as an address (its row is already counted bad).

>>> import numpy as np
>>> compressed_valid(np.array([0, 2, 3]), np.array([0, 2, 1]), 3), compressed_valid(np.array([0, 2]), np.array([2, 1]), 3)
(True, False)
"""

from __future__ import annotations

import math

import numpy as np

from ._build import INDEX_TYPES, index_type
from ._driver import driver_for

__all__ = ["compressed_valid"]

SOURCE = "validate.cu"
NAME_EXPRESSIONS = tuple(f"check_pointers<{i}>" for i in INDEX_TYPES) + tuple(f"check_minor<{i}>" for i in INDEX_TYPES)


def _index(xp, a):
    a = xp.ascontiguousarray(a)
    return a if a.dtype in (np.int32, np.int64) else a.astype(xp.int64)


def compressed_valid(cidx, pidx, nminor) -> bool:
    """Whether (``cidx``, ``pidx``) is a valid compressed encoding with ``nminor`` minor positions
    in every batch (see the module docstring)."""
    drv = driver_for(cidx, pidx)
    xp = drv.xp
    width, nse = cidx.shape[-1], pidx.shape[-1]
    nb = math.prod(cidx.shape[:-1])
    c = _index(xp, cidx).reshape(nb, width)
    p = _index(xp, pidx).reshape(nb, nse)
    if nb == 0:
        return True
    if width == 0:  # not even the leading 0: invalid, the generic check says why
        return False
    heads = xp.zeros(nb * nse, xp.uint8)
    nbad = xp.zeros(1, xp.uint64)
    drv.launch(SOURCE, f"check_pointers<{index_type(c.dtype)}>", nb * width,
               (c, np.int64(nb), np.int64(width), np.int64(nse), heads, nbad))  # fmt: skip
    if nse:
        drv.launch(SOURCE, f"check_minor<{index_type(p.dtype)}>", nb * nse,
                   (p, np.int64(nb), np.int64(nse), np.int64(nminor), heads, nbad))  # fmt: skip
    return drv.scalar(nbad) == 0
