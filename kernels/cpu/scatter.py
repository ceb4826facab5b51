"""Dense scatter-add: ``scatter_sum(keys, values, nkeys) -> acc`` with ``acc[k] = sum of values[keys == k]``.

The hot path of ``sum`` over sparse axes when the fill is zero (no per-key counts are needed,
so each row costs one scattered add). ``keys`` int32 or int64 (any order), ``values`` (n, m)
of a numeric dtype, ``acc`` (nkeys, m) of the same dtype. Each thread adds its slice of rows into
a private accumulator; the accumulators are summed at the end, so float results may differ in
the last bits with the thread count. A key outside ``[0, nkeys)`` is never used as an address:
it is counted, and the wrapper raises ValueError.

>>> import numpy as np
>>> scatter_sum(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3).ravel().tolist()
[2.0, 0.0, 5.0]
"""

import numba
import numpy as np

from .. import KernelDeclined
from ._common import prefetch_write

__all__ = ["scatter_sum"]

_AHEAD = 32  # rows between the prefetch of an accumulator slot and its add

_DTYPES = {np.dtype(t) for t in ("int32", "int64", "uint32", "uint64", "float32", "float64", "complex64", "complex128")}


@numba.njit(cache=True, nogil=True, parallel=True)
def _scatter(keys, values, nkeys, acc):
    nchunks = acc.shape[0]
    n = keys.shape[0]
    m = values.shape[1]
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        a = acc[c]
        nb = 0
        for i in range(n * c // nchunks, n * (c + 1) // nchunks):
            k = keys[i]
            if k < 0 or k >= nkeys:
                nb += 1
                continue
            for t in range(m):
                a[k, t] += values[i, t]
        bad[c] = nb
    return bad


@numba.njit(cache=True, nogil=True, parallel=True)
def _scatter_scalar(keys, values, nkeys, acc):
    """``_scatter`` for one value per row (``values`` 1-D, ``acc`` (nchunks, nkeys)): the slot of
    row ``i + _AHEAD`` is prefetched, which hides part of the latency of the random adds (a
    third faster on a power-law graph's columns)."""
    nchunks = acc.shape[0]
    n = keys.shape[0]
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        a = acc[c]
        nb = 0
        lo, hi = n * c // nchunks, n * (c + 1) // nchunks
        for i in range(lo, hi):
            if i + _AHEAD < hi:
                ahead = keys[i + _AHEAD]
                if ahead >= 0 and ahead < nkeys:
                    prefetch_write(a, ahead, 0)
            k = keys[i]
            if k < 0 or k >= nkeys:
                nb += 1
                continue
            a[k] += values[i]
        bad[c] = nb
    return bad


def scatter_sum(keys, values, nkeys):
    keys = np.asarray(keys)
    values = np.ascontiguousarray(values)
    if keys.ndim != 1 or keys.dtype not in (np.int32, np.int64):
        raise ValueError(f"scatter_sum: keys must be 1-d int32/int64; got {keys.dtype} of shape {keys.shape}")
    if values.ndim != 2 or values.shape[0] != keys.shape[0]:
        raise ValueError(f"scatter_sum: values must be (n, m) with n = len(keys) = {keys.shape[0]}; got {values.shape}")
    if values.dtype not in _DTYPES:
        raise KernelDeclined(f"scatter_sum takes int32/64, uint32/64, float and complex values, not {values.dtype}; cast first")
    keys = np.ascontiguousarray(keys)
    n, m = values.shape
    threads = numba.get_num_threads() if n * m >= (1 << 16) else 1
    # private accumulators cost nkeys * m per thread: use one when they would outweigh the rows
    nchunks = max(1, min(threads, 1 + (2 * n) // max(nkeys, 1)))
    acc = np.zeros((nchunks, nkeys, m), dtype=values.dtype)
    if m == 1:
        bad = int(_scatter_scalar(keys, values.reshape(-1), nkeys, acc.reshape(nchunks, nkeys)).sum())
    else:
        bad = int(_scatter(keys, values, nkeys, acc).sum())
    if bad:
        raise ValueError(f"scatter_sum: {bad} keys outside [0, {nkeys})")
    return acc[0] if nchunks == 1 else acc.sum(axis=0)
