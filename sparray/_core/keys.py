"""Linear keys: sparse positions as one int64 per specified element (row-major).

``key = sum_d indices[d] * stride[d]`` with C-order strides of the sparse shape. Sorting keys
sorts positions lexicographically, which is the coalesced order. Keys exist only when the
number of sparse positions fits in int64 (``key_space(shape) <= 2**63 - 1``); callers fall back
to a multi-key path otherwise.

Keys are computed only from range-checked indices (``COO._check_contents``), so they are
always in ``[0, key_space)`` when they reach a kernel.
"""

from __future__ import annotations

import math

__all__ = ["KEY_LIMIT", "linear_keys", "unravel", "is_sorted_unique", "strides", "index_dtype_for"]

KEY_LIMIT = 2**63 - 1
INT32_MAX = 2**31 - 1


def strides(shape) -> list[int]:
    out, s = [], 1
    for n in reversed(shape):
        out.append(s)
        s *= n
    return out[::-1]


def linear_keys(xp, indices, sparse_shape):
    """int64 keys of the columns of ``indices`` over ``sparse_shape``, or None if they cannot fit."""
    if math.prod(sparse_shape) > KEY_LIMIT:
        return None
    nse = indices.shape[1]
    if len(sparse_shape) == 0:
        return xp.zeros((nse,), dtype=xp.int64)
    st = strides(sparse_shape)
    keys = xp.astype(indices[-1, :], xp.int64, copy=False)  # one sparse dim, int64: a view
    for d in range(len(sparse_shape) - 2, -1, -1):
        keys = keys + xp.astype(indices[d, :], xp.int64) * st[d]
    return keys


def unravel(xp, keys, sparse_shape, index_dtype):
    """Inverse of ``linear_keys``: an index array ``(len(sparse_shape), nkeys)`` of ``index_dtype``."""
    n = keys.shape[0]
    if len(sparse_shape) == 0:
        return xp.zeros((0, n), dtype=index_dtype)
    if len(sparse_shape) == 1:
        return xp.reshape(xp.astype(keys, index_dtype, copy=False), (1, n))
    rows = []
    rest = keys
    for size in reversed(sparse_shape[1:]):
        q = rest // size
        rows.append(rest - q * size)
        rest = q
    rows.append(rest)
    rows = [xp.astype(r, index_dtype) for r in reversed(rows)]
    return xp.stack(rows, axis=0)


def index_dtype_for(xp, shape, nse, *inputs):
    """Index dtype of an array sparray builds: the inputs' common one, else SciPy's rule.

    SciPy's rule: int32 when every index and nse fit in int32, else int64.
    """
    dts = {str(a.dtype) for a in inputs}
    if len(dts) == 1:
        dt = inputs[0].dtype
        if str(dt) == "int64" or (max(shape, default=0) <= INT32_MAX and nse <= INT32_MAX):
            return dt
    fits = max(shape, default=0) <= INT32_MAX and nse <= INT32_MAX
    return xp.int32 if fits else xp.int64


def is_sorted_unique(A) -> bool:
    """Whether the positions of COO ``A`` are strictly increasing in row-major order."""
    xp = A._xp
    if A.nse <= 1:
        return True
    A._check_contents()
    keys = linear_keys(xp, A._indices, A.sparse_shape)
    if keys is not None:
        return bool(xp.all(keys[1:] > keys[:-1]))
    # multi-key comparison of consecutive columns: first differing row decides
    idx = A._indices
    prev, nxt = idx[:, :-1], idx[:, 1:]
    decided = xp.zeros(prev.shape[1], dtype=xp.bool)
    ok = xp.zeros(prev.shape[1], dtype=xp.bool)
    for d in range(idx.shape[0]):
        gt = (nxt[d, :] > prev[d, :]) & ~decided
        lt = (nxt[d, :] < prev[d, :]) & ~decided
        ok = ok | gt
        decided = decided | gt | lt
    return bool(xp.all(ok))
