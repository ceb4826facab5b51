"""``all_finite(x) -> bool``: whether every element of a NumPy array is finite, in parallel.

The products with a sparse operand need it for the dense operand: with a zero fill, an
unspecified element times inf is nan in the dense product, so a non-finite operand takes the
exact (slower) route. NumPy's one-thread ``isfinite(sum(x))`` reads 256 MB in about 30 ms here;
this pass splits the array over the threads.

Each chunk sums ``x * 0``: 0 for a finite element, nan for inf or nan, so the total is 0 exactly
when every element is finite (no overflow, unlike a plain sum). Complex arrays are read as pairs
of reals. Integer and bool arrays are finite by definition. Any other dtype or a
non-contiguous array is declined (the generic path handles it).

>>> import numpy as np
>>> all_finite(np.array([1.0, 2.0])), all_finite(np.array([1.0, np.inf]))
(True, False)
"""

import numba
import numpy as np

from .. import KernelDeclined
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["all_finite"]

_FLOATS = {np.dtype(np.float32): None, np.dtype(np.float64): None,
           np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_CHUNKS = 16


@numba.njit(parallel=True, cache=True, nogil=True)
def _zero_products_sum(x, nchunks):
    """Sum of ``x * 0`` over 1-D ``x``, four accumulators per chunk."""
    n = x.shape[0]
    part = np.zeros(nchunks)
    for c in numba.prange(nchunks):
        lo, hi = n * c // nchunks, n * (c + 1) // nchunks
        s0 = s1 = s2 = s3 = 0.0
        i = lo
        while i + 4 <= hi:
            s0 += x[i] * 0.0
            s1 += x[i + 1] * 0.0
            s2 += x[i + 2] * 0.0
            s3 += x[i + 3] * 0.0
            i += 4
        while i < hi:
            s0 += x[i] * 0.0
            i += 1
        part[c] = (s0 + s1) + (s2 + s3)
    return part.sum()


def all_finite(x):
    x = np.asarray(x)
    if x.dtype.kind in "biu":
        return True
    if x.dtype not in _FLOATS:
        raise KernelDeclined(f"all_finite: dtype {x.dtype} (expected float32/64 or complex64/128)")
    if not x.flags.c_contiguous:
        raise KernelDeclined("all_finite: a non-contiguous array")
    flat = x.reshape(-1)
    if _FLOATS[x.dtype] is not None:
        flat = flat.view(_FLOATS[x.dtype])
    with team(flat.shape[0]):
        return bool(_zero_products_sum(flat, _CHUNKS) == 0.0)
