"""Fused merge-and-apply of two coalesced COO arrays on a GPU: :func:`merge_apply`, the CUDA twin
of ``kernels/cpu/binary.py`` (same arguments, results, errors and declines; see there).

``merge_apply(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op) -> (out_idx, out_vals)``:
index arrays (s, na) / (s, nb), unique and row-major sorted; values (na, m) / (nb, m) of one dtype
among float32/64, int32/64 (others, integer division and unknown ops: KernelDeclined); fills (m,);
mode union, intersection, left or right; op add, subtract, multiply, divide, maximum, minimum
(NumPy semantics: integers wrap, maximum/minimum propagate NaN). The output index dtype is the
inputs' when they agree, else int64.

No serial merge, five launches over A's entries followed by B's (only one side's for
intersection, left and right): ``linear_keys`` makes each entry's row-major key; ``locate_sorted``
gives every entry the number of the other operand's keys below its own and whether the key is
shared (a binary search over the other operand); a prefix sum of A's matches then fixes each
entry's output slot (``merge_slots``, formulas in ``binary.cu``), and ``scatter_index`` /
``apply_merged<Op, T>`` write the index columns and ``op(a or fa, b or fb)`` there, one thread per
(entry, value column). Only the output size comes back to the host. ``binary_rows.py`` reuses the
slot and write steps (:func:`merge_write`) after a row-bounded search.

``mode`` may also be left to the device (the library's annihilating ops on a GPU: ``A * B``): a
(2,) bool array, whether A's positions and whether B's may be dropped (both: intersection; A's:
right; B's: left; neither: union). Every entry is then located (union's range) and the two
verdicts come back in the same read as the output size (:func:`settle_mode`): one wait in all.

>>> import numpy as np  # NumPy input runs in the emulator
>>> idx, vals = merge_apply(np.array([[0, 2]]), np.array([[1.0], [2.0]]), np.zeros(1),
...                         np.array([[2, 3]]), np.array([[5.0], [7.0]]), np.zeros(1), (4,), "union", "add")
>>> idx.tolist(), vals.ravel().tolist()
([[0, 2, 3]], [1.0, 7.0, 7.0])
"""

from __future__ import annotations

import numpy as np

from .. import merge_mode
from ._build import c_type, index_type
from ._driver import driver_for

__all__ = ["merge_apply", "OPS", "MODES", "fused_operands", "entry_range", "merge_write", "settle_mode", "is_deferred"]

SOURCE = "binary.cu"

#: op name -> the functor of binary.cu / _common.cuh that computes it
OPS = {"add": "op_add", "subtract": "op_subtract", "multiply": "op_multiply", "divide": "op_divide",
       "maximum": "sp_max", "minimum": "sp_min"}  # fmt: skip
MODES = ("union", "intersection", "left", "right")
_DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))  # complex: the general route


def _has_kernel(op, dt):
    return not (op == "divide" and dt.kind in "iu")


NAME_EXPRESSIONS = (
    ("locate_sorted", "merge_slots")
    + tuple(f"{k}<{t}>" for k in ("linear_keys", "scatter_index") for t in ("int", "long long"))
    + tuple(f"apply_merged<{f}, {c_type(d)}>" for op, f in OPS.items() for d in _DTYPES if _has_kernel(op, d))
)


def fused_operands(xp, who, va, fa, vb, fb, mode, op):
    """``kernels/cpu/binary.fused_operands`` for either namespace (same checks, messages and
    declines); returns ``va``, ``vb`` C-contiguous and the fills as C-contiguous (m,) rows."""
    from .. import KernelDeclined

    if op not in OPS:
        raise KernelDeclined(f"op {op!r} has no fused kernel (fused: {', '.join(OPS)})")
    if is_deferred(mode):
        if tuple(mode.shape) != (2,):
            raise ValueError(f"{who}: a mode left to the device must be 2 drop verdicts; got shape {tuple(mode.shape)}")
    elif mode not in MODES:
        raise ValueError(f"{who}: mode must be one of {MODES}; got {mode!r}")
    va, vb = xp.ascontiguousarray(va), xp.ascontiguousarray(vb)
    dt = va.dtype
    if vb.dtype != dt or dt not in _DTYPES:
        raise KernelDeclined(f"values of dtypes {va.dtype}/{vb.dtype}: the fused kernel takes one of {sorted(map(str, _DTYPES))}")
    if not _has_kernel(op, dt):
        raise KernelDeclined(f"{op} on {dt} has no fused kernel")
    if va.ndim != 2 or vb.ndim != 2 or va.shape[1] != vb.shape[1]:
        raise ValueError(f"{who}: values must be (n, m) with one m; got {va.shape} and {vb.shape}")
    m = va.shape[1]
    fa = xp.ascontiguousarray(xp.broadcast_to(xp.asarray(fa, dtype=dt), (m,)))
    fb = xp.ascontiguousarray(xp.broadcast_to(xp.asarray(fb, dtype=dt), (m,)))
    return va, fa, vb, fb


def is_deferred(mode) -> bool:
    """Whether ``mode`` is left to the device (an array of drop verdicts, not a mode string)."""
    return not isinstance(mode, str)


def entry_range(mode, na, nb):
    """The entries ``[first, first + count)`` of A's then B's (see ``binary.cu``) a mode writes; a
    mode left to the device locates every entry (union's range, which holds every mode's)."""
    if is_deferred(mode):
        return 0, na + nb
    return {"union": (0, na + nb), "intersection": (0, na), "left": (0, na), "right": (na, nb)}[mode]


