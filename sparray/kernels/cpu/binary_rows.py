"""Fused merge-and-apply for two compressed arrays (CSR with CSR, or CSC with CSC) row by row.

``merge_apply_rows(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op) -> (ptr, minor, values)``

- ``ptr_a``/``ptr_b`` (nmajor + 1,): the compressed indices of two unbatched arrays of one shape;
  ``minor_a``/``minor_b``: their plain indices, strictly increasing within each major row (sparray's
  invariant, checked by the core before a kernel sees them); int32 or int64.
- ``va`` (na, m), ``vb`` (nb, m): values of one dtype (float32/64, int32/64), ``fa``/``fb`` (m,) the fills.
- ``nminor``: the length of the minor axis (unused here: the plain indices are already checked;
  the registry's generic implementation, which shares this signature, builds keys from it).
- ``mode`` and ``op`` as in :mod:`sparray.kernels.cpu.binary` (union, intersection, left, right;
  add, subtract, multiply, divide, maximum, minimum).

Returns the result's compressed indices, plain indices and values ``op(a or fa, b or fb)``. Indices
are int32 when both inputs are int32 and the result's size fits, else int64.

Rows are independent, so the work splits into chunks of rows with equal entry counts. A first pass
counts each chunk's output (only union and intersection need it: the other modes keep one
operand's pattern), a second pass writes each row at its chunk's prefix-sum offset and records the
row pointers as it goes. The union of scalar values, the common ``A + B``, has its own branch-free
writer. Every read lies inside a row's ``[ptr[r], ptr[r+1])``, every write inside
the counted total.

>>> import numpy as np
>>> ptr, minor, vals = merge_apply_rows(np.array([0, 1, 2]), np.array([0, 2]), np.array([[1.0], [2.0]]),
...                                     np.zeros(1), np.array([0, 1, 1]), np.array([1]), np.array([[5.0]]),
...                                     np.zeros(1), 3, "union", "add")
>>> ptr.tolist(), minor.tolist(), vals.ravel().tolist()
([0, 2, 3], [0, 1, 2], [1.0, 5.0, 2.0])
"""

import numba
import numpy as np

