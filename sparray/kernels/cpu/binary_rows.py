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

The work is split by entries, not by rows, so one long row (a power-law graph's hub) spreads over
several threads: the chunk boundaries are keys (row, plain index) taken on the merge path of A's and
B's entries at equal steps of ``na + nb`` (a binary search on the diagonal, then moved to the next
key so that equal keys of A and B stay in one chunk). A chunk covers its rows' entries between its
two boundary keys; a row cut by a boundary is merged in pieces by consecutive chunks, and its
pointer is written by the chunk in which it ends (so no two chunks write one pointer).

Each thread writes one run of consecutive chunks, each chunk where the previous one ended, so only
the first chunk of each thread needs its output offset in advance: a first pass counts the chunks
before the last thread's run (union and intersection; the other modes keep one operand's
pattern, whose counts are known), so on two threads half of the merge is counted, not all of it.
The outputs are allocated for the most the last run can give and cut to the real size afterwards
(a shrink in place: pages never written are never touched). The union of scalar values, the
common ``A + B``, has its own branch-free writer. Every read lies inside a row's
``[ptr[r], ptr[r+1])`` clipped to the chunk, every write inside the allocated bound (a run that
would pass it stops, and the wrapper raises).

>>> import numpy as np
>>> ptr, minor, vals = merge_apply_rows(np.array([0, 1, 2]), np.array([0, 2]), np.array([[1.0], [2.0]]),
...                                     np.zeros(1), np.array([0, 1, 1]), np.array([1]), np.array([[5.0]]),
...                                     np.zeros(1), 3, "union", "add")
>>> ptr.tolist(), minor.tolist(), vals.ravel().tolist()
([0, 2, 3], [0, 1, 2], [1.0, 5.0, 2.0])
"""

import numba
import numpy as np

from .binary import MODES, OPS, _apply, chunk_count, fused_operands
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["merge_apply_rows", "union_into"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_U1 = np.uint64(1)
_INT32_MAX = np.iinfo(np.int32).max
#: the lean union (``A + B``) runs on the calling thread below this many entries of A and B
#: (benchmarks/crossover.py)
UNION_SERIAL_WORK = 1 << 16


@numba.njit(inline="always")
def _equal_in_row(ma, i, iend, mb, j, jend):
    """Number of plain indices present in both rows (a branch-free merge)."""
    n = 0
    if i < iend and j < jend:
        ka, kb = ma[i], mb[j]
        while True:
            n += ka == kb
            i += np.uint64(ka <= kb)
            j += np.uint64(kb <= ka)
            if i >= iend or j >= jend:
                break
            ka, kb = ma[i], mb[j]
    return n


@numba.njit(**_JIT)
def _row_of(ptr, p):
    """The row holding entry ``p`` (``0 <= p < ptr[-1]``): the largest r with ``ptr[r] <= p``."""
    lo, hi = 0, ptr.shape[0] - 2
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if ptr[mid] <= p:
            lo = mid
        else:
            hi = mid - 1
    return lo


@numba.njit(**_JIT)
def _key_less(r1, k1, r2, k2):
    return r1 < r2 or (r1 == r2 and k1 < k2)


@numba.njit(**_JIT)
def _entries_below(ptr, minor, r, k):
    """Entries with a key below (r, k): all of rows < r, and those of row r with plain index < k."""
    if r >= ptr.shape[0] - 1:
        return ptr[ptr.shape[0] - 1]
    lo, hi = ptr[r], ptr[r + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if minor[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(**_JIT)
def _merge_splits(pa, ma, pb, mb, nchunks):
    """Chunk boundaries: ``a[c]``, ``b[c]`` entries of A and B before boundary key c, ``r[c]`` its row
    (``nrows`` for the end). Boundary c is the key at step ``c * (na + nb) // nchunks`` of the
    merged order (a binary search on that diagonal); all entries of A and B with a smaller key lie
    before it, so equal keys never straddle a boundary. Non-decreasing in c."""
    na, nb = ma.shape[0], mb.shape[0]
    nrows = pa.shape[0] - 1
    a = np.zeros(nchunks + 1, np.int64)
    b = np.zeros(nchunks + 1, np.int64)
    r = np.zeros(nchunks + 1, np.int64)
    a[nchunks], b[nchunks], r[nchunks] = na, nb, nrows
    for c in range(1, nchunks):
        t = (na + nb) * c // nchunks
        lo, hi = max(0, t - nb), min(t, na)
        while lo < hi:  # p = how many of the first t merged entries come from A
            mid = (lo + hi) >> 1
            q = t - 1 - mid
            if _key_less(_row_of(pa, mid), ma[mid], _row_of(pb, q), mb[q]):
                lo = mid + 1
            else:
                hi = mid
        p, q = lo, t - lo
        if p < na and (q >= nb or not _key_less(_row_of(pb, q), mb[q], _row_of(pa, p), ma[p])):
            kr, kc = _row_of(pa, p), ma[p]
        elif q < nb:
            kr, kc = _row_of(pb, q), mb[q]
        else:
            kr, kc = nrows, 0
        r[c] = kr
        a[c] = _entries_below(pa, ma, kr, kc)
        b[c] = _entries_below(pb, mb, kr, kc)
    for c in range(1, nchunks + 1):  # keep the bounds monotone whatever the rounding
        a[c] = max(a[c], a[c - 1])
        b[c] = max(b[c], b[c - 1])
        r[c] = max(r[c], r[c - 1])
    return a, b, r


@numba.njit(inline="always")
def _clip(ptr, row, lo, hi):
    """Row ``row``'s entries inside ``[lo, hi)``: the part of the row a chunk merges, as unsigned
    positions (numba adds no negative-index wraparound to reads through them, and the merge loops
    run at one speed whether freshly compiled or loaded from the kernel cache)."""
    return np.uint64(max(np.int64(ptr[row]), lo)), np.uint64(min(np.int64(ptr[row + 1]), hi))


@numba.njit(inline="always")
def _last_row(r, c, nrows):
    """The last row chunk c touches (its end row, or the last row when the chunk runs to the end)."""
    return min(r[c + 1], nrows - 1)


@numba.njit(inline="always")
def _equal_in_row(ma, i, iend, mb, j, jend):
    """Number of plain indices present in both rows (a branch-free merge)."""
    n = 0
    if i < iend and j < jend:
        ka, kb = ma[i], mb[j]
        while True:
            n += ka == kb
            i += np.uint64(ka <= kb)
            j += np.uint64(kb <= ka)
            if i >= iend or j >= jend:
                break
            ka, kb = ma[i], mb[j]
    return n


@numba.njit(parallel=True, **_JIT)
def _chunk_sizes(pa, ma, pb, mb, a, b, r, union):
    """Output entries per chunk: union ``na + nb - equal``, intersection ``equal``.

    Rows ``k`` and ``k + half`` of a chunk are merged in one loop while both last, so that the
    load-compare-advance chains of two rows overlap (a third faster than one row at a time).
    """
    nch = a.shape[0] - 1
    nrows = pa.shape[0] - 1
    sizes = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        a0, a1, b0, b1 = a[c], a[c + 1], b[c], b[c + 1]
        first, last = r[c], _last_row(r, c, nrows)
        half = (last - first + 1) // 2
        eq = 0
        for k in range(first, first + half):
            i1, e1 = _clip(pa, k, a0, a1)
            j1, f1 = _clip(pb, k, b0, b1)
            i2, e2 = _clip(pa, k + half, a0, a1)
            j2, f2 = _clip(pb, k + half, b0, b1)
            while i1 < e1 and j1 < f1 and i2 < e2 and j2 < f2:
                x1, y1, x2, y2 = ma[i1], mb[j1], ma[i2], mb[j2]
                eq += (x1 == y1) + (x2 == y2)
                i1 += np.uint64(x1 <= y1)
                j1 += np.uint64(y1 <= x1)
                i2 += np.uint64(x2 <= y2)
                j2 += np.uint64(y2 <= x2)
            eq += _equal_in_row(ma, i1, e1, mb, j1, f1) + _equal_in_row(ma, i2, e2, mb, j2, f2)
        for k in range(first + 2 * half, last + 1):
            i1, e1 = _clip(pa, k, a0, a1)
            j1, f1 = _clip(pb, k, b0, b1)
            eq += _equal_in_row(ma, i1, e1, mb, j1, f1)
        total = (a1 - a0) + (b1 - b0)
        sizes[c] = total - eq if union else eq
    return sizes


@numba.njit(inline="always")
def _union_run(ma, va, fa, mb, vb, fb, i, iend, j, jend, o, op, out_minor, out):
    """Union of the sorted pieces ``[i, iend)`` of A and ``[j, jend)`` of B written from ``o`` on (scalar
    values, one index per entry); returns the next output position. The current keys and values
    stay in registers between steps, the choice of side is a select, not a branch."""
    if i < iend and j < jend:
        ka, xa = ma[i], va[i]
        kb, xb = mb[j], vb[j]
        while True:
            take_a = ka <= kb
            take_b = kb <= ka
            out_minor[o] = ka if take_a else kb
            out[o] = _apply(op, xa if take_a else fa, xb if take_b else fb)
            o += 1
            i += np.uint64(take_a)
            j += np.uint64(take_b)
            if i >= iend or j >= jend:
                break
            ka, xa = ma[i], va[i]
            kb, xb = mb[j], vb[j]
    while i < iend:
        out_minor[o] = ma[i]
        out[o] = _apply(op, va[i], fb)
        o += 1
        i += _U1
    while j < jend:
        out_minor[o] = mb[j]
        out[o] = _apply(op, fa, vb[j])
        o += 1
        j += _U1
    return o


@numba.njit(inline="always")
def _fits(a, b, c, o, cap):
    """Whether chunk c of a union written from ``o`` stays within ``cap`` outputs whatever its overlap."""
    return o + (a[c + 1] - a[c]) + (b[c + 1] - b[c]) <= cap


@numba.njit(parallel=True, **_JIT)
def _write_union_scalar(pa, ma, va, fa, pb, mb, vb, fb, a, b, r, runs, starts, op, out_ptr, out_minor, out_vals):
    """Union of scalar-valued operands (``va``, ``vb``, ``out_vals`` 1-D; ``fa``, ``fb`` scalars): run
    t of chunks (``runs[t]`` to ``runs[t + 1]``) written from ``starts[t]`` on, each chunk where the
    previous one ended; a chunk writes the pointers of the rows that end in it. Returns each run's
    end (-1 for a run stopped at the allocated bound)."""
    nch = a.shape[0] - 1
    nrows = pa.shape[0] - 1
    cap = out_minor.shape[0]
    nruns = runs.shape[0] - 1
    ends = np.empty(nruns, np.int64)
    for t in numba.prange(nruns):
        o = starts[t]
        for c in range(runs[t], runs[t + 1]):
            if o < 0 or not _fits(a, b, c, o, cap):
                o = -1
                break
            a0, a1, b0, b1 = a[c], a[c + 1], b[c], b[c + 1]
            for k in range(r[c], _last_row(r, c, nrows) + 1):
                i, iend = _clip(pa, k, a0, a1)
                j, jend = _clip(pb, k, b0, b1)
                o = _union_run(ma, va, fa, mb, vb, fb, i, iend, j, jend, o, op, out_minor, out_vals)
                if k < r[c + 1]:
                    out_ptr[k + 1] = o
        ends[t] = o
    return ends


@numba.njit(inline="always")
def _put(out_minor, out_vals, o, k, op, x, xi, y, yj):
    """Output ``o``: plain index ``k``, values ``op(x[xi], y[yj])`` per dense slot (a fill is a 1-row view)."""
    out_minor[o] = k
    for t in range(out_vals.shape[1]):
        out_vals[o, t] = _apply(op, x[xi, t], y[yj, t])


@numba.njit(inline="always")
def _write_chunk(pa, ma, va, fa, pb, mb, vb, fb, a, b, r, c, nrows, keep_a, keep_b, op, o, out_ptr, out_minor, out_vals):
    """Chunk c's row pieces written from ``o`` on; returns the next output position."""
    a0, a1, b0, b1 = a[c], a[c + 1], b[c], b[c + 1]
    for row in range(r[c], _last_row(r, c, nrows) + 1):
        i, iend = _clip(pa, row, a0, a1)
        j, jend = _clip(pb, row, b0, b1)
        while i < iend and j < jend:
            ka, kb = ma[i], mb[j]
            if ka == kb:
                _put(out_minor, out_vals, o, ka, op, va, i, vb, j)
                o += 1
                i += _U1
                j += _U1
            elif ka < kb:
                if keep_a:
                    _put(out_minor, out_vals, o, ka, op, va, i, fb, 0)
                    o += 1
                i += _U1
            else:
                if keep_b:
                    _put(out_minor, out_vals, o, kb, op, fa, 0, vb, j)
                    o += 1
                j += _U1
        if keep_a:
            while i < iend:
                _put(out_minor, out_vals, o, ma[i], op, va, i, fb, 0)
                o += 1
                i += _U1
        if keep_b:
            while j < jend:
                _put(out_minor, out_vals, o, mb[j], op, fa, 0, vb, j)
                o += 1
                j += _U1
        if row < r[c + 1]:
            out_ptr[row + 1] = o
    return o


