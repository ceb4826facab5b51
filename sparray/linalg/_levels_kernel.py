"""The numba kernel of :mod:`sparray.linalg._levels` (imported on first use: ``import
sparray.linalg`` imports no numba)."""

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _levels_kernel(indptr, indices, lower):
    n = indptr.shape[0] - 1
    level = np.zeros(n, np.int64)
    for t in range(n):
        i = t if lower else n - 1 - t
        top = np.int64(-1)
        for p in range(indptr[i], indptr[i + 1]):
            c = indices[p]
            if level[c] > top:
                top = level[c]
        level[i] = top + 1
    return level


def levels(indptr, indices, lower):
    """The level of each row of a strictly triangular canonical CSR (int64 indices, every column
    below the row for ``lower``, above it else; the caller's factorization checked them)."""
    return _levels_kernel(np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(indices, np.int64), bool(lower))
