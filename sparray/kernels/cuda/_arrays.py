"""Argument checks every CUDA launcher makes before it launches anything.

The launchers take the same arguments as the numba kernels they stand beside (``kernels/cpu``)
and keep their contract: bad shapes and dtypes raise ValueError, a dtype without a kernel raises
KernelDeclined (the registry then runs the generic path), and sizes are computed in 64 bits.

>>> import numpy as np
>>> index_array(np, np.array([1, 2], np.int16), "keys", "coalesce").dtype
dtype('int64')
"""

from __future__ import annotations

import numpy as np

from ._build import VALUE_DTYPES

__all__ = ["index_array", "value_rows", "stable_argsort", "fill_row"]


def index_array(xp, a, name, who, *, int64=True):
    """``a`` as a 1-D C-contiguous index array: int64 (``int64=True``), else int32 or int64 kept."""
    a = xp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D, got shape {a.shape}")
    if a.dtype.kind not in "iu" and a.size:
        raise ValueError(f"{who}: {name} must hold integers, got dtype {a.dtype}")
    if int64 or a.dtype not in (np.int32, np.int64):
        a = a.astype(xp.int64, copy=False)
    return xp.ascontiguousarray(a)


def value_rows(xp, values, n, who, name="values"):
    """``values`` as a C-contiguous ``(n, m)`` array of a dtype the kernels are built for
    (1-D values become one column). KernelDeclined for another dtype."""
    from .. import KernelDeclined

    values = xp.asarray(values)
    if values.dtype not in VALUE_DTYPES:
        names = ", ".join(d.name for d in VALUE_DTYPES)
        raise KernelDeclined(f"{who}: {name} has dtype {values.dtype}; the CUDA kernels take {names}")
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if values.ndim != 2 or values.shape[0] != n:
        raise ValueError(f"{who}: {name} must have shape ({n}, m), got {values.shape}")
    return xp.ascontiguousarray(values)


def fill_row(xp, fill, m, dtype, who):
    """``fill`` as a C-contiguous ``(m,)`` row of ``dtype`` (a scalar is broadcast)."""
    fill = xp.asarray(fill)
    if fill.dtype != dtype:
        if not np.can_cast(fill.dtype, dtype, casting="same_kind"):
            raise ValueError(f"{who}: fill has dtype {fill.dtype}, which does not cast to {np.dtype(dtype)}")
        fill = fill.astype(dtype)
    fill = xp.broadcast_to(fill.reshape(-1) if fill.ndim else fill, (m,)) if fill.size in (1, m) else fill
    if fill.shape != (m,):
        raise ValueError(f"{who}: fill must have shape ({m},), got {fill.shape}")
    return xp.ascontiguousarray(fill)


def stable_argsort(xp, keys):
    """A stable argsort as int64 (CUB's radix sort on a GPU, NumPy's stable sort on the host)."""
    if xp is np:
        return np.argsort(keys, kind="stable").astype(np.int64, copy=False)
    return xp.argsort(keys).astype(xp.int64, copy=False)
