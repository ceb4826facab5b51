"""Fused merge-and-apply for the common binary element-wise ops on two coalesced COO arrays.

``merge_apply(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op) -> (out_idx, out_vals)``

- ``idx_a`` (s, na), ``idx_b`` (s, nb): index arrays of two coalesced arrays over the same
  sparse shape (unique, row-major sorted, range-checked by the core); int32 or int64.
- ``va`` (na, m), ``vb`` (nb, m): values of ONE dtype (float32/64, int32/64; complex values take
  the general route, since one kernel per op would multiply compile time);
  ``fa``, ``fb`` (m,): the fills, same dtype.
- ``mode``: "union", "intersection", "left" (A's positions) or "right" (B's positions).
- ``op``: "add", "subtract", "multiply", "divide" (floats), "maximum", "minimum" (real; NaN
  propagates as in NumPy).

Returns the merged index array (s, n) (int32 when both inputs are int32, else int64) and the
values ``op(a or fa, b or fb)`` (n, m). Unlike the general route (merge_pattern + gathers +
NumPy function) it makes one pass that computes linear keys on the fly, copies index columns
instead of unravelling keys, and applies the op in place: no position or gather arrays.

Work splits into chunks of the key range (quantiles of the larger operand, binary search in the
other); each chunk is counted, then written at its prefix-sum offset. Scalar values over one or two
sparse dims (vectors and matrices, the common case) take specialised kernels that keep the current
keys in registers and, when counting, run two chunks interleaved in one loop so that the
load-compare-advance chains of both overlap: about twice the speed of the generic loops. Every read is inside
``[0, na)`` / ``[0, nb)`` by the loop bounds, every write inside the counted total.

>>> import numpy as np
>>> idx, vals = merge_apply(np.array([[0, 2]]), np.array([[1.0], [2.0]]), np.zeros(1),
...                         np.array([[2, 3]]), np.array([[5.0], [7.0]]), np.zeros(1), (4,), "union", "add")
>>> idx.tolist(), vals.ravel().tolist()
([[0, 2, 3]], [1.0, 7.0, 7.0])
"""

import numba
import numpy as np
from numba import types
from numba.extending import overload

from .. import KernelDeclined
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["merge_apply", "OPS", "MODES", "fused_operands", "chunk_count", "union_scalar_run"]

OPS = {"add": 0, "subtract": 1, "multiply": 2, "divide": 3, "maximum": 4, "minimum": 5}
MODES = {"union": 0, "intersection": 1, "left": 2, "right": 3}
_DTYPES = {np.dtype(t) for t in ("float32", "float64", "int32", "int64")}  # complex: the general route
_JIT = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(inline="always")
def _key(idx, strides, j):
    k = np.int64(0)
    for d in range(idx.shape[0]):
        k += np.int64(idx[d, j]) * strides[d]
    return k


def _divide(x, y):
    """``x / y`` for floats; for integers (whose division the wrappers decline) ``x`` itself, so
    that :func:`_apply` keeps the integer type: were one branch to return float64, numba would
    unify every branch to float64 and integer sums past 2**53 would be rounded."""


@overload(_divide, inline="always")
def _divide_typed(x, y):
    if isinstance(x, types.Integer):
        return lambda x, y: x
    return lambda x, y: x / y


@numba.njit(inline="always")
def _apply(op, x, y):
    if op == 0:
        return x + y
    if op == 1:
        return x - y
    if op == 2:
        return x * y
    if op == 3:
        return _divide(x, y)
    if op == 4:  # maximum with NaN propagation (x != x only for NaN)
        if x != x:
            return x
        if y != y:
            return y
        return x if x >= y else y
    if x != x:
        return x
    if y != y:
        return y
    return x if x <= y else y


@numba.njit(inline="always")
def _emit(out_idx, out_vals, o, idx, col, op, x, xi, y, yj):
    """Write output ``o``: index column ``col`` of ``idx``, values ``op(x[xi], y[yj])`` per dense slot.

    ``x``/``y`` are 2-d values (row ``xi``/``yj``) or a fill given as a 1-row 2-d view (row 0).
    """
    for d in range(idx.shape[0]):
        out_idx[d, o] = idx[d, col]
    for t in range(out_vals.shape[1]):
        out_vals[o, t] = _apply(op, x[xi, t], y[yj, t])


