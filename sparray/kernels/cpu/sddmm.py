"""Sampled dense-dense product: ``sddmm(crow, col, a, bt) -> out``.

- :func:`sddmm` -- for a CSR pattern (``crow``, ``col``) over R rows and C columns, entry e of
  row r gets ``out[e] = sum_k a[r, k] * bt[col[e], k]``, i.e. ``(a @ bt.T)[r, col[e]]``
  computed only where the pattern has an entry.

Conventions.  ``crow`` (R + 1,) and ``col`` (nse,) are 1-D int32 or int64 (other integer dtypes
are converted to int64, and both to int64 if they differ); ``crow[0] == 0``, ``crow[-1] ==
nse``, non-decreasing, and every ``col[e]`` in ``[0, C)``: anything else raises ValueError
naming the first offending position (nothing unchecked is used as an address).  ``a`` (R, K)
and ``bt`` (C, K) are 2-D arrays of one dtype among (u)int8..64, float32/64, complex64/128
(anything else, bool included, raises KernelDeclined); they are made C-contiguous if they are
not, so ``bt`` is B transposed and stored row-major and every dot product reads two
contiguous rows.  ``out`` has their dtype; integers wrap around as in NumPy (they are summed
in int64 and cut back, which gives the same bits), floating sums are accumulated in the
input precision.  K = 0 gives zeros.

Parallel over chunks of rows balanced by entries + rows (a few chunks per thread, dealt out
round-robin); the row ``a[r]`` stays in cache across its entries.  The inner dot product is
compiled with ``fastmath={"reassoc", "contract"}`` so that floating-point sums vectorise (the
summation order, hence the last bits, differs from a sequential loop; NaN and inf behave
normally).  Small inputs run on the calling thread alone (:func:`._threads.team`).

>>> import numpy as np
>>> sddmm(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([[1.0, 2.0], [3.0, 4.0]]),
...       np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])).tolist()
[1.0, 3.0, 4.0]
"""

import numba
import numpy as np

from .. import KernelDeclined
from ._common import as_index, as_values, row_splits
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["sddmm"]

_JIT = dict(cache=True, nogil=True)
_PJIT = dict(cache=True, nogil=True, parallel=True)
_FASTJIT = dict(cache=True, nogil=True, fastmath={"reassoc", "contract"})

_CHUNKS_PER_THREAD = 4
_BAD_CROW, _BAD_COL = 1, 2


# ---------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------


def _as_dense(x, name):
    x = as_values(x, name, "sddmm")
    if x.ndim != 2:
        raise ValueError(f"sddmm: {name} must be 2-D, got shape {x.shape}")
    return x


def _raise_invalid(flags, crow, col, C):
    if flags & _BAD_CROW:
        d = np.flatnonzero(crow[1:] < crow[:-1])
        g = int(d[0]) + 1
        raise ValueError(f"sddmm: crow must be non-decreasing: crow[{g}] = {crow[g]} < crow[{g - 1}] = {crow[g - 1]}")
    bad = np.flatnonzero((col < 0) | (col >= C))
    e = int(bad[0])
    raise ValueError(f"sddmm: col[{e}] = {col[e]} is out of range for {C} columns (rows of bt)")


# ---------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------


@numba.njit(**_FASTJIT)
def _dot(x, y, zero):
    """sum_k x[k] * y[k] over two contiguous rows, accumulated in zero's type."""
    s = zero
    for k in range(np.uint64(x.shape[0])):
        s += x[k] * y[k]
    return s


@numba.njit(**_JIT)
def _rows(crow, col, a, bt, out, zero, lo, hi):
    """out[e] for the entries of rows lo:hi; checks each row's pointers and each column
    (a bad one is flagged and never used as an address).  Returns the flags."""
    nse = np.int64(col.shape[0])
    C = np.uint64(bt.shape[0])
    flags = 0
    for r in range(lo, hi):
        e0 = np.int64(crow[r])
        e1 = np.int64(crow[r + 1])
        if e0 < 0 or e1 < e0 or e1 > nse:
            flags |= _BAD_CROW
            continue
        ar = a[r]
        for e in range(np.uint64(e0), np.uint64(e1)):
            c = np.uint64(np.int64(col[e]))
            if c >= C:
                flags |= _BAD_COL
            else:
                out[e] = _dot(ar, bt[c], zero)
    return flags