def _prefix_matches(xp, match, na):
    """The na + 1 exclusive prefix sums of A's matches."""
    return xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(match[:na], dtype=xp.int64)])


def settle_mode(drv, mode, match, na):
    """``(mode, eq, shared)`` for a merge whose entries are all located: a mode string passes
    through (``eq``, ``shared`` None); a mode left to the device (drop verdicts) becomes its string,
    read back in one transfer with ``shared`` (A's matched entries) and with ``eq``, A's prefix
    sums, computed on the way."""
    if not is_deferred(mode):
        return mode, None, None
    xp = drv.xp
    eq = _prefix_matches(xp, match, na)
    drop_a, drop_b, shared = xp.concatenate([mode.astype(xp.int64), eq[na:]]).tolist()  # the one wait
    return merge_mode(drop_a, drop_b), eq, int(shared)


def merge_write(drv, mode, op, lb, match, idx_a, va, fa, idx_b, vb, fb, eq=None, shared=None):
    """Everything after the search: ``lb``/``match`` (int64/uint8 over A's then B's entries, set on
    :func:`entry_range`) give the slots (a prefix sum of A's matches for union and intersection),
    then the merged index rows (``idx_a``/``idx_b``: (s, n) of one dtype, int32 or int64) and values
    ``op(a or fa, b or fb)``. Returns ``(out_idx, out_vals, eq)``, ``eq`` the na + 1 prefix sums
    (None for left and right unless given). ``eq`` and ``shared`` may come from
    :func:`settle_mode` (a string ``mode``), which read ``shared`` already."""
    xp = drv.xp
    (s, na), nb, m = idx_a.shape, idx_b.shape[1], va.shape[1]
    first, count = entry_range(mode, na, nb)
    n_out = {"left": na, "right": nb}.get(mode)
    if n_out is None:
        if eq is None:
            eq = _prefix_matches(xp, match, na)
        if shared is None:
            shared = drv.scalar(eq[na:])
        n_out = na + nb - shared if mode == "union" else shared
    out_idx = xp.empty((s, n_out), idx_a.dtype)
    out_vals = xp.empty((n_out, m), va.dtype)
    if count:
        slot = xp.empty(na + nb, xp.int64)
        na_, first_, count_, n_out_ = (np.int64(x) for x in (na, first, count, n_out))
        eq_arg = eq if eq is not None else slot  # unread for left and right
        drv.launch(SOURCE, "merge_slots", count, (na_, first_, count_, lb, match, eq_arg, np.int32(MODES.index(mode)), slot))
        if s:
            args = (na_, np.int64(nb), first_, count_, np.int64(s), slot, n_out_, idx_a, idx_b, out_idx)
            drv.launch(SOURCE, f"scatter_index<{index_type(idx_a.dtype)}>", count, args)
        if m:
            args = (na_, first_, count_, np.int64(m), slot, n_out_, lb, match, va, vb, fa, fb, out_vals)
            drv.launch(SOURCE, f"apply_merged<{OPS[op]}, {c_type(va.dtype)}>", count * m, args)
    return out_idx, out_vals, eq


def merge_apply(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op):
    """``op(A, B)`` on the ``mode`` pattern of two coalesced COO arrays (see the module docstring)."""
    drv = driver_for(idx_a, va, idx_b, vb)
    xp = drv.xp
    va, fa, vb, fb = fused_operands(xp, "merge_apply", va, fa, vb, fb, mode, op)
    idx_a, idx_b = xp.asarray(idx_a), xp.asarray(idx_b)
    s = len(sparse_shape)
    if idx_a.ndim != 2 or idx_b.ndim != 2 or idx_a.shape[0] != s or idx_b.shape[0] != s:
        raise ValueError(f"merge_apply: index arrays must be ({s}, n); got {idx_a.shape} and {idx_b.shape}")
    if va.shape[0] != idx_a.shape[1] or vb.shape[0] != idx_b.shape[1]:
        raise ValueError(f"merge_apply: values {va.shape}, {vb.shape} do not match indices {idx_a.shape}, {idx_b.shape}")
    out_dt = idx_a.dtype if idx_a.dtype == idx_b.dtype else np.dtype(np.int64)
    kdt = out_dt if out_dt in (np.int32, np.int64) else np.dtype(np.int64)
    idx_a, idx_b = (xp.ascontiguousarray(x.astype(kdt, copy=False)) for x in (idx_a, idx_b))
    strides, acc = [0] * s, 1
    for d in range(s - 1, -1, -1):
        strides[d], acc = acc, acc * int(sparse_shape[d])
    strides = xp.asarray(np.array(strides, dtype=np.int64))
    na, nb = idx_a.shape[1], idx_b.shape[1]
    first, count = entry_range(mode, na, nb)
    lb, match = xp.empty(na + nb, xp.int64), xp.empty(na + nb, xp.uint8)
    if count:
        both, keys = xp.concatenate([idx_a, idx_b], axis=1), xp.empty(na + nb, xp.int64)  # A's entries, then B's
        name = f"linear_keys<{index_type(kdt)}>"
        drv.launch(SOURCE, name, na + nb, (both, np.int64(s), np.int64(na + nb), strides, keys))
        drv.launch(SOURCE, "locate_sorted", count, (keys, np.int64(na), np.int64(nb), np.int64(first), np.int64(count), lb, match))
    mode, eq, shared = settle_mode(drv, mode, match, na)
    out_idx, out_vals, _ = merge_write(drv, mode, op, lb, match, idx_a, va, fa, idx_b, vb, fb, eq, shared)
    return (out_idx if out_idx.dtype == out_dt else out_idx.astype(out_dt)), out_vals
