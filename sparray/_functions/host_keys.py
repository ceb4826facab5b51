"""Index keys held on the host (NumPy arrays, lists) for a sparse array on another namespace.

``A[np.array([1, 0])]``, ``A[np.array([True, False, True])]`` or ``A[[3, 0], 1:]`` with ``A`` on
a GPU: CuPy copies such keys to the device (``cupy/_core/_routines_indexing.pyx``,
``_prepare_slice_list``) and so does sparray, after reading what it needs on the host where that
costs nothing: a boolean mask's ``nonzero`` and an integer key's bounds are found on the host
copy (on the device each would be a wait), and the index arrays then go to the device once (a
host-to-device copy: no wait). The same holds for any namespace other than NumPy
(array_api_strict, torch): the key becomes an array of the components' namespace.

A NumPy key on NumPy components takes the usual path (nothing to copy). Invariant: every array
:func:`host_key_parts` returns on the device equals its host copy.

>>> import array_api_compat.numpy as xp, numpy as np
>>> [(tuple(d.tolist()), tuple(h.tolist()), b) for d, h, b in host_key_parts(xp, np.array([True, False, True]))]
[((0, 2), (0, 2), (3,))]
"""

from __future__ import annotations

import math

import array_api_compat
import numpy as np

__all__ = ["is_host_key", "host_key_parts"]


def is_host_key(xp, k) -> bool:
    """Whether key item ``k`` is host data to be copied for components of namespace ``xp``: a
    NumPy array (not 0-d: that is an int or a 0-d boolean), or a list or tuple of host values,
    with ``xp`` not NumPy."""
    if array_api_compat.is_numpy_namespace(xp):
        return False
    if type(k) is np.ndarray:
        return k.ndim > 0
    return isinstance(k, (list, tuple)) and _host_array(k) is not None


def _host_array(k):
    """A list or tuple as a NumPy index array (boolean, integer, or empty), else None (it holds
    device arrays or things no index is made of: the namespace's own path reports it)."""
    try:
        a = np.asarray(k)
    except Exception:
        return None
    if a.dtype.kind in "biu" or math.prod(a.shape) == 0:
        return a
    return None


def host_key_parts(xp, k):
    """``[(device array, host copy, mask shape or None), ...]``: one integer index per dim that
    ``k`` covers (a boolean mask covers ``k.ndim`` dims, with its shape given on the first).
    IndexError names a key that is no integer or boolean array."""
    a = k if type(k) is np.ndarray else _host_array(k)
    if a is None or (a.dtype.kind not in "biu" and not (type(k) is not np.ndarray and math.prod(a.shape) == 0)):
        raise IndexError(
            "sparray: only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
            f"arrays are valid indices; got {k!r}"
        )
    if a.dtype.kind == "b":
        hits = np.nonzero(a)
        return [(xp.asarray(h), h, tuple(a.shape) if i == 0 else None) for i, h in enumerate(hits)]
    if a.dtype.kind not in "iu":  # [] or [[]]: an empty integer index, as in NumPy
        a = a.astype(np.int64)
    return [(xp.asarray(a), a, None)]
