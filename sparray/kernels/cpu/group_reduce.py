"""Reduction of value rows grouped by an integer key: :func:`group_reduce` (the kernel
behind ``sum``/``prod``/``max``/``min`` along an axis).

Three strategies, chosen by the wrapper:

1. keys already non-decreasing (e.g. row indices of a CSR matrix): segmented reduction,
   no sort and no accumulator arrays;
2. *dense*, when ``nkeys <= 4 * n + 65536 // m`` (the accumulators cost at most a few
   times the input): each of T chunks of the input folds its rows into its own
   ``(nkeys, m)`` array, started at the op's identity (no test of whether a slot was seen),
   and ``nkeys`` counts; the T partials are then combined per key in chunk order (max/min
   keep the first NaN) over key ranges in parallel, and compressed to the keys present
   (nothing to compress when every key is present); T is the thread count, capped at
   ``1 + 2 * n // nkeys`` so the accumulators never dwarf the input. Banded keys (a banded
   CSR's columns, found by sampling each chunk: ``_banded.banded_plan``) with one value and
   an inline count per row go into one shared accumulator instead, each chunk owning a
   disjoint window of it (the Poisson CSR's ``max(axis=0)``: 94 -> 58 ms);
3. otherwise a stable radix argsort of the keys (from :mod:`._sort`) and a segmented
   reduction through the permutation.

Floating-point sums from the dense path depend (at rounding level) on the number of
chunks, i.e. on the thread count, and start from +0 (a sum of -0.0 values gives +0.0); the
other two paths reduce each group left to right in input order.
"""

import numpy as np
import numba

from .. import KernelDeclined
from ._common import as_index, chunk_bounds, claim, prefetch_write, row_splits
from ._banded import (
    SPILL, add_fold, banded_chunk, banded_plan, banded_rest, banded_start, put_counted, reset_counted,
)
from ._sort import (
    OP_CODES,
    _as_int64_1d,
    _combine_impl,
    _gt,
    _isnan,
    minmax,
    check_values,
    num_chunks,
    radix_argsort,
    segment_reduce,
    segment_starts,
    sortedness,
    value_view,
)
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["group_reduce", "group_reduce_rows", "dense_threshold", "sum_runs_into"]

_PJIT = dict(cache=True, nogil=True, parallel=True)
_U1 = np.uint64(1)
#: the lean row sums (``sum_runs_into``) run on the calling thread below this many entries plus runs:
#: the two parallel passes of group_reduce_rows cost 50 us of set-up (benchmarks/crossover.py)
RUNS_SERIAL_WORK = 1 << 17
_ROWCOST = 8  # a run's fixed cost in entries, for balancing chunks of runs (R-MAT's many short rows)


def dense_threshold(n, m):
    """Largest ``nkeys`` for which :func:`group_reduce` uses dense accumulators."""
    return 4 * n + 65536 // max(m, 1)


def group_reduce(keys, values, nkeys, op):
    """Reduce the rows of ``values`` that share a key.

    Parameters
    ----------
    keys : int32 or int64[n] (other integer dtypes are cast to int64), values in ``[0, nkeys)``,
        any order, may repeat.
    values : (n, m) array of a supported dtype; the result keeps this dtype (the core
        casts beforehand, e.g. bool to int64 for a sum).
    nkeys : int, exclusive upper bound of the keys.
    op : ``"sum"``, ``"prod"``, ``"max"`` or ``"min"``.  max/min propagate NaN like
        ``numpy.max`` (a group holding a NaN gives NaN); complex max/min compare
        lexicographically (real, then imaginary) like NumPy.  For bool values max is
        ``any`` and min is ``all``; bool sum/prod raise KernelDeclined.

    Returns
    -------
    ukeys : int64[nu], sorted unique keys present.
    acc : (nu, m) array of ``values.dtype``, the reduction per key.
    counts : int64[nu], the number of rows per key.

    ValueError for a key outside ``[0, nkeys)``, mismatched lengths, a bad ``op``;
    KernelDeclined for an unsupported dtype.  Strategy: see the module docstring.

    >>> group_reduce(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3, "sum")
    (array([0, 2]), array([[2.],
           [5.]]), array([1, 2]))
    """
    if op not in OP_CODES:
        raise ValueError(f"op must be one of {sorted(OP_CODES)}, got {op!r}")
    keys = as_index(keys, "keys", "group_reduce")  # int32 keys stay int32 (no 1e7-element copy)
    n = keys.shape[0]
    values = check_values(values, n)
    nkeys = int(nkeys)
    if nkeys < 0:
        raise ValueError(f"nkeys must be >= 0, got {nkeys}")
    if values.dtype == np.bool_ and op in ("sum", "prod"):
        raise KernelDeclined(
            f"group_reduce does not {op} bool values; cast them to an integer dtype first"
        )
    m = values.shape[1]
    dtype = values.dtype
    vv = value_view(values)
    if n == 0:
        return np.empty(0, np.int64), np.empty((0, m), dtype), np.empty(0, np.int64)
    with team(n * m + nkeys):
        return _group_reduce(keys, vv, nkeys, op, dtype)


