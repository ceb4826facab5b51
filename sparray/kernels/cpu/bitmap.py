"""A bitmap vector's entries as a sparse vector's parts, in one parallel pass (numba).

``sparray.graph``'s matrix-vector products produce a *bitmap* result (GraphBLAS's term): the
values ``y`` (n,) and a bool ``present`` (n,). A sparse vector (a 1-d COO) holds the present
positions and their values. NumPy does it in four passes (``nonzero``, a cast of the positions,
``take``, and the bitmap read twice); :func:`bitmap_compact` reads ``present`` three times (a
vectorised count to size the result, a count a chunk, then the writes) and ``y`` once, in
parallel, writing the positions in the index dtype
asked for. The chunks are fixed (:data:`CHUNK`), so the result does not depend on the threads.

>>> import numpy as np
>>> idx, vals = bitmap_compact(np.array([5.0, 6.0, 7.0]), np.array([True, False, True]), np.int32)
>>> idx.tolist(), vals.tolist(), idx.dtype.name
([0, 2], [5.0, 7.0], 'int32')
"""

from __future__ import annotations

import numba
import numpy as np

from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)
from ._threads import team

__all__ = ["bitmap_compact"]

#: elements a chunk: the unit of work of the count pass and of the writes
CHUNK = 1 << 14
#: elements from which the two passes run on more than one thread
PARALLEL_FROM = 1 << 16


@numba.njit(cache=True, nogil=True, parallel=True)
def _compact(y, present, idx, vals, nchunks):
    n = present.shape[0]
    counts = np.zeros(nchunks + 1, np.int64)
    for c in numba.prange(nchunks):
        lo, hi = c * CHUNK, min(n, (c + 1) * CHUNK)
        k = 0
        for i in range(lo, hi):
            k += present[i]
        counts[c + 1] = k
    for c in range(nchunks):
        counts[c + 1] += counts[c]
    for c in numba.prange(nchunks):
        lo, hi = c * CHUNK, min(n, (c + 1) * CHUNK)
        k = counts[c]
        for i in range(lo, hi):
            if present[i]:
                idx[k] = i
                vals[k] = y[i]
                k += 1


def bitmap_compact(y, present, index_dtype):
    """``(positions, values)`` of the True elements of ``present`` (1-d bool) and ``y`` there:
    positions increasing, of ``index_dtype`` (int32 or int64, which must hold n - 1), values of
    y's dtype. ``y`` and ``present`` have one length.

    Raises ValueError for mismatched shapes or an index dtype too small."""
    y = np.ascontiguousarray(y)
    present = np.ascontiguousarray(present, dtype=np.bool_)
    if y.ndim != 1 or present.shape != y.shape:
        raise ValueError(f"bitmap_compact: y and present must be 1-d of one length; got {y.shape} and {present.shape}")
    index_dtype = np.dtype(index_dtype)
    n = int(y.shape[0])
    if index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or n - 1 > np.iinfo(index_dtype).max:
        raise ValueError(f"bitmap_compact: index_dtype must be int32 or int64 and hold {n - 1}; got {index_dtype}")
    nchunks = -(-n // CHUNK)
    total = int(np.count_nonzero(present))  # sizes the result (a vectorised count: no kernel needed)
    idx = np.empty(total, index_dtype)
    vals = np.empty(total, y.dtype)
    if total:
        with team(n, PARALLEL_FROM):  # one thread below PARALLEL_FROM elements
            _compact(y, present, idx, vals, nchunks)
    return idx, vals
