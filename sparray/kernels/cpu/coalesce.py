"""Coalescing (summing duplicates) of a COO key list: :func:`coalesce` and the cheap
sortedness test :func:`is_strictly_increasing`.

Strategy: one parallel O(n) pass classifies the keys.  Strictly increasing keys are
returned as copies; sorted keys with duplicates are reduced in place (no sort); anything
else goes through the stable parallel radix argsort of :mod:`._sort` and a segmented sum
through the permutation.  Each run of equal keys is summed left to right in the original
input order, so the result is deterministic and independent of the thread count.
"""

import numpy as np

from ._sort import (
    _as_int64_1d,
    check_values,
    radix_argsort,
    segment_reduce,
    segment_starts,
    sortedness,
    value_view,
)
from ._threads import team

__all__ = ["coalesce", "is_strictly_increasing"]


def is_strictly_increasing(keys):
    """True if the 1-D integer array ``keys`` is strictly increasing (O(n), parallel).

    >>> is_strictly_increasing(np.array([0, 3, 7]))
    True
    >>> is_strictly_increasing(np.array([0, 3, 3]))
    False
    """
    return sortedness(keys)[0]


def coalesce(keys, values):
    """Sum the values of equal keys.

    Parameters
    ----------
    keys : int64[n], any order, may repeat, all >= 0.
    values : array (n, m) of a supported dtype (bool, (u)int8..64, float32/64,
        complex64/128).

    Returns
    -------
    ukeys : int64[nu], the unique keys, strictly increasing.
    uvalues : (nu, m) array of ``values.dtype``: per unique key the sum of its rows, in
        input order (bool: logical OR).  Integer sums wrap like NumPy's.

    Always returns new arrays (never views of the inputs).  Raises ValueError for a
    length/rank mismatch or a negative key, KernelDeclined for an unsupported dtype.

    >>> coalesce(np.array([3, 1, 3]), np.array([[1.0], [2.0], [4.0]]))
    (array([1, 3]), array([[2.],
           [5.]]))
    """
    keys = _as_int64_1d(keys, "keys")
    n = keys.shape[0]
    values = check_values(values, n)
    with team(n * values.shape[1]):
        return _coalesce(keys, values)


def _coalesce(keys, values):
    n = keys.shape[0]
    strict, nondecreasing = sortedness(keys)
    if strict:
        # also covers n <= 1; a negative key can only be keys[0]
        if n and keys[0] < 0:
            raise ValueError(f"keys must be >= 0, found {keys[0]}")
        return keys.copy(), values.copy()
    op = "max" if values.dtype == np.bool_ else "sum"  # bool: OR == max on 0/1
    vv = value_view(values)
    if nondecreasing:
        if keys[0] < 0:
            raise ValueError(f"keys must be >= 0, found {keys[0]}")
        skeys, perm = keys, None
    else:
        skeys, perm = radix_argsort(keys)  # raises for negative keys
    # starts: valid segmentation of [0, n) by construction; perm: a permutation of [0, n)
    starts = segment_starts(skeys)
    ukeys = skeys[starts[:-1]]
    uvalues = segment_reduce(vv, starts, op, perm)
    return ukeys, uvalues.view(values.dtype)