def _group_reduce(keys, vv, nkeys, op, dtype):
    n, m = vv.shape
    nondecreasing = sortedness(keys)[1]
    if nondecreasing or nkeys > dense_threshold(n, m):
        keys = _as_int64_1d(keys, "keys")  # the sorted and sparse paths (and the keys returned) are int64
        if nondecreasing:
            kmin, kmax = keys[0], keys[-1]
        else:
            kmin, kmax = minmax(keys)
        if kmin < 0 or kmax >= nkeys:
            raise ValueError(
                f"keys must lie in [0, nkeys={nkeys}), found values in [{kmin}, {kmax}]"
            )
        if nondecreasing:
            skeys, perm = keys, None
        else:
            skeys, perm = radix_argsort(keys)
        starts = segment_starts(skeys)  # valid segmentation of [0, n) by construction
        ukeys = skeys[starts[:-1]]
        if perm is None:  # the runs of sorted keys are rows: the tight per-op loops of group_reduce_rows
            _, acc, counts = group_reduce_rows(starts, vv, op)
            return ukeys, acc.view(dtype), counts
        acc = segment_reduce(vv, starts, op, perm)
        return ukeys, acc.view(dtype), np.diff(starts)
    nch = max(1, min(num_chunks(n), 1 + 2 * n // max(nkeys, 1)))
    # a key's count sits beside its values in one row when the value dtype counts exactly (one
    # cache line per row folded, not two: the counts array doubled the cost of random keys)
    inline = vv.dtype in _COUNTING_DTYPES and n < 2**53
    ident = _identity(op, vv.dtype, dtype)
    # banded keys (a banded CSR's columns): chunks own disjoint windows of one accumulator
    plan = banded_plan(keys, nkeys, nch) if inline and m == 1 and nch > 1 else None
    if plan is not None:
        zones, size = plan
        part = np.empty((1, nkeys, 2), vv.dtype)  # counts inline: cnt is its count column, below
        scratch = np.empty((max(size, 1), 2), vv.dtype)
        spill = np.empty((nch, max(4096, n // nch // SPILL)), np.int64)
        nbad = int(_dense_fold_owned(keys, vv.reshape(n), nkeys, OP_CODES[op], part[0], zones, scratch, spill, ident))
    else:
        part = np.empty((nch, nkeys, m + inline), vv.dtype)  # each chunk fills its own slice (its thread's pages)
        cnt = np.empty((nch, 0 if inline else nkeys), np.int64)
        nbad = int(_dense_fold(keys, vv, nkeys, OP_CODES[op], part, cnt, ident, inline).sum())
    if nbad:
        raise ValueError(f"{nbad} keys lie outside [0, nkeys={nkeys})")
    if inline:  # the count column itself, a strided view (complex counts sit in the real part)
        cnt = (part.view(part.real.dtype)[:, :, 2 * m] if part.dtype.kind == "c" else part[:, :, m])
    nr = num_chunks(nkeys, 4096) * 4  # key ranges worked on in parallel
    pres = _dense_merge(part, cnt, OP_CODES[op], nr, m)
    nu = int(pres[-1])
    if nu == nkeys and not inline:  # every key present: already compressed and in order
        return np.arange(nkeys, dtype=np.int64), part[0].view(dtype), cnt[0]
    ukeys = np.empty(nu, np.int64)
    counts = np.empty(nu, np.int64)
    acc = np.empty((nu, m), vv.dtype)
    _dense_compact(part, cnt, pres, ukeys, acc, counts)
    return ukeys, acc.view(dtype), counts


_COUNTING_DTYPES = {np.dtype(t) for t in ("float64", "int64", "uint64", "complex128")}


def _identity(op, view_dtype, dtype):
    """The value every dense accumulator starts from: 0 for sums, 1 for products, the lowest value
    for max (-inf for floats, (-inf, -inf) for complex, False for bool) and the highest for min (a
    NaN never is one: max/min take it from the data)."""
    if op == "sum":
        return view_dtype.type(0)
    if op == "prod":
        return view_dtype.type(1)
    if dtype == np.bool_:
        return view_dtype.type(op == "min")
    if view_dtype.kind in "fc":
        inf = np.inf if op == "min" else -np.inf
        return view_dtype.type(complex(inf, inf) if view_dtype.kind == "c" else inf)
    info = np.iinfo(view_dtype)
    return view_dtype.type(info.max if op == "min" else info.min)


@numba.njit(inline="always")
def _mul(acc, v):
    return acc * v


@numba.njit(inline="always")
def _max_keep_nan(acc, v):
    """_combine_impl's max as a select: v when acc is not NaN and v is NaN or larger (the first NaN stays)."""
    return v if (not _isnan(acc)) and (_isnan(v) or _gt(v, acc)) else acc


@numba.njit(inline="always")
def _min_keep_nan(acc, v):
    return v if (not _isnan(acc)) and (_isnan(v) or _gt(acc, v)) else acc


_AHEAD = np.uint64(32)  # rows between the prefetch of a key's slots and its fold


@numba.njit(inline="always")
def _fold_with(fold, keys, values, uk, a, ct, lo, hi, inline):
    """Rows lo..hi-1 folded into their keys' slots of ``a`` by ``fold`` (inlined: one tight loop per
    op) and counted, in ``a[k, m]`` when ``inline`` else in ``ct``; the slots of the row 32 ahead are
    prefetched (a prefetch never faults, so its key is not tested). Returns the number of keys
    outside [0, uk)."""
    m = values.shape[1]
    nb = 0
    i = lo
    mid = max(lo, hi - _AHEAD) if hi > _AHEAD else lo
    if m == 1 and inline:  # one value and its count per row: flat reads and writes, no row strides
        af = a.reshape(a.size)
        vf = values.reshape(values.size)
        while i < hi:
            if i < mid:
                prefetch_write(a, keys[i + _AHEAD], 0)
            k = np.uint64(np.int64(keys[i]))  # a negative key (int32 or int64) wraps past nkeys
            if k < uk:
                s = k + k
                af[s] = fold(af[s], vf[i])
                af[s + _U1] += 1
            else:
                nb += 1
            i += _U1
        return nb
    while i < hi:
        if i < mid:
            ahead = keys[i + _AHEAD]
            prefetch_write(a, ahead, 0)
            if not inline:
                prefetch_write(ct, ahead, 0)
        k = np.uint64(np.int64(keys[i]))  # a negative key (int32 or int64) wraps past nkeys
        if k < uk:
            for j in range(m):
                a[k, j] = fold(a[k, j], values[i, j])
            if inline:
                a[k, m] += 1
            else:
                ct[k] += 1
        else:
            nb += 1
        i += _U1
    return nb


@numba.njit(**_PJIT)
def _dense_fold(keys, values, nkeys, op, part, cnt, ident, inline):
    """Chunk c fills ``part[c]`` (nkeys, m (+ 1 count column when ``inline``)) with ``ident`` and its
    counts with 0, then folds its rows in, each into the slot of its key, left to right (one tight
    loop per op, no branch on whether a slot was seen: the identity absorbs the first value, and
    max/min keep the first NaN). Keys outside [0, nkeys) are skipped and counted (the wrapper
    raises), so nothing is written out of bounds. Returns the per-chunk bad-key counts."""
    nch = part.shape[0]
    n = keys.shape[0]
    m = values.shape[1]
    uk = np.uint64(nkeys)
    bad = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        a = part[c]
        ct = cnt[c]
        a[:] = ident
        if inline:
            a[:, m] = 0
        else:
            ct[:] = 0
        nb = 0
        lo, hi = chunk_bounds(n, c, nch)
        if op == 0:
            nb = _fold_with(add_fold, keys, values, uk, a, ct, lo, hi, inline)
        elif op == 1:
            nb = _fold_with(_mul, keys, values, uk, a, ct, lo, hi, inline)
        elif op == 2:
            nb = _fold_with(_max_keep_nan, keys, values, uk, a, ct, lo, hi, inline)
        else:
            nb = _fold_with(_min_keep_nan, keys, values, uk, a, ct, lo, hi, inline)
        bad[c] = nb
    return bad


@numba.njit(inline="always")
def _put_op(op, acc, k, v):
    """``_banded.put_counted`` with the op as a number (``_combine_impl``): one row into slot k."""
    acc[k, 0] = _combine_impl(op, acc[k, 0], v)
    acc[k, 1] += 1


@numba.njit(inline="always")
def _join_op(op, acc, k, src, t):
    """Slot t of ``src`` folded into slot k of ``acc``, values (the op as a number) and counts."""
    acc[k, 0] = _combine_impl(op, acc[k, 0], src[t, 0])
    acc[k, 1] += src[t, 1]


@numba.njit(**_PJIT)
def _dense_fold_owned(keys, vf, nkeys, op, part, zones, scratch, spill, ident):
    """``_dense_fold`` for banded keys and one value per row, into one accumulator ``part``
    (nkeys, 2): value and count per key. The zones come from ``_banded.banded_plan``: chunk c
    sets its cell of ``part`` to (``ident``, 0), folds a key of its owned part straight into
    ``part``, one elsewhere in its window into its scratch rows (set the same way; folded in
    after the parallel pass), and spills one outside its window (folded in after that; the chunk
    is rescanned when more than ``spill.shape[1]`` turn up). No private copy of the whole
    accumulator per thread to fill and merge. Keys outside [0, nkeys) are counted, never used
    as addresses. Returns their number. The per-row loop has one copy per op (the op inlined);
    the short serial pass after it takes the op as a number, in one copy (four made this
    kernel's compilation 60% longer)."""
    nch = zones.shape[0]
    n = keys.shape[0]
    uk = np.uint64(nkeys)
    bad = np.zeros(nch, np.int64)
    spilled = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        zone = zones[c]
        banded_start(reset_counted, part, scratch, zone, ident)
        lo, hi = chunk_bounds(n, c, nch)
        if op == 0:
            nb, ns = banded_chunk(add_fold, put_counted, keys, vf, part, scratch, spill, c, lo, hi, zone, uk)
        elif op == 1:
            nb, ns = banded_chunk(_mul, put_counted, keys, vf, part, scratch, spill, c, lo, hi, zone, uk)
        elif op == 2:
            nb, ns = banded_chunk(_max_keep_nan, put_counted, keys, vf, part, scratch, spill, c, lo, hi, zone, uk)
        else:
            nb, ns = banded_chunk(_min_keep_nan, put_counted, keys, vf, part, scratch, spill, c, lo, hi, zone, uk)
        bad[c] = nb
        spilled[c] = ns
    banded_rest(op, _put_op, _join_op, keys, vf, part, scratch, spill, spilled, zones, uk)
    return bad.sum()


@numba.njit(**_PJIT)
def _dense_merge(part, cnt, op, nr, m):
    """Per key range (nr of them, in parallel): the chunks' partials of each key combined into
    ``part[0]`` (chunk order, so max/min keep the first NaN; the first ``m`` columns) and their
    counts summed into ``cnt[0]`` (``cnt`` int64, or the count column of ``part`` itself, a view
    of float64/int64/uint64 counts); returns the inclusive prefix counts of present keys per range
    (``pres[r + 1]``)."""
    nch, nkeys = part.shape[0], part.shape[1]
    pres = np.zeros(nr + 1, np.int64)
    for r in numba.prange(nr):
        npres = 0
        for q in range(nkeys * r // nr, nkeys * (r + 1) // nr):
            tot = cnt[0, q]
            for c in range(1, nch):
                cc = cnt[c, q]
                if cc > 0:
                    tot += cc
                    for j in range(m):
                        part[0, q, j] = _combine_impl(op, part[0, q, j], part[c, q, j])
            cnt[0, q] = tot
            npres += tot > 0
        pres[r + 1] = npres
    for r in range(nr):
        pres[r + 1] += pres[r]
    return pres


@numba.njit(**_PJIT)
def _dense_compact(part, cnt, pres, ukeys, acc, counts):
    """The present keys (count > 0) of each key range, in order, from slot pres[r] on (the same
    ranges as :func:`_dense_merge`, so range r writes exactly ``pres[r]:pres[r + 1]``); the first
    ``acc.shape[1]`` columns of each."""
    nkeys, m = part.shape[1], acc.shape[1]
    nr = pres.shape[0] - 1
    for r in numba.prange(nr):
        o = pres[r]
        for q in range(nkeys * r // nr, nkeys * (r + 1) // nr):
            if cnt[0, q] > 0:
                ukeys[o] = q
                counts[o] = np.int64(cnt[0, q])
                for j in range(m):
                    acc[o, j] = part[0, q, j]
                o += 1


@numba.njit(**_PJIT)
def _count_runs(offsets, n, splits):
    """Per chunk of runs (splits): the non-empty runs, and 1 where a pointer pair is bad (reversed or
    outside [0, n]); nothing is read through a pointer. Branch-free counting (a power-law matrix's
    rows are empty or not at random). Unsigned positions and int64 sums: the loop vectorises (2e6
    runs, 2 threads: 7.5 -> 1.0 ms; signed positions bring numba's wraparound code, which kept it
    scalar)."""
    nch = splits.shape[0] - 1
    cnt = np.zeros(nch, np.int64)
    bad = np.zeros(nch, np.int64)
    n = np.int64(n)
    for c in numba.prange(nch):
        k = np.int64(0)
        b_ = np.int64(0)
        for g in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
            a = np.int64(offsets[g])
            b = np.int64(offsets[g + _U1])
            b_ += np.int64((a < 0) | (b < a) | (b > n))
            k += np.int64(b > a)
        cnt[c] = k
        bad[c] = b_
    return cnt, bad


@numba.njit(inline="always")
def _sum_run(values, a, b, j):
    """Column j of rows a..b-1 (a < b, checked pointers) summed left to right. Positions are unsigned,
    so numba adds no negative-index wraparound to each read (10-20% of the loop)."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    i += _U1
    while i < end:
        acc += values[i, j]
        i += _U1
    return acc


@numba.njit(inline="always")
def _prod_run(values, a, b, j):
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    i += _U1
    while i < end:
        acc *= values[i, j]
        i += _U1
    return acc


@numba.njit(inline="always")
def _max_run(values, a, b, j):
    """max of column j over rows a..b-1 with _combine_impl's rules (the first NaN wins): a select per
    element and a NaN flag, so the loop has no data-dependent branch."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    nan = _isnan(acc)
    i += _U1
    while i < end:
        v = values[i, j]
        acc = v if _gt(v, acc) else acc
        nan |= _isnan(v)
        i += _U1
    if nan:
        return _first_nan(values, a, b, j)
    return acc


@numba.njit(inline="always")
def _min_run(values, a, b, j):
    """min of column j over rows a..b-1: :func:`_max_run` with the comparison reversed."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    nan = _isnan(acc)
    i += _U1
    while i < end:
        v = values[i, j]
        acc = v if _gt(acc, v) else acc
        nan |= _isnan(v)
        i += _U1
    if nan:
        return _first_nan(values, a, b, j)
    return acc


@numba.njit(inline="always")
def _first_nan(values, a, b, j):
    for i in range(a, b):
        if _isnan(values[i, j]):
            return values[i, j]
    return values[a, j]


@numba.njit(inline="always")
def _runs_with(run, offsets, values, lo, hi, k0, kend, runs, acc, counts):
    """The non-empty runs lo..hi-1 reduced by ``run`` (one of the four above, inlined: one tight loop
    per op, no op test per run) into slots k0..kend-1. First the slots are assigned without a
    branch on which runs are empty (each run's index and length go to the current slot, which
    moves on only past a non-empty run; the slot past the last is never written), then the
    non-empty runs are reduced one slot after the other."""
    k = k0
    for g in range(lo, hi):
        a = offsets[g]
        b = offsets[g + 1]
        if k < kend:
            runs[k] = g
            counts[k] = b - a
        k += b > a
    m = values.shape[1]
    for q in range(k0, kend):
        a = offsets[runs[q]]
        b = a + counts[q]
        for j in range(m):
            acc[q, j] = run(values, a, b, j)


@numba.njit(**_PJIT)
def _reduce_runs(offsets, values, op, splits, first, runs, acc, counts):
    """The non-empty runs of each chunk, in order, from slot first[c] on (pointers checked before),
    each reduced left to right."""
    for c in numba.prange(splits.shape[0] - 1):
        lo, hi, k, kend = splits[c], splits[c + 1], first[c], first[c + 1]
        if op == 0:
            _runs_with(_sum_run, offsets, values, lo, hi, k, kend, runs, acc, counts)
        elif op == 1:
            _runs_with(_prod_run, offsets, values, lo, hi, k, kend, runs, acc, counts)
        elif op == 2:
            _runs_with(_max_run, offsets, values, lo, hi, k, kend, runs, acc, counts)
        else:
            _runs_with(_min_run, offsets, values, lo, hi, k, kend, runs, acc, counts)


def group_reduce_rows(offsets, values, op):
    """Reduce the rows of ``values`` in the runs that CSR-style pointers mark: run g is
    ``values[offsets[g]:offsets[g + 1]]`` (the specified elements of row g of a CSR, or column g of a
    CSC), so a reduction along the plain axis needs no keys at all.

    Parameters
    ----------
    offsets : int32/int64[G + 1], offsets[0] = 0, non-decreasing, offsets[-1] = n.
    values : (n, m) array of a supported dtype (kept; bool sum/prod are declined).
    op : ``"sum"``, ``"prod"``, ``"max"`` or ``"min"``, with :func:`group_reduce`'s rules.

    Returns
    -------
    (runs, acc, counts): the non-empty runs g (int64, increasing), their reductions (nu, m), each
    left to right, and their lengths (int64) -- :func:`group_reduce`'s result for the keys
    ``g`` repeated ``offsets[g + 1] - offsets[g]`` times.

    Two parallel passes over chunks of runs balanced by entries: count (and check) the non-empty
    runs, then reduce each into its slot. ValueError naming the first bad pointer; KernelDeclined for
    an unsupported dtype.

    >>> group_reduce_rows(np.array([0, 2, 2, 3]), np.array([[1.0], [2.0], [4.0]]), "sum")
    (array([0, 2]), array([[3.],
           [4.]]), array([2, 1]))
    """
    if op not in OP_CODES:
        raise ValueError(f"op must be one of {sorted(OP_CODES)}, got {op!r}")
    offsets = as_index(offsets, "offsets", "group_reduce_rows")
    if offsets.shape[0] == 0:
        raise ValueError("group_reduce_rows: offsets must have at least one element (offsets[0] = 0)")
    values = np.asarray(values)
    values = check_values(values, values.shape[0] if values.ndim else 0)
    n, m = values.shape
    if values.dtype == np.bool_ and op in ("sum", "prod"):
        raise KernelDeclined(f"group_reduce does not {op} bool values; cast them to an integer dtype first")
    if offsets[0] != 0 or offsets[-1] != n:
        raise ValueError(f"group_reduce_rows: offsets must run from 0 to len(values) = {n}; got {offsets[0]} to {offsets[-1]}")
    G = offsets.shape[0] - 1
    with team(n * m + G):
        splits = row_splits(offsets, max(1, num_chunks(n + G, 1 << 14) * 4), _ROWCOST)
        cnt, bad = _count_runs(offsets, n, splits)
        if bad.any():
            g = int(np.flatnonzero(offsets[1:] < offsets[:-1])[0]) + 1
            raise ValueError(f"group_reduce_rows: offsets must be non-decreasing: offsets[{g}] = {offsets[g]} < offsets[{g - 1}] = {offsets[g - 1]}")
        first = np.zeros(cnt.shape[0] + 1, np.int64)
        np.cumsum(cnt, out=first[1:])
        nu = int(first[-1])
        runs = np.empty(nu, np.int64)
        counts = np.empty(nu, np.int64)
        vv = value_view(values)
        acc = np.empty((nu, m), vv.dtype)
        _reduce_runs(offsets, vv, OP_CODES[op], splits, first, runs, acc, counts)
    return runs, acc.view(values.dtype), counts


@numba.njit(inline="always")
def _sum_row(values, a, b):
    """``values[a:b]`` (a < b, checked) summed left to right from its first element."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i]
    i += _U1
    while i < end:
        acc += values[i]
        i += _U1
    return acc


@numba.njit(inline="always")
def _sum_rows_into(offsets, values, g0, g1, k, runs, sums):
    """The non-empty runs among ``g0 .. g1 - 1`` (checked pointers) summed into ``runs``/``sums``
    from slot ``k`` on, each left to right from its first element; returns the next slot.

    Four runs at a time when none of them is empty: their first ``m`` elements (``m`` the shortest
    length) as four independent chains, then each one's tail. Every run is still summed in its own
    order, so the bits are those of one run after the other; but an add waits for the one before
    it only in its own chain, and four chains hide the adder's latency (1e6 runs of 10, one
    thread: about 4 cycles an entry one run after the other)."""
    g = np.uint64(g0)
    ug1 = np.uint64(g1)
    while g + np.uint64(4) <= ug1:
        a0 = np.uint64(offsets[g])
        a1 = np.uint64(offsets[g + _U1])
        a2 = np.uint64(offsets[g + np.uint64(2)])
        a3 = np.uint64(offsets[g + np.uint64(3)])
        a4 = np.uint64(offsets[g + np.uint64(4)])
        if a1 > a0 and a2 > a1 and a3 > a2 and a4 > a3:
            m = min(min(a1 - a0, a2 - a1), min(a3 - a2, a4 - a3))
            s0 = values[a0]
            s1 = values[a1]
            s2 = values[a2]
            s3 = values[a3]
            for t in range(_U1, m):
                s0 += values[a0 + t]
                s1 += values[a1 + t]
                s2 += values[a2 + t]
                s3 += values[a3 + t]
            for i in range(a0 + m, a1):
                s0 += values[i]
            for i in range(a1 + m, a2):
                s1 += values[i]
            for i in range(a2 + m, a3):
                s2 += values[i]
            for i in range(a3 + m, a4):
                s3 += values[i]
            runs[k] = g
            sums[k] = s0
            runs[k + 1] = g + _U1
            sums[k + 1] = s1
            runs[k + 2] = g + np.uint64(2)
            sums[k + 2] = s2
            runs[k + 3] = g + np.uint64(3)
            sums[k + 3] = s3
            k += 4
        else:
            for r in range(g, g + np.uint64(4)):
                a, b = offsets[r], offsets[r + _U1]
                if b > a:
                    runs[k] = r
                    sums[k] = _sum_row(values, a, b)
                    k += 1
        g += np.uint64(4)
    while g < ug1:
        a, b = offsets[g], offsets[g + _U1]
        if b > a:
            runs[k] = g
            sums[k] = _sum_row(values, a, b)
            k += 1
        g += _U1
    return k


@numba.njit(cache=True, nogil=True)
def _sum_runs_serial(offsets, values, runs, sums):
    """The non-empty runs of ``values`` (1-D) between ``offsets``, each summed left to right as
    ``_sum_run`` sums it, into ``runs`` / ``sums`` in order, on the calling thread. Returns their
    number, or -1 for a pointer below its predecessor or past ``len(values)`` (checked first,
    nothing read through a pointer then)."""
    n = np.int64(values.shape[0])
    G = offsets.shape[0] - 1
    lo = np.int64(offsets[0])
    bad = lo < 0
    for g in range(G):
        hi = np.int64(offsets[g + 1])
        bad |= (hi < lo) | (hi > n)
        lo = hi
    if bad:
        return -1
    return _sum_rows_into(offsets, values, 0, G, 0, runs, sums)


@numba.njit(cache=True, nogil=True, parallel=True)
def _sum_runs_chunks(offsets, values, splits, first, runs, sums, workers):
    """:func:`_sum_rows_into` over the chunks of runs that ``splits`` marks (pointers checked by
    :func:`_count_runs`), chunk c from slot ``first[c]``; the chunks are handed out by claim, so a
    thread whose core is busy elsewhere takes fewer (each writes only its own slots: the same
    sums whoever takes it)."""
    nch = splits.shape[0] - 1
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        c = claim(counter)
        while c < nch:
            _sum_rows_into(offsets, values, splits[c], splits[c + 1], first[c], runs, sums)
            c = claim(counter)


def sum_runs_into(offsets, values, serial=None):
    """``(runs, sums)``: the non-empty runs g (int64, increasing) of the pointers ``offsets`` and the
    sum of each run of ``values`` (1-D, one of the supported dtypes but bool), left to right: the
    sum case of :func:`group_reduce_rows` for callers that proved their operands (the lean paths:
    1-D C-contiguous ``offsets`` of int32/int64 with ``offsets[-1] == len(values)``). On the
    calling thread below ``RUNS_SERIAL_WORK`` entries and runs, else in two parallel passes (the
    runs counted and the pointers checked by :func:`_count_runs`, then :func:`_sum_runs_chunks`;
    ``serial`` True or False forces one); four rows at a time either way (:func:`_sum_rows_into`),
    the same sums. ValueError for a bad pointer.

    >>> sum_runs_into(np.array([0, 2, 2, 5]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    (array([0, 2]), array([ 3., 12.]))
    """
    G = offsets.shape[0] - 1
    n = values.shape[0]
    if not (n + G < RUNS_SERIAL_WORK if serial is None else serial):
        with team(n + G) as T:
            splits = row_splits(offsets, max(1, num_chunks(n + G, 1 << 14) * 4), _ROWCOST)
            cnt, bad = _count_runs(offsets, n, splits)
            if bad.any():
                raise ValueError("sum_runs_into: offsets must start at 0, never decrease and end at len(values)")
            first = np.zeros(cnt.shape[0] + 1, np.int64)
            np.cumsum(cnt, out=first[1:])
            nu = int(first[-1])
            runs = np.empty(nu, np.int64)
            sums = np.empty(nu, values.dtype)
            _sum_runs_chunks(offsets, values, splits, first, runs, sums, T)
        return runs, sums
    runs = np.empty(G, np.int64)
    sums = np.empty(G, values.dtype)
    nu = _sum_runs_serial(offsets, values, runs, sums)
    if nu < 0:
        raise ValueError("sum_runs_into: offsets must start at 0, never decrease and end at len(values)")
    return runs[:nu], sums[:nu]