@numba.njit(parallel=True, **_JIT)
def _write_rows(pa, ma, va, fa, pb, mb, vb, fb, a, b, r, runs, starts, mode, op, out_ptr, out_minor, out_vals):
    """Every mode, any number of values per entry: the runs of chunks of :func:`_write_union_scalar`;
    ``out_ptr[k + 1]`` is set by the chunk in which row ``k`` ends. Returns each run's end (-1 for
    a run stopped at the allocated bound)."""
    nrows = pa.shape[0] - 1
    keep_a = mode == 0 or mode == 2
    keep_b = mode == 0 or mode == 3
    cap = out_minor.shape[0]
    nruns = runs.shape[0] - 1
    ends = np.empty(nruns, np.int64)
    for t in numba.prange(nruns):
        o = starts[t]
        for c in range(runs[t], runs[t + 1]):
            if o < 0:
                break
            most = (a[c + 1] - a[c]) * keep_a + (b[c + 1] - b[c]) * keep_b
            if mode == 1:
                most = min(a[c + 1] - a[c], b[c + 1] - b[c])
            if o + most > cap:
                o = -1
                break
            o = _write_chunk(pa, ma, va, fa, pb, mb, vb, fb, a, b, r, c, nrows, keep_a, keep_b, op, o,
                             out_ptr, out_minor, out_vals)
        ends[t] = o
    return ends


