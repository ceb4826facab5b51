"""Sampled dense-dense product on a GPU: :func:`sddmm`, the CUDA twin of ``kernels/cpu/sddmm.py``.

``sddmm(crow, col, a, bt) -> out`` with ``out[e] = sum_k a[r, k] * bt[col[e], k]`` for the row r of
entry e: ``(a @ bt.T)`` computed only on the CSR pattern (``sampled_addmm``). ``check_offsets``
checks the pointers; ``sddmm_entries`` then gives each entry a group of 1 to 32 lanes (from K) that
stride over k and add their parts with a shuffle tree, each lane reading a stretch of the two rows
(coalesced across the group). An entry's row is a binary search in ``crow``, its column is checked
before it is used. Integers wrap as in NumPy; floating sums are in the kernel's order (last bits
differ from the numba kernel's). Same errors and messages as the numba kernel.

>>> import numpy as np
>>> sddmm(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([[1.0, 2.0], [3.0, 4.0]]),
...       np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])).tolist()
[1.0, 3.0, 4.0]
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._build import INDEX_TYPES, c_type, index_type
from ._driver import driver_for
from ._trust import inputs_proven
from ._operands import EXPECTED, PRODUCT_TYPES, host, index_pair, lanes_for, new_stats, numeric, read_stats

__all__ = ["sddmm"]

SOURCE = "sddmm.cu"
NAME_EXPRESSIONS = tuple(f"check_offsets<{i}>" for i in INDEX_TYPES) + tuple(
    f"sddmm_entries<{i}, {t}>" for i in INDEX_TYPES for t in PRODUCT_TYPES
)


def _dense(xp, x, name):
    x = numeric(xp, x, name, "sddmm")
    if x.ndim != 2:
        raise ValueError(f"sddmm: {name} must be 2-D, got shape {x.shape}")
    return x


def _raise_invalid(crow, col, C, first_bad):
    """The numba kernel's message for the first bad pointer or column (host copies, error path)."""
    from ..cpu.sddmm import _BAD_COL, _BAD_CROW
    from ..cpu.sddmm import _raise_invalid as name_first

    crow, col = host(crow), host(col)
    if first_bad < crow.shape[0]:
        if int(crow[0]) != 0:
            raise ValueError(f"sddmm: crow[0] must be 0, got {crow[0]}")
        if int(crow[-1]) != col.shape[0]:
            raise ValueError(f"sddmm: crow[-1] = {crow[-1]} but len(col) = {col.shape[0]}")
        name_first(_BAD_CROW, crow, col, C)
    name_first(_BAD_COL, crow, col, C)


def sddmm(crow, col, a, bt):
    """``out[e] = sum_k a[r, k] * bt[col[e], k]``: crow int[R + 1], col int[nse] in [0, C) (the
    pattern: crow[0] = 0, crow[-1] = nse), a (R, K) and bt (C, K) of one numeric dtype. Returns
    (nse,) of that dtype. ValueError for bad shapes, pointers or columns (naming the first);
    KernelDeclined for another dtype or operands of different dtypes."""
    drv = driver_for(crow, col, a, bt)
    xp = drv.xp
    crow, col = index_pair(xp, crow, col, "crow", "col", "sddmm")
    a_in, bt_in = xp.asarray(a), xp.asarray(bt)
    if a_in.dtype != bt_in.dtype:
        raise KernelDeclined(
            f"sddmm: a ({a_in.dtype}) and bt ({bt_in.dtype}) must have the same dtype; expected "
            f"{EXPECTED} for both (cast first)"
        )
    dtype = a_in.dtype
    a, bt = _dense(xp, a_in, "a"), _dense(xp, bt_in, "bt")
    if crow.shape[0] == 0:
        raise ValueError("sddmm: crow must have at least one element")
    R, nse = crow.shape[0] - 1, col.shape[0]
    if a.shape[0] != R:
        raise ValueError(f"sddmm: a has {a.shape[0]} rows but crow describes {R} rows (shape {a.shape})")
    if a.shape[1] != bt.shape[1]:
        raise ValueError(f"sddmm: a {a.shape} and bt {bt.shape} must have the same number of columns K")
    C, K = bt.shape
    stats = new_stats(xp, R + 1)
    proven = inputs_proven()  # the pattern's pointers were checked with its array: no pass, no read
    if not proven:
        drv.launch(SOURCE, f"check_offsets<{index_type(crow.dtype)}>", R + 1,
                   (crow, np.int64(R), np.int64(0), np.int64(nse), np.int32(1), stats))  # fmt: skip
    out = xp.empty(nse, a.dtype)
    if nse and R:  # R == 0 with entries: the pointers are bad, reported below
        lanes = lanes_for(K)
        drv.launch(SOURCE, f"sddmm_entries<{index_type(crow.dtype)}, {c_type(a.dtype)}>", -(-nse // (32 // lanes)) * 32,
                   (crow, col, a, bt, np.int64(R), np.int64(C), np.int64(K), np.int64(nse), np.int32(lanes), out, stats))  # fmt: skip
    if proven:
        return out.view(dtype)
    first_bad, _, flags = read_stats(stats)
    if first_bad <= R or flags:
        _raise_invalid(crow, col, C, first_bad)
        raise AssertionError("sddmm: the kernel reported invalid input that was not found")
    return out.view(dtype)