from ._common import row_splits
from .binary import MODES, OPS, _apply, chunk_count, fused_operands, union_scalar_run
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["merge_apply_rows"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_INT32_MAX = np.iinfo(np.int32).max


@numba.njit(inline="always")
def _equal_in_row(ma, i, iend, mb, j, jend):
    """Number of plain indices present in both rows (a branch-free merge)."""
    n = 0
    if i < iend and j < jend:
        ka, kb = ma[i], mb[j]
        while True:
            n += ka == kb
            i += ka <= kb
            j += kb <= ka
            if i >= iend or j >= jend:
                break
            ka, kb = ma[i], mb[j]
    return n


@numba.njit(parallel=True, **_JIT)
def _chunk_sizes(pa, ma, pb, mb, splits, union):
    """Output entries per chunk of rows: union ``na + nb - equal``, intersection ``equal``.

    Rows ``k`` and ``k + half`` of a chunk are merged in one loop while both last, so that the
    load-compare-advance chains of two rows overlap (a third faster than one row at a time).
    """
    nch = splits.shape[0] - 1
    sizes = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        first, end = splits[c], splits[c + 1]
        half = (end - first) // 2
        eq = 0
        for k in range(first, first + half):
            i1, e1, j1, f1 = pa[k], pa[k + 1], pb[k], pb[k + 1]
            i2, e2, j2, f2 = pa[k + half], pa[k + half + 1], pb[k + half], pb[k + half + 1]
            while i1 < e1 and j1 < f1 and i2 < e2 and j2 < f2:
                a1, b1, a2, b2 = ma[i1], mb[j1], ma[i2], mb[j2]
                eq += (a1 == b1) + (a2 == b2)
                i1 += a1 <= b1
                j1 += b1 <= a1
                i2 += a2 <= b2
                j2 += b2 <= a2
            eq += _equal_in_row(ma, i1, e1, mb, j1, f1) + _equal_in_row(ma, i2, e2, mb, j2, f2)
        for r in range(first + 2 * half, end):
            eq += _equal_in_row(ma, pa[r], pa[r + 1], mb, pb[r], pb[r + 1])
        total = (pa[end] - pa[first]) + (pb[end] - pb[first])
        sizes[c] = total - eq if union else eq
    return sizes


@numba.njit(parallel=True, **_JIT)
def _write_union_scalar(pa, ma, va, fa, pb, mb, vb, fb, splits, starts, op, out_ptr, out_minor, out_vals):
    """Union of scalar-valued operands (``va``, ``vb``, ``out_vals`` 1-D; ``fa``, ``fb`` scalars):
    the registers-held merge of :func:`.binary.union_scalar_run` per row, one index per entry."""
    nch = splits.shape[0] - 1
    for c in numba.prange(nch):
        o = starts[c]
        for r in range(splits[c], splits[c + 1]):
            o = union_scalar_run(ma, ma, va, fa, mb, mb, vb, fb, 0, pa[r], pa[r + 1], pb[r], pb[r + 1], o,
                                 op, out_minor, out_minor, out_vals)
            out_ptr[r + 1] = o


@numba.njit(inline="always")
def _put(out_minor, out_vals, o, k, op, x, xi, y, yj):
    """Output ``o``: plain index ``k``, values ``op(x[xi], y[yj])`` per dense slot (a fill is a 1-row view)."""
    out_minor[o] = k
    for t in range(out_vals.shape[1]):
        out_vals[o, t] = _apply(op, x[xi, t], y[yj, t])




@numba.njit(parallel=True, **_JIT)
def _write_rows(pa, ma, va, fa, pb, mb, vb, fb, splits, starts, mode, op, out_ptr, out_minor, out_vals):
    """Every mode, any number of values per entry: each chunk's rows from ``starts[c]`` on;
    ``out_ptr[r + 1]`` is set after row ``r``."""
    nch = splits.shape[0] - 1
    keep_a = mode == 0 or mode == 2
    keep_b = mode == 0 or mode == 3
    for c in numba.prange(nch):
        o = starts[c]
        for r in range(splits[c], splits[c + 1]):
            i, iend, j, jend = pa[r], pa[r + 1], pb[r], pb[r + 1]
            while i < iend and j < jend:
                ka, kb = ma[i], mb[j]
                if ka == kb:
                    _put(out_minor, out_vals, o, ka, op, va, i, vb, j)
                    o += 1
                    i += 1
                    j += 1
                elif ka < kb:
                    if keep_a:
                        _put(out_minor, out_vals, o, ka, op, va, i, fb, 0)
                        o += 1
                    i += 1
                else:
                    if keep_b:
                        _put(out_minor, out_vals, o, kb, op, fa, 0, vb, j)
                        o += 1
                    j += 1
            if keep_a:
                while i < iend:
                    _put(out_minor, out_vals, o, ma[i], op, va, i, fb, 0)
                    o += 1
                    i += 1
            if keep_b:
                while j < jend:
                    _put(out_minor, out_vals, o, mb[j], op, fa, 0, vb, j)
                    o += 1
                    j += 1
            out_ptr[r + 1] = o


def merge_apply_rows(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op):
    va, fa, vb, fb = fused_operands("merge_apply_rows", va, fa, vb, fb, mode, op)
    dt = va.dtype
    if ptr_a.ndim != 1 or ptr_a.shape != ptr_b.shape or ptr_a.shape[0] < 1:
        raise ValueError(f"merge_apply_rows: compressed indices must be 1-D of one length; got {ptr_a.shape} and {ptr_b.shape}")
    na, nb = minor_a.shape[0], minor_b.shape[0]
    if va.shape[0] != na or vb.shape[0] != nb:
        raise ValueError(f"merge_apply_rows: values {va.shape}, {vb.shape} do not match {na} and {nb} entries")
    m = va.shape[1]
    idt = np.dtype(np.int32) if ptr_a.dtype == ptr_b.dtype == minor_a.dtype == minor_b.dtype == np.int32 else np.dtype(np.int64)
    pa, pb, ma, mb = (np.ascontiguousarray(x, dtype=idt) for x in (ptr_a, ptr_b, minor_a, minor_b))
    nmajor = pa.shape[0] - 1
    nchunks = chunk_count(na + nb)
    splits = row_splits(pa.astype(np.int64) + pb, nchunks, 1)
    mode_id = MODES[mode]
    if mode_id <= 1:  # union or intersection: count first
        sizes = _chunk_sizes(pa, ma, pb, mb, splits, mode_id == 0)
    else:
        keep = pa if mode_id == 2 else pb
        sizes = np.diff(keep[splits].astype(np.int64))
    starts = np.zeros(nchunks + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    n = int(starts[-1])
    out_dt = idt if n <= _INT32_MAX else np.dtype(np.int64)
    out_ptr = np.empty(nmajor + 1, out_dt)
    out_ptr[0] = 0
    out_minor = np.empty(n, out_dt)
    out_vals = np.empty((n, m), dt)
    if mode_id == 0 and m == 1:
        _write_union_scalar(pa, ma, va.reshape(-1), fa[0, 0], pb, mb, vb.reshape(-1), fb[0, 0], splits, starts,
                            OPS[op], out_ptr, out_minor, out_vals.reshape(-1))
    else:
        _write_rows(pa, ma, va, fa, pb, mb, vb, fb, splits, starts, mode_id, OPS[op], out_ptr, out_minor, out_vals)
    return out_ptr, out_minor, out_vals
