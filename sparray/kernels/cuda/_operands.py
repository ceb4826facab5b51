"""What the product launchers (``spmm.py``, ``sddmm.py``, ``spgemm.py``) share.

- :data:`PRODUCT_TYPES`: the value types their kernels are built for. Unsigned data is viewed as
  the signed type of its width (sums and products wrap identically, as in ``kernels/cpu``), so
  eight instantiations per kernel serve the twelve numeric dtypes; bool is declined (its "sum" is or).
- :func:`numeric`: a value operand checked (KernelDeclined, with the numba kernels' wording, for
  another dtype), C-contiguous, unsigned viewed as signed.
- :func:`index_of` / :func:`index_pair`: one index array, or two of one dtype (int32 or int64; both int64 when they differ).
- :func:`new_stats` / :func:`read_stats`: the int64[3] array every product kernel reports into
  (``_checks.cuh``): the first bad pointer, the longest row, and the kernels' flags; read back once.
- :func:`host`: a device array on the host, for the error paths only: they name the first bad
  input with the numba kernels' own code, so both backends say the same thing.
- :func:`lanes_for`: the lanes per row (or entry) of the shuffle kernels.

>>> import numpy as np
>>> numeric(np, np.array([1, 2], np.uint16), "x", "f").dtype
dtype('int16')
>>> lanes_for(5.0), lanes_for(1000.0)
(8, 32)
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._build import c_type

__all__ = ["PRODUCT_TYPES", "ACC_DTYPES", "numeric", "index_of", "index_pair", "new_stats", "read_stats", "host", "lanes_for"]

_SIGNED = ("int8", "int16", "int32", "int64")
_NUMERIC = tuple(np.dtype(t) for t in (*_SIGNED, "uint8", "uint16", "uint32", "uint64",
                                       "float32", "float64", "complex64", "complex128"))  # fmt: skip
_SIGNED_OF = {np.dtype(f"u{s}"): np.dtype(s) for s in _SIGNED}
EXPECTED = "one of " + ", ".join(d.name for d in _NUMERIC)
#: The dtype the atomic kernels accumulate each (signed) integer dtype in: sp_acc<T> of _common.cuh.
ACC_DTYPES = {np.dtype("int8"): np.dtype("uint32"), np.dtype("int16"): np.dtype("uint32"),
              np.dtype("int32"): np.dtype("uint32"), np.dtype("int64"): np.dtype("uint64")}  # fmt: skip
#: C++ value types the product kernels are instantiated for.
PRODUCT_TYPES = tuple(c_type(t) for t in (*_SIGNED, "float32", "float64", "complex64", "complex128"))


def numeric(xp, x, name, who):
    """``x`` as a C-contiguous array of a numeric dtype, unsigned data viewed as signed."""
    x = xp.asarray(x)
    if x.dtype not in _NUMERIC:
        raise KernelDeclined(f"{who}: {name} has dtype {x.dtype}; expected {EXPECTED} (cast first or use the generic implementation)")
    x = xp.ascontiguousarray(x)
    return x.view(_SIGNED_OF[x.dtype]) if x.dtype in _SIGNED_OF else x


def index_of(xp, a, name, who):
    """``a`` as a C-contiguous 1-D int32/int64 array (other integer dtypes become int64)."""
    a = xp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D, got shape {a.shape}")
    if a.dtype not in (np.int32, np.int64):
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"{who}: {name} must hold integers, got dtype {a.dtype}")
        a = a.astype(xp.int64)
    return xp.ascontiguousarray(a)


def index_pair(xp, ptr, idx, pname, iname, who):
    """(ptr, idx) as C-contiguous 1-D arrays of one dtype, int32 or int64."""
    ptr, idx = index_of(xp, ptr, pname, who), index_of(xp, idx, iname, who)
    if ptr.dtype != idx.dtype:
        ptr, idx = ptr.astype(xp.int64), idx.astype(xp.int64)
    return ptr, idx


def new_stats(xp, npointers):
    """int64[3] for a matrix of ``npointers`` pointers: [first bad pointer (none: npointers), longest row, flags]."""
    return xp.asarray(np.array([npointers, 0, 0], np.int64))


def read_stats(stats):
    """The stats as Python ints (one copy to the host of 24 bytes)."""
    return [int(v) for v in stats.tolist()]


def host(a):
    """A NumPy copy of a device array (error paths only)."""
    return a.get() if hasattr(a, "get") else np.asarray(a)


def lanes_for(mean: float) -> int:
    """Lanes per group for the shuffle kernels: the power of two nearest above ``mean`` items per
    group, between 1 and 32."""
    lanes = 1
    while lanes < 32 and lanes < mean:
        lanes *= 2
    return lanes