@numba.njit(**_JIT)
def _lower_bound(idx, strides, n, key):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if _key(idx, strides, mid) < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(**_JIT)
def _split(ia, ib, strides, nchunks):
    """Chunk bounds in both operands: chunk c holds the keys in [K_c, K_{c+1}) of each."""
    na, nb = ia.shape[1], ib.shape[1]
    ab = np.empty(nchunks + 1, np.int64)
    bb = np.empty(nchunks + 1, np.int64)
    ab[0] = 0
    bb[0] = 0
    ab[nchunks] = na
    bb[nchunks] = nb
    for c in range(1, nchunks):
        if na >= nb:
            p = c * na // nchunks
            ab[c] = p
            bb[c] = _lower_bound(ib, strides, nb, _key(ia, strides, p)) if p < na else nb
        else:
            p = c * nb // nchunks
            bb[c] = p
            ab[c] = _lower_bound(ia, strides, na, _key(ib, strides, p)) if p < nb else na
    return ab, bb


@numba.njit(parallel=True, **_JIT)
def _equal_keys(ia, ib, strides, ab, bb):
    """Number of keys present in both operands, per chunk (a branch-free merge)."""
    nch = ab.shape[0] - 1
    eq = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        i, iend, j, jend = ab[c], ab[c + 1], bb[c], bb[c + 1]
        n = 0
        while i < iend and j < jend:
            ka = _key(ia, strides, i)
            kb = _key(ib, strides, j)
            n += ka == kb
            i += ka <= kb
            j += kb <= ka
        eq[c] = n
    return eq


@numba.njit(inline="always")
def _step_2d(ar, ac, br, bc, ncols, i, j):
    """One merge step over (row, col) pairs: the advanced positions and whether the keys matched."""
    ka = ar[i] * ncols + ac[i]
    kb = br[j] * ncols + bc[j]
    return i + (ka <= kb), j + (kb <= ka), ka == kb


@numba.njit(parallel=True, **_JIT)
def _equal_keys_2d(ar, ac, br, bc, ncols, ab, bb):
    """``_equal_keys`` for keys ``row * ncols + col``, two chunks (p and p + half) merged in one loop."""
    nch = ab.shape[0] - 1
    half = (nch + 1) // 2
    eq = np.zeros(nch, np.int64)
    for p in numba.prange(half):
        c1, c2 = p, p + half
        i1, e1, j1, f1 = ab[c1], ab[c1 + 1], bb[c1], bb[c1 + 1]
        i2, e2, j2, f2 = 0, 0, 0, 0  # empty second stream when nch is odd and c2 == nch
        if c2 < nch:
            i2, e2, j2, f2 = ab[c2], ab[c2 + 1], bb[c2], bb[c2 + 1]
        n1 = 0
        n2 = 0
        while i1 < e1 and j1 < f1 and i2 < e2 and j2 < f2:
            i1, j1, x1 = _step_2d(ar, ac, br, bc, ncols, i1, j1)
            i2, j2, x2 = _step_2d(ar, ac, br, bc, ncols, i2, j2)
            n1 += x1
            n2 += x2
        while i1 < e1 and j1 < f1:
            i1, j1, x1 = _step_2d(ar, ac, br, bc, ncols, i1, j1)
            n1 += x1
        while i2 < e2 and j2 < f2:
            i2, j2, x2 = _step_2d(ar, ac, br, bc, ncols, i2, j2)
            n2 += x2
        eq[c1] = n1
        if c2 < nch:
            eq[c2] = n2
    return eq


@numba.njit(inline="always")
def union_scalar_run(ar, ac, va, fa, br, bc, vb, fb, ncols, i, iend, j, jend, o, op, orow, ocol, out):
    """Union of the sorted runs ``[i, iend)`` of A and ``[j, jend)`` of B written from ``o`` on;
    returns the next output position. Scalar values (``va``, ``vb``, ``out`` 1-D; ``fa``, ``fb``
    scalars); keys ``row * ncols + col``. The keys and values of the current positions stay in
    registers between steps (about twice the speed of reloading them through index loops).

    One index per entry (a vector, or a CSR row's plain indices) passes its index array as both
    ``ar`` and ``ac`` with ``ncols == 0`` (key = the index) and its output as both ``orow`` and
    ``ocol`` (both writes store the same value).
    """
    if i < iend and j < jend:
        ra, ca, xa = ar[i], ac[i], va[i]
        rb, cb, xb = br[j], bc[j], vb[j]
        while True:
            ka = ra * ncols + ca
            kb = rb * ncols + cb
            take_a = ka <= kb
            take_b = kb <= ka
            orow[o] = ra if take_a else rb
            ocol[o] = ca if take_a else cb
            out[o] = _apply(op, xa if take_a else fa, xb if take_b else fb)
            o += 1
            i += take_a
            j += take_b
            if i >= iend or j >= jend:
                break
            ra, ca, xa = ar[i], ac[i], va[i]
            rb, cb, xb = br[j], bc[j], vb[j]
    while i < iend:
        orow[o] = ar[i]
        ocol[o] = ac[i]
        out[o] = _apply(op, va[i], fb)
        o += 1
        i += 1
    while j < jend:
        orow[o] = br[j]
        ocol[o] = bc[j]
        out[o] = _apply(op, fa, vb[j])
        o += 1
        j += 1
    return o


