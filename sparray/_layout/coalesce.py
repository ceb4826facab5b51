"""COO coalescing: unique, row-major sorted positions with duplicate values summed.

The hot path linearises positions into int64 keys and calls the registry's ``coalesce`` (a numba
radix sort for NumPy data, the generic sort-and-scan otherwise). Sparse shapes with more than
2**63 positions use a multi-key lexicographic sort instead.

>>> import sparray
>>> A = sparray.COO([[1, 0, 1]], [1.0, 2.0, 3.0], shape=(2,))
>>> B = A.coalesce()
>>> B.indices.tolist(), B.values.tolist(), B.is_coalesced
([[0, 1]], [2.0, 4.0], True)
"""

from __future__ import annotations

import math

from .._engine import dispatch as _dispatch
from .._core.keys import linear_keys, unravel
from .._engine.segments import segment_reduce_sorted

__all__ = ["coalesce", "flat_values", "unflat_values"]


def flat_values(xp, values):
    """``values`` (n, *dense) as a 2-d ``(n, prod(dense))`` array for the kernels."""
    n = values.shape[0]
    return xp.reshape(values, (n, math.prod(values.shape[1:])))


def unflat_values(xp, flat, dense_shape):
    return xp.reshape(flat, (flat.shape[0], *dense_shape))


def coalesce(A):
    """Coalesced copy of COO ``A`` (``A`` itself when it is already coalesced)."""
    from .._array.coo import COO

    if A._coalesced:
        return A
    xp = A._xp
    A._check_contents()
    sparse_shape = A.sparse_shape
    keys = linear_keys(xp, A._indices, sparse_shape)
    if keys is None:
        indices, values = _coalesce_multikey(xp, A._indices, A._values)
    else:
        ukeys, uvals = _dispatch.call("coalesce", "coo", xp, keys, flat_values(xp, A._values), work=A.nse)
        indices = unravel(xp, ukeys, sparse_shape, A._indices.dtype)
        values = unflat_values(xp, uvals, A.dense_shape)
    return COO._from_parts(xp, indices, values, A.shape, A._fill, coalesced=True)


def _coalesce_multikey(xp, indices, values):
    """Coalesce by a lexicographic multi-key sort, for sparse shapes too large for int64 keys."""
    nse = indices.shape[1]
    perm = xp.arange(nse, dtype=xp.int64)
    for d in range(indices.shape[0] - 1, -1, -1):
        perm = xp.take(perm, xp.argsort(xp.take(indices[d, :], perm), stable=True))
    sidx = xp.take(indices, perm, axis=1)
    svals = xp.take(values, perm, axis=0)
    differs = xp.zeros((max(nse - 1, 0),), dtype=xp.bool)
    for d in range(indices.shape[0]):
        differs = differs | (sidx[d, 1:] != sidx[d, :-1])
    starts = xp.concat([xp.ones((min(nse, 1),), dtype=xp.bool), differs])
    acc, _ = segment_reduce_sorted(xp, starts, flat_values(xp, svals), "sum")
    return sidx[:, starts], unflat_values(xp, acc, values.shape[1:])
