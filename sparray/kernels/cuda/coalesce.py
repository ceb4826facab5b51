"""Coalescing a COO key list on a GPU: :func:`coalesce`, the CUDA twin of ``kernels/cpu/coalesce.py``.

CuPy's stable radix argsort (CUB) orders the keys; ``run_heads`` marks where each run of equal keys
starts; ``segment_reduce<sp_sum, T>`` sums each run through the permutation, left to right in input
order, one thread per (run, column) -- the order the numba kernel sums in, so results agree bit for
bit. Bool values are OR-ed. The one read back to the host is the number of unique keys (the
``flatnonzero`` of the run heads sizes the result); the check that no key is negative is read too,
except when the registry calls (``_trust.inputs_proven()``: the keys come from validated indices).

>>> import numpy as np
>>> k, v = coalesce(np.array([3, 1, 3]), np.array([[1.0], [2.0], [4.0]]))  # NumPy input: emulated
>>> k.tolist(), v.ravel().tolist()
([1, 3], [2.0, 5.0])
"""

from __future__ import annotations

import numpy as np

from ._arrays import index_array, stable_argsort, value_rows
from ._build import VALUE_DTYPES, c_type
from ._driver import driver_for
from ._trust import inputs_proven

__all__ = ["coalesce"]

SOURCE = "coalesce.cu"
NAME_EXPRESSIONS = ("run_heads",) + tuple(f"segment_reduce<sp_sum, {c_type(d)}>" for d in VALUE_DTYPES)


def coalesce(keys, values):
    """Sum the rows of ``values`` that share a key (see ``kernels/cpu/coalesce.py`` for the contract).

    keys: int64[n] (any integer dtype), any order, all >= 0; values: (n, m). Returns the unique keys
    (int64, increasing) and their summed rows. ValueError for a negative key or a length mismatch.
    """
    drv = driver_for(keys, values)
    xp = drv.xp
    keys = index_array(xp, keys, "keys", "coalesce")
    n = keys.shape[0]
    values = value_rows(xp, values, n, "coalesce")
    m = values.shape[1]
    if n == 0:
        return keys.copy(), values.copy()
    if not inputs_proven():  # the registry's keys come from proven indices: no wait for this check
        low = drv.scalar(xp.min(keys))
        if low < 0:
            raise ValueError(f"keys must be >= 0, found {low}")
    perm = stable_argsort(xp, keys)
    skeys = keys[perm]
    heads = xp.empty(n, xp.uint8)
    drv.launch(SOURCE, "run_heads", n, (skeys, np.int64(n), heads))
    starts = xp.flatnonzero(heads).astype(xp.int64, copy=False)
    nseg = starts.shape[0]
    bounds = xp.concatenate([starts, xp.asarray([n], dtype=xp.int64)])
    out = xp.empty((nseg, m), values.dtype)
    name = f"segment_reduce<sp_sum, {c_type(values.dtype)}>"
    drv.launch(SOURCE, name, nseg * m, (perm, bounds, np.int64(nseg), values, np.int64(m), out))
    return skeys[starts], out