@numba.njit(parallel=True, **_JIT)
def _write_union_2d(ar, ac, va, fa, br, bc, vb, fb, ncols, ab, bb, offsets, op, orow, ocol, out):
    """Union of scalar-valued (row, col) operands, chunk by chunk (see :func:`union_scalar_run`)."""
    nch = ab.shape[0] - 1
    for c in numba.prange(nch):
        union_scalar_run(ar, ac, va, fa, br, bc, vb, fb, ncols, ab[c], ab[c + 1], bb[c], bb[c + 1], offsets[c],
                         op, orow, ocol, out)


@numba.njit(parallel=True, **_JIT)
def _write_union(ia, va, fa, ib, vb, fb, strides, ab, bb, offsets, op, out_idx, out_vals):
    """Union: one output per merge step, chosen with selects rather than branches."""
    nch = ab.shape[0] - 1
    s = ia.shape[0]
    m = va.shape[1]
    for c in numba.prange(nch):
        i, iend, j, jend = ab[c], ab[c + 1], bb[c], bb[c + 1]
        o = offsets[c]
        while i < iend and j < jend:
            ka = _key(ia, strides, i)
            kb = _key(ib, strides, j)
            take_a = ka <= kb
            take_b = kb <= ka
            for d in range(s):
                out_idx[d, o] = ia[d, i] if take_a else ib[d, j]
            for t in range(m):
                x = va[i, t] if take_a else fa[0, t]
                y = vb[j, t] if take_b else fb[0, t]
                out_vals[o, t] = _apply(op, x, y)
            o += 1
            i += take_a
            j += take_b
        _tails(ia, va, fa, ib, vb, fb, i, iend, j, jend, o, True, True, op, out_idx, out_vals)


@numba.njit(parallel=True, **_JIT)
def _write(ia, va, fa, ib, vb, fb, strides, ab, bb, offsets, mode, op, out_idx, out_vals):
    """Intersection, left and right patterns (``fa``/``fb`` arrive as 1-row 2-d arrays)."""
    nch = ab.shape[0] - 1
    keep_a = mode == 2
    keep_b = mode == 3
    for c in numba.prange(nch):
        i, iend, j, jend = ab[c], ab[c + 1], bb[c], bb[c + 1]
        o = offsets[c]
        while i < iend and j < jend:
            ka = _key(ia, strides, i)
            kb = _key(ib, strides, j)
            if ka == kb:
                _emit(out_idx, out_vals, o, ia, i, op, va, i, vb, j)
                o += 1
                i += 1
                j += 1
            elif ka < kb:
                if keep_a:
                    _emit(out_idx, out_vals, o, ia, i, op, va, i, fb, 0)
                    o += 1
                i += 1
            else:
                if keep_b:
                    _emit(out_idx, out_vals, o, ib, j, op, fa, 0, vb, j)
                    o += 1
                j += 1
        _tails(ia, va, fa, ib, vb, fb, i, iend, j, jend, o, keep_a, keep_b, op, out_idx, out_vals)


@numba.njit(inline="always")
def _tails(ia, va, fa, ib, vb, fb, i, iend, j, jend, o, keep_a, keep_b, op, out_idx, out_vals):
    """After one side of a chunk ran out: the rest of the other side, if its pattern is kept."""
    if keep_a:
        while i < iend:
            _emit(out_idx, out_vals, o, ia, i, op, va, i, fb, 0)
            o += 1
            i += 1
    if keep_b:
        while j < jend:
            _emit(out_idx, out_vals, o, ib, j, op, fa, 0, vb, j)
            o += 1
            j += 1


