"""Which minor indices a compressed pattern never uses: ``unused_minor(minor, nminor)``.

The products use it once per array: when ``A @ X`` (zero fill) comes out all finite, every row of
X that a stored element of A reads is finite, so only the rows of the unused columns need a
finiteness check instead of all of X (see ``sparray._products.products``).

``minor`` is a 1-D int32/int64 array of indices in ``[0, nminor)`` (the array's contents were
validated before); an index outside that range is never used as an address: it is counted and
the wrapper raises ValueError. Threads mark a shared byte map; two threads may store the same
byte, always the value 1.

>>> import numpy as np
>>> unused_minor(np.array([3, 0, 3]), 5).tolist(), used_minor(np.array([3, 0, 3]), 5).tolist()
([1, 2, 4], [0, 3])
"""

import numba
import numpy as np

from ._common import as_index
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["unused_minor", "used_minor"]


@numba.njit(cache=True, nogil=True)
def _mark_range(minor, nminor, used, lo, hi):
    """Mark ``used[minor[i]]`` for i in [lo, hi); returns how many indices were out of range.
    Unsigned positions and indices (a negative index wraps past nminor and is counted): numba
    then adds no negative-index select, and LLVM no gathers (see _common.py)."""
    un = np.uint64(nminor)
    nb = 0
    for i in range(np.uint64(lo), np.uint64(hi)):
        j = np.uint64(np.int64(minor[i]))
        if j >= un:
            nb += 1
        else:
            used[j] = 1
    return nb


@numba.njit(cache=True, nogil=True, parallel=True)
def _mark(minor, nminor, used, nchunks):
    n = minor.shape[0]
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        bad[c] = _mark_range(minor, nminor, used, n * c // nchunks, n * (c + 1) // nchunks)
    return bad.sum()


def _used(minor, nminor, who):
    minor = as_index(minor, "minor", who)
    used = np.zeros(nminor, np.uint8)
    with team(minor.shape[0]):
        bad = _mark(minor, nminor, used, numba.get_num_threads())
    if bad:
        raise ValueError(f"{who}: {bad} indices outside [0, {nminor})")
    return used


def unused_minor(minor, nminor):
    """The sorted int64 indices in ``[0, nminor)`` that appear nowhere in ``minor``."""
    return np.flatnonzero(_used(minor, nminor, "unused_minor") == 0)


def used_minor(minor, nminor):
    """The sorted int64 indices in ``[0, nminor)`` that appear in ``minor`` (a CSR's columns that
    hold an entry: the keys of its column sums, kept by the lean paths)."""
    return np.flatnonzero(_used(minor, nminor, "used_minor"))
