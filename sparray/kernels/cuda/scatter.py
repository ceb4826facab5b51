"""Dense scatter-add on a GPU: :func:`scatter_sum` and :func:`nonzero_rows`, the CUDA twins of
``kernels/cpu/scatter.py``.

``scatter_sum(keys, values, nkeys, sorted_keys=False) -> acc`` with ``acc[k] = sum of
values[keys == k]``, ``acc`` a dense ``(nkeys, m)`` array of the values' dtype (the hot path of
``sum`` over sparse axes with a zero fill). One thread per (row, column) adds its value into the
zeroed result with a native ``atomicAdd``: int32, uint32, uint64, float32, float64 directly, int64
through the unsigned 64-bit add (the bits wrap identically), complex64/128 as two adds (real and
imaginary parts are independent). The dtypes the numba kernel declines (bool, int8/16, uint8/16,
...) are declined here too, with its message. A key outside ``[0, nkeys)`` is counted in the
kernel, never used as an address, and raises ValueError like the numba kernel. Float sums depend
on the order the atomics land in (last bits, like the numba kernel's per-thread partial sums);
integer sums are exact. ``sorted_keys`` is accepted for the numba kernel's streaming pass and not
needed here. ``nonzero_rows(acc) -> (keys, rows)`` keeps the rows with a non-zero (or nan)
element: CuPy's ``nonzero`` and ``take`` on the device (no kernel of its own).

>>> import numpy as np
>>> scatter_sum(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3).ravel().tolist()
[2.0, 0.0, 5.0]
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._build import INDEX_TYPES, c_type, index_type
from ._driver import driver_for
from ._trust import inputs_proven

__all__ = ["nonzero_rows", "scatter_sum"]

SOURCE = "scatter.cu"
#: The numba kernel's dtypes (each with a native atomicAdd, or two for complex).
DTYPES = tuple(np.dtype(t) for t in ("int32", "int64", "uint32", "uint64", "float32", "float64", "complex64", "complex128"))
NAME_EXPRESSIONS = tuple(f"scatter_add<{i}, {c_type(d)}>" for i in INDEX_TYPES for d in DTYPES)


def scatter_sum(keys, values, nkeys, sorted_keys=False):
    """Per-key sums ``(nkeys, m)`` of the rows of ``values`` (n, m); ``keys`` int32/int64[n] in
    ``[0, nkeys)``, any order. ValueError for other keys or shapes and for a key out of range;
    KernelDeclined for a dtype outside int32/64, uint32/64, float32/64, complex64/128."""
    drv = driver_for(keys, values)
    xp = drv.xp
    keys = xp.asarray(keys)
    values = xp.asarray(values)
    if keys.ndim != 1 or keys.dtype not in (np.int32, np.int64):
        raise ValueError(f"scatter_sum: keys must be 1-d int32/int64; got {keys.dtype} of shape {keys.shape}")
    if values.ndim != 2 or values.shape[0] != keys.shape[0]:
        raise ValueError(f"scatter_sum: values must be (n, m) with n = len(keys) = {keys.shape[0]}; got {values.shape}")
    if values.dtype not in DTYPES:
        raise KernelDeclined(f"scatter_sum takes int32/64, uint32/64, float and complex values, not {values.dtype}; cast first")
    keys, values = xp.ascontiguousarray(keys), xp.ascontiguousarray(values)
    n, m = values.shape
    out = xp.zeros((nkeys, m), dtype=values.dtype)
    if n == 0:
        return out
    nbad = xp.zeros(1, xp.uint64)
    name = f"scatter_add<{index_type(keys.dtype)}, {c_type(values.dtype)}>"
    drv.launch(SOURCE, name, n * max(m, 1), (keys, np.int64(n), values, np.int64(m), np.int64(nkeys), out, nbad))
    if inputs_proven():
        return out  # the count of bad keys is an error report only (the kernel skipped them)
    bad = drv.scalar(nbad)
    if bad:
        raise ValueError(f"scatter_sum: {bad} keys outside [0, {nkeys})")
    return out


def nonzero_rows(dense):
    """``(keys int64[k] ascending, rows (k, m))``: the rows of ``dense`` (n, m) with a non-zero (or
    nan) element, or ``dense`` itself with ``arange(n)`` when every row has one; the numba kernel's
    errors (ValueError for a shape that is not 2-d, KernelDeclined for another dtype)."""
    xp = driver_for(dense).xp
    dense = xp.asarray(dense)
    if dense.ndim != 2:
        raise ValueError(f"nonzero_rows: dense must be 2-d (n, m); got shape {dense.shape}")
    if dense.dtype not in DTYPES and dense.dtype != np.bool_:
        raise KernelDeclined(f"nonzero_rows takes bool, int32/64, uint32/64, float and complex rows, not {dense.dtype}")
    # CuPy's nonzero and take, no kernel needed: the generic primitive's steps (sparray._engine.segments,
    # nonzero_rows_generic), written here since kernels import nothing above them
    import array_api_compat

    xp = array_api_compat.array_namespace(dense)
    n, m = dense.shape
    nonzero = dense[:, 0] != 0 if m == 1 else xp.any(dense != 0, axis=1)
    if int(xp.count_nonzero(nonzero)) == n:
        return xp.arange(n, dtype=xp.int64), dense
    keys = xp.astype(xp.nonzero(nonzero)[0], xp.int64, copy=False)
    return keys, xp.take(dense, keys, axis=0)