def fused_operands(who, va, fa, vb, fb, mode, op):
    """The checks every fused merge kernel makes: ``op`` and ``mode`` known, values ``(n, m)`` of
    one supported dtype. Returns ``va``, ``vb`` C-contiguous and the fills as ``(1, m)`` rows.
    KernelDeclined for an op, dtype or pairing without a kernel; ValueError for bad arguments."""
    if op not in OPS:
        raise KernelDeclined(f"op {op!r} has no fused kernel (fused: {', '.join(OPS)})")
    if mode not in MODES:
        raise ValueError(f"{who}: mode must be one of {tuple(MODES)}; got {mode!r}")
    va, vb = np.ascontiguousarray(va), np.ascontiguousarray(vb)
    dt = va.dtype
    if vb.dtype != dt or dt not in _DTYPES:
        raise KernelDeclined(f"values of dtypes {va.dtype}/{vb.dtype}: the fused kernel takes one of {sorted(map(str, _DTYPES))}")
    if op == "divide" and dt.kind in "iu":
        raise KernelDeclined(f"{op} on {dt} has no fused kernel")
    if va.ndim != 2 or vb.ndim != 2 or va.shape[1] != vb.shape[1]:
        raise ValueError(f"{who}: values must be (n, m) with one m; got {va.shape} and {vb.shape}")
    m = va.shape[1]
    fa = np.ascontiguousarray(np.broadcast_to(np.asarray(fa, dtype=dt), (m,))).reshape(1, m)
    fb = np.ascontiguousarray(np.broadcast_to(np.asarray(fb, dtype=dt), (m,))).reshape(1, m)
    return va, fa, vb, fb


def chunk_count(entries):
    """Chunks of work for ``entries`` merged entries: one below 2**16, else four per thread."""
    return 1 if entries < (1 << 16) else 4 * numba.get_num_threads()


def merge_apply(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op):
    with team(np.size(idx_a) + np.size(idx_b), 1 << 16):
        return _merge_apply_in_team(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op)


def _merge_apply_in_team(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op):
    va, fa, vb, fb = fused_operands("merge_apply", va, fa, vb, fb, mode, op)
    dt = va.dtype
    s = len(sparse_shape)
    if idx_a.ndim != 2 or idx_b.ndim != 2 or idx_a.shape[0] != s or idx_b.shape[0] != s:
        raise ValueError(f"merge_apply: index arrays must be ({s}, n); got {idx_a.shape} and {idx_b.shape}")
    if va.shape[0] != idx_a.shape[1] or vb.shape[0] != idx_b.shape[1]:
        raise ValueError(f"merge_apply: values {va.shape}, {vb.shape} do not match indices {idx_a.shape}, {idx_b.shape}")
    m = va.shape[1]
    if idx_a.dtype != idx_b.dtype:
        idx_a, idx_b = idx_a.astype(np.int64), idx_b.astype(np.int64)
    idx_a, idx_b = np.ascontiguousarray(idx_a), np.ascontiguousarray(idx_b)
    strides = np.empty(s, np.int64)
    acc = 1
    for d in range(s - 1, -1, -1):
        strides[d] = acc
        acc *= int(sparse_shape[d])
    total_in = idx_a.shape[1] + idx_b.shape[1]
    nchunks = chunk_count(total_in)
    ab, bb = _split(idx_a, idx_b, strides, nchunks)
    fast = s in (1, 2) and m == 1  # scalar values over a vector or a matrix: the 2-d kernels
    if fast:
        ar, ac = idx_a[0], idx_a[s - 1]
        br, bc = idx_b[0], idx_b[s - 1]
        ncols = np.int64(sparse_shape[1]) if s == 2 else np.int64(0)
    counts = np.diff(ab) if mode == "left" else np.diff(bb)
    if mode in ("union", "intersection"):
        eq = _equal_keys_2d(ar, ac, br, bc, ncols, ab, bb) if fast else _equal_keys(idx_a, idx_b, strides, ab, bb)
        counts = np.diff(ab) + np.diff(bb) - eq if mode == "union" else eq
    offsets = np.zeros(nchunks + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    n = int(offsets[-1])
    out_idx = np.empty((s, n), dtype=idx_a.dtype)
    out_vals = np.empty((n, m), dtype=dt)
    if mode == "union" and fast:
        _write_union_2d(ar, ac, va.reshape(-1), fa[0, 0], br, bc, vb.reshape(-1), fb[0, 0], ncols,
                        ab, bb, offsets, OPS[op], out_idx[0], out_idx[s - 1], out_vals.reshape(-1))
    elif mode == "union":
        _write_union(idx_a, va, fa, idx_b, vb, fb, strides, ab, bb, offsets, OPS[op], out_idx, out_vals)
    else:
        _write(idx_a, va, fa, idx_b, vb, fb, strides, ab, bb, offsets, MODES[mode], OPS[op], out_idx, out_vals)
    return out_idx, out_vals