@numba.njit(**_PJIT)
def _sddmm(crow, col, a, bt, out, zero, T, nper):
    nch = T * nper
    # chunks balanced by entries + rows (crow is not validated yet: row_splits stays in [0, R])
    splits = row_splits(crow, nch)
    bad = np.zeros(T, np.int64)
    for t in numba.prange(T):
        f = 0
        for c in range(t, nch, T):
            f |= _rows(crow, col, a, bt, out, zero, splits[c], splits[c + 1])
        bad[t] = f
    flags = 0
    for t in range(T):
        flags |= bad[t]
    return flags


# ---------------------------------------------------------------------------------------
# public wrapper
# ---------------------------------------------------------------------------------------


def sddmm(crow, col, a, bt):
    """Sampled dense-dense product on a CSR pattern.

    Parameters
    ----------
    crow : int[R + 1], col : int[nse] in [0, C) -- the pattern (crow[0] = 0, crow[-1] = nse).
    a : (R, K) array; bt : (C, K) array of the same dtype (B transposed, row-major).

    Returns
    -------
    out : (nse,) of the input dtype, out[e] = sum_k a[r, k] * bt[col[e], k] for the row r of
        entry e (columns need not be sorted or unique: every entry is computed).

    Raises ValueError for bad shapes, pointers or column indices (naming the first offender);
    KernelDeclined for an unsupported dtype or operands of different dtypes.

    >>> sddmm(np.array([0, 1]), np.array([0]), np.array([[1, 2]]), np.array([[3, 4]])).tolist()
    [11]
    """
    crow = as_index(crow, "crow", "sddmm")
    col = as_index(col, "col", "sddmm")
    if crow.dtype != col.dtype:
        crow, col = crow.astype(np.int64), col.astype(np.int64)
    a_in = np.asarray(a)
    bt_in = np.asarray(bt)
    if a_in.dtype != bt_in.dtype:
        raise KernelDeclined(
            f"sddmm: a ({a_in.dtype}) and bt ({bt_in.dtype}) must have the same dtype; expected one of "
            "(u)int8..64, float32/64, complex64/128 for both (cast first)"
        )
    dtype = a_in.dtype
    a = _as_dense(a_in, "a")
    bt = _as_dense(bt_in, "bt")
    if crow.shape[0] == 0:
        raise ValueError("sddmm: crow must have at least one element")
    R = crow.shape[0] - 1
    nse = col.shape[0]
    if a.shape[0] != R:
        raise ValueError(f"sddmm: a has {a.shape[0]} rows but crow describes {R} rows (shape {a.shape})")
    if a.shape[1] != bt.shape[1]:
        raise ValueError(f"sddmm: a {a.shape} and bt {bt.shape} must have the same number of columns K")
    if int(crow[0]) != 0:
        raise ValueError(f"sddmm: crow[0] must be 0, got {crow[0]}")
    if int(crow[-1]) != nse:
        raise ValueError(f"sddmm: crow[-1] = {crow[-1]} but len(col) = {nse}")
    C, K = bt.shape
    out = np.empty(nse, a.dtype)
    if nse == 0:
        return out.view(dtype)
    zero = np.int64(0) if a.dtype.kind == "i" else a.dtype.type(0)
    with team(nse * max(K, 1) + R):
        flags = int(_sddmm(crow, col, a, bt, out, zero, numba.get_num_threads(), _CHUNKS_PER_THREAD))
    if flags:
        _raise_invalid(flags, crow, col, C)
    return out.view(dtype)
