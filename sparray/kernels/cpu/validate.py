"""Validity of a compressed encoding in one parallel pass: ``compressed_valid(cidx, pidx, nminor) -> bool``.

The fast path of ``Compressed._check_contents`` for NumPy data. ``cidx`` ``(*batch, nmajor + 1)`` and
``pidx`` ``(*batch, nse)`` (int32 or int64). True when, for every batch, ``cidx[..., 0] == 0``,
``cidx[..., -1] == nse``, the pointers are non-decreasing, and each row's plain indices are in
``[0, nminor)`` and strictly increasing. False otherwise: the caller then runs the generic check,
which names the first offender. A pointer outside ``[0, nse]`` is never used as an address.

>>> import numpy as np
>>> compressed_valid(np.array([0, 2, 3]), np.array([0, 2, 1]), 3), compressed_valid(np.array([0, 2]), np.array([2, 1]), 3)
(True, False)
"""

import numba
import numpy as np
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["compressed_valid"]


@numba.njit(cache=True, nogil=True, parallel=True)
def _count_bad_rows(c, p, nminor, nchunks):
    nb, width = c.shape
    nse = p.shape[1]
    nmajor = width - 1
    total = nb * nmajor
    bad = np.zeros(nchunks, np.int64)
    for k in numba.prange(nchunks):
        nbad = 0
        for g in range(total * k // nchunks, total * (k + 1) // nchunks):
            b = g // nmajor
            r = g - b * nmajor
            lo = c[b, r]
            hi = c[b, r + 1]
            if lo < 0 or hi > nse or lo > hi:
                nbad += 1
                continue
            prev = -1
            for j in range(lo, hi):
                v = p[b, j]
                if v <= prev or v >= nminor:
                    nbad += 1
                    break
                prev = v
        bad[k] = nbad
    return bad


def compressed_valid(cidx, pidx, nminor) -> bool:
    with team(np.size(cidx) + np.size(pidx), 1 << 16):
        return _compressed_valid_in_team(cidx, pidx, nminor)


def _compressed_valid_in_team(cidx, pidx, nminor):
    width, nse = cidx.shape[-1], pidx.shape[-1]
    nb = int(np.prod(cidx.shape[:-1]))
    c = np.ascontiguousarray(cidx).reshape(nb, width)
    p = np.ascontiguousarray(pidx).reshape(nb, nse)
    if c.shape[0] == 0:
        return True
    if (c[:, 0] != 0).any() or (c[:, -1] != nse).any():
        return False
    work = c.shape[0] * (width - 1) + p.size
    nchunks = numba.get_num_threads() * 4 if work >= (1 << 16) else 1
    return int(_count_bad_rows(c, p, nminor, nchunks).sum()) == 0