def merge_apply_rows(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op):
    with team(np.size(minor_a) + np.size(minor_b), 1 << 16):
        return _merge_apply_rows_in_team(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op)


def _merge_apply_rows_in_team(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, op):
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
    nruns = numba.get_num_threads() if na + nb >= (1 << 16) and nmajor else 1
    nchunks = chunk_count(na + nb) if nruns > 1 else 1
    a, b, r = _merge_splits(pa, ma, pb, mb, nchunks)
    runs = np.array([nchunks * t // nruns for t in range(nruns + 1)], np.int64)
    mode_id = MODES[mode]
    starts = np.zeros(nruns, np.int64)
    head = runs[-2]  # chunks before the last run: their counts place every run
    if mode_id <= 1:  # union or intersection: count those chunks
        sizes = _chunk_sizes(pa, ma, pb, mb, a[: head + 1], b[: head + 1], r[: head + 1], mode_id == 0) if head else np.zeros(0, np.int64)
        done = np.zeros(head + 1, np.int64)
        np.cumsum(sizes, out=done[1:])
        starts[:] = done[runs[:-1]]
        rest_a, rest_b = a[nchunks] - a[head], b[nchunks] - b[head]
        cap = int(done[-1]) + (rest_a + rest_b if mode_id == 0 else min(rest_a, rest_b))
    else:
        keep = a if mode_id == 2 else b
        starts[:] = keep[runs[:-1]]
        cap = int(keep[nchunks])
    out_dt = idt if cap <= _INT32_MAX else np.dtype(np.int64)
    out_ptr = np.empty(nmajor + 1, out_dt)
    out_ptr[0] = 0
    out_minor = np.empty(cap, out_dt)
    out_vals = np.empty((cap, m), dt)
    if mode_id == 0 and m == 1:
        ends = _write_union_scalar(pa, ma, va.reshape(-1), fa[0, 0], pb, mb, vb.reshape(-1), fb[0, 0],
                                   a, b, r, runs, starts, OPS[op], out_ptr, out_minor, out_vals.reshape(-1))
    else:
        ends = _write_rows(pa, ma, va, fa, pb, mb, vb, fb, a, b, r, runs, starts, mode_id, OPS[op], out_ptr, out_minor, out_vals)
    if (ends < 0).any() or (ends[:-1] != starts[1:]).any():
        raise RuntimeError(f"merge_apply_rows: the counted outputs {starts.tolist()} disagree with the written ones {ends.tolist()}")
    n = int(ends[-1])
    if n < cap:  # shrink in place: pages past n were never written
        out_minor.resize(n, refcheck=False)
        out_vals.resize((n, m), refcheck=False)
    if out_dt != idt and n <= _INT32_MAX:
        out_ptr, out_minor = out_ptr.astype(idt), out_minor.astype(idt)
    return out_ptr, out_minor, out_vals


@numba.njit(**_JIT)
def _union_scalar_serial(pa, ma, va, fa, pb, mb, vb, fb, op, out_ptr, out_minor, out_vals):
    """:func:`_write_union_scalar` as one chunk on the calling thread: every row's union written
    after the row before it. Returns the entries written, or -1 for pointers that do not cut the
    entries into rows. Each row's reads stay inside ``[0, na)`` / ``[0, nb)`` whatever the pointers
    hold (each row's pair is checked before it is read), and a row that could pass the allocated
    bound stops the merge before it writes."""
    na, nb = np.int64(ma.shape[0]), np.int64(mb.shape[0])
    nrows = pa.shape[0] - 1
    cap = out_minor.shape[0]
    o = 0
    out_ptr[0] = 0
    if pa[0] != 0 or pb[0] != 0:
        return -1
    for k in range(nrows):
        if pa[k + 1] < pa[k] or pa[k + 1] > na or pb[k + 1] < pb[k] or pb[k + 1] > nb:
            return -1  # pointers written in place after validation
        i, iend = np.uint64(pa[k]), np.uint64(pa[k + 1])  # inside [0, na]: checked above
        j, jend = np.uint64(pb[k]), np.uint64(pb[k + 1])
        if o + np.int64(iend - i) + np.int64(jend - j) > cap:
            return -1
        o = _union_run(ma, va, fa, mb, vb, fb, i, iend, j, jend, o, op, out_minor, out_vals)
        out_ptr[k + 1] = o
    return o


def union_into(ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, op, serial=None):
    """``(ptr, minor, values)``: ``op`` ("add", "subtract", ...) of two unbatched compressed arrays of
    one shape over the union of their patterns, scalar values (1-D, one dtype of the fused kernels)
    and 0-d fills: :func:`merge_apply_rows` in mode "union" for callers that proved their operands
    (the lean paths: pointers and plain indices 1-D C-contiguous, of one dtype across both arrays,
    the plain indices sorted within each row). On the calling thread below ``UNION_SERIAL_WORK``
    entries, else :func:`merge_apply_rows`' parallel merge (``serial`` True or False forces one;
    the same result)."""
    na, nb = minor_a.shape[0], minor_b.shape[0]
    if not (na + nb < UNION_SERIAL_WORK if serial is None else serial):
        # merge_apply_rows picks its threads (team); on one it still beats the serial loop below at
        # large sizes (1e7 entries: 98 against 155 ms), whose row-at-a-time merge suits small ones
        ptr, minor, vals = merge_apply_rows(ptr_a, minor_a, va.reshape(na, 1), fa, ptr_b, minor_b, vb.reshape(nb, 1), fb,
                                            0, "union", op)
        return ptr, minor, vals.reshape(vals.shape[0])
    cap = na + nb
    idt = ptr_a.dtype
    out_ptr = np.empty(ptr_a.shape[0], idt)
    out_minor = np.empty(cap, idt)
    out_vals = np.empty(cap, va.dtype)
    n = _union_scalar_serial(ptr_a, minor_a, va, va.dtype.type(fa), ptr_b, minor_b, vb, vb.dtype.type(fb), OPS[op],
                             out_ptr, out_minor, out_vals)
    if n < 0:
        raise ValueError("union_into: row pointers must be non-decreasing within [0, nse]")
    if n < cap:
        out_minor.resize(n, refcheck=False)
        out_vals.resize(n, refcheck=False)
    return out_ptr, out_minor, out_vals
