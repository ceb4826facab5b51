"""Fused merge-and-apply of two compressed arrays on a GPU, row by row: :func:`merge_apply_rows`,
the CUDA twin of ``kernels/cpu/binary_rows.py`` (same arguments, results, errors and declines).

``merge_apply_rows(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op)
-> (ptr, minor, values)``: compressed and plain indices of two unbatched CSR (or CSC) arrays of one
shape, plain indices strictly increasing in each row; values (n, m) of one dtype among
float32/64, int32/64, fills (m,); ``mode``/``op`` as in :mod:`.binary`, a mode left to the device
included (``nminor`` is unused, as
in the numba kernel). Indices come out int32 when all four inputs are int32 and the result's size
fits, else int64.

``locate_in_rows`` gives every entry (one thread each, so a long row is no slower than many short
ones) the position of its plain index in the other operand's same row, by a binary search
bounded by that row. That position counts the other operand's (row, minor) pairs below the
entry's, so :mod:`.binary`'s slot formulas and writers (``merge_write``) apply unchanged; the row pointers follow
from the inputs' (``union``: ``ptr_a + ptr_b - shared[ptr_a]``, with ``shared`` the prefix sums of
A's matches; ``intersection``: ``shared[ptr_a]``; ``left``/``right``: the kept side's).

>>> import numpy as np  # NumPy input runs in the emulator
>>> ptr, minor, vals = merge_apply_rows(np.array([0, 1, 2]), np.array([0, 2]), np.array([[1.0], [2.0]]),
...                                     np.zeros(1), np.array([0, 1, 1]), np.array([1]), np.array([[5.0]]),
...                                     np.zeros(1), 3, "union", "add")
>>> ptr.tolist(), minor.tolist(), vals.ravel().tolist()
([0, 2, 3], [0, 1, 2], [1.0, 5.0, 2.0])
"""

from __future__ import annotations

import numpy as np

from ._build import index_type
from ._driver import driver_for
from .binary import entry_range, fused_operands, merge_write, settle_mode

__all__ = ["merge_apply_rows"]

SOURCE = "binary_rows.cu"
NAME_EXPRESSIONS = tuple(f"locate_in_rows<{t}>" for t in ("int", "long long"))

_INT32_MAX = np.iinfo(np.int32).max


def merge_apply_rows(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op):
    """``op(A, B)`` on the ``mode`` pattern of two compressed arrays (see the module docstring)."""
    drv = driver_for(ptr_a, minor_a, va, ptr_b, minor_b, vb)
    xp = drv.xp
    va, fa, vb, fb = fused_operands(xp, "merge_apply_rows", va, fa, vb, fb, mode, op)
    ptr_a, minor_a, ptr_b, minor_b = (xp.asarray(x) for x in (ptr_a, minor_a, ptr_b, minor_b))
    if ptr_a.ndim != 1 or ptr_a.shape != ptr_b.shape or ptr_a.shape[0] < 1:
        raise ValueError(f"merge_apply_rows: compressed indices must be 1-D of one length; got {ptr_a.shape} and {ptr_b.shape}")
    na, nb = minor_a.shape[0], minor_b.shape[0]
    if va.shape[0] != na or vb.shape[0] != nb:
        raise ValueError(f"merge_apply_rows: values {va.shape}, {vb.shape} do not match {na} and {nb} entries")
    narrow = all(x.dtype == np.int32 for x in (ptr_a, minor_a, ptr_b, minor_b))
    idt = np.dtype(np.int32) if narrow else np.dtype(np.int64)
    pa, ma, pb, mb = (xp.ascontiguousarray(x.reshape(-1).astype(idt, copy=False)) for x in (ptr_a, minor_a, ptr_b, minor_b))
    nmajor = pa.shape[0] - 1
    first, count = entry_range(mode, na, nb)
    lb, match = xp.empty(na + nb, xp.int64), xp.empty(na + nb, xp.uint8)
    if count:
        minor = xp.concatenate([ma, mb])  # A's entries, then B's
        args = (pa, pb, minor, np.int64(na), np.int64(nb), np.int64(nmajor), np.int64(first), np.int64(count), lb, match)
        drv.launch(SOURCE, f"locate_in_rows<{index_type(idt)}>", count, args)
    mode, eq, shared = settle_mode(drv, mode, match, na)  # a mode left to the device: read with the size
    out_minor, out_vals, eq = merge_write(drv, mode, op, lb, match, ma.reshape(1, na), va, fa, mb.reshape(1, nb), vb, fb,
                                          eq, shared)
    n_out = out_vals.shape[0]
    if mode == "union":
        out_ptr = pa.astype(np.int64) + pb - eq[pa]
    elif mode == "intersection":
        out_ptr = eq[pa]
    else:
        out_ptr = pa if mode == "left" else pb
    out_dt = idt if n_out <= _INT32_MAX else np.dtype(np.int64)
    return out_ptr.astype(out_dt), out_minor.reshape(n_out).astype(out_dt, copy=False), out_vals
