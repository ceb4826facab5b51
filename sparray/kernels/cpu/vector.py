"""Vector kernels of the iterative solvers on long NumPy vectors: ``dot``, ``axpy``, ``aypx``.

Why not BLAS for these: OpenBLAS runs ``ddot``/``daxpy`` on threads of its own above 10000
elements, and those threads keep spinning a while after each call. On a machine with few cores
they then hold the cores that the next parallel sparse product (numba's thread pool) needs, and
each product waits for a time slice: ``cg`` on the 2-D Poisson problem with 1e5 unknowns took
29 s instead of 0.39 s on the 2-core CI VM (0.39 s with ``OPENBLAS_NUM_THREADS=1``). These
kernels keep the solver's whole iteration in numba's one pool.

Every reduction cuts the vectors into :data:`CHUNKS` equal slices (a fixed count, so the result
does not depend on the number of threads) with four accumulators each, and adds the slices'
sums in order. Real float32 and float64 only (complex solves keep BLAS); the solvers call these
from :data:`MIN_N` elements, below which BLAS runs on the calling thread anyway.

>>> import numpy as np
>>> a = np.arange(20_000, dtype=np.float64); b = np.ones(20_000)
>>> float(dot(a, b)) == float(a.sum())
True
>>> y = np.zeros(20_000); axpy(y, 2.0, b); float(y[0])
2.0
"""

import numba
import numpy as np

from ._common import chunk_bounds
from ._threads import team

__all__ = ["CHUNKS", "MIN_N", "axpy", "aypx", "dot"]

#: Slices of a reduction (a fixed count: the same rounding on every number of threads).
CHUNKS = 16
#: The solvers use these kernels from this many elements (OpenBLAS's own threading threshold).
MIN_N = 10_001


@numba.njit(parallel=True, cache=True, nogil=True)
def _dot(a, b, nchunks):
    n = a.shape[0]
    part = np.zeros(nchunks, dtype=a.dtype)
    for c in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, c, nchunks)
        s0 = s1 = s2 = s3 = a.dtype.type(0)
        i = lo
        while i + np.uint64(4) <= hi:
            s0 += a[i] * b[i]
            s1 += a[i + np.uint64(1)] * b[i + np.uint64(1)]
            s2 += a[i + np.uint64(2)] * b[i + np.uint64(2)]
            s3 += a[i + np.uint64(3)] * b[i + np.uint64(3)]
            i += np.uint64(4)
        while i < hi:
            s0 += a[i] * b[i]
            i += np.uint64(1)
        part[c] = (s0 + s1) + (s2 + s3)
    total = part[0]
    for c in range(1, nchunks):
        total += part[c]
    return total


@numba.njit(parallel=True, cache=True, nogil=True)
def _axpy(y, alpha, x, nchunks):
    n = y.shape[0]
    for c in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, c, nchunks)
        for i in range(lo, hi):
            y[i] += alpha * x[i]


@numba.njit(parallel=True, cache=True, nogil=True)
def _aypx(y, alpha, x, nchunks):
    n = y.shape[0]
    for c in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, c, nchunks)
        for i in range(lo, hi):
            y[i] = alpha * y[i] + x[i]


def _check(who, *arrays):
    first = arrays[0]
    for a in arrays:
        if a.ndim != 1 or a.shape != first.shape or a.dtype != first.dtype or not a.flags.c_contiguous:
            raise ValueError(f"vector.{who}: expected 1-D C-contiguous vectors of one length and dtype")
    if first.dtype not in (np.float32, np.float64):
        raise ValueError(f"vector.{who}: dtype {first.dtype} (expected float32 or float64)")


def dot(a, b):
    """``sum(a * b)`` of two real vectors of one length and dtype (a NumPy scalar of that dtype)."""
    _check("dot", a, b)
    with team(a.shape[0], MIN_N):
        return a.dtype.type(_dot(a, b, CHUNKS))


def axpy(y, alpha, x):
    """``y += alpha * x`` in place."""
    _check("axpy", y, x)
    with team(y.shape[0], MIN_N):
        _axpy(y, y.dtype.type(alpha), x, CHUNKS)


def aypx(y, alpha, x):
    """``y = alpha * y + x`` in place."""
    _check("aypx", y, x)
    with team(y.shape[0], MIN_N):
        _aypx(y, y.dtype.type(alpha), x, CHUNKS)
